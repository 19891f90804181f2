"""The schema of a saved decision tree, checked once when the file is read: every field's
type and range, and that the nodes form one tree listed root first — so that a damaged
or hand-edited file is refused with the field it got wrong (``nodes[3].children[1]``),
never found out later by a crash or a loop.

    nodes[0] is the root (depth 0); every other node is the child of exactly one node
    listed before it, at its depth + 1; a node with a test has one child per branch, a
    leaf none; counts are len(classes) whole numbers ≥ 0, not all 0

>>> check_document({"format": "bbn decision tree", "version": 1}, "t.json")
Traceback (most recent call last):
    ...
bbn.core.errors.DataError: t.json: parameters: missing (a saved decision tree has it)
"""

from __future__ import annotations

import math
import os

from bbn.core.errors import DataError

#: The kinds of column (bbn.tasks.trees.features.KINDS).
KINDS = ("categorical", "continuous")
#: The decision tree's parameters a file may set (DecisionTree's constructor).
PARAMETERS = ("criterion", "split", "max_depth", "min_samples_split", "min_gain", "pruning",
              "penalty", "validation_fraction", "random_state", "features", "missing")


class _Where:
    """A field's place in the document, for messages: ``nodes[3].test.column``."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = path

    def error(self, field: str, message: str) -> DataError:
        return DataError(f"{self.path}: {field}: {message}")


def _get(where: _Where, mapping: dict, key: str, field: str):
    if key not in mapping:
        raise where.error(field, "missing (a saved decision tree has it)")
    return mapping[key]


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


def _integer(where: _Where, value, field: str, low: int, high: int | None = None) -> int:
    if type(value) is not int or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f"≥ {low}"
        raise where.error(field, f"expected a whole number {span}, found {value!r:.40}")
    return value


def _number(where: _Where, value, field: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise where.error(field, f"expected a finite number, found {value!r:.40}")
    return float(value)


def _list(where: _Where, value, field: str, item_types: tuple = (), empty: bool = True) -> list:
    if type(value) is not list:
        raise where.error(field, f"expected a list, found {_kind(value)}")
    if not empty and not value:
        raise where.error(field, "expected a list with at least one item, found []")
    for i, item in enumerate(value):
        if item_types and type(item) not in item_types:
            wanted = " or ".join(t.__name__ for t in item_types)
            raise where.error(f"{field}[{i}]", f"expected {wanted}, found {_kind(item)}")
    return value


def check_document(document, path: str | os.PathLike) -> None:
    """Refuse, naming the field, anything in a parsed tree file that is not a tree
    :func:`bbn.tasks.trees.files.save_tree` could have written.

    Parameters
    ----------
    document : object
        The parsed JSON.
    path : str or os.PathLike
        The file, for messages.

    Raises
    ------
    DataError
        ``path: field: what was expected, what was found``.

    Examples
    --------
    >>> check_document([], "t.json")
    Traceback (most recent call last):
        ...
    bbn.core.errors.DataError: t.json: the document: expected a JSON object, found list
    """
    where = _Where(path)
    if type(document) is not dict:
        raise where.error("the document", f"expected a JSON object, found {_kind(document)}")
    parameters = _get(where, document, "parameters", "parameters")
    if type(parameters) is not dict:
        raise where.error("parameters", f"expected an object, found {_kind(parameters)}")
    for name, value in parameters.items():
        if name not in PARAMETERS:
            raise where.error(f"parameters.{name}", "not a parameter of DecisionTree (it has "
                              f"{', '.join(PARAMETERS)})")
        if type(value) not in (str, int, float, bool, type(None), list):
            raise where.error(f"parameters.{name}", f"expected a value, found {_kind(value)}")
    classes = _list(where, _get(where, document, "classes", "classes"), "classes",
                    (str, int, float, bool), empty=False)
    if len(set(map(repr, classes))) < len(classes):
        raise where.error("classes", "a class is listed twice")
    if type(_get(where, document, "class_name", "class_name")) is not str:
        raise where.error("class_name", "expected a string")
    states = _check_features(where, _get(where, document, "features", "features"))
    _check_nodes(where, _get(where, document, "nodes", "nodes"), len(classes), states)


def _check_features(where: _Where, features) -> list[int | None]:
    """The features' fields; the number of states of each column (None: continuous)."""
    if type(features) is not dict:
        raise where.error("features", f"expected an object, found {_kind(features)}")
    names = _list(where, _get(where, features, "names", "features.names"), "features.names",
                  (str,))
    if len(set(names)) < len(names):
        raise where.error("features.names", "a name is listed twice")
    kinds = _list(where, _get(where, features, "kinds", "features.kinds"), "features.kinds",
                  (str,))
    if len(kinds) != len(names):
        raise where.error("features.kinds", f"{len(kinds)} kinds for {len(names)} names")
    for i, kind in enumerate(kinds):
        if kind not in KINDS:
            raise where.error(f"features.kinds[{i}]", f"expected one of {', '.join(KINDS)}, "
                              f"found {kind!r:.40}")
    states = _get(where, features, "states", "features.states")
    if type(states) is not dict:
        raise where.error("features.states", f"expected an object, found {_kind(states)}")
    counts: list[int | None] = []
    for name, kind in zip(names, kinds):
        if kind == "continuous":
            counts.append(None)
            continue
        listed = _list(where, _get(where, states, name, f"features.states.{name}"),
                       f"features.states.{name}", (str,))
        if len(set(listed)) < len(listed):
            raise where.error(f"features.states.{name}", "a state is listed twice")
        counts.append(len(listed))
    for name in states:
        if name not in names or kinds[names.index(name)] != "categorical":
            raise where.error(f"features.states.{name}", "not a categorical feature")
    if type(_get(where, features, "named", "features.named")) is not bool:
        raise where.error("features.named", "expected true or false")
    return counts


def _check_nodes(where: _Where, nodes, n_classes: int, states: list[int | None]) -> None:
    """Each node's fields, and that the nodes form one tree listed root first."""
    _list(where, nodes, "nodes", (dict,), empty=False)
    parent = [-1] * len(nodes)
    for i, node in enumerate(nodes):
        field = f"nodes[{i}]"
        counts = _list(where, _get(where, node, "counts", f"{field}.counts"),
                       f"{field}.counts", (int,))
        if len(counts) != n_classes:
            raise where.error(f"{field}.counts", f"{len(counts)} counts for {n_classes} "
                              "classes")
        for j, count in enumerate(counts):
            _integer(where, count, f"{field}.counts[{j}]", 0, 2**62)
        if not sum(counts):
            raise where.error(f"{field}.counts", "all 0: a node holds at least one row")
        depth = _integer(where, _get(where, node, "depth", f"{field}.depth"), f"{field}.depth",
                         0)
        expected = 0 if i == 0 else nodes[parent[i]]["depth"] + 1 if parent[i] >= 0 else None
        if expected is None:
            raise where.error(field, "no node before it lists it as a child (the nodes are "
                              "listed root first, parents before children)")
        if depth != expected:
            raise where.error(f"{field}.depth", f"{depth}, but the node is at depth {expected}")
        children = _list(where, _get(where, node, "children", f"{field}.children"),
                         f"{field}.children", (int,))
        for j, child in enumerate(children):
            _integer(where, child, f"{field}.children[{j}]", i + 1, len(nodes) - 1)
            if parent[child] >= 0:
                raise where.error(f"{field}.children[{j}]", f"node {child} is already a child "
                                  f"of node {parent[child]}")
            parent[child] = i
        test = node.get("test")
        if test is None:
            if children:
                raise where.error(f"{field}.children", "a node without a test has no children")
            continue
        _check_test(where, test, f"{field}.test", len(children), states)


def _check_test(where: _Where, test, field: str, n_children: int,
                states: list[int | None]) -> None:
    if type(test) is not dict:
        raise where.error(field, f"expected an object, found {_kind(test)}")
    column = _integer(where, _get(where, test, "column", f"{field}.column"), f"{field}.column",
                      0, len(states) - 1)
    for key in ("gain", "score"):
        _number(where, _get(where, test, key, f"{field}.{key}"), f"{field}.{key}")
    threshold = _get(where, test, "threshold", f"{field}.threshold")
    branches = _get(where, test, "branches", f"{field}.branches")
    if states[column] is None:  # continuous: x ≤ threshold to the first child, else the second
        _number(where, threshold, f"{field}.threshold")
        if branches is not None:
            raise where.error(f"{field}.branches", "a test on a continuous column has none")
        wanted = 2
    else:
        if threshold is not None:
            raise where.error(f"{field}.threshold", "a test on a categorical column has none")
        _list(where, branches, f"{field}.branches", (int,))
        if len(branches) != states[column]:
            raise where.error(f"{field}.branches", f"{len(branches)} branches for "
                              f"{states[column]} states")
        for j, branch in enumerate(branches):
            _integer(where, branch, f"{field}.branches[{j}]", -1, max(n_children - 1, -1))
        wanted = max(branches, default=-1) + 1
    if n_children != wanted or wanted == 0:
        raise where.error(field, f"{n_children} children for {wanted} branches")

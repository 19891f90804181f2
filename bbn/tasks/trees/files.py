"""A fitted decision tree as a JSON file, written atomically.

The file is one JSON object:

.. code-block:: text

    {"format": "bbn decision tree", "version": 1,
     "parameters": {"criterion": "entropy", ...},        # the constructor's arguments
     "classes": ["no", "yes"], "class_name": "play",
     "features": {"names": [...], "kinds": ["categorical", ...],
                  "states": {"outlook": ["overcast", "rainy", "sunny"], ...},
                  "named": true},
     "nodes": [{"counts": [5, 9], "depth": 0, "children": [1, 2, 5],
                "test": {"column": 0, "threshold": null, "branches": [0, 1, 2],
                         "gain": 0.2467, "score": 0.2467}}, ...]}

``nodes`` lists every node in :func:`bbn.tasks.trees.nodes.walk` order (the root first);
``children`` are indices into that list and ``test`` is absent from a leaf. A threshold
test sends x ≤ threshold to the first child; ``branches`` gives the child of every state
of a categorical column (−1: none). A ``.gz`` name is gzipped.

>>> import bbn, os, tempfile
>>> tree = bbn.DecisionTree().fit([["a"], ["b"]], ["x", "y"])
>>> path = os.path.join(tempfile.mkdtemp(), "tree.json")
>>> save_tree(tree, path)
>>> bbn.load_tree(path).predict([["b"]]).tolist()
['y']
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

import numpy as np

from bbn.core.errors import DataError
from bbn.io.formats import read_text, write_atomically
from bbn.tasks.trees.features import FeatureSpace
from bbn.tasks.trees.nodes import Node, Test, walk
from bbn.tasks.trees.tree_schema import check_document

FORMAT = "bbn decision tree"
VERSION = 1


def tree_json(tree) -> str:
    """The JSON text of a fitted :class:`~bbn.tasks.trees.decision_tree.DecisionTree`.

    Parameters
    ----------
    tree : DecisionTree
        Fitted.

    Returns
    -------
    str

    Raises
    ------
    NotFittedError
        Before ``fit``.
    DataError
        A parameter that JSON cannot hold.

    Examples
    --------
    >>> import bbn
    >>> json.loads(tree_json(bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"])))["classes"]
    ['a', 'b']
    """
    nodes = tree.nodes()
    number = {id(n): i for i, n in enumerate(nodes)}
    space = tree.feature_space_
    listed = []
    for node in nodes:
        entry = {"counts": node.counts.tolist(), "depth": node.depth,
                 "children": [number[id(c)] for c in node.children]}
        if node.test is not None:
            test = node.test
            entry["test"] = {"column": test.column, "threshold": test.threshold,
                             "branches": None if test.branches is None else list(test.branches),
                             "gain": test.gain, "score": test.score}
        listed.append(entry)
    document = {"format": FORMAT, "version": VERSION,
                "parameters": tree.get_params(deep=False),
                "classes": tree.classes_.tolist(), "class_name": tree.class_name_,
                "features": {"names": list(space.names), "kinds": list(space.kinds),
                             "states": {k: list(v) for k, v in space.states.items()},
                             "named": space.named},
                "nodes": listed}
    try:
        return json.dumps(document, indent=1)
    except TypeError as error:
        raise DataError(f"the tree cannot be written as JSON: {error}") from None


def save_tree(tree, path: str | os.PathLike) -> None:
    """Write a fitted tree to ``path`` as JSON, atomically (nothing half-written).

    Parameters
    ----------
    tree : DecisionTree
        Fitted.
    path : str or os.PathLike
        The file (``.gz``: gzipped).

    Raises
    ------
    NotFittedError
        Before ``fit``.
    DataError
        When the file cannot be written.

    Examples
    --------
    >>> import bbn, os, tempfile
    >>> tree = bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"])
    >>> save_tree(tree, os.path.join(tempfile.mkdtemp(), "tree.json"))
    """
    text = tree_json(tree)
    try:
        write_atomically(path, text)
    except OSError as error:
        raise DataError(f"{path}: cannot write: {error}") from None


class SavedTree(NamedTuple):
    """What a tree file holds: everything a fitted tree needs, unassembled."""

    parameters: dict
    feature_space: FeatureSpace
    classes: np.ndarray
    class_name: str
    root: Node


def read_tree(path: str | os.PathLike) -> SavedTree:
    """The parts of a tree saved by :func:`save_tree` (:func:`bbn.load_tree` assembles
    them into a ``DecisionTree``).

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file (``.gz``: gzipped).

    Returns
    -------
    SavedTree

    Raises
    ------
    DataError
        A file that is not JSON (naming line and column) or not a saved tree.

    Examples
    --------
    >>> import bbn, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tree.json")
    >>> save_tree(bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"]), path)
    >>> read_tree(path).classes.tolist()
    ['a', 'b']
    """
    text = read_text(path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise DataError(f"{path}: not a saved decision tree (no \"format\": \"{FORMAT}\")")
    if document.get("version") != VERSION:
        raise DataError(f"{path}: decision tree file version {document.get('version')!r}; "
                        f"this bbn reads version {VERSION}")
    check_document(document, path)  # every field, and one tree: nothing below can crash
    try:
        features = document["features"]
        space = FeatureSpace(tuple(features["names"]), tuple(features["kinds"]),
                             {k: tuple(v) for k, v in features["states"].items()},
                             bool(features["named"]))
        classes = document["classes"]
        return SavedTree(dict(document["parameters"]), space,
                         np.array(classes, dtype=object if any(isinstance(c, str)
                                                               for c in classes) else None),
                         str(document["class_name"]), _nodes(document["nodes"]))
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise DataError(f"{path}: not a valid saved decision tree ({type(error).__name__}: "
                        f"{error})") from None


def _nodes(listed: list) -> Node:
    """The root of the nodes listed in walk order."""
    nodes = [Node(np.asarray(entry["counts"], dtype=np.int64), int(entry["depth"]))
             for entry in listed]
    for node, entry in zip(nodes, listed, strict=True):
        test = entry.get("test")
        if test is not None:
            branches = test["branches"]
            node.test = Test(int(test["column"]),
                             threshold=None if test["threshold"] is None
                             else float(test["threshold"]),
                             branches=None if branches is None else tuple(map(int, branches)),
                             gain=float(test["gain"]), score=float(test["score"]))
            node.children = [nodes[int(i)] for i in entry["children"]]
            if len(node.children) != node.test.n_branches:
                raise ValueError(f"a node has {len(node.children)} children for "
                                 f"{node.test.n_branches} branches")
    if [id(n) for n in walk(nodes[0])] != [id(n) for n in nodes]:
        raise ValueError("the nodes are not listed root first, parents before children")
    return nodes[0]


__all__ = ["FORMAT", "VERSION", "SavedTree", "read_tree", "save_tree", "tree_json"]

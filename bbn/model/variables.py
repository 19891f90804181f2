"""The variables of a network: one typed record each, and how their tables are read and checked.

    P(X | parents(X)): an array of shape (|P1|, ..., |Pk|, |X|) whose last axis sums to 1

A :class:`Variable` holds what a :class:`bbn.Network` knows of one variable: its ordered
states, description, ordered parents (the axis order of its table), its table (read-only,
or None while the model gives structure only), whether the table has no zero entry, and
its kind (None for a discrete variable, ``"gaussian"`` for a continuous leaf, whose table
holds ``[μ, σ²]`` rows). The functions below turn what a user gives as a table (nested
lists, a dict keyed by parent states, a :class:`bbn.Factor`, or the packed numbers of a
whole file, :class:`PackedTables`) into checked arrays, with messages that name the row.
Only :mod:`bbn.model` reads these records; engines read the compiled view
(:class:`bbn.views.compiled.CompiledNetwork`).

>>> nodes = {"Rain": Variable(("yes", "no")), "Wet": Variable(("yes", "no"), parents=("Rain",))}
>>> checked_table(nodes, "Wet", {"yes": [0.9, 0.1], "no": [0.2, 0.8]})[0].tolist()
[[0.9, 0.1], [0.2, 0.8]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.core.factor import Factor
from bbn.core.tables import bad_rows, check_packed, normalized, plain, row_tolerance, valid_minimum


@dataclass(slots=True)
class Variable:
    """One variable of a network.

    Parameters
    ----------
    states : tuple of str
        Its states, in order (``()`` for a Gaussian leaf).
    description : str or None
        A free-text description.
    parents : tuple of str
        Its parents, in the axis order of its table.
    table : numpy.ndarray or None
        P(X | parents), read-only, shape ``(|P1|, ..., |Pk|, |X|)``; for a Gaussian leaf
        ``[μ, σ²]`` per parent configuration, shape ``(|P1|, ..., |Pk|, 2)``.
    positive : bool
        Whether the table has no zero entry (inference may then drop it when the evidence
        d-separates it).
    kind : str or None
        None for a discrete variable, ``"gaussian"`` for a continuous leaf.
    compact : Canonical or None
        A compact table (:mod:`bbn.model.canonical`: noisy-OR, logistic...), or None.

    Examples
    --------
    >>> Variable(("yes", "no"), "it rains").attributes()["description"]
    'it rains'
    """

    states: tuple[str, ...]
    description: str | None = None
    parents: tuple[str, ...] = ()
    table: np.ndarray | None = None
    positive: bool = False
    kind: str | None = None
    compact: object | None = None

    def attributes(self) -> dict:
        """The record as a dict (``kind`` only for a Gaussian): a graph node's data."""
        data = {"states": self.states, "description": self.description,
                "parents": self.parents, "table": self.table, "positive": self.positive}
        if self.kind:
            data["kind"] = self.kind
        return data

    def copy(self) -> Variable:
        """An independent record (the read-only table is shared); built field by field,
        five times faster than :func:`dataclasses.replace` (a network's copy is one per
        variable).

        >>> Variable(("yes", "no")).copy().states
        ('yes', 'no')
        """
        return Variable(self.states, self.description, self.parents, self.table,
                        self.positive, self.kind, self.compact)


def require(nodes: Mapping[str, Variable], variable: str, context: str = "") -> Variable:
    """The record of ``variable``; ModelError with did-you-mean for an unknown name.

    >>> require({"Rain": Variable(("yes", "no"))}, "rain")
    Traceback (most recent call last):
        ...
    bbn.core.errors.ModelError: unknown variable 'rain' (did you mean 'Rain'?)
    """
    try:
        return nodes[variable]
    except (KeyError, TypeError):  # TypeError: unhashable, not a name
        raise ModelError(f"unknown variable {variable!r}{context}"
                         f"{suggest(str(variable), nodes)}") from None


def checked_weights(owner: str, parents: Sequence[str], weights,
                    kind: str = "parent") -> dict:
    """``weights`` as a dict of one weight per parent in ``parents`` and nothing else (a
    noisy, logistic, softmax or Gaussian table's), else ModelError naming what is wrong;
    ``kind`` says which parents they are.

    >>> checked_weights("Y", ("A", "B"), {"A": 0.9, "B": 0.7})
    {'A': 0.9, 'B': 0.7}
    >>> checked_weights("Y", ("A", "B"), {"A": 0.9})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bbn.core.errors.ModelError: the weights of 'Y' miss parent(s) ['B']: it needs ...
    """
    if not isinstance(weights, Mapping):
        raise ModelError(f"the weights of {owner!r} must be a dict {{{kind}: weight}}, got "
                         f"{type(weights).__name__}")
    unknown = [p for p in weights if p not in parents]
    if unknown:
        raise ModelError(f"the weights of {owner!r} name {unknown}, not {kind}s of it "
                         f"({list(parents)}){suggest(str(unknown[0]), parents)}")
    missing = [p for p in parents if p not in weights]
    if missing:
        raise ModelError(f"the weights of {owner!r} miss {kind}(s) {missing}: it needs a "
                         f"weight for its {kind}s, weights={{{kind}: w}}")
    return dict(weights)


def family_text(nodes: Mapping[str, Variable], variable: str) -> str:
    """``P(X | A, B)``: how messages name the table of ``variable``."""
    parents = require(nodes, variable).parents
    return f"P({variable} | {', '.join(parents)})" if parents else f"P({variable})"


def configuration_text(nodes: Mapping[str, Variable], variable: str,
                       index: int | tuple[int, ...]) -> str:
    """``P(X | A=a, B=b)``: one row of the table, by parent state indices or by its flat
    row number (the last parent fastest)."""
    parents = require(nodes, variable).parents
    if isinstance(index, (int, np.integer)):
        index = np.unravel_index(int(index), [len(require(nodes, p).states) for p in parents])
    given = ", ".join(f"{p}={nodes[p].states[i]}" for p, i in zip(parents, index))
    return f"P({variable} | {given})" if given else f"P({variable})"


def table_shape(nodes: Mapping[str, Variable], variable: str) -> tuple[int, ...]:
    """``(|P1|, ..., |Pk|, |X|)``."""
    node = require(nodes, variable)
    return (*(len(nodes[p].states) for p in node.parents), len(node.states))


def checked_table(nodes: Mapping[str, Variable], variable: str, table,
                  normalize: bool = False) -> tuple[np.ndarray, bool]:
    """(the table as a read-only array of the variable's shape, whether it has no zero) for
    any form :meth:`bbn.Network.set_cpt` takes; ModelError naming the first problem."""
    if require(nodes, variable).kind:
        raise ModelError(f"{variable!r} is continuous (Gaussian): give its mean and "
                         "variance with set_gaussian, not a table")
    array = table_as_array(nodes, variable, table)
    shape = table_shape(nodes, variable)
    if array.shape != shape:
        if array.size != int(np.prod(shape)):
            raise ModelError(f"the table of {family_text(nodes, variable)} needs shape "
                             f"{shape} ({int(np.prod(shape))} numbers), got "
                             f"{array.shape} ({array.size} numbers)")
        array = array.reshape(shape)
    smallest = valid_minimum(array, normalize)  # two reductions decide the common case
    if smallest is None:
        if not np.all(np.isfinite(array)):
            raise ModelError(f"the table of {family_text(nodes, variable)} holds a "
                             "non-finite number")
        problems = table_problems(nodes, variable, array, normalize)
        raise ModelError(problems[0] + (f" (and {len(problems) - 1} more problem(s))"
                                        if len(problems) > 1 else ""))
    if normalize:
        array = normalized(array)
    array.setflags(write=False)
    return array, bool(smallest > 0)


def table_as_array(nodes: Mapping[str, Variable], variable: str, table) -> np.ndarray:
    """A Factor (any axis order), a dict keyed by parent states or nested numbers as a
    float array (not yet reshaped or checked)."""
    if isinstance(table, Factor):
        family = (*nodes[variable].parents, variable)
        if set(table.variables) != set(family):
            raise ModelError(f"the factor given for {family_text(nodes, variable)} is over "
                             f"{list(table.variables)}")
        return table.transpose(family).reorder_states(
            {v: nodes[v].states for v in family}).values.astype(float)
    if isinstance(table, Mapping):
        return table_from_mapping(nodes, variable, table)
    try:
        return np.array(table, dtype=float)
    except (TypeError, ValueError) as error:
        raise ModelError(f"the table of {family_text(nodes, variable)} is not numeric: "
                         f"{error}") from None


def table_from_mapping(nodes: Mapping[str, Variable], variable: str,
                       table: Mapping) -> np.ndarray:
    """``{parent state(s): row}`` as an array; every configuration must have its row."""
    parents = nodes[variable].parents
    shape = table_shape(nodes, variable)
    array = np.empty(shape)
    rows = {}
    for key, row in table.items():
        key = (key,) if not isinstance(key, tuple) else key
        key = tuple(str(k) for k in key)
        if len(key) != len(parents):
            raise ModelError(f"row key {key} of {family_text(nodes, variable)} needs one "
                             f"state for each parent {list(parents)}")
        index = []
        for p, s in zip(parents, key):
            states = nodes[p].states
            if s not in states:
                raise ModelError(f"row {key} of {family_text(nodes, variable)}: parent {p!r} "
                                 f"has no state {s!r}{suggest(s, states)}")
            index.append(states.index(s))
        rows[tuple(index)] = row
    for index in itertools.product(*(range(n) for n in shape[:-1])):
        if index not in rows:
            raise ModelError(f"the table of {family_text(nodes, variable)} has no row for "
                             f"{configuration_text(nodes, variable, index)}")
        row = np.asarray(rows[index], dtype=float)
        if row.shape != (shape[-1],):
            raise ModelError(f"row {configuration_text(nodes, variable, index)} needs "
                             f"{shape[-1]} numbers, got {row.size}")
        array[index] = row
    return array


def table_problems(nodes: Mapping[str, Variable], variable: str, array: np.ndarray,
                   normalize: bool = False) -> list[str]:
    """Messages for the bad rows of ``array`` (see :func:`bbn.core.tables.bad_rows`): its
    first five negative entries, then its first five rows whose sum is wrong."""
    bad = bad_rows(array, normalize)
    rows = array.reshape(-1, array.shape[-1])
    states = nodes[variable].states
    negative = [(b.row, c) for b in bad for c in b.entries if rows[b.row, c] < 0]
    problems = [f"{configuration_text(nodes, variable, row)} has a negative entry "
                f"{float(rows[row, c])!r} for state {states[c]!r}"
                for row, c in negative[:5]]
    off = [b for b in bad if b.sum_off]
    tolerance = row_tolerance(array.shape[-1])
    for b in off[:5]:
        where = f"{configuration_text(nodes, variable, b.row)} sums to {plain(b.total)}"
        problems.append(f"{where}: only a row with a positive sum can be normalised"
                        if normalize else
                        f"{where}, not 1 (tolerance {tolerance:.2g}); pass normalize=True "
                        "(--normalize on the command line) to rescale rows")
    if len(off) > 5:
        problems.append(f"... {len(off) - 5} more rows of {family_text(nodes, variable)} "
                        "do not sum to 1")
    return problems


def gaussian_table(nodes: Mapping[str, Variable], variable: str, mean,
                   variance, weights: Mapping[str, object] | None = None) -> np.ndarray:
    """μ(d), σ²(d) and the weights b_i(d) of its continuous parents, for a Gaussian
    x | pa ~ N(μ(d) + Σ_i b_i(d) y_i, σ²(d)), as one read-only ``[μ, σ², b_1, ...]``
    array of shape ``(|D1|, ..., |Dk|, 2 + m)`` (D: the discrete parents, m continuous
    ones); ModelError for a wrong size, a non-finite number or a variance not > 0.

    >>> nodes = {"x": Variable((), kind="gaussian")}
    >>> gaussian_table(nodes, "x", 1.0, 4.0).tolist()
    [1.0, 4.0]
    """
    node = require(nodes, variable)
    discrete = [p for p in node.parents if not nodes[p].kind]
    continuous = [p for p in node.parents if nodes[p].kind]
    shape = tuple(len(nodes[p].states) for p in discrete)
    weights = checked_weights(variable, continuous, dict(weights or {}),
                              "continuous parent")
    arrays = []
    size = math.prod(shape)
    labelled = [("mean", mean), ("variance", variance)] + [
        (f"weight of {p!r}", weights[p]) for p in continuous]
    for label, values in labelled:
        array = np.asarray(values, dtype=float)
        if array.size == 1 and label.startswith("weight"):
            array = np.full(shape, float(array.reshape(-1)[0]))  # one b for every d
        if array.size != size:
            raise ModelError(f"the {label} of {variable!r} needs {size} "
                             "number(s), one per configuration of "
                             f"{discrete}, got {array.size}")
        arrays.append(array.reshape(shape))
    # (one check of the whole table: a check per array cost most of adding a Gaussian)
    table = np.stack(arrays, axis=-1) if shape else np.array(arrays)
    if not (np.isfinite(table).all() and (table[..., 1] > 0).all()):
        raise ModelError(f"the Gaussian {variable!r} needs finite means and variances > 0")
    table.setflags(write=False)
    return table


class PackedTables(NamedTuple):
    """The tables of several variables in one flat array: ``numbers`` holds the table of
    ``variables[0]``, then that of ``variables[1]``, ..., each in row-major order (parent
    configurations with the last parent fastest, the variable's states within each). A
    reader hands over a whole file's numbers this way, with no array per table.

    >>> import bbn
    >>> net = bbn.Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]}, {"B": ["A"]},
    ...                            PackedTables(["A", "B"], [0.5, 0.5, 0.9, 0.1, 0.2, 0.8]))
    >>> net.cpt_array("B").tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """

    variables: Sequence[str]
    numbers: np.ndarray | Sequence[float]


def unpacked(nodes: Mapping[str, Variable],
             tables: Mapping[str, object] | PackedTables) -> Mapping[str, object]:
    """{variable: its table}; packed tables are cut by the sizes of the tables."""
    if type(tables) is not PackedTables:
        return tables
    numbers = np.asarray(tables.numbers, dtype=float).reshape(-1)
    if len(set(tables.variables)) != len(tables.variables):
        raise ModelError(f"the packed tables name a variable twice: "
                         f"{list(tables.variables)}")
    sizes = [math.prod(table_shape(nodes, v)) for v in tables.variables]
    if sum(sizes) != numbers.size:
        raise ModelError(f"the packed tables hold {numbers.size} numbers, the tables of "
                         f"{list(tables.variables)} need {sum(sizes)}")
    ends = list(itertools.accumulate(sizes))
    return {v: numbers[end - size:end] for v, size, end in zip(tables.variables, sizes, ends)}


def set_all(tables: Mapping[str, object] | PackedTables, nodes: Mapping[str, Variable],
            normalize: bool = False) -> bool:
    """Put each table in its variable's record if all are packed, or each is a numpy array
    with as many numbers as its variable's table (reshaped as set_cpt does), and all are
    valid; False (and nothing set) otherwise.

    Valid as :func:`bbn.core.tables.check_packed` decides, on one array of all the tables
    (a few numpy calls however many tables there are: small networks are dominated by
    per-call costs).

    >>> nodes = {"A": Variable(("a", "b"))}
    >>> set_all({"A": np.array([0.25, 0.75])}, nodes), nodes["A"].table.tolist()
    (True, [0.25, 0.75])
    """
    packed = type(tables) is PackedTables
    variables = tables.variables if packed else tables
    shapes, cards = [], []
    for variable in variables:
        node = nodes.get(variable)
        if node is None or node.kind:
            return False
        card, parents = len(node.states), node.parents
        shapes.append((*[len(nodes[p].states) for p in parents], card) if parents
                      else (card,))
        cards.append(card)
    if not shapes:
        return True
    sizes = list(map(math.prod, shapes))
    try:
        if packed:
            flat = np.array(tables.numbers, dtype=float)
            if flat.shape != (sum(sizes),) or len(set(variables)) != len(variables):
                return False
        else:
            arrays = list(tables.values())
            if any(type(a) is not np.ndarray for a in arrays) or [a.size for a in arrays] != sizes:
                return False
            flat = np.concatenate(arrays, axis=None, dtype=float)
    except (TypeError, ValueError):  # numbers that are not real
        return False
    checked = check_packed(flat, sizes, cards, normalize)
    if checked is None:
        return False
    start = 0
    for variable, shape, size, low in zip(variables, shapes, sizes, checked.smallest):
        table = checked.numbers[start:start + size]
        start += size
        node = nodes[variable]
        node.table = table if len(shape) == 1 else table.reshape(shape)
        node.positive = low > 0
    return True

"""The regressions of a linear Gaussian network, kept in step with its edits.

    X = c + B X + ε,      ε ~ N(0, diag(σ²))

A network whose variables are all Gaussian with Gaussian parents only keeps a
:class:`Regressions`: the intercepts c, the variances σ², B's entries (row, column,
weight; one per arc, grouped by row) in declaration order, and the compiled view's
records of its variables. ``add_gaussian_variable`` appends to it and ``set_gaussian``
rewrites one row; every other edit drops it, and the next compile makes it again in one
pass (:func:`linear_view`). Compiling such a network is then one conversion to an array
per list and a few dict copies, not a pass over its variables, and the engine reads the
arrays (:class:`bbn.views.compiled.LinearSystem`) as they are.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=1.0, variance=2.0)
>>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 3.0})
>>> system = net.compiled().linear
>>> system.names, system.intercept.tolist(), system.weights.tolist()
(('x', 'y'), [1.0, 0.0], [3.0])
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from types import MappingProxyType

import numpy as np

from bbn.model.variables import Variable
from bbn.views.compiled import CompiledNetwork, GaussianLeaf, LinearSystem

_record = tuple.__new__  # a GaussianLeaf without its Python-level constructor
_kind = attrgetter("kind")


class Regressions:
    """The regressions of a linear Gaussian network (see the module): per variable its
    position, parents, compiled record, c and σ²; per arc its row, column and weight
    (Python lists: appending costs a list append, compiling one conversion each).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    >>> regressions = Regressions()
    >>> regressions.append("x", net._nodes["x"]), regressions.system().variance.tolist()
    (True, [2.0])
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}  # variable → its row
        self.parents: dict[str, tuple[str, ...]] = {}
        self.leaves: dict[str, GaussianLeaf] = {}
        self.states: dict[str, tuple] = {}  # () each: what the compiled view lists
        self.cardinality: dict[str, int] = {}  # 0 each
        self.intercept: list[float] = []
        self.variance: list[float] = []
        self.start: list[int] = []  # each row's first arc
        self.rows: list[int] = []
        self.columns: list[int] = []
        self.weights: list[float] = []

    def append(self, name: str, node: Variable) -> bool:
        """Add the last declared variable ``name``; False (nothing changed) when it does not
        fit a linear Gaussian network: not Gaussian, without parameters, or with a parent
        that is not in it."""
        table, parents, index = node.table, node.parents, self.index
        if (not node.kind or node.states or table is None or table.ndim != 1
                or name in index or not all(map(index.__contains__, parents))):
            return False
        row = len(index)
        c, variance, *weights = table.tolist()
        self.intercept.append(c)
        self.variance.append(variance)
        self.start.append(len(self.rows))
        if parents:
            self.rows.extend([row] * len(parents))
            self.columns.extend(map(index.__getitem__, parents))
            self.weights.extend(weights)
        index[name] = row
        self.parents[name] = parents
        self.leaves[name] = _record(GaussianLeaf, ((), table, parents))
        self.states[name] = ()
        self.cardinality[name] = 0
        return True

    def update(self, name: str, node: Variable) -> bool:
        """New parameters of a variable kept here (same parents); False (nothing changed)
        when it is not kept or its new table does not fit."""
        row, table = self.index.get(name), node.table
        if row is None or table is None or table.shape != self.leaves[name].table.shape:
            return False
        c, variance, *weights = table.tolist()
        self.intercept[row], self.variance[row] = c, variance
        first = self.start[row]
        self.weights[first:first + len(weights)] = weights
        self.leaves[name] = _record(GaussianLeaf, ((), table, node.parents))
        return True

    def copy(self) -> Regressions:
        """An independent copy (a network's copy keeps its regressions)."""
        other = Regressions.__new__(Regressions)
        other.__dict__.update({k: v.copy() for k, v in self.__dict__.items()})
        return other

    def system(self) -> LinearSystem:
        """The arrays as the engine reads them (made now: later edits do not reach them)."""
        n, a = len(self.index), len(self.rows)
        return LinearSystem(tuple(self.index), dict(self.index),
                            np.fromiter(self.intercept, float, n),
                            np.fromiter(self.variance, float, n),
                            np.fromiter(self.rows, np.intp, a),
                            np.fromiter(self.columns, np.intp, a),
                            np.fromiter(self.weights, float, a))

    def view(self, revision: int) -> CompiledNetwork:
        """The compiled view of the network at ``revision``."""
        system = self.system()
        return CompiledNetwork(revision, system.names, *map(MappingProxyType, (
            dict(self.states), dict(self.parents), dict(self.cardinality), {}, {},
            dict(self.leaves))), linear=system)

    @classmethod
    def made(cls, nodes: Mapping[str, Variable]) -> Regressions | None:
        """The regressions of the network with these variables (one pass), or None when
        it is not a linear Gaussian network with every parameter set, its variables
        declared parents first."""
        regressions = cls()
        for name, node in nodes.items():
            if not regressions.append(name, node):
                return None
        return regressions


def linear_view(network) -> CompiledNetwork | None:
    """The compiled view of a linear Gaussian network from its regressions (made again
    when an edit dropped them), or None for any other network."""
    regressions = network._regressions
    if regressions is None:
        nodes = network._nodes
        if not nodes or not all(map(_kind, nodes.values())):
            return None
        regressions = network._regressions = Regressions.made(nodes)
        if regressions is None:
            return None
    return regressions.view(network._revision)

"""The compiled view of a network: what inference engines read, frozen for one revision.

    P(X1, ..., Xn) = Π_i P(Xi | parents(Xi)) · Π_g p(x_g | parents(g))

A :class:`CompiledNetwork` holds, for one revision of a :class:`bbn.Network`, the
variables in declaration order, their states, parents (the axis order of their tables),
cardinalities, tables and which tables have no zero entry, and the Gaussian leaves g with
their means and variances. Every mapping is read-only and every array is read-only: an
engine built on it can cache whatever it derives, since nothing it reads can change.

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> network = net.compiled()
>>> network.parents["Wet"], network.cardinality["Wet"], network.zero_free["Wet"]
(('Rain',), 2, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from bbn.core.errors import ModelError


class GaussianLeaf(NamedTuple):
    """A continuous variable: p(x | d, y) = N(x; mean[d] + Σ_i weights[d, i] y_i,
    variance[d]), one normal per configuration d of its discrete ``parents``, linear in
    its ``continuous`` parents y. ``table`` holds ``[μ, σ², b_1, ..., b_m]`` on its last
    axis (shape ``(|P1|, ..., |Pk|, 2 + m)``, the network's record as it is; None until
    the parameters are set); ``mean``, ``variance`` (shape ``(|P1|, ..., |Pk|)``) and
    ``weights`` (shape ``(|P1|, ..., |Pk|, m)``, None without continuous parents) are
    read off it. Without continuous parents and children it is a leaf.

    >>> import numpy as np
    >>> leaf = GaussianLeaf((), np.array([1.0, 0.5, 2.0]), ("y",))
    >>> float(leaf.mean), float(leaf.variance), leaf.weights.tolist()
    (1.0, 0.5, [2.0])
    """

    parents: tuple[str, ...]
    table: np.ndarray | None
    continuous: tuple[str, ...] = ()

    @property
    def mean(self) -> np.ndarray | None:
        """μ(d), shape ``(|P1|, ..., |Pk|)``."""
        return None if self.table is None else self.table[..., 0]

    @property
    def variance(self) -> np.ndarray | None:
        """σ²(d), shape ``(|P1|, ..., |Pk|)``."""
        return None if self.table is None else self.table[..., 1]

    @property
    def weights(self) -> np.ndarray | None:
        """b(d), shape ``(|P1|, ..., |Pk|, m)``; None without continuous parents."""
        return None if self.table is None or not self.continuous else self.table[..., 2:]


class LinearSystem(NamedTuple):
    """A linear Gaussian network as arrays: X = c + B X + ε, ε ~ N(0, diag(σ²)), the
    variables in ``names`` order (topological: every arc has ``columns < rows``).
    ``intercept`` holds c, ``variance`` σ², and B's entries are ``weights[a]`` at
    (``rows[a]``, ``columns[a]``), one per arc, grouped by row. A network keeps them in
    step with its edits (:mod:`bbn.model.regressions`), so the engine reads them as they
    are (:class:`bbn.engines.exact.linear_gaussian.LinearGaussian`).

    >>> import numpy as np
    >>> system = LinearSystem(("x", "y"), {"x": 0, "y": 1}, np.array([1.0, 0.0]),
    ...                       np.array([1.0, 0.5]), np.array([1]), np.array([0]),
    ...                       np.array([2.0]))
    >>> system.index["y"], system.weights.tolist()
    (1, [2.0])
    """

    names: tuple[str, ...]
    index: Mapping[str, int]
    intercept: np.ndarray
    variance: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class CompiledNetwork:
    """An immutable view of one revision of a network.

    Parameters
    ----------
    revision : int
        The revision of the network this view was made from.
    variables : tuple of str
        Every variable (the Gaussian leaves too), in declaration order.
    states : mapping
        variable → its states (``()`` for a Gaussian leaf).
    parents : mapping
        variable → its parents, in the axis order of its table.
    cardinality : mapping
        variable → its number of states (0 for a Gaussian leaf).
    tables : mapping
        discrete variable → P(X | parents) of shape ``(|P1|, ..., |Pk|, |X|)``, read-only,
        or None while a structure-only model has none.
    zero_free : mapping
        discrete variable → whether its table has no zero entry (inference drops tables
        that the evidence d-separates only when they cannot make P(e) zero).
    gaussian : mapping
        Gaussian variable → its :class:`GaussianLeaf`.
    constraints : mapping, optional
        variable → the state index it is observed at in every question; such variables
        are not in ``variables`` (they are the factor nodes by which a Markov network is
        answered as a Bayesian network, see :mod:`bbn.model.markov`).
    auxiliary : frozenset, optional
        variables the view adds to answer a compact table (the chain of a noisy-OR, see
        :mod:`bbn.model.canonical`): in ``variables``, never asked about, left out of
        every answer that lists all variables.
    softmax : mapping, optional
        discrete variable with continuous parents → its softmax form
        (:class:`bbn.model.softmax_nodes.Softmax`); such a variable's table is None and
        the view is answered approximately (:mod:`bbn.questions.hybrid_answers`).
    linear : LinearSystem, optional
        For a linear Gaussian network (every variable Gaussian, with Gaussian parents
        only), its regressions as arrays; None otherwise.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
    >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    >>> network = net.compiled()
    >>> network.gaussian["x"].mean.tolist(), network.discrete_part().variables
    ([0.0, 2.0], ('C',))
    """

    revision: int
    variables: tuple[str, ...]
    states: Mapping[str, tuple[str, ...]]
    parents: Mapping[str, tuple[str, ...]]
    cardinality: Mapping[str, int]
    tables: Mapping[str, np.ndarray | None]
    zero_free: Mapping[str, bool]
    gaussian: Mapping[str, GaussianLeaf]
    constraints: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    auxiliary: frozenset = frozenset()
    softmax: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    linear: LinearSystem | None = None

    def __reduce__(self) -> tuple:
        """Pickled with its read-only mappings as dicts, made read-only again on load."""
        fields = [getattr(self, f) for f in self.__dataclass_fields__]
        return (_unpickle, tuple(dict(f) if isinstance(f, MappingProxyType) else f
                                 for f in fields))

    def table(self, variable: str) -> np.ndarray:
        """The table of a discrete variable; ModelError when the model has none yet."""
        table = self.tables[variable]
        if table is None:
            raise missing_table(variable)
        return table

    def discrete_part(self) -> CompiledNetwork:
        """The view without the Gaussian leaves: the same distribution over the rest,
        since a leaf that is not observed sums out to 1."""
        if not self.gaussian:
            return self
        kept = tuple(v for v in self.variables if v not in self.gaussian)

        def only(mapping: Mapping) -> Mapping:
            return MappingProxyType({v: mapping[v] for v in kept})

        return CompiledNetwork(self.revision, kept, only(self.states),
                               only(self.parents), only(self.cardinality), self.tables,
                               self.zero_free, MappingProxyType({}), self.constraints,
                               self.auxiliary)


def _unpickle(*fields) -> CompiledNetwork:
    return CompiledNetwork(*(MappingProxyType(f) if isinstance(f, dict) else f
                             for f in fields))


def missing_table(variable: str) -> ModelError:
    """The error for a variable whose table a structure-only model does not give."""
    return ModelError(f"variable {variable!r} has no table yet "
                      "(the model declares structure only; learn or set it first)")

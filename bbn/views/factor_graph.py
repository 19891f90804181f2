"""The factor graph every approximate engine reads: variables, and factors over scopes.

    P(x) = (1/Z) Π_k φ_k(x_{S_k})        (a Bayesian network: φ_k = P(X_k | Pa(X_k)), Z = 1)

A :class:`FactorGraph` is the plain-array form of a model for the approximate engines
(loopy belief propagation, likelihood weighting, importance sampling, Gibbs sampling):
variables by index, their state names, and one factor per scope ``S_k`` (variable indices,
in the axis order of its table). For a Bayesian network factor k is the table of variable
``child[k]`` given the rest of its scope (the child last), which is what forward sampling
needs; for a Markov network ``child`` is None. Evidence reaches the engines as
``{variable index: state index}``, resolved once at the edge.

>>> import bbn
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> graph.variables, graph.scopes[3], graph.child[3], graph.is_bayesian
(('C', 'S', 'W', 'B', 'A'), (0, 1, 3), 3, True)
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import ModelError

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork


@dataclass(frozen=True, eq=False)
class FactorGraph:
    """Variables and non-negative factors over scopes of them.

    Parameters
    ----------
    variables : tuple of str
        The variables, by index.
    states : tuple of tuple of str
        Each variable's state names.
    scopes : tuple of tuple of int
        Each factor's variables (indices into ``variables``), in its table's axis order.
    tables : tuple of numpy.ndarray
        Each factor's table, of shape ``(|X_s| for s in scope)``, read-only.
    child : tuple of int, optional
        For a Bayesian network, factor k is P(X_child[k] | the rest of scope k), its child
        the scope's last variable; None for a Markov network.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[2.0, 1.0], [1.0, 2.0]]),))
    >>> graph.cardinality.tolist(), graph.is_bayesian, graph.factors_of(1)
    ([2, 2], False, (0,))
    """

    variables: tuple[str, ...]
    states: tuple[tuple[str, ...], ...]
    scopes: tuple[tuple[int, ...], ...]
    tables: tuple[np.ndarray, ...]
    child: tuple[int, ...] | None = None

    @functools.cached_property
    def cardinality(self) -> np.ndarray:
        """The number of states of each variable (an int array, read-only; made once:
        the engines read it in their loops over factors)."""
        cardinality = np.array([len(s) for s in self.states], dtype=np.int64)
        cardinality.flags.writeable = False
        return cardinality

    @property
    def is_bayesian(self) -> bool:
        """Whether factor k is the conditional table of variable ``child[k]``."""
        return self.child is not None

    def factors_of(self, variable: int) -> tuple[int, ...]:
        """The factors whose scope holds ``variable`` (ascending)."""
        return tuple(k for k, scope in enumerate(self.scopes) if variable in scope)

    def forward_order(self) -> list[int]:
        """A Bayesian network's factors, each after the factors of its scope's parents
        (ties by index): the order forward sampling draws in.

        Raises
        ------
        ModelError
            For a Markov network (no child per factor).

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((1, 0), (1,)),
        ...                     (np.full((2, 2), 0.5), np.array([0.5, 0.5])), (0, 1))
        >>> graph.forward_order()
        [1, 0]
        """
        if self.child is None:
            raise ModelError("a Markov network has no order to sample forward in; "
                             "use method='gibbs' or 'lbp'")
        factor_of = {v: k for k, v in enumerate(self.child)}
        waiting = [len(scope) - 1 for scope in self.scopes]
        children: list[list[int]] = [[] for _ in self.variables]
        for k, scope in enumerate(self.scopes):
            for parent in scope[:-1]:
                children[parent].append(k)
        ready = [k for k, count in enumerate(waiting) if count == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            k = heapq.heappop(ready)
            order.append(k)
            for later in children[self.child[k]]:
                waiting[later] -= 1
                if waiting[later] == 0:
                    heapq.heappush(ready, later)
        if len(order) != len(self.scopes) or len(factor_of) != len(self.variables):
            raise ModelError("the factors are not the conditional tables of a Bayesian "
                             "network (a cycle, or a variable without its table)")
        return order

    def index(self, variable: str) -> int:
        """The index of a variable by name."""
        return self.variables.index(variable)

    @classmethod
    def from_compiled(cls, network: CompiledNetwork) -> FactorGraph:
        """The factor graph of a Bayesian network's compiled view (discrete variables only).

        Parameters
        ----------
        network : CompiledNetwork
            ``net.compiled()``.

        Returns
        -------
        FactorGraph

        Raises
        ------
        ModelError
            For a network with Gaussian leaves or without tables.

        Examples
        --------
        >>> import bbn
        >>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
        >>> graph.scopes, graph.tables[0].tolist()
        (((0,), (1,), (0, 2), (0, 1, 3), (3, 4)), [0.8, 0.2])
        """
        if network.gaussian:
            raise ModelError("approximate inference takes discrete networks only; "
                             f"{next(iter(network.gaussian))!r} is a Gaussian leaf")
        variables = tuple(network.variables)
        position = {v: i for i, v in enumerate(variables)}
        scopes = tuple(tuple(position[u] for u in (*network.parents[v], v)) for v in variables)
        tables = tuple(network.table(v) for v in variables)
        return cls(variables, tuple(tuple(network.states[v]) for v in variables), scopes,
                   tables, tuple(range(len(variables))))

    @classmethod
    def from_factors(cls, variables: Sequence[str], states: Mapping[str, Sequence[str]],
                     factors: Sequence) -> FactorGraph:
        """The factor graph of a Markov network given as :class:`bbn.Factor` objects.

        Parameters
        ----------
        variables : sequence of str
            Every variable (also those in no factor).
        states : mapping
            variable → its state names.
        factors : sequence of Factor
            The factors φ_k (non-negative).

        Returns
        -------
        FactorGraph

        Examples
        --------
        >>> import bbn
        >>> phi = bbn.Factor(["A", "B"], {"A": ["0", "1"], "B": ["0", "1"]}, [2, 1, 1, 2])
        >>> FactorGraph.from_factors(["A", "B"], phi.states, [phi]).scopes
        ((0, 1),)
        """
        variables = tuple(variables)
        position = {v: i for i, v in enumerate(variables)}
        return cls(variables, tuple(tuple(states[v]) for v in variables),
                   tuple(tuple(position[u] for u in f.variables) for f in factors),
                   tuple(f.values for f in factors))

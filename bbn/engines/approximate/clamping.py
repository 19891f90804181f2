"""Evidence clamped on a factor graph: checked once, and the factors reduced by it.

Observing X_v = e_v slices every factor whose scope holds v at e_v:

    φ_k^e(x_{S_k \\ E}) = φ_k(x_{S_k \\ E}, e_{S_k ∩ E})

A factor left with no variable is a constant c_k, and Z(e) = Π_k c_k · Z' where Z' is the
normaliser of the reduced factors. A reduced factor with no positive entry makes
Z(e) = 0 whatever the other variables do: the evidence is impossible, which is said at
once (ImpossibleEvidenceError) instead of after a sampler's budget of zero weights.

>>> import numpy as np
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
...                     (np.array([[2.0, 1.0], [0.0, 0.0]]),))
>>> reduced = reduce_factors(graph, {0: 0})
>>> reduced.scopes, reduced.tables[0].tolist(), reduced.log_constant
(((1,),), [2.0, 1.0], 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, QueryError
from bbn.views.factor_graph import FactorGraph


@dataclass(frozen=True)
class ReducedFactors:
    """The factors of a graph sliced at the evidence.

    Parameters
    ----------
    factors : tuple of int
        For each kept factor, its index in the graph.
    scopes : tuple of tuple of int
        The unobserved variables of each factor that still has some (axis order kept).
    tables : tuple of numpy.ndarray
        Their sliced tables.
    log_constant : float
        Σ log c_k over the factors left with no variable (natural log).
    """

    factors: tuple[int, ...]
    scopes: tuple[tuple[int, ...], ...]
    tables: tuple[np.ndarray, ...]
    log_constant: float


def check_evidence(graph: FactorGraph, evidence: Mapping[int, int]) -> dict[int, int]:
    """``{variable index: state index}`` checked against the graph.

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int

    Returns
    -------
    dict of int to int

    Raises
    ------
    QueryError
        For a variable or state index out of range.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([1.0, 1.0]),))
    >>> check_evidence(graph, {0: 1})
    {0: 1}
    """
    cardinality = graph.cardinality
    checked = {}
    for variable, state in evidence.items():
        variable, state = int(variable), int(state)
        if not 0 <= variable < len(graph.variables):
            raise QueryError(f"evidence names variable index {variable}; the model has "
                             f"{len(graph.variables)} variables")
        if not 0 <= state < cardinality[variable]:
            raise QueryError(f"evidence gives {graph.variables[variable]!r} state index "
                             f"{state}; it has {cardinality[variable]} states")
        checked[variable] = state
    return checked


def named(graph: FactorGraph, evidence: Mapping[int, int]) -> dict[str, str]:
    """The evidence by variable and state names (for messages)."""
    return {graph.variables[v]: graph.states[v][s] for v, s in evidence.items()}


def reduce_factors(graph: FactorGraph, evidence: Mapping[int, int]) -> ReducedFactors:
    """Every factor sliced at the evidence (see the module's formula).

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
        Checked evidence (:func:`check_evidence`).

    Returns
    -------
    ReducedFactors

    Raises
    ------
    ImpossibleEvidenceError
        When a sliced factor has no positive entry (then Z(e) = 0).

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([0.5, 0.0]),))
    >>> reduce_factors(graph, {0: 1})
    Traceback (most recent call last):
        ...
    bbn.core.errors.ImpossibleEvidenceError: impossible evidence: P(A=1) = 0 ...
    """
    factors, scopes, tables, log_constant = [], [], [], 0.0
    for k, (scope, table) in enumerate(zip(graph.scopes, graph.tables)):
        observed = {v: evidence[v] for v in scope if v in evidence}
        if observed:
            table = table[tuple(evidence.get(v, slice(None)) for v in scope)]
            scope = tuple(v for v in scope if v not in evidence)
        if not np.any(table > 0):
            raise ImpossibleEvidenceError(named(graph, observed)) if observed else \
                ImpossibleEvidenceError({}, "the model's factor over "
                                        f"{[graph.variables[v] for v in scope]} is zero "
                                        "everywhere, so every assignment has probability 0")
        if scope:
            factors.append(k)
            scopes.append(scope)
            tables.append(np.asarray(table, dtype=np.float64))
        else:
            log_constant += float(np.log(table))
    return ReducedFactors(tuple(factors), tuple(scopes), tuple(tables), log_constant)

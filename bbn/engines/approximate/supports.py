"""The states the zeros of a model rule out: generalised arc consistency over the tables'
supports (unit propagation, for tables of 0/1).

A state x of variable v is *supported* by factor f when some entry of f's table with
v = x is positive and every other variable of the entry is at a state still allowed:

    D_v ← D_v ∩ { x : ∃ x_f, x_f[v] = x, φ_f(x_f) > 0, x_f[u] ∈ D_u for all u ∈ f }

repeated over the factors of every variable whose domain shrank until nothing changes
(AC-3's queue). A state removed is in no assignment of positive weight — a proof, not an
approximation: when a domain empties the evidence is impossible (Z(e) = 0). The states
left (the fixed point) are what an approximate method needs to look at only, and an
exact one over the *pruned* domains multiplies smaller tables (pedigree linkage: the
genotypes the observed phenotypes rule out).

>>> import numpy as np
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph(("A", "B", "C"), (("0", "1"),) * 3, ((0, 1), (1, 2)),
...                     (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 1.0]])))
>>> [d.tolist() for d in supported_states(graph, {2: 0})]    # C=0 forces B=1, so A=1
[[False, True], [False, True], [True, False]]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError
from bbn.engines.approximate.clamping import check_evidence, named
from bbn.views.factor_graph import FactorGraph


def supported_states(graph: FactorGraph, evidence: Mapping[int, int]) -> list[np.ndarray]:
    """Every variable's states left by generalised arc consistency over the tables' zeros.

    Parameters
    ----------
    graph : FactorGraph
        A Bayesian or Markov network's factor graph.
    evidence : mapping of int to int
        ``{variable index: state index}``: an observed variable's domain is its state.

    Returns
    -------
    list of numpy.ndarray
        Per variable, a boolean mask of its states (True: not ruled out).

    Raises
    ------
    ImpossibleEvidenceError
        When a domain empties: no assignment consistent with the evidence has positive
        weight (proved by the propagation).

    Examples
    --------
    >>> from bbn.views.factor_graph import FactorGraph
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[1.0, 0.0], [0.0, 0.0]]),))
    >>> [d.tolist() for d in supported_states(graph, {})]
    [[True, False], [True, False]]
    >>> supported_states(graph, {1: 1})
    Traceback (most recent call last):
        ...
    bbn.core.errors.ImpossibleEvidenceError: impossible evidence: P(B=1) = 0 ...
    """
    evidence = check_evidence(graph, evidence)
    domains = [np.ones(int(c), dtype=bool) for c in graph.cardinality]
    for v, state in evidence.items():
        domains[v][:] = False
        domains[v][state] = True
    positive = [np.asarray(table) > 0 for table in graph.tables]
    factors_of: list[list[int]] = [[] for _ in graph.variables]
    for k, scope in enumerate(graph.scopes):
        for v in scope:
            factors_of[v].append(k)
    queue, queued = deque(range(len(graph.scopes))), np.ones(len(graph.scopes), dtype=bool)
    while queue:
        k = queue.popleft()
        queued[k] = False
        scope = graph.scopes[k]
        if not scope:
            if not positive[k].any():
                raise _impossible(graph, evidence, "a constant factor is 0")
            continue
        allowed = positive[k]
        for axis, v in enumerate(scope):
            shape = [1] * len(scope)
            shape[axis] = -1
            allowed = allowed & domains[v].reshape(shape)
        for axis, v in enumerate(scope):
            others = tuple(a for a in range(len(scope)) if a != axis)
            support = allowed.any(axis=others) if others else allowed
            if (support >= domains[v]).all():
                continue
            domains[v] &= support
            if not domains[v].any():
                raise _impossible(graph, evidence, f"no state of {graph.variables[v]!r} is "
                                  "left by the zeros of its factors")
            for other in factors_of[v]:
                if other != k and not queued[other]:
                    queued[other] = True
                    queue.append(other)
    return domains


def _impossible(graph: FactorGraph, evidence: Mapping[int, int],
                why: str) -> ImpossibleEvidenceError:
    """The error of an emptied domain: the evidence as given, and why (a proof)."""
    shown = ", ".join(f"{k}={v}" for k, v in named(graph, evidence).items())
    return ImpossibleEvidenceError(named(graph, evidence),
                                   f"impossible evidence: P({shown}) = 0 under this model "
                                   f"(propagating the tables' zeros: {why})")


__all__ = ["supported_states"]

"""Joint beliefs of loopy belief propagation: the belief of a factor, over its scope.

At the messages' fixed point a factor's belief is its table times the messages its
variables send it,

    b_f(x_f) ∝ φ_f^e(x_f) Π_{v ∈ f} μ_{v→f}(x_v),      μ_{v→f} = Π_{g ∋ v, g ≠ f} μ_{g→v}

and summing out the rest of the scope gives the joint of any variables that share the
factor. On a tree these are the exact P(x_f | e); with loops they are the Bethe
approximation's pseudo-marginals, with no error bar. Variables that share no factor have
no joint belief: loopy belief propagation never relates them directly (a region of them
would need generalised belief propagation), so that question is refused, naming the
methods that answer it.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> from bbn.engines.approximate.lbp import LoopyBP
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> belief = factor_belief(graph, {4: 0}, (0, 1), LoopyBP())   # P(C, S | A=T): a polytree
>>> belief.probabilities.round(4).tolist()
[[0.0497, 0.8371], [0.0124, 0.1008]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import QueryError
from bbn.engines.approximate.clamping import check_evidence, reduce_factors
from bbn.engines.approximate.lbp import LoopyBP, propagate
from bbn.engines.approximate.result import RunReport
from bbn.views.factor_graph import FactorGraph


@dataclass(frozen=True)
class FactorBelief:
    """A joint belief of loopy belief propagation.

    Parameters
    ----------
    probabilities : numpy.ndarray
        b(x), shape ``(|X_1|, ..., |X_k|)`` in the variables' order, summing to 1.
    factor : int
        The factor of the graph it comes from.
    report : RunReport
        How the messages ran.
    """

    probabilities: np.ndarray
    factor: int
    report: RunReport


def factor_belief(graph: FactorGraph, evidence: Mapping[int, int], variables: Sequence[int],
                  settings: LoopyBP) -> FactorBelief:
    """The joint belief of ``variables`` from the smallest factor that holds them all.

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
        ``{variable index: state index}``.
    variables : sequence of int
        Unobserved variables that share a factor.
    settings : LoopyBP

    Returns
    -------
    FactorBelief

    Raises
    ------
    QueryError
        When a variable is observed or no factor holds them all (naming the methods that
        answer).
    ImpossibleEvidenceError
        As :meth:`LoopyBP.run`.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B", "C"), (("0", "1"),) * 3, ((0, 1), (1, 2)),
    ...                     (np.array([[4.0, 1.0], [2.0, 3.0]]), np.ones((2, 2))))
    >>> factor_belief(graph, {}, (1, 0), LoopyBP()).probabilities.tolist()
    [[0.4, 0.2], [0.1, 0.3]]
    >>> factor_belief(graph, {}, (0, 2), LoopyBP())
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: loopy belief propagation gives a joint belief only of ...
    """
    evidence = check_evidence(graph, evidence)
    variables = tuple(int(v) for v in variables)
    names = [graph.variables[v] for v in variables]
    observed = [graph.variables[v] for v in variables if v in evidence]
    if observed:
        raise QueryError(f"{observed} observed: ask for the joint of the others, or use "
                         "a sampler or method='exact'")
    reduced = reduce_factors(graph, evidence)
    holding = [r for r, scope in enumerate(reduced.scopes) if set(variables) <= set(scope)]
    if not holding:
        samplers = "'lw', 'is' or 'gibbs'" if graph.is_bayesian else "'gibbs'"
        raise QueryError(f"loopy belief propagation gives a joint belief only of variables "
                         f"that share a factor, and {names} share none; use {samplers} "
                         "(sampled joints with standard errors) or method='exact'")
    r = min(holding, key=lambda r: reduced.tables[r].size)
    k, scope, table = reduced.factors[r], reduced.scopes[r], reduced.tables[r]
    run = propagate(graph, evidence, settings)
    belief = np.array(table, dtype=np.float64)
    for axis, v in enumerate(scope):
        incoming = np.ones(int(graph.cardinality[v]))
        for (g, u), message in run.to_variable.items():
            if u == v and g != k:
                incoming = incoming * message
        belief = belief * incoming.reshape([-1 if a == axis else 1 for a in range(len(scope))])
    others = tuple(a for a, v in enumerate(scope) if v not in variables)
    joint = belief.sum(axis=others)
    kept = [v for v in scope if v in variables]
    joint = np.transpose(joint, [kept.index(v) for v in variables])
    return FactorBelief(joint / joint.sum(), k, run.report)

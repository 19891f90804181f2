"""The oracle of the inference tests: answers read off the full joint table.

It never touches bbn's elimination code: every table is multiplied into the joint
P(X1, ..., Xn) with one ``numpy.einsum``, and each answer is a slice and a sum of that
array. Only for small networks (the joint has ∏|Xi| entries).
"""

from __future__ import annotations

import numpy as np

import bbn


def joint_array(net: bbn.Network | bbn.MarkovNetwork) -> np.ndarray:
    """P(X1, ..., Xn) with one axis per variable, in ``net.variables`` order; for a Markov
    network the product of its factors, Z times P (``p_evidence`` is then Z(e))."""
    axis = {v: i for i, v in enumerate(net.variables)}
    operands: list = []
    if isinstance(net, bbn.MarkovNetwork):
        for factor in net.factors:
            operands += [factor.values, [axis[u] for u in factor.variables]]
        for v in net.variables:  # every axis, also of a variable in no factor
            operands += [np.ones(net.cardinality(v)), [axis[v]]]
    for v in [] if isinstance(net, bbn.MarkovNetwork) else net.variables:
        operands += [np.asarray(net.cpt_array(v)), [axis[u] for u in net.parents(v) + (v,)]]
    if not operands:
        return np.ones(())
    return np.einsum(*operands, list(range(len(net.variables))))


class BruteForce:
    """Answers read off the full joint table of a network."""

    def __init__(self, net: bbn.Network | bbn.MarkovNetwork) -> None:
        self.net = net
        self.variables = list(net.variables)
        self.joint = joint_array(net)

    def _index(self, evidence: dict[str, str]) -> tuple:
        return tuple(self.net.states(v).index(evidence[v]) if v in evidence else slice(None)
                     for v in self.variables)

    def restricted(self, evidence: dict[str, str]) -> np.ndarray:
        """The joint with the evidence's entries kept and every other entry set to 0."""
        mask = np.zeros_like(self.joint)
        mask[self._index(evidence)] = 1.0
        return self.joint * mask

    def p_evidence(self, evidence: dict[str, str]) -> float:
        return float(self.joint[self._index(evidence)].sum())

    def unnormalised(self, query: list[str], evidence: dict[str, str]) -> np.ndarray:
        """Σ_{others} P(query, others, e) with axes in ``query`` order."""
        table = self.restricted(evidence)
        others = tuple(i for i, v in enumerate(self.variables) if v not in query)
        table = table.sum(axis=others)
        kept = [v for v in self.variables if v in query]
        return np.transpose(table, [kept.index(v) for v in query])

    def posterior(self, query: list[str], evidence: dict[str, str]) -> np.ndarray | None:
        """P(query | e), or None when P(e) = 0."""
        table = self.unnormalised(query, evidence)
        total = table.sum()
        return None if total == 0 else table / total

    def probability(self, assignment: dict[str, str], evidence: dict[str, str]) -> float | None:
        """P(assignment | e), or None when P(e) = 0."""
        p_e = self.p_evidence(evidence)
        if p_e == 0:
            return None
        if any(v in evidence and evidence[v] != s for v, s in assignment.items()):
            return 0.0
        return self.p_evidence({**evidence, **assignment}) / p_e

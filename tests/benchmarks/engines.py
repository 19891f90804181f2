"""One question asked the way each library's users ask it, returning a plain array.

Every function answers P(target | evidence) as a 1-D array in the target's state order
(the same order everywhere, since every library's network is built from one Model).
"""

from __future__ import annotations

import numpy as np


def bbn_posterior(net, target: str, evidence: dict[str, str]) -> np.ndarray:
    return net.posterior([target], evidence).values


def pyagrum_posterior(bn, target: str, evidence: dict[str, str]) -> np.ndarray:
    """A fresh LazyPropagation per question, told its one target so it can prune."""
    import pyagrum as gum

    engine = gum.LazyPropagation(bn)
    engine.setEvidence(evidence)
    engine.addTarget(target)
    engine.makeInference()
    return engine.posterior(target).toarray()


def pgmpy_posterior(model, target: str, evidence: dict[str, str]) -> np.ndarray:
    """A fresh VariableElimination per question (its default greedy order)."""
    from pgmpy.inference import VariableElimination

    factor = VariableElimination(model).query([target], evidence=evidence, show_progress=False)
    return np.asarray(factor.values, dtype=float)


def max_difference(first: list[np.ndarray], second: list[np.ndarray]) -> float:
    """The largest absolute difference between paired answers."""
    return max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
               for a, b in zip(first, second))


def difference_note(answers: dict[str, list], reference: str = "bbn") -> tuple[str, dict]:
    """``"max Δ vs pyAgrum 1e-16, ..."`` over the libraries that answered, and its numbers."""
    if reference not in answers:
        reference = next(iter(answers), None)
    if reference is None:
        return "no answers to compare", {}
    diffs = {}
    for library, values in answers.items():
        if library != reference:
            diffs[f"{reference}-{library}"] = max_difference(answers[reference], values)
    text = ", ".join(f"{pair} {value:.1e}" for pair, value in diffs.items())
    return (f"max Δ {text}" if text else ""), diffs

"""Questions answered by cutset conditioning (``method="cutset"``): exact, time for space.

    P(X | e) = Σ_c P(e, c) · P(X | e, c) / Σ_c P(e, c)        ln Z(e) = ln Σ_c P(e, c)

The kinds it answers — the posterior of one variable, every posterior, ln Z(e) — reach
these functions from :data:`bbn.questions.dispatch.KINDS` (each kind's ``cutset``, a lazy
reference); the sum is :class:`bbn.engines.exact.cutset_conditioning.CutsetConditioning`.
The answers are exact, so ImpossibleEvidenceError is a proof (P(e, c) = 0 for every
assignment). Progress goes to the terminal bar (:mod:`bbn.core.progress`) when standard
error is a terminal, the first report with the estimated time; ``progress=`` passed as an
option replaces it.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> net.posterior("C", {"A": "T"}, method="cutset").values.round(6).tolist()
[0.886749, 0.113251]
"""

from __future__ import annotations

from bbn.core.errors import QueryError
from bbn.core.factor import Factor
from bbn.engines.exact.cutset_conditioning import CutsetAnswer, CutsetConditioning
from bbn.questions.resolution import Question, continuous_error


def _run(answering, question: Question, progress=True) -> CutsetAnswer:
    """The sum over the cutset's states for the question's evidence."""
    evidence = question.evidence
    if evidence.values:
        raise continuous_error(next(iter(evidence.values)), "discrete evidence")
    return CutsetConditioning(answering.engine, evidence.states).run(progress)


def posterior(answering, question: Question, model, **options):
    """P(X | e) of one variable (a Factor), or P(X = x | e) (a float).

    Examples
    --------
    >>> import bbn
    >>> round(bbn.load("models/chair.bn").query("P(C=T | A=T)", method="cutset"), 6)
    0.886749
    """
    targets = [*question.free, *question.assigned]
    if len(targets) != 1:
        raise QueryError("cutset conditioning answers the posterior of one variable at a "
                         f"time (or every posterior); asked {len(targets)}: {targets}")
    v = targets[0]
    values = _run(answering, question, options.get("progress", True)).marginals[v]
    if question.assigned:
        return float(values[question.assigned[v]])
    return Factor((v,), {v: question.network.states[v]}, values)


def posteriors(answering, question: Question, model, **options) -> dict[str, Factor]:
    """P(X | e) of every variable, observed ones one-hot.

    Examples
    --------
    >>> import bbn
    >>> found = bbn.load("models/chair.bn").posteriors({"A": "T"}, method="cutset")
    >>> round(found["B"].to_dict()["T"], 6)
    0.600478
    """
    network = question.network
    found = _run(answering, question, options.get("progress", True)).marginals
    return {v: Factor((v,), {v: network.states[v]}, found[v]) for v in network.variables
            if v not in network.auxiliary}


def log_partition(answering, question: Question, model, scale: float = 0.0,
                  **options) -> float:
    """ln Z(e) (ln P(e) for a Bayesian network).

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions import dispatch
    >>> round(dispatch.log_partition(bbn.load("models/chair.bn"), {"A": "T"}, "cutset"), 6)
    -1.579607
    """
    return _run(answering, question, options.get("progress", True)).log_weight + scale


__all__ = ["log_partition", "posterior", "posteriors"]

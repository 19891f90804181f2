"""Every posterior with likelihood evidence, from the model's own engine: no view made.

    P(X | e, λ) ∝ Σ_h P(X, h, e) · Π_W λ_W(w)          for every variable X at once

``net.posteriors({"A": "T", "W": {"T": 0.8, "F": 0.4}})`` is one propagation in the
junction tree of the model with a virtual child per weighed variable
(:meth:`bbn.engines.exact.weighing.Weighing.weighed_posteriors`): the tree is compiled
once per shape of the question (the observed and weighed variables, and whether each
likelihood has a zero) and the likelihood's numbers are given with each question, so a
question whose numbers change costs what the same question asked again does.
:func:`bbn.questions.dispatch.answer` reaches it through the kind's ``weighed`` answer
(``KINDS["POSTERIORS"]``) when the method is exact; interventions, soft findings,
batches and Gaussian leaves take the general path of :mod:`bbn.questions.uncertain`.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> weighed = net.posteriors({"A": "T", "W": {"T": 1.0, "F": 0.0}})   # W = T, as a 0/1 λ
>>> hard = net.posteriors({"A": "T", "W": "T"})
>>> round(weighed["C"].to_dict()["T"], 12) == round(hard["C"].to_dict()["T"], 12)
True
"""

from __future__ import annotations

from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.factor import Factor
from bbn.questions.resolution import Asked, Uncertain, resolve_evidence


def posteriors(answering, asked: Asked, found: Uncertain) -> dict[str, Factor] | None:
    """P(X | e, λ) for every variable X (``{variable: Factor}``, declaration order) of the
    model whose :class:`~bbn.questions.dispatch.Answering` is ``answering``, the
    likelihoods of ``found`` weighed into its own engine's junction tree; None when the
    question has no likelihood, a batch, interventions or soft findings, or the network
    Gaussian leaves (the view with virtual children answers it then).

    Raises
    ------
    ImpossibleEvidenceError
        When P(e, λ) = 0, naming the hard findings and the weighed variables.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.dispatch import answering
    >>> from bbn.questions.resolution import resolve_uncertain
    >>> net = bbn.load("models/chair.bn")
    >>> asked = Asked("POSTERIORS", "evidence", (), {"A": "T", "W": {"T": 0.8, "F": 0.4}})
    >>> found = resolve_uncertain(net.compiled(), asked)
    >>> round(posteriors(answering(net), asked, found)["C"].to_dict()["T"], 6)
    0.936426
    """
    if (asked.batch or not found.likelihoods or found.do or found.stochastic or found.soft
            or answering.view.gaussian):
        return None
    evidence = resolve_evidence(answering.view, found.hard)
    try:
        return answering.engine.weighed_posteriors(evidence, found.likelihoods)
    except ImpossibleEvidenceError:
        raise ImpossibleEvidenceError({**found.hard, **{v: "(likelihood)"
                                                        for v in found.likelihoods}}) from None

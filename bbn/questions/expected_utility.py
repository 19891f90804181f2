"""The questions of an influence diagram answered: MEU, EU(D = d) and the value of
perfect information, in utility units.

    MEU(e) = max_δ E[Σ_u U_u | e; δ]      EU(D = d | e) = MEU(e, D = d)
    EVPI(X → D) = MEU with X known when D is taken − MEU(e)

:mod:`bbn.questions.dispatch` reaches these by lazy references (``KINDS["MEU"]``,
``"EU"``, ``"EVPI"``); the question is resolved already (names → state indices), the
answer comes from :mod:`bbn.engines.exact.influence_diagrams` on the model's compiled
view, a :class:`~bbn.views.decision_network.DecisionNetwork`.

>>> import bbn
>>> net = bbn.load("models/oil.bn")
>>> round(net.query("EU(Test=no_test)"), 6), round(float(net.query("MEU()")), 6)
(20.0, 22.5)
"""

from __future__ import annotations

from bbn.core.errors import QueryError, suggest
from bbn.engines.exact import influence_diagrams
from bbn.engines.exact.decision_policies import PERFECT_RECALL
from bbn.questions.resolution import Question


def _view(question: Question):
    """The question's view, when it is an influence diagram's."""
    view = question.network
    if not getattr(view, "decisions", None) and not getattr(view, "utilities", None):
        raise QueryError("MEU, EU, policies and the value of perfect information are "
                         "questions of an influence diagram: this network has no decisions "
                         "and no utilities (build a bbn.InfluenceDiagram, or declare "
                         "'decision' and 'utility' nodes in the .bn file)")
    return view


def _decision(view, name: str) -> str:
    if name not in view.decisions:
        raise QueryError(f"{name!r} is not a decision{suggest(name, view.decisions)}"
                         f" (the decisions: {', '.join(view.decisions) or 'none'})")
    return name


def answer_meu(answering, question: Question, model, reading: str = PERFECT_RECALL,
               **options):
    """MEU( | e): a :class:`~bbn.engines.exact.decision_policies.Solution` (``float()``
    is the MEU)."""
    view = _view(question)
    if question.free or question.assigned:
        raise QueryError("MEU takes evidence only, as in MEU( | Result=positive)")
    evidence = question.evidence
    return influence_diagrams.solve(view, evidence.states, reading, evidence.given)


def answer_eu(answering, question: Question, model, reading: str = PERFECT_RECALL,
              **options) -> float:
    """EU(D=d | e): the MEU with the decision D taken as d."""
    view = _view(question)
    if question.free or len(question.assigned) != 1:
        raise QueryError("EU takes one decision and its option, as in EU(Drill=yes | e)")
    (decision, option), = question.assigned.items()
    evidence = question.evidence
    return influence_diagrams.expected_utility(view, _decision(view, decision), option,
                                               evidence.states, reading, evidence.given)


def answer_evpi(answering, question: Question, model, reading: str = PERFECT_RECALL,
                **options) -> float:
    """EVPI of observing ``free[0]`` before the decision ``free[1]``."""
    view = _view(question)
    variable, decision = question.free
    return influence_diagrams.value_of_perfect_information(
        view, variable, _decision(view, decision), question.evidence.states, reading)

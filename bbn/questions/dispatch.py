"""Every question of a model answered by one path: text → question → resolve → dispatch
→ engine → present.

    answer(q, m) = KINDS[kind(q)].exact(engine(view), resolve(view, q))     m = "exact"
                 = KINDS[kind(q)].approximate(graph(view), resolve(view, q), m)   otherwise

This module is the one switch on a question's kind × method × form of evidence (a dict,
a DataFrame of cases, a Dask DataFrame). The public functions are what the models'
question methods call, one line each: :func:`ask` (the query language), :func:`posterior`,
:func:`posteriors`, :func:`probability`, :func:`log_probability`, :func:`log_partition`,
:func:`map`, :func:`mpe`, and the per-revision :func:`engine` and :func:`factor_graph`.
Each resolves its question once (:func:`bbn.questions.resolution.resolve`: the one place
names are looked up), then :func:`answer` hands the resolved question to the exact
engine (cached per compiled view, with its plans and junction trees) or to an
approximate method on the view's factor graph. A *model* here is anything with
``compiled()`` (a :class:`bbn.Network` or :class:`bbn.MarkovNetwork`); it keeps one
slot, ``_answering``, where this module caches its :class:`Answering` for the revision
and which the model clears on every change.

The kinds are a registry, :data:`KINDS`: kind → :class:`Kind` (how the exact engine
answers it, for a dict and for a batch of cases, and a lazy reference
``"module:function"`` to its approximate answer, loaded on first use so that ``import
bbn`` does not load the approximate engines). A new kind of question — an intervention
``do(X=x)``, soft evidence, a decision — plugs in here, once::

    def answer_do(answering, question, model, **options):
        ...                                  # the engine's answer over indices
    register("DO", Kind(exact=answer_do))    # and its form in resolution / language

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> round(ask(net, "P(C=T | A=T)"), 6), round(ask(net, "P(C=T | A=T)", "lbp"), 6)
(0.886749, 0.886749)
>>> sorted(KINDS)  # doctest: +NORMALIZE_WHITESPACE
['CONTINUOUS', 'CONTINUOUS_POSTERIORS', 'EU', 'EVPI', 'H', 'HYBRID', 'HYBRID_POSTERIORS',
  'I', 'IND', 'LOG', 'LOG_P', 'LOG_Z', 'MAP', 'MEU', 'MPE', 'P', 'POSTERIORS', 'PROBABILITY']
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

import bbn.questions.max_cases as max_cases
import bbn.questions.presentation as presentation
from bbn.core.errors import ImpossibleEvidenceError, QueryError
from bbn.core.factor import Factor
from bbn.core.lazy import reference
from bbn.engines.exact.engine import Engine
from bbn.questions import resolution
from bbn.questions.language import Query, parse_query
from bbn.questions.partitions import is_dask, map_partitions
from bbn.questions.resolution import (
    Asked,
    Cases,
    Model,
    Question,
    check_impossible,
    continuous_error,
    resolve_targets,
    warn_impossible,
)
from bbn.views.compiled import CompiledNetwork
from bbn.views.factor_graph import FactorGraph

#: The method of exact inference (any other value names an approximate method).
EXACT = "exact"

#: Exact inference by conditioning on a cutset: time for space where no junction tree
#: fits (:mod:`bbn.questions.cutset_answers`).
CUTSET = "cutset"


# The models' ``_answering`` slots and the answerings' engines and graphs are filled by
# whichever thread asks first; this lock guards the filling only (never a question).
_FILLING = threading.Lock()


# ----------------------------------------------------------------- per revision
class Answering:
    """What answers the questions of one compiled view: the exact engine and the factor
    graph of the approximate methods, each made on first need.

    Examples
    --------
    >>> import bbn
    >>> answering = Answering(bbn.load("models/chair.bn").compiled())
    >>> answering.engine is answering.engine
    True
    """

    __slots__ = ("view", "_engine", "graph", "derived", "continuous")

    def __init__(self, view: CompiledNetwork, engine: Engine | None = None) -> None:
        self.view = view
        self._engine: Engine | None = engine  # given: made already, for this view
        self.graph: FactorGraph | None = None
        self.derived: dict | None = None  # the views of interventions... (uncertain.py)
        self.continuous = None  # bbn.questions.continuous_answers keeps its engine here

    @property
    def engine(self) -> Engine:
        """The exact engine of the view (built once)."""
        engine = self._engine
        if engine is None:
            with _FILLING:
                engine = self._engine
                if engine is None:
                    engine = self._engine = Engine(self.view)
        return engine


def answering(model: Model, view: CompiledNetwork | None = None) -> Answering:
    """The :class:`Answering` of the model's current revision, ``view`` when given
    (kept in its ``_answering`` slot until the model changes)."""
    if view is None:
        view = model.compiled()
    found = model._answering
    if found is None or found.view is not view:
        with _FILLING:
            found = model._answering
            if found is None or found.view is not view:
                found = model._answering = Answering(view)
    return found


def engine(model: Model) -> Engine:
    """The exact engine of the model's current revision (``net.engine``).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> engine(net) is engine(net) is net.engine
    True
    """
    return answering(model).engine


def factor_graph(model: Model) -> FactorGraph:
    """The factor graph the approximate methods read, made once per revision: one factor
    per table of a Bayesian network, a Markov network's factors as they are (a model
    with ``factors``).

    Examples
    --------
    >>> import bbn
    >>> factor_graph(bbn.load("models/chair.bn")).scopes[3]
    (0, 1, 3)
    """
    found = answering(model)
    if found.graph is None:
        factors = getattr(model, "factors", None)
        graph = (FactorGraph.from_compiled(found.view) if factors is None else
                 FactorGraph.from_factors(model.variables, {
                     v: model.states(v) for v in model.variables}, factors))
        with _FILLING:  # made outside the lock; the first one made is kept
            if found.graph is None:
                found.graph = graph
    return found.graph


# ------------------------------------------------------------------ the kinds
class Kind(NamedTuple):
    """How one kind of question is answered.

    ``exact(answering, question, model, **options)`` answers a question whose evidence
    is a dict (or a lazy reference ``"module:function"`` to it, for a kind whose module
    ``import bbn`` need not load: independence and information); ``batch(...)`` one
    whose evidence is a batch of cases (:class:`~bbn.questions.resolution.Cases`), None
    when the kind takes no batch;
    ``approximate`` is a lazy reference ``"module:function"`` to ``function(graph,
    question, method)``, None when the kind has no approximate answer; ``joint``: the
    exact answer is the joint of the free targets, into which likelihoods and soft
    findings may be weighed (:mod:`bbn.questions.uncertain`); ``structural`` marks a
    kind answered from the graph alone (d-separation): no numbers, so every method
    gets the exact answer.
    """

    exact: Callable | str
    batch: Callable | None = None
    approximate: str | None = None
    joint: bool = False
    structural: bool = False
    view: bool = False  # the approximate answer reads the Answering, not the factor graph
    cutset: str | None = None  # a lazy reference to its answer by cutset conditioning
    #: a lazy reference to its exact answer with likelihoods weighed into the model's own
    #: engine, ``function(answering, asked, found)`` (None where it does not apply: the
    #: view with virtual children answers then)
    weighed: str | None = None


def _probability_or_posterior(answering: Answering, question: Question, model, **options):
    """P(free, assigned | e): a Factor over the free targets, a float when all are
    assigned (the assigned axes of the joint sliced at their states)."""
    engine, free, assigned, evidence = answering.engine, question.free, question.assigned, \
        question.evidence
    if not assigned:
        return engine.posterior(free, evidence)
    if not free and not evidence.given:
        return engine.probability(assigned, evidence)
    joint = engine.posterior(list(free) + list(assigned), evidence)
    values = joint.values[(Ellipsis, *assigned.values())]  # the assigned axes come last
    if not free:
        return float(values)
    return Factor(free, {v: joint.states[v] for v in free}, values)


def _posterior_of_cases(answering: Answering, question: Question, model,
                        impossible: str = "raise", **options) -> np.ndarray:
    cases = question.evidence
    result = answering.engine.posterior_of_cases(list(question.free), cases.codes,
                                                 cases.row_names, cases.count, impossible)
    warn_impossible(result, None)  # names the model method's caller
    return result


def _posteriors(answering: Answering, question: Question, model, **options) -> dict:
    return answering.engine.posteriors(question.evidence)


def _posteriors_of_cases(answering: Answering, question: Question, model,
                         impossible: str = "raise", **options) -> dict:
    view, cases = answering.view, question.evidence
    if view.gaussian:  # continuous leaves weigh the discrete answer: one query each
        raise continuous_error(next(iter(view.gaussian)), "all posteriors")
    result = answering.engine.marginals_of_cases(cases.codes, cases.row_names, cases.count,
                                                 impossible)
    warn_impossible(next(iter(result.values())), None)
    return result


def _discrete(question: Question):
    """The question's evidence, or the error for a number on a Gaussian leaf (max-product
    and P(e) take discrete evidence only)."""
    evidence = question.evidence
    if evidence.values:
        raise continuous_error(next(iter(evidence.values)), "discrete evidence")
    return evidence


def _probability(answering: Answering, question: Question, model, **options) -> float:
    return answering.engine.probability(question.assigned, question.evidence)


def _map(answering: Answering, question: Question, model, **options):
    return answering.engine.map(list(question.free), _discrete(question))


def _mpe(answering: Answering, question: Question, model, **options):
    return answering.engine.mpe(_discrete(question))


def _log(answering: Answering, question: Question, model, **options) -> float:
    """log P(assigned | e), natural log, exact below 1e-308, −inf when it is 0."""
    evidence, assigned, engine = _discrete(question), question.assigned, answering.engine
    states = evidence.states
    if any(v in states and states[v] != i for v, i in assigned.items()):
        return -math.inf
    joint = engine.log_weight({**states, **assigned})
    if not states:
        return joint
    marginal = engine.log_weight(states)
    if marginal == -math.inf:
        raise ImpossibleEvidenceError(evidence.given)
    return joint - marginal


def _log_probability(answering: Answering, question: Question, model, **options) -> float:
    return answering.engine.log_probability(question.evidence.states)


def _log_partition(answering: Answering, question: Question, model, scale: float = 0.0,
                   **options) -> float:
    return answering.engine.log_weight(question.evidence.states) + scale


#: kind → how it is answered (see :class:`Kind`): the one table of question kinds.
KINDS: dict[str, Kind] = {
    "P": Kind(_probability_or_posterior, _posterior_of_cases, "bbn.questions.estimates:posterior",
              joint=True),
    "PROBABILITY": Kind(_probability, None, "bbn.questions.estimates:posterior"),
    "POSTERIORS": Kind(_posteriors, _posteriors_of_cases, "bbn.questions.estimates:posteriors"),
    "MAP": Kind(_map, max_cases.map_of_cases, "bbn.questions.estimates:map_estimate"),
    "MPE": Kind(_mpe, max_cases.mpe_of_cases, "bbn.questions.estimates:mpe_estimate"),
    "LOG": Kind(_log),
    "LOG_P": Kind(_log_probability),
    "LOG_Z": Kind(_log_partition, None, "bbn.questions.estimates:log_partition"),
    "IND": Kind("bbn.questions.d_separation:answer_independence", structural=True),
    "H": Kind("bbn.questions.information:answer_entropy"),
    "I": Kind("bbn.questions.information:answer_information"),
    "MEU": Kind("bbn.questions.expected_utility:answer_meu"),
    "EU": Kind("bbn.questions.expected_utility:answer_eu"),
    "EVPI": Kind("bbn.questions.expected_utility:answer_evpi"),
    "CONTINUOUS": Kind("bbn.questions.continuous_answers:answer_continuous",
                       lambda *args, **options: reference(
                           "bbn.questions.continuous_batches:posterior_of_cases")(
                           *args, **options)),
    "CONTINUOUS_POSTERIORS": Kind("bbn.questions.continuous_answers:answer_continuous_posteriors"),
    "HYBRID": Kind("bbn.questions.hybrid_answers:refuse", None,
                   "bbn.questions.hybrid_answers:answer_hybrid", view=True),
    "HYBRID_POSTERIORS": Kind("bbn.questions.hybrid_answers:refuse", None,
                              "bbn.questions.hybrid_answers:answer_hybrid_posteriors", view=True),
}


#: The kinds cutset conditioning answers (``method="cutset"``).
for _kind, _answer in (("P", "posterior"), ("PROBABILITY", "posterior"),
                       ("POSTERIORS", "posteriors"), ("LOG_Z", "log_partition")):
    KINDS[_kind] = KINDS[_kind]._replace(cutset=f"bbn.questions.cutset_answers:{_answer}")

#: Every posterior with likelihoods, exactly: from the model's own junction trees.
KINDS["POSTERIORS"] = KINDS["POSTERIORS"]._replace(
    weighed="bbn.questions.weighed_posteriors:posteriors")


def register(kind: str, how: Kind) -> None:
    """Add a kind of question (or replace how one is answered).

    Examples
    --------
    >>> register("ONE", Kind(lambda answering, question, model, **options: 1.0))
    >>> "ONE" in KINDS
    True
    >>> unregister("ONE")
    """
    KINDS[kind] = how


def unregister(kind: str) -> None:
    """Remove a kind added by :func:`register`."""
    del KINDS[kind]


# ------------------------------------------------------------------ answering
def answer(model: Model, question: Question, method=EXACT, **options):
    """The answer to a resolved ``question`` of ``model`` by ``method``: the one switch on
    kind × method × form of evidence.

    Parameters
    ----------
    model : Network or MarkovNetwork
        Anything with ``compiled()``, whose current view ``question`` was resolved on.
    question : Question
    method : str or method value, default "exact"
        ``"exact"``, or an approximate method by name or value.
    **options
        Passed to the kind's answer (``impossible`` for batches).

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.resolution import Asked, resolve
    >>> net = bbn.load("models/chair.bn")
    >>> question = resolve(net.compiled(), Asked("P", "variables", ["C"], {"A": "T"}))
    >>> answer(net, question).values.round(6).tolist()
    [0.886749, 0.113251]
    """
    how = KINDS.get(question.kind)
    if how is None:
        raise QueryError(f"no answer for questions of kind {question.kind!r}")
    batch = type(question.evidence) is Cases
    if method == CUTSET and not how.structural:
        if batch or how.cutset is None:
            raise QueryError(f"cutset conditioning answers P(X | e) of one variable, every "
                             f"posterior and log Z(e) for one case, not {question.kind} "
                             + ("questions of a batch" if batch else "questions"))
        return reference(how.cutset)(answering(model, question.network), question, model,
                                     **options)
    if method == EXACT or how.structural:
        if batch:
            if how.batch is None:
                raise QueryError(f"{question.kind} questions take one case, not a batch")
            return how.batch(answering(model, question.network), question, model, **options)
        exact = how.exact if type(how.exact) is not str else reference(how.exact)
        return exact(answering(model, question.network), question, model, **options)
    if batch:
        raise QueryError(_BATCHES_EXACT)
    if how.approximate is None:
        raise QueryError(f"{question.kind} questions are answered exactly only; "
                         "leave out method")
    return reference(how.approximate)(answering(model, question.network) if how.view else
                                      factor_graph(model), question, method)


def _ask(model: Model, asked: Asked, method=EXACT, **options):
    """Resolve ``asked`` once against the model's view and answer it (likelihoods, ``do``
    and soft findings on a view made for them); a batch takes exact methods only."""
    if not asked.batch and _is_frame(asked.evidence):  # probability, log_probability, ...
        raise QueryError("this question takes one case: evidence must be a dict "
                         f"{{variable: state}}, not {type(asked.evidence).__name__} (a "
                         "DataFrame of cases is asked of posterior, posteriors, map or mpe)")
    if asked.do or asked.soft or (asked.query.do or asked.query.counterfactual
                                  if asked.query else _uncertain(asked.evidence)):
        how = ("bbn.questions.counterfactual:ask_counterfactual" if asked.query and
               asked.query.counterfactual else "bbn.questions.uncertain:ask_uncertain")
        kind = KINDS.get(asked.kind)
        if method == EXACT and kind is not None and kind.weighed:
            options["weighed_answer"] = _referred(kind.weighed)
        if asked.batch and asked.soft:  # bbn.questions.soft_cases answers exact batches
            options["exact"] = method == EXACT
        elif asked.batch and method not in (EXACT, CUTSET) and not (kind and kind.structural):
            raise QueryError(_BATCHES_EXACT)  # (likelihood columns, do) as hard ones
        return _referred(how)(model, asked, method, answer, answering(model),
                              joint=method == EXACT and kind is not None and kind.joint,
                              **options)
    return answer(model, resolution.resolve(model.compiled(), asked), method, **options)


#: Why a batch (a DataFrame of cases) takes no approximate method.
_BATCHES_EXACT = "a DataFrame of cases takes method='exact'; approximate methods take a dict"
#: A lazy reference resolved once (the uncertain questions' path, asked often).
_referred = functools.cache(reference)


def _uncertain(evidence) -> bool:
    """Whether a dict of evidence holds a likelihood (a value ``{state: number}``), or a
    DataFrame of cases a column of them."""
    if type(evidence) is not dict:
        return _is_frame(evidence) and bool(resolution.likelihood_columns(evidence))
    return any(type(s) is not str and type(s) is not float and isinstance(s, Mapping)
               for s in evidence.values())


def soft_likelihoods(model: Model, soft: dict, evidence: dict | None = None,
                     do: dict | None = None):
    """The likelihoods λ(w) = q(w) / P(w | e) Jeffrey's rule puts on softly observed
    variables (fitted by iterative proportional fitting when several), and the fit's
    report: what ``soft=`` on a question does, shown.

    Parameters
    ----------
    model : Network or MarkovNetwork
    soft : dict
        ``{variable: {state: probability}}``, each summing to 1.
    evidence, do : dict, optional
        The other findings and interventions, as on a question.

    Returns
    -------
    tuple
        ``({variable: {state: λ}}, SoftFit)``, each λ scaled to a largest value of 1;
        :class:`~bbn.questions.soft_fit.SoftFit` holds the sweeps, the deviation left
        and whether it converged.

    Raises
    ------
    ImpossibleEvidenceError
        When a soft finding gives weight to a state the other evidence rules out.

    Examples
    --------
    >>> import bbn
    >>> weights, fit = soft_likelihoods(bbn.load("models/chair.bn"), {"C": {"T": .5, "F": .5}})
    >>> {s: round(x, 4) for s, x in weights["C"].items()}, fit.converged
    ({'T': 0.25, 'F': 1.0}, True)
    """
    return reference("bbn.questions.uncertain:soft_likelihoods")(
        model, answering(model), answer, soft, evidence, do)


def _is_frame(evidence) -> bool:
    """Whether ``evidence`` is a DataFrame of cases (read without importing pandas)."""
    return (evidence is not None and type(evidence) is not dict
            and hasattr(evidence, "columns") and hasattr(evidence, "iloc"))


def ask(model: Model, query: str | Query, method=EXACT):
    """The answer to a query of the language (``net.query``): a Factor for a
    distribution, a float for a probability, (assignment, probability) for MAP and MPE;
    for ``X _|_ Y | Z`` an :class:`~bbn.questions.d_separation.Independence`; bits for
    ``H(...)`` and ``I(...)``.

    Examples
    --------
    >>> import bbn
    >>> print(ask(bbn.load("models/chair.bn"), "P(C | A=T)"))
      C   probability
      T   0.886749
      F   0.113251
    """
    if isinstance(query, str):
        query = parse_query(query)
    return _ask(model, Asked(query.kind, "query", query=query), method)


def log_answer(model: Model, query: str | Query, method=EXACT) -> float:
    """log P(targets | evidence), natural log, for a query of one number (every target
    assigned): exact where the probability is below 1e-308 and prints as 0; −inf when it
    is 0 (exact answers only). What ``bbn query --log`` prints.

    Examples
    --------
    >>> import bbn
    >>> round(log_answer(bbn.load("models/chair.bn"), "P(A=T)"), 6)
    -1.579607
    """
    if method != EXACT:
        raise QueryError("--log takes exact answers only (leave out --method)")
    if isinstance(query, str):
        query = parse_query(query)
    if query.kind != "P" or any(s is None for _, s in query.targets):
        raise QueryError(f"--log needs the probability of an assignment, as in P(A=T, S=F) "
                         f"or P(C=T | A=T); {query.text()} is not one")
    return _ask(model, Asked("LOG", "query", query=query))


def posterior(model: Model, variables: Sequence[str] | str, evidence=None,
              impossible: str = "raise", method=EXACT, do=None, soft=None):
    """P(variables | evidence) (``net.posterior``): a Factor; for a DataFrame of cases a
    DataFrame indexed like it, one column per state (a joint state for several variables:
    :func:`~bbn.questions.presentation.frame_of_cases`), for a Dask DataFrame a Dask
    DataFrame of the same columns, one batched elimination per partition.

    Examples
    --------
    >>> import bbn
    >>> posterior(bbn.load("models/chair.bn"), "C", {"A": "T"}).values.round(6).tolist()
    [0.886749, 0.113251]
    """
    check_impossible(impossible)
    if evidence is not None and type(evidence) is not dict and is_dask(evidence):
        return _posterior_partitions(model, variables, evidence, impossible, method, do, soft)
    asked = Asked("P", "variables", variables, evidence, _is_frame(evidence), do=do, soft=soft)
    result = _ask(model, asked, method, impossible=impossible)
    if not asked.batch:
        return result
    names = [variables] if isinstance(variables, str) else list(variables)
    return presentation.frame_of_cases(result, names, model.compiled().states, evidence.index)


def _posterior_partitions(model: Model, variables: Sequence[str] | str, evidence,
                          impossible: str, method, do: dict | None, soft: dict | None):
    """A Dask DataFrame's posteriors, a Dask DataFrame: the variables, interventions and
    soft findings checked now, each partition's evidence resolved and answered where it
    lives, as a pandas batch is (with ``do`` and ``soft`` for every row)."""
    view = model.compiled()
    names = resolve_targets(view, variables, batched=True)
    _check_partitioned(view, method, do, soft)
    states = {v: view.states[v] for v in names}
    meta = presentation.frame_of_cases(np.empty((0, *(len(states[v]) for v in names))),
                                       names, states, evidence._meta.index)
    return map_partitions(evidence, _partition_posterior, meta, model, names, states,
                          impossible, do, soft)


def _check_partitioned(view, method, do: dict | None, soft: dict | None) -> None:
    """A Dask question is exact, and its ``do`` and ``soft`` name variables and states of
    the model: said before any partition is computed."""
    if method != EXACT:
        raise QueryError(_BATCHES_EXACT)
    if do or soft:
        resolution.resolve_uncertain(view, Asked("P", "variables", (), {}, do=do, soft=soft))


def _partition_posterior(frame, model: Model, names: list[str], states: dict,
                         impossible: str, do: dict | None = None, soft: dict | None = None):
    """One partition's posteriors as a DataFrame (a module function: Dask names its tasks
    by hashing it and its arguments)."""
    values = _ask(model, Asked("P", "variables", names, frame, True, do=do, soft=soft),
                  impossible=impossible)
    return presentation.frame_of_cases(values, names, states, frame.index)


def _posteriors_partitions(model: Model, evidence, impossible: str, method,
                           do: dict | None, soft: dict | None) -> dict:
    """A Dask DataFrame's posteriors of every variable: ``{X: Dask DataFrame}``, each
    partition's posteriors answered per collection."""
    view = model.compiled()
    _check_partitioned(view, method, do, soft)
    states = {v: view.states[v] for v in view.variables if v not in view.gaussian}
    return {v: map_partitions(evidence, _partition_posteriors, presentation.frame_of_cases(
        np.empty((0, len(s))), [v], states, evidence._meta.index), model, v, states,
        impossible, do, soft) for v, s in states.items()}


def _partition_posteriors(frame, model: Model, variable: str, states: dict, impossible: str,
                          do: dict | None = None, soft: dict | None = None):
    """One partition's P(variable | row) as :func:`posteriors` answers a pandas batch."""
    values = _ask(model, Asked("POSTERIORS", "evidence", (), frame, True, do=do, soft=soft),
                  impossible=impossible)[variable]
    return presentation.frame_of_cases(values, [variable], states, frame.index)


def posteriors(model: Model, evidence=None, impossible: str = "raise", method=EXACT,
               do=None, soft=None) -> dict:
    """P(X | evidence) for every variable X (``net.posteriors``): ``{X: Factor}``, or for
    a DataFrame of cases ``{X: DataFrame}``, each indexed like the cases, a column per
    state.

    Examples
    --------
    >>> import bbn
    >>> round(posteriors(bbn.load("models/chair.bn"), {"A": "T"})["C"].to_dict()["T"], 6)
    0.886749
    """
    check_impossible(impossible)
    if evidence is not None and type(evidence) is not dict and is_dask(evidence):
        return _posteriors_partitions(model, evidence, impossible, method, do, soft)
    asked = Asked("POSTERIORS", "evidence", (), evidence, _is_frame(evidence), do=do,
                  soft=soft)
    result = _ask(model, asked, method, impossible=impossible)
    if not asked.batch:
        return result
    states = model.compiled().states
    return {v: presentation.frame_of_cases(values, [v], states, evidence.index)
            for v, values in result.items()}


def probability(model: Model, assignment: Mapping[str, str],
                evidence: Mapping[str, str] | None = None, method=EXACT, do=None,
                soft=None) -> float:
    """P(assignment | evidence) (``net.probability``).

    Examples
    --------
    >>> import bbn
    >>> round(probability(bbn.load("models/chair.bn"), {"C": "T"}, {"A": "T"}), 6)
    0.886749
    """
    return _ask(model, Asked("PROBABILITY", "assignment", assignment, evidence, do=do,
                             soft=soft), method)


def log_probability(model: Model, evidence: Mapping[str, str], do=None, soft=None) -> float:
    """log P(evidence), natural log, exact below 1e-308 (``net.log_probability``).

    Examples
    --------
    >>> import bbn
    >>> round(log_probability(bbn.load("models/chair.bn"), {"A": "T"}), 6)
    -1.579607
    """
    return _ask(model, Asked("LOG_P", "evidence", (), evidence, do=do, soft=soft))


def log_partition(model: Model, evidence: Mapping[str, str] | None = None, method=EXACT) -> float:
    """log Z(e), natural log, of a model whose unnormalised weight is exp(``log_scale``)
    times its view's (a Markov network's; 0 when the model has no ``log_scale``: a
    Bayesian network, where Z(e) = P(e)); approximately, an estimate.

    Examples
    --------
    >>> import bbn
    >>> round(log_partition(bbn.load("models/chair.bn").to_markov(), {"A": "T"}), 6)
    -1.579607
    """
    return _ask(model, Asked("LOG_Z", "evidence", (), evidence), method,
                scale=getattr(model, "log_scale", 0.0))


def map(model: Model, variables: Sequence[str] | str, evidence: Mapping[str, str] | None = None,
        method=EXACT, do=None, soft=None, impossible: str = "raise"):
    """The most probable joint state of ``variables`` given ``evidence`` and its
    probability (``net.map``); for a DataFrame of cases a DataFrame
    (:func:`~bbn.questions.max_cases.frame_of_assignments`, an impossible case's row
    missing states and a NaN probability with ``impossible="nan"``).

    Examples
    --------
    >>> import bbn
    >>> assignment, p = map(bbn.load("models/chair.bn"), ["C", "S"], {"A": "T"})
    >>> assignment, round(p, 6)
    ({'C': 'T', 'S': 'F'}, 0.837054)
    """
    check_impossible(impossible)
    asked = Asked("MAP", "variables", variables, evidence, _is_frame(evidence), do=do, soft=soft)
    result = _ask(model, asked, method, impossible=impossible)
    return (max_cases.frame_of_assignments(result, model.compiled().states, evidence.index)
            if asked.batch else result)


def mpe(model: Model, evidence: Mapping[str, str] | None = None, method=EXACT, do=None,
        soft=None, impossible: str = "raise"):
    """The most probable state of every unobserved variable given ``evidence`` and its
    probability (``net.mpe``); for a DataFrame of cases a DataFrame, as :func:`map`.

    Examples
    --------
    >>> import bbn
    >>> assignment, p = mpe(bbn.load("models/chair.bn"), {"A": "T"})
    >>> assignment, round(p, 6)
    ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
    """
    check_impossible(impossible)
    asked = Asked("MPE", "evidence", (), evidence, _is_frame(evidence), do=do, soft=soft)
    result = _ask(model, asked, method, impossible=impossible)
    return (max_cases.frame_of_assignments(result, model.compiled().states, evidence.index)
            if asked.batch else result)


def counterfactual(model: Model, variables: Sequence[str] | str, do: Mapping[str, str],
                   evidence: Mapping[str, str] | None = None, method=EXACT):
    """P(Y_{X=x} | evidence) (``net.counterfactual``): the query ``P(Y_{X=x} | e)``.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network("switch")
    >>> net.add_variable("U", ["off", "on"], table=[0.4, 0.6])
    >>> net.add_variable("Y", ["0", "1"], parents=["U"], table=[[1, 0], [0, 1]])
    >>> counterfactual(net, "Y", {"U": "off"}, {"Y": "1"}).values.tolist()
    [1.0, 0.0]
    """
    names = [variables] if isinstance(variables, str) else list(variables)
    query = Query("P", tuple((v, None) for v in names), tuple((evidence or {}).items()),
                  counterfactual=tuple(do.items()))
    return _ask(model, Asked("P", "query", query=query), method)


def marginals(model: Model, evidence: Mapping[str, str] | None, method):
    """One run of an approximate method: every variable's marginal given the evidence
    (:class:`~bbn.engines.approximate.result.Marginals`, with the run's report and, where
    the method gives one, log Z(e)); what the competitions' MAR task reads.

    Examples
    --------
    >>> import bbn
    >>> result = marginals(bbn.load("models/chair.bn"), {"A": "T"}, "lbp")
    >>> result.probabilities["C"].round(6).tolist()
    [0.886749, 0.113251]
    """
    question = resolution.resolve(model.compiled(), Asked("POSTERIORS", "evidence", (),
                                                          evidence))
    return reference("bbn.questions.estimates:marginals")(factor_graph(model), question, method)


def method_from_options(name: str, **settings):
    """The method a name and its settings give, as the command line builds it:
    ``"exact"`` (QueryError when a setting is given, since settings are an approximate
    method's), or the approximate method's value with the settings given (None: the
    default; QueryError for a setting the method does not have).

    Examples
    --------
    >>> method_from_options("exact", samples=None)
    'exact'
    >>> method_from_options("gibbs", samples=500, seed=3, time_budget=None)
    Gibbs(samples=500, time_budget=None, seed=3, chains=100, burn_in=100)
    >>> method_from_options("exact", samples=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: --samples set(s) an approximate method; add --method lbp, ...
    """
    if name in (EXACT, CUTSET):
        given = [f"--{k.replace('_', '-')}" for k, v in settings.items() if v is not None]
        if given:
            raise QueryError(f"{', '.join(given)} set(s) an approximate method; add --method "
                             "lbp, lw, is or gibbs")
        return name
    return reference("bbn.questions.estimates:method_from_options")(name, **settings)


def solve(model: Model, evidence: Mapping[str, str] | None = None,
          reading: str = "perfect recall"):
    """The optimal policies and the MEU of an influence diagram (``net.solve``).

    Examples
    --------
    >>> import bbn
    >>> round(solve(bbn.load("models/oil.bn")).meu, 6)
    22.5
    """
    return _ask(model, Asked("MEU", "evidence", (), evidence), reading=reading)


def expected_utility(model: Model, decision: str, option: str,
                     evidence: Mapping[str, str] | None = None,
                     reading: str = "perfect recall") -> float:
    """EU(decision = option | evidence) (``net.expected_utility``).

    Examples
    --------
    >>> import bbn
    >>> round(expected_utility(bbn.load("models/oil.bn"), "Test", "test"), 6)
    22.5
    """
    return _ask(model, Asked("EU", "assignment", {decision: option}, evidence),
                reading=reading)


def evpi(model: Model, variable: str, decision: str, evidence: Mapping[str, str] | None = None,
         reading: str = "perfect recall") -> float:
    """The expected value of perfect information of ``variable`` before ``decision``, in
    utility units (``net.evpi``).

    Examples
    --------
    >>> import bbn
    >>> round(evpi(bbn.load("models/oil.bn"), "Oil", "Drill"), 6)
    32.5
    """
    return _ask(model, Asked("EVPI", "variables", [variable, decision], evidence),
                reading=reading)

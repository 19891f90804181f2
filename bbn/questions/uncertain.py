"""Uncertain evidence and interventions: each answered as the usual question on a view
made for it.

    likelihood   P(Q | e, λ) ∝ Σ_h P(Q, h, e) · Π_W λ_W(w)          (a virtual child per W)
    do(X = x)    P(Q | do(x), e) = P_x(Q | e),   P_x = Π_{V ≠ X} P(V | pa(V)) · [X = x]
    do(X ~ q)    the same with q(X) in place of [X = x]            (a stochastic intervention)
    Jeffrey      P'(Q) = Σ_w q(w) P(Q | w, e)                      (soft: P'(W) = q exactly)

A likelihood ``{"W": {"T": 0.8, "F": 0.4}}`` is a *virtual child* ``λ(W)`` of W, with
P(λ(W) = yes | W = w) = λ(w) / max λ, observed at ``yes``: only the ratios matter, a 0
rules a state out (a negative finding), and a 0/1 likelihood is the hard finding "W is
one of these states". The probability of evidence with likelihoods is the probability
of every virtual observation with the hard findings, Σ_x P(x, e) Π_W λ_W(x_W) / max λ_W.

An intervention cuts X's incoming arcs and gives X the table [X = x] (or the
distribution q), X set to x also observed; the mutilated joint P_x then answers every
kind of question, exactly or by any approximate method. A soft finding (Jeffrey's rule)
is the likelihood λ(w) = q(w) / P(w | e) on the view of everything else; several at once
are fitted to the joint of the softly observed variables (:mod:`bbn.questions.soft_fit`:
the matrix scaling iterative proportional fitting converges to, found directly where it
can and by sweeps where not), whose convergence is reported (a ``ConvergenceWarning``
when it does not reach 1e-10; :func:`soft_likelihoods` returns its report). A soft finding
giving weight to a state the other evidence rules out is an ImpossibleEvidenceError.

A posterior (and a DataFrame of cases) weighs its likelihoods into the model's own
elimination (:mod:`bbn.engines.exact.weighing`: a virtual child in the plan, its numbers
given per question). One soft finding is Jeffrey's sum itself, one batched elimination
over W's states with W observed in each (``given_each``); several too, fitted on the
P(W_soft | e) the same elimination gives (``joint_of_cases``) — or, with likelihoods as
well, on P(W_soft | e, λ) kept per engine and evidence. Every posterior with likelihoods
alone is one propagation in the model engine's tree per shape
(:mod:`bbn.questions.weighed_posteriors`). Other questions are asked of a view with the
virtual children, the views kept per revision (the last 32 asked); a view with new
numbers shares the junction trees of the last one of its shape (``reweighed``).
:mod:`bbn.questions.dispatch` sends here every question with
likelihoods, ``do`` or ``soft``; the names are checked by
:func:`bbn.questions.resolution.resolve_uncertain`.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> round(net.posterior("C", {"A": "T", "W": {"T": 1, "F": 0}}).to_dict()["T"], 6) == round(
...     net.posterior("C", {"A": "T", "W": "T"}).to_dict()["T"], 6)
True
>>> round(net.probability({"C": "T"}, do={"A": "T"}), 6)       # A has no effect on C
0.8
"""

from __future__ import annotations

import dataclasses
import math
import threading
import weakref
from collections.abc import Callable
from dataclasses import replace
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

import bbn.engines.exact.weighing as weighing
import bbn.questions.coded_likelihoods as coded_likelihoods
import bbn.questions.scaling as scaling
import bbn.questions.soft_cases as soft_cases
from bbn.core.errors import ImpossibleEvidenceError, NoAnswerError, QueryError
from bbn.core.factor import Factor
from bbn.core.memory import check_allocation
from bbn.questions.d_separation import separated
from bbn.questions.resolution import (
    Asked,
    Uncertain,
    evidence_codes,
    likelihood_cells,
    likelihood_columns,
    resolve,
    resolve_evidence,
    resolve_targets,
    resolve_uncertain,
    warn_impossible,
)
from bbn.questions.soft_fit import TOLERANCE, SoftFit, fit_rows, fit_soft, warn_unmet
from bbn.views.compiled import CompiledNetwork

#: The states of a virtual child; it is observed at the first.
VIRTUAL_STATES = weighing.VIRTUAL_STATES

#: Views kept per revision (the most recently asked).
KEPT = 32


class Derived:
    """A model seen through its uncertain evidence and interventions: the view answering
    them (what :mod:`bbn.questions.dispatch` asks, as it asks a model), the factors of a
    Markov network with the virtual children's added, and the virtual children's names
    (``virtual``: variable → its virtual child)."""

    __slots__ = ("view", "_answering", "factors", "log_scale", "virtual")

    def __init__(self, view: CompiledNetwork, factors, log_scale: float,
                 virtual: dict[str, str]) -> None:
        self.view, self.factors, self.log_scale, self.virtual = (view, factors, log_scale,
                                                                 virtual)
        self._answering = None

    def compiled(self) -> CompiledNetwork:
        return self.view

    @property
    def engine(self):
        """The exact engine of the view (the one :mod:`bbn.questions.dispatch` asks)."""
        return self._answering.engine

    @property
    def variables(self) -> tuple[str, ...]:
        return self.view.variables

    def states(self, variable: str) -> tuple[str, ...]:
        return self.view.states[variable]


def derived_view(base: CompiledNetwork, cut: dict[str, np.ndarray],
                 likelihoods: dict[str, np.ndarray]) -> tuple[CompiledNetwork, dict[str, str]]:
    """``base`` with each variable of ``cut`` made a root with the given table (an
    intervention), and a virtual child per variable of ``likelihoods``
    (:func:`bbn.engines.exact.weighing.virtual_view`); also the virtual children's names
    (``λ(W)``, primed until new).

    Examples
    --------
    >>> import bbn, numpy as np
    >>> base = bbn.load("models/chair.bn").compiled()
    >>> view, virtual = derived_view(base, {"C": np.array([1.0, 0.0])},
    ...                              {"W": np.array([0.8, 0.4])})
    >>> view.parents["C"], virtual, view.table("λ(W)").tolist()
    ((), {'W': 'λ(W)'}, [[1.0, 0.0], [0.5, 0.5]])
    """
    if cut:
        parents, tables, zero_free = dict(base.parents), dict(base.tables), dict(base.zero_free)
        for v, table in cut.items():
            table = np.array(table, dtype=float)
            table.setflags(write=False)
            # a one-hot table is only ever read at its state (X set to x is also observed):
            # it cannot make P(e) zero, so the tables it d-separates may still be dropped
            parents[v], tables[v], zero_free[v] = (), table, bool(
                (table > 0).all() or (table == 1).any())
        base = replace(base, parents=MappingProxyType(parents),
                       tables=MappingProxyType(tables), zero_free=MappingProxyType(zero_free))
    return weighing.virtual_view(base, likelihoods)


def derived(model, answering, do: dict[str, int], stochastic: dict[str, np.ndarray],
            likelihoods: dict[str, np.ndarray]) -> Derived:
    """The :class:`Derived` model of these interventions and likelihoods, kept in the
    model's ``answering`` (its :class:`~bbn.questions.dispatch.Answering`) for the
    revision."""
    key = (tuple(sorted(do.items())) if len(do) > 1 else tuple(do.items()),
           tuple((v, q.tobytes()) for v, q in sorted(stochastic.items())) if stochastic else (),
           tuple((v, w.tobytes()) for v, w in sorted(likelihoods.items())) if likelihoods
           else ())
    kept = answering.derived
    if kept is None:
        kept = answering.derived = {}
    found = kept.pop(key, None)
    if found is not None:
        kept[key] = found  # the most recently used last
        return found
    base = answering.view
    if (do or stochastic) and base.constraints:
        raise QueryError("interventions need a Bayesian network (a Markov network has no "
                         "arcs to cut)")
    if (do or stochastic) and base.gaussian:
        leaves = [v for v in (*do, *stochastic) if base.gaussian.get(v)]
        if leaves:
            raise QueryError(f"{leaves[0]!r} is continuous: interventions set discrete "
                             "variables")
    cut = dict(stochastic)
    for v, i in do.items():
        cut[v] = np.zeros(base.cardinality[v])
        cut[v][i] = 1.0
    shape = ("shape", *key[:2], tuple((v, bool((w > 0).all()))
                                      for v, w in sorted(likelihoods.items())))
    before = kept.get(shape) if likelihoods else None
    if before is None:
        view, virtual = derived_view(base, cut, likelihoods)
    else:  # the view of the same shape, with the virtual children's numbers replaced
        virtual = before.virtual
        tables = dict(before.view.tables)
        tables.update((virtual[v], weighing.virtual_table(w)) for v, w in likelihoods.items())
        view = dataclasses.replace(before.view, tables=MappingProxyType(tables))
    factors = getattr(model, "factors", None)
    if factors is not None:
        factors = (*factors, *(Factor((v, name), {v: view.states[v], name: VIRTUAL_STATES},
                                      view.tables[name]) for v, name in virtual.items()))
    found = Derived(view, factors, getattr(model, "log_scale", 0.0), virtual)
    # what dispatch answers it with; likelihoods of a shape asked before with other
    # numbers share that view's junction trees (only the virtual children's tables differ)
    engine = (before._answering._engine.reweighed(view, list(virtual.values()))
              if before is not None and before._answering._engine is not None else None)
    found._answering = type(answering)(view, engine)
    if len(kept) >= KEPT:
        try:  # another thread may be changing it: then it keeps one more for a while
            del kept[next(iter(kept))]
        except (KeyError, RuntimeError, StopIteration):
            pass
    kept[key] = found
    if likelihoods:  # the newest of its shape, kept last
        kept.pop(shape, None)
        kept[shape] = found
    return found


def _jeffrey(model, answering, found: Uncertain, answer: Callable,
             hard: dict) -> tuple[dict[str, np.ndarray], SoftFit]:
    """The likelihoods of the soft findings on the view of the interventions, given the
    other evidence (hard findings and likelihoods)."""
    if answering.view.gaussian:  # P(W_soft | e, λ) asked of the view with virtual children
        model_ = derived(model, answering, found.do, found.stochastic, found.likelihoods)
        names = list(found.soft)
        check_allocation(int(np.prod([model_.view.cardinality[v] for v in names])),
                         f"the joint of the softly observed variables {names}")
        evidence = {**hard, **_extra(answering.view, found, model_)}
        joint = answer(model_, resolve(model_.view, Asked("P", "variables", names, evidence)))
        weights, fit = fit_soft(joint.values, [found.soft[v] for v in names], names)
        warn_unmet(fit, names)
        return dict(zip(names, weights)), fit
    model_ = (derived(model, answering, found.do, found.stochastic, {})
              if found.do or found.stochastic else None)
    engine = model_.engine if model_ is not None else answering.engine
    evidence = {**hard, **(_extra(answering.view, found, model_) if model_ else {})}
    return _fitted(engine, resolve_evidence(engine.network, evidence, numbers=False), found,
                   report=True)


def _fitted(engine, evidence, found: Uncertain, report: bool = False,
            joint: np.ndarray | None = None, key: tuple | None = None):
    """λ of the soft findings by Jeffrey's rule (:func:`fit_soft`) on ``joint``,
    P(W_soft | e, λ) of ``engine`` (the likelihoods weighed in), computed and kept
    (:func:`_keep`) when not given; with ``report`` also the :class:`SoftFit`."""
    names = list(found.soft)
    if joint is None:  # the joint is the plan's result: its memory is checked with it
        joint = _keep(engine, key or _soft_key(evidence, found),
                      _table(engine, names, evidence, found))
    weights, fit = fit_soft(joint, [found.soft[v] for v in names], names)
    warn_unmet(fit, names)
    weights = dict(zip(names, weights))
    return (weights, fit) if report else weights


def _table(engine, variables: list[str], evidence, found: Uncertain) -> np.ndarray:
    """c · P(variables, e, λ) on ``engine`` with the likelihoods of ``found``, for some c
    > 0 (:meth:`~bbn.engines.exact.weighing.Weighing.weighed_table`: Jeffrey's rule needs
    only its ratios); an ImpossibleEvidenceError naming them when it is 0."""
    table = engine.weighed_table(variables, evidence, found.likelihoods)
    if not table.sum() > 0:
        raise ImpossibleEvidenceError({**found.hard, **{v: "(likelihood)"
                                                        for v in found.likelihoods}})
    return table


#: P(W_soft | e, λ) (up to a constant: only its ratios matter), what Jeffrey's rule needs
#: of the other evidence alone, is kept per
#: engine (per revision and interventions) for this many sets of other evidence: a soft
#: finding asked again with other targets or other numbers costs a likelihood's question.
KEPT_MARGINALS = 256

_MARGINALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MARGINALS_LOCK = threading.Lock()


def _positive(weights: dict[str, np.ndarray], joint: np.ndarray | None) -> dict:
    """The soft findings' λ with 1 where P(W_soft = w | e) is 0 (λ is 0 there: any
    number weighs nothing), so that a λ is positive where it may be and the evidence
    d-separates as much as it can."""
    if joint is None or all(0.0 not in w.tolist() for w in weights.values()):
        return weights
    k = joint.ndim
    return {v: np.where(joint.sum(axis=tuple(j for j in range(k) if j != i)) > 0, w, 1.0)
            for i, (v, w) in enumerate(weights.items())}


def _soft_key(evidence, found: Uncertain) -> tuple:
    likelihoods = found.likelihoods
    return (tuple(sorted(evidence.states.items())), tuple(
        (v, w.tobytes()) for v, w in likelihoods.items()) if likelihoods else (),
            tuple(found.soft))


def _kept(engine, key: tuple) -> np.ndarray | None:
    """The P(W_soft | e, λ) kept for ``key`` (:func:`_soft_key`) on ``engine``, or None."""
    with _MARGINALS_LOCK:
        kept = _MARGINALS.get(engine)
        found = kept.pop(key, None) if kept is not None else None
        if found is not None:
            kept[key] = found  # the most recently used last
        return found


def _keep(engine, key: tuple, joint: np.ndarray) -> np.ndarray:
    joint.setflags(write=False)
    with _MARGINALS_LOCK:
        kept = _MARGINALS.setdefault(engine, {})
        if len(kept) >= KEPT_MARGINALS:
            del kept[next(iter(kept))]
        kept[key] = joint
    return joint


def _extra(base: CompiledNetwork, found: Uncertain, model_: Derived) -> dict[str, str]:
    """The evidence an intervention and the virtual children add, by name."""
    extra = {v: base.states[v][i] for v, i in found.do.items()}
    extra.update(dict.fromkeys(model_.virtual.values(), VIRTUAL_STATES[0]))
    return extra


def ask_uncertain(model, asked: Asked, method, answer: Callable, answering,
                  joint: bool = False, weighed_answer: Callable | None = None, **options):
    """Answer ``asked`` (with likelihoods, ``do`` or ``soft``): the uncertain parts
    resolved on the model's view, the view made for them, the rest of the question asked
    of it through ``answer`` (:func:`bbn.questions.dispatch.answer`); ``answering`` is
    the model's :class:`~bbn.questions.dispatch.Answering`. ``joint``: the question's
    exact answer is the joint of its free targets (a posterior), into which likelihoods
    and soft findings on a few variables are weighed directly (:func:`_weighed`).

    Raises
    ------
    ImpossibleEvidenceError
        When the evidence is impossible, or a soft finding weighs a state it rules out.
    NoAnswerError
        When the fit of several soft findings meets a state of probability below the
        smallest double, not 0 (:func:`_check_ruled_out`).
    """
    original = asked
    try:  # in this frame: the warnings' stacklevels count it
        base = answering.view
        found = resolve_uncertain(base, asked)
        hard = found.hard
        likelihoods = found.likelihoods
        if weighed_answer and (answered := weighed_answer(answering, asked, found)):
            return answered  # the kind's exact answer from the model's own engine (no view)
        if joint and not asked.batch:
            weighed = _weighed(model, answering, asked, found, answer)
            if weighed is not None:
                return weighed
        if asked.batch:
            clash = [c for c in asked.evidence.columns if c in found.do or c in found.stochastic]
            if clash:
                raise QueryError(f"{clash[0]!r} is both intervened on and observed: give each "
                                 "variable one kind of finding")
            if found.soft:  # Jeffrey's rule per case (:mod:`bbn.questions.soft_cases`)
                return soft_cases.ask_soft_cases(model, answering, asked, found, answer, method,
                                                 derived, _extra, **options)
            weighed = likelihood_columns(asked.evidence)
            if weighed and (base.gaussian or asked.kind != "P"):
                model_, extra = model, {}
                if found.do or found.stochastic:
                    model_ = derived(model, answering, found.do, found.stochastic, {})
                    extra = _extra(base, found, model_)
                if base.gaussian:  # that network's own batch, weighed per row
                    return soft_cases.continuous_cases(model_, asked, found, answer, extra,
                                                       options.get("impossible", "raise"))
                # other kinds: a virtual child coded per case
                return coded_likelihoods.ask_coded(model_, asked, weighed, extra, answer,
                                                   method, **options)
            if weighed:
                return _weighed_cases(model, answering, asked, found, weighed, **options)
        if found.soft:
            fitted, _ = _jeffrey(model, answering, found, answer, hard)
            likelihoods = {**likelihoods, **fitted}
        model_ = derived(model, answering, found.do, found.stochastic, likelihoods)
        extra = _extra(base, found, model_)
        if asked.query is not None:
            query = replace(asked.query, evidence=(*asked.query.evidence, *extra.items()), do=())
            asked = asked._replace(query=query, do=None, soft=None)
        elif asked.batch:
            asked = asked._replace(evidence=asked.evidence.assign(**extra), do=None, soft=None)
        else:
            asked = asked._replace(evidence={**hard, **extra}, do=None, soft=None)
        result = answer(model_, resolve(model_.view, asked), method, **options)
        if model_.virtual and type(result) is dict:
            result = {v: r for v, r in result.items() if v in base.states}
        return result
    except ImpossibleEvidenceError as error:
        if getattr(error, "variable", None) is not None and not original.batch:
            _check_ruled_out(model, original, answer, answering, error)
        raise


def _check_ruled_out(model, asked: Asked, answer: Callable, answering,
                     error: ImpossibleEvidenceError) -> None:
    """Raise NoAnswerError where ``error`` says a soft finding on W weighs a state s the
    other evidence rules out, yet the hard question with W = s has an answer for every
    such s (exactly, in logs where products underflow): P(s, e) > 0 but below the
    smallest double in the joint the fit of several findings reads, which it cannot
    represent. The other soft findings' states of weight 0 stay ruled out (a likelihood
    of 1 on the others), likelihoods and interventions as asked."""
    name, view = error.variable, answering.view
    found = resolve_uncertain(view, asked)
    if name not in found.soft or view.gaussian:
        return
    states = view.states
    evidence = {**found.hard, **{v: dict(zip(states[v], w.tolist()))
                                 for v, w in found.likelihoods.items()}}
    for v, q in found.soft.items():
        if v != name and 0.0 in q:
            evidence[v] = {s: 1.0 for s, x in zip(states[v], q) if x > 0}
    do = {**{v: states[v][i] for v, i in found.do.items()},
          **{v: dict(zip(states[v], p.tolist())) for v, p in found.stochastic.items()}}
    weighed = [s for s, x in zip(states[name], found.soft[name]) if x > 0]
    for state in weighed:
        check = Asked("P", "variables", [name], {**evidence, name: state}, False,
                      do=do or None)
        try:
            ask_uncertain(model, check, "exact", answer, answering, joint=True)
        except ImpossibleEvidenceError:
            return  # P(W = s, e) = 0: the error stands
    raise NoAnswerError(
        f"the soft findings cannot be fitted: P({name}=s | the other evidence) is positive "
        f"for every state s its soft finding weighs ({', '.join(weighed)}), but below the "
        "smallest double for one of them, which the fit of several soft findings cannot "
        "represent (one soft finding alone needs no fit: Jeffrey's sum is answered "
        "exactly)") from error


def soft_likelihoods(model, answering, answer: Callable, soft: dict,
                     evidence: dict | None = None,
                     do: dict | None = None) -> tuple[dict[str, dict[str, float]], SoftFit]:
    """The likelihoods Jeffrey's rule puts on the softly observed variables, and how
    they were fitted (:class:`SoftFit`): what ``soft=`` on a question does, shown
    (``bbn.soft_likelihoods``; ``answering`` and ``answer`` as for :func:`ask_uncertain`).
    """
    asked = Asked("POSTERIORS", "evidence", (), evidence or {}, do=do, soft=soft)
    found = resolve_uncertain(answering.view, asked)
    if not found.soft:
        raise QueryError("soft_likelihoods needs at least one soft finding")
    weights, fit = _jeffrey(model, answering, found, answer, found.hard)
    states = answering.view.states
    return {v: dict(zip(states[v], w.tolist())) for v, w in weights.items()}, fit


def _weighed(model, answering, asked: Asked, found: Uncertain, answer: Callable):
    """P(Q | e, λ) ∝ Σ_h P(Q, h, e) Π λ(w): the likelihoods (and the soft findings' λ,
    fitted on P(W_soft | e, λ)) weighed into the elimination of the model's own engine
    (or the interventions' view's) by virtual children whose numbers come with the
    question (:mod:`bbn.engines.exact.weighing`): one plan per question shape, shared by
    every set of numbers; with interventions alone, the mutilated view's own posterior.
    None when the question is not a joint of free targets, or the network has continuous
    variables (it is then answered on the view with virtual children)."""
    query = asked.query
    if query is not None:
        if any(s is not None for _, s in query.targets) or any(
                s is None for _, s in query.evidence):
            return None  # the general path answers it, or says what is wrong
        targets = [v for v, _ in query.targets]
    else:
        targets = asked.targets
    view = answering.view
    if view.gaussian:
        return None
    if found.do or found.stochastic:
        model_ = derived(model, answering, found.do, found.stochastic, {})
        engine, evidence = model_.engine, {**found.hard, **_extra(view, found, model_)}
        network = model_.view
    else:
        engine, evidence, network = answering.engine, found.hard, view
    free = resolve_targets(network, targets)  # discrete: the discrete engine's question
    weights, evidence = found.likelihoods, resolve_evidence(network, evidence)
    if found.soft:
        names = list(found.soft)
        if not weights and found.soft.keys().isdisjoint(free):
            shape = soft_shape(engine, free, evidence, names)
            if not shape.bearing:  # P'(Q) = P(Q | e)
                return engine.posterior(free, evidence)
            if len(shape.bearing) == 1:
                return _jeffrey_each(engine, evidence, found, free, shape.bearing[0])
            answered = _jeffrey_cases(engine, evidence, found, free, names, shape.independent)
            if answered is not None:
                return answered
        key = _soft_key(evidence, found)
        joint = _kept(engine, key)
        if joint is None and not set(names) & set(free):
            return _jeffrey_joint(engine, evidence, found, free, names, key)
        if joint is not None and len(names) == 1:  # asked again: λ = q / P(W | e) at once
            (name, q), = found.soft.items()
            fitted = fit_soft(joint, (q,), names)[0][0]
            if 0.0 in fitted.tolist():  # 0 where P(W = w | e) = 0: 1 weighs as little
                fitted = np.where(joint > 0, fitted, 1.0)
            weights = {**weights, name: fitted}
        else:
            fitted = _fitted(engine, evidence, found, joint=joint, key=key)
            weights = {**weights, **_positive(fitted, joint)}
    if not weights:  # interventions alone: the mutilated network's own question
        return engine.posterior(free, evidence)
    try:
        return engine.weighed_posterior(free, evidence, weights)
    except ImpossibleEvidenceError:
        raise ImpossibleEvidenceError({**found.hard, **{v: "(likelihood)"
                                                        for v in found.likelihoods}}) from None


class SoftShape(NamedTuple):
    """What the graph says of several soft findings in a question of one shape
    (:func:`soft_shape`): the findings that bear on the answer, and whether they are
    independent given the hard findings (the fit then closed: λ_i = q_i / P(w_i | e))."""

    bearing: tuple[str, ...]
    independent: bool


def soft_shape(engine, free: list[str], evidence, names: list[str]) -> SoftShape:
    """The soft findings on ``names`` that can move P'(Q) of the targets ``free`` given
    the hard findings, and whether they are independent given them. Where the tables of
    W and E have no zero, P(w, e) > 0 for every w (along the ancestors in order, a
    hidden variable takes a state its row allows, a row summing to 1; a finding's table
    allows every state under any parents), so the fit exists and meets every target;
    then

        Q ⟂ D | E, W ∖ D   ⇒   P'(Q) = Σ_w T(w) P(Q | w ∖ d, e) = Σ_w' q(w') P(Q | w', e)

    for W' = W ∖ D of at most one variable (T's marginal on one variable is its target;
    on two it is not the fit of P(W' | e) alone) — ``bearing`` is W', empty when D is
    all of W — and

        W_1 ⟂ W_2 ⟂ ... | E   ⇒   P(w | e) = Π_i P(w_i | e),   T = Π_i q_i(w_i)

    (``independent``). Otherwise ``names`` as they are, not independent. The graph is
    read once per engine and shape (the targets, the observed variables, the soft ones:
    :meth:`~bbn.engines.exact.engine.Engine.kept`).

    >>> import bbn
    >>> from bbn.questions.resolution import Evidence
    >>> engine = bbn.load("models/chair.bn").engine
    >>> soft_shape(engine, ["W"], Evidence({"A": 0}, {}, {}), ["C", "S"])  # W ⟂ S | A, C
    SoftShape(bearing=('C',), independent=False)
    >>> soft_shape(engine, ["A"], Evidence({}, {}, {}), ["W", "S"])  # W ⟂ S
    SoftShape(bearing=('W', 'S'), independent=True)
    """
    return engine.kept(("soft shape", tuple(free), tuple(evidence.states), tuple(names)),
                       lambda: _soft_shape(engine.network, free, evidence, names))


def _soft_shape(view: CompiledNetwork, free: list[str], evidence,
                names: list[str]) -> SoftShape:
    observed = list(evidence.states)
    hidden = [v for v in free if v not in evidence.states]
    found = SoftShape(tuple(names), False)
    if not (view.constraints or view.gaussian) and all(
            view.zero_free[v] for v in (*names, *observed)):
        apart = [w for w in names
                 if separated(view, hidden, [w], [*observed, *(u for u in names if u != w)])]
        rest = tuple(w for w in names if w not in apart)
        if apart and len(rest) <= 1 and separated(view, hidden, apart, [*observed, *rest]):
            found = SoftShape(rest, False)
        else:
            found = SoftShape(tuple(names), all(
                separated(view, [w], names[i + 1:], observed)
                for i, w in enumerate(names[:-1])))
    return found


def _jeffrey_each(engine, evidence, found: Uncertain, free: list[str], name: str) -> Factor:
    """Jeffrey's rule as it is written, P'(Q) = Σ_w q(w) P(Q | w, e): one batched
    elimination over W's states in which W is observed, or the joint of Q and W, whichever
    does less work (:meth:`~bbn.engines.exact.varied_cases.VariedCases.joint_of_cases`), each
    case P(Q, w, e) up to a constant, made P(Q | w, e) here; so it costs about what the
    hard question does, asked first or again: P(W | e) is not needed. A case of sum 0
    that q weighs is asked again as the hard question W = w (:func:`_given_state`), which
    tells P(w, e) = 0 (impossible evidence) from a product below the smallest double."""
    hidden = [v for v in free if v not in evidence.states]
    shares = found.soft[name]
    states = None if 0.0 not in shares else [i for i, x in enumerate(shares) if x > 0]
    table = engine.joint_of_cases(hidden, evidence, (name,), states and [states])
    if table.ndim > len(hidden):  # W's state matters: each case weighed by q(w) / its sum
        shape = table.shape[1:]
        rows = table.reshape(len(table), -1).tolist()  # a few floats: Python's arithmetic
        values = [0.0] * len(rows[0])
        for w, row in zip(range(len(shares)) if states is None else states, rows):
            q, total = shares[w], sum(row)
            if not total > 0 and q > 0:  # P(w, e) = 0, or too small for the joint
                row = _given_state(engine, evidence, hidden, name, w)
                if row is None:
                    if states is None and not any(map(any, rows)):
                        raise ImpossibleEvidenceError(found.hard)
                    raise ImpossibleEvidenceError({}, (
                        f"impossible evidence: the soft finding on {name} gives weight to "
                        "a state the other evidence rules out (probability 0 there)"))
                total = 1.0
            if total > 0 and q > 0:
                c = q / total
                values = [v + c * x for v, x in zip(values, row)]
        total = sum(values)  # Σ_w q(w) = 1 but for rounding
        table = np.array([v / total for v in values]).reshape(shape)
    else:  # the findings d-separate W from Q: P'(Q) = P(Q | e)
        total = table.sum()
        if not total > 0:
            raise ImpossibleEvidenceError(found.hard)
        table = table / total
    states = engine.network.states
    if len(hidden) < len(free):  # an observed target: one-hot at its state
        return weighing.posterior_factor(states, free, hidden, evidence, table)
    return Factor.unchecked(tuple(free), {v: states[v] for v in free}, table)


def _given_state(engine, evidence, hidden: list[str], name: str, w: int) -> list | None:
    """P(hidden | W = w, e) as a flat list, asked as the hard question (which eliminates
    in logs where products underflow), or None where P(w, e) = 0."""
    given = evidence._replace(states={**evidence.states, name: w})
    try:
        return engine.posterior(hidden, given).values.ravel().tolist()
    except ImpossibleEvidenceError:
        return None


def _jeffrey_cases(engine, evidence, found: Uncertain, free: list[str],
                   names: list[str], independent: bool = False) -> Factor | None:
    """Several soft findings by Jeffrey's rule as it is written,

        P'(Q) = Σ_w T(w) P(Q | w, e),   T = diag(λ_1) ⊗ ... P(W_soft | e)   (fitted:
                                          T's marginals are the soft findings)

    from one elimination (:meth:`~bbn.engines.exact.varied_cases.VariedCases.joint_of_cases`:
    a batch over the joint states w the findings weigh, W observed in each case, or
    the joint of Q and W, whichever does less work) whose cases are c · Π_i a_i(w_i) ·
    P(Q, w, e): summing Q out gives the joint the fit needs (up to a scale per axis,
    which the fit absorbs), and weighing the cases by λ(w) gives the answer. Asked
    first or again, it costs one batched hard question and the fit; with the W_i
    ``independent`` given the hard findings (and P(w, e) > 0: :func:`soft_shape`), the
    fit is λ_i = q_i / Σ_{w ∖ w_i} P(w | e). None when P(W_soft | e) vanishes on the
    states weighed (the general path then says which evidence is impossible)."""
    hidden = [v for v in free if v not in evidence.states]
    shares = [found.soft[v] for v in names]
    if min(map(min, shares)) > 0:
        table = engine.joint_of_cases(hidden, evidence, names)
    else:  # only the states the findings weigh (a case P(w, e) = 0 costs a run in logs)
        live = [[i for i, x in enumerate(share) if x > 0] for share in shares]
        table = engine.joint_of_cases(hidden, evidence, names, live)
        shares = [[x for x in share if x > 0] for share in shares]
    shape, rest = table.shape[:len(names)], table.shape[len(names):]
    if table.ndim == len(hidden):  # the findings d-separate W from Q: P'(Q) = P(Q | e)
        total = table.sum()  # (and P(w, e) > 0 for every w when P(e) > 0: no fit)
        if not total > 0:
            raise ImpossibleEvidenceError(found.hard)
        values = table / total
    elif len(shape) == 2:  # a few cases of a few numbers: the fit in Python's arithmetic
        matrix = table.reshape(shape[0] * shape[1], -1)
        rows = np.add.reduce(matrix, 1).reshape(shape).tolist()  # J up to scale, as floats
        if not max(map(max, rows)) > 0:
            return None
        if independent:  # every sum > 0
            l0 = [q / x for q, x in zip(shares[0], map(sum, rows))]
            l1 = [q / x for q, x in zip(shares[1], map(sum, zip(*rows)))]
        elif direct := scaling.fit_scaling(rows, shares[0], shares[1], TOLERANCE):
            l0, l1 = direct[0], direct[1]  # as a rule
        else:
            l0, l1, fit = fit_rows(rows, shares[0], shares[1], names, direct=False)
            warn_unmet(fit, names)
        values = np.dot([a * b for a in l0 for b in l1], matrix)  # Σ_w λ_0 λ_1 table[w]
        values /= np.add.reduce(values)
        if len(rest) != 1:
            values = values.reshape(rest)
    else:
        targets = [np.array(share) for share in shares]  # (the states weighed)
        matrix = table.reshape(math.prod(shape), -1)
        joint = matrix.sum(axis=1).reshape(shape)
        if not joint.max() > 0:
            return None
        if independent:
            k = joint.ndim
            weights = [q / joint.sum(axis=tuple(j for j in range(k) if j != i))
                       for i, q in enumerate(targets)]
        else:
            weights, fit = fit_soft(joint, targets, names)
            warn_unmet(fit, names)
        weight = weights[0]
        for w in weights[1:]:
            weight = np.multiply.outer(weight, w)
        values = (weight.ravel() @ matrix).reshape(rest)
        values = values / values.sum()
    states = engine.network.states
    if len(hidden) < len(free):  # an observed target: one-hot at its state
        return weighing.posterior_factor(states, free, hidden, evidence, values)
    return Factor.unchecked(tuple(free), {v: states[v] for v in free}, values)


def _jeffrey_joint(engine, evidence, found: Uncertain, free: list[str],
                   names: list[str], key: tuple) -> Factor:
    """P'(Q) = Σ_w λ(w) P(Q, w | e, λ_L) / Σ ..., λ fitted on the same joint's marginal
    P(W_soft | e, λ_L) (kept for the next question with this evidence): one elimination
    for a soft finding asked first."""
    # the joint is the plan's result: its memory is checked with the plan's
    hidden = [v for v in free if v not in evidence.states]
    table = _table(engine, [*hidden, *names], evidence, found)
    k = len(hidden)
    soft = table.shape[k:]  # the soft variables' axes, last: a matrix (Q, W_soft)
    matrix = table.reshape(-1, math.prod(soft))
    joint = _keep(engine, key, matrix.sum(axis=0).reshape(soft))
    weights, fit = fit_soft(joint, [found.soft[v] for v in names], names)
    warn_unmet(fit, names)
    weight = weights[0]
    for w in weights[1:]:
        weight = np.multiply.outer(weight, w)
    values = (matrix @ weight.ravel()).reshape(table.shape[:k])
    states = engine.network.states
    if len(hidden) < len(free):  # an observed target: one-hot at its state
        return weighing.posterior_factor(states, free, hidden, evidence, values)
    return Factor.unchecked(tuple(free), {v: states[v] for v in free}, values / values.sum())


def _weighed_cases(model, answering, asked: Asked, found: Uncertain, weighed: list,
                   impossible: str = "raise", **options) -> np.ndarray:
    """P(Q | e_i, λ_i) for a DataFrame of cases with likelihood columns (cells
    ``{state: number}``, :func:`~bbn.questions.resolution.likelihood_cells`), by the
    batched elimination with virtual children (on the interventions' view)."""
    frame = asked.evidence
    if found.do or found.stochastic:
        model_ = derived(model, answering, found.do, found.stochastic, {})
        engine, extra = model_.engine, _extra(answering.view, found, model_)
    else:
        engine, extra = answering.engine, {}
    view = engine.network
    targets = resolve_targets(view, asked.targets, batched=True)
    hard = frame.drop(columns=weighed)
    codes = evidence_codes(view, hard.assign(**extra) if extra else hard)
    overlap = [v for v in targets if v in codes]
    if overlap:
        raise QueryError(f"query variable(s) {overlap} are also evidence columns")
    weights = {str(c): likelihood_cells(view, frame[c], str(c), frame.index) for c in weighed}
    result = engine.weighed_posterior_of_cases(targets, codes, weights, frame.index,
                                               impossible)
    warn_impossible(result, 7)  # names the caller of net.posterior
    return result

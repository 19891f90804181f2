"""Questions answered approximately: ``method=`` on a question, run on the model's factor
graph.

    P(X = x | e) ≈ p̂(x) ± SE(x)        (one run gives every variable's marginal)

Every question of a :class:`bbn.Network` or :class:`bbn.MarkovNetwork` takes ``method=``:
``"exact"`` (the default: the exact engine), or an approximate method by name (``"lbp"``,
``"lw"``, ``"is"``, ``"gibbs"``) or as a value with its settings
(``bbn.engines.approximate.methods``: ``LoopyBP(damping=0.5)``, ``Gibbs(samples=..., seed=...)``).
The evidence is resolved once against the model (the same did-you-mean errors as exact
questions), the method runs once, and its marginals come back as :class:`Estimate`
factors, which carry each entry's standard error (None for loopy belief propagation) and
the :class:`~bbn.engines.approximate.result.RunReport`.

Every kind of question has an approximate answer:

- P(X | e) and P(X = x | e) of one variable: the method's marginals;
- a joint P(X, Y | e) (and P(X = x, Y = y | e)): the samplers' weighted frequencies of
  the joint states with standard errors (:mod:`bbn.engines.approximate.sampled`); loopy belief
  propagation's belief of a factor that holds them all
  (:mod:`bbn.engines.approximate.factor_beliefs`);
- MAP(M | e): the samplers' most frequent joint state of M with its standard error and
  its margin over the runner-up; loopy belief propagation's search on Bethe scores
  (:mod:`bbn.engines.approximate.bethe_map`);
- MPE(e): max-product loopy belief propagation and a local search
  (:mod:`bbn.engines.approximate.max_product`), or the samplers' best-scoring sample improved by
  the same local search; both report

      P̂(x̂ | e) = φ(x̂, e) / Ẑ(e)

  with φ(x̂, e) exact and Ẑ(e) the Bethe estimate or the weighted samplers' mean weight
  (Gibbs gives none: the Bethe estimate); exactly 1 for a Bayesian network without
  evidence.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, QueryError, suggest
from bbn.core.factor import Factor
from bbn.engines.approximate.bethe_map import bethe_map
from bbn.engines.approximate.factor_beliefs import factor_belief
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.max_product import most_probable
from bbn.engines.approximate.methods import approximate_method
from bbn.engines.approximate.result import MapEstimate, Marginals, RunReport
from bbn.engines.approximate.sampled import sample_joint
from bbn.questions.language import parse_query
from bbn.questions.resolution import Question, check_variables, resolve_evidence
from bbn.views.factor_graph import FactorGraph

if TYPE_CHECKING:
    from bbn.model.markov import MarkovNetwork
    from bbn.model.network import Network

class Estimate(Factor):
    """An approximate posterior P(X | e): a :class:`bbn.Factor` with the standard error of
    each entry (``standard_error``: an array of its shape, or None for methods without
    one) and how the method ran (``report``).

    Examples
    --------
    >>> import numpy as np
    >>> estimate = Estimate(["A"], {"A": ["t", "f"]}, [0.25, 0.75], np.array([0.01, 0.01]),
    ...                     RunReport("lw", samples=1000))
    >>> print(estimate.to_text())
      A   probability   standard error
      t   0.250000      0.010000
      f   0.750000      0.010000
    """

    __slots__ = ("standard_error", "report")

    def __init__(self, variables: Sequence[str], states: Mapping[str, Sequence[str]], values,
                 standard_error: np.ndarray | None, report: RunReport) -> None:
        super().__init__(variables, states, values)
        self.standard_error = standard_error
        self.report = report

    def to_text(self, value_header: str = "probability", digits: int = 6) -> str:
        """The table of :meth:`bbn.Factor.to_text`, with a column of standard errors."""
        text = super().to_text(value_header, digits)
        if self.standard_error is None:
            return text
        lines = text.split("\n")
        width = max(len(line) for line in lines)
        errors = [f"{e:.{digits}f}" for e in np.ravel(self.standard_error).tolist()]
        return "\n".join([lines[0].ljust(width) + "   standard error",
                          *(line.ljust(width) + "   " + e for line, e in zip(lines[1:], errors))])


def approximate_marginals(model: Network | MarkovNetwork, evidence, method) -> Marginals:
    """Run an approximate method once: every variable's marginal given ``evidence``.

    Parameters
    ----------
    model : Network or MarkovNetwork
        The model (a Bayesian network without Gaussian leaves, or a Markov network).
    evidence : dict, optional
        ``{variable: state}``.
    method : str or method value
        ``"lbp"``, ``"lw"``, ``"is"``, ``"gibbs"``, or a value of
        :mod:`bbn.engines.approximate.methods` with its settings.

    Returns
    -------
    Marginals

    Raises
    ------
    QueryError
        For an unknown variable, state or method.

    Examples
    --------
    >>> import bbn
    >>> result = approximate_marginals(bbn.load("models/chair.bn"), {"A": "T"}, "lbp")
    >>> result.probabilities["C"].round(6).tolist()       # a polytree: LBP is exact
    [0.886749, 0.113251]
    """
    chosen = approximate_method(method)
    return chosen.run(*graph_and_evidence(model, evidence))


def graph_and_evidence(model: Network | MarkovNetwork, evidence
                       ) -> tuple[FactorGraph, dict[int, int]]:
    """The model's factor graph and ``evidence`` resolved once against the model (its
    did-you-mean errors) as ``{variable index: state index}``.

    Examples
    --------
    >>> import bbn
    >>> graph_and_evidence(bbn.load("models/chair.bn"), {"A": "T"})[1]
    {4: 0}
    """
    if evidence is not None and not isinstance(evidence, Mapping):
        raise QueryError("approximate methods take evidence as a dict {variable: state}; "
                         f"for a {type(evidence).__name__} of cases use method='exact'")
    states = resolve_evidence(model.compiled(), evidence, numbers=False).states
    graph = model.factor_graph()
    position = {v: i for i, v in enumerate(graph.variables)}
    return graph, {position[v]: i for v, i in states.items() if v in position}


def estimates(model: Network | MarkovNetwork, evidence, method) -> dict[str, Estimate]:
    """``{variable: Estimate}`` for every variable, from one run (see
    :func:`approximate_marginals`)."""
    result = approximate_marginals(model, evidence, method)
    errors = result.standard_errors
    return {v: Estimate((v,), {v: model.states(v)}, p,
                        None if errors is None else errors[v], result.report)
            for v, p in result.probabilities.items()}


def approximate_posterior(model: Network | MarkovNetwork, variables: Sequence[str] | str,
                          evidence, method) -> Estimate:
    """P(X | e) of one variable, or the joint of several (:func:`approximate_joint`)."""
    variables = [variables] if isinstance(variables, str) else list(variables)
    if len(variables) != 1:  # checked there, once
        return approximate_joint(model, variables, evidence, method)
    check_variables(model.compiled(), variables)
    return estimates(model, evidence, method)[variables[0]]


def approximate_joint(model: Network | MarkovNetwork, variables: Sequence[str], evidence,
                      method) -> Estimate:
    """P(X, Y, ... | e) approximately: a sampler's weighted frequencies of the joint states
    with standard errors, or loopy belief propagation's belief of a factor holding them
    all (no standard errors).

    Parameters
    ----------
    model : Network or MarkovNetwork
    variables : sequence of str
        The query variables (one or more, none observed).
    evidence : dict, optional
        ``{variable: state}``.
    method : str or method value
        ``"lw"``, ``"is"``, ``"gibbs"`` or ``"lbp"``, or a method value.

    Returns
    -------
    Estimate
        Over ``variables`` in their order.

    Raises
    ------
    QueryError
        For an unknown variable, state or method, a variable both asked and observed, or
        (loopy BP) variables that share no factor.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> joint = approximate_joint(net, ["C", "S"], {"A": "T"}, "lbp")   # a polytree: exact
    >>> joint.values.round(4).tolist()
    [[0.0497, 0.8371], [0.0124, 0.1008]]
    >>> joint = approximate_joint(net, ["C", "S"], {"A": "T"}, bbn.LikelihoodWeighting())
    >>> exact = net.posterior(["C", "S"], {"A": "T"}).values
    >>> bool((abs(joint.values - exact) < 4 * joint.standard_error).all())
    True
    """
    variables = list(variables)
    settings = approximate_method(method)
    graph, indices, positions = _joint_question(model, variables, evidence)
    states = {v: model.states(v) for v in variables}
    if isinstance(settings, LoopyBP):
        belief = factor_belief(graph, indices, positions, settings)
        return Estimate(variables, states, belief.probabilities, None, belief.report)
    joint = sample_joint(graph, indices, positions, settings)
    return Estimate(variables, states, joint.probabilities, joint.standard_errors,
                    joint.report)


def _joint_question(model: Network | MarkovNetwork, variables: list[str], evidence
                    ) -> tuple[FactorGraph, dict[int, int], list[int]]:
    """The graph, the evidence by indices and the query variables' indices, after the
    checks of a joint or MAP question (known, named once, not observed)."""
    check_variables(model.compiled(), variables)
    repeated = sorted({v for v in variables if variables.count(v) > 1})
    if repeated:
        raise QueryError(f"variable(s) {repeated} named more than once")
    observed = [v for v in variables if v in (evidence or {})]
    if observed:
        raise QueryError(f"{observed} both asked about and observed: leave them out of "
                         "the question (their state is known)")
    graph, indices = graph_and_evidence(model, evidence)
    return graph, indices, [graph.index(v) for v in variables]


def approximate_probability(model: Network | MarkovNetwork, assignment: Mapping[str, str],
                            evidence, method) -> float:
    """P(X = x, ... | e), read off the approximate (joint) posterior of the assigned
    variables (0 or dropped when the evidence already fixes one)."""
    assignment = dict(assignment)
    evidence = dict(evidence or {})
    check_variables(model.compiled(), list(assignment))
    for variable, state in assignment.items():
        if state not in model.states(variable):
            raise QueryError(f"unknown state {state!r} of {variable!r}"
                             f"{suggest(state, model.states(variable))}")
    if any(evidence.get(v, s) != s for v, s in assignment.items()):
        return 0.0
    assignment = {v: s for v, s in assignment.items() if v not in evidence}
    if not assignment:
        return 1.0
    posterior = approximate_posterior(model, list(assignment), evidence, method)
    cell = tuple(model.states(v).index(s) for v, s in assignment.items())
    return float(posterior.values[cell])


def approximate_answer(model: Network | MarkovNetwork, question: Question, method):
    """The answer to a resolved question of the query language, approximately:
    ``P(X, ... | e)`` → :class:`Estimate`, ``P(X=x, ... | e)`` → float (``P(X, Y=y | e)``:
    the Estimate of X with Y=y), ``MAP(M | e)`` and ``MPE(e)`` → :class:`MapEstimate`."""
    kind, free, assigned = question.kind, question.free, question.assigned
    evidence = {v: s for v, s in question.evidence.given.items()}
    if kind == "MPE":
        return approximate_mpe(model, evidence, method)
    if kind == "MAP":
        return approximate_map(model, free, evidence, method)
    if not assigned:
        return approximate_posterior(model, list(free), evidence, method)
    if not free:
        return approximate_probability(
            model, {v: model.states(v)[i] for v, i in assigned.items()}, evidence, method)
    joint = approximate_posterior(model, [*free, *assigned], evidence, method)
    cell = (Ellipsis, *assigned.values())  # the assigned axes come last
    errors = None if joint.standard_error is None else joint.standard_error[cell]
    return Estimate(free, {v: model.states(v) for v in free}, joint.values[cell], errors,
                    joint.report)


def approximate_map(model: Network | MarkovNetwork, variables: Sequence[str] | str,
                    evidence, method) -> MapEstimate:
    """The most probable joint state of ``variables`` given ``evidence``, approximately.

    Samplers: the joint state of highest estimated probability, with its standard error
    and its margin over the runner-up in standard errors of the difference
    (:mod:`bbn.engines.approximate.sampled`). Loopy BP: a local search on Bethe estimates of
    P(m, e) from the beliefs' decoding (:mod:`bbn.engines.approximate.bethe_map`; no standard
    error, and no guarantee).

    Parameters
    ----------
    model : Network or MarkovNetwork
    variables : str or sequence of str
        The MAP variables (unobserved).
    evidence : dict, optional
        ``{variable: state}``.
    method : str or method value
        ``"lw"``, ``"is"``, ``"gibbs"``, ``"lbp"`` or a method value.

    Returns
    -------
    MapEstimate
        ``(assignment, P̂(assignment | e))`` with ``standard_error``, ``runner_up``,
        ``runner_up_probability``, ``margin`` and ``report``.

    Raises
    ------
    QueryError
        For an unknown variable, state or method, or a MAP variable that is observed.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> found = approximate_map(net, ["C", "S"], {"A": "T"}, bbn.LikelihoodWeighting())
    >>> found.assignment, found.separated       # exact: C=T, S=F with 0.837054
    ({'C': 'T', 'S': 'F'}, True)
    >>> assignment, p = approximate_map(net, ["C", "S"], {"A": "T"}, "lbp")
    >>> assignment, round(p, 6)
    ({'C': 'T', 'S': 'F'}, 0.837054)
    """
    variables = [variables] if isinstance(variables, str) else list(variables)
    if not variables:
        raise QueryError("MAP needs at least one variable, as in MAP(C, S | A=T); for every "
                         "variable ask MPE(...)")
    settings = approximate_method(method)
    graph, indices, positions = _joint_question(model, variables, evidence)

    def named(states: Sequence[int]) -> dict[str, str]:
        return {graph.variables[v]: graph.states[v][s] for v, s in zip(positions, states)}

    if isinstance(settings, LoopyBP):
        found = bethe_map(graph, indices, positions, settings)
        runner_up = found.runner_up
        return MapEstimate(named(list(found.states.values())), found.probability, None,
                           None if runner_up is None else named(list(runner_up.values())),
                           None if runner_up is None else found.runner_up_probability,
                           None, found.report)
    joint = sample_joint(graph, indices, positions, settings)
    ranked = joint.ranked(2)
    top, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else None)
    return MapEstimate(named(top), float(joint.probabilities[top]),
                       float(joint.standard_errors[top]),
                       None if runner_up is None else named(runner_up),
                       None if runner_up is None else float(joint.probabilities[runner_up]),
                       joint.margin, joint.report)


def approximate_mpe(model: Network | MarkovNetwork, evidence, method) -> MapEstimate:
    """The most probable explanation, approximately, and its estimated probability given
    the evidence.

    Loopy BP: max-product messages decoded after every sweep and a local search
    (:mod:`bbn.engines.approximate.max_product`). Samplers: every sample scored exactly, the best
    one improved by the same local search (iterated conditional modes).

    Parameters
    ----------
    model : Network or MarkovNetwork
    evidence : dict, optional
        ``{variable: state}``.
    method : str or method value
        ``"lbp"``, ``"lw"``, ``"is"``, ``"gibbs"`` or a method value.

    Returns
    -------
    MapEstimate
        ``({variable: state} of the unobserved variables, P̂(x̂ | e))``: the probability
        divides the exact φ(x̂, e) by an estimate of Z(e) (the Bethe estimate; the mean
        weight of likelihood weighting and importance sampling), capped at 1; exact for
        a Bayesian network without evidence.

    Raises
    ------
    QueryError
        When the search ends on an assignment of probability 0.
    ImpossibleEvidenceError
        When the evidence zeroes a factor.

    Examples
    --------
    >>> import bbn
    >>> assignment, p = approximate_mpe(bbn.load("models/chair.bn"), {"A": "T"}, "lbp")
    >>> assignment, round(p, 6)                       # a polytree: the exact MPE
    ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
    >>> approximate_mpe(bbn.load("models/chair.bn"), {"A": "T"}, "gibbs")[0]
    {'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}
    """
    settings = approximate_method(method)
    graph, indices = graph_and_evidence(model, evidence)
    log_z = None
    if isinstance(settings, LoopyBP):
        found = most_probable(graph, indices, settings)
        states, score, report = found.states, found.log_score, found.report
    else:
        joint = sample_joint(graph, indices, (), settings, keep_best=True)
        states, score, report = joint.best_states, joint.best_log_score, joint.report
        log_z = joint.log_partition
    if score == -math.inf:
        raise QueryError("the search ended on an assignment of probability 0 "
                         "(deterministic factors can trap it); use method='exact'")
    assignment = {v: graph.states[i][s] for i, (v, s) in
                  enumerate(zip(graph.variables, states.tolist())) if i not in indices}
    if graph.is_bayesian and not indices:
        log_z = 0.0  # a Bayesian network's Z is 1
    elif log_z is None:
        log_z = (settings if isinstance(settings, LoopyBP) else LoopyBP()).run(
            graph, indices).log_partition
    return MapEstimate(assignment, min(1.0, math.exp(score - log_z)), report=report)


def log_partition_estimate(model: Network | MarkovNetwork, evidence, method) -> float:
    """An estimate of log Z(e) (a Bayesian network: log P(e)), natural log, from a method
    that gives one (ImpossibleEvidenceError when it is 0; QueryError when the method gives
    none)."""
    result = approximate_marginals(model, evidence, method)
    if result.log_partition is None:
        raise QueryError(f"method {result.report.method!r} gives no estimate of Z(e)")
    if result.log_partition == -math.inf:
        raise ImpossibleEvidenceError(dict(evidence or {}))
    return result.log_partition


def approximate_query(model: Network | MarkovNetwork, text: str, method):
    """Answer a query of the language approximately (see :func:`approximate_answer`).

    Examples
    --------
    >>> import bbn
    >>> round(approximate_query(bbn.load("models/chair.bn"), "P(C=T | A=T)", "lbp"), 6)
    0.886749
    """
    return approximate_answer(model, parse_query(text).resolve(model.compiled()), method)


def method_from_options(name: str, **settings) -> object:
    """A method value from its name and the settings given (None: the default), as the
    command line builds it; QueryError for a setting the method does not have.

    Examples
    --------
    >>> method_from_options("gibbs", samples=500, seed=3, time_budget=None)
    Gibbs(samples=500, time_budget=None, seed=3, chains=100, burn_in=100)
    >>> method_from_options("lbp", samples=500)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: method 'lbp' has no setting 'samples' (its settings: damping, ...)
    """
    chosen = approximate_method(name)
    names = [f.name for f in dataclasses.fields(chosen)]
    given = {k: v for k, v in settings.items() if v is not None}
    for key in given:
        if key not in names:
            raise QueryError(f"method {name!r} has no setting {key!r} (its settings: "
                             f"{', '.join(names)})")
    return dataclasses.replace(chosen, **given)

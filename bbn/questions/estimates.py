"""Questions answered approximately: ``method=`` on a question, run on the model's factor
graph.

    P(X = x | e) ≈ p̂(x) ± SE(x)        (one run gives every variable's marginal)

Every question of a :class:`bbn.Network` or :class:`bbn.MarkovNetwork` takes ``method=``:
``"exact"`` (the default: the exact engine), or an approximate method by name (``"lbp"``,
``"lw"``, ``"is"``, ``"gibbs"``) or as a value with its settings
(``bbn.engines.approximate.methods``: ``LoopyBP(damping=0.5)``, ``Gibbs(samples=...,
seed=...)``). :mod:`bbn.questions.dispatch` resolves the question once (the same
did-you-mean errors as exact questions) and calls the functions here with the view's
:class:`~bbn.views.factor_graph.FactorGraph`, the resolved
:class:`~bbn.questions.resolution.Question` and the method's settings; the method runs
once, and its marginals come back as :class:`Estimate` factors, which carry each entry's
standard error (None for loopy belief propagation) and the
:class:`~bbn.engines.approximate.result.RunReport`. This module loads the approximate
engines: dispatch reaches it by a lazy reference, so ``import bbn`` does not.

Every kind of question has an approximate answer:

- P(X | e) and P(X = x | e) of one variable: the method's marginals;
- a joint P(X, Y | e) (and P(X = x, Y = y | e)): the samplers' weighted frequencies of
  the joint states with standard errors (:mod:`bbn.engines.approximate.sampled`); loopy
  belief propagation's belief of a factor that holds them all
  (:mod:`bbn.engines.approximate.factor_beliefs`);
- MAP(M | e): the samplers' most frequent joint state of M with its standard error and
  its margin over the runner-up; loopy belief propagation's search on Bethe scores
  (:mod:`bbn.engines.approximate.bethe_map`);
- MPE(e): max-product loopy belief propagation and a local search
  (:mod:`bbn.engines.approximate.max_product`), or the samplers' best-scoring sample
  improved by the same local search; both report

      P̂(x̂ | e) = φ(x̂, e) / Ẑ(e)

  with φ(x̂, e) exact and Ẑ(e) the Bethe estimate or the weighted samplers' mean weight
  (Gibbs gives none: the Bethe estimate); exactly 1 for a Bayesian network without
  evidence;
- log Z(e): the Bethe estimate, or the weighted samplers' mean weight.

>>> import bbn
>>> round(bbn.load("models/chair.bn").query("P(C=T | A=T)", method="lbp"), 6)
0.886749
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.errors import NoAnswerError, QueryError
from bbn.core.factor import Factor
from bbn.engines.approximate.bethe_map import bethe_map
from bbn.engines.approximate.factor_beliefs import factor_belief
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.max_product import most_probable
from bbn.engines.approximate.methods import ApproximateMethod, approximate_method
from bbn.engines.approximate.result import MapEstimate, Marginals, RunReport
from bbn.engines.approximate.sampled import sample_joint
from bbn.questions.resolution import Evidence, Question, continuous_error
from bbn.views.factor_graph import FactorGraph


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

    def columns(self, value_header: str = "probability") -> dict[str, np.ndarray]:
        """The values and, where the method gives them, the standard errors.

        Examples
        --------
        >>> Estimate(["A"], {"A": ["t", "f"]}, [0.25, 0.75], np.array([0.01, 0.02]),
        ...          RunReport("lw", samples=1000)).columns()["standard error"].tolist()
        [0.01, 0.02]
        """
        columns = super().columns(value_header)
        if self.standard_error is not None:
            columns["standard error"] = np.ravel(self.standard_error)
        return columns

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


class EstimatedProbability(float):
    """An approximate P(assignment | e): a float, with its standard error (None for a
    method without one: loopy BP) and how the method ran (``report``), so that an
    estimate is never shown as if it were exact.

    Examples
    --------
    >>> p = EstimatedProbability(0.25, 0.01, RunReport("lw", samples=1000))
    >>> p + 0.5, p.standard_error, p.report.method
    (0.75, 0.01, 'lw')
    """

    standard_error: float | None
    report: RunReport

    def __new__(cls, value: float, standard_error: float | None,
                report: RunReport) -> EstimatedProbability:
        estimate = super().__new__(cls, value)
        estimate.standard_error, estimate.report = standard_error, report
        return estimate

    def __reduce__(self) -> tuple:
        return (EstimatedProbability, (float(self), self.standard_error, self.report))


# ------------------------------------------------------------------ the evidence
def coded_evidence(graph: FactorGraph, question: Question) -> dict[int, int]:
    """The question's discrete evidence as ``{variable index: state index}`` of ``graph``
    (a Markov network's factor nodes, which are not variables of its graph, left out);
    QueryError for numbers on Gaussian leaves.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.resolution import Asked, resolve
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> question = resolve(network, Asked("MPE", "evidence", evidence={"A": "T"}))
    >>> coded_evidence(FactorGraph.from_compiled(network), question)
    {4: 0}
    """
    evidence: Evidence = question.evidence  # type: ignore[assignment]
    if evidence.values:  # approximate methods take discrete evidence only
        raise continuous_error(next(iter(evidence.values)), "discrete evidence")
    position = {v: i for i, v in enumerate(graph.variables)}
    return {position[v]: i for v, i in evidence.states.items() if v in position}


def marginals(graph: FactorGraph, question: Question, method) -> Marginals:
    """Run an approximate method once: every variable's marginal given the evidence.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.resolution import Asked, resolve
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> question = resolve(network, Asked("POSTERIORS", "evidence", evidence={"A": "T"}))
    >>> result = marginals(FactorGraph.from_compiled(network), question, "lbp")
    >>> result.probabilities["C"].round(6).tolist()       # a polytree: LBP is exact
    [0.886749, 0.113251]
    """
    chosen = approximate_method(method)
    return chosen.run(graph, coded_evidence(graph, question))


def posteriors(graph: FactorGraph, question: Question, method) -> dict[str, Estimate]:
    """``{variable: Estimate}`` for every variable, from one run (see :func:`marginals`)."""
    result = marginals(graph, question, method)
    errors, states = result.standard_errors, question.network.states
    hidden = question.network.auxiliary  # a compact table's chain: not the model's
    return {v: Estimate((v,), {v: states[v]}, p, None if errors is None else errors[v],
                        result.report)
            for v, p in result.probabilities.items() if v not in hidden}


def posterior(graph: FactorGraph, question: Question, method):
    """P(free, assigned | e): the Estimate of the free targets, a float when every target
    is assigned (0 when one contradicts the evidence, dropped when the evidence fixes
    it), the assigned axes of a joint sliced at their states."""
    free, assigned, states = list(question.free), question.assigned, question.network.states
    if not assigned:
        return _posterior(graph, question, free, method)
    observed = question.evidence.states
    if not free:
        if any(observed.get(v, i) != i for v, i in assigned.items()):
            return 0.0
        assigned = {v: i for v, i in assigned.items() if v not in observed}
        if not assigned:
            return 1.0
        joint = _posterior(graph, question, list(assigned), method)
        cell = tuple(assigned.values())
        return EstimatedProbability(float(joint.values[cell]), None if joint.standard_error
                                    is None else float(joint.standard_error[cell]),
                                    joint.report)
    joint = _posterior(graph, question, [*free, *assigned], method)
    cell = (Ellipsis, *assigned.values())  # the assigned axes come last
    errors = None if joint.standard_error is None else joint.standard_error[cell]
    return Estimate(free, {v: states[v] for v in free}, joint.values[cell], errors,
                    joint.report)


def _posterior(graph: FactorGraph, question: Question, variables: list[str],
               method) -> Estimate:
    """P(X | e) of one variable (the marginals of one run) or the joint of several."""
    if len(variables) == 1:
        return posteriors(graph, question, method)[variables[0]]
    return joint(graph, question, variables, method)


def joint(graph: FactorGraph, question: Question, variables: Sequence[str],
          method) -> Estimate:
    """P(X, Y, ... | e) approximately: a sampler's weighted frequencies of the joint states
    with standard errors, or loopy belief propagation's belief of a factor holding them
    all (no standard errors).

    Raises
    ------
    QueryError
        For a variable both asked and observed, or (loopy BP) variables that share no
        factor.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> estimate = net.posterior(["C", "S"], {"A": "T"}, method="lbp")   # a polytree: exact
    >>> estimate.values.round(4).tolist()
    [[0.0497, 0.8371], [0.0124, 0.1008]]
    >>> estimate = net.posterior(["C", "S"], {"A": "T"}, method=bbn.LikelihoodWeighting())
    >>> exact = net.posterior(["C", "S"], {"A": "T"}).values
    >>> bool((abs(estimate.values - exact) < 4 * estimate.standard_error).all())
    True
    """
    variables = list(variables)
    settings = approximate_method(method)
    indices, positions = _joint_question(graph, question, variables)
    states = {v: question.network.states[v] for v in variables}
    if isinstance(settings, LoopyBP):
        belief = factor_belief(graph, indices, positions, settings)
        return Estimate(variables, states, belief.probabilities, None, belief.report)
    found = sample_joint(graph, indices, positions, settings)
    return Estimate(variables, states, found.probabilities, found.standard_errors,
                    found.report)


def _joint_question(graph: FactorGraph, question: Question, variables: list[str]
                    ) -> tuple[dict[int, int], list[int]]:
    """The evidence by indices and the query variables' indices, after the checks of a
    joint or MAP question (named once, not observed)."""
    repeated = sorted({v for v in variables if variables.count(v) > 1})
    if repeated:
        raise QueryError(f"variable(s) {repeated} named more than once")
    observed = [v for v in variables if v in question.evidence.given]
    if observed:
        raise QueryError(f"{observed} both asked about and observed: leave them out of "
                         "the question (their state is known)")
    return coded_evidence(graph, question), [graph.index(v) for v in variables]


def map_estimate(graph: FactorGraph, question: Question, method) -> MapEstimate:
    """The most probable joint state of the question's variables given the evidence,
    approximately.

    Samplers: the joint state of highest estimated probability, with its standard error
    and its margin over the runner-up in standard errors of the difference
    (:mod:`bbn.engines.approximate.sampled`). Loopy BP: a local search on Bethe estimates
    of P(m, e) from the beliefs' decoding (:mod:`bbn.engines.approximate.bethe_map`; no
    standard error, and no guarantee).

    Returns
    -------
    MapEstimate
        ``(assignment, P̂(assignment | e))`` with ``standard_error``, ``runner_up``,
        ``runner_up_probability``, ``margin`` and ``report``.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> found = net.map(["C", "S"], {"A": "T"}, method=bbn.LikelihoodWeighting())
    >>> found.assignment, found.separated       # exact: C=T, S=F with 0.837054
    ({'C': 'T', 'S': 'F'}, True)
    >>> assignment, p = net.map(["C", "S"], {"A": "T"}, method="lbp")
    >>> assignment, round(p, 6)
    ({'C': 'T', 'S': 'F'}, 0.837054)
    """
    variables = list(question.free)
    if not variables:
        raise QueryError("MAP needs at least one variable, as in MAP(C, S | A=T); for every "
                         "variable ask MPE(...)")
    settings = approximate_method(method)
    indices, positions = _joint_question(graph, question, variables)

    def named(states: Sequence[int]) -> dict[str, str]:
        return {graph.variables[v]: graph.states[v][s] for v, s in zip(positions, states)}

    if isinstance(settings, LoopyBP):
        found = bethe_map(graph, indices, positions, settings)
        runner_up = found.runner_up
        return MapEstimate(named(list(found.states.values())), found.probability, None,
                           None if runner_up is None else named(list(runner_up.values())),
                           None if runner_up is None else found.runner_up_probability,
                           None, found.report)
    sampled = sample_joint(graph, indices, positions, settings)
    ranked = sampled.ranked(2)
    top, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else None)
    return MapEstimate(named(top), float(sampled.probabilities[top]),
                       float(sampled.standard_errors[top]),
                       None if runner_up is None else named(runner_up),
                       None if runner_up is None else float(sampled.probabilities[runner_up]),
                       sampled.margin, sampled.report)


def mpe_estimate(graph: FactorGraph, question: Question, method) -> MapEstimate:
    """The most probable explanation, approximately, and its estimated probability given
    the evidence.

    Loopy BP: max-product messages decoded after every sweep and a local search
    (:mod:`bbn.engines.approximate.max_product`). Samplers: every sample scored exactly,
    the best one improved by the same local search (iterated conditional modes).

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
    >>> assignment, p = bbn.load("models/chair.bn").mpe({"A": "T"}, method="lbp")
    >>> assignment, round(p, 6)                       # a polytree: the exact MPE
    ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
    >>> bbn.load("models/chair.bn").mpe({"A": "T"}, method="gibbs")[0]
    {'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}
    """
    if question.network.auxiliary:  # its search would maximise over the chain's variables
        raise QueryError("the approximate MPE does not take a network whose compact tables "
                         "are answered through chains (a large noisy-OR); use the exact MPE")
    settings = approximate_method(method)
    indices = coded_evidence(graph, question)
    log_z = z_error = None
    if isinstance(settings, LoopyBP):
        found = most_probable(graph, indices, settings)
        states, score, report = found.states, found.log_score, found.report
    else:
        sampled = sample_joint(graph, indices, (), settings, keep_best=True)
        states, score, report = sampled.best_states, sampled.best_log_score, sampled.report
        log_z, z_error = sampled.log_partition, sampled.log_partition_error
    if score == -math.inf:
        raise QueryError("the search ended on an assignment of probability 0 "
                         "(deterministic factors can trap it); use method='exact'")
    assignment = {v: graph.states[i][s] for i, (v, s) in
                  enumerate(zip(graph.variables, states.tolist())) if i not in indices}
    exact_z = graph.is_bayesian and not indices
    if exact_z:
        log_z = 0.0  # a Bayesian network's Z is 1
    elif log_z is None:
        log_z = (settings if isinstance(settings, LoopyBP) else LoopyBP()).run(
            graph, indices).log_partition
    probability = min(1.0, math.exp(score - log_z))
    # φ(x̂, e) is exact: the error is P̂(e)'s, carried by the delta method
    error = None if exact_z or z_error is None else probability * z_error
    return MapEstimate(assignment, probability, error, report=report, estimated_z=not exact_z)


def log_partition(graph: FactorGraph, question: Question, method) -> float:
    """An estimate of log Z(e) of the factor graph (a Bayesian network: log P(e)), natural
    log, from a method that gives one (NoAnswerError when the estimate is 0, which proves
    nothing; QueryError when the method gives none).

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions import dispatch
    >>> round(dispatch.log_partition(bbn.load("models/chair.bn"), {"A": "T"}, "lbp"), 6)
    -1.579607
    """
    result = marginals(graph, question, method)
    if result.log_partition is None:
        raise QueryError(f"method {result.report.method!r} gives no estimate of Z(e)")
    if result.log_partition == -math.inf:  # an estimate of 0 proves nothing
        raise NoAnswerError(f"method {result.report.method!r} estimated Z(e) = 0 (its "
                            "numbers underflowed, or it found no weight); this does not "
                            "show the evidence impossible; answer exactly or otherwise")
    return result.log_partition


def method_from_options(name: str, **settings) -> ApproximateMethod:
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

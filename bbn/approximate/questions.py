"""Questions answered approximately: ``method=`` on a question, run on the model's factor
graph.

    P(X = x | e) ≈ p̂(x) ± SE(x)        (one run gives every variable's marginal)

Every question of a :class:`bbn.Network` or :class:`bbn.MarkovNetwork` takes ``method=``:
``"exact"`` (the default: the exact engine), or an approximate method by name (``"lbp"``,
``"lw"``, ``"is"``, ``"gibbs"``) or as a value with its settings
(``bbn.approximate.methods``: ``LoopyBP(damping=0.5)``, ``Gibbs(samples=..., seed=...)``).
The evidence is resolved once against the model (the same did-you-mean errors as exact
questions), the method runs once, and its marginals come back as :class:`Estimate`
factors, which carry each entry's standard error (None for loopy belief propagation) and
the :class:`~bbn.approximate.result.RunReport`.

Approximate methods answer single-variable marginals and P(e); loopy belief propagation
also answers MPE, by max-product (:mod:`bbn.approximate.max_product`), with

    P̂(x̂ | e) = φ(x̂, e) / Ẑ(e)

where φ(x̂, e) is exact and Ẑ(e) is the Bethe estimate of sum-product loopy belief
propagation (exact, 1, for a Bayesian network without evidence). A joint posterior of
several variables and MAP are exact questions only.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bbn.approximate.factor_graph import FactorGraph
from bbn.approximate.lbp import LoopyBP
from bbn.approximate.max_product import most_probable
from bbn.approximate.methods import approximate_method
from bbn.approximate.result import Marginals, RunReport
from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.inference.evidence import Question, check_variables, resolve_evidence
from bbn.query import parse_query

if TYPE_CHECKING:
    from bbn.markov import MarkovNetwork
    from bbn.network import Network

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
        :mod:`bbn.approximate.methods` with its settings.

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
    """P(X | e) of one variable, approximately (a joint of several is QueryError)."""
    variables = [variables] if isinstance(variables, str) else list(variables)
    check_variables(model.compiled(), variables)
    if len(variables) != 1:
        raise QueryError(f"approximate methods answer one variable at a time, not "
                         f"{variables}: ask for each, or use method='exact'")
    return estimates(model, evidence, method)[variables[0]]


def approximate_probability(model: Network | MarkovNetwork, assignment: Mapping[str, str],
                            evidence, method) -> float:
    """P(X = x | e) of one variable, read off its approximate marginal."""
    assignment = dict(assignment)
    if len(assignment) != 1:
        raise QueryError("approximate methods answer the probability of one variable's "
                         f"state, not {assignment}: use method='exact'")
    (variable, state), = assignment.items()
    evidence = dict(evidence or {})
    if variable in evidence:
        return float(evidence[variable] == state)
    posterior = approximate_posterior(model, variable, evidence, method)
    return float(posterior.values[model.states(variable).index(state)])


def approximate_answer(model: Network | MarkovNetwork, question: Question, method):
    """The answer to a resolved question of the query language, approximately:
    ``P(X | e)`` → :class:`Estimate`, ``P(X=x | e)`` → float, ``MPE(e)`` → (assignment,
    probability); anything else QueryError."""
    kind, free, assigned = question.kind, question.free, question.assigned
    evidence = {v: s for v, s in question.evidence.given.items()}
    if kind == "MPE":
        return approximate_mpe(model, evidence, method)
    if kind != "P" or len(free) + len(assigned) != 1:
        raise QueryError("approximate methods answer P(X | e) and P(X=x | e) of one "
                         "variable, and MPE (method 'lbp'); MAP and joint questions need "
                         "method='exact'")
    if free:
        return approximate_posterior(model, free[0], evidence, method)
    (variable, index), = assigned.items()
    return approximate_probability(model, {variable: model.states(variable)[index]}, evidence,
                                   method)


def approximate_mpe(model: Network | MarkovNetwork, evidence, method
                    ) -> tuple[dict[str, str], float]:
    """The most probable explanation by max-product loopy belief propagation and a local
    search (:mod:`bbn.approximate.max_product`), and its estimated probability given the
    evidence.

    Parameters
    ----------
    model : Network or MarkovNetwork
    evidence : dict, optional
        ``{variable: state}``.
    method : "lbp" or LoopyBP
        The messages' settings (the samplers find no MPE: QueryError).

    Returns
    -------
    tuple
        ``({variable: state} of the unobserved variables, P̂(x̂ | e))``: the probability
        divides the exact φ(x̂, e) by the Bethe estimate of Z(e), capped at 1.

    Raises
    ------
    QueryError
        For a method other than loopy belief propagation, or when the search ends on an
        assignment of probability 0.
    ImpossibleEvidenceError
        When the evidence zeroes a factor.

    Examples
    --------
    >>> import bbn
    >>> assignment, p = approximate_mpe(bbn.load("models/chair.bn"), {"A": "T"}, "lbp")
    >>> assignment, round(p, 6)                       # a polytree: the exact MPE
    ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
    """
    settings = approximate_method(method)
    if not isinstance(settings, LoopyBP):
        raise QueryError(f"an approximate MPE is found by max-product loopy belief "
                         f"propagation (method='lbp'), not by {settings.__class__.__name__}; "
                         "or use method='exact'")
    graph, indices = graph_and_evidence(model, evidence)
    found = most_probable(graph, indices, settings)
    if found.log_score == -math.inf:
        raise QueryError("max-product belief propagation and the local search ended on an "
                         "assignment of probability 0 (deterministic factors can trap it); "
                         "use method='exact'")
    assignment = {v: graph.states[i][s] for i, (v, s) in
                  enumerate(zip(graph.variables, found.states.tolist())) if i not in indices}
    if graph.is_bayesian and not indices:
        log_z = 0.0  # a Bayesian network's Z is 1
    else:
        log_z = settings.run(graph, indices).log_partition
    return assignment, min(1.0, math.exp(found.log_score - log_z))


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
    bbn.errors.QueryError: method 'lbp' has no setting 'samples' (its settings: damping, ...)
    """
    chosen = approximate_method(name)
    names = [f.name for f in dataclasses.fields(chosen)]
    given = {k: v for k, v in settings.items() if v is not None}
    for key in given:
        if key not in names:
            raise QueryError(f"method {name!r} has no setting {key!r} (its settings: "
                             f"{', '.join(names)})")
    return dataclasses.replace(chosen, **given)

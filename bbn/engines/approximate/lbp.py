"""Loopy belief propagation: sum-product messages on the factor graph.

Messages between variable v and factor f (every message normalised to sum 1):

    μ_{v→f}(x_v) ∝ Π_{g ∋ v, g ≠ f} μ_{g→v}(x_v)
    μ_{f→v}(x_v) ∝ Σ_{x_f \\ x_v} φ_f(x_f) Π_{u ∈ f, u ≠ v} μ_{u→f}(x_u)

updated in parallel sweeps ("flooding"); with damping d the new factor message is
(1 − d)·μ_new + d·μ_old. The run stops when the largest change of a message in a sweep
(the residual) is below the tolerance, or after ``max_iterations`` sweeps (then a
:class:`ConvergenceWarning`), or when the time budget is spent. Beliefs are
b_v(x) ∝ Π_{f ∋ v} μ_{f→v}(x), and the Bethe estimate of the log partition function is

    log Z(e) ≈ Σ_f log Σ_{x_f} φ_f Π_{v ∈ f} μ_{v→f} + Σ_v log Σ_{x_v} Π_{f ∋ v} μ_{f→v}
               − Σ_{(v, f)} log Σ_{x_v} μ_{v→f} μ_{f→v}

Evidence slices the factors first (:func:`~bbn.engines.approximate.clamping.reduce_factors`), so
observed variables carry no messages. On a tree (a polytree Bayesian network) the
messages reach their fixed point after as many sweeps as the tree's diameter, and the
beliefs and the Bethe log Z are exact; on a graph with loops they are approximations.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> result = LoopyBP().run(graph, {4: 0})
>>> round(float(result.probabilities["C"][0]), 4), result.report.converged
(0.8867, True)
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import NoAnswerError
from bbn.core.memory import check_allocation
from bbn.engines.approximate.clamping import ReducedFactors, check_evidence, reduce_factors
from bbn.engines.approximate.messages import (
    MessageLayout,
    exclusive_products,
    factor_log_normalisers,
    factor_messages,
    log_products,
)
from bbn.engines.approximate.result import Marginals, RunReport
from bbn.engines.approximate.settings import check_count, check_fraction, check_seconds
from bbn.engines.approximate.supports import supported_states
from bbn.views.factor_graph import FactorGraph


class ConvergenceWarning(UserWarning):
    """An iterative approximation stopped before meeting its tolerance.

    Examples
    --------
    >>> issubclass(ConvergenceWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class Propagation:
    """What a run of loopy belief propagation leaves: beliefs and the messages.

    Parameters
    ----------
    beliefs : list of numpy.ndarray
        b_v for every variable (one-hot for observed ones).
    to_variable : dict of (int, int) to numpy.ndarray
        μ_{f→v} keyed by (the factor's index in the graph, the variable's index).
    log_partition : float
        The Bethe estimate of log Z(e).
    report : RunReport
        Iterations, residual, whether it converged, time.
    """

    beliefs: list[np.ndarray]
    to_variable: dict[tuple[int, int], np.ndarray]
    log_partition: float
    report: RunReport


@dataclass(frozen=True)
class LoopyBP:
    """Loopy belief propagation (sum-product on the factor graph).

    Parameters
    ----------
    damping : float
        d in [0, 1): the weight of a message's old value in its update (0: none).
    tolerance : float
        Stop when no message changed by more than this in a sweep.
    max_iterations : int
        The cap on sweeps; stopping there warns (:class:`ConvergenceWarning`).
    time_budget : float, optional
        Seconds; the run stops after the sweep that spends them (and warns).

    Raises
    ------
    QueryError
        For a setting out of range.

    Examples
    --------
    >>> LoopyBP(damping=0.5).tolerance
    1e-08
    >>> LoopyBP(damping=1.0)
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: LoopyBP: damping must be in [0, 1), not 1.0
    """

    damping: float = 0.0
    tolerance: float = 1e-8
    max_iterations: int = 1000
    time_budget: float | None = None

    def __post_init__(self) -> None:
        check_fraction("LoopyBP", "damping", self.damping)
        check_fraction("LoopyBP", "tolerance", self.tolerance, high=float("inf"))
        check_count("LoopyBP", "max_iterations", self.max_iterations)
        check_seconds("LoopyBP", "time_budget", self.time_budget)

    def run(self, graph: FactorGraph, evidence: Mapping[int, int]) -> Marginals:
        """P(X | e) of every variable by loopy belief propagation.

        Parameters
        ----------
        graph : FactorGraph
            A Bayesian or Markov network's factor graph.
        evidence : mapping of int to int
            ``{variable index: state index}``.

        Returns
        -------
        Marginals
            No standard errors; ``log_partition`` is the Bethe estimate.

        Raises
        ------
        ImpossibleEvidenceError
            When the evidence zeroes a factor, or the messages leave a variable no state
            and propagating the tables' zeros proves it (:mod:`~bbn.engines.approximate.
            supports`).
        NoAnswerError
            When the messages leave a variable no state (underflow or no convergence:
            not a proof that the evidence is impossible).

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
        ...                     (np.array([[2.0, 1.0], [1.0, 2.0]]),))
        >>> result = LoopyBP().run(graph, {1: 0})
        >>> result.probabilities["A"].round(4).tolist(), round(result.log_partition, 4)
        ([0.6667, 0.3333], 1.0986)
        """
        run = propagate(graph, evidence, self)
        return Marginals(dict(zip(graph.variables, run.beliefs)), None,
                         run.log_partition, run.report)


def propagate(graph: FactorGraph, evidence: Mapping[int, int], settings: LoopyBP) -> Propagation:
    """Run loopy belief propagation and keep its messages (importance sampling's proposal
    reads them).

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
    settings : LoopyBP

    Returns
    -------
    Propagation

    Raises
    ------
    ImpossibleEvidenceError, NoAnswerError
        As :meth:`LoopyBP.run`.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([1.0, 3.0]),))
    >>> propagate(graph, {}, LoopyBP()).beliefs[0].round(12).tolist()
    [0.25, 0.75]
    """
    start = time.perf_counter()
    evidence, reduced = sliced_for_messages(graph, evidence, "loopy belief propagation", 2)
    cardinality = graph.cardinality
    layout = MessageLayout(reduced.scopes, reduced.tables, cardinality)
    if not layout.size:  # every variable observed, or in no factor: nothing to pass
        return _without_messages(graph, evidence, reduced.log_constant, start)
    sweeps = iterate(layout, settings, factor_messages, start, "loopy belief propagation")
    to_variable = sweeps.to_variable
    to_factor = exclusive_products(layout, to_variable)
    beliefs, log_z = _beliefs(graph, evidence, layout, to_variable)
    with np.errstate(divide="ignore"):
        log_z += reduced.log_constant + factor_log_normalisers(layout, to_factor)
        log_z -= float(np.log(np.add.reduceat(to_factor * to_variable,
                                              layout.edge_offset)).sum())
    report = sweeps.report("lbp", start)
    keyed = {(reduced.factors[r], v): to_variable[o:o + cardinality[v]]
             for (r, v), o in zip(layout.edges, layout.edge_offset.tolist())}
    return Propagation(beliefs, keyed, float(log_z), report)


def sliced_for_messages(graph: FactorGraph, evidence: Mapping[int, int], name: str,
                        table_copies: int) -> tuple[dict[int, int], ReducedFactors]:
    """The evidence checked, the factors sliced at it, and the memory of the messages
    (8 bytes an entry) and of ``table_copies`` copies of the tables checked before any is
    made.

    Examples
    --------
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([1.0, 3.0]),))
    >>> sliced_for_messages(graph, {}, "loopy belief propagation", 2)[1].scopes
    ((0,),)
    """
    evidence = check_evidence(graph, evidence)
    reduced = reduce_factors(graph, evidence)
    entries = sum(int(graph.cardinality[v]) for scope in reduced.scopes for v in scope)
    check_allocation(8 * entries + table_copies * sum(t.size for t in reduced.tables),
                     f"the messages of {name} ({entries} entries)")
    return evidence, reduced


@dataclass(frozen=True)
class Sweeps:
    """Where the message sweeps stopped: the factor-to-variable messages and why."""

    to_variable: np.ndarray
    iterations: int
    residual: float
    stopped_by: str  # "tolerance" (converged), "iterations" or "time"

    def report(self, method: str, start: float) -> RunReport:
        """The run's :class:`RunReport` (``start``: its ``time.perf_counter()``)."""
        return RunReport(method, iterations=self.iterations, residual=self.residual,
                         converged=self.stopped_by == "tolerance",
                         seconds=time.perf_counter() - start, stopped_by=self.stopped_by)


def iterate(layout: MessageLayout, settings: LoopyBP, update, start: float,
            name: str, watch=None) -> Sweeps:
    """Flooding sweeps from uniform messages until the residual is below the tolerance,
    the iteration cap or the time budget (then a :class:`ConvergenceWarning` naming
    ``name``). ``update(layout, to_factor)`` gives the new factor-to-variable messages:
    sums for sum-product, maxima for max-product; ``watch(to_variable)``, if given, sees
    the messages after every sweep.

    Examples
    --------
    >>> layout = MessageLayout(((0, 1),), (np.array([[4.0, 1.0], [2.0, 3.0]]),),
    ...                        np.array([2, 2]))
    >>> sweeps = iterate(layout, LoopyBP(), factor_messages, time.perf_counter(), "bp")
    >>> sweeps.stopped_by, sweeps.iterations
    ('tolerance', 2)
    """
    to_variable = layout.normalised(np.ones(layout.size))
    iterations, residual, stopped_by = 0, np.inf, "iterations"
    while iterations < settings.max_iterations:
        new = update(layout, exclusive_products(layout, to_variable))
        if settings.damping:
            new = (1 - settings.damping) * new + settings.damping * to_variable
        residual = float(np.abs(new - to_variable).max())
        to_variable = new
        iterations += 1
        if watch is not None:
            watch(to_variable)
        if residual < settings.tolerance:
            stopped_by = "tolerance"
            break
        if (settings.time_budget is not None
                and time.perf_counter() - start >= settings.time_budget):
            stopped_by = "time"
            break
    if stopped_by != "tolerance":
        warnings.warn(f"{name} stopped by {stopped_by} after {iterations} sweeps with "
                      f"residual {residual:.3g} > tolerance {settings.tolerance:g}; try "
                      "damping=0.5 or more iterations", ConvergenceWarning, stacklevel=4)
    return Sweeps(to_variable, iterations, float(residual), stopped_by)


def _without_messages(graph: FactorGraph, evidence: Mapping[int, int], log_constant: float,
                      start: float) -> Propagation:
    """The answer when no factor has an unobserved variable: observed one-hot, the rest
    uniform; Z(e) = Π constants · Π |X_v| over the free variables."""
    beliefs, log_z = [], log_constant
    for v, card in enumerate(graph.cardinality):
        if v in evidence:
            beliefs.append(np.eye(card)[evidence[v]])
        else:
            beliefs.append(np.full(card, 1.0 / card))
            log_z += float(np.log(card))
    report = RunReport("lbp", iterations=0, residual=0.0, converged=True,
                       seconds=time.perf_counter() - start, stopped_by="tolerance")
    return Propagation(beliefs, {}, log_z, report)


def _beliefs(graph: FactorGraph, evidence: Mapping[int, int], layout: MessageLayout,
             to_variable: np.ndarray) -> tuple[list[np.ndarray], float]:
    """b_v ∝ Π_f μ_{f→v} for every variable (one-hot if observed, uniform if in no
    factor) and Σ_v log Σ_x Π_f μ_{f→v}(x) (the Bethe variable terms)."""
    cardinality = graph.cardinality
    logs = log_products(layout, to_variable)
    position = {v: i for i, v in enumerate(layout.variables)}
    beliefs, log_z = [], 0.0
    for v in range(len(graph.variables)):
        if v in evidence:
            beliefs.append(np.eye(cardinality[v])[evidence[v]])
        elif v not in position:
            beliefs.append(np.full(cardinality[v], 1.0 / cardinality[v]))
            log_z += float(np.log(cardinality[v]))
        else:
            start = layout.key_offset[position[v]]
            own = logs[start:start + cardinality[v]]
            top = own.max()
            if top == -np.inf:  # the zeros prove it impossible, or no answer
                supported_states(graph, evidence)  # ImpossibleEvidenceError: a proof
                raise NoAnswerError("loopy belief propagation gave no answer: its messages "
                                    f"left no state of {graph.variables[v]!r} (they "
                                    "underflowed or did not converge); this does not show "
                                    "the evidence impossible; answer exactly, or with "
                                    "method='gibbs'")
            product = np.exp(own - top)
            total = float(product.sum())
            beliefs.append(product / total)
            log_z += top + float(np.log(total))
    return beliefs, log_z



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

Evidence slices the factors first (:func:`~bbn.approximate.evidence.reduce_factors`), so
observed variables carry no messages. On a tree (a polytree Bayesian network) the
messages reach their fixed point after as many sweeps as the tree's diameter, and the
beliefs and the Bethe log Z are exact; on a graph with loops they are approximations.

>>> import bbn
>>> from bbn.approximate.factor_graph import FactorGraph
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

from bbn.approximate.evidence import check_evidence, named, reduce_factors
from bbn.approximate.factor_graph import FactorGraph
from bbn.approximate.result import Marginals, RunReport
from bbn.approximate.settings import check_count, check_fraction, check_seconds
from bbn.errors import ImpossibleEvidenceError
from bbn.memory import check_allocation


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
    bbn.errors.QueryError: LoopyBP: damping must be in [0, 1), not 1.0
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
            When the evidence zeroes a factor, or the messages find it impossible.

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
    ImpossibleEvidenceError
        As :meth:`LoopyBP.run`.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([1.0, 3.0]),))
    >>> propagate(graph, {}, LoopyBP()).beliefs[0].tolist()
    [0.25, 0.75]
    """
    start = time.perf_counter()
    evidence = check_evidence(graph, evidence)
    reduced = reduce_factors(graph, evidence)
    cardinality = graph.cardinality
    edges = [(r, v) for r, scope in enumerate(reduced.scopes) for v in scope]
    check_allocation(2 * sum(int(cardinality[v]) for _, v in edges),
                     f"the messages of loopy belief propagation on {len(edges)} edges")
    edge_of = {edge: e for e, edge in enumerate(edges)}
    uniform = [np.full(cardinality[v], 1.0 / cardinality[v]) for _, v in edges]
    to_factor, to_variable = list(uniform), list(uniform)
    incident = [[] for _ in graph.variables]
    for e, (_, v) in enumerate(edges):
        incident[v].append(e)
    incident = [np.array(es, dtype=np.int64) for es in incident]

    def variable_messages() -> None:
        """μ_{v→f} from the current μ_{f→v}: products of all but one (prefix × suffix)."""
        for es in incident:
            if len(es) == 0:
                continue
            stacked = np.stack([to_variable[e] for e in es])
            prefix = np.cumprod(np.vstack([np.ones_like(stacked[:1]), stacked[:-1]]), axis=0)
            suffix = np.cumprod(np.vstack([np.ones_like(stacked[:1]), stacked[:0:-1]]),
                                axis=0)[::-1]
            for e, message in zip(es, _normalised(prefix * suffix)):
                to_factor[e] = message

    iterations, residual, stopped_by = 0, np.inf, "iterations"
    while iterations < settings.max_iterations:
        variable_messages()
        residual = 0.0
        for r, (scope, table) in enumerate(zip(reduced.scopes, reduced.tables)):
            axes = list(range(len(scope)))
            for i, v in enumerate(scope):
                e = edge_of[(r, v)]
                operands = [table, axes]
                for j, u in enumerate(scope):
                    if j != i:
                        operands += [to_factor[edge_of[(r, u)]], [j]]
                new = _normalised(np.einsum(*operands, [i])[None])[0]
                if settings.damping:
                    new = (1 - settings.damping) * new + settings.damping * to_variable[e]
                residual = max(residual, float(np.abs(new - to_variable[e]).max()))
                to_variable[e] = new
        iterations += 1
        if residual < settings.tolerance:
            stopped_by = "tolerance"
            break
        if (settings.time_budget is not None
                and time.perf_counter() - start >= settings.time_budget):
            stopped_by = "time"
            break
    variable_messages()
    converged = stopped_by == "tolerance"
    if not converged:
        warnings.warn(f"loopy belief propagation stopped by {stopped_by} after "
                      f"{iterations} sweeps with residual {residual:.3g} > tolerance "
                      f"{settings.tolerance:g}; try damping=0.5 or more iterations",
                      ConvergenceWarning, stacklevel=3)

    beliefs, log_z = [], reduced.log_constant
    for v, es in enumerate(incident):
        if v in evidence:
            beliefs.append(np.eye(cardinality[v])[evidence[v]])
            continue
        product = (np.prod(np.stack([to_variable[e] for e in es]), axis=0) if len(es)
                   else np.ones(cardinality[v]))
        total = float(product.sum())
        if total <= 0:
            raise ImpossibleEvidenceError(named(graph, evidence), "impossible evidence: "
                                          "loopy belief propagation found no state of "
                                          f"{graph.variables[v]!r} consistent with it")
        beliefs.append(product / total)
        log_z += np.log(total)
    with np.errstate(divide="ignore"):
        for r, (scope, table) in enumerate(zip(reduced.scopes, reduced.tables)):
            operands = [table, list(range(len(scope)))]
            for j, u in enumerate(scope):
                operands += [to_factor[edge_of[(r, u)]], [j]]
            log_z += np.log(float(np.einsum(*operands, [])))
        for e in range(len(edges)):
            log_z -= np.log(float(to_factor[e] @ to_variable[e]))
    report = RunReport("lbp", iterations=iterations, residual=float(residual),
                       converged=converged, seconds=time.perf_counter() - start,
                       stopped_by=stopped_by)
    keyed = {(reduced.factors[r], v): to_variable[e] for e, (r, v) in enumerate(edges)}
    return Propagation(beliefs, keyed, float(log_z), report)


def _normalised(messages: np.ndarray) -> np.ndarray:
    """Rows scaled to sum 1 (a row of zeros stays zeros: a contradiction, found later)."""
    totals = messages.sum(axis=-1, keepdims=True)
    return np.divide(messages, totals, out=np.zeros_like(messages), where=totals > 0)

"""Weighted forward sampling: the loop likelihood weighting and importance sampling share.

Each sample draws the unobserved variables forward (parents first) from a proposal
Q(X_v | pa_v) and clamps the observed ones; its weight is

    w = P(x, e) / Q(x) = Π_{v ∉ E} P(x_v | pa_v) / Q(x_v | pa_v) · Π_{v ∈ E} P(e_v | pa_v)

(likelihood weighting: Q = P, so only the evidence factors remain). With W = Σ w_i,

    P̂(X = x | e) = Σ_i w_i [x_i = x] / W,     P̂(e) = W / n,
    SE(P̂)² ≈ max( Σ_i w_i² ([x_i = x] − P̂)² / W²,  (P̂ (1 − P̂) + 1/n_eff) / n_eff )

with Kish's n_eff = W² / Σ w_i². The first term is the delta method for a ratio; the
second, the binomial SE with n_eff samples and one pseudo-observation, is a floor for
rare states, whose few weighted hits understate their own spread: a state no sample
drew gets SE = 1/n_eff instead of 0 (a state of probability p stays unseen with
probability (1 − p)^n_eff, below e^−4 ≈ 2% once p > 4/n_eff).

Samples are drawn in batches (one numpy draw per variable per batch); weights are kept
as logarithms against a running maximum, so a long run with tiny weights does not
underflow. The time budget is checked between batches.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> result = weighted_sampling(graph, {}, graph.tables, "lw", 20_000, None, 0)
>>> bool(abs(result.probabilities["C"][0] - 0.8) < 4 * result.standard_errors["C"][0])
True
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.draws import draw_states
from bbn.core.errors import ModelError, NoMatchingSampleError
from bbn.core.memory import check_allocation
from bbn.engines.approximate.clamping import check_evidence, named, reduce_factors
from bbn.engines.approximate.result import Marginals, RunReport
from bbn.views.factor_graph import FactorGraph

#: Samples per batch at most: a batch holds (variables × samples) int32 codes.
BATCH = 10_000
#: Codes per batch at most (4 M int32 = 16 MiB), so wide networks take smaller batches.
BATCH_CODES = 1 << 22


def weighted_sampling(graph: FactorGraph, evidence: Mapping[int, int],
                      proposal: Sequence[np.ndarray], method: str, samples: int,
                      time_budget: float | None, seed: int, watch=None) -> Marginals:
    """P(X | e) of every variable from weighted forward samples.

    Parameters
    ----------
    graph : FactorGraph
        A Bayesian network's factor graph.
    evidence : mapping of int to int
        ``{variable index: state index}``.
    proposal : sequence of numpy.ndarray
        Q(X_child | rest of scope) per factor, shaped as ``graph.tables``; its support
        must hold P's (the tables themselves give likelihood weighting).
    method : str
        The name the report carries.
    samples : int
        The sample budget.
    time_budget : float, optional
        Seconds; checked between batches.
    seed : int
        Seeds the generator.
    watch : callable, optional
        ``watch(codes, log_weights)`` sees every batch (variables × samples, and each
        sample's log weight): joint questions count from it
        (:mod:`bbn.engines.approximate.sampled`).

    Returns
    -------
    Marginals
        With standard errors and log_partition = log P̂(e).

    Raises
    ------
    ModelError
        For a Markov network.
    ImpossibleEvidenceError
        When an evidence row is zero whatever the other variables are.
    NoMatchingSampleError
        When every weight was zero.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([0.5, 0.5]),), (0,))
    >>> round(weighted_sampling(graph, {0: 1}, graph.tables, "lw", 10, None, 0).log_partition, 6)
    -0.693147
    """
    start = time.perf_counter()
    if not graph.is_bayesian:
        raise ModelError(f"{method}: sampling forward needs a Bayesian network; for a "
                         "Markov network use method='gibbs' or 'lbp'")
    evidence = check_evidence(graph, evidence)
    reduce_factors(graph, evidence)  # an evidence row that is zero everywhere: said now
    sampler = ForwardSampler(graph, evidence, proposal)
    n_variables = len(graph.variables)
    batch = int(max(1, min(BATCH, BATCH_CODES // max(n_variables, 1), samples)))
    check_allocation(batch * (n_variables // 2 + 6), f"a batch of {batch} samples of "
                     f"{n_variables} variables")
    rng = np.random.default_rng(seed)
    totals = WeightedTotals(graph.cardinality, evidence)
    drawn, stopped_by = 0, "samples"
    codes = np.zeros((n_variables, batch), dtype=np.int32)
    while drawn < samples:
        size = min(batch, samples - drawn)
        log_weight = sampler.draw(codes[:, :size], rng)
        totals.add(codes[:, :size], log_weight)
        if watch is not None:
            watch(codes[:, :size], log_weight)
        drawn += size
        if time_budget is not None and time.perf_counter() - start >= time_budget:
            stopped_by = "time" if drawn < samples else stopped_by
            break
    if totals.weight == 0:
        raise NoMatchingSampleError(
            f"{method}: no sample matched the evidence (all {drawn} weights were 0): "
            f"{named(graph, evidence)} is too unlikely for this budget; try "
            "method='is' or 'lbp', exact inference, or more samples")
    probabilities, errors = totals.estimates(graph.variables)
    report = RunReport(method, samples=drawn, effective_samples=totals.effective,
                       seconds=time.perf_counter() - start, stopped_by=stopped_by)
    return Marginals(probabilities, errors, totals.log_mean(drawn), report)


class _Step(NamedTuple):
    """How one variable is drawn (or clamped) given its parents' codes."""

    variable: int
    parents: tuple[int, ...]
    radices: list[int]
    proposal: np.ndarray            # Q rows (configurations × states), normalised
    log_ratio: np.ndarray | None    # log P − log Q (None: Q = P)
    log_evidence: np.ndarray | None  # log P(e_v | pa) per configuration (observed v)


class ForwardSampler:
    """Draws samples parents first from a proposal, clamping the evidence, and gives
    their log weights log P(x, e) − log Q(x).

    Parameters
    ----------
    graph : FactorGraph
        A Bayesian network's factor graph.
    evidence : mapping of int to int
        Checked evidence.
    proposal : sequence of numpy.ndarray
        Q per factor, shaped as ``graph.tables`` (rows need not be normalised).

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([0.5, 0.5]),), (0,))
    >>> codes = np.zeros((1, 4), dtype=np.int32)
    >>> ForwardSampler(graph, {0: 1}, graph.tables).draw(codes, np.random.default_rng(0))
    array([-0.69314718, -0.69314718, -0.69314718, -0.69314718])
    """

    def __init__(self, graph: FactorGraph, evidence: Mapping[int, int],
                 proposal: Sequence[np.ndarray]) -> None:
        cardinality = graph.cardinality
        self.evidence = evidence
        self.steps = []
        for k in graph.forward_order():
            v, parents = graph.child[k], graph.scopes[k][:-1]
            target = np.asarray(graph.tables[k], dtype=np.float64).reshape(-1, cardinality[v])
            q = np.asarray(proposal[k], dtype=np.float64).reshape(-1, cardinality[v])
            totals = q.sum(axis=1, keepdims=True)
            q = q / np.where(totals > 0, totals, 1.0)
            with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 rows: never drawn
                ratio = None if np.array_equal(q, target) else np.log(target) - np.log(q)
                log_evidence = np.log(target[:, evidence[v]]) if v in evidence else None
            self.steps.append(_Step(v, parents, [int(cardinality[p]) for p in parents], q,
                                    ratio, log_evidence))

    def draw(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Fill ``codes`` (variables × samples) with one batch; return the log weights."""
        size = codes.shape[1]
        log_weight = np.zeros(size)
        for step in self.steps:
            index = (mixed_radix([codes[p] for p in step.parents], step.radices)
                     if step.parents else np.zeros(size, dtype=np.int64))
            if step.log_evidence is not None:
                codes[step.variable] = self.evidence[step.variable]
                log_weight += step.log_evidence[index]
            else:
                codes[step.variable] = draw_states(step.proposal, index, rng)
                if step.log_ratio is not None:
                    log_weight += step.log_ratio[index, codes[step.variable]]
        return log_weight


class WeightedTotals:
    """Running sums Σw, Σw², Σw·[x_v = x], Σw²·[x_v = x], with the weights divided by
    exp(scale) (the largest log weight so far); the weighted samplers' estimates and
    standard errors come from them (also for a joint counted as one variable).

    Examples
    --------
    >>> totals = WeightedTotals(np.array([2]), {})
    >>> totals.add(np.array([[0, 1, 1]]), np.log(np.array([1.0, 1.0, 2.0])))
    >>> probabilities, errors = totals.estimates(("X",))
    >>> probabilities["X"].tolist()
    [0.25, 0.75]
    """

    def __init__(self, cardinality: np.ndarray, evidence: Mapping[int, int]) -> None:
        self.cardinality, self.evidence = cardinality, evidence
        self.scale = -np.inf
        self.weight = self.weight2 = 0.0
        self.first = [np.zeros(c) for c in cardinality]
        self.second = [np.zeros(c) for c in cardinality]

    def add(self, codes: np.ndarray, log_weight: np.ndarray) -> None:
        top = float(log_weight.max())
        if top == -np.inf:
            return
        if top > self.scale:
            shrink = np.exp(self.scale - top)
            self.weight, self.weight2 = self.weight * shrink, self.weight2 * shrink ** 2
            for v in range(len(self.first)):
                self.first[v] *= shrink
                self.second[v] *= shrink ** 2
            self.scale = top
        w = np.exp(log_weight - self.scale)
        w2 = w * w
        self.weight += float(w.sum())
        self.weight2 += float(w2.sum())
        for v, c in enumerate(self.cardinality):
            if v not in self.evidence:
                self.first[v] += np.bincount(codes[v], weights=w, minlength=c)
                self.second[v] += np.bincount(codes[v], weights=w2, minlength=c)

    @property
    def effective(self) -> float:
        """Kish's effective sample size W² / Σ w²."""
        return float(self.weight ** 2 / self.weight2) if self.weight2 > 0 else 0.0

    def log_mean(self, n: int) -> float:
        """log (W / n), the log of the mean weight."""
        return float(self.scale + np.log(self.weight) - np.log(n))

    def estimates(self, variables: Sequence[str]) -> tuple[dict, dict]:
        """P̂(X = x | e) and its standard error for every variable (observed: one-hot, 0)."""
        probabilities, errors = {}, {}
        for v, name in enumerate(variables):
            if v in self.evidence:
                probabilities[name] = np.eye(self.cardinality[v])[self.evidence[v]]
                errors[name] = np.zeros(self.cardinality[v])
                continue
            p = self.first[v] / self.weight
            variance = (self.second[v] * (1 - 2 * p) + p * p * self.weight2) / self.weight ** 2
            effective = self.effective
            variance = np.maximum(variance, (p * (1 - p) + 1 / effective) / effective)
            probabilities[name] = p
            errors[name] = np.sqrt(np.maximum(variance, 0.0))
        return probabilities, errors

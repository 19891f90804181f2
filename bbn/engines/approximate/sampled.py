"""Joint questions from samples: P(X, Y | e), MAP over a subset, and the best sample.

The query variables' states in sample i form one joint code (the last variable fastest,
:mod:`bbn.core.codes`), and the joint estimate is one weighted ``np.bincount`` of the codes
per batch of samples:

    c_i = Σ_j x_{ij} Π_{l > j} |X_l|,      P̂(X = x, Y = y | e) = Σ_i w_i [c_i = c(x, y)] / Σ_i w_i

The joint is one variable with Π_j |X_j| states, so its standard errors are those of the
one-variable estimates, by the same code: the delta method floored with Kish's n_eff
for likelihood weighting and importance sampling (:mod:`bbn.engines.approximate.weighted`), the
spread of the chains' averages floored with the chains' n_eff for Gibbs
(:mod:`bbn.engines.approximate.gibbs`; indicators here, since a joint state has no
Rao-Blackwell conditional).

MAP over the query variables takes the top code; how far it stands from the runner-up
is the difference d = p̂₁ − p̂₂ in standard errors of the difference,

    margin = d / SE(d),     SE(d)² = max( Σ_i w_i² (D_i − d)² / W²,  (p̂₁ + p̂₂ − d² + 1/n)/n )

with D_i = [c_i = c₁] − [c_i = c₂] (Gibbs: the chains' spread of their differences) and
n = p̂₁(1 − p̂₁)/SE(p̂₁)² the top state's effective samples (at most): the floor is the multinomial
variance of a difference, so two states that no sample told apart are not "separated".
A margin below 2 says the top two are not clearly ordered.

Every sample can also be scored exactly, log φ(x, e) (:class:`~bbn.engines.approximate.max_product.
Scorer`), so the run keeps its ``STARTS`` best distinct samples for the MPE; each, and
every variable's most probable state under the run's marginals, is improved by iterated
conditional modes, and the best of those is the answer.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> joint = sample_joint(graph, {4: 0}, (0, 1), LikelihoodWeighting(samples=20_000))
>>> joint.probabilities.shape, round(float(joint.probabilities.sum()), 6)
((2, 2), 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.memory import check_allocation
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.max_product import LocalSearch
from bbn.engines.approximate.result import RunReport
from bbn.engines.approximate.weighted import WeightedTotals
from bbn.views.factor_graph import FactorGraph

#: The name of the one "variable" a joint is counted as.
_JOINT = "joint"

#: Distinct best samples each improved by the local search for an MPE. On five reference
#: queries each (20 000 samples of likelihood weighting), from the single best sample the
#: search missed the MPE of insurance once and of water once, and on hailfinder (an MPE of
#: probability ~1e-12, which no sample draws) stopped 2.6 nats below it on average; from
#: 16 starts and the marginals' decoding: insurance and water exact, hailfinder 1.2 nats.
STARTS = 16


@dataclass(frozen=True)
class SampledJoint:
    """A joint estimate over some variables from one sampler run.

    Parameters
    ----------
    variables : tuple of int
        The query variables' indices in the graph, in the table's axis order.
    probabilities : numpy.ndarray
        P̂(x | e), shape ``(|X_1|, ..., |X_k|)``, summing to 1.
    standard_errors : numpy.ndarray
        The standard error of each entry, the same shape.
    margin : float
        The top entry's lead over the runner-up in standard errors of the difference
        (inf when the top entry is the only state).
    log_partition : float, optional
        log P̂(e) (likelihood weighting, importance sampling); None for Gibbs.
    best_states : numpy.ndarray, optional
        When asked for: the best assignment (every variable) that iterated conditional
        modes reached from the best samples and from the marginals' decoding
        (:class:`~bbn.engines.approximate.max_product.LocalSearch`).
    best_log_score : float
        Its exact log φ(x, e) (−inf when not asked for).
    report : RunReport
        How the sampler ran.
    log_partition_error : float, optional
        The standard error of log P̂(e) — the relative one of the mean weight P̂(e) = W/n,
        √(Σw²/W² − 1/n) — for the weighted samplers; None for Gibbs.
    """

    variables: tuple[int, ...]
    probabilities: np.ndarray
    standard_errors: np.ndarray
    margin: float
    log_partition: float | None
    best_states: np.ndarray | None
    best_log_score: float
    report: RunReport
    log_partition_error: float | None = None

    def ranked(self, count: int = 2) -> list[tuple[int, ...]]:
        """The ``count`` most probable joint states (state indices), best first."""
        order = np.argsort(-self.probabilities, axis=None, kind="stable")[:count]
        return [tuple(int(i) for i in np.unravel_index(k, self.probabilities.shape))
                for k in order]


def sample_joint(graph: FactorGraph, evidence: Mapping[int, int], variables: Sequence[int],
                 settings, keep_best: bool = False) -> SampledJoint:
    """P̂(variables | e) with standard errors from one run of a sampler.

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
        ``{variable index: state index}``.
    variables : sequence of int
        The query variables (none: only the best sample is wanted).
    settings : LikelihoodWeighting, ImportanceSampling or Gibbs
        The sampler and its settings.
    keep_best : bool
        Also score every sample exactly and keep the best (for the MPE).

    Returns
    -------
    SampledJoint

    Raises
    ------
    MemoryLimitError
        When the joint table (per chain, for Gibbs) is over the memory limit.
    ImpossibleEvidenceError, NoMatchingSampleError
        As the sampler's ``run``.

    Examples
    --------
    >>> import numpy as np
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[4.0, 1.0], [2.0, 3.0]]),))
    >>> joint = sample_joint(graph, {}, (0, 1), Gibbs(samples=20_000))
    >>> joint.ranked(1), bool(abs(joint.probabilities[0, 0] - 0.4)
    ...                       < 4 * joint.standard_errors[0, 0])
    ([(0, 0)], True)
    """
    variables = tuple(int(v) for v in variables)
    shape = tuple(int(graph.cardinality[v]) for v in variables)
    size = int(np.prod(shape, dtype=object))
    chains = settings.chains if isinstance(settings, Gibbs) else 1
    check_allocation(4 * size * chains, f"the joint table of {len(variables)} variables "
                     f"({size} states{f' × {chains} chains' if chains > 1 else ''})",
                     hint="ask for fewer variables at once")
    counts = (_ChainCounts(size, chains) if isinstance(settings, Gibbs)
              else _WeightedCounts(size))
    best = _BestSamples(LocalSearch(graph, evidence, "the samples' scores")) if keep_best \
        else None

    def watch(codes: np.ndarray, log_weight: np.ndarray | None = None) -> None:
        joint = (mixed_radix([codes[v] for v in variables], shape) if variables
                 else np.zeros(codes.shape[1], dtype=np.int64))
        counts.add(joint, log_weight)
        if best is not None:
            best.add(codes)

    result = settings.run(graph, evidence, watch=watch)
    p, se, margin = counts.estimates(settings, result.report)
    states, score = (None, -np.inf) if best is None else best.polished(np.array(
        [int(np.argmax(result.probabilities[v])) for v in graph.variables]))
    z_error = None
    if isinstance(counts, _WeightedCounts) and counts.totals.weight > 0:
        totals, n = counts.totals, max(result.report.samples or 1, 1)
        z_error = math.sqrt(max(totals.weight2 / totals.weight ** 2 - 1 / n, 0.0))
    return SampledJoint(variables, p.reshape(shape), se.reshape(shape), margin,
                        result.log_partition, states, score, result.report, z_error)


class _WeightedCounts:
    """The weighted samplers' joint: the one-variable running sums of
    :mod:`bbn.engines.approximate.weighted` over the joint codes."""

    def __init__(self, size: int) -> None:
        self.totals = WeightedTotals(np.array([size]), {})

    def add(self, joint: np.ndarray, log_weight: np.ndarray) -> None:
        self.totals.add(joint[None, :], log_weight)

    def estimates(self, settings, report: RunReport) -> tuple[np.ndarray, np.ndarray, float]:
        """P̂, SE and the top entry's margin (the module's formula)."""
        totals = self.totals
        probabilities, errors = totals.estimates((_JOINT,))
        p, se = probabilities[_JOINT], errors[_JOINT]
        first, second = _top_two(p)
        if second is None:
            return p, se, np.inf
        d = p[first] - p[second]
        squares = totals.second[0]  # Σ w² [c_i = c] (scaled as the weights are)
        direct = (squares[first] + squares[second] - 2 * d * (squares[first] - squares[second])
                  + d * d * totals.weight2) / totals.weight ** 2
        return p, se, _margin(p, se, first, second, direct)


class _ChainCounts:
    """Gibbs's joint: each chain's count of each joint code over the kept sweeps, and how
    often the code changed, for the chains' estimates of :mod:`bbn.engines.approximate.gibbs`."""

    def __init__(self, size: int, chains: int) -> None:
        self.size, self.chains = size, chains
        self.counts = np.zeros(chains * size)
        self.moves, self.kept, self.last = 0, 0, None

    def add(self, joint: np.ndarray, log_weight: None = None) -> None:
        self.counts += np.bincount(np.arange(self.chains) * self.size + joint,
                                   minlength=self.counts.size)
        if self.last is not None:
            self.moves += int((joint != self.last).sum())
        self.last, self.kept = joint, self.kept + 1

    def estimates(self, settings: Gibbs, report: RunReport
                  ) -> tuple[np.ndarray, np.ndarray, float]:
        """P̂, SE (Gibbs's per-variable estimate applied to the joint) and the margin."""
        per_chain = self.counts.reshape(self.chains, self.size)
        states = tuple(str(k) for k in range(self.size))
        joint = FactorGraph((_JOINT,), (states,), (), ())
        result = settings.estimates(joint, {}, {0: per_chain}, np.array([self.moves]),
                                     self.kept, report.stopped_by, report.seconds)
        p, se = result.probabilities[_JOINT], result.standard_errors[_JOINT]
        first, second = _top_two(p)
        if second is None:
            return p, se, np.inf
        differences = (per_chain[:, first] - per_chain[:, second]) / max(self.kept, 1)
        direct = float(differences.var(ddof=1)) / self.chains
        return p, se, _margin(p, se, first, second, direct)


def _top_two(p: np.ndarray) -> tuple[int, int | None]:
    """The indices of the two largest entries (the first of ties first)."""
    order = np.argsort(-p, kind="stable")
    return int(order[0]), (int(order[1]) if len(order) > 1 else None)


def _margin(p: np.ndarray, se: np.ndarray, first: int, second: int, direct: float) -> float:
    """d / SE(d), SE(d)² the larger of ``direct`` and the multinomial floor with the top
    entry's effective samples (the module's formula)."""
    d = float(p[first] - p[second])
    top, error = float(p[first]), float(se[first])
    if error == 0:
        return np.inf
    # n from the top entry's SE² = max(..., (p(1 − p) + 1/n)/n) ≥ p(1 − p)/n, or = 1/n²
    effective = top * (1 - top) / error ** 2 if 0 < top < 1 else 1 / error
    floor = (float(p[first] + p[second]) - d * d + 1 / effective) / effective
    spread = np.sqrt(max(direct, floor, 0.0))
    return d / spread if spread > 0 else np.inf


class _BestSamples:
    """The ``STARTS`` highest-scoring distinct samples seen, every sample scored exactly
    by the search's :class:`~bbn.engines.approximate.max_product.Scorer`."""

    def __init__(self, search: LocalSearch) -> None:
        self.search = search
        self.states = np.zeros((len(search.graph.variables), 0), dtype=np.int64)
        self.scores = np.zeros(0)

    def add(self, codes: np.ndarray) -> None:
        scores = self.search.score.of_samples(codes)
        top = np.argsort(-scores, kind="stable")[:STARTS]
        states = np.hstack([self.states, codes[:, top].astype(np.int64)])
        scores = np.concatenate([self.scores, scores[top]])
        _, first = np.unique(states.T, axis=0, return_index=True)
        keep = first[np.argsort(-scores[first], kind="stable")[:STARTS]]
        self.states, self.scores = states[:, keep], scores[keep]

    def polished(self, decoded: np.ndarray) -> tuple[np.ndarray, float]:
        """The best of the kept samples and of ``decoded`` (each variable's most probable
        state) after iterated conditional modes from each."""
        best, best_score = None, -np.inf
        for start in [*self.states.T, decoded]:
            states, score = self.search.polish(start)
            if best is None or score > best_score:
                best, best_score = states, score
        return best, best_score

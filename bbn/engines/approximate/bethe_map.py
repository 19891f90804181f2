"""MAP over a subset of variables by loopy belief propagation: decode, then a local
search scored by the Bethe free energy.

MAP asks for argmax_m P(M = m | e) = argmax_m Z(m, e): the variables outside M are
summed out, so neither the beliefs' argmax nor the MPE restricted to M is the answer in
general. Loopy belief propagation estimates the score itself: with M clamped as evidence,
its Bethe estimate log Ẑ(m, e) (:mod:`bbn.engines.approximate.lbp`) approximates log Z(m, e)
(exact on a tree). The search

1. starts from each MAP variable's most probable state under the beliefs given e;
2. moves one MAP variable at a time to the state of higher Bethe score, a move taken only
   when it raises the score, until a pass over M changes nothing (at most
   ``MAX_PASSES``), every assignment scored once (a cache);
3. answers the last assignment with P̂(m | e) = exp(log Ẑ(m, e) − log Ẑ(e)), and the
   best other assignment it scored as the runner-up.

Each score is one run of the messages (about |M| · (|X| − 1) runs a pass). This is a
heuristic: nothing bounds the gap to the true MAP, either from the Bethe scores (they
can misorder two assignments whose Z differ by less than the approximation's error) or
from the search (it stops at an assignment no single change improves). Compare with
``method="exact"`` where that fits; on a polytree with one start it is exact when the
search reaches the optimum.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> found = bethe_map(graph, {4: 0}, (0, 1), LoopyBP())      # MAP(C, S | A=T)
>>> found.states, round(found.probability, 6)                    # the exact MAP
({0: 0, 1: 1}, 0.837054)
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, NoAnswerError
from bbn.engines.approximate.clamping import check_evidence
from bbn.engines.approximate.lbp import ConvergenceWarning, LoopyBP, propagate
from bbn.engines.approximate.result import RunReport
from bbn.views.factor_graph import FactorGraph

#: Passes over the MAP variables at most; each pass that moves raises the score, and with
#: 2–4 MAP variables on the bnlearn networks the search settles in 1–2.
MAX_PASSES = 20


@dataclass(frozen=True)
class BetheMap:
    """What :func:`bethe_map` found.

    Parameters
    ----------
    states : dict of int to int
        The MAP variables' states (by index).
    probability : float
        P̂(m | e) = exp(log Ẑ(m, e) − log Ẑ(e)), at most 1.
    runner_up : dict of int to int, optional
        The best other assignment scored (None when M has one state in all).
    runner_up_probability : float
        Its P̂ (0 when there is none).
    evaluations : int
        Runs of the messages (one per assignment scored, plus the one given e).
    report : RunReport
        The run given e alone (iterations, residual, converged); ``seconds`` is the
        whole search's.
    """

    states: dict[int, int]
    probability: float
    runner_up: dict[int, int] | None
    runner_up_probability: float
    evaluations: int
    report: RunReport


def bethe_map(graph: FactorGraph, evidence: Mapping[int, int], variables: Sequence[int],
              settings: LoopyBP) -> BetheMap:
    """MAP over ``variables`` given ``evidence`` by a search on Bethe scores.

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
        ``{variable index: state index}``.
    variables : sequence of int
        The MAP variables (unobserved).
    settings : LoopyBP
        The messages' settings, for every run.

    Returns
    -------
    BetheMap

    Raises
    ------
    ImpossibleEvidenceError
        When the evidence is impossible.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[4.0, 1.0], [2.0, 5.0]]),))
    >>> found = bethe_map(graph, {}, (0,), LoopyBP())   # P(A=1) = 7/12, P(A=0) = 5/12
    >>> found.states, round(found.probability, 6), round(found.runner_up_probability, 6)
    ({0: 1}, 0.583333, 0.416667)
    """
    start = time.perf_counter()
    evidence = check_evidence(graph, evidence)
    variables = tuple(int(v) for v in variables)
    given = propagate(graph, evidence, settings)
    log_z = 0.0 if graph.is_bayesian and not evidence else given.log_partition
    scores: dict[tuple[int, ...], float] = {}
    unsettled = 0  # runs that stopped before the tolerance: one warning for all of them

    def score(states: tuple[int, ...]) -> float:
        nonlocal unsettled
        if states not in scores:
            clamped = {**evidence, **dict(zip(variables, states))}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                try:
                    scores[states] = propagate(graph, clamped, settings).log_partition
                except (ImpossibleEvidenceError, NoAnswerError):  # a candidate out
                    scores[states] = -math.inf
            unsettled += any(issubclass(w.category, ConvergenceWarning) for w in caught)
        return scores[states]

    current = tuple(int(np.argmax(given.beliefs[v])) for v in variables)
    best = score(current)
    for _ in range(MAX_PASSES):
        moved = False
        for i, v in enumerate(variables):
            for state in range(int(graph.cardinality[v])):
                candidate = (*current[:i], state, *current[i + 1:])
                if candidate != current and score(candidate) > best:
                    current, best, moved = candidate, scores[candidate], True
        if not moved:
            break
    if unsettled:
        warnings.warn(f"loopy belief propagation stopped before its tolerance in {unsettled} "
                      f"of the {len(scores)} runs that scored the MAP search; try "
                      "damping=0.5 or more iterations", ConvergenceWarning, stacklevel=2)
    others = [(s, k) for k, s in scores.items() if k != current]
    runner_up, runner_score = max(others, key=lambda item: item[0])[::-1] if others \
        else (None, -math.inf)
    report = given.report
    report = RunReport("lbp", iterations=report.iterations, residual=report.residual,
                       converged=report.converged, seconds=time.perf_counter() - start,
                       stopped_by=report.stopped_by)
    return BetheMap(dict(zip(variables, current)), min(1.0, math.exp(best - log_z)),
                    None if runner_up is None else dict(zip(variables, runner_up)),
                    min(1.0, math.exp(runner_score - log_z)), len(scores) + 1, report)

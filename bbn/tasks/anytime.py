"""A competition task answered within a time budget: exact where it fits, else the best
approximate answer found in time (``bbn uai``'s default, ``--method auto``).

    1. the tables' zeros propagated (generalised arc consistency): a domain that empties
       proves the evidence impossible (exit 1); states ruled out are zeroed for what follows
    2. exact inference, when its memory fits the limit and its work, estimated from the
       junction tree's cliques at SECONDS_PER_ENTRY × the machine's load, fits the budget
    3. otherwise loopy belief propagation (damped) on the pruned model; when its messages
       give no answer, Gibbs sampling on it for the time left (MAR); for PR an approximate
       log Z(e) (the Bethe estimate, or importance sampling's for a Bayesian network)

Every answer says which method gave it (:class:`AutoAnswer`). No step claims impossible
evidence it has not proved: only the propagation of zeros and exact inference may.

>>> import bbn
>>> found = answer_auto(bbn.load("models/chair.bn"), "MAR", {"A": "T"})
>>> found.method, found.answer.marginals["C"].round(6).tolist()
('exact', [0.886749, 0.113251])
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import MemoryLimitError, NoAnswerError
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.supports import supported_states
from bbn.engines.exact.clique_building import build_cliques
from bbn.model.markov import MarkovNetwork
from bbn.questions import dispatch
from bbn.questions.resolution import resolve_evidence
from bbn.tasks.competition import TaskAnswer, answer_task, check_task
from bbn.views.factor_graph import FactorGraph

if TYPE_CHECKING:
    from bbn.model.network import Network

#: The time budget of ``bbn uai`` by default (seconds), as in the UAI competitions' MAR
#: and PR tracks' shortest setting.
DEFAULT_BUDGET = 60.0

#: Seconds per entry of a junction tree's cliques that the exact answer of every marginal
#: takes on an idle core (measured at a load of 1–2 on 2 cores: linkage_14, 8e8 entries,
#: 23 s; linkage_16, 4.2e8, 18 s), scaled by :func:`machine_load` for the estimate before
#: starting (linkage_16 took 48 s at a load of 4.5 per core).
SECONDS_PER_ENTRY = 4e-8


class AutoAnswer(NamedTuple):
    """A task's answer and how it was found: ``method`` is ``"exact"``, ``"lbp"`` or
    ``"gibbs"`` (``"is"`` for a PR by importance sampling); ``why`` says why exact
    inference did not answer (empty when it did); ``seconds`` the time taken."""

    answer: TaskAnswer
    method: str
    why: str
    seconds: float


def answer_auto(net: Network | MarkovNetwork, task: str,
                evidence: Mapping[str, str] | None = None,
                time_budget: float = DEFAULT_BUDGET, seed: int = 0) -> AutoAnswer:
    """Answer a competition task exactly when that fits memory and time, else
    approximately within ``time_budget`` (see the module).

    Parameters
    ----------
    net : Network or MarkovNetwork
        The model.
    task : {"MAR", "PR", "MPE"}
        The task.
    evidence : dict, optional
        ``{variable: state}``.
    time_budget : float
        Seconds for the whole answer (the estimate of exact inference's time, and the
        approximate methods' budget).
    seed : int
        The samplers' seed.

    Returns
    -------
    AutoAnswer

    Raises
    ------
    ImpossibleEvidenceError
        When the evidence is proved impossible (by the zeros, or exactly).
    NoAnswerError
        When no method found an answer in time.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> round(answer_auto(net, "PR", {"A": "T"}).answer.log10_partition, 6)
    -0.686015
    """
    start = time.perf_counter()
    task = check_task(task)
    evidence = dict(evidence or {})
    graph = dispatch.factor_graph(net)
    coded = {graph.index(v): graph.states[graph.index(v)].index(s) for v, s in evidence.items()}
    domains = supported_states(graph, coded)  # ImpossibleEvidenceError: a proof
    why = _exact_out_of_reach(net, evidence, time_budget)
    if not why:
        try:
            return AutoAnswer(answer_task(net, task, evidence), "exact", "",
                              time.perf_counter() - start)
        except MemoryLimitError as refused:
            why = str(refused).split(";")[0]
    left = max(time_budget - (time.perf_counter() - start), 1.0)
    pruned = pruned_graph(graph, domains)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the answer says how it ran
        if task == "MAR":
            answer, method = _approximate_marginals(pruned, coded, left, seed)
        elif task == "PR":
            answer, method = _approximate_partition(net, pruned, coded, left, seed)
        else:
            states, method = _approximate_mpe(net, evidence, left)
            answer = TaskAnswer("MPE", assignment=states)
    return AutoAnswer(answer, method, why, time.perf_counter() - start)


def _exact_out_of_reach(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                        time_budget: float) -> str:
    """Why exact inference is not tried ('' when it is): the junction tree kept for this
    evidence, planned without allocating, would take longer than the budget at
    SECONDS_PER_ENTRY of its cliques × the machine's load. A tree that does not fit the
    memory limit is left to the exact answer's own fallbacks (a tree for the question
    alone, messages only), which refuse before allocating."""
    engine = net.engine
    observed = list(resolve_evidence(engine.network, evidence, numbers=False).states)
    try:
        tree = build_cliques(engine.network, observed, engine.junction_order(),
                             engine.normalised_tables()).tree
    except MemoryLimitError:
        return ""
    seconds = SECONDS_PER_ENTRY * tree.total_entries * machine_load()
    if seconds > time_budget:
        return (f"exact inference would take about {seconds:.0f} s ({tree.total_entries:.1e} "
                f"entries in its cliques, on this machine's load), over the budget of "
                f"{time_budget:g} s")
    return ""


def machine_load() -> float:
    """How many times slower than alone a computation runs now: the runnable processes
    per core over the last minute (``os.getloadavg()``), at least 1 (1 where unknown).

    Examples
    --------
    >>> machine_load() >= 1
    True
    """
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (OSError, AttributeError):
        return 1.0


def pruned_graph(graph: FactorGraph, domains: list[np.ndarray]) -> FactorGraph:
    """The factor graph with the states the zeros ruled out zeroed in every table (the
    same model: those states have weight 0 anyway), so the approximate methods never
    visit them.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[1.0, 0.0], [0.0, 0.0]]),))
    >>> pruned_graph(graph, [np.array([True, False])] * 2).tables[0].tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    tables = []
    for scope, table in zip(graph.scopes, graph.tables):
        masked = np.asarray(table, dtype=np.float64)
        for axis, v in enumerate(scope):
            if not domains[v].all():
                shape = [1] * len(scope)
                shape[axis] = -1
                masked = masked * domains[v].reshape(shape)
        tables.append(masked)
    return FactorGraph(graph.variables, graph.states, graph.scopes, tuple(tables),
                       graph.child)


def _approximate_marginals(graph: FactorGraph, evidence: Mapping[int, int], seconds: float,
                           seed: int) -> tuple[TaskAnswer, str]:
    """Damped loopy BP for a third of the time; when its messages give no answer, Gibbs
    sampling for the time left."""
    start = time.perf_counter()
    try:
        result = LoopyBP(damping=0.5, max_iterations=1000,
                         time_budget=seconds / 3).run(graph, evidence)
        method = "lbp"
    except NoAnswerError:
        left = max(seconds - (time.perf_counter() - start), 1.0)
        result = Gibbs(samples=10 ** 12, time_budget=left, seed=seed).run(graph, evidence)
        method = "gibbs"
    marginals = {v: np.asarray(result.probabilities[v]) for v in graph.variables}
    return TaskAnswer("MAR", marginals=marginals), method


def _approximate_partition(net: Network | MarkovNetwork, graph: FactorGraph,
                           evidence: Mapping[int, int], seconds: float,
                           seed: int) -> tuple[TaskAnswer, str]:
    """log10 Z(e) by the Bethe estimate of damped loopy BP; when its messages give no
    answer, by importance sampling (a Bayesian network) for the time left."""
    if not evidence and not isinstance(net, MarkovNetwork):
        return TaskAnswer("PR", log10_partition=0.0), "exact"
    start = time.perf_counter()
    try:
        log_z = LoopyBP(damping=0.5, max_iterations=1000,
                        time_budget=seconds).run(graph, evidence).log_partition
        method = "lbp"
    except NoAnswerError:
        if not graph.is_bayesian:
            raise
        left = max(seconds - (time.perf_counter() - start), 1.0)
        log_z = ImportanceSampling(samples=10 ** 12, time_budget=left,
                                   seed=seed).run(graph, evidence).log_partition
        method = "is"
    if log_z is None or log_z == -np.inf:
        raise NoAnswerError(f"method {method!r} estimated Z(e) = 0, which proves nothing")
    return TaskAnswer("PR", log10_partition=log_z / np.log(10)), method


def _approximate_mpe(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                     seconds: float) -> tuple[dict[str, int], str]:
    """Max-product loopy BP improved by a local search, every variable's state index."""
    assignment, _ = net.mpe(evidence, method=LoopyBP(damping=0.5, time_budget=seconds))
    full = {**evidence, **assignment}
    return {v: net.states(v).index(full[v]) for v in net.variables}, "lbp"


__all__ = ["AutoAnswer", "DEFAULT_BUDGET", "answer_auto", "pruned_graph"]

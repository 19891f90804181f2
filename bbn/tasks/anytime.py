"""A competition task answered within a time budget: exact where it fits, else the best
approximate answer found in time (``bbn uai``'s default, ``--method auto``).

    1. the tables' zeros propagated (generalised arc consistency): a domain that empties
       proves the evidence impossible (exit 1); states ruled out are zeroed for what follows
    2. exact inference, when its memory fits the limit and its work, estimated from the
       junction tree's cliques at SECONDS_PER_ENTRY × the machine's load, fits a quarter
       of the budget; a model whose greedy elimination order needs over GREEDY_OVER_LIMIT
       × the memory limit is not searched for a better order (seconds lost)
    2b. when no junction tree fits the memory limit, MAR and PR exactly by cutset
       conditioning (:mod:`bbn.tasks.conditioned_task`), when its estimate before
       starting (assignments × seconds per assignment) fits half the time left
    3. otherwise MAR and PR by importance sampling from weighted mini-buckets on the
       model reduced by its zeros (:mod:`bbn.engines.approximate.mini_buckets`; in 11–13
       s at a load of 7 per core: pedigree linkage, Promedus and Grids_15 within 0.003
       mean marginal error, where loopy BP's fixed points were 0.009–0.17 off; log10 Z
       within 0.03 where the Bethe estimate was 0.2–33 off); when every sample has weight
       0, loopy belief propagation (damped) on the pruned model; when its messages give
       no answer, Gibbs sampling on it for the time left (MAR); for PR the Bethe estimate,
       or importance sampling's from a Bayesian network; MPE by max-product loopy BP
    4. when exact inference fits the memory but was estimated too slow, it is tried
       for the time left in a forked child process, killed at the deadline: its answer
       replaces the approximate one if it comes in time

Every answer says which method gave it (:class:`AutoAnswer`). No step claims impossible
evidence it has not proved: only the propagation of zeros and exact inference may.

>>> import bbn
>>> found = answer_auto(bbn.load("models/chair.bn"), "MAR", {"A": "T"})
>>> found.method, found.answer.marginals["C"].round(6).tolist()
('exact', [0.886749, 0.113251])
"""

from __future__ import annotations

import multiprocessing
import os
import time
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import BBNError, MemoryLimitError, NoAnswerError
from bbn.core.memory import ENTRY_BYTES, format_bytes, get_memory_limit
from bbn.core.progress import Progress
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.mini_buckets import MiniBucketSampler
from bbn.engines.approximate.supports import supported_states
from bbn.engines.exact.clique_building import build_cliques
from bbn.engines.exact.elimination import Cost
from bbn.engines.exact.ordering import greedy_order, order_cost
from bbn.model.markov import MarkovNetwork
from bbn.questions import dispatch
from bbn.questions.resolution import resolve_evidence
from bbn.tasks.competition import TaskAnswer, answer_task, check_task
from bbn.tasks.conditioned_task import cutset_in_time
from bbn.views.factor_graph import FactorGraph

if TYPE_CHECKING:
    from bbn.model.network import Network

#: The time budget of ``bbn uai`` by default (seconds), as in the UAI competitions' MAR
#: and PR tracks' shortest setting.
DEFAULT_BUDGET = 60.0

#: A junction tree needing more than this many times the memory limit is out of reach of
#: the exact answer's fallbacks too (a tree for the question alone drops the evidence
#: side only; one holding its messages only needs its largest clique): linkage_12's
#: 869 GiB is refused without trying them, which took 30 s.
TREE_OVER_LIMIT = 4

#: A model whose tables in the greedy elimination order need more than this many times
#: the memory limit is not searched for a better order (the search takes up to 20 s while
#: no order fits, and improves the greedy one at most 17-fold on the UAI 2014 instances:
#: linkage_12 6,401 → 374 GiB): exact inference is out of reach at once. Of the shared
#: instances only linkage_12 (6,401 GiB) and linkage_17 (4,165 GiB) pass it; the next
#: are Grids_15–18 at 21 GiB, exact after the search.
GREEDY_OVER_LIMIT = 100

#: The share of the time left that loopy BP may take (it usually converges well before:
#: linkage_17 in 9 s at a load of 4 per core); Gibbs sampling, when loopy BP gives no
#: answer, takes the rest.
LBP_SHARE = 2 / 3

#: Exact inference runs in this process (no deadline) only when estimated to take at
#: most this share of the budget; otherwise the approximate answer comes first and exact
#: inference is tried for the time left in a child process killed at the deadline.
IN_PROCESS_SHARE = 0.25

#: How much slower a computation runs per unit of :func:`machine_load`, as its power:
#: linkage_16 took 18 s at a load of 1 per core and 48 s at 4.5 (4.5^0.65 = 2.7).
LOAD_EXPONENT = 2 / 3

#: The share of the time left that the approximate answer may take when exact inference
#: is tried after it (it fits the memory, only estimated too slow): PR of Grids_16 and
#: Grids_17 at a load of 7 per core, exact in 32 s, missed the deadline when loopy BP,
#: unconverged, took two thirds of the time first.
BEFORE_EXACT_SHARE = 0.25

#: How the reason starts when exact inference is only estimated too slow.
SLOW = "exact inference would take"

#: Seconds per entry of a junction tree's cliques that the exact answer of every marginal
#: takes on an idle core (measured at a load of 1–2 on 2 cores: linkage_14, 8e8 entries,
#: 23 s; linkage_16, 4.2e8, 18 s), scaled by :func:`machine_load` ** LOAD_EXPONENT for
#: the estimate before starting.
SECONDS_PER_ENTRY = 4e-8


class AutoAnswer(NamedTuple):
    """A task's answer and how it was found: ``method`` is ``"exact"``, ``"cutset"``
    (exact, by cutset conditioning: no tree fitted the memory limit), ``"mbis"``
    (importance sampling from weighted mini-buckets), ``"lbp"`` or ``"gibbs"`` (``"is"``
    for a PR by importance sampling from the network); ``why`` says why exact
    inference did not answer (empty when it did); ``seconds`` the time taken."""

    answer: TaskAnswer
    method: str
    why: str
    seconds: float


def answer_auto(net: Network | MarkovNetwork, task: str,
                evidence: Mapping[str, str] | None = None,
                time_budget: float = DEFAULT_BUDGET, seed: int = 0,
                on_answer: Callable[[AutoAnswer], None] | None = None,
                progress: Progress = None) -> AutoAnswer:
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
    on_answer : callable, optional
        Sees the approximate answer before exact inference is tried for the time left
        (the best answer so far: ``bbn uai -o`` writes it).
    progress : callable, bool or None
        Told how cutset conditioning advances, when it answers (:mod:`bbn.core.progress`).

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
    why = _greedy_out_of_reach(graph, coded) or _exact_out_of_reach(net, evidence, time_budget)
    if not why:
        try:
            return AutoAnswer(answer_task(net, task, evidence), "exact", "",
                              time.perf_counter() - start)
        except MemoryLimitError as refused:
            why = str(refused).split(";")[0]
    if task != "MPE" and not why.startswith(SLOW):  # beyond memory: time for space?
        conditioned, said = cutset_in_time(net, task, evidence, time_budget - (
            time.perf_counter() - start), progress, machine_load())
        if conditioned is not None:
            return AutoAnswer(conditioned, "cutset", f"{why}; {said}",
                              time.perf_counter() - start)
        why = f"{why}; {said}"
    left = max(time_budget - (time.perf_counter() - start), 1.0)
    if why.startswith(SLOW):  # exact inference comes after: keep most of the time for it
        left = max(BEFORE_EXACT_SHARE * left, 1.0)
    pruned = pruned_graph(graph, domains)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the answer says how it ran
        sampled = None
        if task != "MPE" and (task == "MAR" or coded or isinstance(net, MarkovNetwork)):
            sampled = _mini_bucket_answer(graph, coded, task, left, seed)
            left = max(time_budget - (time.perf_counter() - start), 1.0)
        if sampled is not None:
            answer, method = sampled
        elif task == "MAR":
            answer, method = _approximate_marginals(pruned, coded, left, seed)
        elif task == "PR":
            answer, method = _approximate_partition(net, pruned, coded, left, seed)
        else:
            states, method = _approximate_mpe(net, evidence, left)
            answer = TaskAnswer("MPE", assignment=states)
    found = AutoAnswer(answer, method, why, time.perf_counter() - start)
    left = time_budget - (time.perf_counter() - start)
    if why.startswith(SLOW) and left > 1.0:
        # exact inference was only estimated too slow: try it for the time left, the
        # approximate answer kept if it does not finish
        if on_answer is not None:
            on_answer(found)
        exact = exact_in_time(net, task, evidence, left)
        if exact is not None:
            found = AutoAnswer(exact, "exact", "", time.perf_counter() - start)
    return found


def exact_in_time(net: Network | MarkovNetwork, task: str, evidence: Mapping[str, str],
                  seconds: float) -> TaskAnswer | None:
    """The exact answer if a forked child process finds it within ``seconds`` (None
    otherwise, or where processes cannot be forked, or when it does not fit the memory
    limit); the child is killed at the deadline.

    Raises
    ------
    ImpossibleEvidenceError
        When exact inference finds P(e) = 0.

    Examples
    --------
    >>> import bbn
    >>> round(exact_in_time(bbn.load("models/chair.bn"), "PR", {"A": "T"}, 30).log10_partition, 6)
    -0.686015
    """
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork (Windows): nothing to kill at the deadline
        return None
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_exact_child, args=(net, task, evidence, sender),
                            daemon=True)
    child.start()
    sender.close()
    try:
        outcome = receiver.recv() if receiver.poll(seconds) else None
    except EOFError:  # the child died (killed by the system)
        outcome = None
    finally:
        child.kill()
        child.join()
        receiver.close()
    if outcome is None or isinstance(outcome, MemoryLimitError):
        return None
    if isinstance(outcome, BBNError):
        raise outcome
    return outcome


def _exact_child(net: Network | MarkovNetwork, task: str, evidence: Mapping[str, str],
                 sender) -> None:
    """In the forked child: the exact answer, or the BBNError it raised, sent back."""
    try:
        sender.send(answer_task(net, task, evidence))
    except BBNError as error:
        sender.send(error)
    finally:
        sender.close()


def greedy_tree_entries(graph: FactorGraph, observed: Collection[int]) -> int:
    """The entries of the tables that eliminating the unobserved variables in greedy
    weighted min-fill order makes (:mod:`bbn.engines.exact.ordering`; in milliseconds,
    without the order search): a junction tree's size before the search improves it.

    Examples
    --------
    >>> import bbn
    >>> graph = dispatch.factor_graph(bbn.load("models/chair.bn"))
    >>> graph.scopes      # C, S, W, B, A: the triangle C–S–B, W–C and A–B hanging off
    ((0,), (1,), (0, 2), (0, 1, 3), (3, 4))
    >>> greedy_tree_entries(graph, []), greedy_tree_entries(graph, [4])   # 4+4+8+4+2; A seen
    (22, 18)
    """
    card = {v: int(c) for v, c in enumerate(graph.cardinality)}
    free = [v for v in range(len(card)) if v not in set(observed) and card[v] > 1]
    adjacency: dict[int, set[int]] = {v: set() for v in free}
    for scope in graph.scopes:
        inside = [v for v in scope if v in adjacency]
        for v in inside:
            adjacency[v].update(inside)
    for v, links in adjacency.items():
        links.discard(v)
    order = greedy_order(adjacency, card, free)
    return order_cost(adjacency, card, order).total


def _greedy_out_of_reach(graph: FactorGraph, evidence: Mapping[int, int]) -> str:
    """Why exact inference is not tried at all ('' when it may be): the greedy order's
    tables need more than GREEDY_OVER_LIMIT × the memory limit, far beyond what the order
    search (up to 20 s on such models) could bring under it."""
    needed = greedy_tree_entries(graph, list(evidence)) * ENTRY_BYTES
    if needed <= GREEDY_OVER_LIMIT * get_memory_limit():
        return ""
    return (f"exact inference needs about {format_bytes(needed)} in the greedy elimination "
            f"order, over {GREEDY_OVER_LIMIT} times the memory limit of "
            f"{format_bytes(get_memory_limit())}")


def _exact_out_of_reach(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                        time_budget: float) -> str:
    """Why exact inference is not tried first, in this process ('' when it is): the
    junction tree kept for this evidence, planned without allocating, would take longer
    than IN_PROCESS_SHARE of the budget at SECONDS_PER_ENTRY of its cliques × the
    machine's load ** LOAD_EXPONENT (then it is tried after the approximate answer, for
    the time left, in a child process), or its peak exceeds
    TREE_OVER_LIMIT × the memory limit. A tree nearer the limit is left to the exact
    answer's own fallbacks (a tree for the question alone, messages only), which refuse
    before allocating."""
    engine = net.engine
    observed = list(resolve_evidence(engine.network, evidence, numbers=False).states)
    costs: list[Cost] = []
    try:
        tree = build_cliques(engine.network, observed, engine.junction_order(),
                             engine.normalised_tables(),
                             room=lambda cost: costs.append(cost) or 0).tree
    except MemoryLimitError as refused:
        needed = costs[0].entries() * ENTRY_BYTES if costs else 0
        if needed > TREE_OVER_LIMIT * get_memory_limit():
            return str(refused).split(";")[0]
        return ""
    seconds = SECONDS_PER_ENTRY * tree.total_entries * machine_load() ** LOAD_EXPONENT
    if seconds > IN_PROCESS_SHARE * time_budget:
        return (f"{SLOW} about {seconds:.0f} s ({tree.total_entries:.1e} "
                f"entries in its cliques, on this machine's load), over a quarter of the "
                f"budget of {time_budget:g} s")
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


def _mini_bucket_answer(graph: FactorGraph, evidence: Mapping[int, int], task: str,
                        seconds: float, seed: int) -> tuple[TaskAnswer, str] | None:
    """MAR or PR by importance sampling from weighted mini-buckets for ``seconds`` (None
    when every sample had weight 0: the other methods then have the time left); the
    messages' share of the time kept on a loaded machine (their cap lowered by
    :func:`machine_load` ** LOAD_EXPONENT)."""
    try:
        rate = MiniBucketSampler.entries_per_second / machine_load() ** LOAD_EXPONENT
        found = MiniBucketSampler(seconds=seconds, seed=seed,
                                  entries_per_second=rate).run(graph, evidence)
    except NoAnswerError:
        return None
    if task == "PR":
        return TaskAnswer("PR", log10_partition=found.log_partition / np.log(10)), "mbis"
    marginals = dict(zip(graph.variables, found.marginals))
    return TaskAnswer("MAR", marginals=marginals), "mbis"


def _approximate_marginals(graph: FactorGraph, evidence: Mapping[int, int], seconds: float,
                           seed: int) -> tuple[TaskAnswer, str]:
    """Damped loopy BP for LBP_SHARE of the time (stopped then, converged or not: an
    answer); when its messages give no answer, Gibbs sampling for the time left."""
    start = time.perf_counter()
    try:
        result = LoopyBP(damping=0.5, max_iterations=1000,
                         time_budget=LBP_SHARE * seconds).run(graph, evidence)
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


__all__ = ["AutoAnswer", "DEFAULT_BUDGET", "answer_auto", "exact_in_time", "pruned_graph"]

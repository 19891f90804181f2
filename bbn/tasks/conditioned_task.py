"""A competition task answered exactly by cutset conditioning within a time budget: what
``bbn uai --method auto`` tries when no junction tree fits the memory limit, before an
approximate answer.

    estimate = assignments × seconds per assignment        (said before starting)
    run it   when the estimate is at most RUN_SHARE of the time left

First a floor, in milliseconds: the greedy order's tables without conditioning, whose
work conditioning does not shrink (ORDER_SLACK for a better order found after it); far
over the budget, nothing more is spent (linkage_12: over 95 min, said in 0.3 s; its
first cutset that fits 10.7 GiB has 65,536 assignments, about 14 days). Then the
assignments are counted exactly (the cutset's states the tables' zeros leave,
:class:`bbn.engines.exact.cutset_conditioning.CutsetConditioning`). The seconds per
assignment are first modelled (SECONDS_PER_ENTRY × the conditioned tree's entries × the
machine's load ** LOAD_EXPONENT): far over the budget (MODEL_SLACK ×), nothing more is
spent; otherwise the tree is compiled and a few assignments timed, and the estimate
extrapolated from them decides (0.72–1.25× the actual time on ten UAI 2014 instances
conditioned under lower limits: tests/benchmarks/README.md, workload 22).

>>> import bbn
>>> found, why = cutset_in_time(bbn.load("models/chair.bn"), "MAR", {"A": "T"}, 30)
>>> found.marginals["C"].round(6).tolist(), why
([0.886749, 0.113251], 'cutset conditioning on 0 variables, 1 assignments, estimated 0 s')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from bbn.core.errors import MemoryLimitError
from bbn.core.progress import Progress
from bbn.engines.exact.cutset_conditioning import CutsetConditioning, hidden_graph, tree_size
from bbn.engines.exact.ordering import greedy_order
from bbn.model.markov import MarkovNetwork
from bbn.questions.resolution import resolve_evidence
from bbn.tasks.competition import TaskAnswer

if TYPE_CHECKING:
    from bbn.model.network import Network

#: Seconds per entry of the conditioned tree, per assignment, modelled before timing
#: (batched propagation and P(e, c)'s elimination; measured 1–3e-8 at a load of 2).
SECONDS_PER_ENTRY = 3e-8

#: How the model of the time grows with the machine's load (as in ``bbn.tasks.anytime``).
LOAD_EXPONENT = 2 / 3

#: A modelled time over this many times the time left is not timed (no tree compiled).
MODEL_SLACK = 10.0

#: How much less work an order found after conditioning may take than the greedy order
#: before it (in the same order, conditioning never shrinks the work: a table with the
#: conditioned variable is as large summed over its states, any other is repeated):
#: linkage_12's 8.6e11 entries, 3.3e11 at best after conditioning.
ORDER_SLACK = 10.0

#: The sum runs when its timed estimate is at most this share of the time left.
RUN_SHARE = 0.5


def cutset_in_time(net: Network | MarkovNetwork, task: str, evidence: Mapping[str, str],
                   seconds: float, progress: Progress = None,
                   load: float = 1.0) -> tuple[TaskAnswer | None, str]:
    """MAR or PR exactly by cutset conditioning when its estimate fits ``seconds``
    (the answer, and what ran), else ``(None, why not)`` with the estimate.

    Parameters
    ----------
    net : Network or MarkovNetwork
    task : {"MAR", "PR"}
    evidence : dict
        ``{variable: state}``.
    seconds : float
        The time left.
    progress : callable, bool or None
        Told after each batch of assignments (:mod:`bbn.core.progress`).
    load : float
        How many times slower than alone the machine runs now (the model's factor:
        ``bbn.tasks.anytime.machine_load``).

    Returns
    -------
    tuple

    Raises
    ------
    ImpossibleEvidenceError
        When every assignment gives P(e, c) = 0 (a proof: the sum is exact).
    """
    engine = net.engine
    network = engine.network
    states = resolve_evidence(network, evidence, numbers=False).states
    card = dict(network.cardinality)
    graph = hidden_graph(dict(network.parents), set(states))
    work = tree_size(graph, card, greedy_order(graph, card, list(graph))).total
    floor = SECONDS_PER_ENTRY * work / ORDER_SLACK * load ** LOAD_EXPONENT
    if floor > MODEL_SLACK * seconds:
        return None, (f"cutset conditioning would take over {_duration(floor)} (the "
                      f"greedy order's tables have {work:.1e} entries, which conditioning "
                      "does not shrink in the same order)")
    try:
        conditioning = CutsetConditioning(engine, states)
    except MemoryLimitError as refused:
        return None, f"cutset conditioning refused: {str(refused).split(';')[0]}"
    rows, size = len(conditioning.rows), conditioning.size.total
    said = f"cutset conditioning on {len(conditioning.cutset)} variables, {rows:,} assignments"
    modelled = SECONDS_PER_ENTRY * size * rows * load ** LOAD_EXPONENT
    if modelled > MODEL_SLACK * seconds:
        return None, f"{said} would take about {_duration(modelled)} (modelled)"
    try:
        estimated = conditioning.estimate()
    except MemoryLimitError as refused:
        return None, f"{said} refused: {str(refused).split(';')[0]}"
    if estimated > RUN_SHARE * seconds:
        return None, f"{said} would take about {_duration(estimated)} (timed on a few)"
    found = conditioning.run(progress)
    said += f", estimated {_duration(estimated)}"
    if task == "PR":
        return TaskAnswer("PR", log10_partition=found.log_weight / math.log(10)), said
    return TaskAnswer("MAR", marginals={v: found.marginals[v] for v in net.variables}), said


def _duration(seconds: float) -> str:
    """Seconds, minutes, hours or days, whichever reads best.

    Examples
    --------
    >>> _duration(12.3), _duration(5400), _duration(3e6)
    ('12 s', '90 min', '35 days')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


__all__ = ["cutset_in_time"]

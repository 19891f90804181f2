"""Workload 22: exact answers beyond the memory limit by cutset conditioning (issue 33),
on the UAI 2014 instances (``../shared/uai2014``).

For each instance and memory limit: the greedy cutset that brings the junction tree
under the limit (its size and the seconds to choose it), the assignments the tables'
zeros leave, the time modelled before anything is compiled (``SECONDS_PER_ENTRY`` × the
conditioned tree's entries × assignments, as ``bbn uai --method auto`` models it), and —
where that model is under ``RUN_UP_TO`` — the estimate timed on a probe of a few
assignments, the whole sum's actual time, and its error against the reference (MAR: mean
and largest absolute marginal error over every state; PR: |Δlog10 Z|). One run each, in
this process, the memory limit set with ``bbn.set_memory_limit``; the load is the
section's comment.
"""

from __future__ import annotations

import gzip
import math
import os
import time
from pathlib import Path

import numpy as np

from .harness import NA, Row, Section, Settings, Timing

TITLE = "cutset conditioning: exact beyond the memory limit"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "uai2014"
GiB = 1 << 30
MiB = 1 << 20

#: (task, instance, memory limit in bytes; None: the default, half the memory available).
#: linkage_12 and linkage_17 are the instances whose junction tree exceeds the default
#: limit; the others answer exactly within it and are conditioned here under a lower
#: limit, to measure the estimate against the sum's actual time.
CASES = [("MAR", "linkage_12", None), ("PR", "linkage_12", None), ("MAR", "linkage_17", None),
         ("MAR", "linkage_14", GiB), ("PR", "linkage_14", GiB), ("MAR", "linkage_16", GiB),
         ("MAR", "Grids_15", 256 * MiB), ("MAR", "Promedus_14", 256 * MiB),
         ("MAR", "DBN_13", 256 * MiB), ("MAR", "Pedigree_11", 64 * MiB),
         ("MAR", "Grids_11", 4 * MiB), ("PR", "Grids_11", 4 * MiB),
         ("MAR", "Pedigree_12", 4 * MiB), ("MAR", "Alchemy_11", 4 * MiB)]

#: Instances whose exact answer fits the default limit: ``bbn uai --method auto``'s
#: estimate of its time (SECONDS_PER_ENTRY of ``bbn.tasks.anytime`` × the junction
#: tree's entries × the load ** LOAD_EXPONENT) against the time it took, in-process.
EXACT_CASES = [("MAR", "Grids_15"), ("MAR", "Promedus_14"), ("MAR", "DBN_13"),
               ("MAR", "linkage_16"), ("MAR", "Pedigree_11"), ("PR", "Promedus_19"),
               ("MAR", "CSP_13")]

#: The modelled time up to which the sum is run (seconds).
RUN_UP_TO = 300.0


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("22", TITLE, ["cutset"], [])
    if not SHARED.is_dir():
        section.comment = "../shared/uai2014 is absent: nothing ran"
        return section
    for task, name, limit in CASES:
        if networks and name not in networks:
            continue
        section.add(_row(task, name, limit))
    for task, name in EXACT_CASES:
        if networks and name not in networks:
            continue
        section.add(_exact_row(task, name))
    section.comment = (f"one run each, in-process; sums run where modelled under "
                       f"{RUN_UP_TO:g} s; load average at the end {os.getloadavg()[0]:.1f}")
    return section


def _exact_row(task: str, name: str) -> Row:
    """The exact answer's estimated time (as auto says it, read from its reason) against
    the time it took."""
    import re

    import bbn
    import bbn.tasks.anytime as anytime
    from bbn.tasks.competition import answer_task, read_evidence

    folder = SHARED / task
    row = Row("cutset", f"{task} {name} exact-time estimate")
    net = bbn.load(str(folder / f"{name}.uai.gz"))
    with gzip.open(folder / f"{name}.uai.evid.gz", "rt") as file:
        evidence = read_evidence(file.read(), net)
    why = anytime._exact_out_of_reach(net, evidence, 1e-9)  # the estimate, whatever it is
    said = re.search(r"about (\d+) s", why)
    if not said:
        row.cells["cutset"] = NA(why[:160] or "no estimate")
        return row
    estimated = float(said.group(1))
    net = bbn.load(str(folder / f"{name}.uai.gz"))  # a fresh engine: nothing compiled
    start = time.perf_counter()
    answer_task(net, task, evidence)
    took = time.perf_counter() - start
    row.cells["cutset"] = Timing(took, 1, took, took)
    row.extra.update(estimated=estimated, seconds=took, load=os.getloadavg()[0])
    row.notes.append(f"exact estimated {estimated:.0f} s (at load {os.getloadavg()[0]:.1f}), "
                     f"took {took:.1f} s: {estimated / took:.2f}×")
    return row


def _row(task: str, name: str, limit: int | None) -> Row:
    import bbn
    from bbn.core.memory import format_bytes, get_memory_limit, set_memory_limit
    from bbn.engines.exact.cutset_conditioning import CutsetConditioning
    from bbn.questions.resolution import resolve_evidence
    from bbn.tasks.competition import read_evidence, read_result
    from bbn.tasks.conditioned_task import SECONDS_PER_ENTRY

    folder = SHARED / task
    original = get_memory_limit()
    row = Row("cutset", f"{task} {name} at {format_bytes(limit) if limit else 'default'}")
    try:
        if limit is not None:
            set_memory_limit(limit)
        net = bbn.load(str(folder / f"{name}.uai.gz"))
        with gzip.open(folder / f"{name}.uai.evid.gz", "rt") as file:
            evidence = read_evidence(file.read(), net)
        states = resolve_evidence(net.engine.network, evidence, numbers=False).states
        start = time.perf_counter()
        try:
            chosen = CutsetConditioning(net.engine, states)
        except bbn.MemoryLimitError as refused:
            row.cells["cutset"] = NA(str(refused)[:160])
            return row
        choose = time.perf_counter() - start
        rows, entries = len(chosen.rows), chosen.size.total
        modelled = SECONDS_PER_ENTRY * entries * rows
        row.extra.update(limit=format_bytes(get_memory_limit()), cutset=len(chosen.cutset),
                         assignments=rows, domain=math.prod(
                             net.engine.network.cardinality[v] for v in chosen.cutset),
                         tree_entries=entries, choose_seconds=choose, modelled=modelled)
        row.notes.append(f"limit {format_bytes(get_memory_limit())}: "
                         f"|C| {len(chosen.cutset)}, {rows:,} assignments, tree "
                         f"{entries:.2e} entries, chosen in {choose:.1f} s; modelled "
                         f"{modelled:.3g} s")
        if modelled > RUN_UP_TO:
            row.cells["cutset"] = NA(f"modelled {modelled:.3g} s: not run")
            return row
        start = time.perf_counter()
        estimated = chosen.estimate()
        found = chosen.run()
        took = time.perf_counter() - start
        with gzip.open(folder / f"{name}.uai.{task}.gz", "rt") as file:
            reference = read_result(file.read())
        row.cells["cutset"] = Timing(took, 1, took, took)
        row.extra.update(estimated=estimated, seconds=took)
        if task == "PR":
            log10 = (found.log_weight + getattr(net, "log_scale", 0.0)) / math.log(10)
            gap = abs(log10 - reference.log10_partition)
            row.notes.append(f"estimated {estimated:.3g} s, took {took:.3g} s; "
                             f"|Δlog10 Z| {gap:.1e}")
            row.extra["log10_error"] = gap
        else:
            gaps = np.concatenate([np.abs(found.marginals[v] - reference.marginals[f"X{i}"])
                                   for i, v in enumerate(net.variables)])
            row.notes.append(f"estimated {estimated:.3g} s, took {took:.3g} s; error mean "
                             f"{gaps.mean():.1e} max {gaps.max():.1e}")
            row.extra.update(mean_error=float(gaps.mean()), max_error=float(gaps.max()))
        return row
    finally:
        set_memory_limit(original)

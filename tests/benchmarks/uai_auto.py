"""Workload 20: ``bbn uai`` as a competition entrant runs it — no ``--method`` (auto:
exact where it fits the memory limit and the estimated time, else approximate within the
60 s budget) — on every instance of ``../shared/uai2014/MAR`` and ``PR``.

Each instance is one run of the command in a child process (``python -m
bbn.apps.cli.main uai MODEL --evid EVID --task T -o RESULT``), timed from start to exit
(Python start-up, reading the model and answering), stopped after ``CAP`` seconds, with
the CPU time it used (less than the wall time when other processes had the cores). The
notes give the method that answered (the command's standard error says so when it is not
exact), and the error against the reference: for MAR the mean and largest absolute
marginal error over every state, for PR |Δ log10 Z|. The section's comment gives the
fraction of MAR instances within ``GOAL`` mean marginal error, and of all instances
answered within the budget.
"""

from __future__ import annotations

import gzip
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .harness import NA, Row, Section, Settings, Timing

TITLE = "bbn uai without --method: every UAI 2014 instance within 60 s"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "uai2014"
ROOT = Path(__file__).resolve().parents[2]
#: The command's time budget (its default) and the cap after which a run is stopped.
BUDGET = 60.0
CAP = 180.0
#: The mean marginal error an answer should be within.
GOAL = 0.01


def instances(task: str) -> list[str]:
    return sorted(p.name[:-len(".uai.gz")] for p in (SHARED / task).glob("*.uai.gz"))


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("20", TITLE, ["bbn uai"], [])
    if not SHARED.is_dir():
        section.comment = "../shared/uai2014 is absent: nothing ran"
        return section
    within, answered, total, on_time = 0, 0, 0, 0
    for task in ("MAR", "PR"):
        for name in instances(task):
            if networks and name not in networks:
                continue
            row = section.add(_row(task, name))
            total += 1
            seconds = row.extra.get("seconds")
            on_time += seconds is not None and seconds <= BUDGET
            if task == "MAR" and "mean_error" in row.extra:
                answered += 1
                within += row.extra["mean_error"] <= GOAL
    mar = sum(1 for row in section.rows if row.case.startswith("MAR"))
    section.comment = (f"one run each of `bbn uai` (no --method, budget {BUDGET:g} s) in a "
                       f"child process, wall time from start to exit; MAR within {GOAL} mean "
                       f"marginal error: {within}/{mar}; answered within {BUDGET:g} s: "
                       f"{on_time}/{total}; load average at the end "
                       f"{os.getloadavg()[0]:.1f}")
    return section


def _unlimited() -> None:
    """The child as a user runs it: without the address-space cap run.py sets on itself
    (the default memory limit would read it)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _row(task: str, name: str) -> Row:
    from bbn.tasks.competition import read_result

    folder = SHARED / task
    row = Row("uai auto", f"{task} {name}")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / f"{name}.{task}"
        command = [sys.executable, "-m", "bbn.apps.cli.main", "uai", str(folder / f"{name}.uai.gz"),
                   "--evid", str(folder / f"{name}.uai.evid.gz"), "--task", task, "-o", str(out)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        start, used = time.perf_counter(), _children_cpu()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=CAP, env=env,
                                  preexec_fn=_unlimited)
        except subprocess.TimeoutExpired:
            row.cells["bbn uai"] = NA(f"stopped after {CAP:g} s")
            return row
        took, cpu = time.perf_counter() - start, _children_cpu() - used
        if done.returncode != 0:
            row.cells["bbn uai"] = NA(done.stderr.strip().splitlines()[-1][:200])
            return row
        answer = read_result(out.read_text())
    row.cells["bbn uai"] = Timing(took, 1, took, took)
    said = re.search(r"answered by (\w+)", done.stderr)
    method = said.group(1) if said else "exact"
    with gzip.open(folder / f"{name}.uai.{task}.gz", "rt") as file:
        reference = read_result(file.read())
    row.extra.update(seconds=took, method=method, cpu_seconds=cpu)
    if task == "PR":
        gap = abs(answer.log10_partition - reference.log10_partition)
        row.notes.append(f"{method}: |Δlog10 Z| {gap:.1e}")
        row.extra["log10_error"] = gap
    else:
        gaps = np.concatenate([np.abs(p - reference.marginals[v])
                               for v, p in answer.marginals.items()])
        row.notes.append(f"{method}: mean {gaps.mean():.1e} max {gaps.max():.1e}")
        row.extra.update(mean_error=float(gaps.mean()), max_error=float(gaps.max()))
    row.notes.append(f"CPU {cpu:.1f} s")  # less than the wall time: others had the cores
    return row


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


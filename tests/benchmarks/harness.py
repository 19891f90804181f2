"""Timing, results and the printed table.

A *cell* is one library on one case. It is run repeatedly until its time budget is used
(at least ``min_reps`` times, at most ``max_reps``); the median is reported. A cell that
cannot run — a missing bbn feature, a peer error, a deadline passed — becomes
``NA(reason)`` and the suite goes on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Settings:
    budget: float = 1.0  # seconds of repetitions per cell
    min_reps: int = 3
    max_reps: int = 1000
    deadline: float = 180.0  # a single repetition longer than this is abandoned
    quick: bool = False


@dataclass
class Timing:
    median: float  # seconds
    reps: int
    best: float
    worst: float
    note: str = ""  # e.g. "extrapolated from 200 rows"
    # median CPU seconds of this process (all its threads; not child processes such as
    # joblib's workers) over the same runs, where measure_side_by_side timed the cell: on
    # a shared machine wall times carry the other processes' load, CPU times less so
    cpu_median: float | None = None


@dataclass
class NA:
    reason: str


@dataclass
class Row:
    workload: str
    case: str
    cells: dict[str, Timing | NA] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


class Deadline(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: float):
    """Raise Deadline in Python code running past ``seconds`` (a C call ends first)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise Deadline(f"over {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = text if len(text) < 160 else text[:157] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def measure(settings: Settings, run: Callable, setup: Callable | None = None,
            budget: float | None = None, per: int = 1) -> Timing | NA:
    """Median seconds of ``run(setup())`` (setup untimed), divided by ``per``.

    ``per`` turns the time of one repetition over ``per`` items into a time per item.
    Repeats until ``budget`` (default: the settings') is spent, at least ``min_reps``
    times; a slow cell stops at 5× the budget.
    """
    if budget is not None:
        settings = dataclasses.replace(settings, budget=budget)
    return measure_side_by_side(settings, {"cell": run}, {"cell": setup} if setup else None,
                                per)["cell"]


def measure_side_by_side(settings: Settings, runs: dict[str, Callable],
                         setups: dict[str, Callable] | None = None,
                         per: int = 1) -> dict[str, Timing | NA]:
    """:func:`measure` for several cells at once, taking turns.

    Round after round each cell runs once, each round in a new order (shuffled, seeded),
    so a passing disturbance — another process, the allocator returning memory — falls on
    all of them alike and their ratios stay fair; no cell runs twice in a row, and none
    always after the same one (warm: with the order reversed every other round, the
    first and the last cells ran twice in a row, up to 15 % faster than in the middle;
    with each round starting one cell later, a cell always followed the same one, and
    one asking the questions its predecessor had just asked came out 7–10 % faster).
    Each cell stops by :func:`measure`'s rule (its ``min_reps`` and its own ``budget``
    spent, or 5× that budget); ``setups[cell]``, if given, makes the argument of each run
    untimed, as in :func:`measure`.
    """
    setups = setups or {}
    times: dict[str, list[float]] = {cell: [] for cell in runs}
    cpu_times: dict[str, list[float]] = {cell: [] for cell in runs}
    spent = dict.fromkeys(runs, 0.0)
    result: dict[str, Timing | NA] = {}
    shuffled, last = random.Random(0), None
    while len(result) < len(runs):
        order = [cell for cell in runs if cell not in result]
        shuffled.shuffle(order)
        if order[0] == last:  # not twice in a row across rounds
            order.append(order.pop(0))
        for cell in order:
            last = cell
            t0 = time.perf_counter()
            outcome = _one_run(settings, runs[cell], setups.get(cell))
            spent[cell] += time.perf_counter() - t0
            if isinstance(outcome, NA):
                result[cell] = (outcome if not times[cell] else
                                _timing(times[cell], per, cpu_times[cell]))
                continue
            times[cell].append(outcome[0])
            cpu_times[cell].append(outcome[1])
            n = len(times[cell])
            if (n >= settings.max_reps or spent[cell] >= 5 * settings.budget
                    or (n >= settings.min_reps and spent[cell] >= settings.budget)):
                result[cell] = _timing(times[cell], per, cpu_times[cell])
    return {cell: result[cell] for cell in runs}


def _one_run(settings: Settings, run: Callable,
             setup: Callable | None) -> tuple[float, float] | NA:
    """Wall and CPU seconds of one ``run()`` (``run(setup())``, setup untimed), or NA on
    failure."""
    try:
        argument = setup() if setup is not None else None
        with deadline(settings.deadline):
            t0, cpu0 = time.perf_counter(), time.process_time()
            run(argument) if setup is not None else run()
            return time.perf_counter() - t0, time.process_time() - cpu0
    except Deadline as error:
        return NA(f"stopped: one run took {error}")
    except MemoryError:
        return NA("MemoryError")
    except Exception as error:  # a library's failure is a result, not a crash of the suite
        return NA(describe(error))


def _timing(times: list[float], per: int, cpu_times: list[float] | None = None) -> Timing:
    times = [t / per for t in times]
    cpu = statistics.median(cpu_times) / per if cpu_times else None
    return Timing(statistics.median(times), len(times), min(times), max(times),
                  cpu_median=cpu)


def attempt(make: Callable, what: str = ""):
    """``(value, None)`` or ``(None, NA)`` when ``make()`` raises."""
    try:
        return make(), None
    except Exception as error:
        return None, NA(f"{what}{describe(error)}")


# ---------------------------------------------------------------- machine
def machine() -> dict:
    info = {"platform": platform.platform(), "python": sys.version.split()[0],
            "cores": os.cpu_count()}
    with contextlib.suppress(OSError):
        fields = dict(line.split(":", 1) for line in
                      Path("/proc/cpuinfo").read_text().split("\n\n")[0].splitlines()
                      if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        info["cpu"] = (f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}"
                       f", model {fields.get('model', '?')})")
    info["load_average"] = load_average()
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
    for module, label in [("numpy", "numpy"), ("pandas", "pandas"), ("pyagrum", "pyAgrum"),
                          ("pgmpy", "pgmpy"), ("sklearn", "scikit-learn"),
                          ("networkx", "networkx"), ("bbn", "bbn")]:
        try:
            info[label] = __import__(module).__version__
        except Exception as error:
            info[label] = f"n/a ({describe(error)})"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        info["bbn_commit"] = commit + ("+uncommitted" if dirty else "")
    return info


def load_average() -> str:
    """The 1/5/15-minute load average: other work on the machine skews the timings."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


# ------------------------------------------------------------------ output
def seconds(value: float) -> str:
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def cell_text(cell: Timing | NA | None) -> str:
    if cell is None:
        return ""
    if isinstance(cell, NA):
        return "n/a"
    return seconds(cell.median) + ("*" if cell.note else "")


def ratio(bbn: Timing | NA | None, peer: Timing | NA | None) -> float | None:
    if isinstance(bbn, Timing) and isinstance(peer, Timing) and peer.median > 0:
        return bbn.median / peer.median
    return None


def ratio_text(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if value >= 0.01 else f"{value:.1e}"


@dataclass
class Section:
    """One workload's rows and the columns its table shows."""

    key: str
    title: str
    libraries: list[str]  # cell columns, bbn first
    ratios: list[tuple[str, str]]  # (numerator, denominator) columns, e.g. ("bbn", "pyAgrum")
    rows: list[Row] = field(default_factory=list)
    comment: str = ""

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        print(self.line(row), flush=True)
        for library, cell in row.cells.items():
            if isinstance(cell, NA):
                print(f"      {library}: n/a: {cell.reason}", flush=True)
        return row

    def header(self) -> list[str]:
        return ["case"] + self.libraries + [f"{a}/{b}" for a, b in self.ratios] + ["notes"]

    def columns(self, row: Row) -> list[str]:
        return ([row.case] + [cell_text(row.cells.get(lib)) for lib in self.libraries]
                + [ratio_text(ratio(row.cells.get(a), row.cells.get(b))) for a, b in self.ratios]
                + ["; ".join(row.notes)])

    def line(self, row: Row) -> str:
        return f"  [{self.key}] " + " | ".join(self.columns(row))

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.header()) + " |",
                 "|" + "---|" * len(self.header())]
        lines += ["| " + " | ".join(self.columns(row)) + " |" for row in self.rows]
        reasons = sorted({f"{lib}: {cell.reason}" for row in self.rows
                          for lib, cell in row.cells.items() if isinstance(cell, NA)})
        if reasons:
            lines.append("")
            lines.append("n/a reasons: " + " · ".join(reasons))
        return "\n".join(lines)

    def table(self) -> str:
        rows = [self.header()] + [self.columns(row) for row in self.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        out = [f"== {self.key}. {self.title}"]
        for n, r in enumerate(rows):
            out.append("  ".join(text.ljust(w) for text, w in zip(r, widths)).rstrip())
            if n == 0:
                out.append("  ".join("-" * w for w in widths))
        if self.comment:
            out.append(self.comment)
        return "\n".join(out)

    def to_json(self) -> dict:
        return {"key": self.key, "title": self.title, "libraries": self.libraries,
                "comment": self.comment,
                "rows": [{"case": r.case, "notes": r.notes, "extra": r.extra,
                          "cells": {lib: {"kind": type(c).__name__.lower(), **asdict(c)}
                                    for lib, c in r.cells.items()},
                          "ratios": {f"{a}/{b}": ratio(r.cells.get(a), r.cells.get(b))
                                     for a, b in self.ratios}}
                         for r in self.rows]}

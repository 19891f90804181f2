"""The long fuzz campaign: every surface of ``tests/test_fuzz.py`` run 100,000 times, in
one worker process at a time: ``python -m tests.benchmarks.fuzz_campaign [--cases 100000]
[--surfaces reader-bn,...] [--folder DIR] [--timeout 60] [--hours 1.5]``.

A surface is one test of ``tests/test_fuzz.py`` (the readers of each format, random text,
the query language, every query form × method against brute force, CSV learning and
classification, the command line, decision-tree JSON, evidence files, short CSV headers,
damaged Parquet). Its cases are run **in-process**, the test's own strategies drawing
from bytes as in hypothesis's ``fuzz_one_input``: case ``i`` is the test driven by 8 KiB of
random bytes seeded by ``(seed, surface, i)``, so each case is cheap to make and is
replayed exactly with ``--replay SURFACE:i``.

- A case raising anything but a ``BBNError`` is a **non-bbn exception**; a failed
  assertion of the test (an answer differing from brute force, an exit code not 0/1/2, a
  file read as something it is not) is a **wrong answer**; both are logged with their
  traceback and the run goes on.
- A **hang** is a case still running after ``--timeout`` seconds: a watchdog
  (``faulthandler.dump_traceback_later``, a C thread that needs no GIL) writes every
  thread's stack to ``SURFACE.hang`` and ends the worker; the campaign counts the hang and
  starts a new worker at the next case. A worker dying any other way (a crash, the 4 GiB
  address-space cap) is logged the same way.
- A worker runs one surface for ``--slice`` seconds (bounding any leak); the next worker
  takes a surface that one slice finishes, else the surface that has had the least time
  so far, so the cheap surfaces reach ``--cases`` first and the time left goes to the
  costly ones. ``DIR/summary.md`` is
  rewritten after every slice, and a campaign stopped (``--hours``, Ctrl-C) resumes where
  it was when started again with the same ``--folder``.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUFFER = 8192
SLOW = 2.0  # seconds: a case slower than this is listed (not counted as a failure)

#: surface → (test name in tests/test_fuzz.py, fixed arguments)
SURFACES = {
    **{f"reader-{fmt}": ("test_readers_fail_only_with_bbn_errors", {"fmt": fmt})
       for fmt in ("bn", "bif", "xmlbif", "hugin", "uai")},
    **{f"random-text-{fmt}": ("test_readers_on_random_text", {"fmt": fmt})
       for fmt in ("bn", "bif", "xmlbif", "hugin", "uai")},
    "query-language": ("test_the_query_language_fails_only_with_bbn_errors", {}),
    "query-forms-x-methods": ("test_every_query_form_by_every_method_is_right_or_refused", {}),
    "csv-learning": ("test_learning_and_classification_fail_only_with_bbn_errors", {}),
    "command-line": ("test_the_command_line_fails_only_with_exit_1_or_2", {}),
    "tree-json": ("test_tree_files_fail_only_with_bbn_errors", {}),
    "evidence-files": ("test_evidence_files_fail_only_with_bbn_errors", {}),
    "csv-short-header": ("test_a_header_shorter_than_its_rows_is_never_read", {}),
    "parquet": ("test_damaged_parquet_fails_only_with_bbn_errors", {}),
}


class _Folders:
    """``tmp_path_factory`` for one case at a time: one folder, emptied at each ask."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def mktemp(self, name: str) -> Path:
        folder = self.root / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder


def _draw_integer(self, min_value=None, max_value=None, *, weights=None, shrink_towards=0):
    """``BytestringProvider.draw_integer`` that can draw from a range not starting at 0.

    Hypothesis 6.155's draws ``value`` in ``0 .. 2**bits - 1`` and keeps drawing until
    ``min_value <= value <= max_value``, so ``integers(2, 3)`` never ends (the buffer
    overruns and the case is thrown away: 90 % of the readers' cases were).
    """
    if min_value is None and max_value is None:
        min_value, max_value = -(2**127), 2**127 - 1
    elif min_value is None:
        min_value = max_value - 2**64
    elif max_value is None:
        max_value = min_value + 2**64
    span = max_value - min_value
    if span == 0:
        return min_value
    value = self._draw_bits(span.bit_length())
    while value > span:
        value = self._draw_bits(span.bit_length())
    return min_value + value


class _Unsupported(Exception):
    """A strategy :class:`_Drawer` cannot draw (the surface falls back to hypothesis)."""


class _Drawer:
    """Draws from the handful of hypothesis strategy types the fuzz tests use, with a
    ``random.Random`` — no hypothesis machinery at all (4× cheaper than it for random
    text). Sizes of lists and texts are geometric around hypothesis's average size;
    characters are ASCII half the time, any of the strategy's characters otherwise.
    ``draw`` is also the ``data`` object of ``st.data()`` tests."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def draw(self, strategy, label=None):  # noqa: C901 (one branch a strategy type)
        from hypothesis.strategies._internal import (
            collections,
            core,
            lazy,
            misc,
            strategies,
            strings,
        )

        rng = self.rng
        while isinstance(strategy, lazy.LazyStrategy):
            strategy = strategy.wrapped_strategy
        kind = type(strategy)
        if kind is strategies.SampledFromStrategy:
            value = rng.choice(strategy.elements)
            for how, function in strategy._transformations:
                if how != "map":
                    raise _Unsupported(f"{how} on sampled_from")
                value = function(value)
            return value
        if kind.__name__ == "IntegersStrategy":
            if strategy.start is not None and strategy.end is not None:
                return rng.randint(strategy.start, strategy.end)
            low = -(2**64) if strategy.start is None else strategy.start
            high = 2**64 if strategy.end is None else strategy.end
            return rng.choice([rng.randint(max(low, -10), min(high, 10)),
                               rng.randint(low, high), rng.choice([low, high])])
        if kind is strategies.OneOfStrategy:
            return self.draw(rng.choice(strategy.original_strategies))
        if kind is strategies.MappedStrategy:
            return strategy.pack(self.draw(strategy.mapped_strategy))
        if kind is core.CompositeStrategy:
            return strategy.definition(self.draw, *strategy.args, **strategy.kwargs)
        if kind is core.DataStrategy:
            return self
        if kind is misc.JustStrategy:
            return strategy.value
        if kind is core.PermutationStrategy:
            values = list(strategy.values)
            rng.shuffle(values)
            return values
        if kind in (collections.ListStrategy, strings.TextStrategy, strings.BytesStrategy,
                    collections.UniqueSampledListStrategy):
            size = self._size(strategy)
            if kind is strings.BytesStrategy:
                return rng.randbytes(size)
            if kind is strings.TextStrategy:
                return "".join(self._char(strategy.element_strategy) for _ in range(size))
            if kind is collections.UniqueSampledListStrategy:
                pool = list(dict.fromkeys(strategy.element_strategy.elements))
                values = rng.sample(pool, min(size, len(pool)))
                for how, function in strategy.element_strategy._transformations:
                    if how != "map":
                        raise _Unsupported(f"{how} on a unique list")
                    values = [function(v) for v in values]
                return values
            return [self.draw(strategy.element_strategy) for _ in range(size)]
        raise _Unsupported(kind.__name__)

    def _size(self, strategy) -> int:
        low = strategy.min_size
        high = strategy.max_size if strategy.max_size != float("inf") else low + 1000
        average = min(max(low * 2, low + 5), (low + high) / 2)
        stop = 1.0 / (1.0 + max(average - low, 0.0))
        size = low
        while size < high and self.rng.random() > stop:
            size += 1
        return size

    def _char(self, strategy) -> str:
        from hypothesis.strategies._internal import lazy

        while isinstance(strategy, lazy.LazyStrategy):
            strategy = strategy.wrapped_strategy
        intervals = strategy.intervals
        if self.rng.random() < 0.5:
            char = chr(self.rng.randrange(128))
            if char in intervals:
                return char
        return chr(intervals[self.rng.randrange(len(intervals))])


def fuzz_target(surface: str, scratch: Path, drawer: str = "fast"):
    """The surface's test as a function of a case's name (``"seed:surface:i"``): ``None``
    when the case could not be drawn, else ``True``; the test's own exception propagates.

    ``drawer="fast"``: the test's strategies drawn by :class:`_Drawer` from
    ``random.Random(name)``. ``drawer="hypothesis"``: drawn by hypothesis from 8 KiB of
    random bytes seeded by the name, as in its ``fuzz_one_input`` but without its per-case
    machinery (seeding, reporting, the executor): 1.4 instead of 5.4 ms a case for random
    text into the ``.bn`` reader; the fast drawer: 0.4 ms.
    """
    sys.path.insert(0, str(ROOT / "tests"))
    from hypothesis.control import BuildContext
    from hypothesis.errors import StopTest
    from hypothesis.internal.conjecture.data import ConjectureData
    from hypothesis.internal.conjecture.providers import BytestringProvider

    import tests.test_fuzz as fuzz

    BytestringProvider.draw_integer = _draw_integer
    name, fixed = SURFACES[surface]
    test = getattr(fuzz, name)
    inner = test.hypothesis.inner_test
    strategies = test.hypothesis._given_kwargs
    wanted = inner.__code__.co_varnames[:inner.__code__.co_argcount]
    if "tmp_path_factory" in wanted:
        fixed = {**fixed, "tmp_path_factory": _Folders(scratch)}

    def run_fast(case: str) -> bool | None:
        draw = _Drawer(random.Random(case)).draw
        inner(**fixed, **{k: draw(s) for k, s in strategies.items()})
        return True

    def run_hypothesis(case: str) -> bool | None:
        data = ConjectureData(random=None, provider=BytestringProvider,
                              provider_kw={"bytestring": random.Random(case).randbytes(BUFFER)})
        try:
            with BuildContext(data, is_final=False, wrapped_test=test):
                inner(**fixed, **{k: data.draw(s) for k, s in strategies.items()})
        except StopTest:
            return None
        return True

    return run_fast if drawer == "fast" else run_hypothesis


def case_name(seed: int, surface: str, i: int) -> str:
    return f"{seed}:{surface}:{i}"


def _summary_of(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "/bbn/" in f.filename] or frames
    where = f"{Path(inside[-1].filename).name}:{inside[-1].lineno}" if inside else "?"
    return f"{type(exc).__name__} at {where}: {str(exc)[:300]}"


def worker(surface: str, start: int, stop: int, seed: int, folder: Path,
           timeout: float, seconds: float, drawer: str) -> int:
    """Run cases ``start..stop-1`` of ``surface`` for at most ``seconds``; log to
    ``folder``."""
    import resource

    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    import warnings

    warnings.simplefilter("ignore")
    from bbn.core.errors import BBNError

    scratch = Path(tempfile.mkdtemp(prefix=f"bbn-fuzz-{surface}-"))
    target = fuzz_target(surface, scratch, drawer)
    at = os.open(folder / f"{surface}.at", os.O_RDWR | os.O_CREAT)
    hang = open(folder / f"{surface}.hang", "a")  # noqa: SIM115 (the watchdog writes it)
    log = open(folder / f"{surface}.jsonl", "a")  # noqa: SIM115
    invalid = slow = 0
    worst = 0.0
    began = time.perf_counter()
    i = start
    try:
        for i in range(start, stop):  # noqa: B007 (i is where the slice ended)
            if time.perf_counter() - began > seconds:
                break
            data = case_name(seed, surface, i)
            os.pwrite(at, b"%12d\n" % i, 0)
            faulthandler.dump_traceback_later(timeout, exit=True, file=hang)
            t0 = time.perf_counter()
            kind = None
            try:
                if target(data) is None:
                    invalid += 1
            except (KeyboardInterrupt, _Unsupported):
                raise
            except AssertionError as exc:
                kind, exc_ = "wrong answer", exc
            except BBNError as exc:  # a test expecting a refusal gets none... or an escape
                kind, exc_ = "bbn error escaped the test", exc
            except BaseException as exc:  # noqa: BLE001 (pytest's Failed is one)
                kind, exc_ = ("wrong answer" if type(exc).__name__ == "Failed"
                              else "non-bbn exception"), exc
            finally:
                faulthandler.cancel_dump_traceback_later()
            took = time.perf_counter() - t0
            worst = max(worst, took)
            slow += took > 5
            if took > SLOW and not kind:  # not a failure: listed to look at
                kind, exc_ = "slow", None
            if kind:
                log.write(json.dumps(
                    {"case": i, "kind": kind, "seconds": round(took, 3),
                     "what": f"{took:.2f} s" if exc_ is None else _summary_of(exc_),
                     "traceback": [] if exc_ is None else traceback.format_exception(exc_)[-6:]})
                    + "\n")
                log.flush()
        else:
            i = stop
        os.pwrite(at, b"%12d\n" % i, 0)
    finally:
        (folder / f"{surface}.batches").open("a").write(json.dumps(
            {"start": start, "stop": i, "drawer": drawer, "invalid": invalid, "slow": slow,
             "worst": round(worst, 3), "seconds": round(time.perf_counter() - began, 1)})
            + "\n")
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _state(folder: Path, surface: str) -> dict:
    at = folder / f"{surface}.at"
    reached = int(at.read_text().split()[0]) if at.exists() and at.read_text().strip() else 0
    log = folder / f"{surface}.jsonl"
    found = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    batches = folder / f"{surface}.batches"
    rows = ([json.loads(line) for line in batches.read_text().splitlines()]
            if batches.exists() else [])
    return {"reached": reached, "found": found,
            "invalid": sum(r["invalid"] for r in rows),
            "seconds": sum(r["seconds"] for r in rows),
            "worst": max([r["worst"] for r in rows], default=0.0)}


def _write_summary(folder: Path, chosen: list[str], seed: int) -> str:
    lines = [f"seed {seed}; updated {time.strftime('%Y-%m-%d %H:%M:%S')}", "",
             "| surface | cases run | of them invalid bytes | non-bbn exceptions | hangs "
             "| wrong answers | seconds | slowest case (s) |", "|---|---|---|---|---|---|---|---|"]
    for name in chosen:
        s = _state(folder, name)
        kinds = [f["kind"] for f in s["found"]]
        lines.append(
            f"| {name} | {s['reached']:,} | {s['invalid']:,} "
            f"| {kinds.count('non-bbn exception') + kinds.count('crash')} "
            f"| {kinds.count('hang')} | {kinds.count('wrong answer')} "
            f"| {s['seconds']:.0f} | {s['worst']:.2f} |")
    for name in chosen:
        slow = [f for f in _state(folder, name)["found"] if f["kind"] == "slow"]
        if slow:
            lines.append(f"- {name}: {len(slow)} cases over {SLOW} s, the slowest "
                         + ", ".join(f"{f['case']} ({f['what']})" for f in sorted(
                             slow, key=lambda f: -f["seconds"])[:5]))
        for f in _state(folder, name)["found"]:
            if f["kind"] != "slow":
                lines.append(f"- {name}:{f['case']} {f['kind']}: {f['what']}")
    text = "\n".join(lines) + "\n"
    (folder / "summary.md").write_text(text)
    return text


def _next_surface(folder: Path, todo: list[str], cases: int, slice_: float) -> str:
    """The surface a slice finishes (the one with the least left, at its pace so far), or
    else the one that has had the least time."""
    states = {n: _state(folder, n) for n in todo}
    left = {n: (cases - s["reached"]) * s["seconds"] / s["reached"]
            for n, s in states.items() if s["reached"]}
    finishing = [n for n in left if left[n] < 0.8 * slice_]
    if finishing:
        return min(finishing, key=left.get)
    return min(todo, key=lambda n: states[n]["seconds"])


def campaign(options) -> int:
    folder = Path(options.folder)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = options.surfaces.split(",") if options.surfaces else list(SURFACES)
    for name in chosen:
        if name not in SURFACES:
            raise SystemExit(f"no surface {name!r}; there are {', '.join(SURFACES)}")
    end = time.time() + options.hours * 3600
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    while time.time() < end:
        todo = [n for n in chosen if _state(folder, n)["reached"] < options.cases]
        if not todo:
            break
        name = _next_surface(folder, todo, options.cases, options.slice)
        start = _state(folder, name)["reached"]
        stop = options.cases
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.fuzz_campaign", "--worker", name,
             "--start", str(start), "--stop", str(stop), "--seed", str(options.seed),
             "--folder", str(folder), "--timeout", str(options.timeout),
             "--slice", str(min(options.slice, end - time.time())),
             "--drawer", options.drawer],
            env=env, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:  # a hang (the watchdog's exit) or a crash
            at = _state(folder, name)["reached"]
            stack = (folder / f"{name}.hang").read_text()
            hung = "Timeout" in stack
            what = (f"no answer after {options.timeout} s" if hung else
                    f"the worker died (exit {done.returncode}): {done.stderr[-300:]}")
            with (folder / f"{name}.jsonl").open("a") as log:
                log.write(json.dumps({"case": at, "kind": "hang" if hung else "crash",
                                      "what": what, "traceback": [stack[-3000:]]}) + "\n")
            (folder / f"{name}.at").write_text(f"{at + 1}\n")
            with (folder / f"{name}.batches").open("a") as batches:
                batches.write(json.dumps({"start": start, "stop": at + 1, "invalid": 0,
                                          "drawer": options.drawer,
                                          "slow": 1, "worst": options.timeout,
                                          "seconds": time.perf_counter() - began}) + "\n")
        (folder / f"{name}.hang").write_text("")
        print(_write_summary(folder, chosen, options.seed).splitlines()[
            4 + chosen.index(name)], flush=True)
    text = _write_summary(folder, chosen, options.seed)
    print(text)
    return 1 if any(f["kind"] != "slow" for n in chosen for f in _state(folder, n)["found"]) \
        else 0


def replay(options) -> int:
    """Run one case in this process and let its exception show."""
    surface, _, i = options.replay.rpartition(":")
    scratch = Path(tempfile.mkdtemp(prefix="bbn-fuzz-replay-"))
    target = fuzz_target(surface, scratch, options.drawer)
    target(case_name(options.seed, surface, int(i)))
    print(f"{options.replay}: passed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="cases per surface")
    parser.add_argument("--surfaces", help="comma-separated names (default: all)")
    parser.add_argument("--folder", default=str(Path(tempfile.gettempdir()) / "bbn-fuzz"),
                        help="where the logs and summary.md go (resumed if present)")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a hang")
    parser.add_argument("--slice", type=float, default=120.0, help="seconds per worker")
    parser.add_argument("--hours", type=float, default=24.0, help="stop after this long")
    parser.add_argument("--drawer", choices=["fast", "hypothesis"], default="fast",
                        help="how cases are drawn (see fuzz_target)")
    parser.add_argument("--replay", help="SURFACE:CASE, run in this process")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        return worker(options.worker, options.start, options.stop, options.seed,
                      Path(options.folder), options.timeout, options.slice, options.drawer)
    if options.replay:
        return replay(options)
    return campaign(options)


if __name__ == "__main__":
    sys.exit(main())

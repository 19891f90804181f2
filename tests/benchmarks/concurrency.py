"""16 threads × 1,000 mixed questions on one network against one thread alone:
``python -m tests.benchmarks.concurrency [--threads 16] [--questions 1000] [--network
alarm]``.

Prints the number of questions, errors and answers that differ from one thread's (both
must be 0), and the wall time of the threaded run. The questions are
``tests/concurrency_workload.py``'s: every posterior, one and joint posteriors,
probabilities, MAP, the query language, batches of cases, likelihood weighting with a
fixed seed, loopy BP. Run once with the default memory limit and once with a 64 KiB
limit (junction trees dropped and rebuilt all the time; exact questions only, since a
sampler's batch does not fit in 64 KiB).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from concurrency_workload import KINDS, check  # noqa: E402

import bbn  # noqa: E402
from bbn.core.memory import get_memory_limit, set_memory_limit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--questions", type=int, default=1000, help="per thread")
    parser.add_argument("--network", default="alarm", help="a network of ../shared/networks")
    parser.add_argument("--runs", default="default,64", help="default, 64 (KiB limit)")
    options = parser.parse_args(argv)
    path = ROOT.parent / "shared" / "networks" / f"{options.network}.bif.gz"

    def make() -> bbn.Network:
        return bbn.load(path)

    failed = False
    original = get_memory_limit()
    exact = tuple(k for k in KINDS if k not in ("lw", "lbp"))
    for limit, label, kinds in ((original, "default memory limit", KINDS),
                                (64 << 10, "64 KiB limit, exact questions", exact)):
        if label.split(" ")[0] not in options.runs:
            continue
        set_memory_limit(limit)
        start = time.perf_counter()
        result = check(make, options.threads, options.questions, kinds=kinds)
        seconds = time.perf_counter() - start
        print(f"{options.network}, {label}: {options.threads} threads × {options.questions} "
              f"questions = {result['questions']}: {len(result['errors'])} errors, "
              f"{len(result['wrong'])} wrong answers ({seconds:.1f} s with the one-thread "
              "reference)")
        for error in sorted(set(result["errors"]))[:5]:
            print("   ", error)
        failed |= bool(result["errors"] or result["wrong"])
    set_memory_limit(original)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

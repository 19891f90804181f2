"""cProfile one bbn cell of the suite and print its hottest functions.

    python -m tests.benchmarks.profile_bbn load andes
    python -m tests.benchmarks.profile_bbn query andes 3 [--cold]
    python -m tests.benchmarks.profile_bbn posteriors munin1 [--cold]
    python -m tests.benchmarks.profile_bbn batch alarm
    python -m tests.benchmarks.profile_bbn learn alarm
    python -m tests.benchmarks.profile_bbn nb "SMS spam (raw text)"

The work is the same as the benchmark cell's (same inputs), repeated ``--repeat`` times.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

from tests.benchmarks import (  # noqa: E402
    all_posteriors,
    batch,
    engines,
    learning,
    models,
    naive_bayes,
)


def work(kind: str, name: str, k: int, cold: bool):
    """A function doing one repetition of the cell's bbn work."""
    import bbn

    if kind == "load":
        path = models.plain_bif(name)
        return lambda: bbn.load(path)
    if kind == "nb":
        for label, loader, bbn_fit, _ in naive_bayes.cases():
            if label == name:
                train, test, y_train, _ = loader()
                return lambda: bbn_fit(train, y_train, test)
        raise SystemExit(f"no naive Bayes case {name!r}")
    net = models.bbn_network(name)
    fresh = (lambda: net.copy()) if cold else (lambda: net)
    if kind == "query":
        cases = models.evidence_cases(name, k, 5)
        return lambda: [engines.bbn_posterior(fresh(), x, e) for x, e in cases]
    if kind == "posteriors":
        evidence = models.evidence_cases(name, 3, 1)[0][1]
        return lambda: all_posteriors.bbn_all(fresh(), evidence)
    if kind == "batch":
        target, observed = batch.choose(name)
        frame = models.samples(name, 10_000)[observed].reset_index(drop=True)
        return lambda: batch.bbn_batch(fresh(), target, frame)
    if kind == "learn":
        frame = models.samples(name, 100_000)
        return lambda: learning.bbn_learn(net, frame)
    raise SystemExit(f"unknown kind {kind!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["load", "query", "posteriors", "batch", "learn", "nb"])
    parser.add_argument("name", help="network (or naive Bayes case label)")
    parser.add_argument("k", nargs="?", type=int, default=3, help="evidence size for query")
    parser.add_argument("--cold", action="store_true", help="empty caches (net.copy())")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime", choices=["tottime", "cumulative"])
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    run = work(args.kind, args.name, args.k, args.cold)
    run()  # warm: imports, caches of a warm cell
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.repeat):
        run()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run the benchmark suite: ``python -m tests.benchmarks.run [--quick] [--workloads 1,2]``.

Prints each row as it is measured, then one table per workload (medians and bbn/peer
ratios; below 1 means bbn is faster), and writes everything with the machine's
description to JSON (``--json``, default ``bench-results.json`` in the cache directory).
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import time
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `tests.benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

from tests.benchmarks import (  # noqa: E402
    all_posteriors,
    approximate,
    batch,
    continuous,
    cutset_uai,
    decisions,
    em_learning,
    explorer,
    independence,
    learning,
    load,
    naive_bayes,
    scale,
    sequence_learning,
    sequences,
    single_query,
    startup,
    structure,
    trees,
    uai,
    uai_auto,
    uncertain,
)
from tests.benchmarks.harness import Settings, load_average, machine, seconds  # noqa: E402
from tests.benchmarks.models import CACHE, NETWORKS  # noqa: E402

WORKLOADS = {"1": load, "2": single_query, "3": all_posteriors, "4": batch, "5": learning,
             "6": naive_bayes, "7": startup, "8": structure, "9": explorer,
             "10": independence, "11": trees, "12": approximate,
             "13": uai, "14": scale, "15": em_learning, "16": sequences,
             "17": decisions, "18": uncertain, "19": continuous, "20": uai_auto,
             "21": sequence_learning, "22": cutset_uai}

#: --quick: a smoke run of every workload on small inputs (about two minutes).
QUICK_NETWORKS = {"1": ["asia", "alarm", "child", "insurance", "hepar2", "andes"],
                  "2": ["alarm", "child", "andes"],
                  "3": ["alarm", "child", "andes"],
                  "4": ["alarm", "child"],
                  "5": ["alarm"],
                  "8": ["alarm"],
                  "9": ["alarm"],
                  "10": ["alarm", "child"],
                  "13": ["Grids_12", "Promedus_14"],
                  "15": ["alarm"],
                  "20": ["Grids_12", "Segmentation_11"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run (~2 min)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="comma-separated workload numbers (default: all)")
    parser.add_argument("--networks", default=None,
                        help="comma-separated network names (default: each workload's own)")
    parser.add_argument("--rows", default=None,
                        help="comma-separated sample sizes for the workloads that take them "
                             "(8: default 1000,10000,100000; --quick 1000; "
                             "9: default 2000000, --quick 100000)")
    parser.add_argument("--seeds", default=None,
                        help="comma-separated sample seeds for the workloads that take them "
                             "(8: default 2024,2025,2026, the first timed; --quick 2024)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of repetitions per cell (default 1, --quick 0.2)")
    parser.add_argument("--json", default=str(CACHE / "bench-results.json"),
                        help="where to write the results as JSON")
    args = parser.parse_args(argv)
    if not NETWORKS.is_dir():
        print(f"the shared networks are absent ({NETWORKS}); nothing to measure")
        return 2
    chosen = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in chosen if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; choose from {', '.join(WORKLOADS)}")
    try:
        rows = [int(n) for n in args.rows.split(",") if n.strip()] if args.rows else None
    except ValueError:
        parser.error(f"--rows takes comma-separated whole numbers, not {args.rows!r}")
    try:
        seeds = [int(n) for n in args.seeds.split(",") if n.strip()] if args.seeds else None
    except ValueError:
        parser.error(f"--seeds takes comma-separated whole numbers, not {args.seeds!r}")

    quiet()
    limit_memory()
    settings = (Settings(budget=0.2, min_reps=1, deadline=60.0, quick=True) if args.quick
                else Settings())
    if args.budget is not None:
        settings.budget = args.budget
    info = machine()
    print("machine: " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    command = " ".join(["python -m tests.benchmarks.run"] + (argv or sys.argv[1:]))
    results = {"machine": info, "settings": vars(settings), "command": command, "sections": []}
    sections = []
    started = time.perf_counter()
    for key in chosen:
        module = WORKLOADS[key]
        networks = (args.networks.split(",") if args.networks
                    else QUICK_NETWORKS.get(key) if args.quick else None)
        print(f"\n== {key}. {module.TITLE}", flush=True)
        t0 = time.perf_counter()
        sizes = {"rows": rows} if rows and hasattr(module, "ROWS") else {}  # workloads with sizes
        if seeds and hasattr(module, "SEEDS"):  # workloads judged on several samples
            sizes["seeds"] = seeds
        section = module.run(settings, networks, **sizes)
        print(f"   ({seconds(time.perf_counter() - t0)}; load average {load_average()})",
              flush=True)
        sections.append(section)
        results["sections"].append(section.to_json())
        results["seconds"] = time.perf_counter() - started
        results["load_average_after"] = load_average()
        write_json(args.json, results)  # after every workload: a long run keeps its part
    print()
    for section in sections:
        print(section.table())
        print()
    print(f"total {seconds(time.perf_counter() - started)}; JSON written to {args.json}")
    return 0


def quiet() -> None:
    """The peers warn and log a lot (pgmpy's state-name notices): keep the table readable."""
    warnings.filterwarnings("ignore")
    logging.getLogger("pgmpy").setLevel(logging.ERROR)


def limit_memory() -> None:
    """Cap the address space at half the RAM so a runaway engine fails instead of the OS
    killing the whole run (pyAgrum then raises std::bad_alloc, numpy MemoryError)."""
    try:
        pages = resource.getpagesize() * __import__("os").sysconf("SC_PHYS_PAGES")
        cap = int(pages * 0.5)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError, AttributeError):
        pass


def write_json(path: str, results: dict) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.write_text(json.dumps(results, indent=1, default=str))
    partial.replace(target)


if __name__ == "__main__":
    sys.exit(main())

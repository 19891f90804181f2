"""Approximate MAP and joint posteriors against exact ones on bnlearn networks.

``python -m tests.benchmarks.approximate_map [--networks alarm,child,hailfinder,win95pts]
[--samples 20000] [--repeats 3]``

For every network and each of its first ``QUERIES`` possible reference queries
(``../shared/reference/bnlearn_exact.json``), three unobserved variables are chosen at
random (seed 0) and asked as MAP(M | e) and P(M | e) with every method:

* **MAP agrees**: the approximate MAP assignment is the exact one (``method="exact"``);
  **separated**: how many of the sampled answers had a margin ≥ 2 SE, and how many of
  those were wrong (an honest margin leaves none);
* **joint**: the largest |P̂ − P| over the joint's states, and (samplers) the share of
  states with |P̂ − P| ≤ 4 SE (loopy BP answers only joints inside one factor: "–");
* **MPE exact**: how often MPE(e) found an assignment as probable as the exact MPE
  (max-product for loopy BP, the best sample and a local search for the samplers);
* **time**: the median over ``--repeats`` runs of one MAP question.

pyAgrum has no equivalent: its approximate engines (``LoopyBeliefPropagation``,
``GibbsSampling``, ``ImportanceSampling``, ``WeightedSampling``) take single-variable
targets only — no joint targets, no MAP or MPE (``mpe`` and ``jointPosterior`` are on
the exact ``LazyPropagation``). Not part of the test suite; the README of this folder
keeps the last table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make `tests.benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

import bbn  # noqa: E402
from bbn.engines.approximate import ConvergenceWarning  # noqa: E402
from tests.benchmarks.models import SHARED  # noqa: E402

QUERIES = 5
NETWORKS = ["alarm", "child", "hailfinder", "win95pts"]
METHODS = ["lbp", "lw", "is", "gibbs"]


def _method(kind: str, samples: int):
    if kind == "lbp":
        return bbn.LoopyBP()
    return {"lw": bbn.LikelihoodWeighting, "is": bbn.ImportanceSampling,
            "gibbs": bbn.Gibbs}[kind](samples=samples, seed=1)


def measure(name: str, samples: int, repeats: int) -> list[dict]:
    """One row per method: agreement, separation, joint error and coverage, time."""
    reference = json.loads((SHARED / "reference" / "bnlearn_exact.json").read_text())
    queries = [q["evidence"] for q in reference[name]["queries"]
               if not q.get("impossible") and q["p_evidence"] > 0][:QUERIES]
    net = bbn.load(SHARED / "networks" / f"{name}.bif.gz")
    rng = np.random.default_rng(0)
    rows = {kind: {"agree": 0, "separated": 0, "wrong_separated": 0, "max_error": 0.0,
                   "covered": 0, "states": 0, "mpe": 0, "seconds": []} for kind in METHODS}
    for evidence in queries:
        free = [v for v in net.variables if v not in evidence]
        query = [free[i] for i in rng.choice(len(free), 3, replace=False)]
        exact_assignment, _ = net.map(query, evidence)
        exact_joint = net.posterior(query, evidence).values
        exact_mpe = net.log_probability({**net.mpe(evidence)[0], **evidence})
        for kind in METHODS:
            row, method = rows[kind], _method(kind, samples)
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                found = net.map(query, evidence, method=method)
                times.append(time.perf_counter() - start)
            row["seconds"].append(statistics.median(times))
            row["agree"] += found.assignment == exact_assignment
            mpe = net.mpe(evidence, method=method)[0]
            row["mpe"] += abs(net.log_probability({**mpe, **evidence}) - exact_mpe) < 1e-9
            if found.separated:
                row["separated"] += 1
                row["wrong_separated"] += found.assignment != exact_assignment
            try:
                joint = net.posterior(query, evidence, method=method)
            except bbn.QueryError:  # loopy BP: the three share no factor
                continue
            error = np.abs(joint.values - exact_joint)
            row["max_error"] = max(row["max_error"], float(error.max()))
            if joint.standard_error is not None:
                row["covered"] += int(np.sum(error <= 4 * joint.standard_error + 1e-12))
                row["states"] += error.size
    return [{"network": name, "method": kind, "queries": len(queries), **row,
             "seconds": statistics.median(row["seconds"])} for kind, row in rows.items()]


def table(rows: list[dict]) -> str:
    """The README's Markdown table."""
    lines = ["| network | method | MAP agrees | separated (wrong) | joint max error | "
             "joint 4-SE coverage | MPE exact | time per MAP |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        coverage = f"{100 * r['covered'] / r['states']:.0f}%" if r["states"] else "–"
        sampler = r["method"] != "lbp"
        separated = f"{r['separated']} ({r['wrong_separated']})" if sampler else "–"
        error = f"{r['max_error']:.1e}" if sampler else "–"
        lines.append(f"| {r['network']} | {r['method']} | {r['agree']}/{r['queries']} | "
                     f"{separated} | {error} | {coverage} | {r['mpe']}/{r['queries']} | "
                     f"{1000 * r['seconds']:.3g} ms |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--networks", default=",".join(NETWORKS))
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    rows = []
    for name in args.networks.split(","):
        rows += measure(name, args.samples, args.repeats)
        print(f"{name} done", file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()

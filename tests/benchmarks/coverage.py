"""Do the samplers' standard errors cover the exact answers? The 24 bnlearn networks.

``python -m tests.benchmarks.coverage [--methods gibbs,lw,is] [--networks alarm,...]
[--samples 20000] [--seed 1] [--json PATH]``

For every network, each sampler runs once without evidence (every variable's marginal
against the reference's ``priors``) and once per reference query (the first
``QUERIES`` of positive probability in ``../shared/reference/bnlearn_exact.json``: the target's
posterior against the reference's). Over those states, per method × network:

* **coverage**: the share of states with |P̂ − P| ≤ 4 SE (+1e-12, the rounding of a
  certain state whose SE is ~1e-17); a normal error breaks 4 SE in 0.006% of states;
* **SE/|error|**: the median ratio, how wide the error bars are (about 1.5 for honest
  normal errors: the median |z| is 0.674; much larger is an error bar too wide to use);
* **MAE**: the mean |P̂ − P| over the same states, and the seconds of the runs.

Not part of the test suite (tests/test_approximate_bnlearn.py checks the small networks
with 3 queries each); the README of this folder keeps the last table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make `tests.benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

from tests.benchmarks.models import NETWORKS, SHARED, all_networks  # noqa: E402

#: Reference queries per network (besides the priors of every variable).
QUERIES = 5
METHODS = ["lw", "is", "gibbs"]


@dataclass
class Cell:
    """One method on one network: the states compared and how the error bars fared."""

    method: str
    network: str
    states: int
    inside: int
    median_ratio: float
    mae: float
    seconds: float
    worst: list[str]
    skipped: list[str]

    @property
    def coverage(self) -> float:
        return self.inside / self.states


def reference(name: str) -> dict:
    with open(SHARED / "reference" / "bnlearn_exact.json") as f:
        return json.load(f)[name]


def cell(name: str, method: str, samples: int, seed: int, **options) -> Cell:
    """Run ``method`` (with its settings ``options``) on network ``name`` without evidence
    and on its reference queries; a case it cannot answer (no sample matched) is skipped."""
    import bbn
    from bbn.engines.approximate import FactorGraph
    from bbn.engines.approximate.methods import APPROXIMATE_METHODS

    exact = reference(name)
    net = bbn.load(NETWORKS / f"{name}.bif.gz")
    graph = FactorGraph.from_compiled(net.compiled())
    cases = [({}, {v: list(states.values()) for v, states in exact["priors"].items()},
              {v: list(states) for v, states in exact["priors"].items()})]
    possible = [q for q in exact["queries"] if not q.get("impossible") and q["p_evidence"] > 0]
    for query in possible[:QUERIES]:
        cases.append((query["evidence"], {query["target"]: list(query["posterior"].values())},
                      {query["target"]: list(query["posterior"])}))
    errors, ses, labels, skipped, seconds = [], [], [], [], 0.0
    settings = APPROXIMATE_METHODS[method](samples=samples, seed=seed, **options)
    for evidence, answers, names in cases:
        coded = {graph.index(v): graph.states[graph.index(v)].index(s)
                 for v, s in evidence.items()}
        start = time.perf_counter()
        try:
            result = settings.run(graph, coded)
        except bbn.BBNError as error:
            skipped.append(str(error)[:100])
            continue
        seconds += time.perf_counter() - start
        for v, values in answers.items():
            order = [graph.states[graph.index(v)].index(s) for s in names[v]]
            errors.append(np.abs(result.probabilities[v][order] - np.asarray(values)))
            ses.append(result.standard_errors[v][order])
            labels += [f"{v}={s}{' | ' + str(evidence) if evidence else ''}" for s in names[v]]
    error, se = np.concatenate(errors), np.concatenate(ses)
    inside = error <= 4 * se + 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = se / error
    worst = [f"{labels[i]}: |err| {error[i]:.2e}, SE {se[i]:.2e}"
             for i in np.flatnonzero(~inside)[:5]]
    return Cell(method, name, int(error.size), int(inside.sum()),
                float(np.median(ratio)), float(error.mean()), seconds, worst, skipped)


def table(cells: list[Cell]) -> str:
    """Per network a row, per method coverage % and median SE/|error| (and MAE)."""
    methods = list(dict.fromkeys(c.method for c in cells))
    by = {(c.network, c.method): c for c in cells}
    head = "| network | " + " | ".join(f"{m} cover % | {m} SE/err | {m} MAE" for m in methods)
    lines = [head + " |", "|---" * (1 + 3 * len(methods)) + "|"]
    for name in dict.fromkeys(c.network for c in cells):
        parts = []
        for m in methods:
            c = by.get((name, m))
            parts.append("n/a | n/a | n/a" if c is None else
                         f"{100 * c.coverage:.1f} | {c.median_ratio:.2f} | {c.mae:.1e}")
        lines.append(f"| {name} | " + " | ".join(parts) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--networks", default=None, help="default: all 24, smallest first")
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chains", type=int, default=None, help="Gibbs chains")
    parser.add_argument("--burn-in", type=int, default=None, help="Gibbs burn-in sweeps")
    parser.add_argument("--json", default=None, help="also write the cells as JSON here")
    args = parser.parse_args(argv)
    if not NETWORKS.is_dir():
        print(f"the shared networks are absent ({NETWORKS}); nothing to measure")
        return 2
    names = args.networks.split(",") if args.networks else all_networks()
    cells = []
    for name in names:
        for method in args.methods.split(","):
            options = {k: v for k, v in [("chains", args.chains), ("burn_in", args.burn_in)]
                       if v is not None and method == "gibbs"}
            c = cell(name, method, args.samples, args.seed, **options)
            cells.append(c)
            print(f"{name:12s} {method:6s} {100 * c.coverage:6.2f}% of {c.states:5d} "
                  f"SE/err {c.median_ratio:6.2f} MAE {c.mae:.1e} {c.seconds:7.2f} s", flush=True)
            for line in c.worst:
                print("    outside 4 SE:", line, flush=True)
            for line in c.skipped:
                print("    skipped:", line, flush=True)
    print()
    print(table(cells))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(c) for c in cells], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The samplers' standard errors cover the exact posteriors on the shared bnlearn networks.

For the small networks and the first three possible reference queries of each
(``../shared/reference/bnlearn_exact.json``), every state of every variable's
approximate posterior is compared with the junction tree's: |error| ≤ 4 SE must hold on
at least 99% of them for each method (a normal error would break 4 SE in 0.006% of
states; rare states and slow mixing are what the 1% allows), and loopy belief
propagation's log Z matches exact log P(e) on the polytrees among them.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from test_approximate import graph_and_evidence

import bbn
from bbn.engines.approximate.methods import APPROXIMATE_METHODS

FORWARD = ["asia", "cancer", "earthquake", "sachs", "survey", "child", "alarm", "insurance"]
GIBBS = ["asia", "cancer", "earthquake", "sachs", "survey", "child", "alarm", "insurance"]
QUERIES = 3


@functools.cache
def _queries(shared: Path, name: str) -> tuple[bbn.Network, list[dict]]:
    reference = json.loads((shared / "reference" / "bnlearn_exact.json").read_text())
    possible = [q["evidence"] for q in reference[name]["queries"]
                if not q.get("impossible") and q["p_evidence"] > 0]
    return bbn.load(shared / "networks" / f"{name}.bif.gz"), possible[:QUERIES]


def _coverage(shared: Path, names: list[str], kind: str) -> tuple[int, int, float]:
    inside = total = 0
    worst = 0.0
    for name in names:
        net, queries = _queries(shared, name)
        for evidence in queries:
            graph, coded = graph_and_evidence(net, evidence)
            result = APPROXIMATE_METHODS[kind](samples=20_000, seed=1).run(graph, coded)
            exact = net.posteriors(evidence)
            for v in net.variables:
                error = np.abs(result.probabilities[v] - exact[v].values)
                # 1e-12: rounding, where a state is certain and its SE ~1e-17
                inside += int(np.sum(error <= 4 * result.standard_errors[v] + 1e-12))
                total += error.size
                worst = max(worst, float(error.max()))
    return inside, total, worst


@pytest.mark.parametrize("kind, names", [("lw", FORWARD), ("is", FORWARD), ("gibbs", GIBBS)])
def test_four_standard_errors_cover_99_percent_of_states(shared, kind, names):
    inside, total, worst = _coverage(shared, names, kind)
    assert inside >= 0.99 * total, f"{kind}: {inside}/{total} within 4 SE"
    assert worst < 0.1


@pytest.mark.parametrize("name", ["cancer", "earthquake", "survey"])
def test_lbp_log_partition_is_exact_on_the_polytrees(shared, name):
    net, queries = _queries(shared, name)
    for evidence in queries:
        graph, coded = graph_and_evidence(net, evidence)
        result = APPROXIMATE_METHODS["lbp"]().run(graph, coded)
        assert result.log_partition == pytest.approx(math.log(net.probability(evidence)),
                                                     abs=1e-9)

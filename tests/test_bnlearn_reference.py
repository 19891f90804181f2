"""bbn reproduces the exact answers in ../shared/reference/bnlearn_exact.json.

For each of the 24 bnlearn networks (read from ../shared/networks/*.bif.gz) the reference
holds the prior marginal of every node and 30 queries P(target | evidence), computed in
float64 by an independent implementation. Checked here:

* every posterior to 1e-9 absolute;
* ``p_evidence`` to 1e-9 relative. The reference defines it as the chain-rule product
  P(e1) P(e2 | e1) ... in the order the evidence is listed, each factor a normalised
  posterior; that is what is compared at 1e-9. The direct sum ``net.probability(e)``
  (Σ Π of the tables) is compared too, at 1e-5: the files' rows sum to 1 only to about
  1e-7 (numbers printed with 8 digits), so the two definitions differ at that level;
* queries marked ``"impossible"`` raise ImpossibleEvidenceError, and so do queries whose
  reference ``p_evidence`` is 0 or NaN (49 entries not marked impossible whose evidence
  does have probability exactly 0 under the tables — e.g. water's root CBODD_12_00 has
  P(25_MG_L) = 0 — and whose listed posterior is therefore undefined);
* the prior marginal of every node of the networks with at most 250 nodes (all but
  diabetes, pigs, link and the four munin networks), and of a fixed random sample of 40
  nodes (``random.Random(0)``) of each of those seven larger networks.
"""

from __future__ import annotations

import functools
import io
import json
import math
import random
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main

NETWORKS = ["asia", "cancer", "earthquake", "sachs", "survey", "alarm", "barley", "child",
            "insurance", "mildew", "water", "hailfinder", "hepar2", "win95pts", "pathfinder",
            "andes", "munin1", "diabetes", "pigs", "link", "munin2", "munin3", "munin4", "munin"]
ALL_PRIORS_UP_TO = 250  # nodes; larger networks check a sample of SAMPLED_PRIORS nodes
SAMPLED_PRIORS = 40


@functools.cache
def _reference(shared: Path) -> dict:
    return json.loads((shared / "reference" / "bnlearn_exact.json").read_text())


@functools.cache
def _network(shared: Path, name: str) -> bbn.Network:
    return bbn.load(shared / "networks" / f"{name}.bif.gz")


def _impossible(query: dict) -> bool:
    return query.get("impossible", False) or not query["p_evidence"] > 0


def test_reference_covers_the_shared_networks(shared):
    assert sorted(_reference(shared)) == sorted(NETWORKS)
    assert sorted(p.name.removesuffix(".bif.gz")
                  for p in (shared / "networks").glob("*.bif.gz")) == sorted(NETWORKS)


@pytest.mark.parametrize("name", NETWORKS)
def test_queries(shared, name):
    net = _network(shared, name)
    queries = _reference(shared)[name]["queries"]
    answered = 0
    for query in queries:
        target, evidence = query["target"], query["evidence"]
        if _impossible(query):
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.posterior([target], evidence)
            assert net.probability(evidence) == 0.0
            continue
        posterior = net.posterior([target], evidence).to_dict()
        assert set(posterior) == set(query["posterior"])
        for state, p in query["posterior"].items():
            assert posterior[state] == pytest.approx(p, abs=1e-9, rel=0), (target, evidence)
        items = list(evidence.items())
        chain = math.prod(net.posterior([v], dict(items[:i])).to_dict()[s]
                          for i, (v, s) in enumerate(items))
        assert chain == pytest.approx(query["p_evidence"], rel=1e-9, abs=0), evidence
        assert net.probability(evidence) == pytest.approx(query["p_evidence"], rel=1e-5)
        answered += 1
    assert answered + sum(map(_impossible, queries)) == len(queries) == 30


@pytest.mark.parametrize("name", NETWORKS)
def test_priors(shared, name):
    net = _network(shared, name)
    priors = _reference(shared)[name]["priors"]
    assert sorted(priors) == sorted(net.variables)
    nodes = sorted(priors)
    if len(nodes) > ALL_PRIORS_UP_TO:
        nodes = random.Random(0).sample(nodes, SAMPLED_PRIORS)
    for v in nodes:
        prior = net.posterior([v]).to_dict()
        expected = priors[v]
        assert set(prior) == set(expected)
        got = np.array([prior[s] for s in expected])
        want = np.array(list(expected.values()))
        assert np.abs(got - want).max() <= 1e-9, (v, prior, expected)


def test_cli_query_json_on_gzipped_alarm(shared):
    """`bbn query alarm.bif.gz "P(HYPOVOLEMIA | CVP=HIGH)" --json`, against enumeration.

    CVP's ancestors are LVEDVOLUME, HYPOVOLEMIA and LVFAILURE, so
    P(H, CVP=HIGH) = Σ_{F, L} P(H) P(F) P(L | H, F) P(CVP=HIGH | L): 36 terms by hand.
    """
    path = shared / "networks" / "alarm.bif.gz"
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["query", str(path), "P(HYPOVOLEMIA | CVP=HIGH)", "--json"])
    assert code == 0
    answer = json.loads(out.getvalue())
    assert answer["query"] == "P(HYPOVOLEMIA | CVP=HIGH)"
    assert answer["variables"] == ["HYPOVOLEMIA"]

    net = _network(shared, "alarm")
    assert net.parents("CVP") == ("LVEDVOLUME",)
    assert net.parents("LVEDVOLUME") == ("HYPOVOLEMIA", "LVFAILURE")
    high = net.states("CVP").index("HIGH")
    joint = np.einsum("h,f,hfl,l->h", net.cpt_array("HYPOVOLEMIA"), net.cpt_array("LVFAILURE"),
                      net.cpt_array("LVEDVOLUME"), net.cpt_array("CVP")[:, high])
    expected = dict(zip(net.states("HYPOVOLEMIA"), joint / joint.sum()))
    assert [row["HYPOVOLEMIA"] for row in answer["rows"]] == list(expected)
    for row in answer["rows"]:
        assert set(row) == {"HYPOVOLEMIA", "p"}
        assert row["p"] == pytest.approx(expected[row["HYPOVOLEMIA"]], abs=1e-12)


def test_cli_exits_1_on_an_impossible_reference_query(shared):
    query = next(q for q in _reference(shared)["asia"]["queries"] if q.get("impossible"))
    given = ", ".join(f"{v}={s}" for v, s in query["evidence"].items())
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["query", str(shared / "networks" / "asia.bif.gz"),
                     f"P({query['target']} | {given})"])
    assert code == 1
    assert "impossible evidence" in err.getvalue()

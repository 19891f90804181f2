"""Entropy, mutual information and the value of information against brute-force
enumeration of the joint table; ``H(...)`` and ``I(...; ...)`` in the query language."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bbn.apps.cli.main import main
from bbn.core.errors import ParseError, QueryError
from bbn.questions.information import entropy, mutual_information, value_of_information
from tests.brute_force import BruteForce
from tests.strategies import random_network


def bits(p: np.ndarray) -> float:
    """−Σ p log2 p over the positive entries."""
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def brute_entropy(oracle: BruteForce, x: list[str], z: list[str], evidence: dict) -> float:
    joint = oracle.posterior(x + z, evidence)  # axes x..., z...
    p_z = joint.sum(axis=tuple(range(len(x))))
    return bits(joint.ravel()) - bits(p_z.ravel())


def brute_information(oracle: BruteForce, x: list[str], y: list[str], z: list[str],
                      evidence: dict) -> float:
    """Σ p(x, y, z) log2 [p(x, y, z) p(z) / (p(x, z) p(y, z))], term by term."""
    joint = oracle.posterior(x + y + z, evidence)
    nx, ny = len(x), len(y)
    p_xz = joint.sum(axis=tuple(range(nx, nx + ny)), keepdims=True)
    p_yz = joint.sum(axis=tuple(range(nx)), keepdims=True)
    p_z = joint.sum(axis=tuple(range(nx + ny)), keepdims=True)
    total = 0.0
    for index in np.ndindex(joint.shape):
        p = joint[index]
        if p > 0:
            at = tuple(0 if i < nx else k for i, k in enumerate(index))
            xz = p_xz[tuple(k if i < nx or i >= nx + ny else 0 for i, k in enumerate(index))]
            yz = p_yz[at]
            z_ = p_z[tuple(k if i >= nx + ny else 0 for i, k in enumerate(index))]
            total += p * math.log2(p * z_ / (xz * yz))
    return total


def test_chair_by_hand(chair):
    p = 22840 / 25757  # P(C=T | A=T)
    assert entropy(chair, "C", {"A": "T"}) == pytest.approx(
        -p * math.log2(p) - (1 - p) * math.log2(1 - p), abs=1e-12)
    assert entropy(chair, "C") == pytest.approx(-0.8 * math.log2(0.8) - 0.2 * math.log2(0.2),
                                                abs=1e-12)
    assert mutual_information(chair, "C", "S") == pytest.approx(0.0, abs=1e-15)  # C ⟂ S
    assert mutual_information(chair, "C", "S", given="A") > 1e-4  # explaining away
    assert mutual_information(chair, "W", "A", given="B") == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_information_matches_enumeration(seed):
    net = random_network(seed, max_variables=6, max_states=3)
    if len(net.variables) < 3:
        return
    oracle = BruteForce(net)
    rng = np.random.default_rng(seed)
    names = [str(v) for v in rng.permutation(net.variables)]
    x, y, z, rest = [names[0]], [names[1]], names[2:3], names[3:]
    evidence = {v: str(rng.choice(net.states(v))) for v in rest if rng.random() < 0.5}
    if oracle.p_evidence(evidence) == 0:
        return
    assert entropy(net, x, evidence) == pytest.approx(brute_entropy(oracle, x, [], evidence),
                                                      abs=1e-10)
    assert entropy(net, x, evidence, given=z) == pytest.approx(
        brute_entropy(oracle, x, z, evidence), abs=1e-10)
    assert mutual_information(net, x, y, evidence) == pytest.approx(
        brute_information(oracle, x, y, [], evidence), abs=1e-10)
    assert mutual_information(net, x, y, evidence, given=z) == pytest.approx(
        brute_information(oracle, x, y, z, evidence), abs=1e-10)
    ranked = value_of_information(net, x[0], evidence=evidence)
    assert [v for v, _ in ranked] == [v for v, _ in sorted(
        ranked, key=lambda item: -item.bits)]
    for v, value in ranked:
        assert value == pytest.approx(brute_information(oracle, x, [v], [], evidence),
                                      abs=1e-10)
    assert {v for v, _ in ranked} == {v for v in net.variables
                                      if v != x[0] and v not in evidence}


def test_value_of_information_ranks_the_next_test(chair):
    ranked = value_of_information(chair, "C", evidence={"A": "T"})
    assert [v for v, _ in ranked] == ["W", "B", "S"]
    assert ranked[0].bits == pytest.approx(mutual_information(chair, "C", "W", {"A": "T"}))
    only = value_of_information(chair, "C", candidates=["S"], evidence={"A": "T"})
    assert [v for v, _ in only] == ["S"]
    with pytest.raises(QueryError, match="observed"):
        value_of_information(chair, "C", candidates=["A"], evidence={"A": "T"})


def test_the_query_language_asks_information(chair, capsys, chair_file):
    assert chair.query("H(C | A=T)") == pytest.approx(entropy(chair, "C", {"A": "T"}))
    assert chair.query("I(C; W | A=T)") == pytest.approx(
        mutual_information(chair, "C", "W", {"A": "T"}))
    assert chair.query("I(C; S | A)") == pytest.approx(
        mutual_information(chair, "C", "S", given="A"))
    assert main(["query", str(chair_file), "H(C | A=T)"]) == 0
    assert capsys.readouterr().out == "H(C | A=T) = 0.509644 bits\n"
    assert main(["query", str(chair_file), "I(C; W | A=T)", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["query"] == "I(C; W | A=T)"
    assert document["bits"] == pytest.approx(mutual_information(chair, "C", "W", {"A": "T"}))
    with pytest.raises(ParseError, match="I\\(variables; variables"):
        chair.query("I(C W)")
    with pytest.raises(QueryError, match="did you mean 'W'"):
        chair.query("I(C; w)")
    with pytest.raises(QueryError, match="named more than once"):
        chair.query("H(C | C=T)")


def test_an_information_question_does_not_load_networkx(chair_file):
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; from bbn.apps.cli.main import main; "
            f"main(['query', {str(chair_file)!r}, 'H(C | A=T)']); "
            "main(['query', " + repr(str(chair_file)) + ", 'I(C; W | A=T)']); "
            "print('networkx' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.splitlines()[-1] == "False", done.stderr

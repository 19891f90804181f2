"""Independence (d-separation, active trails, Markov blankets) and the query language's
``X _|_ Y | Z``: the chair by hand, random networks against the joint table.

On a network with generic random tables (tests/generic_networks.py), X ⟂ Y | Z holds in
the joint exactly when the graph d-separates them: P(x, y, z) P(z) = P(x, z) P(y, z) for
every x, y, z (brute_force.py's joint).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import ParseError, QueryError
from bbn.questions.d_separation import COLLIDER, independence
from tests.brute_force import joint_array
from tests.generic_networks import generic_network


def dependence(net: bbn.Network, x: list[str], y: list[str], z: list[str]) -> float:
    """max |P(x, y, z) P(z) − P(x, z) P(y, z)| over the joint table."""
    joint = joint_array(net)
    order = list(net.variables)
    keep = x + y + z
    table = joint.sum(axis=tuple(i for i, v in enumerate(order) if v not in keep))
    kept = [v for v in order if v in keep]
    table = np.transpose(table, [kept.index(v) for v in keep])
    sizes = [int(np.prod([net.cardinality(v) for v in group]) if group else 1)
             for group in (x, y, z)]
    p = table.reshape(sizes)
    p_xz, p_yz, p_z = p.sum(axis=1), p.sum(axis=0), p.sum(axis=(0, 1))
    return float(np.abs(p * p_z - p_xz[:, None, :] * p_yz[None, :, :]).max())


def check_trail(net: bbn.Network, trail, x, y, z) -> None:
    """The trail is simple, runs from X to Y along arcs as its arrows say, and every middle
    node passes by the rule it names."""
    nodes = trail.nodes
    assert nodes[0] in x and nodes[-1] in y
    assert len(set(nodes)) == len(nodes)
    for a, b, arrow in zip(nodes, nodes[1:], trail.arrows):
        assert (a in net.parents(b)) if arrow == "→" else (b in net.parents(a))
    for i, passage in enumerate(trail.passages, start=1):
        assert passage.node == nodes[i]
        collider = trail.arrows[i - 1] == "→" and trail.arrows[i] == "←"
        assert (passage.kind == COLLIDER) == collider
        if collider:
            below, frontier = set(), [nodes[i]]
            while frontier:
                v = frontier.pop()
                below.add(v)
                frontier += [c for c in net.children(v) if c not in below]
            assert passage.observed in z and passage.observed in below
        else:
            assert nodes[i] not in z


# ------------------------------------------------------------------ the chair
def test_chair_c_and_s_are_independent_until_a_is_observed(chair):
    assert bbn.is_independent(chair, "C", "S") is True
    assert bbn.active_trail(chair, "C", "S") is None
    assert bbn.is_independent(chair, "C", "S", given="A") is False
    trail = bbn.active_trail(chair, "C", "S", given=["A"])
    assert trail.path_text() == "C → B ← S"
    (passage,) = trail.passages
    assert (passage.node, passage.kind, passage.observed) == ("B", "collider", "A")
    assert passage.reason() == "a collider whose descendant A is observed"


def test_chair_chains_forks_and_blocking(chair):
    assert bbn.active_trail(chair, "W", "A").path_text() == "W ← C → B → A"
    assert [p.kind for p in bbn.active_trail(chair, "W", "A").passages] == ["fork", "chain"]
    assert bbn.is_independent(chair, "W", "A", given="C")
    assert bbn.is_independent(chair, "W", "A", given="B")
    assert bbn.is_independent(chair, ["W", "C"], "A", given="B")
    assert not bbn.is_independent(chair, "W", ["S", "A"])
    observed_collider = bbn.active_trail(chair, "C", "S", given="B").passages[0]
    assert (observed_collider.observed, observed_collider.reason()) == (
        "B", "a collider, observed")


def test_chair_markov_blankets(chair):
    assert bbn.markov_blanket(chair, "C") == ("S", "W", "B")  # S: B's other parent
    assert bbn.markov_blanket(chair, "B") == ("C", "S", "A")
    assert bbn.markov_blanket(chair, "W") == ("C",)
    assert bbn.markov_blanket(chair, "A") == ("B",)


def test_the_markov_blanket_separates_a_variable_from_the_rest():
    for seed in range(10):
        net = generic_network(seed)
        for v in net.variables:
            blanket = bbn.markov_blanket(net, v)
            rest = [u for u in net.variables if u != v and u not in blanket]
            if rest:
                assert bbn.is_independent(net, v, rest, given=blanket)
                assert dependence(net, [v], rest, list(blanket)) < 1e-12


def test_mistakes_are_query_errors_with_suggestions(chair):
    with pytest.raises(QueryError, match="did you mean 'C'"):
        bbn.is_independent(chair, "c", "S")
    with pytest.raises(QueryError, match="disjoint"):
        bbn.is_independent(chair, "C", "C")
    with pytest.raises(QueryError, match="disjoint"):
        bbn.active_trail(chair, "C", "S", given=["S"])
    with pytest.raises(QueryError, match="did you mean 'B'"):
        bbn.markov_blanket(chair, "b")


# ------------------------------------------------------ against the joint table
@pytest.mark.parametrize("seed", range(40))
def test_d_separation_is_independence_in_the_joint(seed):
    net = generic_network(seed)
    rng = np.random.default_rng(1000 + seed)
    names = list(net.variables)
    for _ in range(6):
        chosen = list(rng.permutation(names))
        x, y = [chosen[0]], [chosen[1]]
        z = [v for v in chosen[2:] if rng.random() < 0.4]
        answer = independence(net, x, y, z)
        measured = dependence(net, x, y, z)
        if answer.independent:
            assert answer.trail is None
            assert measured < 1e-12, (x, y, z)
        else:
            assert measured > 1e-9, (x, y, z)
            check_trail(net, answer.trail, x, y, z)


# --------------------------------------------------------- the query language
def test_the_query_language_asks_independence(chair):
    assert bool(chair.query("C _|_ S")) is True
    answer = chair.query("C ⟂ S | A")
    assert answer.independent is False and answer.trail.path_text() == "C → B ← S"
    assert chair.query("W, C _|_ A | B").independent is True


def test_bbn_query_prints_the_answer_and_the_trail(capsys, chair_file):
    assert main(["query", str(chair_file), "C _|_ S | A"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "C ⟂ S | A: false",
        "  active trail: C → B ← S",
        "    B: a collider whose descendant A is observed"]
    assert main(["query", str(chair_file), "C _|_ S", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "query": "C _|_ S", "independent": True, "trail": None}
    assert main(["query", str(chair_file), "C _|_ S | A", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["trail"]["nodes"] == ["C", "B", "S"]
    assert document["trail"]["passages"] == [
        {"node": "B", "kind": "collider", "observed": "A"}]


def test_ill_formed_independence_questions(chair):
    with pytest.raises(QueryError, match="without states"):
        chair.query("C _|_ S | A=T")
    with pytest.raises(ParseError, match="variables on each side"):
        chair.query("C _|_ | A")
    with pytest.raises(QueryError, match="did you mean 'S'"):
        chair.query("C _|_ s")


def test_bbn_render_draws_the_active_trail(capsys, chair_file):
    pytest.importorskip("graphviz")
    assert main(["render", str(chair_file), "--trail", "C _|_ S | A"]) == 0
    source = capsys.readouterr().out
    assert 'C -> B [color="#c0392b"' in source and 'S -> B [color="#c0392b"' in source
    assert "B -> A [" not in source and "C -> W [" not in source
    assert "active trail: C → B ← S" in source
    assert main(["render", str(chair_file), "--trail", "P(C)"]) == 2
    assert "--trail takes an independence question" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["alarm", "insurance", "child"])
def test_d_separation_equals_pyagrums_on_bnlearn_networks(shared, name):
    gum = pytest.importorskip("pyagrum")
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    theirs = gum.BayesNet(name)
    for v in net.variables:
        theirs.add(gum.LabelizedVariable(v, v, list(net.states(v))))
    for parent, child in net.arcs():
        theirs.addArc(parent, child)
    rng = np.random.default_rng(7)
    names = list(net.variables)
    dependent = 0
    for _ in range(150):
        chosen = [str(v) for v in rng.permutation(names)]
        x, y = chosen[0], chosen[1]
        z = [v for v in chosen[2:] if rng.random() < 0.15]
        answer = independence(net, x, y, z)
        assert answer.independent == theirs.isIndependent(x, y, z), (x, y, z)
        if not answer.independent:
            dependent += 1
            check_trail(net, answer.trail, [x], [y], z)
    assert 10 < dependent < 145  # both answers are exercised

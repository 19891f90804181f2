"""Approximate MPE: max-product loopy belief propagation and a local search, against the
exact MPE (the engine's, and enumeration's on small networks)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from brute_force import joint_array
from test_markov import random_markov, some_evidence

import bbn
from bbn.apps.cli.main import main
from bbn.engines.approximate.lbp import ConvergenceWarning, LoopyBP
from bbn.engines.approximate.max_product import log_score, most_probable
from bbn.views.factor_graph import FactorGraph


def flips_never_help(net: bbn.MarkovNetwork, evidence: dict, assignment: dict) -> bool:
    """No change of one unobserved variable's state raises the product of the factors."""
    joint = joint_array(net)
    full = {**evidence, **assignment}
    cell = [net.states(v).index(full[v]) for v in net.variables]
    here = joint[tuple(cell)]
    for axis, v in enumerate(net.variables):
        if v in evidence:
            continue
        for state in range(net.cardinality(v)):
            if joint[tuple(cell[:axis] + [state] + cell[axis + 1:])] > here * (1 + 1e-12):
                return False
    return True


@pytest.mark.parametrize("evidence", [{}, {"A": "T"}, {"A": "F"}, {"W": "F", "S": "T"},
                                      {"B": "F"}])
def test_on_the_chair_a_polytree_it_is_the_exact_mpe(chair, evidence):
    exact = chair.mpe(evidence)
    assignment, p = chair.mpe(evidence, method="lbp")
    assert assignment == exact[0]
    assert p == pytest.approx(exact[1], rel=1e-9)  # the Bethe P(e) is exact on a polytree


def test_on_small_loopy_networks_it_is_a_local_optimum_and_mostly_the_mpe():
    found_the_mpe = 0
    for seed in range(40):
        net = random_markov(seed)
        evidence = some_evidence(net, seed)
        exact, p_exact = net.mpe(evidence)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            assignment, _ = net.mpe(evidence, method="lbp")
        assert set(assignment) == set(exact)
        assert flips_never_help(net, evidence, assignment), seed
        joint = joint_array(net)
        full = {**evidence, **assignment}
        value = joint[tuple(net.states(v).index(full[v]) for v in net.variables)]
        assert value <= joint.max() * (1 + 1e-12)
        found_the_mpe += assignment == exact
    assert found_the_mpe >= 38  # measured: 40 of 40 (seed 4 without the search per sweep: 39)


def test_the_score_is_the_log_of_the_factors_product():
    net = random_markov(3)
    graph = net.factor_graph()
    found = most_probable(graph, {}, LoopyBP(damping=0.5))
    joint = joint_array(net)
    assert found.log_score == pytest.approx(math.log(joint[tuple(found.states)]), rel=1e-12)
    assert log_score(graph, found.states) == found.log_score
    assert found.report.method == "lbp" and found.report.iterations > 0
    assert 1 <= found.found_in_sweep <= found.report.iterations


def test_a_local_search_repairs_a_tie_that_max_product_cannot_break():
    # two variables that must agree, no preference for either value: every max-belief
    # ties, the decoding takes state 0 of both, which agree; then A=1 given evidence
    graph = FactorGraph(("A", "B", "C"), (("0", "1"),) * 3, ((0, 1), (1, 2)),
                        (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])))
    found = most_probable(graph, {2: 1}, LoopyBP())
    assert found.states.tolist() == [1, 1, 1]
    assert found.log_score == 0.0


@pytest.mark.parametrize("name", ["alarm", "child", "hailfinder", "win95pts", "pathfinder"])
def test_on_bnlearn_networks_it_finds_the_exact_mpe(shared, name):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    row = bbn.sample(net, 1, seed=3).iloc[0]
    chosen = np.random.default_rng(1).choice(net.variables, 5, replace=False)
    evidence = {str(v): str(row[v]) for v in chosen}
    exact, p = net.mpe(evidence)
    assignment, q = net.mpe(evidence, method="lbp")
    # the same probability: the exact MPE, or another of the same probability (a tie)
    joint = net.probability({**evidence, **assignment})
    assert joint == pytest.approx(net.probability({**evidence, **exact}), rel=1e-9)
    assert q == pytest.approx(p, rel=0.05)  # P(e) by the Bethe estimate: within 1% here


def test_a_markov_network_from_the_competition(shared):
    net = bbn.load(shared / "uai2014" / "MAR" / "Grids_12.uai.gz")
    exact, p = net.mpe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assignment, q = net.mpe(method=LoopyBP(damping=0.5, max_iterations=200))
    graph = net.factor_graph()

    def score_of(found):
        return log_score(graph, np.array([net.states(v).index(found[v]) for v in graph.variables]))

    score, best = score_of(assignment), score_of(exact)
    assert score <= best + 1e-9
    assert score >= best - 0.01 * abs(best)  # measured: 691.1 against 695.8


def test_the_query_language_and_the_commands(capsys, tmp_path):
    assert main(["query", "models/chair.bn", "MPE(A=T)", "--method", "lbp"]) == 0
    approximate = capsys.readouterr().out
    assert main(["query", "models/chair.bn", "MPE(A=T)"]) == 0
    exact = capsys.readouterr().out.splitlines()
    # the same assignment and probability (a polytree), said to be an estimate: P̂ is the
    # exact weight over loopy BP's estimate of P(A=T)
    assert approximate.splitlines() == exact + [
        "  (an estimate: the assignment's exact weight over lbp's estimate of P(evidence); "
        "no standard error)"]
    out = tmp_path / "chair.MPE"
    assert main(["uai", "models/chair.bn", "--task", "MPE", "--method", "lbp", "-o",
                 str(out)]) == 0
    assert main(["uai", "models/chair.bn", "--task", "MPE"]) == 0
    assert out.read_text() == capsys.readouterr().out


def test_impossible_evidence_is_refused(chair):
    net = bbn.MarkovNetwork()
    for v in "AB":
        net.add_variable(v, ["0", "1"])
    net.add_factor(["A", "B"], [[0, 0], [1, 2]])
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.mpe({"A": "0"}, method="lbp")
    assert net.mpe({"A": "1"}, method="lbp") == ({"B": "1"}, pytest.approx(2 / 3))

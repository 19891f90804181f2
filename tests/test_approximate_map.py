"""Approximate joint posteriors, MAP over a subset and MPE, against exact answers.

Exact answers come from the full joint table (tests/brute_force.py) on small random
Bayesian networks and a small loopy Markov network, and from ``method="exact"`` on the
bnlearn networks child and alarm (the MAP questions there have their top answer ahead of
the runner-up by 0.05–0.7). Samplers' estimates must lie within 4 standard errors of the
exact numbers; a MAP the sampler calls separated (margin ≥ 2) must be the exact MAP.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from brute_force import BruteForce
from generic_networks import generic_network
from test_approximate import polytree

import bbn
from bbn.apps.cli.main import main

SAMPLERS = ["lw", "is", "gibbs"]


def sampler(kind: str, samples: int = 20_000, seed: int = 1):
    return {"lw": bbn.LikelihoodWeighting, "is": bbn.ImportanceSampling,
            "gibbs": bbn.Gibbs}[kind](samples=samples, seed=seed)


def _question(net: bbn.Network, seed: int) -> tuple[list[str], dict[str, str]]:
    """Two query variables and one observed variable of a random network."""
    rng = np.random.default_rng(seed)
    names = list(net.variables)
    chosen = [names[i] for i in rng.permutation(len(names))[:3]]
    observed = chosen[2]
    return chosen[:2], {observed: net.states(observed)[int(rng.integers(2))]}


# ----------------------------------------------------------------- joints
@pytest.mark.parametrize("kind", SAMPLERS)
def test_sampled_joints_cover_the_brute_force_joint_within_4_standard_errors(kind):
    inside = total = 0
    for seed in range(8):
        net = generic_network(seed, min_variables=4)
        query, evidence = _question(net, seed)
        exact = BruteForce(net).posterior(query, evidence)
        estimate = net.posterior(query, evidence, method=sampler(kind))
        assert estimate.variables == tuple(query)
        assert estimate.values.sum() == pytest.approx(1.0)
        inside += int(np.sum(np.abs(estimate.values - exact) <= 4 * estimate.standard_error))
        total += exact.size
    assert inside == total


def test_an_assignment_and_a_partly_assigned_joint_are_read_off_the_joint(chair):
    evidence = {"A": "T"}
    exact = chair.posterior(["C", "S"], evidence).values  # P(C, S | A=T)
    method = bbn.LikelihoodWeighting(samples=20_000, seed=4)
    joint = chair.query("P(C, S | A=T)", method=method)
    p = chair.query("P(C=T, S=F | A=T)", method=method)
    assert p == joint.values[0, 1]  # the same run (same seed): the same number
    assert abs(p - exact[0, 1]) <= 4 * joint.standard_error[0, 1]
    part = chair.query("P(C, S=F | A=T)", method=method)  # P(C, S=F | A=T) over C
    assert part.variables == ("C",)
    np.testing.assert_array_equal(part.values, joint.values[:, 1])
    np.testing.assert_array_equal(part.standard_error, joint.standard_error[:, 1])
    assert chair.probability({"C": "T", "A": "F"}, evidence, method="lw") == 0.0
    assert chair.probability({"C": "T", "A": "T"}, evidence, method="lbp") == pytest.approx(
        22840 / 25757)


def test_loopy_bp_gives_the_joint_of_variables_sharing_a_factor_exactly_on_a_polytree():
    for seed in range(4):
        net = polytree(seed)
        child = next(v for v in net.variables if net.parents(v))
        query = [net.parents(child)[0], child]
        observed = next(v for v in net.variables if v not in query)
        evidence = {observed: net.states(observed)[1]}
        belief = net.posterior(query, evidence, method="lbp")
        np.testing.assert_allclose(belief.values, BruteForce(net).posterior(query, evidence),
                                   atol=1e-9)
        assert belief.standard_error is None


# ----------------------------------------------------------------- MAP
@pytest.mark.parametrize("kind", SAMPLERS)
def test_sampled_map_is_the_brute_force_map_when_it_says_separated(kind):
    separated = 0
    for seed in range(8):
        net = generic_network(seed, min_variables=4)
        query, evidence = _question(net, seed)
        exact = BruteForce(net).posterior(query, evidence)
        found = net.map(query, evidence, method=sampler(kind))
        cell = tuple(net.states(v).index(found.assignment[v]) for v in query)
        assert abs(found.probability - exact[cell]) <= 4 * found.standard_error
        runner = tuple(net.states(v).index(found.runner_up[v]) for v in query)
        assert runner != cell
        assert found.runner_up_probability <= found.probability and found.margin >= 0
        if found.separated:
            separated += 1
            assert exact[cell] == exact.max()
            assert dict(zip(query, found.assignment.values())) == net.map(query, evidence)[0]
    assert separated >= 6  # most of these questions have a clear answer


def test_a_near_tie_is_not_called_separated():
    net = bbn.Network("tie")
    net.add_variable("A", ["a", "b"], table=[0.501, 0.499])
    net.add_variable("B", ["x", "y"], parents=["A"], table=[[0.7, 0.3], [0.2, 0.8]])
    found = net.map(["A"], {}, method=sampler("lw"))
    assert found.margin < 2 and found.separated is False
    assert "not clearly ordered" in "\n".join(found.text_lines())
    clear = net.map(["A", "B"], {}, method=sampler("lw"))
    assert clear.assignment == {"A": "b", "B": "y"} and clear.separated  # 0.399 vs 0.351


def test_loopy_bp_map_is_the_exact_map_on_polytrees():
    for seed in range(4):
        net = polytree(seed)
        query = list(net.variables[:3])
        observed = net.variables[-1]
        evidence = {observed: net.states(observed)[0]}
        assignment, p = net.map(query, evidence, method="lbp")
        exact_assignment, exact_p = net.map(query, evidence)
        assert assignment == exact_assignment
        assert p == pytest.approx(exact_p, abs=1e-9)


def loopy_markov_network(seed: int) -> bbn.MarkovNetwork:
    """A, B, C, D on the loop A–B–C–D–A with a triple factor over B, C, D."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork(f"loop {seed}")
    for name, card in zip("ABCD", (2, 3, 2, 2)):
        net.add_variable(name, [f"{name.lower()}{i}" for i in range(card)])
    for scope in (["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"], ["B", "C", "D"]):
        shape = tuple(net.cardinality(v) for v in scope)
        net.add_factor(scope, rng.uniform(0.1, 3.0, size=shape))
    return net


@pytest.mark.parametrize("seed", range(11, 15))
def test_gibbs_and_loopy_bp_answer_joint_and_map_on_loopy_markov_networks(seed):
    net = loopy_markov_network(seed)
    brute = BruteForce(net)
    evidence = {"D": "d1"}
    exact = brute.posterior(["B", "C"], evidence)
    gibbs = net.posterior(["B", "C"], evidence, method=sampler("gibbs"))
    assert np.all(np.abs(gibbs.values - exact) <= 4 * gibbs.standard_error)
    belief = net.posterior(["B", "C"], evidence, method="lbp")  # B, C share two factors
    # a factor's belief agrees with loopy BP's beliefs of its variables (at the fixed
    # point), and is as close to exact as they are: 0.02–0.17 on these tight loops
    for axis, v in ((1, "B"), (0, "C")):
        np.testing.assert_allclose(belief.values.sum(axis=axis),
                                   net.posterior(v, evidence, method="lbp").values, atol=1e-7)
    assert np.abs(belief.values - exact).max() < 0.2
    exact_map, exact_p = net.map(["A", "B"], evidence)
    flat = np.sort(brute.posterior(["A", "B"], evidence).ravel())
    assert exact_p == pytest.approx(flat[-1])
    found = net.map(["A", "B"], evidence, method=sampler("gibbs"))
    assert abs(found.probability - exact_p) <= 4 * found.standard_error
    assert found.assignment == exact_map or not found.separated
    found = net.map(["A", "B"], evidence, method="lbp")
    assert abs(found.probability - exact_p) < 0.05  # a ratio of Bethe estimates
    if flat[-2] < exact_p - 0.05:  # clearly ahead: the Bethe scores order it first
        assert found.assignment == exact_map


def test_forward_samplers_refuse_a_markov_network_map():
    with pytest.raises(bbn.ModelError, match="needs a Bayesian network"):
        loopy_markov_network(11).map(["A"], method="lw")


# ----------------------------------------------------------------- MPE
@pytest.mark.parametrize("kind", SAMPLERS)
def test_sampled_mpe_is_the_exact_mpe_on_small_networks(kind):
    for seed in range(6):
        net = generic_network(seed, min_variables=4)
        _, evidence = _question(net, seed)
        assignment, p = net.mpe(evidence, method=sampler(kind, samples=2_000))
        exact_assignment, exact_p = net.mpe(evidence)
        # the same probability: ties between assignments may be broken either way
        assert net.probability({**assignment, **evidence}) == pytest.approx(
            net.probability({**exact_assignment, **evidence}), rel=1e-12)
        if kind != "gibbs":  # P̂(x̂ | e) divides by the sampled P̂(e)
            assert p == pytest.approx(exact_p, rel=0.1)


def test_sampled_mpe_without_evidence_has_the_exact_probability(chair):
    assignment, p = chair.mpe(method=sampler("gibbs", samples=2_000))
    exact_assignment, exact_p = chair.mpe()
    assert assignment == exact_assignment
    assert p == pytest.approx(exact_p, rel=1e-12)  # a Bayesian network's Z is 1: exact


# ----------------------------------------------------------------- bnlearn
BNLEARN_MAP = [
    ("child", ["Disease", "LungParench", "Sick"], {"HypDistrib": "Equal", "LungFlow": "Low"}),
    ("child", ["Disease", "LungParench", "Sick"],
     {"CO2": "Normal", "DuctFlow": "Lt_to_Rt", "RUQO2": "5-12"}),
    ("alarm", ["HYPOVOLEMIA", "LVFAILURE", "INTUBATION", "KINKEDTUBE"],
     {"ANAPHYLAXIS": "TRUE", "PCWP": "NORMAL", "PVSAT": "NORMAL"}),
    ("alarm", ["HYPOVOLEMIA", "INTUBATION", "KINKEDTUBE"],
     {"FIO2": "NORMAL", "LVFAILURE": "TRUE", "TPR": "HIGH"}),
]


@pytest.mark.parametrize(("name", "query", "evidence"), BNLEARN_MAP)
def test_map_on_bnlearn_networks_agrees_with_exact(shared, name, query, evidence):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    exact_assignment, exact_p = net.map(query, evidence)
    for kind in SAMPLERS:
        found = net.map(query, evidence, method=sampler(kind))
        assert found.assignment == exact_assignment
        # Gibbs's 20 000 correlated samples may not separate a lead of 0.05 (it says so)
        assert found.separated or kind == "gibbs"
        assert abs(found.probability - exact_p) <= 4 * found.standard_error
    assert net.map(query, evidence, method="lbp").assignment == exact_assignment


def test_joints_on_alarm_cover_the_exact_joint(shared):
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    evidence = {"HR": "HIGH", "PVSAT": "LOW"}
    query = ["INTUBATION", "KINKEDTUBE", "VENTLUNG"]
    exact = net.posterior(query, evidence).values
    for kind in SAMPLERS:
        estimate = net.posterior(query, evidence, method=sampler(kind))
        covered = np.abs(estimate.values - exact) <= 4 * estimate.standard_error + 1e-12
        assert covered.mean() >= 0.95, kind  # 24 states; a rare state may miss


# ----------------------------------------------------------------- errors, CLI
def test_questions_a_method_cannot_answer_are_refused(chair, memory_limit):
    with pytest.raises(bbn.QueryError, match=r"\['S'\] both asked about and observed"):
        chair.map(["C", "S"], {"S": "T"}, method="lw")
    with pytest.raises(bbn.QueryError, match="MAP needs at least one variable"):
        chair.map([], {"A": "T"}, method="lw")
    with pytest.raises(bbn.QueryError, match="did you mean 'C'"):
        chair.map(["c"], method="lbp")
    with pytest.raises(bbn.QueryError, match="share none; use 'lw', 'is' or 'gibbs'"):
        chair.query("P(S, W | A=T)", method="lbp")
    wide = bbn.Network("wide")
    for i in range(12):
        wide.add_variable(f"X{i}", [str(s) for s in range(10)], table=[0.1] * 10)
    memory_limit(1 << 20)
    with pytest.raises(bbn.MemoryLimitError, match="joint table of 12 variables"):
        wide.posterior(list(wide.variables), method="lw")


def test_the_command_line_prints_the_standard_error_and_the_margin(capsys):
    assert main(["query", "models/chair.bn", "MAP(C, S | A=T)", "--method", "is",
                 "--samples", "20000"]) == 0
    text = capsys.readouterr().out
    assert "standard error" in text and "runner-up C=F, S=F" in text
    assert main(["query", "models/chair.bn", "MAP(C, S | A=T)", "--method", "lw",
                 "--samples", "20000", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["assignment"] == {"C": "T", "S": "F"}
    assert abs(answer["p"] - 0.837054) <= 4 * answer["standard_error"]
    assert answer["margin"] > 2 and answer["runner_up"] == {"C": "F", "S": "F"}
    assert main(["query", "models/chair.bn", "P(C, S | A=T)", "--method", "gibbs",
                 "--samples", "20000", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    exact = [[0.0497, 0.8371], [0.0124, 0.1008]]
    for row, p in zip(rows, itertools.chain(*exact)):
        assert abs(row["p"] - p) <= 4 * row["standard_error"] + 1e-4


def test_loopy_bp_map_warns_once_for_the_runs_that_did_not_converge():
    net = loopy_markov_network(14)
    with pytest.warns(bbn.ConvergenceWarning) as caught:
        net.map(["A"], {}, method=bbn.LoopyBP(max_iterations=2))
    search = [str(w.message) for w in caught if "runs that scored the MAP search" in
              str(w.message)]
    assert len(search) == 1 and "stopped before its tolerance in" in search[0]


def test_an_approximate_mpe_given_evidence_says_its_probability_is_an_estimate():
    # P̂(x̂ | e) = φ(x̂, e) / Ẑ(e): exact numerator, estimated denominator — never printed
    # as if exact (chair: exact 0.485140). The weighted samplers' Ẑ has a standard error
    # (relative √(Σw²/W² − 1/n)), carried to P̂; loopy BP's Bethe Ẑ (Gibbs's too) has none:
    # the text says the probability is an estimate.
    net = bbn.load("models/chair.bn")
    found = net.mpe({"W": "F", "B": "T"}, method=bbn.LikelihoodWeighting(samples=4000, seed=0))
    exact_assignment, exact_p = net.mpe({"W": "F", "B": "T"})
    assert found.assignment == exact_assignment and found.estimated_z
    assert abs(found.probability - exact_p) < 4 * found.standard_error  # 0.5333: 3.1 SE
    assert any("standard error" in line for line in found.text_lines())
    gibbs = net.mpe({"W": "F", "B": "T"}, method=bbn.Gibbs(samples=4000, seed=0))
    assert gibbs.standard_error is None and gibbs.estimated_z
    assert any("an estimate" in line for line in gibbs.text_lines())
    assert not net.mpe(method=bbn.LikelihoodWeighting(samples=2000, seed=0)).estimated_z

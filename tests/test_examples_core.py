"""Every number of EXAMPLES.md §1-§3 (and §8), through the Python API and the command line.

The expected values are the hand-derived ones of ../shared/EXAMPLES.md (exact fractions
where they exist), written out here so the tests run without ../shared. The §1 tests run
twice: on ``models/chair.bn`` and on the network ``example_networks.chair_network`` builds
(the one the other test modules use).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from example_networks import chair_network

import bbn
from bbn.apps.cli.main import main

TOLERANCE = 1e-12


@pytest.fixture(scope="module", params=["models/chair.bn", "Python API"])
def chair(request, chair_file) -> bbn.Network:
    """The back-ache network, loaded from the shipped file or built in Python."""
    return bbn.load(chair_file) if request.param == "models/chair.bn" else chair_network()


@pytest.fixture(scope="module")
def monty(models) -> bbn.Network:
    return bbn.load(models / "monty_hall.bn")


@pytest.fixture(scope="module")
def shapes(models) -> bbn.Network:
    return bbn.load(models / "shapes.bn")


# ------------------------------------------------ §1 the back-ache network
def test_shipped_chair_model_equals_the_python_one(chair_file):
    shipped, built = bbn.load(chair_file), chair_network()
    assert shipped == built  # names, descriptions, order and every number
    for evidence in ({}, {"A": "T"}, {"A": "F", "W": "T"}):
        answers = [{v: f.values.tolist() for v, f in net.posteriors(evidence).items()}
                   for net in (shipped, built)]
        assert answers[0] == answers[1]


def test_chair_model_holds_the_tables_of_the_example(chair):
    assert chair.variables == ("C", "S", "W", "B", "A")
    p_true = {v: chair.cpt_array(v)[..., 0].tolist() for v in chair.variables}
    assert p_true == {"C": 0.8, "S": 0.02, "W": [0.9, 0.01],
                      "B": [[0.9, 0.2], [0.9, 0.01]], "A": [0.7, 0.1]}
    assert chair.parents("B") == ("C", "S") and chair.parents("A") == ("B",)


CHAIR_NUMBERS = [
    ("P(A=T)", Fraction(25757, 125000)),                  # 0.206056
    ("P(C=T, A=T)", Fraction(18272, 100000)),             # 0.18272
    ("P(C=T | A=T)", Fraction(22840, 25757)),             # 0.8867492332181542
    ("P(C=F | A=T)", 1 - Fraction(22840, 25757)),         # 0.1132507667818458
    ("P(B=T)", Fraction(17676, 100000)),                  # 0.17676
    ("P(S=T | A=T)", 0.06211903560197228),
]
MONTY_NUMBERS = [
    ("P(King=B)", 1 / 2),
    ("P(Princess=A | King=B)", 1 / 3),
    ("P(Princess=C | King=B)", 2 / 3),
    ("P(Princess=B | King=B)", 0.0),
    ("P(King=B | Princess=A)", 1 / 2),
    ("P(King=B | Princess=B)", 0.0),
    ("P(King=B | Princess=C)", 1.0),
]
SHAPES_NUMBERS = [
    ("P(colour=red, shape=circle)", 0.25),
    ("P(colour=red)", 0.57),
    ("P(category=pos | colour=red, shape=circle)", 0.8),
]


@pytest.mark.parametrize("query, expected", CHAIR_NUMBERS)
def test_chair_numbers(chair, query, expected):
    assert chair.query(query) == pytest.approx(float(expected), abs=TOLERANCE)


def test_chair_posterior_of_c_given_a(chair):
    factor = chair.query("P(C | A=T)")
    assert factor.variables == ("C",) and factor.states == {"C": ("T", "F")}
    assert factor.to_dict() == pytest.approx({"T": 0.8867492332181542,
                                              "F": 0.1132507667818458}, abs=TOLERANCE)
    same = chair.posterior(["C"], evidence={"A": "T"})
    assert same.to_dict() == pytest.approx(factor.to_dict(), abs=TOLERANCE)


def test_chair_probability_of_evidence(chair):
    assert chair.probability({"A": "T"}) == pytest.approx(0.206056, abs=TOLERANCE)
    assert chair.probability({"C": "T"}, evidence={"A": "T"}) == pytest.approx(
        22840 / 25757, abs=TOLERANCE)


def test_chair_stores_10_numbers_instead_of_31(chair):
    assert chair.free_parameters() == 10
    assert chair.joint_parameters() == 2 ** 5 - 1 == 31


# --------------------------------------------- §2 the prince and the king
@pytest.mark.parametrize("query, expected", MONTY_NUMBERS)
def test_monty_hall_numbers(monty, query, expected):
    assert monty.query(query) == pytest.approx(expected, abs=TOLERANCE)


def test_monty_hall_the_prince_should_switch(monty):
    assignment, p = monty.map(["Princess"], evidence={"King": "B"})
    assert assignment == {"Princess": "C"} and p == pytest.approx(2 / 3, abs=TOLERANCE)


# --------------------------------------------------- §3 the joint table
@pytest.mark.parametrize("query, expected", SHAPES_NUMBERS)
def test_joint_table_numbers(shapes, query, expected):
    assert shapes.query(query) == pytest.approx(expected, abs=TOLERANCE)


def test_joint_table_every_cell(shapes):
    joint = {("pos", "red", "circle"): 0.2, ("pos", "red", "square"): 0.02,
             ("pos", "blue", "circle"): 0.02, ("pos", "blue", "square"): 0.01,
             ("neg", "red", "circle"): 0.05, ("neg", "red", "square"): 0.3,
             ("neg", "blue", "circle"): 0.2, ("neg", "blue", "square"): 0.2}
    for (category, colour, shape), p in joint.items():
        assignment = {"category": category, "colour": colour, "shape": shape}
        assert shapes.probability(assignment) == pytest.approx(p, abs=TOLERANCE)


# ------------------------------------------------- §1-§3 through the CLI
@pytest.mark.parametrize("model, query, expected",
                         [("chair.bn", q, e) for q, e in CHAIR_NUMBERS]
                         + [("monty_hall.bn", q, e) for q, e in MONTY_NUMBERS]
                         + [("shapes.bn", q, e) for q, e in SHAPES_NUMBERS])
def test_every_number_through_the_command_line(models, capsys, model, query, expected):
    assert main(["query", str(models / model), query, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["p"] == pytest.approx(float(expected), abs=TOLERANCE)


def test_command_line_distribution_and_parameter_count(chair_file, capsys):
    assert main(["query", str(chair_file), "P(C | A=T)", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0] == {"C": "T", "p": pytest.approx(22840 / 25757, abs=TOLERANCE)}
    assert main(["info", str(chair_file)]) == 0
    assert "free parameters: 10 (the full joint table needs 31)" in capsys.readouterr().out


# ------------------------------- §8 Bayes optimal and Gibbs classifiers
def hypotheses() -> bbn.Network:
    """EXAMPLES.md §8 as a network: the hypothesis H (posterior P(h | D)) → its answer V."""
    net = bbn.Network("Bayes optimal")
    net.add_variable("H", ["h1", "h2", "h3"], table=[0.4, 0.3, 0.3])
    net.add_variable("V", ["+", "-"], parents=["H"],
                     table={"h1": [1.0, 0.0], "h2": [0.0, 1.0], "h3": [0.0, 1.0]})
    return net


def test_bayes_optimal_answer_differs_from_the_map_hypothesis():
    net = hypotheses()
    # Σ_h P(v | h) P(h | D): the posterior of V with H summed out
    assert net.query("P(V)").to_dict() == pytest.approx({"+": 0.4, "-": 0.6}, abs=TOLERANCE)
    assert net.map(["V"])[0] == {"V": "-"}                       # Bayes optimal: −
    hypothesis, p = net.map(["H"])
    assert hypothesis == {"H": "h1"} and p == pytest.approx(0.4)   # MAP hypothesis h1 ...
    assert net.query("P(V=+ | H=h1)") == 1.0                       # ... which says +


def test_gibbs_classifier_answers_plus_with_probability_0_4():
    draws = bbn.sample(hypotheses(), 20_000, seed=8)   # draw h ~ P(h | D), answer h(x)
    share = float((draws["V"].astype(str) == "+").mean())
    assert abs(share - 0.4) < 5 * (0.4 * 0.6 / 20_000) ** 0.5  # within five standard errors

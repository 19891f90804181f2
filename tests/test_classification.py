"""Decisions (EXAMPLES.md §7), prediction with any network, Gaussian nodes, `bbn classify`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import DataError, ImpossibleEvidenceError, ModelError, QueryError
from bbn.engines.exact.continuous import gaussian_likelihood_factor
from bbn.tasks.classification import decide, expected_risk, loss_matrix, tokenize
from bbn.tasks.classification.text import WORD_PATTERN

LOSS = np.array([[0.0, 10.0], [1.0, 0.0]])  # λ01 = 10 (predict 0, truth 1), λ10 = 1


# ------------------------------------------------------------ EXAMPLES.md §7
def test_examples_7_minimum_risk_differs_from_map():
    posterior_ = np.array([[0.8, 0.2]])
    np.testing.assert_allclose(expected_risk(posterior_, LOSS), [[2.0, 0.8]])
    assert decide(posterior_, "risk", loss=LOSS).tolist() == [1]
    assert decide(posterior_, "map").tolist() == [0]


def test_zero_one_loss_risk_equals_map():
    rows = np.random.default_rng(0).dirichlet(np.ones(4), size=500)
    zero_one = 1.0 - np.eye(4)
    assert np.array_equal(decide(rows, "risk", loss=zero_one), decide(rows, "map"))


def test_ml_ignores_the_prior():
    rows = np.array([[0.6, 0.4]])
    assert decide(rows, "ml", prior=np.array([0.9, 0.1])).tolist() == [1]  # 0.67 vs 4
    with pytest.raises(DataError, match="prior"):
        decide(rows, "ml")


def test_loss_matrix_forms(tmp_path):
    classes = ["0", "1"]
    np.testing.assert_array_equal(loss_matrix({("0", "1"): 10}, classes), LOSS)
    frame = pd.DataFrame(LOSS, index=classes, columns=classes)
    np.testing.assert_array_equal(loss_matrix(frame.loc[["1", "0"], ["1", "0"]], classes), LOSS)
    path = tmp_path / "loss.csv"
    path.write_text("predicted,0,1\n0,0,10\n1,1,0\n")
    np.testing.assert_array_equal(loss_matrix(path, classes), LOSS)
    with pytest.raises(DataError, match="2×2"):
        loss_matrix(np.zeros((3, 3)), classes)
    with pytest.raises(DataError, match="did you mean 'no'"):
        loss_matrix({("yes", "noo"): 3}, ["yes", "no"])
    with pytest.raises(DataError, match="needs a loss matrix"):
        decide(np.ones((1, 2)) / 2, "risk")


def test_minimum_risk_through_the_classifier_and_the_network():
    # P(y=1 | x=a) = 1/5 = 0.2 from the counts (one feature, MLE)
    X = pd.DataFrame({"x": ["a"] * 5 + ["b"] * 5})
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    question = pd.DataFrame({"x": ["a"]})
    model = bbn.NaiveBayes(estimator="mle").fit(X, y)
    assert model.predict_proba(question)[0, 1] == pytest.approx(0.2)
    assert model.predict(question).tolist() == [0]
    risky = bbn.NaiveBayes(estimator="mle", decision="risk", loss=LOSS).fit(X, y)
    assert risky.predict(question).tolist() == [1]
    np.testing.assert_allclose(risky.expected_risk(question), [[2.0, 0.8]])
    net = model.network_
    assert bbn.predict(net, question, "class").tolist() == ["0"]
    assert bbn.predict(net, question, "class", decision="risk", loss=LOSS).tolist() == ["1"]
    ml = bbn.NaiveBayes(decision="ml").fit(X, y)  # P(a | 0) = 1 > P(a | 1) = 1/6
    assert ml.predict(question).tolist() == [0]


# ------------------------------------------------------- prediction, any network
def test_predict_proba_equals_one_query_per_row_with_missing_values(chair):
    data = bbn.sample(chair, 300, seed=4).astype(object)
    data = data.mask(np.random.default_rng(5).random(data.shape) < 0.3)
    data.index = [f"r{i}" for i in range(len(data))]
    table = bbn.predict_proba(chair, data, "C")
    assert list(table.columns) == ["T", "F"] and list(table.index) == list(data.index)
    for label, row in data.iterrows():
        evidence = {k: v for k, v in row.items() if isinstance(v, str) and k != "C"}
        np.testing.assert_allclose(table.loc[label].to_numpy(),
                                   chair.posterior(["C"], evidence).values, atol=1e-12)
    predicted = bbn.predict(chair, data, "C")
    assert predicted.name == "C" and set(predicted) <= {"T", "F"}
    assert np.array_equal(predicted.to_numpy(), np.where(table["T"] >= table["F"], "T", "F"))


def test_predict_reports_bad_input(chair):
    with pytest.raises(QueryError, match="did you mean 'A'"):
        bbn.predict(chair, pd.DataFrame({"B": ["T"]}), "a")
    with pytest.raises(DataError, match=r"column 'B', row 0: value 'yes'"):
        bbn.predict(chair, pd.DataFrame({"B": ["yes"]}), "C")
    unseen = bbn.predict_proba(chair, pd.DataFrame({"B": ["yes"], "A": ["T"]}), "C",
                               unseen="ignore")
    np.testing.assert_allclose(unseen.to_numpy()[0], chair.posterior(["C"], {"A": "T"}).values)


def test_predict_impossible_evidence_names_the_row():
    net = bbn.Network()
    net.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[1.0, 0.0], [0.5, 0.5]])
    net.add_variable("Z", ["a", "b"], parents=["X"], table=[[0.5, 0.5], [0.5, 0.5]])
    frame = pd.DataFrame({"Y": ["a", "b"]}, index=["fine", "broken"])
    with pytest.raises(ImpossibleEvidenceError, match="broken"):
        bbn.predict_proba(net, frame, "Z")


# ------------------------------------------------------------ Gaussian nodes
def gaussian_network() -> bbn.Network:
    net = bbn.Network("fruit")
    net.add_variable("kind", ["apple", "apricot"], table=[0.3, 0.7])
    net.add_gaussian_variable("weight", ["kind"], mean=[150.0, 40.0], variance=[400.0, 100.0])
    net.add_variable("colour", ["red", "orange"], parents=["kind"],
                     table=[[0.7, 0.3], [0.2, 0.8]])
    return net


def normal(x, mean, variance):
    return math.exp(-(x - mean) ** 2 / (2 * variance)) / math.sqrt(2 * math.pi * variance)


def test_gaussian_node_is_a_real_node():
    net = gaussian_network()
    assert net.is_gaussian("weight") and net.states("weight") == ()
    assert net.free_parameters() == 1 + 4 + 2 and net.validate() == [] and net.is_complete
    with pytest.raises(ModelError, match="continuous"):
        net.cpt("weight")
    with pytest.raises(ModelError, match="cannot be a parent"):
        net.add_variable("box", ["s", "l"], parents=["weight"])
    with pytest.raises(ModelError, match="variances > 0"):
        net.set_gaussian("weight", [1.0, 2.0], [1.0, 0.0])
    copy = net.copy()
    assert copy == net
    copy.set_gaussian("weight", [150.0, 41.0], [400.0, 100.0])
    assert copy != net


def test_posterior_given_a_continuous_value():
    net = gaussian_network()
    factor = gaussian_likelihood_factor(net.compiled(), "weight", 60.0)
    assert factor.variables == ("kind",)
    np.testing.assert_allclose(factor.values, [normal(60, 150, 400), normal(60, 40, 100)])
    apple = 0.3 * normal(60, 150, 400)
    apricot = 0.7 * normal(60, 40, 100)
    result = net.posterior(["kind"], {"weight": 60.0}).to_dict()
    assert result["apple"] == pytest.approx(apple / (apple + apricot), rel=1e-12)
    both = net.posterior(["kind"], {"weight": 60.0, "colour": "red"}).to_dict()
    apple, apricot = apple * 0.7, apricot * 0.2
    assert both["apple"] == pytest.approx(apple / (apple + apricot), rel=1e-12)
    colour = net.posterior(["colour"], {"weight": 60.0}).to_dict()
    assert colour["red"] == pytest.approx(result["apple"] * 0.7 + result["apricot"] * 0.2)
    far = net.posterior(["kind"], {"weight": 1e6}).to_dict()  # densities underflow; logs don't
    assert far["apple"] == pytest.approx(1.0)
    prior = net.posterior(["weight"], {})  # a continuous question: the mixture
    assert prior.components.weights.tolist() == pytest.approx([0.3, 0.7])
    assert prior.mean == pytest.approx(0.3 * 150 + 0.7 * 40)
    assert prior.variance == pytest.approx(0.3 * (400 + 150 ** 2) + 0.7 * (100 + 40 ** 2)
                                           - (0.3 * 150 + 0.7 * 40) ** 2)


def test_query_string_with_a_continuous_value():
    assert gaussian_network().query("P(kind=apple | weight=60)") == pytest.approx(
        gaussian_network().posterior(["kind"], {"weight": 60.0}).to_dict()["apple"])
    assert gaussian_network().query("P(kind | weight=60)").allclose(
        gaussian_network().posterior(["kind"], {"weight": 60.0}))
    with pytest.raises(bbn.QueryError, match="must be a number"):
        gaussian_network().query("P(kind | weight=heavy)")
    apple = gaussian_network().query("P(weight | kind=apple)")
    assert (apple.mean, apple.variance) == pytest.approx((150.0, 400.0))
    with pytest.raises(bbn.QueryError, match="continuous"):
        gaussian_network().query("P(weight=3 | kind=apple)")


def test_predict_with_gaussian_columns_equals_per_row_posteriors():
    net = gaussian_network()
    data = pd.DataFrame({"weight": [60.0, np.nan, 120.0, 20.0],
                         "colour": ["red", "orange", None, "red"]})
    table = bbn.predict_proba(net, data, "kind")
    for i, row in data.iterrows():
        evidence = {k: v for k, v in row.items() if not pd.isna(v)}
        np.testing.assert_allclose(table.iloc[i].to_numpy(),
                                   net.posterior(["kind"], evidence).values, atol=1e-12)


def test_learn_and_sample_gaussian_nodes():
    net = gaussian_network()
    data = bbn.sample(net, 50_000, seed=9)
    assert data["weight"].dtype == float
    learned = bbn.learn(net, data)
    mean, variance = learned.gaussian_parameters("weight")
    np.testing.assert_allclose(mean, [150, 40], rtol=0.01)
    np.testing.assert_allclose(variance, [400, 100], rtol=0.05)
    small = pd.DataFrame({"kind": ["apple", "apple", "apple", "apricot", "apricot"],
                          "weight": [1.0, 2.0, 6.0, 3.0, 5.0],
                          "colour": ["red"] * 5})
    mean, variance = bbn.learn(net, small).gaussian_parameters("weight")
    np.testing.assert_allclose(mean, [3.0, 4.0])
    np.testing.assert_allclose(variance, [7.0, 2.0])  # Σ(x − μ)² / (N_c − 1)
    _, population = bbn.learn(net, small, ddof=0).gaussian_parameters("weight")
    np.testing.assert_allclose(population, [14 / 3, 1.0])
    with pytest.raises(DataError, match=r"column 'weight', row 1: value 'heavy'"):
        bbn.learn(net, small.assign(weight=["1", "heavy", "2", "3", "4"]))


# --------------------------------------------------------------------- tokens
def test_tokeniser():
    assert tokenize("Hello, WORLD! it's 4:30 p.m.") == [
        "hello", ",", "world", "!", "it", "'", "s", "4", ":", "30", "p", ".", "m", "."]
    assert tokenize("Hello, WORLD! it's 4:30 p.m.", WORD_PATTERN) == [
        "hello", "world", "it", "s", "4", "30", "p", "m"]
    assert tokenize("WIN £1000!!! now") == ["win", "£", "1000", "!!!", "now"]
    assert tokenize(None) == [] and tokenize(float("nan")) == []


# -------------------------------------------------------------------- command
TENNIS_MODEL = """network tennis
variable play { yes, no }
variable outlook { sunny, overcast, rainy }
variable windy { true, false }
P(play) = 0.6, 0.4
P(outlook | play) { yes: 0.2, 0.4, 0.4;  no: 0.6, 0.0, 0.4 }
P(windy | play) { yes: 0.3, 0.7;  no: 0.6, 0.4 }
"""


def test_cli_classify_writes_predictions_and_scores(tmp_path, capsys):
    model = tmp_path / "tennis.bn"
    model.write_text(TENNIS_MODEL)
    data = tmp_path / "days.csv"
    data.write_text("outlook,windy,play\nsunny,true,no\novercast,false,yes\nrainy,,yes\n"
                    "sunny,false,yes\n")
    out = tmp_path / "predictions.csv"
    assert main(["classify", str(model), str(data), "--target", "play", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    result = pd.read_csv(out)
    assert list(result.columns) == ["predicted", "P(play=yes)", "P(play=no)"]
    net = bbn.load(model)
    expected = bbn.predict_proba(net, pd.read_csv(data, dtype=str), "play")
    np.testing.assert_allclose(result[["P(play=yes)", "P(play=no)"]].to_numpy(),
                               expected.to_numpy(), rtol=1e-9)
    # sunny, false: P(yes) ∝ 0.6·0.2·0.7 = 0.084 < P(no) ∝ 0.4·0.6·0.4 = 0.096
    assert result["predicted"].tolist() == ["no", "yes", "yes", "no"]
    assert "accuracy 0.750000 (3/4)" in printed
    matrix = printed[printed.index("true \\ predicted"):].splitlines()
    assert matrix[1].split() == ["yes", "2", "1"] and matrix[2].split() == ["no", "0", "1"]


def test_cli_classify_with_a_loss_file_and_errors(tmp_path, capsys):
    model = tmp_path / "tennis.bn"
    model.write_text(TENNIS_MODEL)
    data = tmp_path / "days.csv"
    data.write_text("outlook,windy\nsunny,false\n")
    # P(yes | sunny, false) = 0.084 / (0.084 + 0.096) = 0.467: MAP says no; a costly miss
    # of "yes" (λ(no, yes) = 5) turns the decision to yes
    loss = tmp_path / "loss.csv"
    loss.write_text("predicted,yes,no\nyes,0,1\nno,5,0\n")
    assert main(["classify", str(model), str(data), "--target", "play"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("no,")
    assert main(["classify", str(model), str(data), "--target", "play", "--loss",
                 str(loss)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("yes,")
    bad = tmp_path / "bad.csv"
    bad.write_text("outlook\nsunny\nfoggy\n")
    assert main(["classify", str(model), str(bad), "--target", "play"]) == 2
    err = capsys.readouterr().err
    assert "bad.csv: column 'outlook', line 3: value 'foggy'" in err and "Traceback" not in err
    impossible = tmp_path / "impossible.csv"
    impossible.write_text("outlook\novercast\n")
    zero = tmp_path / "zero.bn"
    zero.write_text(TENNIS_MODEL.replace("yes: 0.2, 0.4, 0.4", "yes: 0.5, 0.0, 0.5"))
    assert main(["classify", str(zero), str(impossible), "--target", "play"]) == 1
    assert "impossible evidence" in capsys.readouterr().err


# ------------------------------- Gaussian networks everywhere in the engine
def small_mixed_network() -> bbn.Network:
    net = bbn.Network("mixed")
    net.add_variable("A", ["T", "F"], table=[0.3, 0.7])
    net.add_gaussian_variable("x", ["A"], mean=[0.0, 1.0], variance=[1.0, 1.0])
    return net


def test_discrete_questions_on_a_network_with_a_gaussian_leaf():
    net = small_mixed_network()
    assert net.query("P(A=T)") == pytest.approx(0.3)           # the leaf sums out to 1
    assert net.mpe() == ({"A": "F"}, pytest.approx(0.7))
    # x = 2: weights N(2; 0, 1) and N(2; 1, 1), i.e. 0.3·e^-2 against 0.7·e^-0.5
    expected = 0.3 * np.exp(-2.0) / (0.3 * np.exp(-2.0) + 0.7 * np.exp(-0.5))
    assert net.query("P(A=T | x=2)") == pytest.approx(expected)
    for text in ("MAP(A | x=2)", "MPE(x=2)"):
        with pytest.raises(bbn.QueryError, match="'x' is continuous"):
            net.query(text)
    with pytest.raises(bbn.QueryError, match="continuous"):
        net.posterior(["A"], pd.DataFrame({"x": [1.0]}))


def test_a_failed_gaussian_variable_leaves_nothing_behind():
    net = small_mixed_network()
    with pytest.raises(bbn.ModelError, match="unknown variable 'Nope'"):
        net.add_gaussian_variable("y", ["Nope"])
    assert net.variables == ("A", "x")
    net.add_gaussian_variable("y", ["A"], mean=[0.0, 0.0], variance=[1.0, 2.0])  # free again
    assert net.variables == ("A", "x", "y")


# ------------------------------------------- the data edge (issue 11, item 12)
@pytest.mark.parametrize("missing", ["error", "drop", "em"])
def test_cli_learn_refuses_a_header_only_csv_for_every_missing_policy(
        tmp_path, capsys, chair_file, missing):
    data = tmp_path / "empty.csv"
    data.write_text("C,S,W,B,A\n")
    out = tmp_path / "learned.bn"
    assert main(["learn", str(chair_file), str(data), "--missing", missing, "-o", str(out)]) == 2
    assert f"{data}: no rows to learn from" in capsys.readouterr().err
    assert not out.exists()


def test_em_refuses_a_frame_without_rows(chair):
    from bbn.tasks.learning.missing import em

    with pytest.raises(DataError, match="no rows to learn from"):
        em(chair, pd.DataFrame({v: pd.Series([], dtype=str) for v in chair.variables}))


def test_duplicated_column_names_are_refused_at_the_data_edge(tmp_path, chair):
    data = tmp_path / "twice.csv"
    data.write_text("C,S,W,B,A,S\nT,T,T,T,T,F\n")
    with pytest.raises(DataError, match=r"twice.csv: two columns are named 'S' \(columns 2 "
                                        r"and 6\)"):
        bbn.learn(chair, data)
    frame = pd.DataFrame([["T"] * 6], columns=["C", "S", "W", "B", "A", "A"])
    for call in (lambda: bbn.learn(chair, frame), lambda: bbn.predict(chair, frame, "C"),
                 lambda: bbn.learn(chair, frame, missing="em")):
        with pytest.raises(DataError, match="two columns are named 'A'"):
            call()
    with pytest.raises(DataError, match="columns=: two columns are named 'x'"):
        bbn.learn(chair, np.array([["T"] * 5]), columns=["C", "S", "x", "x", "A"])


def test_integer_column_names_reach_the_variables(chair):
    net = bbn.Network("ints")
    net.add_variable("0", ["a", "b"])
    net.add_variable("1", ["a", "b"], parents=["0"])
    frame = pd.DataFrame({0: ["a", "a", "b", "b"], 1: ["a", "b", "b", "b"]})
    learned = bbn.learn(net, frame)
    np.testing.assert_allclose(learned.cpt_array("1"), [[0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(bbn.predict_proba(learned, frame.drop(columns=[1]), "1").to_numpy(),
                               [[0.5, 0.5], [0.5, 0.5], [0.0, 1.0], [0.0, 1.0]])

"""What a notebook shows: the HTML of factors, classifiers, trees, comparisons and
independence answers (read back cell by cell), ``Factor.to_pandas``, and batch answers as
DataFrames indexed like the evidence.

The numbers are the chair network's (tests/example_networks.py; P(C=T | A=T) = 0.886749,
../shared/EXAMPLES.md) or counted by hand from the few rows a test fits.
"""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import bbn


class _Cells(HTMLParser):
    """Every table of a page as rows of cell texts (header rows included)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.text: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.text = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.text)
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text += data


def tables(page: str) -> list[list[list[str]]]:
    parser = _Cells()
    parser.feed(page)
    return parser.tables


# ------------------------------------------------------------------ factors
def test_a_posterior_shows_as_a_table_of_its_states(chair):
    posterior = chair.query("P(C | A=T)")
    (table,) = tables(posterior._repr_html_())
    assert table == [["C", "probability"], ["T", "0.886749"], ["F", "0.113251"]]
    assert 'width:88.7px' in posterior._repr_html_()   # the bar: 100 px × 0.886749


def test_a_joint_shows_one_column_per_variable(chair):
    joint = chair.posterior(["C", "S"], {"A": "T"})
    (table,) = tables(joint._repr_html_())
    assert table[0] == ["C", "S", "probability"]
    assert [row[:2] for row in table[1:]] == [["T", "T"], ["T", "F"], ["F", "T"], ["F", "F"]]
    values = [float(row[2]) for row in table[1:]]
    np.testing.assert_allclose(values, joint.values.ravel(), atol=5e-7)
    assert sum(values) == pytest.approx(1.0, abs=1e-5)


def test_a_large_factor_shows_its_first_rows_and_says_how_many_are_left():
    big = bbn.Factor(["X"], {"X": [f"s{i}" for i in range(250)]}, np.full(250, 1 / 250))
    page = big._repr_html_()
    assert len(tables(page)[0]) == 1 + 200
    assert page.endswith("<p>… 50 more rows</p>")


def test_to_pandas_a_series_for_one_variable_a_frame_for_a_joint(chair):
    series = chair.query("P(C | A=T)").to_pandas()
    assert series.index.name == "C" and series.name == "probability"
    assert series.round(6).to_dict() == {"T": 0.886749, "F": 0.113251}
    joint = chair.posterior(["C", "S"], {"A": "T"})
    frame = joint.to_pandas()
    assert list(frame.columns) == ["C", "S", "probability"]
    lookup = frame.set_index(["C", "S"])["probability"]
    for (c, s), p in joint.to_dict().items():
        assert lookup[(c, s)] == p


def test_a_factor_of_no_variable_is_one_row():
    scalar = bbn.Factor([], {}, np.array(0.5))
    assert scalar.to_pandas().to_dict("list") == {"probability": [0.5]}
    assert tables(scalar._repr_html_()) == [[["probability"], ["0.500000"]]]


def test_an_estimate_shows_its_standard_errors(chair):
    estimate = chair.posterior("C", {"A": "T"}, method=bbn.LikelihoodWeighting(
        samples=20_000, seed=1))
    frame = estimate.to_pandas()
    assert list(frame.columns) == ["C", "probability", "standard error"]
    np.testing.assert_array_equal(frame["standard error"], estimate.standard_error)
    assert frame["probability"][0] == pytest.approx(0.886749, abs=5 * estimate.standard_error[0])
    (table,) = tables(estimate._repr_html_())
    assert table[0] == ["C", "probability", "standard error"]
    assert float(table[1][2]) == pytest.approx(estimate.standard_error[0], abs=5e-7)


# ------------------------------------------------------------------ batches
def test_a_batch_answer_is_a_frame_indexed_like_the_evidence(chair):
    frame = pd.DataFrame({"A": ["T", "F", None]}, index=["ann", "bob", "cy"])
    answer = chair.posterior("C", frame)
    assert isinstance(answer, pd.DataFrame)
    assert list(answer.index) == ["ann", "bob", "cy"] and answer.columns.name == "C"
    assert answer.loc["ann", "T"] == pytest.approx(0.886749, abs=5e-7)
    assert answer.loc["cy", "T"] == pytest.approx(0.8, abs=1e-12)      # the prior P(C=T)
    every = chair.posteriors(frame)
    pd.testing.assert_frame_equal(every["C"], answer)
    assert list(every["A"].loc["ann"]) == [1.0, 0.0]                  # observed
    # ndarray in, ndarray out: the engine's coded batch is unchanged
    coded = chair.engine.posterior_of_cases(["C"], {"A": np.array([0, 1, -1])})
    np.testing.assert_allclose(coded, answer.to_numpy(), atol=1e-12)


# ------------------------------------------------------------------ classifiers
def test_naive_bayes_shows_its_fitted_tables():
    X = pd.DataFrame({"a": ["u", "v", "u", "u"], "w": [1.0, 2.0, 3.0, 5.0]})
    model = bbn.NaiveBayes(features={"a": "categorical", "w": "gaussian"},
                           estimator="mle").fit(X, ["x", "x", "y", "y"])
    prior, a, w = tables(model._repr_html_())
    assert prior == [["x", "y"], ["0.500000", "0.500000"]]
    # P(a | class) counted: x has u, v; y has u, u
    assert a == [["class", "u", "v"], ["x", "0.500000", "0.500000"],
                 ["y", "1.000000", "0.000000"]]
    # w | class: means 1.5 and 4, variances (ddof=1) 0.5 and 2
    assert w == [["class", "mean", "variance"], ["x", "1.500000", "0.500000"],
                 ["y", "4.000000", "2.000000"]]
    assert bbn.NaiveBayes()._repr_html_() == "<pre>NaiveBayes()</pre>"


def test_a_decision_tree_shows_its_picture_or_its_rules(monkeypatch):
    tree = bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "b"])
    page = tree._repr_html_()
    assert page.startswith("<svg") or page.startswith("<pre>")
    assert "1.5" in page                                     # the threshold (1 + 2) / 2
    monkeypatch.setattr("bbn.core.pictures._LENT", {})        # no picture lent: the text
    assert tree._repr_html_() == "<pre>x0 &lt;= 1.5: a (a 1)\nx0 &gt; 1.5: b (b 2)</pre>"


# ------------------------------------------------------------------ structure
def test_a_comparison_shows_each_arc_with_its_verdict(chair):
    learned = bbn.Network("learned")
    for v in chair.variables:
        learned.add_variable(v, chair.states(v))
    for p, c in [("W", "C"), ("C", "B"), ("S", "B"), ("S", "W")]:   # W→C reversed, S→W extra
        learned.add_edge(p, c)
    comparison = bbn.compare(learned, chair)
    (table,) = tables(comparison._repr_html_())
    verdicts = {(row[0], row[1]): row[2] for row in table[1:]}
    assert verdicts == {("C", "B"): "correct", ("S", "B"): "correct",
                        ("W", "C"): "reversed", ("B", "A"): "missing",
                        ("S", "W"): "extra"}
    assert f"distance {comparison.shd} (DAGs)" in comparison._repr_html_()
    assert comparison.shd == 3


def test_an_independence_answer_shows_its_trail(chair):
    dependent = chair.query("C _|_ S | A")
    page = dependent._repr_html_()
    assert "<b>dependent</b>" in page and "C → B ← S" in page
    assert tables(page) == [[["node", "passes because"],
                             ["B", "a collider whose descendant A is observed"]]]
    assert chair.query("C _|_ S")._repr_html_() == "<p>C ⟂ S: <b>independent</b></p>"

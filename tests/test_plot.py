"""bbn.plot: each plot rendered to PNG (Agg), and what it plots read back and checked
against the numbers it shows — the posterior, its standard errors, EM's log-likelihood
trace, a hill climb's scores (its first the empty graph's score, computed apart), and a
classifier's ROC and calibration curve (scikit-learn's ``roc_curve``, ``roc_auc_score``
and ``calibration_curve`` as the oracle).

matplotlib is the optional extra ``bbn[plot]`` (in the ``test`` extra): without it these
tests skip, except under CI, where they fail.
"""

from __future__ import annotations

import io
import os
import sys

import numpy as np
import pandas as pd
import pytest

import bbn

if os.environ.get("CI") != "true":
    pytest.importorskip("matplotlib", reason="matplotlib (bbn[plot]) is not installed")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as pyplot  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

import bbn.plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    pyplot.close("all")


def png(ax) -> bytes:
    """The figure of ``ax`` as PNG bytes (what a notebook shows)."""
    out = io.BytesIO()
    ax.figure.savefig(out, format="png")
    data = out.getvalue()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    return data


def test_a_posterior_plots_as_bars_of_its_probabilities(chair):
    answer = chair.query("P(C | A=T)")
    ax = bbn.plot.posterior(answer)
    png(ax)
    assert [bar.get_height() for bar in ax.patches] == answer.values.tolist()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["T", "F"]
    assert ax.get_title() == "P(C)"
    assert ax.containers[0].errorbar is None          # exact: no error bars


def test_a_joint_posterior_plots_one_bar_per_joint_state(chair):
    joint = chair.posterior(["C", "S"], {"A": "T"})
    ax = bbn.plot.posterior(joint, title="C and S")
    png(ax)
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == joint.values.ravel().tolist()
    assert sum(heights) == pytest.approx(1.0, abs=1e-12)
    assert ax.get_xlabel() == "C, S" and ax.get_title() == "C and S"


def test_an_estimate_plots_with_one_standard_error_each_way(chair):
    estimate = chair.posterior("C", {"A": "T"}, method=bbn.LikelihoodWeighting(
        samples=5_000, seed=2))
    ax = bbn.plot.posterior(estimate)
    png(ax)
    assert [bar.get_height() for bar in ax.patches] == estimate.values.tolist()
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    segments = bars.errorbar.lines[2][0].get_segments()
    for segment, height, error in zip(segments, estimate.values, estimate.standard_error):
        (_, low), (_, high) = segment
        assert low == pytest.approx(height - error) and high == pytest.approx(height + error)
    assert estimate.standard_error.min() > 0


def test_the_em_trace_is_the_log_likelihood_by_iteration(chair):
    rows = bbn.sample(chair, 400, seed=4)
    rows = rows.mask(np.random.default_rng(5).random(rows.shape) < 0.2)   # 20% missing
    result = bbn.tasks.learning.em(chair, rows, max_iter=30)
    ax = bbn.plot.em_trace(result)
    png(ax)
    x, y = ax.lines[0].get_xdata(), ax.lines[0].get_ydata()
    assert y.tolist() == result.log_likelihood and x.tolist() == list(range(len(y)))
    assert len(y) >= 3 and np.all(np.diff(y) >= -1e-9)     # EM never lowers it


def test_the_score_trace_of_a_hill_climb(chair):
    rows = bbn.sample(chair, 2000, seed=1)
    learned = bbn.learn_structure(rows, method="hc", score="bic")
    ax = bbn.plot.score_trace(learned)
    png(ax)
    scores = ax.lines[0].get_ydata()
    assert scores.tolist() == learned.statistics_["score_trace"]
    empty = bbn.Network("empty")
    for v in rows.columns:
        empty.add_variable(v, sorted(rows[v].unique()))
    assert scores[0] == pytest.approx(bbn.structure_score(empty, rows, "bic"), rel=1e-9)
    assert scores.max() == pytest.approx(learned.score_, rel=1e-12)
    assert learned.score_ == pytest.approx(bbn.structure_score(learned, rows, "bic"), rel=1e-9)
    with pytest.raises(bbn.DataError, match="records no scores"):
        bbn.plot.score_trace(bbn.learn_structure(rows, method="tree"))


def _classifier():
    """NaiveBayes on chair's samples: C from A, S, W (scores with ties)."""
    rows = bbn.sample(bbn.load("models/chair.bn"), 600, seed=3)
    X, y = rows[["A", "S", "W"]], rows["C"]
    return bbn.NaiveBayes().fit(X.iloc[:400], y.iloc[:400]), X.iloc[400:], y.iloc[400:]


def test_roc_agrees_with_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics")
    model, X, y = _classifier()
    ax = bbn.plot.roc(model, X, y, positive="T")
    png(ax)
    scores = model.predict_proba(X)[:, list(model.classes_).index("T")]
    fpr, tpr, _ = metrics.roc_curve(y == "T", scores, drop_intermediate=False)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), fpr, atol=1e-12)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), tpr, atol=1e-12)
    auc = metrics.roc_auc_score(y == "T", scores)
    assert ax.get_legend().get_texts()[0].get_text() == f"AUC = {auc:.3f}"


def test_calibration_agrees_with_scikit_learn():
    calibration = pytest.importorskip("sklearn.calibration")
    model, X, y = _classifier()
    ax = bbn.plot.calibration(model, X, y, bins=5)              # positive: classes_[-1]
    png(ax)
    positive = model.classes_[-1]
    scores = model.predict_proba(X)[:, -1]
    fraction, mean = calibration.calibration_curve(y == positive, scores, n_bins=5)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), mean, atol=1e-12)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), fraction, atol=1e-12)


def test_bad_plot_inputs_are_named():
    model, X, y = _classifier()
    with pytest.raises(bbn.DataError, match="positive class 'maybe'"):
        bbn.plot.roc(model, X, y, positive="maybe")
    with pytest.raises(bbn.DataError, match="rows of class 'T' and of other"):
        bbn.plot.roc(model, X, pd.Series(["T"] * len(X)), positive="T")
    with pytest.raises(bbn.DataError, match="bins must be"):
        bbn.plot.calibration(model, X, y, bins=0)
    with pytest.raises(bbn.DataError, match="a trace is a list of numbers"):
        bbn.plot.em_trace([])


def test_without_matplotlib_the_error_names_the_extra(monkeypatch, chair):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(bbn.BBNError, match=r"pip install 'bbn\[plot\]'"):
        bbn.plot.posterior(chair.query("P(C)"))
    figure, given = pyplot.subplots()      # imported before: an Axes given still draws
    assert bbn.plot.posterior(chair.query("P(C)"), ax=given) is given

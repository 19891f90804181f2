"""Learning and sampling conditional linear Gaussians.

Oracles: scikit-learn 1.9.1's ``LinearRegression`` fitted on each discrete
configuration's rows (coefficients and intercept), the residual sum of squares computed
here for the variance; the network's own joint normal for the sample's moments (within
four standard errors).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn


def _network() -> bbn.Network:
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.3, 0.7])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 0.5])
    net.add_gaussian_variable("w", mean=1.0, variance=4.0)
    net.add_gaussian_variable("y", ["x", "C", "w"], mean=[1.0, -1.0], variance=[0.5, 2.0],
                              weights={"x": [1.0, 3.0], "w": -0.5})
    return net


def _structure() -> bbn.Network:
    net = bbn.Network()
    net.add_variable("C", ["a", "b"])
    net.add_gaussian_variable("x", ["C"])
    net.add_gaussian_variable("w")
    net.add_gaussian_variable("y", ["x", "C", "w"])
    return net


def test_least_squares_equals_sklearn_per_configuration():
    linear_model = pytest.importorskip("sklearn.linear_model", reason="the regression oracle")
    data = bbn.sample(_network(), 5000, seed=3)
    learned = bbn.learn(_structure(), data)
    mean, variance = learned.gaussian_parameters("y")
    weights = learned.gaussian_weights("y")
    for i, c in enumerate(["a", "b"]):
        rows = data[data["C"] == c]
        features, target = rows[["x", "w"]].to_numpy(), rows["y"].to_numpy()
        fit = linear_model.LinearRegression().fit(features, target)
        assert mean[i] == pytest.approx(fit.intercept_, rel=1e-8, abs=1e-9)
        assert [weights["x"][i], weights["w"][i]] == pytest.approx(fit.coef_, rel=1e-8)
        residual = target - fit.predict(features)
        assert variance[i] == pytest.approx(residual @ residual / (len(rows) - 1), rel=1e-8)
    # the sample came from these numbers: the estimates are near them
    assert weights["x"].tolist() == pytest.approx([1.0, 3.0], abs=0.1)
    assert weights["w"].tolist() == pytest.approx([-0.5, -0.5], abs=0.05)


def test_learning_in_chunks_equals_learning_at_once(tmp_path):
    data = bbn.sample(_network(), 3000, seed=4)
    path = tmp_path / "rows.csv"
    data.to_csv(path, index=False)
    whole = bbn.learn(_structure(), data)
    chunked = bbn.learn(_structure(), path, chunksize=700)
    for v in ("x", "w", "y"):
        for a, b in zip(whole.gaussian_parameters(v), chunked.gaussian_parameters(v)):
            np.testing.assert_allclose(a, b, rtol=1e-9)
    np.testing.assert_allclose(whole.gaussian_weights("y")["x"],
                               chunked.gaussian_weights("y")["x"], rtol=1e-9)


def test_samples_have_the_network_moments():
    net = _network()
    data = bbn.sample(net, 40000, seed=5)
    joint = net.posterior(["x", "w", "y"])
    values = data[["x", "w", "y"]].to_numpy()
    sd = np.sqrt(np.diagonal(joint.covariance))
    assert np.all(np.abs(values.mean(axis=0) - joint.mean) < 4 * sd / np.sqrt(len(values)))
    np.testing.assert_allclose(np.cov(values.T), joint.covariance, rtol=0.05, atol=0.05)
    conditional = net.posterior("y", {"C": "a"})
    rows = data.loc[data["C"] == "a", "y"]
    assert abs(rows.mean() - conditional.mean) < 4 * conditional.std / np.sqrt(len(rows))


def test_too_few_rows_for_a_regression_are_refused():
    data = pd.DataFrame({"C": ["a", "b", "b", "b"], "x": [0.0, 1.0, 2.0, 3.0],
                         "w": [1.0, 2.0, 0.0, 1.0], "y": [1.0, 2.0, 3.0, 5.0]})
    with pytest.raises(bbn.DataError, match="'y' has 1 row"):
        bbn.learn(_structure(), data)


def test_em_with_continuous_parents_refuses_missing_discrete_and_continuous_together():
    data = bbn.sample(_network(), 200, seed=6)
    data.loc[3, "y"] = np.nan
    assert bbn.learn(_structure(), data, missing="em").gaussian_weights("y")
    data.loc[4, "C"] = None
    with pytest.raises(bbn.DataError, match="misses the continuous 'y' while discrete"):
        bbn.learn(_structure(), data, missing="em")
    data.loc[3, "y"] = 0.0  # missing discrete values alone: tests/test_hybrid_em.py
    assert bbn.learn(_structure(), data, missing="em").gaussian_weights("y")
    assert bbn.learn(_structure(), data, missing="drop").gaussian_weights("y")


def test_gaussian_bic_equals_the_residuals_and_prefers_the_true_structure():
    data = bbn.sample(_network(), 4000, seed=7)
    terms = bbn.structure_score(_structure(), data, "bic", per_variable=True)
    log_l = 0.0
    for c in ("a", "b"):  # y | x, w at each C: least squares residuals, σ̂² = RSS / n
        rows = data[data["C"] == c]
        design = np.column_stack([np.ones(len(rows)), rows["x"], rows["w"]])
        fitted, *_ = np.linalg.lstsq(design, rows["y"].to_numpy(), rcond=None)
        residual = rows["y"].to_numpy() - design @ fitted
        variance = residual @ residual / len(rows)
        log_l += -0.5 * len(rows) * (np.log(2 * np.pi * variance) + 1)
    assert terms["y"] == pytest.approx(log_l - 0.5 * (2 + 2) * 2 * np.log(4000), rel=1e-9)
    empty = bbn.Network()
    empty.add_variable("C", ["a", "b"])
    for v in ("x", "w", "y"):
        empty.add_gaussian_variable(v)
    assert bbn.structure_score(_structure(), data, "bic") > bbn.structure_score(empty, data,
                                                                                "bic")
    with pytest.raises(bbn.ModelError, match="scored by loglik, bic, aic, not 'bdeu'"):
        bbn.structure_score(_structure(), data, "bdeu")

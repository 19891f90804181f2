"""Bayesian learning of (conditional) linear Gaussians: the normal–inverse-gamma prior.

Oracles: the closed form computed here per configuration with numpy (the textbook
formula, one configuration at a time), its two limits (strength → 0: least squares;
strength → ∞: the prior mean), and scikit-learn's ``Ridge``: with m0 = 0 and V0 = I / s
the posterior mean m_n = (s I + ZᵀZ)⁻¹ Zᵀx is ridge regression with penalty α = s on the
design Z = (1, y) with no separate (unpenalised) intercept — ``Ridge(alpha=s,
fit_intercept=False)`` on the columns (1, y_1, ..., y_m). (``BayesianRidge`` would be the
same posterior mean with λ/α = s, but it re-estimates α and λ, so Ridge is the fixed-prior
oracle.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError
from bbn.tasks.learning.conjugate import NormalInverseGamma


def _structure() -> bbn.Network:
    net = bbn.Network("clg")
    net.add_variable("C", ["a", "b", "c"])
    net.add_variable("S", ["lo", "hi"])
    net.add_gaussian_variable("y1")
    net.add_gaussian_variable("y2", ["C"])
    net.add_gaussian_variable("x", ["C", "S", "y1", "y2"])
    return net


def _data(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, rows)
    s = rng.integers(0, 2, rows)
    y1 = rng.normal(0, 1, rows)
    y2 = rng.normal(c - 1.0, 1.0)
    x = 0.5 + c - s + (1 + c) * y1 - 0.5 * y2 + rng.normal(0, 0.3 + 0.2 * s, rows)
    return pd.DataFrame({"C": np.array(["a", "b", "c"])[c], "S": np.array(["lo", "hi"])[s],
                         "y1": y1, "y2": y2, "x": x})


def _hand(z: np.ndarray, x: np.ndarray, m0: np.ndarray, v0: np.ndarray, a0: float,
          b0: float) -> tuple[np.ndarray, float]:
    """The textbook NIG posterior for one configuration: (m_n, b_n / (a_n − 1))."""
    v0_inv = np.linalg.inv(v0)
    vn = np.linalg.inv(v0_inv + z.T @ z)
    mn = vn @ (v0_inv @ m0 + z.T @ x)
    an = a0 + len(x) / 2
    bn = b0 + 0.5 * (x @ x + m0 @ v0_inv @ m0 - mn @ np.linalg.inv(vn) @ mn)
    return mn, bn / (an - 1)


def _learned(net: bbn.Network, variable: str, c: int, s: int):
    mean, variance = (np.asarray(a) for a in net.gaussian_parameters(variable))
    weights = net.gaussian_weights(variable)
    return (mean[c, s], variance[c, s],
            np.array([np.asarray(weights[p])[c, s] for p in ("y1", "y2")]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_the_closed_form_per_configuration(seed):
    rows = _data(60, seed)
    prior = NormalInverseGamma(strength=2.5, mean=0.3, weight=-0.2, shape=3.0, scale=0.7)
    learned = bbn.learn(_structure(), rows, bbn.BDeu(gaussian=prior))
    m0 = np.array([0.3, -0.2, -0.2])
    for c, cs in enumerate("abc"):
        for s, ss in enumerate(["lo", "hi"]):
            part = rows[(rows.C == cs) & (rows.S == ss)]
            z = np.column_stack([np.ones(len(part)), part.y1, part.y2])
            mn, variance = _hand(z, part.x.to_numpy(), m0, np.eye(3) / 2.5, 3.0, 0.7)
            mu, var, b = _learned(learned, "x", c, s)
            assert abs(mu - mn[0]) < 1e-10 and np.allclose(b, mn[1:], atol=1e-10)
            assert abs(var - variance) < 1e-10
    # a Gaussian without continuous parents: z = 1
    mean, variance = (np.asarray(a) for a in learned.gaussian_parameters("y2"))
    for c, cs in enumerate("abc"):
        values = rows.y2[rows.C == cs].to_numpy()
        mn, var = _hand(np.ones((len(values), 1)), values, np.array([0.3]), np.eye(1) / 2.5,
                        3.0, 0.7)
        assert abs(mean[c] - mn[0]) < 1e-10 and abs(variance[c] - var) < 1e-10
    # the discrete tables are BDeu's (ess 1): (n_c + 1/3) / (N + 1)
    counts = rows.C.value_counts().reindex(list("abc")).to_numpy()
    assert np.allclose(learned.cpt_array("C"), (counts + 1 / 3) / (len(rows) + 1), atol=1e-12)


def test_weak_prior_is_least_squares_and_strong_prior_is_the_prior_mean():
    rows = _data(200, 3)
    least = bbn.learn(_structure(), rows, ddof=0)
    weak = bbn.learn(_structure(), rows, bbn.BDeu(gaussian=NormalInverseGamma(
        strength=1e-13, shape=1.0, scale=1e-13)))
    for v in ("x", "y2"):
        for a, b in zip(least.gaussian_parameters(v), weak.gaussian_parameters(v), strict=True):
            assert np.allclose(a, b, rtol=0, atol=1e-9)   # σ² → RSS / n with a0 = 1, b0 → 0
    for p in ("y1", "y2"):
        assert np.allclose(least.gaussian_weights("x")[p], weak.gaussian_weights("x")[p],
                           rtol=0, atol=1e-9)
    strong = bbn.learn(_structure(), rows, bbn.BDeu(gaussian=NormalInverseGamma(
        strength=1e12, mean=4.0, weight=-3.0)))
    assert np.allclose(strong.gaussian_parameters("x")[0], 4.0, atol=1e-7)
    for p in ("y1", "y2"):
        assert np.allclose(strong.gaussian_weights("x")[p], -3.0, atol=1e-7)


def test_few_rows_the_prior_matters_and_an_empty_configuration_keeps_it():
    net = bbn.Network()
    net.add_variable("D", ["u", "v"])
    net.add_gaussian_variable("y")
    net.add_gaussian_variable("x", ["D", "y"])
    # two rows at D = u: least squares would fit a line exactly (and refuse: no variance)
    rows = pd.DataFrame({"D": ["u", "u"], "y": [0.0, 1.0], "x": [1.0, 3.0]})
    with pytest.raises(DataError):
        bbn.learn(net, rows)
    learned = bbn.learn(net, rows, bbn.BDeu(gaussian=NormalInverseGamma(strength=1.0)))
    # by hand: ZᵀZ + I = [[3, 1], [1, 2]], Zᵀx = (4, 3): m_n = (1, 1);
    # b_n = 1 + (10 − (1·4 + 1·3)) / 2 = 2.5, a_n = 3: σ² = 1.25
    mean, variance = learned.gaussian_parameters("x")
    assert np.allclose(mean, [1.0, 0.0]) and np.allclose(variance, [1.25, 1.0])
    assert np.allclose(learned.gaussian_weights("x")["y"], [1.0, 0.0])
    with pytest.raises(DataError, match="shape above 1"):
        bbn.learn(net, rows, bbn.BDeu(gaussian=NormalInverseGamma(shape=1.0)))


def test_posterior_mean_weights_equal_sklearn_ridge():
    linear_model = pytest.importorskip("sklearn.linear_model")
    rows = _data(150, 4)
    for strength in (0.1, 3.0, 40.0):
        learned = bbn.learn(_structure(), rows, bbn.BDeu(
            gaussian=NormalInverseGamma(strength=strength)))
        for c, cs in enumerate("abc"):
            for s, ss in enumerate(["lo", "hi"]):
                part = rows[(rows.C == cs) & (rows.S == ss)]
                z = np.column_stack([np.ones(len(part)), part.y1, part.y2])
                ridge = linear_model.Ridge(alpha=strength, fit_intercept=False,
                                           solver="cholesky").fit(z, part.x)
                mu, _, b = _learned(learned, "x", c, s)
                assert np.allclose([mu, *b], ridge.coef_, rtol=0, atol=1e-10)


def test_settings_are_checked():
    with pytest.raises(DataError, match="strength"):
        NormalInverseGamma(strength=0.0)
    with pytest.raises(DataError, match="finite mean"):
        NormalInverseGamma(mean=float("nan"))
    with pytest.raises(DataError, match="NormalInverseGamma"):
        bbn.BDeu(gaussian={"strength": 1.0})
    rows = _data(30, 5)
    with pytest.raises(DataError, match="complete rows only"):
        bbn.learn(_structure(), rows, bbn.BDeu(gaussian=NormalInverseGamma()), missing="em")

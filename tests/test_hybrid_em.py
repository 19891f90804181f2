"""EM for CLG networks with missing discrete values (bbn.tasks.learning.hybrid_em).

Oracles: the E-step enumerated here row by row in plain Python (scipy's normal density,
the configurations of each row's missing variables listed one by one); the generating
parameters of a large sample; scikit-learn's ``GaussianMixture`` (a 2-D full-covariance
mixture is the CLG  C → x, C → y, x → y  with C hidden: x | C normal, y | C, x a
regression — the same weighted maximum-likelihood M-step reparameterised, so the same
iterates from the same start).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError
from bbn.tasks.learning.hybrid_em import _Rows, hybrid_em, responsibilities


def _network(seed: int) -> bbn.Network:
    rng = np.random.default_rng(seed)
    net = bbn.Network("hybrid")
    net.add_variable("A", ["a0", "a1"])
    net.add_variable("B", ["b0", "b1", "b2"], parents=["A"])
    net.set_cpt("A", rng.dirichlet([2, 2]))
    net.set_cpt("B", rng.dirichlet([2, 2, 2], size=2))
    net.add_gaussian_variable("y", ["A"], mean=rng.normal(0, 2, 2), variance=rng.uniform(0.5, 2, 2))
    net.add_gaussian_variable("x", ["B", "y"], mean=rng.normal(0, 2, 3),
                              variance=rng.uniform(0.3, 1, 3),
                              weights={"y": rng.normal(0, 1.5, 3)})
    return net


def _holes(rows: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = rows.copy()
    for v in ("A", "B"):
        rows.loc[rng.random(len(rows)) < fraction, v] = None
    return rows


def _brute(net: bbn.Network, rows: pd.DataFrame):
    """Per row: {configuration (a, b): posterior} and log P(row), by enumeration."""
    from scipy.stats import norm

    a_states, b_states = net.states("A"), net.states("B")
    pa, pb = np.asarray(net.cpt_array("A")), np.asarray(net.cpt_array("B"))
    my, vy = (np.asarray(t) for t in net.gaussian_parameters("y"))
    mx, vx = (np.asarray(t) for t in net.gaussian_parameters("x"))
    bx = np.asarray(net.gaussian_weights("x")["y"])
    posts, logs = [], []
    for _, row in rows.iterrows():
        a_options = [a_states.index(row.A)] if isinstance(row.A, str) else range(2)
        b_options = [b_states.index(row.B)] if isinstance(row.B, str) else range(3)
        joint = {}
        for a, b in itertools.product(a_options, b_options):
            joint[a, b] = (pa[a] * pb[a, b] * norm.pdf(row.y, my[a], np.sqrt(vy[a]))
                           * norm.pdf(row.x, mx[b] + bx[b] * row.y, np.sqrt(vx[b])))
        total = sum(joint.values())
        posts.append({k: p / total for k, p in joint.items()})
        logs.append(np.log(total))
    return posts, float(np.sum(logs))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_e_step_equals_enumeration(seed):
    net = _network(seed)
    rows = _holes(bbn.sample(net, 40, seed=seed), 0.4, seed)
    weights, log_likelihood = responsibilities(net, _Rows(net, rows, "data"))
    posts, brute_log = _brute(net, rows)
    assert abs(log_likelihood - brute_log) < 1e-10 * max(1.0, abs(brute_log))
    for r, post in enumerate(posts):
        expected = np.zeros((2, 3))
        for (a, b), p in post.items():
            expected[a, b] = p
        assert np.allclose(weights[r].reshape(2, 3), expected, rtol=0, atol=1e-10)


def test_e_step_equals_the_exact_engine():
    # each row's posterior of A and of B, asked of the CLG engine with the row as evidence
    net = _network(5)
    rows = _holes(bbn.sample(net, 25, seed=5), 0.5, 5)
    weights = responsibilities(net, _Rows(net, rows, "data"))[0].reshape(-1, 2, 3)
    for r, row in rows.iterrows():
        evidence = {"x": row.x, "y": row.y} | {v: row[v] for v in ("A", "B")
                                                 if isinstance(row[v], str)}
        for v, axis in (("A", 1), ("B", 0)):
            engine = np.asarray(net.posterior([v], evidence).values).ravel()
            assert np.allclose(weights[r].sum(axis=axis), engine, rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", [3, 4])
def test_log_likelihood_never_decreases(seed):
    net = _network(seed)
    rows = _holes(bbn.sample(net, 500, seed=seed), 0.3, seed)
    result = hybrid_em(net, rows, tol=1e-10, max_iter=60, seed=seed)
    steps = np.diff(result.log_likelihood)
    assert len(steps) > 5 and steps.min() > -1e-8 * abs(result.log_likelihood[-1])


def test_recovers_the_generating_parameters():
    truth = _network(7)
    rows = _holes(bbn.sample(truth, 20_000, seed=7), 0.25, 8)
    fitted = bbn.learn(truth, rows, missing="em", tol=1e-8, max_iter=300)
    # 20,000 rows, a quarter of A and B missing: tables within 0.02, regressions 0.05
    assert np.allclose(fitted.cpt_array("A"), truth.cpt_array("A"), atol=0.02)
    assert np.allclose(fitted.cpt_array("B"), truth.cpt_array("B"), atol=0.02)
    for v in ("x", "y"):
        for got, want in zip(fitted.gaussian_parameters(v), truth.gaussian_parameters(v),
                             strict=True):
            assert np.allclose(got, want, atol=0.05)
    assert np.allclose(fitted.gaussian_weights("x")["y"], truth.gaussian_weights("x")["y"],
                       atol=0.05)


def test_hidden_parent_is_sklearn_gaussian_mixture():
    mixture = pytest.importorskip("sklearn.mixture")
    rng = np.random.default_rng(11)
    n = 600
    c = rng.integers(0, 2, n)
    x = rng.normal(np.where(c == 1, 2.0, -1.0), 1.0)
    y = np.where(c == 1, 1.0 - x, 0.5 * x) + rng.normal(0, 0.5, n)
    data = np.column_stack([x, y])
    means = np.array([[-0.5, 0.0], [1.5, -0.5]])
    covariances = np.array([[[1.0, 0.2], [0.2, 1.0]], [[1.5, -0.3], [-0.3, 0.8]]])
    weights = np.array([0.4, 0.6])
    start = bbn.Network()
    start.add_variable("C", ["c0", "c1"])
    start.set_cpt("C", weights)
    start.add_gaussian_variable("x", ["C"], mean=means[:, 0], variance=covariances[:, 0, 0])
    slope = covariances[:, 1, 0] / covariances[:, 0, 0]
    start.add_gaussian_variable("y", ["C", "x"], mean=means[:, 1] - slope * means[:, 0],
                                variance=covariances[:, 1, 1] - slope * covariances[:, 1, 0],
                                weights={"x": slope})
    steps = 25
    result = hybrid_em(start, pd.DataFrame({"x": x, "y": y}), tol=0.0, max_iter=steps,
                       start=start)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = mixture.GaussianMixture(2, covariance_type="full", reg_covar=0.0, tol=0.0,
                                     max_iter=steps, weights_init=weights, means_init=means,
                                     precisions_init=np.linalg.inv(covariances)).fit(data)
    ours = result.network
    assert abs(result.log_likelihood[-1] - gm.score(data) * n) < 1e-6
    assert np.allclose(ours.cpt_array("C"), gm.weights_, atol=1e-8)
    assert np.allclose(ours.gaussian_parameters("x")[0], gm.means_[:, 0], atol=1e-8)
    gm_slope = gm.covariances_[:, 1, 0] / gm.covariances_[:, 0, 0]
    assert np.allclose(ours.gaussian_weights("y")["x"], gm_slope, atol=1e-8)


def test_refusals():
    net = _network(0)
    rows = _holes(bbn.sample(net, 50, seed=0), 0.3, 0)
    rows.loc[rows.A.notna().idxmax(), "x"] = np.nan
    with pytest.raises(DataError, match="misses the continuous 'x' while discrete"):
        bbn.learn(net, rows, missing="em")

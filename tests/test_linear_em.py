"""EM for linear Gaussian / CLG parameters with missing continuous values: the E-step
against numerical integration, the fit against the complete-data fit, the trace."""

import math

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.tasks.learning.linear_em import _Rows, expected_grams, linear_em

integrate = pytest.importorskip("scipy.integrate")


def _clg() -> bbn.Network:
    net = bbn.Network()
    net.add_variable("S", ["lo", "hi"], table=[0.4, 0.6])
    net.add_gaussian_variable("a", mean=1.0, variance=1.0)
    net.add_gaussian_variable("b", ["S", "a"], mean=[0.0, 2.0], variance=[0.5, 1.5],
                              weights={"a": [1.0, -1.0]})
    net.add_gaussian_variable("c", ["a", "b"], mean=0.5, variance=0.3,
                              weights={"a": 0.7, "b": -0.4})
    return net


def _parameters(net, v):
    mean, variance = net.gaussian_parameters(v)
    weights = [w.ravel() for w in net.gaussian_weights(v).values()]
    return np.concatenate([mean.ravel(), variance.ravel(), *weights])


def test_em_with_holes_recovers_the_complete_data_fit():
    net = _clg()
    data = bbn.sample(net, 20_000, seed=1)
    complete = bbn.learn(net, data, ddof=0)
    rng = np.random.default_rng(2)
    holes = data.copy()
    for column in "abc":
        holes.loc[rng.random(len(holes)) < 0.3, column] = np.nan
    result = linear_em(net, holes)
    assert result.converged and result.iterations < 50
    assert np.all(np.diff(result.log_likelihood) >= -1e-9 * abs(result.log_likelihood[-1]))
    for v in "abc":  # 30% of each column missing: within 0.03 of the complete-data fit
        assert _parameters(result.network, v) == pytest.approx(
            _parameters(complete, v), abs=0.03)
        assert _parameters(result.network, v) == pytest.approx(_parameters(net, v), abs=0.06)
    assert bbn.learn(net, holes, missing="em") == result.network


def test_em_on_complete_rows_is_least_squares_in_one_step():
    net = _clg()
    data = bbn.sample(net, 500, seed=4)
    result = linear_em(net, data)
    complete = bbn.learn(net, data, ddof=0)
    for v in "abc":
        assert _parameters(result.network, v) == pytest.approx(_parameters(complete, v),
                                                               rel=1e-9, abs=1e-12)
    assert result.iterations == 1


def test_e_step_equals_numerical_integration_on_a_tiny_case():
    # x ~ N(1, 2), y | x ~ N(-1 + 0.5 x, 0.7); rows with y missing, x missing, both seen
    net = bbn.Network()
    net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    net.add_gaussian_variable("y", ["x"], mean=-1.0, variance=0.7, weights={"x": 0.5})
    rows = pd.DataFrame({"x": [0.3, np.nan, 2.0, np.nan], "y": [np.nan, 0.4, -0.2, -1.5]})

    def p_x(x):
        return math.exp(-(x - 1) ** 2 / 4) / math.sqrt(4 * math.pi)

    def p_y(y, x):
        return math.exp(-(y + 1 - 0.5 * x) ** 2 / 1.4) / math.sqrt(1.4 * math.pi)

    # expected sums of 1, x, y, x², x·y, y² and the observed-data log-likelihood
    sums = dict.fromkeys(["1", "x", "y", "xx", "xy", "yy"], 0.0)
    log_likelihood = 0.0
    for x, y in rows.itertuples(index=False):
        if np.isnan(y):
            def moment(f, x=x):
                return integrate.quad(lambda t: f(x, t) * p_y(t, x), -40, 40)[0]
            log_likelihood += math.log(p_x(x))
        elif np.isnan(x):
            evidence = integrate.quad(lambda t, y=y: p_x(t) * p_y(y, t), -40, 40)[0]

            def moment(f, y=y, evidence=evidence):
                return integrate.quad(lambda t: f(t, y) * p_x(t) * p_y(y, t),
                                      -40, 40)[0] / evidence
            log_likelihood += math.log(evidence)
        else:
            def moment(f, x=x, y=y):
                return f(x, y)
            log_likelihood += math.log(p_x(x) * p_y(y, x))
        for key, f in [("1", lambda u, v: 1.0), ("x", lambda u, v: u), ("y", lambda u, v: v),
                       ("xx", lambda u, v: u * u), ("xy", lambda u, v: u * v),
                       ("yy", lambda u, v: v * v)]:
            sums[key] += moment(f)
    grams, found = expected_grams(net, _Rows(net, rows, "rows"))
    assert found == pytest.approx(log_likelihood, rel=1e-9)
    g = grams["y"].matrix[0]  # over (1, x, y)
    expected = np.array([[sums["1"], sums["x"], sums["y"]],
                         [sums["x"], sums["xx"], sums["xy"]],
                         [sums["y"], sums["xy"], sums["yy"]]])
    assert g == pytest.approx(expected, rel=1e-8)
    assert grams["x"].matrix[0] == pytest.approx(expected[:2, :2], rel=1e-8)


def test_a_hidden_gaussian_column_is_learned_up_to_its_scale():
    # a factor model: h hidden, three noisy copies observed; EM's log-likelihood rises
    net = bbn.Network()
    net.add_gaussian_variable("h", mean=0.0, variance=1.0)
    for v, w in zip("pqr", (1.0, 2.0, -1.0)):
        net.add_gaussian_variable(v, ["h"], mean=0.0, variance=0.2, weights={"h": w})
    data = bbn.sample(net, 3000, seed=8).drop(columns=["h"])
    result = linear_em(net, data, max_iter=500)
    trace = np.array(result.log_likelihood)
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    learned = result.network
    # the covariance of the observed columns is reproduced: w_i w_j Var(h)
    w = np.array([float(learned.gaussian_weights(v)["h"]) for v in "pqr"])
    var_h = float(learned.gaussian_parameters("h")[1])
    model = np.outer(w, w) * var_h + np.diag([float(learned.gaussian_parameters(v)[1])
                                              for v in "pqr"])
    assert model == pytest.approx(np.cov(data[list("pqr")].to_numpy().T, bias=True),
                                  abs=0.02)


def test_the_estimator_learns_the_complete_discrete_tables():
    data = bbn.sample(_clg(), 200, seed=1)
    data.loc[::3, "b"] = np.nan
    lo = int((data["S"] == "lo").sum())
    learned = bbn.learn(_clg(), data, missing="em", estimator=bbn.Laplace(alpha=50.0))
    assert learned.cpt_array("S") == pytest.approx([(lo + 50) / 300, (200 - lo + 50) / 300])

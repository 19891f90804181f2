"""Continuous parents: linear Gaussian and conditional linear Gaussian (CLG) networks.

Oracles: the joint normal in information (canonical) form, conditioned by its precision
matrix — a different route from the engine's covariance and Schur complement; pgmpy
1.1.2's ``LinearGaussianBayesianNetwork.predict_probability``; pyAgrum 3.3.1's
``pyagrum.clg`` variable elimination; CLG mixtures enumerated configuration by
configuration here, with the discrete joint read off the full table.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import bbn
from bbn.core.errors import ModelError, QueryError


def random_linear_gaussian(n: int, seed: int, density: float = 0.3):
    """A random linear Gaussian network over x0..x{n-1} and its (B, c, σ²)."""
    rng = np.random.default_rng(seed)
    b = np.tril(rng.normal(0, 0.7, (n, n)) * (rng.random((n, n)) < density), k=-1)
    c, var = rng.normal(0, 2, n), rng.uniform(0.2, 2.0, n)
    net = bbn.Network()
    for i in range(n):
        parents = [f"x{j}" for j in range(i) if b[i, j] != 0]
        net.add_gaussian_variable(f"x{i}", parents, mean=c[i], variance=var[i],
                                  weights={p: b[i, int(p[1:])] for p in parents})
    return net, b, c, var


def information_form_posterior(b, c, var, targets, observed, values):
    """Mean and covariance of x_T | x_E = values from the precision
    Λ = (I − B)ᵀ D⁻¹ (I − B) and η = (I − B)ᵀ D⁻¹ c: condition by slicing the canonical
    form, then marginalise by inverting the remaining precision."""
    n = len(c)
    a = np.eye(n) - b
    precision = a.T @ np.diag(1 / var) @ a
    eta = a.T @ (c / var)
    rest = [i for i in range(n) if i not in observed]
    lam_rr = precision[np.ix_(rest, rest)]
    h = eta[rest] - precision[np.ix_(rest, observed)] @ np.asarray(values, dtype=float)
    cov = np.linalg.inv(lam_rr)
    mean = cov @ h
    pick = [rest.index(t) for t in targets]
    return mean[pick], cov[np.ix_(pick, pick)]


@pytest.mark.parametrize("n, seed", [(3, 0), (8, 1), (20, 2), (50, 3)])
def test_linear_gaussian_equals_the_information_form(n, seed):
    net, b, c, var = random_linear_gaussian(n, seed)
    rng = np.random.default_rng(seed + 100)
    order = rng.permutation(n)
    observed = sorted(order[: n // 3].tolist())
    targets = sorted(order[n // 3: n // 3 + 4].tolist())
    values = rng.normal(0, 3, len(observed))
    evidence = {f"x{i}": float(v) for i, v in zip(observed, values)}
    answer = net.posterior([f"x{i}" for i in targets], evidence)
    mean, cov = information_form_posterior(b, c, var, targets, observed, values)
    np.testing.assert_allclose(answer.mean, mean, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(answer.covariance, cov, rtol=1e-8, atol=1e-8)
    single = net.posterior(f"x{targets[0]}", evidence)
    assert single.mean == pytest.approx(mean[0], rel=1e-8, abs=1e-8)
    assert single.variance == pytest.approx(cov[0, 0], rel=1e-8)
    sd = math.sqrt(cov[0, 0])
    assert single.cdf(mean[0] + sd) == pytest.approx(0.841344746, abs=1e-8)
    assert single.pdf(mean[0]) == pytest.approx(1 / math.sqrt(2 * math.pi * cov[0, 0]))
    assert single.interval(mean[0] - 1.96 * sd, mean[0] + 1.96 * sd) == pytest.approx(
        0.9500042, abs=1e-6)


def test_query_language_and_all_posteriors():
    net, b, c, var = random_linear_gaussian(6, 5, density=0.6)
    mean, cov = information_form_posterior(b, c, var, [0], [5], [1.5])
    answer = net.query("P(x0 | x5=1.5)")
    assert answer.mean == pytest.approx(mean[0]) and answer.variance == pytest.approx(cov[0, 0])
    every = net.posteriors({"x5": 1.5})
    assert set(every) == {f"x{i}" for i in range(5)}
    assert every["x0"].mean == pytest.approx(mean[0])


pgmpy = pytest.importorskip("pgmpy", reason="pgmpy is the linear Gaussian oracle")


def test_linear_gaussian_equals_pgmpy():
    import pandas as pd
    from pgmpy.factors.continuous import LinearGaussianCPD
    from pgmpy.models import LinearGaussianBayesianNetwork

    n = 12
    net, b, c, var = random_linear_gaussian(n, 11, density=0.4)
    model = LinearGaussianBayesianNetwork()
    model.add_nodes_from([f"x{i}" for i in range(n)])
    cpds = []
    for i in range(n):
        parents = [f"x{j}" for j in range(i) if b[i, j] != 0]
        model.add_edges_from([(p, f"x{i}") for p in parents])
        cpds.append(LinearGaussianCPD(f"x{i}", [c[i], *[b[i, int(p[1:])] for p in parents]],
                                      math.sqrt(var[i]), parents))
    model.add_cpds(*cpds)
    observed = {"x3": 0.7, "x9": -1.2, "x11": 2.5}
    missing, mu, cov = model.predict_probability(pd.DataFrame([observed]))
    answer = net.posterior(missing, observed)
    np.testing.assert_allclose(answer.mean, mu[0], atol=1e-6)
    np.testing.assert_allclose(answer.covariance, cov, atol=1e-6)


def test_linear_gaussian_equals_pyagrum_clg():
    clg = pytest.importorskip("pyagrum.clg", reason="pyAgrum's CLG is an oracle")
    import pyagrum

    # seeded (unseeded, one run in six had pyAgrum's sigma 1e-4 away from bbn's; seeds
    # 0-29 all agree to 1e-6)
    pyagrum.initRandom(7)
    model = clg.randomCLG(7, [f"v{i}" for i in range(7)])
    net = bbn.Network()
    for name in (model.variable(i).name() for i in model.topologicalOrder()):
        node = model.idFromName(name)
        parents = [model.variable(p).name() for p in model.parents(node)]
        variable = model.variable(node)
        net.add_gaussian_variable(name, parents, mean=variable.mu(),
                                  variance=variable.sigma() ** 2,
                                  weights={p: model.coefArc(p, name) for p in parents})
    inference = clg.CLGVariableElimination(model)
    inference.updateEvidence({"v6": 1.0, "v2": -0.5})
    for target in ("v0", "v3", "v5"):
        expected = inference.posterior(target)
        answer = net.posterior(target, {"v6": 1.0, "v2": -0.5})
        assert answer.mean == pytest.approx(expected.mu(), rel=1e-6, abs=1e-6)
        assert math.sqrt(answer.variance) == pytest.approx(expected.sigma(), rel=1e-6)


def _clg_network() -> bbn.Network:
    """C, S discrete; x | C; y | x, S (weight depending on S); z | y, x."""
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.3, 0.7])
    net.add_variable("S", ["lo", "mid", "hi"], parents=["C"],
                     table=[[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    net.add_variable("W", ["F", "T"], parents=["S"], table=[[0.9, 0.1], [0.5, 0.5],
                                                              [0.2, 0.8]])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 0.5])
    net.add_gaussian_variable("y", ["x", "S"], mean=[1.0, 0.0, -1.0],
                              variance=[0.5, 1.0, 2.0], weights={"x": [0.5, 1.0, 2.0]})
    net.add_gaussian_variable("z", ["y", "x"], mean=0.3, variance=0.4,
                              weights={"y": -0.7, "x": 0.2})
    return net


def _clg_by_enumeration(evidence_discrete, x_obs):
    """The mixture over (C, S) of x, y, z, each component's normal built here."""
    p_c = {"a": 0.3, "b": 0.7}
    p_s = {"a": [0.5, 0.3, 0.2], "b": [0.1, 0.3, 0.6]}
    p_w = [[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]]
    components = []
    for ci, c in enumerate("ab"):
        for s in range(3):
            weight = p_c[c] * p_s[c][s]
            if "W" in evidence_discrete:
                weight *= p_w[s][evidence_discrete["W"]]
            if "S" in evidence_discrete and evidence_discrete["S"] != s:
                weight = 0.0
            mx, vx = [0.0, 2.0][ci], [1.0, 0.5][ci]
            by, my, vy = [0.5, 1.0, 2.0][s], [1.0, 0.0, -1.0][s], [0.5, 1.0, 2.0][s]
            # (x, y, z) jointly: linear maps of independent noises
            a = np.array([[1, 0, 0], [by, 1, 0], [0.2 - 0.7 * by, -0.7, 1]])
            mean = np.array([mx, my + by * mx, 0.3 + 0.2 * mx - 0.7 * (my + by * mx)])
            cov = a @ np.diag([vx, vy, 0.4]) @ a.T
            components.append((weight, mean, cov, (c, s)))
    return components


def test_clg_equals_the_enumerated_mixture():
    net = _clg_network()
    for discrete, found in (({}, {"z": 0.5}), ({"W": 1}, {"y": 2.0}),
                            ({"S": 2}, {"z": -1.0, "x": 1.0})):
        evidence = {**{k: net.states(k)[v] for k, v in discrete.items()}, **found}
        components = _clg_by_enumeration(discrete, found)
        names = ["x", "y", "z"]
        observed = [names.index(v) for v in found]
        values = np.array(list(found.values()))
        weights, means, variances = [], [], []
        target = next(i for i in range(3) if i not in observed)
        for w, m, cov, _ in components:
            s_ee = cov[np.ix_(observed, observed)]
            d = values - m[observed]
            density = math.exp(-0.5 * d @ np.linalg.solve(s_ee, d)) / math.sqrt(
                (2 * math.pi) ** len(observed) * np.linalg.det(s_ee))
            gain = cov[target, observed] @ np.linalg.inv(s_ee)
            weights.append(w * density)
            means.append(m[target] + gain @ d)
            variances.append(cov[target, target] - gain @ cov[observed, target])
        weights = np.array(weights) / sum(weights)
        answer = net.posterior(names[target], evidence)
        mean = weights @ np.array(means)
        variance = weights @ (np.array(variances) + np.array(means) ** 2) - mean ** 2
        assert answer.mean == pytest.approx(mean, rel=1e-9)
        assert answer.variance == pytest.approx(variance, rel=1e-9)
        kept = weights > 0
        np.testing.assert_allclose(np.sort(answer.components.means),
                                   np.sort(np.array(means)[kept]), rtol=1e-9)
        for point in (-1.0, 0.5, 3.0):
            expected = sum(w * math.exp(-(point - m) ** 2 / (2 * v)) / math.sqrt(2 * math.pi * v)
                           for w, m, v in zip(weights, means, variances) if w > 0)
            assert answer.pdf(point) == pytest.approx(expected, rel=1e-9)
            cdf = sum(w * 0.5 * (1 + math.erf((point - m) / math.sqrt(2 * v)))
                      for w, m, v in zip(weights, means, variances) if w > 0)
            assert answer.cdf(point) == pytest.approx(cdf, rel=1e-9)
        # the discrete side: P(C | evidence) from the same weights
        p_c = {c: sum(w for w, comp in zip(weights, components) if comp[3][0] == c)
               for c in "ab"}
        assert net.posterior("C", evidence).to_dict()["a"] == pytest.approx(p_c["a"], rel=1e-9)


def test_refusals_say_why():
    net = _clg_network()
    with pytest.raises(ModelError, match="cannot be a parent of 'D'.*logistic or softmax"):
        net.add_variable("D", ["F", "T"], parents=["x"])
    with pytest.raises(QueryError, match="continuous and discrete variables separately"):
        net.posterior(["x", "C"], {"z": 1.0})
    with pytest.raises(ModelError, match="needs a weight for its continuous parent"):
        net.add_gaussian_variable("u", ["x"], mean=0.0, variance=1.0)
    with pytest.raises(ModelError, match="weights of 'u' name \\['q'\\]"):
        net.add_gaussian_variable("u", ["x"], mean=0.0, variance=1.0, weights={"x": 1, "q": 2})
    assert "u" not in net.variables


def test_too_many_configurations_are_refused():
    net = bbn.Network()
    parents = [f"D{i}" for i in range(13)]
    for d in parents:
        net.add_variable(d, ["0", "1"], table=[0.5, 0.5])
    net.add_gaussian_variable("x", parents, mean=np.zeros((2,) * 13),
                              variance=np.ones((2,) * 13))
    net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
    with pytest.raises(ModelError, match="8192 configurations; exact answers enumerate at "
                                         "most 4096"):
        net.posterior("y")
    # a leaf question keeps the discrete engine's weighting: no enumeration
    assert net.posterior("D0", {"x": 0.0}).to_dict()["0"] == pytest.approx(0.5)


def test_pure_discrete_evidence_on_a_linear_network_sums_out_the_gaussians():
    net = _clg_network()
    a = 0.3 * (0.5 * 0.1 + 0.3 * 0.5 + 0.2 * 0.8)   # P(C = a, W = T)
    b = 0.7 * (0.1 * 0.1 + 0.3 * 0.5 + 0.6 * 0.8)   # P(C = b, W = T)
    assert net.posterior("C", {"W": "T"}).values.tolist() == pytest.approx(
        [a / (a + b), b / (a + b)], rel=1e-12)


def test_bn_language_linear_means_round_trip_and_info(tmp_path):
    net = _clg_network()
    text = bbn.dumps(net)
    assert "  lo: N(1.0 + 0.5*x, 0.5)" in text
    assert "P(z | y, x) = N(0.3 + -0.7*y + 0.2*x, 0.4)" in text
    back = bbn.loads(text)
    assert back == net
    assert back.posterior("x", {"z": 0.5}).mean == pytest.approx(
        net.posterior("x", {"z": 0.5}).mean, rel=1e-12)
    with pytest.raises(bbn.ParseError, match=r"'q' in the mean of 'z' is not one of its "
                                             r"continuous parents \['y', 'x'\]"):
        bbn.loads(text.replace("0.2*x", "0.2*q"))
    assert net.gaussian_text("y") == ["S=lo: N(1 + 0.5·x, 0.5)", "S=mid: N(0 + 1·x, 1)",
                                      "S=hi: N(-1 + 2·x, 2)"]
    # (μ, σ², a weight per continuous parent) per discrete configuration: x 2·2, y 3·3,
    # z 4·1; the tables of C, S, W: 1 + 2·2 + 1·3
    assert net.free_parameters() == 4 + 9 + 4 + 1 + 4 + 3


def test_children_declared_before_their_parents():
    """The engine places each Gaussian after its continuous parents whatever the
    declaration order: x ~ N(1, 2), y = 0.5 + 2x + N(0, 1) declared y first gives
    E[y] = 2.5, Var y = 4·2 + 1 = 9, Cov(x, y) = 4, and x | y = 3 ~ N(1 + 4/9 · 0.5,
    2 − 16/9) (hand-derived)."""
    net = bbn.Network()
    net.add_gaussian_variable("y", mean=0.0, variance=1.0)
    net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    net.set_parents("y", ["x"])
    net.set_gaussian("y", 0.5, 1.0, weights={"x": 2.0})
    joint = net.posterior(["y", "x"])
    np.testing.assert_allclose(joint.mean, [2.5, 1.0], rtol=1e-12)
    np.testing.assert_allclose(joint.covariance, [[9.0, 4.0], [4.0, 2.0]], rtol=1e-12)
    given = net.posterior("x", {"y": 3.0})
    assert given.mean == pytest.approx(1 + 2 / 9, rel=1e-12)
    assert given.variance == pytest.approx(2 / 9, rel=1e-12)

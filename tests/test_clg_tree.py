"""CLG networks answered by the component tree (the strong junction tree), not by
enumerating every discrete configuration.

Oracles: the enumeration (:class:`LinearGaussian`, itself checked against brute-force
mixtures in test_linear_gaussian) on small random CLG networks; on a 30-step switching
model (a binary Markov chain D_t, X_t | D_t Gaussian, Y_t | X_t linear Gaussian, 2^30
configurations, which the enumeration refuses) the forward–backward recursion written out
here with Y_t | D_t's closed-form normal, and the bivariate normal conditioning of X_t.
"""

from __future__ import annotations

import numpy as np
import pytest

import bbn
from bbn.core.errors import ModelError
from bbn.engines.exact.conditional_gaussian import (
    ComponentTree,
    components,
    continuous_model,
)
from bbn.engines.exact.linear_gaussian import LinearGaussian
from bbn.engines.protocol import Evidence


def random_clg(seed: int, discrete: int = 5, continuous: int = 7) -> bbn.Network:
    rng = np.random.default_rng(seed)
    net = bbn.Network()
    for i in range(discrete):
        parents = [f"D{j}" for j in range(i) if rng.random() < 0.4][:2]
        rows = rng.dirichlet([1, 1], size=2 ** len(parents))
        net.add_variable(f"D{i}", ["a", "b"], parents=parents,
                         table=rows.reshape([2] * len(parents) + [2]))
    for i in range(continuous):
        heads = [f"D{j}" for j in rng.choice(discrete, int(rng.integers(0, 3)), replace=False)]
        parents = [f"x{j}" for j in range(i) if rng.random() < 0.3][:2]
        shape = [2] * len(heads)
        net.add_gaussian_variable(
            f"x{i}", heads + parents, mean=rng.normal(0, 1, shape),
            variance=rng.uniform(0.5, 2, shape),
            weights={p: rng.normal(0, 1, shape) for p in parents} or None)
    return net


EVIDENCE = [Evidence({}, {"x1": 0.5, "x4": -1.0}, {}), Evidence({"D0": 1}, {"x6": 2.0}, {}),
            Evidence({"D3": 0}, {}, {})]


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_the_tree_equals_the_enumeration(seed):
    net = random_clg(seed)
    view, engine = net.compiled(), net.engine
    enumeration, tree = LinearGaussian(view), ComponentTree(view)
    assert len(tree.components) > 1
    for evidence in EVIDENCE:
        for targets in (["D2"], ["D0", "D4"]):
            np.testing.assert_allclose(tree.answer(engine, targets, evidence),
                                       enumeration.answer(engine, targets, evidence),
                                       rtol=1e-9, atol=1e-13)
        for targets in (["x3"], ["x0", "x5"], ["x2", "x3"]):
            ours, oracle = (m.answer(engine, targets, evidence) for m in (tree, enumeration))
            np.testing.assert_allclose(ours.mean, oracle.mean, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(ours.covariance, oracle.covariance, rtol=1e-9,
                                       atol=1e-12)
            point = np.full(len(targets), 0.3)
            assert ours.pdf(point) == pytest.approx(oracle.pdf(point), rel=1e-9)


def switching(steps: int = 30, seed: int = 3):
    """D_t a binary chain, X_t | D_t ~ N(m, v), Y_t = c + b X_t + N(0, s²)."""
    rng = np.random.default_rng(seed)
    prior, move = np.array([0.6, 0.4]), np.array([[0.8, 0.2], [0.3, 0.7]])
    m = np.array([-1.0, 1.0]) + rng.normal(0, 0.3, (steps, 2))
    v = rng.uniform(0.5, 1.5, (steps, 2))
    b, c, s2 = rng.normal(1, 0.3, steps), rng.normal(0, 0.5, steps), rng.uniform(0.3, 1, steps)
    net = bbn.Network()
    for t in range(steps):
        net.add_variable(f"D{t}", ["a", "b"], parents=[f"D{t - 1}"] if t else [],
                         table=move if t else prior)
        net.add_gaussian_variable(f"X{t}", [f"D{t}"], mean=m[t], variance=v[t])
        net.add_gaussian_variable(f"Y{t}", [f"X{t}"], mean=c[t], variance=s2[t],
                                  weights={f"X{t}": b[t]})
    y = rng.normal(0, 1.5, steps)
    return net, (prior, move, m, v, b, c, s2), y


def forward_backward(prior, move, likelihood):
    steps = len(likelihood)
    alpha, beta = np.zeros((steps, 2)), np.ones((steps, 2))
    alpha[0] = prior * likelihood[0] / (prior * likelihood[0]).sum()
    for t in range(1, steps):
        alpha[t] = (alpha[t - 1] @ move) * likelihood[t]
        alpha[t] /= alpha[t].sum()
    for t in range(steps - 2, -1, -1):
        beta[t] = move @ (likelihood[t + 1] * beta[t + 1])
        beta[t] /= beta[t].sum()
    posterior = alpha * beta
    return posterior / posterior.sum(axis=1, keepdims=True)


def normal(x, mean, variance):
    return np.exp(-0.5 * (x - mean) ** 2 / variance) / np.sqrt(2 * np.pi * variance)


def test_thirty_switches_answered_exactly():
    net, (prior, move, m, v, b, c, s2), y = switching()
    evidence = {f"Y{t}": float(y[t]) for t in range(len(y))}
    assert isinstance(continuous_model(net.compiled()), ComponentTree)
    with pytest.raises(ModelError, match="enumerate at most 4096"):
        LinearGaussian(net.compiled())
    mean_y = c[:, None] + b[:, None] * m  # Y_t | D_t
    variance_y = b[:, None] ** 2 * v + s2[:, None]
    posterior = forward_backward(prior, move, normal(y[:, None], mean_y, variance_y))
    for t in (0, 17, 29):
        assert net.posterior(f"D{t}", evidence).values == pytest.approx(posterior[t], rel=1e-9)
    j = 11  # X_j | y_j, d: the bivariate normal, mixed over P(D_j | y)
    gain = b[j] * v[j] / variance_y[j]
    means = m[j] + gain * (y[j] - mean_y[j])
    variances = v[j] - gain * b[j] * v[j]
    answer = net.posterior("X11", evidence)
    expected = (posterior[j] * means).sum()
    assert answer.mean == pytest.approx(expected, rel=1e-9)
    assert answer.variance == pytest.approx(
        (posterior[j] * (variances + means ** 2)).sum() - expected ** 2, rel=1e-9)
    assert answer.components.weights == pytest.approx(posterior[j], rel=1e-9)
    joint = net.posterior(["X3", "X20"], evidence)  # two components: 4 mixed normals
    assert joint.components.weights.shape == (4,)
    assert joint.mean == pytest.approx([answer_mean(net, "X3", evidence),
                                        answer_mean(net, "X20", evidence)], rel=1e-9)
    everything = net.posteriors(evidence)
    assert everything["D5"].values == pytest.approx(posterior[5], rel=1e-9)
    assert everything["X11"].mean == pytest.approx(expected, rel=1e-9)


def answer_mean(net, variable, evidence):
    return net.posterior(variable, evidence).mean


def test_findings_on_thirty_leaves_do_not_ask_for_their_parents_joint():
    net, (prior, move, m, v, *_), y = switching()
    evidence = {f"X{t}": float(y[t]) for t in range(len(y))}
    posterior = forward_backward(prior, move, normal(y[:, None], m, v))
    assert net.posterior("D17", evidence).values == pytest.approx(posterior[17], rel=1e-9)


def test_a_component_with_too_many_heads_is_refused():
    net = bbn.Network()
    for i in range(13):
        net.add_variable(f"D{i}", ["a", "b"], table=[0.5, 0.5])
        parents = [f"D{i}"] + ([f"x{i - 1}"] if i else [])
        net.add_gaussian_variable(f"x{i}", parents, mean=[0.0, 1.0], variance=[1.0, 1.0],
                                  weights={f"x{i - 1}": 0.5} if i else None)
    net.add_variable("E", ["a", "b"], table=[0.5, 0.5])
    net.add_gaussian_variable("z", ["E"], mean=[0.0, 1.0], variance=[1.0, 1.0])
    assert [len(c) for c in components(net.compiled())] == [13, 1]
    with pytest.raises(ModelError, match="connected and have discrete parents with 8192"):
        net.posterior("z", {"x3": 1.0})


def test_few_configurations_are_enumerated():
    assert isinstance(continuous_model(random_clg(1).compiled()), LinearGaussian)


def test_a_component_without_discrete_parents_beside_the_switches():
    net, _, y = switching(20)
    net.add_gaussian_variable("p", mean=1.0, variance=2.0)
    net.add_gaussian_variable("q", ["p"], mean=0.0, variance=1.0, weights={"p": 1.0})
    readings = {f"Y{t}": float(y[t]) for t in range(20)}
    alone = net.posterior("p", {**readings, "q": 2.0})  # 1 + (2/3)(2 − 1), 2 − 4/3
    assert (alone.mean, alone.variance) == pytest.approx((5 / 3, 2 / 3), rel=1e-12)
    both = net.posterior(["p", "X3"], {**readings, "q": 2.0})
    x3 = net.posterior("X3", readings)
    assert both.mean == pytest.approx([5 / 3, x3.mean], rel=1e-12)
    np.testing.assert_allclose(both.covariance, [[2 / 3, 0.0], [0.0, x3.variance]],
                               rtol=1e-9, atol=1e-15)
    assert net.posterior("D3", {**readings, "q": 2.0}).values == pytest.approx(
        net.posterior("D3", readings).values, rel=1e-12)


def test_the_tree_equals_pyagrum_clg():
    """pyAgrum 3.3.1's CLG has no discrete variables: two of its random models side by
    side, answered by the tree (two components with empty heads)."""
    clg = pytest.importorskip("pyagrum.clg", reason="pyAgrum's CLG is an oracle")
    import pyagrum

    pyagrum.initRandom(11)
    models = [clg.randomCLG(6, [f"{side}{i}" for i in range(6)]) for side in "uv"]
    net = bbn.Network()
    for model in models:
        for name in (model.variable(i).name() for i in model.topologicalOrder()):
            node = model.idFromName(name)
            parents = [model.variable(p).name() for p in model.parents(node)]
            variable = model.variable(node)
            net.add_gaussian_variable(name, parents, mean=variable.mu(),
                                      variance=variable.sigma() ** 2,
                                      weights={p: model.coefArc(p, name) for p in parents})
    findings = {"u5": 1.0, "u1": -0.5, "v4": 0.7}
    tree = ComponentTree(net.compiled())
    for model, side in zip(models, "uv"):
        inference = clg.CLGVariableElimination(model)
        inference.updateEvidence({v: x for v, x in findings.items() if v[0] == side})
        for target in [f"{side}0", f"{side}2", f"{side}3"]:
            expected = inference.posterior(target)
            answer = tree.answer(net.engine, [target], Evidence({}, findings, {}))
            assert answer.mean == pytest.approx(expected.mu(), rel=1e-6, abs=1e-6)
            assert np.sqrt(answer.variance) == pytest.approx(expected.sigma(), rel=1e-6)

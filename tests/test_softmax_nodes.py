"""Discrete variables with continuous parents (softmax / logistic), answered by likelihood
weighting, checked against numerical integration (scipy.integrate)."""

import math

import numpy as np
import pytest

import bbn
from bbn.core.errors import ModelError, QueryError

integrate = pytest.importorskip("scipy.integrate")
stats = pytest.importorskip("scipy.stats")



def lw(samples=200_000, seed=3):
    from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
    return LikelihoodWeighting(samples=samples, seed=seed)


def sigmoid(s):
    return 1.0 / (1.0 + np.exp(-s))


def within(estimate, exact, error, k=4.0):
    """The estimate is within k standard errors of the exact value (errors are small)."""
    assert error < 0.01
    assert abs(estimate - exact) < k * error + 1e-12, (estimate, exact, error)


@pytest.fixture
def one_parent():
    net = bbn.Network()
    net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    net.add_logistic("D", ["x"], weights={"x": 2.0}, bias=-1.0)
    net.add_gaussian_variable("z", ["x", "D"], mean=[0.0, 1.0], variance=[0.5, 0.5],
                              weights={"x": 1.0})
    return net


def _x_density(x):
    return stats.norm.pdf(x, 1.0, math.sqrt(2.0))


def test_logistic_prior_and_posterior_of_the_parent(one_parent):
    p_true = integrate.quad(lambda x: sigmoid(-1 + 2 * x) * _x_density(x), -30, 30)[0]
    answer = one_parent.posterior("D", method=lw())
    within(answer.values[1], p_true, answer.standard_error[1])
    mean = integrate.quad(lambda x: x * sigmoid(-1 + 2 * x) * _x_density(x), -30, 30)[0] / p_true
    second = integrate.quad(lambda x: x * x * sigmoid(-1 + 2 * x) * _x_density(x),
                            -30, 30)[0] / p_true
    moments = one_parent.posterior("x", {"D": "T"}, method=lw())
    within(moments.mean, mean, moments.standard_error)
    assert moments.variance == pytest.approx(second - mean ** 2, rel=0.02)
    assert moments.report.method == "lw" and 0 < moments.report.effective_samples <= 200_000


def test_a_finding_on_a_gaussian_child_weighs_the_softmax(one_parent):
    def joint(d):
        return integrate.quad(lambda x: (sigmoid(-1 + 2 * x) if d else 1 - sigmoid(-1 + 2 * x))
                              * _x_density(x) * stats.norm.pdf(2.0, d + x, math.sqrt(0.5)),
                              -30, 30)[0]
    p_true = joint(1) / (joint(0) + joint(1))
    answer = one_parent.posterior("D", {"z": 2.0}, method=lw())
    within(answer.values[1], p_true, answer.standard_error[1])
    probability = one_parent.query("P(D=T | z=2.0)", method=lw())
    assert float(probability) == pytest.approx(answer.values[1], abs=1e-12)
    assert probability.standard_error == pytest.approx(answer.standard_error[1])


def test_softmax_with_two_continuous_and_one_discrete_parent():
    prior = np.array([0.3, 0.7])
    bias = np.array([[0.0, 0.5, -0.5], [0.0, -1.0, 1.0]])
    w1 = np.array([[0.0, 1.0, -1.0], [0.0, 2.0, 0.5]])
    w2 = np.array([[0.0, -0.5, 1.5], [0.0, 0.0, 1.0]])
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=prior)
    net.add_gaussian_variable("x1", mean=0.0, variance=1.0)
    net.add_gaussian_variable("x2", ["x1"], mean=0.0, variance=1.0, weights={"x1": 0.5})
    net.add_softmax("D", ["lo", "mid", "hi"], ["C", "x1", "x2"],
                    weights={"x1": w1, "x2": w2}, bias=bias)

    def softmax(c, k, x1, x2):
        s = bias[c] + w1[c] * x1 + w2[c] * x2
        return math.exp(s[k]) / sum(math.exp(t) for t in s)

    def integral(c, k, f=lambda x1, x2: 1.0):
        return integrate.dblquad(
            lambda x2, x1: f(x1, x2) * softmax(c, k, x1, x2)
            * math.exp(-x1 * x1 / 2 - (x2 - 0.5 * x1) ** 2 / 2) / (2 * math.pi),
            -8, 8, -9, 9, epsabs=1e-9)[0]

    k = 2
    joint = np.array([prior[c] * integral(c, k) for c in (0, 1)])
    answer = net.posterior("C", {"D": "hi"}, method=lw())
    for c in (0, 1):
        within(answer.values[c], joint[c] / joint.sum(), answer.standard_error[c])
    mean = integral(0, k, lambda x1, x2: x1) / integral(0, k)
    moments = net.posterior("x1", {"D": "hi", "C": "a"}, method=lw())
    within(moments.mean, mean, moments.standard_error)
    marginal = net.posterior("D", method=lw())
    exact = [sum(prior[c] * integral(c, j) for c in (0, 1)) for j in range(3)]
    for j in range(3):
        within(marginal.values[j], exact[j], marginal.standard_error[j])


def test_logistic_with_discrete_and_continuous_parents_is_its_softmax():
    net = bbn.Network()
    net.add_variable("A", ["a0", "a1", "a2"], table=[0.2, 0.3, 0.5])
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_logistic("Y", ["A", "x"], weights={"A": 0.5, "x": -1.5}, bias=0.25)
    spec = net.canonical("Y")
    assert spec.discrete == ("A",) and spec.continuous == ("x",)
    codes, values = np.array([[0], [2]]), np.array([[1.0], [-2.0]])
    expected = sigmoid(np.array([0.25 - 1.5, 0.25 + 1.0 + 3.0]))
    assert spec.probabilities(codes, values)[:, 1] == pytest.approx(expected, rel=1e-12)


def test_exact_questions_are_refused_with_the_reason(one_parent):
    with pytest.raises(ModelError, match="no exact answer; ask with method='lw'"):
        one_parent.posterior("D", {"z": 1.0})
    with pytest.raises(ModelError, match="not MPE questions"):
        one_parent.mpe()
    with pytest.raises(ModelError, match="not MAP questions"):
        one_parent.map(["D"])
    with pytest.raises(QueryError, match="likelihood weighting"):
        one_parent.posterior("D", method="gibbs")
    with pytest.raises(ModelError, match="predict one case at a time"):
        bbn.predict_proba(one_parent, bbn.sample(one_parent, 5, seed=0)[["z"]], "D")


def test_softmax_arguments_are_checked():
    net = bbn.Network()
    net.add_variable("A", ["a", "b"], table=[0.5, 0.5])
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    with pytest.raises(ModelError, match="needs a continuous parent"):
        net.add_softmax("D", ["F", "T"], ["A"], weights={})
    with pytest.raises(ModelError, match="did you mean 'x'"):
        net.add_softmax("D", ["F", "T"], ["x"], weights={"x1": [0, 1]})
    with pytest.raises(ModelError, match=r"shape \(2,\) .* or \(2, 2\)"):
        net.add_softmax("D", ["F", "T"], ["A", "x"], weights={"x": [0, 1, 2]})
    assert "D" not in net.variables  # nothing half-made
    net.add_logistic("L", ["x"], weights={"x": 1.0})
    rows = bbn.sample(net, 50, seed=0)
    with pytest.raises(ModelError, match="'L' is discrete with continuous parents"):
        bbn.structure_score(net, rows, "bic")
    with pytest.raises(ModelError, match="add_logistic, add_softmax"):
        net.add_variable("E", ["F", "T"])
        net.set_parents("E", ["x"])


def test_sampling_and_learning_a_softmax_equal_sklearn_logistic_regression():
    linear_model = pytest.importorskip("sklearn.linear_model")
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.4, 0.6])
    net.add_gaussian_variable("x1", mean=0.0, variance=1.0)
    net.add_gaussian_variable("x2", ["x1"], mean=0.0, variance=1.0, weights={"x1": 0.5})
    bias = np.array([[0.0, 0.5, -0.5], [0.0, -1.0, 1.0]])
    net.add_softmax("D", ["lo", "mid", "hi"], ["C", "x1", "x2"],
                    weights={"x1": [[0.0, 1.0, -1.0], [0.0, 2.0, 0.5]],
                             "x2": [[0.0, -0.5, 1.5], [0.0, 0.0, 1.0]]}, bias=bias)
    data = bbn.sample(net, 20_000, seed=2)
    # the sample's frequencies match the model's P(D) (by likelihood weighting)
    marginal = net.posterior("D", method=lw(100_000))
    observed = data["D"].value_counts(normalize=True)[["lo", "mid", "hi"]].to_numpy()
    assert observed == pytest.approx(marginal.values, abs=0.015)
    learned = bbn.learn(net, data)
    spec = learned.canonical("D")
    for c, state in enumerate(["a", "b"]):
        rows = data[data["C"] == state]
        features = rows[["x1", "x2"]].to_numpy()
        model = linear_model.LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000)
        model.fit(features, rows["D"].cat.codes.to_numpy())
        mine = spec.probabilities(np.full((len(rows), 1), c), features)
        assert mine == pytest.approx(model.predict_proba(features), abs=1e-5)
    assert spec.bias[..., 1:] == pytest.approx(bias[..., 1:], abs=0.15)
    # C: 1, x1: 2, x2: 3, D: (3 − 1) · (1 + 2) per state of C
    assert net.free_parameters() == 1 + 2 + 3 + 2 * 3 * 2
    with pytest.raises(ModelError, match="EM does not learn softmax"):
        bbn.learn(net, data, missing="em")
    with pytest.raises(ModelError, match="has no table; see net.canonical"):
        net.cpt("D")


def _written_and_read(net):
    from bbn.io.formats.bn import read, write

    text = write(net)
    return text, read(text, "<test>")


def test_bn_syntax_for_logistic_and_softmax_with_gaussian_parents(tmp_path):
    net = bbn.Network("hybrid")
    net.add_variable("C", ["a", "b", "c"], table=[0.2, 0.3, 0.5])
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_gaussian_variable("y", ["x"], mean=1.0, variance=1.0, weights={"x": 0.5})
    net.add_logistic("D", ["C", "x"], weights={"C": 0.75, "x": 1.5}, bias=-0.5)
    net.add_softmax("L", ["lo", "mid", "hi"], ["x", "y"],
                    weights={"x": [0.0, 1.0, 2.0], "y": [0.0, -0.5, 0.5]},
                    bias=[0.0, 0.25, -1.0])
    text, again = _written_and_read(net)
    assert "P(D | C, x) logistic {\n  C: 0.75\n  x: 1.5\n  bias: -0.5\n}" in text
    assert "P(L | x, y) softmax {\n  x: 0.0, 1.0, 2.0\n  y: 0.0, -0.5, 0.5\n" in text
    assert again == net
    bbn.save(net, tmp_path / "hybrid.bn")
    assert bbn.load(tmp_path / "hybrid.bn") == net
    # the numbers as written: P(D = T | C = c, x = 0.4) = σ(−0.5 + 0.75·1 + 1.5·0.4)
    p = again.canonical("D").probabilities(np.array([[1]]), np.array([[0.4]]))
    assert p[0, 1] == pytest.approx(1 / (1 + math.exp(-(-0.5 + 0.75 + 0.6))), abs=1e-12)
    # P(L = k | x = 1, y = 2) ∝ exp(a_k + w_xk·1 + w_yk·2): scores 0, 0.25, 2
    p = again.canonical("L").probabilities(np.zeros((1, 0), int), np.array([[1.0, 2.0]]))
    scores = np.exp([0.0, 0.25, 2.0])
    np.testing.assert_allclose(p[0], scores / scores.sum(), rtol=0, atol=1e-12)
    with pytest.raises(bbn.FormatError, match="cannot express 'D'.*save the model as .bn"):
        bbn.save(net, tmp_path / "hybrid.xml")


def test_bn_softmax_mistakes_are_named():
    from bbn.io.formats.bn import read

    head = ("variable C { a, b }  variable x gaussian  variable D { F, T }  "
            "variable K { p, q, r }  P(C) = 0.5, 0.5  P(x) = N(0.0, 1.0)  ")
    cases = {
        "P(D | C) softmax { C: 1.0, 2.0 }": "needs a continuous \\(Gaussian\\) parent",
        "P(D | C, x) softmax { C: 0, 1; x: 0, 1 }": "takes continuous parents only",
        "P(K | x) logistic { x: 1.0 }": "has two states, not 3: write a softmax",
        "P(D | x) logistic { x: 1.0, 2.0 }": "'x' takes one number, got 2",
        "P(K | x) softmax { x: 1.0, 2.0 }": "weight",
    }
    for table, message in cases.items():
        with pytest.raises(bbn.BBNError, match=message):
            read(head + table, "<test>")
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_softmax("M", ["F", "T"], ["C", "x"], weights={"x": [[0, 1], [0, 3]]})
    with pytest.raises(bbn.FormatError, match="weights depend on its discrete parents"):
        _written_and_read(net)

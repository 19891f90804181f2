"""EM for Gaussian mixtures (EXAMPLES.md §10, seed 002): the class of a Gaussian naive
Bayes becomes a hidden variable. Checked against hand-computed steps, scikit-learn's
GaussianMixture and KMeans, and the log-likelihood written out with numpy."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

import bbn
import bbn.tasks.learning.mixture as mixture
from bbn.apps.cli.main import main
from bbn.core.errors import DataError
from bbn.tasks.learning import em
from bbn.tasks.learning.gaussian import fit_gaussian, fit_gaussians


def gaussian(x, mean, variance):
    return np.exp(-(x - mean) ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance)


def mixture_network(names, k: int, weights=None, means=None, variances=None) -> bbn.Network:
    """cluster → one Gaussian per name; parameters (k, len(names)) when given."""
    net = bbn.Network("mixture")
    net.add_variable("cluster", [f"c{h}" for h in range(k)], table=weights)
    for j, name in enumerate(names):
        if means is None:
            net.add_gaussian_variable(name, ["cluster"])
        else:
            net.add_gaussian_variable(name, ["cluster"], mean=means[:, j],
                                      variance=variances[:, j])
    return net


def parameters(net: bbn.Network, names) -> tuple[np.ndarray, np.ndarray]:
    """Means and variances as (k, features) matrices."""
    pairs = [net.gaussian_parameters(name) for name in names]
    return np.column_stack([p[0] for p in pairs]), np.column_stack([p[1] for p in pairs])


def sklearn_mixture(X, weights, means, variances, reg_covar, iterations) -> GaussianMixture:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return GaussianMixture(len(weights), covariance_type="diag", weights_init=weights,
                               means_init=means, precisions_init=1 / variances,
                               reg_covar=reg_covar, tol=0, max_iter=iterations,
                               random_state=0).fit(X)


@pytest.fixture(params=[True, False], ids=["stacked", "per-variable"])
def both_paths(request, monkeypatch):
    """Gaussian children of H as one matrix, and one variable at a time."""
    monkeypatch.setattr(mixture, "STACK_CHILDREN", request.param)


# ------------------------------------------------------------ one step by hand
X4 = np.array([0.0, 1.0, 3.0, 4.0])
A, B = 1 / (1 + math.exp(8)), 1 / (1 + math.exp(4))  # P(c1 | x) at x = 0 and x = 1


def start4() -> bbn.Network:
    return mixture_network(["x"], 2, [0.5, 0.5], np.array([[0.0], [4.0]]),
                           np.array([[1.0], [1.0]]))


def test_one_step_by_hand(both_paths):
    # π = ½, μ = (0, 4), σ² = 1: P(c1 | x) = 1 / (1 + e^(8 − 4x)), i.e. A, B, 1 − B, 1 − A.
    r = np.array([A, B, 1 - B, 1 - A])
    result = em(start4(), pd.DataFrame({"x": X4}), initial=start4(), max_iter=1, tol=0)
    assert result.log_likelihood[0] == pytest.approx(
        np.log(0.5 * gaussian(X4, 0, 1) + 0.5 * gaussian(X4, 4, 1)).sum(), rel=1e-13)
    mu1 = (7 - 2 * B - 4 * A) / 2                            # Σ r x / Σ r, Σ r = 2
    var1 = (r * (X4 - mu1) ** 2).sum() / 2
    mean, variance = result.network.gaussian_parameters("x")
    np.testing.assert_allclose(result.network.cpt_array("cluster"), [0.5, 0.5], atol=1e-15)
    np.testing.assert_allclose(mean, [4 - mu1, mu1], rtol=1e-13)      # symmetric data
    np.testing.assert_allclose(variance, [var1, var1], rtol=1e-12)
    assert mu1 == pytest.approx(3.481343, abs=1e-6) and var1 == pytest.approx(0.305623, abs=1e-6)
    assert result.log_likelihood[1] == pytest.approx(
        np.log(0.5 * gaussian(X4, 4 - mu1, var1) + 0.5 * gaussian(X4, mu1, var1)).sum())


def test_ddof_and_var_smoothing_in_the_m_step():
    r = np.array([A, B, 1 - B, 1 - A])
    mu1 = (7 - 2 * B - 4 * A) / 2
    squares = (r * (X4 - mu1) ** 2).sum()
    # ddof = 1 divides by Σ r − 1 = 1; var_smoothing adds 0.1 · Var(x) = 0.1 · 2.5
    started = em(start4(), pd.DataFrame({"x": X4}), initial=start4(), max_iter=1, tol=0,
                 ddof=1, var_smoothing=0.1).network
    np.testing.assert_allclose(started.gaussian_parameters("x")[1], squares + 0.25, rtol=1e-12)


def test_learn_forwards_the_gaussian_options_to_em():
    frame = pd.DataFrame({"x": [0.0, 0.3, 1.1, 4.0, 4.2, 5.1, 4.7]})
    options = dict(missing="em", seed=3, max_iter=5, tol=0)
    for ddof, smoothing in ((None, 0.0), (1, 0.0), (0, 0.5)):
        learned = bbn.learn(start4(), frame, ddof=ddof, var_smoothing=smoothing, **options)
        assert learned == em(start4(), frame, seed=3, max_iter=5, tol=0,
                             ddof=0 if ddof is None else ddof, var_smoothing=smoothing).network
    assert (bbn.learn(start4(), frame, ddof=1, **options)
            != bbn.learn(start4(), frame, **options))  # under "em" the default ddof is 0


def test_discrete_child_of_the_hidden_variable_by_hand():
    # cluster → x (Gaussian) and cluster → d (observed discrete): P(c | row) weighs both.
    x = np.array([0.0, 1.0, 3.0, 4.0, 2.0])
    d = np.array(["u", "v", "v", "v", "u"])
    net = start4()
    net.add_variable("d", ["u", "v"], parents=["cluster"], table=[[0.8, 0.2], [0.3, 0.7]])
    p_d = np.where(d == "u", [[0.8], [0.3]], [[0.2], [0.7]]).T         # (rows, clusters)
    joint = 0.5 * p_d * np.column_stack([gaussian(x, 0, 1), gaussian(x, 4, 1)])
    r = joint / joint.sum(axis=1, keepdims=True)
    result = em(net, pd.DataFrame({"x": x, "d": d}), initial=net, max_iter=1, tol=0)
    assert result.log_likelihood[0] == pytest.approx(np.log(joint.sum(axis=1)).sum())
    learned = result.network
    n = r.sum(axis=0)
    np.testing.assert_allclose(learned.cpt_array("cluster"), n / 5, rtol=1e-13)
    np.testing.assert_allclose(learned.cpt_array("d")[:, 0], r[d == "u"].sum(axis=0) / n,
                               rtol=1e-13)
    mean = r.T @ x / n
    np.testing.assert_allclose(learned.gaussian_parameters("x")[0], mean, rtol=1e-13)
    np.testing.assert_allclose(learned.gaussian_parameters("x")[1],
                               (r * (x[:, None] - mean) ** 2).sum(axis=0) / n, rtol=1e-12)


# ------------------------------------------------------------ scikit-learn
def blobs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0, 0], [2, 1, -1], [-1, 3, 1.0]])
    return centres[rng.integers(3, size=n)] + rng.normal(size=(n, 3)) * [1.0, 0.7, 1.3]


def em_and_sklearn(X, names, weights, means, variances, reg, iterations):
    """bbn's EM and scikit-learn's GaussianMixture from the same start, for ``iterations``
    steps, with scikit-learn's reg_covar = ``reg`` as bbn's ε."""
    start = mixture_network(names, len(weights), weights, means, variances)
    result = em(start, pd.DataFrame(X, columns=names), initial=start, max_iter=iterations,
                tol=0, var_smoothing=reg / X.var(axis=0).max())  # ε = reg_covar
    return result, sklearn_mixture(X, weights, means, variances, reg, iterations)


def test_agrees_with_scikit_learn_gaussian_mixture(both_paths):
    X = blobs(300, seed=0)
    names = ["x0", "x1", "x2"]
    weights, means, variances = np.array([0.2, 0.3, 0.5]), X[:3], np.tile(X.var(axis=0), (3, 1))
    result, reference = em_and_sklearn(X, names, weights, means, variances, 1e-6, 40)
    learned_means, learned_variances = parameters(result.network, names)
    np.testing.assert_allclose(result.network.cpt_array("cluster"), reference.weights_,
                               atol=1e-12)
    np.testing.assert_allclose(learned_means, reference.means_, atol=1e-12)
    np.testing.assert_allclose(learned_variances, reference.covariances_, atol=1e-12)
    trace = np.array(result.log_likelihood) / len(X)
    np.testing.assert_allclose(trace[:-1], reference.lower_bounds_, rtol=1e-12)
    assert trace[-1] == pytest.approx(reference.score(X), rel=1e-12)
    assert trace[-1] == pytest.approx(-4.905582, abs=1e-6)
    assert np.all(np.diff(trace) >= 0)


def test_digits_mixture_agrees_with_scikit_learn():
    # EXAMPLES.md §10: 8×8 digits, 64 pixels, 10 clusters — the unsupervised naive Bayes.
    X = load_digits().data
    names = [f"pixel{j}" for j in range(64)]
    rows = np.random.default_rng(0).choice(len(X), size=10, replace=False)
    weights, means, variances = np.full(10, 0.1), X[rows], np.tile(X.var(axis=0) + 0.1, (10, 1))
    result, reference = em_and_sklearn(X, names, weights, means, variances, 1e-2, 15)
    learned_means, learned_variances = parameters(result.network, names)
    np.testing.assert_allclose(result.network.cpt_array("cluster"), reference.weights_,
                               atol=1e-10)
    np.testing.assert_allclose(learned_means, reference.means_, atol=1e-8)
    np.testing.assert_allclose(learned_variances, reference.covariances_, atol=1e-8)
    assert result.log_likelihood[-1] / len(X) == pytest.approx(reference.score(X), rel=1e-10)


# ------------------------------------------------------------ seeded runs
def test_well_separated_mixture_recovers_its_parameters(both_paths):
    rng = np.random.default_rng(7)
    n, truth = 3000, dict(weight=0.3, means=(-5.0, 5.0), variances=(1.0, 4.0))
    first = rng.random(n) < truth["weight"]
    x = np.where(first, rng.normal(-5.0, 1.0, n), rng.normal(5.0, 2.0, n))
    result = em(mixture_network(["x"], 2), pd.DataFrame({"x": x}), seed=3, tol=1e-10)
    assert result.converged
    weights = result.network.cpt_array("cluster")
    mean, variance = result.network.gaussian_parameters("x")
    order = np.argsort(mean)
    weights, mean, variance = weights[order], mean[order], variance[order]
    p = truth["weight"]
    assert abs(weights[0] - p) < 5 * math.sqrt(p * (1 - p) / n)
    for h, count in enumerate((p * n, (1 - p) * n)):
        sigma2 = truth["variances"][h]
        assert abs(mean[h] - truth["means"][h]) < 5 * math.sqrt(sigma2 / count)
        assert abs(variance[h] - sigma2) < 5 * sigma2 * math.sqrt(2 / count)


def test_log_likelihood_never_decreases_and_is_exact():
    # Overlapping clusters, an observed discrete child and a few missing numbers.
    rng = np.random.default_rng(11)
    n = 600
    z = rng.integers(3, size=n)
    X = np.array([[0, 0], [1.5, 1], [0, 2.5]])[z] + rng.normal(size=(n, 2))
    X[rng.random(X.shape) < 0.05] = np.nan
    d = np.where(rng.random(n) < np.array([0.2, 0.5, 0.8])[z], "yes", "no")
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "d": d})
    net = mixture_network(["a", "b"], 3)
    net.add_variable("d", ["yes", "no"], parents=["cluster"])
    result = em(net, frame, seed=2, tol=1e-12, max_iter=500)
    trace = np.array(result.log_likelihood)
    assert result.converged and len(trace) == result.iterations + 1
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    learned = result.network
    means, variances = parameters(learned, ["a", "b"])
    table = learned.cpt_array("d")
    density = np.ones((n, 3))
    for j in range(2):
        seen = ~np.isnan(X[:, j])
        density[seen] *= gaussian(X[seen, j, None], means[:, j], variances[:, j])
    joint = learned.cpt_array("cluster") * table[:, (d == "no").astype(int)].T * density
    assert trace[-1] == pytest.approx(np.log(joint.sum(axis=1)).sum(), rel=1e-12)


def test_both_paths_agree_with_missing_numbers_and_another_parent(monkeypatch):
    # y depends on the cluster and an observed group: always the per-variable path.
    rng = np.random.default_rng(5)
    n = 400
    group = rng.choice(["g", "h"], size=n)
    z = rng.integers(2, size=n)
    x = np.where(z == 1, 3.0, 0.0) + rng.normal(size=n)
    y = np.where(group == "g", 1.0, -1.0) + 2.0 * z + rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    frame = pd.DataFrame({"x": x, "y": y, "group": group})
    net = bbn.Network()
    net.add_variable("cluster", ["c0", "c1"])
    net.add_variable("group", ["g", "h"])
    net.add_gaussian_variable("x", ["cluster"])
    net.add_gaussian_variable("y", ["group", "cluster"])
    stacked = em(net, frame, seed=1, tol=1e-10)
    monkeypatch.setattr(mixture, "STACK_CHILDREN", False)
    alone = em(net, frame, seed=1, tol=1e-10)
    np.testing.assert_allclose(stacked.log_likelihood, alone.log_likelihood, rtol=1e-12)
    for v in ("x", "y"):
        for a, b in zip(stacked.network.gaussian_parameters(v),
                        alone.network.gaussian_parameters(v), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-10)
    assert stacked.network.gaussian_parameters("y")[0].shape == (2, 2)
    assert np.all(np.diff(stacked.log_likelihood) >= -1e-9)


def test_seeded_start_is_reproducible():
    X = blobs(200, seed=4)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    net = mixture_network(["x0", "x1", "x2"], 3)
    first, again = em(net, frame, seed=8), em(net, frame, seed=8)
    assert first.network == again.network and first.log_likelihood == again.log_likelihood
    assert em(net, frame, seed=9).log_likelihood[0] != first.log_likelihood[0]


def test_complete_data_without_a_hidden_variable_is_learn_with_ddof_0():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"c": rng.choice(["a", "b"], size=50), "x": rng.normal(size=50)})
    net = bbn.Network()
    net.add_variable("c", ["a", "b"])
    net.add_gaussian_variable("x", ["c"])
    result = em(net, frame)
    assert result.converged and result.iterations == 1
    assert result.network == bbn.learn(net, frame, ddof=0)
    assert bbn.learn(net, frame, missing="em") == result.network
    # a missing number only leaves its own column
    holed = frame.assign(x=frame["x"].where(np.arange(50) % 7 != 0))
    mean, variance = em(net, holed).network.gaussian_parameters("x")
    seen = holed.dropna()
    for h, state in enumerate(["a", "b"]):
        column = seen.loc[seen["c"] == state, "x"]
        assert mean[h] == pytest.approx(column.mean(), rel=1e-12)
        assert variance[h] == pytest.approx(column.var(ddof=0), rel=1e-12)
    np.testing.assert_allclose(em(net, holed).network.cpt_array("c"),
                               frame["c"].value_counts(normalize=True)[["a", "b"]], rtol=1e-12)


def test_an_empty_discrete_column_is_hidden():
    frame = pd.DataFrame({"x": X4, "cluster": [None] * 4})
    assert (em(start4(), frame, initial=start4(), max_iter=1, tol=0).network
            == em(start4(), frame[["x"]], initial=start4(), max_iter=1, tol=0).network)


# ------------------------------------------------------------ hard EM
def test_hard_step_by_hand():
    # Each point to its nearer mean: {0, 1} and {3, 4}; then the plain estimates.
    result = em(start4(), pd.DataFrame({"x": X4}), initial=start4(), hard=True, max_iter=1,
                tol=0)
    assert result.log_likelihood[0] == pytest.approx(
        np.log(0.5 * np.maximum(gaussian(X4, 0, 1), gaussian(X4, 4, 1))).sum(), rel=1e-13)
    mean, variance = result.network.gaussian_parameters("x")
    np.testing.assert_allclose(mean, [0.5, 3.5])
    np.testing.assert_allclose(variance, [0.25, 0.25])
    np.testing.assert_allclose(result.network.cpt_array("cluster"), [0.5, 0.5])


def test_hard_em_is_a_fixed_point_of_learn_on_its_own_assignments():
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(6)  # three well-separated clusters in two dimensions
    X = np.array([[0.0, 0], [20, 0], [0, 20]])[rng.integers(3, size=300)] + rng.normal(
        size=(300, 2)) * [1.0, 1.5]
    names = ["x0", "x1"]
    frame = pd.DataFrame(X, columns=names)
    result = em(mixture_network(names, 3), frame, hard=True, seed=0, tol=0, max_iter=50)
    assert result.converged
    assert np.all(np.diff(result.log_likelihood) >= -1e-9)
    learned = result.network
    means, variances = parameters(learned, names)
    log_joint = (np.log(learned.cpt_array("cluster"))
                 + np.log(gaussian(X[:, None, :], means, variances)).sum(axis=2))
    labels = np.argmax(log_joint, axis=1)
    completed = frame.assign(cluster=[f"c{h}" for h in labels])
    refit = bbn.learn(mixture_network(names, 3), completed, ddof=0)
    np.testing.assert_allclose(refit.cpt_array("cluster"), learned.cpt_array("cluster"))
    for a, b in zip(parameters(refit, names), (means, variances), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # the same partition as k-means here, hence the same centres
    centres = KMeans(3, n_init=10, random_state=0).fit(X).cluster_centers_
    np.testing.assert_allclose(means[np.lexsort(means.T)], centres[np.lexsort(centres.T)],
                               atol=1e-9)


def test_hard_em_on_a_discrete_network():
    # Three symmetric binary children: from a mildly tilted start every row goes to the
    # cluster of its majority, and the tables become the frequencies within each.
    rng = np.random.default_rng(1)
    z = rng.integers(2, size=400)
    frame = pd.DataFrame({f"d{j}": np.where(rng.random(400) < np.where(z == 1, 0.9, 0.1),
                                            "on", "off") for j in range(3)})
    net = bbn.Network()
    net.add_variable("H", ["h0", "h1"], table=[0.5, 0.5])
    for j in range(3):
        net.add_variable(f"d{j}", ["on", "off"], parents=["H"], table=[[0.4, 0.6], [0.6, 0.4]])
    result = em(net, frame, hard=True, initial=net, max_iter=50)
    assert result.converged and np.all(np.diff(result.log_likelihood) >= -1e-9)
    majority = ((frame == "on").sum(axis=1) >= 2).to_numpy()
    np.testing.assert_allclose(result.network.cpt_array("H"), [1 - majority.mean(),
                                                              majority.mean()], rtol=1e-12)
    for j in range(3):
        on = (frame[f"d{j}"] == "on").to_numpy()
        np.testing.assert_allclose(result.network.cpt_array(f"d{j}")[:, 0],
                                   [on[~majority].mean(), on[majority].mean()], rtol=1e-12)


# ------------------------------------------------------------ what is refused
def test_what_is_not_supported():
    frame = pd.DataFrame({"x": X4})
    net = start4()
    net.add_gaussian_variable("y", ["cluster"], mean=[0, 1], variance=[1, 1])
    with pytest.raises(DataError, match="continuous variable 'y'"):
        em(net, frame)
    two = start4()
    two.add_variable("other", ["p", "q"], parents=["cluster"])
    with pytest.raises(DataError, match="one hidden variable; 'cluster', 'other'"):
        em(two, frame)
    discrete = bbn.Network()
    for name in ("H", "G", "d"):
        discrete.add_variable(name, ["p", "q"], parents=["H", "G"] if name == "d" else [])
    with pytest.raises(DataError, match="hard EM handles one hidden variable; 'H', 'G'"):
        em(discrete, pd.DataFrame({"d": ["p", "q"]}), hard=True)
    with_d = start4()
    with_d.add_variable("d", ["u", "v"], parents=["cluster"])
    with pytest.raises(DataError, match=r"column 'd', row 2: missing value.*drop those rows"):
        em(with_d, pd.DataFrame({"x": X4, "d": ["u", "v", None, "u"]}))
    with pytest.raises(DataError, match="column 'x' has no numbers"):
        em(start4(), pd.DataFrame({"x": [np.nan] * 4}))
    with pytest.raises(DataError, match="value 'big' is not a number"):
        em(start4(), pd.DataFrame({"x": ["1", "big", "2", "3"]}))
    with pytest.raises(DataError, match="1 row"):
        em(start4(), pd.DataFrame({"x": [1.0]}))
    with pytest.raises(DataError, match="ddof"):
        em(start4(), frame, ddof=-1)
    with pytest.raises(DataError, match="var_smoothing"):
        em(start4(), frame, var_smoothing=-1.0)
    zero = start4()
    zero.add_variable("d", ["u", "v"], parents=["cluster"], table=[[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(DataError, match="row 1 has probability 0"):
        em(zero, pd.DataFrame({"x": X4, "d": ["u", "v", "u", "u"]}), initial=zero)


# ------------------------------------------------------------ the weighted fit
def test_fit_gaussians_is_fit_gaussian_with_spread_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 2))
    x[3, 1] = np.nan
    codes = rng.integers(3, size=40)
    for ddof in (0, 1):
        mean, variance = fit_gaussians(np.eye(3)[codes], x, ddof=ddof, epsilon=0.1)
        for j in range(2):
            seen = ~np.isnan(x[:, j])
            one = fit_gaussian([codes[seen]], [3], x[seen, j], ddof=ddof, epsilon=0.1)
            np.testing.assert_allclose(mean[:, j], one[0], rtol=1e-12)
            np.testing.assert_allclose(variance[:, j], one[1], rtol=1e-12)


def test_hidden_variable_with_an_observed_parent_by_hand():
    # group → cluster → x: P(cluster | group) from the responsibilities of each group.
    group = np.array(["g", "g", "h", "h"])
    net = bbn.Network()
    net.add_variable("group", ["g", "h"], table=[0.5, 0.5])
    net.add_variable("cluster", ["c0", "c1"], parents=["group"], table=[[0.7, 0.3], [0.2, 0.8]])
    net.add_gaussian_variable("x", ["cluster"], mean=[0.0, 4.0], variance=[1.0, 1.0])
    prior = np.where(group[:, None] == "g", [0.7, 0.3], [0.2, 0.8])
    joint = prior * np.column_stack([gaussian(X4, 0, 1), gaussian(X4, 4, 1)])
    r = joint / joint.sum(axis=1, keepdims=True)
    result = em(net, pd.DataFrame({"x": X4, "group": group}), initial=net, max_iter=1, tol=0)
    assert result.log_likelihood[0] == pytest.approx(np.log(0.5 * joint.sum(axis=1)).sum())
    np.testing.assert_allclose(result.network.cpt_array("cluster"),
                               [r[:2].mean(axis=0), r[2:].mean(axis=0)], rtol=1e-13)
    np.testing.assert_allclose(result.network.cpt_array("group"), [0.5, 0.5])


def test_the_command_line_learns_a_mixture_saves_it_as_bn_and_queries_it(tmp_path, capsys):
    """`bbn learn` with --missing em on a .bn declaring Gaussian leaves and a CSV without
    the cluster column; the result, a .bn file, agrees with bbn.learn and answers
    `bbn query` with numeric evidence."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": np.concatenate([rng.normal(0, 0.5, 60), rng.normal(5, 0.5, 40)]),
                          "y": np.concatenate([rng.normal(1, 0.5, 60), rng.normal(-3, 0.5, 40)])})
    frame.to_csv(tmp_path / "xy.csv", index=False)
    (tmp_path / "mix.bn").write_text("variable cluster { one, two }\nvariable x gaussian\n"
                                     "variable y gaussian\nP(x | cluster)\nP(y | cluster)\n")
    assert main(["learn", str(tmp_path / "mix.bn"), str(tmp_path / "xy.csv"), "--missing",
                 "em", "-o", str(tmp_path / "learned.bn")]) == 0
    learned = bbn.load(tmp_path / "learned.bn")
    expected = bbn.learn(bbn.load(tmp_path / "mix.bn"), frame, missing="em")
    for v in ("x", "y"):
        for got, want in zip(learned.gaussian_parameters(v), expected.gaussian_parameters(v)):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    capsys.readouterr()
    assert main(["query", str(tmp_path / "learned.bn"), "P(cluster | x=4.2, y=-2)",
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["query"] == "P(cluster | x=4.2, y=-2)"
    # by hand: P(c) Π_v N(v; μ_c, σ²_c), normalised over the two clusters
    weights = learned.cpt_array("cluster") * np.prod(
        [np.exp(-(value - learned.gaussian_parameters(v)[0]) ** 2
                / (2 * learned.gaussian_parameters(v)[1]))
         / np.sqrt(2 * np.pi * learned.gaussian_parameters(v)[1])
         for v, value in (("x", 4.2), ("y", -2.0))], axis=0)
    assert [row["p"] for row in printed["rows"]] == pytest.approx(
        (weights / weights.sum()).tolist(), abs=1e-12)
    assert max(row["p"] for row in printed["rows"]) > 0.999  # the cluster drawn at (5, -3)

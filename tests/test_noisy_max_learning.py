"""Learning noisy-MAX and logistic tables from data, kept compact.

Oracles: brute-force enumeration of the hidden contributions (the E-step), the numbers
the sample was drawn from (the M-step's fixed point), its log-likelihood, and
scikit-learn's unpenalised LogisticRegression.
"""

import itertools

import numpy as np
import pytest

import bbn
from bbn.core.memory import get_memory_limit, set_memory_limit
from bbn.tasks.learning.missing import em
from bbn.tasks.learning.noisy_em import fit_noisy_or
from bbn.tasks.learning.noisy_max_em import (
    _expected_counts,
    expected_contributions,
    fit_noisy_max,
)


def _random_rows(rng, k, states):
    return rng.dirichlet(np.ones(states), size=k)


def _spec(rng, cards, states):
    """Contributions (absent row first: y_0 for sure) and a leak with full support."""
    rows = []
    for k in cards:
        c = np.vstack([np.eye(states)[0], _random_rows(rng, k - 1, states)])
        rows.append(c)
    return rows, rng.dirichlet(np.ones(states))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_e_step_equals_enumeration_over_the_hidden_contributions(seed):
    rng = np.random.default_rng(seed)
    cards, states = (3, 2, 3), 3
    rows, leak = _spec(rng, cards, states)
    configurations = list(itertools.product(*(range(k) for k in cards)))
    causes = np.array([u for u in configurations for _ in range(states)])
    y = np.tile(np.arange(states), len(configurations))
    posterior, likelihood = expected_contributions(rows, leak, causes, y)
    for r, (u, observed) in enumerate(zip(causes, y)):
        joint = np.zeros((len(cards) + 1, states))  # P(Z_i = z, Y = y | u)
        total = 0.0
        for zs in itertools.product(range(states), repeat=len(cards) + 1):
            p = leak[zs[-1]] * np.prod([rows[i][u[i], zs[i]] for i in range(len(cards))])
            if max(zs) == observed:
                total += p
                for i, z in enumerate(zs):
                    joint[i, z] += p
        assert likelihood[r] == pytest.approx(total, abs=1e-12)
        np.testing.assert_allclose(posterior[r], joint / total, atol=1e-12, rtol=0)


def test_the_summed_counts_equal_the_summed_posteriors():
    """What each EM iteration sums (N·(n + 1) numbers) equals Σ_rows of the E-step."""
    rng = np.random.default_rng(11)
    cards, states = (3, 2, 4), 3
    rows, leak = _spec(rng, cards, states)
    causes = np.column_stack([rng.integers(0, k, 500) for k in cards])
    y, weights = rng.integers(0, states, 500), rng.random(500)
    posterior, likelihood = expected_contributions(rows, leak, causes, y)
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    index = np.column_stack([causes + offsets, np.full(500, sum(cards))])
    counts, ll = _expected_counts(np.vstack([*rows, leak]), index, y, weights)
    expected = np.zeros_like(counts)
    np.add.at(expected, index, posterior * weights[:, None, None])
    np.testing.assert_allclose(counts, expected, atol=1e-12, rtol=0)
    assert ll == pytest.approx(float(np.dot(weights, np.log(likelihood))), abs=1e-9)


def _network(rng, cards, states_y=3):
    net = bbn.Network("graded")
    names = [f"U{i}" for i in range(len(cards))]
    for u, k in zip(names, cards):
        # mostly absent: a cause's low grades show when the others are low too
        net.add_variable(u, [f"s{j}" for j in range(k)], table=[0.6] + [0.4 / (k - 1)] * (k - 1))
    rows, leak = _spec(rng, cards, states_y)
    leak = np.array([0.85, 0.1, 0.05])
    net.add_noisy_max("Y", ["low", "mid", "high"], names,
                      weights={u: r[1:] for u, r in zip(names, rows)}, leak=leak)
    return net, names, rows, leak


def _codes(net, data, names):
    return np.column_stack([data[u].astype(str).map(
        {s: i for i, s in enumerate(net.states(u))}) for u in names]).astype(np.int64)


def _log_likelihood(net, rows, leak, data, names):
    """Σ_rows log P(y | u), from the E-step's likelihood (checked against enumeration)."""
    codes = _codes(net, data, [*names, "Y"])
    _, p = expected_contributions(rows, leak, codes[:, :-1], codes[:, -1])
    return float(np.log(p).sum())


@pytest.mark.parametrize("seed,cards", [(3, (3, 2, 3)), (4, (2, 3, 2, 3, 2))])
def test_em_recovers_a_noisy_max_and_keeps_it_compact(seed, cards):
    rng = np.random.default_rng(seed)
    net, names, truth, leak = _network(rng, cards)
    data = bbn.sample(net, 40_000, seed=seed)
    learned = bbn.learn(net, data)
    spec = learned.canonical("Y")
    assert spec.kind == "noisy-max"
    for got, want in zip(spec.contributions, truth):
        np.testing.assert_allclose(got, want, atol=0.04)  # 40,000 rows
    np.testing.assert_allclose(spec.leak, leak, atol=0.02)
    # maximum likelihood: at least the generating parameters' log-likelihood
    assert _log_likelihood(net, spec.contributions, spec.leak, data, names) >= \
        _log_likelihood(net, truth, leak, data, names) - 1e-6


def test_em_log_likelihood_never_decreases():
    rng = np.random.default_rng(5)
    cards = (3, 2, 2, 3)
    rows, leak = _spec(rng, cards, 3)
    causes = np.column_stack([rng.integers(0, k, 5000) for k in cards])
    z = [np.array([rng.choice(3, p=rows[i][u]) for u in causes[:, i]])
         for i in range(len(cards))]
    y = np.maximum.reduce(z + [rng.choice(3, 5000, p=leak)])
    _, _, trace = fit_noisy_max(causes, y, cards, 3, max_iter=300)
    assert len(trace) > 10
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))


def test_thirty_cause_noisy_max_learned_without_a_full_table():
    net = bbn.Network("thirty")
    names = [f"U{i}" for i in range(30)]
    for u in names:
        net.add_variable(u, ["s0", "s1"], table=[0.95, 0.05])
    weights = {u: [[0.3, 0.5, 0.2]] for u in names}
    net.add_noisy_max("Y", ["low", "mid", "high"], names, weights=weights,
                      leak=[0.9, 0.08, 0.02])
    data = bbn.sample(net, 3000, seed=6)
    limit = get_memory_limit()
    set_memory_limit(64 << 20)  # the full table: 3·2^30 entries, 24 GiB
    try:
        learned = bbn.learn(net, data)
        with pytest.raises(bbn.MemoryLimitError):
            learned.cpt_array("Y")
    finally:
        set_memory_limit(limit)
    spec = learned.canonical("Y")
    assert spec.kind == "noisy-max" and learned._nodes["Y"].table is None
    mean = np.mean([c[1] for c in spec.contributions], axis=0)
    np.testing.assert_allclose(mean, [0.3, 0.5, 0.2], atol=0.05)
    np.testing.assert_allclose(spec.leak, [0.9, 0.08, 0.02], atol=0.03)


def test_logistic_weights_equal_scikit_learn():
    sklearn = pytest.importorskip("sklearn.linear_model", reason="scikit-learn is the oracle")
    net = bbn.Network("logit")
    net.add_variable("A", ["a0", "a1", "a2"], table=[0.3, 0.4, 0.3])
    net.add_variable("B", ["F", "T"], table=[0.5, 0.5])
    net.add_variable("C", ["c0", "c1", "c2", "c3"], table=[0.25] * 4)
    net.add_logistic("Y", ["A", "B", "C"], weights={"A": 0.8, "B": -1.2, "C": 0.5},
                     bias=-0.7)
    data = bbn.sample(net, 5000, seed=7)
    learned = bbn.learn(net, data)
    spec = learned.canonical("Y")
    assert spec.kind == "logistic"
    # the design: each parent's state index as its value
    x = _codes(net, data, ["A", "B", "C"]).astype(float)
    y = (data["Y"] == "T").to_numpy()
    # C = ∞: no penalty (penalty=None is deprecated since scikit-learn 1.8)
    model = sklearn.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x, y)
    np.testing.assert_allclose(spec.weights, model.coef_[0], atol=1e-5)
    assert spec.bias == pytest.approx(model.intercept_[0], abs=1e-5)


def test_em_over_missing_values_keeps_noisy_tables_compact():
    rng = np.random.default_rng(8)
    net, names, truth, leak = _network(rng, (2, 2, 3))
    net.add_noisy_or("O", ["U0", "U1"], weights={"U0": 0.0, "U1": 0.7}, leak=0.1)
    net.add_noisy_and("A", ["U1", "O"], weights={"U1": 0.6, "O": 0.8}, leak=0.05)
    net.add_logistic("R", ["U2", "Y"], weights={"U2": 1.0, "Y": -0.5}, bias=0.3)
    data = bbn.sample(net, 20_000, seed=8)
    holes = rng.random(data.shape) < 0.15  # 15% of the cells missing, parents and children
    data = data.astype(object).mask(holes)
    result = em(net, data, max_iter=200, tol=1e-9)
    learned = result.network
    assert [learned.canonical(v).kind for v in ("Y", "O", "A", "R")] == [
        "noisy-max", "noisy-or", "noisy-and", "logistic"]
    trace = np.array(result.log_likelihood)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    for got, want in zip(learned.canonical("Y").contributions, truth):
        np.testing.assert_allclose(got, want, atol=0.05)
    np.testing.assert_allclose(learned.canonical("O").weights, [0.0, 0.7], atol=0.04)
    np.testing.assert_allclose(learned.canonical("A").weights, [0.6, 0.8], atol=0.04)
    np.testing.assert_allclose(learned.canonical("R").weights, [1.0, -0.5], atol=0.1)
    assert bbn.learn(net, data, missing="em").canonical("Y").kind == "noisy-max"


def test_em_on_complete_rows_learns_the_logistic_of_complete_data():
    """One M-step on the counts of complete rows: the row-by-row logistic regression."""
    net = bbn.Network("logit")
    net.add_variable("A", ["a0", "a1", "a2"], table=[0.3, 0.4, 0.3])
    net.add_variable("B", ["F", "T"], table=[0.5, 0.5])
    net.add_logistic("Y", ["A", "B"], weights={"A": 0.8, "B": -1.2}, bias=-0.7)
    data = bbn.sample(net, 3000, seed=9)
    by_rows = bbn.learn(net, data).canonical("Y")
    by_counts = em(net, data).network.canonical("Y")
    np.testing.assert_allclose(by_counts.weights, by_rows.weights, atol=1e-6)
    assert by_counts.bias == pytest.approx(by_rows.bias, abs=1e-6)


def test_binary_noisy_max_em_equals_the_noisy_or_em():
    """Two states: the noisy-MAX EM is the noisy-OR EM (fit_noisy_or) at their optimum."""
    rng = np.random.default_rng(10)
    u = rng.random((8000, 3)) < 0.4
    on = (rng.random(8000) < 0.1) | (u & (rng.random((8000, 3)) < [0.8, 0.5, 0.3])).any(1)
    p, leak, _ = fit_noisy_or(u, on, tol=1e-12, max_iter=20_000)
    rows, leak_max, _ = fit_noisy_max(u.astype(int), on.astype(int), (2, 2, 2), 2,
                                      tol=1e-12, max_iter=20_000)
    np.testing.assert_allclose([r[1, 1] for r in rows], p, atol=1e-6)
    assert leak_max[1] == pytest.approx(leak, abs=1e-6)

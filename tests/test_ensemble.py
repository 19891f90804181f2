"""Ensembles (EXAMPLES.md §9): naive Bayes with instance weights, boosting worked out by
hand and against scikit-learn's SAMME, and bagging."""

from __future__ import annotations

import doctest
from math import log

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, NotFittedError
from bbn.tasks.classification import ensemble


def network_tables(model: bbn.NaiveBayes) -> dict[str, tuple[np.ndarray, ...]]:
    """Every table of a fitted naive Bayes: CPTs, and (μ, σ²) of Gaussian nodes."""
    net = model.network_
    return {v: net.gaussian_parameters(v) if net.is_gaussian(v) else (net.cpt_array(v),)
            for v in net.variables}


def assert_same_model(a: bbn.NaiveBayes, b: bbn.NaiveBayes, X) -> None:
    tables_a, tables_b = network_tables(a), network_tables(b)
    assert tables_a.keys() == tables_b.keys()
    for node, arrays in tables_a.items():
        for x, y in zip(arrays, tables_b[node], strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-15, err_msg=node)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10, atol=1e-14)


# ------------------------------------------------ naive Bayes with sample weights
def _categorical():
    X = pd.DataFrame({"colour": ["red", "blue", "red", None, "green", "blue", "red", "green"],
                      "size": ["S", "L", "L", "S", "S", "M", "M", "L"]})
    return X, np.array(list("abbaabab")), {"estimator": "laplace"}


def _bernoulli():
    X = np.array([[0.0, 2, 1], [3, 0, 0], [1, 1, 0], [0, 0, 5], [2, 0, 1], [0, 4, 0],
                  [np.nan, 1, 1], [1, 0, 0]])
    return X, np.array([0, 1, 1, 0, 0, 1, 1, 0]), {"features": "bernoulli", "binarize": 0.5,
                                                     "estimator": bbn.MEstimate(m=2)}


def _gaussian():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(12, 3)) + np.repeat([[0.0], [1.0]], 6, axis=0)
    X[3, 1] = np.nan
    return X, np.repeat(["u", "v"], 6), {"features": "gaussian", "var_smoothing": 0.05}


def _text():
    texts = ["free prize now", "see you at lunch", "win a free phone", "lunch now?",
             "call now to win", "are you home", "free free free", "home soon"]
    return texts, np.array(["spam", "ham"] * 4), {"estimator": "laplace"}


def _multinomial():
    counts = np.random.default_rng(2).poisson(1.0, size=(10, 6))
    return counts, np.array([0, 1] * 5), {"features": "multinomial", "estimator": "laplace"}


def _mixed():
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"kind": rng.choice(["x", "y", "z"], 15), "on": rng.integers(0, 3, 15),
                      "level": rng.normal(size=15)})
    return X, rng.choice(["p", "q", "r"], 15), {
        "features": {"on": "bernoulli", "level": "gaussian"}, "estimator": bbn.BDeu(ess=3)}


def _rows(X, rows):
    if isinstance(X, pd.DataFrame):
        return X.iloc[rows]
    if isinstance(X, list):
        return [X[i] for i in rows]
    return X[rows]


@pytest.mark.parametrize("make", [_categorical, _bernoulli, _gaussian, _text, _multinomial,
                                  _mixed])
def test_integer_weights_equal_repeated_rows(make):
    X, y, params = make()
    weights = np.arange(len(y)) % 3 + 1  # 1, 2, 3, 1, 2, 3, ...
    repeated = np.repeat(np.arange(len(y)), weights)
    weighted = bbn.NaiveBayes(**params).fit(X, y, sample_weight=weights)
    copies = bbn.NaiveBayes(**params).fit(_rows(X, repeated), y[repeated])
    assert_same_model(weighted, copies, X)
    assert not np.allclose(weighted.predict_proba(X), bbn.NaiveBayes(**params).fit(X, y)
                           .predict_proba(X))
    # unit weights are the unweighted fit
    assert_same_model(bbn.NaiveBayes(**params).fit(X, y, sample_weight=np.ones(len(y))),
                      bbn.NaiveBayes(**params).fit(X, y), X)


def test_sparse_word_counts_take_weights_too():
    sparse = pytest.importorskip("scipy.sparse")
    counts, y, params = _multinomial()
    weights = np.array([2.0, 0.5, 1, 1, 3, 1, 1, 0.25, 1, 1])
    a = bbn.NaiveBayes(**params).fit(sparse.csr_matrix(counts), y, sample_weight=weights)
    b = bbn.NaiveBayes(**params).fit(counts, y, sample_weight=weights)
    assert_same_model(a, b, counts)
    # n_k(c) = Σ_d w_d · count of k in d, by hand for word 0 of class 0
    table = a.network_.cpt_array("word")
    n = counts[y == 0].T @ weights[y == 0]
    assert table[0, 0] == pytest.approx((n[0] + 1) / (n.sum() + 6))


def test_maximum_likelihood_ignores_the_scale_of_the_weights():
    X, y, _ = _categorical()
    weights = np.array([1.0, 2, 0.5, 1, 4, 1, 1, 3])
    a = bbn.NaiveBayes(estimator="mle").fit(X, y, sample_weight=weights)
    b = bbn.NaiveBayes(estimator="mle").fit(X, y, sample_weight=weights / 64)
    assert_same_model(a, b, X.iloc[[0, 1, 2]])
    # P(colour = red | a) = Σ w over class-a rows with red / Σ w over class-a rows seen
    is_a = y == "a"
    seen = X["colour"].notna().to_numpy()
    red = (X["colour"] == "red").to_numpy()
    expected = weights[is_a & red].sum() / weights[is_a & seen].sum()
    states = a.network_.states("colour")
    assert a.network_.cpt_array("colour")[0, states.index("red")] == pytest.approx(expected)
    assert a.network_.cpt_array("class")[0] == pytest.approx(weights[is_a].sum() / weights.sum())


def test_a_zero_weight_row_adds_nothing():
    X, y, params = _categorical()  # row 6 (red, M, a): its values occur in other rows
    weights = np.ones(len(y))
    weights[6] = 0
    kept = np.flatnonzero(weights)
    assert_same_model(bbn.NaiveBayes(**params).fit(X, y, sample_weight=weights),
                      bbn.NaiveBayes(**params).fit(X.iloc[kept], y[kept]), X)


@pytest.mark.parametrize(("weights", "message"), [
    ([1, 2, 3], "X has 8 rows but sample_weight has 3 weights"),
    (np.ones((8, 1)), r"one number per row, got shape \(8, 1\)"),
    ([1, 1, -1, 1, 1, 1, 1, 1], "sample_weight of row 2 is -1: weights must be finite and "
                                "non-negative"),
    ([1, 1, 1, np.nan, 1, 1, 1, 1], "row 3 is nan"),
    ([1, 1, 1, 1, np.inf, 1, 1, 1], "row 4 is inf"),
    (np.zeros(8), "zero for every row"),
    (["a"] * 8, "must be numbers"),
])
def test_bad_sample_weights_are_clear_errors(weights, message):
    X, y, _ = _categorical()
    with pytest.raises(DataError, match=message):
        bbn.NaiveBayes().fit(X, y, sample_weight=weights)


# --------------------------------------------------- boosting: two rounds by hand
# EXAMPLES.md §9. Eight rows; naive Bayes with maximum likelihood, so P(c) ∝ Σ w of class
# c and P(x | c) = Σ w of class-c rows with x / Σ w of class-c rows.
HAND = pd.DataFrame([("p", "r", "yes"), ("p", "r", "no"), ("q", "r", "yes"),
                     ("p", "s", "yes"), ("p", "s", "yes"), ("q", "r", "no"),
                     ("p", "s", "yes"), ("p", "s", "yes")], columns=["a", "b", "y"])


def test_boosting_two_rounds_by_hand():
    X, y = HAND[["a", "b"]], HAND["y"]
    model = bbn.Boosting(bbn.NaiveBayes(estimator="mle"), n_estimators=2).fit(X, y)
    first, second = model.estimators_
    # Round 1, w_i = 1/8: P(yes) = 6/8, P(p|yes) = 5/6, P(r|yes) = 2/6; P(no) = 2/8,
    # P(p|no) = 1/2, P(r|no) = 1, P(s|no) = 0. Scores yes : no per cell:
    #   (p, r): 6/8·5/6·2/6 = 5/24 > 2/8·1/2·1 = 1/8   → yes (row 2 wrong)
    #   (q, r): 6/8·1/6·2/6 = 1/24 < 2/8·1/2·1 = 1/8   → no  (row 3 wrong)
    #   (p, s): 6/8·5/6·4/6 = 5/12 > 0                 → yes
    assert first.predict(X).tolist() == ["yes", "yes", "no", "yes", "yes", "no", "yes", "yes"]
    np.testing.assert_allclose(model.sample_weights_[0], np.full(8, 1 / 8))
    e1 = 2 / 8
    a1 = 0.5 * log((1 - e1) / e1)  # ½ ln 3
    # w ← w·e^{+α} for the 2 wrong rows, w·e^{−α} for the 6 right ones, normalised:
    # (1/8)·√3 and (1/8)/√3, in the ratio 3 : 1, so 1/4 each and 1/12 each
    w2 = np.array([1 / 8 * np.exp(-a1), 1 / 8 * np.exp(a1), 1 / 8 * np.exp(a1),
                   *[1 / 8 * np.exp(-a1)] * 5])
    w2 /= w2.sum()
    np.testing.assert_allclose(w2, [1 / 12, 1 / 4, 1 / 4, 1 / 12, 1 / 12, 1 / 12, 1 / 12,
                                    1 / 12])
    np.testing.assert_allclose(model.sample_weights_[1], w2)
    # Round 2: Σw(yes) = 5·1/12 + 1/4 = 2/3, Σw(no) = 1/4 + 1/12 = 1/3;
    # P(p|yes) = (5/12)/(2/3) = 5/8, P(r|yes) = (1/12 + 1/4)/(2/3) = 1/2,
    # P(p|no) = (1/4)/(1/3) = 3/4, P(r|no) = 1.
    net = second.network_
    assert net.cpt_array("y").tolist() == pytest.approx([1 / 3, 2 / 3])   # classes no, yes
    assert net.cpt_array("a")[:, 0].tolist() == pytest.approx([3 / 4, 5 / 8])  # P(p | c)
    assert net.cpt_array("b")[:, 0].tolist() == pytest.approx([1, 1 / 2])      # P(r | c)
    #   (p, r): 2/3·5/8·1/2 = 5/24 < 1/3·3/4·1 = 1/4   → no  (row 1 wrong)
    #   (q, r): 2/3·3/8·1/2 = 1/8  > 1/3·1/4·1 = 1/12  → yes (row 6 wrong)
    #   (p, s): 2/3·5/8·1/2 = 5/24 > 0                 → yes
    assert second.predict(X).tolist() == ["no", "no", "yes", "yes", "yes", "yes", "yes", "yes"]
    e2 = 1 / 12 + 1 / 12
    a2 = 0.5 * log((1 - e2) / e2)  # ½ ln 5
    np.testing.assert_allclose(model.estimator_errors_, [e1, e2])
    np.testing.assert_allclose(model.alphas_, [a1, a2])
    np.testing.assert_allclose(model.alphas_, [0.5 * log(3), 0.5 * log(5)])
    assert model.estimator_weights_ is model.alphas_
    # Vote: argmax_c Σ_t α_t δ(c, C_t(x)). Where the rounds disagree (rows 1, 2, 3, 6),
    # α_2 = ½ ln 5 > α_1 = ½ ln 3 decides.
    assert model.predict(X).tolist() == ["no", "no", "yes", "yes", "yes", "yes", "yes", "yes"]
    assert model.score(X, y) == 6 / 8
    votes_row_1 = np.array([a2, a1])  # no: C_2, yes: C_1
    np.testing.assert_allclose(model.votes(X)[0], votes_row_1)
    np.testing.assert_allclose(model.predict_proba(X)[0], [log(5) / log(15), log(3) / log(15)])
    np.testing.assert_allclose(model.predict_proba(X)[3], [0, 1])
    # the unseen cell (q, s): yes in both rounds (P(s | no) = 0)
    assert model.predict(pd.DataFrame({"a": ["q"], "b": ["s"]})).tolist() == ["yes"]


def test_a_perfect_round_gets_the_whole_vote():
    # AND of a and b: 3 rows (1, 0), 2 rows (0, 1) → 0, 1 row (1, 1) → 1.
    X = pd.DataFrame({"a": [1, 1, 1, 0, 0, 1], "b": [0, 0, 0, 1, 1, 1]})
    y = np.array([0, 0, 0, 0, 0, 1])
    model = bbn.Boosting(n_estimators=5).fit(X, y)
    # Round 1: (1, 1) scores 1/6·1·1 = 1/6 for class 1 against 5/6·3/5·2/5 = 1/5 → 0:
    # ε_1 = 1/6. Round 2: the wrong row weighs 1/2, so P(1) = 1/2 and (1, 1) scores
    # 1/2 against 1/2·3/5·2/5 → 1: ε_2 = 0, and boosting stops with α_2 = ∞.
    np.testing.assert_allclose(model.estimator_errors_, [1 / 6, 0])
    assert model.alphas_[0] == pytest.approx(0.5 * log(5)) and model.alphas_[1] == np.inf
    np.testing.assert_allclose(model.sample_weights_[1], [0.1] * 5 + [0.5])
    assert model.predict(X).tolist() == y.tolist()
    np.testing.assert_array_equal(model.predict_proba(X), np.eye(2)[y])
    # perfect in round 1: one member
    single = bbn.Boosting(n_estimators=5).fit(X.iloc[:5].assign(a=[1, 1, 1, 0, 0]),
                                               [1, 1, 1, 0, 0])
    assert len(single.estimators_) == 1 and single.alphas_.tolist() == [np.inf]


def test_boosting_stops_when_the_error_reaches_one_half():
    rng = np.random.default_rng(3)
    n = 200
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.normal(size=n)])
    y = np.where((X[:, 0] == 1) ^ (X[:, 2] > 0.3) ^ (rng.random(n) < 0.1), "b", "a")
    base = bbn.NaiveBayes(features=["categorical", "bernoulli", "gaussian"])
    model = bbn.Boosting(base, n_estimators=15).fit(X, y)
    rounds = len(model.estimators_)
    assert 1 < rounds < 15 and np.all(model.estimator_errors_ < 0.5)
    # the next round, trained on the weights the last one leaves, has ε ≥ 1/2
    w = model.sample_weights_[-1]
    wrong = model.estimators_[-1].predict(X) != y
    w = w * np.exp(np.where(wrong, model.alphas_[-1], -model.alphas_[-1]))
    w /= w.sum()
    following = bbn.NaiveBayes(**base.get_params()).fit(X, y, sample_weight=len(y) * w)
    assert w[following.predict(X) != y].sum() >= 0.5
    # a balanced XOR: naive Bayes is no better than chance in round 1
    xor = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    with pytest.raises(DataError, match=r"round 1 is ε = 0.5 ≥ 1/2"):
        bbn.Boosting().fit(xor, [0, 1, 1, 0])


def test_boosting_learns_xor_that_naive_bayes_cannot():
    # XOR of a and b with unequal cell counts: naive Bayes (additive in log space) gets the
    # 3 (1, 0) rows and the 2 (1, 1) rows wrong; 4 boosted rounds classify all 14.
    cells = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], [7, 3, 2, 2], axis=0)
    X = pd.DataFrame(cells, columns=["a", "b"])
    y = cells[:, 0] ^ cells[:, 1]
    mle = bbn.NaiveBayes(estimator="mle")
    assert mle.fit(X, y).score(X, y) == 10 / 14
    model = bbn.Boosting(mle, n_estimators=4).fit(X, y)
    assert model.score(X, y) == 1.0
    assert bbn.Boosting(mle, n_estimators=1).fit(X, y).score(X, y) == 10 / 14


def test_multiclass_boosting_follows_the_notes():
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"u": rng.integers(0, 4, 60), "v": rng.integers(0, 3, 60)})
    y = np.where(X["u"] + X["v"] > 3, "hi", np.where(X["u"] == X["v"], "eq", "lo"))
    base = bbn.NaiveBayes(estimator="laplace")
    model = bbn.Boosting(base, n_estimators=6).fit(X, y)
    assert len(model.estimators_) > 2
    # the notes' updates, from the members' own predictions
    w = np.full(len(y), 1 / len(y))
    for t, member in enumerate(model.estimators_):
        np.testing.assert_allclose(model.sample_weights_[t], w)
        reference = bbn.NaiveBayes(estimator="laplace").fit(X, y, sample_weight=len(y) * w)
        assert_same_model(member, reference, X)
        wrong = member.predict(X) != y
        eps = w[wrong].sum() / w.sum()
        alpha = 0.5 * log((1 - eps) / eps)
        assert model.estimator_errors_[t] == pytest.approx(eps)
        assert model.alphas_[t] == pytest.approx(alpha)
        w = w * np.where(wrong, np.exp(alpha), np.exp(-alpha))
        w /= w.sum()
    classes = np.array(["eq", "hi", "lo"])
    votes = sum(a * (m.predict(X)[:, None] == classes) for a, m in zip(
        model.alphas_, model.estimators_))
    np.testing.assert_array_equal(model.predict(X), classes[np.argmax(votes, axis=1)])
    np.testing.assert_allclose(model.predict_proba(X), votes / votes.sum(axis=1,
                                                                           keepdims=True))


# ------------------------------------------------- boosting against scikit-learn
class Recording(bbn.NaiveBayes):
    """Naive Bayes that records the sample weights of every fit."""

    log: list[np.ndarray] = []

    def fit(self, X, y, sample_weight=None):
        Recording.log.append(np.asarray(sample_weight, dtype=float))
        return super().fit(X, y, sample_weight=sample_weight)


def _xor_cells():
    cells = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], [7, 3, 2, 2], axis=0)
    new = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    return cells, cells[:, 0] ^ cells[:, 1], {"estimator": "mle"}, new


def _mixed_binary():
    rng = np.random.default_rng(0)
    n = 120
    X = np.column_stack([rng.integers(0, 3, n), rng.normal(size=n), rng.normal(size=n)])
    y = np.where(np.hypot(X[:, 1], X[:, 2]) < 1 + 0.3 * X[:, 0], "in", "out")
    # ddof=0 and MLE: the weighted Gaussian and tables are then invariant to the weights'
    # scale, as scikit-learn's weights sum to 1 where bbn's sum to N
    line = np.linspace(-2, 2, 50)
    new = np.column_stack([np.repeat([0, 1, 2], 50), np.tile(line, 3), np.tile(line[::-1], 3)])
    return X, y, {"features": ["categorical", "gaussian", "gaussian"], "ddof": 0,
                  "estimator": "mle"}, new


@pytest.mark.parametrize("make", [_xor_cells, _mixed_binary])
def test_boosting_equals_scikit_learn_samme_on_two_classes(make):
    ensemble_module = pytest.importorskip("sklearn.ensemble")
    X, y, params, new = make()
    T = 8
    Recording.log = []
    theirs = ensemble_module.AdaBoostClassifier(estimator=Recording(**params),
                                                n_estimators=T).fit(X, y)
    their_weights = Recording.log
    Recording.log = []
    ours = bbn.Boosting(Recording(**params), n_estimators=T).fit(X, y)
    our_weights = Recording.log
    rounds = len(ours.estimators_)
    assert rounds == len(theirs.estimators_) and rounds >= 4
    np.testing.assert_allclose(ours.estimator_errors_, theirs.estimator_errors_[:rounds],
                               rtol=1e-9)
    # SAMME's α = ln((1 − ε)/ε) + ln(K − 1) is twice the notes' for K = 2
    np.testing.assert_allclose(2 * ours.alphas_, theirs.estimator_weights_[:rounds],
                               rtol=1e-9)
    for mine, reference in zip(our_weights, their_weights, strict=True):
        ratio = mine / reference
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # proportional
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(ours.predict(new), theirs.predict(new))


# ------------------------------------------------------------------ bagging
def test_bagging_is_reproducible_and_each_member_fits_its_bootstrap_sample():
    rng = np.random.default_rng(6)
    n = 40
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n)})
    y = np.where((X["a"] == "x") | (X["b"] == "u") & (rng.random(n) < 0.8), "+", "-")
    base = bbn.NaiveBayes(estimator="laplace", states={"a": ["x", "y", "z"], "b": ["u", "v"]})
    model = bbn.Bagging(base, n_estimators=7, seed=42).fit(X, y)
    samples = np.random.default_rng(42).integers(0, n, size=(7, n))
    np.testing.assert_array_equal(model.samples_, samples)
    again = bbn.Bagging(base, n_estimators=7, seed=42).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    other = bbn.Bagging(base, n_estimators=7, seed=43).fit(X, y)
    assert not np.array_equal(other.samples_, model.samples_)
    # each member is naive Bayes fitted on the rows of its bootstrap sample S_t
    for member, rows in zip(model.estimators_, samples, strict=True):
        assert set(y[rows]) == {"+", "-"}  # every sample holds both classes
        own = bbn.NaiveBayes(**base.get_params()).fit(X.iloc[rows], y[rows])
        assert_same_model(member, own, X)
    # equal votes: c_BA(x) = argmax_c Σ_t δ(c, C_t(x)); proba = the share of the votes
    predictions = np.array([m.predict(X) for m in model.estimators_])
    plus = (predictions == "+").sum(axis=0)
    np.testing.assert_array_equal(model.predict_proba(X), np.column_stack([plus, 7 - plus]) / 7)
    np.testing.assert_array_equal(model.predict(X), np.where(plus >= 4, "+", "-"))
    np.testing.assert_array_equal(model.estimator_weights_, np.ones(7))


def test_bagging_with_sample_weight_weighs_each_members_draws():
    """Member t is fitted with w_i · (times row i was drawn); integer weights equal
    repeating the rows, and a base classifier without weights is refused."""
    rng = np.random.default_rng(8)
    n = 30
    X = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.choice(["u", "v", "w"], n)})
    y = np.where(X["a"] == "x", "+", "-")
    y[:4] = "-"
    weights = rng.integers(0, 4, n).astype(float)
    base = bbn.NaiveBayes(estimator="laplace", states={"a": ["x", "y"], "b": ["u", "v", "w"]})
    model = bbn.Bagging(base, n_estimators=5, seed=3).fit(X, y, sample_weight=weights)
    for member, rows in zip(model.estimators_, model.samples_, strict=True):
        repeated = np.repeat(rows, weights[rows].astype(int))  # each draw, w_i times
        own = bbn.NaiveBayes(**base.get_params()).fit(X.iloc[repeated], y[repeated])
        assert_same_model(member, own, X)
    unweighted = bbn.Bagging(base, n_estimators=5, seed=3).fit(X, y)
    ones = bbn.Bagging(base, n_estimators=5, seed=3).fit(X, y, sample_weight=np.ones(n))
    np.testing.assert_array_equal(ones.predict_proba(X), unweighted.predict_proba(X))
    neighbors = pytest.importorskip("sklearn.neighbors")
    with pytest.raises(bbn.DataError, match="KNeighborsClassifier.fit does not"):
        bbn.Bagging(neighbors.KNeighborsClassifier()).fit(X.assign(a=0, b=1), y,
                                                           sample_weight=weights)
    with pytest.raises(bbn.DataError, match="X has 30 rows but sample_weight has 2"):
        bbn.Bagging(base).fit(X, y, sample_weight=[1, 2])


def test_bagging_a_classifier_without_weights_fits_the_drawn_rows():
    neighbors = pytest.importorskip("sklearn.neighbors")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    model = bbn.Bagging(neighbors.KNeighborsClassifier(n_neighbors=1), n_estimators=3,
                        seed=0).fit(X, y)
    for member, rows in zip(model.estimators_, model.samples_, strict=True):
        np.testing.assert_array_equal(member._fit_X, X[rows])
    test = rng.normal(size=(20, 2))
    own = [neighbors.KNeighborsClassifier(n_neighbors=1).fit(X[rows], y[rows]).predict(test)
           for rows in model.samples_]
    np.testing.assert_array_equal(model.predict(test), (np.sum(own, axis=0) >= 2).astype(int))


# --------------------------------------------------------- protocol and errors
def test_ensembles_follow_the_scikit_learn_protocol():
    base = pytest.importorskip("sklearn.base")
    from sklearn.model_selection import cross_val_score

    model = bbn.Boosting(bbn.NaiveBayes(estimator="laplace"), n_estimators=3)
    assert base.is_classifier(model) and base.is_classifier(bbn.Bagging())
    params = model.get_params()
    assert params["n_estimators"] == 3 and params["estimator__estimator"] == "laplace"
    copy = base.clone(model)
    assert copy.get_params(deep=False).keys() == {"estimator", "n_estimators"}
    copy.set_params(estimator__estimator=bbn.Laplace(alpha=2.0), n_estimators=5)
    assert copy.estimator.estimator == bbn.Laplace(alpha=2.0)
    assert model.estimator.estimator == "laplace"
    with pytest.raises(ValueError, match="invalid parameter 'n_estimator'.*n_estimators"):
        copy.set_params(n_estimator=2)
    bagging = bbn.Bagging(seed=1).set_params(estimator__estimator="m-estimate")
    assert isinstance(bagging.estimator, bbn.NaiveBayes)
    assert bagging.estimator.estimator == "m-estimate"
    assert repr(bagging) == "Bagging(estimator=NaiveBayes(estimator='m-estimate'), seed=1)"
    X = pd.DataFrame({"a": list("xyxyxyxyzz" * 3), "b": list("uuvvuvuvuv" * 3)})
    y = np.array(list("+-+--+-+-+" * 3))
    scores = cross_val_score(model, X, y, cv=3)
    assert scores.shape == (3,) and np.all((0 <= scores) & (scores <= 1))


def test_ensemble_errors_are_clear():
    X, y = HAND[["a", "b"]], HAND["y"]
    for unfitted in (bbn.Boosting(), bbn.Bagging()):
        for method in (unfitted.predict, unfitted.predict_proba):
            with pytest.raises(NotFittedError, match="not fitted yet"):
                method(X)
    with pytest.raises(DataError, match="n_estimators must be a positive integer, got 0"):
        bbn.Bagging(n_estimators=0).fit(X, y)
    with pytest.raises(DataError, match="X has 8 rows but y has 3 labels"):
        bbn.Boosting().fit(X, y[:3])
    with pytest.raises(DataError, match="row 1 is -1"):
        bbn.Boosting().fit(X, y, sample_weight=[1, -1, 1, 1, 1, 1, 1, 1])

    class Unweighted:
        def get_params(self, deep=True):
            return {}

        def fit(self, X, y):
            return self

    with pytest.raises(DataError, match="Unweighted.fit does not"):
        bbn.Boosting(Unweighted()).fit(X, y)


def test_boosting_starts_from_the_given_sample_weights():
    X, y = HAND[["a", "b"]], HAND["y"]
    weights = np.array([1, 2, 1, 1, 1, 1, 1, 1.0])
    model = bbn.Boosting(n_estimators=1).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.sample_weights_[0], weights / 9)
    repeated = np.repeat(np.arange(8), weights.astype(int))
    assert model.estimator_errors_[0] == pytest.approx(bbn.Boosting(n_estimators=1).fit(
        X.iloc[repeated], y.iloc[repeated]).estimator_errors_[0])


def test_ensembles_do_not_import_scikit_learn():
    import subprocess
    import sys

    code = ("import sys, bbn, numpy as np; X = np.array([[0], [1], [1], [0]]); "
            "y = ['a', 'b', 'b', 'b']; bbn.Boosting(bbn.NaiveBayes(estimator='laplace'))"
            ".fit(X, y).predict(X); bbn.Bagging(seed=0).fit(X, y).predict(X); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_docstring_examples():
    assert doctest.testmod(ensemble).failed == 0


def test_nested_parameters_and_their_errors():
    boosting = bbn.Boosting(n_estimators=2)
    boosting.set_params(estimator__estimator=bbn.BDeu(ess=2.0), estimator__binarize=0.5)
    assert boosting.get_params()["estimator__estimator"] == bbn.BDeu(ess=2.0)
    assert boosting.get_params()["estimator__binarize"] == 0.5
    assert repr(boosting) == "Boosting(estimator=NaiveBayes(estimator=BDeu(ess=2.0), " \
                             "binarize=0.5), n_estimators=2)"
    with pytest.raises(ValueError, match="'binarize__x' for NaiveBayes: binarize has no "
                                         "parameters"):
        bbn.NaiveBayes().set_params(binarize__x=1)
    with pytest.raises(ValueError, match="'n_estimator' for Bagging.*did you mean 'n_estimators'"):
        bbn.Bagging().set_params(n_estimator=3)


class _OnlyAnArray:
    """An array-like with ``__array__`` only (no ``len``, no ``shape``), as scikit-learn's
    ``_NotAnArray``."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)


def test_ensembles_describe_their_inputs_and_take_any_array_like():
    X, y = HAND[["a", "b"]], HAND["y"]
    for model in (bbn.Boosting(n_estimators=2), bbn.Bagging(n_estimators=3, seed=0)):
        model.fit(X, y)
        assert model.n_features_in_ == 2 and model.feature_names_in_.tolist() == ["a", "b"]
        codes = np.column_stack([(X["a"] == "p"), (X["b"] == "r")]).astype(int)
        fitted = model.fit(_OnlyAnArray(codes), _OnlyAnArray(y.to_numpy()))
        assert fitted.n_features_in_ == 2 and not hasattr(fitted, "feature_names_in_")
        np.testing.assert_array_equal(fitted.predict(_OnlyAnArray(codes)),
                                      model.fit(codes, y).predict(codes))


def test_boosting_with_integer_weights_equals_boosting_on_repeated_rows():
    # Round t passes W·w^t, W = Σ sample_weight: Laplace smoothing sees the same counts as
    # on the rows repeated, so every round — not only the first — is the same.
    X, y = HAND[["a", "b"]], HAND["y"]
    weights = np.array([1, 2, 1, 3, 1, 1, 2, 1])
    repeated = np.repeat(np.arange(8), weights)
    weighted = bbn.Boosting(n_estimators=3).fit(X, y, sample_weight=weights)
    copies = bbn.Boosting(n_estimators=3).fit(X.iloc[repeated], y.iloc[repeated])
    np.testing.assert_allclose(weighted.estimator_errors_, copies.estimator_errors_, rtol=1e-12)
    np.testing.assert_allclose(weighted.alphas_, copies.alphas_, rtol=1e-12)
    np.testing.assert_allclose(weighted.predict_proba(X), copies.predict_proba(X), rtol=1e-12)
    first = weighted.estimators_[0].network_
    np.testing.assert_allclose(first.cpt_array("a"),  # Laplace: (n(a, c) + 1)/(n(c) + 2)
                               [[(2 + 1) / (3 + 2), (1 + 1) / (3 + 2)],
                                [(8 + 1) / (9 + 2), (1 + 1) / (9 + 2)]])

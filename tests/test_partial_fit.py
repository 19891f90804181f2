"""NaiveBayes.partial_fit: batches of rows add up to the model fit learns from all of
them, for every feature kind (categorical, Bernoulli, Gaussian, word counts, text) and
for the tree-augmented structure; and it behaves as scikit-learn's partial_fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError

RNG = np.random.default_rng(11)
N = 600
MIXED = pd.DataFrame({
    "colour": RNG.choice(["red", "green", "blue"], N),
    "size": RNG.choice(["s", "m", "l", "xl"], N),
    "flag": RNG.integers(0, 2, N).astype(float),
    "height": RNG.normal(170, 10, N),
})
LABELS = pd.Series(RNG.choice(["a", "b", "c"], N), name="kind")
KINDS = {"flag": "bernoulli", "height": "gaussian"}


def batches(frame, labels, size=170):
    return [(frame.iloc[i:i + size], labels.iloc[i:i + size])
            for i in range(0, len(frame), size)]


def partial(model, frame, labels, size=170, **options):
    for i, (X, y) in enumerate(batches(frame, labels, size)):
        model.partial_fit(X, y, classes=["a", "b", "c"] if i == 0 else None, **options)
    return model


def assert_same_network(a: bbn.Network, b: bbn.Network, rtol: float = 0.0) -> None:
    assert a.variables == b.variables
    for v in a.variables:
        assert a.parents(v) == b.parents(v), v
        if a.is_gaussian(v):
            for x, y in zip(a.gaussian_parameters(v), b.gaussian_parameters(v)):
                np.testing.assert_allclose(x, y, rtol=1e-12)
        else:
            assert a.states(v) == b.states(v), v
            assert np.array_equal(a.cpt_array(v), b.cpt_array(v)), v


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_batches_give_the_model_of_the_whole(structure):
    options = dict(features=KINDS, structure=structure, var_smoothing=1e-3)
    whole = bbn.NaiveBayes(**options).fit(MIXED, LABELS)
    streamed = partial(bbn.NaiveBayes(**options), MIXED, LABELS)
    assert_same_network(streamed.network_, whole.network_)
    assert streamed.classes_.tolist() == whole.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(streamed.predict_proba(MIXED), whole.predict_proba(MIXED),
                               rtol=1e-10)


@pytest.mark.filterwarnings("ignore::bbn.tasks.learning.GaussianFallbackWarning")  # batch 1
def test_weighted_batches_and_a_batch_lacking_a_class():
    weights = pd.Series(RNG.integers(0, 4, N).astype(float))
    labels = LABELS.where(np.arange(N) >= 170, "a")  # the first batch has class a only
    whole = bbn.NaiveBayes(features=KINDS).fit(MIXED, labels, sample_weight=weights)
    model = bbn.NaiveBayes(features=KINDS)
    for i, (X, y) in enumerate(batches(MIXED, labels)):
        model.partial_fit(X, y, classes=["c", "b", "a"] if i == 0 else None,
                          sample_weight=weights.iloc[X.index])
    assert_same_network(model.network_, whole.network_)


def test_word_counts_and_a_growing_vocabulary():
    counts = pd.DataFrame(RNG.poisson(1.0, (90, 5)), columns=list("vwxyz"))
    labels = pd.Series(RNG.choice(["ham", "spam"], 90))
    whole = bbn.NaiveBayes(features="multinomial").fit(counts, labels)
    model = bbn.NaiveBayes(features="multinomial")
    for i in range(0, 90, 40):
        model.partial_fit(counts.iloc[i:i + 40], labels.iloc[i:i + 40], classes=["ham", "spam"])
    assert_same_network(model.network_, whole.network_)
    texts = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch at noon",
             "zebra crossing", "offer ends now"]
    kinds = ["spam", "ham", "spam", "ham", "ham", "spam"]
    whole = bbn.NaiveBayes().fit(texts, kinds)
    model = bbn.NaiveBayes().partial_fit(texts[:2], kinds[:2], classes=["ham", "spam"])
    model.partial_fit(texts[2:4], kinds[2:4]).partial_fit(texts[4:], kinds[4:])
    assert model.vocabulary_ == whole.vocabulary_  # 'zebra' arrived in the last batch
    assert_same_network(model.network_, whole.network_)
    assert model.predict(["cheap zebra"]).tolist() == whole.predict(["cheap zebra"]).tolist()


def test_gaussian_partial_fit_equals_scikit_learns():
    from sklearn.naive_bayes import GaussianNB

    X = RNG.normal(0, 1, (300, 3)) + np.repeat([[0, 0, 0], [1, 2, 3]], 150, axis=0)
    y = np.repeat([0, 1], 150)
    order = RNG.permutation(300)
    X, y = X[order], y[order]
    ours = bbn.NaiveBayes(features="gaussian", ddof=0, var_smoothing=1e-9)
    theirs = GaussianNB(var_smoothing=1e-9)
    for i in range(0, 300, 70):
        ours.partial_fit(X[i:i + 70], y[i:i + 70], classes=[0, 1])
        theirs.partial_fit(X[i:i + 70], y[i:i + 70], classes=[0, 1])
    for j in range(3):
        mean, variance = ours.network_.gaussian_parameters(f"x{j}")
        np.testing.assert_allclose(mean, theirs.theta_[:, j], rtol=1e-12)
        np.testing.assert_allclose(variance, theirs.var_[:, j], rtol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_partial_fit_after_fit_adds_to_its_counts():
    first, rest = MIXED.iloc[:300], MIXED.iloc[300:]
    model = bbn.NaiveBayes(features=KINDS, states={"size": ["l", "m", "s", "xl"]})
    model.fit(first, LABELS.iloc[:300]).partial_fit(rest, LABELS.iloc[300:])
    whole = bbn.NaiveBayes(features=KINDS).fit(MIXED, LABELS)
    assert_same_network(model.network_, whole.network_)
    # and a new fit starts afresh
    again = model.fit(first, LABELS.iloc[:300])
    assert_same_network(again.network_,
                        bbn.NaiveBayes(features=KINDS).fit(first, LABELS.iloc[:300]).network_)


def test_hand_counts_over_two_batches():
    model = bbn.NaiveBayes(estimator="mle", states=["u", "v"])
    model.partial_fit([["u"], ["v"]], ["x", "y"], classes=["x", "y"])
    model.partial_fit([["u"], ["u"]], ["x", "y"])
    # class x: u, u → P(u | x) = 1; class y: v, u → 1/2 each; P(x) = 2/4
    assert model.network_.cpt_array("x0").tolist() == [[1.0, 0.0], [0.5, 0.5]]
    assert model.network_.cpt_array("class").tolist() == [0.5, 0.5]


def test_partial_fit_errors_name_what_is_wrong():
    model = bbn.NaiveBayes()
    with pytest.raises(DataError, match="classes must be passed on the first call"):
        model.partial_fit([["u"]], ["x"])
    model.partial_fit([["u"], ["v"]], ["x", "y"], classes=["x", "y"])
    with pytest.raises(DataError, match=r"label 'z' in row 1, which is not among the classes"):
        model.partial_fit([["u"], ["v"]], ["x", "z"])
    with pytest.raises(DataError, match=r"column 'x0', row 1: value 'w' is not a state.*"
                                        "declare every state with states="):
        model.partial_fit([["u"], ["w"]], ["x", "y"])
    with pytest.raises(DataError, match="X has 2 features, but NaiveBayes is expecting 1"):
        model.partial_fit([["u", "v"]], ["x"])
    # the failed batches added nothing
    assert model.network_.cpt_array("class").tolist() == [0.5, 0.5]

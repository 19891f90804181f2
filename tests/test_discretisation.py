"""Discretisation (issue 28): cut points by equal width, equal frequency and 1-D k-means
(scikit-learn's KBinsDiscretizer as the oracle), MDLP (Fayyad–Irani by hand, and R's
discretization::mdlp cuts on iris), reusable on new data; the discretize= options; naive
Bayes's Gaussian default against scikit-learn's GaussianNB."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError
from bbn.tasks.learning.discretisation import (
    Discretiser,
    ManyValuesWarning,
    interval_names,
    kmeans_cuts,
    mdlp_cuts,
)

datasets = pytest.importorskip("sklearn.datasets")


@pytest.fixture(scope="module")
def iris() -> pd.DataFrame:
    frame = datasets.load_iris(as_frame=True).frame
    return frame.assign(target=frame["target"].map({0: "setosa", 1: "versicolor",
                                                    2: "virginica"}))


# k-means with 4 bins is left out: sepal length's values 6.1 and 7.0 lie exactly halfway
# between two starting centres, a tie scikit-learn breaks by its rounding of
# ‖x‖² − 2xc + ‖c‖² (bbn: to the lower centre, as exact arithmetic's argmin).
@pytest.mark.parametrize("strategy, bins", [("uniform", 3), ("uniform", 4), ("uniform", 5),
                                            ("quantile", 3), ("quantile", 4),
                                            ("quantile", 5), ("kmeans", 3), ("kmeans", 5)])
def test_cut_points_are_scikit_learns(iris, strategy, bins):
    from sklearn.preprocessing import KBinsDiscretizer

    X = iris.drop(columns="target")
    options = {"quantile_method": "linear"} if strategy == "quantile" else {}
    reference = KBinsDiscretizer(n_bins=bins, strategy=strategy, encode="ordinal",
                                 **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes about narrow bins
        reference.fit(X)
    fitted = bbn.discretize(X, strategy, bins)
    for j, column in enumerate(X.columns):
        np.testing.assert_allclose(fitted.cuts[column], reference.bin_edges_[j][1:-1],
                                   rtol=0, atol=1e-12)


def test_kmeans_by_hand():
    # clusters {0, .1, .2}, {5, 5.1}, {9.9, 10}: centres .1, 5.05, 9.95
    assert kmeans_cuts(np.array([0, 0.1, 0.2, 5, 5.1, 9.9, 10]), 3) == pytest.approx(
        [2.575, 7.5], abs=1e-12)


def test_mdlp_accepts_a_clean_cut_and_refuses_noise_by_hand():
    # S = 1..8, classes aaaabbbb: Ent(S) = 1, the cut 4.5 leaves two pure halves, gain 1;
    # Δ = log2(3² − 2) − (2·1 − 0 − 0) = 0.807; threshold (log2 7 + Δ)/8 = 0.452 < 1.
    assert mdlp_cuts(np.arange(1.0, 9), np.array([0, 0, 0, 0, 1, 1, 1, 1])) == [4.5]
    # abab: the best cut (1.5 or 3.5, one pure side) gains 1 − 3/4·0.918 = 0.311; its
    # threshold (log2 3 + log2 7 − (2 − 0 − 2·0.918))/4 = 1.057: no cut
    gain = 1 - 0.75 * (-(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3))
    threshold = (math.log2(3) + math.log2(7) - (2 - 2 * 0.9182958340544896)) / 4
    assert gain < threshold
    assert mdlp_cuts(np.arange(1.0, 5), np.array([0, 1, 0, 1])) == []


def test_mdlp_on_iris_gives_r_discretization_packages_cuts(iris):
    # R: discretization::mdlp(iris)$cutp — 5.55 6.15 / 2.95 3.35 / 2.45 4.75 / 0.8 1.75
    fitted = bbn.discretize(iris, "mdlp", target="target")
    expected = {"sepal length (cm)": [5.55, 6.15], "sepal width (cm)": [2.95, 3.35],
                "petal length (cm)": [2.45, 4.75], "petal width (cm)": [0.8, 1.75]}
    assert fitted.cuts.keys() == expected.keys()
    for column, cuts in expected.items():
        assert fitted.cuts[column] == pytest.approx(cuts, abs=1e-12)
    assert fitted.states["petal length (cm)"] == ("[1, 2.45]", "(2.45, 4.75]",
                                                  "(4.75, 6.9]")
    counts = fitted.transform(iris)["petal length (cm)"].value_counts(sort=False)
    length = iris["petal length (cm)"]
    assert counts.tolist() == [(length <= 2.45).sum(), ((length > 2.45) & (length <= 4.75)).sum(),
                               (length > 4.75).sum()] == [50, 45, 55]


def test_transform_is_reusable_on_new_data_and_keeps_missing_and_categories():
    train = pd.DataFrame({"x": [0.0, 10, 20, 30, 40, 50], "c": ["b", "a", "b", "a", "b", "a"]})
    fitted = bbn.discretize(train, "uniform", bins=2)
    assert fitted.cuts == {"x": [25.0]} and fitted.states["c"] == ("a", "b")
    new = pd.DataFrame({"x": [-100, 25, 25.0001, 1e9, None], "c": ["a", "b", None, "a", "b"]})
    out = fitted.transform(new)
    assert out["x"].tolist()[:4] == ["[0, 25]", "[0, 25]", "(25, 50]", "(25, 50]"]
    assert pd.isna(out["x"].iloc[4]) and pd.isna(out["c"].iloc[2])
    assert list(out["x"].cat.categories) == ["[0, 25]", "(25, 50]"] and out["x"].cat.ordered
    # the same cuts read back from the interval names (a network's states)
    again = Discretiser.from_states({"x": fitted.states["x"], "c": ("a", "b")})
    assert again.cuts == {"x": [25.0]}
    # CSV text is numbers too
    text = bbn.discretize(train.astype(str), "uniform", bins=2)
    assert text.cuts == {"x": [25.0]}


def test_labels_get_the_digits_they_need():
    assert interval_names([1.00001, 1.00002], 1.0, 2.0) == (
        "[1, 1.00001]", "(1.00001, 1.00002]", "(1.00002, 2]")


@pytest.mark.parametrize("arguments, message", [
    (dict(method="median"), "unknown discretisation method 'median'"),
    (dict(bins=1), "at least 2"),
    (dict(method="mdlp"), "give target="),
    (dict(columns=["c"]), "column 'c', row 0: value 'a' is not a number"),
])
def test_bad_settings_are_data_errors(arguments, message):
    frame = pd.DataFrame({"x": np.arange(10.0), "c": list("ababababab")})
    with pytest.raises(DataError, match=message):
        bbn.discretize(frame, **arguments)


def test_learn_structure_and_learn_with_discretize(iris):
    with pytest.warns(ManyValuesWarning, match="'sepal length \\(cm\\)'.*discretize"):
        bbn.learn_structure(iris, method="tree")
    learned = bbn.learn_structure(iris, method="tree", discretize="mdlp", target="target")
    assert learned.states("petal width (cm)") == ("[0.1, 0.8]", "(0.8, 1.75]", "(1.75, 2.5]")
    # learn again on the raw numbers, cut at the network's own intervals: the same tables
    again = bbn.learn(learned, iris, discretize=True)
    assert again == bbn.learn(learned, iris, discretize=learned.discretiser_)
    np.testing.assert_allclose(again.cpt_array("target").sum(axis=-1), 1.0)
    table = again.cpt("petal width (cm)") if "target" in again.parents(
        "petal width (cm)") else None
    if table is not None:  # P(petal width ≤ 0.8 | setosa) = 50/50
        assert table.reduce({"target": "setosa"}).values[0] == pytest.approx(1.0)


def test_naive_bayes_numbers_are_gaussian_and_predict_as_gaussian_nb(iris):
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = iris.drop(columns="target"), iris["target"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    reference = GaussianNB().fit(X_train, y_train)
    model = bbn.NaiveBayes().fit(X_train, y_train)
    assert set(model.feature_kinds_.values()) == {"gaussian"}
    assert np.array_equal(model.predict(X_test), reference.predict(X_test))
    assert model.score(X_test, y_test) == reference.score(X_test, y_test) == 44 / 45
    # with scikit-learn's variance (ddof 0, smoothing 1e-9 of the largest): its numbers
    same = bbn.NaiveBayes(ddof=0, var_smoothing=1e-9).fit(X_train, y_train)
    np.testing.assert_allclose(same.predict_proba(X_test), reference.predict_proba(X_test),
                               atol=1e-9)
    # values never seen in training are numbers like any other: no error at score
    assert model.score(X_test + 0.0123, y_test) > 0.9


@pytest.mark.parametrize("method", ["quantile", "uniform", "kmeans", "mdlp", "quantile:3"])
def test_naive_bayes_discretize_cuts_at_fit_and_predict(iris, method):
    X, y = iris.drop(columns="target"), iris["target"]
    model = bbn.NaiveBayes(discretize=method).fit(X, y)
    assert set(model.feature_kinds_.values()) == {"categorical"}
    states = model.network_.states("petal length (cm)")
    assert states == model.discretiser_.states["petal length (cm)"]
    assert model.score(X, y) > 0.9
    as_array = bbn.NaiveBayes(discretize=method).fit(X.to_numpy(), y.to_numpy())
    np.testing.assert_allclose(as_array.predict_proba(X.to_numpy()), model.predict_proba(X))


def test_naive_bayes_discretize_refuses_a_dask_collection():
    dd = pytest.importorskip("dask.dataframe")
    X = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.5, 3.5, 4.0]}), npartitions=2)
    y = dd.from_pandas(pd.Series(["u", "v", "u", "v"]), npartitions=2)
    with pytest.raises(DataError, match="discretize= cuts rows held in memory"):
        bbn.NaiveBayes(discretize="uniform").fit(X, y)


def test_a_transformed_frame_keeps_the_interval_order_everywhere(iris):
    cut = bbn.discretize(iris, "quantile", bins=3).transform(iris)
    states = ("[4.3, 5.4]", "(5.4, 6.3]", "(6.3, 7.9]")
    assert tuple(cut["sepal length (cm)"].cat.categories) == states
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ManyValuesWarning: the numbers are intervals
        learned = bbn.learn_structure(cut, method="tree")
    assert learned.states("sepal length (cm)") == states
    model = bbn.NaiveBayes().fit(cut.drop(columns="target"), cut["target"])
    assert model.network_.states("sepal length (cm)") == states

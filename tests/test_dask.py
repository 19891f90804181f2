"""Dask collections on a LocalCluster of two worker processes: tables, naive Bayes
models, predictions and posteriors equal the in-memory results. Skipped without Dask."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError

dd = pytest.importorskip("dask.dataframe", reason="Dask is not installed (bbn[dask])")
dask = pytest.importorskip("dask", reason="Dask is not installed (bbn[dask])")
distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is absent")


@pytest.fixture(scope="module")
def client():
    """Two worker processes on this machine, one thread each."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as session:
        yield session


@pytest.fixture(scope="module")
def rows():
    net = bbn.load("models/chair.bn")
    frame = bbn.sample(net, 3001, seed=5).astype(str)
    return net, frame, dd.from_pandas(frame, npartitions=4)


def test_learn_counts_per_partition(client, rows):
    net, frame, parts = rows
    for estimator in ("mle", bbn.BDeu(ess=2)):
        learned, whole = bbn.learn(net, parts, estimator), bbn.learn(net, frame, estimator)
        for v in net.variables:
            assert np.array_equal(learned.cpt_array(v), whole.cpt_array(v)), v


def test_structure_score_counts_per_partition(client, rows):
    net, frame, parts = rows
    assert bbn.structure_score(net, parts, "bdeu") == pytest.approx(
        bbn.structure_score(net, frame, "bdeu"), rel=1e-13)


def test_a_bad_value_in_a_partition_is_the_same_error(client, rows):
    net, frame, _ = rows
    bad = frame.copy()
    bad.iloc[2500, 0] = "maybe"
    with pytest.raises(DataError, match=r"column 'C', row 2500: value 'maybe' is not a state"):
        bbn.learn(net, dd.from_pandas(bad, npartitions=3))


def test_naive_bayes_fit_on_partitions(client):
    rng = np.random.default_rng(2)
    n = 900
    X = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], n),
                      "count": rng.integers(0, 4, n),
                      "height": rng.normal(170, 10, n)})
    y = pd.Series(rng.choice(["a", "b"], n), name="kind")
    options = dict(features={"height": "gaussian"})
    whole = bbn.NaiveBayes(**options).fit(X, y)
    parts = dd.from_pandas(X.assign(kind=y), npartitions=3)
    model = bbn.NaiveBayes(**options).fit(parts[list(X.columns)], parts["kind"])
    assert model.classes_.tolist() == ["a", "b"] and model.class_variable_ == "kind"
    for v in whole.network_.variables:
        if whole.network_.is_gaussian(v):
            for a, b in zip(model.network_.gaussian_parameters(v),
                            whole.network_.gaussian_parameters(v)):
                np.testing.assert_allclose(a, b, rtol=1e-12)
        else:
            assert model.network_.states(v) == whole.network_.states(v)
            assert np.array_equal(model.network_.cpt_array(v), whole.network_.cpt_array(v)), v
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-10)


def test_predictions_and_posteriors_are_dask_collections(client, rows):
    net, frame, parts = rows
    evidence = frame.drop(columns=["C", "S"])
    lazy = bbn.predict_proba(net, parts.drop(columns=["C", "S"]), "C")
    assert type(lazy).__module__.startswith(("dask", "dask_expr"))
    computed = lazy.compute()
    pd.testing.assert_frame_equal(computed, bbn.predict_proba(net, evidence, "C"))
    predicted = bbn.predict(net, parts.drop(columns=["C", "S"]), "C").compute()
    assert predicted.tolist() == bbn.predict(net, evidence, "C").tolist()
    # posteriors: a Dask DataFrame, computed per partition, equal to the pandas batch's
    # DataFrame (indexed like the evidence, a column per state; a MultiIndex for two)
    for targets in ("C", ["C", "S"]):
        lazy = net.posterior(targets, evidence=parts.drop(columns=["C", "S"]))
        assert type(lazy).__module__.startswith(("dask", "dask_expr"))
        assert list(lazy.columns) == list(net.posterior(targets, evidence).columns)
        pd.testing.assert_frame_equal(lazy.compute(), net.posterior(targets, evidence))
    lazy = net.posteriors(parts.drop(columns=["C", "S"]))  # {X: Dask DataFrame}
    whole = net.posteriors(evidence)
    assert list(lazy) == list(whole)
    for v, answer in zip(lazy, dask.compute(*lazy.values())):
        pd.testing.assert_frame_equal(answer, whole[v], rtol=1e-12)
    one = net.posterior("C", evidence=parts.drop(columns=["C", "S"])).compute()
    assert one.columns.name == "C" and one.loc[7, "T"] == pytest.approx(
        net.posterior("C", evidence=evidence.loc[7].to_dict()).values[0], rel=1e-12)


def test_partitions_of_x_and_y_must_match(client):
    X = dd.from_pandas(pd.DataFrame({"x": list("abab")}), npartitions=2)
    y = dd.from_pandas(pd.Series(list("uvuv"), name="y"), npartitions=1)
    with pytest.raises(DataError, match="partitioned alike"):
        bbn.NaiveBayes().fit(X, y)


def test_interventions_and_soft_findings_on_partitions(client, rows):
    """do= and soft= hold for every row of a Dask DataFrame as of a pandas one: each
    partition answered where it lives equals the pandas batch, and each row the single
    question; a wrong name or an approximate method is said before anything runs."""
    net, frame, parts = rows
    evidence, lazy_evidence = frame[["A"]], parts[["A"]]
    soft = {"W": {"T": 0.3, "F": 0.7}}
    for do in (None, {"S": "F"}):
        lazy = net.posterior("C", lazy_evidence, do=do, soft=soft)
        assert type(lazy).__module__.startswith(("dask", "dask_expr"))
        whole = net.posterior("C", evidence, do=do, soft=soft)
        pd.testing.assert_frame_equal(lazy.compute(), whole, rtol=1e-12)
        single = net.posterior("C", {"A": evidence.loc[11, "A"]}, do=do, soft=soft)
        assert whole.loc[11, "T"] == pytest.approx(single.values[0], rel=1e-12)
        every = net.posteriors(lazy_evidence, do=do, soft=soft)
        expected = net.posteriors(evidence, do=do, soft=soft)
        for v, answer in zip(every, dask.compute(*every.values())):
            pd.testing.assert_frame_equal(answer, expected[v], rtol=1e-12)
    with pytest.raises(bbn.QueryError, match="'Wx'"):
        net.posterior("C", lazy_evidence, soft={"Wx": {"T": 1.0}})
    with pytest.raises(bbn.QueryError, match="state"):
        net.posteriors(lazy_evidence, do={"S": "maybe"})
    with pytest.raises(bbn.QueryError, match="method='exact'"):
        net.posterior("C", lazy_evidence, method="lbp")

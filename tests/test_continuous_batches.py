"""Batches (a DataFrame of cases) with continuous findings in a network whose Gaussians
have continuous parents: every row equals the one-case answer."""

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import QueryError


def _clg() -> bbn.Network:
    net = bbn.Network("clg")
    net.add_variable("C", ["a", "b"], table=[0.3, 0.7])
    net.add_variable("S", ["lo", "hi"], parents=["C"], table=[[0.8, 0.2], [0.1, 0.9]])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 0.5])
    net.add_gaussian_variable("y", ["x", "S"], mean=[1.0, -1.0], variance=[0.5, 2.0],
                              weights={"x": [1.0, 3.0]})
    net.add_gaussian_variable("z", ["y"], mean=0.5, variance=1.5, weights={"y": -0.5})
    net.add_variable("R", ["no", "yes"], parents=["S"], table=[[0.9, 0.1], [0.4, 0.6]])
    return net


def sampled_rows(net: bbn.Network, n: int, columns: list[str], seed: int,
                 holes: float) -> pd.DataFrame:
    """``n`` rows sampled from ``net`` (seed ``seed + 1``), its ``columns``, a share
    ``holes`` of the cells missing (seed ``seed``); numbers as floats."""
    rng = np.random.default_rng(seed)
    rows = bbn.sample(net, n, seed=seed + 1)[columns].astype(object)
    rows = rows.mask(rng.random(rows.shape) < holes)
    for column in columns:
        if column in net.compiled().gaussian:
            rows[column] = rows[column].astype(float)
    return rows


def test_each_row_equals_the_one_case_answer():
    net = _clg()
    rows = sampled_rows(net, 40, ["x", "y", "z", "R"], 0, 0.35)
    answer = net.posterior(["C", "S"], rows)
    for i, (_, row) in enumerate(rows.iterrows()):
        case = {v: (float(x) if v in "xyz" else x) for v, x in row.items() if pd.notna(x)}
        single = net.posterior(["C", "S"], case)
        assert answer.iloc[i].to_numpy() == pytest.approx(single.values.ravel(), abs=1e-10)
    one = net.posterior("C", rows[["y"]])
    assert one.iloc[0].to_numpy() == pytest.approx(
        net.posterior("C", {"y": rows["y"].iloc[0]} if pd.notna(rows["y"].iloc[0])
                      else {}).values, abs=1e-10)


def test_impossible_and_refused_batches():
    net = _clg()
    net.set_cpt("R", [[1.0, 0.0], [0.4, 0.6]])
    rows = pd.DataFrame({"R": ["yes", "no"], "y": [0.5, 0.5]})
    frame = net.posterior("C", rows.assign(S=["lo", "lo"]), impossible="nan")  # R=yes: no
    assert np.isnan(frame.iloc[0].to_numpy()).all() and not np.isnan(frame.iloc[1]).any()
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("C", rows.assign(S=["lo", "lo"]))
    with pytest.raises(QueryError, match="continuous and discrete variables separately"):
        net.posterior(["x", "C"], rows)
    impossible = net.posterior("x", rows.assign(S=["lo", "lo"]), impossible="nan")
    assert np.isnan(impossible.iloc[0].to_numpy()).all()
    assert not np.isnan(impossible.iloc[1].to_numpy()).any()
    with pytest.raises(QueryError, match="every variable for a batch"):
        net.posteriors(rows)


def test_predict_proba_on_a_linear_network_equals_the_posteriors():
    net = _clg()
    rows = bbn.sample(net, 30, seed=2)[["x", "y", "R"]]
    predicted = bbn.predict_proba(net, rows, "C")
    for i, (_, row) in enumerate(rows.iterrows()):
        single = net.posterior("C", {"x": row["x"], "y": row["y"], "R": row["R"]})
        assert predicted.iloc[i].to_numpy() == pytest.approx(single.values, abs=1e-10)


def test_continuous_targets_give_each_rows_mean_and_variance():
    net = _clg()
    rows = sampled_rows(net, 30, ["y", "z", "R", "S"], 3, 0.4)
    answer = net.posterior("x", rows)
    assert list(answer.columns) == ["mean", "variance"] and answer.columns.name == "x"
    both = net.posterior(["x", "z"], rows)
    assert list(both.columns) == [("x", "mean"), ("x", "variance"), ("z", "mean"),
                                  ("z", "variance")]
    for i, (_, row) in enumerate(rows.iterrows()):
        case = {v: (float(x) if v in "yz" else x) for v, x in row.items() if pd.notna(x)}
        single = net.posterior("x", case)  # the exact mixture, one case
        assert answer.iloc[i].to_numpy() == pytest.approx([single.mean, single.variance],
                                                          abs=1e-10)
        assert both.loc[answer.index[i], "x"].to_numpy() == pytest.approx(
            answer.iloc[i].to_numpy(), abs=1e-12)
        if "z" not in case:
            single = net.posterior("z", case)
            assert both.loc[answer.index[i], "z"].to_numpy() == pytest.approx(
                [single.mean, single.variance], abs=1e-10)
        else:  # observed: its value, no spread
            assert both.loc[answer.index[i], "z"].to_numpy() == pytest.approx(
                [case["z"], 0.0], abs=1e-9)


def test_a_linear_gaussian_batch_equals_pgmpy():
    pgmpy = pytest.importorskip("pgmpy")
    from pgmpy.factors.continuous import LinearGaussianCPD
    from pgmpy.models import LinearGaussianBayesianNetwork

    assert pgmpy.__version__
    rng = np.random.default_rng(5)
    net, model, cpds = bbn.Network("lg"), LinearGaussianBayesianNetwork(), []
    names = [f"x{i}" for i in range(8)]
    model.add_nodes_from(names)
    for i, v in enumerate(names):
        parents = [names[j] for j in range(i) if rng.random() < 0.4]
        c, b, variance = rng.normal(), rng.normal(0, 0.8, len(parents)), rng.uniform(0.5, 2)
        net.add_gaussian_variable(v, parents, mean=c, variance=variance,
                                  weights=dict(zip(parents, b)))
        model.add_edges_from([(p, v) for p in parents])
        cpds.append(LinearGaussianCPD(v, [c, *b], float(np.sqrt(variance)), parents))
    model.add_cpds(*cpds)
    rows = pd.DataFrame(rng.normal(0, 2, (12, 3)), columns=["x1", "x4", "x6"])
    order, mu, cov = model.predict_probability(rows)
    ours = net.posterior(order, rows)
    for k, v in enumerate(order):
        assert ours[(v, "mean")].to_numpy() == pytest.approx(mu[:, k], abs=1e-7)
        assert ours[(v, "variance")].to_numpy() == pytest.approx(
            np.full(len(rows), cov[k, k]), abs=1e-7)


def test_a_gaussian_leaf_asked_in_a_batch():
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.25, 0.75])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 4.0])
    answer = net.posterior(["x"], pd.DataFrame({"C": ["a", "b", None]}))
    # C unknown: E = 0.75 · 2 = 1.5, Var = 0.25 · 1 + 0.75 · (4 + 4) − 1.5² = 4.0
    np.testing.assert_allclose(answer.to_numpy(), [[0.0, 1.0], [2.0, 4.0], [1.5, 4.0]],
                               atol=1e-12)

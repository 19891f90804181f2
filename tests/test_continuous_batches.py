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


def test_each_row_equals_the_one_case_answer():
    net = _clg()
    rng = np.random.default_rng(0)
    rows = bbn.sample(net, 40, seed=1)[["x", "y", "z", "R"]].astype(object)
    holes = rng.random(rows.shape) < 0.35
    rows = rows.mask(holes)
    for column in "xyz":
        rows[column] = rows[column].astype(float)
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
    with pytest.raises(QueryError, match="continuous"):
        net.posterior("x", rows)  # continuous targets: one case at a time
    with pytest.raises(QueryError, match="every variable for a batch"):
        net.posteriors(rows)


def test_predict_proba_on_a_linear_network_equals_the_posteriors():
    net = _clg()
    rows = bbn.sample(net, 30, seed=2)[["x", "y", "R"]]
    predicted = bbn.predict_proba(net, rows, "C")
    for i, (_, row) in enumerate(rows.iterrows()):
        single = net.posterior("C", {"x": row["x"], "y": row["y"], "R": row["R"]})
        assert predicted.iloc[i].to_numpy() == pytest.approx(single.values, abs=1e-10)

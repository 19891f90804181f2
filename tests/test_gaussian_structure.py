"""Structure search on continuous columns with the Gaussian BIC: the score against the
formula by hand (bnlearn's bic-g) and pgmpy's BICGauss, and the search against known
linear Gaussian networks."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, ModelError
from bbn.tasks.structure.gaussian_scores import GaussianFamilyScores


def _truth() -> bbn.Network:
    net = bbn.Network()
    net.add_gaussian_variable("a", mean=0.0, variance=1.0)
    net.add_gaussian_variable("b", ["a"], mean=1.0, variance=0.5, weights={"a": 0.8})
    net.add_gaussian_variable("c", ["b"], mean=-1.0, variance=0.5, weights={"b": -0.7})
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_gaussian_variable("y", mean=2.0, variance=1.0)
    net.add_gaussian_variable("z", ["x", "y"], mean=0.0, variance=0.5,
                              weights={"x": 1.0, "y": -1.0})
    return net


def test_gaussian_bic_equals_the_formula_by_hand():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(40, 3))
    data[:, 2] += 0.5 * data[:, 0] - data[:, 1]
    n = len(data)
    design = np.column_stack([np.ones(n), data[:, :2]])
    residual = data[:, 2] - design @ np.linalg.lstsq(design, data[:, 2], rcond=None)[0]
    log_l = -n / 2 * (math.log(2 * math.pi * residual @ residual / n) + 1)
    scores = GaussianFamilyScores(("u", "v", "w"), data, "bic-g")
    assert scores.score(2, (0, 1)) == pytest.approx(log_l - 4 / 2 * math.log(n), rel=1e-12)
    aic = GaussianFamilyScores(("u", "v", "w"), data, "aic-g")
    assert aic.score(2, (1, 0)) == pytest.approx(log_l - 4, rel=1e-12)
    alone = data[:, 0] - data[:, 0].mean()
    assert scores.score(0, ()) == pytest.approx(
        -n / 2 * (math.log(2 * math.pi * alone @ alone / n) + 1) - math.log(n), rel=1e-12)


def test_gaussian_bic_equals_pgmpy_bicgauss():
    estimators = pytest.importorskip("pgmpy.estimators")
    data = bbn.sample(_truth(), 800, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oracle = estimators.BICGauss(data)
        scores = GaussianFamilyScores(tuple(data.columns), data.to_numpy(), "bic-g")
        for child, parents in [("z", ["x", "y"]), ("b", []), ("c", ["a", "b"])]:
            mine = scores.score(data.columns.get_loc(child),
                                [data.columns.get_loc(p) for p in parents])
            assert mine == pytest.approx(oracle.local_score(child, parents), rel=1e-10)


def test_search_recovers_a_chain_and_a_v_structure_from_5000_rows():
    truth = _truth()
    data = bbn.sample(truth, 5000, seed=0)
    learned = bbn.learn_structure(data)  # float columns: bic-g by hill climbing
    assert all(learned.is_gaussian(v) for v in learned.variables)
    found = bbn.compare(learned, truth)
    assert found.cpdag_shd == 0, found  # the same equivalence class
    assert ("x", "z") in learned.arcs() and ("y", "z") in learned.arcs()
    assert learned.score_ == pytest.approx(bbn.structure_score(truth, data, "bic"), rel=1e-12)
    # the tables are least squares on the found families: z's weights near (1, −1)
    assert [float(w) for w in learned.gaussian_weights("z").values()] == pytest.approx(
        [1.0, -1.0], abs=0.05)
    assert learned.copy() == learned


def test_gaussian_search_options_and_refusals():
    data = bbn.sample(_truth(), 500, seed=1)
    tiered = bbn.learn_structure(data, "hc", "bic-g", tiers=[["c"], ["a", "b", "x", "y", "z"]])
    assert all(p == "c" for p, child in tiered.arcs() if "c" in (p, child))
    with pytest.raises(ModelError, match="'k2' score counts discrete states"):
        bbn.learn_structure(data, score="k2")
    with pytest.raises(ModelError, match="method 'pc' needs discrete data"):
        bbn.learn_structure(data, method="pc", score="bic-g")
    holes = data.copy()
    holes.loc[7, "b"] = np.nan
    with pytest.raises(DataError, match="column 'b', row 7: missing value"):
        bbn.learn_structure(holes)
    assert bbn.learn_structure(holes, missing="drop").variables == tuple(data.columns)
    codes = pd.DataFrame({"A": [0.0, 1.0, 1.0, 0.0] * 10, "B": [0.0, 1.0, 1.0, 1.0] * 10})
    assert not bbn.learn_structure(codes, method="tree").is_gaussian("A")  # whole numbers


def _mixed() -> bbn.Network:
    net = bbn.Network()
    net.add_variable("S", ["lo", "hi"], table=[0.4, 0.6])
    net.add_variable("R", ["no", "yes"], parents=["S"], table=[[0.8, 0.2], [0.3, 0.7]])
    net.add_gaussian_variable("x", ["S"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    net.add_gaussian_variable("y", ["x", "R"], mean=[1.0, -1.0], variance=[0.5, 0.5],
                              weights={"x": [1.0, -1.0]})
    return net


def test_conditional_gaussian_score_equals_the_formula_by_hand():
    from bbn.tasks.structure.dataset import read_coded
    from bbn.tasks.structure.mixed_scores import ConditionalGaussianScores

    data = bbn.sample(_mixed(), 300, seed=3)
    coded = read_coded(data[["S", "R"]].astype(str))
    values = data[["x", "y"]].to_numpy()
    scores = ConditionalGaussianScores(coded, ("S", "R", "x", "y"), values, "bic-cg")
    n = len(data)
    log_l = 0.0
    for state in ("no", "yes"):  # y | R, x: one regression per state of R
        rows = data[data["R"].astype(str) == state]
        design = np.column_stack([np.ones(len(rows)), rows["x"]])
        residual = rows["y"] - design @ np.linalg.lstsq(design, rows["y"], rcond=None)[0]
        log_l += -len(rows) / 2 * (math.log(2 * math.pi * residual @ residual / len(rows)) + 1)
    assert scores.score(3, (1, 2)) == pytest.approx(log_l - 2 * 3 / 2 * math.log(n), rel=1e-12)
    assert scores.score(0, (2,)) == -math.inf  # no continuous parent for a discrete child
    assert scores.score(1, (0,)) == pytest.approx(
        bbn.structure_score(bbn.Network.assemble("r", {"S": ["hi", "lo"], "R": ["no", "yes"]},
                                                 {"R": ["S"]}),
                            data[["S", "R"]].astype(str), "bic", per_variable=True)["R"],
        rel=1e-12)


def test_mixed_search_recovers_a_conditional_gaussian_network():
    truth = _mixed()
    data = bbn.sample(truth, 5000, seed=4)
    data["S"], data["R"] = data["S"].astype(str), data["R"].astype(str)
    learned = bbn.learn_structure(data)
    assert learned.is_gaussian("x") and not learned.is_gaussian("S")
    assert {("S", "x"), ("R", "y"), ("x", "y")} <= set(learned.arcs())
    assert not any(learned.is_gaussian(p) and not learned.is_gaussian(c)
                   for p, c in learned.arcs())
    found = bbn.compare(learned, truth)
    assert found.shd <= 1, found  # S — R may point either way
    assert learned.gaussian_weights("y")["x"].tolist() == pytest.approx([1.0, -1.0], abs=0.05)

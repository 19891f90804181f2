"""bbn.learn_structure's edges: data read and coded once (missing values, states),
settings and knowledge validated once, the start network, the tables learned from the
same counts, and LearnedNetwork's fitted attributes."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, ModelError
from bbn.tasks.structure.dataset import read_coded

ROWS = pd.DataFrame({"A": list("TTFFTFTT"), "B": list("TTFFTTTF"), "C": list("xyxyxyyy")})


def test_the_tables_are_those_bbn_learn_gives_for_the_structure_found():
    net = bbn.learn_structure(ROWS, method="tree", root="A", estimator=bbn.Laplace(1))
    assert isinstance(net, bbn.LearnedNetwork)
    assert net.method_ == "tree" and net.statistics_ == {"pairs": 3, "skipped": {"memory": 0}}
    assert net.undirected_edges_ == []
    again = bbn.learn(net, ROWS, bbn.Laplace(1))
    for v in net.variables:
        np.testing.assert_allclose(net.cpt_array(v), again.cpt_array(v), rtol=0, atol=1e-15)
    other = net.copy()
    assert other == net and other.method_ == "tree" and other.statistics_ is not net.statistics_


def test_states_given_and_missing_values():
    data = read_coded(ROWS, states={"C": ["y", "x", "z"]})
    assert data.states == (("F", "T"), ("F", "T"), ("y", "x", "z"))
    assert data.counts([2]).tolist() == [5.0, 3.0, 0.0]
    holes = ROWS.copy()
    holes.loc[3, "B"] = None
    with pytest.raises(DataError, match=r"row 3 has no value for 'B'"):
        bbn.learn_structure(holes, method="tree")
    dropped = read_coded(holes, missing="drop")
    assert dropped.family_rows([0, 1]) == 7 and dropped.family_rows([0, 2]) == 8
    assert dropped.counts([0, 1]).sum() == 7
    net = bbn.learn_structure(holes, method="tree", missing="drop", root="A")
    # B's table counted on the 7 rows that have B: A = F on rows 2, 5 → B = F, T
    assert net.parents("B") == ("A",)
    np.testing.assert_allclose(net.cpt_array("B")[0], [0.5, 0.5])


def test_a_start_network_gets_the_required_arcs_and_must_honour_the_rest():
    start = bbn.Network()
    for v in "ABC":
        start.add_variable(v, ["0", "1"])
    start.add_edge("A", "C")
    with pytest.raises(ModelError, match=r"the start network \(with the required arcs\) has "
                                         r"the arc A->C, which is forbidden"):
        bbn.learn_structure(ROWS, method="tree", start=start, forbidden=["A->C"])
    with pytest.raises(ModelError, match=r"start network \(with the required arcs\) has a "
                                         r"cycle: "):
        bbn.learn_structure(ROWS, method="tree", start=start, required=["C->A"])
    stranger = bbn.Network()
    stranger.add_variable("D", ["0", "1"])
    with pytest.raises(ModelError, match=r"the start network's variable 'D' is no column"):
        bbn.learn_structure(ROWS, method="tree", start=stranger)
    with pytest.raises(ModelError, match=r"start must be a Network"):
        bbn.learn_structure(ROWS, method="tree", start="start.bn")


@pytest.mark.parametrize("arguments, error, message", [
    ({"method": "tre"}, ModelError, r"unknown method 'tre'; the methods are .*did you mean "
                                    r"'tree'"),
    ({"score": "bics"}, ModelError, r"unknown score 'bics'.*did you mean 'bic'"),
    ({"test": "chi"}, ModelError, r"unknown test 'chi'.*did you mean 'chi2'"),
    ({"alpha": 1.5}, ModelError, r"alpha \(the tests' level\) must be a number in \(0, 1\)"),
    ({"ess": -1}, ModelError, r"ess \(BDeu's equivalent sample size\) must be a number > 0"),
    ({"missing": "skip"}, ModelError, r"missing must be one of error, drop, got 'skip'"),
    ({"target": "c"}, ModelError, r"'c' is no variable of data \(did you mean 'C'\?\)"),
    ({"method": "tree", "roots": "A"}, ModelError, r"method 'tree' has no option 'roots' "
                                                   r"\(did you mean 'root'\?\)"),
    ({"method": "tree", "root": "a"}, ModelError, r"the root 'a' is no column of data"),
    ({"estimator": "mlee"}, DataError, r"unknown estimator 'mlee'.*did you mean 'mle'"),
])
def test_bad_settings_are_clear_errors(arguments, error, message):
    with pytest.raises(error, match=message):
        bbn.learn_structure(ROWS, **{"method": "tree", **arguments})


def test_data_errors():
    with pytest.raises(DataError, match=r"no rows"):
        bbn.learn_structure(ROWS.iloc[:0], method="tree")
    with pytest.raises(DataError, match=r"value 'y' is not a state of 'C'"):
        bbn.learn_structure(ROWS, method="tree", states={"C": ["x"]})


def test_a_table_above_the_memory_limit_is_never_allocated(memory_limit):
    wide = pd.DataFrame({v: [str(i % 60) for i in range(120)] for v in "XYZ"})
    memory_limit(60 ** 2 * 8 - 1)                  # one 60 × 60 table does not fit
    net = bbn.learn_structure(wide, method="tree")
    assert net.arcs() == [] and net.statistics_ == {"pairs": 0, "skipped": {"memory": 3}}
    memory_limit(60 ** 2 * 8)
    net = bbn.learn_structure(wide, method="tree")
    assert len(net.arcs()) == 2 and net.statistics_["skipped"] == {"memory": 0}


def test_the_worked_alarm_example_of_the_docs(shared, tmp_path):
    truth = bbn.load(shared / "networks" / "alarm.bif.gz")
    bbn.sample(truth, 10_000, seed=1).to_csv(tmp_path / "alarm.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # PRESS: three parent configurations unseen
        learned = bbn.learn_structure(tmp_path / "alarm.csv")
    result = bbn.compare(learned, truth)
    assert learned.method_ == "hybrid" and len(learned.arcs()) == 44
    assert (result.shd, result.cpdag_shd) == (5, 3)
    assert result.missing == [("INSUFFANESTH", "CATECHOL"), ("SAO2", "CATECHOL")]
    assert result.extra == [] and len(result.reversed) == 3

"""The default method ("hybrid"): MMPC's skeleton, then two climbs in it — from the empty
graph and (from PC_START_ROWS rows on, or when asked) from PC's answer on the skeleton —
and the DAG of higher score. PC started from a given skeleton finds the separating sets
of the pairs the skeleton left out."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bbn
from bbn.core.errors import ModelError
from bbn.tasks.structure import structure_score
from bbn.tasks.structure.dataset import read_coded
from bbn.tasks.structure.equivalence import as_matrix
from bbn.tasks.structure.hybrid import PC_START_ROWS
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Settings
from bbn.tasks.structure.pc import pc_method, pc_search
from tests.test_structure_search import CHAIR_COMPELLED, chair_rows, quiet_learn


def names(data, arcs) -> set[tuple[str, str]]:
    return {(data.variables[p], data.variables[c]) for p, c in arcs}


def test_the_answer_is_the_climb_of_higher_score(chair_file):
    rows = chair_rows(chair_file, 2000, seed=5)
    both = quiet_learn(rows, pc_start=True)
    empty_only = quiet_learn(rows, pc_start=False)
    scores = both.statistics_["scores"]
    assert set(scores) == {"empty", "pc"} and both.statistics_["pc_tests"] > 0
    assert both.statistics_["start"] == max(scores, key=scores.get)
    assert both.score_ == max(scores.values())
    assert both.score_ == pytest.approx(structure_score(both, rows), rel=1e-12)
    # the climb from the empty graph is the whole search with pc_start=False
    assert scores["empty"] == pytest.approx(empty_only.score_, rel=1e-12)
    assert empty_only.statistics_["scores"] == {"empty": empty_only.score_}
    assert empty_only.statistics_["pc_tests"] == 0
    assert both.score_ >= empty_only.score_


@pytest.mark.parametrize("rows, starts", [(PC_START_ROWS - 1, {"empty"}),
                                          (PC_START_ROWS, {"empty", "pc"})])
def test_pc_start_auto_climbs_from_pc_from_enough_rows(chair_file, rows, starts):
    learned = quiet_learn(chair_rows(chair_file, rows))
    assert set(learned.statistics_["scores"]) == starts
    assert (learned.statistics_["pc_tests"] > 0) == ("pc" in starts)


def test_a_start_network_is_the_one_start(chair_file):
    rows = chair_rows(chair_file, 2000)
    start = quiet_learn(rows, method="tree", root="C")
    learned = quiet_learn(rows, start=start, pc_start=True)
    assert learned.statistics_["start"] == "given"
    assert set(learned.statistics_["scores"]) == {"given"}
    assert learned.statistics_["pc_tests"] == 0


def test_pcs_start_is_dropped_when_it_breaks_the_knowledge(chair_file):
    # PC finds chair's collider C → B ← S: two parents, more than max_parents=1 allows
    rows = chair_rows(chair_file, 3000)
    learned = quiet_learn(rows, max_parents=1, pc_start=True)
    assert learned.statistics_["start"] == "empty" and set(learned.statistics_["scores"]) \
        == {"empty"}
    assert max(len(learned.parents(v)) for v in learned.variables) <= 1


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_pc_start_takes_true_false_or_auto(chair_file, value):
    with pytest.raises(ModelError, match="option pc_start of method 'hybrid' must be True, "
                                         "False or 'auto'"):
        bbn.learn_structure(chair_rows(chair_file, 100), pc_start=value)


def test_pc_start_is_named_when_misspelt(chair_file):
    with pytest.raises(ModelError, match="did you mean 'pc_start'"):
        bbn.learn_structure(chair_rows(chair_file, 100), pc_strat=False)


def test_pc_from_the_complete_skeleton_is_pc(chair_file):
    data = read_coded(chair_rows(chair_file, 3000, seed=1))
    knowledge = Knowledge.build(data.variables)
    whole = pc_method(data, knowledge, Settings())
    allowed = knowledge.allowed
    from_skeleton = pc_search(data, knowledge, Settings(), skeleton=allowed | allowed.T)
    assert from_skeleton.parents == whole.parents
    assert from_skeleton.undirected == whole.undirected
    assert from_skeleton.statistics["tests"] == whole.statistics["tests"]


def test_pc_separates_the_pairs_a_skeleton_left_out(chair_file):
    # chair's true skeleton, given: C – S was never tested, yet C → B ← S is found from
    # the separating set PC looks for (C ⫫ S), and B → A follows by Meek's rule 1
    data = read_coded(chair_rows(chair_file, 3000, seed=1))
    knowledge = Knowledge.build(data.variables)
    index = {v: i for i, v in enumerate(data.variables)}
    true = [(index[p], index[c]) for p, c in [("C", "W"), ("C", "B"), ("S", "B"),
                                              ("B", "A")]]
    skeleton = as_matrix(len(data.variables), true)
    skeleton |= skeleton.T
    found = pc_search(data, knowledge, Settings(), skeleton=skeleton)
    assert names(data, found.arcs()) >= CHAIR_COMPELLED
    assert names(data, found.undirected) in ({("C", "W")}, {("W", "C")})
    assert not np.any(as_matrix(len(data.variables), found.arcs()) & ~skeleton)


def test_the_pc_start_mends_the_alarm_example(shared):
    """The docs' worked example (alarm, 10,000 rows of seed 1): the climb from the empty
    graph ends at class SHD 6; the climb from PC's answer scores higher and ends at 3."""
    truth = bbn.load(shared / "networks" / "alarm.bif.gz")
    rows = bbn.sample(truth, 10_000, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # PRESS: three parent configurations unseen
        both = bbn.learn_structure(rows)
        empty_only = bbn.learn_structure(rows, pc_start=False)
    scores = both.statistics_["scores"]
    assert both.statistics_["start"] == "pc" and scores["pc"] > scores["empty"]
    assert scores["empty"] == pytest.approx(empty_only.score_, rel=1e-12)
    judged = bbn.compare(both, truth), bbn.compare(empty_only, truth)
    assert [(r.shd, r.cpdag_shd) for r in judged] == [(5, 3), (9, 6)]

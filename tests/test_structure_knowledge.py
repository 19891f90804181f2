"""Expert knowledge (bbn.structure.knowledge): what each constraint allows, and knowledge
that contradicts itself refused with the arcs named."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bbn.errors import ModelError
from bbn.structure.knowledge import NO_TIER, Knowledge

NAMES = ("A", "B", "C", "D")


def test_each_constraint_by_itself():
    assert Knowledge.build(NAMES).allowed.tolist() == (~np.eye(4, dtype=bool)).tolist()
    forbidden = Knowledge.build(NAMES, forbidden=[("A", "B"), "C -> D"])
    assert not forbidden.allows(0, 1) and forbidden.allows(1, 0)
    assert not forbidden.allows(2, 3) and forbidden.allows(3, 2)
    tiers = Knowledge.build(NAMES, tiers=[["A"], ["B", "C"]])           # D in no tier
    assert tiers.tier == (0, 1, 1, NO_TIER)
    allowed = {(NAMES[p], NAMES[c]) for p, c in itertools.permutations(range(4), 2)
               if tiers.allows(p, c)}
    assert allowed == {(p, c) for p, c in itertools.permutations(NAMES, 2)} - {("B", "A"),
                                                                              ("C", "A")}
    required = Knowledge.build(NAMES, required=["A->B"], max_parents=1)
    assert required.required == {(0, 1)} and required.max_parents == 1
    with pytest.raises(ValueError):                       # read-only: a shared matrix
        required.allowed[0, 1] = False


@pytest.mark.parametrize("arguments, message", [
    ({"required": ["A->B", "B->C", "C->A"]}, r"the required arcs form a cycle: A->B, B->C, C->A"),
    ({"required": ["A->B", "B->A"]}, r"cycle: A->B, B->A"),
    ({"required": ["A->B"], "forbidden": [("A", "B")]}, r"the arc A->B is both required and "
                                                         r"forbidden"),
    ({"required": ["C->A"], "tiers": [["A"], ["B", "C"]]},
     r"the required arc C->A goes from tier 2 back to tier 1"),
    ({"required": ["A->D", "B->D", "C->D"], "max_parents": 2},
     r"'D' has 3 required parents \(A->D, B->D, C->D\), more than max_parents=2"),
    ({"tiers": [["A", "B"], ["B"]]}, r"'B' is in tier 1 and in tier 2"),
    ({"max_parents": -1}, r"max_parents must be a whole number ≥ 0, got -1"),
    ({"max_parents": 1.5}, r"max_parents must be a whole number"),
    ({"required": ["A->Bb"]}, r"the required arc A->Bb names 'Bb', which is no variable "
                              r"\(did you mean 'B'\?\)"),
    ({"forbidden": ["A-B"]}, r"a forbidden arc must be two variable names.*'A-B'"),
    ({"forbidden": [("A", "B", "C")]}, r"two variable names"),
    ({"required": ["A->A"]}, r"the required arc A->A is a self-loop"),
    ({"tiers": [["A"], ["E"]]}, r"tier 2 names 'E', which is no variable"),
    ({"tiers": "AB"}, r"tiers must be a list of lists"),
])
def test_contradictions_and_bad_names_are_clear_errors(arguments, message):
    with pytest.raises(ModelError, match=message):
        Knowledge.build(NAMES, **arguments)


def test_check_dag_names_what_is_wrong():
    knowledge = Knowledge.build(NAMES, required=["A->B"], forbidden=["C->D"],
                                tiers=[["A", "B", "C", "D"]], max_parents=2)
    knowledge.check_dag([(), (0,), (0, 1), ()])
    for parents, message in [([(), (), (), ()], r"start lacks the required arc A->B"),
                             ([(), (0,), (), (2,)], r"start has the arc C->D, which is forbidden"),
                             ([(), (0,), (0, 1, 3), ()], r"gives 'C' 3 parents"),
                             ([(2,), (0,), (1,), ()], r"start has a cycle: ")]:
        with pytest.raises(ModelError, match=message):
            knowledge.check_dag(parents, "start")
    tiered = Knowledge.build(NAMES, tiers=[["A"], ["B"]])
    with pytest.raises(ModelError, match=r"the arc B->A, which is against the tiers"):
        tiered.check_dag([(1,), (), (), ()], "start")

"""Expert knowledge (bbn.tasks.structure.knowledge): what each constraint allows, knowledge
that contradicts itself refused with the arcs named, and every method's result honouring
it (a property test over random knowledge)."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import bbn
from bbn.core.errors import ModelError
from bbn.tasks.structure.knowledge import NO_TIER, Knowledge

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


CHAIR = ("C", "S", "W", "B", "A")
CHAIR_ARCS = [(a, b) for a in CHAIR for b in CHAIR if a != b]


@pytest.fixture(scope="module")
def chair_rows(chair_file):
    return bbn.sample(bbn.load(chair_file), 400, seed=7)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(required=st.lists(st.sampled_from(CHAIR_ARCS), max_size=3, unique=True),
       forbidden=st.lists(st.sampled_from(CHAIR_ARCS), max_size=5, unique=True),
       tier_of=st.lists(st.integers(-1, 2), min_size=5, max_size=5),
       max_parents=st.one_of(st.none(), st.integers(1, 3)),
       method=st.sampled_from(["tree", "pc", "hc", "hybrid", "tan"]))
def test_every_method_honours_the_knowledge_or_says_why_it_cannot(
        chair_rows, required, forbidden, tier_of, max_parents, method):
    tiers = [[v for v, t in zip(CHAIR, tier_of) if t == k] for k in range(3)]
    try:
        knowledge = Knowledge.build(CHAIR, required, forbidden, tiers, max_parents)
    except ModelError:
        event("contradictory: refused up front")
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            learned = bbn.learn_structure(chair_rows, method=method, required=required,
                                          forbidden=forbidden, tiers=tiers,
                                          max_parents=max_parents,
                                          **({"target": "C"} if method == "tan" else {}))
    except ModelError as error:
        # a tree orients one spanning tree, PC keeps what its tests found: some knowledge
        # no such result can honour, and the error says which arc or variable
        assert method in ("tree", "tan", "pc"), error
        assert re.search(r"->|parents|tier|forbid|requir|cycle", str(error)), error
        event(f"{method}: cannot honour it")
        return
    event(f"{method}: honoured")
    order = {name: i for i, name in enumerate(learned.variables)}
    position = [order[v] for v in CHAIR]
    parents = [()] * 5
    for p, c in learned.arcs():
        parents[CHAIR.index(c)] += (CHAIR.index(p),)
    knowledge.check_dag(parents, f"the {method} result")    # raises if anything is broken
    assert sorted(position) == list(range(5))

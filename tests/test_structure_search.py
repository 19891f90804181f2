"""Score-based search ("hc") and the hybrid ("hybrid"): the family-score cache equals
family_score, the batched tests equal independence_test, the generating equivalence
class is found, the best DAG by brute force, pgmpy's hill climbing matched or beaten,
knowledge honoured (property test), seeds, the memory skip, options and missing values."""

from __future__ import annotations

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bbn
from bbn.core.errors import ModelError
from bbn.tasks.structure import hill_climbing, structure_score
from bbn.tasks.structure.dataset import read_coded
from bbn.tasks.structure.family_scores import FamilyScores
from bbn.tasks.structure.hill_climbing import ClimbOptions, hill_climb
from bbn.tasks.structure.independence_tests import independence_test
from bbn.tasks.structure.knowledge import NO_TIER, Knowledge
from bbn.tasks.structure.method import Settings
from bbn.tasks.structure.mmpc import batch_tests, mmpc
from bbn.tasks.structure.scores import SCORES, family_score

#: The chair network's arcs; C → W is reversible (its equivalence class leaves it open).
CHAIR_COMPELLED = {("C", "B"), ("S", "B"), ("B", "A")}


def chair_rows(chair_file, n=3000, seed=3) -> pd.DataFrame:
    return bbn.sample(bbn.load(chair_file), n, seed=seed)


def quiet_learn(rows, **kwargs) -> bbn.LearnedNetwork:
    """learn_structure without the tables' unseen-configuration warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bbn.learn_structure(rows, **kwargs)


def with_missing(rows: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    holes = rows.astype(object).copy()
    holes[rng.random(holes.shape) < fraction] = None
    return holes


def chair_data(chair_file, n: int, missing: str, fraction: float, seed: int):
    """Coded chair rows; with missing="drop", ``fraction`` of the cells blanked."""
    rows = chair_rows(chair_file, n)
    if missing == "drop":
        rows = with_missing(rows, fraction, seed)
    return read_coded(rows, missing=missing)


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("missing", ["error", "drop"])
def test_cached_family_scores_equal_family_score(chair_file, score, missing):
    data = chair_data(chair_file, 500, missing, 0.1, seed=1)
    scores = FamilyScores(data, score, ess=3.0)
    n = len(data.variables)
    for child in range(n):
        for parents in [(), ((child + 1) % n,), ((child + 1) % n, (child + 3) % n)]:
            parents = tuple(sorted(parents))
            others = [p for p in range(n) if p != child]
            toggled = scores.toggled(child, parents, others)
            for p, got in zip(others, toggled):
                family = tuple(sorted(set(parents) ^ {p}))
                expected = family_score(data.counts((*family, child)), score,
                                        rows=data.family_rows((*family, child)), ess=3.0)
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-9)
    before = scores.scored
    scores.toggled(0, (1,), [2, 3])                   # asked before: from the cache
    assert scores.scored == before and scores.hits > 0


def test_a_pair_table_scores_both_directions(chair_file):
    data = read_coded(chair_rows(chair_file, 500))
    scores = FamilyScores(data, "bdeu")
    scores.toggled(0, (), [1, 2, 3, 4])                  # C with each other parent
    assert scores.scored == 8                            # and each other with parent C
    reverse = scores.toggled(3, (), [0])                 # B | C: no new count
    assert scores.scored == 8 and scores.hits == 1
    assert reverse[0] == pytest.approx(family_score(data.counts((0, 3)), "bdeu"), rel=1e-12)


@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_gains_with_missing_values_compare_families_on_the_same_rows(chair_file, score):
    data = read_coded(with_missing(chair_rows(chair_file, 500), 0.1, seed=3), missing="drop")
    scores = FamilyScores(data, score)
    child, parents = 3, (0,)                                    # B with parent C
    for p, gain in zip([1, 2, 0], scores.gains(child, parents, [1, 2, 0])):
        larger = tuple(sorted({*parents, p}))
        table = data.counts((*larger, child))                   # rows complete on W
        without = table.sum(axis=larger.index(p))
        rows = data.family_rows((*larger, child))
        paired = (family_score(table, score, rows=rows)
                  - family_score(without, score, rows=rows))
        assert gain == pytest.approx(paired if p != 0 else -paired, rel=1e-12)
    complete = FamilyScores(read_coded(chair_rows(chair_file, 500)), score)
    assert complete.gains(child, parents, [1]) == pytest.approx(
        complete.score(child, (0, 1)) - complete.score(child, (0,)), rel=1e-12)


@pytest.mark.parametrize("test", ["g2", "chi2"])
@pytest.mark.parametrize("missing", ["error", "drop"])
def test_batched_tests_equal_independence_test(chair_file, test, missing):
    data = chair_data(chair_file, 800, missing, 0.05, seed=2)
    for target, condition in [(3, ()), (3, (0,)), (4, (0, 1)), (0, (3, 4))]:
        others = [x for x in range(5) if x != target and x not in condition]
        statistic, dof, p_value = batch_tests(data, target, others, condition, test)
        for x, s, d, p in zip(others, statistic, dof, p_value):
            expected = independence_test(data, x, target, condition, test)
            assert s == pytest.approx(expected.statistic, rel=1e-9, abs=1e-9)
            assert d == expected.dof
            assert p == pytest.approx(expected.p_value, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("method", ["hc", "hybrid"])
def test_the_generating_equivalence_class_is_found(chair_file, method):
    learned = quiet_learn(chair_rows(chair_file, 3000), method=method)
    arcs = set(learned.arcs())
    # C → B ← S is a v-structure and B → A follows from it; C – W may point either way
    assert CHAIR_COMPELLED <= arcs
    assert arcs - CHAIR_COMPELLED in ({("C", "W")}, {("W", "C")})


def test_mmpc_finds_the_skeleton_of_chair(chair_file):
    data = read_coded(chair_rows(chair_file, 3000))
    skeleton, tests = mmpc(data, alpha=0.05, test="g2")
    name = data.variables
    edges = {frozenset((name[i], name[j])) for i, j in zip(*np.nonzero(np.triu(skeleton)))}
    assert edges == {frozenset(e) for e in [("C", "B"), ("S", "B"), ("B", "A"), ("C", "W")]}
    assert tests >= 10          # at least the 10 marginal tests of 5 variables


def all_dags(n: int):
    """Every DAG on n labelled nodes as parent tuples (543 for n = 4)."""
    pairs = list(itertools.combinations(range(n), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):   # none, i→j, j→i
        arcs = [(i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c]
        if nx.is_directed_acyclic_graph(nx.DiGraph(arcs)) or not arcs:
            yield tuple(tuple(sorted(p for p, c in arcs if c == child)) for child in range(n))


@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_hc_reaches_the_best_dag_found_by_brute_force(chair_file, score):
    rows = chair_rows(chair_file, 2000)[["C", "S", "B", "A"]]
    data = read_coded(rows)
    scores = FamilyScores(data, score)
    dags = list(all_dags(4))
    assert len(dags) == 543                      # the number of labelled DAGs on 4 nodes
    totals = [math.fsum(scores.score(c, ps) for c, ps in enumerate(dag)) for dag in dags]
    best = dags[int(np.argmax(totals))]
    knowledge = Knowledge.build(data.variables)
    found = hill_climb(data, knowledge, Settings(score=score), ClimbOptions())
    assert found.score == pytest.approx(max(totals), rel=1e-12)
    assert found.score >= max(totals) - 1e-9
    # started from the best DAG, hc stays on a DAG of the same score
    stay = hill_climb(data, knowledge, Settings(score=score, start=best), ClimbOptions())
    assert stay.score == pytest.approx(max(totals), rel=1e-12)


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("method", ["hc", "hybrid"])
def test_the_score_returned_is_the_networks_structure_score(chair_file, score, method):
    rows = chair_rows(chair_file, 1500, seed=5)
    learned = quiet_learn(rows, method=method, score=score, ess=2.0)
    assert learned.score_ == pytest.approx(structure_score(learned, rows, score, ess=2.0),
                                           rel=1e-10)


def test_hc_scores_at_least_pgmpys_hill_climbing(shared):
    from pgmpy.causal_discovery import HillClimbSearch

    truth = bbn.load(shared / "networks" / "asia.bif.gz")
    rows = bbn.sample(truth, 3000, seed=11)
    theirs = HillClimbSearch(scoring_method="bic-d", return_type="dag",
                             show_progress=False).fit(rows).causal_graph_
    parents = {v: [p for p, c in theirs.edges() if c == v] for v in truth.variables}
    ordered = bbn.Network()                      # pgmpy's DAG, parents first
    for v in nx.topological_sort(nx.DiGraph(theirs.edges())):
        ordered.add_variable(v, truth.states(v), parents=parents[v] or None)
    for v in truth.variables:
        if v not in ordered.variables:
            ordered.add_variable(v, truth.states(v))
    learned = quiet_learn(rows, method="hc", states={v: truth.states(v)
                                                     for v in truth.variables})
    assert learned.score_ >= structure_score(ordered, rows, "bic") - 1e-6


def honours(learned: bbn.Network, required, forbidden, tiers, max_parents) -> bool:
    arcs = set(learned.arcs())
    tier = {v: k for k, group in enumerate(tiers or []) for v in group}
    return (set(required) <= arcs and not set(forbidden) & arcs
            and all(tier.get(p, NO_TIER) == NO_TIER or tier.get(c, NO_TIER) == NO_TIER
                    or tier[p] <= tier[c] for p, c in arcs)
            and (max_parents is None
                 or all(len(learned.parents(v)) <= max_parents for v in learned.variables)))


NAMES = ("C", "S", "W", "B", "A")
PAIRS = [(a, b) for a in NAMES for b in NAMES if a != b]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(required=st.lists(st.sampled_from(PAIRS), max_size=3, unique=True),
       forbidden=st.lists(st.sampled_from(PAIRS), max_size=4, unique=True),
       tier_of=st.lists(st.integers(-1, 2), min_size=5, max_size=5),
       max_parents=st.one_of(st.none(), st.integers(0, 3)),
       method=st.sampled_from(["hc", "hybrid"]))
def test_knowledge_is_honoured_in_every_result(chair_file, required, forbidden, tier_of,
                                               max_parents, method):
    tiers = [[v for v, t in zip(NAMES, tier_of) if t == k] for k in range(3)]
    try:
        Knowledge.build(NAMES, required, forbidden, tiers, max_parents)
    except ModelError:
        return                                 # contradictory knowledge: refused up front
    rows = chair_rows(chair_file, 400, seed=7)
    learned = quiet_learn(rows, method=method, required=required, forbidden=forbidden,
                          tiers=tiers, max_parents=max_parents, restarts=1)
    assert honours(learned, required, forbidden, tiers, max_parents)


def test_required_arcs_are_kept_against_the_data(chair_file):
    learned = quiet_learn(chair_rows(chair_file), method="hc", required=["A->W"],
                          forbidden=["C->B", "B->C"])
    assert ("A", "W") in learned.arcs()
    assert not {("C", "B"), ("B", "C")} & set(learned.arcs())


def test_a_seed_makes_restarts_reproducible(shared):
    rows = bbn.sample(bbn.load(shared / "networks" / "asia.bif.gz"), 1000, seed=2)
    runs = [quiet_learn(rows, method="hc", restarts=4, perturbation=3, seed=s)
            for s in (7, 7)]
    assert runs[0].arcs() == runs[1].arcs()
    assert runs[0].score_ == runs[1].score_
    plain = quiet_learn(rows, method="hc", tabu_length=0)
    assert runs[0].score_ >= plain.score_ - 1e-9      # the best DAG seen is returned


def test_tabu_steps_return_the_best_dag_seen(shared):
    truth = bbn.load(shared / "networks" / "insurance.bif.gz")
    rows = bbn.sample(truth, 500, seed=4)
    states = {v: truth.states(v) for v in truth.variables}
    greedy = quiet_learn(rows, method="hc", tabu_length=0, states=states)
    tabu = quiet_learn(rows, method="hc", tabu_length=20, states=states)
    assert tabu.score_ >= greedy.score_ - 1e-9
    assert tabu.statistics_["iterations"] >= greedy.statistics_["iterations"]


def test_dropping_the_kept_columns_changes_nothing_but_memory(shared, monkeypatch):
    truth = bbn.load(shared / "networks" / "insurance.bif.gz")
    rows = bbn.sample(truth, 500, seed=4)
    states = {v: truth.states(v) for v in truth.variables}
    kept = quiet_learn(rows, method="hc", restarts=2, seed=1, states=states)
    monkeypatch.setattr(hill_climbing, "_KEPT_COLUMN_ENTRIES", 3 * 27)  # 3 columns of 27
    dropped = quiet_learn(rows, method="hc", restarts=2, seed=1, states=states)
    assert dropped.arcs() == kept.arcs()
    assert dropped.score_ == kept.score_
    assert len(kept.arcs()) > 20                                    # a real search


def test_families_over_the_memory_limit_are_skipped_and_counted(chair_file, memory_limit):
    rows = chair_rows(chair_file, 2000)
    memory_limit(4 * 8)            # tables of at most 4 entries: one binary parent at most
    learned = quiet_learn(rows, method="hc")
    assert learned.statistics_["skipped"]["memory"] > 0
    assert all(len(learned.parents(v)) <= 1 for v in learned.variables)


def test_no_family_is_counted_past_the_limit(chair_file, memory_limit):
    data = read_coded(chair_rows(chair_file, 200))
    scores = FamilyScores(data, "bic")
    memory_limit(8 * 8)
    assert scores.toggled(0, (1, 2), [3, 4]).tolist() == [-math.inf, -math.inf]
    assert scores.skipped_memory == 2 and scores.scored == 0


@pytest.mark.parametrize("method, option, close", [
    ("hc", "tabu_lenght", "tabu_length"), ("hc", "restart", "restarts"),
    ("hybrid", "max_conditon", "max_condition")])
def test_an_unknown_option_gets_did_you_mean(chair_file, method, option, close):
    with pytest.raises(ModelError, match=f"has no option '{option}'.*did you mean '{close}'"):
        bbn.learn_structure(chair_rows(chair_file, 100), method=method, **{option: 3})


@pytest.mark.parametrize("option, value", [("tabu_length", -1), ("restarts", 1.5),
                                           ("max_iterations", True)])
def test_a_bad_option_value_is_refused(chair_file, option, value):
    with pytest.raises(ModelError, match=f"option {option} .* whole number"):
        bbn.learn_structure(chair_rows(chair_file, 100), method="hc", **{option: value})


@pytest.mark.parametrize("method", ["hc", "hybrid"])
def test_missing_values_are_dropped_per_family(chair_file, method):
    rows = with_missing(chair_rows(chair_file, 3000), 0.05, seed=9)
    learned = quiet_learn(rows, method=method, missing="drop")
    data = read_coded(rows, missing="drop")
    expected = math.fsum(        # each family on its available cases
        family_score(data.counts((*ps, c)), "bic", rows=data.family_rows((*ps, c)))
        for c, ps in enumerate(tuple(data.index(p) for p in learned.parents(v))
                               for v in data.variables))
    assert learned.score_ == pytest.approx(expected, rel=1e-12)
    assert CHAIR_COMPELLED <= set(learned.arcs())         # the generating class again
    assert {frozenset(arc) for arc in learned.arcs()} == {
        frozenset(arc) for arc in CHAIR_COMPELLED | {("C", "W")}}
    with pytest.raises(bbn.core.errors.DataError):
        bbn.learn_structure(rows, method=method)


def test_start_and_max_iterations(chair_file):
    start = bbn.Network()
    for v in ("C", "S", "B", "A"):
        start.add_variable(v, ["T", "F"])
    start.add_variable("W", ["T", "F"], parents=["A"])
    rows = chair_rows(chair_file)
    stay = quiet_learn(rows, method="hc", start=start, max_iterations=0, tabu_length=0)
    assert stay.arcs() == start.arcs()
    assert stay.statistics_["iterations"] == 0


def test_progress_lines_are_reported(chair_file):
    lines: list[str] = []
    quiet_learn(chair_rows(chair_file, 500), method="hybrid", restarts=2, progress=lines.append)
    assert lines[0].startswith("hybrid: skeleton of")
    assert sum(line.startswith("hc: restart") for line in lines) == 2

"""PC-stable (method="pc"): the equivalence class with a perfect independence oracle for
every DAG on 4 variables, recovery from samples, pgmpy's skeleton on asia and child,
the number of tests by hand, knowledge, options and errors."""

from __future__ import annotations

import logging
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from test_structure_compare import dags

import bbn
from bbn.core.errors import ModelError
from bbn.tasks.structure import pc
from bbn.tasks.structure.dataset import CodedData, read_coded
from bbn.tasks.structure.equivalence import cpdag
from bbn.tasks.structure.independence_tests import independence_test
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Settings

BINARY = ["0", "1"]


def collider_network() -> bbn.Network:
    """A → C ← B, C → D: every arc compelled."""
    net = bbn.Network("collider")
    net.add_variable("A", BINARY, table=[0.5, 0.5])
    net.add_variable("B", BINARY, table=[0.6, 0.4])
    net.add_variable("C", BINARY, parents=["A", "B"],
                     table=[[0.9, 0.1], [0.3, 0.7], [0.2, 0.8], [0.05, 0.95]])
    net.add_variable("D", BINARY, parents=["C"], table=[[0.85, 0.15], [0.25, 0.75]])
    return net


def chain_rows(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Samples of the chain A → B → C (its class: A — B — C)."""
    net = bbn.Network("chain")
    net.add_variable("A", BINARY, table=[0.5, 0.5])
    net.add_variable("B", BINARY, parents=["A"], table=[[0.85, 0.15], [0.2, 0.8]])
    net.add_variable("C", BINARY, parents=["B"], table=[[0.9, 0.1], [0.25, 0.75]])
    return bbn.sample(net, n, seed=seed)


# ------------------------------------------------------ a perfect oracle, n ≤ 4
class DSeparation:
    """Stands in for the data's tests: p = 1 when X and Y are d-separated by S in the
    true DAG, else p = 0 (PC's correctness assumes exactly such tests)."""

    def __init__(self, parents) -> None:
        self.graph = nx.DiGraph([(p, c) for c, ps in enumerate(parents) for p in ps])
        self.graph.add_nodes_from(range(len(parents)))
        self.run = self.shared = self.too_large = 0

    def p_value(self, x: int, y: int, given: tuple[int, ...]) -> float:
        self.run += 1
        return 1.0 if nx.is_d_separator(self.graph, {x}, {y}, set(given)) else 0.0

    def p_values(self, asked) -> list[float]:
        return [self.p_value(x, y, given) for x, y, given in asked]


def test_with_an_oracle_pc_finds_the_cpdag_of_every_dag_on_4_variables(monkeypatch):
    found_classes = 0
    for dag in dags(4):
        monkeypatch.setattr(pc, "_Tests", lambda data, test, dag=dag: DSeparation(dag))
        data = CodedData(tuple("ABCD"), (tuple(BINARY),) * 4, np.zeros((1, 4), dtype=int))
        found = pc.pc_method(data, Knowledge.build(data.variables), Settings())
        truth = cpdag(dag)
        assert found.undirected == truth.undirected, dag
        assert {a for a in found.arcs() if (min(a), max(a)) not in found.undirected} \
            == truth.arcs, dag
        assert cpdag(found.parents) == truth                  # the extension is a member
        assert found.statistics["conflicts"] == 0
        found_classes += 1
    assert found_classes == 543


class ListedIndependences:
    """Tests that find exactly the listed independences (x, y, S), x < y: possibly
    unfaithful ones, as sampling noise produces."""

    def __init__(self, independent) -> None:
        self.independent = set(independent)
        self.run = self.shared = self.too_large = 0

    def p_value(self, x: int, y: int, given: tuple[int, ...]) -> float:
        self.run += 1
        return 1.0 if (min(x, y), max(x, y), tuple(sorted(given))) in self.independent else 0.0

    def p_values(self, asked) -> list[float]:
        return [self.p_value(x, y, given) for x, y, given in asked]


def test_conflicting_v_structures_leave_the_edge_to_meeks_rules(monkeypatch):
    # A ⫫ C, B ⫫ D, A ⫫ D (all marginally): skeleton A — B — C — D; the separating sets
    # are empty, so A → B ← C and B → C ← D: B — C is proposed both ways (a conflict).
    # Only A → B and D → C are set; Meek's R1 then orients B — C from A → B (the pairs
    # are visited in position order): B → C.
    independent = {(0, 2, ()), (1, 3, ()), (0, 3, ())}
    monkeypatch.setattr(pc, "_Tests", lambda data, test: ListedIndependences(independent))
    data = CodedData(tuple("ABCD"), (tuple(BINARY),) * 4, np.zeros((1, 4), dtype=int))
    found = pc.pc_method(data, Knowledge.build(data.variables), Settings())
    assert found.statistics["conflicts"] == 1
    assert found.arcs() == [(0, 1), (1, 2), (3, 2)] and found.undirected == frozenset()
    # level 0: 6 pairs; level 1: A–B | C, B–C | A, B–C | D, C–D | B
    assert found.statistics["tests"] == 10


# ------------------------------------------------------------- from samples
def test_pc_recovers_the_collider_networks_class_from_5000_samples():
    truth = collider_network()
    learned = bbn.learn_structure(bbn.sample(truth, 5000, seed=4), method="pc")
    assert sorted(learned.arcs()) == sorted(truth.arcs())
    assert learned.undirected_edges_ == []
    result = bbn.compare(learned, truth)
    assert (result.shd, result.cpdag_shd) == (0, 0)
    # its tables are learned from the same rows
    assert learned.cpt_array("C").shape == (2, 2, 2)


def test_a_chain_is_left_undirected_and_extended_one_way():
    learned = bbn.learn_structure(chain_rows(), method="pc")
    assert learned.undirected_edges_ == [("A", "B"), ("B", "C")]
    assert sorted(learned.arcs()) == [("A", "B"), ("B", "C")]     # lower positions first


def test_the_tests_of_a_collider_counted_by_hand():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 2, 4000), rng.integers(0, 2, 4000)
    c = (a | b) ^ (rng.random(4000) < 0.1)
    frame = pd.DataFrame({"A": a, "B": b, "C": c}).astype(str)
    lines: list[str] = []
    learned = bbn.learn_structure(frame, method="pc", progress=lines.append)
    # level 0: A–B, A–C, B–C (3 tests; A–B removed; ∅ is a subset from both ends of
    # A–C and B–C: 2 shared); level 1: A–C | B and B–C | A (A and B have no other
    # neighbour): 5 tests; level 2: no set of 2
    assert learned.statistics_["tests"] == 5
    assert learned.statistics_["shared_sets"] == 2
    assert learned.statistics_["removed"] == [1, 0]
    assert sorted(learned.arcs()) == [("A", "C"), ("B", "C")]
    assert lines[0] == "pc: level 0: 1 edges removed, 2 left, 3 tests"


def test_max_condition_limits_the_conditioning_sets():
    rows = bbn.sample(collider_network(), 3000, seed=2)
    learned = bbn.learn_structure(rows, method="pc", max_condition=0)
    # marginal tests only: A ⫫ B goes, A — D and B — D stay (D depends on both through C)
    assert learned.statistics_["removed"] == [1]
    assert ("A", "D") in learned.arcs() or ("D", "A") in learned.arcs()
    full = bbn.learn_structure(rows, method="pc")
    assert len(full.arcs()) == 3 and len(learned.arcs()) == 5


def test_tests_above_the_memory_limit_are_skipped_and_their_edges_stay(memory_limit):
    rows = bbn.sample(collider_network(), 5000, seed=4)
    memory_limit(8 * 8)           # tables of 3 binary variables fit, of 4 do not
    learned = bbn.learn_structure(rows, method="pc")
    # level 2 would test A–C | B, D and B–C | A, D and C–D | A, B (one set per edge, all
    # of 4 variables): skipped, and their edges were not removed at level 1 anyway
    assert learned.statistics_["skipped"] == {"memory": 3}
    assert sorted(learned.arcs()) == sorted(collider_network().arcs())


def test_missing_values_are_dropped_per_test():
    rows = bbn.sample(collider_network(), 5000, seed=4)
    rows.loc[::50, "D"] = None
    learned = bbn.learn_structure(rows, method="pc", missing="drop")
    assert sorted(learned.arcs()) == sorted(collider_network().arcs())


# --------------------------------------------------------------- vs pgmpy
def _pgmpy_skeleton(rows: pd.DataFrame, test, max_condition: int) -> set:
    from pgmpy.estimators import PC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            # pgmpy 1.x's variant="parallel" is its PC-stable: every level's tests read
            # the graph as it was at the level's start ("stable" removes as it goes)
            skeleton, _ = PC(rows).estimate(variant="parallel", ci_test=test, n_jobs=1,
                                            return_type="skeleton", significance_level=0.05,
                                            max_cond_vars=max_condition, show_progress=False)
        finally:
            logging.disable(logging.NOTSET)
    return {frozenset(edge) for edge in skeleton.edges()}


@pytest.mark.parametrize("name", ["asia", "child"])
def test_pgmpys_pc_stable_with_bbns_test_finds_the_same_skeleton(shared, name):
    truth = bbn.load(shared / "networks" / f"{name}.bif.gz")
    states = {v: truth.states(v) for v in truth.variables}   # child has a state "None"
    rows = bbn.sample(truth, 3000, seed=1)
    learned = bbn.learn_structure(rows, method="pc", states=states, max_condition=3)
    coded = read_coded(rows, states=states)

    def g2(u, v, given, significance_level, **_):
        return independence_test(coded, coded.index(u), coded.index(v),
                                 [coded.index(z) for z in given]).p_value >= significance_level

    assert {frozenset(arc) for arc in learned.arcs()} == _pgmpy_skeleton(rows, g2, 3)


def test_pgmpys_own_g_sq_differs_on_asia_only_where_a_test_has_no_degree_of_freedom(shared):
    truth = bbn.load(shared / "networks" / "asia.bif.gz")
    rows = bbn.sample(truth, 5000, seed=1)
    learned = bbn.learn_structure(rows, method="pc")
    ours = {frozenset(arc) for arc in learned.arcs()}
    theirs = _pgmpy_skeleton(rows, "g_sq", 5)
    assert ours < theirs
    assert theirs - ours == {frozenset(("either", "xray")), frozenset(("either", "dysp"))}
    # either = tub or lung: given both, either is constant, so the test has 0 degrees of
    # freedom; bbn counts that as independent (p = 1), pgmpy's p-value is NaN (dependent)
    coded = read_coded(rows)
    test = independence_test(coded, coded.index("either"), coded.index("xray"),
                             [coded.index("tub"), coded.index("lung")])
    assert (test.dof, test.p_value) == (0, 1.0)


# -------------------------------------------------------------- knowledge
def test_tiers_and_forbidden_arcs_orient_the_chain():
    rows = chain_rows()
    backwards = bbn.learn_structure(rows, method="pc", tiers=[["C"], ["B"], ["A"]])
    assert sorted(backwards.arcs()) == [("B", "A"), ("C", "B")]
    assert backwards.undirected_edges_ == []
    # B → A forbidden: A → B, then Meek's R1 orients B → C (no v-structure at B)
    forward = bbn.learn_structure(rows, method="pc", forbidden=["B->A"])
    assert sorted(forward.arcs()) == [("A", "B"), ("B", "C")]
    assert forward.undirected_edges_ == []


def test_forbidden_both_ways_removes_the_edge_and_required_keeps_one():
    rows = chain_rows()
    cut = bbn.learn_structure(rows, method="pc", forbidden=["A->B", "B->A"])
    assert ("A", "B") not in cut.arcs() and ("B", "A") not in cut.arcs()
    # A ⫫ C | B: the required arc A → C stays although the tests would remove it
    kept = bbn.learn_structure(rows, method="pc", required=["C->A"])
    assert ("C", "A") in kept.arcs()
    assert ("A", "C") not in [tuple(sorted(e)) for e in kept.undirected_edges_]


def test_knowledge_that_orients_the_kept_edges_into_a_cycle_is_refused():
    triangle = bbn.Network("triangle")                  # A → B, A → C, B → C: no test
    triangle.add_variable("A", BINARY, table=[0.5, 0.5])  # separates any pair
    triangle.add_variable("B", BINARY, parents=["A"], table=[[0.8, 0.2], [0.2, 0.8]])
    triangle.add_variable("C", BINARY, parents=["A", "B"],
                          table=[[0.9, 0.1], [0.5, 0.5], [0.4, 0.6], [0.1, 0.9]])
    rows = bbn.sample(triangle, 3000, seed=3)
    assert len(bbn.learn_structure(rows, method="pc").arcs()) == 3
    with pytest.raises(ModelError, match=r"into a directed cycle: C->A \(required"):
        bbn.learn_structure(rows, method="pc", forbidden=["B->A", "C->B", "A->C"])


def test_max_parents_is_checked_on_the_result():
    rows = bbn.sample(collider_network(), 5000, seed=4)
    with pytest.raises(ModelError, match=r"gives 'C' 2 parents, more than max_parents=1"):
        bbn.learn_structure(rows, method="pc", max_parents=1)


def test_bad_options_are_refused():
    rows = chain_rows(200)
    with pytest.raises(ModelError, match=r"no option 'max_conditions' \(did you mean "
                                         r"'max_condition'\?\)"):
        bbn.learn_structure(rows, method="pc", max_conditions=2)
    with pytest.raises(ModelError, match="max_condition .* got -1"):
        bbn.learn_structure(rows, method="pc", max_condition=-1)
    start = bbn.Network.assemble("s", {v: BINARY for v in "ABC"}, {})
    with pytest.raises(ModelError, match="takes no start network"):
        bbn.learn_structure(rows, method="pc", start=start)

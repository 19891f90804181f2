"""Equivalence classes (CPDAG, Meek's rules, consistent extensions) checked by hand and
against brute force over every DAG on 4 variables, and bbn.compare's distances."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict

import networkx as nx
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import ModelError
from bbn.tasks.structure import LearnedNetwork, compare
from bbn.tasks.structure.equivalence import (
    PDAG,
    as_matrix,
    cpdag,
    extension,
    meek,
    orient,
    v_structures,
)


def dags(n: int):
    """Every DAG on n labelled variables, as parent positions (3^(n choose 2) graphs
    filtered for cycles)."""
    pairs = list(itertools.combinations(range(n), 2))
    for marks in itertools.product((None, "->", "<-"), repeat=len(pairs)):
        arcs = [(i, j) if m == "->" else (j, i) for (i, j), m in zip(pairs, marks) if m]
        graph = nx.DiGraph(arcs)
        graph.add_nodes_from(range(n))
        if nx.is_directed_acyclic_graph(graph):
            yield tuple(tuple(sorted(graph.predecessors(v))) for v in range(n))


def skeleton(parents) -> frozenset:
    return frozenset(frozenset((p, c)) for c, ps in enumerate(parents) for p in ps)


def arcs_of(parents) -> set:
    return {(p, c) for c, ps in enumerate(parents) for p in ps}


# ------------------------------------------------------------ CPDAG by hand
def test_a_collider_is_compelled_and_a_chain_or_fork_is_not():
    assert cpdag(((), (), (0, 1))) == PDAG(3, frozenset({(0, 2), (1, 2)}), frozenset())
    assert cpdag(((), (0,), (1,))) == PDAG(3, frozenset(), frozenset({(0, 1), (1, 2)}))
    assert cpdag(((1,), (), (1,))) == PDAG(3, frozenset(), frozenset({(0, 1), (1, 2)}))
    # a collider whose parents are adjacent is no v-structure: the triangle is undirected
    assert cpdag(((), (0,), (0, 1))).arcs == frozenset()


def test_meek_rule_1_orients_away_from_an_arc_into_a_non_neighbour():
    # 0 → 1 — 2, 0 and 2 not adjacent: 1 → 2 (else 0 → 1 ← 2 is a new v-structure)
    oriented = PDAG.from_matrix(meek(as_matrix(3, [(0, 1)], [(1, 2)])))
    assert oriented.arcs == {(0, 1), (1, 2)} and not oriented.undirected


def test_meek_rule_2_orients_along_a_directed_path():
    # 0 → 1 → 2 and 0 — 2: 0 → 2 (else a cycle)
    oriented = PDAG.from_matrix(meek(as_matrix(3, [(0, 1), (1, 2)], [(0, 2)])))
    assert oriented.arcs == {(0, 1), (1, 2), (0, 2)}


def test_meek_rule_3_orients_into_a_collider_of_two_undirected_neighbours():
    # a=0 — c=1 → b=3, a — d=2 → b, 1 and 2 not adjacent, a — b: a → b
    oriented = PDAG.from_matrix(meek(as_matrix(4, [(1, 3), (2, 3)], [(0, 1), (0, 2), (0, 3)])))
    assert oriented.arcs == {(1, 3), (2, 3), (0, 3)}
    assert oriented.undirected == {(0, 1), (0, 2)}


def test_meek_rule_4_orients_at_the_end_of_a_directed_path_from_a_neighbour():
    # a=0 — d=1 → c=2 → b=3, a — c, a — b, d not adjacent to b: a → b
    graph = as_matrix(4, [(1, 2), (2, 3)], [(0, 1), (0, 2), (0, 3)])
    oriented = PDAG.from_matrix(meek(graph))
    assert (0, 3) in oriented.arcs
    assert oriented.undirected == {(0, 1), (0, 2)}
    assert graph[3, 0]        # the input is not changed


def test_orient_refuses_a_cycle_and_an_already_directed_edge():
    graph = as_matrix(3, [(0, 1), (1, 2)], [(0, 2)])
    assert not orient(graph, 2, 0)
    assert not orient(graph, 1, 0)
    assert orient(graph, 0, 2) and PDAG.from_matrix(graph).arcs == {(0, 1), (1, 2), (0, 2)}


def test_the_extension_of_an_undirected_four_cycle_is_refused_unless_relaxed():
    square = PDAG(4, frozenset(), frozenset({(0, 1), (1, 2), (2, 3), (0, 3)}))
    with pytest.raises(ModelError, match="no consistent extension"):
        extension(square)
    relaxed = extension(square, strict=False)
    assert skeleton(relaxed) == {frozenset(edge) for edge in square.undirected}
    assert nx.is_directed_acyclic_graph(nx.DiGraph(sorted(arcs_of(relaxed))))


# --------------------------------------------------------- brute force, n ≤ 4
@pytest.fixture(scope="module")
def every_dag():
    return {n: list(dags(n)) for n in (1, 2, 3, 4)}


def test_dags_on_4_variables_number_543(every_dag):
    # OEIS A003024: 1, 3, 25, 543 labelled DAGs
    assert [len(every_dag[n]) for n in (1, 2, 3, 4)] == [1, 3, 25, 543]


def test_same_cpdag_iff_same_skeleton_and_v_structures(every_dag):
    for n in (2, 3, 4):
        by_cpdag, by_markov = defaultdict(set), defaultdict(set)
        for dag in every_dag[n]:
            by_cpdag[cpdag(dag)].add(dag)
            by_markov[(skeleton(dag), v_structures(dag))].add(dag)
        assert sorted(map(sorted, by_cpdag.values())) == sorted(map(sorted, by_markov.values()))
    # OEIS A007984: 1, 2, 11, 185 Markov equivalence classes
    assert len({cpdag(d) for d in every_dag[4]}) == 185
    assert len({cpdag(d) for d in every_dag[3]}) == 11


def test_an_edge_is_undirected_in_the_cpdag_iff_members_orient_it_both_ways(every_dag):
    members = defaultdict(list)
    for dag in every_dag[4]:
        members[cpdag(dag)].append(dag)
    for pattern, dags_of_class in members.items():
        seen = set().union(*(arcs_of(d) for d in dags_of_class))
        for i, j in pattern.undirected:
            assert (i, j) in seen and (j, i) in seen
        for p, c in pattern.arcs:
            assert (c, p) not in seen


def test_the_extension_of_a_cpdag_is_a_member_of_its_class(every_dag):
    for dag in every_dag[4]:
        pattern = cpdag(dag)
        member = extension(pattern)
        assert cpdag(member) == pattern
        assert arcs_of(member) >= pattern.arcs


# ------------------------------------------------------------------ compare
STATES = {v: ["0", "1"] for v in "ABCD"}


def net(parents: dict[str, list[str]], name: str = "n") -> bbn.Network:
    return bbn.Network.assemble(name, STATES, parents)


def test_compare_counts_missing_extra_and_reversed_once_each():
    # truth A → C ← B, C → D ; learned C → A (reversed), B → C, A → D (extra), no C — D
    truth = net({"C": ["A", "B"], "D": ["C"]})
    learned = net({"A": ["C"], "C": ["B"], "D": ["A"]})
    result = compare(learned, truth)
    assert result.missing == [("C", "D")]
    assert result.extra == [("A", "D")]
    assert result.reversed == [("C", "A")]
    assert result.correct == [("B", "C")]
    assert result.shd == 3
    # classes: the truth's arcs are all compelled (a v-structure, then R1 for C → D);
    # the learned B → C → A → D is a chain, all undirected. A — C and B — C differ in
    # their mark, A — D is extra, C — D missing: 4
    assert result.cpdag_shd == 4
    assert [(d.first, d.second, d.learned, d.reference) for d in result.cpdag_differences] == [
        ("A", "C", "--", "->"), ("A", "D", "--", None), ("B", "C", "--", "->"),
        ("C", "D", None, "->")]
    assert result.undirected == [("A", "C"), ("A", "D"), ("B", "C")]


def test_markov_equivalent_dags_differ_on_the_dag_only():
    chain = net({"B": ["A"], "C": ["B"]})
    reverse = net({"A": ["B"], "B": ["C"]})
    result = compare(reverse, chain)
    assert (result.shd, result.cpdag_shd) == (2, 0)
    assert result.reversed == [("B", "A"), ("C", "B")]


def test_a_learned_networks_own_class_is_compared():
    truth = net({"C": ["A", "B"]})
    learned = LearnedNetwork.assemble("l", STATES, {"C": ["A", "B"]})
    assert compare(learned, truth).cpdag_shd == 0
    # the method said A — C is open: one mark differs from the truth's A → C
    learned.record("pc", None, [("A", "C")], {})
    result = compare(learned, truth)
    assert (result.shd, result.cpdag_shd, result.undirected) == (0, 1, [("A", "C")])


def test_compare_on_the_asia_network_against_an_edited_copy(shared):
    truth = bbn.load(shared / "networks" / "asia.bif.gz")
    arcs = set(truth.arcs())
    arcs.remove(("tub", "either"))                      # missing
    arcs.remove(("smoke", "lung"))
    arcs.add(("lung", "smoke"))                         # reversed
    arcs.add(("asia", "smoke"))                         # extra
    states = {v: truth.states(v) for v in truth.variables}
    parents = defaultdict(list)
    for p, c in sorted(arcs):
        parents[c].append(p)
    result = compare(bbn.Network.assemble("edited", states, parents), truth)
    assert (result.missing, result.reversed, result.extra, result.shd) == (
        [("tub", "either")], [("lung", "smoke")], [("asia", "smoke")], 3)
    assert len(result.correct) == len(truth.arcs()) - 2


def test_compare_refuses_different_variables_with_a_suggestion():
    other = bbn.Network.assemble("o", {"A": ["0", "1"], "Bee": ["0", "1"], "C": ["0", "1"],
                                       "D": ["0", "1"]}, {})
    with pytest.raises(ModelError, match=r"'Bee' is only in the learned network "
                                         r"\(did you mean 'B'\?\); 'B' is only in the reference"):
        compare(other, net({}))
    with pytest.raises(ModelError, match="the reference one is a dict"):
        compare(net({}), {"A": []})


# ------------------------------------------------------------ the picture
def drawn_edges(source: str) -> dict[tuple[str, str], str]:
    """``{(tail, head): attributes}`` of the DOT source's edges."""
    return {(tail, head): attributes for tail, head, attributes
            in re.findall(r"^\s*(\w+) -> (\w+) \[(.*)\]$", source, re.M)}


def test_the_comparison_picture_colours_every_arc_by_its_kind():
    truth = net({"C": ["A", "B"], "D": ["C"]})
    learned = net({"A": ["C"], "C": ["B"], "D": ["A"]})
    source = bbn.render(learned, compare=truth).source
    assert drawn_edges(source) == {
        ("B", "C"): 'color="#222222"',                                  # correct
        ("C", "A"): 'color="#d35400" penwidth=1.6',                     # reversed
        ("A", "D"): 'color="#2471a3" penwidth=1.6',                     # extra
        ("C", "D"): 'color="#c0392b" penwidth=1.4 style=dashed',        # missing
    }
    assert "SHD 3 on the DAGs, 4 on the equivalence classes" in source
    assert all(word in source for word in ("correct", "reversed", "extra", "missing"))


def test_a_learned_networks_open_edges_are_drawn_without_arrowheads():
    truth = net({"C": ["A", "B"]})
    learned = LearnedNetwork.assemble("l", STATES, {"B": ["A"], "C": ["A"]})
    learned.record("pc", None, [("A", "B"), ("A", "C")], {})
    edges = drawn_edges(bbn.render(learned, compare=truth).source)
    assert edges == {("A", "B"): 'color="#2471a3" dir=none penwidth=1.6',    # extra, open
                     ("A", "C"): 'color="#222222" dir=none',                 # in the truth
                     ("B", "C"): 'color="#c0392b" penwidth=1.4 style=dashed'}


def test_cli_render_compare(tmp_path, capsys):
    truth, learned = tmp_path / "truth.bn", tmp_path / "learned.bn"
    bbn.save(net({"C": ["A", "B"], "D": ["C"]}, "truth"), truth)
    bbn.save(net({"C": ["A"], "D": ["C"]}, "learned"), learned)
    assert main(["render", str(learned), "--compare", str(truth)]) == 0
    source = capsys.readouterr().out
    assert drawn_edges(source) == {("A", "C"): 'color="#222222"', ("C", "D"): 'color="#222222"',
                                   ("B", "C"): 'color="#c0392b" penwidth=1.4 style=dashed'}
    assert "SHD 1 on the DAGs, 3 on the equivalence classes" in source
    other = tmp_path / "other.bn"
    bbn.save(bbn.Network.assemble("o", {"A": ["0", "1"]}, {}), other)
    assert main(["render", str(learned), "--compare", str(other)]) == 2
    assert "'B' is only in the learned network" in capsys.readouterr().err

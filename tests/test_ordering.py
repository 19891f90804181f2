"""The greedy weighted min-fill elimination order."""

from __future__ import annotations

import itertools
import math

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from bbn.engines.exact.ordering import eliminate, eliminate_greedily, greedy_order
from tests.strategies import weighted_graphs


def _adjacency(graph: nx.Graph) -> dict[str, set[str]]:
    return {v: set(graph[v]) for v in graph}


def _eliminate(adjacency: dict[str, set[str]], order: list[str]) -> tuple[int, int]:
    """Replay an order: (number of fill-in edges added, largest clique formed)."""
    graph = {v: set(n) for v, n in adjacency.items()}
    fill, largest = 0, 0
    for v in order:
        neighbours = graph.pop(v)
        largest = max(largest, len(neighbours) + 1)
        for a, b in itertools.combinations(sorted(neighbours), 2):
            if b not in graph[a]:
                fill += 1
                graph[a].add(b)
                graph[b].add(a)
        for a in neighbours:
            graph[a].discard(v)
    return fill, largest


def test_chain_ends_first_then_ties_by_name():
    # A and C need no fill (B would need A-C); after A, B and C tie (no fill, 2x2 table),
    # so the name decides.
    adjacency = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    assert greedy_order(adjacency, {"A": 2, "B": 2, "C": 2}, ["A", "B", "C"]) == ["A", "B", "C"]
    assert greedy_order(adjacency, {"A": 2, "B": 2, "C": 2}, ["C", "B"]) == ["C", "B"]


def test_star_eliminates_leaves_before_the_centre():
    graph = nx.star_graph(["hub", "a", "b", "c", "d"])
    order = greedy_order(_adjacency(graph), dict.fromkeys(graph, 2), list(graph))
    assert order[-1] == "hub" or order[-2] == "hub"  # hub is simplicial once 1 leaf is left
    assert _eliminate(_adjacency(graph), order) == (0, 2)


def test_fill_is_weighted_by_cardinality():
    # X's neighbours (a, b) are binary, Y's (c, d) have 5 states: both need one fill edge,
    # of weight 2·2 = 4 for X and 5·5 = 25 for Y, so X goes first.
    adjacency = {"X": {"a", "b"}, "a": {"X"}, "b": {"X"},
                 "Y": {"c", "d"}, "c": {"Y"}, "d": {"Y"}}
    card = {"X": 2, "a": 2, "b": 2, "Y": 2, "c": 5, "d": 5}
    assert greedy_order(adjacency, card, ["X", "Y"])[0] == "X"
    # with the cardinalities swapped, Y goes first
    card.update(a=5, b=5, c=2, d=2)
    assert greedy_order(adjacency, card, ["X", "Y"])[0] == "Y"


def test_ties_go_to_the_smaller_table_then_the_name():
    adjacency = {"big": {"p"}, "p": {"big"}, "small": {"q"}, "q": {"small"}}
    card = {"big": 4, "p": 3, "small": 2, "q": 3}
    assert greedy_order(adjacency, card, ["big", "small"]) == ["small", "big"]
    card["big"] = 2
    assert greedy_order(adjacency, card, ["big", "small"]) == ["big", "small"]


def test_a_fill_in_edge_lowers_the_fill_of_its_common_neighbours():
    # Cycle A–B–C–D–A. A goes first (fill |B|·|D| = 2, table 2; C has fill 2 but table
    # 6); its fill-in edge B–D leaves C with no fill at all, and then B, C, D all score
    # (0, 6): the names decide. Were C's fill left at 2, D would come before C.
    cycle = {"A": {"B", "D"}, "B": {"A", "C"}, "C": {"B", "D"}, "D": {"A", "C"}}
    card = {"A": 1, "B": 1, "C": 3, "D": 2}
    assert greedy_order(cycle, card, list("ABCD")) == list("ABCD")


def test_only_listed_variables_are_eliminated_and_input_is_untouched():
    graph = nx.grid_2d_graph(3, 3)
    adjacency = {str(v): {str(u) for u in graph[v]} for v in graph}
    before = {v: set(n) for v, n in adjacency.items()}
    chosen = [v for v in adjacency if v != "(1, 1)"]
    order = greedy_order(adjacency, dict.fromkeys(adjacency, 2), chosen)
    assert sorted(order) == sorted(chosen)
    assert adjacency == before
    assert greedy_order(adjacency, dict.fromkeys(adjacency, 2), []) == []


def test_grid_and_cycle_reach_their_treewidth():
    cycle = nx.cycle_graph([f"c{i}" for i in range(8)])
    order = greedy_order(_adjacency(cycle), dict.fromkeys(cycle, 2), list(cycle))
    assert _eliminate(_adjacency(cycle), order)[1] == 3  # treewidth 2
    grid = nx.relabel_nodes(nx.grid_2d_graph(3, 3), str)
    order = greedy_order(_adjacency(grid), dict.fromkeys(grid, 2), list(grid))
    assert _eliminate(_adjacency(grid), order)[1] == 4  # treewidth 3


@st.composite
def chordal_graphs(draw):
    """Triangulate a random graph along a random order: the result is chordal."""
    n = draw(st.integers(1, 12))
    names = [f"v{i}" for i in range(n)]
    edges = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)),
                          max_size=3 * n))
    graph = nx.Graph()
    graph.add_nodes_from(names)
    graph.add_edges_from((a, b) for a, b in edges if a != b)
    adjacency = _adjacency(graph)
    order = draw(st.permutations(names))
    filled = {v: set(nbrs) for v, nbrs in adjacency.items()}
    work = {v: set(nbrs) for v, nbrs in adjacency.items()}
    for v in order:
        neighbours = work.pop(v)
        for a, b in itertools.combinations(neighbours, 2):
            for x, y in ((a, b), (b, a)):
                work[x].add(y)
                filled[x].add(y)
        for a in neighbours:
            work[a].discard(v)
    cards = {v: draw(st.integers(1, 4)) for v in names}
    return filled, cards


@settings(max_examples=150, deadline=None)
@given(chordal_graphs())
def test_min_fill_finds_a_perfect_elimination_order_on_chordal_graphs(case):
    adjacency, cards = case
    assert nx.is_chordal(nx.Graph(adjacency)) or len(adjacency) == 0
    order = greedy_order(adjacency, cards, list(adjacency))
    assert sorted(order) == sorted(adjacency)
    assert _eliminate(adjacency, order)[0] == 0


def _rescored_every_step(adjacency: dict[str, set[str]], card: dict[str, int],
                         chosen: list[str]) -> list[str]:
    """The rule itself: score every candidate afresh before each choice."""
    graph = {v: set(n) for v, n in adjacency.items()}
    remaining, order = set(chosen), []
    while remaining:
        def score(v):
            fill = sum(card[a] * card[b] for a, b in itertools.combinations(graph[v], 2)
                       if b not in graph[a])
            return fill, math.prod(card[u] for u in graph[v]) * card[v], v
        v = min(remaining, key=score)
        order.append(v)
        remaining.discard(v)
        eliminate(graph, v)
    return order


@settings(max_examples=300, deadline=None)
@given(weighted_graphs())
def test_scores_updated_in_place_give_the_order_of_rescoring_everything(case):
    """The incremental fill and size updates must reproduce the plain rule exactly,
    ties included, on any graph (chordal or not, simplicial steps or not)."""
    adjacency, cards, chosen = case
    expected = _rescored_every_step(adjacency, cards, chosen)
    assert greedy_order(adjacency, cards, chosen) == expected
    graph = {v: set(n) for v, n in adjacency.items()}
    assert eliminate_greedily(graph, cards, chosen) == expected
    left = {v: set(n) for v, n in adjacency.items()}  # what the elimination leaves behind
    for v in expected:
        eliminate(left, v)
    assert graph == left

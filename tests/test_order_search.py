"""The search beyond greedy min-fill: the bandwidth order, min-fill restarts, the budget
rule, and the engine's use of them (answers against brute force and the UAI references)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import bbn
from bbn.core.memory import get_memory_limit
from bbn.engines.exact import clique_building, ordering
from bbn.engines.exact.ordering import (
    OrderCost,
    OrderSearch,
    bandwidth_order,
    eliminate,
    elimination_order,
    greedy_order,
    order_cost,
)
from tests.strategies import weighted_graphs

#: a search that always runs, and runs every restart (no time limit in practice)
EVERY_RESTART = OrderSearch(above=0, seconds_per_entry=1.0, longest=3600.0, restarts=4)


def _grid(rows: int, columns: int) -> dict[str, set[str]]:
    graph = nx.relabel_nodes(nx.grid_2d_graph(rows, columns), lambda v: f"r{v[0]}c{v[1]}")
    return {v: set(graph[v]) for v in graph}


def _replayed_cost(adjacency, card, order) -> OrderCost:
    """The tables of an order, from the cliques formed one by one (fill-in by hand)."""
    graph = {v: set(n) for v, n in adjacency.items()}
    sizes = []
    for v in order:
        neighbours = graph.pop(v)
        sizes.append(card[v] * math.prod(card[u] for u in neighbours))
        for a, b in itertools.combinations(neighbours, 2):
            graph[a].add(b)
            graph[b].add(a)
        for a in neighbours:
            graph[a].discard(v)
    return OrderCost(sum(sizes), max(sizes, default=0))


@settings(max_examples=60, deadline=None)
@given(weighted_graphs())
def test_the_searched_order_is_never_worse_than_greedy_and_leaves_the_same_graph(case):
    adjacency, cards, chosen = case
    greedy = greedy_order(adjacency, cards, chosen)
    graph = {v: set(n) for v, n in adjacency.items()}
    order = elimination_order(graph, cards, chosen, EVERY_RESTART)
    assert sorted(order) == sorted(chosen)
    cost = order_cost(adjacency, cards, order)
    assert cost == _replayed_cost(adjacency, cards, order)
    assert cost.total <= _replayed_cost(adjacency, cards, greedy).total
    left = {v: set(n) for v, n in adjacency.items()}  # what any order leaves behind
    for v in greedy:
        eliminate(left, v)
    assert graph == left
    # the bandwidth order is an order of the chosen variables too
    assert sorted(bandwidth_order(adjacency, cards, chosen)) == sorted(chosen)


def test_order_cost_counts_each_table_and_gives_up_past_the_bound():
    # path A–B–C with |B| = 3: B first makes the table {A, B, C} (12) and the fill A–C,
    # then A's table {A, C} (4)
    path = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    card = {"A": 2, "B": 3, "C": 2}
    assert order_cost(path, card, ["B", "A"]) == OrderCost(16, 12)
    assert order_cost(path, card, ["A", "B"]) == OrderCost(6 + 6, 6)
    assert order_cost(path, card, ["B", "A"], bound=15) is None
    assert order_cost(path, card, ["B", "A"], bound=16) == OrderCost(16, 12)


def test_a_20_by_20_grid_reaches_its_treewidth_where_greedy_does_not():
    # The treewidth of an n×n grid is n: no order has a table below 2^21 entries, and
    # greedy min-fill's order (ties by name) builds one of 2^30 (8 GiB).
    grid = _grid(20, 20)
    card = dict.fromkeys(grid, 2)
    cells = list(grid)
    assert order_cost(grid, card, greedy_order(grid, card, cells)).largest == 2 ** 30
    order = elimination_order({v: set(n) for v, n in grid.items()}, card, cells)
    assert order_cost(grid, card, order).largest == 2 ** 21
    # the sweep alone: reverse Cuthill–McKee keeps at most 20 cells in a table's scope
    assert order_cost(grid, card, bandwidth_order(grid, card, cells)).largest == 2 ** 21


def test_simplicial_variables_go_first_in_the_bandwidth_order():
    # a Markov network seen as the engine sees it: one binary node per factor, linked to
    # the factor's scope (a clique); every factor node is simplicial
    grid = _grid(3, 3)
    graph = {v: set(n) for v, n in grid.items()}
    factors = []
    for a in grid:
        for b in grid[a]:
            if a < b:
                node = f"f_{a}_{b}"
                factors.append(node)
                graph[node] = {a, b}
                graph[a].add(node)
                graph[b].add(node)
    order = bandwidth_order(graph, dict.fromkeys(graph, 2), list(graph))
    assert set(order[:len(factors)]) == set(factors)
    assert sorted(order) == sorted(graph)


def test_restarts_break_ties_at_random_and_keep_the_cheapest():
    # Restarts are seeded: the same search gives the same order.
    grid = _grid(7, 7)
    card = {v: 2 + (i % 3) for i, v in enumerate(grid)}
    first = elimination_order({v: set(n) for v, n in grid.items()}, card, list(grid),
                              EVERY_RESTART)
    again = elimination_order({v: set(n) for v, n in grid.items()}, card, list(grid),
                              EVERY_RESTART)
    assert first == again
    candidates = [greedy_order(grid, card, list(grid)), bandwidth_order(grid, card, list(grid))]
    best = min(order_cost(grid, card, o).total for o in candidates)
    assert order_cost(grid, card, first).total <= best


def test_the_budget_rule():
    search = OrderSearch()
    # at most 2^20 entries: the greedy order is kept without a search
    assert search.budget(OrderCost(total=2 ** 24, largest=2 ** 20)) == 0.0
    # 2^31 entries at 2 ns are 4.3 s of answering; a quarter of it is searched
    assert search.budget(OrderCost(total=2 ** 31, largest=2 ** 21)) == pytest.approx(
        0.25 * 2e-9 * 2 ** 31)
    # 2^28 entries would give 0.13 s, below the 0.2 s a search costs at least: none
    assert search.budget(OrderCost(total=2 ** 28, largest=2 ** 21)) == 0.0
    # capped at 3 s
    assert search.budget(OrderCost(total=2 ** 40, largest=2 ** 21)) == 3.0
    # a step's peak (3 × the largest table) beyond the memory limit: every restart is
    # made, within 20 s
    entries = get_memory_limit() // 8
    assert search.budget(OrderCost(total=entries // 2, largest=entries // 2)) == 20.0
    # a tree holds every table at once: its total counts
    tree = OrderSearch(tree=True)
    assert tree.budget(OrderCost(total=4 * entries, largest=2 ** 21)) == 20.0
    assert search.budget(OrderCost(total=4 * entries, largest=2 ** 21)) == pytest.approx(
        0.25 * 2e-9 * 4 * entries)


def _random_grid_markov(rows: int, columns: int, seed: int) -> bbn.MarkovNetwork:
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork()
    grid = _grid(rows, columns)
    for v in grid:
        net.add_variable(v, ["0", "1"])
    for a in grid:
        for b in sorted(grid[a]):
            if a < b:
                net.add_factor([a, b], np.exp(rng.normal(0, 1.5, (2, 2))))
    return net


def _brute_force(net: bbn.MarkovNetwork, evidence: dict[str, str]):
    """Z(e) and P(X = 1 | e) for every X, by enumerating every assignment."""
    names = list(net.variables)
    z, ones = 0.0, dict.fromkeys(names, 0.0)
    for states in itertools.product("01", repeat=len(names)):
        x = dict(zip(names, states))
        if any(x[v] != s for v, s in evidence.items()):
            continue
        weight = math.prod(f.values[tuple(int(x[v]) for v in f.variables)]
                           for f in net.factors)
        z += weight
        for v in names:
            if x[v] == "1":
                ones[v] += weight
    return z, {v: w / z for v, w in ones.items()}


def test_answers_with_searched_orders_equal_brute_force(monkeypatch):
    # Every order the engine chooses searched (the rule's threshold at 0): log Z, P(e)
    # and every posterior of a 3×4 grid equal the enumeration of its 4096 assignments.
    monkeypatch.setattr(ordering, "DEFAULT_SEARCH", EVERY_RESTART)
    monkeypatch.setattr(clique_building, "TREE_SEARCH", OrderSearch(
        above=0, seconds_per_entry=1.0, longest=3600.0, restarts=4, tree=True))
    net = _random_grid_markov(3, 4, seed=7)
    evidence = {"r0c0": "1", "r2c3": "0"}
    z, posteriors = _brute_force(net, evidence)
    assert net.log_partition(evidence) == pytest.approx(math.log(z), rel=1e-12)
    for v, p in posteriors.items():
        assert net.posterior(v, evidence).values[1] == pytest.approx(p, rel=1e-10), v
    for v, factor in net.posteriors(evidence).items():
        assert factor.values[1] == pytest.approx(posteriors[v], rel=1e-10), v


def test_grids_15_plans_an_exact_partition_function_in_16_mib(shared, monkeypatch):
    # Greedy min-fill gives Grids_15's P(e) a 2^30-entry table (refused); the order
    # searched for its evidence sweeps the grid: 2^21 entries, 16 MiB. The plan fits, so
    # the junction tree's order (whose tree needs 2.3 GiB) is not searched for.
    monkeypatch.setattr(clique_building, "junction_order",
                        lambda *_: pytest.fail("the junction order was searched for"))
    net = bbn.load(shared / "uai2014" / "PR" / "Grids_15.uai.gz")
    engine = net.engine
    observed = list(engine.network.constraints)
    plan = engine.plan([], observed, prune=False)
    assert (plan.largest_table, plan.width) == (2 ** 21, 20)

"""Elimination orders: the greedy weighted min-fill heuristic.

Eliminating a variable X multiplies every factor that mentions X into one table over X
and its neighbours N(X) in the interaction graph (variables that share a factor), then
sums X out; the neighbours become pairwise connected ("fill-in" edges). The cost of
an order is dominated by its largest such table, Π_{Y ∈ {X} ∪ N(X)} |Y|.

Weighted min-fill picks, at each step, the variable whose fill-in edges have the
smallest total weight, the weight of an edge (Y, Z) being |Y|·|Z|; ties go to the
smaller table (min-weight), then to the name. Finding the optimal order is NP-hard;
this greedy rule is the one most exact engines use.

>>> adjacency = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
>>> greedy_order(adjacency, {"A": 2, "B": 2, "C": 2}, ["A", "B", "C"])
['A', 'B', 'C']
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping


def greedy_order(adjacency: Mapping[str, set[str]], cardinality: Mapping[str, int],
                 to_eliminate: Iterable[str]) -> list[str]:
    """Order ``to_eliminate`` by weighted min-fill on the interaction graph ``adjacency``.

    ``adjacency`` maps every variable (eliminated or kept) to its neighbours; it is not
    modified. Variables outside ``to_eliminate`` stay in the graph and are never chosen.
    """
    graph = {v: set(neighbours) for v, neighbours in adjacency.items()}
    remaining = set(to_eliminate)

    def score(v: str) -> tuple[float, float, str]:
        neighbours = list(graph[v])
        fill = 0.0
        for i, a in enumerate(neighbours):
            graph_a = graph[a]
            for b in neighbours[i + 1:]:
                if b not in graph_a:
                    fill += cardinality[a] * cardinality[b]
        size = math.prod(cardinality[n] for n in neighbours) * cardinality[v]
        return (fill, size, v)

    heap = [score(v) for v in remaining]
    heapq.heapify(heap)
    current = {entry[2]: entry for entry in heap}
    order: list[str] = []
    while heap:
        entry = heapq.heappop(heap)
        v = entry[2]
        if v not in remaining or current.get(v) != entry:
            continue  # stale entry: v's score changed after it was pushed
        order.append(v)
        remaining.discard(v)
        neighbours = graph.pop(v)
        # Only N(v) and the common neighbours of a new fill-in edge change score:
        # a fill-in edge (a, b) lowers the fill of every vertex adjacent to both.
        touched = set(neighbours)
        listed = list(neighbours)
        for i, a in enumerate(listed):
            graph_a = graph[a]
            graph_a.discard(v)
            for b in listed[i + 1:]:
                if b not in graph_a:
                    touched.update(graph_a & graph[b])
                    graph_a.add(b)
                    graph[b].add(a)
        for u in touched & remaining:
            entry = score(u)
            current[u] = entry
            heapq.heappush(heap, entry)
    return order


def eliminate(graph: dict[str, set[str]], variable: str) -> set[str]:
    """Remove ``variable`` from the interaction graph ``graph`` (in place), joining its
    neighbours pairwise (the fill-in); return those neighbours."""
    neighbours = graph.pop(variable)
    for a in neighbours:
        graph[a].discard(variable)
        graph[a].update(b for b in neighbours if b != a)
    return neighbours

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
from collections.abc import Iterable, Mapping, Sequence

#: With at most this many variables left to order, a scan finds the best score faster
#: than a heap that collects an outdated entry at every update.
_SCAN = 48


def greedy_order(adjacency: Mapping[str, set[str]], cardinality: Mapping[str, int],
                 to_eliminate: Iterable[str]) -> list[str]:
    """Order ``to_eliminate`` by weighted min-fill on the interaction graph ``adjacency``.

    ``adjacency`` maps every variable (eliminated or kept) to its neighbours; it is not
    modified. Variables outside ``to_eliminate`` stay in the graph and are never chosen.
    """
    return eliminate_greedily({v: set(n) for v, n in adjacency.items()}, cardinality,
                              to_eliminate)


def eliminate_greedily(graph: dict[str, set[str]], cardinality: Mapping[str, int],
                       to_eliminate: Iterable[str]) -> list[str]:
    r""":func:`greedy_order` on a graph it may change: the chosen variables are eliminated
    from ``graph`` in place, leaving the interaction graph that follows (fill-in
    included), so a caller with a graph of its own saves a copy.

    Every question compiled on an empty cache runs this, so each vertex is scored in
    full once, at the start; eliminating v then updates the scores it changes. With
    N = N(v), the fill-in F (pairs of N not yet adjacent) and w the cardinalities, a
    vertex c outside N loses Σ_{(x,y) ∈ F, x,y ∈ N(c)} w_x·w_y, and a neighbour u, with
    A = N(u) \ {v} and new neighbours B = N \ (A ∪ {u}), gets::

        fill'(u) = fill(u) − w_v·W(A \ N) − Σ_{(x,y) ∈ F, x,y ∈ A} w_x·w_y
                   + Σ_{a ∈ A \ N} w_a·W(B \ N(a))
        size'(u) = size(u) / w_v · Π_{b ∈ B} w_b

    (W(S) = Σ_{s ∈ S} w_s): pairs with v go, pairs of A joined by F go, B joins the
    clique N, and a ∈ A outside N keeps its neighbours. Scores are exact integers, so
    the order is the one full rescoring would give.
    """
    card = cardinality.__getitem__
    prod = math.prod

    def score(v: str) -> tuple[int, int, str]:
        neighbours = graph[v]
        fill = 0
        if len(neighbours) > 1:
            seen: list[str] = []
            for a in neighbours:
                graph_a = graph[a]
                missing = 0
                for b in seen:
                    if b not in graph_a:
                        missing += card(b)
                fill += missing * card(a)
                seen.append(a)
        return fill, prod(map(card, neighbours)) * card(v), v

    current = {v: score(v) for v in to_eliminate}
    heap = list(current.values()) if len(current) > _SCAN else None
    if heap is not None:
        heapq.heapify(heap)
    order: list[str] = []
    pop, push = heapq.heappop, heapq.heappush
    while current:
        if heap is None:
            entry = min(current.values())
        else:
            entry = pop(heap)
            if current.get(entry[2]) is not entry:
                continue  # stale: the score changed after this entry was pushed
            if len(current) <= _SCAN:
                heap = None
        v = entry[2]
        del current[v]
        order.append(v)
        neighbours = graph.pop(v)
        weight = card(v)
        if not entry[0]:  # v is simplicial (most are): no fill-in, B = ∅ for every u
            for u in neighbours:
                graph_u = graph[u]
                graph_u.discard(v)
                old = current.get(u)
                if old is not None:
                    fill = old[0]
                    if fill:
                        fill -= weight * sum(map(card, graph_u - neighbours))
                    entry = current[u] = (fill, old[1] // weight, u)
                    if heap is not None:
                        push(heap, entry)
            continue
        fill_in = []
        seen = []
        for a in neighbours:
            graph_a = graph[a]
            graph_a.discard(v)
            for b in seen:
                if b not in graph_a:
                    fill_in.append((a, b))
            seen.append(a)
        changed = {}
        for u in neighbours:
            old = current.get(u)
            if old is None:
                continue
            graph_u = graph[u]
            fill, size = old[0], old[1] // weight
            new = neighbours - graph_u
            new.discard(u)
            if new:
                size *= prod(map(card, new))
            if fill:  # a simplicial u stays so: its neighbours all lie in the clique N
                outside = graph_u - neighbours
                if outside:
                    fill -= weight * sum(map(card, outside))
                    if new:
                        for a in outside:
                            fill += card(a) * sum(map(card, new - graph[a]))
            changed[u] = [fill, size]
        for a, b in fill_in:  # common neighbours before any fill-in edge is added
            pair = card(a) * card(b)
            for c in graph[a] & graph[b]:
                scores = changed.get(c)
                if scores is None:
                    old = current.get(c)
                    if old is None:
                        continue
                    scores = changed[c] = [old[0], old[1]]
                scores[0] -= pair
        for a, b in fill_in:
            graph[a].add(b)
            graph[b].add(a)
        for u, (fill, size) in changed.items():
            entry = current[u] = (fill, size, u)
            if heap is not None:
                push(heap, entry)
    return order


def interaction_graph(tables: Iterable[Sequence[str]],
                      graph: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Link every variable to the others it shares a table with: the interaction graph.

    ``tables`` gives each table's variables; ``graph`` (extended in place and returned)
    may already hold variables, such as queried ones that must stay even alone.

    >>> graph = interaction_graph([("A", "B"), ("B", "C")])
    >>> {v: sorted(links) for v, links in graph.items()}
    {'A': ['B'], 'B': ['A', 'C'], 'C': ['B']}
    """
    graph = {} if graph is None else graph
    for variables in tables:
        for u in variables:
            links = graph.get(u)
            if links is None:
                graph[u] = set(variables)
            else:
                links.update(variables)
    for u, links in graph.items():
        links.discard(u)
    return graph


def eliminate(graph: dict[str, set[str]], variable: str) -> set[str]:
    """Remove ``variable`` from the interaction graph ``graph`` (in place), joining its
    neighbours pairwise (the fill-in); return those neighbours."""
    neighbours = graph.pop(variable)
    for a in neighbours:
        links = graph[a]
        links |= neighbours
        links.discard(a)
        links.discard(variable)
    return neighbours

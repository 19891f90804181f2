"""Elimination orders: greedy weighted min-fill, and a search for a cheaper order where
the greedy one is costly.

Eliminating a variable X multiplies every factor that mentions X into one table over X
and its neighbours N(X) in the interaction graph (variables that share a factor), then
sums X out; the neighbours become pairwise connected ("fill-in" edges). An order costs
the entries of its tables, Σ_X Π_{Y ∈ {X} ∪ N(X)} |Y| (``total``, the time), and its
memory is bounded by the largest of them (``largest``).

Weighted min-fill picks, at each step, the variable whose fill-in edges have the
smallest total weight, the weight of an edge (Y, Z) being |Y|·|Z|; ties go to the
smaller table (min-weight), then to the name. Finding the optimal order is NP-hard;
this greedy rule is the one most exact engines use, and it is what every order starts
from (:func:`eliminate_greedily`).

It can be far from the best: on a 20×20 binary grid (UAI 2014's Grids_15–18) it makes
a table of 2^30 entries (8 GiB), where sweeping the grid diagonal by diagonal needs
2^21 (16 MiB); on the Promedus networks, where many variables tie, breaking the ties
another way lowers the largest table from 2^27–2^28 to 2^23–2^25.
:func:`elimination_order` therefore starts from the greedy order and, when its largest
table has more than ``OrderSearch.above`` = 2^20 entries (8 MiB) and the search may
pay, also tries

- a bandwidth order: reverse Cuthill–McKee (networkx's) on the graph left once the
  simplicial variables (neighbours already pairwise adjacent: no fill-in, never a
  mistake to eliminate first) are gone; its tables are at most the bandwidth wide, which
  on a grid is the side;
- min-fill again with the ties broken at random (seeded: restart i uses seed i), each
  restart abandoned once its tables pass the best total found;

and keeps the one with the fewest entries in all. The budget is ``share`` = 1/4 of the
time the best order so far would take to answer at ``seconds_per_entry`` = 2 ns an
entry, at most ``longest`` = 3 s, and no search at all below ``least`` = 0.2 s (what
networkx's import and a first restart of 20–80 ms cost): a 2^28-entry order (0.5 s of
answering) is kept as it is, a 2^31-entry one (4.3 s) buys 1.07 s. While the best
order's peak exceeds the memory limit (the engine would refuse the question), every one
of the 64 restarts is made, within ``unfit_longest`` = 20 s, so that whether a question
fits does not depend on the machine's load: Promedus_18's junction tree needs 5.2 GiB
in the greedy order and 0.7 GiB after 64 restarts (4 s), which one restart does not
find. Of the 24 bnlearn networks only munin1 searches (its
2^26-entry clique does not fit three times in 1 GiB); barley, diabetes, link, mildew
and water pass 2^20 entries but keep their greedy orders.

>>> adjacency = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
>>> greedy_order(adjacency, {"A": 2, "B": 2, "C": 2}, ["A", "B", "C"])
['A', 'B', 'C']
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import bbn.core.deadline as deadline
from bbn.core.memory import ENTRY_BYTES, get_memory_limit

#: With at most this many variables left to order, a scan finds the best score faster
#: than a heap that collects an outdated entry at every update.
_SCAN = 48


class OrderCost(NamedTuple):
    """What an elimination order costs: its tables' entries, all of them and the largest."""

    total: int
    largest: int


@dataclass(frozen=True)
class OrderSearch:
    """When and how long :func:`elimination_order` looks beyond the greedy order.

    Parameters
    ----------
    above : int, default 2**20
        Search only when the greedy order's largest table has more entries than this.
    seconds_per_entry : float, default 2e-9
        The time one table entry is taken to cost when answering.
    share : float, default 0.25
        The part of the greedy order's answering time the search may take.
    longest : float, default 3.0
        The search's time limit in seconds once the best order fits in the memory limit.
    unfit_longest : float, default 20.0
        Its time limit while the best order does not fit: every restart is made unless
        this runs out, so that whether an order fits does not depend on the machine's
        speed.
    least : float, default 0.2
        No search with a smaller budget (seconds).
    restarts : int, default 64
        The most min-fill restarts with random tie-breaking.
    tree : bool, default False
        The tables are all held at once (a junction tree's cliques): the peak is their
        total plus twice the largest, not three times the largest (one elimination
        step's product, temporaries and output).

    Examples
    --------
    >>> round(OrderSearch().budget(OrderCost(total=2**31, largest=2**21)), 2)
    1.07
    """

    above: int = 1 << 20
    seconds_per_entry: float = 2e-9
    share: float = 0.25
    longest: float = 3.0
    unfit_longest: float = 20.0
    least: float = 0.2
    restarts: int = 64
    tree: bool = False

    def budget(self, best: OrderCost) -> float:
        """Seconds to search for an order cheaper than ``best`` (0: keep it);
        ``unfit_longest`` when its peak (see ``tree``) exceeds the memory limit."""
        if best.largest <= self.above:
            return 0.0
        peak = best.total + 2 * best.largest if self.tree else 3 * best.largest
        if peak * ENTRY_BYTES > get_memory_limit():
            return self.unfit_longest
        budget = min(self.longest, self.share * self.seconds_per_entry * best.total)
        return budget if budget >= self.least else 0.0


#: The search for an elimination plan's order, and for a junction tree's.
DEFAULT_SEARCH = OrderSearch()
TREE_SEARCH = OrderSearch(tree=True)


def evidence_order(parents: Mapping[str, tuple[str, ...]], cardinality: Mapping[str, int],
                   observed: Iterable[str]) -> list[str]:
    """The order (:func:`elimination_order`) of the variables left unobserved, on the graph
    the tables sliced by ``observed`` make: found once per set of observed variables and
    offered to every plan with that evidence (a plan's own graph is a part of it, on
    which the order builds no larger table).

    Parameters
    ----------
    parents : mapping
        Each variable's parents.
    cardinality : mapping
        Each variable's number of states.
    observed : iterable of str
        The observed variables.

    Returns
    -------
    list of str

    Examples
    --------
    >>> evidence_order({"A": (), "B": ("A",), "C": ("B",)}, dict.fromkeys("ABC", 2), ["B"])
    ['A', 'C']
    """
    observed = set(observed)
    graph = interaction_graph([u for u in parents[v] + (v,) if u not in observed]
                              for v in parents)
    return elimination_order(graph, cardinality, list(graph))


def elimination_order(graph: dict[str, set[str]], cardinality: Mapping[str, int],
                      to_eliminate: Iterable[str],
                      search: OrderSearch | None = None) -> list[str]:
    """The cheapest order found for ``to_eliminate`` (see the module's rule), eliminated
    from ``graph`` in place as :func:`eliminate_greedily` does.

    Parameters
    ----------
    graph : dict
        The interaction graph, variable → neighbours; variables outside
        ``to_eliminate`` stay and are never chosen. Left as the elimination leaves it
        (the same whichever the order).
    cardinality : mapping
        Each variable's number of states.
    to_eliminate : iterable of str
        The variables to order.
    search : OrderSearch, optional
        When and how long to look beyond the greedy order (``DEFAULT_SEARCH``).

    Returns
    -------
    list of str

    Examples
    --------
    A 20×20 binary grid (UAI 2014's Grids_15 without its numbers): greedy min-fill's
    largest table has 2^30 entries, the bandwidth order's 2^21 (restarts left out here
    to keep the example fast):

    >>> cells = [(r, c) for r in range(20) for c in range(20)]
    >>> grid = {v: set() for v in cells}
    >>> for (r, c) in cells:
    ...     for u in ((r + 1, c), (r, c + 1)):
    ...         if u in grid:
    ...             grid[(r, c)].add(u)
    ...             grid[u].add((r, c))
    >>> card = dict.fromkeys(cells, 2)
    >>> greedy = greedy_order(grid, card, cells)
    >>> order = elimination_order({v: set(n) for v, n in grid.items()}, card, cells,
    ...                           OrderSearch(restarts=0))
    >>> [order_cost(grid, card, o).largest.bit_length() - 1 for o in (greedy, order)]
    [30, 21]
    """
    to_eliminate = list(to_eliminate)
    search = search or DEFAULT_SEARCH
    if _at_most(graph, cardinality, search.above):  # no table can pass it: no copy needed
        return _min_fill(graph, cardinality, to_eliminate)[0]
    original = {v: set(n) for v, n in graph.items()}
    best, best_cost = _min_fill(graph, cardinality, to_eliminate)
    if not search.budget(best_cost):
        return best
    start = time.perf_counter()
    sweep = bandwidth_order(original, cardinality, to_eliminate)
    cost = order_cost(original, cardinality, sweep, bound=best_cost.total)
    if cost is not None and cost.total < best_cost.total:
        best, best_cost = sweep, cost
    names = list(original)
    for seed in range(1, search.restarts + 1):
        # the budget of the best order so far: a good find shortens the search
        if time.perf_counter() - start >= search.budget(best_cost):
            break
        deadline.check()
        found = _shuffled_min_fill(original, cardinality, to_eliminate, names, seed,
                                   bound=best_cost.total)
        if found is not None and found[1].total < best_cost.total:
            best, best_cost = found
    return best


def _at_most(graph: Mapping[str, set[str]], cardinality: Mapping[str, int],
             entries: int) -> bool:
    """Whether the joint of all of ``graph``'s variables has at most ``entries`` entries."""
    product = 1
    for v in graph:
        product *= cardinality[v]
        if product > entries:
            return False
    return True


def order_cost(graph: Mapping[str, set[str]], cardinality: Mapping[str, int],
               order: Sequence[str], bound: int | None = None) -> OrderCost | None:
    """Entries of the tables that eliminating ``order`` from ``graph`` makes (the graph is
    not modified); None as soon as their total passes ``bound``.

    Parameters
    ----------
    graph : mapping
        The interaction graph, variable → neighbours.
    cardinality : mapping
        Each variable's number of states.
    order : sequence of str
        The variables to eliminate, in order.
    bound : int, optional
        Give up (None) once the total exceeds it.

    Returns
    -------
    OrderCost or None

    Examples
    --------
    >>> path = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    >>> order_cost(path, {"A": 2, "B": 3, "C": 2}, ["B", "A"])
    OrderCost(total=16, largest=12)
    """
    work = {v: set(n) for v, n in graph.items()}
    card = cardinality.__getitem__
    total = largest = 0
    for v in order:
        size = card(v) * math.prod(map(card, eliminate(work, v)))
        total += size
        largest = max(largest, size)
        if bound is not None and total > bound:
            return None
    return OrderCost(total, largest)


def bandwidth_order(graph: Mapping[str, set[str]], cardinality: Mapping[str, int],
                    to_eliminate: Iterable[str]) -> list[str]:
    """``to_eliminate`` in the order: the simplicial ones first (as long as some are left),
    then the rest along reverse Cuthill–McKee, a narrow band of the graph's vertices.

    Parameters
    ----------
    graph : mapping
        The interaction graph, variable → neighbours (not modified).
    cardinality : mapping
        Each variable's number of states.
    to_eliminate : iterable of str
        The variables to order.

    Returns
    -------
    list of str

    Examples
    --------
    A path's ends are simplicial, and so are the new ends once they are gone:

    >>> path = {"A": {"B"}, "B": {"A", "C"}, "C": {"B", "D"}, "D": {"C"}}
    >>> bandwidth_order(path, dict.fromkeys(path, 2), ["A", "B", "C"])
    ['A', 'B', 'C']
    """
    # here: networkx costs ~0.2 s to import, paid only by an order worth searching for
    import networkx as nx

    work = {v: set(n) for v, n in graph.items()}
    chosen = dict.fromkeys(to_eliminate)
    order = _simplicial_first(work, chosen)
    left = nx.Graph()
    left.add_nodes_from(work)
    left.add_edges_from((v, u) for v, links in work.items() for u in links)
    return order + [v for v in nx.utils.reverse_cuthill_mckee_ordering(left)
                     if v in chosen]


def _simplicial_first(graph: dict[str, set[str]], chosen: dict) -> list[str]:
    """Eliminate (in place) the chosen simplicial vertices, and those that become so,
    removing them from ``chosen``; return them in that order."""
    order = []
    waiting = list(chosen)
    while waiting:
        v = waiting.pop()
        if v not in chosen:
            continue
        links = graph[v]
        if all(links <= graph[u] | {u} for u in links):
            order.append(v)
            del chosen[v]
            eliminate(graph, v)
            waiting.extend(u for u in links if u in chosen)
    return order


def _shuffled_min_fill(graph: Mapping[str, set[str]], cardinality: Mapping[str, int],
                       to_eliminate: list[str], names: list[str], seed: int, bound: int):
    """Min-fill with ties broken by a random rank (seeded) instead of the name: (order,
    cost), or None once the total passes ``bound``."""
    ranks = list(range(len(names)))
    random.Random(seed).shuffle(ranks)
    rank = dict(zip(names, ranks))
    named = [""] * len(names)
    for v, r in rank.items():
        named[r] = v
    found = _min_fill({rank[v]: {rank[u] for u in links} for v, links in graph.items()},
                      {rank[v]: cardinality[v] for v in names},
                      [rank[v] for v in to_eliminate], bound)
    if found is None:
        return None
    return [named[r] for r in found[0]], found[1]


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
    return _min_fill(graph, cardinality, list(to_eliminate))[0]


def _min_fill(graph, cardinality, to_eliminate, bound=None):
    """:func:`eliminate_greedily`'s order and its :class:`OrderCost`, or None as soon as
    the total passes ``bound``."""
    card = cardinality.__getitem__
    prod = math.prod

    def score(v: str) -> tuple[int, int, str]:
        neighbours = graph[v]
        fill = 0
        if len(neighbours) > 1:
            # each missing pair (a, b) counted from both ends: set differences in C
            # rather than a Python loop over pairs
            for a in neighbours:
                missing = neighbours - graph[a]
                if len(missing) > 1:
                    missing.discard(a)
                    fill += card(a) * sum(map(card, missing))
            fill //= 2
        return fill, prod(map(card, neighbours)) * card(v), v

    limited = deadline.remaining() is not None  # a time limit holds (a server's request)
    current = {v: score(v) for v in to_eliminate}
    heap = list(current.values()) if len(current) > _SCAN else None
    if heap is not None:
        heapq.heapify(heap)
    order: list[str] = []
    pop, push = heapq.heappop, heapq.heappush
    total = largest = 0
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
        if limited:
            deadline.check()
        order.append(v)
        total += entry[1]
        if entry[1] > largest:
            largest = entry[1]
        if bound is not None and total > bound:
            return None
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
    return order, OrderCost(total, largest)


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

"""Building a junction tree for one set of observed variables, from an elimination order.

Eliminating all unobserved variables in the greedy order (see
:mod:`bbn.engines.exact.ordering`) creates one table per step over a *clique*
C_v = {v} ∪ N(v); the maximal cliques, each joined to the clique of the first of its
later neighbours to be eliminated, form a junction tree: every variable's cliques are
connected, and the separator of an edge is S = C_child ∩ C_parent. Each table, sliced
by the evidence, is multiplied into one clique that holds its free variables, giving
potentials ψ_C with Π_C ψ_C = P(X, e).

This module builds the types of :mod:`bbn.engines.exact.cliques` (:func:`build_cliques`):
the elimination tree, the cliques' axis order, the orientation (rooted at evidence, so
that only *dirty* cliques depend on it), each table's place and :class:`Spread`, the
message and summing plans, and the memory check before anything is allocated. Tables of
variables whose state is known when the tree is compiled (a Markov network's factor
nodes; every observed variable of a tree for one question) are sliced here, into the
evidence-free part; solving that part is propagation's
(:func:`bbn.engines.exact.propagation.solve`).

>>> import bbn
>>> net = bbn.Network("chain")
>>> net.add_variable("A", ["a0", "a1"], table=[0.5, 0.5])
>>> net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> net.add_variable("C", ["c0", "c1"], parents=["B"], table=[[0.7, 0.3], [0.4, 0.6]])
>>> network = net.compiled()
>>> order = junction_order(network.parents, network.cardinality)
>>> built = build_cliques(network, ["C"], order, normalised_tables(network.tables))
>>> [sorted(c.variables) for c in built.tree.cliques]
[['A', 'B']]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.engines.exact.cliques import (
    Clique,
    JunctionTree,
    Spread,
    SumUses,
    Table,
    preorder,
    separator_variables,
    tree_cost,
)
from bbn.engines.exact.elimination import Cost, check_memory, fits, relevant_variables
from bbn.engines.exact.ordering import (
    TREE_SEARCH,
    eliminate,
    elimination_order,
    interaction_graph,
)
from bbn.engines.exact.summing import LONG, memo_sum

if TYPE_CHECKING:
    from bbn.engines.exact.summing import Sum
    from bbn.views.compiled import CompiledNetwork

#: Rows of a table that sum to 1 only within this are treated as not summing to 1.
INEXACT_ROWS = 1e-12

#: A root's table of at most this many entries is checked for being uniform (a constant,
#: left out of the tree); a larger one is not worth the pass.
UNIFORM_CHECKED = 64

#: A clique is merged into its parent while their union has at most this many entries
#: (see _merge_small): about what one clique's Python costs in numpy's work.
MERGE_UP_TO = 256

#: Placeholder for a table's values until its clique's axis order is known.
_UNPLACED = np.empty(0)

#: Total clique entries above which a second elimination order is searched for.
SEARCH_AGAIN_ABOVE = 1_000_000

#: Belief sums of at least this many entries are dropped as soon as they have been read
#: for the last time; smaller ones live until their clique is done.
DROP_SUMS_FROM = 1 << 16


class BuiltTree(NamedTuple):
    """A tree built but not solved (:func:`build_cliques`): what
    :func:`bbn.engines.exact.propagation.solve` needs besides the tree itself."""

    tree: JunctionTree
    roots: list[int]  # one clique per component, holding evidence where any does
    unsliced: list[list[Table]]  # per clique, the tables no evidence slices
    families: dict[str, tuple[str, ...]]  # each variable's parents, then itself
    card: dict[str, int]
    lean: bool  # solved now, holding the messages only (see propagation.solve)
    folded: bool  # some tables of known variables were sliced here


def build_cliques(network: CompiledNetwork, observed: Sequence[str], order: Sequence[str],
                  normalised: Mapping[str, tuple], room: Callable[[Cost], int] | None = None,
                  known: Mapping[str, int] | None = None) -> BuiltTree:
    """Triangulate, build the tree, place the tables and plan the messages and sums.

    ``network`` has every table set; ``order`` is its :func:`junction_order` and
    ``normalised`` its :func:`normalised_tables` (the engine computes both once). Refuses
    (MemoryLimitError) before allocating a potential when the tree's peak (see
    :func:`~bbn.engines.exact.cliques.tree_cost`), plus the entries ``room(cost)`` says
    other trees keep, exceeds the memory limit.

    ``known`` gives observed variables whose state is known now: their tables are sliced
    here, into the evidence-free part (default: the network's ``constraints``, observed
    at the same state in every question). A tree built with every observed state known
    answers one question only."""
    # plain dicts: a read-only mapping's lookups cost 1.5 × a dict's, and compiling a tree
    # looks up cardinalities tens of thousands of times
    parents, card, tables = (dict(network.parents), dict(network.cardinality),
                             dict(network.tables))
    observed_set = set(observed)
    families = {v: parents[v] + (v,) for v in parents}
    # The greedy order of the graph without evidence is computed once per network; on
    # the hidden variables it never builds a larger clique than it did there. A fresh
    # greedy order of the sliced graph is sometimes better, sometimes far worse (munin1:
    # a 1e9-entry clique instead of 8e7), so it is tried too, and the cheaper kept, when
    # the tree is big enough for propagation to outweigh a second search.
    adjacency = interaction_graph(_hidden(families.values(), observed_set))
    best = _tree_for([v for v in order if v not in observed_set], adjacency, card)
    if observed_set and best[0] > SEARCH_AGAIN_ABOVE:
        fresh = elimination_order({v: set(n) for v, n in adjacency.items()}, card,
                                  list(adjacency), TREE_SEARCH)
        best = min(best, _tree_for(fresh, adjacency, card), key=lambda candidate: candidate[0])
    _, position, members, edges, home = best
    cliques = []
    for m in members:
        shape = tuple(map(card.__getitem__, m))
        cliques.append(Clique(m, shape, math.prod(shape)))
    tree = JunctionTree(observed=tuple(observed), cliques=cliques, constants=[], collect=[],
                        distribute=[], fixed_marginals={},
                        largest_table=max((c.size for c in cliques), default=1),
                        width=max((len(c.variables) for c in cliques), default=1) - 1,
                        total_entries=sum(c.size for c in cliques),
                        rescale=bool(network.constraints))

    # Tables of variables that are not ancestors of the evidence are barren for every
    # query about an ancestor: variable elimination drops them, i.e. counts their rows as
    # summing to 1. Files print 8 digits, so rows may sum to 1 ± 1e-7 only; such tables
    # are row-normalised here, so that they sum out to 1 as they are assumed to.
    ancestral = relevant_variables(parents, observed_set)
    unsliced: list[list[Table]] = [[] for _ in cliques]  # tables no evidence slices
    weights: dict[str, tuple[int, Table]] = {}
    at = position.__getitem__
    # A table whose observed variables are all known (by default the constraints: a
    # Markov network's factor nodes, observed "on" in every question) is sliced once,
    # here: it joins the evidence-free part, so a clique holding only such tables is clean
    # and solved now (DBN_11: 400 factor tables multiplied once instead of at every call).
    constraints = network.constraints if known is None else known
    folded: dict[str, tuple] = {}  # variable → the index that slices its constraints
    for v, family in families.items():
        if observed_set.isdisjoint(family):
            if len(family) == 1 and _is_uniform(tables[v]):
                # a constant: beliefs and messages are normalised, so it changes none (a
                # Markov network's variables: 100 of Grids_12's 280 tables)
                continue
            fixed, free = (), family
        else:
            fixed = tuple(filter(observed_set.__contains__, family))
            free = tuple(u for u in family if u not in observed_set)
            if not free:
                values = tables[v].transpose([family.index(u) for u in fixed])
                tree.constants.append(Table(v, fixed, values))
                continue
            if all(u in constraints for u in fixed):
                folded[v] = tuple(constraints[u] if u in fixed else slice(None)
                                  for u in family)
                fixed = ()
        c = home[min(free, key=at)]
        (cliques[c].tables if fixed else unsliced[c]).append(Table(v, fixed, _UNPLACED))
        sums = normalised[v][1]
        if sums is not None and v not in ancestral and len(free) > 1:
            # For v's own posterior its raw rows do count: Σ_pa P(pa | e) raw(v | pa),
            # the normalised row weighted back by its sum.
            weights[v] = (c, Table(v, fixed, sums))
    roots = _orient(cliques, edges)
    tree.cost = tree_cost(tree.total_entries, sum(c.size for c in cliques if c.dirty),
                          tree.largest_table, tree.width)
    held = room(tree.cost) if room else 0
    lean = False
    if not fits(tree.cost, held=held) and not any(c.dirty for c in cliques):
        # Solved now and too big to hold every potential: hold the messages only (see
        # propagation.solve_lean), each potential made twice (DBN_16: 0.84 GiB instead of 1.5).
        messages = sum(math.prod(card[u] for u in c.variables
                                 if u in cliques[c.parent].variables)
                       for c in cliques if c.parent >= 0)
        lean_cost = Cost(messages + 3 * tree.largest_table, 0, tree.largest_table, tree.width)
        if fits(lean_cost, held=held):
            tree.cost, lean = lean_cost, True
    check_memory(tree.cost, held=held)
    for clique in cliques:
        _lay_out(clique, cliques, card)
    for clique in cliques:
        if clique.parent >= 0:
            _plan_messages(clique, cliques, card)
    for c, clique in enumerate(cliques):
        for table in clique.tables + unsliced[c]:
            v = table.variable
            values, axes = tables[v] if v in ancestral else normalised[v][0], families[v]
            if v in folded:
                values = values[folded[v]]
                axes = tuple(u for u in axes if u not in observed_set)
            table.values, table.spread = _place(values, axes, table.fixed, clique, card)
    for c, table in weights.values():
        table.values, table.spread = _place(table.values, families[table.variable][:-1],
                                            table.fixed, cliques[c], card)
    # Each posterior is read from the smallest set holding it: a clique, or a separator
    # that its clique sums out for a child anyway.
    cheapest: dict[str, tuple[int, int]] = {}
    for i, clique in enumerate(cliques):
        costs = dict.fromkeys(clique.variables, clique.size)
        for k in clique.children:
            child = cliques[k]
            for u in separator_variables(child):
                if child.separator < costs[u]:
                    costs[u] = child.separator
        for v, cost in costs.items():
            so_far = cheapest.get(v)
            if so_far is None or cost < so_far[0]:
                cheapest[v] = (cost, i)
    marginals: list[list[str]] = [[] for _ in cliques]
    for v, (_, c) in cheapest.items():
        if v in weights:
            c, table = weights[v]
            plan = memo_sum(cliques[c].shape,
                            {i for i, u in enumerate(cliques[c].variables) if u != v})
            cliques[c].weighted.append((v, table, plan))
        else:
            marginals[c].append(v)
    for c, clique in enumerate(cliques):
        _derive(clique, cliques, marginals[c])
    return BuiltTree(tree, roots, unsliced, families, card, lean, bool(folded))


def junction_order(parents: Mapping[str, tuple[str, ...]], card: Mapping[str, int],
                   constraints: Iterable[str] = ()) -> list[str]:
    """The elimination order of the network without evidence but its ``constraints``,
    observed in every question (greedy, or searched when costly:
    :func:`bbn.engines.exact.ordering.elimination_order`): the order the junction trees start
    from, offered to elimination plans too. A Markov network's factor nodes are left out
    of the graph: ordering them too would score 180 more vertices on Grids_12 (100
    variables) and count their tables, which no tree ever holds."""
    graph = interaction_graph(_hidden((parents[v] + (v,) for v in parents), set(constraints)))
    return elimination_order(graph, card, list(graph), TREE_SEARCH)



def _place(values: np.ndarray, axes: tuple[str, ...], fixed: tuple[str, ...], clique: Clique,
           card: Mapping[str, int]) -> tuple[np.ndarray, Spread]:
    """A table over ``axes`` transposed to (``fixed``, the rest in the clique's order),
    and how its slices spread over the clique."""
    free = [u for u in clique.variables if u in axes and u not in fixed]
    order = list(map(axes.index, fixed + tuple(free)))
    return np.ascontiguousarray(values.transpose(order)), spread_into(clique, free)


def _is_uniform(table: np.ndarray) -> bool:
    """Whether a small table (at most UNIFORM_CHECKED entries) has all entries equal."""
    if table.size > UNIFORM_CHECKED:
        return False
    entries = table.ravel().tolist()
    return entries.count(entries[0]) == len(entries)



def _tree_for(order: list[str], adjacency: Mapping[str, set[str]], card: Mapping[str, int]):
    """(total clique entries, position, cliques, edges, home) for an elimination order,
    small cliques merged (:func:`_merge_small`)."""
    position = {v: i for i, v in enumerate(order)}
    members, edges, home = elimination_tree(adjacency, order, position)
    sizes = [math.prod(card[u] for u in m) for m in members]
    members, edges, home, sizes = _merge_small(members, edges, home, sizes, position, card)
    return sum(sizes), position, members, edges, home


def _merge_small(members: list[tuple[str, ...]], edges: list[tuple[int, int]],
                 home: dict[str, int], sizes: list[int], position: Mapping[str, int],
                 card: Mapping[str, int]):
    """The tree with cliques merged across an edge while their union has at most
    MERGE_UP_TO entries (``sizes``: each clique's entries): contracting an edge of a
    junction tree leaves a junction tree, and a clique costs tens of microseconds of
    Python whatever its size (Promedus_29: 360 cliques of 2 to 32 entries, 77 after)."""
    if sum(size <= MERGE_UP_TO for size in sizes) < 2:
        return members, edges, home, sizes
    sizes = list(sizes)
    merged_into = list(range(len(members)))  # a merged clique → the clique it joined

    def find(c: int) -> int:
        while merged_into[c] != c:
            c = merged_into[c]
        return c

    unions: dict[int, set[str]] = {}  # the cliques grown so far
    for c, p in edges:  # about leaves first: cliques are made in elimination order
        a, b = find(c), find(p)
        if sizes[a] > MERGE_UP_TO or sizes[b] > MERGE_UP_TO:
            continue
        union = set(unions.get(b) or members[b])
        union.update(unions.get(a) or members[a])
        size = math.prod(card[u] for u in union)
        if size <= MERGE_UP_TO:
            unions[b], sizes[b], merged_into[a] = union, size, b
            unions.pop(a, None)
    if not unions:
        return members, edges, home, sizes
    kept = [c for c in range(len(members)) if merged_into[c] == c]
    index = {c: i for i, c in enumerate(kept)}
    joined = [(index[find(c)], index[find(p)]) for c, p in edges]
    return ([tuple(sorted(unions[c], key=position.__getitem__)) if c in unions
             else members[c] for c in kept],
            [(a, b) for a, b in joined if a != b],
            {v: index[find(c)] for v, c in home.items()}, [sizes[c] for c in kept])


def normalised_tables(tables: Mapping[str, np.ndarray]) -> dict:
    """``{variable: (table with rows scaled to sum to 1, raw row sums or None)}``.

    The raw sums are kept where a row is off by more than INEXACT_ROWS; a table whose
    rows all sum to exactly 1 is its own normalised form. Tables with the same number of
    states are stacked and handled by a few numpy calls, not several per table (those
    added up to a fifth of a first all-posteriors call on alarm).
    """
    found = {}
    groups: dict[int, list[str]] = {}
    for v, table in tables.items():
        groups.setdefault(table.shape[-1], []).append(v)
    for states, names in groups.items():
        rows = np.concatenate([tables[v].reshape(-1, states) for v in names])
        sums = np.add.reduce(rows, axis=1)
        ends = np.cumsum([tables[v].size // states for v in names])
        starts = np.concatenate(([0], ends[:-1]))
        errors = np.maximum.reduceat(np.abs(sums - 1), starts).tolist()
        scaled = rows / sums[:, None]
        scaled.setflags(write=False)
        for v, start, end, error in zip(names, starts.tolist(), ends.tolist(), errors):
            table = tables[v]
            if error == 0:
                found[v] = (table, None)
            else:
                found[v] = (scaled[start:end].reshape(table.shape),
                            sums[start:end].reshape(table.shape[:-1])
                            if error > INEXACT_ROWS else None)
    return found



def _hidden(families, observed: set[str]):
    """Each family's variables that are not observed (the sliced table's axes)."""
    for family in families:
        yield family if observed.isdisjoint(family) else [u for u in family
                                                           if u not in observed]


def elimination_tree(adjacency: Mapping[str, set[str]], order: list[str],
                      position: Mapping[str, int]):
    """Maximal elimination cliques, the tree edges between them, and each variable's home.

    C_v = {v} ∪ N(v) when v is eliminated; its parent is the clique of the first of N(v)
    to go. C_v is not maximal exactly when a child's N(w) equals it, and then it is
    merged into that child. ``home[v]`` is the clique that holds C_v, hence every table
    whose first-eliminated variable is v.
    """
    graph = {v: set(n) for v, n in adjacency.items()}
    degree: dict[str, int] = {}  # |N(v)| when v is eliminated
    children: dict[str, list[str]] = {v: [] for v in order}
    up: dict[str, str] = {}
    rep: dict[str, str] = {}
    members: dict[str, tuple[str, ...]] = {}
    at = position.__getitem__
    for v in order:
        n = eliminate(graph, v)
        k = degree[v] = len(n)
        host = next((rep[w] for w in children[v] if degree[w] == k + 1), None)
        if host is None:
            rep[v] = v
            n.add(v)
            members[v] = tuple(sorted(n, key=at))
            n.discard(v)
        else:
            rep[v] = host
        if n:
            u = min(n, key=at)
            children[u].append(v)
            up[v] = u
    index = {r: i for i, r in enumerate(members)}
    edges = [(index[rep[v]], index[rep[u]]) for v, u in up.items() if rep[v] != rep[u]]
    home = {v: index[rep[v]] for v in order}
    return list(members.values()), edges, home


def _orient(cliques: list[Clique], edges: list[tuple[int, int]]) -> list[int]:
    """Root each component at a clique holding evidence; mark the dirty cliques.

    Rooting at evidence keeps the cliques whose upward message depends on it (the
    *dirty* ones) down to the subtree spanning the evidence tables.
    """
    links: list[list[int]] = [[] for _ in cliques]
    for a, b in edges:
        links[a].append(b)
        links[b].append(a)
    roots = []
    seen = [False] * len(cliques)
    for start in sorted(range(len(cliques)), key=lambda i: not cliques[i].tables):
        if seen[start]:
            continue
        roots.append(start)
        seen[start] = True
        stack = [start]
        while stack:
            p = stack.pop()
            for c in links[p]:
                if not seen[c]:
                    seen[c] = True
                    cliques[c].parent = p
                    cliques[p].children.append(c)
                    stack.append(c)
    for root in roots:
        for c in reversed(preorder(cliques, root)):
            clique = cliques[c]
            clique.dirty = bool(clique.tables) or any(cliques[k].dirty for k in clique.children)
    return roots


def _lay_out(clique: Clique, cliques: list[Clique], card: Mapping[str, int]) -> None:
    """Order a clique's axes: its own variables, then the separator with its parent,
    each by elimination position (the order they come in); plan the sum that makes the
    message up."""
    if clique.parent < 0:
        return
    shared = set(cliques[clique.parent].variables)
    own = [u for u in clique.variables if u not in shared]
    separator = [u for u in clique.variables if u in shared]
    clique.variables = tuple(own + separator)
    clique.shape = tuple(map(card.__getitem__, clique.variables))
    clique.separator_shape = clique.shape[len(own):]
    clique.separator = math.prod(clique.separator_shape)
    clique.message_sum = memo_sum(clique.shape, range(len(own)))


def _plan_messages(clique: Clique, cliques: list[Clique], card: Mapping[str, int]) -> None:
    """The parent side of the messages: needs the parent's final axis order."""
    separator = separator_variables(clique)
    spread = clique.into_parent = spread_into(cliques[clique.parent], separator, flat=True)
    # spread.perm puts the separator in the parent's order; the way down undoes it
    if spread.perm is None:
        clique.down_perm, clique.down_shape = None, clique.separator_shape
    else:
        clique.down_perm = tuple(sorted(range(len(spread.perm)), key=spread.perm.__getitem__))
        clique.down_shape = tuple(clique.separator_shape[i] for i in spread.perm)


def _derive(clique: Clique, cliques: list[Clique], marginals: list[str]) -> None:
    """Plan the sums of a clique's belief: each child's separator and each posterior
    read here, each from the smallest set already summed that holds it (munin1: ten
    children of an 8·10⁷-entry clique need four passes over it, not ten); planned once
    per clique shape and layout (:func:`_belief_plan`)."""
    position = {u: i for i, u in enumerate(clique.variables)}
    separators = tuple(tuple(sorted(position[u] for u in separator_variables(cliques[k])))
                       for k in clique.children)
    plan = _belief_plan(clique.shape, separators,
                        tuple((position[v],) for v in marginals))
    clique.belief_sums = list(plan.sums)
    for k, entry in zip(clique.children, plan.children):
        cliques[k].separator_sum = entry
    clique.marginals = list(zip(marginals, plan.marginals))
    if plan.done is None:
        return  # every sum is made, then read: the quickest way for small ones
    # Each sum is read as soon as it is made and dropped after its last use, so that a
    # clique's many separator sums are not all alive at once (DBN_12: 19 × 16 MiB).
    uses = [SumUses([], [], list(done)) for done in plan.done]
    for k in clique.children:
        uses[cliques[k].separator_sum].children.append(k)
    for v, i in clique.marginals:
        uses[i].marginals.append((v, i))
    clique.sum_uses = [use if any(use) else None for use in uses]


class BeliefPlan(NamedTuple):
    """The sums of a belief (:func:`_belief_plan`): (source, plan) per sum, source −1
    for the belief itself; the sum giving each child's separator and each marginal; and
    per sum, the big sums done once it is made (None when every sum is small)."""

    sums: tuple[tuple[int, Sum], ...]
    children: tuple[int, ...]
    marginals: tuple[int, ...]
    done: tuple[tuple[int, ...], ...] | None


@functools.lru_cache(maxsize=1 << 14)
def _belief_plan(shape: tuple[int, ...], separators: tuple[tuple[int, ...], ...],
                 marginals: tuple[tuple[int, ...], ...]) -> BeliefPlan:
    """:func:`_derive`'s plan for a clique of ``shape`` whose children's separators and
    marginals are the axes given (sorted positions): the largest target first, each
    summed from the smallest strict superset already made."""
    targets = dict.fromkeys(separators + marginals)
    sized = sorted((-math.prod(shape[i] for i in t), -len(t), t) for t in targets)
    index: dict[tuple[int, ...], int] = {}
    summed: list[tuple[int, int, tuple[int, ...], set[int]]] = []  # size, entry, ...
    sums: list[tuple[int, Sum]] = []
    big: list[bool] = []  # each sum's entries ≥ DROP_SUMS_FROM
    for negative_size, _, target in sized:
        members = set(target)
        source, axes = -1, tuple(range(len(shape)))
        best = None
        for size, entry, names, superset in summed:  # the smallest strict superset
            if members < superset and (best is None or (size, entry) < best):
                best, source, axes = (size, entry), entry, names
        plan = memo_sum(tuple(shape[i] for i in axes),
                        {j for j, u in enumerate(axes) if u not in members})
        index[target] = len(sums)
        summed.append((-negative_size, len(sums), target, members))
        sums.append((source, plan))
        big.append(-negative_size >= DROP_SUMS_FROM)
    done = None
    if any(big):
        last = list(range(len(sums)))
        for j, (source, _) in enumerate(sums):
            if source >= 0:
                last[source] = j
        finished: list[list[int]] = [[] for _ in sums]
        for i, j in enumerate(last):
            if big[i]:  # small sums are left to the end of the clique
                finished[j].append(i)
        done = tuple(map(tuple, finished))
    return BeliefPlan(tuple(sums), tuple(index[t] for t in separators),
                      tuple(index[t] for t in marginals), done)


def spread_into(clique: Clique, operand: Sequence[str], flat: bool = False) -> Spread:
    """How an array with axes ``operand`` (raveled when ``flat``) broadcasts into
    ``clique``: found once per clique shape and operand positions (:func:`_spread_at`)."""
    return _spread_at(clique.shape, tuple(map(clique.variables.index, operand)), flat)


@functools.lru_cache(maxsize=1 << 14)
def _spread_at(shape: tuple[int, ...], positions: tuple[int, ...], flat: bool) -> Spread:
    """:func:`spread_into` for a clique of ``shape`` and an operand whose axes are the clique's
    axes ``positions``: a tree's cliques share a few shapes and layouts (Promedus_29: 790
    spreads, of which 40 distinct), so each is planned once."""
    covered = set(positions)
    shape_runs: list[int] = []
    target: list[int] = []
    previous = None
    for i, n in enumerate(shape):
        inside = i in covered
        if inside is previous:
            target[-1] *= n
            if inside:
                shape_runs[-1] *= n
        else:
            target.append(n)
            shape_runs.append(n if inside else 1)
            previous = inside
    perm = tuple(sorted(range(len(positions)), key=positions.__getitem__))
    size = math.prod(shape)
    runs_shape, widened = tuple(shape_runs), None
    if len(target) > 1 and target[-1] < LONG <= size:
        tail, runs = 1, 0  # the last runs to make one run of at least LONG entries
        while runs < len(target) and tail < LONG:
            runs += 1
            tail *= target[-runs]
        copy = math.prod(shape_runs[:len(shape_runs) - runs]) * tail
        if runs > 1 and copy * 8 <= size:
            widened = (tuple(shape_runs[:len(shape_runs) - runs])
                       + tuple(target[len(target) - runs:]))
            shape_runs = shape_runs[:len(shape_runs) - runs] + [tail]
            target = target[:len(target) - runs] + [tail]
    return Spread(tuple(shape[i] for i in positions),
                  None if perm == tuple(range(len(perm))) else perm,
                  runs_shape, widened, tuple(shape_runs), tuple(target),
                  1 if flat else len(positions))

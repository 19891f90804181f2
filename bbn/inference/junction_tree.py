"""Every posterior at once: a junction tree, compiled per set of observed variables.

Eliminating all unobserved variables in the greedy order (see
:mod:`bbn.inference.ordering`) creates one table per step over a *clique*
C_v = {v} ∪ N(v); the maximal cliques, each joined to the clique of the first of its
later neighbours to be eliminated, form a junction tree: every variable's cliques are
connected, and the separator of an edge is S = C_child ∩ C_parent. Each table, sliced
by the evidence, is multiplied into one clique that holds its free variables, giving
potentials ψ_C with Π_C ψ_C = P(X, e). Two passes (Hugin) then make every clique's
belief its posterior::

    collect (leaves → root):     μ_{c→p}(S) = Σ_{C_c \\ S} ψ_c Π_{k child of c} μ_{k→c}
    distribute (root → leaves):  β_c = ψ_c Π_k μ_{k→c} · P(S | e) / μ_{c→p}(S)
    P(X | e) = Σ_{C \\ X} β_C     for the smallest clique or separator C holding X

so all n posteriors cost about two passes over the cliques instead of n eliminations.

Everything that depends only on which variables are observed is compiled once and
cached on the network: the cliques, the tree and its schedule, each table's transposition
and the slot it multiplies into, and — since the tables do not change while the cache
lives — the part of every potential and of every upward message that no evidence
reaches. A call then slices the evidence tables, recomputes the collect pass only on
the cliques between them (the others' messages are cached), and distributes.

With a :class:`pandas.DataFrame` of evidence, potentials on the evidence side gain a
leading case axis, so N rows cost one pass (in chunks that respect the memory limit).

When the hidden variables have few joint states (DENSE_UP_TO), the tree is a single
clique holding them all, their joint table (:class:`Joint`): one product and one sum
per variable, which on a handful of variables beats building any tree in Python.

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> round(posteriors(net, {"Wet": "yes"})["Rain"].to_dict()["yes"], 4)
0.5294
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bbn.codes import distinct_rows, observed_groups
from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.inference import continuous
from bbn.inference.continuous import gaussian_variables
from bbn.inference.elimination import check_memory, get_memory_limit, relevant_variables
from bbn.inference.evidence import (
    check_variables,
    evidence_codes,
    evidence_indices,
    impossible_row,
)
from bbn.inference.ordering import eliminate, eliminate_greedily, greedy_order
from bbn.network import Network

#: Rows of a table that sum to 1 only within this are treated as not summing to 1.
INEXACT_ROWS = 1e-12

#: Placeholder for a table's values until its clique's axis order is known.
_UNPLACED = np.empty(0)

#: Evidence that leaves at most this many joint states of the hidden variables is
#: answered from that joint table itself (see :class:`Joint`): on a few variables,
#: building and walking a tree of cliques costs more, in Python, than the whole table.
#: (Much above it, a tree's small cliques win on every call: sachs with 3 observed
#: variables has 6561 joint states but 45 clique entries.)
DENSE_UP_TO = 1 << 11

#: Total clique entries above which a second elimination order is searched for.
SEARCH_AGAIN_ABOVE = 1_000_000

#: Sums over short runs of axes are products with small 0/1 matrices (BLAS), many times
#: faster than numpy's reduce, whose inner loop would run along a short axis. Each BLAS
#: call gets at most BLOCK entries: OpenBLAS then stays on one thread, since its threads
#: stall badly (10-100x) when the cores are busy with other work.
SMALL_MATRIX = 4096
BLOCK = 8192
KRON = 4
LONG = 64  # runs at least this long are summed by numpy's reduce, which is fast there
TINY = 32  # arrays this small are summed by one numpy reduce over all the summed axes


@dataclass
class Sum:
    """Σ over the axes ``summed`` of a C-ordered array of shape ``shape``.

    An array of at most TINY entries, one case, is summed by one numpy reduce: per-call
    costs dominate there. Otherwise ``steps`` (built on first use for a tiny one, whose
    batches need them) go from the last axis to the first: each run of s consecutive
    summed entries, followed by q kept ones (and preceded by the rest), is summed by one of
    ``("rows", s)``: numpy's reduce along rows of s ≥ LONG entries;
    ``("cols", s, q)``: numpy's reduce over s rows of q ≥ LONG entries;
    ``("dot", s, 1, m, ones(s))``: blocks of m rows of s entries times a vector of ones;
    ``("dot", s, q, m, M)``: blocks of m rows of s·q entries times M, s stacked q×q
    identities, for q ≤ KRON (a long run is summed a few axes at a time);
    ``("vec", s, q, ones(s))``: each s×q block times a vector of ones, for larger q.
    """

    shape: tuple[int, ...]
    summed: tuple[int, ...]
    steps: list[tuple] | None = None


@dataclass
class Spread:
    """Multiply an array over some of a clique's variables into the clique potential.

    The operand (axes ``operand``, after any case axis) is transposed by ``perm`` into
    the clique's order and reshaped to ``base``, which broadcasts against the clique
    potential viewed with runs of covered / uncovered axes merged. When the last run is
    short and not covered, numpy's loop would run along it only: the operand is then
    first broadcast to ``expand`` over the last runs (a small copy), so that ``shape``
    and the potential's view ``target`` end with one long run.
    """

    operand: tuple[int, ...]
    perm: tuple[int, ...] | None
    base: tuple[int, ...]
    expand: tuple[int, ...] | None
    shape: tuple[int, ...]
    target: tuple[int, ...]
    rank: int  # axes of the operand as given, after any case axis (1 for a flat message)


@dataclass
class Table:
    """A network table as it enters a clique potential.

    ``values`` is the table transposed to (observed axes in ``fixed`` order, free axes in
    the clique's order), so indexing it with the evidence leaves the free axes.
    """

    variable: str
    fixed: tuple[str, ...]
    values: np.ndarray
    spread: Spread | None = None


@dataclass
class Clique:
    """A clique of the tree. Its axes are its own variables, then the separator with
    its parent (S entries, last so that messages up and down are contiguous)."""

    variables: tuple[str, ...]
    shape: tuple[int, ...]
    size: int  # entries: Π shape (laying the axes out only reorders them)
    parent: int = -1
    children: list[int] = field(default_factory=list)
    separator: int = 1  # S, the entries of the separator with the parent
    up: Sum | None = None  # clique → message to the parent (flat, separator order)
    into_parent: Spread | None = None  # that message into the parent's potential
    down: int = -1  # which of the parent's ``derived`` arrays is the separator
    down_perm: tuple[int, ...] | None = None  # that separator into this clique's order
    down_shape: tuple[int, ...] = ()  # the separator's shape in the parent's order
    separator_shape: tuple[int, ...] = ()
    tables: list[Table] = field(default_factory=list)  # sliced by evidence at each call
    # The sums a belief goes through: (source, plan) with source −1 for the belief, else
    # an earlier entry; each child's separator and each posterior is one of them.
    derived: list[tuple[int, Sum]] = field(default_factory=list)
    # (variable, its entry in ``derived``) and (variable, weight, sum of the weighted belief)
    marginals: list[tuple[str, int]] = field(default_factory=list)
    weighted: list[tuple[str, Table, Sum]] = field(default_factory=list)
    dirty: bool = False  # some evidence table lies in this clique's subtree
    # Evidence-free parts, computed at compile time (flat arrays):
    static: np.ndarray | None = None  # ψ without evidence tables × messages of clean children
    message: np.ndarray | None = None  # normalised message up (clean cliques)
    divisor: np.ndarray | None = None  # the unnormalised message up, zeros replaced by 1


@dataclass
class Joint:
    """The joint table of the hidden ``variables`` (small networks): a single clique.

    ``static`` is the product, over ``variables`` in order, of the tables no evidence
    reaches. Each of ``tables`` is a table the evidence slices at every call, laid out
    as (fixed axes, free ones in the order of ``variables``), with the shape its slice
    takes to broadcast against the joint; ``weighted`` holds, by variable, the raw row
    sums of the inexact barren tables laid out the same way.
    """

    variables: tuple[str, ...]
    static: np.ndarray
    tables: list[tuple[Table, tuple[int, ...]]]
    weighted: list[tuple[str, Table, tuple[int, ...]]]


@dataclass
class JunctionTree:
    """A compiled junction tree for one set of observed variables.

    ``collect`` lists the dirty cliques children first; ``distribute`` lists every
    clique of a component that holds evidence, parents first. Components without
    evidence were solved at compile time: their posteriors are in ``fixed_marginals``.
    """

    observed: tuple[str, ...]
    cliques: list[Clique]
    constants: list[Table]  # tables whose variables are all observed
    collect: list[int]
    distribute: list[int]
    fixed_marginals: dict[str, np.ndarray]
    largest_table: int  # entries of the largest clique (read by check_memory)
    width: int  # induced width: variables in the largest clique, minus one
    total_entries: int  # entries of all cliques together
    cached_bytes: int = 0  # held by the arrays kept for later calls
    # Arrays reused by one-case calls, one call at a time (``lock``), so that the big
    # potentials are not allocated — and faulted into memory — again at every call.
    work: dict[int, np.ndarray] = field(default_factory=dict)  # per dirty clique
    scratch: np.ndarray | None = None  # the belief of each clean clique in turn
    lock: threading.Lock = field(default_factory=threading.Lock)
    joint: Joint | None = None  # set instead of cliques when the whole joint is small


# ---------------------------------------------------------------- public API
def posteriors(net: Network, evidence=None):
    """P(X | e) for every variable X of the network.

    ``evidence`` is a dict ``{variable: state}`` (or None): the result is
    ``{variable: Factor}`` in declaration order, observed variables one-hot. A
    :class:`pandas.DataFrame` with one row per case (missing cells allowed) gives
    ``{variable: array of shape (N, |X|)}`` instead. Raises ImpossibleEvidenceError
    when P(e) = 0 (for a batch, naming the first such row), MemoryLimitError when the
    largest clique would exceed the memory limit. A network with Gaussian leaves is
    answered one discrete variable at a time by :func:`bbn.inference.posterior`.
    """
    batch = evidence is not None and not isinstance(evidence, Mapping)
    if batch and not hasattr(evidence, "columns"):
        raise QueryError("evidence must be a dict or a pandas DataFrame, not "
                         f"{type(evidence).__name__}")
    if gaussian_variables(net):  # continuous leaves weigh the discrete answer: one query each
        if batch:
            raise QueryError("posteriors of every variable for a batch of cases need a "
                             "network without Gaussian variables; pass one case at a time")
        return {v: continuous.posterior(net, [v], dict(evidence or {})) for v in net.variables
                if not net.is_gaussian(v)}
    if batch:
        return _posteriors_batch(net, evidence)
    return _posteriors_one(net, dict(evidence or {}))


def junction_tree(net: Network, observed: Sequence[str]) -> JunctionTree:
    """The compiled tree for this network and set of observed variables.

    Trees are cached on the network, most recently used first; older ones are dropped
    once the cached tables of all of them exceed the memory limit (the newest is kept).
    """
    trees = net._cache.setdefault("junction trees", OrderedDict())
    key = tuple(sorted(observed))
    tree = trees.get(key)
    if tree is not None:
        trees.move_to_end(key)
        return tree
    tree = trees[key] = compile_tree(net, list(key))
    while len(trees) > 1 and sum(t.cached_bytes for t in trees.values()) > get_memory_limit():
        trees.popitem(last=False)
    return tree


def _posteriors_one(net: Network, evidence: dict) -> dict[str, Factor]:
    indices = evidence_indices(net, evidence)
    tree = junction_tree(net, list(indices))
    try:
        marginals = propagate(tree, indices)
    except _Impossible:
        raise ImpossibleEvidenceError(evidence) from None
    result = {}
    for v, data in net.graph.nodes(data=True):  # the node data: no lookup per variable
        states = data["states"]
        if v in indices:
            values = np.zeros(len(states))
            values[indices[v]] = 1.0
        elif v in marginals:
            values = marginals[v]
        else:
            values = tree.fixed_marginals[v].copy()
        result[v] = Factor((v,), {v: states}, values)
    return result


def _posteriors_batch(net: Network, frame) -> dict[str, np.ndarray]:
    return posteriors_codes(net, evidence_codes(net, frame), frame.index, len(frame))


def posteriors_codes(net: Network, codes: Mapping[str, np.ndarray], row_names=None,
                     cases: int | None = None) -> dict[str, np.ndarray]:
    """P(X | e_i) for every variable X and N cases given as state indices.

    ``codes`` is ``{variable: (N,) ints}``, −1 where a case does not observe it (``cases``
    gives N when there are no columns). Cases are grouped by which variables they
    observe and, within a group, by their distinct evidence; each group of distinct
    cases is one batched propagation. Returns ``{variable: (N, |X|) array}``.
    """
    columns = list(codes)
    check_variables(net, columns, role="evidence")
    if columns:
        matrix = np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
    elif cases is not None:
        matrix = np.zeros((cases, 0), dtype=np.intp)
    else:
        raise QueryError("posteriors_codes needs an evidence column or the number of cases")
    n = len(matrix)
    result = {v: np.empty((n, net.cardinality(v))) for v in net.variables}
    if n == 0:
        return result
    impossible = []  # (row, observed columns): the first impossible row of each group
    for rows, pattern in observed_groups(matrix >= 0):
        observed = [c for c, seen in zip(columns, pattern) if seen]
        for j, c in enumerate(columns):
            if pattern[j]:
                result[c][rows] = np.eye(net.cardinality(c))[matrix[rows, j]]
        # Rows repeat (a few observed variables have few joint states): propagate each
        # distinct case once, in chunks that keep the batch within the memory limit.
        distinct, inverse = distinct_rows(matrix[np.ix_(rows, pattern)])
        tree = junction_tree(net, observed)
        hidden = [v for v in net.variables if v not in observed]
        answers = {v: np.empty((len(distinct), net.cardinality(v))) for v in hidden}
        chunk = max(1, get_memory_limit() // (8 * max(tree.total_entries, 1)))
        for start in range(0, len(distinct), chunk):
            part = distinct[start:start + chunk]
            check_memory(tree, len(part))
            try:
                with np.errstate(invalid="ignore", divide="ignore"):  # impossible cases: 0/0
                    marginals = propagate(tree, dict(zip(observed, part.T)), cases=len(part))
            except _Impossible as error:
                bad = start + np.flatnonzero(error.rows)
                impossible.append((int(rows[np.isin(inverse, bad)].min()), observed))
                break
            for v in hidden:
                answers[v][start:start + chunk] = marginals.get(v, tree.fixed_marginals.get(v))
        for v in hidden:
            result[v][rows] = answers[v][inverse]
    if impossible:
        row, observed = min(impossible)
        raise impossible_row(net, matrix, columns, observed, row, row_names)
    return result


# ------------------------------------------------------------------ compile
def compile_tree(net: Network, observed: Sequence[str]) -> JunctionTree:
    """Triangulate, build the tree, place the tables and solve the evidence-free parts
    (for few hidden joint states, a tree whose :class:`Joint` is the whole joint)."""
    observed_set = set(observed)
    parents, card, tables = _read(net)
    families = {v: parents[v] + (v,) for v in parents}
    hidden = [v for v in parents if v not in observed_set]
    if math.prod(map(card.__getitem__, hidden)) <= DENSE_UP_TO:
        return _compile_joint(net, observed, hidden, parents, card, tables)
    # The greedy order of the graph without evidence is computed once per network; on
    # the hidden variables it never builds a larger clique than it did there. A fresh
    # greedy order of the sliced graph is sometimes better, sometimes far worse (munin1:
    # a 1e9-entry clique instead of 8e7), so it is tried too, and the cheaper kept, when
    # the tree is big enough for propagation to outweigh a second search.
    full = net._cache.get("junction order")
    if full is None:
        graph = _interaction_graph(families.values(), set())
        # the sliced graph is the subgraph of the hidden variables
        adjacency = {v: links - observed_set for v, links in graph.items()
                     if v not in observed_set}
        full = net._cache["junction order"] = eliminate_greedily(graph, card, list(graph))
    else:
        adjacency = _interaction_graph(families.values(), observed_set)
    best = _tree_for([v for v in full if v not in observed_set], adjacency, card)
    if observed_set and best[0] > SEARCH_AGAIN_ABOVE:
        best = min(best, _tree_for(greedy_order(adjacency, card, list(adjacency)), adjacency,
                                   card), key=lambda candidate: candidate[0])
    _, position, members, edges, home = best
    cliques = []
    for m in members:
        shape = tuple(map(card.__getitem__, m))
        cliques.append(Clique(m, shape, math.prod(shape)))
    tree = JunctionTree(observed=tuple(observed), cliques=cliques, constants=[], collect=[],
                        distribute=[], fixed_marginals={},
                        largest_table=max((c.size for c in cliques), default=1),
                        width=max((len(c.variables) for c in cliques), default=1) - 1,
                        total_entries=sum(c.size for c in cliques))
    check_memory(tree)

    # Tables of variables that are not ancestors of the evidence are barren for every
    # query about an ancestor: variable elimination drops them, i.e. counts their rows as
    # summing to 1. Files print 8 digits, so rows may sum to 1 ± 1e-7 only; such tables
    # are row-normalised here, so that they sum out to 1 as they are assumed to.
    ancestral = relevant_variables(parents, observed_set)
    normalised = _normalised(net, tables)
    static: list[list[Table]] = [[] for _ in cliques]
    weights: dict[str, tuple[int, Table]] = {}
    at = position.__getitem__
    for v, family in families.items():
        if observed_set.isdisjoint(family):
            fixed, free = (), family
        else:
            fixed = tuple(filter(observed_set.__contains__, family))
            free = tuple(u for u in family if u not in observed_set)
            if not free:
                values = tables[v].transpose([family.index(u) for u in fixed])
                tree.constants.append(Table(v, fixed, values))
                continue
        c = home[min(free, key=at)]
        (cliques[c].tables if fixed else static[c]).append(Table(v, fixed, _UNPLACED))
        sums = normalised[v][1]
        if sums is not None and v not in ancestral and len(free) > 1:
            # For v's own posterior its raw rows do count: Σ_pa P(pa | e) raw(v | pa),
            # the normalised row weighted back by its sum.
            weights[v] = (c, Table(v, fixed, sums))
    roots = _orient(cliques, edges)
    memo: dict = {}
    for clique in cliques:
        _lay_out(clique, cliques, card, memo)
    for clique in cliques:
        if clique.parent >= 0:
            _plan_messages(clique, cliques, card)
    for c, clique in enumerate(cliques):
        for table in clique.tables + static[c]:
            v = table.variable
            values = tables[v] if v in ancestral else normalised[v][0]
            table.values, table.spread = _place(values, families[v], table.fixed, clique, card)
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
            for u in _separator(child):
                if child.separator < costs[u]:
                    costs[u] = child.separator
        for v, cost in costs.items():
            known = cheapest.get(v)
            if known is None or cost < known[0]:
                cheapest[v] = (cost, i)
    marginals: list[list[str]] = [[] for _ in cliques]
    for v, (_, c) in cheapest.items():
        if v in weights:
            c, table = weights[v]
            plan = _memo_sum(memo, cliques[c].shape,
                             {i for i, u in enumerate(cliques[c].variables) if u != v})
            cliques[c].weighted.append((v, table, plan))
        else:
            marginals[c].append(v)
    for c, clique in enumerate(cliques):
        _derive(clique, cliques, marginals[c], card, memo)

    # Collect on everything no evidence reaches, once: those messages never change.
    clean_order: list[int] = []
    for root in roots:
        component = _preorder(cliques, root)
        if any(cliques[c].dirty for c in component):
            tree.distribute += component
            tree.collect += [c for c in reversed(component) if cliques[c].dirty]
        else:
            clean_order += component
        for c in reversed(component):
            clique = cliques[c]
            factors = [(table.values, table.spread) for table in static[c]]
            factors += [(cliques[k].message, cliques[k].into_parent) for k in clique.children
                        if not cliques[k].dirty]
            if factors:  # the first factor fills the array: no pass to write ones
                values, spread = factors[0]
                potential = np.empty(clique.size)
                potential.reshape(spread.target)[...] = _operand(values, spread)
                for values, spread in factors[1:]:
                    potential = _times(potential, values, spread)
            else:
                potential = np.ones(clique.size)
            clique.static = potential
            if clique.parent >= 0 and not clique.dirty:
                clique.message, clique.divisor = _message(clique, potential)
    # Components without evidence are solved now: their posteriors are the priors.
    tree.fixed_marginals = _distribute(tree, clean_order, {}, {}, {})
    for c in clean_order:
        cliques[c].static = None  # never read again
    tree.work = {c: np.empty(cliques[c].size) for c in tree.collect}  # no pages touched yet
    clean = [cliques[c].size for c in tree.distribute if not cliques[c].dirty]
    tree.scratch = np.empty(max(clean)) if clean else None
    tree.cached_bytes = (sum(c.static.nbytes for c in cliques if c.static is not None)
                         + sum(a.nbytes for a in tree.work.values())
                         + (tree.scratch.nbytes if tree.scratch is not None else 0))
    return tree


def _compile_joint(net: Network, observed: Sequence[str], hidden: list[str],
                   parents: Mapping[str, tuple[str, ...]], card: Mapping[str, int],
                   tables: Mapping[str, np.ndarray]) -> JunctionTree:
    """A tree without cliques: its :class:`Joint` holds every table (the tables of
    barren variables are handled as in :func:`compile_tree`)."""
    shape = tuple(map(card.__getitem__, hidden))
    size = math.prod(shape)
    tree = JunctionTree(observed=tuple(observed), cliques=[], constants=[], collect=[],
                        distribute=[], fixed_marginals={}, largest_table=size,
                        width=len(hidden) - 1, total_entries=size)
    check_memory(tree)
    observed_set = set(observed)
    ancestral = relevant_variables(parents, observed_set)
    normalised = _normalised(net, tables)
    axis = {v: i for i, v in enumerate(hidden)}
    joint = tree.joint = Joint(tuple(hidden), np.ones(shape), [], [])
    for v, table in tables.items():
        family = parents[v] + (v,)
        fixed = tuple(u for u in family if u in observed_set)
        free = sorted((u for u in family if u not in observed_set), key=axis.__getitem__)
        order = list(map(family.index, fixed + tuple(free)))
        if not free:
            tree.constants.append(Table(v, fixed, table.transpose(order)))
            continue
        values = (table if v in ancestral else normalised[v][0]).transpose(order)
        spread = tuple(n if u in free else 1 for u, n in zip(hidden, shape))
        if fixed:
            joint.tables.append((Table(v, fixed, np.ascontiguousarray(values)), spread))
        else:
            joint.static *= values.reshape(spread)
        sums = normalised[v][1]
        if sums is not None and v not in ancestral and v in axis and len(free) > 1:
            # v's parents, in v's layout without v's own axis
            kept = [i for i in order if i < len(family) - 1]
            joint.weighted.append((v, Table(v, fixed, sums.transpose(kept)),
                                   tuple(n if u in free and u != v else 1
                                         for u, n in zip(hidden, shape))))
    joint.static.setflags(write=False)
    tree.cached_bytes = joint.static.nbytes
    return tree


def _place(values: np.ndarray, axes: tuple[str, ...], fixed: tuple[str, ...], clique: Clique,
           card: Mapping[str, int]) -> tuple[np.ndarray, Spread]:
    """A table over ``axes`` transposed to (``fixed``, the rest in the clique's order),
    and how its slices spread over the clique."""
    free = [u for u in clique.variables if u in axes and u not in fixed]
    order = list(map(axes.index, fixed + tuple(free)))
    return np.ascontiguousarray(values.transpose(order)), _spread(clique, free, card)


def _tree_for(order: list[str], adjacency: Mapping[str, set[str]], card: Mapping[str, int]):
    """(total clique entries, position, cliques, edges, home) for an elimination order."""
    position = {v: i for i, v in enumerate(order)}
    members, edges, home = _elimination_tree(adjacency, order, position)
    return sum(math.prod(card[u] for u in m) for m in members), position, members, edges, home


def _normalised(net: Network, tables: Mapping[str, np.ndarray]) -> dict:
    """``{variable: (table with rows scaled to sum to 1, raw row sums or None)}``, cached.

    The raw sums are kept where a row is off by more than INEXACT_ROWS; a table whose
    rows all sum to exactly 1 is its own normalised form. Tables with the same number of
    states are stacked and handled by a few numpy calls, not several per table (those
    added up to a fifth of a first all-posteriors call on alarm).
    """
    found = net._cache.get("normalised tables")
    if found is not None:
        return found
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
    net._cache["normalised tables"] = found
    return found


def _read(net: Network) -> tuple[dict, dict, dict]:
    """Parents, cardinality and table of every variable, in one pass over the nodes."""
    parents, card, tables = {}, {}, {}
    for v, data in net.graph.nodes(data=True):
        table = data["table"]
        if table is None or data.get("kind"):
            net.cpt_array(v)  # a structure-only model fails here, naming the variable
        parents[v] = data["parents"]
        card[v] = len(data["states"])
        tables[v] = table
    return parents, card, tables


def _interaction_graph(families, observed: set[str]) -> dict[str, set[str]]:
    """Hidden variables, each linked to those it shares a table with after slicing."""
    adjacency: dict[str, set[str]] = {}
    for family in families:
        free = family if observed.isdisjoint(family) else [u for u in family
                                                            if u not in observed]
        for u in free:
            links = adjacency.get(u)
            if links is None:
                adjacency[u] = set(free)
            else:
                links.update(free)
    for u, links in adjacency.items():
        links.discard(u)
    return adjacency


def _elimination_tree(adjacency: Mapping[str, set[str]], order: list[str],
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
        for c in reversed(_preorder(cliques, root)):
            clique = cliques[c]
            clique.dirty = bool(clique.tables) or any(cliques[k].dirty for k in clique.children)
    return roots


def _preorder(cliques: list[Clique], root: int) -> list[int]:
    order = [root]
    for c in order:  # grows while iterating: breadth first, parents before children
        order.extend(cliques[c].children)
    return order


def _lay_out(clique: Clique, cliques: list[Clique], card: Mapping[str, int],
             memo: dict) -> None:
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
    clique.up = _memo_sum(memo, clique.shape, set(range(len(own))))


def _plan_messages(clique: Clique, cliques: list[Clique], card: Mapping[str, int]) -> None:
    """The parent side of the messages: needs the parent's final axis order."""
    separator = _separator(clique)
    spread = clique.into_parent = _spread(cliques[clique.parent], separator, card, flat=True)
    # spread.perm puts the separator in the parent's order; the way down undoes it
    if spread.perm is None:
        clique.down_perm, clique.down_shape = None, clique.separator_shape
    else:
        clique.down_perm = tuple(sorted(range(len(spread.perm)), key=spread.perm.__getitem__))
        clique.down_shape = tuple(clique.separator_shape[i] for i in spread.perm)


def _derive(clique: Clique, cliques: list[Clique], marginals: list[str],
            card: Mapping[str, int], memo: dict) -> None:
    """Plan the sums of a clique's belief: each child's separator and each posterior
    read here, each from the smallest set already summed that holds it (munin1: ten
    children of an 8·10⁷-entry clique need four passes over it, not ten)."""
    wanted = {}
    for k in clique.children:
        separator = set(_separator(cliques[k]))
        wanted[k] = tuple(u for u in clique.variables if u in separator)
    for v in marginals:
        wanted[v] = (v,)
    sized = sorted((-math.prod(map(card.__getitem__, t)), -len(t), t)
                   for t in dict.fromkeys(wanted.values()))
    index: dict[tuple[str, ...], int] = {}
    summed: list[tuple[int, int, tuple[str, ...], set[str]]] = []  # size, entry, ...
    for negative_size, _, target in sized:
        members = set(target)
        source, variables = -1, clique.variables
        best = None
        for size, entry, names, superset in summed:  # the smallest strict superset
            if members < superset and (best is None or (size, entry) < best):
                best, source, variables = (size, entry), entry, names
        plan = _memo_sum(memo, tuple(map(card.__getitem__, variables)),
                         {j for j, u in enumerate(variables) if u not in members})
        index[target] = len(clique.derived)
        summed.append((-negative_size, len(clique.derived), target, members))
        clique.derived.append((source, plan))
    for k in clique.children:
        cliques[k].down = index[wanted[k]]
    clique.marginals = [(v, index[(v,)]) for v in marginals]


def _separator(clique: Clique) -> tuple[str, ...]:
    """The variables a clique shares with its parent (its last axes)."""
    return clique.variables[len(clique.variables) - len(clique.separator_shape):]


def _memo_sum(memo: dict, shape: tuple[int, ...], summed: set[int]) -> Sum:
    """:func:`_sum`, remembered in ``memo`` for the rest of one compilation (cliques
    repeat shapes: half of win95pts' sums are repeats, three quarters of andes')."""
    key = (shape, frozenset(summed))
    plan = memo.get(key)
    if plan is None:
        plan = memo[key] = _sum(shape, summed)
    return plan


def _sum(shape: Sequence[int], summed: set[int]) -> Sum:
    plan = Sum(tuple(shape), tuple(sorted(summed)))
    if math.prod(shape) > TINY:
        plan.steps = _steps(shape, summed)
    return plan


def _steps(shape: Sequence[int], summed: set[int]) -> list[tuple]:
    steps: list[tuple] = []
    kept = 1  # entries of the kept axes after the current one
    i = len(shape) - 1
    while i >= 0:
        if i not in summed:
            kept *= shape[i]
            i -= 1
            continue
        j = i
        while j > 0 and j - 1 in summed:
            j -= 1
        steps += _run_steps(list(shape[:j]), list(shape[j:i + 1]), kept)
        i = j - 1
    return steps


def _run_steps(before: list[int], run: list[int], q: int) -> list[tuple]:
    """Steps summing the axes ``run``, preceded by axes ``before``, followed by q entries."""
    s = math.prod(run)
    if s == 1:
        return []
    if q == 1:
        if s >= LONG:
            return [("rows", s)]
        return [("dot", s, 1, _rows(before, s), _summing_matrix(s, 1))]
    if q >= LONG:
        return [("cols", s, q)]
    # A product with stacked identities costs q operations an entry: worth it for very
    # short q only; otherwise each s×q block is multiplied by a vector of ones.
    kron = q <= KRON
    steps = []
    while run:
        part = 1
        while run and part * run[-1] * q * (q if kron else 1) <= (SMALL_MATRIX if kron
                                                                 else BLOCK):
            part *= run.pop()
        if part == 1:  # an axis too long for a small block: q is not that short here
            steps.append(("cols", math.prod(run), q))
            break
        if kron:
            steps.append(("dot", part, q, _rows(before + run, part * q),
                          _summing_matrix(part, q)))
        else:
            steps.append(("vec", part, q, _summing_matrix(part, 1)))
    return steps


@functools.lru_cache(maxsize=1024)
def _summing_matrix(s: int, q: int) -> np.ndarray:
    """s stacked q×q identities (a vector of s ones when q = 1), shared and read-only."""
    matrix = np.ones(s) if q == 1 else np.tile(np.eye(q), (s, 1))
    matrix.setflags(write=False)
    return matrix


def _rows(before: list[int], width: int) -> int:
    """Rows per BLAS call: a product of the last axes in ``before``, so that it divides
    their number of rows (also with a case axis in front), with rows × width ≤ BLOCK."""
    rows = 1
    for n in reversed(before):
        if rows * n * width > BLOCK:
            break
        rows *= n
    return rows


def _spread(clique: Clique, operand: Sequence[str], card: Mapping[str, int],
            flat: bool = False) -> Spread:
    """How an array with axes ``operand`` (raveled when ``flat``) broadcasts into
    ``clique``."""
    covered = set(operand)
    in_clique: list[str] = []
    shape: list[int] = []
    target: list[int] = []
    previous = None
    for u, n in zip(clique.variables, clique.shape):
        inside = u in covered
        if inside:
            in_clique.append(u)
        if inside is previous:
            target[-1] *= n
            if inside:
                shape[-1] *= n
        else:
            target.append(n)
            shape.append(n if inside else 1)
            previous = inside
    perm = tuple(map(operand.index, in_clique))
    base, expand = tuple(shape), None
    if len(target) > 1 and target[-1] < LONG <= clique.size:
        tail, runs = 1, 0  # the last runs to make one run of at least LONG entries
        while runs < len(target) and tail < LONG:
            runs += 1
            tail *= target[-runs]
        copy = math.prod(shape[:len(shape) - runs]) * tail
        if runs > 1 and copy * 8 <= clique.size:
            expand = tuple(shape[:len(shape) - runs]) + tuple(target[len(target) - runs:])
            shape = shape[:len(shape) - runs] + [tail]
            target = target[:len(target) - runs] + [tail]
    return Spread(tuple(map(card.__getitem__, operand)),
                  None if perm == tuple(range(len(perm))) else perm,
                  base, expand, tuple(shape), tuple(target), 1 if flat else len(operand))


# -------------------------------------------------------------- propagation
class _Impossible(Exception):
    """P(e) = 0 (for a batch, in the cases marked in ``rows``)."""

    def __init__(self, rows: np.ndarray | None = None):
        self.rows = rows


def propagate(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
              cases: int | None = None) -> dict[str, np.ndarray]:
    """Collect and distribute with the evidence state indices: the posteriors of the
    unobserved variables of the components that hold evidence.

    ``cases`` = N means each evidence value is an array of N indices, and every
    posterior gets a leading axis of N rows.
    """
    if tree.joint is not None:
        return _joint_posteriors(tree, evidence, cases)
    if cases is None and tree.lock.acquire(blocking=False):
        try:
            return _propagate(tree, evidence, None, tree.work, tree.scratch)
        finally:
            tree.lock.release()
    return _propagate(tree, evidence, cases, {}, None)


def _propagate(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
               cases: int | None, work: Mapping[int, np.ndarray],
               scratch: np.ndarray | None) -> dict[str, np.ndarray]:
    cliques = tree.cliques
    # A batch carries on past impossible rows (their totals count as 1) to name the first.
    bad = None if cases is None else np.zeros(cases, dtype=bool)
    for table in tree.constants:
        _check_total(table.values[tuple(evidence[u] for u in table.fixed)][..., None], bad)
    potentials: dict[int, np.ndarray] = {}
    messages: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for c in tree.collect:
        clique = cliques[c]
        potential = clique.static
        owned = False  # potential is this call's array, free to update in place
        for table in clique.tables:
            values = table.values[tuple(evidence[u] for u in table.fixed)]
            potential = _times(potential, values, table.spread, owned, work.get(c))
            owned = True
        for k in clique.children:
            child = cliques[k]
            if child.dirty:
                potential = _times(potential, messages[k][0], child.into_parent, owned,
                                   work.get(c))
                owned = True
        potentials[c] = potential
        if clique.parent >= 0:
            messages[c] = _message(clique, potential, bad)
    result = _distribute(tree, tree.distribute, potentials, messages, evidence, bad, scratch)
    if bad is not None and bad.any():
        raise _Impossible(bad)
    return result


def _joint_posteriors(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
                      cases: int | None) -> dict[str, np.ndarray]:
    """Every hidden posterior from the joint, P(X = x | e) = Σ_{others} Π φ / Σ_all Π φ,
    with a leading case axis when the evidence holds arrays of ``cases`` indices."""
    joint = tree.joint
    bad = None if cases is None else np.zeros(cases, dtype=bool)
    for table in tree.constants:
        _check_total(table.values[tuple(evidence[u] for u in table.fixed)][..., None], bad)
    product = joint.static
    lead: tuple[int, ...] = ()
    for i, (table, spread) in enumerate(joint.tables):
        values = table.values[tuple(evidence[u] for u in table.fixed)]
        lead = values.shape[:1] if cases is not None else ()
        values = values.reshape(lead + spread)
        if i:
            product *= values  # this call's own array
        else:
            product = product * values
    total = _check_total(product.reshape(lead + (-1,)), bad)
    axes = range(len(lead), product.ndim)
    result = {}
    for v, a in zip(joint.variables, axes):
        summed = tuple(k for k in axes if k != a)
        result[v] = (np.add.reduce(product, axis=summed) if summed else product) / total
    for v, table, spread in joint.weighted:
        values = table.values[tuple(evidence[u] for u in table.fixed)]
        a = len(lead) + joint.variables.index(v)
        values = values.reshape((values.shape[:1] if cases is not None and table.fixed else ())
                                + spread)
        marginal = np.add.reduce(product * values, axis=tuple(k for k in axes if k != a))
        result[v] = marginal / np.add.reduce(marginal, axis=-1, keepdims=True)
    if bad is not None and bad.any():
        raise _Impossible(bad)
    return result


def _times(potential: np.ndarray, operand: np.ndarray, spread: Spread,
           in_place: bool = True, out: np.ndarray | None = None) -> np.ndarray:
    """potential × operand spread over the clique (flat, with a case axis if either has),
    in place, into ``out`` (a flat array of the clique's size, no case axis), or new."""
    lead = operand.shape[:operand.ndim - spread.rank]
    operand = _operand(operand, spread)
    own_lead = potential.shape[:-1]
    view = potential.reshape(own_lead + spread.target)
    if in_place and len(own_lead) >= len(lead):
        view *= operand
        return potential
    if out is not None and not lead and not own_lead:
        np.multiply(view, operand, out=out.reshape(spread.target))
        return out
    product = view * operand
    return product.reshape(product.shape[:product.ndim - len(spread.target)] + (-1,))


def _operand(operand: np.ndarray, spread: Spread) -> np.ndarray:
    """The operand reshaped (and transposed) to broadcast against the clique's view."""
    lead = operand.shape[:operand.ndim - spread.rank]
    if spread.perm is not None:
        operand = operand.reshape(lead + spread.operand).transpose(
            tuple(range(len(lead))) + tuple(p + len(lead) for p in spread.perm))
    operand = operand.reshape(lead + spread.base)
    if spread.expand is not None:
        operand = np.broadcast_to(operand, lead + spread.expand)
    return operand.reshape(lead + spread.shape)


def _reduce(array: np.ndarray, plan: Sum) -> np.ndarray:
    """Apply a :class:`Sum` to a flat array (or rows of flat arrays)."""
    lead = array.shape[:-1]
    steps = plan.steps
    if steps is None:
        if not lead:
            if not plan.summed:
                return array
            return np.add.reduce(array.reshape(plan.shape), axis=plan.summed).reshape(-1)
        steps = plan.steps = _steps(plan.shape, set(plan.summed))
    for step in steps:
        if step[0] == "rows":
            array = np.add.reduce(array.reshape(-1, step[1]), axis=1)
        elif step[0] == "cols":
            array = np.add.reduce(array.reshape(-1, step[1], step[2]), axis=1)
        elif step[0] == "vec":
            array = np.matmul(step[3], array.reshape(-1, step[1], step[2]))
        else:
            _, s, q, rows, matrix = step
            array = array.reshape(-1, rows, s * q) @ matrix
    return array.reshape(lead + (-1,))


def _message(clique: Clique, potential: np.ndarray, bad: np.ndarray | None = None):
    """The normalised message up, and the unnormalised one (zeros → 1) to divide by."""
    raw = _reduce(potential, clique.up)
    total = _check_total(raw, bad)
    divisor = raw if raw.all() else np.where(raw > 0, raw, 1.0)
    return raw / total, divisor


def _check_total(array: np.ndarray, bad: np.ndarray | None = None) -> np.ndarray:
    """Σ along the last axis (kept as length 1); where it is 0, raise _Impossible, or
    for a batch (``bad`` given) mark the row and count its total as 1."""
    total = np.add.reduce(array, axis=-1, keepdims=True)
    if total.ndim == 1:  # one case: a float comparison is cheaper than array ones
        if not total[0] > 0:
            raise _Impossible()
        return total
    zero = ~(total > 0)
    if zero.any():
        if bad is None:
            raise _Impossible()
        bad |= zero[:, 0]
        total = np.where(zero, 1.0, total)
    return total


def _distribute(tree: JunctionTree, order: list[int], collected: Mapping[int, np.ndarray],
                messages: Mapping[int, tuple[np.ndarray, np.ndarray]],
                evidence: Mapping[str, int | np.ndarray],
                bad: np.ndarray | None = None,
                scratch: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Beliefs from the root down, posteriors from each clique as it is reached.

    ``collected[c]`` is ψ_c × the messages from c's children (this call's array for a
    dirty clique, else the cached ``static``); a belief lives only while its clique is
    being processed, so memory stays near the largest clique.
    """
    cliques = tree.cliques
    ratios: dict[int, np.ndarray] = {}
    result: dict[str, np.ndarray] = {}
    for c in order:
        clique = cliques[c]
        potential = collected.get(c)
        if clique.parent < 0:
            if potential is None:
                belief = clique.static / _check_total(clique.static, bad)
            else:  # this call's own array
                potential /= _check_total(potential, bad)
                belief = potential
        else:
            ratio = ratios.pop(c)
            lead = ratio.shape[:-1]
            shaped = ratio.reshape(lead + (1, clique.separator))
            if potential is not None and potential.ndim >= ratio.ndim:
                view = potential.reshape(lead + (-1, clique.separator))
                view *= shaped  # this call's own array: update in place
                belief = potential
            else:
                if potential is None:
                    potential = clique.static
                if scratch is not None and not lead:  # one clean belief at a time
                    belief = scratch[:clique.size]
                    np.multiply(potential.reshape(-1, clique.separator), shaped,
                                out=belief.reshape(-1, clique.separator))
                else:
                    belief = (potential.reshape(-1, clique.separator) * shaped).reshape(
                        lead + (-1,))
        sums: list[np.ndarray] = []
        for source, plan in clique.derived:
            sums.append(_reduce(belief if source < 0 else sums[source], plan))
        for k in clique.children:
            child = cliques[k]
            divisor = messages[k][1] if child.dirty else child.divisor
            separator = sums[child.down]
            if child.down_perm is not None:
                lead = separator.shape[:-1]
                separator = separator.reshape(lead + child.down_shape).transpose(
                    tuple(range(len(lead))) + tuple(p + len(lead) for p in child.down_perm))
                separator = separator.reshape(lead + (-1,))
            ratios[k] = separator / divisor
        for v, i in clique.marginals:
            result[v] = sums[i] / np.add.reduce(sums[i], axis=-1, keepdims=True)
        for v, weight, plan in clique.weighted:
            values = weight.values[tuple(evidence[u] for u in weight.fixed)]
            marginal = _reduce(_times(belief, values, weight.spread, False), plan)
            result[v] = marginal / np.add.reduce(marginal, axis=-1, keepdims=True)
    return result

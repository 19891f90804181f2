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
    P(X | e) = Σ_{C \\ X} β_C     for the smallest clique C containing X

so all n posteriors cost about two passes over the cliques instead of n eliminations.

Everything that depends only on which variables are observed is compiled once and
cached on the network: the cliques, the tree and its schedule, each table's transposition
and the slot it multiplies into, and — since the tables do not change while the cache
lives — the part of every potential and of every upward message that no evidence
reaches. A call then slices the evidence tables, recomputes the collect pass only on
the cliques between them (the others' messages are cached), and distributes.

With a :class:`pandas.DataFrame` of evidence, potentials on the evidence side gain a
leading case axis, so N rows cost one pass (in chunks that respect the memory limit).

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> round(posteriors(net, {"Wet": "yes"})["Rain"].to_dict()["yes"], 4)
0.5294
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.inference import check_variables, evidence_codes, evidence_indices
from bbn.inference.elimination import check_memory, get_memory_limit
from bbn.inference.ordering import greedy_order
from bbn.network import Network

#: Total clique entries above which a second elimination order is searched for.
SEARCH_AGAIN_ABOVE = 1_000_000

#: Σ over a run of s axes in front of q kept entries is one product with a 0/1 matrix of
#: s·q × q entries when that matrix is at most this big (BLAS beats numpy's reduce there).
SMALL_MATRIX = 4096


@dataclass
class Sum:
    """Σ over some axes of a C-ordered array, as products with constant matrices.

    Consecutive axes that are all summed or all kept are merged; each summed run of s
    entries followed by q kept ones becomes ``x.reshape(-1, s·q) @ M`` (M a stack of
    identities), or a product with ones(s) when M would be large. numpy's own reduce
    loops over the innermost axis, which is short here, and is many times slower.
    """

    steps: list[tuple[int, int, np.ndarray]]


@dataclass
class Spread:
    """Multiply an array over some of a clique's variables into the clique potential.

    The operand (axes ``operand``, after any case axis) is transposed by ``perm`` into
    the clique's order and reshaped to ``shape``, which broadcasts against the clique
    potential viewed with shape ``target`` (runs of covered / uncovered axes merged).
    """

    operand: tuple[int, ...]
    perm: tuple[int, ...] | None
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
    parent: int = -1
    children: list[int] = field(default_factory=list)
    separator: int = 1  # S, the entries of the separator with the parent
    up: Sum | None = None  # clique → message to the parent (flat, separator order)
    into_parent: Spread | None = None  # that message into the parent's potential
    down: Sum | None = None  # parent → separator (in the parent's order)
    down_perm: tuple[int, ...] | None = None  # that separator into this clique's order
    down_shape: tuple[int, ...] = ()  # the separator's shape in the parent's order
    separator_shape: tuple[int, ...] = ()
    tables: list[Table] = field(default_factory=list)  # sliced by evidence at each call
    marginals: list[tuple[str, Sum]] = field(default_factory=list)
    dirty: bool = False  # some evidence table lies in this clique's subtree
    # Evidence-free parts, computed at compile time (flat arrays):
    static: np.ndarray | None = None  # ψ without evidence tables × messages of clean children
    message: np.ndarray | None = None  # normalised message up (clean cliques)
    divisor: np.ndarray | None = None  # the unnormalised message up, zeros replaced by 1

    @property
    def size(self) -> int:
        return math.prod(self.shape)


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


# ---------------------------------------------------------------- public API
def posteriors(net: Network, evidence=None):
    """P(X | e) for every variable X of the network.

    ``evidence`` is a dict ``{variable: state}`` (or None): the result is
    ``{variable: Factor}`` in declaration order, observed variables one-hot. A
    :class:`pandas.DataFrame` with one row per case (missing cells allowed) gives
    ``{variable: array of shape (N, |X|)}`` instead. Raises ImpossibleEvidenceError
    when P(e) = 0 (for a batch, naming the first such row), MemoryLimitError when the
    largest clique would exceed the memory limit.
    """
    if evidence is None or isinstance(evidence, Mapping):
        return _posteriors_one(net, dict(evidence or {}))
    if not hasattr(evidence, "columns"):
        raise QueryError("evidence must be a dict or a pandas DataFrame, not "
                         f"{type(evidence).__name__}")
    return _posteriors_batch(net, evidence)


def junction_tree(net: Network, observed: Sequence[str]) -> JunctionTree:
    """The compiled tree for this network and set of observed variables (cached)."""
    key = ("junction tree", tuple(sorted(observed)))
    tree = net._cache.get(key)
    if tree is None:
        tree = compile_tree(net, sorted(observed))
        net._cache[key] = tree
    return tree


def _posteriors_one(net: Network, evidence: dict) -> dict[str, Factor]:
    indices = evidence_indices(net, evidence)
    tree = junction_tree(net, list(indices))
    try:
        marginals = propagate(tree, indices)
    except _Impossible:
        raise ImpossibleEvidenceError(evidence) from None
    result = {}
    for v in net.variables:
        if v in indices:
            values = np.zeros(net.cardinality(v))
            values[indices[v]] = 1.0
        elif v in marginals:
            values = marginals[v]
        else:
            values = tree.fixed_marginals[v].copy()
        result[v] = Factor((v,), {v: net.states(v)}, values)
    return result


def _posteriors_batch(net: Network, frame) -> dict[str, np.ndarray]:
    check_variables(net, list(frame.columns), role="evidence")
    n = len(frame)
    result = {v: np.empty((n, net.cardinality(v))) for v in net.variables}
    if n == 0:
        return result
    observed = frame.notna().to_numpy().reshape(n, len(frame.columns))
    if observed.shape[1]:
        patterns, group = np.unique(observed, axis=0, return_inverse=True)
    else:
        patterns, group = observed[:1], np.zeros(n, dtype=int)
    impossible = []  # the first impossible row of each group of rows
    for g, pattern in enumerate(patterns):
        rows = np.flatnonzero(group.ravel() == g)
        columns = [c for c, seen in zip(frame.columns, pattern) if seen]
        codes = evidence_codes(net, frame.iloc[rows][columns])
        tree = junction_tree(net, columns)
        chunk = max(1, get_memory_limit() // (8 * max(tree.total_entries, 1)))
        for start in range(0, len(rows), chunk):
            part = rows[start:start + chunk]
            piece = {v: c[start:start + chunk] for v, c in codes.items()}
            check_memory(tree, len(part))
            try:
                marginals = propagate(tree, piece, cases=len(part))
            except _Impossible as error:
                impossible.append((part[error.row], columns))
                break
            for v in net.variables:
                if v in piece:
                    result[v][part] = np.eye(net.cardinality(v))[piece[v]]
                else:
                    result[v][part] = marginals.get(v, tree.fixed_marginals.get(v))
    if impossible:
        row, columns = min(impossible, key=lambda found: found[0])
        shown = {c: frame.iloc[row][c] for c in columns}
        raise ImpossibleEvidenceError(
            shown, f"impossible evidence in row {frame.index[row]!r}: "
            + ", ".join(f"{c}={s}" for c, s in shown.items())
            + " has probability 0 under this model")
    return result


# ------------------------------------------------------------------ compile
def compile_tree(net: Network, observed: Sequence[str]) -> JunctionTree:
    """Triangulate, build the tree, place the tables and solve the evidence-free parts."""
    observed_set = set(observed)
    for v in net.variables:
        net.cpt_array(v)  # a structure-only model fails here, naming the variable
    card = {v: net.cardinality(v) for v in net.variables}
    families = {v: net.parents(v) + (v,) for v in net.variables}
    adjacency = _interaction_graph(families.values(), observed_set)
    # The greedy order of the graph without evidence is computed once per network; on
    # the hidden variables it never builds a larger clique than it did there. A fresh
    # greedy order of the sliced graph is sometimes better, sometimes far worse (munin1:
    # a 1e9-entry clique instead of 8e7), so it is tried too, and the cheaper kept, when
    # the tree is big enough for propagation to outweigh a second search.
    full = net._cache.get("junction order")
    if full is None:
        graph = _interaction_graph(families.values(), set())
        full = net._cache["junction order"] = greedy_order(graph, card, list(graph))
    best = _tree_for([v for v in full if v not in observed_set], adjacency, card)
    if observed_set and best[0] > SEARCH_AGAIN_ABOVE:
        best = min(best, _tree_for(greedy_order(adjacency, card, list(adjacency)), adjacency,
                                   card), key=lambda candidate: candidate[0])
    _, position, members, edges, home = best
    cliques = [Clique(m, tuple(card[u] for u in m)) for m in members]
    tree = JunctionTree(observed=tuple(observed), cliques=cliques, constants=[], collect=[],
                        distribute=[], fixed_marginals={},
                        largest_table=max((c.size for c in cliques), default=1),
                        width=max((len(c.variables) for c in cliques), default=1) - 1,
                        total_entries=sum(c.size for c in cliques))
    check_memory(tree)

    static: list[list[Table]] = [[] for _ in cliques]
    for v, family in families.items():
        fixed = tuple(u for u in family if u in observed_set)
        free = [u for u in family if u not in observed_set]
        if not free:
            values = net.cpt_array(v).transpose([family.index(u) for u in fixed])
            tree.constants.append(Table(v, fixed, values))
            continue
        c = home[min(free, key=position.__getitem__)]
        (cliques[c].tables if fixed else static[c]).append(Table(v, fixed, np.empty(0)))
    roots = _orient(cliques, edges)
    for clique in cliques:
        _lay_out(clique, cliques, card, position)
    for clique in cliques:
        if clique.parent >= 0:
            _plan_messages(clique, cliques, card)
    for c, clique in enumerate(cliques):
        for table in clique.tables + static[c]:
            family = families[table.variable]
            free = sorted((u for u in family if u not in observed_set),
                          key=clique.variables.index)
            order = [family.index(u) for u in table.fixed + tuple(free)]
            table.values = np.ascontiguousarray(net.cpt_array(table.variable).transpose(order))
            table.spread = _spread(clique, free, free, card)
    smallest: dict[str, int] = {}  # each posterior is read from the smallest clique holding it
    for i, clique in enumerate(cliques):
        for v in clique.variables:
            if v not in smallest or clique.size < cliques[smallest[v]].size:
                smallest[v] = i
    for v, c in smallest.items():
        clique = cliques[c]
        clique.marginals.append((v, _sum(clique.shape, {i for i, u in enumerate(clique.variables)
                                                        if u != v})))

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
            potential = np.ones(clique.size)
            for table in static[c]:
                potential = _times(potential, table.values, table.spread)
            for k in clique.children:
                child = cliques[k]
                if not child.dirty:
                    potential = _times(potential, child.message, child.into_parent)
            clique.static = potential
            if clique.parent >= 0 and not clique.dirty:
                clique.message, clique.divisor = _message(clique, potential)
    # Components without evidence are solved now: their posteriors are the priors.
    tree.fixed_marginals = _distribute(tree, clean_order, {}, {})
    for c in clean_order:
        cliques[c].static = None  # never read again
    return tree


def _tree_for(order: list[str], adjacency: Mapping[str, set[str]], card: Mapping[str, int]):
    """(total clique entries, position, cliques, edges, home) for an elimination order."""
    position = {v: i for i, v in enumerate(order)}
    members, edges, home = _elimination_tree(adjacency, order, position)
    return sum(math.prod(card[u] for u in m) for m in members), position, members, edges, home


def _interaction_graph(families, observed: set[str]) -> dict[str, set[str]]:
    """Hidden variables, each linked to those it shares a table with after slicing."""
    adjacency: dict[str, set[str]] = {}
    for family in families:
        free = [u for u in family if u not in observed]
        for u in free:
            adjacency.setdefault(u, set()).update(w for w in free if w != u)
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
    neighbours: dict[str, set[str]] = {}
    children: dict[str, list[str]] = {v: [] for v in order}
    up: dict[str, str] = {}
    rep: dict[str, str] = {}
    members: dict[str, tuple[str, ...]] = {}
    for v in order:
        n = graph.pop(v)
        for a in n:
            graph[a].discard(v)
            graph[a].update(b for b in n if b != a)
        neighbours[v] = n
        host = next((rep[w] for w in children[v] if len(neighbours[w]) == len(n) + 1), None)
        if host is None:
            rep[v] = v
            members[v] = tuple(sorted(n | {v}, key=position.__getitem__))
        else:
            rep[v] = host
        if n:
            u = min(n, key=position.__getitem__)
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
             position: Mapping[str, int]) -> None:
    """Order a clique's axes: its own variables, then the separator with its parent,
    each by elimination position; plan the sum that makes the message up."""
    if clique.parent < 0:
        return
    parent = cliques[clique.parent]
    separator = sorted(set(clique.variables) & set(parent.variables), key=position.__getitem__)
    own = [u for u in clique.variables if u not in separator]
    clique.variables = tuple(own + separator)
    clique.shape = tuple(card[u] for u in clique.variables)
    clique.separator_shape = tuple(card[u] for u in separator)
    clique.separator = math.prod(clique.separator_shape)
    clique.up = _sum(clique.shape, set(range(len(own))))


def _plan_messages(clique: Clique, cliques: list[Clique], card: Mapping[str, int]) -> None:
    """The parent side of the messages: needs the parent's final axis order."""
    parent = cliques[clique.parent]
    separator = clique.variables[len(clique.variables) - len(clique.separator_shape):]
    clique.into_parent = _spread(parent, list(separator), list(separator), card, flat=True)
    in_parent = [u for u in parent.variables if u in separator]
    clique.down = _sum(parent.shape, {i for i, u in enumerate(parent.variables)
                                      if u not in separator})
    perm = tuple(in_parent.index(u) for u in separator)
    clique.down_perm = None if perm == tuple(range(len(perm))) else perm
    clique.down_shape = tuple(card[u] for u in in_parent)


def _sum(shape: Sequence[int], summed: set[int]) -> Sum:
    runs: list[list] = []  # [entries, summed?] of consecutive axes alike
    for i, n in enumerate(shape):
        if runs and runs[-1][1] == (i in summed):
            runs[-1][0] *= n
        else:
            runs.append([n, i in summed])
    steps = []
    kept = 1
    for entries, is_summed in reversed(runs):
        if not is_summed:
            kept *= entries
        elif entries > 1:
            steps.append((entries, kept, _summing_matrix(entries, kept)))
    return Sum(steps)


def _summing_matrix(s: int, q: int) -> np.ndarray:
    if q > 1 and s * q * q <= SMALL_MATRIX:
        return np.tile(np.eye(q), (s, 1))
    return np.ones(s)


def _spread(clique: Clique, operand: list[str], covered: list[str], card,
            flat: bool = False) -> Spread:
    """How an array with axes ``operand`` (raveled when ``flat``) broadcasts into
    ``clique``."""
    in_clique = [u for u in clique.variables if u in covered]
    perm = tuple(operand.index(u) for u in in_clique)
    shape: list[int] = []
    target: list[int] = []
    previous = None
    for u, n in zip(clique.variables, clique.shape):
        inside = u in covered
        if previous is not None and previous == inside:
            target[-1] *= n
            if inside:
                shape[-1] *= n
        else:
            target.append(n)
            shape.append(n if inside else 1)
        previous = inside
    return Spread(tuple(card[u] for u in operand),
                  None if perm == tuple(range(len(perm))) else perm,
                  tuple(shape), tuple(target), 1 if flat else len(operand))


# -------------------------------------------------------------- propagation
class _Impossible(Exception):
    """P(e) = 0 (for a batch, first in case ``row``)."""

    def __init__(self, row: int = 0):
        self.row = row


def propagate(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
              cases: int | None = None) -> dict[str, np.ndarray]:
    """Collect and distribute with the evidence state indices: the posteriors of the
    unobserved variables of the components that hold evidence.

    ``cases`` = N means each evidence value is an array of N indices, and every
    posterior gets a leading axis of N rows.
    """
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
            potential = _times(potential, values, table.spread, owned)
            owned = True
        for k in clique.children:
            child = cliques[k]
            if child.dirty:
                potential = _times(potential, messages[k][0], child.into_parent, owned)
                owned = True
        potentials[c] = potential
        if clique.parent >= 0:
            messages[c] = _message(clique, potential, bad)
    result = _distribute(tree, tree.distribute, potentials, messages, bad)
    if bad is not None and bad.any():
        raise _Impossible(int(np.flatnonzero(bad)[0]))
    return result


def _times(potential: np.ndarray, operand: np.ndarray, spread: Spread,
           in_place: bool = True) -> np.ndarray:
    """potential × operand spread over the clique (flat, with a case axis if either has)."""
    lead = operand.shape[:operand.ndim - spread.rank]
    if spread.perm is not None:
        operand = operand.reshape(lead + spread.operand).transpose(
            tuple(range(len(lead))) + tuple(p + len(lead) for p in spread.perm))
    operand = operand.reshape(lead + spread.shape)
    own_lead = potential.shape[:-1]
    view = potential.reshape(own_lead + spread.target)
    if in_place and len(own_lead) >= len(lead):
        view *= operand
        return potential
    product = view * operand
    return product.reshape(product.shape[:product.ndim - len(spread.target)] + (-1,))


def _reduce(array: np.ndarray, plan: Sum) -> np.ndarray:
    """Apply a :class:`Sum` to a flat array (or rows of flat arrays)."""
    lead = array.shape[:-1]
    for s, q, matrix in plan.steps:
        if matrix.ndim == 2:
            array = array.reshape(-1, s * q) @ matrix
        elif q == 1:
            array = array.reshape(-1, s) @ matrix
        else:
            array = np.matmul(matrix, array.reshape(-1, s, q))
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
    zero = ~(total > 0)
    if zero.any():
        if bad is None or total.ndim == 1:
            raise _Impossible()
        bad |= zero[:, 0]
        total = np.where(zero, 1.0, total)
    return total


def _distribute(tree: JunctionTree, order: list[int], collected: Mapping[int, np.ndarray],
                messages: Mapping[int, tuple[np.ndarray, np.ndarray]],
                bad: np.ndarray | None = None) -> dict[str, np.ndarray]:
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
                potential = clique.static
            belief = potential / _check_total(potential, bad)
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
                belief = (potential.reshape(-1, clique.separator) * shaped).reshape(lead + (-1,))
        for k in clique.children:
            child = cliques[k]
            divisor = messages[k][1] if child.dirty else child.divisor
            separator = _reduce(belief, child.down)
            if child.down_perm is not None:
                lead = separator.shape[:-1]
                separator = separator.reshape(lead + child.down_shape).transpose(
                    tuple(range(len(lead))) + tuple(p + len(lead) for p in child.down_perm))
                separator = separator.reshape(lead + (-1,))
            ratios[k] = separator / divisor
        for v, plan in clique.marginals:
            marginal = _reduce(belief, plan)
            result[v] = marginal / _check_total(marginal, bad)
    return result

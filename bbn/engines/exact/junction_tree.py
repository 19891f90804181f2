"""Every posterior at once: a junction tree, compiled per set of observed variables.

The cliques C_v = {v} ∪ N(v) met while eliminating the unobserved variables form a
junction tree (built in :mod:`bbn.engines.exact.clique_building`); the network's tables,
sliced by the evidence, are multiplied into them, giving potentials ψ_C with Π_C ψ_C = P(X, e).
Two passes (Hugin, :mod:`bbn.engines.exact.propagation`) then make every clique's belief
its posterior::

    collect (leaves → root):     μ_{c→p}(S) = Σ_{C_c \\ S} ψ_c Π_{k child of c} μ_{k→c}
    distribute (root → leaves):  β_c = ψ_c Π_k μ_{k→c} · P(S | e) / μ_{c→p}(S)
    P(X | e) = Σ_{C \\ X} β_C     for the smallest clique or separator C holding X

so all n posteriors cost about two passes over the cliques instead of n eliminations.

Everything that depends only on which variables are observed is compiled once and
kept by the network's engine (:meth:`bbn.Engine.junction_tree`): the cliques, the
tree and its schedule, each table's transposition and the slot it multiplies into, and —
since the tables of one engine never change — the part of every potential and of every
upward message that no evidence reaches. A call then slices the evidence tables,
recomputes the collect pass only on the cliques between them (the others' messages are
cached), and distributes.

With a :class:`pandas.DataFrame` of evidence, potentials on the evidence side gain a
leading case axis, so N rows cost one pass (in chunks that respect the memory limit).

When the hidden variables have few joint states, the tree is a single clique holding
them all, their joint table (:mod:`bbn.engines.exact.joint_table`): one product and one sum
per variable, which on a handful of variables beats building any tree in Python.

The parts live in their own modules, each importing only the ones before it:
:mod:`bbn.engines.exact.cliques` (the data types), :mod:`bbn.engines.exact.clique_building`
(building a tree from an elimination order), :mod:`bbn.engines.exact.propagation` (collect
and distribute, and solving the evidence-free parts) and
:mod:`bbn.engines.exact.joint_table` (tiny networks), with :mod:`bbn.engines.exact.summing`
(the summing plans) below them all. This one holds the public API; it never calls the
engine: the engine hands it what it keeps (:class:`TreeSource`).

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> round(net.posteriors({"Wet": "yes"})["Rain"].to_dict()["yes"], 4)
0.5294
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

import bbn.engines.exact.joint_table as joint_table
from bbn.core.codes import distinct_rows, observed_groups
from bbn.core.errors import ImpossibleEvidenceError, MemoryLimitError, QueryError
from bbn.core.factor import Factor
from bbn.core.memory import ENTRY_BYTES, get_memory_limit
from bbn.engines.exact.clique_building import build_cliques
from bbn.engines.exact.cliques import JunctionTree
from bbn.engines.exact.elimination import Cost, check_memory
from bbn.engines.exact.joint_table import compile_joint, joint_posteriors
from bbn.engines.exact.propagation import ZeroProbability, collect_and_distribute, solve
from bbn.engines.protocol import impossible_case

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork

class TreeSource(NamedTuple):
    """What the junction trees of one network are made from and fall back on, as the
    engine that keeps them hands it over (the functions here never call the engine).

    ``normalised`` and ``order`` give the row-normalised tables and the junction order
    (each computed once by the engine; the order only when a tree has cliques); ``kept``
    the tree kept for a set of observed variables (MemoryLimitError when it does not
    fit); ``eliminate(variables, codes)`` P(variables | e_i) by batched elimination, NaN
    rows where P(e_i) = 0, which answers when a sum in a propagation is too small to
    trust.
    """

    network: CompiledNetwork
    normalised: Callable[[], Mapping[str, tuple]]
    order: Callable[[], Sequence[str]]
    kept: Callable[[Sequence[str]], JunctionTree]
    eliminate: Callable[[Sequence[str], Mapping[str, np.ndarray]], np.ndarray]


def posteriors_one(source: TreeSource, indices: Mapping[str, int],
                   given: Mapping | None = None,
                   slices: Mapping[str, np.ndarray] | None = None) -> dict[str, Factor]:
    """P(X | e) for every variable X of the source's network (no Gaussian leaves), as
    ``{variable: Factor}`` in declaration order, observed variables one-hot; ``indices``
    is the evidence as state indices, ``given`` as written (what an error shows; by
    default the states' names); ``slices`` the slices of the tables of some observed
    variables, given in place of the network's (virtual children whose numbers come
    with the question: ``source.eliminate`` weighs them in too).

    Raises ImpossibleEvidenceError when P(e) = 0, MemoryLimitError when the tree's peak
    (every potential, the call's arrays, a belief) would exceed the memory limit.
    """
    network = source.network
    try:
        tree: JunctionTree | None = source.kept(list(indices))
    except MemoryLimitError:
        tree = None  # a tree kept for later calls does not fit: one for this call might
    try:
        if tree is None:
            # Not kept: every evidence table sliced into the evidence-free part, no
            # arrays for later calls (Pedigree_11: 0.87 GiB where a kept tree needs 1.1).
            known = indices if slices is None else {
                v: i for v, i in indices.items() if v not in slices}
            tree = compile_tree(network, list(indices), source.normalised(), source.order,
                                known=known)
        marginals = propagate(tree, indices, slices=slices)
    except ZeroProbability:  # P(e) = 0, or a sum too small to trust: eliminate in logs
        hidden = [v for v in network.variables if v not in indices]
        marginals = {v: p[0] for v, p in by_elimination(
            source, hidden, {u: np.array([i]) for u, i in indices.items()}).items()}
        if not hidden or np.isnan(marginals[hidden[0]][0]):  # only constants: P(e) = 0
            if given is None:
                given = {v: network.states[v][i] for v, i in indices.items()}
            raise ImpossibleEvidenceError(dict(given)) from None
    result = {}
    for v in network.variables:
        states = network.states[v]
        if v in indices:
            values = np.zeros(len(states))
            values[indices[v]] = 1.0
        elif v in marginals:
            values = marginals[v]
        else:  # the fallback above answers every hidden variable: tree is set here
            values = tree.fixed_marginals[v].copy()  # type: ignore[union-attr]
        result[v] = Factor((v,), {v: states}, values)
    return result


def by_elimination(source: TreeSource, hidden: Sequence[str],
                   codes: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """P(X | e_i) for each X in ``hidden`` and the cases ``codes`` (state indices), one
    batched elimination per variable (``source.eliminate``: in logs where underflow
    threatens, see :func:`bbn.engines.exact.elimination.evaluate`); NaN rows where
    P(e_i) = 0.

    What a propagation falls back to when a sum in it is below TRUSTED (1e-200): 0, or
    too small for the products in the cliques to be trusted.
    """
    return {v: source.eliminate([v], codes) for v in hidden}


def marginals_of_cases(source: TreeSource, codes: Mapping[str, np.ndarray], row_names=None,
                       cases: int | None = None,
                       impossible: str = "raise") -> dict[str, np.ndarray]:
    """P(X | e_i) for every variable X and N cases given as state indices (columns
    already checked: see :meth:`bbn.Engine.marginals_of_cases`) in the source's network.

    ``codes`` is ``{variable: (N,) ints}``, −1 where a case does not observe it (``cases``
    gives N when there are no columns). Cases are grouped by which variables they
    observe and, within a group, by their distinct evidence; each group of distinct
    cases is one batched propagation. Returns ``{variable: (N, |X|) array}``. A case with
    P(e_i) = 0 raises ImpossibleEvidenceError (``impossible="raise"``) or gets NaN rows
    (``impossible="nan"``).
    """
    network = source.network
    card = network.cardinality
    columns = list(codes)
    if columns:
        matrix = np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
    elif cases is not None:
        matrix = np.zeros((cases, 0), dtype=np.intp)
    else:
        raise QueryError("marginals_of_cases needs an evidence column or the number of cases")
    n = len(matrix)
    result = {v: np.empty((n, card[v])) for v in network.variables}
    if n == 0:
        return result
    impossible_rows = []  # (row, observed columns): the first impossible row of each group
    for rows, pattern in observed_groups(matrix >= 0):
        observed = [c for c, seen in zip(columns, pattern) if seen]
        for j, c in enumerate(columns):
            if pattern[j] and c in result:  # not a Markov network's factor node
                result[c][rows] = np.eye(card[c])[matrix[rows, j]]
        # Rows repeat (a few observed variables have few joint states): propagate each
        # distinct case once, in chunks that keep the batch within the memory limit.
        distinct, inverse = distinct_rows(matrix[np.ix_(rows, pattern)])
        tree = source.kept(observed)
        hidden = [v for v in network.variables if v not in observed]
        answers = {v: np.empty((len(distinct), card[v])) for v in hidden}
        zero = np.zeros(len(distinct), dtype=bool)  # P(e) = 0
        room = get_memory_limit() // ENTRY_BYTES - tree.cost.fixed
        chunk = max(1, room // max(tree.cost.per_case, 1))
        for start in range(0, len(distinct), chunk):
            part = distinct[start:start + chunk]
            check_memory(tree.cost, len(part))
            flagged = np.zeros(0, dtype=np.intp)
            try:
                with np.errstate(invalid="ignore", divide="ignore"):  # impossible cases: 0/0
                    marginals = propagate(tree, dict(zip(observed, part.T)), cases=len(part))
            except ZeroProbability as error:  # P(e) = 0 or too small: eliminate in logs
                flagged = np.flatnonzero(error.rows)
                marginals = error.result
            for v in hidden:
                answers[v][start:start + chunk] = marginals.get(v, tree.fixed_marginals.get(v))
            if len(flagged):
                redone = by_elimination(source, hidden, dict(zip(observed, part[flagged].T)))
                for v in hidden:
                    answers[v][start + flagged] = redone[v]
                zero[start + flagged] = (np.isnan(redone[hidden[0]][:, 0]) if hidden
                                         else True)
            if zero.any() and impossible == "raise":
                impossible_rows.append((int(rows[np.isin(inverse, np.flatnonzero(zero))].min()),
                                        observed))
                break
        for v in hidden:
            result[v][rows] = answers[v][inverse]
        if zero.any():
            for v in observed:  # no answer at all for an impossible case
                if v in result:
                    result[v][rows[zero[inverse.ravel()]]] = np.nan
    if impossible_rows:
        row, observed = min(impossible_rows)
        raise impossible_case({c: network.states[c][int(matrix[row, columns.index(c)])]
                               for c in observed}, row, row_names)
    return result


def compile_tree(network: CompiledNetwork, observed: Sequence[str],
                 normalised: Mapping[str, tuple], order: Callable[[], Sequence[str]],
                 room: Callable[[Cost], int] | None = None,
                 known: Mapping[str, int] | None = None) -> JunctionTree:
    """Triangulate, build the tree, place the tables and solve the evidence-free parts
    (for few hidden joint states, a tree whose :class:`~bbn.engines.exact.cliques.Joint`
    is the whole joint: the switch is ``bbn.engines.exact.joint_table.DENSE_UP_TO``).
    ``normalised`` is the network's row-normalised tables and ``order()`` its junction
    order (asked for only when the tree has cliques); ``room``, given the tree's cost
    before anything is allocated, makes room for it and returns the entries still kept by
    other trees, which count against the memory limit; ``known``: the observed states
    sliced in now (see :func:`compile_cliques`)."""
    observed_set = set(observed)
    card = network.cardinality
    hidden = [v for v in network.variables if v not in observed_set]
    if math.prod(map(card.__getitem__, hidden)) <= joint_table.DENSE_UP_TO:
        return compile_joint(network, observed, hidden, normalised, room)
    if known is not None:
        known = {**network.constraints, **known}
    return compile_cliques(network, observed, order(), normalised, room, known)


def compile_cliques(network: CompiledNetwork, observed: Sequence[str], order: Sequence[str],
                    normalised: Mapping[str, tuple], room: Callable[[Cost], int] | None = None,
                    known: Mapping[str, int] | None = None) -> JunctionTree:
    """A tree of cliques, built (:func:`~bbn.engines.exact.clique_building.build_cliques`,
    whose arguments these are) and its evidence-free parts solved
    (:func:`~bbn.engines.exact.propagation.solve`).

    ``known`` gives observed variables whose state is known now: their tables are sliced
    into the evidence-free part (default: the network's ``constraints``, observed at the
    same state in every question). A tree compiled with every observed state known
    answers one question only, but is solved here: its posteriors are
    ``fixed_marginals``, and it keeps no arrays for later calls.

    >>> import bbn
    >>> from bbn.engines.exact.clique_building import junction_order, normalised_tables
    >>> net = bbn.Network("chain")
    >>> net.add_variable("A", ["a0", "a1"], table=[0.5, 0.5])
    >>> net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    >>> network = net.compiled()
    >>> order = junction_order(network.parents, network.cardinality)
    >>> tree = compile_cliques(network, [], order, normalised_tables(network.tables))
    >>> tree.fixed_marginals["B"].round(2).tolist()
    [0.55, 0.45]
    """
    built = build_cliques(network, observed, order, normalised, room, known)
    try:
        return solve(built)
    except ZeroProbability:
        if not built.folded or known is not None:
            raise
        # Z = 0 (or a sum too small to trust) with the factor nodes alone: leave them to
        # each call, whose ZeroProbability the caller answers by elimination in logs.
        return compile_cliques(network, observed, order, normalised, room, known={})


def propagate(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
              cases: int | None = None,
              slices: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Collect and distribute with the evidence state indices: the posteriors of the
    unobserved variables of the components that hold evidence.

    ``cases`` = N means each evidence value is an array of N indices, and every
    posterior gets a leading axis of N rows. ``slices``: ``{observed variable: its
    table's slice}`` in place of the tree's (one case).
    """
    if tree.joint is not None:
        return joint_posteriors(tree, evidence, cases, slices)
    if cases is None and tree.lock.acquire(blocking=False):
        try:
            return collect_and_distribute(tree, evidence, None, tree.work, tree.scratch,
                                          slices)
        finally:
            tree.lock.release()
    return collect_and_distribute(tree, evidence, cases, {}, None, slices)

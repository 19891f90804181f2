"""Every posterior at once: a junction tree, compiled per set of observed variables.

The cliques C_v = {v} ∪ N(v) met while eliminating the unobserved variables form a
junction tree (built in :mod:`bbn.inference.clique_tree`); the network's tables, sliced by
the evidence, are multiplied into them, giving potentials ψ_C with Π_C ψ_C = P(X, e).
Two passes (Hugin, :mod:`bbn.inference.propagation`) then make every clique's belief its
posterior::

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

When the hidden variables have few joint states, the tree is a single clique holding
them all, their joint table (:mod:`bbn.inference.joint_table`): one product and one sum
per variable, which on a handful of variables beats building any tree in Python.

The parts live in their own modules: :mod:`bbn.inference.clique_tree` (the compiled
form and how it is built), :mod:`bbn.inference.summing` (the summing plans),
:mod:`bbn.inference.propagation` (collect and distribute) and
:mod:`bbn.inference.joint_table` (tiny networks). This one holds the public API.

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> round(posteriors(net, {"Wet": "yes"})["Rain"].to_dict()["yes"], 4)
0.5294
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from bbn.codes import distinct_rows, observed_groups
from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.inference import continuous, joint_table
from bbn.inference.clique_tree import JunctionTree, compile_cliques, read_network
from bbn.inference.continuous import gaussian_variables
from bbn.inference.elimination import Cost, check_memory, fits
from bbn.inference.evidence import (
    check_impossible,
    check_variables,
    evidence_codes,
    evidence_indices,
    impossible_row,
    warn_impossible,
)
from bbn.inference.joint_table import compile_joint, joint_posteriors
from bbn.inference.propagation import ZeroProbability, collect_and_distribute
from bbn.memory import ENTRY_BYTES, get_memory_limit
from bbn.network import Network


def posteriors(net: Network, evidence=None, impossible: str = "raise"):
    """P(X | e) for every variable X of the network.

    ``evidence`` is a dict ``{variable: state}`` (or None): the result is
    ``{variable: Factor}`` in declaration order, observed variables one-hot. A
    :class:`pandas.DataFrame` with one row per case (missing cells allowed) gives
    ``{variable: array of shape (N, |X|)}`` instead. Raises ImpossibleEvidenceError
    when P(e) = 0 (for a batch, naming the first such row; with ``impossible="nan"``
    such rows are NaN instead, and a warning counts them), MemoryLimitError when the
    tree's peak (every potential, the call's arrays, a belief) would exceed the memory
    limit. A network with Gaussian leaves is
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
    check_impossible(impossible)
    if batch:
        result = _posteriors_batch(net, evidence, impossible)
        warn_impossible(next(iter(result.values())), stacklevel=5)
        return result
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

    def room(cost: Cost) -> int:
        """Entries the cached trees keep once the oldest are dropped, as long as the new
        tree's peak and theirs would exceed the limit together."""
        held = sum(t.cached_bytes for t in trees.values()) // ENTRY_BYTES
        while trees and not fits(cost, held=held):
            held -= trees.popitem(last=False)[1].cached_bytes // ENTRY_BYTES
        return held

    tree = trees[key] = compile_tree(net, list(key), room)
    while len(trees) > 1 and sum(t.cached_bytes for t in trees.values()) > get_memory_limit():
        trees.popitem(last=False)
    return tree


def _posteriors_one(net: Network, evidence: dict) -> dict[str, Factor]:
    indices = evidence_indices(net, evidence)
    tree = junction_tree(net, list(indices))
    try:
        marginals = propagate(tree, indices)
    except ZeroProbability:  # P(e) = 0, or a sum too small to trust: eliminate in logs
        hidden = [v for v in net.variables if v not in indices]
        marginals = {v: p[0] for v, p in by_elimination(
            net, hidden, {u: np.array([i]) for u, i in indices.items()}).items()}
        if not hidden or np.isnan(marginals[hidden[0]][0]):  # only constants: P(e) = 0
            raise ImpossibleEvidenceError(evidence) from None
    result = {}
    for v, data in net.nodes():  # the node data: no lookup per variable
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


def by_elimination(net: Network, hidden: Sequence[str],
                   codes: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """P(X | e_i) for each X in ``hidden`` and the cases ``codes`` (state indices), one
    batched elimination per variable (in logs where underflow threatens, see
    :func:`bbn.inference.elimination.evaluate`); NaN rows where P(e_i) = 0.

    What a propagation falls back to when a sum in it is below TRUSTED (1e-200): 0, or
    too small for the products in the cliques to be trusted.
    """
    from bbn.inference import posterior_codes
    return {v: posterior_codes(net, [v], codes, impossible="nan") for v in hidden}


def _posteriors_batch(net: Network, frame, impossible: str = "raise") -> dict[str, np.ndarray]:
    return posteriors_codes(net, evidence_codes(net, frame), frame.index, len(frame),
                            impossible)


def posteriors_codes(net: Network, codes: Mapping[str, np.ndarray], row_names=None,
                     cases: int | None = None, impossible: str = "raise") -> dict[str, np.ndarray]:
    """P(X | e_i) for every variable X and N cases given as state indices.

    ``codes`` is ``{variable: (N,) ints}``, −1 where a case does not observe it (``cases``
    gives N when there are no columns). Cases are grouped by which variables they
    observe and, within a group, by their distinct evidence; each group of distinct
    cases is one batched propagation. Returns ``{variable: (N, |X|) array}``. A case with
    P(e_i) = 0 raises ImpossibleEvidenceError (``impossible="raise"``) or gets NaN rows
    (``impossible="nan"``).
    """
    check_impossible(impossible)
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
    impossible_rows = []  # (row, observed columns): the first impossible row of each group
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
                redone = by_elimination(net, hidden, dict(zip(observed, part[flagged].T)))
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
                result[v][rows[zero[inverse.ravel()]]] = np.nan
    if impossible_rows:
        row, observed = min(impossible_rows)
        raise impossible_row(net, matrix, columns, observed, row, row_names)
    return result


def compile_tree(net: Network, observed: Sequence[str],
                 room: Callable[[Cost], int] | None = None) -> JunctionTree:
    """Triangulate, build the tree, place the tables and solve the evidence-free parts
    (for few hidden joint states, a tree whose :class:`~bbn.inference.joint_table.Joint`
    is the whole joint: the switch is ``bbn.inference.joint_table.DENSE_UP_TO``). ``room``,
    given the tree's cost before anything is allocated, makes room for it and returns
    the entries still kept by other trees, which count against the memory limit."""
    observed_set = set(observed)
    parents, card, tables = read_network(net)
    hidden = [v for v in parents if v not in observed_set]
    if math.prod(map(card.__getitem__, hidden)) <= joint_table.DENSE_UP_TO:
        return compile_joint(net, observed, hidden, parents, card, tables, room)
    return compile_cliques(net, observed, parents, card, tables, room)


def propagate(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
              cases: int | None = None) -> dict[str, np.ndarray]:
    """Collect and distribute with the evidence state indices: the posteriors of the
    unobserved variables of the components that hold evidence.

    ``cases`` = N means each evidence value is an array of N indices, and every
    posterior gets a leading axis of N rows.
    """
    if tree.joint is not None:
        return joint_posteriors(tree, evidence, cases)
    if cases is None and tree.lock.acquire(blocking=False):
        try:
            return collect_and_distribute(tree, evidence, None, tree.work, tree.scratch)
        finally:
            tree.lock.release()
    return collect_and_distribute(tree, evidence, cases, {}, None)

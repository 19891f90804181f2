"""Expected family counts of many incomplete cases: one batched junction-tree calibration.

EM's E-step needs, for every family F_X = (Pa(X), X) and every case r with observed
values o_r, the posterior P(F_X | o_r; θ) summed over the cases with their weights w_r,

    n̄_X(f) = Σ_r w_r · P(F_X = f | o_r; θ),

and the observed-data log-likelihood Σ_r w_r · log P(o_r; θ). Each case is evidence
given as a *likelihood* per variable: λ_X(x) = [x = o_X] where X is seen, 1 where it is
not; the joint of the case is Π_X P(X | Pa(X)) · λ_X(X).

One junction tree serves every case (its cliques do not depend on which variables a
case sees). Its clique potentials carry a trailing axis of cases, and one collect and
distribute pass (Hugin) calibrates them all at once:

* collect, leaves first: μ_{c→p} = Σ_{C_c ∖ S} ψ_c · Π_k μ_{k→c}, each message divided
  by its sum s per case, so that log P(o_r) = Σ log s + log Z_root;
* distribute, root first: β_c = ψ_c · Π_k μ_{k→c} · β_p(S) / μ_{c→p}, normalised per
  case;
* counts: the cases' weighted sum of each clique's belief, then summed down to each
  family that lives in it (every family lies in the clique where its first-eliminated
  member was eliminated).

The cases go in batches sized by the memory limit, into one buffer per clique reused by
every batch; the work per batch is a few numpy operations per clique, whatever the
number of cases or missing-value patterns. With the cases last, every product and sum
runs along a contiguous axis whichever clique axes it touches, and a separator's
marginal is one sparse 0/1 product.

>>> import bbn, numpy as np
>>> net = bbn.Network()
>>> net.add_variable("A", ["a0", "a1"], table=[0.6, 0.4])
>>> net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> plan = CountingPlan(net.compiled())
>>> counts, log_p = plan.expected_counts(
...     plan.network.tables, {"A": np.array([-1]), "B": np.array([1])}, np.ones(1))
>>> counts["B"].round(4).tolist()        # P(A | B=b1) = (0.06, 0.32) / 0.38
[[0.0, 0.1579], [0.0, 0.8421]]
>>> round(float(np.exp(log_p[0])), 4)    # P(B=b1)
0.38
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sparse

from bbn.core.memory import ENTRY_BYTES, check_allocation, get_memory_limit
from bbn.engines.exact.clique_building import elimination_tree, junction_order
from bbn.engines.exact.ordering import interaction_graph
from bbn.views.compiled import CompiledNetwork

#: Cases per batch aim at this many clique entries at once (cache-sized work).
BATCH_ENTRIES = 1 << 22


class CountingPlan:
    """A junction tree of a discrete network laid out for batched calibration.

    Built once per structure; :meth:`expected_counts` takes the tables of the current
    iteration, so EM does not rebuild anything between iterations.

    Parameters
    ----------
    network : CompiledNetwork
        The view whose structure (parents, cardinalities) the tree is built for; its
        Gaussian leaves are left out.

    Examples
    --------
    >>> import bbn
    >>> plan = CountingPlan(bbn.load("models/chair.bn").compiled())
    >>> plan.cliques, plan.parent       # the last clique is the root
    ([('B', 'A'), ('C', 'W'), ('S', 'C', 'B')], [2, 2, -1])
    """

    def __init__(self, network: CompiledNetwork) -> None:
        network = network.discrete_part()
        self.network = network
        card = network.cardinality
        self.variables = list(network.variables)
        order = junction_order(network.parents, card)
        families = [network.parents[v] + (v,) for v in self.variables]
        adjacency = interaction_graph(families)
        for v in self.variables:
            adjacency.setdefault(v, set())
        order = [*order, *(v for v in self.variables if v not in order)]
        position = {v: i for i, v in enumerate(order)}
        members, edges, home = elimination_tree(adjacency, order, position)
        # Latest-eliminated first: a clique's separator with its parent then leads its
        # axes and the variables a message sums out trail them (one contiguous sum).
        members = [tuple(sorted(m, key=position.__getitem__, reverse=True)) for m in members]
        self.cliques: list[tuple[str, ...]] = members
        self.shapes = [tuple(card[u] for u in m) for m in members]
        self.sizes = [math.prod(s) for s in self.shapes]
        parent = [-1] * len(members)
        for child, up in edges:
            parent[child] = up
        self.parent = parent
        children: list[list[int]] = [[] for _ in members]
        for c, p in enumerate(parent):
            if p >= 0:
                children[p].append(c)
        self.children = children
        self.down = [c for root in range(len(members)) if parent[root] < 0
                     for c in _preorder(children, root)]
        # Where each family's table and each variable's likelihood enter, and how they
        # broadcast over the clique's axes (a case axis in front).
        self.family_home = {}
        for v, family in zip(self.variables, families, strict=True):
            first = min(family, key=position.__getitem__)
            self.family_home[v] = home[first]
        self.tables_into: list[list[tuple[str, tuple[int, ...], tuple[int, ...]]]] = [
            [] for _ in members]
        for v, family in zip(self.variables, families, strict=True):
            c = self.family_home[v]
            self.tables_into[c].append((v, *_placing(family, members[c], card)))
        self.likelihood_into: list[list[tuple[str, tuple[int, ...]]]] = [[] for _ in members]
        for v in self.variables:
            c = home[v]
            shape = [1] * len(members[c]) + [-1]
            shape[members[c].index(v)] = card[v]
            self.likelihood_into[c].append((v, tuple(shape)))
        # Messages: the separator's shape in the parent, and the sparse 0/1 matrix that
        # sums the parent's belief down to the separator (None: the separator is all of it;
        # numpy's sums over scattered axes are several times slower, BLAS spawns threads).
        self.in_parent: list[tuple[int, ...]] = [()] * len(members)
        self.separator_size: list[int] = [1] * len(members)
        self.summing: list[sparse.csr_array | None] = [None] * len(members)
        for c, p in enumerate(parent):
            if p < 0:
                continue
            # Members are in (reversed) elimination order, so the separator's axes come in
            # the same order in the child and in the parent, and first in the child.
            separator = [u for u in members[c] if u in members[p]]
            assert list(members[c][:len(separator)]) == separator
            self.separator_size[c] = math.prod(card[u] for u in separator)
            self.in_parent[c] = tuple(card[u] if u in separator else 1
                                      for u in members[p]) + (-1,)
            if len(separator) < len(members[p]):
                self.summing[c] = _projection(self.shapes[p], [
                    i for i, u in enumerate(members[p]) if u in separator])
        self.entries_per_case = 2 * sum(self.sizes)

    def expected_counts(self, tables: Mapping[str, np.ndarray],
                        evidence: Mapping[str, np.ndarray],
                        weights: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The weighted expected family counts and each case's log P(o_r).

        Parameters
        ----------
        tables : mapping
            variable → P(X | Pa(X)), shape ``(|Pa_1|, ..., |X|)`` (the current θ).
        evidence : mapping
            variable → ``(N,)`` state indices, −1 where the case does not see it;
            variables absent are seen by no case (hidden).
        weights : ndarray
            ``(N,)`` multiplicity of each case.

        Returns
        -------
        counts : dict
            variable → Σ_r w_r · P(Pa(X), X | o_r), shape of its table.
        log_p : ndarray
            ``(N,)`` log P(o_r); −inf for a case the tables make impossible.
        """
        weights = np.asarray(weights, dtype=float)
        n = len(weights)
        counts = {v: np.zeros(np.shape(tables[v])) for v in self.variables}
        log_p = np.empty(n)
        check_allocation(self.entries_per_case, "one case of the E-step's junction tree")
        budget = min(BATCH_ENTRIES, get_memory_limit() // (4 * ENTRY_BYTES))
        per_batch = max(1, min(n, budget // self.entries_per_case))
        # One buffer per clique, reused by every batch (fresh pages cost as much as a pass).
        check_allocation(per_batch * sum(self.sizes), "the E-step's clique potentials")
        buffers = [np.empty(size * per_batch) for size in self.sizes]
        evidence_free = self._evidence_free(tables)
        card = self.network.cardinality
        for start in range(0, n, per_batch):
            stop = min(n, start + per_batch)
            likelihoods = {}
            for v, codes in evidence.items():
                codes = np.asarray(codes[start:stop])
                seen = codes >= 0
                if seen.any():  # (|X|, cases): the cases run along the last axis
                    lam = (codes == np.arange(card[v])[:, None]).astype(float)
                    lam[:, ~seen] = 1.0
                    likelihoods[v] = lam
            log_p[start:stop] = self._calibrate(evidence_free, likelihoods, stop - start,
                                                weights[start:stop], counts, buffers)
        return counts, log_p

    def _evidence_free(self, tables: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """Each clique's product of the tables it holds, with a trailing axis of length 1
        for the cases."""
        potentials = []
        for c, shape in enumerate(self.shapes):
            potential = np.ones(shape)
            for v, order, spread in self.tables_into[c]:
                potential = potential * np.transpose(tables[v], order).reshape(spread)
            potentials.append(potential[..., None])
        return potentials

    def _calibrate(self, evidence_free, likelihoods, n, weights, counts, buffers) -> np.ndarray:
        """One collect–distribute pass over ``n`` cases; adds their counts in place.

        Every potential is laid out ``(clique axes..., cases)``: each product and sum then
        runs along the contiguous case axis, whichever clique axes it touches."""
        log_p = np.zeros(n)
        up: list[np.ndarray] = [np.empty(0)] * len(self.cliques)
        messages: list[np.ndarray] = [np.empty(0)] * len(self.cliques)
        totals: list[np.ndarray] = [np.empty(0)] * len(self.cliques)
        with np.errstate(divide="ignore", invalid="ignore"):
            for c in reversed(self.down):
                potential = buffers[c][:self.sizes[c] * n].reshape(*self.shapes[c], n)
                operands = [likelihoods[v].reshape(shape)
                            for v, shape in self.likelihood_into[c] if v in likelihoods]
                operands += [messages[k].reshape(self.in_parent[k]) for k in self.children[c]]
                operands = _merged(operands, self.sizes[c] * n)
                if operands:
                    np.multiply(evidence_free[c], operands[0], out=potential)
                    for operand in operands[1:]:
                        potential *= operand
                else:
                    potential[...] = evidence_free[c]
                if self.parent[c] >= 0:
                    message = potential.reshape(self.separator_size[c], -1, n).sum(axis=1)
                    total = message.sum(axis=0)
                    log_p += np.log(total)
                    total = np.where(total > 0, total, 1.0)
                    message /= total
                    messages[c] = message
                    totals[c] = total
                else:
                    total = potential.reshape(-1, n).sum(axis=0)
                    log_p += np.log(total)
                    potential /= np.where(total > 0, total, 1.0)
                up[c] = potential
            for c in self.down:
                p = self.parent[c]
                belief = up[c]
                if p >= 0:
                    summing = self.summing[c]
                    separator = up[p].reshape(-1, n)
                    if summing is not None:
                        separator = summing @ separator
                    # Σ belief = the message's total before it was normalised: divide the
                    # (small) ratio by it rather than the belief by its sum.
                    ratio = np.where(messages[c] > 0, separator / (messages[c] * totals[c]),
                                     0.0)
                    if not self.children[c]:  # a leaf: its counts without its belief
                        self._count_leaf(c, belief, ratio * weights, counts)
                        continue
                    belief.reshape(self.separator_size[c], -1, n)[...] *= ratio[:, None, :]
                if self.tables_into[c]:
                    self._count(c, belief @ weights, counts)
        return log_p

    def _count(self, c: int, total: np.ndarray, counts) -> None:
        """Add ``total`` (clique ``c``'s belief summed over the cases with their weights),
        summed to each family living there."""
        members = self.cliques[c]
        for v, _order, _spread in self.tables_into[c]:
            family = self.network.parents[v] + (v,)
            kept = total.sum(axis=tuple(i for i, u in enumerate(members) if u not in family))
            inside = [u for u in members if u in family]
            counts[v] += np.transpose(kept, [inside.index(u) for u in family])

    def _count_leaf(self, c: int, potential: np.ndarray, scale: np.ndarray, counts) -> None:
        """:meth:`_count` of a leaf clique, whose belief is its potential times ``scale``
        (over the separator, per case): Σ_r w_r β_r = Σ_r potential_r · scale_r, one
        contraction over the cases, without writing the beliefs."""
        if not self.tables_into[c]:
            return
        n, size = scale.shape[1], self.separator_size[c]
        total = np.einsum("sxr,sr->sx", potential.reshape(size, -1, n), scale)
        self._count(c, total.reshape(self.shapes[c]), counts)

def _merged(operands: list[np.ndarray], size: int) -> list[np.ndarray]:
    """The operands, the smallest multiplied together first while their product stays
    under half the potential's ``size``: one pass over the potential instead of two."""
    operands = sorted(operands, key=lambda a: a.size)
    while len(operands) > 1 and math.prod(np.broadcast_shapes(
            operands[0].shape, operands[1].shape)) * 2 <= size:
        operands = sorted([operands[0] * operands[1], *operands[2:]], key=lambda a: a.size)
    return operands


def _projection(shape: tuple[int, ...], kept: list[int]) -> sparse.csr_array:
    """The 0/1 matrix ``(Π shape[kept], Π shape)`` whose product with a table over
    ``shape`` (flattened) sums out every axis but ``kept``, which stay in order."""
    size = math.prod(shape)
    index = np.indices(shape).reshape(len(shape), size)
    target = np.ravel_multi_index(index[kept], [shape[a] for a in kept]) if kept \
        else np.zeros(size, dtype=np.intp)
    rows = math.prod(shape[a] for a in kept)
    return sparse.csr_array((np.ones(size), (target, np.arange(size))), shape=(rows, size))


def _placing(family: tuple[str, ...], clique: tuple[str, ...],
             card: Mapping[str, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """How a table over ``family`` lines up with the clique's axes: the transpose that
    puts its axes in the clique's order, and the shape with 1 on the clique's other axes."""
    inside = [u for u in clique if u in family]
    order = tuple(family.index(u) for u in inside)
    shape = tuple(card[u] if u in family else 1 for u in clique)
    return order, shape


def _preorder(children: list[list[int]], root: int) -> list[int]:
    """The cliques under ``root``, each before its children."""
    order, stack = [], [root]
    while stack:
        c = stack.pop()
        order.append(c)
        stack.extend(children[c])
    return order

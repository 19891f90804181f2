"""The E-step of EM on a two-slice network (2-TBN): every family's expected counts over
many sequences with hidden variables or missing cells, from the smoothed posteriors of
the interface algorithm (:mod:`bbn.engines.exact.frontier`).

    P(I_{t-1}, S_t | e) = α_{t-1}(I_{t-1}) Π_v P(v_t | pa) λ_t(v) β_t(I_t) / Z_t     (t ≥ 1)
    P(S_0 | e)          = Π_v P_0(v_0 | pa) λ_0(v) β_0(I_0) / Z_0
    n̄_v(pa, x) = Σ_n Σ_t P(pa_t, x_t | e^n),     ℓ = Σ_n log P(e^n)

(S_t: every variable of slice t, I_t: the interface; α normalised filtered messages,
β backward messages rescaled each step; Z_t makes each sequence's two-slice posterior
sum to 1 and is read off the backward step: Z_t = Σ_I α_{t-1}(I) β̃_{t-1}(I), β̃ the
backward message before it is rescaled.) The backward pass adds each step's counts as
it goes — one loop over t, the sequences a batch axis summed inside each product, never
a loop over sequences. On dense slice tables
(:class:`bbn.engines.exact.slices.DenseFrontier`) both passes are matrix products over
whole slices: the findings made ready once (:func:`prepare`, kept by EM between
iterations) as state codes, Λ_t(S) gathered per step from a table of 0/1 rows; the
slice's states ordered interface first, so the interface of a slice is a sum over runs
of columns; and a step adds α_{t-1}ᵀ (Λ_t β_t / Z_t) to an (|I|, |S|) table multiplied
by M(I, S) once at the end. Otherwise the forward pass is the engine's and a step is one
``einsum`` per family.

>>> import bbn, numpy as np
>>> from bbn.engines.exact.chains import Batch
>>> from bbn.engines.exact.frontier import Frontier
>>> dbn = bbn.DynamicNetwork("umbrella")
>>> dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
...                  table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.5, 0.5])
>>> dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> engine, batch = Frontier(dbn.two_slice().compiled()), Batch(np.array([2]))
>>> seen = np.array([[-1, 0], [-1, 0]])          # (steps, variables): rain unseen, umbrellas
>>> counts = expected_counts(engine, prepare(engine, seen, batch), batch)
>>> counts.initial[0].round(3).tolist()                         # P(Rain_0 | u_0, u_1)
[0.883, 0.117]
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from bbn.core.memory import check_allocation
from bbn.engines.exact.chains import Batch
from bbn.engines.exact.frontier import Frontier
from bbn.engines.exact.slices import DenseFrontier

#: rows × slice entries at most of the table joining the observed variables' 0/1 rows
JOINED_ROWS = 1 << 20


class SliceCounts(NamedTuple):
    """Expected counts of a batch: ``initial[v]`` over slice 0's family of v, and
    ``transition[v]`` over its family in the later slices, summed over every step ≥ 1
    (each shaped as the two-slice network's table of v: parents in order, then v);
    ``log_likelihood`` per sequence, batch order. With an impossible sequence (a
    log-likelihood of −inf) the counts are None."""

    initial: list[np.ndarray] | None
    transition: list[np.ndarray] | None
    log_likelihood: np.ndarray


class Prepared(NamedTuple):
    """A batch's findings made ready once for every iteration of EM: the likelihoods
    λ_t(v) ``(T, N, card)`` per variable (None where never observed) for the einsum
    form; for dense slice tables the codes ``(T, N, n)`` (−1: unobserved) of the
    variables observed somewhere and, for each, its 0/1 rows over whole slices
    ``(card + 1, |S|)`` (the last all ones), so that Λ_t(S) = Π_v rows_v[code_t(v)] is
    gathered step by step."""

    evidence: list | None
    codes: np.ndarray | None
    rows: list | None


def prepare(engine: Frontier, codes: np.ndarray, batch: Batch) -> Prepared:
    """The findings of ``batch`` as :func:`expected_counts` reads them, for any tables of
    the same structure (what EM keeps between iterations): each a gather from a small
    table of 0/1 rows, λ(v) = [x = code] (all ones where unobserved).

    Parameters
    ----------
    engine : Frontier or DenseFrontier
    codes : ndarray (L, n) of int
        The state of every variable at every step (−1: unobserved), the sequences'
        rows concatenated in the order of ``batch.lengths``.
    batch : Batch

    Returns
    -------
    Prepared

    Examples
    --------
    >>> import bbn, numpy as np
    >>> dbn = bbn.DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    >>> prepare(Frontier(dbn.two_slice().compiled()), np.array([[1], [-1]]),
    ...         Batch(np.array([2]))).evidence[0][:, 0].tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """
    padded = batch.pad(np.asarray(codes, dtype=np.int64), fill=-1)      # (T, N, n)
    seen = [v for v in range(engine.n) if (padded[..., v] >= 0).any()]
    if not isinstance(engine, DenseFrontier):
        check_allocation(padded[..., 0].size * sum(engine.cards[v] for v in seen),
                         "the evidence of a batch of sequences")
        evidence: list = [None] * engine.n
        for v in seen:
            rows = np.vstack([np.eye(engine.cards[v]), np.ones(engine.cards[v])])
            evidence[v] = rows[padded[..., v]]                        # −1: the last row
        return Prepared(evidence, None, None)
    digits = np.unravel_index(np.arange(math.prod(engine.cards)), engine.cards)
    rows = [np.vstack([np.arange(engine.cards[v])[:, None] == digits[v],
                       np.ones((1, len(digits[v])), dtype=bool)]).astype(float)
            for v in seen]
    codes = padded[..., seen]
    if rows and math.prod(len(r) for r in rows) * len(digits[0]) <= JOINED_ROWS:
        # one table over every combination of the observed variables' codes: one gather
        # a step
        sizes = [len(r) for r in rows]
        codes = np.ravel_multi_index(tuple(np.moveaxis(codes % np.array(sizes), -1, 0)),
                                     sizes)[..., None]               # −1 → the ones row
        joined = rows[0]
        for r in rows[1:]:
            joined = (joined[:, None, :] * r[None, :, :]).reshape(-1, joined.shape[1])
        rows = [joined]
    return Prepared(None, np.ascontiguousarray(codes), rows)


def expected_counts(engine: Frontier, prepared: Prepared, batch: Batch) -> SliceCounts:
    """Every family's expected counts over the sequences of ``batch``.

    Parameters
    ----------
    engine : Frontier or DenseFrontier
        The interface engine of the two-slice view with the current tables.
    prepared : Prepared
        The batch's findings, from :func:`prepare` (with an engine of the same form).
    batch : Batch

    Returns
    -------
    SliceCounts
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        if isinstance(engine, DenseFrontier):
            return _dense(engine, prepared, batch)
        alpha, log_likelihood = engine.forward(prepared.evidence, batch)
        if not np.isfinite(log_likelihood).all():
            return SliceCounts(None, None, log_likelihood)
        return SliceCounts(*_contracted(engine, prepared.evidence, batch, alpha),
                           log_likelihood)


def _dense(engine: DenseFrontier, prepared: Prepared, batch: Batch) -> SliceCounts:
    """Forward, then backward with the counts, all by matrix products: Λ_t(S) gathered
    from the codes; the slice's states ordered interface first (each interface state
    then owns a run of R = |S|/|I| columns), so that the interface of a slice is a sum
    over runs and β_t over S a repeat."""
    n, size, steps = engine.n, len(batch.order), batch.steps
    n_iface, n_slice = engine.step.shape
    digits = np.unravel_index(np.arange(n_slice), engine.cards)
    iface = np.ravel_multi_index([digits[i] for i in engine.interface], engine.iface_shape) \
        if engine.interface else np.zeros(n_slice, dtype=np.int64)
    order = np.argsort(iface, kind="stable")                      # interface first
    run = n_slice // n_iface
    step = np.ascontiguousarray(engine.step[:, order])
    prior = engine.prior[order]
    rows = [np.ascontiguousarray(r[:, order]) for r in prepared.rows or ()]

    def slices(t: int, m: int) -> np.ndarray | None:             # Λ_t(S) (m, |S|)
        product = None
        for k, table in enumerate(rows):
            factor = table[prepared.codes[t, :m, k]]
            product = factor if product is None else np.multiply(product, factor, out=product)
        return product

    ones_slice, ones_iface, ones_run = np.ones(n_slice), np.ones(n_iface), np.ones(run)
    alpha = np.empty((steps, size, n_iface))
    log_c = np.zeros(size)
    for t in range(steps):                                        # sums as products: fast
        m = batch.running[t]
        joint = np.broadcast_to(prior, (m, n_slice)) if t == 0 else alpha[t - 1, :m] @ step
        lam = slices(t, m)
        if lam is not None:
            joint = joint * lam
        c = joint @ ones_slice
        log_c[:m] += np.log(c)
        alpha[t, :m] = (joint.reshape(m, n_iface, run) @ ones_run) / c[:, None]
    if not np.isfinite(log_c).all():
        return SliceCounts(None, None, log_c)
    beta = np.ones((size, n_iface))
    pairs = np.zeros((n_iface, n_slice))
    for t in range(steps - 1, 0, -1):
        after = batch.running[t]
        ahead = np.repeat(beta[:after], run, axis=1)                  # β_t over S
        lam = slices(t, after)
        if lam is not None:
            ahead *= lam                                             # Λ_t β_t (after, S)
        before = alpha[t - 1, :after]
        values = ahead @ step.T                                       # β̃_{t-1} (after, I)
        z = np.einsum("ni,ni->n", before, values)
        pairs += before.T @ (ahead / z[:, None])
        beta[:after] = values / (values @ ones_iface)[:, None]
    ahead = prior * np.repeat(beta, run, axis=1)
    lam = slices(0, size)
    if lam is not None:
        ahead *= lam
    first = np.empty(n_slice)
    first[order] = (1.0 / (ahead @ ones_slice)) @ ahead
    pairs[:, order] = pairs * step
    slice0 = list(range(n))
    pair_axes = list(engine.interface) + [n + v for v in range(n)]
    pairs = pairs.reshape(engine.iface_shape + engine.cards)
    first = first.reshape(engine.cards)
    initial = [np.einsum(first, slice0, list(engine.scopes[v])) for v in range(n)]
    transition = [np.einsum(pairs, pair_axes, list(engine.scopes[n + v])) for v in range(n)]
    return SliceCounts(initial, transition, log_c)


def _contracted(engine: Frontier, evidence: list, batch: Batch, alpha: np.ndarray):
    n, size, paths = engine.n, len(batch.order), {}
    shape = tuple(engine.cards[i] for i in engine.interface)
    beta = np.ones((size,) + shape)
    transition = [np.zeros([engine.cards[u % n] for u in engine.scopes[n + v]])
                  for v in range(n)]
    before_axes, after_axes = engine._message_axes(0), engine._message_axes(1)
    for t in range(batch.steps - 1, 0, -1):
        after = batch.running[t]
        lam = [None if e is None else e[t] for e in evidence]
        ops = engine._operands(1, lam, slice(0, after)) + [beta[:after], after_axes]
        values = engine._contract(ops, before_axes, paths, "back")   # β̃_{t-1}
        before = alpha[t - 1, :after]
        z = (before * values).reshape(after, -1).sum(axis=1)
        ops += [before, before_axes, 1.0 / z, [engine.batch_axis]]
        for v in range(n):
            transition[v] += engine._contract(ops, list(engine.scopes[n + v]), paths, v)
        beta[:after] = engine._normalised(values)[0]
    lam = [None if e is None else e[0] for e in evidence]
    ops = engine._operands(0, lam, slice(0, size)) + [beta, before_axes]
    z = engine._contract(ops, [engine.batch_axis], paths, "first")
    ops += [1.0 / z, [engine.batch_axis]]
    initial = [engine._contract(ops, list(engine.scopes[v]), paths, ("first", v))
               for v in range(n)]
    return initial, transition

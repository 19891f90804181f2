"""Exact questions over time on a two-slice network (2-TBN), by the interface algorithm:
a forward message over the interface I — the variables of slice t with a child in slice
t+1 — carried from step to step, never the unrolled network.

    α_0(I_0) ∝ Σ_{slice 0 \\ I} Π_v P_0(v | pa) λ_0(v)
    α_t(I_t) ∝ Σ_{I_{t-1}, slice t \\ I} α_{t-1}(I_{t-1}) Π_v P(v_t | pa) λ_t(v)
    β_t(I_t) ∝ Σ_{slice t+1} Π_v P(v_{t+1} | pa) λ_{t+1}(v) β_{t+1}(I_{t+1})
    log P(e_1:T) = Σ_t log c_t (the normalisers of α)

Each step is one ``numpy.einsum`` over the tables of one slice, the message of the step
before and the evidence λ_t(v) of every sequence of the batch (1 where v is not
observed), with a batch axis: every sequence at once, the sequences sorted by length so
that those still running are a prefix (:class:`bbn.engines.exact.chains.Batch`). The
contraction order is found once per call (``numpy.einsum_path``). The most probable
explanation is max-product over the same messages, with back-pointers to whole slices.

The view is a two-slice network whose variables are the n variables of slice 0 then the
same n of slice 1, in the same order (``bbn.DynamicNetwork.two_slice``); the engine
reads it by position only.

>>> import bbn
>>> dbn = bbn.DynamicNetwork("umbrella")
>>> dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
...                  table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.5, 0.5])
>>> dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> frontier = Frontier(dbn.two_slice().compiled())
>>> frontier.interface
(0,)
"""

from __future__ import annotations

import numpy as np

from bbn.core.memory import check_allocation
from bbn.engines.exact.chains import Batch

#: entries of the max-product tensor of one step, per chunk of sequences
MAX_PRODUCT_CHUNK = 1 << 22


class Frontier:
    """The interface algorithm on one two-slice compiled view.

    Parameters
    ----------
    view : CompiledNetwork
        Slice 0's n variables, then slice 1's n in the same order.

    Attributes
    ----------
    interface : tuple of int
        Slice-0 positions of the variables with a child in slice 1.
    cards : tuple of int
        The variables' cardinalities.
    """

    def __init__(self, view) -> None:
        names = view.variables
        self.n = n = len(names) // 2
        position = {name: i for i, name in enumerate(names)}
        self.cards = tuple(view.cardinality[v] for v in names[:n])
        self.scopes = [tuple(position[p] for p in view.parents[v]) + (i,)
                       for i, v in enumerate(names)]
        self.tables = [np.asarray(view.tables[v]) for v in names]
        self.interface = tuple(sorted({p for scope in self.scopes[n:] for p in scope[:-1]
                                       if p < n}))
        self.batch_axis = 2 * n

    # --------------------------------------------------------------- einsum plumbing
    def _operands(self, slice_: int, evidence: list | None, rows: slice) -> list:
        n, ops = self.n, []
        for v in range(slice_ * n, slice_ * n + n):
            ops += [self.tables[v], list(self.scopes[v])]
        if rows.stop:  # the batch axis, when no evidence nor message carries it
            ops += [np.ones(rows.stop - rows.start), [self.batch_axis]]
        if evidence is not None:
            for v, lam in enumerate(evidence):
                if lam is not None:
                    ops += [lam[rows], [self.batch_axis, slice_ * n + v]]
        return ops

    def _contract(self, ops: list, out: list, paths: dict, key) -> np.ndarray:
        path = paths.get(key)
        if path is None:
            path = paths[key] = np.einsum_path(*ops, out, optimize="greedy")[0]
        return np.einsum(*ops, out, optimize=path)

    def _message_axes(self, slice_: int) -> list:
        return [self.batch_axis] + [slice_ * self.n + i for i in self.interface]

    @staticmethod
    def _normalised(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        total = values.reshape(len(values), -1).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return values / total.reshape((-1,) + (1,) * (values.ndim - 1)), total

    # --------------------------------------------------------------- forward, backward
    def forward(self, evidence: list, batch: Batch):
        """α_t for every step and sequence, and log P(e) per sequence (batch order).

        Parameters
        ----------
        evidence : list
            Per variable: ``(T, N, card)`` likelihoods λ_t(v) in batch order, or None
            where the variable is never observed.
        batch : Batch

        Returns
        -------
        alpha : ndarray (T, N, |I_1|, ..., |I_k|)
        log_likelihood : ndarray (N,)
        """
        steps, size = batch.steps, len(batch.order)
        shape = tuple(self.cards[i] for i in self.interface)
        check_allocation(steps * size * int(np.prod(shape)), "the forward messages")
        alpha = np.zeros((steps, size) + shape)
        log_c = np.zeros((steps, size))
        paths: dict = {}
        with np.errstate(divide="ignore"):
            for t in range(steps):
                m = batch.running[t]
                lam = [None if e is None else e[t] for e in evidence]
                if t == 0:
                    ops = self._operands(0, lam, slice(0, m))
                else:
                    ops = [alpha[t - 1, :m], self._message_axes(0)] + self._operands(
                        1, lam, slice(0, m))
                a, c = self._normalised(self._contract(ops, self._message_axes(1 if t else 0),
                                                       paths, t > 0))
                alpha[t, :m] = a
                log_c[t, :m] = np.log(c)
        return alpha, log_c.sum(axis=0)

    def backward(self, evidence: list, batch: Batch) -> np.ndarray:
        """β_t for every step and sequence (each step rescaled to sum to 1)."""
        steps = batch.steps
        alpha_shape = tuple(self.cards[i] for i in self.interface)
        beta = np.zeros((steps, len(batch.order)) + alpha_shape)
        beta[steps - 1, :batch.running[steps - 1]] = 1.0
        paths: dict = {}
        for t in range(steps - 2, -1, -1):
            m, after = batch.running[t], batch.running[t + 1]
            lam = [None if e is None else e[t + 1] for e in evidence]
            ops = self._operands(1, lam, slice(0, after)) + [beta[t + 1, :after],
                                                             self._message_axes(1)]
            beta[t, :after] = self._normalised(self._contract(
                ops, self._message_axes(0), paths, 0))[0]
            beta[t, after:m] = 1.0
        return beta

    def marginals(self, variables: list[int], evidence: list, batch: Batch,
                  alpha: np.ndarray, beta: np.ndarray | None = None) -> list[np.ndarray]:
        """P(v_t | e_1:t) (``beta`` None) or P(v_t | e_1:T) for each of ``variables``:
        ``(T, N, card)`` each, batch order, 0 past an end."""
        steps, size = batch.steps, len(batch.order)
        answers = [np.zeros((steps, size, self.cards[v])) for v in variables]
        paths: dict = {}
        for t in range(steps):
            m = batch.running[t]
            lam = [None if e is None else e[t] for e in evidence]
            here = 1 if t else 0
            ops = ([] if t == 0 else [alpha[t - 1, :m], self._message_axes(0)]) + \
                self._operands(here, lam, slice(0, m))
            if beta is not None:
                ops += [beta[t, :m], self._message_axes(here)]
            for answer, v in zip(answers, variables, strict=True):
                out = [self.batch_axis, here * self.n + v]
                answer[t, :m] = self._normalised(self._contract(ops, out, paths, (t > 0, v)))[0]
        return answers

    def filter(self, variables: list[int], evidence: list,
               batch: Batch) -> tuple[list[np.ndarray], np.ndarray]:
        """P(v_t | e_1:t) of each of ``variables`` (as :meth:`marginals`) and log P(e)."""
        alpha, log_likelihood = self.forward(evidence, batch)
        return self.marginals(variables, evidence, batch, alpha), log_likelihood

    def predict(self, variables: list[int], last: np.ndarray, horizon: int) -> list[np.ndarray]:
        """P(v_{T+h} | e_1:T), h ≥ 1, for each of ``variables`` from the last messages
        α_T ``(N, ...)``."""
        size, paths = len(last), {}
        message = last
        for _ in range(horizon - 1):
            ops = [message, self._message_axes(0)] + self._operands(1, None, slice(0, size))
            message = self._normalised(self._contract(ops, self._message_axes(1), paths, 0))[0]
        answers = []
        for v in variables:
            ops = [message, self._message_axes(0)] + self._operands(1, None, slice(0, size))
            answers.append(self._normalised(self._contract(
                ops, [self.batch_axis, self.n + v], paths, v))[0])
        return answers

    # --------------------------------------------------------------- max-product
    def _slice_log_table(self, slice_: int) -> np.ndarray:
        """log Π_v P(v | pa) over (slice-0 interface axes if slice 1) + every variable of
        the slice ordered interface first, then the rest."""
        n = self.n
        inner = [slice_ * n + i for i in self.order]
        axes = ([i for i in self.interface] if slice_ else []) + inner
        ops = self._operands(slice_, None, slice(0, 0))
        with np.errstate(divide="ignore"):
            return np.log(np.einsum(*ops, axes, optimize="greedy"))

    @property
    def order(self) -> list[int]:
        """The slice's variables, interface first."""
        return list(self.interface) + [v for v in range(self.n) if v not in self.interface]

    def most_probable(self, evidence: list, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """argmax over every variable of every slice of P(x, e), by max-product.

        Returns
        -------
        states : ndarray (T, N, n) of int
            Batch order; slice variables in their positions.
        log_probability : ndarray (N,)
        """
        n, steps, size = self.n, batch.steps, len(batch.order)
        order = self.order
        cards = [self.cards[v] for v in order]
        n_iface = int(np.prod(cards[:len(self.interface)], dtype=np.int64))
        n_slice = int(np.prod(cards, dtype=np.int64))
        n_rest = n_slice // n_iface
        check_allocation(steps * size * n_iface, "the max-product back-pointers",
                         entry_bytes=8)
        check_allocation(n_iface * n_slice, "a slice's max-product table")
        first = self._slice_log_table(0).reshape(n_iface, n_rest)
        step = self._slice_log_table(1).reshape(n_iface, n_iface, n_rest)
        back = np.zeros((steps, size, n_iface), dtype=np.int64)
        delta = np.empty((size, n_iface))
        for t in range(steps):
            m = batch.running[t]
            log_lam = self._log_evidence(evidence, t, m, order, cards).reshape(m, n_iface, n_rest)
            chunk = max(1, MAX_PRODUCT_CHUNK // max(n_iface * n_slice, 1))
            for lo in range(0, m, chunk):
                hi = min(m, lo + chunk)
                if t == 0:
                    scores = first[None] + log_lam[lo:hi]          # (c, I', R)
                else:
                    scores = (delta[lo:hi, :, None, None] + step[None]
                              + log_lam[lo:hi, None])             # (c, I, I', R)
                    scores = scores.transpose(0, 2, 1, 3)          # (c, I', I, R)
                flat = scores.reshape(hi - lo, n_iface, -1)
                best = flat.argmax(axis=2)
                back[t, lo:hi] = best
                delta[lo:hi] = np.take_along_axis(flat, best[..., None], axis=2)[..., 0]
        final = delta.argmax(axis=1)
        log_probability = delta[np.arange(size), final]
        slices = np.zeros((steps, size), dtype=np.int64)
        iface = np.zeros(size, dtype=np.int64)
        iface[:] = final
        ends = batch.sorted_lengths - 1
        for t in range(steps - 1, -1, -1):
            m = batch.running[t]
            ending = ends[:m] == t
            current = np.where(ending, final[:m], iface[:m])
            pointer = back[t, np.arange(m), current]
            rest = pointer % n_rest
            slices[t, :m] = current * n_rest + rest
            iface[:m] = pointer // n_rest if t else 0
        states = np.zeros((steps, size, n), dtype=np.int64)
        digits = np.unravel_index(slices, cards)
        for k, v in enumerate(order):
            states[..., v] = digits[k]
        return states, log_probability

    def _log_evidence(self, evidence, t, m, order, cards) -> np.ndarray:
        """log λ_t over whole slices (axes in ``order``): ``(m, Π cards)``."""
        total = np.zeros((m,) + tuple(cards))
        with np.errstate(divide="ignore"):
            for k, v in enumerate(order):
                if evidence[v] is not None:
                    shape = [m] + [1] * len(cards)
                    shape[k + 1] = cards[k]
                    total = total + np.log(evidence[v][t, :m]).reshape(shape)
        return total.reshape(m, -1)

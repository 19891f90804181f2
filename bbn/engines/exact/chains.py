"""Hidden Markov chains on state indices: scaled forward–backward, Viterbi in log space and
the expected counts of Baum–Welch, batched over many sequences of different lengths.

    α̂_t(j) = P(X_t = j | e_1:t) = α̂_{t-1} A B_t(j) / c_t,   c_t = P(e_t | e_1:t-1)
    β̂_t(i) = Σ_j A_ij B_{t+1}(j) β̂_{t+1}(j) / c_{t+1},      γ_t = α̂_t · β̂_t
    log P(e_1:T) = Σ_t log c_t,   δ_t(j) = max_i δ_{t-1}(i) + log A_ij + log B_t(j)

A batch holds N sequences state-major, ``(K, T, N)``, the sequences sorted by length,
longest first (:class:`Batch`): at step t the sequences still running are a prefix of the
batch, so every step is a few numpy operations on that prefix, never a loop over
sequences; the scaling keeps 100,000 steps (and more) far from underflow. The emission
likelihoods ``B`` come in per step, a Gaussian's as ``log B`` shifted by their maximum
over the states before exponentiation (:func:`shifted`), so the density of an outlying
reading does not underflow either; the shift returns in the log-likelihood.

>>> import numpy as np
>>> batch = Batch(np.array([2]))
>>> b = np.array([[0.9, 0.9], [0.2, 0.2]])[:, :, None]    # (K, T, N): the umbrella, 2 days
>>> chain = forward(np.array([0.5, 0.5]), np.array([[0.7, 0.3], [0.3, 0.7]]), b, batch)
>>> np.round(chain.alpha[:, 1, 0], 3)
array([0.883, 0.117])
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from bbn.core.memory import check_allocation


class Batch:
    """N sequences of different lengths, time-major and sorted by length (longest first).

    Parameters
    ----------
    lengths : ndarray of int
        The length of every sequence, in the caller's order (each at least 1).

    Attributes
    ----------
    order : ndarray
        Batch position → the caller's sequence (``lengths[order]`` decreases).
    running : ndarray
        ``running[t]``: how many sequences have a step t (a prefix of the batch).
    rows : ndarray
        ``(T, N)``: the row of every (step, sequence) in the concatenation of the
        sequences in the caller's order, −1 past a sequence's end.

    Examples
    --------
    >>> batch = Batch(np.array([1, 3]))
    >>> batch.order.tolist(), batch.running.tolist(), batch.rows.tolist()
    ([1, 0], [2, 1, 1], [[1, 0], [2, -1], [3, -1]])
    """

    def __init__(self, lengths: np.ndarray) -> None:
        lengths = np.asarray(lengths, dtype=np.int64)
        self.lengths = lengths
        self.order = np.argsort(-lengths, kind="stable")
        self.sorted_lengths = lengths[self.order]
        steps = int(self.sorted_lengths[0]) if len(lengths) else 0
        self.steps = steps
        self.running = np.searchsorted(-self.sorted_lengths, -np.arange(steps), side="left")
        self.ragged = bool(steps) and bool(self.sorted_lengths[-1] < steps)

    @functools.cached_property
    def rows(self) -> np.ndarray:
        """``(T, N)``: the row of every (step, sequence) in the concatenation, −1 past an
        end (made when first asked: equal lengths are padded without it)."""
        starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]])[self.order]
        t = np.arange(self.steps)[:, None]
        return (np.where(t < self.sorted_lengths, starts + t, -1) if self.ragged
                else starts + t)

    @functools.cached_property
    def valid(self) -> np.ndarray:
        """``(T, N)``: whether sequence n has a step t."""
        return self.rows >= 0

    def pad(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """``values`` given row by row for the concatenated sequences, as ``(T, N, ...)``
        with ``fill`` past each sequence's end."""
        n, rest = len(self.lengths), values.shape[1:]
        check_allocation(self.steps * n * int(np.prod(rest)), "a batch of sequences")
        if not self.ragged and len(values) == self.steps * n:   # one reshape: (N, T) → (T, N)
            return np.ascontiguousarray(values.reshape(n, self.steps, *rest).swapaxes(0, 1))
        out = np.take(values, np.maximum(self.rows, 0), axis=0)
        if self.ragged:
            out[~self.valid] = fill
        return out

    def unpad(self, values: np.ndarray) -> np.ndarray:
        """``(T, N, ...)`` back to the rows of the concatenated sequences."""
        out = np.empty((int(self.lengths.sum()), *values.shape[2:]), dtype=values.dtype)
        out[self.rows[self.valid]] = values[self.valid]
        return out

    def unpad_states(self, values: np.ndarray) -> np.ndarray:
        """State-major ``(K, T, N)`` back to rows ``(L, K)`` of the concatenation."""
        return self.unpad(np.moveaxis(values, 0, -1))

    def last(self, values: np.ndarray) -> np.ndarray:
        """The value at every sequence's last step, in the caller's order."""
        picked = values[self.sorted_lengths - 1, np.arange(len(self.order))]
        out = np.empty_like(picked)
        out[self.order] = picked
        return out


class Forward(NamedTuple):
    """The forward pass: ``alpha`` ``(K, T, N)`` (filtered, 0 past an end), ``scale``
    ``(T, N)`` the normalisers c_t (1 past an end), ``log_likelihood`` ``(N,)`` in batch
    order, ``likelihood`` the B_t it used."""

    alpha: np.ndarray
    scale: np.ndarray
    log_likelihood: np.ndarray
    likelihood: np.ndarray


def forward(start: np.ndarray, transition: np.ndarray, likelihood: np.ndarray,
            batch: Batch, shift: np.ndarray | None = None) -> Forward:
    """Filtered probabilities P(X_t | e_1:t) of every sequence of the batch, scaled.

    Arrays are state-major, ``(K, T, N)``: the sums and maxima over the states are then
    element-wise operations on rows of N sequences.

    Parameters
    ----------
    start : ndarray (K,)
        P(X_1).
    transition : ndarray (K, K)
        A_ij = P(X_{t+1} = j | X_t = i).
    likelihood : ndarray (K, T, N)
        P(e_t | X_t) in batch order, each (t, n) possibly divided by exp(``shift``)
        (see :func:`shifted`).
    batch : Batch
    shift : ndarray (T, N), optional
        log of what each (t, n) of ``likelihood`` was divided by.

    Returns
    -------
    Forward
        An impossible sequence has log-likelihood −inf and NaN filtered rows from the
        step that made it impossible.

    Examples
    --------
    >>> batch = Batch(np.array([1]))
    >>> b = np.array([0.9, 0.2]).reshape(2, 1, 1)
    >>> f = forward(np.array([0.5, 0.5]), np.eye(2), b, batch)
    >>> round(float(np.exp(f.log_likelihood[0])), 3)
    0.55
    """
    b = likelihood
    k, steps, n = b.shape
    check_allocation(k * steps * n, "the forward messages")
    alpha = np.zeros((k, steps, n))
    scale = np.ones((steps, n))
    incoming = np.ascontiguousarray(transition.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = start[:, None] * b[:, 0]
        for t in range(steps):
            m = batch.running[t]
            if t:
                a = incoming @ alpha[:, t - 1, :m]
                a *= b[:, t, :m]
            c = a.sum(axis=0)
            np.divide(a, c, out=alpha[:, t, :m])
            scale[t, :m] = c
        log_likelihood = np.log(scale).sum(axis=0)
        if shift is not None:
            log_likelihood += (shift * batch.valid).sum(axis=0)
    return Forward(alpha, scale, log_likelihood, b)


def shifted(log_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """exp(log B − max_k log B) and the maximum over the states (axis 0): likelihoods that
    cannot all underflow.

    Examples
    --------
    >>> b, shift = shifted(np.array([[-1000.0], [-1001.0]]))
    >>> b.round(3).tolist(), shift.tolist()
    ([[1.0], [0.368]], [-1000.0])
    """
    shift = log_b.max(axis=0)
    shift[~np.isfinite(shift)] = 0.0
    return np.exp(log_b - shift), shift


def backward(transition: np.ndarray, chain: Forward, batch: Batch) -> np.ndarray:
    """β̂_t, scaled by the forward pass's normalisers: ``(K, T, N)``, 0 past an end.

    Examples
    --------
    >>> batch = Batch(np.array([2]))
    >>> a = np.array([[0.7, 0.3], [0.3, 0.7]])
    >>> b = np.array([[0.9, 0.9], [0.2, 0.2]])[:, :, None]
    >>> f = forward(np.array([0.5, 0.5]), a, b, batch)
    >>> np.round((f.alpha * backward(a, f, batch))[:, 0, 0], 3)
    array([0.883, 0.117])
    """
    k, steps, n = chain.alpha.shape
    beta = np.zeros((k, steps, n))
    b = chain.likelihood
    with np.errstate(divide="ignore", invalid="ignore"):
        beta[:, steps - 1, :batch.running[steps - 1]] = 1.0
        for t in range(steps - 2, -1, -1):
            m, after = batch.running[t], batch.running[t + 1]
            np.divide(transition @ (b[:, t + 1, :after] * beta[:, t + 1, :after]),
                      chain.scale[t + 1, :after], out=beta[:, t, :after])
            beta[:, t, after:m] = 1.0
    return beta


def smooth(transition: np.ndarray, chain: Forward, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """γ_t = P(X_t | e_1:T) ``(K, T, N)`` (0 past an end) and the backward messages."""
    beta = backward(transition, chain, batch)
    return chain.alpha * beta, beta


def predict(transition: np.ndarray, last: np.ndarray, horizon: int) -> np.ndarray:
    """P(X_{T+h} | e_1:T) = P(X_T | e_1:T) A^h for every row of ``last`` ``(N, K)``.

    Examples
    --------
    >>> predict(np.array([[0.7, 0.3], [0.3, 0.7]]), np.array([[1.0, 0.0]]), 2).round(2)
    array([[0.58, 0.42]])
    """
    return last @ np.linalg.matrix_power(transition, horizon)


def viterbi(log_start: np.ndarray, log_transition: np.ndarray, log_b: np.ndarray,
            codes: np.ndarray, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """The most probable state sequence of every sequence and its log-probability
    log P(x*_1:T, e_1:T), by max-product in log space.

        δ_t(j) = max_i δ_{t-1}(i) + log A(i, j) + log B(e_t | j)
        x*_T = first argmax_j δ_T(j),   x*_{t-1} = last argmax_i δ_{t-1}(i) + log A(i, x*_t)

    The forward pass keeps every δ_t, state-major ``(T, K, N)``: each step is one sum into
    a preallocated ``(K, K, N)`` array (log A laid out once along the batch), one maximum
    over the previous state and the emissions, for the whole batch. No back-pointers: the
    way back sums again, for the chosen states only, the ``(K, N)`` candidates
    δ_{t-1}(i) + log A(i, x*_t) (the same floats as the forward pass, so the same
    maximum), and takes the last state reaching their maximum as max_i i·[candidate_i =
    max] — six operations on ``(K, N)`` arrays per step, no argmax along a short axis.
    Ties go as in hmmlearn's ``decode``: the first state at the last step, the last one
    on the way back.

    Parameters
    ----------
    log_start, log_transition
        log π ``(K,)``, log A ``(K, K)``.
    log_b : ndarray (K, S)
        log P(e | X = k) of S distinct observations (a categorical model's log emission
        table, or one column per step).
    codes : ndarray (T, N) of int
        The column of ``log_b`` observed at every step, batch order (any valid column past
        an end).
    batch : Batch

    Returns
    -------
    path : ndarray (T, N) of int
        The states, batch order, 0 past an end; the smallest signed integer type holding
        K − 1.
    log_probability : ndarray (N,)
        Batch order.

    Examples
    --------
    >>> batch = Batch(np.array([3]))
    >>> log_a = np.log([[0.7, 0.3], [0.3, 0.7]])
    >>> log_b = np.log([[0.9, 0.1], [0.2, 0.8]])            # umbrella, no umbrella
    >>> path, best = viterbi(np.log([0.5, 0.5]), log_a, log_b, np.array([[0], [0], [1]]), batch)
    >>> path[:, 0].tolist(), round(float(np.exp(best[0])), 4)
    ([0, 0, 1], 0.068)
    """
    k = len(log_start)
    steps, n = codes.shape
    check_allocation(k * steps * n + 2 * k * k * n, "the Viterbi scores")
    delta = np.empty((steps, k, n))
    log_b.take(codes[0], axis=1, out=delta[0], mode="clip")
    delta[0] += log_start[:, None]
    moves = np.broadcast_to(log_transition.T[:, :, None], (k, k, n)).copy()   # [j, i, n]
    scores = np.empty((k, k, n))
    emitted = np.empty((k, n))
    add, most, emission = np.add, np.maximum.reduce, log_b.take
    for first, stop, m in _stretches(batch.running):     # the same m sequences running
        run = delta[first - 1:stop, :, :m]
        moving, summed, seen = moves[:, :, :m], scores[:, :, :m], emitted[:, :m]
        for here, before, code in zip(run[1:], run[:-1], codes[first:stop, :m]):
            add(moving, before, summed)                 # positional: the least overhead
            most(summed, 1, None, here)
            emission(code, 1, seen, "clip")
            add(here, seen, here)
    ends = batch.sorted_lengths - 1
    columns = np.arange(n)
    final = delta[ends, :, columns]                                            # (N, K)
    kind = np.min_scalar_type(-k)
    path = np.zeros((steps, n), dtype=kind)
    chosen = final.argmax(axis=1)
    path[ends, columns] = chosen
    log_probability = final[columns, chosen]
    state = np.arange(k, dtype=kind)[:, None]
    candidates, best = np.empty((k, n)), np.empty(n)
    reached = np.empty((k, n), dtype=bool)
    flags = reached.view(np.int8) if kind == np.int8 else reached
    weighted = np.empty((k, n), dtype=kind)
    into, equal, multiply = log_transition.take, np.equal, np.multiply
    for first, stop, m in reversed(_stretches(batch.running)):
        rows, top, hit, flag, index = (candidates[:, :m], best[:m], reached[:, :m],
                                       flags[:, :m], weighted[:, :m])
        states, previous = path[first - 1:stop, :m], delta[first - 1:stop - 1, :, :m]
        for after, here, before in zip(states[:0:-1], states[-2::-1], previous[::-1]):
            into(after, 1, rows, "clip")
            add(rows, before, rows)
            most(rows, 0, None, top)
            equal(rows, top, hit)
            multiply(flag, state, index)
            most(index, 0, None, here)
    return path, log_probability


def _stretches(running: np.ndarray) -> list[tuple[int, int, int]]:
    """Steps 1…T−1 cut where the number of running sequences changes: ``(first, stop,
    m)`` with m sequences running at every step of ``range(first, stop)``."""
    cuts = [1, *(np.flatnonzero(np.diff(running[1:])) + 2).tolist(), len(running)]
    return [(a, b, int(running[a])) for a, b in zip(cuts[:-1], cuts[1:]) if a < b]


class Counts(NamedTuple):
    """Baum–Welch's expected counts over a batch: ``start`` (K,), ``transitions`` (K, K),
    ``posterior`` γ ``(K, T, N)`` (0 past an end), ``log_likelihood`` the total."""

    start: np.ndarray
    transitions: np.ndarray
    posterior: np.ndarray
    log_likelihood: float


def expected_counts(start: np.ndarray, transition: np.ndarray, likelihood: np.ndarray,
                    batch: Batch, shift: np.ndarray | None = None) -> Counts:
    """The E-step: expected starts, transitions ξ summed over every step of every
    sequence, the posteriors γ (for the emission counts) and log P(e).

        ξ_ij = Σ_n Σ_t α̂_t(i) A_ij B_{t+1}(j) β̂_{t+1}(j) / c_{t+1}

    Examples
    --------
    >>> batch = Batch(np.array([2]))
    >>> a = np.array([[0.7, 0.3], [0.3, 0.7]])
    >>> b = np.array([[0.9, 0.9], [0.2, 0.2]])[:, :, None]
    >>> counts = expected_counts(np.array([0.5, 0.5]), a, b, batch)
    >>> round(float(counts.transitions.sum()), 6)
    1.0
    """
    chain = forward(start, transition, likelihood, batch, shift)
    gamma, beta = smooth(transition, chain, batch)
    k = len(start)
    after = chain.likelihood[:, 1:] * beta[:, 1:]
    after /= chain.scale[1:]
    xi = transition * (chain.alpha[:, :-1].reshape(k, -1) @ after.reshape(k, -1).T)
    return Counts(gamma[:, 0].sum(axis=1), xi, gamma, float(chain.log_likelihood.sum()))

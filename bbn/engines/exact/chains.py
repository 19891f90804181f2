"""Hidden Markov chains on state indices: scaled forward–backward, Viterbi in log space and
the expected counts of Baum–Welch, batched over many sequences of different lengths.

    α̂_t(j) = P(X_t = j | e_1:t) = α̂_{t-1} A B_t(j) / c_t,   c_t = P(e_t | e_1:t-1)
    β̂_t(i) = Σ_j A_ij B_{t+1}(j) β̂_{t+1}(j) / c_{t+1},      γ_t = α̂_t · β̂_t
    log P(e_1:T) = Σ_t log c_t,   δ_t(j) = max_i δ_{t-1}(i) + log A_ij + log B_t(j)

A batch holds N sequences time-major, ``(T, N, K)``, the sequences sorted by length,
longest first (:class:`Batch`): at step t the sequences still running are a prefix of the
batch, so every step is a few numpy operations on that prefix, never a loop over
sequences; the scaling keeps 100,000 steps (and more) far from underflow. The emission
likelihoods ``B`` come in per step as ``log B`` (``emissions``), shifted by their maximum
over the states before exponentiation, so a Gaussian density of an outlying reading does
not underflow either; the shift returns in the log-likelihood.

>>> import numpy as np
>>> batch = Batch(np.array([2]))
>>> log_b = batch.pad(np.log([[0.9, 0.2], [0.9, 0.2]]))      # the umbrella, two days
>>> chain = forward(np.array([0.5, 0.5]), np.array([[0.7, 0.3], [0.3, 0.7]]), log_b, batch)
>>> np.round(chain.alpha[1, 0], 3)
array([0.883, 0.117])
"""

from __future__ import annotations

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
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])[self.order]
        t = np.arange(steps)[:, None]
        self.rows = np.where(t < self.sorted_lengths, starts + t, -1)
        self.valid = self.rows >= 0

    def pad(self, values: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """``values`` given row by row for the concatenated sequences, as ``(T, N, ...)``
        with ``fill`` past each sequence's end."""
        check_allocation(self.rows.size * int(np.prod(values.shape[1:])), "a batch of sequences")
        out = np.take(values, np.maximum(self.rows, 0), axis=0)
        out[~self.valid] = fill
        return out

    def unpad(self, values: np.ndarray) -> np.ndarray:
        """``(T, N, ...)`` back to the rows of the concatenated sequences."""
        out = np.empty((int(self.lengths.sum()), *values.shape[2:]), dtype=values.dtype)
        out[self.rows[self.valid]] = values[self.valid]
        return out

    def last(self, values: np.ndarray) -> np.ndarray:
        """The value at every sequence's last step, in the caller's order."""
        picked = values[self.sorted_lengths - 1, np.arange(len(self.order))]
        out = np.empty_like(picked)
        out[self.order] = picked
        return out


class Forward(NamedTuple):
    """The forward pass: ``alpha`` ``(T, N, K)`` (filtered, 0 past an end), ``scale``
    ``(T, N)`` the normalisers c_t (1 past an end), ``log_likelihood`` ``(N,)`` in batch
    order, ``likelihood`` the shifted B_t it used."""

    alpha: np.ndarray
    scale: np.ndarray
    log_likelihood: np.ndarray
    likelihood: np.ndarray


def forward(start: np.ndarray, transition: np.ndarray, log_b: np.ndarray,
            batch: Batch) -> Forward:
    """Filtered probabilities P(X_t | e_1:t) of every sequence of the batch, scaled.

    Parameters
    ----------
    start : ndarray (K,)
        P(X_1).
    transition : ndarray (K, K)
        A_ij = P(X_{t+1} = j | X_t = i).
    log_b : ndarray (T, N, K)
        log P(e_t | X_t) in batch order (:meth:`Batch.pad`).
    batch : Batch

    Returns
    -------
    Forward
        An impossible sequence has log-likelihood −inf and NaN filtered rows from the
        step that made it impossible.

    Examples
    --------
    >>> batch = Batch(np.array([1]))
    >>> f = forward(np.array([0.5, 0.5]), np.eye(2), batch.pad(np.log([[0.9, 0.2]])), batch)
    >>> round(float(np.exp(f.log_likelihood[0])), 3)
    0.55
    """
    shift = log_b.max(axis=2, keepdims=True)
    shift[~np.isfinite(shift)] = 0.0
    b = np.exp(log_b - shift)
    steps, n, k = b.shape
    alpha = np.zeros((steps, n, k))
    scale = np.ones((steps, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = start * b[0]
        for t in range(steps):
            m = batch.running[t]
            if t:
                a = (alpha[t - 1, :m] @ transition) * b[t, :m]
            c = a.sum(axis=1)
            alpha[t, :m] = a / c[:, None]
            scale[t, :m] = c
        log_likelihood = (np.log(scale) + shift[..., 0] * batch.valid).sum(axis=0)
    return Forward(alpha, scale, log_likelihood, b)


def backward(transition: np.ndarray, chain: Forward, batch: Batch) -> np.ndarray:
    """β̂_t, scaled by the forward pass's normalisers: ``(T, N, K)``, 0 past an end.

    Examples
    --------
    >>> batch = Batch(np.array([2]))
    >>> a = np.array([[0.7, 0.3], [0.3, 0.7]])
    >>> f = forward(np.array([0.5, 0.5]), a, batch.pad(np.log([[0.9, 0.2]] * 2)), batch)
    >>> np.round((f.alpha * backward(a, f, batch))[0, 0], 3)
    array([0.883, 0.117])
    """
    steps, n, k = chain.alpha.shape
    beta = np.zeros((steps, n, k))
    b = chain.likelihood
    with np.errstate(divide="ignore", invalid="ignore"):
        beta[steps - 1, :batch.running[steps - 1]] = 1.0
        for t in range(steps - 2, -1, -1):
            m, after = batch.running[t], batch.running[t + 1]
            beta[t, :after] = ((b[t + 1, :after] * beta[t + 1, :after]) @ transition.T
                               / chain.scale[t + 1, :after, None])
            beta[t, after:m] = 1.0
    return beta


def smooth(transition: np.ndarray, chain: Forward, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """γ_t = P(X_t | e_1:T) ``(T, N, K)`` (0 past an end) and the backward messages."""
    beta = backward(transition, chain, batch)
    gamma = chain.alpha * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        total = gamma.sum(axis=2, keepdims=True)
        gamma = np.where(total > 0, gamma / np.where(total > 0, total, 1.0), gamma)
    return gamma, beta


def predict(transition: np.ndarray, last: np.ndarray, horizon: int) -> np.ndarray:
    """P(X_{T+h} | e_1:T) = P(X_T | e_1:T) A^h for every row of ``last`` ``(N, K)``.

    Examples
    --------
    >>> predict(np.array([[0.7, 0.3], [0.3, 0.7]]), np.array([[1.0, 0.0]]), 2).round(2)
    array([[0.58, 0.42]])
    """
    return last @ np.linalg.matrix_power(transition, horizon)


def viterbi(log_start: np.ndarray, log_transition: np.ndarray, log_b: np.ndarray,
            batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """The most probable state sequence of every sequence and its log-probability
    log P(x*_1:T, e_1:T), by max-product in log space.

    Returns
    -------
    path : ndarray (T, N) of int
        The states, batch order, 0 past an end.
    log_probability : ndarray (N,)
        Batch order.

    Examples
    --------
    >>> batch = Batch(np.array([3]))
    >>> log_a = np.log([[0.7, 0.3], [0.3, 0.7]])
    >>> log_b = batch.pad(np.log([[0.9, 0.2], [0.9, 0.2], [0.1, 0.8]]))
    >>> path, best = viterbi(np.log([0.5, 0.5]), log_a, log_b, batch)
    >>> path[:, 0].tolist()
    [0, 0, 1]
    """
    steps, n, k = log_b.shape
    dtype = np.int8 if k <= 127 else np.int32
    check_allocation(steps * n * k, "the Viterbi back-pointers", entry_bytes=dtype().itemsize)
    back = np.zeros((steps, n, k), dtype=dtype)
    delta = log_start + log_b[0]
    for t in range(1, steps):
        m = batch.running[t]
        scores = delta[:m, :, None] + log_transition
        best = scores.argmax(axis=1)
        back[t, :m] = best
        delta[:m] = np.take_along_axis(scores, best[:, None, :], axis=1)[:, 0] + log_b[t, :m]
    state = delta.argmax(axis=1)
    log_probability = delta[np.arange(n), state]
    path = np.zeros((steps, n), dtype=np.int64)
    path[batch.sorted_lengths - 1, np.arange(n)] = state
    for t in range(steps - 1, 0, -1):
        m = batch.running[t]
        state[:m] = back[t, np.arange(m), state[:m]]
        path[t - 1, :m] = state[:m]
    return path, log_probability


class Counts(NamedTuple):
    """Baum–Welch's expected counts over a batch: ``start`` (K,), ``transitions`` (K, K),
    ``posterior`` γ ``(T, N, K)`` (0 past an end), ``log_likelihood`` the total."""

    start: np.ndarray
    transitions: np.ndarray
    posterior: np.ndarray
    log_likelihood: float


def expected_counts(start: np.ndarray, transition: np.ndarray, log_b: np.ndarray,
                    batch: Batch) -> Counts:
    """The E-step: expected starts, transitions ξ summed over every step of every
    sequence, the posteriors γ (for the emission counts) and log P(e).

        ξ_ij = Σ_n Σ_t α̂_t(i) A_ij B_{t+1}(j) β̂_{t+1}(j) / c_{t+1}

    Examples
    --------
    >>> batch = Batch(np.array([2]))
    >>> a = np.array([[0.7, 0.3], [0.3, 0.7]])
    >>> counts = expected_counts(np.array([0.5, 0.5]), a,
    ...                          batch.pad(np.log([[0.9, 0.2]] * 2)), batch)
    >>> round(float(counts.transitions.sum()), 6)
    1.0
    """
    chain = forward(start, transition, log_b, batch)
    gamma, beta = smooth(transition, chain, batch)
    k = len(start)
    after = chain.likelihood[1:] * beta[1:] / chain.scale[1:, :, None]
    xi = transition * (chain.alpha[:-1].reshape(-1, k).T @ after.reshape(-1, k))
    return Counts(gamma[0].sum(axis=0), xi, gamma, float(chain.log_likelihood.sum()))

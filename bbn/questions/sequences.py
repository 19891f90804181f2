"""Questions on sequences of a hidden Markov model: observations resolved to indices once,
then filtering, smoothing, prediction, Viterbi, the log-likelihood and Baum–Welch's
expected counts by :mod:`bbn.engines.exact.chains`, batched over the sequences.

    filter: P(X_t | e_1:t)   smooth: P(X_t | e_1:T)   predict: P(X_{T+h} | e_1:T)
    viterbi: argmax_x P(x_1:T, e_1:T)   log_likelihood: log P(e_1:T)

A sequence is a list of observation names (a categorical model) or of numbers (a Gaussian
one); many sequences are given concatenated with their ``lengths``, as hmmlearn takes
them. An observation that is no name of the model is a :class:`QueryError` naming the
position and suggesting the closest names. The model is duck-typed: ``kind``,
``observations``, ``start``, ``transition``, ``log_emission(codes)``.

>>> import numpy as np
>>> observation_codes(["u", "n", "u"], ("u", "n")).tolist()
[0, 1, 0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bbn.core.errors import ImpossibleEvidenceError, NotFittedError, QueryError, suggest
from bbn.engines.exact import chains


def observation_codes(values, names: Sequence[str]) -> np.ndarray:
    """The index of every observation in ``names`` (integers are taken as indices).

    Parameters
    ----------
    values : sequence
        Observation names, or integer indices.
    names : sequence of str
        The model's observation names, in order.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    QueryError
        For a name not in ``names`` (with did-you-mean) or an index out of range.

    Examples
    --------
    >>> observation_codes(np.array([1, 0]), ("a", "b")).tolist()
    [1, 0]
    """
    array = np.asarray(values)
    if array.ndim != 1:
        array = array.reshape(-1) if array.ndim == 2 and array.shape[1] == 1 else array
    if array.ndim != 1:
        raise QueryError(f"a sequence of observations is one-dimensional, not {array.shape}")
    if array.dtype.kind in "iu":
        if not len(array) or (array.min() >= 0 and array.max() < len(names)):
            return array.astype(np.int64, copy=False)
        bad = np.flatnonzero((array < 0) | (array >= len(names)))
        if len(bad):
            raise QueryError(f"observation {int(array[bad[0]])} at position {int(bad[0])} is "
                             f"no index of the {len(names)} observations {list(names)}")
        return array.astype(np.int64, copy=False)
    codes = pd.Index(list(names)).get_indexer(array.astype(str)).astype(np.int64)
    bad = np.flatnonzero(codes < 0)
    if len(bad):
        value = str(array[bad[0]])
        raise QueryError(f"observation {value!r} at position {int(bad[0])} is not one of "
                         f"{list(names)}{suggest(value, names)}")
    return codes


def sequence_lengths(total: int, lengths) -> np.ndarray:
    """``lengths`` checked against the ``total`` number of observations (None: one
    sequence).

    Examples
    --------
    >>> sequence_lengths(5, [2, 3]).tolist(), sequence_lengths(4, None).tolist()
    ([2, 3], [4])
    """
    if lengths is None:
        lengths = [total]
    lengths = np.asarray(lengths, dtype=np.int64).reshape(-1)
    if len(lengths) == 0 or lengths.min() < 1 or lengths.sum() != total:
        raise QueryError(f"lengths {lengths.tolist()[:10]} do not cut {total} observations "
                         "into sequences of at least one step")
    return lengths


class Resolved:
    """Observations read once for one model: the ``batch``, and the emission likelihoods
    ``(T, N, K)`` of every step (:meth:`likelihood`, :meth:`log_likelihood`)."""

    def __init__(self, model, values, lengths) -> None:
        if not model.fitted:
            raise NotFittedError("the HMM's tables are not all set: give them or call fit")
        if model.kind == "gaussian":
            data = np.asarray(values, dtype=float).reshape(-1)
            if not np.isfinite(data).all():
                raise QueryError("a Gaussian sequence holds a value that is not a finite number")
        else:
            data = observation_codes(values, model.observations)
        self.data = data
        self.batch = chains.Batch(sequence_lengths(len(data), lengths))
        self.single = lengths is None
        # state-major (K, T, N) tables gathered at the padded observations
        self.padded = self.batch.pad(data)
        self.categorical = model.kind != "gaussian"
        self.model = model

    def likelihood(self) -> tuple[np.ndarray, np.ndarray | None]:
        """P(e_t | k) ``(K, T, N)``, each row divided by exp(shift), and the shift (None:
        not divided)."""
        if self.categorical:  # no log, no exp
            return np.take(self.model.emission, self.padded, axis=1), None
        return chains.shifted(self.log_likelihood())

    def log_likelihood(self) -> np.ndarray:
        """log P(e_t | k) ``(K, T, N)``."""
        return self.model.log_emission(self.padded)

    def log_table(self) -> tuple[np.ndarray, np.ndarray]:
        """log P(e | k) of the distinct observations ``(K, S)`` and the column of every
        padded step ``(T, N)``: a categorical model's log emission table and the codes, or
        one column per step of a Gaussian one."""
        if self.categorical:
            with np.errstate(divide="ignore"):
                return np.log(self.model.emission), self.padded
        log_b = self.log_likelihood()
        return log_b.reshape(len(log_b), -1), np.arange(self.padded.size).reshape(self.padded.shape)

    def forward(self) -> chains.Forward:
        """The forward pass under the model's tables."""
        b, shift = self.likelihood()
        return chains.forward(self.model.start, self.model.transition, b, self.batch, shift)


def _checked(chain: chains.Forward, batch: chains.Batch) -> None:
    impossible = np.flatnonzero(~np.isfinite(chain.log_likelihood))
    if len(impossible):
        j = impossible[0]
        step = int(np.argmax(~(chain.scale[:, j] > 0)))
        raise ImpossibleEvidenceError({}, f"impossible evidence: sequence "
                                      f"{int(batch.order[j])} has probability 0 under the "
                                      f"model from its step {step}")


def filtered(model, values, lengths=None) -> np.ndarray:
    """P(X_t | e_1:t) for every step: ``(T, K)``, the sequences' rows concatenated."""
    resolved = Resolved(model, values, lengths)
    chain = resolved.forward()
    _checked(chain, resolved.batch)
    return resolved.batch.unpad_states(chain.alpha)


def smoothed(model, values, lengths=None) -> np.ndarray:
    """P(X_t | e_1:T) for every step: ``(T, K)``, the sequences' rows concatenated."""
    resolved = Resolved(model, values, lengths)
    chain = resolved.forward()
    _checked(chain, resolved.batch)
    return resolved.batch.unpad_states(chains.smooth(model.transition, chain, resolved.batch)[0])


def predicted(model, values, horizon: int, lengths=None) -> np.ndarray:
    """P(X_{T+h} | e_1:T): ``(K,)`` for one sequence, ``(N, K)`` for many."""
    if int(horizon) != horizon or horizon < 0:
        raise QueryError(f"the horizon is a whole number of steps ≥ 0, not {horizon!r}")
    resolved = Resolved(model, values, lengths)
    chain = resolved.forward()
    _checked(chain, resolved.batch)
    last = resolved.batch.last(np.moveaxis(chain.alpha, 0, -1))
    answer = chains.predict(model.transition, last, int(horizon))
    return answer[0] if resolved.single else answer


def log_likelihood(model, values, lengths=None):
    """log P(e_1:T): a float for one sequence, ``(N,)`` for many (−inf if impossible)."""
    resolved = Resolved(model, values, lengths)
    chain = resolved.forward()
    answer = np.empty_like(chain.log_likelihood)
    answer[resolved.batch.order] = chain.log_likelihood
    return float(answer[0]) if resolved.single else answer


def most_probable(model, values, lengths=None, names: bool = True):
    """The Viterbi path as state names (indices with ``names=False``) and its
    log P(x*, e): ``(list, float)`` for one sequence; ``(list of lists, (N,) array)``
    for many (indices: one ``(N, T)`` array when the lengths are equal)."""
    resolved = Resolved(model, values, lengths)
    with np.errstate(divide="ignore"):
        path, best = chains.viterbi(np.log(model.start), np.log(model.transition),
                                    *resolved.log_table(), resolved.batch)
    batch = resolved.batch
    if names:
        paths = _named(path, batch, np.asarray(model.hidden_states, dtype=object))
    else:
        rows = np.empty((len(batch.order), batch.steps), dtype=np.intp)   # (N, T), batch order
        np.copyto(rows, path.T)
        paths = rows                   # equal lengths: the batch order is the caller's
        if batch.ragged:
            paths = [None] * len(batch.order)
            for position, (sequence, length) in enumerate(zip(batch.order,
                                                               batch.sorted_lengths)):
                paths[sequence] = rows[position, :length]
    scores = np.empty_like(best)
    scores[batch.order] = best
    if resolved.single:
        return paths[0], float(scores[0])
    return paths, scores


def _named(path: np.ndarray, batch: chains.Batch, labels: np.ndarray) -> list[list]:
    """The paths ``(T, N)`` as lists of state names, in the caller's order; equal lengths
    in blocks of about 65,536 steps (the names of a block stay in the cache while they
    become lists: 1.5× faster than one object array for 1,000 × 1,000 steps)."""
    if batch.ragged:
        paths = [None] * len(batch.order)
        for position, (sequence, length) in enumerate(zip(batch.order, batch.sorted_lengths)):
            paths[sequence] = labels.take(path[:length, position]).tolist()
        return paths
    paths, block = [], max(1, 65536 // batch.steps)    # equal lengths: the caller's order
    for first in range(0, len(batch.order), block):
        paths += labels.take(path[:, first:first + block].T).tolist()
    return paths


def expected_counts(model, resolved: Resolved) -> chains.Counts:
    """Baum–Welch's E-step on observations already resolved."""
    b, shift = resolved.likelihood()
    return chains.expected_counts(model.start, model.transition, b, resolved.batch, shift)

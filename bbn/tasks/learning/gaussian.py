"""Estimating Gaussian (continuous) variables from data.

Per parent configuration pa: the mean μ(pa) and the variance σ²(pa) of the values seen
with it — the sample variance with N − ddof in the denominator (ddof = 1 by default, the
course's N_c − 1), plus ε = var_smoothing · (largest variance of the continuous columns),
never below a floor. :func:`fit_gaussian` groups rows by their parents' codes;
:func:`fit_gaussians` takes weights spreading each row over the configurations (EM's
responsibilities, :mod:`bbn.tasks.learning.mixture`) for several columns at once. Evidence on
such variables is handled by :mod:`bbn.engines.exact.continuous`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.errors import DataError

#: A variance is never below this fraction of the largest variance of the continuous
#: columns (population variance over all rows), nor below this absolute value when every
#: column is constant: a class whose values are all equal keeps a finite density.
VARIANCE_FLOOR = 1e-9


class GaussianFallbackWarning(UserWarning):
    """A parent configuration has no data, so its Gaussian got the pooled mean and variance."""


def variance_epsilon(columns: np.ndarray, var_smoothing: float,
                     weights: np.ndarray | None = None) -> tuple[float, float]:
    """(ε, floor) for continuous columns ``(rows, k)``: ε = var_smoothing · max_j Var(x_j).

    Var is the population variance over all rows (scikit-learn's recipe for ε), weighted
    by ``weights`` (one per row) if given, as if each row were repeated that many times;
    the floor is ``VARIANCE_FLOOR`` times the same largest variance (or absolute when 0).
    """
    if not columns.size:
        largest = 0.0
    elif weights is None:
        largest = float(np.nanmax(np.nanvar(columns, axis=0)))
    else:
        w = weights[:, None] * ~np.isnan(columns)  # a missing cell weighs nothing
        values = np.nan_to_num(columns)
        with np.errstate(invalid="ignore"):  # a column never seen: NaN, as nanvar gives
            mean = (w * values).sum(axis=0) / w.sum(axis=0)
            largest = float(np.nanmax((w * (values - mean) ** 2).sum(axis=0) / w.sum(axis=0)))
    return _smoothing(largest, var_smoothing)


def epsilon_from_moments(columns: Moments, var_smoothing: float) -> tuple[float, float]:
    """(ε, floor) of :func:`variance_epsilon` from the moments of each column (one entry
    per column: n, mean, M2 over its seen values), as chunks sum them.

    >>> columns = Moments(np.array([2.0, 2.0]), np.array([0.0, 5.0]), np.array([2.0, 8.0]))
    >>> epsilon_from_moments(columns, 0.5)
    (2.0, 4e-09)
    """
    with np.errstate(invalid="ignore", divide="ignore"):  # a column never seen: NaN
        spread = columns.m2 / columns.n
    largest = float(np.nanmax(spread)) if spread.size and not np.isnan(spread).all() else 0.0
    return _smoothing(largest, var_smoothing)


def _smoothing(largest: float, var_smoothing: float) -> tuple[float, float]:
    largest = largest if np.isfinite(largest) else 0.0
    return var_smoothing * largest, VARIANCE_FLOOR * (largest if largest > 0 else 1.0)


def fit_gaussian(parent_codes: Sequence[np.ndarray], cardinalities: Sequence[int],
                 x: np.ndarray, *, ddof: int = 1, epsilon: float = 0.0, floor: float = 0.0,
                 weights: np.ndarray | None = None, name: str = "x"):
    """Per parent configuration: μ = Σx/n and σ² = Σ(x − μ)²/(n − ddof) + ε, at least ``floor``.

    Both moments come from ``np.bincount`` over the parents' mixed-radix codes
    (:meth:`Moments.of`); see :func:`gaussian_from_moments`. ``ddof=1`` is the sample
    variance with N − 1 (the course's); ``ddof=0`` the population variance. A
    configuration with no rows gets the pooled mean and variance (with a warning); one
    with n ≤ ddof rows gets variance 0 before ε and the floor.
    """
    q = int(np.prod(cardinalities)) if cardinalities else 1
    index = (mixed_radix(parent_codes, cardinalities) if parent_codes
             else np.zeros(len(x), dtype=np.int64))
    moments = Moments.of(index, x, q, weights)
    return gaussian_from_moments(moments, cardinalities, ddof=ddof, epsilon=epsilon,
                                 floor=floor, name=name)


class Moments(NamedTuple):
    """Per configuration: the (weighted) number of values n, their mean, and
    M2 = Σ w (x − mean)², the sufficient statistics of a Gaussian; they add over chunks
    (Chan, Golub and LeVeque's pairwise update, stable where Σx² − n·mean² is not):

        n = n_a + n_b,   δ = mean_b − mean_a,   mean = mean_a + δ · n_b / n,
        M2 = M2_a + M2_b + δ² · n_a · n_b / n

    >>> a = Moments.of(np.zeros(2, dtype=int), np.array([1.0, 3.0]), 1)
    >>> b = Moments.of(np.zeros(1, dtype=int), np.array([5.0]), 1)
    >>> whole = a + b
    >>> whole.n.tolist(), whole.mean.tolist(), whole.m2.tolist()
    ([3.0], [3.0], [8.0])
    """

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    @classmethod
    def of(cls, index: np.ndarray, x: np.ndarray, q: int,
           weights: np.ndarray | None = None) -> Moments:
        """The moments of ``x`` grouped by ``index`` (0 ≤ index < q): two passes, the mean
        first, then squared deviations from it."""
        w = np.ones(len(x)) if weights is None else weights
        n = np.bincount(index, weights=w, minlength=q)
        total = np.bincount(index, weights=w * x, minlength=q)
        mean = np.divide(total, n, out=np.zeros(q), where=n > 0)
        deviation = x - mean[index]
        return cls(n, mean, np.bincount(index, weights=w * deviation * deviation, minlength=q))

    def __add__(self, other: Moments) -> Moments:
        n = self.n + other.n
        delta = other.mean - self.mean
        share = np.divide(other.n, n, out=np.zeros(n.shape), where=n > 0)
        return Moments(n, self.mean + delta * share,
                       self.m2 + other.m2 + delta * delta * self.n * share)

    def pooled(self) -> Moments:
        """All configurations as one (the moments of every value together)."""
        whole = Moments(self.n[:1] * 0, self.mean[:1] * 0, self.m2[:1] * 0)
        for c in range(len(self.n)):
            whole = whole + Moments(self.n[c:c + 1], self.mean[c:c + 1], self.m2[c:c + 1])
        return whole


def gaussian_from_moments(moments: Moments, cardinalities: Sequence[int], *, ddof: int = 1,
                          epsilon: float = 0.0, floor: float = 0.0, name: str = "x"):
    """μ and σ² = M2/(n − ddof) + ε (at least ``floor``) per parent configuration, shaped
    by the parents' ``cardinalities``; where n = 0, the pooled ones (with a warning).

    >>> m = Moments.of(np.array([0, 0, 1, 1]), np.array([1.0, 3.0, 2.0, 2.0]), 2)
    >>> [a.tolist() for a in gaussian_from_moments(m, [2], ddof=0)]
    [[2.0, 2.0], [1.0, 0.0]]
    """
    def pooled():
        whole = moments.pooled()
        return whole.mean[0], whole.m2[0] / whole.n[0]

    mean, variance = _finish(moments.n, moments.mean, moments.m2, pooled, ddof, epsilon, floor,
                             repr(name))
    shape = tuple(cardinalities)
    return mean.reshape(shape), variance.reshape(shape)


def fit_gaussians(weights: np.ndarray, x: np.ndarray, *, ddof: int = 1, epsilon: float = 0.0,
                  floor: float = 0.0, names: Sequence[str] = ("x",)):
    """Per configuration c and column j: the estimate of :func:`fit_gaussian` with weights.

        n_cj = Σ_r w_rc [x_rj seen]      μ_cj = Σ_r w_rc x_rj / n_cj
        σ²_cj = Σ_r w_rc (x_rj − μ_cj)² / (n_cj − ddof) + ε,   at least ``floor``

    ``weights`` is ``(rows, q)``: how much of each row belongs to each configuration (a
    one-hot matrix is fit_gaussian's grouping; EM's responsibilities spread a row);
    ``x`` is ``(rows, g)``, NaN where missing (such a cell is left out of its column).
    Matrix products, and a loop over the q configurations (not the rows) for the
    squared deviations. Returns μ and σ², each ``(q, g)``.

    >>> mean, variance = fit_gaussians(np.array([[1.0, 0], [1, 0], [0, 1]]),
    ...                                np.array([[1.0], [3.0], [5.0]]), ddof=0)
    >>> mean.ravel().tolist(), variance.ravel().tolist()
    ([2.0, 5.0], [1.0, 0.0])
    """
    seen = ~np.isnan(x)
    complete = bool(seen.all())
    values = x if complete else np.where(seen, x, 0.0)
    q = weights.shape[1]
    n = (np.repeat(weights.sum(axis=0)[:, None], x.shape[1], axis=1) if complete
         else weights.T @ seen)
    mean = np.divide(weights.T @ values, n, out=np.zeros(n.shape), where=n > 0)
    squares = np.empty(n.shape)
    for c in range(q):
        deviation = values - mean[c]
        if not complete:
            deviation *= seen
        squares[c] = weights[:, c] @ (deviation * deviation)

    def pooled():
        w = weights.sum(axis=1)[:, None] * seen
        centre = (w * values).sum(axis=0) / w.sum(axis=0)
        return centre, (w * (values - centre) ** 2 * seen).sum(axis=0) / w.sum(axis=0)

    return _finish(n, mean, squares, pooled, ddof, epsilon, floor,
                   ", ".join(map(repr, names)))


def _finish(n, mean, squares, pooled, ddof: int, epsilon: float, floor: float, name: str):
    """σ² = squares / (n − ddof) (0 where n ≤ ddof) + ε, at least ``floor``; where n = 0,
    the pooled (μ, σ²) of ``pooled()``, with a warning."""
    variance = np.divide(squares, n - ddof, out=np.zeros(n.shape), where=n - ddof > 0)
    empty = n == 0
    if empty.any():
        configurations = int(empty.reshape(len(n), -1).any(axis=1).sum())
        warnings.warn(f"the Gaussian {name} has no data for {configurations} parent "
                      "configuration(s); they get the pooled mean and variance",
                      GaussianFallbackWarning, stacklevel=4)
        centre, spread = (np.broadcast_to(a, n.shape) for a in pooled())
        mean = np.where(empty, centre, mean)
        variance = np.where(empty, spread, variance)
    return mean, np.maximum(variance + epsilon, floor)


def check_ddof(ddof) -> int:
    if not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise DataError(f"ddof must be a non-negative integer, got {ddof!r}")
    return int(ddof)

"""Estimating Gaussian (continuous) variables from data.

Per parent configuration pa: the mean μ(pa) and the variance σ²(pa) of the values seen
with it — the sample variance with N − ddof in the denominator (ddof = 1 by default, the
course's N_c − 1), plus ε = var_smoothing · (largest variance of the continuous columns),
never below a floor. Evidence on such variables is handled by
:mod:`bbn.inference.continuous`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from bbn.codes import mixed_radix
from bbn.errors import DataError

#: A variance is never below this fraction of the largest variance of the continuous
#: columns (population variance over all rows), nor below this absolute value when every
#: column is constant: a class whose values are all equal keeps a finite density.
VARIANCE_FLOOR = 1e-9


class GaussianFallbackWarning(UserWarning):
    """A parent configuration has no data, so its Gaussian got the pooled mean and variance."""


def variance_epsilon(columns: np.ndarray, var_smoothing: float) -> tuple[float, float]:
    """(ε, floor) for continuous columns ``(rows, k)``: ε = var_smoothing · max_j Var(x_j).

    Var is the population variance over all rows (scikit-learn's recipe for ε); the
    floor is ``VARIANCE_FLOOR`` times the same largest variance (or absolute when 0).
    """
    largest = float(np.nanmax(np.nanvar(columns, axis=0))) if columns.size else 0.0
    largest = largest if np.isfinite(largest) else 0.0
    return var_smoothing * largest, VARIANCE_FLOOR * (largest if largest > 0 else 1.0)


def fit_gaussian(parent_codes: Sequence[np.ndarray], cardinalities: Sequence[int],
                 x: np.ndarray, *, ddof: int = 1, epsilon: float = 0.0, floor: float = 0.0,
                 weights: np.ndarray | None = None, name: str = "x"):
    """Per parent configuration: μ = Σx/n and σ² = Σ(x − μ)²/(n − ddof) + ε, at least ``floor``.

    Both moments come from ``np.bincount`` over the parents' mixed-radix codes (two
    passes: the mean first, then squared deviations from it). ``ddof=1`` is the sample
    variance with N − 1 (the course's); ``ddof=0`` the population variance. A
    configuration with no rows gets the pooled mean and variance (with a warning); one
    with n ≤ ddof rows gets variance 0 before ε and the floor.
    """
    q = int(np.prod(cardinalities)) if cardinalities else 1
    index = (mixed_radix(parent_codes, cardinalities) if parent_codes
             else np.zeros(len(x), dtype=np.int64))
    w = np.ones(len(x)) if weights is None else weights
    n = np.bincount(index, weights=w, minlength=q)
    total = np.bincount(index, weights=w * x, minlength=q)
    mean = np.divide(total, n, out=np.zeros(q), where=n > 0)
    deviation = x - mean[index]
    squares = np.bincount(index, weights=w * deviation * deviation, minlength=q)
    variance = np.divide(squares, n - ddof, out=np.zeros(q), where=n - ddof > 0)
    empty = n == 0
    if empty.any():
        warnings.warn(f"the Gaussian {name!r} has no data for {int(empty.sum())} parent "
                      "configuration(s); they get the pooled mean and variance",
                      GaussianFallbackWarning, stacklevel=3)
        pooled = np.average(x, weights=w)
        mean[empty] = pooled
        variance[empty] = np.average((x - pooled) ** 2, weights=w)
    variance = np.maximum(variance + epsilon, floor)
    shape = tuple(cardinalities)
    return mean.reshape(shape), variance.reshape(shape)


def check_ddof(ddof) -> int:
    if not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise DataError(f"ddof must be a non-negative integer, got {ddof!r}")
    return int(ddof)

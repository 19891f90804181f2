"""Learning a conditional linear Gaussian: least squares per discrete configuration.

For a Gaussian X with discrete parents D and continuous parents Y, per configuration d,
with z = (1, y_1, ..., y_m) and the Gram matrix G_d = Σ_{rows at d} (z, x)(z, x)ᵀ::

    (μ(d), b(d)) = argmin Σ (x − μ − b·y)² = (Σ z zᵀ)⁻¹ Σ z x
    σ²(d) = (Σ x² − (μ, b)·Σ z x) / (n_d − ddof)

The Gram matrices add over chunks, so a file is read a block of rows at a time like the
other statistics (:mod:`bbn.tasks.learning.statistics`).

>>> import numpy as np
>>> y = np.array([0.0, 1.0, 2.0, 3.0])
>>> x = 1 + 2 * y + np.array([0.1, -0.1, -0.1, 0.1])   # the noise is orthogonal to (1, y)
>>> gram = Gram.of(np.zeros(4, dtype=np.int64), np.column_stack([np.ones(4), y, x]), 1)
>>> mean, variance, weights = fit_regression(gram, ddof=0, name="x")
>>> mean.round(6).tolist(), weights.round(6).tolist(), variance.round(6).tolist()
([1.0], [[2.0]], [0.01])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bbn.core.errors import DataError


class Gram(NamedTuple):
    """Per configuration, Σ w · (z, x)(z, x)ᵀ: shape ``(q, m + 2, m + 2)``."""

    matrix: np.ndarray

    @classmethod
    def of(cls, index: np.ndarray, design: np.ndarray, q: int) -> Gram:
        """The Gram matrices of the rows of ``design`` (columns 1, y_1..y_m, x) grouped
        by ``index``: one matrix product per configuration that has rows (rows sorted
        by configuration once)."""
        width = design.shape[1]
        matrix = np.zeros((q, width, width))
        if q == 1:
            matrix[0] = design.T @ design
            return cls(matrix)
        order = np.argsort(index, kind="stable")
        sizes = np.bincount(index, minlength=q)
        sorted_design = design[order]
        start = 0
        for k in np.flatnonzero(sizes):  # configurations, not rows
            part = sorted_design[start:start + sizes[k]]
            matrix[k] = part.T @ part
            start += sizes[k]
        return cls(matrix)

    def __add__(self, other: Gram) -> Gram:
        return Gram(self.matrix + other.matrix)


def gaussian_log_likelihood(statistic, name: str) -> tuple[float, int]:
    """(max log-likelihood, free parameters) of a Gaussian given its parents, from its
    statistics (:class:`~bbn.tasks.learning.gaussian.Moments` without continuous parents,
    :class:`Gram` with them): per configuration d with n_d rows and residual sum of
    squares RSS_d, σ̂² = RSS_d / n_d and

        log L = Σ_d −n_d/2 · (log(2π σ̂²_d) + 1),    k = (2 + m) · q

    >>> y = np.array([0.0, 1.0, 2.0, 3.0])
    >>> x = 1 + 2 * y + np.array([0.1, -0.1, -0.1, 0.1])
    >>> gram = Gram.of(np.zeros(4, dtype=np.int64), np.column_stack([np.ones(4), y, x]), 1)
    >>> log_l, k = gaussian_log_likelihood(gram, "x")
    >>> round(log_l, 6), k                       # −2 (log(2π · 0.01) + 1)
    (3.534586, 3)
    """
    if type(statistic) is Gram:
        g = statistic.matrix
        m = g.shape[1] - 2
        n = g[:, 0, 0]
        seen = n > m
        coefficients = np.zeros((len(n), m + 1))
        coefficients[seen] = np.linalg.solve(g[seen, :m + 1, :m + 1],
                                             g[seen, :m + 1, m + 1:])[..., 0]
        rss = g[:, m + 1, m + 1] - np.einsum("ki,ki->k", coefficients, g[:, :m + 1, m + 1])
        k = (2 + m) * len(n)
    else:
        n, rss, k = statistic.n, statistic.m2, 2 * len(statistic.n)
        seen = n > 0
    rss = np.maximum(rss, 0.0)
    if np.any(seen & (rss <= 0)):
        raise DataError(f"the Gaussian {name!r} has zero residual variance at a "
                        "configuration: its likelihood is unbounded")
    variance = rss[seen] / n[seen]
    return float(np.sum(-0.5 * n[seen] * (np.log(2 * np.pi * variance) + 1.0))), int(k)


def fit_regression(gram: Gram, ddof: int, name: str, epsilon: float = 0.0
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(μ(d), σ²(d), b(d)) by least squares, shapes (q,), (q,), (q, m); DataError for a
    configuration with too few rows to estimate a variance."""
    g = gram.matrix
    m = g.shape[1] - 2
    n = g[:, 0, 0]
    short = np.flatnonzero(n <= max(ddof, 0) + m)
    if len(short):
        raise DataError(f"the Gaussian {name!r} has {int(n[short[0]])} row(s) at its "
                        f"discrete configuration #{int(short[0])}, too few for "
                        f"{m + 1} coefficient(s) and a variance")
    coefficients = np.linalg.solve(g[:, :m + 1, :m + 1], g[:, :m + 1, m + 1:])[..., 0]
    residual = g[:, m + 1, m + 1] - np.einsum("ki,ki->k", coefficients, g[:, :m + 1, m + 1])
    variance = np.maximum(residual, 0.0) / (n - ddof) + epsilon
    if np.any(variance <= 0):
        raise DataError(f"the Gaussian {name!r} is an exact linear function of its "
                        "parents in the data (zero residual variance); pass var_smoothing")
    return coefficients[:, 0], variance, coefficients[:, 1:]

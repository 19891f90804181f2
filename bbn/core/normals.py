"""The answer about continuous variables: a normal distribution or a mixture of them.

    p(x) = Σ_k w_k · N(x; μ_k, Σ_k),      E[x] = Σ_k w_k μ_k,
    Cov[x] = Σ_k w_k (Σ_k + μ_k μ_kᵀ) − E[x] E[x]ᵀ

A :class:`Normal` holds the components (weights, means, covariances) over named
continuous variables; one component is a plain (multivariate) normal. Its ``mean`` and
``variance`` (``covariance`` for several variables) are the moment-matched ones; ``pdf``
and, for one variable, ``cdf`` and ``interval`` (P(a < X < b)) are the mixture's.

>>> n = Normal(("x",), [0.5, 0.5], [[0.0], [2.0]], [[[1.0]], [[1.0]]])
>>> n.mean, n.variance                        # 1 + (0 + 4)/2 − 1
(1.0, 2.0)
>>> round(n.cdf(1.0), 6)
0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bbn.core.errors import QueryError

_ERF = np.frompyfunc(math.erf, 1, 1)


class Components(NamedTuple):
    """A mixture's parts: ``weights`` (K,), ``means`` (K,) and ``variances`` (K,) for one
    variable; ``means`` (K, n) and ``variances`` the covariances (K, n, n) for several."""

    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray


class Normal:
    """A normal distribution, or a mixture of normals, over continuous variables.

    Parameters
    ----------
    variables : sequence of str
        The variables, in the order of the means' and covariances' axes.
    weights : array_like
        The components' weights, shape (K,), summing to 1.
    means : array_like
        Shape (K, n).
    covariances : array_like
        Shape (K, n, n).

    Examples
    --------
    >>> n = Normal(("x", "y"), [1.0], [[1.0, 2.0]], [[[1.0, 0.5], [0.5, 2.0]]])
    >>> n.mean.tolist(), n.covariance.tolist()
    ([1.0, 2.0], [[1.0, 0.5], [0.5, 2.0]])
    """

    def __init__(self, variables: Sequence[str], weights, means, covariances) -> None:
        self.variables = tuple(variables)
        self._weights = np.asarray(weights, dtype=float).reshape(-1)
        n = len(self.variables)
        self._means = np.asarray(means, dtype=float).reshape(len(self._weights), n)
        self._covariances = np.asarray(covariances, dtype=float).reshape(
            len(self._weights), n, n)

    # ------------------------------------------------------------- moments
    @property
    def components(self) -> Components:
        """The mixture's weights, means and variances (covariances for several
        variables)."""
        if len(self.variables) == 1:
            return Components(self._weights, self._means[:, 0], self._covariances[:, 0, 0])
        return Components(self._weights, self._means, self._covariances)

    @property
    def mean(self):
        """E[x]: a float for one variable, an array (n,) for several."""
        mean = self._weights @ self._means
        return float(mean[0]) if len(self.variables) == 1 else mean

    @property
    def covariance(self) -> np.ndarray:
        """Cov[x], shape (n, n), moment-matched over the components."""
        mean = self._weights @ self._means
        second = np.einsum("k,kij->ij", self._weights, self._covariances + np.einsum(
            "ki,kj->kij", self._means, self._means))
        return second - np.outer(mean, mean)

    @property
    def variance(self):
        """Var[x]: a float for one variable, the diagonal of :attr:`covariance` for
        several."""
        diagonal = np.diagonal(self.covariance).copy()
        return float(diagonal[0]) if len(self.variables) == 1 else diagonal

    @property
    def std(self):
        """The standard deviation (square root of :attr:`variance`)."""
        return np.sqrt(self.variance) if len(self.variables) > 1 else math.sqrt(self.variance)

    # ------------------------------------------------------------- densities
    def pdf(self, x) -> float | np.ndarray:
        """p(x): for one variable x may be an array of points; for several, a vector of
        length n (or an array (m, n) of points).

        >>> round(Normal(("x",), [1.0], [[0.0]], [[[1.0]]]).pdf(0.0), 6)
        0.398942
        """
        n = len(self.variables)
        points = np.asarray(x, dtype=float)
        scalar = points.ndim == (0 if n == 1 else 1)
        points = points.reshape(-1, n)
        diff = points[:, None, :] - self._means[None]                     # (m, K, n)
        chol = np.linalg.cholesky(self._covariances)                      # (K, n, n)
        z = np.linalg.solve(chol[None], diff[..., None])[..., 0]          # (m, K, n)
        log_det = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        log_p = -0.5 * ((z ** 2).sum(axis=2) + log_det + n * math.log(2 * math.pi))
        density = np.exp(log_p) @ self._weights
        return float(density[0]) if scalar else density

    def cdf(self, x) -> float | np.ndarray:
        """P(X ≤ x) of one variable (x a number or an array).

        >>> round(Normal(("x",), [1.0], [[0.0]], [[[4.0]]]).cdf(2.0), 6)
        0.841345
        """
        if len(self.variables) != 1:
            raise QueryError(f"a cdf is of one variable; this distribution is over "
                             f"{list(self.variables)}")
        points = np.asarray(x, dtype=float)
        sd = np.sqrt(self._covariances[:, 0, 0])
        z = (points.reshape(-1, 1) - self._means[None, :, 0]) / (sd * math.sqrt(2.0))
        values = (0.5 * (1.0 + _ERF(z).astype(float))) @ self._weights
        return float(values[0]) if points.ndim == 0 else values.reshape(points.shape)

    def interval(self, low: float, high: float) -> float:
        """P(low < X < high) of one variable.

        >>> round(Normal(("x",), [1.0], [[0.0]], [[[1.0]]]).interval(-1.96, 1.96), 4)
        0.95
        """
        return float(self.cdf(high) - self.cdf(low))

    def to_json(self) -> dict:
        """The moments and components as JSON values (what ``bbn query --json`` prints).

        >>> Normal(("x",), [1.0], [[1.0]], [[[2.0]]]).to_json()["mean"]
        [1.0]
        """
        return {"variables": list(self.variables),
                "mean": np.atleast_1d(self.mean).tolist(),
                "covariance": self.covariance.tolist(),
                "components": {"weights": self._weights.tolist(),
                               "means": self._means.tolist(),
                               "covariances": self._covariances.tolist()}}

    def to_text(self) -> str:
        """What ``bbn query`` prints: each variable's mean and variance (and standard
        deviation), the mixture's components when there are several.

        >>> print(Normal(("x",), [1.0], [[1.0]], [[[4.0]]]).to_text())
          x   mean 1   variance 4   sd 2
        """
        lines = [f"  {v}   mean {m:.6g}   variance {s:.6g}   sd {math.sqrt(s):.6g}"
                 for v, m, s in zip(self.variables, np.atleast_1d(self.mean),
                                    np.atleast_1d(self.variance))]
        if len(self._weights) > 1:
            lines.append(f"  a mixture of {len(self._weights)} normals (moments matched):")
            for w, m, c in zip(self._weights, self._means, self._covariances):
                lines.append(f"    weight {w:.6g}   mean {', '.join(f'{x:.6g}' for x in m)}"
                             f"   variance {', '.join(f'{x:.6g}' for x in np.diagonal(c))}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        n = len(self._weights)
        kind = "normal" if n == 1 else f"mixture of {n} normals"
        if len(self.variables) == 1:
            return (f"Normal({self.variables[0]}: {kind}, mean {self.mean:.6g}, "
                    f"variance {self.variance:.6g})")
        return f"Normal({', '.join(self.variables)}: {kind})"

    def __str__(self) -> str:
        return self.to_text()

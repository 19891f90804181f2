"""Bayesian learning of a (conditional) linear Gaussian: the normal–inverse-gamma prior.

For a Gaussian X with continuous parents y_1..y_m, per discrete parent configuration d,
with z = (1, y_1, ..., y_m), β = (μ, b_1, ..., b_m) and s the prior's strength::

    β | σ² ~ N(m0, σ² V0),   σ² ~ IG(a0, b0),   V0 = I / s,   m0 = (mean, w, ..., w)

is conjugate: from the Gram matrix Σ (z, x)(z, x)ᵀ of the rows at d (n rows)::

    V_n = (V0⁻¹ + ZᵀZ)⁻¹              m_n = V_n (V0⁻¹ m0 + Zᵀx)
    a_n = a0 + n/2                    b_n = b0 + ½ (xᵀx + m0ᵀV0⁻¹m0 − m_nᵀV_n⁻¹m_n)

The network keeps point estimates: the weights m_n (the posterior mean of β, also its
mode) and σ² = b_n / (a_n − 1), the posterior mean of σ². All configurations are solved
at once (one batched ``numpy.linalg.solve``). As s → 0 the weights tend to least squares
(and with a0 = 1, b0 → 0 the variance to RSS / n); as s → ∞ to the prior mean m0. A
configuration with no rows keeps the prior: m0 and b0 / (a0 − 1).

>>> import numpy as np
>>> from bbn.tasks.learning.regression import Gram
>>> y = np.array([0.0, 1.0, 2.0, 3.0])
>>> x = 1 + 2 * y
>>> gram = Gram.of(np.zeros(4, dtype=np.int64), np.column_stack([np.ones(4), y, x]), 1)
>>> mean, variance, weights = NormalInverseGamma(strength=1e-9).estimate(gram, "x")
>>> mean.round(6).tolist(), weights.round(6).tolist()
([1.0], [[2.0]])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from bbn.core.errors import DataError
from bbn.tasks.learning.gaussian import Moments
from bbn.tasks.learning.regression import Gram


class Posterior(NamedTuple):
    """The normal–inverse-gamma posterior per configuration: m_n ``(q, p)``, V_n
    ``(q, p, p)``, a_n and b_n ``(q,)``, with p = 1 + m coefficients."""

    mean: np.ndarray
    covariance: np.ndarray
    shape: np.ndarray
    scale: np.ndarray


@dataclass(frozen=True)
class NormalInverseGamma:
    """The conjugate prior of a Gaussian's coefficients and variance, per configuration:
    β | σ² ~ N(m0, σ² I / strength), σ² ~ IG(shape, scale).

    Given as ``bbn.BDeu(ess=..., gaussian=NormalInverseGamma(...))`` to :func:`bbn.learn`,
    it replaces least squares for every Gaussian variable (with or without continuous
    parents); the discrete tables get BDeu. The network keeps the posterior mean of the
    coefficients and the posterior mean of the variance, b_n / (a_n − 1).

    Parameters
    ----------
    strength : float, default 1.0
        s: the prior precision of β is s · I / σ², as if s pseudo-rows with z = e_i; > 0.
    mean : float, default 0.0
        The prior mean of the intercept μ (the mean of X when it has no continuous parent).
    weight : float, default 0.0
        The prior mean of every continuous parent's coefficient b_i.
    shape, scale : float, default 2.0 and 1.0
        a0 and b0 of the inverse gamma, both > 0 (prior mean of σ²: b0 / (a0 − 1) = 1).
        The defaults suit data on unit scale; give ``mean`` and ``scale`` in the data's
        units otherwise.

    Raises
    ------
    DataError
        For a setting that is not a finite number in its range, or (when estimating) a
        configuration whose a_n ≤ 1, where the posterior mean of σ² does not exist.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.learning.gaussian import Moments
    >>> moments = Moments.of(np.zeros(3, dtype=int), np.array([1.0, 2.0, 3.0]), 1)
    >>> mean, variance, _ = NormalInverseGamma(strength=1.0).estimate(moments, "x")
    >>> mean.tolist(), variance.tolist()       # 6/4; (1 + (14 − 9)/2) / (2 + 3/2 − 1)
    ([1.5], [1.4])
    """

    strength: float = 1.0
    mean: float = 0.0
    weight: float = 0.0
    shape: float = 2.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        for label in ("strength", "shape", "scale"):
            value = getattr(self, label)
            if not (isinstance(value, (int, float, np.integer, np.floating))
                    and np.isfinite(value) and value > 0):
                raise DataError(f"NormalInverseGamma needs {label} > 0, got {value!r}")
        for label in ("mean", "weight"):
            value = getattr(self, label)
            if not (isinstance(value, (int, float, np.integer, np.floating))
                    and np.isfinite(value)):
                raise DataError(f"NormalInverseGamma needs a finite {label}, got {value!r}")

    def posterior(self, statistic: Gram | Moments) -> Posterior:
        """(m_n, V_n, a_n, b_n) for every configuration from its Gram matrices (or, for a
        Gaussian without continuous parents, its moments), in one batched solve."""
        g = gram_matrix(statistic)
        p = g.shape[1] - 1
        n = g[:, 0, 0]
        zz, zx, xx = g[:, :p, :p], g[:, :p, p], g[:, p, p]
        m0 = np.full(p, float(self.weight))
        m0[0] = self.mean
        precision = zz + self.strength * np.eye(p)
        shift = zx + self.strength * m0
        mean = np.linalg.solve(precision, shift[..., None])[..., 0]
        quadratic = xx + self.strength * (m0 @ m0) - np.einsum("ki,ki->k", mean, shift)
        return Posterior(mean, np.linalg.inv(precision), self.shape + n / 2,
                         self.scale + 0.5 * np.maximum(quadratic, 0.0))

    def estimate(self, statistic: Gram | Moments, name: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(μ(d), σ²(d), b(d)), shapes (q,), (q,), (q, m): the posterior means m_n and
        b_n / (a_n − 1)."""
        post = self.posterior(statistic)
        short = np.flatnonzero(post.shape <= 1)
        if len(short):
            raise DataError(f"the Gaussian {name!r} has a_n = {post.shape[short[0]]:g} ≤ 1 at "
                            f"its discrete configuration #{int(short[0])}: σ²'s posterior "
                            "mean does not exist; give NormalInverseGamma a shape above 1")
        return post.mean[:, 0], post.scale / (post.shape - 1), post.mean[:, 1:]


def gram_matrix(statistic: Gram | Moments) -> np.ndarray:
    """Σ (z, x)(z, x)ᵀ per configuration, ``(q, p + 1, p + 1)``; from moments (z = 1):
    [[n, n·mean], [n·mean, M2 + n·mean²]].

    >>> gram_matrix(Moments(np.array([2.0]), np.array([3.0]), np.array([2.0]))).tolist()
    [[[2.0, 6.0], [6.0, 20.0]]]
    """
    if isinstance(statistic, Gram):
        return statistic.matrix
    n, mean, m2 = statistic
    total = n * mean
    return np.stack([np.stack([n, total], axis=-1),
                     np.stack([total, m2 + total * mean], axis=-1)], axis=-2)

"""Gaussian features: a continuous child of the class, N(x; μ_c, σ²_c) each.

    log P(x | c) = Σ_i −½ [log(2π σ²_ic) + (x_i − μ_ic)² / σ²_ic]

μ and σ² come from the (weighted) moments of each class's values
(:mod:`bbn.tasks.learning.gaussian`): σ² = Σ(x − μ)²/(N_c − ddof) + ε, with
ε = var_smoothing · (largest variance of the Gaussian columns); a missing value is skipped.

>>> import bbn
>>> model = bbn.NaiveBayes(features="gaussian").fit([[1.0], [2.0], [4.0], [6.0]], list("xxyy"))
>>> model.network_.gaussian_parameters("x0")[0].tolist()
[1.5, 5.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bbn.model.network import Network
from bbn.tasks.classification.inputs import Inputs
from bbn.tasks.classification.likelihood import BLOCK, Likelihood, seen_weights
from bbn.tasks.learning.gaussian import Moments, epsilon_from_moments, gaussian_from_moments


@dataclass
class GaussianMoments:
    """(n, mean, M2) per class of every Gaussian column, and ``spread``: the moments of
    each column over all its seen values (for ε). Two batches add by Chan's update."""

    moments: dict[str, Moments]
    spread: Moments

    def __add__(self, other: GaussianMoments) -> GaussianMoments:
        return GaussianMoments({c: m + other.moments[c] for c, m in self.moments.items()},
                               self.spread + other.spread)


class GaussianLikelihood(Likelihood):
    """Continuous features, each normal given the class.

        log P(x | c) = Σ_{i observed} −½ [log(2π σ²_ic) + (x_i − μ_ic)² / σ²_ic]

    Parameters
    ----------
    columns : list of str
        The Gaussian columns, in column order.
    ddof : int
        The variance's denominator is N_c − ddof.
    var_smoothing : float
        ε = var_smoothing · (largest variance of the columns) is added to every variance.

    Attributes
    ----------
    epsilon_ : float
        The ε added to every variance, as fitted.

    Examples
    --------
    >>> import bbn
    >>> from bbn.tasks.classification.inputs import Inputs
    >>> X = [[1.0], [2.0], [4.0], [6.0]]
    >>> model = bbn.NaiveBayes(features="gaussian").fit(X, list("xxyy"))
    >>> part = model.likelihoods_[0]
    >>> part.log_likelihood(model.network_, Inputs.of([[1.5]]), "error").round(3)
    array([[-0.572, -4.328]])
    """

    kind = "gaussian"

    def __init__(self, columns: list[str], ddof: int = 1, var_smoothing: float = 0.0):
        self.columns = columns
        self.ddof = ddof
        self.var_smoothing = var_smoothing

    def count(self, inputs: Inputs, y_codes: np.ndarray, n_classes: int,
              weights: np.ndarray | None, hint: str = "") -> GaussianMoments:
        values = inputs.numbers(self.columns)
        rows, which = np.nonzero(~np.isnan(values))
        spread = Moments.of(which, values[rows, which], len(self.columns),
                            None if weights is None else weights[rows])
        moments = {}
        for j, column in enumerate(self.columns):
            seen = ~np.isnan(values[:, j])
            moments[column] = Moments.of(y_codes[seen], values[seen, j], n_classes,
                                         seen_weights(weights, seen))
        return GaussianMoments(moments, spread)

    def add_node(self, net: Network, column: str, class_name: str,
                 statistics: GaussianMoments) -> None:
        epsilon, floor = epsilon_from_moments(statistics.spread, self.var_smoothing)
        self.epsilon_ = epsilon
        mean, variance = gaussian_from_moments(
            statistics.moments[column], [len(net.states(class_name))], ddof=self.ddof,
            epsilon=epsilon, floor=floor, name=column)
        net.add_gaussian_variable(self.node(column), [class_name], mean, variance)

    def log_likelihood(self, net: Network, inputs: Inputs, unknown: str) -> np.ndarray:
        x = inputs.numbers(self.columns)
        params = [net.gaussian_parameters(self.node(c)) for c in self.columns]
        mean = np.array([p[0] for p in params]).T  # (classes, features)
        variance = np.array([p[1] for p in params]).T
        log_norm = np.log(2.0 * np.pi * variance)
        result = np.empty((len(x), len(mean)))
        for start in range(0, len(x), BLOCK):
            block = x[start:start + BLOCK]
            seen = ~np.isnan(block)
            complete = bool(seen.all())
            for c in range(len(mean)):
                # Same arrangement as scikit-learn's GaussianNB, so ties break alike.
                squares = (block - mean[c]) ** 2 / variance[c]
                if complete:
                    result[start:start + BLOCK, c] = (-0.5 * np.sum(log_norm[c])
                                                      - 0.5 * np.sum(squares, axis=1))
                else:
                    result[start:start + BLOCK, c] = -0.5 * (
                        seen @ log_norm[c] + np.sum(np.where(seen, squares, 0.0), axis=1))
        return result

"""EM for conditional linear Gaussians with missing continuous values.

Given the discrete configuration d of a row (its discrete columns complete), the
continuous variables are jointly normal, x = c(d) + B(d) x + e, e ~ N(0, diag σ²(d)):

    μ(d) = (I − B)⁻¹ c,    Σ(d) = (I − B)⁻¹ diag σ²(d) (I − B)⁻ᵀ

For the rows sharing d and the set O of observed continuous columns (M: the missing
ones), the E-step is the conditional normal, vectorised over those rows:

    E[x_M | x_O] = μ_M + Σ_MO Σ_OO⁻¹ (x_O − μ_O),    Cov[x_M | x_O] = Σ_MM − Σ_MO Σ_OO⁻¹ Σ_OM

and each Gaussian's expected Gram matrix over (1, its continuous parents, itself) is
Σ_rows E[z] E[z]ᵀ + Σ_groups n_g · Cov_g. The M-step is least squares on those
matrices (:mod:`bbn.tasks.learning.regression`, σ² divided by n); the discrete tables
are counted once (they are complete). The observed-data log-likelihood
Σ_rows log N(x_O; μ_O, Σ_OO) + log P(d) never decreases.

>>> import bbn, numpy as np, pandas as pd
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x")
>>> net.add_gaussian_variable("y", ["x"])
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=2000); y = 1 + 2 * x + rng.normal(size=2000) * 0.5
>>> y[::3] = np.nan
>>> result = linear_em(net, pd.DataFrame({"x": x, "y": y}))
>>> round(float(result.network.gaussian_weights("y")["x"]), 1), result.converged
(2.0, True)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bbn.core.codes import mixed_radix
from bbn.core.data import MISSING, encode, numeric_column, require_columns
from bbn.core.errors import DataError
from bbn.core.progress import report, reporter
from bbn.io.chunks import chunks
from bbn.model.network import Network
from bbn.tasks.learning.convergence import EMResult, check_iteration, converged
from bbn.tasks.learning.counting import family_counts
from bbn.tasks.learning.estimators import MLE, table_from_counts
from bbn.tasks.learning.regression import Gram, fit_regression


class _Rows:
    """The data once: discrete codes (complete), continuous values (NaN: missing), the
    groups of rows sharing a discrete configuration and a pattern of missing values."""

    def __init__(self, net: Network, frame: pd.DataFrame, source: str) -> None:
        self.discrete = [v for v in net.variables if not net.is_gaussian(v)]
        self.continuous = [v for v in net.variables if net.is_gaussian(v)]
        require_columns(frame, self.discrete, source)
        self.codes = encode(frame, self.discrete, [net.states(v) for v in self.discrete],
                            source=source)
        holes = (self.codes == MISSING).any(axis=0)
        if holes.any():
            v = self.discrete[int(np.argmax(holes))]
            raise DataError(f"{source}: EM with continuous parents needs complete discrete "
                            f"columns; {v!r} has missing values")
        n = len(frame)
        self.values = np.column_stack([
            numeric_column(frame[v], v, source) if v in frame.columns else np.full(n, np.nan)
            for v in self.continuous]) if self.continuous else np.empty((n, 0))
        # the discrete variables that are parents of Gaussians fix their parameters
        self.given = [d for d in self.discrete if any(
            d in net.parents(v) for v in self.continuous)]
        position = {v: j for j, v in enumerate(self.discrete)}
        cards = [net.cardinality(d) for d in self.given]
        config = (mixed_radix([self.codes[:, position[d]] for d in self.given], cards)
                  if self.given else np.zeros(n, np.int64))
        missing = np.isnan(self.values)
        pattern = (missing @ (1 << np.arange(missing.shape[1], dtype=np.int64))
                   if missing.shape[1] <= 62 else
                   np.unique(missing, axis=0, return_inverse=True)[1].ravel())
        keys, self.first, group = np.unique(np.column_stack([config, pattern]), axis=0,
                                            return_index=True, return_inverse=True)
        self.sizes = np.bincount(group.ravel(), minlength=len(keys))
        # the rows of group g: members[bounds[g]:bounds[g + 1]]
        self.members = np.argsort(group.ravel(), kind="stable")
        self.bounds = np.concatenate([[0], np.cumsum(self.sizes)])
        self.position = position
        self.rows = n


def linear_em(net: Network, data, columns=None, tol: float = 1e-6, max_iter: int = 200,
              ddof: int = 0, chunksize: int | None = None, progress=None,
              estimator=None) -> EMResult:
    """The tables of ``net`` by EM, its Gaussians (with continuous parents or not) learned
    from rows with missing continuous values (see the module's formulas).

    Parameters
    ----------
    net : Network
        Its structure; its discrete variables' columns must be complete. A Gaussian with
        no column at all is hidden (all values missing).
    data : DataFrame, path, array or iterable of DataFrames
        The rows (read whole).
    columns : list of str, optional
        Names for a plain 2-D array's columns.
    tol, max_iter : float, int
        The stopping rule of :mod:`bbn.tasks.learning.convergence`.
    ddof : int, default 0
        σ² divides by n − ddof (0: maximum likelihood, under which the log-likelihood
        never decreases).
    chunksize : int, optional
        Rows per chunk when reading a file.
    progress : callable, True or None
        Told each iteration and its log-likelihood.
    estimator : Estimator, optional
        How the (complete) discrete tables are learned from their counts; MLE by
        default. The log-likelihood trace counts them at these tables.

    Returns
    -------
    EMResult

    Raises
    ------
    DataError
        For missing discrete values, no rows, or a value that is no state or number.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.Network()
    >>> net.add_gaussian_variable("x")
    >>> rows = pd.DataFrame({"x": [1.0, None, 3.0]})
    >>> float(linear_em(net, rows).network.gaussian_parameters("x")[0])
    2.0
    """
    check_iteration(max_iter, tol)
    states = {v: net.states(v) for v in net.variables if not net.is_gaussian(v)}
    frames = [chunk.frame for chunk in chunks(data, columns, states, chunksize)]
    if not frames or sum(map(len, frames)) == 0:
        raise DataError("no rows to learn from")
    rows = _Rows(net, pd.concat(frames, ignore_index=True), "data")
    learned = net.copy()
    log_p_discrete = 0.0
    for v in rows.discrete:
        family = net.parents(v) + (v,)
        counts = family_counts([rows.codes[:, rows.position[u]] for u in family],
                               [net.cardinality(u) for u in family])
        table = table_from_counts(net, v, counts, MLE() if estimator is None else estimator)
        learned.set_cpt(v, table)
        with np.errstate(divide="ignore"):
            log_p_discrete += float(np.sum(counts * np.where(counts > 0, np.log(table), 0.0)))
    _start(learned, rows, ddof)
    trace, tell = [], reporter(progress)
    for iteration in range(1, max_iter + 1):
        grams, log_likelihood = expected_grams(learned, rows)
        trace.append(log_likelihood + log_p_discrete)
        report(tell, "em", iteration, note=f"log-likelihood {trace[-1]:.6f}")
        if converged(trace, tol):
            return EMResult(learned, trace, iteration - 1, True)
        _maximise(learned, rows, grams, ddof)
    grams, log_likelihood = expected_grams(learned, rows)
    trace.append(log_likelihood + log_p_discrete)
    return EMResult(learned, trace, max_iter, converged(trace, tol))


def _start(net: Network, rows: _Rows, ddof: int) -> None:
    """Initial Gaussians: least squares on the rows with each missing value replaced by
    its column's mean (0 and variance 1 for a column with no value)."""
    values = rows.values
    seen = ~np.isnan(values)
    count = np.maximum(seen.sum(axis=0), 1)
    means = np.where(seen, values, 0.0).sum(axis=0) / count
    filled = np.where(seen, values, means)
    spread = np.sqrt(np.where(seen, (values - means) ** 2, 0.0).sum(axis=0) / count)
    spread = np.where(spread > 0, spread, 1.0)
    hidden = ~seen.any(axis=0)
    rng = np.random.default_rng(0)  # a hidden column gets noise, else it stays constant
    filled[:, hidden] = rng.normal(size=(len(values), int(hidden.sum())))
    grams = _grams(net, rows, filled, {})
    for gram in grams.values():
        gram.matrix[:, 1:, 1:] += np.eye(gram.matrix.shape[1] - 1) * 1e-9 * spread.max() ** 2
    _maximise(net, rows, grams, ddof)


def _grams(net: Network, rows: _Rows, filled: np.ndarray, covariance: dict) -> dict:
    """Each Gaussian's Gram matrices of (1, continuous parents, itself) per discrete
    parent configuration: the filled rows' products plus n_g · Cov_g of each group."""
    at = {v: j for j, v in enumerate(rows.continuous)}
    grams = {}
    for v in rows.continuous:
        discrete = [p for p in net.parents(v) if not net.is_gaussian(p)]
        cards = [net.cardinality(p) for p in discrete]
        index = (mixed_radix([rows.codes[:, rows.position[p]] for p in discrete], cards)
                 if discrete else np.zeros(rows.rows, np.int64))
        cols = [at[p] for p in net.parents(v) if net.is_gaussian(p)] + [at[v]]
        gram = Gram.of(index, np.column_stack([np.ones(rows.rows), filled[:, cols]]),
                       math.prod(cards))
        for g, cov in covariance.items():
            gram.matrix[index[rows.first[g]], 1:, 1:] += rows.sizes[g] * cov[np.ix_(cols, cols)]
        grams[v] = gram
    return grams


def _maximise(net: Network, rows: _Rows, grams: dict, ddof: int) -> None:
    for v, gram in grams.items():
        discrete = [net.cardinality(p) for p in net.parents(v) if not net.is_gaussian(p)]
        continuous = [p for p in net.parents(v) if net.is_gaussian(p)]
        mean, variance, b = fit_regression(gram, ddof, v)
        net.set_gaussian(v, mean.reshape(discrete), variance.reshape(discrete), {
            p: b[:, i].reshape(discrete) for i, p in enumerate(continuous)} or None)


def joint_normal(net: Network, continuous: list[str], codes: dict) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """(μ, Σ) of the continuous variables given the discrete states ``codes``
    ({variable: state index}, at least the Gaussians' discrete parents)."""
    p = len(continuous)
    at = {v: j for j, v in enumerate(continuous)}
    c, b, d = np.zeros(p), np.zeros((p, p)), np.zeros(p)
    for v in continuous:
        cell = tuple(codes[q] for q in net.parents(v) if not net.is_gaussian(q))
        mean, variance = net.gaussian_parameters(v)
        c[at[v]], d[at[v]] = mean[cell], variance[cell]
        for y, w in net.gaussian_weights(v).items():
            b[at[v], at[y]] = w[cell]
    inverse = np.linalg.inv(np.eye(p) - b)
    return inverse @ c, inverse @ np.diag(d) @ inverse.T


def expected_grams(net: Network, rows: _Rows) -> tuple[dict, float]:
    """The E-step: each Gaussian's expected Gram matrices, and the observed-data
    log-likelihood of the continuous values given the discrete ones."""
    filled = rows.values.copy()
    covariance, log_likelihood = {}, 0.0
    for g, first in enumerate(rows.first):
        codes = {d: int(rows.codes[first, rows.position[d]]) for d in rows.given}
        mu, sigma = joint_normal(net, rows.continuous, codes)
        missing = np.isnan(rows.values[first])
        observed = ~missing
        members = rows.members[rows.bounds[g]:rows.bounds[g + 1]]
        x_o = rows.values[np.ix_(members, observed)] - mu[observed]
        cov = np.zeros_like(sigma)
        if observed.any():
            s_oo = sigma[np.ix_(observed, observed)]
            chol = np.linalg.cholesky(s_oo)
            white = np.linalg.solve(chol, x_o.T)
            log_likelihood += float(-0.5 * np.sum(white * white) - len(members) * (
                np.sum(np.log(np.diag(chol))) + 0.5 * observed.sum() * math.log(2 * math.pi)))
        if missing.any():
            s_mo = sigma[np.ix_(missing, observed)]
            gain = np.linalg.solve(s_oo, s_mo.T).T if observed.any() else s_mo
            filled[np.ix_(members, missing)] = mu[missing] + (
                x_o @ gain.T if observed.any() else 0.0)
            cov[np.ix_(missing, missing)] = sigma[np.ix_(missing, missing)] - (
                gain @ s_mo.T if observed.any() else 0.0)
            covariance[g] = cov
    return _grams(net, rows, filled, covariance), log_likelihood

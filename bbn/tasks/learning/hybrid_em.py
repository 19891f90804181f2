"""EM for conditional linear Gaussian networks with missing discrete values.

With every continuous value of a row seen, the row's discrete variables D (some of them
missing, or hidden: no column) take a joint configuration c of the Q = Π|D_j| ones; the
row's completed log-probability at c is one vectorised sum over the families:

    s_rc = Σ_{X discrete} log θ_X(c_X | c_pa)
           + Σ_{X Gaussian} log N(x_r; μ_X(c) + b_X(c)·y_r, σ²_X(c))

(−∞ where c disagrees with the row's seen discrete values). E-step: the responsibilities
w_rc = exp(s_rc − logsumexp_c s_rc), one ``(rows, Q)`` matrix, and the observed-data
log-likelihood ℓ = Σ_r logsumexp_c s_rc. M-step: each discrete family's expected counts
Σ_r w_rc summed over the configurations agreeing on the family (through the estimator),
and each Gaussian's weighted least squares per configuration d of its discrete parents,
from the expected Gram matrices Σ_r w_rd (z_r, x_r)(z_r, x_r)ᵀ (w_rd = Σ_{c at d} w_rc;
σ² divided by n, the maximum-likelihood step). ℓ never decreases under ``MLE``.

The configurations are enumerated, so Q is bounded (:data:`MAX_CONFIGURATIONS`) and the
``(rows, Q)`` matrix is checked against the memory limit. Missing discrete values and
missing continuous values in one data set are refused; with the discrete columns complete,
:func:`bbn.tasks.learning.linear_em.linear_em` handles missing continuous values.

>>> import bbn, numpy as np, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"])
>>> net.add_gaussian_variable("y", ["C"])
>>> net.add_gaussian_variable("x", ["C", "y"])
>>> rng = np.random.default_rng(0)
>>> c = rng.integers(0, 2, 3000); y = rng.normal(3.0 * c, 1.0)
>>> x = np.where(c == 1, 1 + 2 * y, -y) + rng.normal(0, 0.1, 3000)
>>> rows = pd.DataFrame({"C": np.where(c == 1, "b", "a"), "y": y, "x": x})
>>> rows.loc[::4, "C"] = None                           # a quarter of C missing
>>> fitted = hybrid_em(net, rows).network
>>> np.round(fitted.gaussian_weights("x")["y"], 2).tolist()
[-1.0, 2.0]
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bbn.core.data import MISSING, encode, numeric_column
from bbn.core.errors import DataError
from bbn.core.memory import check_allocation
from bbn.core.progress import report, reporter
from bbn.io.chunks import chunks
from bbn.model.network import Network
from bbn.tasks.learning.convergence import EMResult, check_iteration, converged
from bbn.tasks.learning.estimators import MLE, Estimator, table_from_counts
from bbn.tasks.learning.linear_em import linear_em
from bbn.tasks.learning.regression import Gram, fit_regression

#: The most joint configurations of the discrete variables enumerated per row.
MAX_CONFIGURATIONS = 4096


class _Rows:
    """The data once: discrete codes (MISSING: missing), the continuous values, and the
    configurations each row agrees with."""

    def __init__(self, net: Network, frame: pd.DataFrame, source: str) -> None:
        self.discrete = [v for v in net.variables if not net.is_gaussian(v)]
        self.continuous = [v for v in net.variables if net.is_gaussian(v)]
        n = len(frame)
        self.cards = [net.cardinality(v) for v in self.discrete]
        self.q = math.prod(self.cards)
        if self.q > MAX_CONFIGURATIONS:
            raise DataError(f"EM with missing discrete values among continuous parents "
                            f"enumerates the {self.q} joint configurations of the discrete "
                            f"variables, more than {MAX_CONFIGURATIONS}")
        check_allocation(n * self.q, f"EM's responsibilities ({n} rows × {self.q} "
                         "discrete configurations)")
        seen = [v for v in self.discrete if v in frame.columns]
        codes = encode(frame, seen, [net.states(v) for v in seen], source=source)
        self.codes = np.full((n, len(self.discrete)), MISSING, dtype=np.int64)
        for j, v in enumerate(seen):
            self.codes[:, self.discrete.index(v)] = codes[:, j]
        absent = [v for v in self.continuous if v not in frame.columns]
        if absent:
            raise DataError(f"{source}: no column for the Gaussian {absent[0]!r} while "
                            "discrete values are missing (EM does not do both)")
        self.values = np.column_stack([numeric_column(frame[v], v, source)
                                       for v in self.continuous])
        holes = np.isnan(self.values).any(axis=1)
        if holes.any():
            j = int(np.argmax(np.isnan(self.values[int(np.argmax(holes))])))
            raise DataError(f"{source}: row {int(np.argmax(holes)) + 1} misses the continuous "
                            f"{self.continuous[j]!r} while discrete values are missing too; EM "
                            "handles missing discrete values (all continuous seen) or missing "
                            "continuous values (all discrete seen), not both in one data set")
        #: digits[c, j]: the state of discrete variable j in configuration c
        self.digits = np.stack(np.unravel_index(np.arange(self.q), self.cards), axis=1) \
            if self.discrete else np.zeros((1, 0), np.int64)
        agree = np.ones((n, self.q), dtype=bool)
        for j in range(len(self.discrete)):
            code = self.codes[:, j:j + 1]
            agree &= (code == MISSING) | (code == self.digits[None, :, j])
        self.agree = agree
        self.rows = n

    def index(self, net: Network, v: str) -> tuple[np.ndarray, int]:
        """Per configuration c, the mixed-radix index of v's discrete parents' states;
        and the number of those parent configurations."""
        parents = [p for p in net.parents(v) if not net.is_gaussian(p)]
        cards = [net.cardinality(p) for p in parents]
        if not parents:
            return np.zeros(self.q, np.int64), 1
        at = [self.discrete.index(p) for p in parents]
        return np.ravel_multi_index(tuple(self.digits[:, j] for j in at), cards), math.prod(cards)


def hybrid_em(net: Network, data, columns=None, tol: float = 1e-6, max_iter: int = 200,
              seed: int | None = 0, ddof: int = 0, chunksize: int | None = None, progress=None,
              estimator: Estimator | None = None, start: Network | None = None) -> EMResult:
    """The tables of ``net`` by EM from rows with missing discrete values, its Gaussians
    having continuous parents (see the module's formulas); without a missing discrete
    value, :func:`~bbn.tasks.learning.linear_em.linear_em`.

    Parameters
    ----------
    net : Network
        Its structure. A discrete variable with no column is hidden.
    data : DataFrame, path, array or iterable of DataFrames
        The rows (read whole).
    columns : list of str, optional
        Names for a plain 2-D array's columns.
    tol, max_iter : float, int
        The stopping rule of :mod:`bbn.tasks.learning.convergence`.
    seed : int or None, default 0
        The random start: responsibilities drawn uniformly over the configurations each
        row agrees with, then one M-step.
    ddof : int, default 0
        σ² divides by the (expected) n − ddof; 0 is the maximum-likelihood step.
    chunksize : int, optional
        Rows per chunk when reading a file.
    progress : callable, True or None
        Told each iteration and its log-likelihood.
    estimator : Estimator, optional
        How the discrete tables are learned from their expected counts; MLE by default
        (under which ℓ never decreases).
    start : Network, optional
        Start from this network's tables instead (the same structure, every table set).

    Returns
    -------
    EMResult

    Raises
    ------
    DataError
        For missing continuous values beside missing discrete ones, more than
        :data:`MAX_CONFIGURATIONS` discrete configurations, no rows, or a value that is
        no state or number.
    """
    check_iteration(max_iter, tol)
    states = {v: net.states(v) for v in net.variables if not net.is_gaussian(v)}
    frames = [chunk.frame for chunk in chunks(data, columns, states, chunksize)]
    if not frames or sum(map(len, frames)) == 0:
        raise DataError("no rows to learn from")
    frame = pd.concat(frames, ignore_index=True)
    discrete = list(states)
    if all(v in frame.columns for v in discrete) and not (
            encode(frame, discrete, list(states.values()), source="data") == MISSING).any():
        return linear_em(net, frame, tol=tol, max_iter=max_iter, ddof=ddof,
                         progress=progress, estimator=estimator)
    rows = _Rows(net, frame, "data")
    estimator = MLE() if estimator is None else estimator
    if start is None:
        rng = np.random.default_rng(seed)
        weights = rows.agree * rng.uniform(0.5, 1.5, size=rows.agree.shape)
        learned = maximise(net, rows, weights / weights.sum(axis=1, keepdims=True), estimator,
                           ddof)
    else:
        learned = start.copy()
    trace, tell = [], reporter(progress)
    for iteration in range(1, max_iter + 1):
        weights, log_likelihood = responsibilities(learned, rows)
        trace.append(log_likelihood)
        report(tell, "em", iteration, note=f"log-likelihood {log_likelihood:.6f}")
        if converged(trace, tol):
            return EMResult(learned, trace, iteration - 1, True)
        learned = maximise(net, rows, weights, estimator, ddof)
    trace.append(responsibilities(learned, rows)[1])
    return EMResult(learned, trace, max_iter, converged(trace, tol))


def responsibilities(net: Network, rows: _Rows) -> tuple[np.ndarray, float]:
    """The E-step: w_rc for every row and discrete configuration, and ℓ."""
    prior = np.zeros(rows.q)
    for j, v in enumerate(rows.discrete):
        table = np.asarray(net.cpt_array(v))
        at = [rows.discrete.index(p) for p in net.parents(v)]
        with np.errstate(divide="ignore"):
            prior += np.log(table[tuple(rows.digits[:, k] for k in at + [j])])
    score = np.broadcast_to(prior, (rows.rows, rows.q)).copy()
    for i, v in enumerate(rows.continuous):
        index, _ = rows.index(net, v)
        mean, variance = (np.asarray(a).ravel()[index] for a in net.gaussian_parameters(v))
        predicted = np.broadcast_to(mean, score.shape).copy()
        for p, b in net.gaussian_weights(v).items():
            predicted += rows.values[:, [rows.continuous.index(p)]] * np.asarray(b).ravel()[index]
        residual = rows.values[:, [i]] - predicted
        score -= 0.5 * (residual * residual / variance + np.log(2 * np.pi * variance))
    score[~rows.agree] = -np.inf
    top = score.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        raise DataError(f"row {int(np.argmin(np.isfinite(top))) + 1} has probability 0 "
                        "under the current tables")
    weights = np.exp(score - top)
    total = weights.sum(axis=1, keepdims=True)
    return weights / total, float(np.sum(np.log(total) + top))


def maximise(net: Network, rows: _Rows, weights: np.ndarray, estimator: Estimator,
             ddof: int = 0) -> Network:
    """The M-step: a copy of ``net`` with the tables of the expected statistics."""
    learned = net.copy()
    joint = weights.sum(axis=0).reshape(rows.cards)
    for j, v in enumerate(rows.discrete):
        family = [rows.discrete.index(p) for p in net.parents(v)] + [j]
        others = tuple(k for k in range(len(rows.discrete)) if k not in family)
        counts = np.moveaxis(joint.sum(axis=others, keepdims=True),
                             family, range(len(family)))
        counts = counts.reshape([rows.cards[k] for k in family])
        learned.set_cpt(v, table_from_counts(net, v, counts, estimator, warn=False))
    for i, v in enumerate(rows.continuous):
        index, q = rows.index(net, v)
        continuous = [p for p in net.parents(v) if net.is_gaussian(p)]
        design = np.column_stack([np.ones(rows.rows)]
                                 + [rows.values[:, rows.continuous.index(p)] for p in continuous]
                                 + [rows.values[:, i]])
        at = np.zeros((rows.q, q))
        at[np.arange(rows.q), index] = 1.0
        spread = weights @ at                                         # w_rd
        gram = Gram(np.einsum("rk,ri,rj->kij", spread, design, design))
        mean, variance, b = fit_regression(gram, ddof, v)
        shape = [net.cardinality(p) for p in net.parents(v) if not net.is_gaussian(p)]
        learned.set_gaussian(v, mean.reshape(shape), variance.reshape(shape), {
            p: b[:, k].reshape(shape) for k, p in enumerate(continuous)} or None)
    return learned

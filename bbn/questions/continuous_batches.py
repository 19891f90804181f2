"""Batches of cases with continuous findings in a network whose Gaussians have
continuous parents: P(T | e_i) for every row of a DataFrame, vectorised over the rows.

Over the configurations d of the discrete variables (at most
:data:`MAX_CONFIGURATIONS`), the continuous variables are N(μ(d), Σ(d)); a row i with
discrete findings e_i and continuous findings x_O (its non-missing Gaussian columns O)
weighs each configuration by

    log w_i(d) = log P(d) + log [d agrees with e_i] + log N(x_O; μ_O(d), Σ_OO(d))

computed for all rows sharing O at once, and P(T | e_i, x_O) = Σ_d w_i(d) [d_T = t] / Σ_d w_i(d)
for discrete targets T. For continuous targets each row's answer is the mixture
Σ_d w_i(d) N(μ_T|O(d), Σ_T|O(d)) given as its mean and variance per target (moments
matched: E = Σ_d w_i(d) m_d, Var = Σ_d w_i(d) (v_d + m_d²) − E²), a ``mean`` and a
``variance`` column each. Each row's answer equals the one-case question's
(:mod:`bbn.questions.continuous_answers`).

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
>>> rows = pd.DataFrame({"y": [0.0, 2.0, None], "x": [None, 1.0, None]})
>>> net.posterior("C", rows).round(4).to_numpy().tolist()
[[0.7311, 0.2689], [0.5, 0.5], [0.5, 0.5]]
>>> net.posterior("x", rows).round(4)   # a mixture per row: its mean and variance
x    mean  variance
0  0.2689    0.6966
1  1.0000    0.0000
2  1.0000    2.0000
"""

from __future__ import annotations

import math
from graphlib import TopologicalSorter

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, ModelError, QueryError
from bbn.core.memory import check_allocation
from bbn.engines.protocol import NO_EVIDENCE

#: The most configurations of the discrete variables a batch enumerates.
MAX_CONFIGURATIONS = 4096


def posterior_of_cases(answering, question, model, impossible: str = "raise",
                       **options) -> np.ndarray:
    """P(free | e_i) for every case, shape ``(N, |T1|, ..., |Tk|)``; for continuous
    targets the mean and variance of each (the mixture's, moments matched), shape
    ``(N, k, 2)`` (NaN rows for impossible cases with ``impossible="nan"``)."""
    view, cases = answering.view, question.evidence
    targets = list(question.free)
    discrete = [v for v in view.variables if v not in view.gaussian]
    cards = [view.cardinality[v] for v in discrete]
    q = math.prod(cards)
    if q > MAX_CONFIGURATIONS:
        raise ModelError(f"a batch with continuous findings enumerates the {q} "
                         f"configurations of the discrete variables; at most "
                         f"{MAX_CONFIGURATIONS}: ask one case at a time")
    n = cases.count
    check_allocation(8 * n * q * 2, f"the weights of {n} cases × {q} configurations")
    prior = answering.engine.posterior(discrete, NO_EVIDENCE) if discrete else None
    with np.errstate(divide="ignore"):
        log_w = np.tile(np.log(np.ravel(prior.values)) if discrete else np.zeros(1), (n, 1))
    states = np.array(np.unravel_index(np.arange(q), cards)) if discrete else \
        np.zeros((0, 1), np.int64)  # states[j, d]: the state of discrete[j] at d
    at = {v: j for j, v in enumerate(discrete)}
    for v, codes in cases.codes.items():
        seen = codes >= 0
        log_w[seen] += np.where(states[at[v]][None, :] == codes[seen, None], 0.0, -np.inf)
    continuous = [t for t in targets if t in view.gaussian]
    if continuous and len(continuous) != len(targets):
        raise QueryError("ask about continuous and discrete variables separately: "
                         f"{continuous} are continuous")
    if continuous:
        check_allocation(8 * n * q * len(targets) * 2,
                         f"the moments of {len(targets)} variables in {n} cases × {q} "
                         "configurations")
    moments = _continuous_findings(view, cases.values, states, at, log_w, continuous)
    top = log_w.max(axis=1, keepdims=True)
    bad = ~np.isfinite(top[:, 0])
    if bad.any() and impossible == "raise":
        raise ImpossibleEvidenceError({}, f"case {cases.row_names[int(np.argmax(bad))]!r} "
                                          "has impossible evidence")
    with np.errstate(invalid="ignore"):
        w = np.exp(log_w - top)
        w /= w.sum(axis=1, keepdims=True)
    if moments is not None:  # continuous targets: the mixtures' moments, row by row
        mean, variance = moments
        first = np.einsum("nd,ndk->nk", w, mean)
        second = np.einsum("nd,ndk->nk", w, variance + mean * mean)
        result = np.stack([first, np.maximum(second - first * first, 0.0)], axis=-1)
        result[bad] = np.nan
        return result
    shape = [view.cardinality[t] for t in targets]
    code = np.ravel_multi_index([states[at[t]] for t in targets], shape)
    result = np.zeros((n, math.prod(shape)))
    for j in range(math.prod(shape)):
        result[:, j] = w[:, code == j].sum(axis=1)
    result[bad] = np.nan
    return result.reshape([n, *shape])


def _continuous_findings(view, values: dict, states: np.ndarray, at: dict,
                         log_w: np.ndarray, targets: list[str] = ()
                         ) -> tuple[np.ndarray, np.ndarray] | None:
    """Add log N(x_O; μ_O(d), Σ_OO(d)) to ``log_w``, grouped by the observed set O; for
    continuous ``targets`` T also their means μ_T + Σ_TO Σ_OO⁻¹ (x_O − μ_O) and
    variances diag(Σ_TT − Σ_TO Σ_OO⁻¹ Σ_OT) per row and configuration d, each of shape
    ``(N, |D|, |T|)`` (None without targets)."""
    gaussian = list(TopologicalSorter({v: view.gaussian[v].continuous
                                       for v in view.gaussian}).static_order())
    columns = [v for v in gaussian if v in values]
    n, q = log_w.shape
    if columns:
        x = np.column_stack([values[v] for v in columns])
        keys, group = np.unique(~np.isnan(x), axis=0, return_inverse=True)
        group = group.ravel()
    else:  # no continuous findings: one group, nothing observed
        x, keys, group = np.zeros((n, 0)), np.zeros((1, 0), bool), np.zeros(n, int)
    where = {v: i for i, v in enumerate(gaussian)}
    observed_of = [np.array([where[columns[c]] for c in np.flatnonzero(key)], int)
                   for key in keys]
    t = np.array([where[v] for v in targets], int)
    if len(t):
        mean, variance = np.empty((n, q, len(t))), np.empty((n, q, len(t)))
    for d in range(q):
        mu, sigma = _joint_normal(view, gaussian, where, states[:, d], at)
        for g, key in enumerate(keys):
            o = observed_of[g]
            rows = np.flatnonzero(group == g)
            if not len(o):
                if len(t):
                    mean[rows, d], variance[rows, d] = mu[t], sigma[t, t]
                continue
            chol = np.linalg.cholesky(sigma[np.ix_(o, o)])
            white = np.linalg.solve(chol, (x[np.ix_(rows, np.flatnonzero(key))] - mu[o]).T)
            log_w[rows, d] += (-0.5 * np.sum(white * white, axis=0)
                               - np.sum(np.log(np.diag(chol))) - 0.5 * len(o) * math.log(
                                   2 * math.pi))
            if len(t):  # Σ_TO Σ_OO⁻¹ = (L⁻¹ Σ_OT)ᵀ L⁻¹, with Σ_OO = L Lᵀ
                half = np.linalg.solve(chol, sigma[np.ix_(o, t)])
                mean[rows, d] = mu[t] + white.T @ half
                variance[rows, d] = sigma[t, t] - np.sum(half * half, axis=0)
    return (mean, variance) if len(t) else None


def _joint_normal(view, gaussian: list, where: dict, config: np.ndarray, at: dict):
    """(μ, Σ) of the Gaussians (in ``gaussian``'s order) at one discrete configuration."""
    p = len(gaussian)
    c, b, d = np.zeros(p), np.zeros((p, p)), np.zeros(p)
    for v in gaussian:
        leaf = view.gaussian[v]
        cell = tuple(int(config[at[u]]) for u in leaf.parents)
        i = where[v]
        c[i], d[i] = leaf.mean[cell], leaf.variance[cell]
        for k, y in enumerate(leaf.continuous):
            b[i, where[y]] = leaf.weights[cell + (k,)]
    inverse = np.linalg.inv(np.eye(p) - b)
    return inverse @ c, inverse @ (d[:, None] * inverse.T)

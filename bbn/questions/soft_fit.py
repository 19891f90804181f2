"""Jeffrey's rule's fit: the likelihoods λ_i under which the joint of the softly observed
variables, P(W_1, ..., W_k | e), has the soft findings q_i as its marginals,

    T(w) ∝ Π_i λ_i(w_i) · P(w | e),   Σ_{w : w_i = x} T(w) = q_i(x)   for every i, x

— the limit of iterative proportional fitting (λ_i ← λ_i · q_i / P_λ(W_i), one sweep
over i), found directly where :mod:`bbn.questions.scaling` can and by sweeps where not,
with a report of how it went (:class:`SoftFit`; a ``ConvergenceWarning`` when it does not
reach :data:`TOLERANCE`).

>>> import numpy as np
>>> weights, fit = fit_soft(np.array([[0.4, 0.1], [0.1, 0.4]]),
...                         [np.array([0.5, 0.5]), np.array([0.7, 0.3])])
>>> fit.converged
True
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

import bbn.questions.scaling as scaling
from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.lazy import reference

#: Iterative proportional fitting stops when every soft marginal is this close.
TOLERANCE = 1e-10

#: ... or after this many sweeps.
SWEEPS = 1000


class SoftFit(NamedTuple):
    """How Jeffrey's rule was met: the steps taken (sweeps of iterative proportional
    fitting, or Newton's steps where the fit was found directly), the largest
    |P'(W = w) − q(w)| left, and whether it is within :data:`TOLERANCE`."""

    sweeps: int
    deviation: float
    converged: bool


#: One soft finding's fit: exact in one sweep.
_EXACT = SoftFit(1, 0.0, True)


def fit_soft(joint: np.ndarray, targets: Sequence[Sequence[float]],
             names: Sequence[str] = ()) -> tuple[list[np.ndarray], SoftFit]:
    """The likelihoods λ_i (one per axis of ``joint``, P(W_1, ..., W_k | e)) under which
    each W_i's marginal is ``targets[i]``: the limit of iterative proportional fitting,

        λ_i ← λ_i · q_i / P_λ(W_i)        (one sweep over i; exact in one for k = 1)

    found directly where :mod:`bbn.questions.scaling` can (two findings: a closed form
    for two states each, Newton's method on log λ; more: Newton's method), by these
    sweeps otherwise.

    Raises
    ------
    ImpossibleEvidenceError
        When a target gives weight to a state of probability 0 given the other evidence.

    Examples
    --------
    >>> import numpy as np
    >>> weights, fit = fit_soft(np.array([0.2, 0.8]), [np.array([0.5, 0.5])])
    >>> weights[0].tolist(), fit.sweeps, fit.converged
    ([1.0, 0.25], 1, True)
    """
    targets = [np.asarray(q, dtype=float) for q in targets]  # (Python floats, as resolved)
    k = joint.ndim
    if k == 1:  # one soft finding: λ = q / P(w | e), exact in one step (a few numbers:
        w = [qi / mi if mi > 0 else -qi for qi, mi in zip(targets[0].tolist(),
                                                           joint.tolist())]
        if min(w) < 0:  # -q(w) marks q(w) > 0 where P(w | e) = 0 (Python floats, not numpy)
            raise _ruled_out(names, 0)
        top = max(w)
        return [np.array([x / top for x in w])], _EXACT
    if k == 2 and joint.size <= 1024:
        return _fit_pair(joint, *targets, names=names)
    if k > 2:  # Newton's method (a large pair sweeps: two products a sweep cost less)
        found = scaling.fit_many(joint, list(targets), TOLERANCE)
        if found is not None and found[2] <= TOLERANCE:
            return found[0], SoftFit(found[1], found[2], True)
    weights = [np.ones_like(t) for t in targets]

    def weighted() -> np.ndarray:
        table = joint
        for i, w in enumerate(weights):
            table = table * w.reshape((1,) * i + (-1,) + (1,) * (k - i - 1))
        return table

    def marginal(table: np.ndarray | None, i: int) -> np.ndarray:
        if table is None and k == 2:  # the weighted joint's marginal, by a matrix product
            m = (weights[0] * (joint @ weights[1]) if i == 0 else
                 weights[1] * (weights[0] @ joint))
        else:
            table = weighted() if table is None else table
            m = table.sum(axis=tuple(j for j in range(k) if j != i))
        total = m.sum()
        if not total > 0:
            raise ImpossibleEvidenceError({}, "the soft findings rule out every state")
        return m / total

    for i, q in enumerate(targets):
        if ((q > 0) & (marginal(joint, i) == 0)).any():
            raise _ruled_out(names, i)
    deviation, sweeps = math.inf, 0
    while sweeps < SWEEPS and deviation > TOLERANCE:
        sweeps += 1
        for i, q in enumerate(targets):
            m = marginal(None, i)
            w = weights[i] * np.divide(q, m, out=np.zeros_like(q), where=m > 0)
            weights[i] = w / w.max()  # only the ratios matter: kept from overflowing
        table = None if k == 2 else weighted()
        deviation = max(float(np.abs(marginal(table, i) - q).max())
                        for i, q in enumerate(targets))
    return weights, SoftFit(sweeps, deviation, deviation <= TOLERANCE)


def _ruled_out(names: Sequence[str], i: int) -> ImpossibleEvidenceError:
    """The error for a soft finding on ``names[i]`` that weighs a state of probability 0
    in the joint fitted; its ``variable`` names the soft variable (None when unnamed), so
    a caller can tell a zero from a product below the smallest double."""
    name = names[i] if i < len(names) else None
    error = ImpossibleEvidenceError({}, (
        f"impossible evidence: the soft finding on {name or 'it'} gives weight to a state "
        "the other evidence rules out (probability 0 there)"))
    error.variable = name
    return error


def _fit_pair(joint: np.ndarray, q0: np.ndarray, q1: np.ndarray,
              names: Sequence[str] = ()) -> tuple[list[np.ndarray], SoftFit]:
    """:func:`fit_soft` of two soft findings (a small joint J) in Python floats: directly
    (:func:`bbn.questions.scaling.fit_scaling`: the closed form for 2 × 2, Newton's
    method otherwise, a few microseconds) where it meets the targets; else by sweeps, two
    matrix-vector products each:

        λ_0 ← q_0 / (J λ_1),   λ_1 ← q_1 / (Jᵀ λ_0)      (each scaled to a largest of 1)

    and after :data:`NEWTON_AFTER` sweeps Newton's method
    (:func:`bbn.questions.scaling.newton_scaling`, its steps counted as sweeps), unless
    the targets cannot be met (:func:`bbn.questions.scaling.infeasible`: the fit stops
    there, not converged) or a Newton step makes no progress (sweeping goes on).

    >>> weights, fit = _fit_pair(np.array([[0.4, 0.1], [0.1, 0.4]]),
    ...                          np.array([0.5, 0.5]), np.array([0.7, 0.3]))
    >>> fitted = weights[0][:, None] * weights[1] * [[0.4, 0.1], [0.1, 0.4]]
    >>> fit.converged, (fitted.sum(axis=0) / fitted.sum()).round(9).tolist()
    (True, [0.7, 0.3])
    """
    l0, l1, fit = fit_rows(joint.tolist(), q0.tolist(), q1.tolist(), names)
    return [np.array(l0), np.array(l1)], fit


def fit_rows(rows: list[list[float]], q0: list[float], q1: list[float],
             names: Sequence[str] = (), direct: bool = True
             ) -> tuple[list[float], list[float], SoftFit]:
    """:func:`_fit_pair` on J's rows and the targets as Python floats: (λ_0, λ_1, each
    with a largest of 1, and the fit): directly where
    :func:`bbn.questions.scaling.fit_scaling` can (J's scale does not matter there;
    ``direct=False``: the caller found it cannot), otherwise by sweeps on J scaled to a
    largest of 1."""
    found = scaling.fit_scaling(rows, q0, q1, TOLERANCE) if direct else None
    if found is not None:
        l0, l1, steps, deviation = found
        return l0, l1, SoftFit(steps, deviation, True)
    top = max(map(max, rows))
    if top > 0:
        rows = [[x / top for x in row] for row in rows]
    columns = [list(c) for c in zip(*rows)]
    for i, (q, lines) in enumerate(((q0, rows), (q1, columns))):
        if any(x > 0 and not any(line) for x, line in zip(q, lines)):
            raise _ruled_out(names, i)
    if not any(any(x > 0 and y > 0 for x, y in zip(q1, row))
               for q, row in zip(q0, rows) if q > 0):
        raise ImpossibleEvidenceError({}, "the soft findings rule out every state")
    mul = operator.mul
    l0, l1 = [1.0] * len(q0), [1.0] * len(q1)
    r = [sum(map(mul, row, l1)) for row in rows]  # J λ_1
    c = [sum(map(mul, column, l0)) for column in columns]  # Jᵀ λ_0
    deviation, sweeps, last = math.inf, 0, (l0, l1, c)
    while sweeps < SWEEPS:
        sweeps += 1
        l0 = [q / x if x > 0 else 0.0 for q, x in zip(q0, r)]
        top = max(l0)
        if top > 0:  # only the ratios matter: λ_0 kept at a largest of 1 (λ_1 follows it)
            l0 = [x / top for x in l0]
        c = [sum(map(mul, column, l0)) for column in columns]
        l1 = [q / x if x > 0 else 0.0 for q, x in zip(q1, c)]
        r = [sum(map(mul, row, l1)) for row in rows]
        m0 = list(map(mul, l0, r))
        t0 = sum(m0)
        if not 0 < t0 < math.inf:  # underflow: findings that contradict each other
            sweeps -= 1
            l0, l1, c = last
            break
        last = l0, l1, c
        # P_λ(W_1) = q_1 wherever Jᵀ λ_0 > 0 by construction: W_0's deviation decides
        deviation = max([abs(m / t0 - q) for m, q in zip(m0, q0)])
        if deviation <= TOLERANCE:
            break
        if sweeps == NEWTON_AFTER:  # slow: Newton's method from here, or on sweeping
            solved = scaling.newton_scaling(rows, q0, q1, l0, TOLERANCE)
            if solved is None and scaling.infeasible(rows, q0, q1):
                break  # no joint meets both: said (a warning), not swept 1000 times
            if solved is not None:
                l0, steps = solved
                sweeps += steps
                c = [sum(map(mul, column, l0)) for column in columns]
                l1 = [q / x if x > 0 else 0.0 for q, x in zip(q1, c)]
                r = [sum(map(mul, row, l1)) for row in rows]
                m0 = list(map(mul, l0, r))
                t0 = sum(m0)
                deviation = max([abs(m / t0 - q) for m, q in zip(m0, q0)])
                break
    m1 = list(map(mul, l1, c))
    t1 = sum(m1)
    deviation = max(deviation, max([abs(m / t1 - q) for m, q in zip(m1, q1)]) if t1 > 0
                    else 1.0)
    top0, top1 = max(l0), max(l1)
    return ([x / top0 for x in l0], [x / top1 for x in l1],
            SoftFit(sweeps, deviation, deviation <= TOLERANCE))


#: Sweeps of :func:`_fit_pair` before it turns to Newton's method
#: (:func:`bbn.questions.scaling.newton_scaling`).
NEWTON_AFTER = 8


def warn_unmet(fit: SoftFit, names: Sequence[str]) -> None:
    """Warn when iterative proportional fitting did not meet the soft findings."""
    if not fit.converged:
        warnings.warn(f"Jeffrey's rule: the soft findings on {list(names)} were met to within "
                      f"{fit.deviation:.3g} after {fit.sweeps} sweeps (not {TOLERANCE:g}): "
                      "they may contradict each other",
                      reference("bbn.engines.approximate.lbp:ConvergenceWarning"),
                      stacklevel=7)

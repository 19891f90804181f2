"""Matrix scaling for two soft findings: the likelihoods λ_0, λ_1 under which
diag(λ_0) J diag(λ_1) has given row and column sums, by Newton's method in Python
floats (the tables are a few states square), for :func:`bbn.questions.uncertain._fit_pair`
when sweeping (iterative proportional fitting) is slow.

>>> l0, steps = newton_scaling([[1.0, 0.5], [0.5, 1.0]], [0.5, 0.5], [0.5, 0.5],
...                            [1.0, 1.0], 1e-12)
>>> l0, steps  # symmetric: already met
([1.0, 1.0], 0)
"""

from __future__ import annotations

import math
import operator


def newton_scaling(rows: list[list[float]], q0: list[float], q1: list[float],
                   l0: list[float], tolerance: float,
                   steps: int = 60) -> tuple[list[float], int] | None:
    """λ_0 of the scaling S = diag(λ_0) J diag(λ_1) of J (``rows``, its largest 1) with
    row sums ``q0`` and column sums ``q1``, by Newton's method on u = log λ_0 from ``l0``
    (λ_1 = q_1 / Jᵀλ_0 given u, so the column sums are met), on the rows and columns
    the targets weigh: with r = S 1,

        H δ = q_0 − r,   H = diag(r) − S diag(1/q_1) Sᵀ   (δ of the last row 0: the
        scale is free),   u ← u + t δ   (t halved until max |r − q_0| falls)

    converging quadratically inside, and by a constant factor a step where the fit lies
    on the boundary (some of J's cells fitted to 0, where sweeping is slow). Returns
    (λ_0 with a largest of 1, the Newton steps), or None when a step makes no progress
    (the caller sweeps on).

    >>> l0, steps = newton_scaling([[0.4, 0.1], [0.1, 0.4]], [0.5, 0.5], [0.7, 0.3],
    ...                            [1.0, 1.0], 1e-12)
    >>> [round(x, 12) for x in l0], steps  # λ_1 = q_1 / Jᵀλ_0 = (7/3, 2/3): rows 0.5, 0.5
    ([0.5, 1.0], 4)
    """
    live = [i for i, q in enumerate(q0) if q > 0]
    kept = [j for j, q in enumerate(q1) if q > 0]
    p0, p1 = [q0[i] for i in live], [q1[j] for j in kept]
    matrix = [[rows[i][j] for j in kept] for i in live]
    columns = [list(c) for c in zip(*matrix)]
    mul, n = operator.mul, len(live) - 1

    def at(u: list[float]):
        top = max(u)
        a = [math.exp(x - top) for x in u]
        c = [sum(map(mul, column, a)) for column in columns]
        if not min(c) > 0:
            return None
        b = [q / x for q, x in zip(p1, c)]
        r = [ai * sum(map(mul, row, b)) for ai, row in zip(a, matrix)]
        return a, b, r, max([abs(x - q) for x, q in zip(r, p0)])

    if not min(l0[i] for i in live) > 0:
        return None  # a weighed row reaching no weighed column: the targets cannot be met
    u = [math.log(l0[i]) for i in live]
    now = at(u)
    if now is None:
        return None
    a, b, r, deviation = now
    done = 0
    while deviation > tolerance and done < steps:
        done += 1
        s = [[ai * x * bj for x, bj in zip(row, b)] for ai, row in zip(a, matrix)]
        t = [[x / q for x, q in zip(row, p1)] for row in s]
        h = [[(r[i] if i == k else 0.0) - sum(map(mul, t[i], s[k])) for k in range(n)]
             for i in range(n)]
        d = solved(h, [q - x for q, x in zip(p0, r)])
        if d is None:
            return None
        d.append(0.0)
        size = 1.0
        while True:
            moved = [x + size * y for x, y in zip(u, d)]
            then = at(moved)
            if then is not None and then[3] < deviation:
                break
            size *= 0.5
            if size < 1e-4:
                return None
        while size >= 1.0 and tolerance < then[3] > 0.1 * deviation:  # slow: the boundary
            size *= 2.0
            further = [x + size * y for x, y in zip(u, d)]
            beyond = at(further)
            if beyond is None or not beyond[3] < then[3]:
                break
            moved, then = further, beyond
        u, (a, b, r, deviation) = moved, then
    if deviation > tolerance:
        return None
    l0 = [0.0] * len(q0)
    for i, x in zip(live, a):
        l0[i] = x
    return l0, done


def solved(h: list[list[float]], g: list[float]) -> list[float] | None:
    """x with h x = g (the first len(h) of g) by Gaussian elimination with partial
    pivoting, in Python floats (a few unknowns: faster than numpy's call); None when h
    is singular.

    >>> solved([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0])
    [0.8, 1.4]
    """
    n = len(h)
    m = [row[:] + [x] for row, x in zip(h, g)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(m[i][k]))
        if m[p][k] == 0:
            return None
        m[k], m[p] = m[p], m[k]
        pivot = m[k]
        for i in range(k + 1, n):
            f = m[i][k] / pivot[k]
            if f:
                m[i] = [x - f * y for x, y in zip(m[i], pivot)]
    x = [0.0] * n
    for k in range(n - 1, -1, -1):
        x[k] = (m[k][n] - sum(m[k][j] * x[j] for j in range(k + 1, n))) / m[k][k]
    return x


def infeasible(rows: list[list[float]], q0: list[float], q1: list[float],
               largest: int = 10) -> bool:
    """Whether no table on J's support (``rows``) has row sums ``q0`` and column sums
    ``q1``, not even in the limit (cells fitted to 0): some set I of the rows weighed
    asks for more than the columns they reach give,

        q_0(I) > q_1(N(I)) + 1e-12,   N(I) = {j : q_1(j) > 0, J_ij > 0 for some i ∈ I}

    (a flow condition: otherwise iterative proportional fitting converges). Checked over
    every I of up to ``largest`` rows weighed; False (not known) for more.

    >>> infeasible([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [0.9, 0.1])  # J copies W_0
    True
    >>> infeasible([[1.0, 0.0], [1.0, 1.0]], [0.1, 0.9], [0.1, 0.9])  # on the boundary
    False
    """
    live = [i for i, q in enumerate(q0) if q > 0]
    if len(live) > largest:
        return False
    reach = [sum(1 << j for j, (x, q) in enumerate(zip(rows[i], q1)) if x > 0 and q > 0)
             for i in live]
    asked = [q0[i] for i in live]
    for subset in range(1, 1 << len(live)):
        members = [k for k in range(len(live)) if subset >> k & 1]
        columns = 0
        for k in members:
            columns |= reach[k]
        given = sum(q for j, q in enumerate(q1) if columns >> j & 1)
        if sum(asked[k] for k in members) > given + 1e-12:
            return True
    return False

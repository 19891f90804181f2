"""Newton's method for the scaling of two soft findings (:mod:`bbn.questions.scaling`),
in Python floats, on the smaller side's log λ with the other side met exactly: a 2 × m
table by a scalar (:func:`two_lines`), three rows written out (:func:`three_lines`), up to
six by lists (:func:`newton_rows`, :func:`solved`). Each step is Newton's on the log-odds
of the row sums (exact for one column; much faster from a far start), each start is the
answer at once when W_0 ⊥ W_1 (the rows of J proportional), and each answer's deviation
is T's own, computed from the λ returned.

>>> l0, l1, steps, deviation = two_lines([(0.4, 0.1), (0.1, 0.4)], [0.5, 0.5],
...                                      [0.7, 0.3], 1e-10)
>>> [round(x, 12) for x in l0], [round(x, 12) for x in l1]
([0.5, 1.0], [1.0, 0.285714285714])
"""

from __future__ import annotations

import math
import operator

#: Where the direct methods stop: each |row or column sum − target| at most this times
#: the tolerance asked (quadratic convergence: most stop far below).
MARGIN = 0.1

#: Sums of targets this close are equal: a set of rows taking exactly what the columns
#: they reach give (the fit lies on the boundary), or more (it cannot be met).
TIGHT = 1e-12


def two_lines(lines, q0, q1, tolerance, steps: int = 60):
    """The scaling of a 2 × m table J, given by its columns as pairs (J_0j, J_1j)
    (``lines``: an n × 2 table's rows serve as they are, its transpose's columns), zeros
    allowed, to row sums ``q0`` and column sums ``q1`` (positive): with λ_0 = (1, t) and
    λ_1j = q_1j / (J_0j + t J_1j) the columns are met, and the row-0 sum

        f(t) = w(J_1· = 0) + Σ_j w_j z_j  =  q_00,   w = q_1 / Σ q_1,
        z_j = 1 / (1 + t J_1j / J_0j)   (the sum over the columns J_0j, J_1j > 0)

    decreases from f(0+) = w(J_0· > 0) to f(∞) = w(J_1· = 0): one root when q_00 lies
    strictly between (on either end the fit is on the boundary, beyond it the targets
    cannot be met: None). Where J's first 2 × 2 has odds ratio 1 (|J_00 J_11 − J_01 J_10|
    ≤ ε (J_00 J_11 + J_01 J_10), ε = 0.1 ``tolerance``: W_0 ⊥ W_1, it seems) T at
    t = q_01 J_00 / (q_00 J_10) (the root when the rows are proportional) is taken if it
    deviates at most ε. Otherwise s = log t is solved from the independent guess
    t = q_01 Σ J_0· / (q_00 Σ J_1·) by Newton's method on the log-odds of Σ w z within its
    range (0, h), h = Σ w (exact for one column), with d = −dΣ w z / ds = Σ w z (1 − z)
    and q = q_00 − w(J_1· = 0):

        δ = log(Σ w z (h − q) / ((h − Σ w z) q)) Σ w z (h − Σ w z) / (h d)

    a step at most 8, kept inside the bracket of signs (halving where a step leaves it),
    to |f − q_00| ≤ ε: where the last step predicts that (|g_k|³ ≤ 0.1 ε |g_(k−1)|², the
    quadratic convergence), the answer is computed there at once and taken when it
    deviates at most ε. Returns (λ_0, λ_1, each with a largest of 1, the evaluations (the
    start counted), the largest |marginal − target| of T), or None.

    >>> l0, l1, steps, deviation = two_lines([(0.4, 0.1), (0.1, 0.4)], [0.5, 0.5],
    ...                                      [0.7, 0.3], 1e-10)
    >>> [round(x, 12) for x in l0], deviation < 1e-13
    ([0.5, 1.0], True)
    >>> two_lines([(0.2, 0.1), (0.6, 0.3)], [0.5, 0.5], [0.25, 0.75], 1e-10)[2:]
    (1, 0.0)
    """
    p0, p1 = q0
    limit = MARGIN * tolerance
    (x0, y0), (x1, y1) = lines[0], lines[1]
    x, y = x0 * y1, x1 * y0
    if x > 0 < y and -limit * (x + y) <= x - y <= limit * (x + y):  # W_0 ⊥ W_1, it seems
        found = _two_fitted(lines, q0, q1, p1 * x0 / (p0 * y0), 1)
        if found is not None and found[3] <= limit:
            return found
    inverse = 1.0 / sum(q1)
    pairs, reach, floor, sum0, sum1, positive = [], 0.0, 0.0, 0.0, 0.0, True
    for (x, y), q in zip(lines, q1):
        sum0 += x
        sum1 += y
        if x > 0 < y:
            q *= inverse
            reach += q
            pairs.append((q, y / x))
        elif x > 0:
            floor += q * inverse
            positive = False
        elif y > 0:
            positive = False
        else:
            return None  # a column neither row reaches
    target = p0 / (p0 + p1) - floor
    if not positive and not TIGHT < target < reach - TIGHT:
        return None
    odds = math.log((reach - target) / target) if 0 < target < reach else None
    s, low, high = math.log(p1 * sum0 / (p0 * sum1)), -math.inf, math.inf
    done, previous = 0, 0.0
    while done < steps:
        done += 1
        if not -700.0 < s < 700.0:
            return None  # beyond floating point: the fit is not for this method
        t = math.exp(s)
        f = slope = 0.0
        for w, rho in pairs:
            z = 1.0 / (1.0 + t * rho)
            w *= z
            f += w
            slope += w * (1.0 - z)
        g = f - target
        if -limit <= g <= limit:
            break
        if g > 0:
            low = s
        else:
            high = s
        if not slope > 0:
            step = g * math.inf
        elif odds is not None and 0 < f < reach:
            step = (math.log(f / (reach - f)) + odds) * f * (reach - f) / (reach * slope)
        else:
            step = g / slope
        following = s + (step if -8.0 < step < 8.0 else 8.0 if g > 0 else -8.0)
        if not low < following < high:  # outside the bracket: halved
            following = (low + high) / 2
        if following == s:
            break
        s, g = following, abs(g)
        if g * g * g <= 0.1 * limit * previous * previous:  # the next is the last
            found = _two_fitted(lines, q0, q1, math.exp(s), done + 1)
            if found is not None and found[3] <= limit:
                return found
        previous = g
    else:
        return None
    return _two_fitted(lines, q0, q1, t, done)


def _two_fitted(lines, q0, q1, t, done):
    """:func:`two_lines`' answer at λ_0 = (1, t), λ_1j = q_1j / (J_0j + t J_1j) (``lines``:
    the pairs (J_0j, J_1j)): (λ_0, λ_1, each scaled to a largest of 1, ``done``, the
    largest |marginal − target| of T), or None where a J_0j + t J_1j is 0.

    >>> _two_fitted([(1.0, 1.0), (1.0, 3.0)], [0.5, 0.5], [0.5, 0.5], 1.0, 1)[:2]
    ([1.0, 1.0], [1.0, 0.5])
    """
    l1, cells, r0, r1 = [], [], 0.0, 0.0
    try:
        for (x, y), q in zip(lines, q1):
            y *= t
            v = q / (x + y)
            l1.append(v)
            x *= v
            y *= v
            r0 += x
            r1 += y
            cells.append(x + y)
    except ZeroDivisionError:
        return None
    scale = 1.0 / (r0 + r1)
    deviation = max(worst((r0, r1), q0, scale), worst(cells, q1, scale))
    top = max(l1)
    return ([1.0, t] if t <= 1.0 else [1.0 / t, 1.0], [x / top for x in l1], done,
            deviation)


def newton_rows(rows, q0, q1, tolerance, steps: int = 30):
    """Newton's method on u = log λ_0 (rows, every target positive) from λ_0 = q_0 / (J 1),
    with λ_1 = q_1 / c, c = Jᵀ λ_0 (the columns met): the potential
    Φ(u) = Σ_j q_1j log c_j − Σ_i q_0i u_i is convex, its gradient r − q_0 (r = T 1) and
    Hessian H_ik = [i = k] r_i − λ_0i λ_0k Σ_j J_ij J_kj q_1j / c_j² (u of the last row
    kept: the scale is free). The step is Newton's on the log-odds of r,
    F_i = log(r_i / r_n) − log(q_0i / q_0n) = 0 (i < n: exact where J has one column,
    much faster where the start is far): its Jacobian (diag(1/r) + 11ᵀ / r_n) H, whose
    first factor's inverse is diag(r) − r rᵀ (Σ r = 1), so

        H δ = −(r ⊙ F − r (r · F))

    (Newton's own H δ = q_0 − r where that is not downhill for Φ), at most 8 in u. A step
    is taken where the residual falls; where not, it is halved until Φ falls (Armijo), and
    from then on the steps are Newton's own, each taken by Armijo's rule alone until the
    residual is below 10⁻⁶ (Φ falling at each: no cycle); a log-odds step that does not
    halve the residual turns to Newton's own steps as well.
    Returns (λ_0, λ_1, 1 + steps, deviation), or None (no progress).

    >>> rows = [[1.0, 2.0, 3.0, 1.0], [2.0, 1.0, 1.0, 1.0], [1.0, 1.0, 2.0, 1.0],
    ...         [1.0, 3.0, 1.0, 2.0]]
    >>> l0, l1, steps, deviation = newton_rows(rows, [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1],
    ...                                    1e-12)
    >>> steps > 1, deviation < 1e-13
    (True, True)
    """
    mul, truediv = operator.mul, operator.truediv
    s1 = sum(q1)
    p, w = q0, (q1 if s1 == 1.0 else [x / s1 for x in q1])
    columns = list(zip(*rows))
    sums = list(map(sum, rows))
    if not min(sums) > 0:
        return None
    n = len(p) - 1
    last = rows[:n]
    odds, careful = [math.log(x / p[n]) for x in p[:n]], False

    def at(a):
        c = [sum(map(mul, column, a)) for column in columns]
        if not min(c) > 0 < min(a):
            return None
        b = list(map(truediv, w, c))
        r = [x * sum(map(mul, row, b)) for x, row in zip(a, rows)]
        g = list(map(operator.sub, r, p))
        return a, c, b, r, g, max(map(abs, g))

    def potential(a, c):
        return sum(map(mul, w, map(math.log, c))) - sum(map(mul, p, map(math.log, a)))

    now = at(list(map(truediv, p, sums)))
    if now is None:
        return None
    limit = MARGIN * tolerance
    for done in range(steps + 1):
        a, c, b, r, g, deviation = now
        if deviation <= limit:
            scale = 1.0 / sum(r)
            deviation = max(worst(r, q0, scale), worst(map(mul, b, c), q1, scale))
            top0, top1 = max(a), max(b)
            return [x / top0 for x in a], [x / top1 for x in b], done + 1, deviation
        if done == steps:
            return None
        v = list(map(truediv, b, c))  # q_1 / c²
        y = [[x * z for z in row] for x, row in zip(a, last)]  # λ_0i J_ij: no overflow
        e = [list(map(mul, row, v)) for row in y]
        h = [[(r[i] if i == k else 0.0) - sum(map(mul, y[i], e[k])) for k in range(n)]
             for i in range(n)]
        d = None
        if odds is not None and min(r) > 0:
            f = [math.log(x / r[n]) - y for x, y in zip(r, odds)]
            mean = sum(map(mul, r, f))
            d = solved(h, [x * (mean - y) for x, y in zip(r, f)])
        if d is None or not sum(map(mul, g, d)) < 0:  # not downhill: Newton's own step
            d = solved(h, [-x for x in g])
            if d is None:
                return None
        d.append(0.0)
        longest = max(map(abs, d))
        size, before = (1.0 if longest <= 8.0 else 8.0 / longest), None
        while True:
            then = at([x * math.exp(size * y) for x, y in zip(a, d)])
            if then is not None:
                if then[5] < deviation and (not careful or then[5] <= 1e-6):
                    if then[5] > 0.5 * deviation:
                        odds = None  # slow: Newton's own steps from here
                    break
                odds, careful = None, True  # from here Newton's own, by Armijo's rule
                before = potential(a, c) if before is None else before
                if potential(then[0], then[1]) <= before + 1e-4 * size * sum(map(mul, g, d)):
                    break
            size *= 0.5
            if not size >= 1e-6:  # no progress (or NaN)
                return None
        now = then
    return None


def three_lines(lines, q0, q1, tolerance, steps: int = 60):
    """:func:`newton_rows` for three rows, written out, J given by its columns (``lines``,
    three numbers each): one pass over them gives c = Jᵀ λ_0, λ_1 = w / c (w = q_1 / Σ q_1),
    the row sums r of T and the Hessian's 2 × 2 (u_2 kept). H = diag(r) − T diag(1/w) Tᵀ
    is the Laplacian of the rows weighed by W_ik = Σ_j T_ij T_kj / w_j (the columns are
    met: r_i = Σ_k W_ik), so from sums of positive terms, without cancellation,

        H = [[W_01 + W_02, −W_01], [−W_01, W_01 + W_12]],
        det H = W_01 W_02 + W_01 W_12 + W_02 W_12   (its spanning trees),

    solved by Cramer's rule; the step (from the log-odds of r) and its line search are
    :func:`newton_rows`', and where a step predicts the last (|g_k|³ ≤ 0.1 ε |g_(k−1)|²,
    ε = 0.1 ``tolerance``) the answer is computed there at once (:func:`_three_fitted`)
    and taken when it deviates at most ε. Where J's first 2 × 2 has odds ratio 1
    (|J_00 J_11 − J_01 J_10| ≤ ε (J_00 J_11 + J_01 J_10): W_0 ⊥ W_1, it seems) T at
    λ_0 = q_0 / J_·0 (the answer when the rows are proportional) is taken first if it
    deviates at most ε; otherwise the start is λ_0 = q_0 / (J 1).

    >>> lines = [(1.0, 2.0, 3.0), (2.0, 1.0, 1.0), (1.0, 1.0, 2.0)]
    >>> l0, l1, steps, deviation = three_lines(lines, [0.2, 0.3, 0.5], [0.5, 0.25, 0.25], 1e-12)
    >>> steps > 1, deviation < 1e-13
    (True, True)
    """
    p0, p1, p2 = q0
    limit = MARGIN * tolerance
    (x00, x10, x20), (x01, x11, _) = lines[0], lines[1]
    x, y = x00 * x11, x01 * x10
    if x > 0 < y and x20 > 0 and -limit * (x + y) <= x - y <= limit * (x + y):
        found = _three_fitted(lines, q0, q1, p0 / x00, p1 / x10, p2 / x20, 1)  # W_0 ⊥ W_1?
        if found is not None and found[3] <= limit:
            return found
    total = sum(q1)
    w = q1 if -1e-15 < total - 1.0 < 1e-15 else [q / total for q in q1]
    sum0 = sum1 = sum2 = 0.0
    for x0, x1, x2 in lines:
        sum0 += x0
        sum1 += x1
        sum2 += x2
    if not (sum0 > 0 and sum1 > 0 and sum2 > 0):
        return None
    a0, a1, a2 = p0 / sum0, p1 / sum1, p2 / sum2
    odds0, odds1 = math.log(p0 / p2), math.log(p1 / p2)

    base = None  # the last point taken: (λ_00, λ_01, deviation, Φ or None)
    size = d0 = d1 = slope = previous = 0.0
    odds, careful = True, False
    for done in range(1, steps + 1):
        r0 = r1 = r2 = w01 = w02 = w12 = 0.0
        try:
            for (x0, x1, x2), b in zip(lines, w):  # λ_0i J_ij, then T_ij: no overflow
                x0 *= a0
                x1 *= a1
                x2 *= a2
                c = x0 + x1 + x2
                b /= c  # λ_1j
                r0 += x0 * b
                r1 += x1 * b
                r2 += x2 * b
                b /= c  # T_ij T_kj / w_j = λ_0i J_ij λ_0k J_kj w_j / c_j²
                c = x0 * b
                w01 += c * x1
                w02 += c * x2
                w12 += x1 * x2 * b
        except ZeroDivisionError:  # a column of J is 0, or λ_0 underflowed
            if base is None:
                return None
            r0 = math.nan
        g0, g1, g2 = r0 - p0, r1 - p1, r2 - p2
        deviation = g0 if g0 >= 0 else -g0  # max |g| by comparisons (NaN in r_0 kept)
        if g1 > deviation or g1 < -deviation:
            deviation = abs(g1)
        if g2 > deviation or g2 < -deviation:
            deviation = abs(g2)
        if base is not None and (not deviation < base[2] or careful and deviation > 1e-6):
            odds = False  # from here Newton's own steps, each taken by Armijo's rule on Φ
            careful = True
            if base[3] is None:
                base = base[:3] + (_potential(lines, w, q0, base[0], base[1], a2),)
            if not (deviation == deviation and 0 < a0 < math.inf and 0 < a1 < math.inf
                    and _potential(lines, w, q0, a0, a1, a2) <= base[3] + 1e-4 * size * slope):
                size *= 0.5
                if not size >= 1e-6:  # no progress
                    return None
                a0, a1 = base[0] * math.exp(size * d0), base[1] * math.exp(size * d1)
                continue
        elif base is not None and deviation > 0.5 * base[2]:
            odds = False  # slow: Newton's own steps from here
        if deviation <= limit:
            return _three_fitted(lines, q0, q1, a0, a1, a2, done)
        det = w01 * w02 + w01 * w12 + w02 * w12
        if not det > 0:
            return None
        h00, h11 = w01 + w02, w01 + w12
        e0, e1 = g0, g1
        if odds and r0 > 0 and r1 > 0 and r2 > 0:  # the log-odds of r: r_i (F_i − r·F),
            f0, f1 = math.log(r0 / r2) - odds0, math.log(r1 / r2) - odds1  # Σ r = 1
            mean = r0 * f0 + r1 * f1
            e0, e1 = r0 * (f0 - mean), r1 * (f1 - mean)
        d0, d1 = (h11 * e0 + w01 * e1) / -det, (w01 * e0 + h00 * e1) / -det
        slope = g0 * d0 + g1 * d1
        if not slope < 0:  # not downhill: Newton's own step
            d0, d1 = (h11 * g0 + w01 * g1) / -det, (w01 * g0 + h00 * g1) / -det
            slope = g0 * d0 + g1 * d1
        longest = d0 if d0 >= 0 else -d0
        if d1 > longest or d1 < -longest:
            longest = abs(d1)
        size, base = (1.0 if longest <= 8.0 else 8.0 / longest), (a0, a1, deviation, None)
        a0, a1 = a0 * math.exp(size * d0), a1 * math.exp(size * d1)
        if deviation * deviation * deviation <= 0.1 * limit * previous * previous:
            found = _three_fitted(lines, q0, q1, a0, a1, a2, done + 1)  # the last
            if found is not None and found[3] <= limit:
                return found
        previous = deviation
    return None


def _potential(lines, w, q0, a0, a1, a2):
    """:func:`three_lines`' potential Φ = Σ_j w_j log c_j − q_00 log λ_00 − q_01 log λ_01
    (c = Jᵀ λ_0, u_2 = log λ_02 kept), J given by its columns (``lines``).

    >>> _potential([(1.0, 1.0, 2.0)], [1.0], [0.25, 0.25, 0.5], 1.0, 1.0, 1.0)
    1.3862943611198906
    """
    return (sum([q * math.log(x0 * a0 + x1 * a1 + x2 * a2) for (x0, x1, x2), q
                 in zip(lines, w)]) - q0[0] * math.log(a0) - q0[1] * math.log(a1))


def _three_fitted(lines, q0, q1, a0, a1, a2, done):
    """:func:`three_lines`'s answer at λ_0 = (a0, a1, a2), λ_1 = q_1 / (Jᵀ λ_0) (``lines``: J's
    columns, three numbers each): (λ_0, λ_1, each scaled to a largest of 1, ``done``, the
    largest |marginal − target| of T), or None where Jᵀ λ_0 has a 0.

    >>> _three_fitted([(1.0, 1.0, 2.0), (1.0, 1.0, 2.0)], [0.25, 0.25, 0.5], [0.5, 0.5],
    ...               1.0, 1.0, 1.0, 1)
    ([1.0, 1.0, 1.0], [1.0, 1.0], 1, 0.0)
    """
    l1, cells, r0, r1, r2 = [], [], 0.0, 0.0, 0.0
    try:
        for (x0, x1, x2), w in zip(lines, q1):
            x0, x1, x2 = x0 * a0, x1 * a1, x2 * a2
            w /= x0 + x1 + x2
            l1.append(w)
            x0, x1, x2 = x0 * w, x1 * w, x2 * w
            r0 += x0
            r1 += x1
            r2 += x2
            cells.append(x0 + x1 + x2)
    except ZeroDivisionError:
        return None
    scale = 1.0 / (r0 + r1 + r2)
    deviation = max(worst((r0, r1, r2), q0, scale), worst(cells, q1, scale))
    top0, top1 = max(a0, a1, a2), max(l1)
    return [a0 / top0, a1 / top0, a2 / top0], [x / top1 for x in l1], done, deviation


def worst(values, targets, scale: float) -> float:
    """max |scale · value − target| (a loop: a few numbers).

    >>> worst([1.0, 3.0], [0.2, 0.8], 0.25)
    0.050000000000000044
    """
    worst = 0.0
    for x, q in zip(values, targets):
        x = abs(x * scale - q)
        if x > worst:
            worst = x
    return worst


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

"""Matrix scaling for soft findings: the likelihoods λ_0, λ_1 under which
T = diag(λ_0) J diag(λ_1) has given row sums q_0 and column sums q_1, in Python floats
(the tables are a few states a side: a numpy call costs more than the arithmetic), for
:func:`bbn.questions.soft_fit.fit_soft`; :func:`fit_many` does the same for three or
more findings (a k-way table, numpy). :func:`fit_scaling` answers directly where
it can: 2 × 2 by the closed form, a table whose rows are proportional (W_0 ⊥ W_1 given
the evidence) in one step, 2 × m by a scalar Newton's method, larger ones by Newton's
method on the smaller side (:mod:`bbn.questions.scaling_newton`), a fit on the boundary
(some cells fitted to 0) block by block; :func:`newton_scaling` and :func:`infeasible`
serve the sweeps that remain where it cannot (targets that cannot be met, badly scaled
tables).

>>> l0, l1, steps, deviation = fit_scaling([[0.5, 1.0], [0.5, 1.0]], [0.3, 0.7],
...                                        [0.5, 0.5])
>>> [round(x, 12) for x in l0], [round(x, 12) for x in l1], steps  # W_0 ⊥ W_1
([0.428571428571, 1.0], [1.0, 0.5], 1)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from bbn.questions.scaling_newton import (
    TIGHT,
    newton_rows,
    solved,
    three_lines,
    two_lines,
    worst,
)

#: The most states of the smaller side :func:`fit_scaling` takes on (larger: sweeps).
_LARGEST = 6


def fit_scaling(rows: list[list[float]], q0: list[float], q1: list[float],
                tolerance: float = 1e-10
                ) -> tuple[list[float], list[float], int, float] | None:
    """λ_0, λ_1 (each with a largest of 1) with T = diag(λ_0) J diag(λ_1) of row sums
    ``q0`` and column sums ``q1`` (J = ``rows``; the targets sum to 1), without sweeping:
    λ = 0 on the states a target gives 0, and on the rest

        one row or column   λ_1 = q_1 / J_0·   (or λ_0 = q_0 / J_·0)
        2 × 2               the closed form (:func:`closed_form`)
        2 × m, n × 2        a scalar Newton's method (:func:`two_rows`)
        larger              Newton's method on log λ of the smaller side (up to 6 states:
                            :func:`bbn.questions.scaling_newton.three_lines`,
                            :func:`bbn.questions.scaling_newton.newton_rows`)

    The Newton paths start from λ_0 = q_0 / (J 1), λ_1 = q_1 / (Jᵀ λ_0); where J's first
    2 × 2 has odds ratio 1, T at the start exact for proportional rows (W_0 ⊥ W_1) is
    taken at once if it deviates at most 0.1 ``tolerance`` (its own deviation, computed).

    A fit on the boundary (cells of J > 0 that every table with these sums has 0, found
    by the flow condition of :func:`infeasible`) is the fit of J with those cells 0,
    block by block, the blocks' λ set apart by factors that leave the cells below
    10⁻³ ``tolerance``. Returns (λ_0, λ_1, the steps (the start counted), the largest
    |marginal − target| of T), or None when the targets cannot be met or the fit is not
    within ``tolerance``: the caller sweeps (:func:`newton_scaling`, :func:`infeasible`).

    >>> l0, l1, steps, deviation = fit_scaling([[0.4, 0.1], [0.1, 0.4]], [0.5, 0.5],
    ...                                        [0.7, 0.3])
    >>> [round(x, 12) for x in l0], [round(x, 12) for x in l1], steps
    ([0.5, 1.0], [1.0, 0.285714285714], 1)
    >>> fit_scaling([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [0.9, 0.1]) is None  # no fit
    True
    """
    every_row, every_column = min(q0) > 0, min(q1) > 0
    if every_row and every_column:
        found = _scaled(rows, q0, q1, tolerance, True)
        return found if found is not None and found[3] <= tolerance else None
    live = range(len(q0)) if every_row else [i for i, q in enumerate(q0) if q > 0]
    kept = range(len(q1)) if every_column else [j for j, q in enumerate(q1) if q > 0]
    if not live or not kept:
        return None
    if len(live) == 1 and every_column:  # W_0 known: T's row is q_1
        found = _one_line(rows[live[0]], q1, q0[live[0]])
        found = found and ([1.0], found[0], 1, found[1])
    else:
        table = ([rows[i] for i in live] if every_column else
                 [[rows[i][j] for j in kept] for i in live])
        found = _scaled(table, q0 if every_row else [q0[i] for i in live],
                        q1 if every_column else [q1[j] for j in kept], tolerance, True)
    if found is None or not found[3] <= tolerance:
        return None
    l0, l1 = found[0], found[1]
    if not every_row:
        l0 = [0.0] * len(q0)
        for i, x in zip(live, found[0]):
            l0[i] = x
    if not every_column:
        l1 = [0.0] * len(q1)
        for j, x in zip(kept, found[1]):
            l1[j] = x
    return l0, l1, found[2], found[3]


def _scaled(rows, q0, q1, tolerance, split):
    """:func:`fit_scaling` where every target is positive: (λ_0, λ_1, steps, deviation),
    or None; ``split``: look for cells forced to 0 first.

    >>> _scaled([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0]], [0.5, 0.5], [0.2, 0.3, 0.5], 1e-10,
    ...         True)[:3]  # proportional rows: one step
    ([1.0, 0.5], [0.4, 0.3, 1.0], 1)
    """
    n, m = len(q0), len(q1)
    if n == 2 == m and min(rows[0]) > 0 and min(rows[1]) > 0:
        found = closed_form(rows, q0, q1)
        if found is not None:
            return found[0], found[1], 1, found[2]
    if n == 1:
        found = _one_line(rows[0], q1, q0[0])
        return found and ([1.0], found[0], 1, found[1])
    if m == 1:
        found = _one_line([row[0] for row in rows], q0, q1[0])
        return found and (found[0], [1.0], 1, found[1])
    if n == 2 or m == 2:  # a scalar Newton's method (its bracket says a boundary)
        if n == 2:
            found = two_lines(list(zip(rows[0], rows[1])), q0, q1, tolerance)
        else:
            found = two_lines(rows, q1, q0, tolerance)
            found = found and (found[1], found[0], found[2], found[3])
        if found is not None or not split:
            return found
    if min(n, m) > _LARGEST:
        return None  # sweeping costs less than solving for Newton's steps in Python floats
    if split and not all(map(all, rows)):  # a cell of J is 0
        forced = _forced(rows, q0, q1)
        if forced is None:
            return None
        if forced:
            return _blocks(rows, q0, q1, forced, tolerance)
        if n == 2 or m == 2:
            return None
    if n > m:  # Newton's method on the smaller side
        found = (three_lines(rows, q1, q0, tolerance) if m == 3 else
                 newton_rows([list(c) for c in zip(*rows)], q1, q0, tolerance))
        return found and (found[1], found[0], found[2], found[3])
    return three_lines(list(zip(*rows)), q0, q1, tolerance) if n == 3 else newton_rows(
        rows, q0, q1, tolerance)


def _one_line(line, q, other):
    """The scaling of a table of one row J_0· (``line``) to column sums ``q`` and row sum
    ``other``: λ_1 = q / J_0· (T's row is q), scaled to a largest of 1, and the largest
    |marginal − target| of T; None where a cell is 0.

    >>> _one_line([0.5, 0.25], [0.5, 0.5], 1.0)
    ([0.5, 1.0], 0.0)
    """
    weights, cells, total, top = [], [], 0.0, 0.0
    for x, p in zip(line, q):
        if not x > 0:
            return None
        v = p / x
        weights.append(v)
        x *= v
        cells.append(x)
        total += x
        if v > top:
            top = v
    deviation = max(worst(cells, q, 1.0 / total), abs(1.0 - other))
    return [x / top for x in weights], deviation


def closed_form(rows: list[list[float]], q0: list[float], q1: list[float]
                ) -> tuple[list[float], list[float], float] | None:
    """The scaling of a positive 2 × 2 table J = [[a, b], [c, d]] to row sums (p, 1 − p)
    and column sums (q, 1 − q) in closed form: sweeping keeps the odds ratio
    θ = a d / (b c), so T = [[x, p − x], [q − x, 1 − p − q + x]] with
    x (1 − p − q + x) = θ (p − x) (q − x), the root in (max(0, p + q − 1), min(p, q)) of

        (1 − θ) x² + β x − θ p q = 0,   β = 1 − p − q + θ (p + q)

    (θ ≤ 1, the columns swapped otherwise; x = 2 θ p q / (β + √D) for β > 0, else
    (√D − β) / (2 (1 − θ)), D = β² + 4 (1 − θ) θ p q: no cancellation). Then
    λ_0 = (1, (q − x) a / (c x)), λ_1 = (x / a, (p − x) / b), each scaled to a largest of
    1. Returns (λ_0, λ_1, the largest |marginal − target| of T), or None when x falls
    outside (an underflow).

    >>> l0, l1, deviation = closed_form([[2.0, 1.0], [1.0, 2.0]], [0.5, 0.5], [0.5, 0.5])
    >>> [round(x, 12) for x in l0 + l1]  # θ = 4: x = 1/3, T = [[1/3, 1/6], [1/6, 1/3]]
    [1.0, 1.0, 1.0, 1.0]
    >>> l0, l1, deviation = closed_form([[0.4, 0.1], [0.1, 0.4]], [0.5, 0.5], [0.7, 0.3])
    >>> [round(x, 12) for x in l0 + l1]  # θ = 16: x = 7/15, T = [[7, 1/2], [7/2, 4]] / 15
    [0.5, 1.0, 1.0, 0.285714285714]
    """
    (a, b), (c, d) = rows
    s0, s1 = q0[0] + q0[1], q1[0] + q1[1]
    p, p_, q, q_ = q0[0] / s0, q0[1] / s0, q1[0] / s1, q1[1] / s1
    theta = (a / b) * (d / c)  # ratios first: J's scale does not matter
    mirrored = theta > 1.0
    if mirrored:  # the columns swapped (θ → 1 / θ)
        a, b, c, d, q, q_, theta = b, a, d, c, q_, q, 1.0 / theta
    beta = p_ - q + theta * (p + q)
    root = math.sqrt(beta * beta + 4.0 * (1.0 - theta) * theta * p * q)
    x = 2.0 * theta * p * q / (beta + root) if beta > 0 else (root - beta) / (2.0 - 2.0 * theta)
    if not 0 < x < min(p, q):
        return None
    u, v, t = x / a, (p - x) / b, (q - x) * a / (c * x)
    if mirrored:
        u, v = v, u
    top = u if u > v else v
    u, v = u / top, v / top
    r0, r1 = (1.0, t) if t <= 1.0 else (1.0 / t, 1.0)
    (a, b), (c, d) = rows
    t00, t01, t10, t11 = r0 * a * u, r0 * b * v, r1 * c * u, r1 * d * v
    total = t00 + t01 + t10 + t11
    return [r0, r1], [u, v], max(
        abs((t00 + t01) / total - q0[0]), abs((t10 + t11) / total - q0[1]),
        abs((t00 + t10) / total - q1[0]), abs((t01 + t11) / total - q1[1]))


def two_rows(row0: list[float], row1: list[float], q0: list[float], q1: list[float],
             tolerance: float = 1e-10, steps: int = 60
             ) -> tuple[list[float], list[float], int, float] | None:
    """The scaling of a 2 × m table J (rows ``row0``, ``row1``, zeros allowed) to row sums
    ``q0`` and column sums ``q1`` (positive): λ_0 = (1, t) and λ_1j = q_1j / (J_0j + t J_1j),
    t the root of the row-0 sum by :func:`bbn.questions.scaling_newton.two_lines` (the
    formulas there). Returns (λ_0, λ_1, each with a largest of 1, the evaluations (the
    start counted), the largest |marginal − target| of T), or None (the fit on the
    boundary, or none).

    >>> l0, l1, steps, deviation = two_rows([0.4, 0.1], [0.1, 0.4], [0.5, 0.5], [0.7, 0.3])
    >>> [round(x, 12) for x in l0], [round(x, 12) for x in l1], deviation < 1e-13
    ([0.5, 1.0], [1.0, 0.285714285714], True)
    >>> two_rows([0.2, 0.6], [0.1, 0.3], [0.5, 0.5], [0.25, 0.75])[2:]  # proportional
    (1, 0.0)
    """
    return two_lines(list(zip(row0, row1)), q0, q1, tolerance, steps)


def _forced(rows, q0, q1) -> set[tuple[int, int]] | None:
    """The cells of J > 0 that every table on J's support with these sums has 0: (i, j)
    with i ∉ I, j ∈ N(I) for a set I of rows taking exactly what the columns they reach
    give (q_0(I) = q_1(N(I)), the flow condition of :func:`infeasible`, over the subsets
    of the smaller side); None when a set asks for more (no fit).

    >>> sorted(_forced([[1.0, 0.0], [1.0, 1.0]], [0.5, 0.5], [0.5, 0.5]))  # row 0: col 0
    [(1, 0)]
    """
    flipped = len(q0) > len(q1)
    if flipped:
        rows, q0, q1 = [list(c) for c in zip(*rows)], q1, q0
    n, whole = len(q0), (1 << len(q0)) - 1
    reach = [sum([1 << j for j, x in enumerate(row) if x > 0]) for row in rows]
    forced: set[tuple[int, int]] = set()
    reached, wanted, given = [0] * (1 << n), [0.0] * (1 << n), {}
    for subset in range(1, whole):  # each from the subset without its lowest row
        i = (subset & -subset).bit_length() - 1
        rest = subset & (subset - 1)
        reached[subset] = columns = reached[rest] | reach[i]
        wanted[subset] = asked = wanted[rest] + q0[i]
        offered = given.get(columns)
        if offered is None:
            offered = given[columns] = sum([q for j, q in enumerate(q1) if columns >> j & 1])
        if asked > offered + TIGHT:
            return None
        if asked >= offered - TIGHT:  # the rows outside may not reach these columns
            for k in range(n):
                cells = 0 if subset >> k & 1 else reach[k] & columns
                while cells:
                    low = cells & -cells
                    forced.add((k, low.bit_length() - 1))
                    cells ^= low
    columns = reached[whole >> 1] | reach[n - 1]  # every row's (they force no cell)
    if sum(q0) > sum([q for j, q in enumerate(q1) if columns >> j & 1]) + TIGHT:
        return None
    return {(j, i) for i, j in forced} if flipped else forced


def _blocks(rows, q0, q1, forced, tolerance):
    """The fit on the boundary: J with the ``forced`` cells 0 falls into blocks (the
    connected parts of its support, grown as bit masks of rows and columns), each fitted
    to its share s of the targets (q_0 / s, q_1 / s, scaled back so that T sums to s
    there); a block whose rows reach another's columns by a forced cell has its λ_0
    scaled down and λ_1 up by E^level (level: the longest path down the forced cells,
    E = 10 + Σ_forced T_ij / (10⁻⁴ tolerance), leaving those cells below 10⁻⁴ tolerance).
    Returns :func:`fit_scaling`'s answer, or None (a block's sums differ, a cycle).

    >>> l0, l1, steps, deviation = _blocks([[1.0, 0.0], [1.0, 1.0]], [0.5, 0.5],
    ...                                    [0.5, 0.5], {(1, 0)}, 1e-10)
    >>> l0[1] < 1e-10 < l1[1], deviation < 1e-10  # T = [[1/2, 0], [0, 1/2]]
    (True, True)
    """
    n, m = len(q0), len(q1)
    cleared = [list(row) for row in rows]
    for i, j in forced:
        cleared[i][j] = 0.0
    reach = []
    for row in cleared:
        mask = 0
        for j, x in enumerate(row):
            if x > 0:
                mask |= 1 << j
        reach.append(mask)
    row_block, column_block, blocks = [-1] * n, [-1] * m, []
    for i in range(n):
        if row_block[i] < 0:
            members, columns, grown = 1 << i, reach[i], True
            while grown:
                grown = False
                for k, mask in enumerate(reach):
                    if mask & columns and not members >> k & 1:
                        members, columns, grown = members | 1 << k, columns | mask, True
            kept = [j for j in range(m) if columns >> j & 1]
            if not kept:
                return None  # a row reaching no column
            block = [k for k in range(n) if members >> k & 1]
            for k in block:
                row_block[k] = len(blocks)
            for j in kept:
                column_block[j] = len(blocks)
            blocks.append((block, kept))
    if min(column_block) < 0:
        return None  # a column no row reaches
    a, b, steps = [0.0] * n, [0.0] * m, 0
    for members, kept in blocks:
        share = sum([q0[i] for i in members])
        if abs(share - sum([q1[j] for j in kept])) > TIGHT:
            return None
        table = [[cleared[i][j] for j in kept] for i in members]
        found = _scaled(table, [q0[i] / share for i in members],
                        [q1[j] / share for j in kept], tolerance, False)
        if found is None:
            return None
        la, lb, done, _ = found
        steps += done
        mass = sum([x * sum(map(operator.mul, row, lb)) for x, row in zip(la, table)])
        for i, x in zip(members, la):
            a[i] = x * share / mass
        for j, x in zip(kept, lb):
            b[j] = x
    after = {(row_block[i], column_block[j]) for i, j in forced}
    level = [0] * len(blocks)
    for _ in range(len(blocks) + 1):  # the longest path down the forced cells
        changed = False
        for above, below in after:
            if level[above] <= level[below]:
                level[above], changed = level[below] + 1, True
        if not changed:
            break
    else:
        return None  # a cycle: not a boundary this method knows
    spill = sum([a[i] * rows[i][j] * b[j] for i, j in forced])
    factor = 10.0 + spill / (1e-4 * tolerance)
    if max(level) * math.log10(factor) > 200:
        return None
    scales = [factor ** x for x in level]
    a = [x / scales[k] for x, k in zip(a, row_block)]
    b = [x * scales[k] for x, k in zip(b, column_block)]
    deviation, top0, top1 = _deviation(rows, a, b, q0, q1), max(a), max(b)
    return [x / top0 for x in a], [x / top1 for x in b], steps, deviation


def _deviation(rows, l0, l1, q0, q1) -> float:
    """max |T's row and column sums (normalised) − q|, T = diag(l0) J diag(l1).

    >>> _deviation([[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0], [1.0, 3.0], [0.5, 0.5], [0.2, 0.8])
    0.050000000000000044
    """
    mul = operator.mul
    r = [x * sum(map(mul, row, l1)) for x, row in zip(l0, rows)]
    c = [x * sum(map(mul, column, l0)) for x, column in zip(l1, zip(*rows))]
    total = sum(r)
    if not 0 < total < math.inf:
        return math.inf
    return max(worst(r, q0, 1.0 / total), worst(c, q1, 1.0 / total))


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


def fit_many(joint: np.ndarray, targets: list[np.ndarray], tolerance: float = 1e-10,
             steps: int = 30) -> tuple[list[np.ndarray], int, float] | None:
    """λ_1, ..., λ_k (each with a largest of 1) under which T = J Π_a λ_a(w_a) has the
    marginals ``targets`` (J = ``joint``, k axes), by Newton's method on u_a = log λ_a: the
    potential Φ(u) = log Σ_w T(w) − Σ_a q_a · u_a is convex, its gradient P_a − q_a and
    Hessian the covariance of the state indicators under P = T / Σ T,

        H_(a,i),(b,j) = P_ab(i, j) − P_a(i) P_b(j)      (the last state of each axis kept),

    every marginal and pairwise marginal by one ``np.bincount`` each, from
    λ_a = q_a / P(w_a | e) (exact in one step when the W_a are independent given the
    evidence); a step is halved until the deviation or Φ falls. λ_a = 0 on the states
    q_a gives 0. Returns (λ, 1 + the steps, the largest |P_a − q_a|), or None when a target
    weighs a state J rules out, Newton's method makes no progress (a fit on the boundary,
    or targets that cannot be met) or the joint is large: the caller sweeps.

    >>> import numpy as np
    >>> joint = np.einsum("i,j,k->ijk", [0.2, 0.8], [0.5, 0.5], [0.1, 0.9])
    >>> weights, steps, deviation = fit_many(joint, [np.array([0.5, 0.5])] * 3)
    >>> [w.round(6).tolist() for w in weights], steps  # independent: q / P(w | e)
    ([[1.0, 0.25], [1.0, 1.0], [1.0, 0.111111]], 1)
    """
    k = joint.ndim
    kept = [q > 0 for q in targets]
    table = joint[np.ix_(*kept)] if not all(m.all() for m in kept) else joint
    shape = table.shape
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    if not table.size or table.size * (k + len(pairs)) > 1 << 20:
        return None
    q = [t[m] / t[m].sum() for t, m in zip(targets, kept)]
    offsets = np.cumsum((0,) + shape)
    index = np.indices(shape).reshape(k, -1)
    states = (index + offsets[:-1, None]).ravel()  # the global state of each cell, per axis
    joined = None  # each cell's state of each pair of axes, when a step needs it
    flat = table.ravel()
    target = np.concatenate(q)
    margins = np.bincount(states, np.tile(flat, k), offsets[-1])
    if not (margins > 0).all():
        return None  # a target weighs a state the rest rules out: the caller says so
    u = np.log(target / margins)

    def at(u: np.ndarray):
        shift = float(np.maximum.reduceat(u, offsets[:-1]).sum())  # no overflow
        cells = flat * np.exp(np.add.reduce(u[states].reshape(k, -1), axis=0) - shift)
        total = cells.sum()
        if not 0 < total < np.inf:
            return None
        p = np.bincount(states, np.tile(cells, k), offsets[-1]) / total
        return (cells, total, p, float(np.abs(p - target).max()),
                math.log(total) + shift - float(target @ u))  # Φ(u)

    now = at(u)
    limit = 0.1 * tolerance
    for done in range(steps + 1):
        if now is None:
            return None
        cells, total, p, deviation, potential = now
        if deviation <= limit:
            break
        if done == steps:
            return None
        if joined is None:
            starts = np.cumsum([0] + [shape[a] * shape[b] for a, b in pairs])
            joined = np.concatenate([start + index[a] * shape[b] + index[b]
                                     for start, (a, b) in zip(starts, pairs)])
            free = np.ones(offsets[-1], bool)
            free[offsets[1:] - 1] = False  # the last state of each axis: u fixed there
        pair = np.bincount(joined, np.tile(cells, len(pairs)), starts[-1]) / total
        h = np.diag(p) - np.outer(p, p)
        for start, (a, b) in zip(starts, pairs):
            block = pair[start:start + shape[a] * shape[b]].reshape(shape[a], shape[b])
            rows, columns = slice(offsets[a], offsets[a + 1]), slice(offsets[b], offsets[b + 1])
            h[rows, columns] += block
            h[columns, rows] += block.T
        g = p - target
        try:
            d = np.linalg.solve(h[np.ix_(free, free)], -g[free])
        except np.linalg.LinAlgError:
            return None
        step = np.zeros_like(u)
        step[free] = d
        longest = float(np.abs(d).max())
        size = 1.0 if longest <= 8.0 else 8.0 / longest
        slope = float(g @ step)
        while True:
            then = at(u + size * step)
            if then is not None and (then[3] < deviation or
                                     then[4] <= potential + 1e-4 * size * slope):
                break
            size *= 0.5
            if not size >= 1e-6:
                return None
        u = u + size * step
        now = then
    # T's marginals p are those of these λ (a constant apart); off the kept states both 0
    deviation = float(np.abs(p - np.concatenate([t[m] for t, m in zip(targets, kept)])).max())
    weights = np.split(np.exp(u - np.repeat(np.maximum.reduceat(u, offsets[:-1]), shape)),
                       offsets[1:-1])
    if table is not joint:
        for a, m in enumerate(kept):
            full = np.zeros(len(m))
            full[m] = weights[a]
            weights[a] = full
    return weights, done + 1, deviation

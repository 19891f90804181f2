"""Summing plans: Σ over some axes of a flat C-ordered potential, done quickly.

A :class:`Sum` says which axes of an array of a given shape are summed out; it is
planned once, when a tree is compiled, and applied at every call by :func:`apply_sum`::

    out[k] = Σ_{i ∈ summed axes} a[i, k]      (a viewed with the summed runs merged)

numpy's reduce is slow when its inner loop runs along a short axis, so a run of s
summed entries followed by q kept ones is summed, depending on s and q, by numpy's
reduce (long runs), or as a product with a constant 0/1 matrix (BLAS) — a vector of s
ones, or s stacked q×q identities — in blocks small enough that OpenBLAS stays on one
thread.

>>> import numpy as np
>>> plan = _sum((2, 3), {0})
>>> apply_sum(np.arange(6.0), plan).tolist()
[3.0, 5.0, 7.0]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Sums over short runs of axes are products with small 0/1 matrices (BLAS), many times
#: faster than numpy's reduce, whose inner loop would run along a short axis. Each BLAS
#: call gets at most BLOCK entries: OpenBLAS then stays on one thread, since its threads
#: stall badly (10-100x) when the cores are busy with other work.
SMALL_MATRIX = 4096
BLOCK = 8192
KRON = 4
LONG = 64  # runs at least this long are summed by numpy's reduce, which is fast there
TINY = 32  # arrays this small are summed by one numpy reduce over all the summed axes


@dataclass
class Sum:
    """Σ over the axes ``summed`` of a C-ordered array of shape ``shape``.

    An array of at most TINY entries, one case, is summed by one numpy reduce: per-call
    costs dominate there. Otherwise ``steps`` (built on first use for a tiny one, whose
    batches need them) go from the last axis to the first: each run of s consecutive
    summed entries, followed by q kept ones (and preceded by the rest), is summed by one of
    ``("rows", s)``: numpy's reduce along rows of s ≥ LONG entries;
    ``("cols", s, q)``: numpy's reduce over s rows of q ≥ LONG entries;
    ``("dot", s, 1, m, ones(s))``: blocks of m rows of s entries times a vector of ones;
    ``("dot", s, q, m, M)``: blocks of m rows of s·q entries times M, s stacked q×q
    identities, for q ≤ KRON (a long run is summed a few axes at a time);
    ``("vec", s, q, ones(s))``: each s×q block times a vector of ones, for larger q.
    """

    shape: tuple[int, ...]
    summed: tuple[int, ...]
    steps: list[tuple] | None = None


def memo_sum(shape: tuple[int, ...], summed: set[int] | frozenset[int]) -> Sum:
    """:func:`_sum`, planned once per shape and summed axes for every tree (cliques
    repeat shapes: half of win95pts' sums are repeats, three quarters of andes', nearly
    all of the Promedus networks')."""
    return _memo_sum(shape, frozenset(summed))


@functools.lru_cache(maxsize=1 << 14)
def _memo_sum(shape: tuple[int, ...], summed: frozenset[int]) -> Sum:
    return _sum(shape, summed)


def _sum(shape: Sequence[int], summed: set[int]) -> Sum:
    plan = Sum(tuple(shape), tuple(sorted(summed)))
    if math.prod(shape) > TINY:
        plan.steps = _steps(shape, summed)
    return plan


def _steps(shape: Sequence[int], summed: set[int]) -> list[tuple]:
    steps: list[tuple] = []
    kept = 1  # entries of the kept axes after the current one
    i = len(shape) - 1
    while i >= 0:
        if i not in summed:
            kept *= shape[i]
            i -= 1
            continue
        j = i
        while j > 0 and j - 1 in summed:
            j -= 1
        steps += _run_steps(list(shape[:j]), list(shape[j:i + 1]), kept)
        i = j - 1
    return steps


def _run_steps(before: list[int], run: list[int], q: int) -> list[tuple]:
    """Steps summing the axes ``run``, preceded by axes ``before``, followed by q entries."""
    s = math.prod(run)
    if s == 1:
        return []
    if q == 1:
        if s >= LONG:
            return [("rows", s)]
        return [("dot", s, 1, _rows(before, s), _summing_matrix(s, 1))]
    if q >= LONG:
        return [("cols", s, q)]
    # A product with stacked identities costs q operations an entry: worth it for very
    # short q only; otherwise each s×q block is multiplied by a vector of ones.
    kron = q <= KRON
    steps = []
    while run:
        part = 1
        while run and part * run[-1] * q * (q if kron else 1) <= (SMALL_MATRIX if kron
                                                                 else BLOCK):
            part *= run.pop()
        if part == 1:  # an axis too long for a small block: q is not that short here
            steps.append(("cols", math.prod(run), q))
            break
        if kron:
            steps.append(("dot", part, q, _rows(before + run, part * q),
                          _summing_matrix(part, q)))
        else:
            steps.append(("vec", part, q, _summing_matrix(part, 1)))
    return steps


@functools.lru_cache(maxsize=1024)
def _summing_matrix(s: int, q: int) -> np.ndarray:
    """s stacked q×q identities (a vector of s ones when q = 1), shared and read-only."""
    matrix = np.ones(s) if q == 1 else np.tile(np.eye(q), (s, 1))
    matrix.setflags(write=False)
    return matrix


def _rows(before: list[int], width: int) -> int:
    """Rows per BLAS call: a product of the last axes in ``before``, so that it divides
    their number of rows (also with a case axis in front), with rows × width ≤ BLOCK."""
    rows = 1
    for n in reversed(before):
        if rows * n * width > BLOCK:
            break
        rows *= n
    return rows


def apply_sum(array: np.ndarray, plan: Sum) -> np.ndarray:
    """Apply a :class:`Sum` to a flat array (or rows of flat arrays)."""
    lead = array.shape[:-1]
    steps = plan.steps
    if steps is None:
        if not lead:
            if not plan.summed:
                return array
            return np.add.reduce(array.reshape(plan.shape), axis=plan.summed).reshape(-1)
        steps = plan.steps = _steps(plan.shape, set(plan.summed))
    for step in steps:
        if step[0] == "rows":
            array = np.add.reduce(array.reshape(-1, step[1]), axis=1)
        elif step[0] == "cols":
            array = np.add.reduce(array.reshape(-1, step[1], step[2]), axis=1)
        elif step[0] == "vec":
            array = np.matmul(step[3], array.reshape(-1, step[1], step[2]))
        else:
            _, s, q, rows, matrix = step
            array = array.reshape(-1, rows, s * q) @ matrix
    return array.reshape(lead + (-1,))

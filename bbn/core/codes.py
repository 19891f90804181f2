"""Integer state codes: one number per row for a tuple of states.

Variables with cardinalities ``(r1, ..., rk)`` have ``r1·...·rk`` joint configurations;
a row's configuration is the mixed-radix number

    code = ((x1·r2 + x2)·r3 + x3)·... + xk        (the last variable fastest)

which is the flat index of a table in row-major order. Counting (``np.bincount`` of
codes) and finding the distinct rows of a batch (``np.unique`` of codes) then work on
one integer per row instead of a matrix.

>>> import numpy as np
>>> mixed_radix([np.array([0, 1, 1]), np.array([1, 0, 0])], (2, 2)).tolist()
[1, 2, 2]
>>> rows, inverse = distinct_rows(np.array([[1, 0], [0, 2], [1, 0]]))
>>> rows.tolist(), inverse.tolist()
([[0, 2], [1, 0]], [1, 0, 1])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

#: Codes stay below this, so that one more radix step cannot overflow int64.
_SPAN_LIMIT = 1 << 62


def mixed_radix(columns: Sequence[np.ndarray], cardinalities: Sequence[int]) -> np.ndarray:
    """The flat table index of every row: Σ_j x_j · Π_{l>j} r_l (the last column fastest).

    The caller guarantees Π r_l fits in int64 (a table of that size exists).
    """
    if not columns:
        raise ValueError("mixed_radix needs at least one column")
    code = np.array(columns[0], dtype=np.int64)  # a copy: updated in place below
    for column, radix in zip(columns[1:], cardinalities[1:]):
        code *= radix
        code += column
    return code


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(matrix, axis=0, return_inverse=True)`` for an integer or boolean matrix.

    Each row becomes one mixed-radix int64 (columns shifted to start at 0); when the
    radix product would overflow, the partial codes are first replaced by their dense
    ranks, which keeps the result exact. Sorting N integers is far faster than sorting
    N rows. Returns the distinct rows (in lexicographic order) and, for every row, the
    index of its distinct row.
    """
    matrix = np.asarray(matrix)
    n, k = matrix.shape
    if n == 0 or k == 0:
        return matrix[:min(n, 1)], np.zeros(n, dtype=np.intp)
    shifted = matrix.astype(np.int64) - matrix.min(axis=0).astype(np.int64)
    radices = shifted.max(axis=0) + 1
    code = shifted[:, 0].copy()
    span = int(radices[0])
    for j in range(1, k):
        radix = int(radices[j])
        if span * radix >= _SPAN_LIMIT:
            _, code = np.unique(code, return_inverse=True)
            span = int(code.max()) + 1
        code = code * radix + shifted[:, j]
        span *= radix
    if span <= max(4 * n, 1 << 16):  # a small code space: count instead of sorting
        seen = np.zeros(span, dtype=bool)
        seen[code] = True
        rank = np.cumsum(seen) - 1
        first = np.empty(span, dtype=np.int64)
        first[code[::-1]] = np.arange(n - 1, -1, -1)  # the last write is the first row
        return matrix[first[seen]], rank[code]
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return matrix[first], inverse.ravel()


def distinct_cases(keys: np.ndarray, weights: Sequence[np.ndarray] = ()
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The distinct cases among N: rows of the integer matrix ``keys`` (N × k), with
    ``weights`` (float matrices of N rows, a case's likelihoods) equal too — in the order
    they first appear: the first row of each and, for every row, its distinct case (so
    the first impossible distinct case is the first impossible row).

    >>> first, inverse = distinct_cases(np.array([[1], [0], [1], [-1]]))
    >>> first.tolist(), inverse.tolist()
    ([0, 1, 3], [0, 1, 0, 2])
    >>> distinct_cases(np.array([[1], [1]]), [np.array([[0.5, 1.0], [1.0, 1.0]])])[0].tolist()
    [0, 1]
    """
    n = len(keys)
    if len(weights):  # equal likelihoods numbered, one more column of the keys
        _, same = np.unique(np.concatenate(list(weights), axis=1), axis=0,
                            return_inverse=True)
        keys = np.column_stack([keys, same.ravel()])
    _, inverse = distinct_rows(keys)
    inverse = inverse.ravel()
    first = np.empty(int(inverse.max(initial=-1)) + 1, dtype=np.intp)
    first[inverse[::-1]] = np.arange(n - 1, -1, -1)  # the last write is the first row
    order = np.argsort(first)  # in the order the cases first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse]


def observed_groups(seen: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows of a batch grouped by which columns they observe.

    ``seen`` is a boolean matrix (rows × columns); yields ``(rows, pattern)`` for every
    distinct row ``pattern`` of it, ``rows`` the indices of the rows that have it. A batch
    that observes everything is one group, found without a grouping pass.
    """
    n = len(seen)
    if n == 0:
        return
    if seen.all():
        yield np.arange(n), np.ones(seen.shape[1], dtype=bool)
        return
    patterns, group = distinct_rows(seen)
    for g, pattern in enumerate(patterns):
        yield (np.arange(n) if len(patterns) == 1 else np.flatnonzero(group == g)), pattern

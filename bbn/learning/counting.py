"""Counting family configurations with one ``np.bincount`` per family.

A family (parents + child) with cardinalities ``(r1, ..., rk)`` has ``r1·...·rk``
configurations. Each row's configuration is the mixed-radix number

    code = ((x1·r2 + x2)·r3 + x3)·... + xk        (the last variable fastest)

which is exactly the flat index of the table in row-major order, so
``np.bincount(code, minlength=r1·...·rk).reshape(r1, ..., rk)`` is the count table
n(pa, x) in the network's own axis order, computed without a Python loop over rows.

>>> import numpy as np
>>> family_counts([np.array([0, 1, 1]), np.array([1, 0, 0])], (2, 2)).tolist()
[[0.0, 1.0], [2.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mixed_radix(columns: Sequence[np.ndarray], cardinalities: Sequence[int]) -> np.ndarray:
    """The flat table index of every row: Σ_j x_j · Π_{l>j} r_l (the last column fastest)."""
    if not columns:
        raise ValueError("mixed_radix needs at least one column")
    code = np.asarray(columns[0], dtype=np.int64)
    for column, radix in zip(columns[1:], cardinalities[1:]):
        code = code * radix + column
    return code


def family_counts(columns: Sequence[np.ndarray], cardinalities: Sequence[int],
                  weights: np.ndarray | None = None) -> np.ndarray:
    """The table of (weighted) counts of each joint configuration, shape ``cardinalities``.

    Every code must be a valid state index (no missing values): drop or impute first.
    """
    size = int(np.prod(cardinalities))
    code = mixed_radix(columns, cardinalities)
    counts = np.bincount(code, weights=weights, minlength=size)
    return counts.astype(float, copy=False).reshape(tuple(cardinalities))

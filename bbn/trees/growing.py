"""Growing a tree top-down: the best test of every node, until a stopping rule holds.

A node becomes a leaf when

* it is pure (one class), or its rows are fewer than ``min_samples_split``;
* it is at ``max_depth``;
* no column splits its rows in two (identical feature vectors);
* the best test's gain Δ is below ``min_gain`` (by more than rounding, 10⁻¹²: a split of
  gain 0 is still made when ``min_gain = 0``, as scikit-learn does).

Nodes are grown from an explicit stack, depth first, so a deep tree needs no recursion.

>>> import numpy as np
>>> from bbn.trees.splitting import KeyedColumns, Settings
>>> keyed = KeyedColumns.build(np.zeros((4, 0), dtype=np.int32),
...                            np.array([[1.0], [2.0], [3.0], [4.0]]), ("continuous",))
>>> root = grow(keyed, np.array([0, 0, 1, 1]), 2, Stopping(), Settings())
>>> root.test.threshold, [c.counts.tolist() for c in root.children]
(2.5, [[2, 0], [0, 2]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bbn.trees.nodes import Node
from bbn.trees.splitting import KeyedColumns, Settings, best_test

#: Gains this close below ``min_gain`` are rounding, not a worse split.
ROUNDING = 1e-12


@dataclass(frozen=True)
class Stopping:
    """The pre-pruning rules: when a node is not split."""

    max_depth: int | None = None
    min_samples_split: int = 2
    min_gain: float = 0.0


def grow(keyed: KeyedColumns, y: np.ndarray, n_classes: int, stopping: Stopping,
         settings: Settings, rows: np.ndarray | None = None) -> Node:
    """The tree of the training rows ``rows`` (default all) with class codes ``y``.

    Parameters
    ----------
    keyed : KeyedColumns
        The keys of every training row.
    y : numpy.ndarray
        Class codes 0..n_classes−1 of every training row.
    n_classes : int
    stopping : Stopping
    settings : Settings
    rows : numpy.ndarray, optional
        The rows to grow from (validation pruning holds some out).

    Returns
    -------
    Node
        The root.
    """
    rows = np.arange(len(y)) if rows is None else rows
    root = Node(np.bincount(y[rows], minlength=n_classes), depth=0)
    stack = [(root, rows, None)]
    codes, numbers = _column_values(keyed)
    while stack:
        node, rows, columns = stack.pop()
        if (np.count_nonzero(node.counts) <= 1 or len(rows) < stopping.min_samples_split
                or (stopping.max_depth is not None and node.depth >= stopping.max_depth)):
            continue
        y_rows = y[rows]
        test, varied = best_test(keyed, rows, y_rows, n_classes, settings, columns)
        if test is None or test.gain < stopping.min_gain - ROUNDING:
            continue
        j = test.column
        branch = test.branch_of(codes[rows, j] if test.branches is not None else None,
                                numbers[rows, j] if test.branches is None else None)
        node.test = test
        for b in range(test.n_branches):
            child_rows = rows[branch == b]
            child = Node(np.bincount(y[child_rows], minlength=n_classes), node.depth + 1)
            node.children.append(child)
            stack.append((child, child_rows, varied))
    return root


def _column_values(keyed: KeyedColumns) -> tuple[np.ndarray, np.ndarray]:
    """Every column as the tests read it: a categorical column's state codes, a
    continuous column's numbers (−1 / NaN: missing), indexed by column."""
    missing = keyed.keys == keyed.n_keys
    local = keyed.keys - keyed.start[:-1]
    codes = np.where(missing, -1, local)
    numbers = np.where(missing, np.nan, keyed.value_of_key[np.minimum(keyed.keys,
                                                                      keyed.n_keys - 1)])
    return codes, numbers


__all__ = ["ROUNDING", "Stopping", "grow"]

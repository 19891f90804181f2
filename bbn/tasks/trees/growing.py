"""Growing a tree top-down: the best test of every node, until a stopping rule holds.

A node becomes a leaf when

* it is pure (one class), or its rows are fewer than ``min_samples_split``;
* it is at ``max_depth``;
* no column splits its rows in two (identical feature vectors);
* the best test's gain Δ is below ``min_gain`` (by more than rounding, 10⁻¹²: a split of
  gain 0 is still made when ``min_gain = 0``, as scikit-learn does).

Nodes are grown one depth at a time: the nodes of a level are tested together
(:func:`bbn.tasks.trees.splitting.best_tests`, one histogram for all), so a tree of thousands
of nodes costs a few dozen numpy passes, not thousands; and a deep tree needs no
recursion.

>>> import numpy as np
>>> from bbn.tasks.trees.splitting import KeyedColumns, Settings
>>> keyed = KeyedColumns.build(np.zeros((4, 0), dtype=np.int32),
...                            np.array([[1.0], [2.0], [3.0], [4.0]]), ("continuous",))
>>> root = grow(keyed, np.array([0, 0, 1, 1]), 2, Stopping(), Settings())
>>> root.test.threshold, [c.counts.tolist() for c in root.children]
(2.5, [[2, 0], [0, 2]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bbn.tasks.trees.nodes import Node
from bbn.tasks.trees.splitting import KeyedColumns, Settings, best_test, best_tests

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
    level = [(root, rows)]
    batched = _batched(keyed, n_classes, settings)
    while level:  # one depth at a time: every node of a level tested together
        open_nodes = [(node, r) for node, r in level if not _stops(node, r, stopping)]
        tests = _tests(keyed, open_nodes, y, n_classes, settings, batched)
        level = []
        for (node, node_rows), test in zip(open_nodes, tests, strict=True):
            if test is None or test.gain < stopping.min_gain - ROUNDING:
                continue
            branch = _branch_of_rows(keyed, test, node_rows)
            node.test = test
            for b in range(test.n_branches):
                child_rows = node_rows[branch == b]
                child = Node(np.bincount(y[child_rows], minlength=n_classes), node.depth + 1)
                node.children.append(child)
                level.append((child, child_rows))
    return root


#: Entries of one level's histogram (nodes × keys × classes) counted at once: 4 M
#: (32 MB of int64); a wider level is counted in groups of nodes.
BATCH_ENTRIES = 1 << 22


def _batched(keyed: KeyedColumns, n_classes: int, settings: Settings) -> bool:
    """Whether the nodes of a level can be tested together: not for grouped splits of
    categorical columns (node by node), nor for a key range too wide for one node."""
    grouped = settings.split == "binary" and bool(
        (np.diff(keyed.start)[~keyed.continuous] > 2).any())
    return not grouped and (keyed.n_keys + 1) * n_classes <= BATCH_ENTRIES


def _stops(node: Node, rows: np.ndarray, stopping: Stopping) -> bool:
    """Whether a node is a leaf before any test is tried (pre-pruning)."""
    return (np.count_nonzero(node.counts) <= 1 or len(rows) < stopping.min_samples_split
            or (stopping.max_depth is not None and node.depth >= stopping.max_depth))


def _tests(keyed, open_nodes, y, n_classes, settings, batched) -> list:
    """The best test of every open node of a level."""
    if not batched:
        return [best_test(keyed, r, y[r], n_classes, settings) for _, r in open_nodes]
    per_node = (keyed.n_keys + 1) * n_classes
    group = max(1, BATCH_ENTRIES // per_node)
    tests = []
    for start in range(0, len(open_nodes), group):
        tests.extend(best_tests(keyed, [r for _, r in open_nodes[start:start + group]], y,
                                n_classes, settings))
    return tests


def _branch_of_rows(keyed: KeyedColumns, test, rows: np.ndarray) -> np.ndarray:
    """The branch of every training row of a node (−1: missing), read off the keys."""
    key = keyed.keys[rows, test.column]
    missing = key == keyed.n_keys
    if test.branches is None:
        branch = (keyed.value_of_key[np.minimum(key, keyed.n_keys - 1)]
                  > test.threshold).astype(np.int64)
        branch[missing] = -1
        return branch
    code = key - keyed.start[test.column]
    code[missing] = -1
    return test.branch_of(code, None)


__all__ = ["BATCH_ENTRIES", "ROUNDING", "Stopping", "grow"]

"""The nodes of a decision tree, and how rows go down it.

An inner node holds a :class:`Test` on one column and one child per branch:

* a continuous column: ``x ≤ threshold`` → branch 0, else branch 1;
* a categorical column: ``branches[state]`` is the branch of every state, one per value
  (a multi-way split, as ID3) or one of two groups of values (a binary split); −1: a
  value no training row at this node had.

A row whose value is missing (NaN, under ``missing="stop"``) or has no branch (a value
unseen at this node) stops at the node: its class counts predict, the majority class of
the node. Rows are routed in bulk: one numpy pass per node over the rows that reach it.

>>> leaf_a, leaf_b = Node(np.array([3, 0]), depth=1), Node(np.array([0, 2]), depth=1)
>>> root = Node(np.array([3, 2]), depth=0, test=Test(column=0, threshold=1.5),
...             children=[leaf_a, leaf_b])
>>> reached = route(root, np.zeros((3, 0), dtype=np.int32), np.array([[1.0], [2.0], [np.nan]]),
...                 (0,))
>>> reached.tolist()                  # node numbers in walk order: root 0, leaves 1, 2
[1, 2, 0]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Test:
    """The test of an inner node: a threshold on a continuous column, or the branch of
    every state of a categorical one.

    Attributes
    ----------
    column : int
        The tested column's index in X.
    threshold : float or None
        Continuous: rows with x ≤ threshold take branch 0, the others branch 1.
    branches : tuple of int or None
        Categorical: the branch of every state (−1: no branch, the row stops here).
    gain : float
        Δ = I(node) − Σ_j (n_j / n) I(branch j) of the split, on the training rows.
    score : float
        The criterion's value (Δ, or the gain ratio).
    """

    column: int
    threshold: float | None = None
    branches: tuple[int, ...] | None = None
    gain: float = 0.0
    score: float = 0.0

    @property
    def n_branches(self) -> int:
        return 2 if self.branches is None else max(self.branches) + 1

    def branch_of(self, codes: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """The branch of every row (−1: the row stops at this node), given the column's
        position among its kind: ``codes`` or ``numbers`` is that column's values."""
        if self.branches is None:
            branch = (numbers > self.threshold).astype(np.int64)
            branch[np.isnan(numbers)] = -1
            return branch
        lookup = np.append(np.asarray(self.branches, dtype=np.int64), -1)  # code −1 → −1
        return lookup[codes]


@dataclass(eq=False)
class Node:
    """A node: the class counts of the training rows that reached it, its depth, and —
    for an inner node — its test and children (one per branch).

    Attributes
    ----------
    counts : numpy.ndarray
        Training rows per class (in ``classes_`` order) that reached this node.
    depth : int
        0 at the root.
    test : Test or None
        None for a leaf.
    children : list of Node
        One per branch of the test.
    """

    counts: np.ndarray
    depth: int
    test: Test | None = None
    children: list[Node] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return self.test is None

    @property
    def n_rows(self) -> int:
        return int(self.counts.sum())

    @property
    def majority(self) -> int:
        """The index of the majority class (the first one on a tie)."""
        return int(np.argmax(self.counts))

    @property
    def errors(self) -> int:
        """Training rows here not of the majority class."""
        return self.n_rows - int(self.counts.max())

    def make_leaf(self) -> None:
        self.test, self.children = None, []


def walk(root: Node) -> Iterator[Node]:
    """Every node, parents before children (depth first, branches in order).

    >>> [n.depth for n in walk(Node(np.array([1]), 0))]
    [0]
    """
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def leaves(root: Node) -> list[Node]:
    """The leaves, left to right."""
    return [n for n in walk(root) if n.is_leaf]


def route(root: Node, codes: np.ndarray, numbers: np.ndarray,
          position: Sequence[int], visit=None) -> np.ndarray:
    """The node where every row stops: a leaf, or an inner node whose test it cannot
    take (missing or unseen value).

    Parameters
    ----------
    root : Node
    codes, numbers : numpy.ndarray
        The rows' categorical codes and continuous numbers (:mod:`bbn.tasks.trees.features`).
    position : sequence of int
        Every column's index among the columns of its kind.
    visit : callable, optional
        Called as ``visit(node, rows)`` with every node and the indices of the rows that
        reach it (pruning on a validation set counts them).

    Returns
    -------
    numpy.ndarray
        One node number per row: its index in ``list(walk(root))``.
    """
    n_rows = max(len(codes), len(numbers))
    stopped = np.empty(n_rows, dtype=np.int64)
    stack = [(root, np.arange(n_rows))]
    number = -1
    while stack:  # the order of walk(): pop a node, push its children reversed
        node, rows = stack.pop()
        number += 1
        if visit is not None:
            visit(node, rows)
        if node.is_leaf or not len(rows):
            stopped[rows] = number
            number += sum(1 for _ in walk(node)) - 1  # an unreached subtree's numbers
            continue
        test = node.test
        j = position[test.column]
        branch = test.branch_of(codes[rows, j] if test.branches is not None else None,
                                numbers[rows, j] if test.branches is None else None)
        stopped[rows[branch < 0]] = number
        if len(node.children) == 2:  # the usual binary test: two masks, no sort
            stack.append((node.children[1], rows[branch == 1]))
            stack.append((node.children[0], rows[branch == 0]))
            continue
        order = np.argsort(branch, kind="stable")
        bounds = np.searchsorted(branch[order], np.arange(len(node.children) + 1))
        for b in reversed(range(len(node.children))):
            stack.append((node.children[b], rows[order[bounds[b]:bounds[b + 1]]]))
    return stopped


__all__ = ["Node", "Test", "leaves", "route", "walk"]

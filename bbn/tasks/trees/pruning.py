"""Post-pruning, bottom-up: a subtree becomes a leaf when the estimated generalisation
error does not get worse.

Pessimistic (Occam's penalty, on the training rows): a tree T with N leaves that
misclassifies e(T) training rows is charged

    e'(T) = e(T) + N × k          (k = ``penalty`` per leaf, 0.5 by default)

and a subtree is replaced by a leaf when e(leaf) + k ≤ e(subtree) + N_subtree × k. A
larger k prunes more: the tree's size falls as k grows.

On a validation set (reduced-error pruning): the tree is grown on the other rows; a
subtree is replaced by a leaf (predicting its training majority) when that leaf
misclassifies no more validation rows than the subtree does — a subtree that no
validation row reaches is pruned too.

Both visit the nodes children first, so a node is judged against its already pruned
subtree. Rows that stopped at an inner node (a missing or unseen value) are classified by
its majority class either way.

>>> from bbn.tasks.trees.nodes import Node, Test
>>> root = Node(np.array([6, 4]), 0, Test(0, threshold=0.5),
...             [Node(np.array([5, 1]), 1), Node(np.array([1, 3]), 1)])
>>> prune_pessimistic(root, penalty=0.5); root.is_leaf      # 4 + 0.5 > 2 + 1.0
False
>>> prune_pessimistic(root, penalty=2.5); root.is_leaf      # 4 + 2.5 ≤ 2 + 5.0
True
"""

from __future__ import annotations

import numpy as np

from bbn.core.errors import DataError, suggest
from bbn.tasks.trees.nodes import Node, walk

#: Post-pruning methods (None: no post-pruning).
PRUNINGS = ("pessimistic", "validation")


def check_pruning(pruning, penalty, validation_fraction) -> None:
    """DataError for an unknown pruning method, a negative penalty, or a validation
    fraction outside (0, 1).

    >>> check_pruning("validation", 0.5, 1.5)
    Traceback (most recent call last):
        ...
    bbn.core.errors.DataError: validation_fraction must be between 0 and 1 (exclusive), got 1.5
    """
    if pruning is not None and pruning not in PRUNINGS:
        raise DataError(f"unknown pruning {pruning!r}; the methods are None, "
                        f"{', '.join(PRUNINGS)}{suggest(str(pruning), PRUNINGS)}")
    if not isinstance(penalty, (int, float)) or not penalty >= 0:
        raise DataError(f"penalty must be a number ≥ 0 (per leaf), got {penalty!r}")
    if not isinstance(validation_fraction, (int, float)) or not 0 < validation_fraction < 1:
        raise DataError("validation_fraction must be between 0 and 1 (exclusive), got "
                        f"{validation_fraction!r}")


def prune_pessimistic(root: Node, penalty: float) -> None:
    """Prune in place with e'(T) = e(T) + N × k on the training counts.

    Parameters
    ----------
    root : Node
        The grown tree; its subtrees are replaced by leaves.
    penalty : float
        k, the cost of one leaf in misclassified rows.
    """
    cost: dict[int, float] = {}
    for node in reversed(list(walk(root))):  # children before their parent
        as_leaf = node.errors + penalty
        if node.is_leaf:
            cost[id(node)] = as_leaf
            continue
        subtree = sum(cost[id(c)] for c in node.children) + _stopped_errors(
            node, node.counts - sum(c.counts for c in node.children))
        if as_leaf <= subtree:
            node.make_leaf()
            cost[id(node)] = as_leaf
        else:
            cost[id(node)] = subtree


def prune_on_validation(root: Node, reached: dict[int, np.ndarray]) -> None:
    """Reduced-error pruning in place: ``reached[id(node)]`` are the validation rows'
    class counts at every node they reach (nodes no row reaches are absent).

    Parameters
    ----------
    root : Node
    reached : dict
        Validation class counts per node, keyed by ``id(node)``.
    """
    errors: dict[int, int] = {}
    for node in reversed(list(walk(root))):
        here = reached.get(id(node))
        as_leaf = 0 if here is None else int(here.sum() - here[node.majority])
        if node.is_leaf:
            errors[id(node)] = as_leaf
            continue
        stopped = 0 if here is None else here - sum(
            reached.get(id(c), np.zeros_like(here)) for c in node.children)
        subtree = sum(errors[id(c)] for c in node.children) + _stopped_errors(node, stopped)
        if as_leaf <= subtree:
            node.make_leaf()
            errors[id(node)] = as_leaf
        else:
            errors[id(node)] = subtree


def _stopped_errors(node: Node, stopped) -> int:
    """Misclassified rows among those that stopped at an inner node (its majority)."""
    if np.isscalar(stopped):
        return 0
    return int(stopped.sum() - stopped[node.majority])


__all__ = ["PRUNINGS", "check_pruning", "prune_on_validation", "prune_pessimistic"]

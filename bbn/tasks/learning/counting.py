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

import math
from collections.abc import Iterable, Sequence

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.memory import check_allocation
from bbn.model.network import Network


def check_family_sizes(net: Network, variables: Iterable[str] | None = None) -> None:
    """Raise MemoryLimitError, before any count is made, if a table to learn exceeds the
    memory limit: Π |U| over the family U ∈ Pa(X) ∪ {X} (a Gaussian X: two numbers per
    parent configuration).

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"])
    >>> check_family_sizes(net)
    """
    for v in net.variables if variables is None else variables:
        parents = net.parents(v)
        size = math.prod(net.cardinality(u) for u in parents)
        size *= 2 if net.is_gaussian(v) else net.cardinality(v)
        check_allocation(size, f"the table of {v!r} ({len(parents)} parent"
                               f"{'' if len(parents) == 1 else 's'})",
                         "give it fewer parents (or fewer states), or raise the limit "
                         "with bbn.set_memory_limit(bytes)")


def family_counts(columns: Sequence[np.ndarray], cardinalities: Sequence[int],
                  weights: np.ndarray | None = None) -> np.ndarray:
    """The table of (weighted) counts of each joint configuration, shape ``cardinalities``.

    Every code must be a valid state index (no missing values): drop or impute first.
    """
    size = int(np.prod(cardinalities))
    code = mixed_radix(columns, cardinalities)
    counts = np.bincount(code, weights=weights, minlength=size)
    return counts.astype(float, copy=False).reshape(tuple(cardinalities))

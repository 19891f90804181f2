"""The order in which many small tables are multiplied into one clique: small first.

Multiplying m tables into a clique of N entries one at a time costs m passes over N
entries. Multiplying first the pair of operands whose union has the fewest entries,
again and again while that union stays small (at most ``cap`` entries), leaves k ≪ m
operands to spread over the clique::

    cost = Σ_merges |S_i ∪ S_j| + k · N

(DBN_11: 20 cliques of 2²¹ entries, each with about 20 factors and 21 uniform roots —
41 passes each before, 2–4 after.) Scopes are bit masks over the clique's axes; the
pairs wait in a heap, and a pair with an operand already merged is skipped when popped.

>>> product_order([0b001, 0b010, 0b011, 0b100], [2, 2, 2], cap=4)
Merges(steps=[(0, 2), (1, 4)], left=[3, 5])
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import NamedTuple


class Merges(NamedTuple):
    """``steps``: pairs of operand indices, each product appended as operand m, m+1, ...
    (m operands given); ``left``: the operands left to multiply into the clique."""

    steps: list[tuple[int, int]]
    left: list[int]


def product_order(scopes: Sequence[int], shape: Sequence[int], cap: int,
                  budget: int | None = None) -> Merges:
    """Greedy pairwise products of operands over bit-mask ``scopes`` of axes with lengths
    ``shape``: the smallest union first, as long as it has at most ``cap`` entries and
    the products alive at once at most ``budget`` (default ``cap``); among equal unions,
    a pair where one scope holds the other first.

    Parameters
    ----------
    scopes : sequence of int
        Each operand's axes, bit i for axis i.
    shape : sequence of int
        The axes' lengths.
    cap : int
        The most entries a product may have.
    budget : int, optional
        The most entries of the products alive at once (an operand given is not counted:
        it exists anyway; a product merged again is freed).

    Returns
    -------
    Merges

    Examples
    --------
    >>> product_order([0b01, 0b10], [3, 3], cap=100)
    Merges(steps=[(0, 1)], left=[2])
    """
    sizes: dict[int, int] = {}

    def entries(mask: int) -> int:
        found = sizes.get(mask)
        if found is None:
            found = sizes[mask] = math.prod(n for i, n in enumerate(shape) if mask >> i & 1)
        return found

    masks = list(scopes)
    alive = [True] * len(masks)
    heap = [key for j in range(len(masks)) for i in range(j)
            if (key := _pair(masks, entries, i, j))[0] <= cap]
    heapq.heapify(heap)
    given = len(masks)
    budget = cap if budget is None else budget
    held = 0  # entries of the products alive
    steps = []
    while heap:
        size, _, i, j = heapq.heappop(heap)
        if not (alive[i] and alive[j]):
            continue
        freed = sum(entries(masks[k]) for k in (i, j) if k >= given)
        if held + size - freed > budget:
            continue
        held += size - freed
        alive[i] = alive[j] = False
        steps.append((i, j))
        union = masks[i] | masks[j]
        new = len(masks)
        masks.append(union)
        alive.append(True)
        for k in range(new):
            if alive[k] and (key := _pair(masks, entries, k, new))[0] <= cap:
                heapq.heappush(heap, key)
    return Merges(steps, [k for k, kept in enumerate(alive) if kept])


def _pair(masks: list[int], entries, i: int, j: int) -> tuple[int, int, int, int]:
    """The heap key of a pair: its union's entries, then how much the union outgrows the
    larger operand (0: one scope holds the other, a product that costs no new axes)."""
    union = entries(masks[i] | masks[j])
    return union, union - max(entries(masks[i]), entries(masks[j])), i, j

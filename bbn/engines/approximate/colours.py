"""Gibbs sampling's update groups: variables that share no factor, updated at once.

Two variables in no common factor are independent given all the others, so a sweep may
redraw a whole *colour class* of them at the same time (a greedy colouring of the graph
whose edges join variables of one factor). For a class, every (variable, factor) pair
contributes the factor's table with that variable's axis last — the rows of its full
conditional — padded with zero columns to the class's widest variable and stacked into
one array; a pair's row for each chain is

    row = offset_pair + Σ_j stride_j · x_{other_j}

(other variables padded with a constant-0 code), and the full conditionals of the whole
class for every chain are one gather and one ``np.multiply.reduceat`` over the pairs of
each variable:

    P(x_v | x_{−v}) ∝ Π_{f ∋ v} φ_f(x_v, x_{f \\ v})

>>> import numpy as np
>>> classes = colour_classes(((0, 1), (1, 2)), (np.ones((2, 2)), np.ones((2, 3))), [0, 1, 2],
...                          np.array([2, 2, 3]))
>>> [c.variables.tolist() for c in classes]
[[1], [0, 2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np


class ColourClass(NamedTuple):
    """Variables sharing no factor, and their factors' rows stacked."""

    variables: np.ndarray   # (V,) variable indices
    widths: np.ndarray      # (V,) their numbers of states
    rows: np.ndarray        # (rows, W) every pair's conditional rows, zero-padded to W
    offsets: np.ndarray     # (P,) each pair's first row
    others: np.ndarray      # (P, O) the pair's other variables (padding: the 0 code row)
    strides: np.ndarray     # (P, O) their place values (padding: 0)
    starts: np.ndarray      # (V,) each variable's first pair (pairs sorted by variable)


def colour_classes(scopes: Sequence[tuple[int, ...]], tables: Sequence[np.ndarray],
                   free: Sequence[int], cardinality: np.ndarray) -> list[ColourClass]:
    """The free variables in classes sharing no factor, largest-degree first (greedy).

    Parameters
    ----------
    scopes, tables : sequences
        The factors (reduced by the evidence: only free variables in scopes).
    free : sequence of int
        The variables to update.
    cardinality : numpy.ndarray
        Every variable's number of states; index ``len(cardinality)`` is the padding code.

    Returns
    -------
    list of ColourClass
    """
    pairs: dict[int, list[tuple[np.ndarray, list[int]]]] = {v: [] for v in free}
    neighbours: dict[int, set[int]] = {v: set() for v in free}
    for scope, table in zip(scopes, tables):
        for i, v in enumerate(scope):
            others = list(scope[:i] + scope[i + 1:])
            pairs[v].append((np.moveaxis(table, i, -1).reshape(-1, table.shape[i]), others))
            neighbours[v].update(others)
    for v in free:
        if not pairs[v]:  # in no factor: a uniform conditional
            pairs[v].append((np.ones((1, cardinality[v])), []))
    colour: dict[int, int] = {}
    for v in sorted(free, key=lambda u: (-len(neighbours[u]), u)):
        taken = {colour[u] for u in neighbours[v] if u in colour}
        colour[v] = next(c for c in range(len(free) + 1) if c not in taken)
    padding = len(cardinality)
    sizes = cardinality.tolist()
    classes = []
    for c in range(max(colour.values(), default=-1) + 1):
        members = sorted(v for v in free if colour[v] == c)
        width = int(max(cardinality[v] for v in members))
        offsets, others, strides, starts = [], [], [], []
        longest = max(len(o) for v in members for _, o in pairs[v])
        rows = np.zeros((sum(t.shape[0] for v in members for t, _ in pairs[v]), width))
        row = 0
        for v in members:
            starts.append(len(offsets))
            for table, other in pairs[v]:
                rows[row:row + table.shape[0], :table.shape[1]] = table  # zero-padded
                offsets.append(row)
                row += table.shape[0]
                places = [1] if other else []  # C order: the last of ``other`` fastest
                for u in other[:0:-1]:
                    places.append(places[-1] * sizes[u])
                others.append(other + [padding] * (longest - len(other)))
                strides.append([*places[::-1], *[0] * (longest - len(other))])
        classes.append(ColourClass(
            np.array(members, dtype=np.int64), cardinality[members].astype(np.int64),
            rows, np.array(offsets, dtype=np.int64),
            np.array(others, dtype=np.int64).reshape(len(offsets), longest),
            np.array(strides, dtype=np.int64).reshape(len(offsets), longest),
            np.array(starts, dtype=np.int64)))
    return classes


def conditionals(colour: ColourClass, codes: np.ndarray, logarithms: bool = False
                 ) -> np.ndarray:
    """The unnormalised full conditionals of a class's variables for every chain.

    Parameters
    ----------
    colour : ColourClass
    codes : numpy.ndarray
        The chains' states, (variables + 1) × chains, the last row all 0 (the padding).
    logarithms : bool
        The class was built from log tables: sum the rows (log Π φ = Σ log φ) instead of
        multiplying them.

    Returns
    -------
    numpy.ndarray
        Shape (V, chains, W); zero beyond each variable's own states.
    """
    index = colour.offsets[:, None] + np.einsum("po,poc->pc", colour.strides,
                                                codes[colour.others])
    combine = np.add if logarithms else np.multiply
    return combine.reduceat(colour.rows[index], colour.starts, axis=0)

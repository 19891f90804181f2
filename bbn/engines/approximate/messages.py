"""The flat layout of loopy belief propagation's messages, for whole-array updates.

Every edge (factor f, variable v) of the factor graph carries two messages of |X_v|
entries; all of them live in two flat arrays, edge after edge. Two index arrays turn the
sweeps into a few numpy calls:

* ``entry_key``: the (variable, state) each entry is about. The product of a variable's
  incoming messages is then one ``np.bincount`` of logarithms (zeros counted apart), and
  the product of all but one, μ_{v→f}(x) = Π_{g ≠ f} μ_{g→v}(x), is that total minus the
  entry's own logarithm;
* ``groups``: factors with the same table shape stacked, with, per axis, the flat
  indices of their incoming messages, so one ``einsum`` per axis computes
  μ_{f→v} for every factor of the group.

>>> import numpy as np
>>> layout = MessageLayout(((0, 1), (1,)), (np.ones((2, 3)), np.ones(3)), np.array([2, 3]))
>>> layout.edge_offset.tolist(), layout.entry_key.tolist()
([0, 2, 5], [0, 1, 2, 3, 4, 2, 3, 4])
>>> (exclusive_products(layout, np.arange(1.0, 9.0))[2:5] * 21).round(9).tolist()
[6.0, 7.0, 8.0]
"""

from __future__ import annotations

import string
from typing import NamedTuple

import numpy as np


class Group(NamedTuple):
    """Factors with one table shape, stacked."""

    tables: np.ndarray            # (factors, |X_1|, ..., |X_s|)
    positions: list[np.ndarray]   # per axis j: (factors, |X_j|) flat indices of its edge
    sums: list[str]               # per axis i: einsum subscripts of Σ φ Π_{j ≠ i} μ_j


class MessageLayout:
    """Edges, entries and shape groups of a factor graph's reduced factors.

    Parameters
    ----------
    scopes : tuple of tuple of int
        The factors' variables (each with at least one).
    tables : tuple of numpy.ndarray
        Their tables.
    cardinality : numpy.ndarray
        Every variable's number of states.

    Examples
    --------
    >>> import numpy as np
    >>> layout = MessageLayout(((0, 1),), (np.ones((2, 2)),), np.array([2, 2]))
    >>> len(layout.groups), layout.edges
    (1, [(0, 0), (0, 1)])
    """

    def __init__(self, scopes, tables, cardinality: np.ndarray) -> None:
        self.edges = [(r, v) for r, scope in enumerate(scopes) for v in scope]
        cards = np.array([cardinality[v] for _, v in self.edges], dtype=np.int64)
        self.edge_offset = np.cumsum(cards) - cards
        self.size = int(cards.sum())
        self.entry_edge = np.repeat(np.arange(len(self.edges)), cards)
        within = np.arange(self.size) - self.edge_offset[self.entry_edge]
        # keys: the states of the variables that have edges, variable after variable
        self.variables = sorted({v for _, v in self.edges})
        key_cards = np.array([cardinality[v] for v in self.variables], dtype=np.int64)
        self.key_offset = np.cumsum(key_cards) - key_cards
        first_key = dict(zip(self.variables, self.key_offset.tolist()))
        edge_first_key = np.array([first_key[v] for _, v in self.edges], dtype=np.int64)
        self.entry_key = edge_first_key[self.entry_edge] + within
        self.keys = int(key_cards.sum())
        self.key_variable = np.repeat(np.arange(len(self.variables)), key_cards)
        first_edge = np.concatenate([[0], np.cumsum([len(s) for s in scopes])])
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for r, table in enumerate(tables):
            by_shape.setdefault(table.shape, []).append(r)
        self.groups = []
        for shape, members in by_shape.items():
            positions = [self.edge_offset[first_edge[members] + j][:, None] + np.arange(c)
                         for j, c in enumerate(shape)]
            self.groups.append(Group(np.stack([tables[r] for r in members]), positions,
                                     _sum_subscripts(len(shape))))

    def normalised(self, values: np.ndarray) -> np.ndarray:
        """Each edge's entries scaled to sum 1 (an edge of zeros stays zeros)."""
        totals = np.add.reduceat(values, self.edge_offset)[self.entry_edge]
        return np.divide(values, totals, out=np.zeros_like(values), where=totals > 0)


def _sum_subscripts(arity: int) -> list[str]:
    """Per axis i, the einsum of a group's tables with the messages of the other axes
    ("zab,zb->za" for two): subscripts as a string, parsed faster than operand lists
    (alarm's loopy BP makes 43 of these calls a sweep)."""
    axes = (string.ascii_lowercase[:-1] + string.ascii_uppercase)[:arity]  # z: factors
    return [",".join(["z" + axes] + [f"z{a}" for j, a in enumerate(axes) if j != i])
            + f"->z{axes[i]}" for i in range(arity)]


def _logs(layout: MessageLayout, to_variable: np.ndarray):
    """log μ (0 where μ = 0), the zero flags, and per key Σ log and the count of zeros."""
    positive = to_variable > 0
    logs = np.log(np.where(positive, to_variable, 1.0))
    return (logs, ~positive, np.bincount(layout.entry_key, logs, minlength=layout.keys),
            np.bincount(layout.entry_key, ~positive, minlength=layout.keys))


def exclusive_products(layout: MessageLayout, to_variable: np.ndarray) -> np.ndarray:
    """μ_{v→f}(x) ∝ Π_{g ∋ v, g ≠ f} μ_{g→v}(x) for every edge, normalised.

    Parameters
    ----------
    layout : MessageLayout
    to_variable : numpy.ndarray
        The flat factor-to-variable messages.

    Returns
    -------
    numpy.ndarray
        The flat variable-to-factor messages.
    """
    logs, zero, total, zeros = _logs(layout, to_variable)
    excluded = np.where(zeros[layout.entry_key] - zero > 0, -np.inf,
                        total[layout.entry_key] - logs)
    top = np.maximum.reduceat(excluded, layout.edge_offset)
    top = np.where(np.isfinite(top), top, 0.0)[layout.entry_edge]
    return layout.normalised(np.exp(excluded - top))


def log_products(layout: MessageLayout, to_variable: np.ndarray) -> np.ndarray:
    """log Π_{f ∋ v} μ_{f→v}(x) per key (−inf where a message is 0)."""
    _, _, total, zeros = _logs(layout, to_variable)
    return np.where(zeros > 0, -np.inf, total)


def factor_messages(layout: MessageLayout, to_factor: np.ndarray) -> np.ndarray:
    """μ_{f→v}(x_v) ∝ Σ φ_f Π_{u ≠ v} μ_{u→f} for every edge, normalised (one einsum per
    axis of each shape group)."""
    out = np.empty(layout.size)
    for group in layout.groups:
        incoming = [to_factor[index] for index in group.positions]
        for i, (index, subscripts) in enumerate(zip(group.positions, group.sums)):
            out[index] = np.einsum(subscripts, group.tables, *incoming[:i], *incoming[i + 1:])
    return layout.normalised(out)


def factor_max_messages(layout: MessageLayout, to_factor: np.ndarray) -> np.ndarray:
    """μ_{f→v}(x_v) ∝ max φ_f Π_{u ≠ v} μ_{u→f} for every edge, normalised (max-product:
    one broadcast product and one maximum per axis of each shape group).

    Examples
    --------
    >>> layout = MessageLayout(((0, 1),), (np.array([[4.0, 1.0], [2.0, 3.0]]),),
    ...                        np.array([2, 2]))
    >>> (factor_max_messages(layout, np.full(4, 0.5)) * 7).round(9).tolist()
    [4.0, 3.0, 4.0, 3.0]
    """
    out = np.empty(layout.size)
    for group in layout.groups:
        incoming = [to_factor[index] for index in group.positions]
        arity = len(incoming)
        for i, index in enumerate(group.positions):
            product = group.tables
            for j, message in enumerate(incoming):
                if j != i:
                    shape = [len(message)] + [1] * arity
                    shape[j + 1] = message.shape[1]
                    product = product * message.reshape(shape)
            others = tuple(j + 1 for j in range(arity) if j != i)
            out[index] = product.max(axis=others) if others else product
    return layout.normalised(out)


def factor_log_normalisers(layout: MessageLayout, to_factor: np.ndarray) -> float:
    """Σ_f log Σ_{x_f} φ_f Π_{v ∈ f} μ_{v→f} (the Bethe factor terms)."""
    total = 0.0
    with np.errstate(divide="ignore"):
        for group in layout.groups:
            operands = [group.tables, list(range(len(group.positions) + 1))]
            for j, index in enumerate(group.positions):
                operands += [to_factor[index], [0, j + 1]]
            total += float(np.log(np.einsum(*operands, [0])).sum())
    return total

"""The compiled view of an influence diagram: chance variables, decisions and utilities.

    EU(δ) = Σ_x Π_{X chance} P(x | pa(X)) · Σ_u U_u(pa(u))     with D = δ_D(pa(D))

A :class:`DecisionNetwork` is a :class:`~bbn.views.compiled.CompiledNetwork` (so every
chance question is answered as usual) that also names the ``decisions`` (in their
temporal order) and holds the ``utilities``: each a :class:`UtilityTable`, a real-valued
table over its parents, with no states. A decision is a variable of the view with its
information parents and a uniform table: a chance question that does not fix it reads
it as chosen at random, one that gives it as evidence reads it as taken (its table does
not depend on its parents, so conditioning on it is the intervention do(D=d)).

>>> import numpy as np
>>> u = UtilityTable(("D",), np.array([1.0, -2.0]))
>>> u.parents, u.table.tolist()
(('D',), [1.0, -2.0])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from bbn.views.compiled import CompiledNetwork


class UtilityTable(NamedTuple):
    """A utility node: U(pa) for every configuration of its ``parents``, an array of shape
    ``(|P1|, ..., |Pk|)`` (a 0-d array for a constant)."""

    parents: tuple[str, ...]
    table: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class DecisionNetwork(CompiledNetwork):
    """An immutable view of one revision of an influence diagram.

    Parameters
    ----------
    decisions : tuple of str
        The decision variables, in their temporal order (an order of the graph).
    utilities : mapping
        utility name → its :class:`UtilityTable`; several utilities add up.

    The other parameters are those of :class:`~bbn.views.compiled.CompiledNetwork`;
    a decision's table there is uniform over its options.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.InfluenceDiagram()
    >>> net.add_decision("D", ["a", "b"])
    >>> net.add_utility("U", ["D"], [1.0, 2.0])
    >>> view = net.compiled()
    >>> view.decisions, view.utilities["U"].table.tolist()
    (('D',), [1.0, 2.0])
    """

    decisions: tuple[str, ...] = ()
    utilities: Mapping[str, UtilityTable] = field(
        default_factory=lambda: MappingProxyType({}))

    @classmethod
    def extend(cls, view: CompiledNetwork, decisions: tuple[str, ...],
               utilities: Mapping[str, UtilityTable],
               parents: Mapping[str, tuple[str, ...]] | None = None) -> DecisionNetwork:
        """``view`` with the decisions (given uniform tables), the utilities and, when
        given, other ``parents``."""
        parents = view.parents if parents is None else MappingProxyType(dict(parents))
        tables, zero_free = dict(view.tables), dict(view.zero_free)
        for d in decisions:
            shape = tuple(view.cardinality[v] for v in (*parents[d], d))
            table = np.full(shape, 1.0 / shape[-1])
            table.setflags(write=False)
            tables[d], zero_free[d] = table, True
        return cls(view.revision, view.variables, view.states, parents,
                   view.cardinality, MappingProxyType(tables), MappingProxyType(zero_free),
                   view.gaussian, view.constraints, auxiliary=view.auxiliary,
                   decisions=decisions, utilities=MappingProxyType(dict(utilities)))


def temporal_order(variables: Sequence[str], parents: Mapping[str, Sequence[str]],
                   decisions: Sequence[str]) -> tuple[str, ...]:
    """The decisions in an order of the graph: D before D' when D is an ancestor of D',
    otherwise in the order given (``variables`` is every node, ``parents`` its parents).

    >>> temporal_order("ABC", {"A": ("B",), "B": (), "C": ()}, ["A", "B"])
    ('B', 'A')
    """
    ancestors: dict[str, set] = {}

    def of(v: str) -> set:
        found = ancestors.get(v)
        if found is None:
            found = ancestors[v] = set()
            stack = list(parents[v])
            while stack:
                p = stack.pop()
                if p not in found:
                    found.add(p)
                    stack.extend(parents[p])
        return found

    left, order = list(decisions), []
    while left:
        first = next(d for d in left if not of(d) & set(left))
        order.append(first)
        left.remove(first)
    return tuple(order)

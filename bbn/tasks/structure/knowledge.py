"""What an expert knows about the structure, as constraints on every search.

The course: "automatic procedures are usually combined with expert knowledge". Four
kinds, each a set of arcs the search may or must use:

- required arcs A → B: in every learned network;
- forbidden arcs A → B: in none (B → A stays possible unless forbidden too);
- tiers [[...], [...], ...]: an order of groups (causes before effects, time slices), no
  arc from a later tier to an earlier one (within a tier anything goes; a variable in no
  tier is unconstrained);
- max_parents k: no variable gets more than k parents.

Knowledge that contradicts itself is refused before any search: required arcs that form
a cycle, an arc both required and forbidden, a required arc against the tier order, or
more required parents than ``max_parents``.

>>> knowledge = Knowledge.build(["A", "B", "C"], required=["A->B"], tiers=[["A"], ["B", "C"]])
>>> knowledge.allows(0, 2), knowledge.allows(2, 0)      # A → C fine, C → A breaks the tiers
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter

import numpy as np

from bbn.core.errors import ModelError, suggest

#: An arc as written by a user: ("A", "B") or "A->B".
ArcLike = tuple[str, str] | str

#: The tier of a variable in no tier: unconstrained.
NO_TIER = -1


def arc_text(parent: str, child: str) -> str:
    """``A->B``, the way messages and the command line write an arc."""
    return f"{parent}->{child}"


@dataclass(frozen=True)
class Knowledge:
    """Validated constraints over variables by position.

    Attributes
    ----------
    variables : tuple of str
        The variables, in the data's order.
    required, forbidden : frozenset of (int, int)
        Arcs (parent position, child position).
    tier : tuple of int, optional
        The tier of every variable (``NO_TIER`` for none); ``None`` without tiers.
    max_parents : int, optional
        The most parents any variable may have.

    Examples
    --------
    >>> k = Knowledge.build(["A", "B"], forbidden=[("A", "B")])
    >>> k.allowed.tolist()
    [[False, False], [True, False]]
    """

    variables: tuple[str, ...]
    required: frozenset[tuple[int, int]] = frozenset()
    forbidden: frozenset[tuple[int, int]] = frozenset()
    tier: tuple[int, ...] | None = None
    max_parents: int | None = None

    @classmethod
    def build(cls, variables: Sequence[str], required: Iterable[ArcLike] = (),
              forbidden: Iterable[ArcLike] = (), tiers: Sequence[Sequence[str]] | None = None,
              max_parents: int | None = None) -> Knowledge:
        """Validate what the expert says, once, and turn names into positions.

        Parameters
        ----------
        variables : sequence of str
            The variables of the data.
        required, forbidden : iterable of ("A", "B") or "A->B"
            Arcs every learned network has / none has.
        tiers : sequence of sequences of str, optional
            Groups in order; no arc from a later group to an earlier one.
        max_parents : int, optional
            The most parents of any variable (≥ 0).

        Returns
        -------
        Knowledge

        Raises
        ------
        ModelError
            For an unknown name (with close matches), an arc that is not two names, a
            self-loop, a variable in two tiers, a negative ``max_parents``, or knowledge
            that contradicts itself (the message names the arcs).

        Examples
        --------
        >>> Knowledge.build(["A", "B", "C"], required=["A->B", "B->C", "C->A"])
        Traceback (most recent call last):
            ...
        bbn.core.errors.ModelError: the required arcs form a cycle: A->B, B->C, C->A
        """
        variables = tuple(variables)
        position = {v: i for i, v in enumerate(variables)}
        need = frozenset(_arc(a, position, "required") for a in required)
        ban = frozenset(_arc(a, position, "forbidden") for a in forbidden)
        both = sorted(need & ban)
        if both:
            raise ModelError(f"the arc {arc_text(*_names(both[0], variables))} is both "
                             "required and forbidden")
        cycle = _cycle(need)
        if cycle:
            raise ModelError("the required arcs form a cycle: "
                             + ", ".join(arc_text(*_names(a, variables)) for a in cycle))
        tier = None if tiers is None else _tiers(tiers, position)
        if tier is not None:
            for p, c in sorted(need):
                if tier[p] != NO_TIER and tier[c] != NO_TIER and tier[p] > tier[c]:
                    raise ModelError(
                        f"the required arc {arc_text(variables[p], variables[c])} goes from "
                        f"tier {tier[p] + 1} back to tier {tier[c] + 1}; arcs may only go "
                        "to the same or a later tier")
        if max_parents is not None:
            if isinstance(max_parents, bool) or not isinstance(max_parents, (int, np.integer)) \
                    or max_parents < 0:
                raise ModelError(f"max_parents must be a whole number ≥ 0, got {max_parents!r}")
            max_parents = int(max_parents)
            for child in range(len(variables)):
                arcs = sorted(a for a in need if a[1] == child)
                if len(arcs) > max_parents:
                    raise ModelError(
                        f"{variables[child]!r} has {len(arcs)} required parents ("
                        + ", ".join(arc_text(*_names(a, variables)) for a in arcs)
                        + f"), more than max_parents={max_parents}")
        return cls(variables, need, ban, tier, max_parents)

    @property
    def allowed(self) -> np.ndarray:
        """``allowed[p, c]``: may p → c be an arc (no self-loop, not forbidden, tiers
        respected); a read-only boolean matrix."""
        n = len(self.variables)
        allowed = ~np.eye(n, dtype=bool)
        for p, c in self.forbidden:
            allowed[p, c] = False
        if self.tier is not None:
            tier = np.array(self.tier)
            tiered = tier != NO_TIER
            allowed &= ~(tiered[:, None] & tiered[None, :] & (tier[:, None] > tier[None, :]))
        allowed.setflags(write=False)
        return allowed

    def allows(self, parent: int, child: int) -> bool:
        """Whether parent → child may be an arc.

        Examples
        --------
        >>> Knowledge.build(["A", "B"], tiers=[["B"], ["A"]]).allows(0, 1)
        False
        """
        return bool(self.allowed[parent, child])

    def check_dag(self, parents: Sequence[Sequence[int]], what: str = "the structure") -> None:
        """Raise ModelError unless the DAG ``parents`` (parent positions per variable)
        is acyclic and honours the knowledge: every required arc, no forbidden or
        tier-breaking arc, at most ``max_parents`` parents.

        Examples
        --------
        >>> Knowledge.build(["A", "B"], required=["A->B"]).check_dag([(), ()], "start")
        Traceback (most recent call last):
            ...
        bbn.core.errors.ModelError: start lacks the required arc A->B
        """
        arcs = {(p, c) for c, ps in enumerate(parents) for p in ps}
        cycle = _cycle(frozenset(arcs))
        if cycle:
            raise ModelError(f"{what} has a cycle: "
                             + ", ".join(arc_text(*_names(a, self.variables)) for a in cycle))
        for arc in sorted(self.required - arcs):
            raise ModelError(f"{what} lacks the required arc "
                             f"{arc_text(*_names(arc, self.variables))}")
        allowed = self.allowed
        for p, c in sorted(arcs):
            if not allowed[p, c]:
                reason = "forbidden" if (p, c) in self.forbidden else "against the tiers"
                raise ModelError(f"{what} has the arc {arc_text(*_names((p, c), self.variables))}"
                                 f", which is {reason}")
        if self.max_parents is not None:
            for c, ps in enumerate(parents):
                if len(ps) > self.max_parents:
                    raise ModelError(f"{what} gives {self.variables[c]!r} {len(ps)} parents, "
                                     f"more than max_parents={self.max_parents}")


def _names(arc: tuple[int, int], variables: Sequence[str]) -> tuple[str, str]:
    return variables[arc[0]], variables[arc[1]]


def _arc(arc: ArcLike, position: dict, kind: str) -> tuple[int, int]:
    """(parent, child) positions of an arc written ("A", "B") or "A->B"."""
    if isinstance(arc, str):
        ends = [part.strip() for part in arc.split("->")] if "->" in arc else None
    else:
        ends = list(arc) if isinstance(arc, (tuple, list)) else None
    if not ends or len(ends) != 2 or not all(isinstance(e, str) and e for e in ends):
        raise ModelError(f"a {kind} arc must be two variable names, ('A', 'B') or 'A->B'; "
                         f"got {arc!r}")
    for name in ends:
        if name not in position:
            raise ModelError(f"the {kind} arc {arc_text(*ends)} names {name!r}, which is no "
                             f"variable{suggest(name, position)}")
    if ends[0] == ends[1]:
        raise ModelError(f"the {kind} arc {arc_text(*ends)} is a self-loop")
    return position[ends[0]], position[ends[1]]


def _tiers(tiers: Sequence[Sequence[str]], position: dict) -> tuple[int, ...]:
    """The tier of every variable; each name in at most one tier."""
    if isinstance(tiers, str) or not all(
            isinstance(t, (list, tuple, set, frozenset)) for t in tiers):
        raise ModelError("tiers must be a list of lists of variable names, earliest first")
    tier = [NO_TIER] * len(position)
    for k, names in enumerate(tiers):
        for name in names:
            if name not in position:
                raise ModelError(f"tier {k + 1} names {name!r}, which is no variable"
                                 f"{suggest(str(name), position)}")
            if tier[position[name]] not in (NO_TIER, k):
                raise ModelError(f"{name!r} is in tier {tier[position[name]] + 1} and in tier "
                                 f"{k + 1}")
            tier[position[name]] = k
    return tuple(tier)


def _cycle(arcs: frozenset[tuple[int, int]]) -> list[tuple[int, int]]:
    """The arcs of one directed cycle among ``arcs``, or []."""
    # Acyclic is the usual case: the standard library's topological sort tells in ~20 µs
    # where networkx's find_cycle took 0.2 ms (child's 21 arcs); networkx only names a
    # cycle found, in the order the messages have always given.
    parents: dict[int, set[int]] = {}
    for p, c in arcs:
        parents.setdefault(c, set()).add(p)
    try:
        TopologicalSorter(parents).prepare()
    except CycleError:
        import networkx as nx  # here: ~0.2 s to import, only to name a cycle found

        return [tuple(arc) for arc in nx.find_cycle(nx.DiGraph(sorted(arcs)))]
    return []

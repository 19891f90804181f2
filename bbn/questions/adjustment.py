"""Adjustment sets: the observed variables that turn P(y | do(x)) into observed terms.

    back door   P(y | do(x)) = Σ_z P(y | x, z) P(z)
                Z: no descendant of X, and X ⟂ Y | Z once X's outgoing arcs are cut
    front door  P(y | do(x)) = Σ_z P(z | x) Σ_x' P(y | z, x') P(x')
                Z: meets every directed path X → Y, no open back-door path X – Z,
                X blocks every back-door path Z – Y

:func:`adjustment_sets` lists the *minimal* back-door sets among the observed
variables (no proper subset is one; sought among the ancestors of X and Y, where every
minimal separator lies) and, when there is none, the minimal front-door sets among the
observed descendants of X that are ancestors of Y. d-separation is read on the whole
graph, unobserved variables included (:mod:`bbn.questions.d_separation`).

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> print(adjustment_sets(net, "B", "A"))
back door: {} (empty set: no confounding)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import bbn.questions.d_separation as d_separation
from bbn.core.errors import QueryError
from bbn.questions.identification import Formula, Prob, Sum, _product, _sum
from bbn.questions.resolution import check_variables

#: Above this many candidates, sets of at most :data:`LARGEST` variables are sought.
MANY = 16
LARGEST = 4


@dataclass(frozen=True)
class Adjustment:
    """The minimal ``backdoor`` sets and, when there is none, the minimal ``frontdoor``
    sets of an effect of ``treatment`` on ``outcome`` (each set a sorted tuple)."""

    treatment: str
    outcome: str
    backdoor: tuple[tuple[str, ...], ...]
    frontdoor: tuple[tuple[str, ...], ...]
    observed: tuple[str, ...]

    def __str__(self) -> str:
        def show(sets):
            return ", ".join("{" + ", ".join(s) + "}" for s in sets)
        if self.backdoor:
            extra = " (empty set: no confounding)" if self.backdoor == ((),) else ""
            return f"back door: {show(self.backdoor)}{extra}"
        if self.frontdoor:
            return f"back door: none\nfront door: {show(self.frontdoor)}"
        return "back door: none\nfront door: none (see identify for other formulas)"

    def formula(self) -> Formula:
        """The estimand of the first back-door set, else of the first front-door set.

        Examples
        --------
        >>> import bbn
        >>> print(adjustment_sets(bbn.load("models/chair.bn"), "W", "A").formula())
        P(A | do(W)) = Σ_{B} P(A | W, B) P(B)
        """
        x, y = self.treatment, self.outcome
        if self.backdoor:
            z = self.backdoor[0]
            term = _product([Prob((y,), (x, *z)), Prob(z)]) if z else Prob((y,), (x,))
            expression = _sum(z, term, z)
        elif self.frontdoor:
            z = self.frontdoor[0]
            inner = Sum((f"{x}'",), _product([Prob((y,), (*z, f"{x}'")), Prob((f"{x}'",))]))
            expression = _sum(z, _product([Prob(z, (x,)), inner]), z)
        else:
            raise QueryError(f"no back-door or front-door set for the effect of {x} on {y}; "
                             "identify() may still find a formula")
        return Formula((y,), (x,), expression, self.observed)


def _graph(view) -> tuple[dict, dict]:
    parents = {v: tuple(view.parents[v]) for v in view.variables}
    children: dict[str, list[str]] = {v: [] for v in view.variables}
    for v in view.variables:
        for p in parents[v]:
            children[p].append(v)
    return parents, children


def _reach(links: dict, start: Sequence[str]) -> set[str]:
    seen, stack = set(start), list(start)
    while stack:
        for w in links[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def _separated(parents: dict, children: dict, x: Sequence[str], y: Sequence[str],
               z: Sequence[str], cut_out: Sequence[str] = ()) -> bool:
    """X ⟂ Y | Z in the graph with the outgoing arcs of ``cut_out`` removed."""
    if cut_out:
        out = set(cut_out)
        children = {v: ([] if v in out else c) for v, c in children.items()}
        parents = {v: tuple(p for p in ps if p not in out) for v, ps in parents.items()}
    return d_separation._search(parents, children, list(x), set(y), set(z)) is None


def _minimal(candidates: list[str], valid) -> tuple[tuple[str, ...], ...]:
    found: list[tuple[str, ...]] = []
    largest = len(candidates) if len(candidates) <= MANY else LARGEST
    for size in range(largest + 1):
        for subset in combinations(candidates, size):
            if any(set(f) <= set(subset) for f in found):
                continue
            if valid(subset):
                found.append(tuple(sorted(subset)))
    return tuple(sorted(found, key=lambda s: (len(s), s)))


def adjustment_sets(model, treatment: str, outcome: str,
                    observed: Sequence[str] | None = None) -> Adjustment:
    """The minimal back-door sets of the effect of ``treatment`` on ``outcome`` among the
    ``observed`` variables (all by default) and, when there is none, the minimal
    front-door sets.

    Parameters
    ----------
    model : Network
        Only its graph is read.
    treatment, outcome : str
        X and Y.
    observed : sequence of str, optional
        The variables that may be adjusted for (measured); the others are unobserved.

    Returns
    -------
    Adjustment

    Raises
    ------
    QueryError
        For an unknown variable, or X = Y.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> adjustment_sets(net, "W", "A").backdoor        # W ← C → B → A
    (('B',), ('C',))
    """
    view = model.compiled()
    check_variables(view, [treatment, outcome], role="causal")
    seen = tuple(view.variables) if observed is None else tuple(dict.fromkeys(observed))
    check_variables(view, seen, role="observed")
    if treatment == outcome:
        raise QueryError("an effect needs a treatment and an outcome that differ")
    parents, children = _graph(view)
    x, y = treatment, outcome
    descendants = _reach(children, [x])
    ancestors = _reach(parents, [x, y])
    candidates = [v for v in view.variables if v in ancestors and v in seen
                  and v not in descendants and v not in (x, y)]
    backdoor = _minimal(candidates, lambda z: _separated(parents, children, [x], [y], z,
                                                         cut_out=[x]))
    frontdoor: tuple[tuple[str, ...], ...] = ()
    if not backdoor:
        between = [v for v in view.variables if v in descendants and v in seen
                   and v in _reach(parents, [y]) and v not in (x, y)]

        def front(z: tuple[str, ...]) -> bool:
            if not z:
                return False
            blocked = {v: ([] if v in z else c) for v, c in children.items()}
            if y in _reach(blocked, [x]):  # a directed path X → Y avoiding Z
                return False
            if not _separated(parents, children, [x], z, (), cut_out=[x]):
                return False
            return _separated(parents, children, z, [y], [x], cut_out=z)

        frontdoor = _minimal(between, front)
    return Adjustment(x, y, backdoor, frontdoor, seen)

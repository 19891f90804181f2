"""Independence read off the graph: d-separation, one active trail, the Markov blanket.

    X ⟂ Y | Z  ⇔  every trail between X and Y is blocked by Z

A trail X1 – X2 – ... – Xn passes a middle node V when V is a *chain* (→ V → or ← V ←)
or a *fork* (← V →) and V is not observed, or a *collider* (→ V ←) and V or one of its
descendants is observed. networkx answers the yes/no (``nx.is_d_separator``); when the
answer is "dependent", :func:`active_trail` finds one trail that passes, by a breadth
first search over (node, direction of arrival) — the "reachable" procedure of Koller and
Friedman, Algorithm 3.1 — and says why each middle node lets it through.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> is_independent(net, "C", "S"), is_independent(net, "C", "S", given="A")
(True, False)
>>> print(active_trail(net, "C", "S", given="A"))
C → B ← S
  B: a collider whose descendant A is observed
"""

from __future__ import annotations

import functools
import html
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import bbn.core.html_tables as html_tables
from bbn.core.errors import QueryError
from bbn.questions.resolution import check_variables

if TYPE_CHECKING:
    from bbn.questions.resolution import Model
    from bbn.views.compiled import CompiledNetwork

#: Why a middle node of a trail lets it through.
CHAIN, FORK, COLLIDER = "chain", "fork", "collider"


@dataclass(frozen=True)
class Passage:
    """Why one middle node of a trail lets it through: its ``kind`` (chain, fork or
    collider) and, for a collider, the observed node that opens it (itself or a
    descendant)."""

    node: str
    kind: str
    observed: str | None = None

    def reason(self) -> str:
        """The reason in words, e.g. ``a collider whose descendant A is observed``."""
        if self.kind != COLLIDER:
            return f"a {self.kind}, not observed"
        if self.observed == self.node:
            return "a collider, observed"
        return f"a collider whose descendant {self.observed} is observed"


@dataclass(frozen=True)
class Trail:
    """An active trail: its ``nodes`` from an X to a Y, ``arrows`` (``"→"`` or ``"←"``,
    one between each pair of neighbours, pointing as the arc does) and the ``passages``
    of its middle nodes."""

    nodes: tuple[str, ...]
    arrows: tuple[str, ...]
    passages: tuple[Passage, ...]

    def path_text(self) -> str:
        """``C → B ← S``."""
        parts = [self.nodes[0]]
        for arrow, node in zip(self.arrows, self.nodes[1:]):
            parts += [arrow, node]
        return " ".join(parts)

    def __str__(self) -> str:
        return "\n".join([self.path_text()]
                         + [f"  {p.node}: {p.reason()}" for p in self.passages])

    def to_json(self) -> dict:
        """``{"nodes", "arrows", "passages": [{"node", "kind", "observed"}]}``."""
        return {"nodes": list(self.nodes), "arrows": list(self.arrows),
                "passages": [{"node": p.node, "kind": p.kind, "observed": p.observed}
                             for p in self.passages]}


@dataclass(frozen=True)
class Independence:
    """The answer to ``X _|_ Y | Z``: ``independent`` and, when not, one active
    ``trail``. True as a bool when independent."""

    x: tuple[str, ...]
    y: tuple[str, ...]
    given: tuple[str, ...]
    independent: bool
    trail: Trail | None

    def __bool__(self) -> bool:
        return self.independent

    def question(self) -> str:
        """``C ⟂ S | A``."""
        text = f"{', '.join(self.x)} ⟂ {', '.join(self.y)}"
        return text + (f" | {', '.join(self.given)}" if self.given else "")

    def to_text(self) -> str:
        """``true``/``false``, and the active trail with its reasons when false."""
        lines = [f"{self.question()}: {str(self.independent).lower()}"]
        if self.trail is not None:
            lines.append("  active trail: " + str(self.trail).replace("\n", "\n  "))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """What Jupyter shows: the question and its verdict, then the active trail as a
        table, one row per middle node and why it passes.

        Examples
        --------
        >>> import bbn
        >>> page = bbn.load("models/chair.bn").query("C _|_ S | A")._repr_html_()
        >>> "dependent" in page, page.count("<tr>")
        (True, 2)
        """
        verdict = "independent" if self.independent else "dependent"
        head = f"<p>{html.escape(self.question())}: <b>{verdict}</b></p>"
        if self.trail is None:
            return head
        rows = [[p.node, p.reason()] for p in self.trail.passages]
        return (head + f"<p>active trail: {html.escape(self.trail.path_text())}</p>"
                + html_tables.table(["node", "passes because"], rows, total=len(rows)))

    def to_json(self) -> dict:
        """``{"independent", "trail"}`` (trail None when independent)."""
        return {"independent": self.independent,
                "trail": None if self.trail is None else self.trail.to_json()}


def _names(net: Model, variables: str | Iterable[str] | None, role: str) -> tuple[str, ...]:
    """``variables`` as a checked tuple of names (QueryError naming an unknown one)."""
    if variables is None:
        return ()
    names = (variables,) if isinstance(variables, str) else tuple(variables)
    check_variables(net.compiled(), names, role=role)
    return tuple(dict.fromkeys(names))


def _sets(net: Model, x, y, given) -> tuple[tuple[str, ...], ...]:
    """The three checked, disjoint sets of an independence question."""
    xs, ys, zs = _names(net, x, "independence"), _names(net, y, "independence"), \
        _names(net, given, "observed")
    if not xs or not ys:
        raise QueryError("an independence question needs a variable on each side of ⟂")
    for one, other, what in ((xs, ys, "both sides of ⟂"), (xs + ys, zs, "a side of ⟂ and "
                                                                       "the observed set")):
        shared = sorted(set(one) & set(other))
        if shared:
            raise QueryError(f"variable(s) {shared} on {what}: the sets must be disjoint")
    return xs, ys, zs


def is_independent(net: Model, x: str | Iterable[str], y: str | Iterable[str],
                   given: str | Iterable[str] | None = None) -> bool:
    """Whether X ⟂ Y | Z holds in every distribution the graph allows (d-separation).

    Parameters
    ----------
    net : Network or any model with its methods
        The network; only its graph is read.
    x, y : str or iterable of str
        The two sets of variables (one name or several).
    given : str or iterable of str, optional
        The observed variables Z.

    Returns
    -------
    bool

    Raises
    ------
    QueryError
        For an unknown variable (with suggestions) or sets that overlap.

    Examples
    --------
    >>> import bbn
    >>> is_independent(bbn.load("models/chair.bn"), "C", "S", given="A")
    False
    """
    xs, ys, zs = _sets(net, x, y, given)
    import networkx as nx  # here: networkx costs ~0.2 s to import, only independence needs it

    return bool(nx.is_d_separator(_digraph(net.compiled()), set(xs), set(ys), set(zs)))


def active_trail(net: Model, x: str | Iterable[str], y: str | Iterable[str],
                 given: str | Iterable[str] | None = None) -> Trail | None:
    """One trail from X to Y that Z does not block, with why each middle node passes;
    None when X ⟂ Y | Z.

    The search is breadth first, so the trail is one of the shortest.

    Parameters
    ----------
    net : Network or any model with its methods
        The network; only its graph is read.
    x, y : str or iterable of str
        The two sets of variables.
    given : str or iterable of str, optional
        The observed variables Z.

    Returns
    -------
    Trail or None

    Raises
    ------
    QueryError
        For an unknown variable (with suggestions) or sets that overlap.

    Examples
    --------
    >>> import bbn
    >>> active_trail(bbn.load("models/chair.bn"), "C", "A").path_text()
    'C → B → A'
    """
    xs, ys, zs = _sets(net, x, y, given)
    parents, children = _links(net.compiled())
    return _search(parents, children, xs, set(ys), set(zs))


def separated(network: CompiledNetwork, xs: Iterable[str], ys: Iterable[str],
              given: Iterable[str] = ()) -> bool:
    """Whether X ⟂ Y | Z in the graph of ``network``, for names already checked (the
    search of :func:`active_trail` finding no trail, without networkx): what the
    simplifications of a question's shape ask, once per shape.

    Examples
    --------
    >>> import bbn
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> separated(network, ["C"], ["S"]), separated(network, ["C"], ["S"], ["A"])
    (True, False)
    """
    parents, children = _links(network)
    return _search(parents, children, list(xs), set(ys), set(given)) is None


def independence(net: Model, x: str | Iterable[str], y: str | Iterable[str],
                 given: str | Iterable[str] | None = None) -> Independence:
    """The answer to ``X _|_ Y | Z`` as the query language gives it: d-separation by
    networkx, and one active trail when dependent.

    Parameters
    ----------
    net : Network or any model with its methods
    x, y : str or iterable of str
    given : str or iterable of str, optional

    Returns
    -------
    Independence

    Examples
    --------
    >>> import bbn
    >>> print(independence(bbn.load("models/chair.bn"), "C", "W", "B").to_text())
    C ⟂ W | B: false
      active trail: C → W
    """
    xs, ys, zs = _sets(net, x, y, given)
    separated = is_independent(net, xs, ys, zs)
    trail = None if separated else active_trail(net, xs, ys, zs)
    return Independence(xs, ys, zs, separated, trail)


def markov_blanket(net: Model, variable: str) -> tuple[str, ...]:
    """Parents, children and the children's other parents of ``variable``, in declaration
    order: given them, ``variable`` is independent of every other variable.

    Parameters
    ----------
    net : Network or any model with its methods
    variable : str

    Returns
    -------
    tuple of str

    Raises
    ------
    QueryError
        For an unknown variable (with suggestions).

    Examples
    --------
    >>> import bbn
    >>> markov_blanket(bbn.load("models/chair.bn"), "C")
    ('S', 'W', 'B')
    """
    (v,) = _names(net, variable, "")
    members = set(net.parents(v))
    for child in net.children(v):
        members.add(child)
        members.update(net.parents(child))
    members.discard(v)
    return tuple(u for u in net.variables if u in members)


# One revision's graph, kept for the questions that follow (a compiled network is hashed by
# identity and never changes): building it costs ~1 ms on alarm's 37 variables, the
# question itself ~40 µs.
@functools.lru_cache(maxsize=4)
def _digraph(network: CompiledNetwork):
    """The networkx DiGraph of a revision (frozen: networkx never changes it)."""
    import networkx as nx  # here: networkx costs ~0.2 s to import, only independence needs it

    graph = nx.DiGraph()
    graph.add_nodes_from(network.variables)
    graph.add_edges_from((p, v) for v in network.variables for p in network.parents[v])
    return nx.freeze(graph)


@functools.lru_cache(maxsize=4)
def _links(network: CompiledNetwork) -> tuple[Mapping[str, tuple[str, ...]],
                                              dict[str, list[str]]]:
    """Parents and children of every variable of a revision."""
    children: dict[str, list[str]] = {v: [] for v in network.variables}
    for v in network.variables:
        for p in network.parents[v]:
            children[p].append(v)
    return network.parents, children


def _search(parents: Mapping[str, Sequence[str]], children: Mapping[str, Sequence[str]],
            xs: Sequence[str], ys: set[str], observed: set[str]) -> Trail | None:
    """Breadth first over (node, arrived from a child: "up" / from a parent: "down")."""
    opened: dict[str, str] = {}  # node → the observed node that opens it as a collider
    frontier = list(observed)
    for z in observed:
        opened[z] = z
    while frontier:  # the observed nodes and their ancestors, each with one observed below
        v = frontier.pop()
        for p in parents[v]:
            if p not in opened:
                opened[p] = opened[v]
                frontier.append(p)
    before: dict[tuple[str, str], tuple[str, str] | None] = {(x, "up"): None for x in xs}
    queue = deque(before)
    while queue:
        state = queue.popleft()
        v, arrived = state
        if v in ys:
            return _trail(state, before, opened)
        moves = []
        if v not in observed:
            if arrived == "up":
                moves += [(p, "up") for p in parents[v]]
            moves += [(c, "down") for c in children[v]]
        if arrived == "down" and v in opened:
            moves += [(p, "up") for p in parents[v]]
        for move in moves:
            if move not in before:
                before[move] = state
                queue.append(move)
    return None


def _trail(last: tuple[str, str], before: Mapping, opened: Mapping[str, str]) -> Trail:
    states = [last]
    while before[states[-1]] is not None:
        states.append(before[states[-1]])
    states.reverse()
    nodes = tuple(v for v, _ in states)
    # arriving "down" at a node means its arc comes from the one before: →
    arrows = tuple("→" if arrived == "down" else "←" for _, arrived in states[1:])
    passages = []
    for i in range(1, len(nodes) - 1):
        into, out = arrows[i - 1], arrows[i]
        if into == "→" and out == "←":
            passages.append(Passage(nodes[i], COLLIDER, opened[nodes[i]]))
        else:
            passages.append(Passage(nodes[i], FORK if (into, out) == ("←", "→") else CHAIN))
    return Trail(nodes, arrows, tuple(passages))


def answer_independence(answering, question, model, **options) -> Independence:
    """``X _|_ Y | Z`` of the query language, as :mod:`bbn.questions.dispatch` asks it
    (``question.free``: X, ``others``: Y, ``given``: Z).

    >>> import bbn
    >>> bool(bbn.load("models/chair.bn").query("C _|_ S | A"))
    False
    """
    return independence(model, list(question.free), list(question.others),
                        list(question.given))

"""Drawing an independence question: the observed variables shaded, one active trail red.

``render(net, trail="C _|_ S | A")`` asks the question of :mod:`bbn.questions.d_separation`;
when the answer is "dependent", the nodes and arcs of the active trail it finds are drawn
in :data:`TRAIL_COLOUR` and the caption gives the trail and why each node lets it through.

>>> import bbn
>>> picture = trail_picture(bbn.load("models/chair.bn"), "C _|_ S | A")
>>> sorted(picture.arcs), picture.observed
([('C', 'B'), ('S', 'B')], ('A',))
"""

from __future__ import annotations

from typing import NamedTuple

from bbn.apps.rendering.labels import escape
from bbn.core.errors import QueryError
from bbn.model.network import Network
from bbn.questions import dispatch
from bbn.questions.language import parse_query
from bbn.questions.resolution import resolve_query

#: The colour of the active trail's nodes and arcs.
TRAIL_COLOUR = "#c0392b"


class TrailPicture(NamedTuple):
    """What the picture of an independence question marks: the ``observed`` variables,
    the ``nodes`` and ``arcs`` (tail, head) of the active trail (empty when independent)
    and the caption (Graphviz HTML)."""

    observed: tuple[str, ...]
    nodes: frozenset[str]
    arcs: frozenset[tuple[str, str]]
    caption: str


def trail_picture(net: Network, question: str) -> TrailPicture:
    """Answer ``question`` (``X _|_ Y | Z``) on ``net`` and say what to mark.

    Parameters
    ----------
    net : Network
    question : str
        An independence question of the query language.

    Returns
    -------
    TrailPicture

    Raises
    ------
    QueryError
        For a question of another kind, or unknown variables.

    Examples
    --------
    >>> import bbn
    >>> trail_picture(bbn.load("models/chair.bn"), "C _|_ S").nodes
    frozenset()
    """
    query = parse_query(question)
    resolved = resolve_query(net.compiled(), query)
    if query.kind != "IND":
        raise QueryError(f"--trail takes an independence question such as C _|_ S | A, "
                         f"not {query.text()}")
    answer = dispatch.answer(net, resolved)
    caption = f"{answer.question()}: {str(answer.independent).lower()}"
    nodes: frozenset[str] = frozenset()
    arcs: frozenset[tuple[str, str]] = frozenset()
    lines = [escape(caption)]
    if answer.trail is not None:
        trail = answer.trail
        nodes = frozenset(trail.nodes)
        arcs = frozenset((a, b) if arrow == "→" else (b, a)
                         for a, b, arrow in zip(trail.nodes, trail.nodes[1:], trail.arrows))
        lines.append(escape("active trail: " + trail.path_text()))
        lines += [escape(f"{p.node}: {p.reason()}") for p in trail.passages]
    return TrailPicture(answer.given, nodes, arcs, "<BR/>".join(lines))

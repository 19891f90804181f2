"""Drawing a learned network against a reference: one picture, every arc classed.

The arcs of the learned network are drawn as :func:`bbn.compare` classes them, and the
reference's arcs it lacks are added:

=============  ===========================================================
correct        black, as in both networks
reversed       orange, the learned direction (the reference has the other)
extra          blue, not adjacent in the reference
missing        red dashed, the reference's direction (not in the learned)
undirected     no arrowhead: an edge the learning method left open (a
               LearnedNetwork's ``undirected_edges_``; black, or blue when
               the reference does not have it)
=============  ===========================================================

A legend and the two distances (on the DAGs and on the equivalence classes) are the
picture's caption.

>>> import bbn
>>> states = {v: ["0", "1"] for v in "ABC"}
>>> truth = bbn.Network.assemble("t", states, {"C": ["A", "B"]})
>>> guess = bbn.Network.assemble("g", states, {"A": ["C"]})
>>> [(arc.tail, arc.head, arc.kind) for arc in comparison_arcs(guess, truth).arcs]
[('C', 'A', 'reversed'), ('B', 'C', 'missing')]
"""

from __future__ import annotations

from typing import NamedTuple

from bbn.apps.rendering.labels import escape
from bbn.model.network import Network
from bbn.tasks.structure.compare import compare

#: How each kind of arc is drawn (Graphviz edge attributes).
STYLES: dict[str, dict[str, str]] = {
    "correct": {"color": "#222222"},
    "reversed": {"color": "#d35400", "penwidth": "1.6"},
    "extra": {"color": "#2471a3", "penwidth": "1.6"},
    "missing": {"color": "#c0392b", "style": "dashed", "penwidth": "1.4"},
}

#: What the legend says of each kind.
MEANINGS = {"correct": "━━ correct", "reversed": "━━ reversed", "extra": "━━ extra",
            "missing": "╍╍ missing"}


class DrawnArc(NamedTuple):
    """One arc of the comparison picture: its ends, its kind, whether it has an arrowhead,
    and its Graphviz attributes."""

    tail: str
    head: str
    kind: str
    directed: bool

    def attributes(self) -> dict[str, str]:
        """The Graphviz edge attributes: the kind's colour and style, no arrowhead for an
        undirected edge."""
        return {**STYLES[self.kind], **({} if self.directed else {"dir": "none"})}


class ComparisonPicture(NamedTuple):
    """The arcs to draw and the caption (an HTML-like Graphviz label body)."""

    arcs: list[DrawnArc]
    caption: str


def comparison_arcs(learned: Network, reference: Network) -> ComparisonPicture:
    """The learned network's arcs classed against the reference, the missing ones added,
    and a caption with a legend and the distances.

    Parameters
    ----------
    learned : Network
        The network drawn; a LearnedNetwork's ``undirected_edges_`` are drawn without
        arrowheads, any other network as its DAG.
    reference : Network
        The network it is judged against (same variables).

    Returns
    -------
    ComparisonPicture

    Raises
    ------
    ModelError
        When the variables differ (see :func:`bbn.compare`).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> {arc.kind for arc in comparison_arcs(net, net).arcs}
    {'correct'}
    """
    result = compare(learned, reference)
    kind = {**dict.fromkeys(result.correct, "correct"),
            **dict.fromkeys(result.reversed, "reversed"),
            **dict.fromkeys(result.extra, "extra")}
    open_edges = {frozenset(edge) for edge in getattr(learned, "undirected_edges_", ())}
    arcs = []
    for arc in learned.arcs():
        undirected = frozenset(arc) in open_edges
        drawn_kind = "extra" if kind[arc] == "extra" else "correct" if undirected else kind[arc]
        arcs.append(DrawnArc(*arc, drawn_kind, not undirected))
    arcs.extend(DrawnArc(*arc, "missing", True) for arc in result.missing)
    legend = "   ".join(f'<FONT COLOR="{STYLES[k]["color"]}">{MEANINGS[k]}</FONT>'
                       for k in STYLES)
    caption = (f"compared with {escape(reference.name)}: SHD {result.shd} on the DAGs, "
               f"{result.cpdag_shd} on the equivalence classes<BR/>{legend}"
               + ("   ── undirected: direction left open" if open_edges else ""))
    return ComparisonPicture(arcs, caption)

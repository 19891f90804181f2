"""Drawing a network: one Graphviz node per variable, one arc per parent → child.

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"],
...                  table={"yes": [0.9, 0.1], "no": [0.2, 0.8]})
>>> graph = render(net)                       # a graphviz.Digraph; no file written
>>> "Rain -> Wet" in graph.source
True
>>> render(net, "rain.svg", tables=True)      # doctest: +SKIP
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping

import graphviz
import numpy as np

import bbn.apps.rendering.labels as labels
import bbn.apps.rendering.output as output
from bbn.apps.rendering.comparison import comparison_arcs
from bbn.apps.rendering.trail import TRAIL_COLOUR, trail_picture
from bbn.apps.rendering.tree_picture import draw_tree
from bbn.core.errors import QueryError
from bbn.model.network import Network
from bbn.questions.resolution import (
    NO_EVIDENCE,
    Evidence,
    resolve_evidence,
    resolve_evidence_text,
)

RANKDIRS = ("TB", "LR", "BT", "RL")
#: Default caps: parent configurations (table rows) and states (table columns) drawn.
MAX_ROWS = 16
MAX_COLUMNS = 8


def render(net, path: str | os.PathLike | None = None, *, tables: bool = False,
           evidence: Mapping[str, str] | str | None = None, posteriors: bool = False,
           rankdir: str = "TB", max_rows: int = MAX_ROWS,
           max_columns: int = MAX_COLUMNS, compare: Network | None = None,
           trail: str | None = None,
           do: Mapping[str, str] | str | None = None) -> graphviz.Digraph:
    """Draw ``net``; write the picture to ``path`` when given; return the Digraph.

    Parameters
    ----------
    net : Network or DecisionTree
        The network to draw: one node per variable, one arc per parent → child. A fitted
        :class:`bbn.DecisionTree` is drawn as its tree (one box per node with its test or
        class, counts and impurity; ``rankdir`` applies, the other options do not).
    path : str or os.PathLike, optional
        Where to write the picture; its extension picks the output: ``.png``, ``.svg``,
        ``.pdf`` (these run Graphviz's ``dot``) or ``.dot``/``.gv`` (the DOT source; no
        Graphviz needed). Nothing is written without it.
    tables : bool
        Each node shows P(X | parents), at most ``max_rows`` parent configurations and
        ``max_columns`` states (the picture says what was left out).
    evidence : mapping of str to str, or str, optional
        ``{"A": "T"}`` or the text ``"A=T, S=F"``; evidence nodes are highlighted and
        show their observed state.
    posteriors : bool
        Each node shows a bar per state with P(X = x | evidence) — the prior marginals
        when there is no evidence — computed by exact inference.
    rankdir : str
        ``"TB"`` (parents above children), ``"LR"`` (left to right), ``"BT"``, ``"RL"``.
    max_rows, max_columns : int
        Caps on the table rows (and posterior bars) and state columns drawn per node.
    compare : Network, optional
        A reference network over the same variables: each arc is coloured by what
        :func:`bbn.compare` finds (correct black, reversed orange, extra blue, missing
        red dashed; a LearnedNetwork's undirected edges without arrowheads), with a
        legend and the structural Hamming distances as caption.
    trail : str, optional
        An independence question, ``"C _|_ S | A"``: its observed variables are shaded
        and, when they do not separate the two sides, one active trail is drawn in red,
        with the answer and the reason each node passes as caption.
    do : mapping of str to str, or str, optional
        An intervention, ``{"B": "T"}`` or ``"B=T"``: the arcs into each set variable are
        drawn cut (dashed, grey), the variable marked ``do(B=T)``; posteriors are then
        those of the mutilated network (``docs/causal.md``).

    Returns
    -------
    graphviz.Digraph
        Its ``.source`` is the DOT text.

    Raises
    ------
    QueryError
        An unknown ``rankdir``, caps below 1, or evidence naming an unknown variable or
        state.
    ModelError
        A ``compare`` network with other variables.
    ImpossibleEvidenceError
        ``posteriors`` with evidence of probability 0.
    BBNError
        An extension that is no picture format, or an image without Graphviz's ``dot``
        (:class:`~bbn.apps.rendering.output.GraphvizMissingError`).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> graph = render(net, evidence="A=T", posteriors=True)   # no path: nothing written
    >>> "posterior probabilities given A=T" in graph.source, "0.8867" in graph.source
    (True, True)
    >>> render(net, rankdir="up")
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: rankdir must be one of TB, LR, BT, RL, got 'UP'
    """
    rankdir = str(rankdir).upper()
    if rankdir not in RANKDIRS:
        raise QueryError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    if not isinstance(net, Network):
        return draw_tree(net, path, rankdir=rankdir)
    if max_rows < 1 or max_columns < 1:
        raise QueryError("max_rows and max_columns must be at least 1")
    resolved = _evidence(net, evidence)
    evidence = resolved.given
    done = _evidence(net, do).given
    beliefs = ({v: f.values for v, f in net.posteriors(resolved.given, do=done).items()}
               if posteriors and done else _posteriors(net, resolved) if posteriors else {})
    marked = None if trail is None else trail_picture(net, trail)

    graph = graphviz.Digraph(_dot_id(net.name), graph_attr=_graph_style(rankdir),
                             node_attr=_node_style(boxed=tables or posteriors),
                             edge_attr={"color": "#4d4d4d", "arrowsize": "0.7"})
    captions = []
    if posteriors:
        given = ", ".join(f"{v}={s}" for v, s in evidence.items())
        given = ", ".join([f"do({', '.join(f'{v}={s}' for v, s in done.items())})"]
                          * bool(done) + [given] * bool(given))
        caption = (f"posterior probabilities given {given}" if given
                   else "prior probabilities (no evidence)")
        captions.append(f"<I>{labels.escape(caption)}</I>")
    decisions = set(getattr(net, "decisions", ()))  # an influence diagram's
    utilities = getattr(net, "utilities", ())
    for v in net.variables:
        attributes = _node_attributes(net, v, evidence.get(v), tables, beliefs.get(v),
                                      max_rows, max_columns)
        if marked is not None:
            if v in marked.observed:
                attributes.update(style="filled", fillcolor=labels.EVIDENCE_FILL)
            if v in marked.nodes:
                attributes.update(color=TRAIL_COLOUR, penwidth="2.5")
        if v in decisions and not (tables or posteriors):
            attributes.update(shape="box")  # a decision: a box, as in influence diagrams
        if v in done:
            attributes.update(peripheries="2", xlabel=labels.escape(f"do({v}={done[v]})"))
        graph.node(_dot_id(v), **attributes)
    for u in utilities:  # a utility: a diamond, its parents' arcs into it
        graph.node(_dot_id(u), label=labels.plain_label(u, None, None), shape="diamond",
                   fillcolor=UTILITY_FILL, style="filled", color=labels.NODE_LINE)
        for p in net.utility_parents(u):
            graph.edge(_dot_id(p), _dot_id(u))
    if done:
        captions.append(labels.escape(f"do({', '.join(f'{v}={s}' for v, s in done.items())})"
                                      ": the arcs into the set variables are cut (dashed)"))
    if marked is not None:
        captions.append(marked.caption)
    if compare is None:
        for v in net.variables:
            for p in net.parents(v):
                on_trail = marked is not None and (p, v) in marked.arcs
                style = ({"color": TRAIL_COLOUR, "penwidth": "2.5"} if on_trail else
                         {"color": "#b0b0b0", "style": "dashed", "arrowhead": "tee"}
                         if v in done else {})
                graph.edge(_dot_id(p), _dot_id(v), **style)
    else:
        picture = comparison_arcs(net, compare)
        for arc in picture.arcs:
            graph.edge(_dot_id(arc.tail), _dot_id(arc.head), **arc.attributes())
        captions.append(picture.caption)
    if captions:
        graph.attr(label=f"<{'<BR/>'.join(captions)}>", labelloc="b", fontsize="11")
    if path is not None:
        output.write(graph, path)
    return graph


#: The fill of a utility node (a diamond).
UTILITY_FILL = "#fde9c8"


def repr_svg(net: Network) -> str | None:
    """The SVG Jupyter shows for a network (``Network._repr_svg_``).

    Parameters
    ----------
    net : Network
        The network to draw (its structure).

    Returns
    -------
    str or None
        The SVG text; None (Jupyter then shows the plain repr) with a warning when
        Graphviz's ``dot`` is not installed.

    Examples
    --------
    >>> import bbn
    >>> repr_svg(bbn.load("models/chair.bn")).startswith("<?xml")     # doctest: +SKIP
    True
    """
    try:
        return output.pipe(render(net), "svg").decode("utf-8")
    except output.GraphvizMissingError as error:
        warnings.warn(str(error), stacklevel=2)
        return None


# ------------------------------------------------------------------ helpers
def _dot_id(text: str) -> str:
    # DOT keeps backslashes in quoted IDs, so a name ending in one would swallow the
    # closing quote; doubling them keeps every name a distinct, well-formed ID.
    return graphviz.nohtml(str(text).replace("\\", "\\\\"))


def _graph_style(rankdir: str) -> dict[str, str]:
    return {"rankdir": rankdir, "bgcolor": "white", "fontname": "Helvetica",
            "nodesep": "0.35", "ranksep": "0.5", "pad": "0.2"}


def _node_style(boxed: bool) -> dict[str, str]:
    style = {"fontname": "Helvetica", "fontsize": "12", "margin": "0"}
    if boxed:
        style.update(shape="plain")
    else:
        style.update(shape="ellipse", style="filled", fillcolor=labels.NODE_FILL,
                     color=labels.NODE_LINE, margin="0.08,0.04")
    return style


def _node_attributes(net: Network, v: str, observed: str | None, tables: bool,
                     belief: np.ndarray | None, max_rows: int,
                     max_columns: int) -> dict[str, str]:
    description = net.description(v)
    tooltip = f"{v}: {description}" if description else v
    attributes = {"tooltip": _dot_id(tooltip)}
    regression = net.gaussian_text(v) if net.is_gaussian(v) and net.has_cpt(v) else []
    if not tables and belief is None:
        attributes["label"] = labels.plain_label(v, description, observed, regression)
        if observed is not None:
            attributes.update(fillcolor=labels.EVIDENCE_FILL, color=labels.EVIDENCE_LINE,
                              penwidth="2")
        return attributes
    table = bars = None
    if tables and not net.is_gaussian(v):
        parents = net.parents(v)
        table = labels.cpt_table(v, net.states(v), parents, [net.states(p) for p in parents],
                                 net.cpt_array(v) if net.has_cpt(v) else None,
                                 max_rows, max_columns)
    if belief is not None:
        bars = labels.posterior_table(net.states(v), belief, observed, max_rows)
    attributes["label"] = labels.node_label(v, description, observed=observed, table=table,
                                            bars=bars, regression=regression)
    return attributes


def _evidence(net: Network, evidence: Mapping[str, str] | str | None) -> Evidence:
    """Evidence resolved against the network (QueryError naming an unknown variable or
    state), its ``given`` as ``{variable: state}`` strings."""
    if evidence is None:
        return NO_EVIDENCE
    if isinstance(evidence, str):
        return resolve_evidence_text(evidence, net.compiled())
    return resolve_evidence(net.compiled(), {str(v): str(s) for v, s in evidence.items()})


def _posteriors(net: Network, evidence: Evidence) -> dict[str, np.ndarray]:
    """P(X | evidence) for every discrete variable X (one junction-tree pass), as arrays
    in the order of X's states; evidence variables are one-hot."""
    return {v: factor.values for v, factor in net.posteriors(evidence).items()}

"""Graphviz's layout of a network as numbers: where each node's box is and each arc runs.

Every node is a box sized for its belief bars (one row per state under a header with the
name); ``dot`` places the boxes and routes the arcs, and its JSON output is turned into
top-left coordinates in points, y downwards, as SVG reads them::

    height(X) = header + |X| · row + 2 · pad
    width(X)  = max(name width, state width + bar + probability width) + 2 · pad

Text widths are estimated from character counts (``CHAR_WIDTH`` points per character at
the page's 11 px font), so a box always holds its text without a browser measuring it.
No model text goes to Graphviz: nodes are named ``n0``, ``n1``... and drawn without
labels, so the layout holds only numbers.

>>> import bbn
>>> layout = network_layout(bbn.load("models/chair.bn"))
>>> sorted(layout.nodes)
['A', 'B', 'C', 'S', 'W']
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import graphviz

import bbn.apps.rendering.output as output
from bbn.model.network import Network

POINTS_PER_INCH = 72


@dataclass(frozen=True)
class Geometry:
    """Sizes of a node's parts, in points (what the page draws with)."""

    header: float = 20.0
    row: float = 15.0
    pad: float = 4.0
    bar: float = 64.0
    char_width: float = 6.6
    probability: float = 44.0

    def size(self, name: str, states: list[str]) -> tuple[float, float]:
        """(width, height) of the box of a variable called ``name`` with ``states``.

        Examples
        --------
        >>> Geometry().size("C", ["T", "F"])
        (130.6, 58.0)
        """
        label = max((len(s) for s in states), default=0) * self.char_width + 8
        width = max(len(name) * (self.char_width + 0.6) + 12,
                    label + self.bar + self.probability) + 2 * self.pad
        return round(width, 1), self.header + len(states) * self.row + 2 * self.pad


@dataclass(frozen=True)
class NodeBox:
    """A node's box: its top-left corner and size, in points."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Arc:
    """An arc: ``path`` is an SVG path (cubic Béziers), ``arrow`` the head's polygon."""

    tail: str
    head: str
    path: str
    arrow: list[list[float]]


@dataclass(frozen=True)
class Layout:
    """Where everything is: the picture's size, one box per variable, the arcs."""

    width: float
    height: float
    nodes: dict[str, NodeBox]
    arcs: list[Arc]
    geometry: Geometry

    def to_json(self) -> dict:
        """The layout as plain JSON values (what the explorer's page reads)."""
        return asdict(self)


def unplaced_layout(net: Network, geometry: Geometry | None = None) -> dict:
    """What the explorer's page lays out itself when ``dot`` is missing (with the vendored
    dagre): each box's size and the arcs, no coordinates, ``"engine": "page"``.

    Examples
    --------
    >>> import bbn
    >>> sizes = unplaced_layout(bbn.load("models/chair.bn"))
    >>> sizes["engine"], sizes["nodes"]["C"], sizes["arcs"][0]
    ('page', {'width': 130.6, 'height': 58.0}, {'tail': 'C', 'head': 'W'})
    """
    geometry = geometry or Geometry()
    nodes = {}
    for v in net.variables:
        width, height = geometry.size(v, [] if net.is_gaussian(v) else list(net.states(v)))
        nodes[v] = {"width": width, "height": height}
    return {"engine": "page", "nodes": nodes,
            "arcs": [{"tail": p, "head": v} for v in net.variables for p in net.parents(v)],
            "geometry": asdict(geometry)}


def network_layout(net: Network, rankdir: str = "TB",
                   geometry: Geometry | None = None) -> Layout:
    """Lay out ``net`` with Graphviz's ``dot``: a box per variable sized for its bars.

    Parameters
    ----------
    net : Network
        The network (its variables, states and arcs).
    rankdir : {"TB", "LR"}
        Parents above children (default) or to their left.
    geometry : Geometry, optional
        Sizes of a node's parts.

    Returns
    -------
    Layout
        Coordinates in points, origin at the top left, y downwards.

    Raises
    ------
    bbn.apps.rendering.output.GraphvizMissingError
        When Graphviz's ``dot`` is not installed.

    Examples
    --------
    >>> import bbn
    >>> layout = network_layout(bbn.load("models/chair.bn"))
    >>> layout.nodes["C"].y < layout.nodes["B"].y < layout.nodes["A"].y   # parents above
    True
    >>> [(arc.tail, arc.head) for arc in layout.arcs if arc.head == "B"]
    [('C', 'B'), ('S', 'B')]
    """
    geometry = geometry or Geometry()
    ids = {v: f"n{i}" for i, v in enumerate(net.variables)}
    graph = graphviz.Digraph(graph_attr={"rankdir": rankdir, "nodesep": "0.3",
                                         "ranksep": "0.45", "pad": "0.1"})
    for v, node in ids.items():
        width, height = geometry.size(v, [] if net.is_gaussian(v) else list(net.states(v)))
        graph.node(node, label="", shape="box", fixedsize="true",
                   width=f"{width / POINTS_PER_INCH:.4f}",
                   height=f"{height / POINTS_PER_INCH:.4f}")
    for v in net.variables:
        for p in net.parents(v):
            graph.edge(ids[p], ids[v])
    drawn = json.loads(output.pipe(graph, "json"))
    names = {node: v for v, node in ids.items()}
    _, _, right, top = (float(n) for n in drawn["bb"].split(","))
    nodes = {}
    for item in drawn.get("objects", []):
        x, y = (float(n) for n in item["pos"].split(","))
        width = float(item["width"]) * POINTS_PER_INCH
        height = float(item["height"]) * POINTS_PER_INCH
        nodes[names[item["name"]]] = NodeBox(round(x - width / 2, 2),
                                             round(top - y - height / 2, 2) + 0.0,
                                             round(width, 2), round(height, 2))
    by_gvid = {item["_gvid"]: names[item["name"]] for item in drawn.get("objects", [])}
    arcs = []
    for edge in drawn.get("edges", []):
        curve = next(op["points"] for op in edge["_draw_"] if op["op"] == "b")
        head = next(op["points"] for op in edge["_hdraw_"] if op["op"] in "Pp")
        flipped = [(round(x, 2), round(top - y, 2)) for x, y in curve]
        path = f"M{flipped[0][0]},{flipped[0][1]}" + "".join(
            f"C{a[0]},{a[1]} {b[0]},{b[1]} {c[0]},{c[1]}"
            for a, b, c in zip(flipped[1::3], flipped[2::3], flipped[3::3]))
        arcs.append(Arc(by_gvid[edge["tail"]], by_gvid[edge["head"]], path,
                        [[round(x, 2), round(top - y, 2)] for x, y in head]))
    return Layout(right, top, nodes, arcs, geometry)

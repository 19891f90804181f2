"""Pictures of networks with Graphviz: structure, tables and posteriors.

``render(net, path)`` draws a network and writes it by extension (``.png``, ``.svg``,
``.pdf`` through Graphviz's ``dot``; ``.dot``/``.gv`` as DOT source, no Graphviz needed).
See ``docs/rendering.md``.

>>> import bbn
>>> net = bbn.Network("coin")
>>> net.add_variable("Coin", ["heads", "tails"], table=[0.5, 0.5])
>>> graph = bbn.render(net, tables=True)      # no path: nothing written, no Graphviz run
>>> "<B>heads</B>" in graph.source
True
"""

from bbn.apps.rendering.draw import MAX_COLUMNS, MAX_ROWS, RANKDIRS, render, repr_svg
from bbn.apps.rendering.output import OUTPUT_FORMATS, GraphvizMissingError

__all__ = ["MAX_COLUMNS", "MAX_ROWS", "OUTPUT_FORMATS", "RANKDIRS", "GraphvizMissingError",
           "render", "repr_svg"]

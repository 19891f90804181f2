"""Drawing a decision tree: one box per node, one arc per branch.

An inner node shows the tested column, a leaf its class; every node shows its training
rows per class and its impurity (entropy, or Gini for a Gini tree); every arc is labelled
with its branch's condition (``= sunny``, ``<= 2.45``, ``in {rain, sunny}``). The tree is
read through its public methods only (``nodes``, ``branch_labels``, ``impurity``).

>>> import bbn
>>> tree = bbn.DecisionTree().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
>>> graph = bbn.render(tree)                     # no path: nothing written
>>> "entropy 0.918" in graph.source, "= b" in graph.source
(True, True)
"""

from __future__ import annotations

import os

import graphviz

import bbn.apps.rendering.labels as labels
import bbn.apps.rendering.output as output
from bbn.core.errors import QueryError

#: Leaf colour (inner nodes take the network nodes' colours).
LEAF_FILL = "#eaf5e4"
LEAF_LINE = "#4a7c3a"


def draw_tree(tree, path: str | os.PathLike | None = None, *,
              rankdir: str = "TB") -> graphviz.Digraph:
    """Draw a fitted decision tree; write the picture to ``path`` when given.

    Parameters
    ----------
    tree : DecisionTree
        Fitted.
    path : str or os.PathLike, optional
        The picture (``.svg``, ``.png``, ``.pdf``, or ``.dot``/``.gv`` source).
    rankdir : str
        ``"TB"`` (root on top) or ``"LR"``, ``"BT"``, ``"RL"``.

    Returns
    -------
    graphviz.Digraph

    Raises
    ------
    QueryError
        Not a decision tree.
    NotFittedError
        An unfitted tree.
    BBNError
        As :func:`bbn.render` for the file.

    Examples
    --------
    >>> import bbn
    >>> tree = bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"])
    >>> "x0" in draw_tree(tree).source
    True
    """
    if not hasattr(tree, "branch_labels"):
        raise QueryError(f"render draws a Network or a DecisionTree, not a "
                         f"{type(tree).__name__}")
    nodes = tree.nodes()
    number = {id(n): i for i, n in enumerate(nodes)}
    measure = "gini" if tree.criterion == "gini" else "entropy"
    graph = graphviz.Digraph("decision tree", graph_attr={
        "rankdir": rankdir, "bgcolor": "white", "fontname": "Helvetica", "nodesep": "0.3",
        "ranksep": "0.45", "pad": "0.2"}, node_attr={
        "shape": "box", "style": "rounded,filled", "fontname": "Helvetica", "fontsize": "11",
        "margin": "0.1,0.05"}, edge_attr={"color": "#4d4d4d", "arrowsize": "0.7",
                                          "fontname": "Helvetica", "fontsize": "10"})
    names = tree.feature_space_.names
    for node in nodes:
        counts = ", ".join(f"{labels.escape(c)} {int(n)}"
                           for c, n in zip(tree.classes_, node.counts, strict=True) if n)
        head = (f"<B>{labels.escape(names[node.test.column])}</B>" if not node.is_leaf
                else f"<B>{labels.escape(tree.classes_[node.majority])}</B>")
        text = (f"<{head}<BR/>{counts}<BR/><FONT COLOR=\"{labels.MUTED}\" POINT-SIZE=\"9\">"
                f"{measure} {tree.impurity(node):.3f}</FONT>>")
        fill, line = ((labels.NODE_FILL, labels.NODE_LINE) if not node.is_leaf
                      else (LEAF_FILL, LEAF_LINE))
        graph.node(str(number[id(node)]), label=text, fillcolor=fill, color=line)
        if not node.is_leaf:
            name = names[node.test.column]
            for label, child in zip(tree.branch_labels(node), node.children, strict=True):
                graph.edge(str(number[id(node)]), str(number[id(child)]),
                           label=labels.escape(label[len(name) + 1:]))
    if path is not None:
        output.write(graph, path)
    return graph


__all__ = ["draw_tree"]

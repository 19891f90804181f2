"""Chow–Liu trees: the tree-shaped network closest to the data.

Among all DAGs in which every variable has at most one parent, the one of maximum
likelihood has as skeleton the maximum spanning tree of the complete graph weighted by
the empirical mutual information (Chow and Liu, 1968)

    I(X; Y) = Σ_xy P(x, y) ln( P(x, y) / (P(x) P(y)) )        (natural logarithm)

oriented away from a root (every root gives the same likelihood: the orientations are
Markov equivalent). The spanning tree is networkx's (Kruskal); the counts are bbn's, one
``np.bincount`` per pair of variables.

>>> import bbn, pandas as pd
>>> rows = pd.DataFrame({"A": list("TTFFTF"), "B": list("TTFFTT"), "C": list("TFTFTF")})
>>> net = bbn.chow_liu(rows, root="A")
>>> net.arcs()
[('A', 'B'), ('A', 'C')]
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from bbn.errors import ModelError, suggest
from bbn.structure.dataset import CodedData
from bbn.structure.knowledge import Knowledge
from bbn.structure.method import Settings, Structure


def mutual_information(counts: np.ndarray) -> float:
    """I(X; Y) in nats from the joint count table n(x, y) (0 · ln 0 = 0).

    Parameters
    ----------
    counts : numpy.ndarray
        Shape ``(|X|, |Y|)``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, math
    >>> round(mutual_information(np.array([[5.0, 0.0], [0.0, 5.0]])) / math.log(2), 6)
    1.0
    """
    joint = counts / counts.sum()
    outer = np.multiply.outer(joint.sum(axis=1), joint.sum(axis=0))
    seen = joint > 0
    return float(np.sum(joint[seen] * np.log(joint[seen] / outer[seen])))


def tree_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """The Chow–Liu tree as a structure method (``method="tree"``).

    Pairs that the knowledge allows in neither direction are left out of the spanning
    tree; required arcs are put in first (weight +∞). The tree is oriented away from the
    option ``root`` (a name; by default the ``target``, else the first variable); a part
    of the forest that does not reach it is oriented away from its first variable.

    Parameters
    ----------
    data : CodedData
        The coded rows.
    knowledge : Knowledge
        What the expert knows (checked on the result by the caller).
    settings : Settings
        Reads the option ``root`` and ``target``.

    Returns
    -------
    Structure
        Every variable with at most one parent; ``statistics["pairs"]`` the mutual
        informations computed, ``statistics["skipped"]["memory"]`` the pairs left out
        because their count table would exceed the memory limit.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.structure.dataset import CodedData
    >>> codes = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 1, 0]])
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> found = tree_method(data, Knowledge.build(data.variables), Settings())
    >>> found.arcs()        # A and B equal: I = ln 2; C independent of both: I = 0
    [(0, 1), (0, 2)]
    """
    settings.check_options("tree", ("root",))
    root = settings.option("root", None)
    if root is not None and root not in data.variables:
        raise ModelError(f"the root {root!r} is no column of {data.source}"
                         f"{suggest(str(root), data.variables)}")
    root = (data.index(root) if root is not None
            else settings.target if settings.target is not None else 0)
    n = len(data.variables)
    allowed = knowledge.allowed
    required = {frozenset(arc) for arc in knowledge.required}
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    too_large = 0                        # pairs whose count table exceeds the memory limit
    for i in range(n):
        for j in range(i + 1, n):
            if not (allowed[i, j] or allowed[j, i]):
                continue
            if not data.fits((i, j)):
                too_large += 1
                continue
            weight = (math.inf if frozenset((i, j)) in required
                      else mutual_information(data.counts((i, j))))
            graph.add_edge(i, j, weight=weight)
    tree = nx.maximum_spanning_tree(graph, weight="weight")
    parents: list[tuple[int, ...]] = [()] * n
    for component in nx.connected_components(tree):
        start = root if root in component else min(component)
        for parent, child in nx.bfs_edges(tree, start):
            parents[child] = (parent,)
    return Structure(tuple(parents), statistics={"pairs": graph.number_of_edges(),
                                                 "skipped": {"memory": too_large}})

"""Chow–Liu trees: the tree-shaped network closest to the data.

Among all DAGs in which every variable has at most one parent, the one of maximum
likelihood has as skeleton the maximum spanning tree of the complete graph weighted by
the empirical mutual information (Chow and Liu, 1968)

    I(X; Y) = Σ_xy P(x, y) ln( P(x, y) / (P(x) P(y)) )        (natural logarithm)

oriented away from a root (every root gives the same likelihood: the orientations are
Markov equivalent). The spanning tree is networkx's (Kruskal); the counts are bbn's, one
``np.bincount`` per pair of variables.

>>> import pandas as pd
>>> rows = pd.DataFrame({"A": list("TTFFTF"), "B": list("TTFFTT"), "C": list("TFTFTF")})
>>> net = chow_liu(rows, root="A")
>>> net.arcs()
[('A', 'B'), ('A', 'C')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.data import complete_codes, read_data, states_from_values
from bbn.errors import DataError, ModelError, suggest
from bbn.learning.counting import family_counts
from bbn.learning.parameters import learn
from bbn.network import Network


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


def chow_liu(data, root: str | None = None, *, states: Mapping[str, Sequence[str]] | None = None,
             columns: Sequence[str] | None = None, estimator="mle",
             name: str = "chow-liu") -> Network:
    """The Chow–Liu tree of ``data``, oriented away from ``root``, with its tables learned.

    Parameters
    ----------
    data : DataFrame, str or path, or numpy array
        Complete discrete rows, one column per variable (read as :func:`bbn.learn` reads
        data).
    root : str, optional
        The variable the arcs point away from; the first column by default.
    states : dict, optional
        ``{variable: its states}``; otherwise the distinct values of each column, sorted
        (numbers numerically).
    columns : sequence of str, optional
        Column names for a 2-D numpy array.
    estimator : Estimator or str, default "mle"
        How the tables are learned (any of :func:`bbn.learn`'s).
    name : str, default "chow-liu"
        The network's name.

    Returns
    -------
    Network
        Variables in column order; each but the root has one parent.

    Raises
    ------
    DataError
        For no rows, a missing value, a value that is no state, or fewer than one column.
    ModelError
        For a ``root`` that is no column (with close matches).

    Examples
    --------
    >>> import bbn
    >>> rows = bbn.sample(bbn.load("models/chair.bn"), 3000, seed=1)
    >>> sorted(chow_liu(rows, root="C").arcs())
    [('B', 'A'), ('B', 'S'), ('C', 'B'), ('C', 'W')]
    """
    import networkx as nx  # here: networkx costs 0.2 s to import (start-up of bbn query)

    frame, source = read_data(data, columns, states)
    variables = [str(c) for c in frame.columns]
    if not variables:
        raise DataError(f"{source}: no columns to learn a structure from")
    if root is None:
        root = variables[0]
    elif root not in variables:
        raise ModelError(f"the root {root!r} is no column of {source}"
                         f"{suggest(str(root), variables)}")
    names = [tuple(states[v]) if states and v in states else states_from_values(frame[v])
             for v in variables]
    codes = complete_codes(frame, variables, names, source)
    cards = [len(s) for s in names]
    graph = nx.Graph()
    graph.add_nodes_from(variables)
    for i in range(len(variables)):
        for j in range(i + 1, len(variables)):
            counts = family_counts([codes[:, i], codes[:, j]], [cards[i], cards[j]])
            graph.add_edge(variables[i], variables[j], weight=mutual_information(counts))
    tree = nx.maximum_spanning_tree(graph, weight="weight")
    parent = {child: p for p, child in nx.bfs_edges(tree, root)}
    structure = Network(name)
    for v, v_states in zip(variables, names):
        structure.add_variable(v, v_states)
    for v in variables:
        if v in parent:
            structure.set_parents(v, [parent[v]])
    return learn(structure, frame, estimator)

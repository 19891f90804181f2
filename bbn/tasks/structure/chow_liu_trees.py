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
from collections.abc import Sequence

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Settings, Structure


def conditional_mutual_information(counts: np.ndarray) -> float:
    """I(X; Y | C) in nats from the count table n(c, x, y) (0 · ln 0 = 0).

    Parameters
    ----------
    counts : numpy.ndarray
        Shape ``(|C|, |X|, |Y|)``.

    Returns
    -------
    float
        Σ_c P(c) I(X; Y | C = c); 0 for no rows.

    Examples
    --------
    >>> import numpy as np
    >>> equal_given_c = np.array([[[2.0, 0.0], [0.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]])
    >>> round(conditional_mutual_information(equal_given_c), 6)    # ½ ln 2 + ½ · 0
    0.346574
    """
    total = counts.sum()
    if total == 0:
        return 0.0
    n_c = counts.sum(axis=(1, 2))[:, None, None]
    n_cx = counts.sum(axis=2)[:, :, None]
    n_cy = counts.sum(axis=1)[:, None, :]
    seen = counts > 0
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 in unseen cells, not read
        ratio = (counts * n_c) / (n_cx * n_cy)
    return float(np.sum(counts[seen] * np.log(ratio[seen])) / total)


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
    return conditional_mutual_information(np.asarray(counts, dtype=float)[np.newaxis])


def tree_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """The Chow–Liu tree as a structure method (``method="tree"``).

    Pairs that the knowledge allows in neither direction are left out of the spanning
    tree; required arcs are put in first (weight +∞, in their direction). The tree is
    oriented away from the option ``root`` (a name; by default the ``target``, else the
    first variable); a part of the forest that does not reach it is oriented away from its
    first variable. Without ``root``, a tree whose orientation breaks the tiers or a
    forbidden arc is oriented from the first variable that honours them
    (:func:`spanning_tree`).

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
    >>> from bbn.tasks.structure.dataset import CodedData
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
    start = (data.index(root) if root is not None
             else settings.target if settings.target is not None else 0)
    n = len(data.variables)
    allowed = knowledge.allowed
    weights = np.full((n, n), -np.inf)
    too_large = 0                        # pairs whose count table exceeds the memory limit
    for i in range(n):
        for j in range(i + 1, n):
            if not (allowed[i, j] or allowed[j, i]):
                continue
            if not data.fits((i, j)):
                too_large += 1
                continue
            weights[i, j] = mutual_information(data.counts((i, j)))
    computed = int(np.isfinite(weights).sum())
    allowed = require(weights, allowed, knowledge.required)
    parents = spanning_tree(weights, allowed, start, data.variables, fixed_root=root is not None)
    return Structure(tuple(() if p is None else (p,) for p in parents),
                     statistics={"pairs": computed, "skipped": {"memory": too_large}})


def require(weights: np.ndarray, allowed: np.ndarray, required) -> np.ndarray:
    """Put the required arcs (parent, child) into every maximum spanning tree (weight +∞,
    in ``weights``) in their direction: ``allowed`` without their reversals (a copy)."""
    allowed = allowed.copy()
    for p, c in required:
        weights[min(p, c), max(p, c)] = math.inf
        allowed[c, p] = False
    return allowed


def spanning_tree(weights: np.ndarray, allowed: np.ndarray, root: int, names: Sequence[str],
                  fixed_root: bool = False) -> list[int | None]:
    """The maximum spanning forest of the weighted pairs, oriented away from a root.

    Each tree of the forest is oriented away from ``root`` if it holds it, else from its
    first node; when that orientation has an arc ``allowed`` refuses (tiers, forbidden
    arcs), the next node that gives an allowed orientation is the root instead (unless
    ``fixed_root``: then ``root``'s own tree is an error).

    Parameters
    ----------
    weights : numpy.ndarray
        ``weights[i, j]`` (i < j; the lower triangle is not read) the weight of the pair;
        −∞ leaves the pair out, +∞ puts it in.
    allowed : numpy.ndarray
        ``allowed[p, c]``: may p → c be an arc.
    root : int
        The preferred root.
    names : sequence of str
        The nodes' names, for messages.
    fixed_root : bool, default False
        ``root`` was chosen by the user: refuse rather than move it.

    Returns
    -------
    list of int or None
        The parent of every node, None for the roots.

    Raises
    ------
    ModelError
        When no orientation of a tree honours ``allowed`` (it would need a node with two
        parents), or ``root`` cannot be the root with ``fixed_root``.

    Examples
    --------
    >>> w = np.array([[-np.inf, 3.0, 1.0], [0, -np.inf, 2.0], [0, 0, -np.inf]])
    >>> allowed = ~np.eye(3, dtype=bool)
    >>> spanning_tree(w, allowed, 0, "ABC")          # A–B (3) and B–C (2), from A
    [None, 0, 1]
    >>> allowed[1, 0] = False                     # B → A refused: from C, A is the root
    >>> spanning_tree(w, allowed, 2, "ABC")
    [None, 0, 1]
    >>> allowed[1, 2] = False                     # and B → C: B would need two parents
    >>> spanning_tree(w, allowed, 2, "ABC")
    Traceback (most recent call last):
        ...
    bbn.core.errors.ModelError: no orientation of the tree A–B, B–C honours the knowledge ...
    """
    import networkx as nx  # here: ~0.3 s to import; NaiveBayes imports this module for a TAN

    n = len(weights)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    pairs = np.argwhere(np.triu(weights > -np.inf, 1))
    graph.add_weighted_edges_from((int(i), int(j), weights[i, j]) for i, j in pairs)
    tree = nx.maximum_spanning_tree(graph, weight="weight")
    parents: list[int | None] = [None] * n
    for component in nx.connected_components(tree):
        first = root if root in component else min(component)
        candidates = [first] if fixed_root and first == root else \
            [first, *sorted(component - {first})]
        for start in candidates:
            arcs = list(nx.bfs_edges(tree, start))
            if all(allowed[p, c] for p, c in arcs):
                break
        else:
            edges = ", ".join(f"{names[min(e)]}–{names[max(e)]}" for e in sorted(
                tuple(sorted(e)) for e in tree.subgraph(component).edges))
            where = (f" from the root {names[root]!r}" if fixed_root and first == root
                     else "")
            raise ModelError(f"no orientation of the tree {edges}{where} honours the "
                             "knowledge (forbidden arcs, tiers): a tree gives every node "
                             "one parent at most")
        for p, c in arcs:
            parents[c] = p
    return parents

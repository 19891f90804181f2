"""Equivalence classes of DAGs: the CPDAG, Meek's rules and a DAG back from a PDAG.

Two DAGs are Markov equivalent (they say the same independences) iff they have the same
skeleton and the same v-structures a → c ← b, a and b not adjacent (Verma and Pearl,
1990). The class is drawn as a CPDAG: an arc where every member agrees (a compelled
arc), an undirected edge a — b where members differ. It is found by orienting the
v-structures and closing under Meek's rules (Meek, 1995), each orienting a — b as a → b:

    R1   c → a,  c not adjacent to b                                  (no new v-structure)
    R2   a → c → b                                                    (no cycle)
    R3   a — c → b,  a — d → b,  c not adjacent to d                  (R1/R2 would fail)
    R4   a — d → c → b,  a adjacent to c,  d not adjacent to b

R1–R3 suffice from a DAG's v-structures; R4 is needed once knowledge orients arcs too.
A consistent extension of a PDAG (a DAG with its skeleton, its arcs and no other
v-structures) comes from Dor and Tarsi (1992): repeatedly take a variable x with no arc
out of it whose every undirected neighbour is adjacent to all of x's other neighbours,
direct its undirected edges into x, and remove x.

Everything here works on variable positions 0..n−1. A PDAG is held as an n × n boolean
matrix ``graph``: ``graph[a, b] and graph[b, a]`` an undirected edge a — b,
``graph[a, b] and not graph[b, a]`` an arc a → b.

>>> pattern = cpdag(((), (0,), (1,)))          # the chain 0 → 1 → 2: nothing compelled
>>> pattern.arcs, sorted(pattern.undirected)
(frozenset(), [(0, 1), (1, 2)])
>>> cpdag(((), (), (0, 1))).arcs == {(0, 2), (1, 2)}      # the collider 0 → 2 ← 1
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from bbn.core.errors import ModelError
from bbn.tasks.structure.method import Parents


class PDAG(NamedTuple):
    """A partially directed graph by positions: its arcs and its undirected edges.

    Attributes
    ----------
    size : int
        The number of variables.
    arcs : frozenset of (int, int)
        Arcs (parent, child).
    undirected : frozenset of (int, int)
        Undirected edges (i, j), i < j.

    Examples
    --------
    >>> PDAG.from_matrix(as_matrix(3, [(0, 1)], [(1, 2)]))
    PDAG(size=3, arcs=frozenset({(0, 1)}), undirected=frozenset({(1, 2)}))
    """

    size: int
    arcs: frozenset[tuple[int, int]]
    undirected: frozenset[tuple[int, int]]

    @classmethod
    def from_matrix(cls, graph: np.ndarray) -> PDAG:
        """The PDAG of a boolean adjacency matrix (see the module docstring)."""
        both = graph & graph.T
        arcs = graph & ~both
        return cls(len(graph), frozenset(zip(*map(_ints, np.nonzero(arcs)))),
                   frozenset(zip(*map(_ints, np.nonzero(np.triu(both))))))

    def matrix(self) -> np.ndarray:
        """The boolean adjacency matrix (see the module docstring)."""
        return as_matrix(self.size, self.arcs, self.undirected)

    def edges(self) -> dict[tuple[int, int], str]:
        """``{(i, j) with i < j: mark}``, the mark ``"->"`` (i → j), ``"<-"`` (j → i) or
        ``"--"`` (undirected): one entry per adjacent pair, for comparing classes."""
        marks = {(min(a, b), max(a, b)): "->" if a < b else "<-" for a, b in self.arcs}
        marks.update((edge, "--") for edge in self.undirected)
        return marks


def _ints(values: np.ndarray) -> list[int]:
    return [int(v) for v in values]


def as_matrix(size: int, arcs: Iterable[tuple[int, int]],
              undirected: Iterable[tuple[int, int]] = ()) -> np.ndarray:
    """The n × n boolean matrix of arcs a → b and undirected edges a — b.

    Examples
    --------
    >>> as_matrix(2, [], [(0, 1)]).astype(int).tolist()
    [[0, 1], [1, 0]]
    """
    graph = np.zeros((size, size), dtype=bool)
    for a, b in arcs:
        graph[a, b] = True
    for a, b in undirected:
        graph[a, b] = graph[b, a] = True
    return graph


def dag_matrix(parents: Parents) -> np.ndarray:
    """The adjacency matrix of a DAG given as parent positions per variable."""
    return as_matrix(len(parents), ((p, c) for c, ps in enumerate(parents) for p in ps))


def v_structures(parents: Parents) -> frozenset[tuple[int, int, int]]:
    """The v-structures (a, c, b), a < b, of a DAG: a → c ← b with a, b not adjacent.

    Examples
    --------
    >>> sorted(v_structures(((), (), (0, 1), (2,))))
    [(0, 2, 1)]
    """
    graph = dag_matrix(parents)
    adjacent = graph | graph.T
    return frozenset((a, c, b) for c, ps in enumerate(parents) for a in ps for b in ps
                     if a < b and not adjacent[a, b])


def cpdag(parents: Parents) -> PDAG:
    """The equivalence class of a DAG as a CPDAG (compelled arcs, the rest undirected).

    Parameters
    ----------
    parents : tuple of tuple of int
        The DAG: the parent positions of every variable.

    Returns
    -------
    PDAG
        Its v-structures oriented and closed under Meek's rules.

    Examples
    --------
    >>> sorted(cpdag(((), (), (0, 1), (2,))).arcs)     # 0 → 2 ← 1 compels 2 → 3 (R1)
    [(0, 2), (1, 2), (2, 3)]
    """
    graph = dag_matrix(parents)
    skeleton = graph | graph.T
    compelled = np.zeros_like(graph)
    for a, c, b in v_structures(parents):
        compelled[a, c] = compelled[b, c] = True
    pattern = skeleton & ~compelled.T
    return PDAG.from_matrix(meek(pattern))


def meek(graph: np.ndarray) -> np.ndarray:
    """Close a PDAG under Meek's rules R1–R4 (the module docstring): orient every
    undirected edge some rule compels, until none does.

    Parameters
    ----------
    graph : numpy.ndarray
        The PDAG's boolean adjacency matrix (not changed).

    Returns
    -------
    numpy.ndarray
        A new matrix, more edges oriented. An orientation that would close a directed
        cycle (possible only when the input is no equivalence class, e.g. conflicting
        tests) is not made.

    Examples
    --------
    >>> PDAG.from_matrix(meek(as_matrix(3, [(0, 1)], [(1, 2)]))).arcs == {(0, 1), (1, 2)}
    True
    """
    graph = graph.copy()
    changed = True
    while changed:
        changed = False
        undirected = graph & graph.T
        for a, b in zip(*np.nonzero(undirected)):
            if graph[a, b] and graph[b, a] and _compelled(graph, a, b) \
                    and not _reaches(graph, b, a):
                graph[b, a] = False
                changed = True
    return graph


def _compelled(graph: np.ndarray, a: int, b: int) -> bool:
    """Whether one of Meek's rules orients the undirected edge a — b as a → b."""
    undirected = graph & graph.T
    directed = graph & ~undirected
    adjacent = graph | graph.T
    if np.any(directed[:, a] & ~adjacent[:, b]):                       # R1 (c ≠ b: b — a)
        return True
    if np.any(directed[a, :] & directed[:, b]):                        # R2
        return True
    middle = np.flatnonzero(undirected[a, :] & directed[:, b])         # R3
    if len(middle) > 1 and not adjacent[np.ix_(middle, middle)][
            np.triu_indices(len(middle), 1)].all():
        return True
    for d in np.flatnonzero(undirected[a, :] & ~adjacent[:, b]):       # R4
        if d != b and np.any(directed[d, :] & directed[:, b] & adjacent[a, :]):
            return True
    return False


def _reaches(graph: np.ndarray, start: int, goal: int) -> bool:
    """Whether a directed path (arcs only) leads from ``start`` to ``goal``."""
    directed = graph & ~graph.T
    seen = np.zeros(len(graph), dtype=bool)
    seen[start] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = directed[frontier].any(axis=0) & ~seen
        seen |= frontier
    return bool(seen[goal])


def orient(graph: np.ndarray, parent: int, child: int) -> bool:
    """Orient the edge parent — child in place as parent → child unless it is already an
    arc either way or would close a directed cycle; whether it was oriented.

    Examples
    --------
    >>> graph = as_matrix(3, [(0, 1), (1, 2)], [(0, 2)])
    >>> orient(graph, 2, 0), orient(graph, 0, 2)             # 2 → 0 would close a cycle
    (False, True)
    """
    if not (graph[parent, child] and graph[child, parent]) or _reaches(graph, child, parent):
        return False
    graph[child, parent] = False
    return True


def extension(pdag: PDAG, *, strict: bool = True) -> Parents:
    """A consistent DAG extension of a PDAG (Dor and Tarsi, 1992).

    Parameters
    ----------
    pdag : PDAG
        Arcs and undirected edges (arcs acyclic).
    strict : bool, default True
        When the PDAG has no consistent extension: raise, or (False) go on by directing
        the undirected edges of a variable with no arc out of it into it (a DAG with the
        PDAG's arcs and skeleton that adds v-structures; PC on conflicting tests).

    Returns
    -------
    tuple of tuple of int
        The parent positions of every variable; where the PDAG leaves a choice, arcs go
        from lower to higher positions (the highest eligible variable is removed first).

    Raises
    ------
    ModelError
        ``strict`` and no consistent extension exists, or the arcs have a cycle.

    Examples
    --------
    >>> extension(PDAG(3, frozenset(), frozenset({(0, 1), (1, 2)})))
    ((), (0,), (1,))
    >>> extension(PDAG(4, frozenset(), frozenset({(0, 1), (1, 2), (2, 3), (0, 3)})))
    Traceback (most recent call last):
        ...
    bbn.core.errors.ModelError: the PDAG has no consistent extension (an undirected cycle ...
    """
    graph = pdag.matrix()
    remaining = np.ones(pdag.size, dtype=bool)
    parents: list[list[int]] = [[] for _ in range(pdag.size)]
    for _ in range(pdag.size):
        sub = graph & remaining[:, None] & remaining[None, :]
        both = sub & sub.T
        sinks = np.flatnonzero(remaining & ~(sub & ~both).any(axis=1))
        if not len(sinks):
            raise ModelError("the PDAG's arcs form a directed cycle")
        chosen = next((x for x in sinks[::-1] if _clique_condition(sub, both, x)), None)
        if chosen is None:
            if strict:
                raise ModelError("the PDAG has no consistent extension (an undirected cycle "
                                 "without a chord, or a new v-structure is unavoidable)")
            chosen = sinks[-1]
        parents[chosen] = _ints(np.flatnonzero(sub[:, chosen]))
        remaining[chosen] = False
    return tuple(tuple(ps) for ps in parents)


def _clique_condition(sub: np.ndarray, both: np.ndarray, x: int) -> bool:
    """Dor–Tarsi: every undirected neighbour of x is adjacent to all of x's other
    neighbours (so directing x's undirected edges into x makes no new v-structure)."""
    adjacent = sub | sub.T
    neighbours = np.flatnonzero(adjacent[x])
    for y in np.flatnonzero(both[x]):
        others = neighbours[neighbours != y]
        if not adjacent[y, others].all():
            return False
    return True

"""The PC algorithm (``method="pc"``): the equivalence class from independence tests.

PC-stable (Spirtes, Glymour and Scheines, 2000; Colombo and Maathuis, 2014):

1. Skeleton. Start from every pair the knowledge allows in some direction. For
   ℓ = 0, 1, 2, ...: freeze the adjacencies a(X) of the graph as it is; for every edge
   X — Y still present, test X ⫫ Y | S for the subsets S of size ℓ of a(X) \\ {Y}, then
   of a(Y) \\ {X}; the first S with p ≥ α removes the edge and is kept as its
   separating set. Stop when no a(X) \\ {Y} has ℓ members (or ℓ passes
   ``max_condition``). Freezing makes the result independent of the variables' order.
   Required arcs are never tested away.
2. Knowledge. Required arcs, and edges the knowledge allows one way only (forbidden
   arcs, tiers), are oriented first.
3. V-structures. For non-adjacent X, Y with a separating set S and a common neighbour
   Z ∉ S: X → Z ← Y. Conflicts (two v-structures orienting one edge both ways, or one
   against the knowledge) are resolved without regard to order: the edge keeps no
   v-structure orientation (it stays as the knowledge set it, or undirected for Meek's
   rules); ``statistics["conflicts"]`` counts them.
4. Meek's rules R1–R4 (:func:`~bbn.structure.equivalence.meek`) orient what follows.

The result is the PDAG's consistent extension (Dor–Tarsi) with its undirected edges
beside it. A set reached from both ends of an edge is tested once (no test can repeat
otherwise: a pair meets each size of S at one level only); a test whose count table
would not fit the memory limit is skipped (the edge stays), and with dof 0 a test says
independent (p = 1).

>>> import bbn
>>> net = bbn.learn_structure(bbn.sample(bbn.load("models/chair.bn"), 3000, seed=1),
...                           method="pc")
>>> net.statistics_["tests"] > 0, net.method_
(True, 'pc')
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from bbn.errors import ModelError
from bbn.structure.dataset import CodedData
from bbn.structure.equivalence import PDAG, extension, meek, orient
from bbn.structure.independence import independence_test
from bbn.structure.knowledge import Knowledge, arc_text
from bbn.structure.method import Settings, Structure

#: The options of ``method="pc"``.
PC_OPTIONS = ("max_condition",)


def pc_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """PC-stable as a structure method (steps in the module docstring).

    Parameters
    ----------
    data : CodedData
        The coded rows.
    knowledge : Knowledge
        Forbidden both ways: no edge; required: kept and oriented; tiers: orient across
        tiers. ``max_parents`` is checked on the result by the caller (PC does not limit
        parents: a ModelError names the variable with too many).
    settings : Settings
        ``alpha``, ``test``, and the option ``max_condition`` (the largest conditioning
        set, default: no limit).

    Returns
    -------
    Structure
        A consistent extension of the PDAG found, its undirected edges, and statistics:
        ``tests`` run, ``shared_sets`` (sets from both ends of an edge, tested once),
        ``levels`` (the largest ℓ reached + 1),
        ``removed`` (edges by level), ``conflicts``, ``skipped["memory"]`` (tests whose
        count table would exceed the memory limit),
        ``extension_fallback`` (True when the PDAG had no consistent extension).

    Raises
    ------
    ModelError
        For an unknown option, a bad ``max_condition``, a ``start`` network, or knowledge
        that orients the edges kept into a directed cycle.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, 2000), rng.integers(0, 2, 2000)
    >>> c = (a | b) ^ (rng.random(2000) < 0.1)             # C: A or B, 10% noise
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, np.column_stack([a, b, c]))
    >>> found = pc_method(data, Knowledge.build(data.variables), Settings())
    >>> found.arcs(), found.undirected                     # A ⫫ B: the collider A → C ← B
    ([(0, 2), (1, 2)], frozenset())
    """
    settings.check_options("pc", PC_OPTIONS)
    max_condition = settings.whole_option("pc", "max_condition", None)
    if settings.start is not None:
        raise ModelError("method 'pc' starts from the complete graph and takes no start "
                         "network; start= is for the score-based searches")
    return pc_search(data, knowledge, settings, max_condition)


def pc_search(data: CodedData, knowledge: Knowledge, settings: Settings,
              max_condition: int | None = None,
              skeleton: np.ndarray | None = None) -> Structure:
    """PC-stable from ``skeleton`` (every allowed pair by default): the steps 1–4 of the
    module docstring, the options already read.

    Parameters
    ----------
    data, knowledge, settings
        As for :func:`pc_method` (``settings.alpha`` and ``settings.test``).
    max_condition : int, optional
        The largest conditioning set; no limit by default.
    skeleton : numpy.ndarray, optional
        n × n symmetric booleans: the only edges PC starts from (the hybrid's MMPC
        skeleton, whose tests then need not be run again); required arcs are kept.

    Returns
    -------
    Structure
        As :func:`pc_method`.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 1], [1, 0, 1]] * 50)  # C = A or B
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> path = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]], bool)   # A – C – B: A, B untested
    >>> pc_search(data, Knowledge.build(data.variables), Settings(), skeleton=path).arcs()
    [(0, 2), (1, 2)]
    """
    tests = _Tests(data, settings.test)
    adjacent, separating, removed = _skeleton(data, knowledge, settings, tests, max_condition,
                                              skeleton)
    if skeleton is not None:
        _separate_unshielded(tests, settings.alpha, adjacent, separating, max_condition)
    graph, conflicts = _orient(adjacent, separating, knowledge)
    graph = meek(graph)
    pdag = PDAG.from_matrix(graph)
    try:
        parents, fallback = extension(pdag), False
    except ModelError:
        parents, fallback = extension(pdag, strict=False), True
    statistics = {"tests": tests.run, "shared_sets": tests.shared, "levels": len(removed),
                  "removed": removed, "conflicts": conflicts,
                  "skipped": {"memory": tests.too_large}, "extension_fallback": fallback}
    return Structure(parents, pdag.undirected, statistics=statistics)


class _Tests:
    """The p-values of X ⫫ Y | S from the data, counting the work."""

    def __init__(self, data: CodedData, test: str) -> None:
        self.data, self.test = data, test
        self.run = self.shared = self.too_large = 0

    def p_value(self, x: int, y: int, given: tuple[int, ...]) -> float | None:
        """The p-value, or None when the count table would not fit the memory limit."""
        if not self.data.fits((*given, x, y)):
            self.too_large += 1
            return None
        self.run += 1
        return independence_test(self.data, x, y, given, self.test).p_value


def _skeleton(data: CodedData, knowledge: Knowledge, settings: Settings, tests: _Tests,
              max_condition: int | None, skeleton: np.ndarray | None = None):
    """The adjacency matrix after PC-stable's tests from ``skeleton`` (or every allowed
    pair), the separating set of every pair removed ({(x, y), x < y: S}), and the edges
    removed at each level."""
    allowed = knowledge.allowed
    adjacent = allowed | allowed.T
    required = np.zeros_like(adjacent)
    for p, c in knowledge.required:
        required[p, c] = required[c, p] = True
    if skeleton is not None:
        adjacent &= skeleton | required
    separating: dict[tuple[int, int], tuple[int, ...]] = {}
    removed: list[int] = []
    level = 0
    while max_condition is None or level <= max_condition:
        frozen = adjacent.copy()                          # a(X), fixed for the level
        if not np.any(frozen & (frozen.sum(axis=1) - 1 >= level)[:, None]):
            break
        gone = []
        for x, y in zip(*np.nonzero(np.triu(frozen & ~required))):
            given = _separating_set(tests, settings.alpha, frozen, int(x), int(y), level)
            if given is not None:
                gone.append((int(x), int(y)))
                separating[(int(x), int(y))] = given
        for x, y in gone:
            adjacent[x, y] = adjacent[y, x] = False
        removed.append(len(gone))
        settings.report(f"pc: level {level}: {len(gone)} edges removed, "
                        f"{int(np.triu(adjacent).sum())} left, {tests.run} tests")
        level += 1
    return adjacent, separating, removed


def _separate_unshielded(tests: _Tests, alpha: float, adjacent: np.ndarray,
                         separating: dict[tuple[int, int], tuple[int, ...]],
                         max_condition: int | None) -> None:
    """Separating sets for the pairs a given skeleton left out (PC never tested them)
    that have a common neighbour, so their v-structures can be judged: the first S ⊆
    a(x) or a(y), smallest first, with X ⫫ Y | S. A pair none separates keeps no set
    (no v-structure on it)."""
    degree = adjacent.sum(axis=1)
    shared = (adjacent.astype(np.int64) @ adjacent.astype(np.int64)) > 0
    for x, y in zip(*np.nonzero(np.triu(shared & ~adjacent, k=1))):
        x, y = int(x), int(y)
        if (x, y) in separating:
            continue
        largest = int(max(degree[x], degree[y]))
        if max_condition is not None:
            largest = min(largest, max_condition)
        for level in range(largest + 1):
            given = _separating_set(tests, alpha, adjacent, x, y, level)
            if given is not None:
                separating[(x, y)] = given
                break


def _separating_set(tests: _Tests, alpha: float, frozen: np.ndarray, x: int, y: int,
                    level: int) -> tuple[int, ...] | None:
    """The first subset S of size ``level`` of a(x) \\ {y}, then of a(y) \\ {x}, with
    X ⫫ Y | S at level α; None when every test rejects independence. A subset of both
    is tested once (the only way PC-stable could repeat a test: each level tests sets of
    one size, and a pair's sets are tested at one level only)."""
    tried: set[tuple[int, ...]] = set()
    for end, other in ((x, y), (y, x)):
        neighbours = [int(v) for v in np.flatnonzero(frozen[end]) if v != other]
        for given in combinations(neighbours, level):
            key = tuple(sorted(given))
            if key in tried:
                tests.shared += 1
                continue
            tried.add(key)
            p_value = tests.p_value(x, y, given)
            if p_value is not None and p_value >= alpha:
                return given
    return None


def _orient(adjacent: np.ndarray, separating: dict[tuple[int, int], tuple[int, ...]],
            knowledge: Knowledge) -> tuple[np.ndarray, int]:
    """The skeleton with the knowledge's arcs and the v-structures oriented, and the
    number of edges whose v-structure orientations conflicted."""
    graph = adjacent.copy()
    allowed = knowledge.allowed
    one_way = adjacent & allowed & ~allowed.T    # an edge allowed one way only: that way
    for p, c in sorted(knowledge.required) + [(int(p), int(c)) for p, c in
                                              zip(*np.nonzero(one_way))]:
        if graph[c, p] and not orient(graph, p, c):
            names = knowledge.variables
            raise ModelError(
                f"the knowledge orients the edges PC kept into a directed cycle: "
                f"{arc_text(names[p], names[c])} (required, or the only direction the "
                f"forbidden arcs and tiers allow) closes it; loosen the forbidden arcs "
                f"or tiers")
    proposed = np.zeros_like(graph)
    for (x, y), given in separating.items():
        for z in np.flatnonzero(adjacent[x] & adjacent[y]):
            if z not in given:
                proposed[x, z] = proposed[y, z] = True
    undirected = graph & graph.T
    conflicting = (proposed & proposed.T) | (proposed & ~graph)
    conflicts = int(np.triu(conflicting | conflicting.T).sum())
    for p, c in zip(*np.nonzero(proposed & ~proposed.T & undirected)):
        orient(graph, int(p), int(c))
    return graph, conflicts

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
4. Meek's rules R1–R4 (:func:`~bbn.tasks.structure.equivalence.meek`) orient what follows.

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

import math
from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np

from bbn.core.errors import ModelError
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.equivalence import PDAG, extension, meek, orient
from bbn.tasks.structure.independence_tests import Request, counting_codes, independence_tests
from bbn.tasks.structure.knowledge import Knowledge, arc_text
from bbn.tasks.structure.method import Settings, Structure

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
    """The p-values of X ⫫ Y | S from the data, many at a time, counting the work."""

    def __init__(self, data: CodedData, test: str) -> None:
        self.data, self.test = data, test
        self.codes = counting_codes(data)                    # converted once
        self.run = self.shared = self.too_large = 0

    def p_values(self, asked: Sequence[tuple[int, int, tuple[int, ...]]]
                 ) -> list[float | None]:
        """The p-value of every (x, y, S) asked, all counted in one
        :func:`~bbn.tasks.structure.independence_tests.independence_tests` call; None for a test
        whose count table would not fit the memory limit."""
        if not asked:
            return []
        requests = [Request(y, np.array([x]), given) for x, y, given in asked]
        found = independence_tests(self.data, requests, self.test, self.codes).p_value
        values = [None if math.isnan(p) else p for p in found.tolist()]
        untested = values.count(None)
        self.too_large += untested
        self.run += len(values) - untested
        return values


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
        pairs = [(int(x), int(y)) for x, y in zip(*np.nonzero(np.triu(frozen & ~required)))]
        gone = _first_separating_sets(
            tests, settings.alpha,
            {(x, y): _candidate_sets(tests, frozen, x, y, level) for x, y in pairs})
        for x, y in pairs:                                # in pair order, as found one by one
            if (x, y) in gone:
                adjacent[x, y] = adjacent[y, x] = False
                separating[(x, y)] = gone[(x, y)]
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
    candidates = {}
    for x, y in zip(*np.nonzero(np.triu(shared & ~adjacent, k=1))):
        x, y = int(x), int(y)
        if (x, y) in separating:
            continue
        largest = int(max(degree[x], degree[y]))
        if max_condition is not None:
            largest = min(largest, max_condition)
        candidates[(x, y)] = _sets_up_to(tests, adjacent, x, y, largest)
    separating.update(_first_separating_sets(tests, alpha, candidates))


def _candidate_sets(tests: _Tests, frozen: np.ndarray, x: int, y: int,
                    level: int) -> Iterator[tuple[int, ...]]:
    """The subsets S of size ``level`` of a(x) \\ {y}, then of a(y) \\ {x}, in PC's order;
    a subset of both comes once (the only way PC-stable could repeat a test: each level
    tests sets of one size, and a pair's sets are tested at one level only)."""
    tried: set[tuple[int, ...]] = set()
    for end, other in ((x, y), (y, x)):
        neighbours = [int(v) for v in np.flatnonzero(frozen[end]) if v != other]
        for given in combinations(neighbours, level):
            key = tuple(sorted(given))
            if key in tried:
                tests.shared += 1
                continue
            tried.add(key)
            yield given


def _sets_up_to(tests: _Tests, adjacent: np.ndarray, x: int, y: int,
                largest: int) -> Iterator[tuple[int, ...]]:
    """The candidate sets of sizes 0, 1, ..., ``largest``, smallest first."""
    for level in range(largest + 1):
        yield from _candidate_sets(tests, adjacent, x, y, level)


def _first_separating_sets(tests: _Tests, alpha: float,
                           candidates: dict[tuple[int, int], Iterator[tuple[int, ...]]]
                           ) -> dict[tuple[int, int], tuple[int, ...]]:
    """For every pair (x, y), the first of its candidate sets S with X ⫫ Y | S at level
    α (pairs every test rejects are left out).

    The pairs are searched side by side: each round tests the next set of every pair
    still searching, all in one batch (one bincount), and a pair stops at its first
    independence, so the tests run are exactly those of searching the pairs one at a
    time (PC on 10,000 rows of alarm: a few dozen batches instead of thousands of
    single tests).
    """
    found: dict[tuple[int, int], tuple[int, ...]] = {}
    searching = dict(candidates)
    while searching:
        asked = []
        for pair, sets in list(searching.items()):
            given = next(sets, None)
            if given is None:
                del searching[pair]
            else:
                asked.append((pair, given))
        p_values = tests.p_values([(x, y, given) for (x, y), given in asked])
        for (pair, given), p_value in zip(asked, p_values):
            if p_value is not None and p_value >= alpha:
                found[pair] = given
                del searching[pair]
    return found


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

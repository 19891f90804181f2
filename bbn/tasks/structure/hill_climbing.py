"""Greedy hill climbing over DAGs on a decomposable score, with a tabu list and restarts.

A decomposable score is a sum of family terms, S(G) = Σ_X s(X, Pa(X)), so a move that
changes one family changes S by that family's difference alone. With

    Δ[p, c] = s(c, Pa(c) △ {p}) − s(c, Pa(c))        (toggle p in c's parents)

the three moves score as

    add p → c       Δ[p, c]                  (p ∉ Pa(c); no path c ⇝ p)
    remove p → c    Δ[p, c]                  (p ∈ Pa(c); not required)
    reverse p → c   Δ[p, c] + Δ[c, p]        (not required; no path p ⇝ x → c, x ≠ p)

and after a move only the columns Δ[·, c] of the changed children are recomputed (one
for an addition or removal, two for a reversal; a column met before is copied), every
family scored once through :class:`~bbn.tasks.structure.family_scores.FamilyScores`.
Acyclicity is read off a reachability matrix R (R[a, b]: a path a ⇝ b), updated by an
outer product after an addition and recomputed by squaring after a removal or reversal,
so no candidate costs a graph search; the best legal move is one ``argmax`` over the
3 × n × n gains of all moves, masked.

Each climb takes the best move while it improves S. With a tabu list (``tabu_length``
> 0) it goes on through non-improving moves, never undoing one of the last
``tabu_length`` moves, for at most ``tabu_length`` moves without a new best, and returns
the best DAG seen. ``restarts`` times, the best DAG is then perturbed by
``perturbation`` random legal moves (seeded: reproducible) and climbed again.

The expert's knowledge bounds every move: only arcs ``knowledge.allowed`` (and, for the
hybrid, among the candidate parents) are added, required arcs are in the start DAG and
never removed or reversed, and no variable gets more than ``max_parents`` parents.

>>> import bbn                     # the chair network: C → W, C → B ← S, B → A
>>> rows = bbn.sample(bbn.load("models/chair.bn"), 3000, seed=3)
>>> sorted(bbn.learn_structure(rows, method="hc").arcs())
[('B', 'A'), ('C', 'B'), ('C', 'W'), ('S', 'B')]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.family_scores import FamilyScores
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Parents, Settings, Structure

#: The options of ``method="hc"``.
HC_OPTIONS = ("tabu_length", "max_iterations", "restarts", "perturbation")

#: Seconds between two progress lines.
_PROGRESS_EVERY = 1.0

#: The Δ columns a climb keeps to copy (floats, n per column): 8 Mi, 64 MiB, whatever
#: the network (child's default climb keeps ~100 columns of 20); past it they are dropped
#: and rebuilt from the family scores when met again.
_KEPT_COLUMN_ENTRIES = 1 << 23


@dataclass(frozen=True)
class ClimbOptions:
    """How long and how widely a hill climb searches.

    Attributes
    ----------
    tabu_length : int
        Moves remembered as tabu (not undone), and non-improving moves allowed in a row.
    max_iterations : int
        The most moves of one climb.
    restarts : int
        Climbs again from the best DAG after a random perturbation.
    perturbation : int
        Random moves of each perturbation.

    Examples
    --------
    >>> ClimbOptions.read(Settings(options={"restarts": 2}), "hc").restarts
    2
    """

    tabu_length: int = 10
    max_iterations: int = 100_000
    restarts: int = 0
    perturbation: int = 5

    @classmethod
    def read(cls, settings: Settings, method: str,
             known: tuple[str, ...] = HC_OPTIONS) -> ClimbOptions:
        """The options from ``settings``: whole numbers ≥ 0, unknown names refused."""
        settings.check_options(method, known)
        return cls(**{name: settings.whole_option(method, name, getattr(cls, name))
                      for name in HC_OPTIONS})


def hc_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """Greedy hill climbing (``method="hc"``) on ``settings.score``.

    Parameters
    ----------
    data : CodedData
        The coded rows.
    knowledge : Knowledge
        What the expert knows; every move honours it.
    settings : Settings
        The score, ``ess``, ``seed``, ``start``, ``progress`` and the options
        ``tabu_length`` (default 10), ``max_iterations`` (100,000), ``restarts`` (0) and
        ``perturbation`` (5).

    Returns
    -------
    Structure
        The best DAG found, its score and the search's statistics (``score_trace``: the
        score after every move, starting with the start's, and at each restart's
        perturbed start).

    Raises
    ------
    ModelError
        For an unknown option (with close matches) or a value that is no whole number ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.structure.dataset import CodedData
    >>> codes = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]] * 25)
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> hc_method(data, Knowledge.build(data.variables), Settings()).arcs()
    [(0, 1)]
    """
    return hill_climb(data, knowledge, settings, ClimbOptions.read(settings, "hc"))


def hill_climb(data: CodedData, knowledge: Knowledge, settings: Settings,
               options: ClimbOptions, candidates: np.ndarray | None = None,
               statistics: dict | None = None,
               scores: FamilyScores | None = None) -> Structure:
    """The climb (with tabu steps and restarts) shared by ``"hc"`` and the hybrid.

    Parameters
    ----------
    data, knowledge, settings
        As for :func:`hc_method`.
    options : ClimbOptions
        Tabu list, iterations, restarts.
    candidates : numpy.ndarray, optional
        n × n booleans: ``candidates[p, c]`` lets p → c be added (the hybrid's
        skeleton); all allowed arcs by default.
    statistics : dict, optional
        Counts of earlier phases to report with the climb's.
    scores : FamilyScores, optional
        The family-score cache to use (a cache shared by several climbs on the same data
        and score scores each family once); a new one by default.

    Returns
    -------
    Structure

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.structure.dataset import CodedData
    >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]] * 30)
    >>> data = CodedData(("A", "B"), (("0", "1"),) * 2, codes)
    >>> k = Knowledge.build(data.variables)
    >>> hill_climb(data, k, Settings(), ClimbOptions(), np.zeros((2, 2), bool)).arcs()
    []
    """
    began = time.perf_counter()
    if scores is None:
        scores = FamilyScores(data, settings.score, settings.ess)
    allowed = knowledge.allowed if candidates is None else knowledge.allowed & candidates
    n = len(data.variables)
    start = settings.start if settings.start is not None else tuple(
        tuple(sorted(p for p, c in knowledge.required if c == child)) for child in range(n))
    scores.prefetch(allowed & np.array([not ps for ps in start])[None, :])
    climb = _Climb(scores, allowed, knowledge, start, settings.report)
    climb.run(options)
    best = climb.best
    rng = np.random.default_rng(settings.seed)
    for restart in range(options.restarts):
        climb.restart(best, rng, options.perturbation)
        climb.run(options)
        if climb.best.progress > best.progress + climb.tolerance(best.score):
            best = climb.best
        settings.report(f"hc: restart {restart + 1} of {options.restarts}, score "
                        f"{climb.best.score:.1f} (best {best.score:.1f})")
    found = dict(statistics or {})
    found.update(iterations=climb.iterations, restarts=options.restarts, score_trace=climb.trace,
                 families=scores.scored, cache_hits=scores.hits,
                 skipped={"memory": scores.skipped_memory},
                 seconds=time.perf_counter() - began)
    return Structure(best.parents, score=best.score, statistics=found)


@dataclass(frozen=True)
class _Seen:
    """A DAG met during the search: its parents, score, and the sum of the gains of the
    moves that led to it (with missing="drop" the gains, paired on common rows, are what
    the climb compares; with complete data the progress is the score minus the start's)."""

    parents: Parents
    score: float
    progress: float


class _Climb:
    """The state of one search: the DAG, its family scores, the Δ table, reachability."""

    def __init__(self, scores: FamilyScores, allowed: np.ndarray, knowledge: Knowledge,
                 start: Parents, report: Callable[[str], None]):
        n = len(start)
        self.scores, self.allowed, self.report = scores, allowed, report
        self.n = n
        self.max_parents = n if knowledge.max_parents is None else knowledge.max_parents
        required = np.zeros((n, n), dtype=bool)
        for p, c in knowledge.required:
            required[p, c] = True
        # what the knowledge lets an arc p → c do, whatever the DAG (read by every move)
        self.removable = ~required
        self.turnable = ~required & allowed.T
        self.eye = np.eye(n, dtype=bool)
        self.candidates = [set(np.flatnonzero(allowed[:, c]).tolist()) for c in range(n)]
        # Δ[·, c] for each (c, parents) met: a column met again (a removal undoing an
        # addition, a tabu step, a restart) is copied, not rebuilt from the family scores
        # (a third of the columns of the default's climb on child, 1,000 rows)
        self.columns: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self.iterations = 0
        self.progress = 0.0
        self.reported = time.perf_counter()
        self._set(start)
        self.best = self.seen()
        self.trace = [self.total()]  # the score after each move (a restart: its start)

    def _set(self, parents: Parents) -> None:
        """Start from the DAG ``parents``: its families scored, every Δ column filled."""
        n = self.n
        self.parents = [tuple(sorted(ps)) for ps in parents]
        self.arc = np.zeros((n, n), dtype=bool)
        for c, ps in enumerate(self.parents):
            self.arc[list(ps), c] = True
        self.local = np.array([self.scores.score(c, ps) for c, ps in enumerate(self.parents)])
        self.delta = np.full((n, n), -math.inf)
        for c in range(n):
            self._refresh(c)
        self._reachability()
        self.tabu = np.zeros((3, n, n), dtype=np.int64)   # add, remove, reverse: until

    def seen(self) -> _Seen:
        """The current DAG as a _Seen."""
        return _Seen(tuple(self.parents), self.total(), self.progress)

    def total(self) -> float:
        return math.fsum(self.local.tolist())

    @staticmethod
    def tolerance(score: float) -> float:
        """Improvements below this are rounding (1e-10 of the score; scores reach 1e6)."""
        return 1e-10 * (abs(score) + 1.0)

    def _refresh(self, c: int) -> None:
        """Recompute Δ[·, c] after c's parents changed: toggle every parent, and every
        allowed non-parent while c has fewer than ``max_parents`` parents."""
        ps = self.parents[c]
        column = self.columns.get((c, ps))
        if column is None:
            others = sorted(self.candidates[c].union(ps)) if len(ps) < self.max_parents \
                else list(ps)
            column = np.full(self.n, -math.inf)
            if others:
                column[others] = self.scores.gains(c, ps, others)
            if (len(self.columns) + 1) * self.n > _KEPT_COLUMN_ENTRIES:
                self.columns.clear()
            self.columns[(c, ps)] = column
        self.delta[:, c] = column

    def _reachability(self) -> None:
        """R = the transitive closure of the arcs, by repeated squaring (log₂ n products)
        until no path is added (float32 products through BLAS, paths counted once per
        product: 48 → 24 µs on child's 20 variables, 80 → 48 µs on hailfinder's 56)."""
        reach = self.arc.astype(np.float32)
        paths = np.count_nonzero(reach)
        while True:
            wider = (reach @ reach + reach) > 0
            if np.count_nonzero(wider) == paths:
                break
            paths = np.count_nonzero(wider)
            reach = wider.astype(np.float32)
        self.reach = wider

    def moves(self) -> np.ndarray:
        """The gain of every legal, non-tabu move, ``gains[kind, p, c]`` for the move
        ``kind`` (0 add, 1 remove, 2 reverse) on the arc p → c (−∞ if illegal).

        One 3 × n × n array, so that the best move is one ``argmax`` (18 numpy calls a
        move, not 30: 30 → 22 µs on child)."""
        arc, reach = self.arc, self.reach
        legal = self.tabu <= self.iterations
        legal[0] &= self.allowed
        legal[0] &= ~(arc | reach.T)          # no arc p → c, no path c ⇝ p (R holds the arcs)
        removable = arc & self.removable
        legal[1] &= removable
        longer = (reach.astype(np.float32) @ arc.astype(np.float32)) > 0   # p ⇝ x → c
        legal[2] &= removable & self.turnable & ~longer
        gains = np.where(legal, self.delta, -math.inf)
        gains[2] += self.delta.T              # a reversal also toggles c in p's parents
        return gains

    def run(self, options: ClimbOptions) -> None:
        """Climb from the current DAG; keep the best DAG seen in ``best``."""
        self.best = self.seen()
        stalled, steps = 0, 0
        while steps < options.max_iterations:
            gains = self.moves()
            pick = int(np.argmax(gains))         # the first of equal gains: add, remove, reverse
            gain = float(gains.flat[pick])
            if gain == -math.inf:
                break
            if gain <= self.tolerance(self.best.score) and (
                    options.tabu_length == 0 or stalled >= options.tabu_length):
                break
            kind, flat = divmod(pick, self.n * self.n)
            p, c = divmod(flat, self.n)
            self.apply(kind, p, c, gain)
            self.trace.append(self.total())
            undo = (1, 0, 2)[kind]             # remove what was added, and so on
            arc = (p, c) if kind < 2 else (c, p)
            self.tabu[undo, arc[0], arc[1]] = self.iterations + options.tabu_length
            steps += 1
            if self.progress > self.best.progress + self.tolerance(self.best.score):
                self.best, stalled = self.seen(), 0
            else:
                stalled += 1
            if time.perf_counter() - self.reported > _PROGRESS_EVERY:
                self.reported = time.perf_counter()
                self.report(f"hc: {self.iterations} moves, score {self.total():.1f}, "
                            f"{self.scores.scored} families scored")

    def apply(self, kind: int, p: int, c: int, gain: float) -> None:
        """Make move ``kind`` (0 add, 1 remove, 2 reverse) on the arc p → c."""
        self.iterations += 1
        self.progress += gain
        if kind == 0:
            self._toggle(p, c)
            # p and its ancestors now reach c and its descendants
            self.reach |= np.outer(self.reach[:, p] | self.eye[p], self.reach[c] | self.eye[c])
            return
        self._toggle(p, c)
        if kind == 2:
            self._toggle(c, p)
        self._reachability()

    def _toggle(self, p: int, c: int) -> None:
        """Add or remove p among c's parents and rescore c's column."""
        self.arc[p, c] = not self.arc[p, c]
        self.parents[c] = tuple(sorted(set(self.parents[c]) ^ {p}))
        self.local[c] = self.scores.score(c, self.parents[c])
        self._refresh(c)

    def restart(self, start: _Seen, rng: np.random.Generator, moves: int) -> None:
        """Go to ``start`` and make ``moves`` random legal moves (tabu cleared)."""
        self._set(start.parents)
        self.progress = start.progress
        for _ in range(moves):
            gains = self.moves()
            choices = np.flatnonzero(np.isfinite(gains))
            if not len(choices):
                break
            pick = int(rng.choice(choices))
            kind, p, c = np.unravel_index(pick, gains.shape)
            self.apply(int(kind), int(p), int(c), float(gains.flat[pick]))
        self.trace.append(self.total())

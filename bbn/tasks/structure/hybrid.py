"""The hybrid search (``method="hybrid"``): MMPC's skeleton, then hill climbing in it.

Max-min hill climbing (MMHC; Tsamardinos, Brown and Aliferis, 2006) in two phases, the
second run from two starts:

1. the skeleton: for every variable, its candidate parents and children by conditional
   independence tests at level α (:func:`~bbn.tasks.structure.mmpc.mmpc`);
2. the orientation and pruning: the hill climb of :mod:`bbn.tasks.structure.hill_climbing`,
   tabu list and restarts included, adding only arcs p → c whose pair is an edge of the
   skeleton (or a required arc),

   a. from the empty graph (MMHC as published), and
   b. from PC's answer on the skeleton (:func:`~bbn.tasks.structure.pc.pc_search` started from
      the skeleton's edges: its tests thin them, its separating sets orient the
      v-structures, Meek's rules the rest);

   and the DAG of higher score S(G) = Σ_X s(X, Pa(X)) is the answer (b from
   ``PC_START_ROWS`` = 5,000 rows on, or as ``pc_start=`` True or False says; a
   ``start=`` network: one climb from it).

The tests cut the climb's candidate families from n − 1 per variable to a handful, and
the score then keeps only the edges the data pay for, oriented by it. A climb from the
empty graph fixes an arc's direction when it first adds it, before the arcs that make a
v-structure are there, and later reversals rarely pay for themselves one at a time: with
many rows it ends in a local optimum far from the true class (alarm, 100,000 rows, seed
2024: class SHD 9 from the empty graph, 1 from PC's start, the higher score). With fewer
rows PC's v-structures are more often wrong and the climb from the empty graph can score
higher: the score chooses. docs/structure.md gives the measurements.

>>> import bbn                     # the chair network: C → W, C → B ← S, B → A
>>> rows = bbn.sample(bbn.load("models/chair.bn"), 3000, seed=3)
>>> sorted(bbn.learn_structure(rows, method="hybrid").arcs())
[('B', 'A'), ('C', 'B'), ('C', 'W'), ('S', 'B')]
"""

from __future__ import annotations

import dataclasses
import time

from bbn.core.errors import ModelError
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.family_scores import FamilyScores
from bbn.tasks.structure.hill_climbing import HC_OPTIONS, ClimbOptions, hill_climb
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Settings, Structure
from bbn.tasks.structure.mmpc import mmpc
from bbn.tasks.structure.pc import pc_search

#: The options of ``method="hybrid"``: the hill climb's, the tests' largest conditioning
#: set, and whether to climb from PC's answer on the skeleton too.
HYBRID_OPTIONS = (*HC_OPTIONS, "max_condition", "pc_start")

#: With ``pc_start="auto"`` (the default) the second start is climbed from this many rows
#: on. Below, it gained least (class SHD medians over three samples of 1,000 rows: alarm
#: 14 against 17, insurance 37 against 41, child 9 against 10, hailfinder 35 against 35;
#: all below every peer's either way) and cost most: 1.4-3.8 times pyAgrum's MIIC on
#: 1,000 rows, against 1.0-2.0 times without it. From 10,000 rows it is where the
#: default wins (hailfinder 10,000: 19 against 23; alarm 100,000: 1 against 10; child
#: 100,000: 0 against 13) and the searches take a fifth of MIIC's time or less.
PC_START_ROWS = 5_000


def hybrid_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """MMHC: hill climbing on ``settings.score`` within MMPC's skeleton.

    Parameters
    ----------
    data : CodedData
        The coded rows.
    knowledge : Knowledge
        What the expert knows: pairs allowed in neither direction are not tested;
        required arcs are always candidates.
    settings : Settings
        ``alpha`` and ``test`` for the skeleton and PC; the score, ``ess``, ``seed``,
        ``start`` and the hill climb's options for the search; the options
        ``max_condition`` (default 3), the largest conditioning set of MMPC's tests, and
        ``pc_start`` (True, False or "auto", the default: True from ``PC_START_ROWS``
        rows on), climbing from PC's answer on the skeleton too.

    Returns
    -------
    Structure
        The DAG of higher score, its score, and statistics: its climb's plus ``tests``,
        ``skeleton_edges``, ``pc_tests`` (0 without the second start), ``start``
        (``"empty"``, ``"pc"`` or ``"given"``: where the answer's climb began) and
        ``scores`` (of the climbs by start).

    Raises
    ------
    ModelError
        For an unknown option (with close matches) or a bad value.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.structure.dataset import CodedData
    >>> codes = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]] * 25)
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> found = hybrid_method(data, Knowledge.build(data.variables), Settings())
    >>> found.arcs(), found.statistics["skeleton_edges"]
    ([(0, 1)], 1)
    """
    options = ClimbOptions.read(settings, "hybrid", HYBRID_OPTIONS)
    max_condition = settings.whole_option("hybrid", "max_condition", 3)
    pc_start = settings.option("pc_start", "auto")
    if not (isinstance(pc_start, bool) or pc_start == "auto"):
        raise ModelError(f"option pc_start of method 'hybrid' must be True, False or "
                         f"'auto', got {pc_start!r}")
    if pc_start == "auto":
        pc_start = data.rows >= PC_START_ROWS
    began = time.perf_counter()
    allowed = knowledge.allowed
    skeleton, tests = mmpc(data, settings.alpha, settings.test, max_condition,
                           possible=allowed | allowed.T)
    for p, c in knowledge.required:
        skeleton[p, c] = skeleton[c, p] = True
    settings.report(f"hybrid: skeleton of {int(skeleton.sum()) // 2} edges from {tests} tests")
    statistics = {"tests": tests, "skeleton_edges": int(skeleton.sum()) // 2,
                  "skeleton_seconds": time.perf_counter() - began, "pc_tests": 0}
    starts = {"given" if settings.start is not None else "empty": settings}
    if pc_start and settings.start is None:
        oriented = _pc_answer(data, knowledge, settings, max_condition, skeleton)
        if oriented is not None:
            statistics["pc_tests"] = oriented.statistics["tests"]
            starts["pc"] = dataclasses.replace(settings, start=oriented.parents)
    scores = FamilyScores(data, settings.score, settings.ess)  # both climbs score alike
    climbs = {start: hill_climb(data, knowledge, climb_settings, options, candidates=skeleton,
                                scores=scores)
              for start, climb_settings in starts.items()}
    chosen = max(climbs, key=lambda start: climbs[start].score)  # the first of equal scores
    best = climbs[chosen]
    return dataclasses.replace(best, statistics={
        **statistics, **best.statistics, "start": chosen,
        "scores": {start: climb.score for start, climb in climbs.items()}})


def _pc_answer(data: CodedData, knowledge: Knowledge, settings: Settings,
               max_condition: int, skeleton) -> Structure | None:
    """PC's DAG from the skeleton, or None when it breaks the knowledge (PC keeps no
    ``max_parents``; the knowledge may orient its edges into a cycle): then the climb
    from the empty graph alone answers."""
    try:
        oriented = pc_search(data, knowledge, settings, max_condition, skeleton)
        knowledge.check_dag(oriented.parents, "PC's start")
    except ModelError:
        return None
    return oriented

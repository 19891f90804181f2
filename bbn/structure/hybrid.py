"""The hybrid search (``method="hybrid"``): MMPC's skeleton, then hill climbing in it.

Max-min hill climbing (MMHC; Tsamardinos, Brown and Aliferis, 2006) in two phases:

1. the skeleton: for every variable, its candidate parents and children by conditional
   independence tests at level α (:func:`~bbn.structure.mmpc.mmpc`);
2. the orientation and pruning: the hill climb of :mod:`bbn.structure.hill_climbing`,
   tabu list and restarts included, adding only arcs p → c whose pair is an edge of the
   skeleton (or a required arc).

The tests cut the climb's candidate families from n − 1 per variable to a handful, and
the score then keeps only the edges the data pay for, oriented by it.

>>> import bbn                     # the chair network: C → W, C → B ← S, B → A
>>> rows = bbn.sample(bbn.load("models/chair.bn"), 3000, seed=3)
>>> sorted(bbn.learn_structure(rows, method="hybrid").arcs())
[('B', 'A'), ('C', 'B'), ('C', 'W'), ('S', 'B')]
"""

from __future__ import annotations

import time

from bbn.structure.dataset import CodedData
from bbn.structure.hill_climbing import HC_OPTIONS, ClimbOptions, hill_climb
from bbn.structure.knowledge import Knowledge
from bbn.structure.method import Settings, Structure
from bbn.structure.mmpc import mmpc

#: The options of ``method="hybrid"``: the hill climb's and the tests' largest
#: conditioning set.
HYBRID_OPTIONS = (*HC_OPTIONS, "max_condition")


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
        ``alpha`` and ``test`` for the skeleton; the score, ``ess``, ``seed``, ``start``
        and the hill climb's options for the search; the option ``max_condition``
        (default 3), the largest conditioning set of a test.

    Returns
    -------
    Structure
        The DAG, its score, and statistics: the climb's plus ``tests`` and
        ``skeleton_edges``.

    Raises
    ------
    ModelError
        For an unknown option (with close matches) or a bad value.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.structure.dataset import CodedData
    >>> codes = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]] * 25)
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> found = hybrid_method(data, Knowledge.build(data.variables), Settings())
    >>> found.arcs(), found.statistics["skeleton_edges"]
    ([(0, 1)], 1)
    """
    options = ClimbOptions.read(settings, "hybrid", HYBRID_OPTIONS)
    max_condition = settings.whole_option("hybrid", "max_condition", 3)
    began = time.perf_counter()
    allowed = knowledge.allowed
    skeleton, tests = mmpc(data, settings.alpha, settings.test, max_condition,
                           possible=allowed | allowed.T)
    for p, c in knowledge.required:
        skeleton[p, c] = skeleton[c, p] = True
    settings.report(f"hybrid: skeleton of {int(skeleton.sum()) // 2} edges from {tests} tests")
    return hill_climb(data, knowledge, settings, options, candidates=skeleton,
                      statistics={"tests": tests, "skeleton_edges": int(skeleton.sum()) // 2,
                                  "skeleton_seconds": time.perf_counter() - began})

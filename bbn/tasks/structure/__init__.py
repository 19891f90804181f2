"""Structure learning: the graph of a network from data and what an expert knows, and how
well a graph explains the data (scores).

See ``docs/structure.md``. Names load on first use (as in :mod:`bbn.tasks.learning`), so the
command line can import ``bbn.apps.cli.structure`` without pandas or networkx.

>>> from bbn.tasks.structure import SCORES
>>> SCORES
('loglik', 'bic', 'aic', 'k2', 'bdeu')
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes

# Loaded now (numpy only): a lazy ``compare`` would be shadowed by the submodule of that
# name as soon as anything imports ``bbn.tasks.structure.compare``.
from bbn.tasks.structure.compare import Comparison as Comparison
from bbn.tasks.structure.compare import compare as compare

_NAMES = {
    "METHODS": "bbn.tasks.structure.structure_learning",
    "chow_liu": "bbn.tasks.structure.structure_learning",
    "learn_structure": "bbn.tasks.structure.structure_learning",
    "LearnedNetwork": "bbn.tasks.structure.learned",
    "SCORES": "bbn.tasks.structure.scores",
    "family_score": "bbn.tasks.structure.scores",
    "structure_score": "bbn.tasks.structure.scores",
    "mutual_information": "bbn.tasks.structure.chow_liu_trees",
    "conditional_mutual_information": "bbn.tasks.structure.chow_liu_trees",
}

__all__ = sorted([*_NAMES, "Comparison", "compare"])


__getattr__ = lazy_attributes("bbn.tasks.structure", _NAMES)

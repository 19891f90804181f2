"""Structure learning: the graph of a network from data and what an expert knows, and how
well a graph explains the data (scores).

See ``docs/structure.md``. Names load on first use (as in :mod:`bbn.learning`), so the
command line can import ``bbn.structure.command`` without pandas or networkx.

>>> from bbn.structure import SCORES
>>> SCORES
('loglik', 'bic', 'aic', 'k2', 'bdeu')
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

# Loaded now (numpy only): a lazy ``compare`` would be shadowed by the submodule of that
# name as soon as anything imports ``bbn.structure.compare``.
from bbn.structure.compare import Comparison as Comparison
from bbn.structure.compare import compare as compare

_NAMES = {
    "METHODS": "bbn.structure.learn",
    "chow_liu": "bbn.structure.learn",
    "learn_structure": "bbn.structure.learn",
    "LearnedNetwork": "bbn.structure.learned",
    "SCORES": "bbn.structure.scores",
    "family_score": "bbn.structure.scores",
    "structure_score": "bbn.structure.scores",
    "mutual_information": "bbn.structure.tree",
    "conditional_mutual_information": "bbn.structure.tree",
}

__all__ = sorted([*_NAMES, "Comparison", "compare"])


__getattr__ = lazy_attributes("bbn.structure", _NAMES)

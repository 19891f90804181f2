"""Decision trees: entropy, gain ratio and Gini; multi-way, grouped and threshold splits;
pre- and post-pruning.

* :class:`DecisionTree` — the scikit-learn-compatible classifier;
* :mod:`~bbn.tasks.trees.criteria` — E(t), G(t), the gain Δ, SplitINFO, the gain ratio;
* :func:`load_tree` / ``DecisionTree.save`` — the JSON file form.

See ``docs/trees.md``. Names load on first use (as in :mod:`bbn.tasks.classification`).
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes

_NAMES = {
    "DecisionTree": "bbn.tasks.trees.decision_tree",
    "Rule": "bbn.tasks.trees.decision_tree",
    "load_tree": "bbn.tasks.trees.decision_tree",
    "entropy": "bbn.tasks.trees.criteria",
    "gini": "bbn.tasks.trees.criteria",
    "gain": "bbn.tasks.trees.criteria",
    "gain_ratio": "bbn.tasks.trees.criteria",
    "split_information": "bbn.tasks.trees.criteria",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.tasks.trees", _NAMES)

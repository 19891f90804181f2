"""Decision trees: entropy, gain ratio and Gini; multi-way, grouped and threshold splits;
pre- and post-pruning.

* :class:`DecisionTree` — the scikit-learn-compatible classifier;
* :mod:`~bbn.trees.criteria` — E(t), G(t), the gain Δ, SplitINFO, the gain ratio;
* :func:`load_tree` / ``DecisionTree.save`` — the JSON file form.

See ``docs/trees.md``. Names load on first use (as in :mod:`bbn.classification`).
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

_NAMES = {
    "DecisionTree": "bbn.trees.tree",
    "Rule": "bbn.trees.tree",
    "load_tree": "bbn.trees.tree",
    "entropy": "bbn.trees.criteria",
    "gini": "bbn.trees.criteria",
    "gain": "bbn.trees.criteria",
    "gain_ratio": "bbn.trees.criteria",
    "split_information": "bbn.trees.criteria",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.trees", _NAMES)

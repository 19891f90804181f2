"""Explaining answers: the derivation, independence, information and sensitivity.

    P(q | e) = P(q, e) / P(e),   X ⟂ Y | Z,   I(T; X | e),   P(q | e)(θ) = (αθ + β)/(γθ + δ)

The names load on first use (networkx only for independence).

>>> import bbn
>>> from bbn import explain
>>> explain.is_independent(bbn.load("models/chair.bn"), "C", "S")
True
"""

from bbn.lazy import lazy_attributes

_LAZY = {
    "explain": "bbn.explain.derivation",
    "Derivation": "bbn.explain.derivation",
    "render": "bbn.explain.formatting",
    "is_independent": "bbn.explain.independence",
    "active_trail": "bbn.explain.independence",
    "independence": "bbn.explain.independence",
    "markov_blanket": "bbn.explain.independence",
    "Independence": "bbn.explain.independence",
    "Trail": "bbn.explain.independence",
    "entropy": "bbn.explain.information",
    "mutual_information": "bbn.explain.information",
    "value_of_information": "bbn.explain.information",
    "sensitivity": "bbn.explain.sensitivity",
    "Sensitivity": "bbn.explain.sensitivity",
}

__all__ = list(_LAZY)

__getattr__ = lazy_attributes("bbn.explain", _LAZY)

"""Explaining answers: the derivation, independence, information and sensitivity.

    P(q | e) = P(q, e) / P(e),   X ⟂ Y | Z,   I(T; X | e),   P(q | e)(θ) = (αθ + β)/(γθ + δ)

The names load on first use (networkx only for independence). The package exports the
functions over a network as ``bbn.explain(net, query)``, ``bbn.is_independent(net, x, y,
given)``, ``bbn.active_trail``, ``bbn.markov_blanket``, ``bbn.value_of_information`` and
``bbn.sensitivity``; this module gathers them with their result types.

>>> import bbn
>>> from bbn.tasks import explain
>>> explain.is_independent(bbn.load("models/chair.bn"), "C", "S")
True
>>> explain.explain is bbn.explain
True
"""

from bbn.core.lazy import lazy_attributes

_LAZY = {
    "explain": "bbn.tasks.explain.derivation",
    "Derivation": "bbn.tasks.explain.derivation",
    "render": "bbn.tasks.explain.formatting",
    "is_independent": "bbn.questions.d_separation",
    "active_trail": "bbn.questions.d_separation",
    "independence": "bbn.questions.d_separation",
    "markov_blanket": "bbn.questions.d_separation",
    "Independence": "bbn.questions.d_separation",
    "Trail": "bbn.questions.d_separation",
    "entropy": "bbn.questions.information",
    "mutual_information": "bbn.questions.information",
    "value_of_information": "bbn.questions.information",
    "sensitivity": "bbn.tasks.explain.sensitivity",
    "Sensitivity": "bbn.tasks.explain.sensitivity",
}

__all__ = list(_LAZY)

__getattr__ = lazy_attributes("bbn.tasks.explain", _LAZY)

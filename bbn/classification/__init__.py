"""Classification: naive Bayes as a star-shaped network, decisions, and prediction
with any network.

* :func:`naive_bayes` builds (and optionally learns) the network class → features;
* :class:`NaiveBayes` is the scikit-learn-compatible classifier around it;
* :class:`Boosting` (AdaBoost) and :class:`Bagging` combine several classifiers by vote;
* :func:`predict` / :func:`predict_proba` classify the rows of a table with any network
  (also :meth:`bbn.Network.predict`);
* :mod:`~bbn.classification.decisions`: MAP, ML and minimum-risk decisions.

See ``docs/classification.md``. Names load on first use (as in :mod:`bbn.learning`).
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

_NAMES = {
    "NaiveBayes": "bbn.classification.classifier",
    "Boosting": "bbn.classification.ensemble",
    "Bagging": "bbn.classification.ensemble",
    "naive_bayes": "bbn.classification.classifier",
    "KINDS": "bbn.classification.classifier",
    "predict": "bbn.classification.prediction",
    "predict_proba": "bbn.classification.prediction",
    "decide": "bbn.classification.decisions",
    "expected_risk": "bbn.classification.decisions",
    "loss_matrix": "bbn.classification.decisions",
    "tokenize": "bbn.classification.text",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.classification", _NAMES)

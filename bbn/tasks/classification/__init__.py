"""Classification: naive Bayes as a star-shaped network, decisions, and prediction
with any network.

* :func:`naive_bayes` builds (and optionally learns) the network class → features;
* :class:`NaiveBayes` is the scikit-learn-compatible classifier around it: one
  likelihood per kind of feature (``categorical``, ``bernoulli``, ``gaussian_features``,
  ``multinomial``, ``tree_augmented``) on the shared base ``base.LikelihoodClassifier``;
* :class:`Boosting` (AdaBoost) and :class:`Bagging` combine several classifiers by vote;
* :func:`predict` / :func:`predict_proba` classify the rows of a table with any network
  (``bbn.predict(net, data, target)``);
* :mod:`~bbn.tasks.classification.decisions`: MAP, ML and minimum-risk decisions.

See ``docs/classification.md``. Names load on first use (as in :mod:`bbn.tasks.learning`).
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes

_NAMES = {
    "NaiveBayes": "bbn.tasks.classification.classifier",
    "Boosting": "bbn.tasks.classification.ensemble",
    "Bagging": "bbn.tasks.classification.ensemble",
    "naive_bayes": "bbn.tasks.classification.classifier",
    "KINDS": "bbn.tasks.classification.classifier",
    "predict": "bbn.tasks.classification.prediction",
    "predict_proba": "bbn.tasks.classification.prediction",
    "decide": "bbn.tasks.classification.decisions",
    "expected_risk": "bbn.tasks.classification.decisions",
    "loss_matrix": "bbn.tasks.classification.decisions",
    "tokenize": "bbn.tasks.classification.text",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.tasks.classification", _NAMES)

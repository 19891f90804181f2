"""Learning the tables of a network from data, and drawing data from a network.

* :func:`learn` — every table of a network estimated from rows by an estimator
  (:class:`MLE`, :class:`MEstimate`, :class:`Laplace`, :class:`BDeu`, or its name), with
  missing values refused, dropped, or handled by EM; Gaussian variables by least squares
  or, under ``BDeu(gaussian=NormalInverseGamma(...))``, the conjugate prior;
* :func:`em` — expectation–maximisation with its log-likelihood trace;
* :func:`discretize` — cut points for numeric columns (equal width, equal frequency,
  k-means, MDLP), a :class:`Discretiser` reusable on new data;
* :func:`sample` — forward sampling, ``n`` rows as a DataFrame; :func:`sample_chunks`
  the same a chunk at a time (for files larger than memory).

See ``docs/learning.md``. Names load on first use, so the command line can import
``bbn.apps.cli.learn`` without pandas.
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes

_NAMES = {
    "learn": "bbn.tasks.learning.parameters",
    "learn_dynamic": "bbn.tasks.learning.dynamic_learning",
    "dynamic_em": "bbn.tasks.learning.sequence_em",
    "sample": "bbn.tasks.learning.sampling",
    "sample_chunks": "bbn.tasks.learning.sampling",
    "discretize": "bbn.tasks.learning.discretisation",
    "Discretiser": "bbn.tasks.learning.discretisation",
    "em": "bbn.tasks.learning.missing",
    "EMResult": "bbn.tasks.learning.convergence",
    "ESTIMATORS": "bbn.tasks.learning.estimators",
    "Estimator": "bbn.tasks.learning.estimators",
    "MLE": "bbn.tasks.learning.estimators",
    "Laplace": "bbn.tasks.learning.estimators",
    "MEstimate": "bbn.tasks.learning.estimators",
    "BDeu": "bbn.tasks.learning.estimators",
    "NormalInverseGamma": "bbn.tasks.learning.conjugate",
    "UnseenParentsWarning": "bbn.tasks.learning.estimators",
    "GaussianFallbackWarning": "bbn.tasks.learning.gaussian",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.tasks.learning", _NAMES)

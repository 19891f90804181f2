"""Learning the tables of a network from data, and drawing data from a network.

* :func:`learn` — every table of a network estimated from rows by an estimator
  (:class:`MLE`, :class:`MEstimate`, :class:`Laplace`, :class:`BDeu`, or its name), with
  missing values refused, dropped, or handled by EM;
* :func:`em` — expectation–maximisation with its log-likelihood trace;
* :func:`sample` — forward sampling, ``n`` rows as a DataFrame; :func:`sample_chunks`
  the same a chunk at a time (for files larger than memory).

See ``docs/learning.md``. Names load on first use, so the command line can import
``bbn.learning.command`` without pandas.
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

_NAMES = {
    "learn": "bbn.learning.parameters",
    "sample": "bbn.learning.sampling",
    "sample_chunks": "bbn.learning.sampling",
    "em": "bbn.learning.missing",
    "EMResult": "bbn.learning.convergence",
    "ESTIMATORS": "bbn.learning.estimators",
    "Estimator": "bbn.learning.estimators",
    "MLE": "bbn.learning.estimators",
    "Laplace": "bbn.learning.estimators",
    "MEstimate": "bbn.learning.estimators",
    "BDeu": "bbn.learning.estimators",
    "UnseenParentsWarning": "bbn.learning.estimators",
    "GaussianFallbackWarning": "bbn.learning.gaussian",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.learning", _NAMES)

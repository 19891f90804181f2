"""Learning the tables of a network from data, and drawing data from a network.

* :func:`learn` — every table of a network estimated from rows (``mle``, ``m-estimate``,
  ``laplace``, ``bayes``), with missing values refused, dropped, or handled by EM;
* :func:`em` — expectation–maximisation with its log-likelihood trace;
* :func:`sample` — forward sampling, ``n`` rows as a DataFrame.

See ``docs/learning.md``. Names load on first use, so the command line can import
``bbn.learning.command`` without pandas.
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

_NAMES = {
    "learn": "bbn.learning.parameters",
    "sample": "bbn.learning.sampling",
    "em": "bbn.learning.missing",
    "EMResult": "bbn.learning.missing",
    "ESTIMATORS": "bbn.learning.estimators",
    "UnseenParentsWarning": "bbn.learning.estimators",
    "GaussianFallbackWarning": "bbn.learning.gaussian",
}

__all__ = sorted(_NAMES)


__getattr__ = lazy_attributes("bbn.learning", _NAMES)

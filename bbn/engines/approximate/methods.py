"""The approximate methods by name, and the one way to get a method's settings.

``approximate_method("lbp")`` is ``LoopyBP()`` with its defaults; an instance passes
through, so a caller can give tuned settings (``LikelihoodWeighting(samples=10**6)``).
Every method is a frozen dataclass of its settings with one method,
``run(graph, evidence) -> Marginals``.

>>> approximate_method("gibbs")
Gibbs(samples=100000, time_budget=None, seed=0, chains=100, burn_in=100)
>>> approximate_method("lpb")
Traceback (most recent call last):
    ...
bbn.core.errors.QueryError: unknown approximate method 'lpb' (did you mean 'lbp'?); ...
"""

from __future__ import annotations

from bbn.core.errors import QueryError, suggest
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting

#: name → the method's class (its defaults are the method's default settings).
APPROXIMATE_METHODS = {"lbp": LoopyBP, "lw": LikelihoodWeighting, "is": ImportanceSampling,
                       "gibbs": Gibbs}

#: Any approximate method's settings.
ApproximateMethod = LoopyBP | LikelihoodWeighting | ImportanceSampling | Gibbs


def approximate_method(method: str | ApproximateMethod) -> ApproximateMethod:
    """The method a name or an instance stands for.

    Parameters
    ----------
    method : str or method instance
        ``"lbp"``, ``"lw"``, ``"is"``, ``"gibbs"`` (default settings), or an instance of
        :class:`LoopyBP`, :class:`LikelihoodWeighting`, :class:`ImportanceSampling`,
        :class:`Gibbs`, returned as it is.

    Returns
    -------
    LoopyBP, LikelihoodWeighting, ImportanceSampling or Gibbs

    Raises
    ------
    QueryError
        For an unknown name (with the closest one) or another kind of value.

    Examples
    --------
    >>> approximate_method(LikelihoodWeighting(samples=10)).samples
    10
    """
    if isinstance(method, tuple(APPROXIMATE_METHODS.values())):
        return method
    if isinstance(method, str):
        name = method.strip().lower()
        if name in APPROXIMATE_METHODS:
            return APPROXIMATE_METHODS[name]()
        raise QueryError(f"unknown approximate method {method!r}"
                         f"{suggest(name, APPROXIMATE_METHODS)}; the methods are "
                         f"{', '.join(map(repr, APPROXIMATE_METHODS))}")
    raise QueryError(f"an approximate method is one of {', '.join(map(repr, APPROXIMATE_METHODS))}"
                     f" or a method's settings (LoopyBP(...), ...), not {method!r}")

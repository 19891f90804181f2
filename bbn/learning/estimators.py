"""From counts to a conditional probability table: the four estimators.

``counts`` has the table's shape ``(|P1|, ..., |Pk|, r)``: n(pa, x) for every parent
configuration pa and state x; ``n = Σ_x n(pa, x)`` is the row total, ``r`` the number of
states and ``q = |P1|·...·|Pk|`` the number of parent configurations.

=============  =============================================  ============================
estimator      P(x | pa)                                      a row with no data (n = 0)
=============  =============================================  ============================
``mle``        n(pa, x) / n                                   uniform 1/r, with a warning
``m-estimate`` (n(pa, x) + m·p(x)) / (n + m)                  the prior p
``laplace``    (n(pa, x) + α) / (n + r·α)                     uniform 1/r
``bayes``      (n(pa, x) + s/(q·r)) / (n + s/q)   (BDeu)      uniform 1/r
=============  =============================================  ============================

``p`` is uniform (1/r) unless given per variable; ``s`` is the equivalent sample size.

>>> import numpy as np
>>> estimate(np.array([4.0, 0.0, 6.0]), "m-estimate", m=1.0) * 33   # EXAMPLES.md §6
array([13.,  1., 19.])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.errors import DataError, suggest

ESTIMATORS = ("mle", "m-estimate", "laplace", "bayes")


class UnseenParentsWarning(UserWarning):
    """A parent configuration never occurs in the data, so ``mle`` used a uniform row."""


def check_estimator(estimator: str, m: float = 1.0, alpha: float = 1.0,
                    ess: float = 1.0) -> str:
    """The estimator's canonical name, or DataError for an unknown one or a bad setting."""
    name = str(estimator).lower().replace("_", "-")
    name = {"m": "m-estimate", "mestimate": "m-estimate", "bdeu": "bayes",
            "ml": "mle", "additive": "laplace"}.get(name, name)
    if name not in ESTIMATORS:
        raise DataError(f"unknown estimator {estimator!r}; choose one of "
                        f"{', '.join(ESTIMATORS)}{suggest(str(estimator), ESTIMATORS)}")
    for label, value, used in (("m", m, "m-estimate"), ("alpha", alpha, "laplace"),
                               ("ess", ess, "bayes")):
        if name == used and not (np.isfinite(value) and value > 0):
            raise DataError(f"the {name} estimator needs {label} > 0, got {value!r}")
    return name


def estimate(counts: np.ndarray, estimator: str = "mle", *, m: float = 1.0,
             p: np.ndarray | None = None, alpha: float = 1.0, ess: float = 1.0) -> np.ndarray:
    """P(x | pa) from the counts n(pa, x) by the named estimator (see the module table).

    ``p`` (m-estimate only) broadcasts against ``counts``: shape ``(r,)`` or the table's.
    Rows without data follow the last column of the module table.
    """
    counts = np.asarray(counts, dtype=float)
    r = counts.shape[-1]
    n = counts.sum(axis=-1, keepdims=True)
    if estimator == "mle":
        return np.divide(counts, n, out=np.full(counts.shape, 1.0 / r), where=n > 0)
    if estimator == "m-estimate":
        p = np.full(r, 1.0 / r) if p is None else p
        return (counts + m * p) / (n + m)
    if estimator == "laplace":
        return (counts + alpha) / (n + r * alpha)
    if estimator == "bayes":
        q = counts.size // r
        return (counts + ess / (q * r)) / (n + ess / q)
    raise DataError(f"unknown estimator {estimator!r}; choose one of {', '.join(ESTIMATORS)}")


def empty_rows(counts: np.ndarray) -> np.ndarray:
    """Indices ``(pa1, ..., pak)`` of the parent configurations with no data."""
    return np.argwhere(np.asarray(counts).sum(axis=-1) == 0)


def prior_table(variable: str, states: Sequence[str], shape: tuple[int, ...],
                prior) -> np.ndarray | None:
    """The m-estimate's prior p for one variable, validated, or None for uniform.

    ``prior`` maps variable names to ``[p(x1), ..., p(xr)]``, to ``{state: p}`` (absent
    states get 0), or to an array of the table's full shape (one p per parent
    configuration). Each distribution must be non-negative and sum to 1.
    """
    if prior is None or variable not in prior:
        return None
    given = prior[variable]
    if isinstance(given, Mapping):
        unknown = [s for s in given if str(s) not in states]
        if unknown:
            raise DataError(f"prior for {variable!r} names state {unknown[0]!r}, which "
                            f"{variable!r} does not have{suggest(str(unknown[0]), states)}")
        given = [float(given.get(s, given.get(_number_or(s), 0.0))) for s in states]
    p = np.asarray(given, dtype=float)
    if p.shape not in ((len(states),), shape):
        raise DataError(f"prior for {variable!r} needs {len(states)} numbers (one per state "
                        f"{list(states)}) or shape {shape}, got shape {p.shape}")
    if np.any(p < 0) or not np.allclose(p.sum(axis=-1), 1.0, atol=1e-6):
        raise DataError(f"prior for {variable!r} must be non-negative and sum to 1, "
                        f"got {p.tolist()}")
    return p


def _number_or(state: str):
    try:
        return int(state)
    except ValueError:
        return state

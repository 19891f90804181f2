"""From counts to a conditional probability table: the four estimators, as values.

``counts`` has the table's shape ``(|P1|, ..., |Pk|, r)``: n(pa, x) for every parent
configuration pa and state x; ``n = Σ_x n(pa, x)`` is the row total, ``r`` the number of
states and ``q = |P1|·...·|Pk|`` the number of parent configurations.

==================  ==========================================  ==========================
estimator           P(x | pa)                                   a row with no data (n = 0)
==================  ==========================================  ==========================
``MLE()``           n(pa, x) / n                                uniform 1/r, with a warning
``MEstimate(m, p)`` (n(pa, x) + m·p(x)) / (n + m)               the prior p
``Laplace(α)``      (n(pa, x) + α) / (n + r·α)                  uniform 1/r
``BDeu(s)``         (n(pa, x) + s/(q·r)) / (n + s/q)            uniform 1/r
==================  ==========================================  ==========================

``p`` is uniform (1/r) unless given per variable; ``s`` is the equivalent sample size.
Every function that learns takes one of these values, or its name (``"mle"``,
``"m-estimate"``, ``"laplace"``, ``"bayes"``), turned into a value once by
:func:`as_estimator` and then passed whole.

>>> import numpy as np
>>> MEstimate(m=1.0).table(np.array([4.0, 0.0, 6.0])) * 33   # EXAMPLES.md §6
array([13.,  1., 19.])
"""

from __future__ import annotations

import abc
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from bbn.core.errors import DataError, suggest
from bbn.model.network import Network
from bbn.tasks.learning.conjugate import NormalInverseGamma

#: The estimators' names, as the command line offers them (``--estimator``).
ESTIMATORS = ("mle", "m-estimate", "laplace", "bayes")
#: Other spellings of those names.
_ALIASES = {"m": "m-estimate", "mestimate": "m-estimate", "bdeu": "bayes", "ml": "mle",
            "additive": "laplace"}


class UnseenParentsWarning(UserWarning):
    """A parent configuration never occurs in the data, so ``MLE`` used a uniform row."""


@dataclass(frozen=True)
class Estimator(abc.ABC):
    """What every estimator is: a name and a vectorised map from counts to a table.

    Subclasses are frozen dataclasses whose fields are the estimator's settings
    (scikit-learn's naive Bayes keeps such settings as constructor arguments).
    """

    #: The estimator's name, as :data:`ESTIMATORS` spells it.
    name: ClassVar[str] = ""

    @abc.abstractmethod
    def table(self, counts: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        """P(x | pa) for every parent configuration, from the counts n(pa, x).

        Parameters
        ----------
        counts : array, shape ``(|P1|, ..., |Pk|, r)``
            The family's counts (weighted or expected counts are fine).
        p : array, optional
            The m-estimate's prior, broadcasting against ``counts``; ignored by the others.

        Returns
        -------
        numpy.ndarray
            The table, of ``counts``' shape, every row summing to 1.
        """

    def __repr__(self) -> str:  # only the settings that differ from their defaults
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"{type(self).__name__}({', '.join(shown)})"


def _check_positive(name: str, label: str, value) -> None:
    if not (isinstance(value, (int, float, np.integer, np.floating))
            and np.isfinite(value) and value > 0):
        raise DataError(f"the {name} estimator needs {label} > 0, got {value!r}")


@dataclass(frozen=True, repr=False)
class MLE(Estimator):
    """Maximum likelihood: P(x | pa) = n(pa, x) / n; a row with n = 0 is uniform.

    Examples
    --------
    >>> import numpy as np
    >>> MLE().table(np.array([[3.0, 1.0], [0.0, 0.0]])).tolist()
    [[0.75, 0.25], [0.5, 0.5]]
    """

    name: ClassVar[str] = "mle"

    def table(self, counts: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        n = counts.sum(axis=-1, keepdims=True)
        return np.divide(counts, n, out=np.full(counts.shape, 1.0 / counts.shape[-1]),
                         where=n > 0)


@dataclass(frozen=True, repr=False)
class Laplace(Estimator):
    """Additive smoothing: P(x | pa) = (n(pa, x) + α) / (n + r·α).

    α = 1 is the course's Laplace estimate (and scikit-learn's ``alpha=1``).

    Parameters
    ----------
    alpha : float, default 1.0
        α, added to every count; must be > 0.

    Raises
    ------
    DataError
        When ``alpha`` is not a finite number above 0.

    Examples
    --------
    >>> import numpy as np
    >>> Laplace(alpha=1.0).table(np.array([4.0, 2.0, 0.0])) * 9   # EXAMPLES.md §6
    array([5., 3., 1.])
    """

    alpha: float = 1.0
    name: ClassVar[str] = "laplace"

    def __post_init__(self) -> None:
        _check_positive(self.name, "alpha", self.alpha)

    def table(self, counts: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        n = counts.sum(axis=-1, keepdims=True)
        return (counts + self.alpha) / (n + counts.shape[-1] * self.alpha)


@dataclass(frozen=True, repr=False)
class MEstimate(Estimator):
    """The m-estimate: P(x | pa) = (n(pa, x) + m·p(x)) / (n + m), as if m extra rows were
    spread by the prior p (uniform 1/r unless ``prior`` gives it).

    Parameters
    ----------
    m : float, default 1.0
        The weight of the prior, in rows; must be > 0.
    prior : mapping, optional
        ``{variable: p}`` with p a list ``[p(x1), ..., p(xr)]``, a ``{state: p}`` mapping
        (absent states get 0) or an array of the table's full shape (one p per parent
        configuration); each distribution non-negative and summing to 1. Checked when a
        table of that variable is estimated.

    Raises
    ------
    DataError
        When ``m`` is not a finite number above 0, or ``prior`` is not a mapping.

    Examples
    --------
    >>> import numpy as np
    >>> MEstimate(m=2.0).table(np.array([1.0, 1.0, 0.0])).round(4).tolist()
    [0.4167, 0.4167, 0.1667]
    >>> MEstimate(m=2.0, prior={"B": [0.5, 0.5]})
    MEstimate(m=2.0, prior={'B': [0.5, 0.5]})
    """

    m: float = 1.0
    prior: Mapping | None = None
    name: ClassVar[str] = "m-estimate"

    def __post_init__(self) -> None:
        _check_positive(self.name, "m", self.m)
        if self.prior is not None and not isinstance(self.prior, Mapping):
            raise DataError(f"the m-estimate's prior must map variables to distributions, "
                            f"got {type(self.prior).__name__}")

    def __hash__(self) -> int:  # the prior is a mapping (unhashable): equal values share m
        return hash((MEstimate, self.m))

    def table(self, counts: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        r = counts.shape[-1]
        p = np.full(r, 1.0 / r) if p is None else p
        return (counts + self.m * p) / (counts.sum(axis=-1, keepdims=True) + self.m)


@dataclass(frozen=True, repr=False)
class BDeu(Estimator):
    """The Bayesian (BDeu) estimate: P(x | pa) = (n(pa, x) + s/(q·r)) / (n + s/q), a
    Dirichlet prior of equivalent sample size s spread evenly over the q·r cells.

    Parameters
    ----------
    ess : float, default 1.0
        s, the equivalent sample size; must be > 0.
    gaussian : NormalInverseGamma, optional
        The conjugate prior of the Gaussian variables' coefficients and variances
        (:mod:`bbn.tasks.learning.conjugate`); None (the default, also for the name
        ``"bayes"``) keeps least squares for them.

    Raises
    ------
    DataError
        When ``ess`` is not a finite number above 0, or ``gaussian`` is not a
        :class:`~bbn.tasks.learning.conjugate.NormalInverseGamma`.

    Examples
    --------
    >>> import numpy as np
    >>> BDeu(ess=6.0).table(np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])).tolist()
    [[0.5, 0.3333333333333333, 0.16666666666666666], [0.25, 0.25, 0.5]]
    >>> BDeu(gaussian=NormalInverseGamma(strength=2.0))
    BDeu(gaussian=NormalInverseGamma(strength=2.0, mean=0.0, weight=0.0, shape=2.0, scale=1.0))
    """

    ess: float = 1.0
    gaussian: NormalInverseGamma | None = None
    name: ClassVar[str] = "bayes"

    def __post_init__(self) -> None:
        _check_positive(self.name, "ess", self.ess)
        if self.gaussian is not None and not isinstance(self.gaussian, NormalInverseGamma):
            raise DataError("BDeu's gaussian must be a bbn.NormalInverseGamma, got "
                            f"{type(self.gaussian).__name__}")

    def table(self, counts: np.ndarray, p: np.ndarray | None = None) -> np.ndarray:
        counts = np.asarray(counts, dtype=float)
        r = counts.shape[-1]
        q = counts.size // r
        return (counts + self.ess / (q * r)) / (counts.sum(axis=-1, keepdims=True)
                                                + self.ess / q)


def as_estimator(value: Estimator | str = "mle", *, m: float | None = None,
                 prior: Mapping | None = None, alpha: float | None = None,
                 ess: float | None = None) -> Estimator:
    """The estimator ``value`` stands for, as a value: the one conversion at the edge.

    Parameters
    ----------
    value : Estimator or str
        An estimator (returned as it is), or a name: ``"mle"``, ``"m-estimate"``,
        ``"laplace"``, ``"bayes"`` (also ``"bdeu"``, ``"m"``, ``"ml"``, ``"additive"``;
        any case, ``_`` for ``-``).
    m, prior, alpha, ess : optional
        Settings for a named estimator (the command line's ``--m``, ``--alpha``,
        ``--ess``); each is used by its estimator only (``m`` and ``prior`` by the
        m-estimate) and the others ignored. None keeps the estimator's default.

    Returns
    -------
    Estimator

    Raises
    ------
    DataError
        For an unknown name (with a suggestion), a bad setting, or a setting given with
        an estimator value (it belongs inside the value).

    Examples
    --------
    >>> as_estimator("laplace", alpha=0.5)
    Laplace(alpha=0.5)
    >>> as_estimator("BDeu"), as_estimator(MLE())
    (BDeu(), MLE())
    """
    settings = {k: v for k, v in dict(m=m, prior=prior, alpha=alpha, ess=ess).items()
                if v is not None}
    if isinstance(value, Estimator):
        if settings:
            raise DataError(f"{', '.join(settings)} given beside the estimator {value!r}: "
                            f"give the settings inside it, e.g. {_example(value)}")
        return value
    if isinstance(value, type) and issubclass(value, Estimator):
        raise DataError(f"estimator {value.__name__} is a class: give a value, "
                        f"{value.__name__}()")
    name = str(value).lower().replace("_", "-")
    name = _ALIASES.get(name, name)
    if name not in ESTIMATORS:
        raise DataError(f"unknown estimator {value!r}; choose one of "
                        f"{', '.join(ESTIMATORS)}{suggest(str(value), ESTIMATORS)}")
    kind = _BY_NAME[name]
    own = {f.name for f in fields(kind)}
    return kind(**{k: v for k, v in settings.items() if k in own})


_BY_NAME: dict[str, type[Estimator]] = {kind.name: kind for kind in (MLE, MEstimate,
                                                                     Laplace, BDeu)}


def _example(value: Estimator) -> str:
    return {MLE: "MLE()", Laplace: "Laplace(alpha=0.5)", BDeu: "BDeu(ess=10)"}.get(
        type(value), "MEstimate(m=2, prior={...})")


def estimator_from_arguments(where: str, estimator: Estimator | str, **settings) -> Estimator:
    """:func:`as_estimator` for a public function that still takes the old keywords
    (``m``, ``prior``, ``alpha``, ``ess`` beside ``estimator``): those given (not None)
    are applied, with a FutureWarning showing the value to pass instead.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     estimator = estimator_from_arguments("learn", "laplace", alpha=0.5, m=None)
    >>> estimator, str(caught[0].message).split(": write ")[1]
    (Laplace(alpha=0.5), 'estimator=bbn.Laplace(alpha=0.5)')
    """
    given = {k: v for k, v in settings.items() if v is not None}
    value = as_estimator(estimator, **given)
    if given:
        warnings.warn(f"{where}: {', '.join(f'{k}=' for k in given)} beside estimator= is "
                      f"deprecated and will be removed: write estimator=bbn.{value!r}",
                      FutureWarning, stacklevel=3)
    return value


def table_from_counts(net: Network, variable: str, counts: np.ndarray, estimator: Estimator,
                      *, warn: bool = True) -> np.ndarray:
    """The estimated table of ``variable`` from its family counts: the m-estimate's prior
    for it looked up and checked; with ``warn``, MLE warns about parent configurations
    never seen."""
    p = None
    if isinstance(estimator, MEstimate):
        p = prior_table(variable, net.states(variable), counts.shape, estimator.prior)
    elif isinstance(estimator, MLE) and warn:
        warn_unseen(net, variable, counts)
    return estimator.table(counts, p)


def warn_unseen(net: Network, variable: str, counts: np.ndarray) -> None:
    """Warn, listing them, about parent configurations with no data (they get 1/r)."""
    unseen = np.argwhere(np.asarray(counts).sum(axis=-1) == 0)
    if not len(unseen):
        return
    parents = net.parents(variable)
    shown = ["(" + ", ".join(f"{p}={net.states(p)[i]}" for p, i in zip(parents, row, strict=True))
             + ")" for row in unseen[:10]]
    more = f" and {len(unseen) - 10} more" if len(unseen) > 10 else ""
    family = net.family_text(variable)
    warnings.warn(f"{family}: no data for {len(unseen)} parent configuration(s) "
                  f"{', '.join(shown)}{more}; their rows are uniform (mle cannot estimate them; "
                  "a smoothing estimator can)", UnseenParentsWarning, stacklevel=4)


def prior_table(variable: str, states: Sequence[str], shape: tuple[int, ...],
                prior: Mapping | None) -> np.ndarray | None:
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

"""Checks of the approximate engines' settings, each naming the setting it refuses.

Every method is a frozen dataclass of its settings checked in ``__post_init__`` with
these, so a bad value fails where it is given, not in the middle of a run.

>>> check_count("LoopyBP", "max_iterations", 10)
>>> check_fraction("LoopyBP", "damping", 1.5)
Traceback (most recent call last):
    ...
bbn.core.errors.QueryError: LoopyBP: damping must be in [0, 1), not 1.5
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from bbn.core.errors import QueryError


def check_count(method: str, name: str, value: object, minimum: int = 1) -> None:
    """Refuse ``value`` unless it is an integer ≥ ``minimum``.

    Parameters
    ----------
    method, name : str
        The method's class name and the setting's name (for the message).
    value : object
        The setting's value.
    minimum : int
        The smallest value allowed.

    Raises
    ------
    QueryError
        Naming the setting.

    Examples
    --------
    >>> check_count("Gibbs", "chains", 0)
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: Gibbs: chains must be an integer ≥ 1, not 0
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or value < minimum):
        raise QueryError(f"{method}: {name} must be an integer ≥ {minimum}, not {value!r}")


def check_seconds(method: str, name: str, value: object) -> None:
    """Refuse ``value`` unless it is None or a positive number of seconds.

    Parameters
    ----------
    method, name : str
        The method's class name and the setting's name.
    value : object
        The setting's value.

    Raises
    ------
    QueryError
        Naming the setting.

    Examples
    --------
    >>> check_seconds("Gibbs", "time_budget", None)
    >>> check_seconds("Gibbs", "time_budget", -1)
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: Gibbs: time_budget must be None or seconds > 0, not -1
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise QueryError(f"{method}: {name} must be None or seconds > 0, not {value!r}")


def check_fraction(method: str, name: str, value: object, high: float = 1.0,
                   closed: bool = False) -> None:
    """Refuse ``value`` unless it is a number in [0, high) (``closed``: [0, high]).

    Parameters
    ----------
    method, name : str
        The method's class name and the setting's name.
    value : object
        The setting's value.
    high : float
        The upper end.
    closed : bool
        Whether ``high`` itself is allowed.

    Raises
    ------
    QueryError
        Naming the setting.

    Examples
    --------
    >>> check_fraction("LoopyBP", "tolerance", 1e-8, high=float("inf"))
    """
    ok = (not isinstance(value, bool) and isinstance(value, numbers.Real)
          and 0 <= value and (value <= high if closed else value < high))
    if not ok:
        right = "]" if closed else ")"
        raise QueryError(f"{method}: {name} must be in [0, {high:g}{right}, not {value!r}")


def check_sampler(method: str, samples: object, time_budget: object, seed: object) -> None:
    """The settings every sampler has: a sample budget, a time budget and a seed.

    Parameters
    ----------
    method : str
        The method's class name.
    samples, time_budget, seed : object
        The settings' values (an integer ≥ 1, None or seconds > 0, an integer ≥ 0).

    Raises
    ------
    QueryError
        Naming the setting.

    Examples
    --------
    >>> check_sampler("LikelihoodWeighting", 1000, None, "x")
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: LikelihoodWeighting: seed must be an integer ≥ 0, not 'x'
    """
    check_count(method, "samples", samples)
    check_seconds(method, "time_budget", time_budget)
    check_count(method, "seed", seed, minimum=0)


@dataclass(frozen=True)
class SamplerSettings:
    """The settings every sampler has, checked on creation (the samplers extend it).

    Parameters
    ----------
    samples : int
        The sample budget.
    time_budget : float, optional
        Seconds; a sampler stops after the batch or sweep that spends them.
    seed : int
        Seeds the random generator (the same seed, the same answer).

    Raises
    ------
    QueryError
        For a setting out of range, naming it.

    Examples
    --------
    >>> SamplerSettings(samples=10).seed
    0
    """

    samples: int = 100_000
    time_budget: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        check_sampler(type(self).__name__, self.samples, self.time_budget, self.seed)

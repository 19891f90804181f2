"""A time limit on the work of one thread, checked where the work can stop cleanly.

    with time_limit(10.0, "planning the uploaded model"):
        net.posteriors({})           # TimeLimitError once 10 s have passed at a check

The limit is a context variable: it holds in the thread (and ``contextvars`` context)
that set it and nowhere else, so a server can bound one request's planning while other
threads run without limit. The long loops of planning — the greedy elimination order, the
order search — call :func:`check` between steps (a clock read, ~50 ns, only while a
limit is set); nothing half-made is cached when it fires.

>>> with time_limit(60.0, "a quick thing"):
...     check()
>>> remaining() is None
True
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from collections.abc import Iterator

from bbn.core.errors import BBNError

#: (the monotonic time the limit passes, its seconds, what is being done) while one holds
_LIMIT: contextvars.ContextVar[tuple[float, float, str] | None] = contextvars.ContextVar(
    "bbn_time_limit", default=None)


class TimeLimitError(BBNError, TimeoutError):
    """Work stopped at a time limit set by :func:`time_limit` (what, and how long)."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Work in the block stops with :class:`TimeLimitError` at the first :func:`check`
    after ``seconds`` (an inner limit can only shorten an outer one).

    Parameters
    ----------
    seconds : float
        The limit; ``math.inf`` sets none.
    what : str
        What the work is, for the message ("planning the uploaded model").

    Examples
    --------
    >>> with time_limit(0.0, "nothing"):
    ...     check()
    Traceback (most recent call last):
        ...
    bbn.core.deadline.TimeLimitError: nothing took longer than the limit of 0 s
    """
    outer = _LIMIT.get()
    end = time.monotonic() + seconds
    if outer is not None and outer[0] <= end or math.isinf(seconds):
        yield
        return
    token = _LIMIT.set((end, seconds, what))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def check() -> None:
    """Raise :class:`TimeLimitError` when the time limit of this context has passed.

    Examples
    --------
    >>> check()  # no limit set: nothing happens
    """
    limit = _LIMIT.get()
    if limit is not None and time.monotonic() >= limit[0]:
        raise exceeded()


def exceeded(detail: str = "") -> TimeLimitError:
    """The error of this context's limit, ``detail`` added in parentheses (for work
    stopped by other means than :func:`check`: a subprocess killed at :func:`remaining`).

    Examples
    --------
    >>> with time_limit(2.0, "drawing"):
    ...     print(exceeded("dot was stopped"))
    drawing took longer than the limit of 2 s (dot was stopped)
    """
    limit = _LIMIT.get()
    what, seconds = ("the work", 0.0) if limit is None else (limit[2], limit[1])
    return TimeLimitError(f"{what} took longer than the limit of {seconds:g} s"
                          + (f" ({detail})" if detail else ""))


def remaining() -> float | None:
    """Seconds left before the limit of this context (None when there is none).

    Examples
    --------
    >>> with time_limit(30.0, "x"):
    ...     0 < remaining() <= 30
    True
    """
    limit = _LIMIT.get()
    return None if limit is None else max(0.0, limit[0] - time.monotonic())

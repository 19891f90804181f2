"""Progress on long work (EM, sampling, learning from files, structure searches): one
report per iteration or chunk, never per row.

A long function takes ``progress=``: None (the default) is silent; a callable is called
with a :class:`Step` after each iteration or chunk; ``True`` draws a bar on the terminal
(:class:`TerminalBar`, standard error, rewritten in place with carriage returns) when
standard error is a terminal, and stays silent otherwise (a pipe, a log file, a notebook
cell). A :class:`Step` is the line of text it prints, so a callable written for lines
(``lines.append``) reads it as one; ``step.task``, ``step.done`` and ``step.total`` are
its numbers.

>>> steps = []
>>> tell = reporter(steps.append)
>>> tell(Step("em", 3, 100, "log-likelihood -1234.5"))
>>> steps[0], steps[0].done, steps[0].fraction
('em: 3 of 100, log-likelihood -1234.5', 3, 0.03)
>>> reporter(None) is None, reporter(False) is None
(True, True)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

#: What a long function is given as ``progress=``.
Progress = Callable[["Step"], None] | bool | None

#: Seconds between two redraws of the terminal bar.
REDRAW_EVERY = 0.1


class Step(str):
    """One report of long work: the text of the line, with its numbers.

    Parameters
    ----------
    task : str
        What runs (``"em"``, ``"sample"``, ``"learn"``, ``"hc"``...).
    done : int or float, optional
        Iterations, rows or chunks done so far (None: a line of text only).
    total : int or float, optional
        How many there will be, if known.
    note : str
        Anything else worth a look (the log-likelihood, the score).

    Examples
    --------
    >>> step = Step("sample", 200_000, 1_000_000)
    >>> str(step), step.fraction
    ('sample: 200,000 of 1,000,000', 0.2)
    >>> Step("pc", note="level 1: 3 edges removed")
    'pc: level 1: 3 edges removed'
    """

    task: str
    done: float | None
    total: float | None
    note: str

    def __new__(cls, task: str, done: float | None = None, total: float | None = None,
                note: str = "") -> Step:
        parts = [] if done is None else [f"{done:,}" + ("" if total is None else
                                                          f" of {total:,}")]
        if note:
            parts.append(note)
        step = super().__new__(cls, f"{task}: {', '.join(parts)}")
        step.task, step.done, step.total, step.note = task, done, total, note
        return step

    @property
    def fraction(self) -> float | None:
        """done / total, or None when either is unknown."""
        if self.done is None or not self.total:
            return None
        return min(1.0, self.done / self.total)


class TerminalBar:
    """A progress bar on one line of a terminal, redrawn at most every
    :data:`REDRAW_EVERY` seconds (and at the end), cleared by :meth:`close`.

    Parameters
    ----------
    stream : text stream, optional
        Where to draw; standard error by default.
    prefix : str
        Put before each line (``"bbn learn: "``).
    width : int
        The bar's width in characters.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = TerminalBar(out, width=10)
    >>> bar(Step("em", 5, 10))
    >>> out.getvalue()
    '\\rem [#####.....]  50%  em: 5 of 10'
    >>> bar.close(); out.getvalue().endswith("\\r")
    True
    """

    def __init__(self, stream: TextIO | None = None, prefix: str = "", width: int = 24) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.prefix, self.width = prefix, width
        self.shown = 0
        self.drawn = -float("inf")

    def __call__(self, step: Step) -> None:
        now = time.perf_counter()
        fraction = step.fraction if isinstance(step, Step) else None
        if now - self.drawn < REDRAW_EVERY and fraction != 1.0:
            return
        self.drawn = now
        text = self.prefix + str(step)
        if fraction is not None:
            full = round(fraction * self.width)
            text = (f"{self.prefix}{step.task} [{'#' * full}{'.' * (self.width - full)}] "
                    f"{fraction:4.0%}  {step}")
        self.stream.write("\r" + text.ljust(self.shown))
        self.stream.flush()
        self.shown = len(text)

    def close(self) -> None:
        """Clear the line (nothing when nothing was drawn)."""
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0


def on_terminal(prefix: str = "", stream: TextIO | None = None) -> TerminalBar | None:
    """A :class:`TerminalBar` when ``stream`` (standard error) is a terminal, else None.

    Parameters
    ----------
    prefix : str
        Put before each line.
    stream : text stream, optional
        Standard error by default.

    Returns
    -------
    TerminalBar or None

    Examples
    --------
    >>> import io
    >>> on_terminal(stream=io.StringIO()) is None       # not a terminal: silent
    True
    """
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return TerminalBar(stream, prefix) if isatty is not None and isatty() else None


def reporter(progress: Progress) -> Callable[[Step], None] | None:
    """What ``progress=`` asks for: None (silent), the callable itself, or for True a
    terminal bar on standard error when it is a terminal (None otherwise).

    Parameters
    ----------
    progress : callable, bool or None

    Returns
    -------
    callable or None

    Raises
    ------
    TypeError
        For anything else.

    Examples
    --------
    >>> reporter(print) is print
    True
    """
    if progress is None or progress is False:
        return None
    if progress is True:
        return on_terminal()
    if callable(progress):
        return progress
    raise TypeError(f"progress must be a callable, True, False or None, got {progress!r}")


def report(progress: Callable[[Step], None] | None, task: str, done: float | None = None,
           total: float | None = None, note: str = "") -> None:
    """Tell ``progress`` (a callable from :func:`reporter`, or None) one step.

    Examples
    --------
    >>> report(print, "learn", 3, note="rows 0–99,999")
    learn: 3, rows 0–99,999
    >>> report(None, "learn", 4)      # silent
    """
    if progress is not None:
        progress(Step(task, done, total, note))

"""Ctrl-C while bbn loads: the process ends quietly with exit 130 (128 + SIGINT, the
shell's code for an interrupted program), not with a traceback of numpy's imports.

The ``bbn`` console script imports the package before its own code can catch anything,
and loading takes 0.2–1 s; a KeyboardInterrupt raised then reaches the top of the script
uncaught. :func:`install` (run when this module is imported, the first thing ``import
bbn`` does) sets a
``sys.excepthook`` that ends such an interrupt — one raised while ``bbn/__init__.py`` was
running, so only bbn's own loading — with 130 and hands every other uncaught exception
to the hook it replaced; :func:`uninstall` (the last thing ``import bbn`` does, once
loaded) puts that hook back, so a program using bbn keeps its own. In an interactive
session the interrupt is left to Python (the session goes on).

>>> import sys
>>> hook = sys.excepthook
>>> install(); sys.excepthook is hook
False
>>> uninstall(); sys.excepthook is hook
True
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import TracebackType

#: the exit code of a program stopped by Ctrl-C
INTERRUPTED = 128 + signal.SIGINT
_PACKAGE_TOP = str(Path(__file__).resolve().parents[1] / "__init__.py")
_previous = None


def _while_loading(tb: TracebackType | None) -> bool:
    """Whether the traceback passes through ``bbn/__init__.py``: raised while it ran."""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _PACKAGE_TOP:
            return True
        tb = tb.tb_next
    return False


def _hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    interactive = hasattr(sys, "ps1") or sys.flags.interactive
    if issubclass(kind, KeyboardInterrupt) and not interactive and _while_loading(tb):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(INTERRUPTED)
    (_previous or sys.__excepthook__)(kind, value, tb)


def install() -> None:
    """Set the hook (see the module's text); ``uninstall`` takes it away."""
    global _previous
    if sys.excepthook is not _hook:
        _previous = sys.excepthook
        sys.excepthook = _hook


def uninstall() -> None:
    """Put the hook :func:`install` replaced back (unless someone replaced ours since)."""
    global _previous
    if sys.excepthook is _hook:
        sys.excepthook = _previous or sys.__excepthook__
        _previous = None


install()

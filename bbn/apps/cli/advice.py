"""What the command line says where the library speaks Python: advice as options, and a
closed pipe met quietly.

A library message advises ``missing='drop'``; at the command line the same advice is
``--missing drop``. :func:`cli_advice` rewrites each ``name='value'`` whose ``--name``
is an option of the command being run, so the message is chosen at the CLI's edge.

>>> cli_advice("pass missing='drop' to ignore them", ["--missing", "-o"])
'pass --missing drop to ignore them'
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

_ASSIGNMENT = re.compile(r"\b([a-z][a-z_]*)=(?:'([^']*)'|\"([^\"]*)\"|([\w.:-]+))")


def cli_advice(message: str, options: Iterable[str]) -> str:
    """``message`` with ``name='value'`` written ``--name value`` (``name=True``:
    ``--name``) where ``--name`` (its underscores as dashes) is one of ``options``; other
    assignments as they are; a note that repeats the option for the command line
    (``(--normalize on the command line)``, ``(CLI: --target)``) dropped.

    >>> cli_advice("pass unseen='ignore' or max_iter=5", ["--max-iter"])
    "pass unseen='ignore' or --max-iter 5"
    >>> cli_advice("pass normalize=True (--normalize on the command line)", ["--normalize"])
    'pass --normalize'
    """
    known = set(options)

    def option(match: re.Match) -> str:
        name = "--" + match[1].replace("_", "-")
        value = next(v for v in match.groups()[1:] if v is not None)
        if name not in known or value == "False":
            return match[0]
        return name if value == "True" else f"{name} {value}"

    text = _ASSIGNMENT.sub(option, message)
    return _CLI_NOTE.sub("", text)


#: A library message's note for command-line users, redundant once the advice is options.
_CLI_NOTE = re.compile(r" \((?:--[\w-]+ on the command line|CLI: [^)]*)\)")


def quiet_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush
    of a pipe whose reader has gone writes nothing and prints no "Broken pipe"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test's)
        pass


__all__ = ["cli_advice", "quiet_stdout"]

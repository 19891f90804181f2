"""The ``bbn`` console script: the command line, with Ctrl-C at any moment after Python
starts — while bbn's modules load too — an exit 130 and no traceback.

The script's own import is this small module; everything else loads inside the ``try``
(by a lazy reference), where a KeyboardInterrupt is caught.
"""

from __future__ import annotations

import sys

from bbn.apps.cli.exit_codes import EXIT_INTERRUPTED
from bbn.core.lazy import reference


def run() -> None:
    """Run ``bbn`` with ``sys.argv`` and exit with its code (130 on Ctrl-C)."""
    try:
        code = reference("bbn.apps.cli.main:main")()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    sys.exit(code)

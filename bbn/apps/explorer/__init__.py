"""The explorer: a network in the browser with belief bars; a click on a state is a finding.

``bbn serve MODEL`` (:mod:`bbn.apps.cli.serve`), ``bbn.serve(net)`` and, in a notebook,
``bbn.explore(net)`` (:func:`explore`) all run the same app: :mod:`bbn.apps.explorer.app` answers
(every posterior from one junction-tree pass), :mod:`bbn.apps.explorer.server` speaks HTTP with
the standard library, ``static/`` holds the one page (plain JavaScript and CSS, no build
step). See ``docs/explorer.md``.

>>> import bbn
>>> with bbn.serve(bbn.load("models/chair.bn"), port=0, block=False) as server:
...     server.app.query("P(C=T | A=T)")["text"]
'P(C=T | A=T) = 0.886749'
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes

# The command line imports bbn.apps.cli.serve on every command: the server, http.server
# and the app load only when one is used.
_LAZY = {
    "serve": "bbn.apps.explorer.server",
    "Server": "bbn.apps.explorer.server",
    "Explorer": "bbn.apps.explorer.app",
    "Settings": "bbn.apps.explorer.app",
    "explore": "bbn.apps.explorer.inline",
    "InlineExplorer": "bbn.apps.explorer.inline",
}

__all__ = list(_LAZY)

__getattr__ = lazy_attributes("bbn.apps.explorer", _LAZY)

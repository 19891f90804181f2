"""The explorer: a network in the browser with belief bars; a click on a state is a finding.

``bbn serve MODEL`` (:mod:`bbn.explorer.command`), ``bbn.serve(net)`` and, in a notebook,
``net.explore()`` (:func:`explore`) all run the same app: :mod:`bbn.explorer.app` answers
(every posterior from one junction-tree pass), :mod:`bbn.explorer.server` speaks HTTP with
the standard library, ``static/`` holds the one page (plain JavaScript and CSS, no build
step). See ``docs/explorer.md``.

>>> import bbn
>>> with bbn.serve(bbn.load("models/chair.bn"), port=0, block=False) as server:
...     server.app.query("P(C=T | A=T)")["text"]
'P(C=T | A=T) = 0.886749'
"""

from __future__ import annotations

from bbn.lazy import lazy_attributes

# The command line imports bbn.explorer.command on every command: the server, http.server
# and the app load only when one is used.
_LAZY = {
    "serve": "bbn.explorer.server",
    "Server": "bbn.explorer.server",
    "Explorer": "bbn.explorer.app",
    "Settings": "bbn.explorer.app",
    "explore": "bbn.explorer.inline",
    "InlineExplorer": "bbn.explorer.inline",
}

__all__ = list(_LAZY)

__getattr__ = lazy_attributes("bbn.explorer", _LAZY)

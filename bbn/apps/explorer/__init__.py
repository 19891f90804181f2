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

from bbn.apps.explorer.app import Explorer, Settings
from bbn.apps.explorer.inline import InlineExplorer, explore
from bbn.apps.explorer.server import Server, serve

__all__ = ["Explorer", "InlineExplorer", "Server", "Settings", "explore", "serve"]

"""The explorer inline in a notebook: ``bbn.explore(net)`` is an ``<iframe>`` on a server
running in a background thread.

>>> InlineExplorer("http://127.0.0.1:8000/", 400).height
400
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bbn.apps.explorer.server import Server, serve

if TYPE_CHECKING:
    from bbn.model.network import Network

#: id(network) → (the network, its background server): one server per network object
#: shown inline, reused when a notebook re-runs the cell (a Network is unhashable).
_INLINE: dict[int, tuple[Network, Server]] = {}


@dataclass(frozen=True)
class InlineExplorer:
    """The explorer inside a notebook cell: an ``<iframe>`` on a background server.

    Examples
    --------
    >>> view = InlineExplorer("http://127.0.0.1:8000/", 500)
    >>> view._repr_html_()
    '<iframe src="http://127.0.0.1:8000/" width="100%" height="500" style="border: 0"></iframe>'
    """

    url: str
    height: int

    def _repr_html_(self) -> str:
        return (f'<iframe src="{html.escape(self.url)}" width="100%" height="{self.height}" '
                'style="border: 0"></iframe>')


def explore(net: Network, height: int = 600, port: int = 0) -> InlineExplorer:
    """Show the explorer for ``net`` inline in a notebook: ``bbn.explore(net, height=600)``,
    this network with belief bars in a frame; a click on a state enters a finding (see
    ``docs/explorer.md``).

    A server for ``net`` starts in a background thread on 127.0.0.1 the first time, and
    is reused by later calls (the page always shows the network as it is now); it stops
    when Python exits.

    Parameters
    ----------
    net : Network
        The network to explore.
    height : int
        The frame's height in pixels.
    port : int
        The port of a new server; 0 picks a free one.

    Returns
    -------
    InlineExplorer
        Shown by Jupyter as the app in a frame; its ``url`` also opens in a browser tab.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> view = bbn.explore(net, height=450)
    >>> view.url == bbn.explore(net).url
    True
    >>> _INLINE.pop(id(net))[1].close()
    """
    if id(net) not in _INLINE:
        _INLINE[id(net)] = (net, serve(net, port=port, block=False))
    server = _INLINE[id(net)][1]
    return InlineExplorer(server.url, height)



"""What Jupyter shows for a network: its picture (``Network._repr_svg_``).

The picture is drawn by :mod:`bbn.apps.rendering` (Graphviz), loaded on first display,
so ``import bbn`` loads neither; the method is installed from the package top because
the model layer must not import the layers above it. ``bbn.explore(net)`` shows the
explorer inline instead.

>>> import bbn
>>> callable(bbn.Network._repr_svg_)
True
"""

from __future__ import annotations

from bbn.core.lazy import lazy_attributes
from bbn.model.network import Network

_rendering = lazy_attributes(__name__, {"repr_svg": "bbn.apps.rendering"})


def repr_svg(net: Network) -> str | None:
    """The picture Jupyter shows for a network (see ``docs/rendering.md``).

    Parameters
    ----------
    net : Network
        The network to draw.

    Returns
    -------
    str or None
        Its SVG, or None (with a warning) without Graphviz's ``dot``.

    Examples
    --------
    >>> import bbn
    >>> repr_svg(bbn.load("models/chair.bn")).startswith("<?xml")     # doctest: +SKIP
    True
    """
    return _rendering("repr_svg")(net)


Network._repr_svg_ = repr_svg

"""What Jupyter shows for a network: its picture (``Network._repr_svg_``); the picture
a decision tree's ``_repr_html_`` shows, lent to :mod:`bbn.core.pictures`.

The picture is drawn by :mod:`bbn.apps.rendering` (Graphviz), loaded on first display,
so ``import bbn`` loads neither; the method is installed from the package top because
the model layer must not import the layers above it. ``bbn.explore(net)`` shows the
explorer inline instead.

>>> import bbn
>>> callable(bbn.Network._repr_svg_)
True
"""

from __future__ import annotations

import warnings

import bbn.core.pictures as pictures
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


def tree_svg(tree) -> str | None:
    """A fitted decision tree's picture for its ``_repr_html_``: None, silently, without
    Graphviz's ``dot`` (the tree then shows as text).

    Parameters
    ----------
    tree : DecisionTree
        Fitted.

    Returns
    -------
    str or None

    Examples
    --------
    >>> import bbn
    >>> tree = bbn.DecisionTree().fit([["a"], ["b"]], ["x", "y"])
    >>> svg = tree_svg(tree)
    >>> svg is None or "<svg" in svg
    True
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _rendering("repr_svg")(tree)


pictures.lend("tree", tree_svg)

"""Pictures lent down: the package top lends the layers below it a way to draw.

The layers under ``apps`` may not import the renderer, yet some of their results are
pictures in a notebook (a decision tree). The package top, which may import everything,
lends a drawing function here by name (:func:`lend`); a result asks for its picture with
:func:`picture`, and shows a table or text instead when none is lent or none can be drawn
(no Graphviz ``dot``).

>>> lend("square", lambda thing: f"<svg>{thing}</svg>")
>>> picture("square", 4), picture("circle", 4)
('<svg>4</svg>', None)
>>> _LENT.pop("square") and None
"""

from __future__ import annotations

from collections.abc import Callable

#: kind → a function drawing an object as SVG text (None when it cannot).
_LENT: dict[str, Callable[[object], str | None]] = {}


def lend(kind: str, draw: Callable[[object], str | None]) -> None:
    """Lend ``draw`` for pictures of ``kind``.

    Parameters
    ----------
    kind : str
        What is drawn (``"tree"``).
    draw : callable
        ``draw(obj)`` → SVG text, or None when it cannot draw.

    Examples
    --------
    >>> lend("dot", lambda obj: None); picture("dot", 1) is None
    True
    """
    _LENT[kind] = draw


def picture(kind: str, obj) -> str | None:
    """The SVG of ``obj`` as a picture of ``kind`` (the XML prologue removed, ready to
    sit in HTML), or None.

    Parameters
    ----------
    kind : str
        What is drawn.
    obj : object
        The thing to draw.

    Returns
    -------
    str or None

    Examples
    --------
    >>> lend("box", lambda obj: '<?xml version="1.0"?>\\n<svg>box</svg>')
    >>> picture("box", None)
    '<svg>box</svg>'
    """
    draw = _LENT.get(kind)
    svg = None if draw is None else draw(obj)
    if svg is None:
        return None
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg

"""Turning a ``graphviz.Digraph`` into a file: the extension picks the output.

``.dot``/``.gv`` write the DOT source and need no Graphviz binary; ``.svg``, ``.png`` and
``.pdf`` run Graphviz's ``dot``. Files are written through a temporary file in the same
folder and a rename, so a failed render never leaves half an image behind.

>>> output_format("net.SVG")
'svg'
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import graphviz

import bbn.core.deadline as deadline
from bbn.core.errors import BBNError, suggest
from bbn.io.formats import write_atomically

#: extension → Graphviz output format (None: the DOT source itself)
OUTPUT_FORMATS: dict[str, str | None] = {
    ".png": "png", ".svg": "svg", ".pdf": "pdf", ".dot": None, ".gv": None,
}

#: Resolution of PNG pictures: 1.5 times Graphviz's 96 dpi, crisp on a slide or a page.
PNG_DPI = 144

INSTALL_HINT = ("install Graphviz, which provides it: 'apt-get install graphviz' (Debian, "
                "Ubuntu), 'brew install graphviz' (macOS), 'conda install graphviz' or the "
                "installer from graphviz.org (Windows), then make sure 'dot' is on PATH; "
                "writing the DOT source (a .dot or .gv file) needs no Graphviz")


class GraphvizMissingError(BBNError, RuntimeError):
    """Graphviz's ``dot`` program is needed for an image and is not installed.

    Parameters
    ----------
    what : str
        What needed it ("drawing a .png picture"); the message adds how to install it.

    Examples
    --------
    >>> print(GraphvizMissingError("drawing a .png picture"))     # doctest: +ELLIPSIS
    drawing a .png picture needs Graphviz's 'dot' program, which is not on this machine: ...
    """

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} needs Graphviz's 'dot' program, which is not on this "
                         f"machine: {INSTALL_HINT}")


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` is on PATH.

    >>> isinstance(has_dot(), bool)
    True
    """
    return shutil.which("dot") is not None


def require_dot(what: str) -> None:
    """Refuse now, with the install line, what would need Graphviz's ``dot`` later.

    Parameters
    ----------
    what : str
        What needs it ("the explorer").

    Raises
    ------
    GraphvizMissingError
        When ``dot`` is not on PATH.

    Examples
    --------
    >>> require_dot("the explorer")                              # doctest: +SKIP
    """
    if not has_dot():
        raise GraphvizMissingError(what)


def output_format(path: str | os.PathLike) -> str | None:
    """The Graphviz format for ``path``, from its extension (any case).

    Parameters
    ----------
    path : str or os.PathLike
        The picture's file name.

    Returns
    -------
    str or None
        ``"png"``, ``"svg"``, ``"pdf"``; None for DOT source (``.dot``, ``.gv``).

    Raises
    ------
    BBNError
        An extension that is no picture format (with a close one suggested).

    Examples
    --------
    >>> output_format("net.gv") is None
    True
    >>> output_format("net.sgv")
    Traceback (most recent call last):
        ...
    bbn.core.errors.BBNError: net.sgv: cannot tell the picture format ... (did you mean '.gv' ...
    """
    extension = Path(path).suffix.lower()
    if extension not in OUTPUT_FORMATS:
        raise BBNError(f"{path}: cannot tell the picture format from the extension "
                       f"{extension or '(none)'!r}; use one of {', '.join(OUTPUT_FORMATS)}"
                       f"{suggest(extension, OUTPUT_FORMATS) if extension else ''}")
    return OUTPUT_FORMATS[extension]


def pipe(graph: graphviz.Digraph, fmt: str) -> bytes:
    """Run ``dot`` on ``graph`` and return the image bytes.

    Parameters
    ----------
    graph : graphviz.Digraph
        The picture.
    fmt : str
        A Graphviz output format (``"png"``, ``"svg"``, ``"pdf"``).

    Returns
    -------
    bytes

    Raises
    ------
    GraphvizMissingError
        ``dot`` is not installed.
    BBNError
        ``dot`` failed (its message is kept).

    Examples
    --------
    >>> import graphviz
    >>> pipe(graphviz.Digraph(), "svg")[:5]                      # doctest: +SKIP
    b'<?xml'
    """
    seconds = deadline.remaining()
    if seconds is not None:  # under a time limit (bbn.core.deadline): dot is killed at it
        return _pipe_within(graph, fmt, seconds)
    try:
        return graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissingError(f"drawing a .{fmt} picture") from None
    except graphviz.CalledProcessError as error:
        message = (error.stderr or b"").decode("utf-8", "replace").strip()
        raise BBNError(f"Graphviz failed to draw the network: {message}") from None


def _pipe_within(graph: graphviz.Digraph, fmt: str, seconds: float) -> bytes:
    """:func:`pipe`, with ``dot`` killed after ``seconds`` (TimeLimitError)."""
    try:
        done = subprocess.run([graph.engine, f"-T{fmt}"], input=graph.source.encode("utf-8"),
                              capture_output=True, timeout=seconds, check=False)
    except FileNotFoundError:
        raise GraphvizMissingError(f"drawing a .{fmt} picture") from None
    except subprocess.TimeoutExpired:
        raise deadline.exceeded(f"Graphviz stopped, {graph.source.count(' -> ')} arcs") from None
    if done.returncode:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise BBNError(f"Graphviz failed to draw the network: {message}")
    return done.stdout


def write(graph: graphviz.Digraph, path: str | os.PathLike) -> None:
    """Write ``graph`` to ``path`` in the format its extension names, atomically
    (through a temporary file and a rename).

    Parameters
    ----------
    graph : graphviz.Digraph
        The picture.
    path : str or os.PathLike
        The file; see :func:`output_format`. PNG pictures are drawn at 144 dpi.

    Raises
    ------
    BBNError
        An unknown extension, no Graphviz for an image, or a file that cannot be written.

    Examples
    --------
    >>> import graphviz, os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write(graphviz.Digraph(body=["A -> B"]), os.path.join(folder, "ab.gv"))
    ...     print(open(os.path.join(folder, "ab.gv")).read())
    digraph {
    A -> B}
    <BLANKLINE>
    """
    fmt = output_format(path)
    if fmt is None:
        content: str | bytes = graph.source
    else:
        if fmt == "png":
            graph = graph.copy()
            graph.attr(dpi=str(PNG_DPI))
        content = pipe(graph, fmt)  # rendered fully before the file is touched
    try:
        write_atomically(path, content)
    except OSError as error:
        raise BBNError(f"{path}: cannot write: {error}") from None

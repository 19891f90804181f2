"""Turning a ``graphviz.Digraph`` into a file: the extension picks the output.

``.dot``/``.gv`` write the DOT source and need no Graphviz binary; ``.svg``, ``.png`` and
``.pdf`` run Graphviz's ``dot``. Files are written through a temporary file in the same
folder and a rename, so a failed render never leaves half an image behind.

>>> output_format("net.SVG")
'svg'
"""

from __future__ import annotations

import os
from pathlib import Path

import graphviz

from bbn.errors import BBNError, suggest
from bbn.formats import write_atomically

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
    """Graphviz's ``dot`` program is needed for an image and is not installed."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} needs Graphviz's 'dot' program, which is not on this "
                         f"machine: {INSTALL_HINT}")


def output_format(path: str | os.PathLike) -> str | None:
    """The Graphviz format for ``path`` (None for DOT source); BBNError when unknown."""
    extension = Path(path).suffix.lower()
    if extension not in OUTPUT_FORMATS:
        raise BBNError(f"{path}: cannot tell the picture format from the extension "
                       f"{extension or '(none)'!r}; use one of {', '.join(OUTPUT_FORMATS)}"
                       f"{suggest(extension, OUTPUT_FORMATS) if extension else ''}")
    return OUTPUT_FORMATS[extension]


def pipe(graph: graphviz.Digraph, fmt: str) -> bytes:
    """Run ``dot`` on ``graph`` and return the image bytes, with bbn errors."""
    try:
        return graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissingError(f"drawing a .{fmt} picture") from None
    except graphviz.CalledProcessError as error:
        message = (error.stderr or b"").decode("utf-8", "replace").strip()
        raise BBNError(f"Graphviz failed to draw the network: {message}") from None


def write(graph: graphviz.Digraph, path: str | os.PathLike) -> None:
    """Write ``graph`` to ``path`` in the format its extension names."""
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

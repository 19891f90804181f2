"""Helpers shared by the text-format readers: positions in a file and network names."""

from __future__ import annotations

from pathlib import PurePath

import numpy as np

from bbn.errors import ParseError


def error_at(text: str, source: str, offset: int, message: str) -> ParseError:
    """A :class:`ParseError` for the character at ``offset`` of ``text`` (line and column
    counted from 1), quoting that line.

    >>> str(error_at("a\\nbc", "f.bif", 3, "bad")).splitlines()[0]
    'f.bif:2:2: bad'
    """
    offset = max(0, min(offset, len(text)))
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    line_text = text[start:end if end >= 0 else len(text)]
    return ParseError(message, source, text.count("\n", 0, offset) + 1, offset - start + 1,
                      line_text.rstrip("\r"))


def expected(error) -> str:
    """A pyparsing exception's message as "expected X, found 'Y'"."""
    message = error.msg
    if not message.startswith("Expected "):
        return message
    found = error.pstr[error.loc:error.loc + 20].split("\n")[0].strip()
    found = repr(found) if found else "the end of the file"
    return f"expected {message[len('Expected '):]}, found {found}"


def number_texts(values) -> list[str]:
    """Each number as the shortest decimal that reads back as the same float64, in
    fixed-point: ``repr`` except that ``1e-05`` is written ``0.00001``.

    The exchange formats' readers all accept fixed-point, but not all accept exponents
    (pgmpy's UAI reader stops at ``1e-05``); a number below 1e-4 (where ``repr`` turns to
    exponents) is rare in a table, so the longer text costs little.

    >>> number_texts([0.25, 1e-05, 1.0, 3e-20])
    ['0.25', '0.00001', '1.0', '0.00000000000000000003']
    """
    texts = list(map(repr, np.asarray(values, dtype=float).reshape(-1).tolist()))
    if "e" in "".join(texts):  # rare: found by one string search, then fixed one by one
        texts = [np.format_float_positional(float(t), unique=True, trim="0") if "e" in t
                 else t for t in texts]
    return texts


def name_from_source(source: str, default: str = "network") -> str:
    """The network name a file implies when the format stores none: its name without the
    extensions (``models/alarm.uai.gz`` → ``alarm``); ``default`` for ``<string>``."""
    if not source or source.startswith("<"):
        return default
    name = PurePath(source).name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return PurePath(name).stem or default


class Located(str):
    """A name read from a file that remembers its offset there, for error messages.

    >>> located("CVP", 42).loc
    42
    """

    loc: int


def located(text: str, offset: int) -> Located:
    name = Located(text)
    name.loc = offset
    return name


class Retry(Exception):
    """Raised by a reader's fast path (the whole network at once with
    :meth:`~bbn.network.Network.assemble`) on anything unusual: the reader then builds the
    network one variable at a time, which reports each problem where it is in the file."""

"""Helpers shared by the text-format readers: the reader skeleton (fast path, then located
errors: :func:`fast_or_located`), positions in a file, quoting, comments, network names, the
one rule for numbers and the size check made before a reader expands a table.

Numbers are ASCII, as every other tool writes them: ``[-+]digits[.digits][e[-+]digits]``
with digits ``0-9`` only (Python's ``float`` and ``int`` also take ``'١'`` or ``'１'``, which
no other reader does). A line ends at ``\\n`` only (``\\r\\n`` and a lone ``\\r`` become
``\\n`` before reading, see :func:`plain_line_ends`), so ``\\x0c``, ``\\x85`` or ``\\u2028``
are characters of a line, counted in its columns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import BBNError, MemoryLimitError, ParseError, ParseErrors
from bbn.core.memory import check_allocation

if TYPE_CHECKING:
    from bbn.model.network import Network

#: a decimal number in ASCII digits (the one rule of every reader)
NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_NUMBER_RE = re.compile(NUMBER)
#: a count (of states, variables, entries) in ASCII digits; more than 100 digits is no
#: count, and Python's int() refuses over 4300 (a ValueError, not a located error)
INTEGER = r"[0-9]{1,100}+(?![0-9])"
_INTEGER_RE = re.compile(INTEGER)

#: bytes a state name costs once read (a short str and its place in a list)
STATE_BYTES = 64
#: parents a table can have: one axis per parent and one for the child, and numpy's
#: arrays have at most 64 axes (NPY_MAXDIMS, numpy 2)
MAX_PARENTS = 63


#: a character no number has (numpy's float conversion takes more: "nan", "inf", "1_0")
_NOT_A_NUMBER = re.compile(r"[^0-9eE.+\-\s]")
_NOT_NEWLINE = re.compile(r"[^\n]")
_ESCAPED = re.compile(r"\\(.)")


def is_number(token: str) -> bool:
    """Whether ``token`` is a number in ASCII digits (see the module docstring).

    >>> is_number("1e-5"), is_number(".5"), is_number("\\u0661"), is_number("0x1")
    (True, True, False, False)
    """
    return _NUMBER_RE.fullmatch(token) is not None


def is_integer(token: str) -> bool:
    """Whether ``token`` is a non-negative integer in ASCII digits.

    >>> is_integer("12"), is_integer("\\u00b2"), is_integer("\\uff11"), is_integer("9" * 101)
    (True, False, False, False)
    """
    return _INTEGER_RE.fullmatch(token) is not None


def floats(tokens: list[str]) -> np.ndarray | None:
    """The tokens as float64 by one numpy call when every one is a number (see
    :func:`is_number`); None otherwise (the caller then finds which with is_number).

    >>> floats(["0.5", "1e-3"]).tolist(), floats(["0.5", "nan"])
    ([0.5, 0.001], None)
    """
    if _NOT_A_NUMBER.search(" ".join(tokens)):
        return None
    try:  # within these characters numpy's conversion takes what NUMBER does
        return np.array(tokens, dtype=float)
    except ValueError:
        return None


def unquote(text: str, escapes: Mapping[str, str] | None = None,
            unknown: Callable[[str, int], str] | None = None) -> str:
    """The text of a double-quoted string (``text`` itself when it is not quoted): ``\\c``
    is ``escapes[c]``, or else ``c`` itself, unless ``unknown(c, i)`` is given (``i``: the
    offset of the backslash in ``text``), whose result it is (or which raises).

    >>> unquote('"a\\\\tb"'), unquote('"a\\\\tb"', {"t": "\\t"}), unquote("bare")
    ('atb', 'a\\tb', 'bare')
    """
    if not text.startswith('"'):
        return text
    inner = text[1:-1]
    if "\\" not in inner:  # most strings have no escape
        return inner
    escapes = escapes or {}

    def replace(match: re.Match) -> str:
        char = match[1]
        if char in escapes:
            return escapes[char]
        return unknown(char, 1 + match.start()) if unknown else char

    return _ESCAPED.sub(replace, inner)


def blank_comments(text: str, comments: re.Pattern,
                   refuse: Callable[[re.Match], None] | None = None) -> str:
    """``text`` with every comment replaced by spaces (its line ends kept), so offsets,
    lines and columns stay true. ``comments`` matches the comments and the quoted strings
    (those that start with ``"``, kept as they are: a ``#`` in quotes is no comment);
    ``refuse(match)`` may raise on a comment (an unclosed ``/*``).

    >>> blank_comments('a "#b" # c', re.compile(r'"[^"]*"|#[^\\n]*'))
    'a "#b"    '
    """
    def blank(match: re.Match) -> str:
        found = match[0]
        if found[0] == '"':
            return found
        if refuse is not None:
            refuse(match)
        return _NOT_NEWLINE.sub(" ", found) if "\n" in found else " " * len(found)

    return comments.sub(blank, text)


def plain_line_ends(text: str) -> str:
    """``text`` with CR LF and a lone CR as LF: the one line end the readers count."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def check_table(cards: list[int], what: str, text: str, source: str, offset: int) -> None:
    """Refuse a table over ``cards`` (its parents' cardinalities, then its child's) that
    has more than MAX_PARENTS parents (a located ParseError) or more entries than the
    memory limit allows (see :func:`check_size`)."""
    if len(cards) - 1 > MAX_PARENTS:
        raise error_at(text, source, offset, f"{what}: bbn's tables have one axis per "
                       f"parent, and allow at most {MAX_PARENTS} parents")
    check_size(math.prod(cards), what, text, source, offset)


def check_size(entries: int, what: str, text: str, source: str, offset: int,
               entry_bytes: int = 8) -> None:
    """Refuse, before anything is expanded, a table (or list of states) of ``entries``
    values that the memory limit does not allow: :class:`MemoryLimitError` whose message
    starts with ``file:line:col:`` at ``offset`` of ``text``. ``entries`` is a Python int
    (a product of declared cardinalities, which never overflows).

    >>> check_size(2 ** 40, "the table of 'X'", "a\\nb X", "f.bif", 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.MemoryLimitError: f.bif:2:3: the table of 'X' needs 8.0 TiB, above the ...
    """
    try:
        check_allocation(entries, what, entry_bytes=entry_bytes)
    except MemoryLimitError as error:
        where = error_at(text, source, offset, "")
        raise MemoryLimitError(f"{where.source}:{where.line}:{where.column}: {error} "
                               "(the file declares it; nothing was allocated)") from None


def after_refused(refused: list[ParseError], fail):
    """``fail(at, message)`` raising, with its located problem, the tables refused before
    it (``refused``, in file order), so a reader that goes on past a table that is no
    distribution still reports every problem it met.

    >>> def fail(at, message):
    ...     raise ParseError(message, "m.bif", at, 1)
    >>> try:
    ...     after_refused([ParseError("P(A) sums to 0.3", "m.bif", 2, 1)], fail)(9, "late")
    ... except ParseErrors as both:
    ...     print(both)
    m.bif:2:1: P(A) sums to 0.3
    m.bif:9:1: late
    """
    def failing(at, message: str):
        try:
            fail(at, message)
        except ParseError as error:
            raise (ParseErrors(in_file_order([*refused, error])) if refused
                   else error) from None

    return failing


def in_file_order(errors: list[ParseError]) -> list[ParseError]:
    """``errors`` sorted by line, then column.

    >>> [e.line for e in in_file_order([ParseError("b", "f", 9, 1), ParseError("a", "f", 2, 5)])]
    [2, 9]
    """
    return sorted(errors, key=lambda e: (e.line or 0, e.column or 0))


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
    :meth:`~bbn.model.network.Network.assemble`) on anything unusual: the reader then builds the
    network one variable at a time, which reports each problem where it is in the file."""


def fast_or_located(fast: Callable[[], Network], located: Callable[[], Network]) -> Network:
    """The skeleton of every reader: the network ``fast()`` builds at once, or, when it
    raises :class:`Retry` or a :class:`~bbn.core.errors.BBNError` (anything unusual, a bad
    table...), the one ``located()`` builds a piece at a time, which raises each problem
    as a ``file:line:column`` error where it is. A valid file pays for the fast path only;
    the located reader runs on the rare file with a problem (or an unusual layout).

    >>> def fast():
    ...     raise Retry
    >>> fast_or_located(fast, lambda: "read with positions")
    'read with positions'
    """
    try:
        return fast()
    except (Retry, BBNError):
        return located()

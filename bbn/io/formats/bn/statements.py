"""The statements of a ``.bn`` file as read (with the offset of every name, for error
messages), and the fast scanner that reads each well-formed statement in one
regular-expression match.

:func:`statements_at` reads statements from an offset up to the first one that is not
well formed in the common layout; :func:`rows_at` and :func:`numbers_at` do the same for
the rows and numbers of a table body. The grammar (:mod:`bbn.io.formats.bn.grammar`) uses
them for every run of well-formed text and reads the rest token by token.

>>> end, found = statements_at("variable R { yes, no }  P(R) = 0.2, 0.8", 0)
>>> [type(s).__name__ for s in found], found[1].numbers.text
(['Variable', 'Table'], '0.2, 0.8')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bbn.io.formats._text import unquote
from bbn.io.formats.bn.lexicon import (
    KEY,
    NAME,
    NAME_RE,
    NORMAL_RE,
    NUMBER_RE,
    NUMBERS,
    QUOTED,
    ROW_RE,
    SEPARATOR_RE,
    UNESCAPE,
    WS,
)


@dataclass
class Name:
    value: str
    loc: int


@dataclass
class Numbers:
    text: str
    loc: int
    normal: bool = False  # N(mean, variance): ``text`` is "mean, variance"


@dataclass
class Row:
    key: list[str]   # the parent states
    key_text: str    # ... as written at key_loc (their positions are found on error only)
    key_loc: int
    numbers: Numbers

    def state_loc(self, i: int) -> int:
        return scan_key(self.key_text, self.key_loc)[i].loc


@dataclass
class Rows:
    rows: list[Row]


@dataclass
class NetworkName:
    name: Name


@dataclass
class Variable:
    name: Name
    description: Name | None
    states: list[Name]      # none for a Gaussian
    gaussian: bool = False


@dataclass
class Table:
    loc: int
    variable: Name
    parents: list[Name]
    numbers: Numbers | None = None  # P(X | ...) = p, p, ...
    rows: list[Row] | None = None   # P(X | ...) { key: p, p ... }
    end: int = 0                     # where its '}' is (a missing row is reported there)
    compact: Name | None = None      # P(X | ...) noisy-or { parent: p ... leak: q }


@dataclass
class Decision:
    """``decision NAME(known, ...) ["description"] { option, ... }``."""

    name: Name
    parents: list[Name]
    description: Name | None
    states: list[Name]


@dataclass
class Utility:
    """``utility NAME(parents) = numbers`` or ``{ key: numbers ... }`` (the key: every
    parent's state but the last's; the numbers: one per state of the last parent)."""

    loc: int
    name: Name
    parents: list[Name]
    numbers: Numbers | None = None
    rows: list[Row] | None = None
    end: int = 0


class Problem(Exception):
    """A mistake found while parsing, at a position in the text (becomes a ParseError)."""

    def __init__(self, message: str, loc: int):
        super().__init__(message)
        self.message = message
        self.loc = loc


def unquote_name(text: str, loc: int) -> str:
    """A name or description as written at ``loc`` (quoted or bare) without its quotes and
    escapes; an unknown escape raises :class:`Problem` at its backslash."""
    if not text.startswith('"'):  # most names: no closure made
        return text

    def unknown(char: str, offset: int) -> str:
        raise Problem(f"unknown escape '\\{char}' in a quoted string (the escapes are "
                      '\\" \\\\ \\n \\t \\r)', loc + offset)

    return unquote(text, UNESCAPE, unknown)


def scan_key(text: str, loc: int) -> list[Name]:
    """The names of a row key ``a, "b c", d`` (already matched by ``KEY``)."""
    names, pos = [], 0
    while True:
        match = NAME_RE.match(text, pos)
        names.append(Name(unquote_name(match.group(), loc + pos), loc + pos))
        separator = SEPARATOR_RE.match(text, match.end())
        if separator is None:
            return names
        pos = separator.end()


def split_key(text: str, loc: int) -> list[str]:
    if '"' in text:
        return [name.value for name in scan_key(text, loc)]
    return [part.strip() for part in text.split(",")]  # the common case, fast


def number_positions(numbers: Numbers) -> list[tuple[str, int]]:
    """Each number of a block with its position (for error messages only)."""
    found, pos = [], 0
    while True:
        match = NUMBER_RE.match(numbers.text, pos)
        found.append((match.group(), numbers.loc + pos))
        separator = SEPARATOR_RE.match(numbers.text, match.end())
        if separator is None:
            return found
        pos = separator.end()


def number_strings(numbers: Numbers) -> list[str]:
    return numbers.text.split(",")  # float() ignores the whitespace around each part


_NUMBER_RUN_RE = re.compile(r"[0-9eE.+\-][0-9eE.+\-, \t\r\n]*(?<=[0-9eE.+\-])")
_NUMBERS_RE = re.compile(NUMBERS)
_AFTER_RUN_RE = re.compile(r"[\w.+\-,]")  # what may not follow a run that settles it


def numbers_at(text: str, loc: int) -> tuple[int, Numbers] | None:
    """A comma-separated list of numbers starting at ``loc``: (its end, the block).

    A run of number characters split at the commas, each part checked by ``float()``, is
    several times faster than the regular expression ``NUMBERS``, which is used when the
    run does not settle it (a malformed number, or a row key after the last number).
    """
    run = _NUMBER_RUN_RE.match(text, loc)
    if run is not None and not _AFTER_RUN_RE.match(text, run.end()):
        try:
            for part in run.group().split(","):
                float(part)  # the same numbers NUMBER accepts, given the run's characters
            return run.end(), Numbers(run.group(), loc)
        except ValueError:
            pass
    precise = _NUMBERS_RE.match(text, loc)
    return None if precise is None else (precise.end(), Numbers(precise.group(), loc))


def rows_at(text: str, loc: int) -> tuple[int, list[Row]]:
    """The well-formed rows of a table body from ``loc`` on, one regular-expression match
    each, and where they stop."""
    rows = []
    while (match := ROW_RE.match(text, loc)) is not None:
        key, key_loc = match.group("key"), match.start("key")
        numbers = (Numbers(match.group("numbers"), match.start("numbers"))
                   if match.group("numbers") is not None
                   else Numbers(*inside(match, "normal"), normal=True))
        rows.append(Row(split_key(key, key_loc), key, key_loc, numbers))
        loc = match.end()
    return loc, rows


def inside(match: re.Match, group: str = "inside") -> tuple[str, int]:
    """The "mean, variance" of an N(...) match, and where it starts."""
    return match.group(group), match.start(group)



# by scan_key, which unquotes them and records their positions).
_END_OF_WORD = r"(?![\w.+\-])"  # as pp.Keyword: "variables" is not "variable"
_NETWORK_RE = re.compile(f"network{_END_OF_WORD}{WS}(?P<name>{NAME}){WS}")
_VARIABLE_RE = re.compile(
    f"variable{_END_OF_WORD}{WS}(?P<name>{NAME}){WS}(?:(?P<description>{QUOTED}){WS})?"
    f"(?:\\{{{WS}(?P<states>{KEY}){WS}\\}}|(?P<gaussian>gaussian{_END_OF_WORD})){WS}")
#: The compact tables a family may be written as (rows keyed by parent names).
COMPACT_KINDS = ("noisy-or", "noisy-and", "noisy-max", "logistic", "softmax")
_COMPACT_RE = re.compile(f"(?P<kind>{'|'.join(COMPACT_KINDS)}){_END_OF_WORD}{WS}")
_HEADER_RE = re.compile(
    f"P{_END_OF_WORD}{WS}\\({WS}(?P<name>{NAME}){WS}"
    f"(?:\\|{WS}(?P<parents>{KEY}){WS})?\\){WS}")
_DECISION_RE = re.compile(
    f"decision{_END_OF_WORD}{WS}(?P<name>{NAME}){WS}(?:\\({WS}(?P<parents>{KEY})?{WS}\\){WS})?"
    f"(?:(?P<description>{QUOTED}){WS})?\\{{{WS}(?P<states>{KEY}){WS}\\}}{WS}")
_UTILITY_RE = re.compile(
    f"utility{_END_OF_WORD}{WS}(?P<name>{NAME}){WS}\\({WS}(?P<parents>{KEY})?{WS}\\){WS}")
WS_RE = re.compile(WS)
_SPACE_RE = re.compile(f"{WS}(?:;{WS})?")  # between statements: an optional ';'


def _statement_at(text: str, loc: int) -> tuple[int, object] | None:
    """The statement at ``loc`` when it is well formed in the common layout, and where the
    next one starts; None otherwise (the token-by-token grammar then reads it)."""
    char = text[loc:loc + 1]
    if char == "v" and (match := _VARIABLE_RE.match(text, loc)):
        description, gaussian = match.group("description"), match.group("gaussian")
        statement = Variable(
            scan_key(match.group("name"), match.start("name"))[0],
            None if description is None else Name(unquote_name(description, match.start(
                "description")), match.start("description")),
            [] if gaussian else scan_key(match.group("states"), match.start("states")),
            gaussian=bool(gaussian))
        end = match.end()
    elif char == "P" and (match := _HEADER_RE.match(text, loc)):
        parents = match.group("parents")
        statement = Table(loc, scan_key(match.group("name"), match.start("name"))[0],
                           [] if parents is None else scan_key(parents, match.start("parents")))
        end = match.end()
        compact = _COMPACT_RE.match(text, end)
        if compact is not None:
            if parents is None or not text.startswith("{", compact.end()):
                return None  # the grammar reports it
            statement.compact = Name(compact.group("kind"), compact.start())
            end = compact.end()
        if text.startswith("=", end):
            if compact is not None:
                return None
            start = WS_RE.match(text, end + 1).end()
            normal = NORMAL_RE.match(text, start)
            found = (numbers_at(text, start) if normal is None else
                     (normal.end(), Numbers(*inside(normal), normal=True)))
            if found is None:
                return None
            end, statement.numbers = found
            if text.startswith(",", WS_RE.match(text, end).end()):
                return None  # a stray ',' after the numbers: the grammar reports it
        elif text.startswith("{", end):
            if parents is None:
                return None  # rows for a root: the grammar reports it
            end, statement.rows = rows_at(text, WS_RE.match(text, end + 1).end())
            if not text.startswith("}", end):
                return None
            statement.end = end
            end += 1
    elif char == "d" and (match := _DECISION_RE.match(text, loc)):
        description, parents = match.group("description"), match.group("parents")
        statement = Decision(
            scan_key(match.group("name"), match.start("name"))[0],
            [] if parents is None else scan_key(parents, match.start("parents")),
            None if description is None else Name(unquote_name(description, match.start(
                "description")), match.start("description")),
            scan_key(match.group("states"), match.start("states")))
        end = match.end()
    elif char == "u" and (match := _UTILITY_RE.match(text, loc)):
        parents = match.group("parents")
        statement = Utility(loc, scan_key(match.group("name"), match.start("name"))[0],
                            [] if parents is None else scan_key(parents,
                                                                match.start("parents")))
        end = match.end()
        if text.startswith("=", end):
            found = numbers_at(text, WS_RE.match(text, end + 1).end())
            if found is None:
                return None
            end, statement.numbers = found
            if text.startswith(",", WS_RE.match(text, end).end()):
                return None  # a stray ',' after the numbers: the grammar reports it
        elif text.startswith("{", end) and parents is not None:
            end, statement.rows = rows_at(text, WS_RE.match(text, end + 1).end())
            if not text.startswith("}", end):
                return None
            statement.end = end
            end += 1
        else:
            return None
    elif char == "n" and (match := _NETWORK_RE.match(text, loc)):
        statement = NetworkName(scan_key(match.group("name"), match.start("name"))[0])
        end = match.end()
    else:
        return None
    return _SPACE_RE.match(text, end).end(), statement


@dataclass
class Statements:
    statements: list


def statements_at(text: str, loc: int) -> tuple[int, list]:
    """The statements :func:`_statement_at` reads one after the other from ``loc``, and
    where they stop."""
    statements = []
    while (found := _statement_at(text, loc)) is not None:
        loc, statement = found
        statements.append(statement)
    return loc, statements


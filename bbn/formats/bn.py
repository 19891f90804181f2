"""The ``.bn`` model language: a small, hand-writable text format for Bayesian networks.

::

    # The back-ache network
    network "Back ache"
    variable C "the chair is uncomfortable" { T, F }
    variable W "is a worker" { T, F }
    P(C) = 0.8, 0.2
    P(W | C) {
      T: 0.9,  0.1
      F: 0.01, 0.99
    }
    variable weight "kg" gaussian     # continuous: N(mean, variance) per parent state
    P(weight | C) { T: N(70.0, 25.0); F: N(80.0, 36.0) }

The whole grammar, the quoting rules and the error messages are in ``docs/format.md``.
``read`` takes each well-formed statement in one regular-expression match (the same
lexical pieces as the grammar's); the first statement that is not well formed sends the
file to the pyparsing grammar, which reads token by token and says what is wrong where.
``write`` produces text that ``read`` turns back into an equal network (floats are
written with ``repr``, which round-trips every float64).

>>> net = read('variable R { yes, no }  P(R) = 0.2, 0.8', "<doc>")
>>> net.states("R"), net.cpt_array("R").tolist()
(('yes', 'no'), [0.2, 0.8])
>>> read(write(net), "<doc>") == net
True
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bbn.errors import ModelError, ParseError, ParseErrors, clip, suggest
from bbn.formats._text import Retry, check_table, error_at, name_from_source, plain_line_ends
from bbn.network import Network
from bbn.tables import bad_rows, normalized, row_tolerance

if TYPE_CHECKING:  # pyparsing loads with the grammar, on an ill-formed statement only
    import pyparsing as pp

# ----------------------------------------------------------------- lexical pieces
# The same regular expressions serve the pyparsing grammar and the fast scanners of table
# bodies, so the two accept exactly the same language. Comments are blanked out before
# parsing (see _blank_comments), so they are whitespace here.

_WS = r"[ \t\r\n]*"
_QUOTED = r'"(?:[^"\\\n]|\\.)*"'
#: an unquoted name or state: letters (any script), digits and _ . + -
_PLAIN = r"[\w.+\-]+"
_NAME = f"(?:{_QUOTED}|{_PLAIN})"
#: a number must not run into a name character: "0.5x" is an error, not 0.5 then x
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?![\w.+\-])"
_NUMBERS = f"{_NUMBER}(?:{_WS},{_WS}{_NUMBER})*"
_KEY = f"{_NAME}(?:{_WS},{_WS}{_NAME})*"


def _normal(group: str) -> str:
    """N(mean, variance), the two numbers in group ``group``: a Gaussian's parameters."""
    return f"N{_WS}\\({_WS}(?P<{group}>{_NUMBER}{_WS},{_WS}{_NUMBER}){_WS}\\)"


#: a row whose numbers end in a stray ',' is left to the token grammar, to report it
_ROW = (f"(?P<key>{_KEY}){_WS}:{_WS}(?:(?P<numbers>{_NUMBERS})|{_normal('normal')})"
        f"(?!{_WS},){_WS}(?:;{_WS})?")

_PLAIN_RE = re.compile(_PLAIN)
_QUOTED_RE = re.compile(_QUOTED)
_NAME_RE = re.compile(_NAME)
_NUMBER_RE = re.compile(_NUMBER)
_SEPARATOR_RE = re.compile(f"{_WS},{_WS}")
_ROW_RE = re.compile(_ROW)
_NORMAL_RE = re.compile(_normal("inside"))
_QUOTED_OR_COMMENT_RE = re.compile(f"{_QUOTED}|#[^\n]*")
_ESCAPE_RE = re.compile(r"\\(.)")

_UNESCAPE = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_ESCAPE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_NEEDS_ESCAPE_RE = re.compile(r'["\\\n\t\r]')


def quote(name: str) -> str:
    """``name`` as written in a ``.bn`` file: bare when it is a plain name, else quoted.

    >>> quote("Smoker"), quote("12+"), quote("Lung Parench"), quote('say "hi"')
    ('Smoker', '12+', '"Lung Parench"', '"say \\\\"hi\\\\""')
    """
    if _PLAIN_RE.fullmatch(name):
        return name
    return '"' + _NEEDS_ESCAPE_RE.sub(lambda m: _ESCAPE[m.group()], name) + '"'


# ------------------------------------------------------------ parsed statements
@dataclass
class _Name:
    value: str
    loc: int


@dataclass
class _Numbers:
    text: str
    loc: int
    normal: bool = False  # N(mean, variance): ``text`` is "mean, variance"


@dataclass
class _Row:
    key: list[str]   # the parent states
    key_text: str    # ... as written at key_loc (their positions are found on error only)
    key_loc: int
    numbers: _Numbers

    def state_loc(self, i: int) -> int:
        return _scan_key(self.key_text, self.key_loc)[i].loc


@dataclass
class _Rows:
    rows: list[_Row]


@dataclass
class _NetworkName:
    name: _Name


@dataclass
class _Variable:
    name: _Name
    description: _Name | None
    states: list[_Name]      # none for a Gaussian
    gaussian: bool = False


@dataclass
class _Table:
    loc: int
    variable: _Name
    parents: list[_Name]
    numbers: _Numbers | None = None  # P(X | ...) = p, p, ...
    rows: list[_Row] | None = None   # P(X | ...) { key: p, p ... }
    end: int = 0                     # where its '}' is (a missing row is reported there)


class _Problem(Exception):
    """A mistake found while parsing, at a position in the text (becomes a ParseError)."""

    def __init__(self, message: str, loc: int):
        super().__init__(message)
        self.message = message
        self.loc = loc


def _unquote(text: str, loc: int) -> str:
    if not text.startswith('"'):
        return text

    def replace(match: re.Match) -> str:
        char = match.group(1)
        if char not in _UNESCAPE:
            raise _Problem(f"unknown escape '\\{char}' in a quoted string (the escapes are "
                           '\\" \\\\ \\n \\t \\r)', loc + 1 + match.start())
        return _UNESCAPE[char]

    return _ESCAPE_RE.sub(replace, text[1:-1])


def _scan_key(text: str, loc: int) -> list[_Name]:
    """The names of a row key ``a, "b c", d`` (already matched by ``_KEY``)."""
    names, pos = [], 0
    while True:
        match = _NAME_RE.match(text, pos)
        names.append(_Name(_unquote(match.group(), loc + pos), loc + pos))
        separator = _SEPARATOR_RE.match(text, match.end())
        if separator is None:
            return names
        pos = separator.end()


def _split_key(text: str, loc: int) -> list[str]:
    if '"' in text:
        return [name.value for name in _scan_key(text, loc)]
    return [part.strip() for part in text.split(",")]  # the common case, fast


def _number_positions(numbers: _Numbers) -> list[tuple[str, int]]:
    """Each number of a block with its position (for error messages only)."""
    found, pos = [], 0
    while True:
        match = _NUMBER_RE.match(numbers.text, pos)
        found.append((match.group(), numbers.loc + pos))
        separator = _SEPARATOR_RE.match(numbers.text, match.end())
        if separator is None:
            return found
        pos = separator.end()


def _number_strings(numbers: _Numbers) -> list[str]:
    return numbers.text.split(",")  # float() ignores the whitespace around each part


def _blank_comments(text: str) -> str:
    """``text`` with each comment (``#`` to the end of the line, outside quotes) replaced
    by as many spaces: positions stay the same, and the grammar need not look for comments
    before every token (which took half the parsing time)."""
    if "#" not in text:
        return text
    return _QUOTED_OR_COMMENT_RE.sub(
        lambda m: m.group() if m.group().startswith('"') else " " * len(m.group()), text)


# ---------------------------------------------------------------------- grammar
# Elements are named after what a reader should have written; "<var>" and "<family>"
# are filled in from the statement being parsed when an error is reported.
def _grammar(context: dict) -> pp.ParserElement:
    import pyparsing as pp

    number_block, run = _tokens()

    def named(element: pp.ParserElement, expected: str) -> pp.ParserElement:
        return element.set_name(expected)

    def punct(char: str, expected: str) -> pp.ParserElement:
        return named(pp.Suppress(pp.Literal(char)), expected)

    def name_token(expected: str) -> pp.ParserElement:
        return named(pp.Regex(_NAME), expected).set_parse_action(
            lambda s, loc, t: _Name(_unquote(t[0], loc), loc))

    def numbers_token(expected: str) -> pp.ParserElement:
        block = named(number_block(), expected)
        # a ',' after the last number that _NUMBERS took means a malformed number follows
        numbers = block + pp.Opt(pp.Suppress(",") - named(pp.NoMatch(), "a number after ','"))
        normal = pp.Regex(_NORMAL_RE.pattern).set_parse_action(lambda s, loc, t: _Numbers(
            *_inside(_NORMAL_RE.match(s, loc)), normal=True))
        # one N(...) per row: "N(0, 1), N(2, 1)" is no table
        normal += pp.Opt(pp.Suppress(",") - named(pp.NoMatch(), "the end of the table after "
                                                  "N(mean, variance): a Gaussian with parents "
                                                  "takes one row per parent configuration"))
        return named(normal | numbers, expected)

    keyword_chars = pp.identbodychars + ".+-"

    def keyword(word: str) -> pp.ParserElement:
        return pp.Keyword(word, ident_chars=keyword_chars)

    def remember_variable(tokens):
        context["var"] = tokens[0].value
        context["family"] = f"P({tokens[0].value})"

    def remember_parents(tokens):
        names = ", ".join(t.value for t in tokens)
        context["family"] = f"P({context['var']} | {names})"

    # network NAME
    network = keyword("network").suppress() - name_token("a name for the network after "
                                                         "'network'")
    network.set_parse_action(lambda t: _NetworkName(t[0]))

    # variable NAME ["description"] { state, state, ... }
    variable_name = name_token("a variable name after 'variable'").add_parse_action(
        remember_variable)
    description = pp.Regex(_QUOTED).set_parse_action(lambda s, loc, t: _Name(
        _unquote(t[0], loc), loc))
    states = pp.Group(pp.DelimitedList(name_token("a state name of variable <var>")))
    discrete = (pp.Suppress("{") - states
                - punct("}", "',' or '}' to close the states of variable <var>"))
    kind = named(keyword("gaussian") | discrete, "'{' to open the states of variable <var> "
                                                 "(after an optional \"description\"), or "
                                                 "'gaussian'")
    variable = (keyword("variable").suppress() - variable_name
                - pp.Group(pp.Opt(description)) - kind)
    variable.set_parse_action(lambda t: _Variable(
        t[0], t[1][0] if len(t[1]) else None, [] if t[2] == "gaussian" else list(t[2]),
        gaussian=t[2] == "gaussian"))

    # P(X | A, B) [= numbers | { rows }]
    table_name = name_token("a variable name after 'P('").add_parse_action(remember_variable)
    parents = pp.DelimitedList(name_token("a parent name after '|' or ','"))
    parents.add_parse_action(remember_parents)
    header = (keyword("P").set_parse_action(lambda s, loc, t: loc)
              - punct("(", "'(' after 'P'") - table_name
              - pp.Group(pp.Opt(pp.Suppress("|") - parents))
              - punct(")", "'|' or ')' after 'P(<name>'")
              )

    def reject_root_rows(s, loc, tokens):
        if context["family"] == f"P({context['var']})":
            raise _Problem(f"{context['family']} has no parents, so its table is one row: "
                           f"write it as {context['family']} = p1, p2, ...", loc)

    open_rows = named(pp.Literal("{"), "'{'").set_parse_action(reject_root_rows).suppress()
    close_rows = named(pp.Literal("}").set_parse_action(lambda s, loc, t: loc),
                       "'}' to close the table of <family> (or another row)")

    # The fast path reads rows with one regular-expression match each (100 000 numbers
    # take a fraction of a second); where it stops short of the '}', the token-by-token
    # grammar below reads on, to say exactly what is wrong where.
    fast_rows = run(_rows_at, _Rows)
    key_names = (name_token("a parent state at the start of a row of <family>")
                 - pp.ZeroOrMore(pp.Suppress(",") - name_token("a parent state after ','")))
    key = pp.original_text_for(key_names)
    row = (key - punct(":", "',' or ':' after the parent states of a row of <family>")
           - numbers_token("the probabilities of <var> after ':' (or N(mean, variance) for "
                           "a Gaussian)")
           + pp.Opt(pp.Suppress(";")))
    row.set_parse_action(lambda s, loc, t: _Row(_split_key(t[0], loc), t[0], loc, t[1]))
    body = pp.ZeroOrMore(fast_rows | row).set_parse_action(lambda t: _Rows([
        r for item in t for r in (item.rows if isinstance(item, _Rows) else [item])]))
    rows = open_rows - body - close_rows
    flat = pp.Suppress("=") - numbers_token("the probabilities of <var> after '=' (or "
                                            "N(mean, variance) for a Gaussian)")
    table = header + pp.Opt(rows | flat)
    table.set_parse_action(_table_from_tokens)

    statement = (network | variable | table) + pp.Opt(pp.Suppress(";"))
    # Well-formed statements are read whole, one match each; the first that is not is left
    # to the token-by-token elements above, which say what is wrong where.
    model = pp.ZeroOrMore(run(_statements_at, _Statements) | statement) + named(
        pp.StringEnd(), "a statement: 'network', 'variable' or 'P(...)'")
    model.parse_with_tabs()  # keep columns in the caller's characters, not expanded tabs
    return model


_PER_THREAD = threading.local()


def _parser() -> tuple[pp.ParserElement, dict]:
    """The grammar and the context its error messages are filled from, built once per
    thread: building takes longer than reading a small model, and parsing writes to the
    context."""
    if not hasattr(_PER_THREAD, "parser"):
        context: dict = {}
        _PER_THREAD.parser = (_grammar(context), context)
    return _PER_THREAD.parser


_NUMBER_RUN_RE = re.compile(r"[0-9eE.+\-][0-9eE.+\-, \t\r\n]*(?<=[0-9eE.+\-])")
_NUMBERS_RE = re.compile(_NUMBERS)
_AFTER_RUN_RE = re.compile(r"[\w.+\-,]")  # what may not follow a run that settles it


def _numbers_at(text: str, loc: int) -> tuple[int, _Numbers] | None:
    """A comma-separated list of numbers starting at ``loc``: (its end, the block).

    A run of number characters split at the commas, each part checked by ``float()``, is
    several times faster than the regular expression ``_NUMBERS``, which is used when the
    run does not settle it (a malformed number, or a row key after the last number).
    """
    run = _NUMBER_RUN_RE.match(text, loc)
    if run is not None and not _AFTER_RUN_RE.match(text, run.end()):
        try:
            for part in run.group().split(","):
                float(part)  # the same numbers _NUMBER accepts, given the run's characters
            return run.end(), _Numbers(run.group(), loc)
        except ValueError:
            pass
    precise = _NUMBERS_RE.match(text, loc)
    return None if precise is None else (precise.end(), _Numbers(precise.group(), loc))


def _rows_at(text: str, loc: int) -> tuple[int, list[_Row]]:
    """The well-formed rows of a table body from ``loc`` on, one regular-expression match
    each, and where they stop."""
    rows = []
    while (match := _ROW_RE.match(text, loc)) is not None:
        key, key_loc = match.group("key"), match.start("key")
        numbers = (_Numbers(match.group("numbers"), match.start("numbers"))
                   if match.group("numbers") is not None
                   else _Numbers(*_inside(match, "normal"), normal=True))
        rows.append(_Row(_split_key(key, key_loc), key, key_loc, numbers))
        loc = match.end()
    return loc, rows


def _inside(match: re.Match, group: str = "inside") -> tuple[str, int]:
    """The "mean, variance" of an N(...) match, and where it starts."""
    return match.group(group), match.start(group)


@functools.cache
def _tokens() -> tuple[type, type]:
    """The grammar's two custom tokens, made with the grammar (pyparsing loads then)."""
    import pyparsing as pp

    class _NumberBlock(pp.Token):
        """A comma-separated list of numbers, as one token (a table may hold 100 000 of them)."""

        def __init__(self) -> None:
            super().__init__()
            self.mayIndexError = False

        def parseImpl(self, instring: str, loc: int, do_actions: bool = True):
            found = _numbers_at(instring, loc)
            if found is None:
                raise pp.ParseException(instring, loc, self.errmsg, self)
            return found

    class _Run(pp.Token):
        """A run of items (table rows, whole statements) that ``read_at(text, loc)`` reads fast
        — one regular-expression match each — as one token, ``wrap(items)``.

        ``read_at`` returns ``(end, items)``, stopping at the first text that is not a
        well-formed item; the token fails when there is none, and that text is left to the
        token-by-token grammar, which says what is wrong where.
        """

        def __init__(self, read_at, wrap) -> None:
            super().__init__()
            self.mayIndexError = False
            self.read_at, self.wrap = read_at, wrap

        def parseImpl(self, instring: str, loc: int, do_actions: bool = True):
            end, items = self.read_at(instring, loc)
            if not items:
                raise pp.ParseException(instring, loc, self.errmsg, self)
            return end, self.wrap(items)

    return _NumberBlock, _Run


# Whole statements in the common layout, one match each (the names inside are re-scanned
# by _scan_key, which unquotes them and records their positions).
_END_OF_WORD = r"(?![\w.+\-])"  # as pp.Keyword: "variables" is not "variable"
_NETWORK_RE = re.compile(f"network{_END_OF_WORD}{_WS}(?P<name>{_NAME}){_WS}")
_VARIABLE_RE = re.compile(
    f"variable{_END_OF_WORD}{_WS}(?P<name>{_NAME}){_WS}(?:(?P<description>{_QUOTED}){_WS})?"
    f"(?:\\{{{_WS}(?P<states>{_KEY}){_WS}\\}}|(?P<gaussian>gaussian{_END_OF_WORD})){_WS}")
_HEADER_RE = re.compile(
    f"P{_END_OF_WORD}{_WS}\\({_WS}(?P<name>{_NAME}){_WS}"
    f"(?:\\|{_WS}(?P<parents>{_KEY}){_WS})?\\){_WS}")
_WS_RE = re.compile(_WS)
_SPACE_RE = re.compile(f"{_WS}(?:;{_WS})?")  # between statements: an optional ';'


def _statement_at(text: str, loc: int) -> tuple[int, object] | None:
    """The statement at ``loc`` when it is well formed in the common layout, and where the
    next one starts; None otherwise (the token-by-token grammar then reads it)."""
    char = text[loc:loc + 1]
    if char == "v" and (match := _VARIABLE_RE.match(text, loc)):
        description, gaussian = match.group("description"), match.group("gaussian")
        statement = _Variable(
            _scan_key(match.group("name"), match.start("name"))[0],
            None if description is None else _Name(_unquote(description, match.start(
                "description")), match.start("description")),
            [] if gaussian else _scan_key(match.group("states"), match.start("states")),
            gaussian=bool(gaussian))
        end = match.end()
    elif char == "P" and (match := _HEADER_RE.match(text, loc)):
        parents = match.group("parents")
        statement = _Table(loc, _scan_key(match.group("name"), match.start("name"))[0],
                           [] if parents is None else _scan_key(parents, match.start("parents")))
        end = match.end()
        if text.startswith("=", end):
            start = _WS_RE.match(text, end + 1).end()
            normal = _NORMAL_RE.match(text, start)
            found = (_numbers_at(text, start) if normal is None else
                     (normal.end(), _Numbers(*_inside(normal), normal=True)))
            if found is None:
                return None
            end, statement.numbers = found
            if text.startswith(",", _WS_RE.match(text, end).end()):
                return None  # a stray ',' after the numbers: the grammar reports it
        elif text.startswith("{", end):
            if parents is None:
                return None  # rows for a root: the grammar reports it
            end, statement.rows = _rows_at(text, _WS_RE.match(text, end + 1).end())
            if not text.startswith("}", end):
                return None
            statement.end = end
            end += 1
    elif char == "n" and (match := _NETWORK_RE.match(text, loc)):
        statement = _NetworkName(_scan_key(match.group("name"), match.start("name"))[0])
        end = match.end()
    else:
        return None
    return _SPACE_RE.match(text, end).end(), statement


@dataclass
class _Statements:
    statements: list


def _statements_at(text: str, loc: int) -> tuple[int, list]:
    """The statements :func:`_statement_at` reads one after the other from ``loc``, and
    where they stop."""
    statements = []
    while (found := _statement_at(text, loc)) is not None:
        loc, statement = found
        statements.append(statement)
    return loc, statements


def _table_from_tokens(tokens) -> _Table:
    table = _Table(tokens[0], tokens[1], list(tokens[2]))
    if len(tokens) == 4:          # P(X) = numbers
        table.numbers = tokens[3]
    elif len(tokens) == 5:        # P(X | ...) { rows }, and where its '}' is
        table.rows, table.end = tokens[3].rows, tokens[4]
    return table


# ------------------------------------------------------------------------ reader
def read(text: str, source: str = "<string>", normalize: bool = False) -> Network:
    """Parse a ``.bn`` model; errors raise :class:`bbn.ParseError` at ``source:line:col``.
    ``normalize`` rescales every row of every table to sum 1.

    A syntax error stops the reader; mistakes of meaning (unknown names, bad rows...) are
    collected, and several of them raise :class:`ParseErrors`, which lists them all.

    A file without a ``network`` statement is named after the file (``chair.bn`` →
    ``chair``).
    """
    text = plain_line_ends(text.removeprefix("\ufeff"))
    blanked = _blank_comments(text)
    context = {"var": None, "family": None}
    try:
        end, statements = _statements_at(blanked, _WS_RE.match(blanked).end())
        if end < len(blanked):  # not every statement well formed: the grammar says where
            grammar, context = _parser()  # built on first need (it takes ~30 ms)
            context.update(var=None, family=None)
            statements = [s for item in grammar.parse_string(blanked, parse_all=False)
                          for s in (item.statements if type(item) is _Statements else [item])]
        try:
            return _assemble(statements, _Builder(text, source, normalize))
        except (Retry, ModelError):  # build step by step, collecting every mistake
            return _Builder(text, source, normalize).build(statements)
    except _grammar_errors() as error:
        raise _syntax_error(error, text, blanked, source, context) from None
    except _Problem as problem:
        raise error_at(text, source, problem.loc, problem.message) from None
    except _Problems as found:
        errors = [error_at(text, source, p.loc, p.message) for p in found.problems]
        if len(errors) == 1:
            raise errors[0] from None
        raise ParseErrors(errors, found.dropped) from None


def _grammar_errors() -> tuple[type, ...]:
    """pyparsing's error class once the grammar has run (before, nothing can raise it)."""
    pp = sys.modules.get("pyparsing")
    return (pp.ParseBaseException,) if pp is not None else ()


# numbers start only where no name character precedes, and are atomic: a run of 800 digits
# took 6 s (each start position retried every split of the digits)
# (possessive digits: with the lookahead after a number, no match needs them given back)
_ATOMIC_NUMBER = _NUMBER.replace("[0-9]+", "[0-9]++").replace("[0-9]*", "[0-9]*+")
_MISSING_COMMA_RE = re.compile(f"(?<![\\w.+\\-]){_ATOMIC_NUMBER}[ \\t]+"
                               f"(?P<second>{_ATOMIC_NUMBER})[ \\t]*\\Z")
# ... or any one character (a form feed or a U+2028 is no whitespace in .bn)
_FOUND_RE = re.compile(f'{_QUOTED}|"[^\\n]*|{_PLAIN}|[\\s\\S]')


def _found(text: str, loc: int) -> str:
    if loc >= len(text):
        return "the end of the file"
    return repr(clip(_FOUND_RE.match(text, loc).group(), 40))


def _syntax_error(error: pp.ParseBaseException, text: str, blanked: str, source: str,
                  context: dict) -> ParseError:
    """The ParseError for a pyparsing failure: what was expected (from the name of the
    element that failed, filled in from ``context``) and what was found instead."""
    loc = min(error.loc, len(text))
    if loc < len(text) and text[loc] == '"' and not _QUOTED_RE.match(text, loc):
        return error_at(text, source, loc,
                        "unterminated quoted string (a '\"' must close it on the same line)")
    expected = error.msg.removeprefix("Expected ")
    if context["var"] is not None:
        expected = (expected.replace("<var>", repr(context["var"]))
                    .replace("<name>", context["var"]).replace("<family>", context["family"]))
    # "0.9 0.1" reads as a number, then a statement or a row key "0.1": say so
    if expected.startswith("a statement") or expected.startswith("',' or ':'"):
        word = _PLAIN_RE.match(blanked, loc) if expected.startswith("a statement") else None
        end = len(blanked[:word.end() if word else loc].rstrip())  # end of the "0.1"
        missing = _MISSING_COMMA_RE.search(blanked, blanked.rfind("\n", 0, end) + 1, end)
        if missing is not None:
            return error_at(text, source, missing.start("second"), "expected ',' between two "
                            f"numbers, found {missing.group('second')!r}")
    return error_at(text, source, loc, f"expected {expected}, found {_found(text, loc)}")


# ------------------------------------------------------------- building the network
def _assemble(statements: list, builder: _Builder) -> Network:
    """The network of a model with no mistake, built at once with Network.assemble; Retry
    or ModelError on any mistake, which :meth:`_Builder.build` then reports where it is.
    ``builder`` converts the tables (its reports are only a signal here)."""
    names = [s.name.value for s in statements if type(s) is _NetworkName]
    if len(names) > 1:
        raise Retry
    states, descriptions, parents, tables = {}, {}, {}, {}
    for s in statements:
        if type(s) is _Variable:
            if s.name.value in states or s.gaussian:  # Gaussians: built one at a time
                raise Retry
            states[s.name.value] = [state.value for state in s.states]
            if s.description is not None:
                descriptions[s.name.value] = s.description.value
        elif type(s) is _Table:
            if s.variable.value in parents:
                raise Retry
            parents[s.variable.value] = [p.value for p in s.parents]
            if s.numbers is not None or s.rows is not None:
                tables[s.variable.value] = s
    net = Network.assemble(names[0] if names else name_from_source(builder.source), states,
                           parents, descriptions=descriptions)
    arrays = {variable: builder.table_array(net, table, check_rows=False)
              for variable, table in tables.items()}
    if builder.problems:
        raise Retry
    net.set_cpts(arrays, builder.normalize)  # the rows' one check; ModelError on a bad one
    return net


class _Problems(Exception):
    """The mistakes found by one phase of building the network."""

    def __init__(self, problems: list[_Problem], dropped: int):
        super().__init__(problems)
        self.problems = problems
        self.dropped = dropped


class _Builder:
    """Turns parsed statements into a Network, collecting mistakes with their position.

    Declarations, then parents, then tables: each phase reports every mistake it finds,
    and a phase with mistakes is the last one run (later ones would only echo them).
    """

    LIMIT = 20  # mistakes reported at most

    def __init__(self, text: str, source: str, normalize: bool = False):
        self.text = text
        self.source = source
        self.normalize = normalize  # rescale rows (check_rows does it)
        self.problems: list[_Problem] = []
        self.dropped = 0

    def line(self, loc: int) -> int:
        return self.text.count("\n", 0, loc) + 1  # as pyparsing's lineno

    def report(self, message: str, loc: int) -> None:
        if len(self.problems) < self.LIMIT:
            self.problems.append(_Problem(message, loc))
        else:
            self.dropped += 1

    def checkpoint(self) -> None:
        if self.problems:
            raise _Problems(self.problems, self.dropped)

    def build(self, statements: list) -> Network:
        names = [s.name for s in statements if isinstance(s, _NetworkName)]
        for name in names[1:]:
            self.report(f"the network is named twice (first at line {self.line(names[0].loc)}"
                        "; a file holds one 'network' statement)", name.loc)
        net = Network(names[0].value if names else name_from_source(self.source))
        declared: dict[str, _Variable] = {}
        for variable in (s for s in statements if isinstance(s, _Variable)):
            self.declare(net, variable, declared)
        self.checkpoint()
        # all parents first: setting a variable's parents would drop a table already set
        tables: dict[str, _Table] = {}
        for table in (s for s in statements if isinstance(s, _Table)):
            self.connect(net, table, tables)
        self.checkpoint()
        for table in tables.values():
            if table.numbers is None and table.rows is None:
                continue  # structure only
            array = self.table_array(net, table)
            if array is not None:
                try:
                    if net.is_gaussian(table.variable.value):
                        net.set_gaussian(table.variable.value, array[:, 0], array[:, 1])
                    else:
                        net.set_cpt(table.variable.value, array)
                except ModelError as error:  # anything set_cpt checks that we did not
                    self.report(str(error), table.loc)
        self.checkpoint()
        return net

    def declare(self, net: Network, variable: _Variable, declared: dict[str, _Variable]) -> None:
        name = variable.name.value
        if name in declared:
            self.report(f"variable {name!r} is declared twice (first at line "
                        f"{self.line(declared[name].name.loc)})", variable.name.loc)
            return
        seen: set[str] = set()
        for state in variable.states:
            if state.value in seen:
                self.report(f"variable {name!r} lists state {state.value!r} twice", state.loc)
            seen.add(state.value)
        if len(seen) < len(variable.states):
            return
        description = None if variable.description is None else variable.description.value
        try:
            if variable.gaussian:
                net.add_gaussian_variable(name, description=description)
            else:
                net.add_variable(name, [s.value for s in variable.states],
                                 description=description)
        except ModelError as error:  # an empty name or state ("")
            self.report(str(error), variable.name.loc)
            return
        declared[name] = variable

    def connect(self, net: Network, table: _Table, tables: dict[str, _Table]) -> None:
        name = table.variable.value
        if name not in net:
            self.report(f"table for undeclared variable {name!r}"
                        f"{suggest(name, net.variables)}", table.variable.loc)
            return
        if name in tables:
            self.report(f"a second P({name} ...) statement; the first is at line "
                        f"{self.line(tables[name].loc)} (one per variable)", table.loc)
            return
        seen: set[str] = set()
        fine = True
        for parent in table.parents:
            if parent.value not in net:
                self.report(f"unknown parent {parent.value!r} of {name!r}"
                            f"{suggest(parent.value, net.variables)}", parent.loc)
                fine = False
            elif parent.value in seen:
                self.report(f"parent {parent.value!r} of {name!r} is listed twice", parent.loc)
                fine = False
            seen.add(parent.value)
        if not fine:
            return
        try:
            net.set_parents(name, [p.value for p in table.parents])
        except ModelError as error:  # a cycle
            self.report(str(error), table.loc)
            return
        tables[name] = table

    def table_array(self, net: Network, table: _Table,
                    check_rows: bool = True) -> np.ndarray | None:
        """The table's numbers, shape (configurations, |X|); None after reporting mistakes.
        ``check_rows=False`` leaves the rows of a discrete table (and ``normalize``) to
        set_cpts, which checks all the tables of a file at once."""
        variable = table.variable.value
        gaussian = net.is_gaussian(variable)
        width = 2 if gaussian else net.cardinality(variable)
        configurations = math.prod(net.cardinality(p) for p in net.parents(variable))
        check_table([*map(net.cardinality, net.parents(variable)), width],
                    f"the table of {variable!r} ({len(net.parents(variable))} parents)",
                    self.text, self.source, table.loc)
        blocks = [table.numbers] if table.numbers is not None else [r.numbers for r in table.rows]
        wrong_kind = next((block for block in blocks if block.normal != gaussian), None)
        if wrong_kind is not None:
            self.report_kind(net, variable, wrong_kind)
            return None
        if table.numbers is None:
            found = self.rows_array(net, table, width)
            if found is None:
                return None
            array, spots = found
        elif gaussian and configurations > 1:
            self.report(f"{net.family_text(variable)}: a Gaussian with parents is written as "
                        "rows, one N(mean, variance) per parent configuration: "
                        f"{_family_header(net, variable)} {{ state: N(mean, variance) ... }}",
                        table.numbers.loc)
            return None
        else:
            parts = _number_strings(table.numbers)
            if len(parts) != configurations * width:
                self.report(_count_message(net, variable, len(parts), configurations),
                            _count_position(table.numbers, configurations * width))
                return None
            array = _floats(parts).reshape(configurations, width)
            spots = [(table.numbers, i * width) for i in range(configurations)]
        if gaussian:
            return array if self.check_normals(net, variable, array, spots) else None
        if not check_rows:
            return array
        return array if self.check_rows(net, variable, array, spots) else None

    def report_kind(self, net: Network, variable: str, numbers: _Numbers) -> None:
        """Report N(mean, variance) on a discrete variable, or probabilities on a Gaussian."""
        if numbers.normal:
            self.report(f"N(mean, variance) is for a Gaussian variable, and {variable!r} is "
                        f"discrete: {net.family_text(variable)} takes probabilities",
                        numbers.loc)
        else:
            self.report(f"{variable!r} is Gaussian: write N(mean, variance) where the "
                        "probabilities of a discrete variable would be", numbers.loc)

    def rows_array(self, net: Network, table: _Table,
                   width: int) -> tuple[np.ndarray, list[tuple[_Numbers, int]]] | None:
        """Place each keyed row (``width`` numbers) at its parent configuration; every one
        exactly once."""
        variable = table.variable.value
        parents = net.parents(variable)
        family = net.family_text(variable)
        index_of = [{s: i for i, s in enumerate(net.states(p))} for p in parents]
        shape = [net.cardinality(p) for p in parents]
        strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        placed: dict[int, _Row] = {}
        fine = True
        for row in table.rows:
            if len(row.key) != len(parents):
                self.report(f"a row of {family} needs {len(parents)} parent state(s) "
                            f"({', '.join(parents)}), got {len(row.key)}", row.key_loc)
                fine = False
                continue
            position = 0
            for i, (parent, states, stride, state) in enumerate(
                    zip(parents, index_of, strides, row.key)):
                if state not in states:
                    self.report(f"parent {parent!r} has no state {state!r}"
                                f"{suggest(state, states)}", row.state_loc(i))
                    position = -1
                    break
                position += stride * states[state]
            if position < 0:
                fine = False
            elif position in placed:
                self.report(f"two rows for {net.configuration_text(variable, position)} (the "
                            f"first at line {self.line(placed[position].key_loc)})",
                            row.key_loc)
                fine = False
            else:
                placed[position] = row
        configurations = math.prod(shape)
        if fine and len(placed) < configurations:
            first = next(p for p in range(configurations) if p not in placed)
            given = net.configuration_text(variable, first).split(" | ")[1][:-1]
            missing = configurations - len(placed)
            more = f" (and {missing - 1} more)" if missing > 1 else ""
            self.report(f"{family} has no row for {given}{more}", table.end)
            fine = False
        if not fine:
            return None
        rows = [placed[p] for p in range(configurations)]
        parts = [_number_strings(row.numbers) for row in rows]
        for position, (row, numbers) in enumerate(zip(rows, parts)):
            if len(numbers) != width:
                self.report(f"{net.configuration_text(variable, position)} needs {width} "
                            f"probabilities (one for each state of {variable!r}: "
                            f"{', '.join(net.states(variable))}), got {len(numbers)}",
                            _count_position(row.numbers, width))
                fine = False
        if not fine:
            return None
        array = _floats(list(itertools.chain.from_iterable(parts))).reshape(-1, width)
        return array, [(row.numbers, 0) for row in rows]

    def check_normals(self, net: Network, variable: str, array: np.ndarray,
                      spots: list[tuple[_Numbers, int]]) -> bool:
        """Every mean finite and every variance a finite number > 0; else report each bad
        one at its number."""
        fine = True
        for row in np.flatnonzero(~np.isfinite(array).all(axis=1) | (array[:, 1] <= 0)):
            (mean, mean_loc), (variance, variance_loc) = _number_positions(spots[row][0])
            where = net.configuration_text(variable, int(row)).replace(f"P({variable}",
                                                                      f"N({variable}", 1)
            if not np.isfinite(array[row, 0]):
                self.report(f"the mean {mean} of {where} is not a finite number", mean_loc)
            else:
                self.report(f"the variance {variance} of {where} must be a finite number > 0",
                            variance_loc)
            fine = False
        return fine

    def check_rows(self, net: Network, variable: str, array: np.ndarray,
                   spots: list[tuple[_Numbers, int]]) -> bool:
        """Every row a distribution (:func:`bbn.tables.bad_rows`); else report the first
        mistake of each bad row, at its number. Row i is written in block ``spots[i][0]``
        from its ``spots[i][1]``-th number on."""
        bad = bad_rows(array, self.normalize)
        positions: dict[int, list[tuple[str, int]]] = {}  # per block, found once
        for row in bad:
            block, first = spots[row.row]
            if id(block) not in positions:
                positions[id(block)] = _number_positions(block)
            numbers = positions[id(block)]
            where = net.configuration_text(variable, row.row)
            if row.entries:
                text, loc = numbers[first + row.entries[0]]
                kind = "negative" if row.reason == "negative" else "not a finite number"
                self.report(f"{text} in {where} is {kind}", loc)
            elif row.reason == "zero sum":
                self.report(f"{where} sums to {row.total!r}: only a row with a "
                            "positive sum can be normalised", numbers[first][1])
            else:
                self.report(f"{where} sums to {row.total!r}, not 1 (tolerance "
                            f"{row_tolerance(array.shape[1]):.2g})", numbers[first][1])
        if self.normalize and not bad:
            array[...] = normalized(array)
        return not bad


def _count_message(net: Network, variable: str, got: int, configurations: int) -> str:
    width = net.cardinality(variable)
    if not net.parents(variable):
        return (f"{net.family_text(variable)} needs {width} probabilities (one for each state: "
                f"{', '.join(net.states(variable))}), got {got}")
    return (f"{net.family_text(variable)} needs {configurations * width} numbers "
            f"({configurations} parent configurations × {width} states, the last parent "
            f"varying fastest), got {got}")


def _count_position(numbers: _Numbers, expected: int) -> int:
    """Where the first number too many is; the start of the block when there are too few."""
    positions = _number_positions(numbers)
    return positions[expected][1] if len(positions) > expected else numbers.loc


def _floats(parts: list[str]) -> np.ndarray:
    # float() per number: correctly rounded, so repr() -> float() round-trips exactly
    return np.fromiter(map(float, parts), dtype=float, count=len(parts))


# ------------------------------------------------------------------------ writer
def write(net: Network) -> str:
    """The network as ``.bn`` text: declarations first, then one table per variable.

    Names are quoted only when they need it, numbers are written with ``repr`` (exact
    round trip) and the rows of a table are aligned in columns, one row per parent
    configuration, the last parent varying fastest.
    """
    lines = [f"network {quote(net.name)}", ""] + _declarations(net)
    chunks = [_table_lines(net, v) if net.has_cpt(v) else [_family_header(net, v)]
              for v in net.variables if net.has_cpt(v) or net.parents(v)]
    previous: list[str] = ["", ""]  # a blank line after the declarations
    for chunk in chunks:
        if len(chunk) > 1 or len(previous) > 1:  # multi-line tables stand apart
            lines.append("")
        lines += chunk
        previous = chunk
    return "\n".join(lines) + "\n"


_ALIGN_LIMIT = 32  # wider names or descriptions are not padded, to keep lines short


def _declarations(net: Network) -> list[str]:
    names = [quote(v) for v in net.variables]
    descriptions = [_quote_description(net.description(v)) for v in net.variables]
    name_width = max([len(n) for n in names if len(n) <= _ALIGN_LIMIT], default=0)
    description_width = max([len(d) for d in descriptions if len(d) <= _ALIGN_LIMIT],
                            default=0)
    lines = []
    for variable, name, description in zip(net.variables, names, descriptions):
        head = name.ljust(name_width)
        if description_width:
            head += " " + description.ljust(description_width)
        if net.is_gaussian(variable):
            lines.append(f"variable {head} gaussian")
        else:
            lines.append(f"variable {head} {{ {', '.join(map(quote, net.states(variable)))} }}")
    return lines


def _quote_description(description: str | None) -> str:
    """A description in quotes (always quoted, so it is never taken for a name)."""
    if description is None:
        return ""
    return '"' + _NEEDS_ESCAPE_RE.sub(lambda m: _ESCAPE[m.group()], description) + '"'


def _family_header(net: Network, variable: str) -> str:
    parents = net.parents(variable)
    given = f" | {', '.join(quote(p) for p in parents)}" if parents else ""
    return f"P({quote(variable)}{given})"


def _table_lines(net: Network, variable: str) -> list[str]:
    header = _family_header(net, variable)
    parents = net.parents(variable)
    if net.is_gaussian(variable):
        array = np.stack(net.gaussian_parameters(variable), axis=-1)
        cells = np.array([f"N({mean!r}, {variance!r})" for mean, variance
                          in array.reshape(-1, 2).tolist()], dtype=object).reshape(-1, 1)
    else:
        array = net.cpt_array(variable)
        cells = np.array(list(map(repr, array.ravel().tolist())), dtype=object).reshape(
            -1, array.shape[-1])
    width = cells.shape[-1]
    if not parents:
        return [f"{header} = {', '.join(cells[0])}"]
    # pad every column but the last so numbers line up; keys end with ':' aligned
    widths = [max(map(len, cells[:, j])) + 1 for j in range(width - 1)]
    keys = [[quote(s) for s in net.states(p)] for p in parents]
    key_widths = [max(map(len, k)) + 1 for k in keys]
    lines = [header + " {"]
    for configuration, row in zip(itertools.product(*keys), cells):
        key = " ".join((state + ("," if i < len(parents) - 1 else ":")).ljust(key_widths[i])
                       for i, state in enumerate(configuration))
        numbers = [(value + ",").ljust(widths[j]) for j, value in enumerate(row[:-1])]
        lines.append(f"  {key} {' '.join(numbers + [row[-1]])}")
    lines.append("}")
    return lines

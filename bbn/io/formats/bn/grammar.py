"""The pyparsing grammar of the ``.bn`` language, which says what is wrong where.

A file whose statements are all well formed never reaches it (the scanner of
:mod:`bbn.io.formats.bn.statements` reads those); on the first statement that is not, the
grammar reads the file, still taking runs of well-formed statements and rows in one match
each, and token by token only the rest, so a syntax error names what was expected and
what was found at ``file:line:column``. It is built on first need (~30 ms, and pyparsing
is imported then), once per thread.

>>> from bbn.io.formats.bn import read
>>> read("variable C { T, F", "<doc>")  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
bbn.core.errors.ParseError: <doc>:1:18: expected ',' or '}' to close the states of variable 'C', ...
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from typing import TYPE_CHECKING

from bbn.core.errors import ParseError, clip
from bbn.io.formats._runs import run_token
from bbn.io.formats._text import error_at
from bbn.io.formats.bn.lexicon import NAME, NORMAL_RE, NUMBER, PLAIN, PLAIN_RE, QUOTED, QUOTED_RE
from bbn.io.formats.bn.statements import (
    COMPACT_KINDS,
    Decision,
    Name,
    NetworkName,
    Numbers,
    Problem,
    Row,
    Rows,
    Statements,
    Table,
    Utility,
    Variable,
    inside,
    numbers_at,
    rows_at,
    split_key,
    statements_at,
    unquote_name,
)

if TYPE_CHECKING:  # pyparsing loads with the grammar, on an ill-formed statement only
    import pyparsing as pp

# Elements are named after what a reader should have written; "<var>" and "<family>"
# are filled in from the statement being parsed when an error is reported.
def _grammar(context: dict) -> pp.ParserElement:
    import pyparsing as pp  # here, not at the top: start-up (``bbn query`` reads no grammar)

    number_block = _number_block()

    def named(element: pp.ParserElement, expected: str) -> pp.ParserElement:
        return element.set_name(expected)

    def punct(char: str, expected: str) -> pp.ParserElement:
        return named(pp.Suppress(pp.Literal(char)), expected)

    def name_token(expected: str) -> pp.ParserElement:
        return named(pp.Regex(NAME), expected).set_parse_action(
            lambda s, loc, t: Name(unquote_name(t[0], loc), loc))

    def numbers_token(expected: str) -> pp.ParserElement:
        block = named(number_block(), expected)
        # a ',' after the last number that NUMBERS took means a malformed number follows
        numbers = block + pp.Opt(pp.Suppress(",") - named(pp.NoMatch(), "a number after ','"))
        normal = pp.Regex(NORMAL_RE.pattern).set_parse_action(lambda s, loc, t: Numbers(
            *inside(NORMAL_RE.match(s, loc)), normal=True))
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
    network.set_parse_action(lambda t: NetworkName(t[0]))

    # variable NAME ["description"] { state, state, ... }
    variable_name = name_token("a variable name after 'variable'").add_parse_action(
        remember_variable)
    description = pp.Regex(QUOTED).set_parse_action(lambda s, loc, t: Name(
        unquote_name(t[0], loc), loc))
    states = pp.Group(pp.DelimitedList(name_token("a state name of variable <var>")))
    discrete = (pp.Suppress("{") - states
                - punct("}", "',' or '}' to close the states of variable <var>"))
    kind = named(keyword("gaussian") | discrete, "'{' to open the states of variable <var> "
                                                 "(after an optional \"description\"), or "
                                                 "'gaussian'")
    variable = (keyword("variable").suppress() - variable_name
                - pp.Group(pp.Opt(description)) - kind)
    variable.set_parse_action(lambda t: Variable(
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
            raise Problem(f"{context['family']} has no parents, so its table is one row: "
                           f"write it as {context['family']} = p1, p2, ...", loc)

    open_rows = named(pp.Literal("{"), "'{'").set_parse_action(reject_root_rows).suppress()
    close_rows = named(pp.Literal("}").set_parse_action(lambda s, loc, t: loc),
                       "'}' to close the table of <family> (or another row)")

    # The fast path reads rows with one regular-expression match each (100 000 numbers
    # take a fraction of a second); where it stops short of the '}', the token-by-token
    # grammar below reads on, to say exactly what is wrong where.
    fast_rows = run_token(rows_at, "a row", Rows)
    key_names = (name_token("a parent state at the start of a row of <family>")
                 - pp.ZeroOrMore(pp.Suppress(",") - name_token("a parent state after ','")))
    key = pp.original_text_for(key_names)
    row = (key - punct(":", "',' or ':' after the parent states of a row of <family>")
           - numbers_token("the probabilities of <var> after ':' (or N(mean, variance) for "
                           "a Gaussian)")
           + pp.Opt(pp.Suppress(";")))
    row.set_parse_action(lambda s, loc, t: Row(split_key(t[0], loc), t[0], loc, t[1]))
    body = pp.ZeroOrMore(fast_rows | row).set_parse_action(lambda t: Rows([
        r for item in t for r in (item.rows if isinstance(item, Rows) else [item])]))
    rows = open_rows - body - close_rows
    flat = pp.Suppress("=") - numbers_token("the probabilities of <var> after '=' (or "
                                            "N(mean, variance) for a Gaussian)")
    compact = named(pp.MatchFirst([keyword(k) for k in COMPACT_KINDS]), "a compact table")
    compact.set_parse_action(lambda s, loc, t: Name(t[0], loc))
    table = header + pp.Opt(compact - rows | rows | flat)
    table.set_parse_action(_table_from_tokens)

    # decision NAME[(known, ...)] ["description"] { option, ... }
    decision_name = name_token("a decision name after 'decision'").add_parse_action(
        remember_variable)
    known = pp.Group(pp.Opt(pp.Suppress("(") - pp.Opt(pp.DelimitedList(
        name_token("a variable known to decision <var>"))) - punct(
        ")", "',' or ')' after the variables known to decision <var>")))
    options = pp.Group(pp.DelimitedList(name_token("an option of decision <var>")))
    decision = (keyword("decision").suppress() - decision_name - known
                - pp.Group(pp.Opt(description))
                - punct("{", "'{' to open the options of decision <var> (after an optional "
                             "(known, ...) and \"description\")")
                - options - punct("}", "',' or '}' to close the options of decision <var>"))
    decision.set_parse_action(lambda t: Decision(t[0], list(t[1]),
                                                 t[2][0] if len(t[2]) else None, list(t[3])))

    # utility NAME(parents) = numbers | { key: numbers ... }
    utility_name = name_token("a utility name after 'utility'").add_parse_action(
        remember_variable)
    utility_parents = pp.Group(pp.Opt(pp.DelimitedList(
        name_token("a parent of utility <var>"))))
    utility_flat = pp.Suppress("=") - numbers_token("the values of utility <var> after '='")
    utility_rows = named(pp.Literal("{"), "'{'").suppress() - body - close_rows
    utility = (keyword("utility").set_parse_action(lambda s, loc, t: loc) - utility_name
               - punct("(", "'(' after the utility's name") - utility_parents
               - punct(")", "',' or ')' after the parents of utility <var>")
               - named(utility_flat | utility_rows,
                       "'=' or '{' after the parents of utility <var>"))
    utility.set_parse_action(_utility_from_tokens)

    statement = (network | variable | decision | utility | table) + pp.Opt(pp.Suppress(";"))
    # Well-formed statements are read whole, one match each; the first that is not is left
    # to the token-by-token elements above, which say what is wrong where.
    model = pp.ZeroOrMore(run_token(statements_at, "a statement", Statements) | statement) + named(
        pp.StringEnd(), "a statement: 'network', 'variable', 'P(...)', 'decision' or "
                        "'utility'")
    model.parse_with_tabs()  # keep columns in the caller's characters, not expanded tabs
    return model


_PER_THREAD = threading.local()


def _parser() -> tuple[pp.ParserElement, dict]:
    """The grammar and the context its error messages are filled from, built once per
    thread: building takes longer than reading a small model, and parsing writes to the
    context."""
    if not hasattr(_PER_THREAD, "parser"):
        context: dict = {"var": None, "family": None}
        _PER_THREAD.parser = (_grammar(context), context)
    return _PER_THREAD.parser


def parse(blanked: str) -> list:
    """Every statement of a file (its comments blanked), read by the grammar; a syntax
    error raises pyparsing's exception (see :func:`errors`, :func:`syntax_error`) or a
    :class:`~bbn.io.formats.bn.statements.Problem`."""
    grammar, context = _parser()  # built on first need (it takes ~30 ms)
    context.update(var=None, family=None)
    return [s for item in grammar.parse_string(blanked, parse_all=False)
            for s in (item.statements if type(item) is Statements else [item])]


@functools.cache
def _number_block() -> type:
    """The grammar's token for a list of numbers, made with the grammar (pyparsing loads
    then)."""
    import pyparsing as pp  # here, not at the top: start-up (``bbn query`` reads no grammar)

    class NumberBlock(pp.Token):
        """A comma-separated list of numbers, as one token (a table may hold 100 000 of them)."""

        def __init__(self) -> None:
            super().__init__()
            self.mayIndexError = False

        def parseImpl(self, instring: str, loc: int, do_actions: bool = True):
            found = numbers_at(instring, loc)
            if found is None:
                raise pp.ParseException(instring, loc, self.errmsg, self)
            return found

    return NumberBlock


def _table_from_tokens(tokens) -> Table:
    tokens = list(tokens)
    compact = tokens.pop(3) if len(tokens) == 6 else None  # P(X | ...) noisy-or { rows }
    table = Table(tokens[0], tokens[1], list(tokens[2]), compact=compact)
    if len(tokens) == 4:          # P(X) = numbers
        table.numbers = tokens[3]
    elif len(tokens) == 5:        # P(X | ...) { rows }, and where its '}' is
        table.rows, table.end = tokens[3].rows, tokens[4]
    return table



def _utility_from_tokens(tokens) -> Utility:
    utility = Utility(tokens[0], tokens[1], list(tokens[2]))
    if len(tokens) == 4:          # utility U(...) = numbers
        utility.numbers = tokens[3]
    else:                         # utility U(...) { rows }, and where its '}' is
        utility.rows, utility.end = tokens[3].rows, tokens[4]
    return utility


def errors() -> tuple[type, ...]:
    """pyparsing's error class once the grammar has run (before, nothing can raise it)."""
    pp = sys.modules.get("pyparsing")
    return (pp.ParseBaseException,) if pp is not None else ()


# numbers start only where no name character precedes, and are atomic: a run of 800 digits
# took 6 s (each start position retried every split of the digits)
# (possessive digits: with the lookahead after a number, no match needs them given back)
_ATOMIC_NUMBER = NUMBER.replace("[0-9]+", "[0-9]++").replace("[0-9]*", "[0-9]*+")
_MISSING_COMMA_RE = re.compile(f"(?<![\\w.+\\-]){_ATOMIC_NUMBER}[ \\t]+"
                               f"(?P<second>{_ATOMIC_NUMBER})[ \\t]*\\Z")
# ... or any one character (a form feed or a U+2028 is no whitespace in .bn)
_FOUND_RE = re.compile(f'{QUOTED}|"[^\\n]*|{PLAIN}|[\\s\\S]')


def _found(text: str, loc: int) -> str:
    if loc >= len(text):
        return "the end of the file"
    return repr(clip(_FOUND_RE.match(text, loc).group(), 40))


def syntax_error(error: pp.ParseBaseException, text: str, blanked: str,
                 source: str) -> ParseError:
    """The ParseError for a pyparsing failure: what was expected (from the name of the
    element that failed, filled in from the statement being parsed) and what was found
    instead."""
    context = _parser()[1]
    loc = min(error.loc, len(text))
    if loc < len(text) and text[loc] == '"' and not QUOTED_RE.match(text, loc):
        return error_at(text, source, loc,
                        "unterminated quoted string (a '\"' must close it on the same line)")
    expected = error.msg.removeprefix("Expected ")
    if context["var"] is not None:
        expected = (expected.replace("<var>", repr(context["var"]))
                    .replace("<name>", context["var"]).replace("<family>", context["family"]))
    # "0.9 0.1" reads as a number, then a statement or a row key "0.1": say so
    if expected.startswith("a statement") or expected.startswith("',' or ':'"):
        word = PLAIN_RE.match(blanked, loc) if expected.startswith("a statement") else None
        end = len(blanked[:word.end() if word else loc].rstrip())  # end of the "0.1"
        missing = _MISSING_COMMA_RE.search(blanked, blanked.rfind("\n", 0, end) + 1, end)
        if missing is not None:
            return error_at(text, source, missing.start("second"), "expected ',' between two "
                            f"numbers, found {missing.group('second')!r}")
    return error_at(text, source, loc, f"expected {expected}, found {_found(text, loc)}")


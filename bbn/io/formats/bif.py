"""BIF, the Bayesian Interchange Format (0.15) of the bnlearn repository and JavaBayes.

    network alarm {
    }
    variable CVP {
      type discrete [ 3 ] { LOW, NORMAL, HIGH };
      property description = "central venous pressure";
    }
    probability ( HYPOVOLEMIA ) {
      table 0.2, 0.8;
    }
    probability ( CVP | LVEDVOLUME ) {
      (LOW) 0.95, 0.04, 0.01;
      (NORMAL) 0.04, 0.95, 0.01;
      (HIGH) 0.01, 0.29, 0.70;
    }

A probability block gives P(X | P1..Pk) row by row, ``(p1, ..., pk) x1, ..., xm;`` in any
order (``default x1, ..., xm;`` covers the configurations not listed), or as one ``table``
line in which X varies slowest and the last parent fastest (JavaBayes' order: P(x1 | every
configuration), then P(x2 | ...), ...). Numbers and names are separated by commas,
whitespace or both; ``//`` and ``/* */`` are comments; ``property`` lines are read and
ignored, except ``property description = "...";`` in a variable block, which is the
variable's description. A name is a bare word (any characters but whitespace and
``,;{}()[]|"``) or a double-quoted string. A probability block with an empty body gives the
parents only (a structure-only model).

Reading is built for speed, in layers that each hand what they do not know to the next:

1. a whole file in the common layout (bare names; bodies of rows and ``default`` lines,
   or one ``table`` line) is one pyparsing element: one regular expression ``findall``
   over the blocks, keeping no positions; a body of rows is split by one regular
   expression that knows the row's width; the numbers of all the tables are converted by
   one numpy call, and the network is built and validated at once
   (:meth:`Network.assemble` with :class:`~bbn.model.network.PackedTables`);
2. a file in any other layout (quoted names, properties in a probability block, ...) is
   read by the full pyparsing grammar, in which runs of common blocks are still one
   regular expression each and only the rest goes token by token; its network is built
   at once too;
3. on any problem at all, the network is built one variable at a time from the blocks
   read with positions, so the first problem is reported as ``file:line:col: ...`` where
   it is.

>>> net = read("network n { } variable A { type discrete [2] { yes, no }; } "
...            "probability ( A ) { table 0.25, 0.75; }", "<doc>")
>>> net.cpt_array("A").tolist()
[0.25, 0.75]
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from graphlib import CycleError, TopologicalSorter
from typing import NamedTuple

import numpy as np
import pyparsing as pp

from bbn.core.errors import BBNError, FormatError, ParseError, ParseErrors, suggest
from bbn.core.memory import check_allocation
from bbn.io.formats._runs import run_token
from bbn.io.formats._text import (
    INTEGER,
    MAX_PARENTS,
    NUMBER,
    Located,
    Retry,
    after_refused,
    blank_comments,
    check_table,
    error_at,
    expected,
    fast_or_located,
    in_file_order,
    located,
    number_texts,
    plain_line_ends,
    unquote,
)
from bbn.model.network import Network, PackedTables

# Possessive quantifiers (*+, ++, ?+) never give back what they matched: names, numbers and
# separators cannot overlap, so no match needs it, and matching is a quarter faster.
_WORD = r'[^\s,;{}()\[\]|"]++'
_QUOTED = r'"(?:[^"\\\n]|\\.)*+"'
_PROPERTY = rf'property\b(?:{_QUOTED}|[^;"])*+;'
_LOOSE_NUMBER = r"[-+.0-9eE]++"
_SEPARATOR = r"(?:\s*+,\s*+|\s++)"
_WORDS = rf"{_WORD}(?:{_SEPARATOR}{_WORD})*+"
_LOOSE_NUMBERS = rf"{_LOOSE_NUMBER}(?:{_SEPARATOR}{_LOOSE_NUMBER})*+"

_NAME = re.compile(rf"{_QUOTED}|{_WORD}")
_BARE = re.compile(_WORD)
_BARE_LIST = re.compile(_WORDS)
# the common layout of a block, read in one match
_FAST_VARIABLE = (rf"variable\s++(?P<name>{_WORD})\s*+\{{\s*+type\s++discrete\s*+\[\s*+"
                  rf"(?P<count>{INTEGER})\s*+\]\s*+\{{\s*+(?P<states>(?:{_WORDS})?+)\s*+\}}\s*+;"
                  rf"(?P<properties>(?:\s*+{_PROPERTY})*+)\s*+\}}")
_TABLE_LINE = rf"\s*+table\s++(?P<table>{_LOOSE_NUMBERS})\s*+;\s*+"
_TABLE_BODY = re.compile(_TABLE_LINE)
_DEFAULT_LINE = re.compile(rf"(?<![^;\s])default\s++({_LOOSE_NUMBERS})\s*+;")
_FAST_PROBABILITY = (rf"probability\s*+\(\s*+(?P<child>{_WORD})\s*+(?:[|,]\s*+)?+"
                     rf"(?P<parents>(?:{_WORDS})?+)\s*+\)\s*+"
                     rf"\{{(?P<body>{_TABLE_LINE}|[^{{}}\"]*+)\}}")
# ... or the first character of anything else (group "other"; to the end in _PLAIN_FILE)
_FAST_BLOCK = re.compile(rf"\s*+(?:{_FAST_VARIABLE}|{_FAST_PROBABILITY}|(?P<other>\S))")
_PLAIN_FILE = re.compile(rf"\s*+(?:{_FAST_VARIABLE}|{_FAST_PROBABILITY}|(?P<other>\S[\s\S]*))")
_FAST_HEADER = re.compile(rf"\s*+(?:network\s++(?P<name>{_QUOTED}|{_WORD})\s*+\{{"
                          rf"(?:\s*+{_PROPERTY})*+\s*+\}})?")
_COMMENT = re.compile(rf"{_QUOTED}|//[^\n]*|/\*(?:.*?\*/|.*)", re.S)
_DESCRIPTION = re.compile(rf"property\s+description\s*=\s*({_QUOTED})\s*;")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


@functools.cache
def _rows(card: int) -> re.Pattern:
    """One row ``(key) x1, ..., x_card;`` with exactly ``card`` numbers; splitting a body
    by it leaves only whitespace between the rows when the body is rows and nothing else.

    The key is checked against the parent states afterwards (_plain_numbers). A number here
    is any run of ``[-+.0-9eE]`` (faster to match than NUMBER): within those characters,
    numpy's conversion accepts exactly what NUMBER does, and refuses the rest.
    """
    numbers = rf"{_LOOSE_NUMBER}(?:{_SEPARATOR}{_LOOSE_NUMBER}){{{card - 1}}}+"
    return re.compile(rf"\(([^()]*+)\)\s*+({numbers})\s*+;")


def _name(text: str, loc: int) -> Located:
    return located(unquote(text, _UNESCAPES), loc)


class _Variable(NamedTuple):
    name: str             # Located when read with positions (below, in _plain_blocks)
    count: int
    states: tuple[str, ...]
    description: str | None


class _Probability(NamedTuple):
    child: str            # names are Located when read with positions
    parents: list[str]
    offset: int           # where the body starts in the text (0 without positions)
    body: str
    table: str | None = None  # the numbers when the body is one 'table' line


class _Body(NamedTuple):
    """The entries of a probability body read by the token-level grammar: per row its
    parent states (located) and number tokens, the table and default lines, and where each
    starts: {"rows": [offsets], "table": offset, "default": offset}."""

    keys: list[list[Located]]
    rows: list[list[str]]
    table: list[str] | None
    default: list[str] | None
    where: dict


class _Family:
    """Prints as "P(X | A, B)"; formatted only when an error message needs it."""

    def __init__(self, net: Network, child: str):
        self.net, self.child = net, child

    def __str__(self) -> str:
        return self.net.family_text(self.child)


def _description(properties: str) -> str | None:
    """The text of the last ``property description = "...";`` among ``properties``."""
    found = _DESCRIPTION.findall(properties) if properties else None
    return unquote(found[-1], _UNESCAPES) if found else None


def _plain_blocks(text: str, loc: int) -> tuple[int, list]:
    """The variable and probability blocks in the common layout from ``loc`` on, one regular
    expression per block, up to the first block in any other layout (or the end); names
    remember their offsets, for error messages."""
    blocks = []
    for m in _FAST_BLOCK.finditer(text, loc):
        name, count, states, properties, child, parents, body, table, other = m.groups()
        if other is not None:
            return m.start(), blocks
        if name is not None:
            blocks.append(_Variable(located(name, m.start(1)), int(count),
                                    tuple(states.replace(",", " ").split()),
                                    _description(properties)))
        else:
            start = m.start(6)
            blocks.append(_Probability(
                located(child, m.start(5)),
                [located(n.group(), start + n.start()) for n in _NAME.finditer(parents)],
                m.start(7), body, table))
    return len(text), blocks


def _plain_file(text: str) -> tuple | None:
    """A whole file in the common layout, read by one ``findall`` and without positions
    (offsets are 0): (the network's name, then what _declarations gives); None for
    anything else (another layout, a count of states that is wrong, a name declared
    twice), which the full grammar reads."""
    header = _FAST_HEADER.match(text)
    declared, descriptions, definitions = {}, {}, {}
    # up to the trailing whitespace, which findall would try at every position
    for (name, count, states, properties, child, parents, body, table,
         _other) in _PLAIN_FILE.findall(text, header.end(), len(text.rstrip())):
        if name:
            states = tuple(states.replace(",", " ").split())
            if int(count) != len(states) or name in declared:
                return None
            declared[name] = states
            if properties and (description := _description(properties)) is not None:
                descriptions[name] = description
        elif child and child not in definitions:
            # tuple.__new__ makes the named tuple without its Python-level constructor
            definitions[child] = tuple.__new__(_Probability, (
                child, parents.replace(",", " ").split(), 0, body, table or None))
        else:
            return None
    return unquote(header["name"] or "network", _UNESCAPES), declared, descriptions, definitions


# ------------------------------------------------------------------ grammar
@functools.cache
def _grammar() -> tuple[pp.ParserElement, pp.ParserElement]:
    """(any file with positions, the entries of one probability body), built on first
    use (a file in the common layout needs neither: see :func:`_plain_file`)."""
    LBRACE, RBRACE, LPAR, RPAR, LBRACK, RBRACK, SEMI, COMMA, BAR = map(pp.Suppress,
                                                                       "{}()[];,|")
    name = pp.Regex(f"{_QUOTED}|{_WORD}").set_name("a name")
    name.set_parse_action(lambda s, loc, t: _name(t[0], loc))
    names = pp.Group(pp.Optional(name + pp.ZeroOrMore(pp.Optional(COMMA) + name)))
    prop = pp.Regex(_PROPERTY).set_name("'property ...;'")

    def variable(s: str, loc: int, t: pp.ParseResults) -> _Variable:
        types = [d for d in t[2] if not isinstance(d, str)]
        if len(types) != 1:
            what = "no 'type discrete [n] { ... };'" if not types else "two type declarations"
            raise pp.ParseFatalException(s, t[1].loc, f"variable {str(t[1])!r} has {what}")
        _, _, count, states = types[0]
        return _Variable(t[1], int(count), tuple(states),
                         _description(" ".join(d for d in t[2] if isinstance(d, str))))

    def probability(s: str, loc: int, t: pp.ParseResults) -> _Probability:
        line = _TABLE_BODY.fullmatch(t[3][1])
        return _Probability(t[1], list(t[2]), t[3][0], t[3][1], line and line["table"])

    network = (pp.Keyword("network") - name - LBRACE - pp.ZeroOrMore(prop)
               - RBRACE).set_parse_action(lambda t: str(t[1]))
    type_decl = pp.Group(pp.Keyword("type") - pp.Keyword("discrete") - LBRACK
                         - pp.Regex(INTEGER).set_name("the number of states") - RBRACK
                         - LBRACE - names - RBRACE - SEMI)
    variable_block = (pp.Keyword("variable") - name - LBRACE
                      - pp.Group(pp.ZeroOrMore(type_decl | prop)) - RBRACE).set_parse_action(
        variable)
    body = pp.Regex(rf'(?:[^{{}}"]|{_QUOTED})*').set_parse_action(
        lambda s, loc, t: [(loc, t[0])])
    probability_block = (pp.Keyword("probability") - LPAR - name - pp.Optional(BAR | COMMA)
                         - names - RPAR - LBRACE - body - RBRACE).set_parse_action(probability)
    end = pp.StringEnd().set_name("'variable', 'probability' or the end of the file")
    grammar = (pp.Optional(network, default="network")
               + pp.ZeroOrMore(run_token(_plain_blocks, "a variable or probability block")
                                 | variable_block | probability_block) + end)
    grammar.parse_with_tabs()

    number = pp.Regex(r"[^\s,;(){}]+").set_name("a number")

    def check_number(s: str, loc: int, t: pp.ParseResults) -> None:
        if not re.fullmatch(NUMBER, t[0]):
            raise pp.ParseFatalException(s, loc, f"malformed number {t[0]!r}")

    number.set_parse_action(check_number)
    numbers = pp.Group(number + pp.ZeroOrMore(pp.Optional(COMMA) + number))
    row = (LPAR - names - RPAR - numbers - SEMI).set_parse_action(
        lambda s, loc, t: ("row", loc, t[0], t[1]))
    keyword = (pp.Keyword("table") | pp.Keyword("default"))
    line = (keyword - numbers - SEMI).set_parse_action(
        lambda s, loc, t: (t[0], loc, None, t[1]))
    entry = (row | line | prop.copy().set_parse_action(lambda: [])).set_name(
        "a row '(parent states) numbers;', 'table numbers;', 'default numbers;' or "
        "'property ...;'")
    entries = pp.ZeroOrMore(entry) + pp.StringEnd().set_name("a row or '}'")
    entries.parse_with_tabs()
    return grammar, entries


# ------------------------------------------------------------------- reading
def read(text: str, source: str = "<string>", normalize: bool = False) -> Network:
    """Parse a BIF document into a :class:`Network`; errors name ``source:line:col``;
    ``normalize`` rescales every row of every table to sum 1.

    Parameters, result and errors are those of :func:`bbn.io.formats.loads` (the
    reader behind it for this format).

    Examples
    --------
    >>> net = read("variable A { type discrete [ 2 ] { a, b }; } "
    ...            "probability ( A ) { table 0.5, 0.6; }", "<doc>")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: <doc>:1:...: P(A) sums to 1.1, not 1 (tolerance 2e-06)...
    """
    if text[:1] == "\ufeff":  # a byte-order mark (Windows tools): a space keeps the columns
        text = " " + text[1:]
    text = plain_line_ends(text)
    if "//" in text or "/*" in text:
        text = blank_comments(text, _COMMENT, functools.partial(_refuse_unclosed, text, source))

    def with_positions() -> Network:  # another layout, or a problem: keep every position
        grammar, _ = _grammar()
        try:
            name, *blocks = grammar.parse_string(text)
        except pp.ParseBaseException as error:
            raise error_at(text, source, error.loc, expected(error)) from None
        return fast_or_located(
            lambda: _fast_network(name, *_declarations(blocks), text, source,
                                  bare='"' not in text, normalize=normalize),
            lambda: _located_network(name, blocks, text, source, normalize))

    plain = _plain_file(text)
    if plain is None:
        return with_positions()
    return fast_or_located(lambda: _fast_network(*plain, text, source, bare=True,
                                                 normalize=normalize), with_positions)


def _declarations(blocks: list) -> tuple[dict, dict, dict]:
    """({variable: its states}, {variable: its description}, {child: its probability
    block}) in file order; Retry if a count of states is wrong or a name is declared
    twice."""
    states, descriptions, definitions = {}, {}, {}
    for block in blocks:
        if type(block) is _Variable:
            if block.count != len(block.states) or block.name in states:
                raise Retry
            states[block.name] = block.states
            if block.description is not None:
                descriptions[block.name] = block.description
        elif block.child in definitions:
            raise Retry
        else:
            definitions[block.child] = block
    return states, descriptions, definitions


def _fast_network(name: str, states: dict, descriptions: dict, definitions: dict, text: str,
              source: str, bare: bool, normalize: bool = False) -> Network:
    """The network of a file with no problem, built at once; Retry or an error on any
    problem (which :func:`_located_network` then reports with its position). ``bare``: every name
    is a bare word (none was quoted), so a row key "a, b" can only mean states a and b."""
    parents = {}
    row_keys = None
    texts, order, unusual = [], [], []  # the plain blocks' numbers are converted at once
    for child, p in definitions.items():
        given = p.parents
        try:
            card = len(states[child])
            if not given:
                if p.table is not None and len(p.table.replace(",", " ").split()) == card:
                    texts.append(p.table)  # a root's table line: the common case
                    order.append(child)
                    continue
                configurations, keys = 1, _ROOT_KEYS
            elif bare and len(given) == 1:  # the keys are the parent's states
                keys = states[given[0]]
                configurations = len(keys)
            else:
                row_keys = row_keys or _RowKeys(bare)
                configurations, keys = _keys(row_keys, tuple(map(states.__getitem__, given)), p)
        except KeyError:  # an unknown variable
            raise Retry from None
        # too large: refused (with its position) when _located_network reads the block again
        check_allocation(configurations * card, f"the table of {child!r}")
        if len(given) > MAX_PARENTS:
            raise Retry
        if given:
            parents[child] = given
        try:
            numbers = _plain_numbers(p, card, configurations, keys)
        except Retry:
            unusual.append(p)
            continue
        if numbers is not None:
            texts.append(numbers)
            order.append(child)
    try:
        values = np.array(" ".join(texts).replace(",", " ").split(), dtype=float)
    except ValueError:  # a malformed number
        raise Retry from None
    if unusual:  # the token-level grammar reads these bodies, given the structure
        structure = Network.assemble(name, states, parents)
        tables = [values]
        for p in unusual:
            table = _table(structure, p.child, _slow_body(text, source, p),
                           _failing(text, source), p.offset)
            if table is not None:
                order.append(p.child)
                tables.append(table.reshape(-1))
        values = np.concatenate(tables)
    return Network.assemble(name, states, parents, PackedTables(order, values), descriptions,
                            normalize)


def _located_network(name: str, blocks: list, text: str, source: str, normalize: bool) -> Network:
    """The network one variable at a time; the first problem raises a located error."""
    net = Network(name)
    fail = _failing(text, source)
    for v in blocks:
        if isinstance(v, _Variable):
            if v.count != len(v.states):
                fail(v.name.loc, f"variable {str(v.name)!r} declares {v.count} states but "
                                 f"lists {len(v.states)}: {[str(s) for s in v.states]}")
            try:
                net.add_variable(v.name, v.states, description=v.description)
            except BBNError as error:
                fail(v.name.loc, str(error))
    definitions: dict[str, _Probability] = {}
    for p in blocks:
        if isinstance(p, _Probability):
            for v in (p.child, *p.parents):
                if v not in net:
                    fail(v.loc, f"unknown variable {str(v)!r}{suggest(v, net.variables)}")
            if p.child in definitions:
                first = text.count("\n", 0, definitions[p.child].child.loc) + 1
                fail(p.child.loc, f"a second probability block for {str(p.child)!r} (the "
                                  f"first is on line {first})")
            definitions[p.child] = p
    states = {v: net.states(v) for v in net.variables}
    row_keys = _RowKeys(bare=False)
    refused: list[ParseError] = []  # tables that are no distributions: every one
    fail = after_refused(refused, fail)  # a later problem is raised with them
    for p in _parents_first(definitions):
        try:
            net.set_parents(p.child, p.parents)
        except BBNError as error:
            fail(p.child.loc, str(error))
        table = _block_table(net, p, states, row_keys, text, source)
        if table is not None:
            try:
                net.set_cpt(p.child, table, normalize=normalize)
            except BBNError as error:
                refused.append(error_at(text, source, p.child.loc, str(error)))
    if refused:
        raise refused[0] if len(refused) == 1 else ParseErrors(in_file_order(refused))
    return net


def _parents_first(definitions: dict[str, _Probability]) -> list[_Probability]:
    """The blocks in an order with parents before children, so that no arc added to the
    network has to be checked against a cycle through existing children (file order when
    there is a cycle: the network then reports it)."""
    order = TopologicalSorter()
    for v in definitions:  # every block first: ties keep file order
        order.add(v)
    for v, p in definitions.items():
        order.add(v, *p.parents)
    try:
        return [definitions[v] for v in order.static_order() if v in definitions]
    except CycleError:
        return list(definitions.values())


def _refuse_unclosed(text: str, source: str, comment: re.Match) -> None:
    if comment[0].startswith("/*") and not comment[0].endswith("*/"):
        raise error_at(text, source, comment.start(), "comment '/*' is never closed")


def _failing(text: str, source: str):
    """fail(offset, message): raise the located error."""
    def fail(loc: int, message: str):
        raise error_at(text, source, loc, message)

    return fail


def _block_table(net: Network, p: _Probability, states: dict, row_keys: _RowKeys, text: str,
                 source: str) -> np.ndarray | None:
    """The table of a probability block (None if its body is empty); located errors."""
    parent_states = tuple(map(states.__getitem__, p.parents))
    card = len(states[p.child])
    check_table([*map(len, parent_states), card], f"the table of {str(p.child)!r} "
                f"({len(p.parents)} parents)", text, source, p.child.loc)
    try:
        numbers = _plain_numbers(p, card, *_keys(row_keys, parent_states, p))
        return None if numbers is None else _numbers(numbers).reshape(
            *map(len, parent_states), card)
    except Retry:
        return _table(net, p.child, _slow_body(text, source, p), _failing(text, source),
                      p.child.loc)


def _plain_numbers(p: _Probability, card: int, configurations: int,
                   keys: tuple[str, ...] | None) -> str | None:
    """The numbers of a body in the common layout — rows keyed by bare words, once each in
    any order, and a ``default`` line for the configurations not listed; or one ``table``
    line — as text in the table's order (parent configurations in row-major order, the
    last parent fastest; the child's states within each); None for an empty body; Retry
    on anything else.

    ``configurations`` and ``keys`` describe the parents (see _RowKeys; ``keys`` is None
    when the states are not all bare words).
    """
    if p.table is not None:
        tokens = p.table.replace(",", " ").split()
        if len(tokens) != card * configurations:
            raise Retry
        if configurations == 1:
            return p.table
        # JavaBayes order, the child slowest: configuration c's numbers are tokens[c::n]
        return " ".join(itertools.chain.from_iterable(
            tokens[c::configurations] for c in range(configurations)))
    body, default = p.body, None
    if "default" in body:  # a line for the configurations not listed
        line = _DEFAULT_LINE.search(body)
        if line is None or len(line[1].replace(",", " ").split()) != card:
            raise Retry
        body, default = body[:line.start()] + body[line.end():], line[1]
    # [text before row 1, its key, its numbers, text before row 2, ..., text after the rows]
    parts = _rows(card).split(body)
    found, numbers = parts[1::3], parts[2::3]
    if (keys is None or "".join(parts[0::3]).strip() or len(found) > configurations
            or len(found) < configurations and default is None):
        if found or default or body.strip():
            raise Retry
        return None
    if keys != tuple(found):  # rows in another order, spaced otherwise, or a default
        numbers = _ordered(found, numbers, keys, default)
    return " ".join(numbers)


def _ordered(found: list[str], numbers: list[str], keys: tuple[str, ...],
             default: str | None) -> list[str]:
    """The rows' numbers in the order of ``keys`` (``default`` for the keys not found).
    Keys spaced otherwise ("( a,b )", as pgmpy writes them) are respelled "a, b"; Retry
    unless each key is bare words naming one configuration, once."""
    rows = dict(zip(found, numbers))
    if len(rows) == len(found):
        ordered = list(map(rows.pop, keys, itertools.repeat(default)))
        if not rows and None not in ordered:
            return ordered
    rows = {}
    for key, row in zip(found, numbers):
        key = key.strip()
        if not _BARE_LIST.fullmatch(key):
            raise Retry
        rows[", ".join(key.replace(",", " ").split())] = row
    if len(rows) != len(found):  # a configuration given twice
        raise Retry
    ordered = list(map(rows.pop, keys, itertools.repeat(default)))
    if rows or None in ordered:  # a key that is not a configuration, or one missing
        raise Retry
    return ordered


_ROOT_KEYS = ("",)  # the one row key of a variable without parents
_FEW_KEYS = 4096  # row keys cheap to make (~0.3 MB) whatever the body holds


def _keys(row_keys: _RowKeys, parent_states: tuple, p: _Probability) -> tuple:
    """(configurations, row keys or None) for block ``p``: the keys (one string per parent
    configuration) are made only when there are few (_FEW_KEYS) or the body can list a row
    for each — a 'default' line or a 'table' line over 2**30 configurations must not spell
    them all (that took 3.4 GB); such bodies are read by _table, with numpy."""
    configurations = math.prod(map(len, parent_states))
    if p.table is not None or configurations > max(p.body.count(";"), _FEW_KEYS):
        return configurations, None
    return row_keys[parent_states]


class _RowKeys(dict):
    """Per tuple of parent state lists, (their number of configurations, the row keys
    "a, b" of the configurations in order, the last parent fastest), made on first use.
    Rows are found by their keys as spelled, so only when every state is a bare word
    (``bare``, or checked): then "a, b" cannot mean anything else."""

    def __init__(self, bare: bool):
        self.bare = bare
        self[()] = (1, _ROOT_KEYS)

    def __missing__(self, parent_states: tuple[tuple[str, ...], ...]):
        if not (self.bare or all(_BARE.fullmatch(s) for states in parent_states
                                 for s in states)):
            found = math.prod(map(len, parent_states)), None
        elif len(parent_states) == 1:
            found = len(parent_states[0]), parent_states[0]
        else:
            keys = tuple(map(", ".join, itertools.product(*parent_states)))
            found = len(keys), keys
        self[parent_states] = found
        return found


def _numbers(text: str) -> np.ndarray:
    """Numbers separated by commas, whitespace or both; Retry if one is malformed."""
    try:
        return np.array(text.replace(",", " ").split(), dtype=float)
    except ValueError:
        raise Retry from None


def _slow_body(text: str, source: str, p: _Probability) -> _Body:
    """Parse a body with the token-level grammar, which says exactly what is wrong."""
    _, grammar = _grammar()
    try:
        entries = grammar.parse_string(p.body, parse_all=True)
    except pp.ParseBaseException as error:
        raise error_at(text, source, p.offset + error.loc, expected(error)) from None
    keys, rows, where, table, default = [], [], {"rows": []}, None, None
    for kind, loc, key, numbers in entries:
        if kind == "row":
            for state in key:
                state.loc += p.offset
            keys.append(list(key))
            rows.append(list(numbers))
            where["rows"].append(p.offset + loc)
        elif (table if kind == "table" else default) is not None:
            raise error_at(text, source, p.offset + loc, f"a second '{kind}' line")
        elif kind == "table":
            table, where["table"] = list(numbers), p.offset + loc
        else:
            default, where["default"] = list(numbers), p.offset + loc
    return _Body(keys, rows, table, default, where)


def _table(net: Network, child: str, body: _Body, fail, at: int) -> np.ndarray | None:
    """The table a body read by the token-level grammar gives, shape (|P1|, ..., |Pk|,
    |child|); None if the body is empty. A problem raises a located error (``fail``); one
    about the whole block points at offset ``at``."""
    def problem(where: str, index: int | None, message: str):
        fail(body.where[where] if index is None else body.where[where][index], message)

    card = net.cardinality(child)
    parents = net.parents(child)
    shape = [net.cardinality(p) for p in parents]
    configurations = math.prod(shape)
    family = _Family(net, child)
    if body.table is not None:
        if body.keys or body.default is not None:
            problem("table", None, f"the block of {family} mixes 'table' with per-configuration "
                                   "rows")
        if len(body.table) != card * configurations:
            problem("table", None, f"the 'table' of {family} has {len(body.table)} numbers, "
                                   f"expected {card * configurations}")
        values = np.array(body.table, dtype=float)
        # JavaBayes order: the child varies slowest
        return values.reshape(card, configurations).T.reshape(*shape, card)
    if not body.keys and body.default is None:
        return None
    for i, row in enumerate(body.rows):
        if len(row) != card:
            problem("rows", i, f"this row of {family} has {len(row)} numbers, expected {card}")
    values = np.array(list(itertools.chain.from_iterable(body.rows)), dtype=float)
    index = _row_index(net, child, body, problem, fail)
    result = np.empty((configurations, card))
    result[index] = values.reshape(len(body.rows), card)
    filled = np.zeros(configurations, dtype=bool)
    filled[index] = True
    if np.count_nonzero(filled) != len(index):
        first: dict[int, int] = {}
        for i, k in enumerate(index):
            if k in first:
                problem("rows", i, f"a second row of {family} for the same parent states "
                                   f"(the first is row {first[k] + 1} of the block)")
            first[k] = i
    if not filled.all():
        if body.default is None:
            missing = np.unravel_index(int(np.argmin(filled)), shape)
            count = configurations - np.count_nonzero(filled)
            others = f" and {count - 1} other configuration(s)" if count > 1 else ""
            fail(at, f"no row for "
                     f"{net.configuration_text(child, tuple(int(i) for i in missing))}"
                     f"{others}, and no 'default' row")
        if len(body.default) != card:
            problem("default", None, f"the 'default' row of {family} has {len(body.default)} "
                                     f"numbers, expected {card}")
        result[~filled] = np.array(body.default, dtype=float)
    return result.reshape(*shape, card)


def _row_index(net: Network, child: str, body: _Body, problem, fail) -> list[int]:
    """The flat configuration index (last parent fastest) of each row's parent states."""
    parents = net.parents(child)
    index = []
    for i, key in enumerate(body.keys):
        if len(key) != len(parents):
            problem("rows", i, f"this row of {_Family(net, child)} names {len(key)} "
                               f"parent state(s), expected {len(parents)} (one for each of "
                               f"{', '.join(parents)})")
        position = 0
        for parent, state in zip(parents, key):
            choices = net.states(parent)
            if state not in choices:
                fail(state.loc, f"parent {parent!r} has no state {str(state)!r}"
                                f"{suggest(state, choices)}")
            position = position * len(choices) + choices.index(state)
        index.append(position)
    return index


# ------------------------------------------------------------------- writing
def write(net: Network) -> str:
    """The network as BIF text; numbers are written exactly, in fixed-point
    (:func:`~bbn.io.formats._text.number_texts`).

    Rows are listed for every parent configuration (last parent fastest); a root's table
    is one ``table`` line; a variable without a table gets an empty probability block.

    The writer behind :func:`bbn.io.formats.dumps` for this format; it raises
    FormatError for a name that BIF cannot write (one holding a '"' or a control character).

    Examples
    --------
    >>> print(write(read("variable A { type discrete [2] { a, b }; } "
    ...                  "probability ( A ) { table 0.25, 0.75; }")), end="")
    network network {
    }
    variable A {
      type discrete [ 2 ] { a, b };
    }
    probability ( A ) {
      table 0.25, 0.75;
    }
    """
    out = [f"network {_word(net.name, 'the network name')} {{", "}"]
    words = {}
    for v in net.variables:
        words[v] = _word(v, f"variable {v!r}")
        states = [_word(s, f"state {s!r} of variable {v!r}") for s in net.states(v)]
        out += [f"variable {words[v]} {{",
                f"  type discrete [ {len(states)} ] {{ {', '.join(states)} }};"]
        if net.description(v) is not None:
            out.append(f"  property description = {_quote(net.description(v))};")
        out.append("}")
    for v in net.variables:
        parents = net.parents(v)
        given = f" | {', '.join(words[p] for p in parents)}" if parents else ""
        out.append(f"probability ( {words[v]}{given} ) {{")
        if net.has_cpt(v):
            card, texts = net.cardinality(v), number_texts(net.cpt_array(v))
            rows = [", ".join(texts[i:i + card]) for i in range(0, len(texts), card)]
            if not parents:
                out.append(f"  table {rows[0]};")
            else:
                keys = itertools.product(*([_word(s, "") for s in net.states(p)]
                                           for p in parents))
                out.extend(f"  ({', '.join(key)}) {row};" for key, row in zip(keys, rows))
        out.append("}")
    return "\n".join(out) + "\n"


def _word(name: str, what: str) -> str:
    """``name`` as a bare BIF word, or double-quoted when it is not one."""
    if re.fullmatch(_WORD, name) and "//" not in name and "/*" not in name:
        return name
    if re.search(r'["\\\x00-\x1f\x7f]', name):
        raise FormatError(f"BIF cannot write {what}: a name that is not a bare word is written "
                          "in double quotes, and a quoted name cannot hold '\"', '\\' or "
                          "control characters")
    return f'"{name}"'


def _quote(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'

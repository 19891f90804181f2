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

Reading is built for speed. The grammar is pyparsing's, but each block is first tried as
one regular expression (the common layout, a few calls per block instead of one per
token), and the rows of a probability block are split with string methods and converted
by numpy in one call — tens of thousands of rows through a token-level grammar take
seconds. Whenever that fast path meets anything unusual (a syntax error, quoted names, a
row for an unknown state, ...), the token-level grammar reads the block again: it accepts
every valid variant and reports errors as ``file:line:col: expected ...``.

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
from typing import NamedTuple

import networkx as nx
import numpy as np
import pyparsing as pp

from bbn.errors import BBNError, suggest
from bbn.formats import FormatError
from bbn.formats._text import Located, error_at, expected, located
from bbn.network import Network

_WORD = r'[^\s,;{}()\[\]|"]+'
_QUOTED = r'"(?:[^"\\\n]|\\.)*"'
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PROPERTY = rf'property\b(?:{_QUOTED}|[^;"])*;'
_SEPARATOR = r"(?:\s*,\s*|\s+)"

_NAME = re.compile(rf"{_QUOTED}|{_WORD}")
_WORD_LIST = re.compile(rf"\s*(?:{_WORD}(?:{_SEPARATOR}{_WORD})*)?\s*")
_PARENT_LIST = re.compile(rf"\s*(?:[|,]\s*)?(?:{_WORD}(?:{_SEPARATOR}{_WORD})*)?\s*")
# the common layout of a block, read in one match by _PlainBlocks
_FAST_VARIABLE = (rf"variable\s+(?P<name>{_WORD})\s*\{{\s*type\s+discrete\s*\[\s*(?P<count>\d+)"
                  rf"\s*\]\s*\{{(?P<states>[^{{}}\"]*)\}}\s*;(?P<properties>(?:\s*{_PROPERTY})*)"
                  r"\s*\}")
_FAST_PROBABILITY = (rf"probability\s*\(\s*(?P<child>{_WORD})(?P<parents>[^(){{}}\"]*)\)\s*"
                     r"\{(?P<body>[^{}\"]*)\}")
_FAST_BLOCK = re.compile(rf"\s*(?:{_FAST_VARIABLE}|{_FAST_PROBABILITY})")
_NOT_A_NUMBER = re.compile(r"[^0-9eE.+\-\s,]")
_COMMENT = re.compile(rf"{_QUOTED}|//[^\n]*|/\*(?:.*?\*/|.*)", re.S)
_DESCRIPTION = re.compile(rf"property\s+description\s*=\s*({_QUOTED})\s*;")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


def _name(text: str, loc: int) -> Located:
    return located(_unquote(text), loc)


def _unquote(text: str) -> str:
    if not text.startswith('"'):
        return text
    return re.sub(r"\\(.)", lambda m: _UNESCAPES.get(m[1], m[1]), text[1:-1])


class _Variable(NamedTuple):
    name: Located
    count: int
    states: list[str]
    description: str | None


class _Probability(NamedTuple):
    child: Located
    parents: list[Located]
    offset: int  # where the body starts in the text
    body: str


class _Body(NamedTuple):
    """The entries of a probability body: number tokens per row, and (slow path only) where
    each row, the table and the default line start."""

    keys: list            # per row: its parent states, as text (fast) or names (slow)
    rows: list[list[str]]
    table: list[str] | None
    default: list[str] | None
    where: dict | None    # {"rows": [offsets], "table": offset, "default": offset}


class _Family:
    """Prints as "P(X | A, B)"; formatted only when an error message needs it."""

    def __init__(self, net: Network, child: str):
        self.net, self.child = net, child

    def __str__(self) -> str:
        return self.net.family_text(self.child)


class _Retry(Exception):
    """The fast path met something unusual: read the block with the full grammar."""


def _description(properties: str) -> str | None:
    """The text of the last ``property description = "...";`` among ``properties``."""
    found = _DESCRIPTION.findall(properties) if properties else None
    return _unquote(found[-1]) if found else None


class _PlainBlocks(pp.Token):
    """A run of variable and probability blocks in the common layout, one regular
    expression per block; it stops at the first block in any other layout (quoted names,
    a syntax error, ...), which the token-level grammar then reads."""

    def __init__(self) -> None:
        super().__init__()
        self.set_name("a variable or probability block")
        self.mayReturnEmpty = False
        self.mayIndexError = False

    def parseImpl(self, instring: str, loc: int, do_actions: bool = True):
        blocks = []
        while (m := _FAST_BLOCK.match(instring, loc)) is not None:
            if m["name"] is not None:
                if not _WORD_LIST.fullmatch(m["states"]):
                    break
                blocks.append(_Variable(located(m["name"], m.start("name")), int(m["count"]),
                                        _NAME.findall(m["states"]),
                                        _description(m["properties"])))
            else:
                if not _PARENT_LIST.fullmatch(m["parents"]):
                    break
                start = m.start("parents")
                blocks.append(_Probability(
                    located(m["child"], m.start("child")),
                    [located(n.group(), start + n.start()) for n in _NAME.finditer(m["parents"])],
                    m.start("body"), m["body"]))
            loc = m.end()
        if not blocks:
            raise pp.ParseException(instring, loc, self.errmsg, self)
        return loc, blocks


# ------------------------------------------------------------------ grammar
@functools.cache
def _grammar() -> tuple[pp.ParserElement, pp.ParserElement]:
    """(the whole file, the entries of one probability body), built on first use."""
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
        return _Variable(t[1], int(count), list(states),
                         _description(" ".join(d for d in t[2] if isinstance(d, str))))

    def probability(s: str, loc: int, t: pp.ParseResults) -> _Probability:
        return _Probability(t[1], list(t[2]), t[3][0], t[3][1])

    network = pp.Keyword("network") - name("name") - LBRACE - pp.ZeroOrMore(prop) - RBRACE
    type_decl = pp.Group(pp.Keyword("type") - pp.Keyword("discrete") - LBRACK
                         - pp.Regex(r"\d+").set_name("the number of states") - RBRACK
                         - LBRACE - names - RBRACE - SEMI)
    variable_block = (pp.Keyword("variable") - name - LBRACE
                      - pp.Group(pp.ZeroOrMore(type_decl | prop)) - RBRACE).set_parse_action(
        variable)
    body = pp.Regex(rf'(?:[^{{}}"]|{_QUOTED})*').set_parse_action(
        lambda s, loc, t: [(loc, t[0])])
    probability_block = (pp.Keyword("probability") - LPAR - name - pp.Optional(BAR | COMMA)
                         - names - RPAR - LBRACE - body - RBRACE).set_parse_action(probability)
    end = pp.StringEnd().set_name("'variable', 'probability' or the end of the file")
    grammar = (pp.Group(pp.Optional(network))
               + pp.ZeroOrMore(_PlainBlocks() | variable_block | probability_block) + end)
    grammar.parse_with_tabs()

    number = pp.Regex(r"[^\s,;(){}]+").set_name("a number")

    def check_number(s: str, loc: int, t: pp.ParseResults) -> None:
        if not re.fullmatch(_NUMBER, t[0]):
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
def read(text: str, source: str = "<string>") -> Network:
    """Parse a BIF document into a :class:`Network`; errors name ``source:line:col``."""
    if text[:1] == "\ufeff":  # a byte-order mark (Windows tools): a space keeps the columns
        text = " " + text[1:]
    text = _blank_comments(text, source)
    grammar, _ = _grammar()
    try:
        header, *blocks = grammar.parse_string(text, parse_all=True)
    except pp.ParseBaseException as error:
        raise error_at(text, source, error.loc, expected(error)) from None
    net = Network(str(header["name"]) if "name" in header else "network")

    def fail(loc: int, message: str):
        raise error_at(text, source, loc, message)

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
                if v not in net.graph:
                    fail(v.loc, f"unknown variable {str(v)!r}{suggest(v, net.variables)}")
            if p.child in definitions:
                first = text.count("\n", 0, definitions[p.child].child.loc) + 1
                fail(p.child.loc, f"a second probability block for {str(p.child)!r} (the "
                                  f"first is on line {first})")
            definitions[p.child] = p
    for p in _parents_first(definitions):
        try:
            net.set_parents(p.child, p.parents)
        except BBNError as error:
            fail(p.child.loc, str(error))
        try:
            table = _table(net, p.child, _fast_body(p.body), fail)
        except _Retry:
            table = _table(net, p.child, _slow_body(text, source, p), fail)
        if table is not None:
            try:
                net.set_cpt(p.child, table)
            except BBNError as error:
                fail(p.child.loc, str(error))
    return net


def _parents_first(definitions: dict[str, _Probability]) -> list[_Probability]:
    """The blocks in an order with parents before children, so that no arc added to the
    network has to be checked against a cycle through existing children (file order when
    there is a cycle: the network then reports it)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(definitions)
    graph.add_edges_from((parent, p.child) for p in definitions.values() for parent in p.parents)
    try:
        return [definitions[v] for v in nx.topological_sort(graph) if v in definitions]
    except nx.NetworkXUnfeasible:
        return list(definitions.values())


def _blank_comments(text: str, source: str) -> str:
    """Replace comments by spaces (newlines kept), so offsets and line numbers stay true."""
    if "//" not in text and "/*" not in text:
        return text

    def blank(match: re.Match) -> str:
        found = match.group()
        if found.startswith('"'):
            return found
        if found.startswith("/*") and not found.endswith("*/"):
            raise error_at(text, source, match.start(), "comment '/*' is never closed")
        return re.sub(r"[^\n]", " ", found)

    return _COMMENT.sub(blank, text)


def _fast_body(body: str) -> _Body:
    """Split a body in the plain layout with string methods; _Retry on anything else."""
    if '"' in body or "property" in body:
        raise _Retry
    *pieces, rest = body.split(";")
    if rest.strip():
        raise _Retry
    keys, rows, numbers, table, default = [], [], [], None, None
    for piece in pieces:
        piece = piece.strip()
        if piece[:1] == "(":
            close = piece.find(")")
            if close < 0:
                raise _Retry
            keys.append(piece[1:close])
            text = piece[close + 1:]
            rows.append(text.split(",") if "," in text else text.split())
        elif piece[:5] == "table" and piece[5:6].isspace() and table is None:
            text = piece[6:]
            table = text.split(",") if "," in text else text.split()
        elif piece[:7] == "default" and piece[7:8].isspace() and default is None:
            text = piece[8:]
            default = text.split(",") if "," in text else text.split()
        else:
            raise _Retry
        numbers.append(text)
    if _NOT_A_NUMBER.search(" ".join(numbers)):
        raise _Retry
    return _Body(keys, rows, table, default, None)


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


def _table(net: Network, child: str, body: _Body, fail) -> np.ndarray | None:
    """The table a body gives, shape (|P1|, ..., |Pk|, |child|); None if the body is empty.

    On a problem: _Retry for the fast path (which has no positions), else a ParseError.
    """
    def problem(where: str, index: int | None, message: str):
        if body.where is None:
            raise _Retry
        loc = body.where[where] if index is None else body.where[where][index]
        fail(loc, message)

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
        values = _floats(body.table, lambda: problem("table", None, "a malformed number"))
        # JavaBayes order: the child varies slowest
        return values.reshape(card, configurations).T.reshape(*shape, card)
    if not body.keys and body.default is None:
        return None
    for i, row in enumerate(body.rows):
        if len(row) != card:
            problem("rows", i, f"this row of {family} has {len(row)} numbers, expected {card}")
    values = _floats(list(itertools.chain.from_iterable(body.rows)),
                     lambda: problem("rows", 0, "a malformed number"))
    index = _row_index(net, child, body, problem, fail)
    result = np.empty((configurations, card))
    result[index] = values.reshape(len(body.rows), card)
    if len(index) == configurations == len(set(index)):  # every row once: the common case
        return result.reshape(*shape, card)
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
            fail(child.loc, f"no row for "
                            f"{net.configuration_text(child, tuple(int(i) for i in missing))}"
                            f"{others}, and no 'default' row")
        if len(body.default) != card:
            problem("default", None, f"the 'default' row of {family} has {len(body.default)} "
                                     f"numbers, expected {card}")
        result[~filled] = _floats(body.default, lambda: problem("default", None,
                                                                "a malformed number"))
    return result.reshape(*shape, card)


def _floats(tokens: list[str], on_error) -> np.ndarray:
    try:
        return np.array(tokens, dtype=float)
    except ValueError:
        on_error()
        raise


def _row_index(net: Network, child: str, body: _Body, problem, fail) -> list[int]:
    """The flat configuration index (last parent fastest) of each row's parent states."""
    parents = net.parents(child)
    index = []
    if body.where is None:
        # Keys are looked up as spelled "a, b"; other spacing is respelled first.
        lookup = {", ".join(combo): i for i, combo in
                  enumerate(itertools.product(*(net.states(p) for p in parents)))}
        for key in body.keys:
            position = lookup.get(key.strip())
            if position is None:
                position = lookup.get(", ".join(key.replace(",", " ").split()))
                if position is None:
                    raise _Retry
            index.append(position)
        return index
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
    """The network as BIF text; numbers are written with ``repr`` (exact float64).

    Rows are listed for every parent configuration (last parent fastest); a root's table
    is one ``table`` line; a variable without a table gets an empty probability block.
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
            rows = net.cpt_array(v).reshape(-1, net.cardinality(v)).tolist()
            if not parents:
                out.append(f"  table {', '.join(map(repr, rows[0]))};")
            else:
                keys = itertools.product(*([_word(s, "") for s in net.states(p)]
                                           for p in parents))
                out.extend(f"  ({', '.join(key)}) {', '.join(map(repr, row))};"
                           for key, row in zip(keys, rows))
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

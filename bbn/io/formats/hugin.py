"""Hugin ``.net``, the format of Hugin, also written by GeNIe, Netica and pyAgrum.

    net
    {
        name = "rain";
    }

    node Wet
    {
        label = "the grass is wet";
        states = ("yes" "no");
    }

    potential (Wet | Rain Sprinkler)
    {
        data = ((( 0.99 0.01 )      %  Rain=yes Sprinkler=on
                 ( 0.8 0.2 ))       %  Rain=yes Sprinkler=off
                (( 0.9 0.1 )
                 ( 0.0 1.0 )));
    }

``data`` lists P(X | parents) with the parents outermost, in the order of the potential's
header (the first slowest), and X innermost: the row-major order of bbn's arrays. The
parentheses group rows for the reader's eye; only their balance is checked. A node's
``label`` is its description; other attributes (``position``, ``HR_*``, ``subtype``, ...)
are read and ignored, and so is every attribute of ``net`` but ``name``. ``%`` starts a
comment, and so does ``//`` outside a string (GeNIe's files open with ``///`` lines).
Influence diagrams: a ``decision`` node (its ``states`` are the options; its potential's
parents are the information arcs, its ``data``, if any, is ignored) and a ``utility``
node (no states; its potential's ``data`` is U(parents), one number per parent
configuration) make the file an :class:`~bbn.model.influence_diagram.InfluenceDiagram`.
Continuous (conditional linear Gaussian) nodes are read and written in Hugin's form, one
``normal(mean, variance)`` per configuration of the discrete parents, the mean linear in
the continuous parents:

    continuous node y { }
    potential (y | S x) { data = ( normal ( 1 + 2 * x, 0.5 )       %  S=lo
                                   normal ( -1 - 0.5 * x, 2 ) ); } %  S=hi

Function nodes, potentials with several head variables, and object-oriented ``class``
files are refused with an error at their line. A potential without ``data`` gives the
parents only.

Reading: blocks in the common layout are matched one regular expression each (a custom
pyparsing token) and ``data`` is converted by numpy in one call; any other block is read
by the token-level pyparsing grammar, which also reports errors precisely.

Node names are identifiers (letters, digits and ``_``); states and labels are strings in
double quotes (bare words are read too). The reader understands the escapes ``\\"`` and
``\\\\`` inside strings; the writer refuses strings that would need them, since not every
reader does.

>>> net = read('node A { states = ("y" "n"); } potential (A) { data = (0.3 0.7); }')
>>> net.cpt_array("A").tolist()
[0.3, 0.7]
"""

from __future__ import annotations

import functools
import math
import re
from typing import NamedTuple

import numpy as np
import pyparsing as pp

from bbn.core.errors import BBNError, FormatError, ParseError, ParseErrors, suggest
from bbn.io.formats._runs import run_token
from bbn.io.formats._text import (
    MAX_PARENTS,
    Located,
    Retry,
    after_refused,
    blank_comments,
    check_table,
    error_at,
    expected,
    fast_or_located,
    in_file_order,
    is_number,
    located,
    name_from_source,
    number_texts,
    plain_line_ends,
    unquote,
)
from bbn.model.influence_diagram import InfluenceDiagram
from bbn.model.network import Network

_QUOTED = r'"(?:[^"\\\n]|\\.)*+"'
_WORD = r'[^\s(){}=;|"%]+'
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(rf"{_QUOTED}|%[^\n]*|//[^\n]*")
_DATA = r"\([\s0-9.eE+\-()]*\)"  # a nested list of plain numbers
# a whole word (the lookahead stops the regex engine from splitting it in two on failure)
_WHOLE_WORD = rf"{_WORD}(?![^\s(){{}}=;|\"%])"
# possessive (*+): a list of 10**6 states keeps no backtracking state per item (2.5 GB)
_VALUE = rf"{_QUOTED}|\((?:\s*+(?:{_QUOTED}|{_WHOLE_WORD}))*+\s*+\)|{_WORD}"
_ATTRIBUTE = re.compile(
    rf"\s*(?P<attribute>{_WORD})\s*=\s*(?:(?P<data>{_DATA})|(?P<value>{_VALUE}))\s*;")
_ITEM = re.compile(rf"{_QUOTED}|{_WORD}")
# the common layout of a node or potential block, read in one match by _plain_blocks
_ATTRIBUTES = rf"(?:\s*+{_WORD}\s*+=\s*+(?:{_DATA}|{_VALUE})\s*+;)*+"
_FAST_BLOCK = re.compile(
    rf"\s*(?:(?P<kind>(?:discrete\s+)?node)\s+(?P<name>{_WORD})"
    rf"|(?P<potential>potential)\s*\(\s*(?P<head>{_WORD})\s*(?:\|(?P<given>[^()|{{}}\"=;]*))?\))"
    rf"\s*\{{(?P<attributes>{_ATTRIBUTES})\s*\}}")


# Hugin's normal(mean, variance) of a continuous node; read as the string "ormal(...",
# the same length, so that positions after it stay right
_NORMAL = re.compile(rf"{_QUOTED}|\bnormal\s*\([^()\"{{}};]*\)")
_READ_NORMAL = re.compile(r"ormal\s*\((?P<mean>[^,]*),(?P<variance>[^,]*)$", re.S)
_TERM = re.compile(r"\s*(?P<sign>[+-])?\s*(?:(?P<number>[0-9.]+(?:[eE][+-]?[0-9]+)?)"
                   r"(?:\s*\*\s*(?P<after>[A-Za-z_][A-Za-z0-9_]*))?"
                   r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\s*\*\s*(?P<factor>[0-9.]+"
                   r"(?:[eE][+-]?[0-9]+)?))?)\s*")


class _Values(NamedTuple):
    """A parenthesised list of numbers, converted by the fast path."""

    loc: int
    values: np.ndarray


class _Block(NamedTuple):
    kind: str                      # "net", "node", "decision", ..., "potential"
    loc: int
    head: list[Located]            # the node's name, or the potential's head variables
    given: list[Located]           # a potential's parents
    attributes: dict               # name → value (str, Located, list or _Values)
    where: dict                    # name → offset of the attribute


def _plain(value):
    """Nested ParseResults as nested lists."""
    return [_plain(v) for v in value] if isinstance(value, pp.ParseResults) else value


def _item(text: str, loc: int) -> Located:
    return located(unquote(text), loc)  # a backslash escapes any character, literally


def _numbers_of(data: str, loc: int) -> _Values | None:
    """A nested list of numbers converted in one numpy call; None unless it is one
    balanced, outermost parenthesised list of well-formed numbers."""
    raw = np.frombuffer(data.encode(), dtype=np.uint8)
    depth = np.cumsum(raw == ord("("), dtype=np.int64) - np.cumsum(raw == ord(")"))
    if depth.min() < 0 or depth[-1] != 0 or depth[:-1].min() == 0:
        return None
    try:
        return _Values(loc, np.array(data.replace("(", " ").replace(")", " ").split(),
                                     dtype=float))
    except ValueError:
        return None


def _plain_blocks(text: str, loc: int) -> tuple[int, list[_Block]]:
    """The node and potential blocks in the common layout from ``loc`` on, one regular
    expression per block, and where they stop: at the first block in any other layout,
    which the token-level grammar then reads (and reports precisely when it is wrong)."""
    blocks = []
    while (m := _FAST_BLOCK.match(text, loc)) is not None:
        attributes, where = {}, {}
        for a in _ATTRIBUTE.finditer(m["attributes"]):
            at = m.start("attributes") + a.start("attribute")
            if a["data"] is not None and a["attribute"] == "data":
                value = _numbers_of(a["data"], m.start("attributes") + a.start("data"))
                if value is None:
                    return loc, blocks
            elif (a["value"] or a["data"])[0] == "(":  # pyAgrum: states = (5 4 3 );
                group = "value" if a["value"] else "data"
                start = m.start("attributes") + a.start(group)
                value = [_item(i.group(), start + i.start())
                         for i in _ITEM.finditer(a[group], 1)]
            else:
                value = _item(a["value"], m.start("attributes") + a.start("value"))
            attributes[a["attribute"]], where[a["attribute"]] = value, at
        if m["kind"] is not None:
            blocks.append(_Block(" ".join(m["kind"].split()), m.start("kind"),
                                 [located(m["name"], m.start("name"))], [], attributes, where))
        else:
            given = m["given"] or ""
            blocks.append(_Block(
                "potential", m.start("potential"), [located(m["head"], m.start("head"))],
                [located(g.group(), m.start("given") + g.start())
                 for g in _ITEM.finditer(given)], attributes, where))
        loc = m.end()
    return loc, blocks


# ------------------------------------------------------------------ grammar
@functools.cache
def _grammar() -> pp.ParserElement:
    LBRACE, RBRACE, LPAR, RPAR, EQ, SEMI, BAR = map(pp.Suppress, "{}()=;|")
    name = pp.Regex(_WORD).set_name("a name")
    name.set_parse_action(lambda s, loc, t: located(t[0], loc))
    string = pp.Regex(_QUOTED).set_name("a string")
    string.set_parse_action(lambda s, loc, t: located(unquote(t[0]), loc))
    value = pp.Forward().set_name("a value")
    value <<= string | name | pp.Group(LPAR - pp.ZeroOrMore(value) - RPAR)

    def fast_data(s: str, loc: int, t: pp.ParseResults):
        values = _numbers_of(t[0]["data"], t[0].start("data"))
        if values is None:
            raise pp.ParseException(s, loc, "not a plain list of numbers")
        return [("data", loc, values)]

    attribute = (pp.Regex(rf"data\s*=\s*(?P<data>{_DATA})\s*;", as_match=True)
                 .set_parse_action(fast_data)
                 | (name + EQ - value - SEMI).set_parse_action(
                     lambda t: [(str(t[0]), t[0].loc, _plain(t[1]))]))
    attributes = pp.Group(pp.ZeroOrMore(attribute))

    def block(kind: str, head, given=()):
        return lambda s, loc, t: _Block(kind, loc, list(head(t)), list(given(t) if given else []),
                                        {a: v for a, _, v in t[-1]},
                                        {a: where for a, where, _ in t[-1]})

    net = (pp.Keyword("net") - LBRACE - attributes - RBRACE).set_parse_action(
        block("net", lambda t: []))
    kind = pp.Regex(r"(?:(?:discrete|continuous)\s+)?(?:node|decision|utility|function)\b")
    node = (kind + name - LBRACE - attributes - RBRACE).set_parse_action(
        lambda s, loc, t: block(" ".join(t[0].split()), lambda t: [t[1]])(s, loc, t))
    potential = (pp.Keyword("potential") - LPAR - pp.Group(pp.OneOrMore(name))
                 - pp.Group(pp.Optional(BAR - pp.ZeroOrMore(name))) - RPAR
                 - LBRACE - attributes - RBRACE).set_parse_action(
        block("potential", lambda t: t[1], lambda t: t[2]))

    def refuse_class(s: str, loc: int, t: pp.ParseResults):
        raise pp.ParseFatalException(s, loc, "object-oriented Hugin classes are not "
                                             "supported; export the network as a plain .net")

    oobn = pp.Keyword("class").set_parse_action(refuse_class)
    end = pp.StringEnd().set_name("'node', 'potential' or the end of the file")
    grammar = pp.Optional(net) + pp.ZeroOrMore(run_token(_plain_blocks, "a node or potential block")
                                           | node | potential | oobn) + end
    grammar.parse_with_tabs()
    return grammar


# ------------------------------------------------------------------- reading
def read(text: str, source: str = "<string>", normalize: bool = False) -> Network:
    """Parse a Hugin ``.net`` document into a :class:`Network`; ``normalize`` rescales every
    row of every table to sum 1.

    Parameters, result and errors are those of :func:`bbn.io.formats.loads` (the
    reader behind it for this format).

    Examples
    --------
    >>> net = read('node A { states = ("a" "b"); } potential (A) { data = (0.25 0.75); }')
    >>> net.states("A"), net.cpt_array("A").tolist()
    (('a', 'b'), [0.25, 0.75])
    """
    if text[:1] == "\ufeff":  # a byte-order mark (Windows tools): a space keeps the columns
        text = " " + text[1:]
    text = plain_line_ends(text)
    if "%" in text or "//" in text:  # "//" to the end of a line: GeNIe's "///" headers
        text = blank_comments(text, _COMMENT)
    shown = text  # what error messages quote
    if "normal" in text:  # normal(mean, variance): one string token, columns kept
        text = _NORMAL.sub(lambda m: m.group() if m.group()[0] == '"' else
                           '"' + m.group()[1:-1] + '"', text)
    deepest = _deepest(text)
    if deepest[1] > MAX_NESTING:  # the grammar recurses per '(': refused before, whatever
        # the interpreter's recursion limit (a library may have raised it)
        raise error_at(text, source, deepest[0], "parentheses nested too deeply for this "
                       f"reader (at most {MAX_NESTING} levels)")
    try:
        blocks = _grammar().parse_string(text, parse_all=True)
    except pp.ParseBaseException as error:
        raise error_at(text, source, error.loc, expected(error)) from None
    except RecursionError:  # the token-level grammar nests one call per '('
        raise error_at(text, source, deepest[0], "parentheses nested too deeply for "
                       "this reader") from None

    def fail(loc: int, message: str):
        raise error_at(shown, source, loc, message)

    def check(loc: int, cards: list[int], what: str):
        check_table(cards, what, text, source, loc)

    name = name_from_source(source)
    if blocks and blocks[0].kind == "net" and "name" in blocks[0].attributes:
        name = _scalar(blocks[0], "name", fail)
    return fast_or_located(lambda: _fast_network(name, blocks, normalize),
                           lambda: _located_network(name, blocks, fail, check, normalize))


#: Deepest nesting of parentheses a file may have: a table of a node with k parents nests
#: k + 1 levels; the grammar recurses once per level.
MAX_NESTING = 64


def _deepest(text: str) -> tuple[int, int]:
    """The offset of the first '(' at the deepest nesting of ``text``, and that depth.

    >>> _deepest("a ((b) (c))")
    (3, 2)
    """
    raw = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if not len(raw):
        return 0, 0
    depth = np.cumsum(raw == ord("("), dtype=np.int64) - np.cumsum(raw == ord(")"))
    at = int(np.argmax(depth))
    return at, int(depth[at])


def _fast_network(name: str, blocks: list[_Block], normalize: bool) -> Network:
    """The network of a file with no problem, built at once with Network.assemble; Retry
    or an error on any problem (which :func:`_located_network` then reports with its position)."""
    states, descriptions, parents, tables = {}, {}, {}, {}
    for b in blocks:
        if b.kind == "net":
            continue
        v = b.head[0]
        if b.kind == "potential":
            if len(b.head) != 1 or v in parents or len(b.given) > MAX_PARENTS:
                raise Retry
            parents[v] = b.given
            data = b.attributes.get("data")
            if data is not None:
                tables[v] = data.values if isinstance(data, _Values) else np.array(
                    _numbers(data, b.where["data"], _retry), dtype=float)
            continue
        found = b.attributes.get("states")
        label = b.attributes.get("label")
        if (b.kind not in ("node", "discrete node") or v in states
                or not isinstance(found, list) or any(isinstance(s, list) for s in found)
                or isinstance(label, (list, _Values))):
            raise Retry
        states[v] = found
        if label is not None:
            descriptions[v] = str(label)
    return Network.assemble(name, states, parents, tables, descriptions, normalize)


def _retry(loc: int, message: str):
    raise Retry


def _located_network(name: str, blocks: list[_Block], fail, check, normalize: bool) -> Network:
    """The network one node at a time; the first problem raises a located error."""
    diagram = any(b.kind in (*_DIAGRAM_KINDS, "utility", "discrete utility") for b in blocks)
    net = InfluenceDiagram(name) if diagram else Network(name)
    utilities: dict[str, _Block] = {}
    for b in blocks:
        if b.kind == "net" or b.kind == "potential":
            continue
        v = b.head[0]
        if b.kind in ("utility", "discrete utility"):
            if v in utilities or v in net:
                fail(v.loc, f"node {str(v)!r} is declared twice")
            utilities[str(v)] = b
            continue
        if b.kind == "continuous node":
            label = _scalar(b, "label", fail) if "label" in b.attributes else None
            try:
                net.add_gaussian_variable(v, description=label)
            except BBNError as error:
                fail(v.loc, str(error))
            continue
        if b.kind not in ("node", "discrete node", *_DIAGRAM_KINDS):
            fail(b.loc, f"{b.kind} {str(v)!r}: "
                 + ("continuous decision and utility nodes are not supported"
                    if b.kind.startswith("continuous") else
                    "function nodes are not supported; bbn reads chance, decision and "
                    "utility nodes"))
        states = b.attributes.get("states")
        if not isinstance(states, list):
            fail(b.where.get("states", v.loc), f"node {str(v)!r} needs "
                 "'states = (\"s1\" \"s2\" ...);'")
        for s in states:
            if isinstance(s, list):
                fail(b.where["states"], f"the states of {str(v)!r} must be names, not a list")
        label = _scalar(b, "label", fail) if "label" in b.attributes else None
        try:
            if b.kind in _DIAGRAM_KINDS:
                net.add_decision(v, states, description=label)
            else:
                net.add_variable(v, states, description=label)
        except BBNError as error:
            fail(v.loc, str(error))
    defined: dict[str, int] = {}
    refused: list[ParseError] = []  # tables that are no distributions: every one

    def refuse(loc: int, message: str) -> None:
        try:
            fail(loc, message)
        except ParseError as problem:
            refused.append(problem)

    later = after_refused(refused, fail)  # a later problem is raised with them
    for b in blocks:
        if b.kind == "potential" and b.head[0] in utilities:
            _define_utility(net, b, utilities, defined, later)
        elif b.kind == "potential":
            _define(net, b, defined, later, check, normalize, refuse)
    for u, b in utilities.items():
        if u not in defined:
            later(b.loc, f"utility {u!r} has no potential (potential ({u} | ...) "
                         "{ data = ...; })")
    if refused:
        raise refused[0] if len(refused) == 1 else ParseErrors(in_file_order(refused))
    return net


#: The kinds of decision node (they and utility nodes make a file an influence diagram).
_DIAGRAM_KINDS = ("decision", "discrete decision")


def _define_utility(net: InfluenceDiagram, b: _Block, utilities: dict, defined: dict,
                    fail) -> None:
    """``potential (U | A B) { data = ...; }``: U(a, b), the first parent slowest."""
    utility = b.head[0]
    if len(b.head) != 1:
        fail(b.head[1].loc, "a utility potential has one head node")
    for v in b.given:
        if v not in net:
            fail(v.loc, f"unknown node {str(v)!r}{suggest(v, net.variables)}")
    if utility in defined:
        fail(utility.loc, f"a second potential for {str(utility)!r}")
    defined[str(utility)] = utility.loc
    if "data" not in b.attributes:
        fail(b.loc, f"the potential of utility {str(utility)!r} needs data (its values)")
    data = b.attributes["data"]
    values = data.values if isinstance(data, _Values) else np.array(
        _numbers(data, b.where["data"], fail), dtype=float)
    label = utilities[str(utility)].attributes.get("label")
    try:
        net.add_utility(str(utility), [str(g) for g in b.given], values,
                        None if label is None else str(label))
    except BBNError as error:
        fail(b.where["data"], str(error))


def _define(net: Network, b: _Block, defined: dict[str, int], fail, check,
            normalize: bool, refuse) -> None:
    if len(b.head) != 1:
        fail(b.head[1].loc, "a potential with several head variables is not a conditional "
                            "probability table of one node; not supported")
    child = b.head[0]
    for v in (child, *b.given):
        if v not in net:
            fail(v.loc, f"unknown node {str(v)!r}{suggest(v, net.variables)}")
    if child in defined:
        fail(child.loc, f"a second potential for {str(child)!r}")
    defined[child] = child.loc
    try:
        net.set_parents(child, b.given)
    except BBNError as error:
        fail(child.loc, str(error))
    if "data" not in b.attributes or child in getattr(net, "_decisions", ()):
        return  # a decision's potential gives its information arcs only
    if net.is_gaussian(child):
        _define_normal(net, b, fail)
        return
    cards = [net.cardinality(v) for v in (*b.given, child)]
    check(b.where["data"], cards, f"the table of {str(child)!r} ({len(b.given)} parents)")
    expected = math.prod(cards)
    data = b.attributes["data"]
    if isinstance(data, _Values):
        values = data.values
    else:
        values = np.array(_numbers(data, b.where["data"], fail), dtype=float)
    if values.size != expected:
        fail(b.where["data"], f"the data of {net.family_text(child)} has {values.size} "
                              f"numbers, expected {expected}")
    try:
        net.set_cpt(child, values, normalize=normalize)
    except BBNError as error:
        refuse(b.where["data"], str(error))


def _define_normal(net: Network, b: _Block, fail) -> None:
    """``data = (normal(b0 + b1 * y1 ..., variance) ...)``: one per configuration of the
    discrete parents, the first parent slowest."""
    child = str(b.head[0])
    continuous = [str(g) for g in b.given if net.is_gaussian(g)]
    shape = tuple(net.cardinality(g) for g in b.given if not net.is_gaussian(g))
    items = b.attributes["data"]

    def flat(value) -> list:
        return [x for item in value for x in flat(item)] if isinstance(value, list) else [value]

    if isinstance(items, _Values):
        fail(b.where["data"], f"continuous node {child!r} needs normal(mean, variance) per "
                              "configuration of its discrete parents, not a table of numbers")
    items = flat(items)
    if len(items) != math.prod(shape):
        fail(b.where["data"], f"the data of continuous {child!r} has {len(items)} "
                              f"normal(...), expected {math.prod(shape)} (one per "
                              "configuration of its discrete parents)")
    means, variances = [], []
    weights = {y: [] for y in continuous}
    for item in items:
        m = _READ_NORMAL.match(str(item)) if isinstance(item, str) else None
        if m is None:
            fail(getattr(item, "loc", b.where["data"]), "expected normal(mean, variance), "
                 f"found {str(item)!r}")
        intercept, given = 0.0, dict.fromkeys(continuous, 0.0)
        text, at = m["mean"], 0
        while at < len(text):
            t = _TERM.match(text, at)
            if t is None or t.end() == at or (at > 0 and t["sign"] is None):
                fail(item.loc, f"the mean of continuous {child!r} must be b0 + b1 * y1 + "
                     f"...; cannot read {text.strip()!r}")
            sign = -1.0 if t["sign"] == "-" else 1.0
            name = t["after"] or t["name"]
            number = float(t["number"] or t["factor"] or 1.0)
            if name is None:
                intercept += sign * number
            elif name not in given:
                fail(item.loc, f"{name!r} in the mean of {child!r} is not a continuous "
                     f"parent of it ({continuous}){suggest(name, continuous)}")
            else:
                given[name] += sign * number
            at = t.end()
        try:
            variances.append(float(m["variance"]))
        except ValueError:
            fail(item.loc, f"the variance of {child!r} must be a number, found "
                 f"{m['variance'].strip()!r}")
        means.append(intercept)
        for y in continuous:
            weights[y].append(given[y])
    try:
        net.set_gaussian(child, np.reshape(means, shape), np.reshape(variances, shape),
                         {y: np.reshape(w, shape) for y, w in weights.items()} or None)
    except BBNError as error:
        fail(b.where["data"], str(error))


def _numbers(value, where: int, fail) -> list[str]:
    """The numbers of a nested list read by the token-level grammar, checked one by one."""
    if not isinstance(value, list):
        fail(getattr(value, "loc", where), "data must be a parenthesised list of numbers")
    out = []
    for item in value:
        if isinstance(item, list):
            out.extend(_numbers(item, where, fail))
        elif not is_number(item):
            fail(item.loc, f"expected a number, found {str(item)!r}")
        else:
            out.append(item)
    return out


def _scalar(b: _Block, attribute: str, fail) -> str:
    value = b.attributes[attribute]
    if isinstance(value, (list, _Values)):
        fail(b.where[attribute], f"'{attribute}' must be a string")
    return str(value)


# ------------------------------------------------------------------- writing
def write(net: Network) -> str:
    """The network as a Hugin ``.net`` file; numbers are written exactly, in fixed-point
    (:func:`~bbn.io.formats._text.number_texts`).

    The writer behind :func:`bbn.io.formats.dumps` for this format; it raises
    FormatError for a variable name that is no identifier, or a string with a '"'.

    Examples
    --------
    >>> net = read('node A { states = ("a" "b"); } potential (A) { data = (0.25 0.75); }')
    >>> print(write(net).splitlines()[-2])
        data = (0.25 0.75);
    """
    out = ["net", "{", f"    name = {_string(net.name, 'the network name')};", "}"]
    decisions = set(getattr(net, "_decisions", ()))
    utilities = getattr(net, "utilities", ())
    for v in (*net.variables, *utilities):
        if not _IDENTIFIER.fullmatch(v):
            raise FormatError(f"Hugin .net cannot write variable {v!r}: node names must be "
                              "identifiers (letters, digits and '_', not starting with a digit)")
        if v in utilities:
            out += ["", f"utility {v}", "{"]
            if net.utility_description(v) is not None:
                text = _string(net.utility_description(v), f"the description of {v!r}")
                out.append(f"    label = {text};")
            out.append("}")
            continue
        gaussian = net.is_gaussian(v)
        kind = "decision" if v in decisions else "continuous node" if gaussian else "node"
        out += ["", f"{kind} {v}", "{"]
        if net.description(v) is not None:
            out.append(f"    label = {_string(net.description(v), f'the description of {v!r}')};")
        if gaussian:
            out.append("}")
            continue
        states = " ".join(_string(s, f"state {s!r} of {v!r}") for s in net.states(v))
        out += [f"    states = ({states});", "}"]
    for v in net.variables:
        parents = net.parents(v)
        out += ["", f"potential ({v}{' | ' + ' '.join(parents) if parents else ''})", "{"]
        if net.is_gaussian(v):
            if net.has_cpt(v):
                out.append(f"    data = {_normals(net, v)};")
        elif net.has_cpt(v) and v not in decisions:
            array = net.cpt_array(v)
            out.append(f"    data = {_nested(number_texts(array), array.shape, ' ' * 12)};")
        out.append("}")
    for u in utilities:
        parents, array = net.utility_parents(u), net.utility(u).values
        data = _nested(number_texts(array), array.shape or (1,), " " * 12)
        out += ["", f"potential ({u}{' | ' + ' '.join(parents) if parents else ''})", "{",
                f"    data = {data};", "}"]
    return "\n".join(out) + "\n"


def _normals(net: Network, v: str) -> str:
    """``(normal(b0 + b1 * y, variance) ...)``: one per discrete parent configuration."""
    mean, variance = net.gaussian_parameters(v)
    weights = net.gaussian_weights(v)
    shape = mean.shape
    means = number_texts(mean.reshape(-1))
    variances = number_texts(variance.reshape(-1))
    terms = {y: number_texts(np.abs(b).reshape(-1)) for y, b in weights.items()}
    signs = {y: np.signbit(b).reshape(-1) for y, b in weights.items()}
    texts = []
    for k in range(len(means)):
        linear = "".join(f" {'-' if signs[y][k] else '+'} {terms[y][k]} * {y}" for y in weights)
        texts.append(f"normal ( {means[k]}{linear}, {variances[k]} )")
    return _nested(texts, shape or (1,), " " * 12)


def _nested(texts: list[str], shape: tuple[int, ...], indent: str) -> str:
    """``((0.1 0.9)\\n (0.2 0.8))``: one parenthesised row per parent configuration
    (``texts``: the numbers' texts in row-major order, ``shape``: the table's)."""
    if len(shape) == 1:
        return "(" + " ".join(texts) + ")"
    step = len(texts) // shape[0]
    return "(" + f"\n{indent}".join(_nested(texts[i:i + step], shape[1:], indent + " ")
                                    for i in range(0, len(texts), step)) + ")"


def _string(text: str, what: str) -> str:
    if re.search(r'["\\\x00-\x1f\x7f]', text):
        raise FormatError(f"Hugin .net cannot write {what}: it holds '\"', '\\' or a control "
                          "character; .net strings would need escapes that not every reader "
                          "understands (pyAgrum, for one, rejects them)")
    return f'"{text}"'

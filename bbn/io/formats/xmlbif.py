r"""XMLBIF 0.3, the XML interchange format of JavaBayes, Weka and pgmpy.

    <BIF VERSION="0.3">
    <NETWORK>
      <NAME>rain</NAME>
      <VARIABLE TYPE="nature">
        <NAME>Wet</NAME>
        <OUTCOME>yes</OUTCOME>
        <OUTCOME>no</OUTCOME>
        <PROPERTY>description = the grass is wet</PROPERTY>
      </VARIABLE>
      <DEFINITION>
        <FOR>Wet</FOR>
        <GIVEN>Rain</GIVEN>
        <TABLE>0.9 0.1 0.2 0.8</TABLE>
      </DEFINITION>
    </NETWORK>
    </BIF>

``TABLE`` lists P(FOR | GIVEN...) with the ``FOR`` variable varying fastest and the last
``GIVEN`` next: the row-major order of bbn's arrays, shape (|GIVEN 1|, ..., |FOR|).
``PROPERTY`` elements are ignored except ``description = ...`` on a variable.
``PROBABILITY`` is accepted as the older name of ``DEFINITION``; a ``DEFINITION``
without ``TABLE`` gives the parents only. Variables of ``TYPE`` ``decision`` and
``utility`` make the document an influence diagram (pyAgrum's BIFXML for them,
:class:`~bbn.model.influence_diagram.InfluenceDiagram`): a decision's ``OUTCOME``\ s are
its options and its ``GIVEN``\ s the information arcs; a utility's ``TABLE`` is U(GIVEN...),
one number per configuration (pyAgrum gives it one ``OUTCOME``). Errors name the XML
element (and, for malformed XML, the line and column).

>>> net = read('<BIF VERSION="0.3"><NETWORK><NAME>n</NAME><VARIABLE><NAME>A</NAME>'
...            '<OUTCOME>y</OUTCOME><OUTCOME>n</OUTCOME></VARIABLE>'
...            '<DEFINITION><FOR>A</FOR><TABLE>0.3 0.7</TABLE></DEFINITION></NETWORK></BIF>')
>>> net.cpt_array("A").tolist()
[0.3, 0.7]
"""

from __future__ import annotations

import contextlib
import math
import re
import xml.etree.ElementTree as ET
from xml.parsers import expat

from bbn.core.errors import BBNError, FormatError, ParseError, ParseErrors, suggest
from bbn.io.formats._text import (
    MAX_PARENTS,
    Retry,
    after_refused,
    check_table,
    error_at,
    fast_or_located,
    floats,
    in_file_order,
    is_number,
    number_texts,
    plain_line_ends,
)
from bbn.model.influence_diagram import InfluenceDiagram
from bbn.model.network import Network, PackedTables

_DESCRIPTION = re.compile(r"\s*description\s*=\s*(.*?)\s*", re.S)
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def read(text: str, source: str = "<string>", normalize: bool = False) -> Network:
    """Parse an XMLBIF document into a :class:`Network`; ``normalize`` rescales every row of
    every table to sum 1.

    Parameters, result and errors are those of :func:`bbn.io.formats.loads` (the
    reader behind it for this format).

    Examples
    --------
    >>> doc = ("<BIF><NETWORK><NAME>n</NAME><VARIABLE><NAME>A</NAME><OUTCOME>a</OUTCOME>"
    ...        "<OUTCOME>b</OUTCOME></VARIABLE><DEFINITION><FOR>A</FOR>"
    ...        "<TABLE>0.25 0.75</TABLE></DEFINITION></NETWORK></BIF>")
    >>> read(doc).cpt_array("A").tolist()
    [0.25, 0.75]
    """
    # a byte-order mark (Windows tools write one); line ends as expat counts them
    text = plain_line_ends(text.removeprefix("\ufeff"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate (a str not read from a file)
        raise error_at(text, source, error.start, "not a Unicode character: a lone "
                       f"surrogate {text[error.start]!r}") from None
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        line, column = error.position
        message = re.sub(r": line \d+, column \d+$", "", str(error))
        raise _error_at(text, source, line, column, f"malformed XML: {message}") from None
    network = root if root.tag == "NETWORK" else root.find("NETWORK")

    def fail(at: ET.Element, message: str):
        raise _error_at(text, source, *_position(text, root, at), message)

    def check(at: ET.Element, cards: list[int], what: str):
        try:
            check_table(cards, what, "", "", 0)
        except BBNError:
            line, column = _position(text, root, at)
            check_table(cards, what, text, source, _offset(text, line, column))

    if network is None:
        fail(root, f"<{root.tag}>: expected <BIF> holding a <NETWORK> element")
    name = _text(network, "NAME", default="network")
    return fast_or_located(lambda: _fast_network(name, network, normalize),
                           lambda: _located_network(name, network, fail, check, normalize))


def _fast_network(name: str, network: ET.Element, normalize: bool) -> Network:
    """The network of a document with no problem, built at once with Network.assemble (all
    tables converted by one numpy call); Retry or an error on any problem, which
    :func:`_located_network` then reports at its element."""
    states, descriptions = {}, {}
    for element in network.findall("VARIABLE"):
        name_of = _text(element, "NAME")
        if not name_of or element.get("TYPE", "nature") != "nature" or name_of in states:
            raise Retry
        states[name_of] = [(o.text or "").strip() for o in element.findall("OUTCOME")]
        found = [m[1] for p in element.findall("PROPERTY")
                 if (m := _DESCRIPTION.fullmatch(p.text or ""))]
        if found:
            descriptions[name_of] = found[-1]
    parents, order, texts = {}, [], []
    for element in network.findall("DEFINITION") + network.findall("PROBABILITY"):
        child = _text(element, "FOR")
        if not child or child in parents:
            raise Retry
        if len(element.findall("GIVEN")) > MAX_PARENTS:
            raise Retry
        parents[child] = given = [(g.text or "").strip() for g in element.findall("GIVEN")]
        tables = element.findall("TABLE")
        if not tables:
            continue
        text = tables[0].text or ""
        try:
            expected = math.prod(len(states[v]) for v in (*given, child))
        except KeyError:  # an unknown variable
            raise Retry from None
        if len(tables) > 1 or len(text.split()) != expected:
            raise Retry
        order.append(child)
        texts.append(text)
    numbers = floats(" ".join(texts).split())
    if numbers is None:  # a malformed number
        raise Retry
    return Network.assemble(name, states, parents, PackedTables(order, numbers), descriptions,
                            normalize)


def _located_network(name: str, network: ET.Element, fail, check, normalize: bool) -> Network:
    """The network one element at a time; the first problem raises a located error."""
    kinds = {element.get("TYPE", "nature") for element in network.findall("VARIABLE")}
    net = InfluenceDiagram(name) if kinds & {"decision", "utility"} else Network(name)
    utilities: dict[str, str | None] = {}
    for i, element in enumerate(network.findall("VARIABLE"), 1):
        name = _text(element, "NAME")
        where = f"<VARIABLE> {name!r}" if name else f"<VARIABLE> number {i}"
        if not name:
            fail(element, f"{where} has no <NAME>")
        kind = element.get("TYPE", "nature")
        if kind not in ("nature", "decision", "utility"):
            fail(element, f"{where} has TYPE={kind!r}: the types are nature, decision and "
                          "utility")
        outcomes = [(o.text or "").strip() for o in element.findall("OUTCOME")]
        descriptions = [m[1] for p in element.findall("PROPERTY")
                        if (m := _DESCRIPTION.fullmatch(p.text or ""))]
        description = descriptions[-1] if descriptions else None
        if kind == "utility":
            if name in utilities or name in net:
                fail(element, f"{where}: declared twice")
            utilities[name] = description
            continue
        try:
            (net.add_decision if kind == "decision" else net.add_variable)(
                name, outcomes, description=description)
        except BBNError as error:
            fail(element, f"{where}: {error}")
    defined: set[str] = set()
    refused: list[ParseError] = []  # tables that are no distributions: every one
    located, fail = fail, after_refused(refused, fail)
    definitions = network.findall("DEFINITION") + network.findall("PROBABILITY")
    for i, element in enumerate(definitions, 1):
        child = _text(element, "FOR")
        where = f"<{element.tag}> for {child!r}" if child else f"<{element.tag}> number {i}"
        if not child:
            fail(element, f"{where} has no <FOR>")
        given = element.findall("GIVEN")
        parents = [(g.text or "").strip() for g in given]
        if child in utilities:
            _define_utility(net, element, where, child, parents, utilities[child], fail)
            defined.add(child)
            continue
        for v, at in ((child, element.find("FOR")), *zip(parents, given)):
            if v not in net:
                fail(element if at is None else at,
                     f"{where}: unknown variable {v!r}{suggest(v, net.variables)}")
        if child in defined:
            fail(element, f"{where}: a second definition of {child!r}")
        defined.add(child)
        try:
            net.set_parents(child, parents)
        except BBNError as error:
            fail(element, f"{where}: {error}")
        tables = element.findall("TABLE")
        if not tables or child in getattr(net, "_decisions", ()):
            continue  # a decision's definition gives its information arcs only
        if len(tables) > 1:
            fail(tables[1], f"{where} has more than one <TABLE>")
        table = tables[0].text or ""
        tokens = table.split()
        cards = [net.cardinality(v) for v in (*parents, child)]
        check(tables[0], cards, f"the table of {child!r} ({len(parents)} parents)")
        expected = math.prod(cards)
        if len(tokens) != expected:
            fail(tables[0], f"the <TABLE> of {net.family_text(child)} has {len(tokens)} "
                            f"numbers, expected {expected}")
        values = floats(tokens)
        if values is None:
            bad = next(t for t in tokens if not is_number(t))
            fail(tables[0], f"the <TABLE> of {net.family_text(child)} holds a malformed "
                            f"number {bad!r}")
        try:
            net.set_cpt(child, values, normalize=normalize)
        except BBNError as error:  # every such table is reported, in file order
            try:
                located(element, f"{where}: {error}")
            except ParseError as problem:
                refused.append(problem)
    for u in utilities:
        if u not in defined:
            fail(network, f"utility {u!r} has no <DEFINITION> (its <TABLE> of values)")
    if refused:
        raise refused[0] if len(refused) == 1 else ParseErrors(in_file_order(refused))
    return net


def _define_utility(net: InfluenceDiagram, element: ET.Element, where: str, name: str,
                    parents: list[str], description: str | None, fail) -> None:
    """A utility's definition: U(GIVEN...), the last GIVEN fastest."""
    for v in parents:
        if v not in net:
            fail(element, f"{where}: unknown variable {v!r}{suggest(v, net.variables)}")
    tables = element.findall("TABLE")
    if len(tables) != 1:
        fail(element, f"{where}: a utility needs one <TABLE> of values")
    tokens = (tables[0].text or "").split()
    values = floats(tokens)
    if values is None:
        bad = next(t for t in tokens if not is_number(t))
        fail(tables[0], f"{where}: a malformed number {bad!r}")
    try:
        net.add_utility(name, parents, values, description)
    except BBNError as error:
        fail(tables[0], f"{where}: {error}")


def _position(text: str, root: ET.Element, element: ET.Element) -> tuple[int, int]:
    """(line, column) of ``element``'s start tag; found, only for error messages, by
    reading the document again with expat, which reports positions (ElementTree does not)."""
    wanted = next(i for i, e in enumerate(root.iter()) if e is element)
    parser = expat.ParserCreate()
    found: list[tuple[int, int]] = []

    def start(tag, attributes):
        found.append((parser.CurrentLineNumber, parser.CurrentColumnNumber))
        if len(found) > wanted:
            raise StopIteration

    parser.StartElementHandler = start
    with contextlib.suppress(StopIteration):
        parser.Parse(text, True)
    return found[wanted]


def _error_at(text: str, source: str, line: int, column: int, message: str) -> ParseError:
    """The error for 0-based ``column`` of ``line``, quoting that line."""
    return error_at(text, source, _offset(text, line, column), message)


def _offset(text: str, line: int, column: int) -> int:
    """The offset of 0-based ``column`` of ``line`` (counted from 1, at each LF)."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1 or len(text)
    return start + column


def _text(element: ET.Element, tag: str, default: str | None = None) -> str | None:
    found = element.find(tag)
    if found is None:
        return default
    return (found.text or "").strip()


def write(net: Network) -> str:
    """The network as XMLBIF 0.3; numbers are written exactly, in fixed-point
    (:func:`~bbn.io.formats._text.number_texts`).

    The writer behind :func:`bbn.io.formats.dumps` for this format; it raises
    FormatError for a name or description that XML cannot hold.

    Examples
    --------
    >>> net = read("<BIF><NETWORK><NAME>n</NAME><VARIABLE><NAME>A</NAME><OUTCOME>a</OUTCOME>"
    ...            "</VARIABLE><DEFINITION><FOR>A</FOR><TABLE>1</TABLE></DEFINITION>"
    ...            "</NETWORK></BIF>")
    >>> "<OUTCOME>a</OUTCOME>" in write(net)
    True
    """
    root = ET.Element("BIF", VERSION="0.3")
    network = ET.SubElement(root, "NETWORK")
    ET.SubElement(network, "NAME").text = _checked(net.name, "the network name")
    decisions, utilities = set(getattr(net, "_decisions", ())), getattr(net, "utilities", ())
    for v in net.variables:
        kind = "decision" if v in decisions else "nature"
        element = ET.SubElement(network, "VARIABLE", TYPE=kind)
        ET.SubElement(element, "NAME").text = _checked(v, f"variable {v!r}")
        for s in net.states(v):
            ET.SubElement(element, "OUTCOME").text = _checked(s, f"state {s!r} of {v!r}")
        if net.description(v) is not None:
            text = _checked(net.description(v), f"the description of {v!r}")
            ET.SubElement(element, "PROPERTY").text = f"description = {text}"
    for u in utilities:  # as pyAgrum writes them: one outcome
        element = ET.SubElement(network, "VARIABLE", TYPE="utility")
        ET.SubElement(element, "NAME").text = _checked(u, f"utility {u!r}")
        ET.SubElement(element, "OUTCOME").text = "0"
        if net.utility_description(u) is not None:
            text = _checked(net.utility_description(u), f"the description of {u!r}")
            ET.SubElement(element, "PROPERTY").text = f"description = {text}"
    for v in net.variables:
        element = ET.SubElement(network, "DEFINITION")
        ET.SubElement(element, "FOR").text = v
        for p in net.parents(v):
            ET.SubElement(element, "GIVEN").text = p
        if net.has_cpt(v):
            ET.SubElement(element, "TABLE").text = " ".join(number_texts(net.cpt_array(v)))
    for u in utilities:
        element = ET.SubElement(network, "DEFINITION")
        ET.SubElement(element, "FOR").text = u
        for p in net.utility_parents(u):
            ET.SubElement(element, "GIVEN").text = p
        ET.SubElement(element, "TABLE").text = " ".join(number_texts(net.utility(u).values))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _checked(text: str, what: str) -> str:
    """``text`` if an XMLBIF reader gives it back unchanged (readers strip whitespace)."""
    if _NOT_XML.search(text):
        raise FormatError(f"XMLBIF cannot write {what}: it holds a control character, which "
                          "XML 1.0 cannot represent")
    if text != text.strip():
        raise FormatError(f"XMLBIF cannot write {what}: it begins or ends with whitespace, "
                          "which XMLBIF readers strip")
    return text

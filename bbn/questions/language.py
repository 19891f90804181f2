"""The query language shared by ``bbn query`` and :meth:`Network.query`: text → :class:`Query`.

Grammar (whitespace-insensitive; see ``docs/query.md``)::

    query    := prob | map | mpe | independence | entropy | information | meu | eu
    prob     := "P"   "(" items [ "|" evidence ] ")"
    map      := "MAP" "(" names [ "|" evidence ] ")"
    mpe      := "MPE" "(" [ "|" ] [ evidence ] ")"
    meu      := "MEU" "(" [ "|" ] [ evidence ] ")"       (influence diagrams)
    eu       := "EU"  "(" name "=" name [ "|" evidence ] ")"
    items    := item { "," item }          item := name [ "=" name ]
    evidence := ( name "=" name | "do" "(" evidence ")" ) { "," ... }
    independence := names ( "_|_" | "⟂" ) names [ "|" names ]
    entropy      := "H" "(" names [ "|" items ] ")"
    information  := "I" "(" names ";" names [ "|" items ] ")"
    name     := bare | "double-quoted" | 'single-quoted'
    bare     := one or more characters other than white space , ( ) | = " '

``P(C | A=T)`` is a distribution (a Factor), ``P(C=T | A=T)`` and ``P(A=T, S=F)`` are
numbers, ``P(B, C=T | A=T)`` is the table P(B, C=T | A=T) over B; ``MAP(C, S | A=T)`` is
the most probable joint state of C and S given A=T; ``MPE(A=T)`` the most probable
state of every other variable. ``P(C | do(B=T), A=T)`` sets B (an intervention);
``P(D_{A=not} | D=dead)`` is a counterfactual (:mod:`bbn.questions.uncertain`,
:mod:`bbn.questions.counterfactual`).

The questions about the graph and about information (bare names only) are answered by
:mod:`bbn.tasks.explain`: ``C _|_ S | A`` is d-separation (true/false, with an active trail when
false); ``H(C | A=T)`` the entropy in bits of the posterior, ``I(C; W | A=T)`` the mutual
information in bits — in both, items without a state (``H(C | B, A=T)``) are conditioning
variables averaged over their posterior.

Syntax only: :mod:`bbn.questions.resolution` checks the names against a network,
:mod:`bbn.questions.dispatch` answers, :mod:`bbn.questions.presentation` prints.

>>> parse_query('P(C | A=T)').targets
(('C', None),)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bbn.core.errors import ParseError, QueryError, clip


@functools.cache
def _grammars() -> dict:
    """The pyparsing grammars, built on first need: a query that the scanner below reads
    (bare names, the usual case) needs neither them nor pyparsing (~40 ms to import)."""
    import pyparsing as pp

    name = (pp.QuotedString('"', esc_char="\\") | pp.QuotedString("'", esc_char="\\")
            | pp.Regex(r"""[^\s,()|="']+""")).set_name("a name")
    item = pp.Group(name("variable") + pp.Optional(pp.Suppress("=") - name("state")))
    # `-` stops backtracking: after a comma or a bar, a missing item is reported right there.
    item_list = item + pp.ZeroOrMore(pp.Suppress(",") - item)
    items = pp.Group(item_list)
    evidence = pp.Group(pp.Optional(item_list))
    lp, rp, bar = (pp.Suppress(c) for c in "()|")
    prob = pp.CaselessKeyword("P")("kind") + lp + items("targets") + pp.Optional(
        bar - items("evidence")) + rp
    map_ = pp.CaselessKeyword("MAP")("kind") + lp + items("targets") + pp.Optional(
        bar - items("evidence")) + rp
    mpe = pp.CaselessKeyword("MPE")("kind") + lp + pp.Optional(bar) + evidence("evidence") + rp
    meu = pp.CaselessKeyword("MEU")("kind") + lp + pp.Optional(bar) + evidence("evidence") + rp
    eu = pp.CaselessKeyword("EU")("kind") + lp + items("targets") + pp.Optional(
        bar - items("evidence")) + rp
    item.set_name("a variable")
    return {"query": ((map_ | mpe | meu | eu | prob).set_name(
                "P(...), MAP(...), MPE(...), MEU(...) or EU(...)")
                      + pp.StringEnd()).parse_with_tabs(),
            "evidence": (evidence("evidence") + pp.StringEnd()).parse_with_tabs(),
            "error": pp.ParseBaseException}


# The scanner: the grammar above for bare names, with pyparsing's white space (" \t\r\n").
_S = r"[ \t\r\n]*"
_BARE_ITEM = re.compile(f"{_S}([^\\s,()|=\"']+){_S}(?:={_S}([^\\s,()|=\"']+){_S})?")
_SHAPE = re.compile(f"{_S}(P|MAP|MPE|MEU|EU){_S}\\(([^()]*)\\){_S}", re.IGNORECASE)
_INDEPENDENCE = re.compile(r"([^|]*?)(?:_\|_|⟂)([^|]*)(?:\|(.*))?", re.DOTALL)
_INFORMATION = re.compile(f"{_S}([HI]){_S}\\(([^()]*)\\){_S}", re.DOTALL)

#: Characters above which a query the scanner cannot read is not handed to the grammar,
#: whose error recovery takes seconds on a 64 KiB text: the scanner locates the error.
GRAMMAR_LIMIT = 8192

#: The kinds answered by bbn.tasks.explain: independence, entropy, mutual information.
EXPLAINED_KINDS = ("IND", "H", "I")


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _quote(name: str) -> str:
    """A name as the query language writes it: bare when it can be, else quoted."""
    if name and not any(c.isspace() or c in ",()|=\"'{}" for c in name):
        return name
    return '"' + "".join(_ESCAPES.get(c, c) for c in name) + '"'


def _items(group) -> tuple[tuple[str, str | None], ...]:
    return tuple((item["variable"], item.get("state")) for item in group)


def _scan_items(text: str, optional: bool = False):
    """``((variable, state or None), ...)`` of "A=T, S" with bare names, or None."""
    if optional and not text.strip(" \t\r\n"):
        return ()
    items = [_BARE_ITEM.fullmatch(part) for part in text.split(",")]
    return None if None in items else tuple((m[1], m[2]) for m in items)


def _scan(text: str, which: str) -> dict | None:
    """What the grammar ``which`` reads from ``text`` when its names are bare; None for
    anything else (quoted names, mistakes: the grammar reads those and locates errors)."""
    if which == "evidence":
        evidence = _scan_items(text, optional=True)
        return None if evidence is None else {"evidence": evidence}
    shape = _SHAPE.fullmatch(text)
    if shape is None or any(q in text for q in "\"'"):
        return None
    kind, parts = shape[1].upper(), shape[2].split("|")
    if kind in ("MPE", "MEU"):
        if len(parts) > 2 or (len(parts) == 2 and parts[0].strip(" \t\r\n")):
            return None
        evidence = _scan_items(parts[-1], optional=True)
        return None if evidence is None else {"kind": kind, "evidence": evidence}
    if len(parts) > 2:
        return None
    found = {"kind": kind, "targets": _scan_items(parts[0])}
    if len(parts) == 2:
        found["evidence"] = _scan_items(parts[1])
    return None if None in found.values() else found


def _scan_explained(text: str, source: str) -> dict | None:
    """``{"kind", "targets", "others", "evidence"}`` of ``X _|_ Y | Z``, ``H(X | e)`` or
    ``I(X; Y | e)``; None for any other text; a located ParseError for a malformed one."""
    independence = _INDEPENDENCE.fullmatch(text)
    information = None if independence else _INFORMATION.fullmatch(text)
    if independence is None and information is None:
        return None
    if independence:
        kind, parts = "IND", [independence[1], independence[2], independence[3] or ""]
        expected = "variables on each side of _|_, as in C _|_ S | A"
    else:
        kind = information[1].upper()
        head, _, tail = information[2].partition("|")
        parts = [head, "", tail] if kind == "H" else [*head.partition(";")[::2], tail]
        expected = ("H(variables | evidence), as in H(C | A=T)" if kind == "H" else
                    "I(variables; variables | evidence), as in I(C; W | A=T)")
        if kind == "I" and ";" not in head:
            parts[1] = "\0"  # not a name: reported below
    targets, others = _scan_items(parts[0]), _scan_items(parts[1], optional=kind == "H")
    evidence = _scan_items(parts[2], optional=True)
    if None in (targets, others, evidence) or any(s for _, s in targets + others):
        raise ParseError(f"malformed query: expected {expected}", source, 1, 1, text)
    return {"kind": kind, "targets": targets, "others": others, "evidence": evidence}


def _parse(which: str, text: str, source: str) -> dict:
    """``{"kind", "targets", "evidence"}`` read by grammar ``which`` ("query", "evidence")."""
    scanned = _scan(text, which)
    if scanned is None and which == "query" and not any(q in text for q in "\"'"):
        scanned = _scan_explained(text, source)  # bare names only: quoted ones are P(...)
    if scanned is not None:
        return scanned
    if len(text) > GRAMMAR_LIMIT:
        raise _long_query_error(text, which, source)
    grammars = _grammars()
    try:
        result = grammars[which].parse_string(text, parse_all=True)
    except grammars["error"] as error:
        raise ParseError(f"malformed query: expected {_expected(error)}", source,
                         error.lineno, error.col, error.line) from None
    return {key: result[key] if key == "kind" else _items(result[key])
            for key in ("kind", "targets", "evidence") if key in result}


def _long_query_error(text: str, which: str, source: str) -> ParseError:
    """The error of a long text the scanner could not read, located by the scanner (the
    grammar's error recovery costs seconds on tens of thousands of items)."""
    shape = _SHAPE.fullmatch(text) if which == "query" else None
    inner = (shape.start(2), shape[2]) if shape else (0, text) if which == "evidence" else None
    limit = (f"; a query over {GRAMMAR_LIMIT} characters is read with bare names only "
             "(no quotes)")
    if inner is None:
        return ParseError("malformed query: expected P(...), MAP(...), MPE(...), H(...), "
                          f"I(...) or X _|_ Y{limit}", source, 1, 1, text)
    offset, body = inner
    for part in re.split(r"([,|])", body)[::2]:
        if not _BARE_ITEM.fullmatch(part) and part.strip(" \t\r\n"):
            column = offset + len(part) - len(part.lstrip(" \t\r\n")) + 1
            return ParseError(f"malformed query: expected a variable or variable=state, found "
                              f"{clip(part.strip(), 40)!r}{limit}", source, 1, column, text)
        offset += len(part) + 1
    return ParseError(f"malformed query: expected a variable{limit}", source, 1,
                      min(offset, len(text)), text)


def _expected(error) -> str:
    message = str(error.msg)
    if message.startswith("Expected "):
        message = message[len("Expected "):]
    found = error.line[error.col - 1:error.col] if error.col <= len(error.line) else ""
    return message + (f", found {found!r}" if found else ", found the end of the query")


@dataclass(frozen=True)
class Query:
    """A parsed query: its kind (``P``, ``MAP``, ``MPE``; ``IND``, ``H``, ``I`` for the
    questions of :mod:`bbn.tasks.explain`), targets, the other side (``others``: Y of ``X _|_ Y``
    and ``I(X; Y)``) and evidence, as written (names unchecked: see
    :func:`bbn.questions.resolution.resolve_query`)."""

    kind: str
    targets: tuple[tuple[str, str | None], ...]
    evidence: tuple[tuple[str, str | None], ...]
    others: tuple[tuple[str, str | None], ...] = ()
    #: ``do(X=x)`` items of the evidence (:mod:`bbn.questions.uncertain`)
    do: tuple[tuple[str, str], ...] = ()
    #: the intervention ``{X=x}`` of counterfactual targets ``Y_{X=x}``
    counterfactual: tuple[tuple[str, str], ...] = ()

    @property
    def evidence_dict(self) -> dict[str, str]:
        return dict(self.evidence)  # type: ignore[arg-type]

    def text(self) -> str:
        """The query in canonical form, e.g. ``P(C | A=T)``."""
        def show(items):
            return ", ".join(_quote(v) + (f"={_quote(s)}" if s is not None else "")
                             for v, s in items)
        if self.kind == "IND":
            text = f"{show(self.targets)} _|_ {show(self.others)}"
            return text + (f" | {show(self.evidence)}" if self.evidence else "")
        inside = show(self.targets) if self.kind not in ("MPE", "MEU") else ""
        if self.counterfactual:
            world = "_{" + show(self.counterfactual) + "}"
            inside = ", ".join(_quote(v) + world + (f"={_quote(s)}" if s is not None else "")
                               for v, s in self.targets)
        if self.kind == "I":
            inside += f"; {show(self.others)}"
        given = ([f"do({show(self.do)})"] if self.do else []) + (
            [show(self.evidence)] if self.evidence else [])
        if given:
            inside += (" | " if inside else "") + ", ".join(given)
        return f"{self.kind}({inside})"


def parse_query(text: str, source: str = "<query>") -> Query:
    """Read a query (syntax only: :func:`bbn.questions.resolution.resolve_query` checks
    its names against a network).

    Raises
    ------
    ParseError
        Where the text departs from the grammar, located by line and column.

    Examples
    --------
    >>> parse_query("MAP(C, S | A=T)").text()
    'MAP(C, S | A=T)'
    """
    do = world = ()
    if "_{" in text or text.count("(") > 1:  # do(...) nests a bracket
        text, do, world = _interventions(text, source)
    result = _parse("query", text, source)
    return Query(kind=result["kind"].upper(), targets=result.get("targets", ()),
                 evidence=result.get("evidence", ()), others=result.get("others", ()),
                 do=do, counterfactual=world)


_DO = re.compile(r"\bdo[ \t\r\n]*\(([^()]*)\)", re.IGNORECASE)
_WORLD = re.compile(r"_\{([^{}]*=[^{}]*)\}")  # a name may hold braces: X_{1}


def _interventions(text: str, source: str) -> tuple[str, tuple, tuple]:
    """``P(Y_{X=x} | do(Z=z), W=w)`` → ``("P(Y | W=w)", (("Z", "z"),), (("X", "x"),))``:
    the ``do(...)`` items of the evidence and the one intervention subscripting the
    targets (every target in the same world), taken out of the text. Quoted names are set
    aside first, so a name such as ``"do(it)"`` or ``"_{a=b}"`` is never read as syntax.

    >>> _interventions('P("_{a=b}" | do(X=x))', "<query>")
    ('P("_{a=b}" )', (('X', 'x'),), ())
    """
    quoted: list[str] = []

    def aside(match: re.Match) -> str:
        quoted.append(match[0])
        return f"\x00{len(quoted) - 1}\x00"

    def back(part: str) -> str:
        return _PLACEHOLDER.sub(lambda m: quoted[int(m[1])], part)

    text = _QUOTED_NAME.sub(aside, text)
    do: list = []
    if not _DO.search(text) and not _WORLD.search(text):
        return back(text), (), ()
    for match in _DO.finditer(text):
        do += _parse("evidence", back(match[1]), source)["evidence"]
    text = _DO.sub("", text)
    worlds = {back(m[1].strip()) for m in _WORLD.finditer(text)}
    if len(worlds) > 1:
        raise QueryError(f"every target of a counterfactual is in one world; got "
                         f"{' and '.join(sorted('_{' + w + '}' for w in worlds))}")
    world = _parse("evidence", worlds.pop(), source)["evidence"] if worlds else ()
    text = _WORLD.sub("", text)
    text = re.sub(r",[ \t\r\n]*,", ",", text)  # the commas a removed do(...) leaves
    text = re.sub(r"([|(])[ \t\r\n]*,", r"\1", text)
    text = re.sub(r",[ \t\r\n]*\)", ")", text)
    text = re.sub(r"\|[ \t\r\n]*\)", ")", text)
    for v, s in (*do, *world):
        if s is None:
            raise QueryError(f"an intervention sets a state, as in do({v}=x)")
    return back(text), tuple(do), tuple(world)


#: A quoted name of the query language ("..." or '...', backslash escapes), and the
#: placeholder that stands for it while do(...) and _{...} are taken out.
_QUOTED_NAME = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', re.DOTALL)
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")


def parse_evidence(text: str, source: str = "<evidence>", items: bool = False):
    """Read ``"A=T, S=F"`` into ``{"A": "T", "S": "F"}`` (syntax only; with ``items``, the
    items ``(("A", "T"), ...)`` as written, a state possibly None).

    Examples
    --------
    >>> parse_evidence("A=T, S=F")
    {'A': 'T', 'S': 'F'}
    """
    found = _parse("evidence", text, source)["evidence"]
    if items:
        return found
    if any(s is None for _, s in found):
        raise QueryError("every evidence item needs a state, as in A=T")
    return dict(found)


def read_weights(variable: str, text: str) -> dict[str, float]:
    """Per-state weights written ``T:0.8,F:0.4`` (the explorer's and ``bbn explain
    --likelihood``'s form of a likelihood) → ``{"T": 0.8, "F": 0.4}``.

    >>> read_weights("W", "T:0.8, F:0.4")
    {'T': 0.8, 'F': 0.4}
    """
    weights = {}
    for part in text.split(","):
        name, _, number = part.partition(":")
        try:
            weights[name.strip()] = float(number)
        except ValueError:
            raise QueryError(f"weights of {variable!r} are state:number pairs, as in "
                             f"T:0.8,F:0.4; got {text!r}") from None
    return weights

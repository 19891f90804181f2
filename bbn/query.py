"""The query language shared by ``bbn query`` and :meth:`Network.query`.

Grammar (whitespace-insensitive; see ``docs/query.md``)::

    query    := prob | map | mpe
    prob     := "P"   "(" items [ "|" evidence ] ")"
    map      := "MAP" "(" names [ "|" evidence ] ")"
    mpe      := "MPE" "(" [ "|" ] [ evidence ] ")"
    items    := item { "," item }          item := name [ "=" name ]
    evidence := name "=" name { "," name "=" name }
    name     := bare | "double-quoted" | 'single-quoted'
    bare     := one or more characters other than white space , ( ) | = " '

``P(C | A=T)`` is a distribution (a Factor), ``P(C=T | A=T)`` and ``P(A=T, S=F)`` are
numbers, ``P(B, C=T | A=T)`` is the table P(B, C=T | A=T) over B; ``MAP(C, S | A=T)`` is
the most probable joint state of C and S given A=T; ``MPE(A=T)`` the most probable
state of every other variable.

>>> parse_query('P(C | A=T)').targets
(('C', None),)
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from bbn.errors import ImpossibleEvidenceError, ParseError, QueryError
from bbn.factor import Factor


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
    item.set_name("a variable")
    return {"query": ((map_ | mpe | prob).set_name("P(...), MAP(...) or MPE(...)")
                      + pp.StringEnd()).parse_with_tabs(),
            "evidence": (evidence("evidence") + pp.StringEnd()).parse_with_tabs(),
            "error": pp.ParseBaseException}


# The scanner: the grammar above for bare names, with pyparsing's white space (" \t\r\n").
_S = r"[ \t\r\n]*"
_BARE_ITEM = re.compile(f"{_S}([^\\s,()|=\"']+){_S}(?:={_S}([^\\s,()|=\"']+){_S})?")
_SHAPE = re.compile(f"{_S}(P|MAP|MPE){_S}\\(([^()]*)\\){_S}", re.IGNORECASE)


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _quote(name: str) -> str:
    """A name as the query language writes it: bare when it can be, else quoted."""
    if name and not any(c.isspace() or c in ",()|=\"'" for c in name):
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
    if kind == "MPE":
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


def _parse(which: str, text: str, source: str) -> dict:
    """``{"kind", "targets", "evidence"}`` read by grammar ``which`` ("query", "evidence")."""
    scanned = _scan(text, which)
    if scanned is not None:
        return scanned
    grammars = _grammars()
    try:
        result = grammars[which].parse_string(text, parse_all=True)
    except grammars["error"] as error:
        raise ParseError(f"malformed query: expected {_expected(error)}", source,
                         error.lineno, error.col, error.line) from None
    return {key: result[key] if key == "kind" else _items(result[key])
            for key in ("kind", "targets", "evidence") if key in result}


def _expected(error) -> str:
    message = str(error.msg)
    if message.startswith("Expected "):
        message = message[len("Expected "):]
    found = error.line[error.col - 1:error.col] if error.col <= len(error.line) else ""
    return message + (f", found {found!r}" if found else ", found the end of the query")


@dataclass(frozen=True)
class Query:
    """A parsed query: its kind (``P``, ``MAP``, ``MPE``), targets and evidence."""

    kind: str
    targets: tuple[tuple[str, str | None], ...]
    evidence: tuple[tuple[str, str | None], ...]

    @property
    def evidence_dict(self) -> dict[str, str]:
        return dict(self.evidence)  # type: ignore[arg-type]

    def text(self) -> str:
        """The query in canonical form, e.g. ``P(C | A=T)``."""
        def show(items):
            return ", ".join(_quote(v) + (f"={_quote(s)}" if s is not None else "")
                             for v, s in items)
        inside = show(self.targets) if self.kind != "MPE" else ""
        if self.evidence:
            inside += (" | " if inside else "") + show(self.evidence)
        return f"{self.kind}({inside})"

    # --------------------------------------------------------------- answers
    def validate(self, net) -> None:
        """Check every variable and state against ``net`` (QueryError with suggestions)."""
        from bbn.inference import check_variables, state_index

        names = [v for v, _ in self.targets] + [v for v, _ in self.evidence]
        check_variables(net, [v for v, _ in self.targets])
        check_variables(net, [v for v, _ in self.evidence], role="evidence")
        for v, _ in self.targets:
            if net.is_gaussian(v):
                raise QueryError(f"{v!r} is continuous: it can be evidence ({v}=3.2), "
                                 "not the subject of a query")
        for v, s in self.targets + self.evidence:
            if s is not None and not net.is_gaussian(v):
                state_index(net, v, s)
            elif s is not None and not _is_finite_number(s):
                raise QueryError(f"{v!r} is continuous: its evidence must be a number, "
                                 f"got {s!r}")
        for v, s in self.evidence:
            if s is None:
                raise QueryError(f"evidence variable {v!r} needs a state, as in {v}="
                                 f"{net.states(v)[0]}")
        repeated = sorted({v for v in names if names.count(v) > 1})
        if repeated:
            raise QueryError(f"variable(s) {repeated} named more than once in {self.text()}")
        if self.kind == "MAP" and any(s is not None for _, s in self.targets):
            raise QueryError("MAP takes variables without states, as in MAP(C, S | A=T)")

    def answer(self, net):
        """Factor for a distribution; float for a probability; (assignment, p) for MAP/MPE."""
        self.validate(net)
        evidence = self.evidence_dict
        if self.kind == "MPE":
            return net.mpe(evidence)
        if self.kind == "MAP":
            return net.map([v for v, _ in self.targets], evidence)
        assigned = {v: s for v, s in self.targets if s is not None}
        free = [v for v, s in self.targets if s is None]
        if not free and not evidence:
            return net.probability(assigned)
        if not free:  # P(a | e), read off the posterior (Gaussian evidence included)
            return float(net.posterior(list(assigned), evidence).reduce(assigned).values)
        joint = net.posterior(free + list(assigned), evidence)
        return joint.reduce(assigned) if assigned else joint

    def log_answer(self, net) -> float:
        """log P(targets | evidence), the natural logarithm, for a query of one number
        (every target assigned): exact where the probability is below 1e-308 and prints
        as 0; −inf when it is 0. What ``bbn query --log`` prints."""
        self.validate(net)
        if self.kind != "P" or any(s is None for _, s in self.targets):
            raise QueryError(f"--log needs the probability of an assignment, as in P(A=T, S=F) "
                             f"or P(C=T | A=T); {self.text()} is not one")
        evidence = self.evidence_dict
        assigned = {v: s for v, s in self.targets}
        if any(v in evidence and evidence[v] != s for v, s in assigned.items()):
            return -math.inf
        joint = net.log_probability({**evidence, **assigned})
        if not evidence:
            return joint
        marginal = net.log_probability(evidence)
        if marginal == -math.inf:
            raise ImpossibleEvidenceError(evidence)
        return joint - marginal

    def to_json(self, result) -> dict:
        """The JSON document ``bbn query --json`` prints for ``result``."""
        if isinstance(result, Factor):
            rows = [{**dict(zip(result.variables, key)), "p": value}
                    for key, value in result.rows()]
            return {"query": self.text(), "variables": list(result.variables), "rows": rows}
        if isinstance(result, tuple):
            assignment, p = result
            return {"query": self.text(), "assignment": assignment, "p": p}
        return {"query": self.text(), "p": float(result)}

    def to_text(self, result, digits: int = 6) -> str:
        """The readable answer ``bbn query`` prints."""
        if isinstance(result, Factor):
            return f"{self.text()}\n{result.to_text(digits=digits)}"
        if isinstance(result, tuple):
            assignment, p = result
            width = max((len(v) for v in assignment), default=0)
            lines = [f"  {v.ljust(width)} = {s}" for v, s in assignment.items()]
            return "\n".join([self.text(), *lines, f"  probability {p:.{digits}f}"])
        return f"{self.text()} = {float(result):.{digits}f}"


def _is_finite_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def parse_query(text: str, net=None, source: str = "<query>") -> Query:
    """Parse a query; with ``net``, also check its variables and states."""
    result = _parse("query", text, source)
    query = Query(kind=result["kind"].upper(), targets=result.get("targets", ()),
                  evidence=result.get("evidence", ()))
    if net is not None:
        query.validate(net)
    return query


def parse_evidence(text: str, net=None, source: str = "<evidence>") -> dict[str, str]:
    """Parse ``"A=T, S=F"`` into ``{"A": "T", "S": "F"}`` (checked against ``net``)."""
    query = Query("P", (), _parse("evidence", text, source)["evidence"])
    if net is not None:
        query.validate(net)
    elif any(s is None for _, s in query.evidence):
        raise QueryError("every evidence item needs a state, as in A=T")
    return query.evidence_dict


def answer(net, text: str):
    """Parse and answer ``text`` on ``net`` (what :meth:`Network.query` does)."""
    return parse_query(text, net).answer(net)

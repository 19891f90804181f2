"""A derivation's records (:class:`Table`, :class:`Entry`, :class:`Elimination`,
:class:`Derivation`) and the derivation written out: plain text, Markdown (with LaTeX
formulas) or LaTeX. :mod:`bbn.tasks.explain.derivation` fills the records from the engine.

One document — numbered sections of prose and formulas — and two notations for formulas:
Unicode (``Σ_B P(A=T | B) ψ1(C, S)``) for text, LaTeX (``\\sum_{B} P(A{=}T \\mid B)``) for
Markdown and LaTeX. Numbers are the derivation's (the engine's), printed to
:data:`DIGITS` significant digits.

>>> import bbn
>>> from bbn.tasks.explain.derivation import explain
>>> text = render(explain(bbn.load("models/chair.bn"), "P(C=T | A=T)"), "text")
>>> print(text.splitlines()[-1])
     P(C=T | A=T) = 0.18272 / 0.206056 = 0.886749  (= 22840/25757)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from bbn.core.errors import QueryError, suggest
from bbn.core.factor import Factor
from bbn.questions.language import Query

#: Significant digits of the numbers written.
DIGITS = 6

#: The renderings :func:`render` knows.
FORMATS = ("text", "markdown", "latex")

#: Steps whose product has more entries than this are written without their numbers.
MAX_WRITTEN = 64

#: A ratio is also shown as a fraction when its denominator is at most this.
MAX_DENOMINATOR = 1_000_000

@dataclass(frozen=True)
class Table:
    """A factor of the derivation: a network table P(variable | parents), evidence states
    fixed in it (``fixed``), or the output ψ``number`` of a step over ``variables``."""

    variables: tuple[str, ...]
    variable: str | None = None  # the table's own variable; None for a step's output
    parents: tuple[str, ...] = ()
    fixed: tuple[tuple[str, str], ...] = ()
    number: int = 0


@dataclass(frozen=True)
class Entry:
    """One entry of a step's output: the states of its variables (``assignment``), one
    product of input entries per state of the eliminated variable (``terms``), and the
    engine's value of the entry."""

    assignment: tuple[tuple[str, str], ...]
    terms: tuple[tuple[float, ...], ...]
    value: float


@dataclass(frozen=True)
class Elimination:
    """One step of the plan: ``output`` = Σ (max, for MAP) over ``eliminated`` of the
    product of ``inputs``; the last step (``eliminated`` None) multiplies what is left.
    ``entries`` is None when the product (``size`` entries) is too large to write."""

    output: Table
    eliminated: str | None
    maximize: bool
    inputs: tuple[Table, ...]
    entries: tuple[Entry, ...] | None
    size: int


@dataclass(frozen=True)
class Derivation:
    """The working of one question, step by step, with the engine's numbers.

    Attributes
    ----------
    query : Query
        The question (``P``, ``MAP`` or ``MPE``).
    factorisation : tuple of Table
        Every table of the network: P(X1, ..., Xn) is their product.
    barren, separated : tuple of str
        The variables whose tables drop out: barren ones sum to 1; d-separated ones only
        multiply numerator and denominator by the same constant.
    steps : tuple of Elimination
        The plan's steps, in its order; the last one's output is the numerator table.
    result : Factor
        The last step's output over the question's unobserved targets: P(q, e) (up to the
        constant of the d-separated tables). For MAP, max_m P(m, e) (no variables).
    total : float
        Σ of ``result`` (P(e), up to the same constant); for MAP, P(e) itself.
    answer : float, Factor or tuple
        What :meth:`bbn.Network.query` answers.
    numerator : float or None
        For one probability (every target assigned), or MAP: the entry divided by ``total``.
    fraction : str or None
        ``numerator / total`` as a fraction ``"p/q"`` when both are short decimals or
        simple fractions (``22840/25757``).
    """

    query: Query
    factorisation: tuple[Table, ...]
    barren: tuple[str, ...]
    separated: tuple[str, ...]
    steps: tuple[Elimination, ...]
    result: Factor
    total: float
    answer: object
    numerator: float | None
    fraction: str | None
    #: for a question with do(...): what the intervention does (text, one line each)
    intervention: tuple[str, ...] = ()
    #: for likelihood evidence: each likelihood's virtual child (text, one line each)
    likelihoods: tuple[str, ...] = ()
    #: for continuous findings: the regressions and the likelihood they give (text lines)
    regression: tuple[str, ...] = ()
    #: for a continuous target: the mixture's components (text lines)
    mixture: tuple[str, ...] = ()
    #: for a continuous target: the components (weight, mean, variance) it derived
    components: tuple[tuple[float, float, float], ...] = ()
    #: the question as asked, when the derivation is of a discrete one derived from it
    title: str | None = None

    def to_text(self) -> str:
        """The derivation as plain text (Unicode: Σ, ×, ψ)."""
        return render(self, "text")

    def to_markdown(self) -> str:
        """The derivation as Markdown with LaTeX formulas (``$...$``), as a notebook
        shows it."""
        return render(self, "markdown")

    def to_latex(self) -> str:
        """The derivation as a LaTeX fragment (``enumerate`` and display formulas)."""
        return render(self, "latex")

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_text()


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&",
                  "%": r"\%", "$": r"\$", "#": r"\#", "^": r"\^{}", "~": r"\~{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


@dataclass(frozen=True)
class _Notation:
    """How formulas are written: Unicode (``latex`` False) or LaTeX."""

    latex: bool

    def name(self, text: str) -> str:
        return r"\mathrm{" + _latex_escape(text) + "}" if self.latex else text

    def item(self, variable: str, state: str | None = None) -> str:
        if state is None:
            return self.name(variable)
        return self.name(variable) + ("{=}" if self.latex else "=") + self.name(state)

    def given(self, left: str, right: str) -> str:
        if not right:
            return f"P({left})"
        return f"P({left} \\mid {right})" if self.latex else f"P({left} | {right})"

    def items(self, pairs: Sequence[tuple[str, str | None]]) -> str:
        return ", ".join(self.item(v, s) for v, s in pairs)

    def table(self, table: Table, states: dict[str, str] | None = None) -> str:
        """P(A=T | B), or ψ1(C, S); with ``states``, at those states."""
        states = states or {}
        if table.variable is None:
            args = self.items([(u, states.get(u)) for u in table.variables])
            return (rf"\psi_{{{table.number}}}({args})" if self.latex
                    else f"ψ{table.number}({args})")
        fixed = dict(table.fixed)
        at = {**states, **fixed}
        return self.given(self.item(table.variable, at.get(table.variable)),
                          self.items([(p, at.get(p)) for p in table.parents]))

    def product(self, tables: Sequence[Table]) -> str:
        return (r" \, " if self.latex else " ").join(self.table(t) for t in tables)

    def operator(self, variable: str, maximize: bool) -> str:
        if self.latex:
            return (r"\max" if maximize else r"\sum") + "_{" + self.name(variable) + "} "
        return ("max_" if maximize else "Σ_") + variable + " "

    def number(self, x: float) -> str:
        text = f"{x:.{DIGITS}g}"
        if self.latex and "e" in text:
            mantissa, exponent = text.split("e")
            return rf"{mantissa} \times 10^{{{int(exponent)}}}"
        return text

    def times(self) -> str:
        return r" \times " if self.latex else " × "

    def ratio(self, a: str, b: str) -> str:
        return rf"\frac{{{a}}}{{{b}}}" if self.latex else f"{a} / {b}"


@dataclass
class _Section:
    title: str
    blocks: list[tuple[str, str]]  # ("text" | "math", content)


def render(derivation: Derivation, format: str = "text") -> str:
    """The derivation in ``format``: ``"text"``, ``"markdown"`` or ``"latex"``.

    Parameters
    ----------
    derivation : Derivation
        What :func:`bbn.tasks.explain.explain` returns.
    format : {"text", "markdown", "latex"}

    Returns
    -------
    str

    Raises
    ------
    QueryError
        For an unknown format (with a suggestion).

    Examples
    --------
    >>> import bbn
    >>> from bbn.tasks.explain.derivation import explain
    >>> latex = render(explain(bbn.load("models/chair.bn"), "P(C | A=T)"), "latex")
    >>> latex.splitlines()[0]
    '\\\\begin{enumerate}'
    """
    if format not in FORMATS:
        raise QueryError(f"unknown format {format!r}; the formats are {', '.join(FORMATS)}"
                         f"{suggest(format, FORMATS)}")
    notation = _Notation(latex=format != "text")
    sections = _sections(derivation, notation)
    title = derivation.title or derivation.query.text()
    if format == "text":
        lines = [title]
        for number, section in enumerate(sections, start=1):
            lines.append(f"{number}. {section.title}")
            lines += [("     " if kind == "math" else "   ") + content
                      for kind, content in section.blocks]
        return "\n".join(lines)
    if format == "markdown":
        lines = [f"**{_markdown_escape(title)}**", ""]
        for number, section in enumerate(sections, start=1):
            lines += [f"{number}. **{_markdown_escape(section.title)}**", ""]
            for kind, content in section.blocks:
                lines += [f"   $${content}$$" if kind == "math"
                          else f"   {_markdown_escape(content)}", ""]
        return "\n".join(lines).rstrip() + "\n"
    lines = [r"\begin{enumerate}"]
    for section in sections:
        lines.append(r"\item \textbf{" + _latex_escape(section.title) + "}")
        for kind, content in section.blocks:
            lines.append(r"\[ " + content + r" \]" if kind == "math"
                         else _latex_escape(content))
    lines.append(r"\end{enumerate}")
    return "\n".join(lines) + "\n"


def _markdown_escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>#|$" else c for c in text)


def _sections(d: Derivation, n: _Notation) -> list[_Section]:
    query = d.query
    evidence = [(v, s) for v, s in query.evidence]
    kind = query.kind
    targets = list(query.targets) if kind != "MPE" else []
    maximized = kind != "P"
    if not d.steps:  # a continuous target that is one normal: its regressions alone
        return [_Section(title, [("text", line) for line in lines]) for title, lines in
                (("The regressions", d.regression), ("The continuous target", d.mixture))
                if lines]
    last = d.steps[-1]
    final = _final_name(d, n)
    sections = []
    if d.regression:
        sections.append(_Section("The regressions", [("text", line)
                                                             for line in d.regression]))
    if d.likelihoods:
        sections.append(_Section("The likelihood evidence", [("text", line)
                                                             for line in d.likelihoods]))
    if d.intervention:
        sections.append(_Section("The intervention", [("text", line)
                                                      for line in d.intervention]))
        evidence = [(v, s) for v, s in evidence if v not in dict(query.do)]
    if kind == "P" and evidence:
        asked = n.items(targets)
        sections.append(_Section("Definition of conditional probability", [
            ("math", f"{n.given(asked, n.items(evidence))} = "
                     + n.ratio(n.given(n.items(targets + evidence), ''),
                               n.given(n.items(evidence), '')))]))
    elif maximized:
        what = ("every unobserved variable" if kind == "MPE"
                else ", ".join(v for v, _ in targets))
        sections.append(_Section("What is asked", [
            ("text", f"The most probable joint state of {what}"
                     + (f" given {_plain(evidence)}" if evidence else "")
                     + ": the maximum of P(m, e) over m, divided by P(e).")]))
    factors = d.factorisation
    every = [table.variable for table in factors]
    sections.append(_Section("Factorisation by the network", [
        ("math", f"{n.given(n.items([(v, None) for v in every]), '')} = {n.product(factors)}")]))
    dropped: list[tuple[str, str]] = []
    by_variable = {table.variable: table for table in factors}
    if d.barren:
        names = ", ".join(d.barren)
        tables = ", ".join(_plain_table(by_variable[v]) for v in d.barren)
        dropped.append(("text", f"{names} {'is' if len(d.barren) == 1 else 'are'} barren: "
                        "neither asked nor observed, nor an ancestor of a variable that is. "
                        f"Summed out children first, each table sums to 1 ({tables}), so "
                        + ("it drops out." if len(d.barren) == 1 else "they drop out.")))
    if d.separated:
        observed = dict(evidence)
        tables = ", ".join(_plain_table(replace(by_variable[v], fixed=tuple(
            (u, observed[u]) for u in by_variable[v].variables if u in observed)))
            for v in d.separated)
        dropped.append(("text", f"The evidence d-separates {tables} from the question: "
                        "these tables make a factor of their own, the same constant in "
                        "the numerator and in P(e), which cancels in the ratio (the sums "
                        "below are the numerator over that constant)."))
    position = {v: i for i, v in enumerate(every)}
    sources = sorted((t for step in d.steps for t in step.inputs if t.variable is not None),
                     key=lambda t: position[t.variable])
    eliminated = [step.eliminated for step in d.steps if step.eliminated is not None]
    operators = "".join(n.operator(v, step.maximize) for step in reversed(d.steps)
                        for v in [step.eliminated] if v is not None)
    dropped.append(("math", f"{final} = {operators}{n.product(sources)}"))
    sections.append(_Section("What drops out" if d.barren or d.separated
                             else "The question in the network's tables", dropped))
    blocks: list[tuple[str, str]] = []
    for step in d.steps:
        blocks += _step_blocks(step, step is last, final, d, n)
    title = "Sum rule" if not maximized else "Sum, then max"
    sections.append(_Section(f"{title}, one variable at a time, in the order "
                             f"{', '.join(eliminated)}" if eliminated
                             else f"{title}: nothing to sum out", blocks))
    sections.append(_normalisation(d, n, final, targets, evidence))
    if d.mixture:
        sections.append(_Section("The continuous target", [("text", line)
                                                           for line in d.mixture]))
    return sections


def _plain(pairs: Sequence[tuple[str, str | None]]) -> str:
    return ", ".join(v if s is None else f"{v}={s}" for v, s in pairs)


def _plain_table(table: Table) -> str:
    return _Notation(latex=False).table(table)


def as_fraction(numerator: float, denominator: float) -> str | None:
    """``"p/q"`` for numerator / denominator when both are short decimals or simple
    fractions, else None.

    >>> as_fraction(0.18272, 0.206056), as_fraction(1 / 3, 0.5), as_fraction(0.1234567891, 1)
    ('22840/25757', '2/3', None)
    """
    parts = []
    for x in (numerator, denominator):
        exact = Fraction(x).limit_denominator(MAX_DENOMINATOR)
        if not math.isclose(float(exact), x, rel_tol=1e-12, abs_tol=1e-300):
            return None
        parts.append(exact)
    if parts[1] == 0:
        return None
    ratio = parts[0] / parts[1]
    if ratio.denominator == 1 or ratio.denominator > MAX_DENOMINATOR:  # 0 and 1 say no more
        return None
    return f"{ratio.numerator}/{ratio.denominator}"


def _final_name(d: Derivation, n: _Notation, states: dict | None = None) -> str:
    """The name of the last step's output: P(C, A=T); φ(C) when d-separated tables were
    dropped (it is P(C, A=T) over a constant); max P(...) for MAP."""
    states = states or {}
    variables = [(u, states.get(u)) for u in d.result.variables]
    evidence = list(d.query.evidence)
    if d.query.kind != "P":
        assignment, _ = d.answer
        asked = [v for v in assignment if v not in dict(evidence)]
        joint = n.given(n.items([(v, None) for v in asked] + evidence), "")
        return (r"\max_{" + ", ".join(map(n.name, asked)) + "} " if n.latex
                else "max_" + ",".join(asked) + " ") + joint
    if d.separated:
        return (r"\varphi" if n.latex else "φ") + f"({n.items(variables)})"
    return n.given(n.items(variables + evidence), "")


def _step_blocks(step: Elimination, is_last: bool, final: str, d: Derivation,
                 n: _Notation) -> list[tuple[str, str]]:
    name = final if is_last else n.table(step.output)
    operator = "" if step.eliminated is None else n.operator(step.eliminated, step.maximize)
    blocks = [("math", f"{name} = {operator}{n.product(step.inputs) or '1'}")]
    if is_last and len(step.inputs) == 1 and (d.query.kind != "P" or
                                               step.inputs[0].variable is None):
        return blocks  # a product of one table: its entries are written above
    if step.entries is None:
        blocks.append(("text", f"(a product of {step.size:,} entries: its numbers are not "
                               "written out)"))
        return blocks
    for entry in step.entries:
        states = dict(entry.assignment)
        left = (_final_name(d, n, states) if is_last and d.query.kind == "P"
                else name if is_last else n.table(step.output, states))
        products = [n.times().join(n.number(x) for x in term) or "1" for term in entry.terms]
        if len(products) == 1 and len(entry.terms[0]) < 2:
            blocks.append(("math", f"{left} = {n.number(entry.value)}"))
            continue
        if step.maximize:
            written = ("max(" if not n.latex else r"\max(") + ", ".join(products) + ")"
        else:
            written = " + ".join(products)
        blocks.append(("math", f"{left} = {written} = {n.number(entry.value)}"))
    return blocks


def _normalisation(d: Derivation, n: _Notation, final: str, targets, evidence) -> _Section:
    blocks: list[tuple[str, str]] = []
    evidence_name = n.given(n.items(evidence), "") if evidence else "1"
    if d.query.kind != "P":
        assignment, p = d.answer
        chosen = n.items(list(assignment.items()))
        if evidence:
            blocks.append(("math", f"{evidence_name} = {n.number(d.total)}"))
        blocks.append(("math", f"{n.given(chosen, n.items(evidence))} = "
                               f"{n.ratio(n.number(d.numerator), n.number(d.total))} = "
                               f"{n.number(p)}" + _fraction(d.fraction, n)))
        return _Section("The most probable state, and its probability", blocks)
    values = d.result.values.ravel()
    asked = d.result.variables
    if evidence:
        terms = (" + ".join(n.number(x) for x in values) + " = "
                 if len(values) <= 16 else "")
        summed = (n.operator(",".join(asked), False) if asked else "") + final
        # with d-separated tables dropped, the sum is P(e) over their constant, not P(e)
        total = "" if d.separated else f"{evidence_name} = "
        blocks.append(("math", f"{total}{summed} = {terms}{n.number(d.total)}"))
    else:
        blocks.append(("text", "No evidence: the table sums to 1, nothing to divide by."))
    if d.numerator is not None:
        rows = [(targets, d.numerator)]
    else:
        rows = []
        for index, value in zip(itertools.product(*(d.result.states[v] for v in asked)),
                                values[:MAX_WRITTEN]):
            at = dict(zip(asked, index))
            rows.append(([(v, at.get(v, s)) for v, s in targets], value))
    for items, value in rows:
        ratio = (f"{n.ratio(n.number(value), n.number(d.total))} = " if evidence else "")
        blocks.append(("math", f"{n.given(n.items(items), n.items(evidence))} = {ratio}"
                               f"{n.number(value / d.total)}"
                               + _fraction(as_fraction(value, d.total), n)))
    if len(values) > MAX_WRITTEN:
        blocks.append(("text", f"(and {len(values) - MAX_WRITTEN:,} more entries)"))
    return _Section("Normalisation" if evidence else "The answer", blocks)


def _fraction(fraction: str | None, n: _Notation) -> str:
    """`` (= p/q)`` after a ratio that is a simple fraction."""
    if fraction is None:
        return ""
    p, q = fraction.split("/")
    return (rf" \quad (= {n.ratio(p, q)})" if n.latex else f"  (= {fraction})")

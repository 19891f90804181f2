"""The derivation (``net.explain``, ``bbn explain``): the chair's steps, numbers and order
by hand (EXAMPLES.md §1), Monty Hall (§2), random networks against the joint table, and
the three renderings (LaTeX checked without LaTeX: balanced braces, known commands)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import QueryError
from tests.brute_force import BruteForce
from tests.strategies import random_network

#: Every command a LaTeX rendering may use.
KNOWN_COMMANDS = {"begin", "end", "item", "textbf", "mathrm", "sum", "max", "mid", "frac",
                  "psi", "varphi", "times", "quad", "textbackslash", "_", "{", "}", "&",
                  "%", "$", "#", "^", "~", ",", "[", "]"}


def latex_problems(text: str) -> list[str]:
    """What would stop the LaTeX fragment from compiling, read without LaTeX: unbalanced
    braces, unknown commands, unmatched environments or display formulas."""
    problems = []
    depth = 0
    for match in re.finditer(r"\\([A-Za-z]+|.)|([{}])", text):
        command, brace = match.groups()
        if command is not None and command not in KNOWN_COMMANDS:
            problems.append(f"unknown command \\{command}")
        if brace == "{":
            depth += 1
        elif brace == "}":
            depth -= 1
            if depth < 0:
                problems.append("a } closes nothing")
    if depth:
        problems.append(f"{depth} unclosed braces")
    if re.findall(r"\\begin\{(\w+)\}", text) != re.findall(r"\\end\{(\w+)\}", text)[::-1]:
        problems.append("environments do not match")
    if text.count(r"\[") != text.count(r"\]"):
        problems.append("display formulas do not match")
    unicode = sorted(set(re.sub(r"\\mathrm\{[^}]*\}", "", text)) & set("ΣψφΦ×⟂→←"))
    if unicode:  # pdflatex stops at these outside the names: the notation must be commands
        problems.append(f"characters LaTeX does not know: {''.join(unicode)}")
    return problems


# ------------------------------------------------------------------ the chair
def test_chair_steps_numbers_and_order(chair):
    d = bbn.explain(chair, "P(C=T | A=T)")
    assert d.barren == ("W",) and d.separated == ()
    assert [step.eliminated for step in d.steps] == ["B", "S", None]
    first, second, last = d.steps
    # ψ1(C, S) = Σ_b P(b | C, S) P(A=T | b), by hand from the tables
    by_hand = {("T", "T"): 0.9 * 0.7 + 0.1 * 0.1, ("T", "F"): 0.2 * 0.7 + 0.8 * 0.1,
               ("F", "T"): 0.9 * 0.7 + 0.1 * 0.1, ("F", "F"): 0.01 * 0.7 + 0.99 * 0.1}
    assert {tuple(s for _, s in e.assignment): e.value for e in first.entries} == \
        pytest.approx(by_hand, abs=1e-15)
    # ψ2(C) = Σ_s P(s) ψ1(C, s)
    assert [e.value for e in second.entries] == pytest.approx(
        [0.02 * 0.64 + 0.98 * 0.22, 0.02 * 0.64 + 0.98 * 0.106], abs=1e-15)
    assert [e.value for e in last.entries] == pytest.approx([0.18272, 0.023336], abs=1e-15)
    assert d.numerator == pytest.approx(0.18272, abs=1e-15)
    assert d.total == pytest.approx(25757 / 125000, abs=1e-15)
    assert d.answer == pytest.approx(22840 / 25757, abs=1e-15)
    assert d.answer == chair.query("P(C=T | A=T)")
    assert d.fraction == "22840/25757"


def test_chair_text_reads_as_the_course_writes_it(chair):
    lines = bbn.explain(chair, "P(C=T | A=T)").to_text().splitlines()
    assert lines[0] == "P(C=T | A=T)"
    assert "     P(C=T | A=T) = P(C=T, A=T) / P(A=T)" in lines
    assert "     P(C, S, W, B, A) = P(C) P(S) P(W | C) P(B | C, S) P(A | B)" in lines
    assert any(line.startswith("   W is barren") and "P(W | C)" in line for line in lines)
    assert "     P(C, A=T) = Σ_S Σ_B P(C) P(S) P(B | C, S) P(A=T | B)" in lines
    assert "     ψ1(C=T, S=T) = 0.7 × 0.9 + 0.1 × 0.1 = 0.64" in lines
    assert "     P(C=T, A=T) = 0.8 × 0.2284 = 0.18272" in lines
    assert "     P(A=T) = Σ_C P(C, A=T) = 0.18272 + 0.023336 = 0.206056" in lines
    assert lines[-1] == "     P(C=T | A=T) = 0.18272 / 0.206056 = 0.886749  (= 22840/25757)"
    sections = [line for line in lines if re.match(r"\d\. ", line)]
    assert [s[3:].split(",")[0] for s in sections] == [
        "Definition of conditional probability", "Factorisation by the network",
        "What drops out", "Sum rule", "Normalisation"]


def test_chair_map_is_explained_with_max_steps(chair):
    d = bbn.explain(chair, "MAP(C, S | A=T)")
    assert d.answer[0] == {"C": "T", "S": "F"}
    assert [s.maximize for s in d.steps if s.eliminated] == [False, True, True]
    assert d.numerator / d.total == pytest.approx(d.answer[1], rel=1e-12)
    assert d.numerator == pytest.approx(0.8 * 0.98 * 0.22, abs=1e-15)  # P(C=T, S=F, A=T)
    assert "max(0.02 × 0.512, 0.98 × 0.176) = 0.17248" in d.to_text()


# -------------------------------------------------------------- Monty Hall
def test_monty_hall_switching_wins_two_thirds(models):
    net = bbn.load(models / "monty_hall.bn")
    d = bbn.explain(net, "P(Princess | King=B)")
    assert d.total == pytest.approx(0.5, abs=1e-15)  # P(king opens B)
    assert d.answer.to_dict() == pytest.approx({"A": 1 / 3, "B": 0.0, "C": 2 / 3}, abs=1e-12)
    text = d.to_text()
    assert "P(Princess=C | King=B) = 0.333333 / 0.5 = 0.666667  (= 2/3)" in text
    assert "P(Princess=A | King=B) = 0.166667 / 0.5 = 0.333333  (= 1/3)" in text
    assert bbn.explain(net, "P(Princess=C | King=B)").fraction == "2/3"


# ------------------------------------------------------------- random networks
@pytest.mark.parametrize("seed", range(30))
def test_derivations_agree_with_the_joint_table(seed):
    net = random_network(seed, max_variables=6, max_states=3)
    oracle = BruteForce(net)
    rng = np.random.default_rng(seed)
    names = list(rng.permutation(net.variables))
    target = names[0]
    evidence = {v: str(rng.choice(net.states(v))) for v in names[1:] if rng.random() < 0.4}
    if oracle.p_evidence(evidence) == 0:
        with pytest.raises(bbn.ImpossibleEvidenceError):
            bbn.explain(net, f"P({target} | " + ", ".join(f"{v}={s}" for v, s in evidence.items())
                        + ")")
        return
    given = ", ".join(f"{v}={s}" for v, s in evidence.items())
    d = bbn.explain(net, f"P({target} | {given})" if given else f"P({target})")
    expected = oracle.posterior([target], evidence)
    assert d.answer.values == pytest.approx(expected, abs=1e-12)
    if not d.separated:  # the last step's output is P(target, e) itself
        assert d.result.values == pytest.approx(oracle.unnormalised([target], evidence),
                                                abs=1e-12)
    for step in d.steps:  # each written entry is the arithmetic it shows
        for entry in step.entries or ():
            products = [math.prod(term) for term in entry.terms]
            shown = max(products) if step.maximize else sum(products)
            assert entry.value == pytest.approx(shown, rel=1e-12, abs=1e-300)
    assert not latex_problems(d.to_latex())


# ---------------------------------------------------------------- renderings
def test_latex_balances_and_uses_only_known_commands(chair, models):
    for net, query in [(chair, "P(C=T | A=T)"), (chair, "MAP(C, S | A=T)"),
                       (chair, "P(B, C=T | A=T)"), (chair, "MPE(A=T)"),
                       (bbn.load(models / "monty_hall.bn"), "P(Princess | King=B)")]:
        latex = bbn.explain(net, query).to_latex()
        assert latex_problems(latex) == [], query
    assert latex_problems(r"\frac{1}{2") == ["1 unclosed braces"]  # the check can fail
    assert latex_problems(r"\input{x}") == ["unknown command \\input"]
    assert latex_problems("ψ") == ["characters LaTeX does not know: ψ"]


def test_latex_escapes_awkward_names():
    net = bbn.Network("awkward")
    net.add_variable("a_b{c}", ["x%1", "y#2"], table=[0.25, 0.75])
    net.add_variable("back\\slash", ["$", "&"], parents=["a_b{c}"],
                     table=[[0.5, 0.5], [0.1, 0.9]])
    d = bbn.explain(net, 'P("a_b{c}"="x%1" | "back\\\\slash"="$")')
    latex = d.to_latex()
    assert latex_problems(latex) == []
    assert r"\mathrm{a\_b\{c\}}" in latex and r"\mathrm{back\textbackslash{}slash}" in latex
    assert d.answer == pytest.approx(0.125 / (0.125 + 0.075), abs=1e-12)


def test_markdown_is_what_a_notebook_shows(chair):
    d = bbn.explain(chair, "P(C=T | A=T)")
    markdown = d._repr_markdown_()
    assert markdown == d.to_markdown()
    assert markdown.startswith("**P(C=T \\| A=T)**")
    assert r"$$P(\mathrm{C}{=}\mathrm{T} \mid \mathrm{A}{=}\mathrm{T}) = \frac{0.18272}" \
           r"{0.206056} = 0.886749 \quad (= \frac{22840}{25757})$$" in markdown


def test_large_steps_are_elided_with_their_sizes():
    net = bbn.Network("wide")
    states = [str(i) for i in range(5)]
    net.add_variable("A", states, table=[0.2] * 5)
    net.add_variable("B", states, parents=["A"], table=np.full((5, 5), 0.2))
    net.add_variable("C", states, parents=["A", "B"], table=np.full((5, 5, 5), 0.2))
    d = bbn.explain(net, "P(C=0)")
    assert [s.entries is None for s in d.steps] == [True, False, False]
    assert "(a product of 125 entries: its numbers are not written out)" in d.to_text()
    assert d.answer == pytest.approx(0.2, abs=1e-15)


# ------------------------------------------------------------------- errors, CLI
def test_questions_explain_does_not_take(chair):
    with pytest.raises(QueryError, match="explain takes P"):
        bbn.explain(chair, "C _|_ S")
    with pytest.raises(QueryError, match="named more than once"):
        bbn.explain(chair, "P(A | A=T)")
    with pytest.raises(QueryError, match="did you mean 'C'"):
        bbn.explain(chair, "P(c | A=T)")


def test_bbn_explain(capsys, chair_file):
    assert main(["explain", str(chair_file), "P(C=T | A=T)"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].endswith("= 0.886749  (= 22840/25757)")
    assert main(["explain", str(chair_file), "P(C=T | A=T)", "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert latex.startswith(r"\begin{enumerate}") and latex_problems(latex) == []
    assert main(["explain", str(chair_file), "P(C | A=T)", "--format", "markdown"]) == 0
    assert "$$" in capsys.readouterr().out
    assert main(["explain", str(chair_file), "H(C)"]) == 2
    assert "explain takes P(...)" in capsys.readouterr().err


def test_bbn_explain_of_impossible_evidence_exits_1(capsys, tmp_path):
    path = tmp_path / "sure.bn"
    path.write_text("variable X { a, b }\nP(X) = 1, 0\n")
    assert main(["explain", str(path), "P(X | X=b)"]) == 2  # asked and observed: ill-formed
    capsys.readouterr()
    path.write_text("variable X { a, b }\nvariable Y { a, b }\nP(X) = 1, 0\n"
                    "P(Y | X) {\n a: 1, 0\n b: 0.5, 0.5\n}\n")
    assert main(["explain", str(path), "P(X | Y=b)"]) == 1


def test_d_separated_tables_are_named_and_cancel(chair):
    # B=T cuts A off from C and S: Σ_{c,s} P(c) P(s) P(B=T | c, s) = P(B=T) is a constant
    d = bbn.explain(chair, "P(A | B=T)")
    assert d.barren == ("W",) and d.separated == ("C", "S", "B")
    assert d.answer.to_dict() == pytest.approx({"T": 0.7, "F": 0.3}, abs=1e-15)
    assert d.total == pytest.approx(1.0, abs=1e-15)  # not P(B=T) = 0.17676: the constant left
    text = d.to_text()
    assert "d-separates P(C), P(S), P(B=T | C, S) from the question" in text
    assert "     Σ_A φ(A) = 0.7 + 0.3 = 1" in text and "P(B=T) =" not in text
    assert latex_problems(d.to_latex()) == []


def test_quoted_names_with_the_independence_sign_stay_probability_questions():
    net = bbn.Network("odd names")
    net.add_variable("a_|_b", ["x", "y"], table=[0.25, 0.75])
    assert net.query('P("a_|_b"=x)') == pytest.approx(0.25)
    assert bbn.explain(net, 'P("a_|_b"=x)').answer == pytest.approx(0.25)


@pytest.mark.parametrize("seed", range(20))
def test_map_derivations_reach_the_brute_force_maximum(seed):
    net = random_network(seed, max_variables=6, max_states=3)
    oracle = BruteForce(net)
    rng = np.random.default_rng(seed)
    names = [str(v) for v in rng.permutation(net.variables)]
    evidence = {v: str(rng.choice(net.states(v))) for v in names[2:] if rng.random() < 0.3}
    if oracle.p_evidence(evidence) == 0:
        return
    given = ", ".join(f"{v}={s}" for v, s in evidence.items())
    asked = names[:2] if len(names) > 1 else names[:1]
    d = bbn.explain(net, f"MAP({', '.join(asked)}" + (f" | {given})" if given else ")"))
    best = float(oracle.posterior(asked, evidence).max())
    assert d.answer[1] == pytest.approx(best, abs=1e-12)
    assert d.numerator / d.total == pytest.approx(best, abs=1e-12)
    assert d.total == pytest.approx(oracle.p_evidence(evidence), rel=1e-12)
    assert latex_problems(d.to_latex()) == []

"""The questions layer (issue 27): one dispatch module holds every switch on the method,
one resolver looks names up once per question, and a new kind of question plugs into
the registry of kinds."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.questions import dispatch, resolution

BBN = pathlib.Path(__file__).resolve().parent.parent / "bbn"


def _is_method(node: ast.AST) -> bool:
    """A name or attribute called ``method`` (``method``, ``args.method``)."""
    return (isinstance(node, ast.Name) and node.id == "method") or (
        isinstance(node, ast.Attribute) and node.attr == "method")


def method_comparisons(tree: ast.AST) -> list[int]:
    """Lines comparing a ``method`` (``method != "exact"``, ``args.method == ...``,
    ``... in method``) or asking ``isinstance(method, ...)``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
                _is_method(operand) for operand in [node.left, *node.comparators]):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "isinstance" and node.args and _is_method(node.args[0])):
            lines.append(node.lineno)
    return lines


#: Where ``method`` is not a question's method: the approximate engines' own table of
#: method names and values, the structure-learning algorithm (``bbn structure
#: --method``, ``learn_structure(method=...)``), the discretisation's
#: (``bbn.discretize(frame, method="mdlp")``), and ``bbn uai --method auto`` (a strategy
#: over methods, bbn.tasks.anytime, not a method dispatch answers).
OTHER_METHODS = ("bbn/engines/approximate/methods.py", "bbn/tasks/structure/structure_learning.py",
                 "bbn/apps/cli/structure.py", "bbn/apps/cli/uai_competition.py",
                 "bbn/tasks/learning/discretisation.py")


def test_only_dispatch_switches_on_the_method():
    found = {}
    for path in sorted(BBN.rglob("*.py")):
        relative = path.relative_to(BBN.parent).as_posix()
        if relative == "bbn/questions/dispatch.py" or relative in OTHER_METHODS:
            continue
        lines = method_comparisons(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[relative] = lines
    assert found == {}
    assert method_comparisons(ast.parse((BBN / "questions" / "dispatch.py").read_text(
        encoding="utf-8")))  # the switch is there


@pytest.fixture()
def resolutions(monkeypatch):
    """The number of calls of the one resolver."""
    calls = []
    original = resolution.resolve

    def counting(network, asked):
        calls.append(asked.kind)
        return original(network, asked)

    monkeypatch.setattr(resolution, "resolve", counting)
    return calls


@pytest.fixture(scope="module")
def chair():
    return bbn.load("models/chair.bn")


@pytest.mark.parametrize("ask", [
    lambda net: net.query("P(C | A=T)"),
    lambda net: net.query("P(C=T | A=T)"),
    lambda net: net.query("P(C | A=T)", method="lbp"),
    lambda net: net.query("MAP(C, S | A=T)", method="lbp"),
    lambda net: net.posterior("C", {"A": "T"}, method="lw"),
    lambda net: net.posterior(["C", "S"], {"A": "T"}, method="lw"),
    lambda net: net.posterior("C", {"A": "T"}),
    lambda net: net.posteriors({"A": "T"}),
    lambda net: net.posteriors({"A": "T"}, method="lbp"),
    lambda net: net.probability({"C": "T"}, {"A": "T"}),
    lambda net: net.probability({"C": "T"}, {"A": "T"}, method="lbp"),
    lambda net: net.log_probability({"A": "T"}),
    lambda net: net.map(["C", "S"], {"A": "T"}),
    lambda net: net.map(["C", "S"], {"A": "T"}, method="gibbs"),
    lambda net: net.mpe({"A": "T"}),
    lambda net: net.mpe({"A": "T"}, method="lbp"),
    lambda net: net.posterior("C", pd.DataFrame({"A": ["T", "F", None]})),
    lambda net: net.posteriors(pd.DataFrame({"A": ["T", "F"]})),
    lambda net: net.query("C _|_ S | A"),
])
def test_one_resolution_per_question(chair, resolutions, ask):
    ask(chair)
    assert len(resolutions) == 1


@pytest.mark.parametrize("method", ["exact", "lbp"])
def test_one_resolution_per_markov_question(resolutions, method):
    net = bbn.MarkovNetwork("pair")
    net.add_variable("A", ["0", "1"])
    net.add_variable("B", ["0", "1"])
    net.add_factor(["A", "B"], [[10, 1], [1, 10]])
    for ask in (lambda: net.posterior("B", {"A": "1"}, method=method),
                lambda: net.probability({"B": "1"}, {"A": "1"}, method=method),
                lambda: net.query("P(B | A=1)", method=method),
                lambda: net.mpe({"A": "1"}, method=method)):
        resolutions.clear()
        ask()
        assert len(resolutions) == 1
    resolutions.clear()
    net.log_partition({"A": "1"})
    assert len(resolutions) == 1


def test_import_bbn_does_not_load_the_approximate_engines():
    import subprocess
    import sys

    code = ("import sys, bbn; bbn.load('models/chair.bn').query('P(C | A=T)'); "
            "print(sorted(m for m in sys.modules if m.startswith('bbn.engines.approximate')"
            " or m == 'bbn.questions.estimates'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=BBN.parent).stdout
    assert out.strip() == "[]"


def test_a_new_kind_of_question_plugs_into_the_registry(chair):
    # P(e) as a kind of its own: answered by the exact engine over state indices
    def evidence_probability(answering, question, model, **options):
        return answering.engine.probability_of_evidence(question.evidence.states)

    dispatch.register("P(e)", dispatch.Kind(exact=evidence_probability))
    try:
        question = resolution.resolve(chair.compiled(), resolution.Asked(
            "P(e)", "evidence", (), {"A": "T"}))
        assert dispatch.answer(chair, question) == pytest.approx(0.206056, abs=1e-6)
        with pytest.raises(bbn.QueryError, match="answered exactly only"):
            dispatch.answer(chair, question, "lbp")
    finally:
        dispatch.unregister("P(e)")
    with pytest.raises(bbn.QueryError, match="no answer for questions of kind 'P\\(e\\)'"):
        dispatch.answer(chair, question)


def test_the_engine_answers_state_indices(chair):
    engine = chair.engine
    evidence = resolution.resolve(chair.compiled(), resolution.Asked(
        "P", "variables", ["C"], {"A": "T"})).evidence
    assert evidence.states == {"A": 0}
    np.testing.assert_allclose(engine.posterior(["C"], evidence).values,
                               chair.posterior("C", {"A": "T"}).values, rtol=0, atol=0)
    assert isinstance(engine, bbn.engines.protocol.ExactEngine)

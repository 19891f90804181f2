"""The model/engine seam: revisions, the compiled view, one engine per revision, and one
question path (each check made once)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.questions import resolution as resolver
from bbn.questions.dispatch import ask as ask_query
from bbn.questions.language import parse_query
from bbn.questions.presentation import to_text

EXACT = 1e-12


def test_every_change_makes_a_new_revision_view_and_engine(chair):
    revision, view, engine = chair.revision, chair.compiled(), chair.engine
    assert chair.compiled() is view and chair.engine is engine and engine.network is view
    for change in (lambda: chair.set_description("A", "ache"),
                   lambda: chair.set_cpt("C", [0.5, 0.5]),
                   lambda: chair.add_variable("Z", ["z"], table=[1.0]),
                   lambda: chair.remove_variable("Z")):
        change()
        assert chair.revision > revision and chair.compiled() is not view
        assert chair.engine is not engine and chair.engine.network is chair.compiled()
        revision, view, engine = chair.revision, chair.compiled(), chair.engine
    assert chair.posterior("C").values.tolist() == [0.5, 0.5]


def test_the_compiled_view_is_read_only(chair):
    view = chair.compiled()
    assert view.variables == chair.variables and view.cardinality["B"] == 2
    with pytest.raises(TypeError):
        view.tables["A"] = None
    with pytest.raises(AttributeError):
        view.parents = {}  # frozen
    with pytest.raises(ValueError):
        view.tables["A"][0, 0] = 1.0
    assert chair.children("C") == ("W", "B") and chair.children("A") == ()


def test_gaussian_leaves_are_in_the_view_and_out_of_its_discrete_part():
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.25, 0.75])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 4.0])
    view = net.compiled()
    leaf = view.gaussian["x"]
    assert leaf.parents == ("C",) and leaf.mean.tolist() == [0.0, 2.0]
    assert leaf.variance.tolist() == [1.0, 4.0] and "x" not in view.tables
    part = view.discrete_part()
    assert part.variables == ("C",) and not part.gaussian and view.discrete_part() is not view
    assert net.engine.discrete.network.variables == ("C",)


def test_plans_are_complete_when_kept():
    net = bbn.Network("chain")
    net.add_variable("A", [str(i) for i in range(300)], table=np.full(300, 1 / 300))
    for child, parent in (("B", "A"), ("C", "A"), ("D", "A")):
        net.add_variable(child, [str(i) for i in range(300)], parents=[parent],
                         table=np.full((300, 300), 1 / 300))
    engine = net.engine
    plan = engine.plan(["B", "C", "D"], [])
    assert [t is net.cpt_array(s.variable) for s, t in zip(plan.sources, plan.tables)] == [
        True] * len(plan.sources)
    assert [s.variable for s in plan.sources] == ["A", "B", "C", "D"]
    # summing A out of four 300-state tables: 2.7e7 entries, an einsum path planned now
    big = [step for step in plan.steps if step.size > 1 << 16 and len(step.inputs) > 2]
    assert big and all(step.path is not None for step in big)
    paths = [step.path for step in plan.steps]
    table = net.posterior(["B", "C"], {"D": "7"}).values
    assert [step.path for step in plan.steps] == paths  # a run fills nothing in
    assert table.sum() == pytest.approx(1.0, abs=EXACT)


def test_a_structure_only_model_is_refused_naming_the_variable():
    net = bbn.Network()
    net.add_variable("A", ["a", "b"], table=[0.5, 0.5])
    net.add_variable("B", ["a", "b"], parents=["A"])
    for ask in (lambda: net.posterior("A", {"B": "a"}), lambda: net.posteriors()):
        with pytest.raises(bbn.ModelError, match="variable 'B' has no table yet"):
            ask()


def test_a_query_is_resolved_once(chair, monkeypatch):
    expected = chair.probability({"C": "T"}, {"A": "T", "S": "F"})
    calls = []
    original = resolver.state_index

    def counting(network, variable, state):
        calls.append((variable, state))
        return original(network, variable, state)

    monkeypatch.setattr(resolver, "state_index", counting)
    query = parse_query("P(C=T | A=T, S=F)")
    assert calls == []  # parsing reads the text only
    result = ask_query(chair, query)
    assert calls == [("C", "T"), ("A", "T"), ("S", "F")]
    assert result == pytest.approx(expected, abs=EXACT)
    assert to_text(query, result).startswith("P(C=T | A=T, S=F) = ")
    assert len(calls) == 3  # presenting the answer resolves nothing again
    chair.set_description("A", "back ache")
    ask_query(chair, query)
    assert len(calls) == 6  # a new revision: resolved again, once


def test_python_questions_and_the_query_language_agree(chair):
    evidence = {"A": "T"}
    factor = chair.posterior(["C", "S"], evidence)
    assert factor.allclose(chair.query("P(C, S | A=T)"))
    assert chair.query("P(C=T, S | A=T)").allclose(factor.reduce({"C": "T"}))
    assert chair.query("P(C=T, S=F | A=T)") == pytest.approx(
        float(factor.reduce({"C": "T", "S": "F"}).values), abs=EXACT)
    frame = pd.DataFrame({"A": ["T", "F"]})
    rows = chair.posterior(["C", "S"], frame).to_numpy().reshape(2, 2, 2)
    np.testing.assert_allclose(rows[0], factor.values, rtol=0, atol=EXACT)
    codes = {"A": np.array([0, 1])}
    np.testing.assert_allclose(chair.engine.posterior_of_cases(["C", "S"], codes), rows,
                               rtol=0, atol=EXACT)
    marginals = chair.engine.marginals_of_cases(codes)
    np.testing.assert_allclose(marginals["C"], rows.sum(axis=2), rtol=0, atol=EXACT)


@pytest.mark.parametrize("ask, message", [
    (lambda net: net.query("P(x=1 | C=a)"), "'x' is continuous: it can be evidence"),
    (lambda net: net.map(["x"]), "'x' is continuous: it can be evidence"),
    (lambda net: net.probability({"C": "a"}, {"x": 1.0}), "take discrete evidence only"),
    (lambda net: net.query("MPE(x=1)"), "take discrete evidence only"),
    (lambda net: net.posterior("C", {"x": "heavy"}), "its evidence must be a number"),
    (lambda net: net.query("P(C | x=heavy)"), "its evidence must be a number"),
    (lambda net: net.posterior("C", pd.DataFrame({"x": [1.0]})), "use bbn.predict_proba"),
    (lambda net: net.posteriors(pd.DataFrame({"C": ["a"]})), "pass one case at a time"),
    (lambda net: bbn.predict_proba(net, pd.DataFrame({"C": ["a"]}), "x"), "classify a discrete"),
])
def test_continuous_variables_misused_are_named(ask, message):
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.25, 0.75])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 4.0])
    with pytest.raises(bbn.QueryError, match=message):
        ask(net)


def test_one_gaussian_weighting_for_one_case_and_for_a_batch():
    net = bbn.Network()
    net.add_variable("C", ["a", "b"], table=[0.25, 0.75])
    net.add_variable("D", ["u", "v"], parents=["C"], table=[[0.9, 0.1], [0.3, 0.7]])
    net.add_gaussian_variable("x", ["C", "D"], mean=[[0.0, 1.0], [2.0, 3.0]],
                              variance=[[1.0, 2.0], [1.5, 0.5]])
    # P(C=a | x=1) ∝ 0.25 (0.9 N(1; 0, 1) + 0.1 N(1; 1, 2))
    def normal(x, mean, variance):
        return np.exp(-(x - mean) ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance)
    a = 0.25 * (0.9 * normal(1, 0, 1) + 0.1 * normal(1, 1, 2))
    b = 0.75 * (0.3 * normal(1, 2, 1.5) + 0.7 * normal(1, 3, 0.5))
    assert net.posterior("C", {"x": 1.0}).values[0] == pytest.approx(a / (a + b), rel=1e-12)
    cases = net.engine.posterior_of_cases(["C"], {"D": np.array([-1, 0])},
                                          values={"x": np.array([1.0, 1.0])})
    assert cases[0, 0] == pytest.approx(a / (a + b), rel=1e-12)
    np.testing.assert_allclose(cases[1], net.posterior("C", {"x": 1.0, "D": "u"}).values,
                               rtol=1e-12)
    table = bbn.predict_proba(net, pd.DataFrame({"x": [1.0, 1.0], "D": [None, "u"]}), "C")
    np.testing.assert_allclose(table.to_numpy(), cases, rtol=1e-12)


@pytest.mark.parametrize("gaussian", [False, True])
def test_an_engine_is_freed_without_the_garbage_collector(gaussian):
    # A reference cycle (the engine once named itself as its discrete part) kept every
    # junction tree alive until the collector's next pass: on link, 180 MB, and cold
    # all-posteriors twice as slow while new pages were faulted in.
    import gc
    import weakref

    net = bbn.load("models/chair.bn")
    if gaussian:
        net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    engine = net.engine
    net.posteriors({"A": "T"})
    net.posterior(["C"], {"A": "T"})
    reference = weakref.ref(engine)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del engine, net
        assert reference() is None
    finally:
        if enabled:
            gc.enable()

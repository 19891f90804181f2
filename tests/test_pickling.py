"""A model that has answered questions pickles and deep-copies: the copy keeps the model,
not the caches of its revision (compiled view, engines, junction trees and their locks),
and answers as the original does."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest

import bbn
from bbn.engines.exact.engine import Engine

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.mark.parametrize("clone", [lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_a_network_that_has_answered_pickles_and_answers_the_same(clone):
    net = bbn.load(MODELS / "chair.bn")
    before = net.posteriors({"A": "T"})
    query = net.query("P(C | A=T)")
    best = net.query("MAP(C, S | A=T)")
    copied = clone(net)
    assert copied._compiled is None and copied._answering is None  # caches left behind
    after = copied.posteriors({"A": "T"})
    for v in before:
        assert np.allclose(before[v].values, after[v].values, atol=1e-12)
    assert query.values[0] == pytest.approx(0.886749, abs=1e-6)  # the README's number
    assert np.allclose(copied.query("P(C | A=T)").values, query.values, atol=1e-12)
    assert copied.query("MAP(C, S | A=T)")[0] == best[0]
    copied.set_cpt("A", [[0.5, 0.5], [0.5, 0.5]])  # A | B
    assert np.allclose(net.query("P(C | A=T)").values, query.values)  # original untouched


def test_a_markov_network_and_a_solved_influence_diagram_pickle():
    markov = bbn.MarkovNetwork("loop")
    for name in "ABC":
        markov.add_variable(name, ["+", "-"])
    for pair in ("AB", "BC", "CA"):
        markov.add_factor(list(pair), [[2.0, 1.0], [1.0, 2.0]])
    p = markov.probability({"A": "+"}, {"B": "+", "C": "+"})
    assert p == pytest.approx(0.8)  # 2·2 / (2·2 + 1·1)
    assert pickle.loads(pickle.dumps(markov)).probability({"A": "+"}, {"B": "+", "C": "+"}) \
        == pytest.approx(p, abs=1e-12)
    diagram = bbn.load(MODELS / "oil.bn")
    solution = diagram.solve()
    assert solution.meu == pytest.approx(22.5)
    assert pickle.loads(pickle.dumps(diagram)).solve().meu == pytest.approx(22.5)
    copied = pickle.loads(pickle.dumps(solution))  # policies computed, locks of their own
    assert copied.meu == pytest.approx(22.5)
    assert [np.array_equal(a.expected, b.expected, equal_nan=True)
            for a, b in zip(solution.policies.values(), copied.policies.values(), strict=True)] \
        == [True] * len(solution.policies)


def test_an_engine_and_its_junction_tree_pickle_without_their_caches():
    net = bbn.load(MODELS / "chair.bn")
    engine = Engine(net.compiled())
    tree = engine.junction_tree(("A",))
    copied_view = pickle.loads(pickle.dumps(net.compiled()))
    assert dict(copied_view.states) == dict(net.compiled().states)
    with pytest.raises(TypeError):  # still read-only
        copied_view.states["C"] = ()
    copied = pickle.loads(pickle.dumps(engine))
    assert copied.cached_trees == ()
    tree_copy = pickle.loads(pickle.dumps(tree))
    assert tree_copy.lock.acquire(blocking=False)
    assert tree_copy.width == tree.width and tree_copy.work == {}

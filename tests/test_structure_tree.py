"""Chow–Liu trees (bbn.chow_liu): recovery of a tree network from its samples, the
skeleton pgmpy's TreeSearch finds, the maximum likelihood property, and errors."""

from __future__ import annotations

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, ModelError
from bbn.tasks.structure import chow_liu, mutual_information, structure_score


def tree_network() -> bbn.Network:
    net = bbn.Network("tree")
    net.add_variable("A", ["a0", "a1"], table=[0.4, 0.6])
    net.add_variable("B", ["b0", "b1", "b2"], parents=["A"],
                     table=[[0.8, 0.1, 0.1], [0.1, 0.2, 0.7]])
    net.add_variable("C", ["c0", "c1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    net.add_variable("D", ["d0", "d1"], parents=["C"], table=[[0.85, 0.15], [0.3, 0.7]])
    net.add_variable("E", ["e0", "e1"], parents=["C"], table=[[0.1, 0.9], [0.75, 0.25]])
    return net


def test_mutual_information_by_hand():
    counts = np.array([[3.0, 1.0], [1.0, 3.0]])  # P(x, y) = 3/8 on the diagonal
    expected = 2 * (3 / 8) * math.log((3 / 8) / (1 / 4)) + 2 * (1 / 8) * math.log(
        (1 / 8) / (1 / 4))
    assert mutual_information(counts) == pytest.approx(expected, rel=1e-12)
    assert mutual_information(np.array([[2.0, 2.0], [1.0, 1.0]])) == pytest.approx(0.0)


def test_a_tree_network_is_recovered_from_its_samples():
    truth = tree_network()
    rows = bbn.sample(truth, 20_000, seed=5)
    learned = chow_liu(rows, root="A")
    assert sorted(learned.arcs()) == sorted(truth.arcs())
    assert learned.states("B") == ("b0", "b1", "b2")
    # its tables are the maximum likelihood ones
    assert np.allclose(learned.cpt_array("D"), bbn.learn(truth, rows).cpt_array("D"))


def test_the_tree_has_the_highest_likelihood_among_trees_rooted_anywhere():
    rows = bbn.sample(bbn.load("models/chair.bn"), 2000, seed=2)
    best = structure_score(chow_liu(rows, root="C"), rows, "loglik")
    # every root gives the same likelihood (Markov equivalent orientations)
    for root in ["A", "B", "S", "W"]:
        assert structure_score(chow_liu(rows, root=root), rows, "loglik") == pytest.approx(
            best, rel=1e-12)
    # and no other spanning tree of the 5 variables does better (Cayley: 125 trees)
    variables = list(rows.columns)
    edges = list(itertools.combinations(variables, 2))
    for chosen in itertools.combinations(edges, len(variables) - 1):
        skeleton = nx.Graph(list(chosen))
        if skeleton.number_of_nodes() < len(variables) or not nx.is_tree(skeleton):
            continue
        net = bbn.Network()
        for v in variables:
            net.add_variable(v, sorted(rows[v].cat.categories))
        for parent, child in nx.bfs_edges(skeleton, "C"):
            net.set_parents(child, [parent])
        assert structure_score(net, rows, "loglik") <= best + 1e-9


def test_the_skeleton_is_pgmpys(shared):
    pytest.importorskip("pgmpy")
    with warnings.catch_warnings():  # pgmpy's own deprecation notice on import
        warnings.simplefilter("ignore")
        from pgmpy.estimators import TreeSearch

    net = bbn.load(shared / "networks" / "asia.bif.gz")
    rows = bbn.sample(net, 5000, seed=11).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TreeSearch(rows, root_node="asia", n_jobs=1).estimate(show_progress=False)
    ours = chow_liu(rows, root="asia")
    assert {frozenset(arc) for arc in ours.arcs()} == {frozenset(e) for e in theirs.edges()}
    assert set(ours.arcs()) == set(theirs.edges())  # the same orientation from the root


def test_bad_input_is_a_clear_error():
    rows = pd.DataFrame({"A": ["x", "y"], "B": ["u", "v"]})
    with pytest.raises(ModelError, match=r"root 'a' is no column.*did you mean 'A'"):
        chow_liu(rows, root="a")
    with pytest.raises(DataError, match=r"row 1 has no value for 'B'"):
        chow_liu(pd.DataFrame({"A": ["x", "y"], "B": ["u", None]}))
    with pytest.raises(DataError, match="no rows"):
        chow_liu(rows.iloc[:0])
    with pytest.raises(DataError, match="'z'"):
        chow_liu(pd.DataFrame({"A": ["x", "z"]}), states={"A": ["x", "y"]})

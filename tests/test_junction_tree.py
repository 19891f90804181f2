"""All posteriors at once (junction tree) against brute force, variable elimination and
the exact bnlearn reference.

Every node's posterior from one propagation must equal what the full joint table says
(brute force, built by multiplying every table with numpy in the test) and what variable
elimination (``bbn.engines.exact.posterior``, tested on its own) says, within 1e-12; the
batched form must equal the one-case form row by row; impossible evidence must raise.
"""

from __future__ import annotations

import contextlib
import doctest
import json
import math

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce
from example_networks import TF, copy_network, wide_network
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import evidence_for, networks

import bbn
from bbn.engines.exact import (
    clique_building,
    cliques,
    joint_table,
    propagation,
    summing,
)
from bbn.engines.exact import junction_tree as junction_tree_module

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
EXACT = 1e-12


def _cliques_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answer even tiny networks with cliques, not from their joint table."""
    monkeypatch.setattr(joint_table, "DENSE_UP_TO", 0)


@contextlib.contextmanager
def _sometimes_cliques_only(data):
    """For a property test: with a drawn boolean, answer with cliques even when the joint
    is small."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        if data.draw(st.booleans(), label="cliques even when the joint is small"):
            _cliques_only(monkeypatch)
        yield


@pytest.fixture(params=["joint", "cliques"])
def both_ways(request, monkeypatch):
    """Run the test on tiny networks' joint table, then on a tree of cliques."""
    if request.param == "cliques":
        _cliques_only(monkeypatch)
    return request.param


# ------------------------------------------------------------- EXAMPLES.md §1
def test_chair_posteriors_given_back_ache(chair, both_ways):
    result = chair.posteriors({"A": "T"})
    assert list(result) == ["C", "S", "W", "B", "A"]
    assert result["C"].to_dict()["T"] == pytest.approx(22840 / 25757, abs=EXACT)
    assert result["S"].to_dict()["T"] == pytest.approx(0.06211903560197228, abs=EXACT)
    assert result["A"].to_dict() == {"T": 1.0, "F": 0.0}
    for v, factor in result.items():
        assert factor.variables == (v,)
        assert factor.values.sum() == pytest.approx(1.0, abs=EXACT)


def test_chair_priors(chair, both_ways):
    result = chair.posteriors()
    assert result["A"].to_dict()["T"] == pytest.approx(25757 / 125000, abs=EXACT)
    assert result["B"].to_dict()["T"] == pytest.approx(0.17676, abs=EXACT)
    assert result["C"].to_dict()["T"] == pytest.approx(0.8, abs=EXACT)


# ------------------------------------------------------------- random models
@PROPERTY
@given(data=st.data(), net=networks())
def test_every_posterior_equals_brute_force_and_elimination(data, net):
    with _sometimes_cliques_only(data):
        _every_posterior_equals_brute_force_and_elimination(data, net)


def _every_posterior_equals_brute_force_and_elimination(data, net):
    brute = BruteForce(net)
    first = data.draw(evidence_for(net))
    # the same observed variables with other states replay the compiled tree
    again = {v: data.draw(st.sampled_from(net.states(v))) for v in first}
    for evidence in (first, again, data.draw(evidence_for(net))):
        if brute.p_evidence(evidence) == 0:
            with pytest.raises(bbn.ImpossibleEvidenceError) as error:
                net.posteriors(evidence)
            assert error.value.evidence == evidence
            continue
        result = net.posteriors(evidence)
        assert list(result) == list(net.variables)
        for v in net.variables:
            values = result[v].values
            assert result[v].states == {v: net.states(v)}
            np.testing.assert_allclose(values, brute.posterior([v], evidence), rtol=0,
                                       atol=EXACT)
            np.testing.assert_allclose(values, net.posterior([v], evidence).values, rtol=0,
                                       atol=EXACT)
            if v in evidence:
                assert values[net.states(v).index(evidence[v])] == 1.0


@PROPERTY
@given(data=st.data(), net=networks(max_variables=7))
def test_batch_equals_one_case_at_a_time(data, net):
    with _sometimes_cliques_only(data):
        _batch_equals_one_case_at_a_time(data, net)


def _batch_equals_one_case_at_a_time(data, net):
    brute = BruteForce(net)
    columns = data.draw(st.lists(st.sampled_from(net.variables), unique=True, max_size=4))
    n = data.draw(st.integers(1, 6))
    rows = [{c: data.draw(st.sampled_from([*net.states(c), None])) for c in columns}
            for _ in range(n)]
    frame = pd.DataFrame(rows, columns=columns, index=[f"case{i}" for i in range(n)])
    cases = [{c: s for c, s in row.items() if s is not None} for row in rows]
    possible = [brute.p_evidence(case) > 0 for case in cases]
    if not all(possible):
        with pytest.raises(bbn.ImpossibleEvidenceError, match=f"row 'case{possible.index(False)}'"):
            net.posteriors(frame)
        return
    result = {v: f.to_numpy() for v, f in net.posteriors(frame).items()}
    for v in net.variables:
        assert result[v].shape == (n, net.cardinality(v))
        for i, case in enumerate(cases):
            np.testing.assert_allclose(result[v][i], brute.posterior([v], case), rtol=0,
                                       atol=EXACT)


def test_batch_without_evidence_columns_repeats_the_priors(chair, both_ways):
    result = chair.posteriors(pd.DataFrame(index=range(3)))
    assert list(result["A"].index) == [0, 1, 2] and list(result["A"].columns) == ["T", "F"]
    np.testing.assert_allclose(result["A"], [[0.206056, 0.793944]] * 3, rtol=0, atol=EXACT)
    assert chair.posteriors(pd.DataFrame(columns=["A"]))["C"].shape == (0, 2)


def test_batch_is_chunked_to_respect_the_memory_limit(chair, memory_limit):
    frame = pd.DataFrame({"A": ["T", "F"] * 20, "S": ["T"] * 20 + ["F"] * 20})
    whole = chair.posteriors(frame)
    tree = chair.engine.junction_tree(["A", "S"])
    memory_limit(8 * tree.cost.entries(cases=1))  # one case per chunk still fits
    chunked = chair.posteriors(frame)
    for v in chair.variables:
        np.testing.assert_array_equal(chunked[v], whole[v])


# ------------------------------------------------------- structure and caching
def _two_parts() -> bbn.Network:
    """A → B and, unconnected, C → D: evidence on B says nothing about C or D."""
    net = bbn.Network("two parts")
    net.add_variable("A", TF, table=[0.3, 0.7])
    net.add_variable("B", TF, parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    net.add_variable("C", TF, table=[0.6, 0.4])
    net.add_variable("D", TF, parents=["C"], table=[[0.5, 0.5], [0.1, 0.9]])
    return net


def test_unconnected_parts_keep_their_priors(both_ways):
    net = _two_parts()
    result = net.posteriors({"B": "T"})
    # P(A=T | B=T) = 0.3·0.9 / (0.3·0.9 + 0.7·0.2)
    assert result["A"].to_dict()["T"] == pytest.approx(0.27 / 0.41, abs=EXACT)
    assert result["D"].to_dict()["T"] == pytest.approx(0.6 * 0.5 + 0.4 * 0.1, abs=EXACT)


def test_compiled_tree_is_reused_and_dropped_when_the_network_changes():
    net = _two_parts()
    net.posteriors({"B": "T"})
    tree = net.engine.junction_tree(["B"])
    assert net.posteriors({"B": "F"})["A"].to_dict()["T"] == pytest.approx(0.03 / 0.59,
                                                                            abs=EXACT)
    assert net.engine.junction_tree(["B"]) is tree
    net.set_cpt("A", [0.5, 0.5])
    assert net.engine.junction_tree(["B"]) is not tree
    assert net.posteriors({"B": "T"})["A"].to_dict()["T"] == pytest.approx(0.45 / 0.55,
                                                                            abs=EXACT)


def test_compiled_trees_beyond_the_memory_limit_are_evicted(memory_limit, monkeypatch):
    _cliques_only(monkeypatch)  # a joint table keeps no arrays of its own
    net = _two_parts()
    # Each tree: cliques of 2 (the evidence side) and 4 entries, a peak of 6 + 2 + 2·4 = 16
    # entries, and it keeps two 2-entry arrays. 16 + 4 entries let one tree stay cached
    # while the next compiles: the third drops the first.
    memory_limit(8 * (16 + 4))
    for observed in ("B", "A", "D"):
        net.posteriors({observed: "T"})
        assert net.engine.junction_tree([observed]).cached_bytes == 32
    assert net.engine.cached_trees == (("A",), ("D",))


def test_a_tiny_network_is_answered_from_its_joint_table(chair):
    tree = chair.engine.junction_tree(["A"])
    assert tree.joint is not None and tree.cliques == []
    assert tree.joint.variables == ("C", "S", "W", "B")  # the hidden ones, as declared
    assert (tree.total_entries, tree.width) == (16, 3)
    # P1..P6 and W with 4 states each: 4^7 joint states × 7 tables is above the threshold
    assert wide_network().engine.junction_tree([]).joint is None


def test_impossible_evidence_raises(both_ways):
    net = copy_network()  # Y = X
    for evidence in ({"X": "a", "Y": "b"}, {"X": "b", "Y": "a", "Z": "T"}):
        with pytest.raises(bbn.ImpossibleEvidenceError) as error:
            net.posteriors(evidence)
        assert error.value.evidence == evidence
    frame = pd.DataFrame({"X": ["a", "a", "b"], "Y": ["a", "b", "a"]})
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 1: X=a, Y=b"):
        net.posteriors(frame)


def test_memory_limit_refuses_a_large_clique(memory_limit):
    """Six 4-state parents of W, married by W's table: the largest clique has 4^7 entries."""
    net = wide_network()
    # the clique's potential, made its belief in place (no evidence), and the sums taken
    # from it (under 4^7 together): 2 · 4^7 entries
    memory_limit(2 * 4 ** 7 * 8 - 1)
    with pytest.raises(bbn.MemoryLimitError, match=r"induced width 6, largest table 128\.0 "
                                                   r"KiB.* needs 256\.0 KiB"):
        net.posteriors()
    memory_limit(2 * 4 ** 7 * 8)
    result = net.posteriors()
    np.testing.assert_allclose(result["P3"].values, [0.1, 0.2, 0.3, 0.4], rtol=0, atol=EXACT)


def test_rows_summing_to_one_only_roughly_count_as_one_for_ancestors(both_ways):
    """Files print 8 digits: a leaf whose rows sum to 1 + 1e-7 is barren for its parent's
    prior (variable elimination drops it), while its own posterior uses its raw rows."""
    net = bbn.Network("rounded")
    net.add_variable("A", TF, table=[0.3, 0.7])
    net.add_variable("L", TF, parents=["A"], table=[[0.6, 0.4], [0.2, 0.8000001]])
    result = net.posteriors()
    assert result["A"].to_dict()["T"] == pytest.approx(0.3, abs=EXACT)
    raw = np.array([0.3 * 0.6 + 0.7 * 0.2, 0.3 * 0.4 + 0.7 * 0.8000001])
    np.testing.assert_allclose(result["L"].values, raw / raw.sum(), rtol=0, atol=EXACT)
    np.testing.assert_allclose(result["L"].values, net.posterior(["L"], {}).values, rtol=0,
                               atol=EXACT)


def test_inexact_rows_of_a_leaf_with_an_observed_parent_in_a_batch(both_ways):
    """The raw rows of L (parents A, observed B) weigh its posterior case by case."""
    net = bbn.Network("rounded")
    net.add_variable("A", TF, table=[0.3, 0.7])
    net.add_variable("B", TF, table=[0.6, 0.4])
    net.add_variable("E", TF, parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    net.add_variable("L", TF, parents=["A", "B"],
                     table=[[[0.6, 0.4], [0.5, 0.5000001]], [[0.2, 0.8000001], [0.1, 0.9]]])
    frame = pd.DataFrame({"B": ["T", "F", "F", None], "E": ["T", "F", None, "F"]})
    result = {v: f.to_numpy() for v, f in net.posteriors(frame).items()}
    for i, row in frame.iterrows():
        case = {v: s for v, s in row.items() if pd.notna(s)}
        for v in ("A", "L"):
            np.testing.assert_allclose(result[v][i], net.posterior([v], case).values,
                                       rtol=0, atol=EXACT)
            np.testing.assert_allclose(net.posteriors(case)[v].values, result[v][i],
                                       rtol=0, atol=EXACT)


def test_gaussian_leaves_are_answered_one_variable_at_a_time():
    net = bbn.Network("mixed")
    net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
    net.add_variable("D", TF, parents=["C"], table=[[0.9, 0.1], [0.4, 0.6]])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    result = net.posteriors({"x": 1.5})
    assert list(result) == ["C", "D"]
    # p(x = 1.5 | C): N(1.5; 0, 1) and N(1.5; 2, 1); the common factor cancels
    weight = np.exp(-np.array([1.5 ** 2, 0.5 ** 2]) / 2)
    np.testing.assert_allclose(result["C"].values, weight / weight.sum(), rtol=0, atol=EXACT)
    with pytest.raises(bbn.QueryError, match="one case at a time"):
        net.posteriors(pd.DataFrame({"D": ["T"]}))


def test_bad_evidence_is_named(chair):
    with pytest.raises(bbn.QueryError, match="unknown evidence variable 'a'.*did you mean 'A'"):
        chair.posteriors({"a": "T"})
    with pytest.raises(bbn.QueryError, match="variable 'A' has no state 'yes'"):
        chair.posteriors({"A": "yes"})
    with pytest.raises(bbn.DataError, match="column 'A', row 1: value 'maybe' is not a state"):
        chair.posteriors(pd.DataFrame({"A": ["T", "maybe"]}))
    with pytest.raises(bbn.QueryError, match="a dict or a pandas DataFrame"):
        chair.posteriors([("A", "T")])


# ------------------------------------------------------- ../shared/reference
@pytest.mark.parametrize("name", ["alarm", "child", "insurance"])
def test_bnlearn_priors_and_queries(shared, name):
    reference = json.loads((shared / "reference" / "bnlearn_exact.json").read_text())[name]
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    priors = net.posteriors()
    for v, expected in reference["priors"].items():
        got = priors[v].to_dict()
        for state, p in expected.items():
            assert got[state] == pytest.approx(p, abs=1e-9), (v, state)
    for query in reference["queries"]:
        if query.get("impossible") or not query["p_evidence"] > 0:
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.posteriors(query["evidence"])
            continue
        got = net.posteriors(query["evidence"])[query["target"]].to_dict()
        for state, p in query["posterior"].items():
            assert got[state] == pytest.approx(p, abs=1e-9), (query, state)
        assert math.isclose(sum(got.values()), 1.0, abs_tol=1e-12)


def test_codes_with_missing_values(chair, both_ways):
    result = chair.engine.marginals_of_cases({"A": np.array([0, -1, 1])})
    np.testing.assert_allclose(result["C"][0], [22840 / 25757, 2917 / 25757], rtol=0,
                               atol=EXACT)
    np.testing.assert_allclose(result["C"][1], [0.8, 0.2], rtol=0, atol=EXACT)
    np.testing.assert_array_equal(result["A"][[0, 2]], [[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(result["A"][1], [0.206056, 0.793944], rtol=0, atol=EXACT)
    assert chair.engine.marginals_of_cases({}, cases=2)["B"].shape == (2, 2)
    with pytest.raises(bbn.QueryError, match="number of cases"):
        chair.engine.marginals_of_cases({})


def test_a_call_while_another_holds_the_work_arrays_uses_its_own(monkeypatch):
    _cliques_only(monkeypatch)  # a joint table has no work arrays
    net = _two_parts()
    expected = net.posteriors({"B": "T"})["A"].values
    tree = net.engine.junction_tree(["B"])
    with tree.lock:  # as if another thread were propagating on this tree
        busy = net.posteriors({"B": "T"})["A"].values
    np.testing.assert_array_equal(busy, expected)


def test_the_modules_docstring_examples_run():
    for module in (junction_tree_module, cliques, clique_building, propagation, summing,
                   joint_table):
        assert doctest.testmod(module).failed == 0

"""Exact inference on the course networks (EXAMPLES.md §1–§3) and its edge cases.

Expected numbers are the hand-derived ones of ../shared/EXAMPLES.md; the few others are
derived in comments from the tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce
from example_networks import (
    TF,
    copy_network,
    joint_table_network,
    monty_hall_network,
    wide_network,
)

import bbn
from bbn.engines.exact.elimination import compile_plan

EXACT = 1e-12


@pytest.fixture
def deterministic():
    """X → Y with Y = X exactly, Y → Z, and an unrelated root Q."""
    return copy_network()


# ------------------------------------------------------------- EXAMPLES.md §1
def test_chair_posterior_of_c_given_a(chair):
    f = chair.posterior(["C"], evidence={"A": "T"})
    assert f.variables == ("C",) and f.states == {"C": ("T", "F")}
    assert f.to_dict()["T"] == pytest.approx(22840 / 25757, abs=EXACT)
    assert f.to_dict()["F"] == pytest.approx(0.1132507667818458, abs=EXACT)
    assert chair.posterior(["C"], {"A": "T"}) == f


def test_chair_probabilities(chair):
    assert chair.probability({"A": "T"}) == pytest.approx(25757 / 125000, abs=EXACT)
    assert chair.probability({"A": "T"}) == pytest.approx(0.206056, abs=EXACT)
    assert chair.probability({"C": "T", "A": "T"}) == pytest.approx(0.18272, abs=EXACT)
    assert chair.probability({"B": "T"}) == pytest.approx(0.17676, abs=EXACT)
    assert chair.probability({"C": "T"}, {"A": "T"}) == pytest.approx(22840 / 25757, abs=EXACT)
    assert chair.posterior("S", {"A": "T"}).to_dict()["T"] == pytest.approx(
        0.06211903560197228, abs=EXACT)
    assert chair.probability({}) == 1.0


def test_chair_joint_posterior(chair):
    # P(C, S, A=T) = P(C) P(S) (0.1 + 0.6 P(B=T | C, S)):
    # (T,T) 0.01024, (T,F) 0.17248, (F,T) 0.00256, (F,F) 0.020776; total 0.206056
    joint = chair.posterior(["S", "C"], {"A": "T"})
    assert joint.variables == ("S", "C")
    expected = np.array([[0.01024, 0.00256], [0.17248, 0.020776]]) / 0.206056
    np.testing.assert_allclose(joint.values, expected, rtol=1e-12)
    assert chair.probability({"C": "T", "S": "F"}, {"A": "T"}) == pytest.approx(
        0.17248 / 0.206056, abs=EXACT)


def test_chair_map_and_mpe(chair):
    assignment, p = chair.map(["C", "S"], {"A": "T"})
    assert assignment == {"C": "T", "S": "F"}
    assert p == pytest.approx(0.17248 / 0.206056, abs=EXACT)
    assert chair.map(["C", "S"], {"A": "T"}) == (assignment, p)
    # MPE with no evidence: C=T, S=F, W=T, B=F, A=F, 0.8·0.98·0.9·0.8·0.9
    assert chair.mpe() == ({"C": "T", "S": "F", "W": "T", "B": "F", "A": "F"},
                           pytest.approx(0.508032, abs=EXACT))
    assignment, p = chair.mpe({"A": "T"})
    assert assignment == {"C": "T", "S": "F", "W": "T", "B": "T"}
    # P(C=T, S=F, W=T, B=T | A=T) = 0.8·0.98·0.9·0.2·0.7 / 0.206056
    assert p == pytest.approx(0.8 * 0.98 * 0.9 * 0.2 * 0.7 / 0.206056, abs=EXACT)


def test_map_probability_with_separated_evidence():
    """P(assignment | e) must stay a probability when e is d-separated from the query."""
    net = bbn.Network()
    net.add_variable("X", ["a", "b"], table=[0.3, 0.7])
    net.add_variable("Z", ["a", "b"], table=[0.4, 0.6])
    assert net.map(["X"], {"Z": "a"}) == ({"X": "b"}, pytest.approx(0.7, abs=EXACT))
    assert net.mpe({"Z": "a"}) == ({"X": "b"}, pytest.approx(0.7, abs=EXACT))
    assert net.mpe({"X": "a", "Z": "a"}) == ({}, pytest.approx(1.0, abs=EXACT))


def test_map_of_observed_variable(chair):
    assignment, p = chair.map(["A", "C"], {"A": "T"})
    assert assignment == {"A": "T", "C": "T"}
    assert p == pytest.approx(22840 / 25757, abs=EXACT)


# ------------------------------------------------------------- EXAMPLES.md §2
def test_monty_hall():
    net = monty_hall_network()
    assert net.probability({"King": "B"}) == pytest.approx(0.5, abs=EXACT)
    princess = net.posterior(["Princess"], {"King": "B"}).to_dict()
    assert princess == {"A": pytest.approx(1 / 3, abs=EXACT), "B": 0.0,
                        "C": pytest.approx(2 / 3, abs=EXACT)}
    assert net.map(["Princess"], {"King": "B"}) == ({"Princess": "C"},
                                                    pytest.approx(2 / 3, abs=EXACT))


# ------------------------------------------------------------- EXAMPLES.md §3
def test_joint_table_network():
    net = joint_table_network()
    assert net.probability({"Colour": "red", "Shape": "circle"}) == pytest.approx(0.25, abs=EXACT)
    assert net.probability({"Colour": "red"}) == pytest.approx(0.57, abs=EXACT)
    assert net.probability({"Category": "pos"}, {"Colour": "red", "Shape": "circle"}) == (
        pytest.approx(0.8, abs=EXACT))
    # and the network reproduces the whole joint table
    joint = net.posterior(["Category", "Colour", "Shape"])
    np.testing.assert_allclose(joint.values, [[[0.2, 0.02], [0.02, 0.01]],
                                              [[0.05, 0.3], [0.2, 0.2]]], atol=EXACT)


# ----------------------------------------------------------- query variants
def test_observed_query_variable_is_one_hot(chair):
    f = chair.posterior(["C", "A"], {"A": "T"})
    assert f.variables == ("C", "A")
    np.testing.assert_allclose(f.values[:, 1], [0.0, 0.0])
    assert f.values[0, 0] == pytest.approx(22840 / 25757, abs=EXACT)
    assert chair.posterior("A", {"A": "F"}).to_dict() == {"T": 0.0, "F": 1.0}


def test_posterior_without_evidence_is_the_prior_marginal(chair):
    brute = BruteForce(chair)
    for v in chair.variables:
        np.testing.assert_allclose(chair.posterior(v).values, brute.posterior([v], {}),
                                   atol=EXACT)


def test_contradicting_assignment_has_probability_zero(chair):
    assert chair.probability({"A": "F"}, {"A": "T"}) == 0.0
    assert chair.probability({"A": "T", "C": "T"}, {"A": "T"}) == pytest.approx(
        22840 / 25757, abs=EXACT)


def test_answers_follow_changes_to_the_model(chair):
    assert chair.probability({"A": "T"}) == pytest.approx(0.206056, abs=EXACT)
    chair.set_cpt("A", [[0.5, 0.5], [0.5, 0.5]])
    assert chair.probability({"A": "T"}) == pytest.approx(0.5, abs=EXACT)
    assert chair.posterior("C", {"A": "T"}).to_dict()["T"] == pytest.approx(0.8, abs=EXACT)
    chair.set_parents("A", ["W"])
    chair.set_cpt("A", [[1.0, 0.0], [0.0, 1.0]])  # A = W
    # P(C=T | W=T) = 0.8·0.9 / (0.8·0.9 + 0.2·0.01)
    assert chair.posterior("C", {"A": "T"}).to_dict()["T"] == pytest.approx(
        0.72 / 0.722, abs=EXACT)
    chair.remove_variable("W")
    assert not chair.has_cpt("A")
    with pytest.raises(bbn.ModelError, match="'A' has no table"):
        chair.posterior("C", {"A": "T"})


# ------------------------------------------------------- impossible evidence
def test_impossible_evidence_raises_naming_it(deterministic):
    evidence = {"X": "a", "Y": "b"}
    assert deterministic.probability(evidence) == 0.0
    for ask in (lambda: deterministic.posterior(["Z"], evidence),
                lambda: deterministic.posterior(["Q"], evidence),  # separated from the zero
                lambda: deterministic.posterior(["X"], evidence),
                lambda: deterministic.probability({"Z": "T"}, evidence),
                lambda: deterministic.map(["Z"], evidence),
                lambda: deterministic.mpe(evidence),
                lambda: deterministic.query("P(Z | X=a, Y=b)")):
        with pytest.raises(bbn.ImpossibleEvidenceError) as error:
            ask()
        assert error.value.evidence == evidence
        assert "X=a, Y=b" in str(error.value)


def test_impossible_evidence_with_contradicting_assignment(deterministic):
    """P(a | e) is undefined when P(e) = 0, even if a contradicts e."""
    with pytest.raises(bbn.ImpossibleEvidenceError):
        deterministic.probability({"X": "b"}, {"X": "a", "Y": "b"})


def test_possible_evidence_on_deterministic_network(deterministic):
    f = deterministic.posterior(["X"], {"Z": "T"})
    # P(X=a | Z=T) = 0.4·0.9 / (0.4·0.9 + 0.6·0.3)
    assert f.to_dict()["a"] == pytest.approx(0.36 / 0.54, abs=EXACT)
    assert deterministic.posterior(["Y"], {"X": "b"}).to_dict() == {"a": 0.0, "b": 1.0}


# ------------------------------------------------------------------ bad input
def test_unknown_names_are_query_errors_with_suggestions(chair):
    with pytest.raises(bbn.QueryError, match=r"unknown query variable 'c'.*did you mean 'C'"):
        chair.posterior(["c"])
    with pytest.raises(bbn.QueryError, match=r"unknown evidence variable 'AA'.*'A'"):
        chair.posterior(["C"], {"AA": "T"})
    with pytest.raises(bbn.QueryError, match=r"'A' has no state 't'.*did you mean 'T'"):
        chair.posterior(["C"], {"A": "t"})
    with pytest.raises(bbn.QueryError, match="no state"):
        chair.probability({"C": "yes"})
    with pytest.raises(bbn.QueryError, match="at least one"):
        chair.posterior([])
    with pytest.raises(bbn.QueryError, match="twice"):
        chair.posterior(["C", "C"])
    with pytest.raises(bbn.QueryError, match="unknown query variable"):
        chair.map(["Nope"], {})


# ------------------------------------------------------------------- batches
def test_posterior_batch_rows_with_missing_values(chair):
    frame = pd.DataFrame({"A": ["T", "F", None, "T"], "S": ["F", None, None, "T"]},
                         index=["r1", "r2", "r3", "r4"])
    answer = chair.posterior(["C"], frame)   # a DataFrame indexed like the cases
    assert list(answer.index) == ["r1", "r2", "r3", "r4"] and list(answer.columns) == ["T", "F"]
    assert answer.columns.name == "C"
    result = answer.to_numpy()
    assert result.shape == (4, 2)
    p_ct_af = (0.8 - 0.18272) / (1 - 0.206056)  # P(C=T, A=F) / P(A=F)
    # P(C=T | A=T, S=F) = 0.17248 / (0.17248 + 0.020776); with S=T: 0.01024 / 0.0128
    np.testing.assert_allclose(result[:, 0], [0.17248 / 0.193256, p_ct_af, 0.8, 0.8],
                               rtol=1e-12)
    np.testing.assert_allclose(result.sum(axis=1), 1.0)
    np.testing.assert_array_equal(chair.posterior("C", frame).to_numpy(), result)


def test_posterior_batch_joint_query(chair):
    frame = pd.DataFrame({"A": ["T", "F"]})
    answer = chair.posterior(["S", "C"], frame)   # a column per joint state, C fastest
    assert list(answer.columns) == [("T", "T"), ("T", "F"), ("F", "T"), ("F", "F")]
    assert list(answer.columns.names) == ["S", "C"]
    result = answer.to_numpy().reshape(2, 2, 2)
    np.testing.assert_allclose(result[0], chair.posterior(["S", "C"], {"A": "T"}).values,
                               atol=EXACT)
    np.testing.assert_allclose(result[1], chair.posterior(["S", "C"], {"A": "F"}).values,
                               atol=EXACT)


def test_posterior_batch_errors(chair, deterministic):
    with pytest.raises(bbn.QueryError, match=r"'A'.*also evidence"):
        chair.posterior(["A"], pd.DataFrame({"A": ["T"]}))
    with pytest.raises(bbn.DataError, match=r"column 'A', row 'b': value 'yes' is not a state"):
        chair.posterior(["C"], pd.DataFrame({"A": ["T", "yes"]}, index=["a", "b"]))
    with pytest.raises(bbn.QueryError, match="unknown evidence variable 'Aa'"):
        chair.posterior(["C"], pd.DataFrame({"Aa": ["T"]}))
    frame = pd.DataFrame({"X": ["a", "a", "b"], "Y": ["a", "b", None]}, index=["u", "v", "w"])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'v': X=a, Y=b") as error:
        deterministic.posterior(["Z"], frame)
    assert error.value.evidence == {"X": "a", "Y": "b"}


def test_posterior_batch_integer_row_labels_read_plainly(chair, deterministic):
    """Row labels from a default integer index appear as numbers, not np.int64(...)."""
    with pytest.raises(bbn.DataError, match=r"column 'A', row 1: value 'yes'"):
        chair.posterior(["C"], pd.DataFrame({"A": ["T", "yes"]}))
    frame = pd.DataFrame({"X": ["a", "a", "b"], "Y": ["a", "b", None]}, index=[10, 11, 12])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 11:"):
        deterministic.posterior(["Z"], frame)


def test_a_variable_may_be_named_like_the_batch_axis():
    """Any name a .bn file can quote is a valid variable, "#case" included."""
    net = bbn.Network()
    net.add_variable("#case", ["a", "b"], table=[0.3, 0.7])
    net.add_variable("Y", ["a", "b"], parents=["#case"], table=[[0.9, 0.1], [0.2, 0.8]])
    expected = 0.27 / (0.27 + 0.14)  # P(#case=a | Y=a)
    assert net.posterior("#case", {"Y": "a"}).to_dict()["a"] == pytest.approx(expected)
    result = net.posterior(["#case"], pd.DataFrame({"Y": ["a", None]}))
    np.testing.assert_allclose(result["a"], [expected, 0.3])
    result = net.posterior(["Y"], pd.DataFrame({"#case": ["a", "b"]}))
    np.testing.assert_allclose(result["a"], [0.9, 0.2])


# ---------------------------------------------------------- pruning & memory
def _wide_network() -> bbn.Network:
    """P1..P6 (4 states) → W → E → X: W's table has 4^7 entries (128 KiB)."""
    net = wide_network()
    net.add_variable("E", TF, parents=["W"], table=[[0.9, 0.1], [0.5, 0.5], [0.2, 0.8],
                                                    [0.6, 0.4]])
    net.add_variable("X", TF, parents=["E"], table=[[0.7, 0.3], [0.2, 0.8]])
    return net


def test_memory_limit_error_gives_size_and_width(memory_limit):
    net = bbn.Network("complete")
    for i, v in enumerate("ABCD"):  # every earlier variable is a parent
        net.add_variable(v, TF, parents=list("ABCD"[:i]), table=np.full((2,) * (i + 1), 0.5))
    memory_limit(100)
    # P(D) needs D's own table: 2^4 entries of 8 bytes, over 4 variables
    with pytest.raises(bbn.MemoryLimitError) as error:
        net.posterior("D")
    assert "128.0 B" in str(error.value) and "induced width 3" in str(error.value)
    assert "100.0 B" in str(error.value)
    assert isinstance(error.value, bbn.BBNError)
    # barren D and C are pruned from P(A), which stays under the limit
    assert net.posterior("A").to_dict() == {"T": 0.5, "F": 0.5}


def test_barren_and_separated_tables_are_pruned(memory_limit):
    net = _wide_network()
    brute_x = BruteForce(net).posterior(["X"], {"E": "T"})
    memory_limit(1024)
    # W's table (128 KiB) is d-separated from X by E: never multiplied in
    np.testing.assert_allclose(net.posterior("X", {"E": "T"}).values, [0.7, 0.3], atol=EXACT)
    np.testing.assert_allclose(brute_x, [0.7, 0.3], atol=EXACT)
    np.testing.assert_allclose(net.posterior("P1").values, [0.1, 0.2, 0.3, 0.4], atol=EXACT)
    with pytest.raises(bbn.MemoryLimitError, match="induced width"):
        net.posterior("X")  # needs Σ_W P(W | P1..P6)


def _separated_zeros() -> bbn.Network:
    """X → Y, and apart from them H → O where both tables hold zeros."""
    net = bbn.Network("separated zeros")
    net.add_variable("X", TF, table=[0.3, 0.7])
    net.add_variable("Y", TF, parents=["X"], table=[[0.9, 0.1], [0.2, 0.8]])
    net.add_variable("H", ["a", "b", "c"], table=[0.5, 0.5, 0.0])
    net.add_variable("O", TF, parents=["H"], table=[[1.0, 0.0], [0.4, 0.6], [0.0, 1.0]])
    return net


def _plan_sources(net: bbn.Network, query: list[str], observed: list[str]) -> list[str]:
    network = net.compiled()
    return [source.variable for source in compile_plan(network.parents, network.cardinality,
                                                       query, observed,
                                                       positive=network.zero_free).sources]


def test_a_separated_part_is_kept_only_when_an_observed_table_has_a_zero():
    net = _separated_zeros()
    # O observed: P(O = o | H) has zeros, so the H–O part may make P(e) = 0 and stays
    assert _plan_sources(net, ["X"], ["O"]) == ["H", "O", "X"]
    # H observed: P(H = c) = 0 (O is barren)
    assert _plan_sources(net, ["X"], ["H"]) == ["H", "X"]
    # Now only the hidden H has a zero: Σ_h P(h) P(O = o | h) ≥ min P(O | H) > 0
    net.set_cpt("O", [[0.9, 0.1], [0.4, 0.6], [0.3, 0.7]])
    assert _plan_sources(net, ["X"], ["O"]) == ["X"]
    assert _plan_sources(net, ["X"], ["O", "Y"]) == ["X", "Y"]
    # the answers are those of the whole joint
    brute = BruteForce(net)
    for evidence in ({"O": "T"}, {"O": "F", "Y": "T"}, {"H": "b", "Y": "F"}):
        np.testing.assert_allclose(net.posterior("X", evidence).values,
                                   brute.posterior(["X"], evidence), atol=EXACT)


def test_evidence_made_impossible_by_a_separated_part_is_reported():
    net = _separated_zeros()
    # H = c has probability 0; with it, O = F is certain: O = T has probability 0
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("X", {"H": "c"})
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("X", {"H": "a", "O": "F"})
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("X", {"O": "T", "H": "c", "Y": "T"})
    # Σ_h P(h) P(O = T | h) = 0.5 + 0.2 > 0: possible, and X's posterior is its prior
    np.testing.assert_allclose(net.posterior("X", {"O": "T"}).values, [0.3, 0.7], atol=EXACT)


def test_memory_limit_counts_batch_rows(memory_limit):
    net = bbn.Network("many states")
    net.add_variable("X", TF, table=[0.3, 0.7])
    states = [f"e{i}" for i in range(1000)]
    rng = np.random.default_rng(3)
    net.add_variable("E", states, parents=["X"], table=rng.dirichlet(np.ones(1000), size=2))
    frame = pd.DataFrame({"E": states})  # 1000 distinct rows
    memory_limit(4096)
    single = net.posterior("X", {"E": "e5"}).values
    with pytest.raises(bbn.MemoryLimitError):
        net.posterior(["X"], frame)
    memory_limit(1 << 30)
    result = net.posterior(["X"], frame).to_numpy()
    assert result.shape == (1000, 2)
    np.testing.assert_allclose(result[5], single, atol=EXACT)
    table = net.cpt_array("E")
    expected = 0.3 * table[0] / (0.3 * table[0] + 0.7 * table[1])
    np.testing.assert_allclose(result[:, 0], expected, rtol=1e-12)


def test_a_batch_of_no_rows_is_an_empty_answer(chair):
    empty = pd.DataFrame({"A": pd.Series([], dtype=object)})
    assert chair.posterior(["C"], empty).shape == (0, 2)


def test_no_run_in_logs_where_nothing_can_underflow():
    """evaluate: where the smallest positive product of one entry per table is above
    TRUSTED (plan_floor), an impossible case is exactly 0 and no case is run again in
    logs; where it is below (a table of 1e-250s), a case that small is still run in logs
    and comes back exact."""
    import math

    from bbn.engines.exact.elimination import TRUSTED, evaluate, plan_floor

    net = bbn.Network("floor")
    net.add_variable("A", ["a0", "a1"], table=[0.5, 0.5])
    net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[1.0, 0.0], [0.2, 0.8]])
    plan = compile_plan({"A": (), "B": ("A",)}, {"A": 2, "B": 2}, ["A"], ["B"],
                        batched=frozenset("B"))
    plan.tables = [np.asarray(net.cpt_array(s.variable)) for s in plan.sources]
    assert math.exp(plan_floor(plan)) == pytest.approx(0.5 * 0.2)

    def no_logs(_):
        raise AssertionError("run in logs")

    table, scale, _ = evaluate(plan, {"B": slice(None)}, no_logs)
    assert scale == 0.0
    np.testing.assert_allclose(table, [[0.5, 0.1], [0.0, 0.4]])  # cases b0, b1
    tiny = [t * (1e-250 if t.ndim == 1 else 1.0) for t in plan.tables]
    plan.tables, plan.floor = tiny, None
    assert plan_floor(plan) < math.log(TRUSTED)
    with np.errstate(divide="ignore"):  # log 0 = −inf: an impossible entry
        table, scale, _ = evaluate(plan, {"B": slice(None)}, lambda p: [
            np.log(t) for t in p.tables])
    np.testing.assert_allclose(table * np.exp(scale)[:, None] / 1e-250,
                               [[0.5, 0.1], [0.0, 0.4]], rtol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_steps_reading_no_evidence_run_once(seed):
    """fold_constants: the sum steps reading neither evidence nor a table given per run
    are run at the first question and kept, read-only; every later question (other
    evidence, new likelihood numbers) equals brute force, and a plan given new tables
    folds them again."""
    from strategies import random_network

    from bbn.engines.exact.elimination import evaluate, fold_constants, run_plan

    net = random_network(seed, max_variables=9, max_states=3)
    oracle, engine = BruteForce(net), net.engine
    rng = np.random.default_rng(seed)
    names = list(net.variables)
    ancestors = {v: set(net.parents(v)) for v in names}
    for v in names * len(names):  # closed under parents
        ancestors[v] |= set().union(*(ancestors[p] for p in net.parents(v)))
    target = max(names, key=lambda v: (len(ancestors[v]), v))  # a chain above it
    others = [v for v in names if v != target and v not in ancestors[target]]
    observed = [others[i] for i in rng.permutation(len(others))[:2]]
    states = {v: net.states(v) for v in names}
    for _ in range(4):  # each with other evidence: the kept steps read none of it
        evidence = {v: states[v][rng.integers(len(states[v]))] for v in observed}
        if oracle.p_evidence(evidence) > 0:
            expected = oracle.unnormalised([target], evidence)
            np.testing.assert_allclose(net.posterior(target, evidence).values,
                                       expected / expected.sum(), atol=1e-12)
        if not observed:
            continue
        weighed, rest = observed[0], {v: evidence[v] for v in observed[1:]}
        weights = rng.uniform(0.1, 1.0, len(states[weighed]))  # new numbers each time
        shape = [1] * len(names)
        shape[names.index(weighed)] = len(weights)
        joint = oracle.restricted(rest) * weights.reshape(shape)
        expected = joint.sum(axis=tuple(i for i, v in enumerate(names) if v != target))
        if expected.sum() > 0:
            answer = net.posterior(target, {**rest, weighed: dict(zip(states[weighed],
                                                                      weights))})
            np.testing.assert_allclose(answer.values, expected / expected.sum(), atol=1e-12)
    plan = engine.plan([target], observed)
    given, codes = plan.tables, {v: 0 for v in observed}
    table, scale, _ = evaluate(plan, codes, engine._logs)
    folded = plan.constants
    assert folded is not None and folded[0] is given
    for kept in folded[1].values():
        assert kept is None or not kept.flags.writeable
    assert all(not plan.steps[k].maximize for k in folded[1])
    assert len(plan.steps) - 1 not in folded[1]  # the last step is the caller's
    whole, _ = run_plan(plan, [t.transpose(s.axes)[tuple(codes[u] for u in s.fixed)]
                               if s.fixed else t for s, t in zip(plan.sources, given)])
    np.testing.assert_allclose(table * np.exp(scale), whole, atol=1e-300, rtol=1e-12)
    plan.tables = [t * 2.0 for t in given]  # new tables: folded again, not the old ones
    try:
        table, scale, _ = evaluate(plan, codes, engine._logs)
        np.testing.assert_allclose(table * np.exp(scale), whole * 2.0 ** len(given),
                                   atol=1e-300, rtol=1e-12)
        assert plan.constants[0] is plan.tables
        assert fold_constants(plan).keys() == folded[1].keys()
    finally:
        plan.tables = given


def test_a_chain_without_evidence_is_summed_once():
    """A → B → C → D, P(C | D = d): summing A and then B reads no evidence (P(C) is the
    same for every d): both steps run at the first question only, the product with
    P(d | C) at each."""
    from bbn.engines.exact.elimination import evaluate

    net = bbn.Network("chain")
    net.add_variable("A", ["a0", "a1"], table=[0.3, 0.7])
    net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[0.9, 0.1], [0.4, 0.6]])
    net.add_variable("C", ["c0", "c1"], parents=["B"], table=[[0.8, 0.2], [0.25, 0.75]])
    net.add_variable("D", ["d0", "d1"], parents=["C"], table=[[0.6, 0.4], [0.1, 0.9]])
    plan = net.engine.plan(["C"], ["D"])
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return einsum(*args, **kwargs)

    einsum = np.einsum
    np.einsum = counted
    try:
        first, _, _ = evaluate(plan, {"D": 0}, net.engine._logs)
        at_first = len(calls)
        again, _, _ = evaluate(plan, {"D": 1}, net.engine._logs)
    finally:
        np.einsum = einsum
    assert len(plan.steps) == at_first == 3  # sum A, sum B, the product with P(d | C)
    assert len(calls) - at_first == 1  # asked again: the product alone
    prior_c = np.array([0.3, 0.7]) @ np.array([[0.9, 0.1], [0.4, 0.6]]) @ np.array(
        [[0.8, 0.2], [0.25, 0.75]])
    np.testing.assert_allclose(first, prior_c * [0.6, 0.1], rtol=1e-14)
    np.testing.assert_allclose(again, prior_c * [0.4, 0.9], rtol=1e-14)


def test_constants_too_large_to_keep_are_run_each_time(monkeypatch):
    """Above KEPT_ENTRIES nothing is kept on the plan: every step runs at each question,
    with the same answer."""
    from bbn.engines.exact import elimination

    net = bbn.Network("chain")
    net.add_variable("A", ["a0", "a1"], table=[0.3, 0.7])
    net.add_variable("B", ["b0", "b1"], parents=["A"], table=[[0.9, 0.1], [0.4, 0.6]])
    net.add_variable("C", ["c0", "c1"], parents=["B"], table=[[0.6, 0.4], [0.1, 0.9]])
    expected = net.posterior("B", {"C": "c1"}).values
    monkeypatch.setattr(elimination, "KEPT_ENTRIES", 1)
    plan = net.engine.plan(["B"], ["C"])
    assert elimination.fold_constants(plan) == {}
    table, _, _ = elimination.evaluate(plan, {"C": 1}, net.engine._logs)
    np.testing.assert_allclose(table / table.sum(), expected, rtol=1e-14)
    prior_b = [0.3 * 0.9 + 0.7 * 0.4, 0.3 * 0.1 + 0.7 * 0.6]  # (0.55, 0.45)
    np.testing.assert_allclose(expected, np.multiply(prior_b, [0.4, 0.9]) / 0.625,
                               rtol=1e-12)

"""Variable elimination against brute-force enumeration of the full joint, on random networks.

Every answer bbn gives — posteriors (one or several variables), P(e), P(assignment | e),
MAP/MPE and batched posteriors — must equal what the joint table P(X1..Xn), built by
multiplying every table with numpy in the test, says. Networks have up to 8 variables
with 1 to 4 states and tables with zeros and deterministic rows, so impossible evidence
is frequent: it must raise ImpossibleEvidenceError, never give NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import evidence_for, networks, query_and_evidence

import bbn

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
TOL = {"rtol": 1e-9, "atol": 1e-12}  # numpy.testing
APPROX = {"rel": 1e-9, "abs": 1e-12}  # pytest.approx


def _as_array(factor: bbn.Factor, query: list[str]) -> np.ndarray:
    assert factor.variables == tuple(query)
    return factor.values


@PROPERTY
@given(data=st.data(), net=networks())
def test_posterior_equals_brute_force(data, net):
    brute = BruteForce(net)
    for _ in range(4):  # several questions per network also replays cached plans
        query, evidence = data.draw(query_and_evidence(net))
        if data.draw(st.booleans()):  # sometimes observe a queried variable too
            evidence.update(data.draw(evidence_for(net)))
        expected = brute.posterior(query, evidence)
        if expected is None:
            with pytest.raises(bbn.ImpossibleEvidenceError) as error:
                net.posterior(query, evidence)
            assert error.value.evidence == evidence
            continue
        factor = net.posterior(query, evidence)
        assert factor.states == {v: net.states(v) for v in query}
        values = _as_array(factor, query)
        assert np.all(np.isfinite(values))
        np.testing.assert_allclose(values, expected, **TOL)
        assert values.sum() == pytest.approx(1.0, abs=1e-12)


@PROPERTY
@given(data=st.data(), net=networks())
def test_probability_of_evidence_equals_brute_force(data, net):
    brute = BruteForce(net)
    for _ in range(4):
        evidence = data.draw(evidence_for(net))
        expected = brute.p_evidence(evidence)
        got = net.probability(evidence)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-15)
        assert (got == 0) == (expected == 0)
        assert net.probability(evidence) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@PROPERTY
@given(data=st.data(), net=networks())
def test_probability_of_assignment_given_evidence(data, net):
    brute = BruteForce(net)
    for _ in range(4):
        assignment = data.draw(evidence_for(net).filter(bool))
        evidence = data.draw(evidence_for(net))
        expected = brute.probability(assignment, evidence)
        if expected is None:
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.probability(assignment, evidence)
            continue
        assert net.probability(assignment, evidence) == pytest.approx(expected, **APPROX)


def _check_map(net, brute, variables, evidence, result):
    table = brute.unnormalised(variables, evidence)
    p_e = table.sum()
    assignment, p = result
    assert set(assignment) == set(variables)
    best = table.max() / p_e
    index = tuple(net.states(v).index(assignment[v]) for v in variables)
    # Ties are allowed: the assignment returned must reach the maximum.
    assert table[index] / p_e == pytest.approx(best, **APPROX)
    assert p == pytest.approx(best, **APPROX)
    assert 0.0 < p <= 1.0 + 1e-12


@PROPERTY
@given(data=st.data(), net=networks())
def test_map_equals_brute_force(data, net):
    brute = BruteForce(net)
    for _ in range(3):
        variables, evidence = data.draw(query_and_evidence(net))
        if brute.p_evidence(evidence) == 0:
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.map(variables, evidence)
            continue
        _check_map(net, brute, variables, evidence, net.map(variables, evidence))


@PROPERTY
@given(data=st.data(), net=networks())
def test_mpe_equals_brute_force(data, net):
    brute = BruteForce(net)
    for _ in range(3):
        evidence = data.draw(evidence_for(net))
        hidden = [v for v in net.variables if v not in evidence]
        if brute.p_evidence(evidence) == 0:
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.mpe(evidence)
            continue
        assignment, p = net.mpe(evidence)
        if not hidden:  # everything observed: the only assignment is the empty one
            assert assignment == {} and p == pytest.approx(1.0)
            continue
        _check_map(net, brute, hidden, evidence, (assignment, p))


@st.composite
def batches(draw, net):
    """Query variables and a DataFrame of evidence rows over other variables, with gaps."""
    query = draw(st.lists(st.sampled_from(net.variables), min_size=1, max_size=2, unique=True))
    others = [v for v in net.variables if v not in query]
    columns = draw(st.lists(st.sampled_from(others), unique=True)) if others else []
    n_rows = draw(st.integers(1, 6))
    rows = [{c: draw(st.one_of(st.none(), st.sampled_from(net.states(c)))) for c in columns}
            for _ in range(n_rows)]
    frame = pd.DataFrame(rows, columns=columns, index=range(n_rows), dtype=object)
    return query, frame


@PROPERTY
@given(data=st.data(), net=networks())
def test_posterior_batch_equals_brute_force(data, net):
    brute = BruteForce(net)
    query, frame = data.draw(batches(net))
    expected = []
    for _, row in frame.iterrows():
        evidence = {c: s for c, s in row.items() if s is not None and not pd.isna(s)}
        expected.append(brute.posterior(query, evidence))
    if any(e is None for e in expected):
        with pytest.raises(bbn.ImpossibleEvidenceError):
            net.posterior(query, frame)
        return
    result = net.posterior(query, frame).to_numpy().reshape(
        len(frame), *(net.cardinality(v) for v in query))
    assert np.all(np.isfinite(result))
    np.testing.assert_allclose(result, np.stack(expected), **TOL)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), net=networks())
def test_queries_survive_table_changes(data, net):
    """Cached plans must follow set_cpt: answers after a change match the new joint."""
    query, evidence = data.draw(query_and_evidence(net))
    try:
        net.posterior(query, evidence)  # warm the cache
    except bbn.ImpossibleEvidenceError:
        pass
    v = data.draw(st.sampled_from(net.variables))
    shape = net.cpt_array(v).shape
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    table = rng.uniform(0.0, 1.0, size=shape)
    table[..., 0] += 0.01
    if data.draw(st.booleans()):
        table[..., 1:] = 0.0  # a deterministic table: evidence may become impossible
    net.set_cpt(v, table, normalize=True)
    expected = BruteForce(net).posterior(query, evidence)
    if expected is None:
        with pytest.raises(bbn.ImpossibleEvidenceError):
            net.posterior(query, evidence)
    else:
        np.testing.assert_allclose(net.posterior(query, evidence).values, expected, **TOL)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), net=networks(max_variables=12, max_states=3, max_parents=4))
def test_larger_networks_posterior_and_map(data, net):
    """More variables and parents than above: elimination orders with real fill-in."""
    brute = BruteForce(net)
    query, evidence = data.draw(query_and_evidence(net))
    expected = brute.posterior(query, evidence)
    if expected is None:
        with pytest.raises(bbn.ImpossibleEvidenceError):
            net.posterior(query, evidence)
        return
    np.testing.assert_allclose(net.posterior(query, evidence).values, expected, **TOL)
    _check_map(net, brute, query, evidence, net.map(query, evidence))

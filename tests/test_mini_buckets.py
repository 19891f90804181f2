"""Importance sampling from weighted mini-buckets (bbn.engines.approximate.mini_buckets)
against the brute-force joint.

- No bucket split (small networks): the proposal is the exact conditional, so every
  weight is Z(e): log Z(e) equals brute force to 1e-9; the marginals are sampled (10,000
  samples, Rao–Blackwellised) and within 0.03.
- Buckets split (a cap of 4 entries on loopy Markov networks with zeros): log Z(e)
  within 0.05 and the marginals within 0.03 of brute force with 40,000 samples.
- Impossible evidence is raised only when P(e) = 0 (proved by the zeros); all-zero
  weights are NoAnswerError.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from brute_force import joint_array
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import evidence_for, networks

import bbn
from bbn.engines.approximate.mini_buckets import MiniBucketSampler, reduce_model
from bbn.questions import dispatch


def coded(graph, evidence: dict[str, str]) -> dict[int, int]:
    return {graph.index(v): graph.states[graph.index(v)].index(s) for v, s in evidence.items()}


def brute(net, evidence: dict[str, str]) -> tuple[float, dict[str, np.ndarray]]:
    """Z(e) and every unobserved variable's P(X | e) from the full joint."""
    joint = joint_array(net)
    index = tuple(net.states(v).index(evidence[v]) if v in evidence else slice(None)
                  for v in net.variables)
    sliced = joint[index]
    free = [v for v in net.variables if v not in evidence]
    z = float(sliced.sum())
    marginals = {}
    for axis, v in enumerate(free):
        others = tuple(a for a in range(len(free)) if a != axis)
        marginals[v] = sliced.sum(axis=others) / z if z > 0 else None
    return z, marginals


@settings(max_examples=30, deadline=None)
@given(data=st.data(), net=networks(max_variables=7, max_states=3))
def test_without_a_split_the_proposal_is_exact(data, net):
    evidence = data.draw(evidence_for(net))
    z, marginals = brute(net, evidence)
    graph = dispatch.factor_graph(net)
    sampler = MiniBucketSampler(samples=10_000, seed=1)
    if z == 0:
        with pytest.raises((bbn.ImpossibleEvidenceError, bbn.NoAnswerError)):
            sampler.run(graph, coded(graph, evidence))
        return
    found = sampler.run(graph, coded(graph, evidence))  # never "impossible" when P(e) > 0
    assert found.exact
    assert found.log_partition == pytest.approx(np.log(z), abs=1e-9)
    for v, p in marginals.items():
        np.testing.assert_allclose(found.marginals[graph.index(v)], p, atol=0.03)
    for v, state in evidence.items():  # an observed variable is certain
        expected = np.eye(len(net.states(v)))[net.states(v).index(state)]
        np.testing.assert_array_equal(found.marginals[graph.index(v)], expected)


def grid(seed: int) -> bbn.MarkovNetwork:
    """A 3×3 grid of pairwise factors plus two triples, 2–3 states, a quarter of the
    entries 0 (loopy, with zeros: the buckets split under a small cap)."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork(f"grid{seed}")
    cells = [f"X{r}{c}" for r in range(3) for c in range(3)]
    for v in cells:
        net.add_variable(v, [str(s) for s in range(int(rng.integers(2, 4)))])
    scopes = [[f"X{r}{c}", f"X{r}{c + 1}"] for r in range(3) for c in range(2)]
    scopes += [[f"X{r}{c}", f"X{r + 1}{c}"] for r in range(2) for c in range(3)]
    scopes += [["X00", "X11", "X22"], ["X02", "X11", "X20"]]
    for scope in scopes:
        shape = [net.cardinality(v) for v in scope]
        table = rng.uniform(0.1, 1.0, size=shape) * (rng.random(shape) > 0.25)
        table.reshape(-1)[0] = 1.0  # no all-zero factor
        net.add_factor(scope, table)
    return net


@pytest.mark.parametrize("seed", range(4))
def test_split_buckets_estimate_z_and_the_marginals(seed):
    net = grid(seed)
    evidence = {"X00": "0"} if seed % 2 else {}
    z, marginals = brute(net, evidence)
    assert z > 0
    graph = dispatch.factor_graph(net)
    found = MiniBucketSampler(samples=40_000, largest=4, seed=seed).run(
        graph, coded(graph, evidence))
    assert not found.exact and found.largest == 4
    assert found.log_partition == pytest.approx(np.log(z), abs=0.05)
    for v, p in marginals.items():
        np.testing.assert_allclose(found.marginals[graph.index(v)], p, atol=0.03)


def test_large_potentials_do_not_overflow_the_weighted_sums():
    """Potentials of 1e150 (a grid's times 1e150 each): log Z shifts by 1e150's log per
    factor, the marginals stay."""
    small = grid(3)
    large = bbn.MarkovNetwork("large")
    for v in small.variables:
        large.add_variable(v, small.states(v))
    for f in small.factors:
        large.add_factor(list(f.variables), f.values * 1e150)
    z, marginals = brute(small, {})
    graph = dispatch.factor_graph(large)
    found = MiniBucketSampler(samples=40_000, largest=4, seed=3).run(graph, {})
    shift = len(small.factors) * np.log(1e150)
    assert found.log_partition == pytest.approx(np.log(z) + shift, abs=0.05)
    for v, p in marginals.items():
        np.testing.assert_allclose(found.marginals[graph.index(v)], p, atol=0.03)


def test_the_reduced_model_drops_what_the_zeros_rule_out():
    net = bbn.MarkovNetwork("forced")
    for v in "ABC":
        net.add_variable(v, ["0", "1", "2"])
    net.add_factor(["A", "B"], np.diag([2.0, 3.0, 0.0]))  # A = B, never 2
    net.add_factor(["B", "C"], [[1, 1, 0], [0, 0, 5], [1, 1, 1]])
    graph = dispatch.factor_graph(net)
    reduced = reduce_model(graph, {0: 1})  # A = 1 forces B = 1, then C = 2
    assert [k.tolist() for k in reduced.kept] == [[1], [1], [2]]
    assert reduced.free == [] and reduced.log_constant == pytest.approx(np.log(15))
    found = MiniBucketSampler(samples=10).run(graph, {0: 1})
    assert found.log_partition == pytest.approx(np.log(15))
    assert [m.tolist() for m in found.marginals] == [[0, 1, 0], [0, 1, 0], [0, 0, 1]]


def test_all_weights_zero_is_no_answer_not_impossible(monkeypatch):
    """A proposal whose every sample has weight 0 proves nothing: NoAnswerError."""
    import bbn.engines.approximate.mini_buckets as mini_buckets

    net = grid(0)
    graph = dispatch.factor_graph(net)
    monkeypatch.setattr(mini_buckets, "_log_weights",
                        lambda reduced, drawn, column: np.full(drawn.shape[1], -np.inf))
    with pytest.raises(bbn.NoAnswerError, match="all of weight 0"):
        MiniBucketSampler(samples=100).run(graph, {})


def test_the_cap_is_lowered_to_the_time():
    """Ten seconds buy 1.6e8 product entries: a grid's cap is kept, a microsecond's is
    halved down to the smallest."""
    net = grid(1)
    graph = dispatch.factor_graph(net)
    assert MiniBucketSampler(samples=10, largest=64).run(graph, {}).largest == 64
    tiny = MiniBucketSampler(samples=10, largest=64, seconds=1e-6).run(graph, {})
    assert tiny.largest == 2 and np.isfinite(tiny.log_partition)


def test_states_are_all_enumerated_by_the_brute_force_helper():
    """The oracle itself: Z of a grid equals the sum over every assignment."""
    net = grid(2)
    z, _ = brute(net, {})
    total = 0.0
    for states in itertools.product(*[range(net.cardinality(v)) for v in net.variables]):
        assignment = dict(zip(net.variables, states))
        total += np.prod([f.values[tuple(assignment[u] for u in f.variables)]
                          for f in net.factors])
    assert z == pytest.approx(total)


def test_truncating_the_largest_weights_keeps_z_and_the_marginals():
    """The samples of largest weight held apart and truncated for the marginals (tail
    2,000 of 40,000) or not at all (tail 0): the same samples, so the same Z(e) (from the
    weights as drawn), and both sets of marginals within 0.03 of brute force."""
    net = grid(2)
    z, marginals = brute(net, {})
    graph = dispatch.factor_graph(net)
    plain = MiniBucketSampler(samples=40_000, largest=4, seed=2, tail=0).run(graph, {})
    held = MiniBucketSampler(samples=40_000, largest=4, seed=2).run(graph, {})
    assert held.log_partition == pytest.approx(plain.log_partition, abs=1e-9)
    assert held.log_partition == pytest.approx(np.log(z), abs=0.05)
    for v, p in marginals.items():
        for found in (plain, held):
            np.testing.assert_allclose(found.marginals[graph.index(v)], p, atol=0.03)

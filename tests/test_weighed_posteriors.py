"""Every posterior with likelihoods from the model's own engine
(bbn.questions.weighed_posteriors, Weighing.weighed_posteriors): one junction tree per
shape, the numbers given per question — against brute force on the weighted joint."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import bbn
from tests.brute_force import joint_array
from tests.example_networks import loop_markov_network
from tests.generic_networks import generic_network
from tests.test_uncertain import (
    _likelihood,
    _marginal,
    _pick,
    _states,
    _weighted_joint,
    _with_zeros,
)


def _check(net, evidence, likelihoods, hard):
    joint = _weighted_joint(net, likelihoods, hard)
    if not joint.sum() > 0:
        with pytest.raises(bbn.ImpossibleEvidenceError, match="likelihood"):
            net.posteriors(evidence)
        return False
    marginals = net.posteriors(evidence)
    assert list(marginals) == list(net.variables)
    for v in net.variables:
        m = _marginal(net, joint, [v])
        np.testing.assert_allclose(marginals[v].values, m / m.sum(), atol=1e-12)
    return True


@pytest.mark.parametrize("seed", range(16))
def test_every_posterior_with_likelihoods_whose_numbers_change(seed):
    """Two likelihoods (one with a zero, several numbers in turn) and a hard finding, on
    networks with zeros in their tables (impossible combinations: the
    ImpossibleEvidenceError names the likelihoods), trees of cliques and dense joints."""
    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 300, 5 + seed % 7, 5 + seed % 7), rng, 3)
    w1, w2, h = _pick(net, rng, 3)
    hard = {h: _states(net, h)[int(rng.integers(net.cardinality(h)))]}
    for zero in (False, True, True, False):
        likelihoods = {w1: _likelihood(net, w1, rng), w2: _likelihood(net, w2, rng, zero)}
        _check(net, {**hard, **likelihoods}, likelihoods, hard)
    assert net._answering.derived is None  # no view made
    assert len(net.engine._weighed_engines) <= 2  # λ_2 > 0, λ_2 with a zero


def test_a_likelihood_that_rules_out_the_possible_states():
    net = bbn.Network("ruled out")
    net.add_variable("A", ["0", "1"], table=[1.0, 0.0])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[0.3, 0.7], [0.5, 0.5]])
    with pytest.raises(bbn.ImpossibleEvidenceError, match=r"A.*\(likelihood\)"):
        net.posteriors({"B": "1", "A": {"0": 0.0, "1": 2.0}})
    marginals = net.posteriors({"B": "1", "A": {"0": 0.5, "1": 2.0}})
    np.testing.assert_allclose(marginals["A"].values, [1.0, 0.0], atol=1e-15)


def test_every_posterior_with_a_likelihood_below_the_smallest_trusted_sum():
    """P(e) = 1e-250: the propagation does not trust its sums and the weighed elimination
    in logarithms answers, the likelihood weighed in."""
    net = bbn.Network("tiny")
    net.add_variable("A", ["0", "1"], table=[0.3, 0.7])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1e-250, 1 - 1e-250],
                                                             [3e-250, 1 - 3e-250]])
    net.add_variable("C", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    marginals = net.posteriors({"B": "0", "C": {"0": 0.5, "1": 1.0}})
    a = np.array([0.3 * 1e-250 * (0.9 * 0.5 + 0.1), 0.7 * 3e-250 * (0.2 * 0.5 + 0.8)])
    np.testing.assert_allclose(marginals["A"].values, a / a.sum(), rtol=1e-12)


def test_every_posterior_with_a_likelihood_past_the_memory_limit(memory_limit):
    """A tree that may not be kept is compiled for the question alone, the known hard
    findings sliced in, the virtual child's numbers still the question's."""
    net = generic_network(811, 12, 12)
    rng = np.random.default_rng(3)
    w, h = _pick(net, rng, 2)
    hard = {h: _states(net, h)[0]}
    likelihoods = {w: _likelihood(net, w, rng, zero=True)}
    memory_limit(6_000)  # the one-question tree fits, a kept one does not
    try:
        _check(net, {**hard, **likelihoods}, likelihoods, hard)
    except bbn.MemoryLimitError:
        pytest.skip("the tree does not fit even for one question")
    engine, _ = next(iter(net.engine._weighed_engines.values()))
    assert not engine._trees  # nothing kept


def test_every_posterior_with_a_likelihood_on_a_markov_network():
    net = loop_markov_network(7)
    for lam in ([0.2, 0.0, 0.9], [1.0, 0.3, 0.0]):
        joint = (joint_array(net) * np.array(lam)[None, :, None, None])[:, :, :, 1]  # D=1
        marginals = net.posteriors({"D": "1", "B": dict(zip("012", lam))})
        for axis, v in enumerate("ABC"):
            m = joint.sum(axis=tuple(a for a in range(3) if a != axis))
            np.testing.assert_allclose(marginals[v].values, m / m.sum(), atol=1e-12)


def test_every_posterior_with_likelihoods_from_many_threads():
    net = generic_network(812, 12, 12)
    rng = np.random.default_rng(4)
    w, h = _pick(net, rng, 2)
    hard = {h: _states(net, h)[0]}
    asks = [{**hard, w: _likelihood(net, w, rng)} for _ in range(48)]
    expected = [np.concatenate([m.values for m in net.posteriors(e).values()]) for e in asks]
    fresh = generic_network(812, 12, 12)  # the same network, nothing compiled yet
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda e: np.concatenate(
            [m.values for m in fresh.posteriors(e).values()]), asks))
    np.testing.assert_allclose(np.array(found), np.array(expected), atol=1e-12)


def test_approximate_methods_still_answer_on_the_view():
    net = bbn.load("models/chair.bn")
    evidence = {"A": "T", "W": {"T": 0.8, "F": 0.4}}
    exact = net.posteriors(evidence)["C"].values
    gibbs = net.posteriors(evidence, method=bbn.Gibbs(seed=3, samples=20_000))["C"].values
    np.testing.assert_allclose(gibbs, exact, atol=0.03)

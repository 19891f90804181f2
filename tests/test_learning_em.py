"""Expectation–maximisation: fixed points, the log-likelihood trace, hidden variables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from example_networks import chair_network
from generic_networks import generic_network

import bbn
import bbn.engines.exact.expected_counts as expected_counts
from bbn.core.errors import DataError
from bbn.engines.exact.expected_counts import CountingPlan
from bbn.tasks.learning import em


def holes(frame: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    """The frame with each cell missing independently with probability ``fraction``."""
    mask = np.random.default_rng(seed).random(frame.shape) < fraction
    return frame.astype(object).mask(mask)


def brute_log_likelihood(net: bbn.Network, frame: pd.DataFrame) -> float:
    """Σ_rows log P(observed cells), one exact query per row."""
    return sum(math.log(net.probability({k: v for k, v in row.items() if isinstance(v, str)}))
        for row in frame.to_dict("records"))


@pytest.fixture(scope="module")
def incomplete() -> pd.DataFrame:
    return holes(bbn.sample(chair_network(), 2000, seed=0), 0.2, seed=1)


def test_em_on_complete_data_is_the_complete_data_estimate():
    data = bbn.sample(chair_network(), 1000, seed=3)
    for estimator in ("mle", "laplace"):
        result = em(chair_network(), data, estimator)
        assert result.converged and result.iterations <= 2
        learned = bbn.learn(chair_network(), data, estimator)
        for v in learned.variables:
            np.testing.assert_allclose(result.network.cpt_array(v), learned.cpt_array(v),
                                       atol=1e-12)


def test_em_fixed_point_when_only_the_child_is_missing():
    # A → B with B missing at random: the maximum-likelihood estimate is P(A) from every
    # row and P(B | A) from the complete rows only.
    net = bbn.Network()
    net.add_variable("A", ["a", "b"])
    net.add_variable("B", ["x", "y", "z"], parents=["A"])
    data = pd.DataFrame({"A": list("aaaaabbbab"),
                         "B": ["x", "y", None, "x", None, "z", "z", None, None, "y"]})
    result = em(net, data, tol=1e-13, max_iter=500)
    np.testing.assert_allclose(result.network.cpt_array("A"), [0.6, 0.4], atol=1e-9)
    np.testing.assert_allclose(result.network.cpt_array("B"),
                               [[2 / 3, 1 / 3, 0], [0, 1 / 3, 2 / 3]], atol=1e-6)


def test_log_likelihood_trace_is_exact_and_never_decreases_under_mle(incomplete):
    result = em(chair_network(), incomplete, tol=1e-10)
    trace = np.array(result.log_likelihood)
    assert result.converged and len(trace) == result.iterations + 1
    assert np.all(np.diff(trace) >= -1e-9)
    assert trace[-1] == pytest.approx(brute_log_likelihood(result.network, incomplete),
                                      rel=1e-12)


def test_em_recovers_the_tables_within_five_standard_errors(incomplete):
    learned, truth = em(chair_network(), incomplete).network, chair_network()
    for v in truth.variables:
        parents = list(truth.parents(v))
        p, q = truth.cpt_array(v), learned.cpt_array(v)
        for index in np.ndindex(p.shape[:-1]):
            rows = incomplete[v].notna()  # rows seeing v and this parent configuration
            for parent, i in zip(parents, index, strict=True):
                rows &= incomplete[parent] == truth.states(parent)[i]
            n = int(rows.sum())
            if n >= 30:
                bound = 5 * np.sqrt(p[index] * (1 - p[index]) / n)
                assert np.all(np.abs(q[index] - p[index]) <= bound), (v, index)


@pytest.mark.parametrize("seed", range(6))
def test_e_step_equals_each_rows_posterior(seed, monkeypatch):
    # One batched calibration for every incomplete row against one exact query per row:
    # n̄_X(f) = Σ_r P(Pa(X), X = f | o_r) and log P(o_r), on random networks (several
    # components, hidden variables, every missingness pattern).
    net = generic_network(seed, 4, 8)
    frame = holes(bbn.sample(net, 60, seed=seed), 0.4, seed=seed + 1)
    hidden = net.variables[seed % len(net.variables)]
    frame[hidden] = None
    plan = CountingPlan(net.compiled())
    if seed % 2:  # batches of 7 cases (the last one 4) reusing the same clique buffers
        monkeypatch.setattr(expected_counts, "BATCH_ENTRIES", 7 * plan.entries_per_case + 1)
    evidence = {v: np.array([net.states(v).index(x) if isinstance(x, str) else -1
                             for x in frame[v]]) for v in net.variables}
    counts, log_p = plan.expected_counts(net.compiled().tables, evidence, np.ones(len(frame)))
    for r, row in enumerate(frame.to_dict("records")):
        seen = {k: x for k, x in row.items() if isinstance(x, str)}
        assert log_p[r] == pytest.approx(math.log(net.probability(seen)), rel=1e-10)
    for v in net.variables:
        family = [*net.parents(v), v]
        brute = sum(net.posterior(family, evidence={k: x for k, x in row.items()
                                                    if isinstance(x, str) and k not in family})
                    .values * np.array(_one_hot_mask(net, family, row))
                    / _seen_probability(net, family, row)
                    for row in frame.to_dict("records"))
        np.testing.assert_allclose(counts[v], brute, atol=1e-10)


def _one_hot_mask(net: bbn.Network, family: list[str], row: dict) -> np.ndarray:
    """1 on the family's cells consistent with the row's seen members."""
    mask = np.ones([net.cardinality(u) for u in family])
    for axis, u in enumerate(family):
        if isinstance(row[u], str):
            keep = np.zeros(net.cardinality(u))
            keep[net.states(u).index(row[u])] = 1
            shape = [1] * len(family)
            shape[axis] = -1
            mask = mask * keep.reshape(shape)
    return mask


def _seen_probability(net: bbn.Network, family: list[str], row: dict) -> float:
    """P(the family's seen members | the rest of the row's findings)."""
    rest = {k: x for k, x in row.items() if isinstance(x, str) and k not in family}
    seen = {u: row[u] for u in family if isinstance(row[u], str)}
    return net.probability({**rest, **seen}) / net.probability(rest) if seen else 1.0


def test_learn_with_missing_em_returns_the_em_network(incomplete):
    learned = bbn.learn(chair_network(), incomplete, missing="em")
    assert learned == em(chair_network(), incomplete).network


def test_hidden_variable_has_no_column():
    data = bbn.sample(chair_network(), 1500, seed=5).drop(columns=["B"])
    result = em(chair_network(), data, max_iter=300, seed=1)
    assert result.converged
    assert result.log_likelihood[-1] > result.log_likelihood[0]
    assert np.all(np.diff(result.log_likelihood) >= -1e-9)
    assert result.log_likelihood[-1] == pytest.approx(
        brute_log_likelihood(result.network, data.astype(object)), rel=1e-10)
    assert em(chair_network(), data, max_iter=300, seed=1).network == result.network  # seeded


def test_iteration_cap_and_initial_tables(incomplete):
    capped = em(chair_network(), incomplete, max_iter=1, tol=0)
    assert capped.iterations == 1 and not capped.converged and len(capped.log_likelihood) == 2
    started = em(chair_network(), incomplete, initial=chair_network(), max_iter=1, tol=0)
    assert started.log_likelihood[0] == pytest.approx(
        brute_log_likelihood(chair_network(), incomplete))


def test_em_refuses_bad_settings():
    with pytest.raises(DataError, match="max_iter"):
        em(chair_network(), bbn.sample(chair_network(), 10, seed=0), max_iter=0)

"""Sensitivity of a posterior to one table entry: against re-solving the network with the
entry changed (its row rescaled) and against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import bbn
from bbn.core.errors import QueryError
from tests.generic_networks import generic_network


def changed(net: bbn.Network, variable: str, row: tuple, index: int, theta: float):
    """A copy of ``net`` whose entry is ``theta``, the rest of its row scaled to 1 − θ."""
    table = np.array(net.cpt_array(variable), dtype=float)
    entries = table[row]
    others = [k for k in range(len(entries)) if k != index]
    entries[others] *= (1 - theta) / entries[others].sum()
    entries[index] = theta
    other = net.copy()
    other.set_cpt(variable, table)
    return other


def test_chair_prior_of_c(chair):
    result = bbn.sensitivity(chair, "P(C | A=T)", "C", None, "T")
    # P(C=T, A=T) = 0.2284 θ, P(C=F, A=T) = 0.11668 (1 − θ): by hand from the tables
    np.testing.assert_allclose(result.numerator, [[0.2284, 0.0], [-0.11668, 0.11668]],
                               atol=1e-15)
    assert result.value == pytest.approx(22840 / 25757, abs=1e-12)
    assert result.decision == "T"
    assert result.decision_range == pytest.approx((0.11668 / (0.2284 + 0.11668), 1.0),
                                                  abs=1e-12)
    assert "holds for θ in [0.338124, 1]" in result.to_text()


@pytest.mark.parametrize("seed", range(30))
def test_sensitivity_matches_resolving_and_finite_differences(seed):
    net = generic_network(seed, max_variables=5)
    rng = np.random.default_rng(seed)
    names = [str(v) for v in rng.permutation(net.variables)]
    target = names[0]
    evidence = {v: str(rng.choice(net.states(v))) for v in names[1:] if rng.random() < 0.4}
    variable = str(rng.choice(net.variables))
    parents = net.parents(variable)
    row = tuple(int(rng.integers(net.cardinality(p))) for p in parents)
    table = np.asarray(net.cpt_array(variable))
    index = int(rng.integers(net.cardinality(variable)))
    theta0 = float(table[row][index])
    given = ", ".join(f"{v}={s}" for v, s in evidence.items())
    query = f"P({target} | {given})" if given else f"P({target})"
    before = net.posterior(target, evidence).values  # generic tables: P(e) > 0
    result = bbn.sensitivity(net, query, variable,
                             [net.states(p)[i] for p, i in zip(parents, row)],
                             net.states(variable)[index])
    assert result.theta == theta0
    assert result.at(theta0) == pytest.approx(before, abs=1e-10)
    for theta in (0.1, 0.5, 0.9):
        expected = changed(net, variable, row, index, theta).posterior(target, evidence).values
        assert result.at(theta) == pytest.approx(expected, abs=1e-10)
    h = 1e-6
    plus = changed(net, variable, row, index, theta0 + h).posterior(target, evidence)
    minus = changed(net, variable, row, index, theta0 - h).posterior(target, evidence)
    k = result.states.index(result.decision)
    slope = (plus.values[k] - minus.values[k]) / (2 * h)
    assert result.derivative == pytest.approx(slope, rel=1e-5, abs=1e-8)
    low, high = result.decision_range
    assert low <= theta0 <= high
    best = result.states.index(result.decision)
    for theta in np.linspace(low, high, 7)[1:-1]:
        assert np.argmax(result.at(theta)) == best or np.isclose(
            result.at(theta).max(), result.at(theta)[best])


def test_mistakes(chair):
    with pytest.raises(QueryError, match="one target variable"):
        bbn.sensitivity(chair, "P(C, S | A=T)", "C", None, "T")
    with pytest.raises(QueryError, match="needs a state for each parent"):
        bbn.sensitivity(chair, "P(C | A=T)", "B", {"C": "T"}, "T")
    with pytest.raises(QueryError, match="has no state"):
        bbn.sensitivity(chair, "P(C | A=T)", "C", None, "maybe")

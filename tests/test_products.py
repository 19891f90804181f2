"""Products of many tables over one clique, small products first: the same numbers as
one einsum of every table, with fewer passes over the clique."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bbn.engines.exact.cliques import Clique
from bbn.engines.exact.products import product_order
from bbn.engines.exact.propagation import product


@pytest.mark.parametrize("seed", range(5))
def test_a_planned_product_equals_einsum(seed):
    rng = np.random.default_rng(seed)
    names = [f"V{i}" for i in range(13)]
    card = {v: int(rng.integers(2, 4)) for v in names}
    shape = tuple(card[v] for v in names)
    clique = Clique(tuple(names), shape, math.prod(shape))
    factors = []
    for _ in range(int(rng.integers(3, 30))):
        scope = tuple(str(v) for v in rng.choice(names, size=rng.integers(1, 5), replace=False))
        factors.append((rng.random([card[v] for v in scope]) + 0.1, scope))
    operands = [np.ones(shape), list(range(len(names)))]  # every axis, also one in no table
    for values, scope in factors:
        operands += [values, [names.index(v) for v in scope]]
    expected = np.einsum(*operands, list(range(len(names))))
    found = product(clique, factors, card).reshape(shape)
    np.testing.assert_allclose(found, expected, rtol=1e-12)


def test_tiny_products_are_rescaled_and_keep_their_ratios():
    # 40 factors of entries 1e-10 and 1e-9: the product, 1e-400 and less, would be 0;
    # rescaled, its ratios survive (the posteriors read them).
    card = {"A": 2, "B": 2}
    clique = Clique(("A", "B"), (2, 2), 4)
    factors = [(np.array([1e-10, 1e-9]), ("A",)) for _ in range(40)]
    found = product(clique, factors + [(np.ones((2, 2)), ("A", "B"))], card, rescaled=True)
    assert found[2] / found[0] == pytest.approx(1e40, rel=1e-10)


def test_the_order_merges_small_unions_first_and_stops_at_the_cap():
    # scopes {0}, {1}, {0, 1}, {2} over three binary axes, unions of at most 4 entries:
    # {0} into {0, 1} (no new axis), then {1} into that; {2} joins nothing ({0, 1, 2}: 8).
    merges = product_order([0b001, 0b010, 0b011, 0b100], [2, 2, 2], cap=4)
    assert merges.steps == [(0, 2), (1, 4)]
    assert merges.left == [3, 5]
    assert product_order([0b01, 0b10], [3, 3], cap=8).steps == []

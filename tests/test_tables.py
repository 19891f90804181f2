"""The one table validator (bbn.core.tables): the fast checks agree with the row detail, for
one table and for the packed tables of a whole file."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bbn
from bbn.core.tables import BadRow, bad_rows, check_packed, is_valid, normalized, row_tolerance


def test_bad_rows_name_each_row_and_its_first_problem():
    table = np.array([[0.9, 0.1],          # fine
                      [1.2, -0.2],         # a negative entry, sums to 1
                      [np.nan, 1.0],       # not finite
                      [0.5, 0.5 + 3e-6],   # off by 3e-6 > 2e-6
                      [0.5, -0.5]])        # negative, and sums to 0
    found = bad_rows(table)
    assert [found[0], found[2], found[3]] == [
        BadRow(1, "negative", (1,), 1.0, False),
        BadRow(3, "sum off", (), 1.000003, True),
        BadRow(4, "negative", (1,), 0.0, True)]
    assert (found[1].row, found[1].reason, found[1].entries, found[1].sum_off) == (
        2, "non-finite", (0,), True) and np.isnan(found[1].total)
    assert not is_valid(table) and is_valid(table[:1])


def test_rows_are_numbered_over_every_parent_axis():
    table = np.full((2, 3, 2), 0.5)
    table[1, 2] = [0.7, 0.7]
    assert [b.row for b in bad_rows(table)] == [5]  # parent configuration (1, 2), flat


def test_normalize_asks_only_for_a_positive_sum():
    table = np.array([[1.0, 3.0], [0.0, 0.0], [2.0, -1.0]])
    assert [(b.row, b.reason) for b in bad_rows(table, normalize=True)] == [
        (1, "zero sum"), (2, "negative")]
    assert bad_rows(table[:1], normalize=True) == []
    assert normalized(table[:1]).tolist() == [[0.25, 0.75]]


def test_the_tolerance_grows_with_the_row():
    assert row_tolerance(2) == pytest.approx(2e-6) and row_tolerance(4) == pytest.approx(3e-6)
    assert is_valid(np.array([0.25, 0.25, 0.25, 0.25 + 2.9e-6]))
    assert not is_valid(np.array([0.5, 0.5 + 2.9e-6]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3)).flatmap(
    lambda shape: st.lists(st.lists(st.sampled_from(
        [0.0, 0.25, 0.5, 0.75, 1.0, -0.25, 0.5 + 1e-5, np.inf, np.nan]),
        min_size=shape[1], max_size=shape[1]), min_size=shape[0], max_size=shape[0])),
    min_size=1, max_size=4), st.booleans())
def test_the_fast_checks_agree_with_the_row_detail(tables, normalize):
    arrays = [np.array(t, dtype=float) for t in tables]
    for array in arrays:
        assert is_valid(array, normalize) == (bad_rows(array, normalize) == [])
    packed = check_packed(np.concatenate([a.ravel() for a in arrays]),
                          [a.size for a in arrays], [a.shape[1] for a in arrays], normalize)
    assert (packed is not None) == all(is_valid(a, normalize) for a in arrays)
    if packed is not None:
        expected = [normalized(a) if normalize else a for a in arrays]
        assert np.allclose(packed.numbers, np.concatenate([a.ravel() for a in expected]))
        assert packed.smallest == [float(a.min()) for a in arrays]


def test_network_messages_come_from_the_bad_rows():
    net = bbn.Network()
    net.add_variable("A", ["a", "b"], table=[0.5, 0.5])
    net.add_variable("B", ["x", "y"], parents=["A"])
    with pytest.raises(bbn.ModelError, match=r"^P\(B \| A=b\) has a negative entry -0\.5 for "
                                             r"state 'y' \(and 1 more problem\(s\)\)$"):
        net.set_cpt("B", [[0.5, 0.5], [0.5, -0.5]])  # the negative entry, then the sum
    with pytest.raises(bbn.ModelError, match=r"P\(B \| A=a\) sums to 0\.0: only a row with a "
                                             "positive sum can be normalised"):
        net.set_cpts({"B": np.array([[0.0, 0.0], [1.0, 3.0]])}, normalize=True)
    net.set_cpts({"B": np.array([[2.0, 2.0], [1.0, 3.0]])}, normalize=True)
    assert net.cpt_array("B").tolist() == [[0.5, 0.5], [0.25, 0.75]] and net.validate() == []

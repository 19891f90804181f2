"""Integer codes: distinct_rows must agree with numpy's row-wise unique, overflow included."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bbn.core.codes import distinct_rows, mixed_radix


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=40),
                  elements=st.integers(-1, 5)))
def test_distinct_rows_equals_numpy_unique(matrix):
    rows, inverse = distinct_rows(matrix)
    expected, expected_inverse = np.unique(matrix, axis=0, return_inverse=True)
    assert np.array_equal(rows, expected)
    assert np.array_equal(inverse, expected_inverse.ravel())
    assert np.array_equal(rows[inverse], matrix)


def test_distinct_rows_stays_exact_when_the_radix_product_overflows():
    rng = np.random.default_rng(0)
    matrix = rng.integers(0, 18, size=(3000, 64))  # 18^64 configurations: far past int64
    matrix[1500:] = matrix[:1500]  # every row twice
    rows, inverse = distinct_rows(matrix)
    expected, expected_inverse = np.unique(matrix, axis=0, return_inverse=True)
    assert len(rows) == 1500
    assert np.array_equal(rows, expected) and np.array_equal(inverse, expected_inverse.ravel())


def test_distinct_rows_of_booleans_and_of_nothing():
    rows, inverse = distinct_rows(np.array([[True, False], [True, False], [False, False]]))
    assert rows.tolist() == [[False, False], [True, False]] and inverse.tolist() == [1, 1, 0]
    rows, inverse = distinct_rows(np.zeros((3, 0), dtype=int))
    assert rows.shape == (1, 0) and inverse.tolist() == [0, 0, 0]


def test_mixed_radix_is_the_row_major_flat_index():
    a, b, c = np.array([0, 1, 2]), np.array([1, 0, 1]), np.array([3, 2, 0])
    codes = mixed_radix([a, b, c], (3, 2, 4))
    assert codes.tolist() == [np.ravel_multi_index(t, (3, 2, 4)) for t in zip(a, b, c)]


def test_observed_groups_partition_the_rows_by_pattern():
    from bbn.core.codes import observed_groups

    seen = np.array([[True, False], [True, True], [True, False], [False, False]])
    groups = {tuple(p.tolist()): r.tolist() for r, p in observed_groups(seen)}
    assert groups == {(False, False): [3], (True, False): [0, 2], (True, True): [1]}
    (rows, pattern), = observed_groups(np.ones((3, 2), dtype=bool))
    assert rows.tolist() == [0, 1, 2] and pattern.tolist() == [True, True]
    assert list(observed_groups(np.zeros((0, 2), dtype=bool))) == []

"""Conditional independence tests on counts: is X ⫫ Y | Z in the data?

For every configuration z of the conditioning set Z (none: one configuration), with
counts N_xyz, margins N_xz, N_yz, N_z and expected counts E_xyz = N_xz N_yz / N_z:

    G² = 2 Σ_xyz N_xyz ln(N_xyz / E_xyz)          (likelihood ratio; 0 · ln 0 = 0)
    χ² = Σ_xyz (N_xyz − E_xyz)² / E_xyz            (Pearson; cells with E = 0 left out)

Both are compared with a χ² distribution of

    dof = Σ_z (r_z − 1)(c_z − 1)

degrees of freedom, r_z and c_z the numbers of states of X and Y seen with z: states and
configurations never seen carry no information, and counting them would make every test
on sparse data look independent (pgmpy counts the same way, one contingency table per
seen z). The p-value is P(χ²_dof ≥ statistic) (scipy); with dof = 0 there is nothing to
test and the p-value is 1. A small p-value (below the level α) rejects independence.

>>> import pandas as pd
>>> from bbn.tasks.structure.dataset import read_coded
>>> rows = pd.DataFrame({"X": list("aabbaabb"), "Y": list("aabbabab")})
>>> result = independence_test(read_coded(rows), 0, 1)   # N = (3, 1; 1, 3), E = 2
>>> round(result.statistic, 6), result.dof, round(result.p_value, 6)
(2.092993, 1, 0.147976)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from scipy.special import chdtrc

from bbn.core.errors import ModelError, suggest
from bbn.core.memory import ENTRY_BYTES, check_allocation, get_memory_limit
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.family_scores import segment_starts

#: The tests :func:`independence_test` knows: the likelihood ratio G² and Pearson's χ².
TESTS = ("g2", "chi2")


class TestResult(NamedTuple):
    """One test's outcome: the statistic, its degrees of freedom, the p-value (floats; or
    arrays of many tests' from :func:`independence_tests`)."""

    statistic: float
    dof: int
    p_value: float


def independence_test(data: CodedData, x: int, y: int, given: Sequence[int] = (),
                      test: str = "g2") -> TestResult:
    """Test X ⫫ Y | Z on the data's counts (formulas in this module's docstring).

    Parameters
    ----------
    data : CodedData
        The coded rows (with ``missing="drop"``, the rows complete on X, Y and Z).
    x, y : int
        The positions of X and Y.
    given : sequence of int, default ()
        The positions of the conditioning set Z.
    test : {"g2", "chi2"}, default "g2"
        The statistic.

    Returns
    -------
    TestResult
        ``statistic``, ``dof``, ``p_value``.

    Raises
    ------
    ModelError
        For an unknown test.
    MemoryLimitError
        When the table of X, Y and Z exceeds the memory limit.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]] * 5)
    >>> data = CodedData(("X", "Y", "Z"), (("0", "1"),) * 3, codes)
    >>> independence_test(data, 0, 1, [2]).dof    # X = Y when Z = 0, X ≠ Y when Z = 1
    2
    >>> independence_test(data, 0, 1, [2]).p_value < 1e-6
    True
    """
    if test not in TESTS:
        raise ModelError(f"unknown test {test!r}; the tests are {', '.join(TESTS)}"
                         f"{suggest(str(test), TESTS)}")
    family = [*given, x, y]
    check_allocation(data.table_size(family),
                     f"the independence test of {data.variables[x]!r} and "
                     f"{data.variables[y]!r} given {len(given)} variables")
    rx, ry = data.cardinality[x], data.cardinality[y]
    counts = data.counts(family).reshape(-1, rx, ry)
    counts = counts[counts.sum(axis=(1, 2)) > 0]          # configurations z seen
    by_x, by_y = counts.sum(axis=2), counts.sum(axis=1)
    totals = by_x.sum(axis=1)
    expected = by_x[:, :, None] * by_y[:, None, :] / totals[:, None, None]
    if test == "g2":
        seen = counts > 0
        statistic = 2.0 * float(np.sum(counts[seen] * np.log(counts[seen] / expected[seen])))
    else:
        kept = expected > 0
        statistic = float(np.sum((counts[kept] - expected[kept]) ** 2 / expected[kept]))
    dof = int(np.sum(np.maximum((by_x > 0).sum(axis=1) - 1, 0)
                     * np.maximum((by_y > 0).sum(axis=1) - 1, 0)))
    if dof == 0:
        return TestResult(statistic, 0, 1.0)
    return TestResult(statistic, dof, float(chdtrc(dof, max(statistic, 0.0))))


class Request(NamedTuple):
    """Tests of X ⫫ T | S for every X of ``candidates`` (positions), run together by
    :func:`independence_tests`."""

    target: int
    candidates: np.ndarray
    given: tuple[int, ...] = ()


#: Codes counted per np.bincount: 128 Ki (512 KiB of int32 codes, and the 1 MiB of
#: int64 that np.bincount converts them to, stay within a 2 MiB L2 cache), but at least
#: ``_MIN_BATCH_TESTS`` tests: a batch costs ~0.15 ms whatever its size, so with more rows
#: fewer, larger batches win. MMPC's CPU time against 256 Ki codes and no minimum (AMD
#: EPYC, medians): child 1,000 rows 15.5 → 12.5 ms, alarm 1,000 29.9 → 22.6 ms,
#: hailfinder 1,000 34.4 → 22.4 ms; alarm 10,000 113 → 105-122 ms (noise); child
#: 100,000 579 → 430 ms, insurance 100,000 2.16 → 1.45 s. (Before int32: 256 Ki int64
#: codes; PC's tests on 10,000 rows of alarm took 612 ms so, 795 ms one at a time.)
_BATCH_ENTRIES = 1 << 17
_MIN_BATCH_TESTS = 32
#: ... while a batch's codes stay within 4 Mi (16 MiB of int32: 41 tests of 100,000 rows,
#: 4 of 1,000,000), as the families of a climb (bbn.tasks.structure.family_scores).
_MAX_BATCH_ENTRIES = 1 << 22

#: From this many rows, the tables are counted a test at a time (:func:`_count`).
_COLUMN_ROWS = 20_000


def independence_tests(data: CodedData, requests: Sequence[Request], test: str = "g2",
                       codes: np.ndarray | None = None) -> TestResult:
    """Run many tests X ⫫ T | S at once: one ``np.bincount`` counts every table.

    Test i of the flattened requests has the table (z, t, x) of q_i r_t r_x entries,
    laid end to end with the others: a row adds 1 at

        offset_i + (z · r_t + t) · r_x + x        (z the mixed-radix code of S)

    and the margins N_tz, N_xz, N_z, G² (or χ²) and the degrees of freedom follow from
    weighted ``np.bincount`` over group indices: the Python cost is per call, not per
    test (MMPC asks for the tests of all its targets together).

    Parameters
    ----------
    data : CodedData
        The coded rows (with ``missing="drop"``, each test on the rows complete on X, T
        and S).
    requests : sequence of Request
        ``(target, candidates, given)``: the tests of every candidate X against T given S.
    test : {"g2", "chi2"}, default "g2"
        The statistic (not checked here: the callers validate it once).
    codes : numpy.ndarray, optional
        ``counting_codes(data)`` (to convert once for many calls).

    Returns
    -------
    TestResult
        Arrays ``statistic``, ``dof``, ``p_value``: one entry per test, the requests'
        candidates in order; a test whose table exceeds the memory limit has p-value NaN
        (untested).

    Examples
    --------
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]] * 5)
    >>> data = CodedData(("X", "Y", "Z"), (("0", "1"),) * 3, codes)
    >>> found = independence_tests(data, [Request(1, np.array([0, 2])), Request(1, [0], (2,))])
    >>> found.dof.tolist(), (found.p_value < 1e-6).tolist()   # X ⫫ Y, Z ⫫ Y; not given Z
    ([1, 1, 2], [False, False, True])
    """
    limit = get_memory_limit() // ENTRY_BYTES
    if codes is None or limit >= np.iinfo(codes.dtype).max:   # the limit was raised since
        codes = counting_codes(data)
    cards = np.array(data.cardinality, dtype=np.int64)
    lengths = np.array([len(r.candidates) for r in requests], dtype=np.int64)
    total = int(lengths.sum())
    statistic, dof, p_value = np.zeros(total), np.zeros(total, dtype=np.int64), np.ones(total)
    if not total:
        return TestResult(statistic, dof, p_value)
    request_of = np.repeat(np.arange(len(requests)), lengths)
    x = np.concatenate([np.asarray(r.candidates, dtype=np.int64) for r in requests])
    target = np.array([r.target for r in requests], dtype=np.int64)
    # S padded to one width with the target itself at stride 0 (adds nothing to z); the
    # strides and q as Python ints, capped past the limit (a larger product may overflow
    # int64; such a test is not run)
    cardinality = data.cardinality
    width = max(len(r.given) for r in requests)
    given_rows, stride_rows, q_list = [], [], []
    for r in requests:
        stride_row, q = [], cardinality[r.target]
        for j in r.given:
            stride_row.append(q)
            q = min(q * cardinality[j], limit + 1)
        pad = width - len(r.given)
        given_rows.append([*r.given, *[r.target] * pad])
        stride_rows.append(stride_row + [0] * pad)
        q_list.append(q)
    given = np.array(given_rows, dtype=np.int64).reshape(len(requests), width)
    stride = np.array(stride_rows, dtype=np.int64).reshape(len(requests), width)
    rt = cards[target]
    q = np.array(q_list, dtype=np.int64) // rt              # configurations z of S
    fits = (q * rt)[request_of] * cards[x] <= limit         # < 2⁶³: both factors capped
    p_value[~fits] = math.nan
    layout = _Layout(q[request_of], rt[request_of], cards[x])
    todo = np.flatnonzero(fits)
    rows = max(data.rows, 1)
    per_batch = max(1, min(max(_MIN_BATCH_TESTS, _BATCH_ENTRIES // rows),
                           _MAX_BATCH_ENTRIES // rows))
    start = 0
    while start < len(todo):
        stop = min(len(todo), start + per_batch)
        while stop - start > 1 and int(layout.size[todo[start:stop]].sum()) > limit:
            stop = start + (stop - start) // 2
        batch = todo[start:stop]
        part = layout.select(batch)
        counts = _count(codes, data.missing == "drop", part, x[batch], request_of[batch],
                        target, given, stride)
        statistic[batch], dof[batch] = _flat_statistics(counts, part, test, data.xlogx)
        start = stop
    tested = (dof > 0) & ~np.isnan(p_value)
    p_value[tested] = chdtrc(dof[tested], np.maximum(statistic[tested], 0.0))
    return TestResult(statistic, dof, p_value)


def counting_codes(data: CodedData) -> np.ndarray:
    """The data's codes as :func:`independence_tests` counts them: a column per variable
    (Fortran order), int32 while every index into a batch's tables fits (a batch holds at
    most the memory limit's entries: 1 GiB is 2²⁷ of them), else int64.

    int32 halves the memory every counting pass reads and writes: MMPC on 1,000 rows of
    child took 21.4 → 17.9 ms so (CPU, medians of 21 runs taking turns).

    Examples
    --------
    >>> data = CodedData(("X", "Y"), (("0", "1"),) * 2, np.array([[0, 1], [1, 1]]))
    >>> counting_codes(data).dtype
    dtype('int32')
    """
    fits = get_memory_limit() // ENTRY_BYTES < np.iinfo(np.int32).max
    return np.asarray(data.codes, dtype=np.int32 if fits else np.int64, order="F")


class _Layout:
    """The tables of a batch of tests end to end: q_i configurations z, r_t, r_x."""

    def __init__(self, q: np.ndarray, rt: np.ndarray, rx: np.ndarray):
        self.q, self.rt, self.rx = q, rt, rx
        self.size = q * rt * rx
        self.starts = segment_starts(self.size)

    def select(self, tests: np.ndarray) -> _Layout:
        return _Layout(self.q[tests], self.rt[tests], self.rx[tests])


def _changes(keys: np.ndarray) -> np.ndarray:
    """Where a run of equal keys begins (True at the first entry)."""
    change = np.empty(len(keys), dtype=bool)
    change[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=change[1:])
    return change


def _count(codes: np.ndarray, drop: bool, layout: _Layout, x: np.ndarray,
           request_of: np.ndarray, target: np.ndarray, given: np.ndarray,
           stride: np.ndarray) -> np.ndarray:
    """The tables of a batch of tests, end to end, by one bincount (integers); from
    ``_COLUMN_ROWS`` rows, one bincount per test (a column of codes stays in the cache,
    a matrix of millions does not: MMPC on 100,000 rows of child took 1.6 s so, 4.0 s
    with one bincount per batch)."""
    change = _changes(request_of)                          # the tests run by request
    requests = request_of[change]
    local = np.cumsum(change) - 1
    by_variable = codes.T                 # a row per variable: whole columns gathered fast
    base = by_variable[target[requests]]                   # (requests, rows): z · r_t + t
    for k in range(given.shape[1]):
        base += by_variable[given[requests, k]] * stride[requests, k][:, None].astype(base.dtype)
    if base.shape[1] >= _COLUMN_ROWS:
        return _count_by_column(codes, drop, layout, x, local, base.T,
                                target[requests], given[requests])
    xs = by_variable[x]
    cell = base if len(local) == len(base) else base[local]   # one test per request: as is
    cell *= layout.rx[:, None].astype(cell.dtype)      # in the codes' dtype: no int64 copy
    cell += xs
    cell += layout.starts[:, None].astype(cell.dtype)
    total = int(layout.size.sum())
    if drop:                                               # a missing value: the last bin
        missing = by_variable[target[requests]] < 0
        for k in range(given.shape[1]):
            missing |= by_variable[given[requests, k]] < 0
        cell[missing[local] | (xs < 0)] = total
    return np.bincount(cell.ravel(), minlength=total + 1)[:total]


def _count_by_column(codes: np.ndarray, drop: bool, layout: _Layout, x: np.ndarray,
                     local: np.ndarray, base: np.ndarray, target: np.ndarray,
                     given: np.ndarray) -> np.ndarray:
    """:func:`_count` one test at a time: base · r_x + x, one bincount per test."""
    missing = None
    if drop:
        missing = codes[:, target] < 0
        for k in range(given.shape[1]):
            missing |= codes[:, given[:, k]] < 0
    tables, scaled = [], {}                  # base · r_x of the current request
    for i, (request, rx, size) in enumerate(zip(local.tolist(), layout.rx.tolist(),
                                               layout.size.tolist())):
        if (request, rx) not in scaled:
            scaled = {key: v for key, v in scaled.items() if key[0] == request}
            scaled[(request, rx)] = base[:, request] * rx
        code = scaled[(request, rx)] + codes[:, x[i]]
        if missing is not None:                            # a missing value: the last bin
            code[missing[:, request] | (codes[:, x[i]] < 0)] = size
        tables.append(np.bincount(code, minlength=size + 1)[:size])
    return np.concatenate(tables)


def _flat_statistics(counts: np.ndarray, layout: _Layout, test: str,
                     xlogx: Callable[[np.ndarray], np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """G² or χ² and the degrees of freedom of tables (z, t, x) laid end to end.

    Only the cells seen are read (at most one per row and test, where the tables may
    hold millions of cells): in that sorted order a configuration z, and a pair (z, t),
    are runs of consecutive cells; the pairs (z, x) are gathered by a bincount.
    """
    q, rt, rx = layout.q, layout.rt, layout.rx
    n_tests = len(q)
    seen = np.flatnonzero(counts)
    whole = counts[seen]
    n = whole.astype(float)
    test_of = np.searchsorted(layout.starts, seen, side="right") - 1
    rx_seen = rx[test_of]
    zt, x = np.divmod(seen - layout.starts[test_of], rx_seen)      # z · r_t + t, and x
    z = zt // rt[test_of]
    z_key = segment_starts(q)[test_of] + z                  # non-decreasing, as zt_key
    zt_key = segment_starts(q * rt)[test_of] + zt
    z_change = _changes(z_key)
    z_first = np.flatnonzero(z_change)
    zt_first = np.flatnonzero(_changes(zt_key))
    by_z = np.add.reduceat(n, z_first)                      # N_z of each z seen
    by_zt = np.add.reduceat(n, zt_first)                    # N_tz of each (z, t) seen
    zx_starts = segment_starts(q * rx)
    zx_key = zx_starts[test_of] + z * rx_seen + x
    zx_all = np.bincount(zx_key, n, int(zx_starts[-1] + q[-1] * rx[-1]))
    zx_seen = np.flatnonzero(zx_all)
    by_zx = zx_all[zx_seen]                                  # N_xz of each (z, x) seen
    # the z and the test of each (z, x) seen, scattered from its cells (all agree)
    of_zx = np.empty(len(zx_all), dtype=np.int64)
    of_zx[zx_key] = z_key
    zx_z = of_zx[zx_seen]
    of_zx[zx_key] = test_of
    zx_test = of_zx[zx_seen]
    if test == "g2":
        statistic = 2.0 * (np.bincount(test_of, xlogx(whole), n_tests)
                           + np.bincount(test_of[z_first], xlogx(by_z), n_tests)
                           - np.bincount(test_of[zt_first], xlogx(by_zt), n_tests)
                           - np.bincount(zx_test, xlogx(by_zx), n_tests))
    else:
        # Σ over all cells with E > 0 of (N − E)²/E = Σ over the cells seen of N²/E − N
        # (E sums to N over a table; an unseen cell with E > 0 adds E)
        expected = (np.repeat(by_zt, np.diff(zt_first, append=len(n)))
                    * zx_all[zx_key] / np.repeat(by_z, np.diff(z_first, append=len(n))))
        statistic = (np.bincount(test_of, n * n / expected, n_tests)
                     - np.bincount(test_of, n, n_tests))
    # the states of T and of X seen with each z: (r_z − 1)(c_z − 1) summed over z
    # (a z run begins a (z, t) run: count the (z, t) runs between two z runs' beginnings)
    t_states = np.diff(np.flatnonzero(z_change[zt_first]), append=len(zt_first))
    x_states = np.bincount(zx_z, minlength=int(q.sum()))[z_key[z_first]]
    dof = np.bincount(test_of[z_first], (t_states - 1) * (x_states - 1), n_tests)
    return statistic, np.rint(dof).astype(np.int64)

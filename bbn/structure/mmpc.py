"""Max-min parents and children (MMPC): the skeleton a hybrid search climbs within.

For every target T, MMPC (Tsamardinos, Brown and Aliferis, 2006) grows a set CPC of
candidate parents and children. The association of X with T is its weakest over the
subsets S of CPC (at most ``max_condition`` variables),

    minassoc(X; T | CPC) = min_{S ⊆ CPC} assoc(X; T | S),    assoc = −ln p(X ⫫ T | S)

(p the G² or χ² test's p-value of :mod:`bbn.structure.independence`). Forward: the X
with the largest minimum association joins CPC while it is dependent (p < α); an X found
independent given some S leaves the candidates for good. Backward: an X of CPC
independent of T given a subset of the rest of CPC is removed. The skeleton keeps X – T
when X ∈ PC(T) or T ∈ PC(X): the score prunes the extra candidates afterwards, while an
edge left out can never come back (with BIC on samples of alarm, insurance, child and
hailfinder, 1,000 and 10,000 rows, "or" gave the hybrid an equivalence-class SHD lower
than "and" by 3, 21 and 26 in 3 cells, equal in 4 and higher by 6 in one; see
docs/structure.md).

The tests of one target and one conditioning set run together: the candidates X of one
cardinality are counted by one ``np.bincount`` into a (candidates, z, t, x) array, and
G², degrees of freedom and p-values follow for all of them at once (equal to
:func:`~bbn.structure.independence.independence_test`, one test each).

>>> import numpy as np
>>> from bbn.structure.dataset import CodedData
>>> rng = np.random.default_rng(0)
>>> a = rng.integers(0, 2, 2000); c = rng.integers(0, 2, 2000)
>>> b = (a | c) ^ (rng.random(2000) < 0.1)                   # A → B ← C
>>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, np.column_stack([a, b, c]))
>>> skeleton, tests = mmpc(data, alpha=0.05, test="g2", max_condition=2)
>>> np.argwhere(np.triu(skeleton)).tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from scipy.special import chdtrc, xlogy

from bbn.memory import ENTRY_BYTES, get_memory_limit
from bbn.structure.dataset import CodedData


def batch_tests(data: CodedData, target: int, candidates: Sequence[int], given: Sequence[int],
                test: str = "g2", codes: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Test X ⫫ T | S for every X of ``candidates`` at once.

    Parameters
    ----------
    data : CodedData
        The coded rows (with ``missing="drop"``, each test on the rows complete on X, T
        and S).
    target : int
        T's position.
    candidates : sequence of int
        The positions of the X's.
    given : sequence of int
        S, the conditioning set.
    test : {"g2", "chi2"}, default "g2"
    codes : numpy.ndarray, optional
        ``data.codes`` as int64 (to convert once for many calls).

    Returns
    -------
    statistic, dof, p_value : numpy.ndarray
        One entry per candidate; a test whose table exceeds the memory limit has
        p-value NaN (untested).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]] * 5)
    >>> data = CodedData(("X", "Y", "Z"), (("0", "1"),) * 3, codes)
    >>> statistic, dof, p = batch_tests(data, 1, [0], [2])
    >>> int(dof[0]), bool(p[0] < 1e-6)
    (2, True)
    """
    codes = np.asarray(data.codes, dtype=np.int64) if codes is None else codes
    cards = np.array(data.cardinality, dtype=np.int64)
    candidates = np.asarray(candidates, dtype=np.int64)
    statistic = np.zeros(len(candidates))
    dof = np.zeros(len(candidates), dtype=np.int64)
    p_value = np.ones(len(candidates))
    if not len(candidates):
        return statistic, dof, p_value
    base = codes[:, target].copy()
    missing = base < 0
    q = 1
    for j in given:
        base += codes[:, j] * (int(cards[target]) * q)
        missing |= codes[:, j] < 0
        q *= int(cards[j])
    rt = int(cards[target])
    limit = get_memory_limit() // ENTRY_BYTES
    for rx in np.unique(cards[candidates]).tolist():
        group = np.flatnonzero(cards[candidates] == rx)
        if q * rt * rx > limit:
            p_value[group] = math.nan
            continue
        per_batch = max(1, min(limit // (q * rt * rx), (1 << 22) // max(data.rows, 1)))
        for start in range(0, len(group), per_batch):
            part = group[start:start + per_batch]
            xs = codes[:, candidates[part]]
            cell = (np.arange(len(part)) * (q * rt) + base[:, None]) * rx + xs
            size = len(part) * q * rt * rx
            if data.missing == "drop":
                cell[missing[:, None] | (xs < 0)] = size
            counts = np.bincount(cell.ravel(order="K"), minlength=size + 1)[:size]
            counts = counts.reshape(len(part), q, rt, rx).astype(float)
            s, d = _statistics(counts, test)
            statistic[part], dof[part] = s, d
    tested = (dof > 0) & ~np.isnan(p_value)
    p_value[tested] = chdtrc(dof[tested], np.maximum(statistic[tested], 0.0))
    return statistic, dof, p_value


def _statistics(counts: np.ndarray, test: str) -> tuple[np.ndarray, np.ndarray]:
    """G² or χ² and the degrees of freedom of tables shaped (tests, z, t, x)."""
    by_t = counts.sum(axis=3)                 # N_tz
    by_x = counts.sum(axis=2)                 # N_xz
    totals = by_t.sum(axis=2)                 # N_z
    if test == "g2":
        statistic = 2.0 * (xlogy(counts, counts).sum(axis=(1, 2, 3))
                           + xlogy(totals, totals).sum(axis=1)
                           - xlogy(by_t, by_t).sum(axis=(1, 2))
                           - xlogy(by_x, by_x).sum(axis=(1, 2)))
    else:
        expected = by_t[:, :, :, None] * by_x[:, :, None, :] / np.where(
            totals > 0, totals, 1.0)[:, :, None, None]
        kept = expected > 0
        statistic = np.where(kept, (counts - expected) ** 2 / np.where(kept, expected, 1.0),
                             0.0).sum(axis=(1, 2, 3))
    dof = (np.maximum((by_t > 0).sum(axis=2) - 1, 0)
           * np.maximum((by_x > 0).sum(axis=2) - 1, 0)).sum(axis=1)
    return statistic, dof


def _association(statistic: np.ndarray, dof: np.ndarray, p_value: np.ndarray) -> np.ndarray:
    """−ln p, ranking dependences beyond the float range (p = 0) by (G² − dof)/√(2 dof)."""
    with np.errstate(divide="ignore"):
        exact = -np.log(p_value)
    far = 745.0 + (statistic - dof) / np.sqrt(2.0 * np.maximum(dof, 1))
    association = np.where(p_value > 0, exact, far)
    return np.where(np.isnan(p_value), math.inf, association)   # untestable: dependent


def mmpc(data: CodedData, alpha: float = 0.05, test: str = "g2", max_condition: int = 3,
         possible: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """The skeleton of MMPC at level ``alpha`` (formulas in this module's docstring).

    Parameters
    ----------
    data : CodedData
        The coded rows.
    alpha : float, default 0.05
        The tests' level: p ≥ α counts as independence.
    test : {"g2", "chi2"}, default "g2"
    max_condition : int, default 3
        The largest conditioning set tested.
    possible : numpy.ndarray, optional
        n × n booleans: pairs that may be adjacent (others are never tested); all
        pairs by default.

    Returns
    -------
    skeleton : numpy.ndarray
        n × n symmetric booleans, the edges kept.
    tests : int
        The independence tests made.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]] * 25)
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> skeleton, tests = mmpc(data)
    >>> skeleton.astype(int).tolist(), tests
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], 3)
    """
    n = len(data.variables)
    codes = np.asarray(data.codes, dtype=np.int64, order="F")
    possible = ~np.eye(n, dtype=bool) if possible is None else possible & ~np.eye(n, dtype=bool)
    tests = 0
    # the marginal tests once for every pair (X ⫫ T is T ⫫ X)
    marginal = np.zeros((n, n))
    for t in range(n - 1):
        others = np.arange(t + 1, n)
        others = others[possible[t, others]]
        statistic, dof, p_value = batch_tests(data, t, others, (), test, codes)
        marginal[t, others] = marginal[others, t] = _association(statistic, dof, p_value)
        tests += len(others)
    threshold = -math.log(alpha)      # association > −ln α ⇔ p < α: dependent
    chosen = np.zeros((n, n), dtype=bool)
    for t in range(n):
        cpc, done = _parents_and_children(data, t, possible[t], marginal[t], threshold,
                                          test, max_condition, codes)
        chosen[t, cpc] = True
        tests += done
    return chosen | chosen.T, tests


def _parents_and_children(data: CodedData, t: int, possible: np.ndarray, marginal: np.ndarray,
                          threshold: float, test: str, max_condition: int,
                          codes: np.ndarray) -> tuple[list[int], int]:
    """MMPC's forward and backward phases for the target t: its CPC and the tests run."""
    weakest = marginal.copy()        # min over the subsets tested so far of the association
    open_ = np.flatnonzero(possible & (weakest > threshold))
    cpc: list[int] = []
    tests = 0
    while len(open_):
        best = int(open_[np.argmax(weakest[open_])])
        earlier = list(cpc)
        cpc.append(best)
        open_ = open_[open_ != best]
        for size in range(min(len(earlier), max_condition - 1) + 1):
            for subset in itertools.combinations(earlier, size):
                if not len(open_):
                    break
                statistic, dof, p_value = batch_tests(data, t, open_, (*subset, best), test,
                                                      codes)
                tests += len(open_)
                weakest[open_] = np.minimum(weakest[open_],
                                            _association(statistic, dof, p_value))
                open_ = open_[weakest[open_] > threshold]
    # backward: drop an X independent of t given a subset of the rest of CPC; the X's
    # that a subset S leaves out are tested together, one batch per S
    found = list(cpc)
    for size in range(1, min(len(found) - 1, max_condition) + 1):
        for subset in itertools.combinations(found, size):
            if not set(subset) <= set(cpc):
                continue
            rest = [x for x in cpc if x not in subset]
            statistic, dof, p_value = batch_tests(data, t, rest, subset, test, codes)
            tests += len(rest)
            independent = _association(statistic, dof, p_value) <= threshold
            cpc = [x for x in cpc if x not in {v for v, i in zip(rest, independent) if i}]
    return cpc, tests

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
>>> from bbn.structure.dataset import read_coded
>>> rows = pd.DataFrame({"X": list("aabbaabb"), "Y": list("aabbabab")})
>>> result = independence_test(read_coded(rows), 0, 1)   # N = (3, 1; 1, 3), E = 2
>>> round(result.statistic, 6), result.dof, round(result.p_value, 6)
(2.092993, 1, 0.147976)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from scipy.special import chdtrc

from bbn.errors import ModelError, suggest
from bbn.memory import check_allocation
from bbn.structure.dataset import CodedData

#: The tests :func:`independence_test` knows: the likelihood ratio G² and Pearson's χ².
TESTS = ("g2", "chi2")


class TestResult(NamedTuple):
    """One test's outcome: the statistic, its degrees of freedom, the p-value."""

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

"""G² and χ² conditional independence tests (bbn.tasks.structure.independence_tests): hand-computed
values, and equality with scipy's contingency tests summed over the conditioning
configurations (pgmpy's tests add Yates' correction to 2 × 2 tables, so they differ)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2, chi2_contingency

import bbn
from bbn.core.errors import MemoryLimitError, ModelError
from bbn.tasks.structure.dataset import CodedData, read_coded
from bbn.tasks.structure.independence_tests import independence_test


def test_g2_and_chi2_by_hand():
    # N = [[3, 1], [1, 3]], every expected count 2
    rows = pd.DataFrame({"X": list("aabbaabb"), "Y": list("aabbabab")})
    data = read_coded(rows)
    g2 = independence_test(data, 0, 1)
    assert g2.statistic == pytest.approx(2 * (6 * math.log(1.5) + 2 * math.log(0.5)), rel=1e-12)
    assert g2.dof == 1
    assert g2.p_value == pytest.approx(chi2.sf(g2.statistic, 1), rel=1e-12)
    pearson = independence_test(data, 0, 1, test="chi2")
    assert pearson.statistic == pytest.approx(4 * 1 / 2, rel=1e-12)   # Σ (N − 2)² / 2


def test_unseen_states_and_configurations_carry_no_degrees_of_freedom():
    # Z = 0: X takes two values, Y one → (2 − 1)(1 − 1) = 0; Z = 1: 2 × 2 → 1; Z = 2 unseen
    codes = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1], [1, 0, 1]])
    data = CodedData(("X", "Y", "Z"), (("0", "1"), ("0", "1", "2"), ("0", "1", "2")), codes)
    assert independence_test(data, 0, 1, [2]).dof == 1
    nothing = CodedData(("X", "Y"), (("0", "1"), ("0", "1")), np.array([[0, 1], [1, 1]]))
    assert independence_test(nothing, 0, 1) == (0.0, 0, 1.0)


@pytest.mark.parametrize("test, name", [("g2", "log-likelihood"), ("chi2", "pearson")])
def test_equal_to_scipy_summed_over_the_conditioning_configurations(shared, test, name):
    net = bbn.load(shared / "networks" / "asia.bif.gz")
    rows = bbn.sample(net, 3000, seed=5)
    data = read_coded(rows)
    for x, y, given in [("smoke", "dysp", ["bronc"]), ("asia", "xray", []),
                        ("tub", "lung", ["either", "smoke"]), ("lung", "xray", ["either"])]:
        statistic, dof = 0.0, 0
        for _, group in (rows.groupby(given) if given else [(None, rows)]):
            table = pd.crosstab(group[x], group[y])
            found = chi2_contingency(table, correction=False, lambda_=name)
            statistic, dof = statistic + found[0], dof + found[2]
        result = independence_test(data, data.index(x), data.index(y),
                                   [data.index(v) for v in given], test)
        assert result.statistic == pytest.approx(statistic, rel=1e-10)
        assert result.dof == dof
        assert result.p_value == pytest.approx(chi2.sf(statistic, dof), rel=1e-9, abs=1e-300)


def test_missing_values_are_dropped_per_test():
    rows = pd.DataFrame({"X": ["a", "a", "b", "b", None], "Y": ["u", "u", "v", "v", "u"],
                         "Z": ["p", None, "p", "q", "q"]})
    data = read_coded(rows, missing="drop")
    # X, Y on rows 0–3: N = [[2, 0], [0, 2]], E = 1; with Z only rows 0, 2, 3:
    # Z = p has (a, u) and (b, v), N = [[1, 0], [0, 1]], E = ½; Z = q one row, no dof
    assert independence_test(data, 0, 1).statistic == pytest.approx(2 * 4 * math.log(2))
    given = independence_test(data, 0, 1, [2])
    assert given.statistic == pytest.approx(2 * 2 * math.log(2)) and given.dof == 1


def test_errors(memory_limit):
    data = read_coded(pd.DataFrame({"X": list("ab"), "Y": list("ab")}))
    with pytest.raises(ModelError, match=r"unknown test 'chi'.*did you mean 'chi2'"):
        independence_test(data, 0, 1, test="chi")
    wide = CodedData(tuple("XYZ"), (tuple(map(str, range(100))),) * 3,
                     np.zeros((2, 3), dtype=int))
    memory_limit(1 << 20)                                  # 10⁶ counts need 7.6 MiB
    with pytest.raises(MemoryLimitError, match=r"independence test of 'X' and 'Y' given 1"):
        independence_test(wide, 0, 1, [2])

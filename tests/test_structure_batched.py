"""The batched work of structure learning equals its one-at-a-time definition: many
independence tests in one call (bbn.tasks.structure.independence_tests.independence_tests) equal
independence_test; MMPC's targets searched side by side, a round of tests at a time,
equal the sequential search, each distinct test counted once; ties between equally
associated candidates go to the first variable; the first families of a hill climb,
scored in one pass (FamilyScores.prefetch), equal the families scored one by one; n ln n
read from a table equals xlogy; families of several children scored in one pass equal
one child at a time; PC's pairs searched side by side equal PC one test at a time."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import bbn
from bbn.tasks.structure import family_scores, pc
from bbn.tasks.structure import independence_tests as independence
from bbn.tasks.structure import mmpc as mmpc_module
from bbn.tasks.structure.dataset import CodedData, read_coded
from bbn.tasks.structure.family_scores import FamilyScores
from bbn.tasks.structure.independence_tests import Request, independence_test, independence_tests
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.method import Settings
from bbn.tasks.structure.mmpc import _association, _strongest, batch_tests, mmpc
from bbn.tasks.structure.scores import SCORES


def chair_data(chair_file, n: int, missing: str = "error") -> object:
    rows = bbn.sample(bbn.load(chair_file), n, seed=4)
    if missing == "drop":
        rows = rows.astype(object)
        rows[np.random.default_rng(2).random(rows.shape) < 0.08] = None
    return read_coded(rows, missing=missing)


@pytest.mark.parametrize("test", ["g2", "chi2"])
@pytest.mark.parametrize("missing", ["error", "drop"])
def test_many_requests_in_one_call_equal_one_test_at_a_time(chair_file, test, missing):
    data = chair_data(chair_file, 700, missing)
    # targets, conditioning sets of 0 to 3 variables and candidates of every cardinality
    requests = [Request(0, np.array([1, 2, 3, 4])), Request(3, np.array([1]), (0,)),
                Request(4, np.array([0, 2]), (1, 3)), Request(2, np.array([4]), (0, 1, 3)),
                Request(1, np.array([], dtype=np.int64), (2,))]
    found = independence_tests(data, requests, test)
    expected = [independence_test(data, x, r.target, r.given, test)
                for r in requests for x in r.candidates]
    assert len(found.statistic) == len(expected) == 8
    for s, d, p, one in zip(*found, expected):
        assert s == pytest.approx(one.statistic, rel=1e-9, abs=1e-9)
        assert d == one.dof
        assert p == pytest.approx(one.p_value, rel=1e-9, abs=1e-12)


def test_a_test_past_the_memory_limit_is_left_untested_in_a_batch(memory_limit):
    codes = np.random.default_rng(0).integers(0, 30, (50, 3))
    data = CodedData(("X", "Y", "Z"), (tuple(map(str, range(30))),) * 3, codes)
    memory_limit(30 * 30 * 8)             # X with Y fits; X with Y given Z (30³) does not
    found = independence_tests(data, [Request(0, np.array([1])), Request(0, np.array([1]), (2,))])
    assert not math.isnan(found.p_value[0]) and math.isnan(found.p_value[1])


def test_codes_are_counted_in_int32_unless_the_limit_needs_int64(chair_file, memory_limit):
    data = chair_data(chair_file, 500)
    narrow = independence.counting_codes(data)          # 1 GiB: 2²⁷ entries fit int32
    assert narrow.dtype == np.int32
    requests = [Request(0, np.array([1, 2])), Request(4, np.array([0, 2]), (1, 3))]
    expected = independence_tests(data, requests, codes=narrow)
    memory_limit(32 * 2 ** 30)                           # 2³² entries: indices need int64
    assert independence.counting_codes(data).dtype == np.int64
    found = independence_tests(data, requests, codes=narrow)   # converted again, not wrapped
    assert found.statistic.tolist() == expected.statistic.tolist()
    assert found.dof.tolist() == expected.dof.tolist()


def sequential_mmpc(data, alpha: float = 0.05, max_condition: int = 3) -> np.ndarray:
    """MMPC one conditioning set at a time, each target after the other (the definition
    the batched search must equal), ties to rounding going to the first variable."""
    n = len(data.variables)
    threshold = -math.log(alpha)
    chosen = np.zeros((n, n), dtype=bool)
    for t in range(n):
        others = np.array([x for x in range(n) if x != t])
        weakest = np.full(n, -math.inf)
        weakest[others] = _association(*batch_tests(data, t, others, ()))
        open_ = others[weakest[others] > threshold]
        cpc: list[int] = []
        while len(open_):
            top = weakest[open_].max()
            best = int(open_[np.argmax(weakest[open_] >= top - 1e-9 * abs(top))])
            earlier = list(cpc)
            cpc.append(best)
            open_ = open_[open_ != best]
            for size in range(min(len(earlier), max_condition - 1) + 1):
                for subset in itertools.combinations(earlier, size):
                    if len(open_):
                        association = _association(*batch_tests(data, t, open_,
                                                                 (*subset, best)))
                        weakest[open_] = np.minimum(weakest[open_], association)
                        open_ = open_[weakest[open_] > threshold]
        found = list(cpc)
        for size in range(1, min(len(found) - 1, max_condition) + 1):
            for subset in itertools.combinations(found, size):
                rest = [x for x in cpc if x not in subset]
                if set(subset) <= set(cpc) and rest:
                    association = _association(*batch_tests(data, t, rest, subset))
                    independent = {x for x, a in zip(rest, association) if a <= threshold}
                    cpc = [x for x in cpc if x not in independent]
        chosen[t, cpc] = True
    return chosen | chosen.T


def test_the_side_by_side_search_equals_the_sequential_mmpc(shared):
    rows = bbn.sample(bbn.load(shared / "networks" / "alarm.bif.gz"), 1000, seed=11)
    data = read_coded(rows)
    skeleton, tests = mmpc(data, alpha=0.05, test="g2")
    expected = sequential_mmpc(data)
    assert (skeleton == expected).all()
    assert 30 <= int(skeleton.sum()) // 2 <= 80       # alarm has 46 arcs: a real skeleton
    assert tests >= 37 * 36 // 2                      # at least every marginal test


def test_a_test_asked_from_both_ends_or_again_is_counted_once(shared, monkeypatch):
    rows = bbn.sample(bbn.load(shared / "networks" / "alarm.bif.gz"), 1000, seed=11)
    data = read_coded(rows)
    counted = []

    def spy(data, requests, test="g2", codes=None):
        counted.extend((frozenset((int(x), r.target)), frozenset(r.given))
                       for r in requests for x in r.candidates.tolist())
        return independence_tests(data, requests, test, codes)

    monkeypatch.setattr(mmpc_module, "independence_tests", spy)
    skeleton, tests = mmpc(data, alpha=0.05, test="g2")
    assert tests == len(counted) == len(set(counted))   # X ⫫ T | S is T ⫫ X | S: once
    assert (skeleton == sequential_mmpc(data)).all()     # the same skeleton all the same
    assert tests > 37 * 36 // 2                          # conditional tests were asked


def test_equally_associated_candidates_go_to_the_first_variable():
    rng = np.random.default_rng(5)
    b = rng.integers(0, 3, 3000)
    t = np.where(rng.random(3000) < 0.8, b % 2, rng.integers(0, 2, 3000))   # T depends on B
    relabelled = (b + 1) % 3                   # the same information as B, states renamed
    states = (("0", "1"), ("0", "1", "2"), ("0", "1", "2"))
    for order in ([0, 1, 2], [0, 2, 1]):      # T, B, B' and T, B', B
        codes = np.column_stack([t, b, relabelled])[:, order]
        data = CodedData(tuple(np.array(["T", "B", "B'"])[order]), states, codes)
        skeleton, _ = mmpc(data)
        first = 1                              # the copy in column 1 keeps the edge to T
        assert skeleton[0, first] and not skeleton[0, 3 - first], order
        assert skeleton[1, 2]


def test_a_tie_to_rounding_is_no_reason_to_pick_the_later_variable():
    candidates = np.array([4, 7, 9])
    # the sums of two relabelled tables may differ in the last bits (hailfinder's
    # CompPlFcst and CapChange, 5e-14 apart): the first of them is chosen
    assert _strongest(candidates, np.array([3.0, 6.1135915715029059, 6.1135915715035392])) == 7
    assert _strongest(candidates, np.array([3.0, 6.1, 6.2])) == 9          # a real difference
    assert _strongest(candidates, np.array([math.inf, 1.0, math.inf])) == 4  # untestable first


@pytest.mark.parametrize("score", SCORES)
def test_prefetched_pair_families_equal_families_scored_one_by_one(chair_file, score):
    data = chair_data(chair_file, 600)
    n = len(data.variables)
    batched, single = FamilyScores(data, score, ess=2.0), FamilyScores(data, score, ess=2.0)
    needed = ~np.eye(n, dtype=bool)
    needed[0, :] = False                       # C never a parent: C | p still needed
    batched.prefetch(needed)
    assert batched.scored == n + n * (n - 1)   # pairs read both ways
    for child in range(n):
        assert batched.cache[(child, ())] == single.score(child, ())
        for p in range(n):
            if p != child:
                assert batched.cache[(child, (p,))] == single.score(child, (p,))


def test_prefetch_leaves_data_with_missing_values_to_the_paired_gains(chair_file):
    scores = FamilyScores(chair_data(chair_file, 300, "drop"), "bic")
    scores.prefetch(~np.eye(5, dtype=bool))
    assert scores.scored == 0 and not scores.cache


@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_large_data_counted_a_column_at_a_time_scores_the_same(chair_file, monkeypatch, score):
    data = chair_data(chair_file, 800)
    asked = [(0, ()), (3, (0,)), (3, (0, 1)), (4, (1, 2, 3))]
    whole = FamilyScores(data, score)
    expected = [whole.toggled(c, ps, [p for p in range(5) if p != c]).tolist() for c, ps in asked]
    pair = whole.score(2, (4,))
    monkeypatch.setattr(family_scores, "_COLUMN_ROWS", 0)     # as for ≥ 20,000 rows
    by_column = FamilyScores(data, score)
    by_column.prefetch(~np.eye(5, dtype=bool))
    assert by_column.cache[(2, (4,))] == pair
    for (child, parents), values in zip(asked, expected):
        others = [p for p in range(5) if p != child]
        assert by_column.toggled(child, parents, others).tolist() == values


@pytest.mark.parametrize("missing", ["error", "drop"])
def test_large_data_tested_a_column_at_a_time_gives_the_same_tests(chair_file, monkeypatch,
                                                                   missing):
    data = chair_data(chair_file, 700, missing)
    requests = [Request(0, np.array([1, 2, 3, 4])), Request(4, np.array([0, 2]), (1, 3)),
                Request(2, np.array([4]), (0, 1, 3))]
    expected = independence_tests(data, requests, "g2")
    monkeypatch.setattr(independence, "_COLUMN_ROWS", 0)     # as for ≥ 20,000 rows
    found = independence_tests(data, requests, "g2")
    assert found.statistic.tolist() == expected.statistic.tolist()
    assert found.dof.tolist() == expected.dof.tolist()


def test_n_log_n_read_from_the_table_equals_xlogy(monkeypatch):
    from scipy.special import xlogy

    from bbn.tasks.structure import dataset

    data = CodedData(("A",), (("0", "1"),), np.zeros((300, 1), dtype=np.int64))
    counts = np.array([[0, 1, 2], [7, 150, 300]])
    expected = xlogy(counts.astype(float), counts.astype(float))
    assert data.xlogx(counts).tolist() == expected.tolist()          # bit for bit
    assert data.xlogx(counts.astype(float)).tolist() == expected.tolist()
    monkeypatch.setattr(dataset, "_TABLE_ROWS", 100)                  # too many rows: computed
    assert CodedData(data.variables, data.states, data.codes).xlogx(counts).tolist() \
        == expected.tolist()


@pytest.mark.parametrize("score", SCORES)
def test_families_of_several_children_in_one_pass_equal_one_child_at_a_time(score):
    rng = np.random.default_rng(3)
    q, r = np.array([1, 6, 2, 4]), np.array([3, 2, 5, 1])
    counts = rng.integers(0, 9, int((q * r).sum()))
    counts[6:12] = 0                                           # a configuration never seen
    together = family_scores.segment_scores(counts, q, r, score, ess=2.5)
    starts = family_scores.segment_starts(q * r)
    for i in range(len(q)):
        table = counts[starts[i]:starts[i] + q[i] * r[i]]
        one = family_scores.segment_scores(table, q[i:i + 1], int(r[i]), score, ess=2.5)
        assert together[i] == one[0]                           # the same floats, not close


def test_pair_tables_are_transposed_in_place():
    a = np.arange(2 * 3).reshape(2, 3)
    b = np.arange(10, 14).reshape(4, 1)
    c = np.arange(20, 24).reshape(2, 2)
    flat = np.concatenate([a.ravel(), b.ravel(), c.ravel()])
    flipped = family_scores.transposed_tables(flat, np.array([2, 4, 2]), np.array([3, 1, 2]))
    assert flipped.tolist() == np.concatenate([a.T.ravel(), b.T.ravel(), c.T.ravel()]).tolist()


class OneTestAtATime(pc._Tests):
    """PC's tests as before the batching: independence_test, one call per test."""

    def p_values(self, asked):
        values = []
        for x, y, given in asked:
            if not self.data.fits((*given, x, y)):
                self.too_large += 1
                values.append(None)
                continue
            self.run += 1
            values.append(independence_test(self.data, x, y, given, self.test).p_value)
        return values


def one_pair_at_a_time(tests, alpha, candidates):
    """The first separating set of each pair, the pairs searched one after the other."""
    found = {}
    for pair, sets in candidates.items():
        for given in sets:
            p_value = tests.p_values([(*pair, given)])[0]
            if p_value is not None and p_value >= alpha:
                found[pair] = given
                break
    return found


def test_pairs_searched_side_by_side_equal_pcs_one_test_at_a_time(shared, monkeypatch):
    rows = bbn.sample(bbn.load(shared / "networks" / "alarm.bif.gz"), 1000, seed=12)
    data = read_coded(rows)
    knowledge = Knowledge.build(data.variables)
    skeleton, _ = mmpc(data)
    batched = [pc.pc_search(data, knowledge, Settings()),
               pc.pc_search(data, knowledge, Settings(), 3, skeleton)]  # the hybrid's start
    monkeypatch.setattr(pc, "_Tests", OneTestAtATime)
    monkeypatch.setattr(pc, "_first_separating_sets", one_pair_at_a_time)
    sequential = [pc.pc_search(data, knowledge, Settings()),
                  pc.pc_search(data, knowledge, Settings(), 3, skeleton)]
    for found, expected in zip(batched, sequential):
        assert found.parents == expected.parents
        assert found.undirected == expected.undirected
        assert found.statistics == expected.statistics            # the same tests, counted
    assert batched[0].statistics["tests"] > 1000                    # a real search

"""MAP and MPE of a DataFrame of cases with impossible rows (issue 29): with
``impossible="nan"`` each possible row equals the single question asked of that row, an
impossible row (the single question raises ImpossibleEvidenceError) has missing states
and a NaN probability, and a RuntimeWarning counts them; ``"raise"`` (the default) names
the first impossible row; on random networks with zeros, with and without likelihood
columns and with ``do=``, and on a Markov network."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from tests.strategies import random_network
from tests.test_batch_likelihoods import cases_for, row_evidence, single


def hard_only(cases: pd.DataFrame) -> pd.DataFrame:
    """``cases`` with every likelihood cell missing."""
    return cases.apply(lambda column: column.map(lambda x: x if isinstance(x, str) else None))


def check_rows(net, answer: pd.DataFrame, cases: pd.DataFrame, ask, do) -> tuple[int, int]:
    """Every row of ``answer`` against ``ask(row's evidence)``; (possible, impossible)."""
    assert list(answer.index) == list(cases.index)
    counts = [0, 0]
    for (_, case), (_, row) in zip(cases.iterrows(), answer.iterrows()):
        evidence = row_evidence(case)
        expected = single(ask, evidence)
        if expected is None:
            assert np.isnan(row["probability"])
            assert row.drop("probability").isna().all()
            counts[1] += 1
            continue
        counts[0] += 1
        assignment, p = expected
        assert row["probability"] == pytest.approx(p, abs=1e-12, rel=1e-9)
        found = {v: row[v] for v in assignment}
        if found != assignment:  # a tie broken otherwise: as probable
            assert net.probability(found, evidence, do=do) == pytest.approx(
                net.probability(assignment, evidence, do=do), abs=1e-12, rel=1e-9)
    return counts[0], counts[1]


def batch(ask, *args, **kwargs):
    """The batch answer with ``impossible="nan"``, and the count its warning gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = ask(*args, impossible="nan", **kwargs)
    counted = [w for w in caught if "impossible evidence" in str(w.message)]
    assert all(w.filename == __file__ for w in counted)  # the caller is named
    assert len(counted) <= 1
    return answer, (int(str(counted[0].message).split()[0]) if counted else 0)


SEEDS = range(24)


def case_of(seed: int):
    """Seed's network, its cases, MAP targets and intervention (every third seed)."""
    rng = np.random.default_rng(100 + seed)
    net = random_network(seed, max_variables=6, max_states=3)
    cases = cases_for(net, rng, 12)
    do = {net.variables[0]: net.states(net.variables[0])[0]} if seed % 3 == 0 else None
    if do:
        cases = cases.drop(columns=list(do), errors="ignore")
    return net, cases, list(net.variables[-2:]), do


@pytest.mark.parametrize("seed", SEEDS)
def test_nan_rows_equal_the_single_questions(seed):
    net, cases, targets, do = case_of(seed)
    for frame in (cases, hard_only(cases)):
        mapped, warned = batch(net.map, targets, frame, do=do)
        possible, impossible = check_rows(net, mapped, frame,
                                          lambda e: net.map(targets, e, do=do), do)
        assert warned == impossible
        best, warned = batch(net.mpe, frame, do=do)
        assert check_rows(net, best, frame, lambda e: net.mpe(e, do=do), do) == (
            possible, impossible)
        assert warned == impossible
        if impossible:  # "raise" names one of the impossible rows
            named = set(mapped.index[mapped["probability"].isna()])
            for ask, args in ((net.map, (targets, frame)), (net.mpe, (frame,))):
                with pytest.raises(bbn.ImpossibleEvidenceError) as error:
                    ask(*args, do=do)
                assert re.search(r"row '(r\d+)'", str(error.value))[1] in named


def test_the_random_cases_hold_impossible_rows():
    """The random cases above hold impossible rows, with likelihoods and hard only, and
    with do= (else they test nothing new)."""
    counts = np.zeros((2, 2), dtype=int)  # [likelihoods, hard only] × [all, do]
    for seed in SEEDS:
        net, cases, _, do = case_of(seed)
        for k, frame in enumerate((cases, hard_only(cases))):
            best, warned = batch(net.mpe, frame, do=do)
            counts[k, bool(do)] += warned
    assert (counts >= 3).all(), counts


def test_a_deterministic_copy():
    """B copies A: a case A=0, B=1 is impossible; its row is missing states, NaN."""
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    net.add_variable("C", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    frame = pd.DataFrame({"A": ["0", "0", None], "B": [None, {"1": 1.0}, "1"]},
                         index=["x", "y", "z"])
    with pytest.warns(RuntimeWarning, match="1 of 3 case"):
        found = net.map(["B", "C"], frame, impossible="nan")
    assert found["B"].tolist()[0] == "0" and found["C"].tolist()[0] == "0"
    assert pd.isna(found.loc["y", "B"]) and pd.isna(found.loc["y", "C"])
    assert np.isnan(found.loc["y", "probability"])
    assert found["probability"].tolist()[::2] == pytest.approx([0.9, 0.8])  # C | A
    with pytest.warns(RuntimeWarning, match="1 of 3 case"):
        best = net.mpe(frame.assign(B=["0", "1", "1"]), impossible="nan")
    assert best.loc["z"].tolist() == ["1", "1", pytest.approx(0.8)]
    assert best.loc["y"].isna().all()
    with pytest.warns(RuntimeWarning, match="2 of 3 case"):  # do(A=0): B=1 impossible
        cut = net.mpe(frame.drop(columns="A"), do={"A": "0"}, impossible="nan")
    assert cut.loc["x"].tolist() == ["0", "0", pytest.approx(0.9)]
    assert cut.loc[["y", "z"]].isna().all().all()
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'y'"):
        net.map(["B"], frame, impossible="raise")
    with pytest.raises(bbn.ImpossibleEvidenceError):  # one case: unchanged, raises
        net.map(["C"], {"A": "0", "B": "1"}, impossible="nan")
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.mpe({"A": "0", "B": "1"}, impossible="nan")


def test_markov_network_and_bad_values():
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    markov = net.to_markov()
    frame = pd.DataFrame({"A": ["0", "0", "1"], "B": [{"0": 2.0}, {"1": 1.0}, None]})
    with pytest.warns(RuntimeWarning, match="1 of 3 case"):
        found = markov.mpe(frame, impossible="nan")
    assert found["B"].tolist()[::2] == ["0", "1"]
    assert found["probability"].tolist()[::2] == [1.0, 1.0]
    assert pd.isna(found.loc[1, "B"]) and np.isnan(found.loc[1, "probability"])
    with pytest.warns(RuntimeWarning, match="1 of 3 case"):
        assert markov.map(["B"], frame, impossible="nan")["B"].isna().tolist() == [
            False, True, False]
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 1"):
        markov.map(["B"], frame)
    for ask in (lambda: net.map(["B"], frame, impossible="NaN"),
                lambda: net.mpe(frame, impossible="skip"),
                lambda: markov.mpe(frame, impossible="nans"),
                lambda: net.map(["B"], {"A": "0"}, impossible=None)):
        with pytest.raises(bbn.QueryError, match="impossible must be 'raise' or 'nan'"):
            ask()
    with pytest.raises(bbn.QueryError, match="did you mean 'nan'"):
        net.mpe(frame, impossible="NaN")


def test_warnings_name_the_caller():
    """However deep a batch goes (do=, likelihood columns, a Markov network), the
    warning about its impossible rows names the line that asked."""
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    net.add_variable("C", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    hard = pd.DataFrame({"A": ["0", "0"], "B": [None, "1"]})
    soft = pd.DataFrame({"A": ["0", "0"], "B": [None, {"1": 1.0}]})
    cut = {"do": {"A": "0"}}
    markov = net.to_markov()
    for ask, args, kwargs in (
            (net.posterior, ("C", hard), {}), (net.posterior, ("C", hard[["B"]]), cut),
            (net.posterior, ("C", soft), {}), (net.posterior, ("C", soft[["B"]]), cut),
            (net.posteriors, (hard,), {}), (net.posteriors, (hard[["B"]],), cut),
            (net.posteriors, (soft,), {}), (net.map, (["C"], soft[["B"]]), cut),
            (net.mpe, (hard,), {}), (markov.posteriors, (soft,), {}),
            (markov.map, (["C"], soft), {})):
        answer, warned = batch(ask, *args, **kwargs)  # batch() checks the file named
        assert warned == 1

"""Batches of every question with likelihood columns (issue 29), and MAP / MPE of a
DataFrame of cases: each row equals the single question asked of that row (the oracle:
a loop of ``net.posterior``, ``net.map``, ``net.mpe``), on random networks with zeros,
hard findings, likelihoods (with zeros: negative findings) and missing cells; and the
posteriors against the brute-force joint table weighed by the likelihoods."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from tests.brute_force import joint_array
from tests.strategies import random_network


def cases_for(net: bbn.Network, rng: np.random.Generator, n: int) -> pd.DataFrame:
    """``n`` rows: about half the variables are columns; a cell is missing, a state, or
    (in the likelihood columns) ``{state: weight}`` with some zeros."""
    columns = {}
    for v in net.variables:
        if rng.random() < 0.5:
            continue
        states, soft = net.states(v), rng.random() < 0.6
        cells = []
        for _ in range(n):
            draw = rng.random()
            if draw < 0.25:
                cells.append(None)
            elif draw < 0.5 or not soft:
                cells.append(states[rng.integers(len(states))])
            else:
                weights = rng.uniform(0.1, 2.0, len(states))
                weights[rng.random(len(states)) < 0.25] = 0.0
                if not weights.any():
                    weights[0] = 1.0
                cells.append(dict(zip(states, weights.tolist())))
        columns[v] = cells
    return pd.DataFrame(columns, index=[f"r{i}" for i in range(n)])


def row_evidence(row: pd.Series) -> dict:
    return {v: x for v, x in row.items() if isinstance(x, (str, dict))}


def single(ask, *args, **kwargs):
    try:
        return ask(*args, **kwargs)
    except bbn.ImpossibleEvidenceError:
        return None


@pytest.mark.parametrize("seed", range(30))
def test_every_batch_equals_its_rows(seed):
    rng = np.random.default_rng(seed)
    net = random_network(seed, max_variables=6, max_states=3)
    cases = cases_for(net, rng, 12)
    rows = [row_evidence(row) for _, row in cases.iterrows()]
    # posteriors: NaN exactly where the row's evidence is impossible
    with np.errstate(invalid="ignore"), pytest.warns() if any(
            single(net.posteriors, e) is None for e in rows) else _nothing():
        batch = net.posteriors(cases, impossible="nan")
    possible = []
    for i, evidence in enumerate(rows):
        expected = single(net.posteriors, evidence)
        if expected is None:
            assert all(np.isnan(batch[v].to_numpy()[i]).all() for v in net.variables)
            continue
        possible.append(i)
        for v in net.variables:
            np.testing.assert_allclose(batch[v].to_numpy()[i], expected[v].values,
                                       atol=1e-12, rtol=0)
    if not possible:
        return
    kept = cases.iloc[possible]
    targets = list(net.variables[:2])
    for answer, ask in ((net.map(targets, kept), lambda e: net.map(targets, e)),
                        (net.mpe(kept), net.mpe)):
        assert list(answer.index) == list(kept.index)
        for i, (_, row) in zip(possible, answer.iterrows()):
            assignment, p = ask(rows[i])
            assert row["probability"] == pytest.approx(p, abs=1e-12, rel=1e-9)
            found = {v: row[v] for v in assignment}
            # ties may be broken otherwise: the batch's choice is as probable
            assert net.probability(found, rows[i]) == pytest.approx(p, abs=1e-12, rel=1e-9)
            if found != assignment:
                assert net.probability(assignment, rows[i]) == pytest.approx(
                    net.probability(found, rows[i]), abs=1e-12)
            # every other column of an MPE frame is observed in this row
            assert set(answer.columns) - {"probability"} - set(assignment) <= {
                v for v, x in rows[i].items() if isinstance(x, str)}


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_posteriors_against_the_weighed_joint():
    """P(X | e, λ) ∝ Σ P(x, ...) Π_W λ_W(w) read off the joint table of the chair."""
    net = bbn.load("models/chair.bn")
    cases = pd.DataFrame({"A": ["T", None, "F"],
                          "W": [{"T": 0.8, "F": 0.4}, {"T": 0.0, "F": 1.0}, None],
                          "B": [None, {"T": 3.0, "F": 1.0}, "T"]})
    joint = joint_array(net)   # axes C S W B A
    axis = {v: i for i, v in enumerate(net.variables)}
    batch = net.posteriors(cases)
    for i, (_, row) in enumerate(cases.iterrows()):
        weighed = joint.copy()
        for v, x in row_evidence(row).items():
            weights = np.array([x.get(s, 0.0) for s in net.states(v)]) if isinstance(
                x, dict) else np.array([s == x for s in net.states(v)], dtype=float)
            shape = [1] * joint.ndim
            shape[axis[v]] = -1
            weighed = weighed * weights.reshape(shape)
        for v in net.variables:
            others = tuple(a for a in range(joint.ndim) if a != axis[v])
            marginal = weighed.sum(axis=others)
            np.testing.assert_allclose(batch[v].to_numpy()[i], marginal / marginal.sum(),
                                       atol=1e-14)
    # the chair's MAP and MPE rows with those likelihoods, by the same table
    found = net.mpe(cases.iloc[[0]])
    weighed = joint[:, :, :, :, 0] * np.array([0.8, 0.4]).reshape(1, 1, 2, 1)
    best = np.unravel_index(weighed.argmax(), weighed.shape)
    assert [found.loc[0, v] for v in "CSWB"] == [net.states(v)[k] for v, k in zip("CSWB", best)]
    assert found.loc[0, "probability"] == pytest.approx(weighed.max() / weighed.sum(), abs=1e-14)


def test_interventions_and_errors():
    net = bbn.load("models/chair.bn")
    cases = pd.DataFrame({"A": ["T", "F"], "W": [{"T": 0.8, "F": 0.4}, {"T": 0.1, "F": 1.0}]})
    batch = net.mpe(cases, do={"S": "T"})
    assert "S" not in batch.columns
    for i, (_, row) in enumerate(cases.iterrows()):
        assignment, p = net.mpe(dict(row), do={"S": "T"})
        assert batch["probability"].iloc[i] == pytest.approx(p, abs=1e-14)
        assert {v: batch[v].iloc[i] for v in assignment} == assignment
    posteriors = net.posteriors(cases, do={"S": "T"})
    for i, (_, row) in enumerate(cases.iterrows()):
        np.testing.assert_allclose(posteriors["C"].to_numpy()[i],
                                   net.posterior("C", dict(row), do={"S": "T"}).values,
                                   atol=1e-14)
    impossible = bbn.Network("copy")
    impossible.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    impossible.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    frame = pd.DataFrame({"A": ["0", "0"], "B": [None, {"1": 1.0}]}, index=["x", "y"])
    with pytest.raises(bbn.ImpossibleEvidenceError, match=r"row 'y': A=0, B="):
        impossible.map(["B"], frame)
    with pytest.raises(bbn.ImpossibleEvidenceError, match=r"row 'y': A=0"):
        impossible.mpe(frame.assign(B=[None, "1"]))
    with pytest.raises(bbn.QueryError, match="unknown"):
        net.map(["Q"], cases)


def test_markov_network_batches():
    """A Markov network's batches (its factors are constraints of the view): hard rows
    (a KeyError before) and likelihood rows, every kind, equal to the rows' questions."""
    markov = bbn.load("models/chair.bn").to_markov()
    cases = pd.DataFrame({"A": ["T", "F", None], "W": [{"T": 0.8, "F": 0.4}, "F", None]})
    hard = pd.DataFrame({"A": ["T", "F"]})
    for frame in (hard, cases):
        rows = [row_evidence(row) for _, row in frame.iterrows()]
        batch = markov.posteriors(frame)
        assert sorted(batch) == sorted(markov.variables)
        best, chosen = markov.mpe(frame), markov.map(["C", "S"], frame)
        for i, evidence in enumerate(rows):
            single_ = markov.posteriors(evidence)
            for v in markov.variables:
                np.testing.assert_allclose(batch[v].to_numpy()[i], single_[v].values,
                                           atol=1e-14)
            for answer, (assignment, p) in ((best, markov.mpe(evidence)),
                                            (chosen, markov.map(["C", "S"], evidence))):
                assert answer["probability"].iloc[i] == pytest.approx(p, abs=1e-14)
                assert {v: answer[v].iloc[i] for v in assignment} == assignment

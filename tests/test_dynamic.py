"""Dynamic Bayesian networks (issue 31): every question over time equals the same question
on the unrolled network, by brute force on its joint table; the HMM as a 2-TBN answers as
bbn.HMM; the umbrella world; unrolled names in the query language; errors."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce

import bbn
import bbn.questions.findings as findings


@pytest.fixture(autouse=True, params=["dense slices", "einsum"])
def engine_form(request, monkeypatch):
    """Every test twice: the slice tables multiplied out, and the einsum per step."""
    monkeypatch.setattr(findings, "dense_fits", lambda view: request.param == "dense slices")
    return request.param


def umbrella() -> bbn.DynamicNetwork:
    dbn = bbn.DynamicNetwork("umbrella")
    dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
                     table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.5, 0.5])
    dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
    return dbn


def random_dbn(seed: int) -> bbn.DynamicNetwork:
    """Two hidden chains (one arc within the slice), two observations, one of them with a
    parent in the slice before; slice 0 with its own tables."""
    rng = np.random.default_rng(seed)

    def table(*shape):
        return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])

    dbn = bbn.DynamicNetwork("random")
    dbn.add_variable("H1", ["a", "b"], parents=["H1[-1]"], table=table(2, 2),
                     initial=table(2))
    dbn.add_variable("H2", ["x", "y", "z"], parents=["H1", "H2[-1]"], table=table(2, 3, 3),
                     initial=table(2, 3), initial_parents=["H1"])
    dbn.add_variable("O1", ["0", "1"], parents=["H2"], table=table(3, 2))
    dbn.add_variable("O2", ["p", "q"], parents=["H1[-1]", "H1"], table=table(2, 2, 2),
                     initial=table(2, 2), initial_parents=["H1"])
    return dbn


FINDINGS = pd.DataFrame({
    "seq": ["s", "s", "s", "r", "u", "u", "u", "u"],
    "O1": ["0", "1", None, "1", "1", None, "0", "0"],
    "O2": ["p", None, "q", "q", None, "p", "p", "q"],
})


def unrolled_evidence(rows: pd.DataFrame, upto: int | None = None) -> dict:
    evidence = {}
    for t, (_, row) in enumerate(rows.iterrows()):
        if upto is not None and t > upto:
            break
        for column in ("O1", "O2"):
            if isinstance(row[column], str):
                evidence[f"{column}[{t}]"] = row[column]
    return evidence


@pytest.fixture(scope="module")
def dbn():
    return random_dbn(4)


def sequences():
    for name, rows in FINDINGS.groupby("seq", sort=False):
        yield name, rows.drop(columns="seq")


def test_umbrella_world():
    dbn = umbrella()
    data = pd.DataFrame({"Umbrella": ["T", "T"]})
    assert dbn.filter(data)[("Rain", "T")].tolist() == pytest.approx([0.818, 0.883], abs=5e-4)
    assert dbn.smooth(data)[("Rain", "T")].tolist() == pytest.approx([0.883, 0.883], abs=5e-4)
    # the unrolled network in the query language
    net = dbn.unroll(2)
    answer = net.query("P(Rain[1] | Umbrella[0]=T, Umbrella[1]=T)").to_dict()
    assert answer["T"] == pytest.approx(0.883, abs=5e-4)


def test_hmm_as_dbn_answers_as_hmm():
    hmm = bbn.HMM(["s0", "s1", "s2"], ["a", "b"], start=[0.2, 0.3, 0.5],
                  transition=[[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]],
                  emission=[[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    dbn = hmm.to_dynamic()
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 2, size=60)
    lengths = [25, 5, 30]
    names = np.array(["a", "b"])[codes]
    data = pd.DataFrame({"O": names, "id": np.repeat([0, 1, 2], lengths)})
    assert np.abs(dbn.filter(data, sequence_id="id").to_numpy()
                  - hmm.filter(codes, lengths)).max() < 1e-12
    assert np.abs(dbn.smooth(data, sequence_id="id").to_numpy()
                  - hmm.smooth(codes, lengths)).max() < 1e-12
    assert np.allclose(dbn.log_likelihood(data, sequence_id="id").to_numpy(),
                       hmm.log_likelihood(codes, lengths), atol=1e-10)
    paths, best = hmm.viterbi(codes, lengths)
    states, log_p = dbn.viterbi(data, sequence_id="id")
    assert states["X"].tolist() == [s for path in paths for s in path]
    assert np.allclose(log_p.to_numpy(), best, atol=1e-10)
    assert np.allclose(dbn.predict(data, 3, sequence_id="id").to_numpy(),
                       hmm.predict(codes, 3, lengths), atol=1e-12)
    last = np.cumsum(lengths) - 1                       # h = 0: the last filtered row
    assert np.allclose(dbn.predict(data, 0, sequence_id="id").to_numpy(),
                       hmm.filter(codes, lengths)[last], atol=1e-12)


def test_filter_and_smooth_equal_the_unrolled_network(dbn):
    filtered = dbn.filter(FINDINGS, sequence_id="seq")
    smoothed = dbn.smooth(FINDINGS, sequence_id="seq", variables=["H1", "H2", "O1"])
    assert list(filtered.columns.get_level_values(0).unique()) == ["H1", "H2"]
    for _, rows in sequences():
        steps = len(rows)
        whole = BruteForce(dbn.unroll(steps))
        for t, label in enumerate(rows.index):
            for variable in ("H1", "H2"):
                want = BruteForce(dbn.unroll(t + 1)).posterior(
                    [f"{variable}[{t}]"], unrolled_evidence(rows, upto=t))
                assert np.abs(filtered.loc[label, variable].to_numpy() - want).max() < 1e-12
            for variable in ("H1", "H2", "O1"):
                want = whole.posterior([f"{variable}[{t}]"], unrolled_evidence(rows))
                assert np.abs(smoothed.loc[label, variable].to_numpy() - want).max() < 1e-12


def test_likelihood_prediction_and_viterbi_equal_the_unrolled_network(dbn):
    log_likelihood = dbn.log_likelihood(FINDINGS, sequence_id="seq")
    predicted = dbn.predict(FINDINGS, 2, sequence_id="seq", variables=["H2", "O2"])
    states, best = dbn.viterbi(FINDINGS, sequence_id="seq")
    for name, rows in sequences():
        steps = len(rows)
        evidence = unrolled_evidence(rows)
        whole = BruteForce(dbn.unroll(steps))
        assert log_likelihood[name] == pytest.approx(np.log(whole.p_evidence(evidence)),
                                                     abs=1e-12)
        ahead = dbn.unroll(steps + 2)  # the exact engine: 24^6 entries are too many to list
        for variable in ("H2", "O2"):
            want = ahead.posterior(f"{variable}[{steps + 1}]", evidence).values
            assert np.abs(predicted.loc[name, variable].to_numpy() - want).max() < 1e-12
        restricted = whole.restricted(evidence)
        top = np.unravel_index(restricted.argmax(), restricted.shape)
        assert best[name] == pytest.approx(np.log(restricted.max()), abs=1e-12)
        found = states.loc[rows.index]
        expected = {v: whole.net.states(v)[top[i]] for i, v in enumerate(whole.variables)}
        for t, label in enumerate(rows.index):
            for variable in dbn.variables:
                assert found.loc[label, variable] == expected[f"{variable}[{t}]"]


def test_the_two_slice_network_and_the_interface(dbn):
    net = dbn.two_slice()
    assert net.parents("O2[1]") == ("H1[0]", "H1[1]")
    assert net.parents("O2[0]") == ("H1[0]",)
    assert net.parents("H2[0]") == ("H1[0]",)
    frontier = bbn.engines.exact.frontier.Frontier(net.compiled())
    assert [dbn.variables[i] for i in frontier.interface] == ["H1", "H2"]


def test_unrolled_names_in_every_question(dbn):
    net = dbn.unroll(3)
    posterior = net.query("P(H2[2] | O1[0]=1, O2[2]=q)")
    want = BruteForce(net).posterior(["H2[2]"], {"O1[0]": "1", "O2[2]": "q"})
    assert np.allclose(posterior.values, want, atol=1e-12)
    loaded = bbn.loads(bbn.dumps(net, "bn"), "bn")
    assert loaded.variables == net.variables


def test_many_steps_do_not_underflow():
    dbn = umbrella()
    rng = np.random.default_rng(5)
    data = pd.DataFrame({"Umbrella": rng.choice(["T", "F"], size=3000)})
    value = dbn.log_likelihood(data)
    assert np.isfinite(value) and value < -1000
    assert np.isfinite(dbn.smooth(data).to_numpy()).all()


def test_errors(dbn):
    with pytest.raises(bbn.QueryError, match="did you mean 'O1'"):
        dbn.filter(pd.DataFrame({"o1": ["0"]}))
    with pytest.raises(bbn.BBNError, match="'2'"):
        dbn.filter(pd.DataFrame({"O1": ["2"]}))
    with pytest.raises(bbn.QueryError, match="did you mean 'seq'"):
        dbn.filter(FINDINGS, sequence_id="sq")
    with pytest.raises(bbn.ModelError, match="initial="):
        bbn.DynamicNetwork().add_variable("X", ["a"], parents=["X[-1]"], table=[[1.0]])
    broken = bbn.DynamicNetwork()
    broken.add_variable("X", ["a", "b"], parents=["Y"], table=[[0.5, 0.5], [0.5, 0.5]])
    broken.add_variable("Yes", ["a", "b"], table=[0.5, 0.5])
    with pytest.raises(bbn.ModelError, match="did you mean 'Yes'"):
        broken.unroll(2)
    certain = umbrella()
    impossible = bbn.DynamicNetwork()
    impossible.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    with pytest.raises(bbn.ImpossibleEvidenceError):
        impossible.filter(pd.DataFrame({"X": ["a", "b"]}))
    assert certain.log_likelihood(pd.DataFrame({"Umbrella": ["T"]})) == pytest.approx(
        np.log(0.55))


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_prior_filter_without_findings(steps):
    dbn = umbrella()
    data = pd.DataFrame(index=range(steps))
    filtered = dbn.filter(data, variables="Rain")
    assert np.allclose(filtered.to_numpy(), 0.5)
    for combination in itertools.product("TF", repeat=steps):
        data = pd.DataFrame({"Umbrella": list(combination)})
        assert np.isfinite(dbn.log_likelihood(data))

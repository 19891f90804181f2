"""Second-order dynamic networks (issue 31): parents two slices before (``X[-2]``), with
slice 1's own table. The unrolled network is checked by hand; every question over time
(filter, smooth, predict, Viterbi, the log-likelihood), answered by the interface
algorithm on the first-order equivalent (an interface over two slices), equals the
unrolled network by brute-force enumeration."""

from __future__ import annotations

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


def random_second_order(seed: int) -> bbn.DynamicNetwork:
    """A hidden chain H with arcs from one and two slices before, a second hidden G
    reading H two slices before, and two observations, one of them with a lagged
    parent."""
    rng = np.random.default_rng(seed)

    def table(*shape):
        return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])

    dbn = bbn.DynamicNetwork("second order")
    dbn.add_variable("H", ["a", "b", "c"], parents=["H[-1]", "H[-2]"], table=table(3, 3, 3),
                     initial=table(3), second=table(3, 3))
    dbn.add_variable("G", ["x", "y"], parents=["H[-2]", "G[-1]", "H"], table=table(3, 2, 3, 2),
                     initial=table(3, 2), initial_parents=["H"],
                     second=table(3, 3, 2), second_parents=["H", "H[-1]"])
    dbn.add_variable("O", ["0", "1"], parents=["G", "H"], table=table(2, 3, 2))
    dbn.add_variable("P", ["p", "q"], parents=["H[-1]"], table=table(3, 2), initial=table(2))
    return dbn


FINDINGS = pd.DataFrame({
    "seq": ["s", "s", "s", "s", "r", "u", "u", "u"],
    "O": ["0", "1", None, "1", "1", None, "0", "0"],
    "P": ["p", None, "q", "q", None, "p", None, "q"],
})


def unrolled_evidence(rows: pd.DataFrame, upto: int | None = None) -> dict:
    return {f"{column}[{t}]": row[column] for t, (_, row) in enumerate(rows.iterrows())
            if upto is None or t <= upto for column in ("O", "P")
            if isinstance(row[column], str)}


def sequences():
    for name, rows in FINDINGS.groupby("seq", sort=False):
        yield name, rows.drop(columns="seq")


def test_the_unrolled_network_by_hand():
    # X_t = X_{t-2} exactly; slice 0 is a, slice 1 is b: a, b, a, b, ...
    dbn = bbn.DynamicNetwork("period two")
    dbn.add_variable("X", ["a", "b"], parents=["X[-2]"], table=[[1.0, 0.0], [0.0, 1.0]],
                     initial=[1.0, 0.0], second=[0.0, 1.0])
    net = dbn.unroll(5)
    assert net.parents("X[1]") == () and net.parents("X[4]") == ("X[2]",)
    assert [net.posterior(f"X[{t}]").values[0] for t in range(5)] == [1, 0, 1, 0, 1]
    # a noisy version: P(X_t = X_{t-2}) = 0.9, X_1 = X_0 w.p. 0.8, X_0 uniform
    noisy = bbn.DynamicNetwork("noisy")
    noisy.add_variable("X", ["a", "b"], parents=["X[-1]", "X[-2]"],
                       table=[[[0.9, 0.1], [0.1, 0.9]], [[0.9, 0.1], [0.1, 0.9]]],
                       initial=[0.5, 0.5], second=[[0.8, 0.2], [0.2, 0.8]])
    unrolled = noisy.unroll(3)
    # P(X_2 = a | X_0 = a) = 0.9 whatever X_1; P(X_2 = a | X_1 = a) = 0.8·0.9 + 0.2·0.1
    assert unrolled.posterior("X[2]", {"X[0]": "a"}).values[0] == pytest.approx(0.9)
    assert unrolled.posterior("X[2]", {"X[1]": "a"}).values[0] == pytest.approx(0.74)
    filtered = noisy.filter(pd.DataFrame({"X": ["a", None, None]}))
    assert filtered[("X", "a")].tolist() == pytest.approx([1.0, 0.8, 0.9], abs=1e-12)
    assert noisy.order == 2 and noisy.second_parents("X") == ("X[-1]",)


@pytest.mark.parametrize("seed", [1, 5])
def test_every_question_equals_the_unrolled_network(seed):
    dbn = random_second_order(seed)
    filtered = dbn.filter(FINDINGS, sequence_id="seq")
    smoothed = dbn.smooth(FINDINGS, sequence_id="seq", variables=["H", "G", "O"])
    log_likelihood = dbn.log_likelihood(FINDINGS, sequence_id="seq")
    predicted = dbn.predict(FINDINGS, 2, sequence_id="seq", variables=["H", "P"])
    states, best = dbn.viterbi(FINDINGS, sequence_id="seq")
    assert list(filtered.columns.get_level_values(0).unique()) == ["H", "G"]
    assert list(states.columns) == list(dbn.variables)
    for name, rows in sequences():
        steps = len(rows)
        evidence = unrolled_evidence(rows)
        whole = BruteForce(dbn.unroll(steps))
        for t, label in enumerate(rows.index):
            for variable in ("H", "G"):
                want = BruteForce(dbn.unroll(t + 1)).posterior(
                    [f"{variable}[{t}]"], unrolled_evidence(rows, upto=t))
                assert np.abs(filtered.loc[label, variable].to_numpy() - want).max() < 1e-12
            for variable in ("H", "G", "O"):
                want = whole.posterior([f"{variable}[{t}]"], evidence)
                assert np.abs(smoothed.loc[label, variable].to_numpy() - want).max() < 1e-12
        assert log_likelihood[name] == pytest.approx(np.log(whole.p_evidence(evidence)),
                                                     abs=1e-12)
        ahead = dbn.unroll(steps + 2)  # the exact engine: 24^6 entries are too many to list
        for variable in ("H", "P"):
            want = ahead.posterior(f"{variable}[{steps + 1}]", evidence).values
            assert np.abs(predicted.loc[name, variable].to_numpy() - want).max() < 1e-12
        restricted = whole.restricted(evidence)
        top = np.unravel_index(restricted.argmax(), restricted.shape)
        assert best[name] == pytest.approx(np.log(restricted.max()), abs=1e-12)
        expected = {v: whole.net.states(v)[top[i]] for i, v in enumerate(whole.variables)}
        for t, label in enumerate(rows.index):
            for variable in dbn.variables:
                assert states.loc[label, variable] == expected[f"{variable}[{t}]"]


def test_errors():
    dbn = bbn.DynamicNetwork()
    with pytest.raises(bbn.ModelError, match="slice-1 table with second="):
        dbn.add_variable("X", ["a", "b"], parents=["X[-2]"], table=[[1, 0], [0, 1]],
                         initial=[0.5, 0.5])
    with pytest.raises(bbn.ModelError, match=r"one of the two before .*'X\[-3\]'"):
        dbn.add_variable("X", ["a", "b"], parents=["X[-3]"])
    with pytest.raises(bbn.ModelError, match="it has none"):
        dbn.add_variable("Y", ["a", "b"], table=[0.5, 0.5], second=[0.5, 0.5])
    with pytest.raises(bbn.ModelError, match="slice 1's parents are in slice 1 or 0"):
        dbn.add_variable("Z", ["a", "b"], parents=["Z[-2]"], second_parents=["Z[-2]"])


def test_learning_refuses_second_order():
    dbn = random_second_order(2)
    data = pd.DataFrame({"O": ["0", "1"], "P": ["p", "q"], "H": ["a", "b"], "G": ["x", "y"]})
    for learn in (bbn.learn_dynamic, bbn.dynamic_em):
        with pytest.raises(bbn.ModelError, match="two slices before"):
            learn(dbn, data)


@pytest.mark.parametrize("suffix", [".bn", ".bif", ".xmlbif"])
def test_files_read_back_equal(suffix, tmp_path):
    dbn = random_second_order(3)
    path = tmp_path / f"second{suffix}"
    bbn.save(dbn, path)
    again = bbn.load_dynamic(path)
    assert again.order == 2
    assert [again.parents(v) for v in again.variables] == [dbn.parents(v)
                                                            for v in dbn.variables]
    assert [again.second_parents(v) for v in again.variables] == [
        dbn.second_parents(v) for v in dbn.variables]
    a, b = dbn.unroll(4), again.unroll(4)
    for v in a.variables:
        assert a.parents(v) == b.parents(v)
        assert np.abs(a.cpt_array(v) - b.cpt_array(v)).max() <= 1e-12
    if suffix == ".bn":
        text = path.read_text()
        assert "P(H[1] | H[0]) {" in text and "P(H | H[-1], H[-2]) {" in text
        assert "P(G[1] | H[1], H[0]) {" in text and bbn.dumps(again) == text


def test_the_dynamic_bn_language_second_order():
    text = """network period
variable X { a, b }
variable O { u, v }
P(X[0]) = 1, 0
P(X[1] | X[-1]) { a: 0.2, 0.8; b: 0.5, 0.5 }
P(X | X[-1], X[-2]) {
  a, a: 0.9, 0.1
  a, b: 0.1, 0.9
  b, a: 0.9, 0.1
  b, b: 0.1, 0.9
}
P(O | X) { a: 0.7, 0.3; b: 0.1, 0.9 }
"""
    dbn = bbn.loads(text, source="period.bn")
    assert dbn.second_parents("X") == ("X[-1]",) and dbn.parents("O") == ("X",)
    # X_2 = X_0 = a with 0.9 whatever X_1
    assert dbn.unroll(3).posterior("X[2]").values.tolist() == pytest.approx([0.9, 0.1])
    smoothed = dbn.smooth(pd.DataFrame({"O": ["u", "v", None]}))
    whole = BruteForce(dbn.unroll(3))
    for t in range(3):
        want = whole.posterior([f"X[{t}]"], {"O[0]": "u", "O[1]": "v"})
        assert np.abs(smoothed["X"].to_numpy()[t] - want).max() < 1e-12
    second = "P(X[1] | X[-1]) { a: 0.2, 0.8; b: 0.5, 0.5 }\n"
    for broken, message in (
            (text.replace(second, ""), r"period.bn:5:3: .*give its slice-1 table"),
            (text.replace(second, second + "P(O[1] | X) { a: 0.5, 0.5; b: 0.5, 0.5 }\n"),
             r"slice 1's own table is for a variable with a parent two slices before"),
            (text.replace("P(X[1] | X[-1])", "P(X[1] | X[-2])"),
             r"period.bn:5:10: .*slice 1's table has its parents in slice 1")):
        with pytest.raises(bbn.ParseError, match=message):
            bbn.loads(broken, source="period.bn")

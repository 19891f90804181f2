"""Soft findings (Jeffrey's rule) on a DataFrame of cases (bbn/questions/soft_cases.py):
every case equals the single-case question with that case's findings, impossible cases
raise or are NaN as likelihood columns' are, and a hand-derived case on the chair network."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bbn
from tests.generic_networks import generic_network
from tests.test_uncertain import _with_zeros

pd = pytest.importorskip("pandas")


def _setup(seed: int, softs: int):
    """A random network with zeros, a target, ``softs`` soft findings and a frame of 20
    cases over two or three other variables (about a third of the cells missing; the last
    six repeat earlier cases, which are answered once)."""
    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 900, 5, 7), rng)
    names = [str(v) for v in rng.permutation(list(net.variables))]
    target, soft_names, observed = names[0], names[1:1 + softs], names[1 + softs:4 + softs]
    soft = {}
    for w in soft_names:
        q = rng.dirichlet(np.ones(net.cardinality(w)))
        if rng.random() < 0.3:  # a state ruled out by the soft finding itself
            q[0] = 0.0
            q /= q.sum()
        soft[w] = dict(zip(net.states(w), q.tolist()))
    columns = {}
    for v in observed:
        cells = rng.choice(list(net.states(v)), size=20).astype(object)
        cells[rng.random(20) < 0.35] = None
        columns[v] = cells
    frame = pd.DataFrame(columns, index=[f"r{i}" for i in range(20)])
    frame.iloc[14:] = frame.iloc[rng.integers(14, size=6)].to_numpy()
    return net, target, soft, frame


def _rows(frame):
    for label, row in frame.iterrows():
        yield label, {k: v for k, v in row.items() if isinstance(v, str)}


def _single(net, target, evidence, soft, do=None):
    """The single-case answer (None when impossible) and whether its fit converged."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            answer = net.posterior(target, evidence, soft=soft, do=do).values.ravel()
        except bbn.ImpossibleEvidenceError:
            answer = None
    return answer, not any("Jeffrey" in str(w.message) for w in caught)


def _check(net, target, soft, frame, do=None, atol=1e-12):
    expected, labels = [], []
    for label, evidence in _rows(frame):
        answer, converged = _single(net, target, evidence, soft, do)
        expected.append((answer, converged))
        labels.append(label)
    impossible = [label for label, (a, _) in zip(labels, expected) if a is None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = net.posterior(target, frame, soft=soft, do=do, impossible="nan").to_numpy()
    for row, (answer, converged) in zip(batch, expected):
        if answer is None:
            assert np.isnan(row).all()
        elif converged:
            np.testing.assert_allclose(row, answer, rtol=0, atol=atol)
    if impossible:
        with pytest.raises(bbn.ImpossibleEvidenceError, match=f"row '{impossible[0]}'"):
            net.posterior(target, frame, soft=soft, do=do)
    return batch, impossible


@pytest.mark.parametrize("as_cases", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_one_soft_finding_on_each_case_is_the_single_case_question(seed, as_cases,
                                                                   monkeypatch):
    """Both routes of one soft finding (the states of W as more cases, or the joint of Q
    and W per case), whichever does less work here, against each case asked alone."""
    net, target, soft, frame = _setup(seed, 1)
    monkeypatch.setattr(bbn.Engine, "states_as_cases", lambda *args: as_cases)
    _check(net, target, soft, frame)
    # the soft variable among the targets: P'(Q, W) = q(w) P(Q | w, e_i)
    _check(net, [target, *soft], soft, frame)


@pytest.mark.parametrize("seed", range(8))
def test_one_soft_finding_with_an_intervention(seed):
    net, target, soft, frame = _setup(seed + 50, 1)
    do_variable = str(frame.columns[-1])
    do = {do_variable: net.states(do_variable)[0]}
    _check(net, target, soft, frame.drop(columns=do_variable), do=do)


@pytest.mark.parametrize("seed", range(8))
def test_two_soft_findings_on_each_case(seed):
    """Several findings: the batch's fit sweeps to 1e-14, the single case's stops at
    1e-10, so they agree to 1e-9; the batch meets the findings to 1e-12 and is Jeffrey's
    sum Σ_w T_i(w) P(Q | w, e_i) of its own fitted joint T_i to 1e-12."""
    net, target, soft, frame = _setup(seed + 100, 2)
    batch, impossible = _check(net, target, soft, frame, atol=1e-9)
    _check(net, [*soft, target], soft, frame, atol=1e-9)
    _check_all(net, target, soft, frame, atol=1e-9)
    names = list(soft)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = net.posterior(names, frame, soft=soft, impossible="nan").to_numpy()
    shape = [net.cardinality(v) for v in names]
    for (label, evidence), row, joint in zip(_rows(frame), batch, fitted):
        if label in impossible or np.isnan(joint).any():
            continue
        joint = joint.reshape(shape)
        for axis, w in enumerate(names):
            margin = joint.sum(axis=1 - axis)
            np.testing.assert_allclose(margin, list(soft[w].values()), rtol=0, atol=1e-12)
        total = np.zeros_like(row)
        for index in np.argwhere(joint > 0):
            given = {**evidence, **{w: net.states(w)[i] for w, i in zip(names, index)}}
            total += joint[tuple(index)] * net.posterior(target, given).values.ravel()
        np.testing.assert_allclose(row, total, rtol=0, atol=1e-12)


def _check_all(net, target, soft, frame, do=None, atol=1e-12):
    """Every posterior of each case is the single case's (NaN where it is impossible)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = net.posteriors(frame, soft=soft, do=do, impossible="nan")
    assert set(every) == set(net.variables)
    for i, (_, evidence) in enumerate(_rows(frame)):
        answer, converged = _single(net, target, evidence, soft, do)
        if answer is None:
            assert all(np.isnan(values.to_numpy()[i]).all() for values in every.values())
        elif converged:
            single = net.posteriors(evidence, soft=soft, do=do)
            for v, values in every.items():
                np.testing.assert_allclose(values.to_numpy()[i], single[v].values,
                                           rtol=0, atol=atol)


@pytest.mark.parametrize("seed", range(6))
def test_all_posteriors_with_one_soft_finding(seed):
    net, target, soft, frame = _setup(seed + 400, 1)
    _check_all(net, target, soft, frame)
    do_variable = str(frame.columns[-1])
    _check_all(net, target, soft, frame.drop(columns=do_variable),
               do={do_variable: net.states(do_variable)[0]})


@pytest.mark.parametrize("seed", range(4))
def test_two_soft_findings_with_an_intervention_and_all_posteriors(seed):
    net, target, soft, frame = _setup(seed + 200, 2)
    do_variable = str(frame.columns[-1])
    do = {do_variable: net.states(do_variable)[-1]}
    frame = frame.drop(columns=do_variable)
    _check(net, target, soft, frame, do=do, atol=1e-9)
    _check_all(net, target, soft, frame, do=do, atol=1e-9)


def _copy_network():
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0.5, 0.5]])
    net.add_variable("C", ["0", "1"], parents=["A"], table=[[1, 0], [0.2, 0.8]])
    return net


@pytest.mark.parametrize("as_cases", [True, False])
@pytest.mark.parametrize("soft", [{"B": {"0": 0.4, "1": 0.6}},
                                  {"B": {"0": 0.4, "1": 0.6}, "C": {"0": 0.5, "1": 0.5}}])
def test_impossible_cases(soft, as_cases, monkeypatch):
    """A case whose evidence contradicts the soft finding (A=0 makes B=1 impossible)
    raises naming the row, or is NaN with a warning; the others are the single case's
    (one soft finding by either route)."""
    monkeypatch.setattr(bbn.Engine, "states_as_cases", lambda *args: as_cases)
    net = _copy_network()
    frame = pd.DataFrame({"A": [None, "0", "1"]}, index=["fine", "second", "third"])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'second'.*soft finding"):
        net.posterior("C", frame, soft=soft)
    with pytest.warns(RuntimeWarning, match="1 of 3 case") as warned:
        answer = net.posterior("C", frame, soft=soft, impossible="nan").to_numpy()
    assert warned[0].filename == __file__
    assert np.isnan(answer[1]).all()
    for row, evidence in ((0, {}), (2, {"A": "1"})):
        np.testing.assert_allclose(answer[row], net.posterior("C", evidence, soft=soft).values,
                                   rtol=0, atol=1e-9)
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'second'.*soft finding"):
        net.map(["C"], frame, soft=soft)
    with pytest.warns(RuntimeWarning, match="1 of 3 case") as warned:
        best = net.mpe(frame, soft=soft, impossible="nan")
    assert warned[0].filename == __file__
    assert np.isnan(best["probability"].to_numpy()).tolist() == [False, True, False]
    with pytest.warns(RuntimeWarning, match="1 of 3 case"):
        every = net.posteriors(frame, soft=soft, impossible="nan")
    assert np.isnan(every["C"].to_numpy()[:, 0]).tolist() == [False, True, False]
    if len(soft) == 1:  # by hand: P(A=0 | B=0) = 0.5 / 0.75, P(A=0 | B=1) = 0
        a0 = 0.4 * 0.5 / 0.75
        np.testing.assert_allclose(answer[0], [a0 + (1 - a0) * 0.2, (1 - a0) * 0.8],
                                   rtol=0, atol=1e-12)


def test_a_case_with_impossible_evidence_is_named_as_such():
    net = _copy_network()
    soft = {"B": {"0": 0.4, "1": 0.6}}
    frame = pd.DataFrame({"A": ["1", "0"], "C": ["1", "1"]}, index=["first", "second"])
    with pytest.raises(bbn.ImpossibleEvidenceError,
                       match="row 'second': A=0, C=1 has probability 0"):
        net.posterior("B", frame, soft=soft)
    with pytest.warns(RuntimeWarning, match="1 of 2 case"):
        answer = net.posteriors(frame, soft=soft, impossible="nan")["A"].to_numpy()
    assert np.isnan(answer[1]).all() and answer[0].tolist() == [0.0, 1.0]
    np.testing.assert_allclose(net.posterior("B", frame.iloc[:1], soft=soft).to_numpy(),
                               [[0.4, 0.6]], rtol=0, atol=1e-12)


def test_the_chair_network_by_hand():
    """Soft finding W ~ (0.5, 0.5): P'(C=T) = ½ P(C=T | W=T, e) + ½ P(C=T | W=F, e).
    No evidence, or S=T (C and S are d-separated when B is not observed):
    ½ · 0.72 / 0.722 + ½ · 0.08 / 0.278. A=T: P(A=T | C) = Σ_b P(b | C) P(A=T | b), with
    P(B=T | C=T) = 0.02·0.9 + 0.98·0.2 = 0.214 and P(B=T | C=F) = 0.02·0.9 + 0.98·0.01
    = 0.0278, so P(A=T | C=T) = 0.2284 and P(A=T | C=F) = 0.11668."""
    net = bbn.load("models/chair.bn")
    frame = pd.DataFrame({"S": [None, "T", None], "A": [None, None, "T"]})
    answer = net.posterior("C", frame, soft={"W": {"T": 0.5, "F": 0.5}}).to_numpy()[:, 0]
    plain = 0.5 * 0.72 / 0.722 + 0.5 * 0.08 / 0.278
    at, af = 0.2284, 0.11668
    aching = (0.5 * 0.72 * at / (0.72 * at + 0.002 * af)
              + 0.5 * 0.08 * at / (0.08 * at + 0.198 * af))
    np.testing.assert_allclose(answer, [plain, plain, aching], rtol=0, atol=1e-12)


def test_what_soft_findings_on_cases_refuse():
    net = bbn.load("models/chair.bn")
    frame = pd.DataFrame({"A": ["T", "F"]})
    soft = {"W": {"T": 0.5, "F": 0.5}}
    with pytest.raises(bbn.QueryError, match="'W' is both observed"):
        net.posterior("C", frame.assign(W=["T", "F"]), soft=soft)
    with pytest.raises(bbn.QueryError, match="also evidence columns"):
        net.posterior("A", frame, soft=soft)
    with pytest.raises(bbn.QueryError, match="answered exactly: leave out method"):
        net.posterior("C", frame, soft=soft, method="lbp")
    with pytest.raises(bbn.QueryError, match="answered exactly: leave out method"):
        net.map(["C"], frame, soft=soft, method="lbp")


@pytest.mark.parametrize("seed", range(6))
def test_map_and_mpe_of_cases_with_soft_findings(seed):
    """MAP and MPE with soft findings: those of the view with each case's fitted
    likelihoods, as the single case answers them (state and probability); odd seeds with
    an intervention too."""
    net, target, soft, frame = _setup(seed + 300, 1 + seed % 2)
    do = None
    if seed % 2:
        do_variable = str(frame.columns[-1])
        do, frame = {do_variable: net.states(do_variable)[0]}, frame.drop(columns=do_variable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = net.map([target], frame, soft=soft, do=do, impossible="nan")
        best = net.mpe(frame, soft=soft, do=do, impossible="nan")
    for i, (_, evidence) in enumerate(_rows(frame)):
        answer, converged = _single(net, target, evidence, soft, do)
        if answer is None:
            assert np.isnan(found["probability"].iloc[i])
            assert np.isnan(best["probability"].iloc[i])
            continue
        if not converged:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state, p = net.map([target], evidence, soft=soft, do=do)
            assignment, q = net.mpe(evidence, soft=soft, do=do)
        assert found[target].iloc[i] == state[target]
        assert abs(found["probability"].iloc[i] - p) < 1e-9
        assert abs(best["probability"].iloc[i] - q) < 1e-9
        assert all(best[v].iloc[i] == s for v, s in assignment.items())


def test_a_markov_network():
    net = bbn.load("models/chair.bn").to_markov()
    frame = pd.DataFrame({"A": ["T", None, "F"], "S": [None, "T", "F"]})
    for soft, atol in (({"W": {"T": 0.7, "F": 0.3}}, 1e-12),
                       ({"W": {"T": 0.7, "F": 0.3}, "B": {"T": 0.2, "F": 0.8}}, 1e-9)):
        batch = net.posterior("C", frame, soft=soft).to_numpy()
        for row, (_, evidence) in zip(batch, _rows(frame)):
            np.testing.assert_allclose(row, net.posterior("C", evidence, soft=soft).values,
                                       rtol=0, atol=atol)


def test_likelihood_columns_with_a_soft_finding():
    """A likelihood column is part of each case's other evidence:
    P'_i(Q) = Σ_w q(w) P(Q | w, e_i, λ_i), the single-case question with that likelihood."""
    net = bbn.load("models/chair.bn")
    frame = pd.DataFrame({"A": ["T", None], "B": [{"T": 0.8, "F": 0.4}, {"T": 0.1, "F": 1}]})
    for soft, atol in (({"W": {"T": 0.3, "F": 0.7}}, 1e-12),
                       ({"W": {"T": 0.3, "F": 0.7}, "S": {"T": 0.4, "F": 0.6}}, 1e-9)):
        batch = net.posterior("C", frame, soft=soft).to_numpy()
        every = net.posteriors(frame, soft=soft)
        for i, evidence in enumerate([{"A": "T", "B": {"T": 0.8, "F": 0.4}},
                                      {"B": {"T": 0.1, "F": 1}}]):
            np.testing.assert_allclose(batch[i], net.posterior("C", evidence,
                                                               soft=soft).values,
                                       rtol=0, atol=atol)
            single = net.posteriors(evidence, soft=soft)
            for v in ("C", "S", "W"):
                np.testing.assert_allclose(every[v].to_numpy()[i], single[v].values,
                                           rtol=0, atol=atol)


def test_a_fit_on_the_boundary_is_met_as_for_one_case():
    """J = [[¼, ¼], [½, 0]] fitted to the margins (½, ½), (½, ½): the only fit puts 0 on
    J's first cell, which the batched sweeps reach only slowly (1/sweeps); such a case is
    fitted again as one case is (directly), so the batch meets the limit T = [[0, ½],
    [½, 0]] — P'(Y=0) = ½ · 0.3 + ½ · 0.6 — without a warning, as the single question
    does."""
    net = bbn.Network("slow")
    net.add_variable("U", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("V", ["0", "1"], parents=["U"], table=[[0.5, 0.5], [1, 0]])
    net.add_variable("Y", ["0", "1"], parents=["U"], table=[[0.3, 0.7], [0.6, 0.4]])
    net.add_variable("Z", ["0", "1"], table=[0.5, 0.5])
    soft = {"U": {"0": 0.5, "1": 0.5}, "V": {"0": 0.5, "1": 0.5}}
    frame = pd.DataFrame({"Z": ["0", "1", None, "1"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answer = net.posterior("Y", frame, soft=soft).to_numpy()
        single = net.posterior("Y", {"Z": "0"}, soft=soft).values
    np.testing.assert_allclose(answer[:, 0], 0.45, rtol=0, atol=1e-9)
    np.testing.assert_allclose(answer, [single] * 4, rtol=0, atol=1e-9)


def test_cases_whose_fit_does_not_converge_are_counted_in_one_warning():
    """V = U, so T is diagonal: its margins cannot be (½, ½) and (0.9, 0.1), though every
    state is possible. Neither the sweeps nor the fit of one case meets them: the rows
    (three cases, four rows) are counted in one warning, named at the caller."""
    from bbn.engines.approximate.lbp import ConvergenceWarning

    net = bbn.Network("contradicting")
    net.add_variable("U", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("V", ["0", "1"], parents=["U"], table=[[1, 0], [0, 1]])
    net.add_variable("Y", ["0", "1"], parents=["U"], table=[[0.3, 0.7], [0.6, 0.4]])
    net.add_variable("Z", ["0", "1"], table=[0.5, 0.5])
    soft = {"U": {"0": 0.5, "1": 0.5}, "V": {"0": 0.9, "1": 0.1}}
    frame = pd.DataFrame({"Z": ["0", "1", None, "1"]})  # three cases, four rows
    with pytest.warns(ConvergenceWarning, match="in 4 of 4 case") as warned:
        net.posterior("Y", frame, soft=soft)
    assert len([w for w in warned if w.category is ConvergenceWarning]) == 1
    assert warned[0].filename == __file__
    with pytest.warns(ConvergenceWarning):  # as the single question says
        net.posterior("Y", {"Z": "0"}, soft=soft)


def _tiny(zero: float) -> bbn.Network:
    """P(W=1 | A=a0) = 2e-340 (``zero`` 1e-170), below the smallest double but not 0 (0
    with ``zero`` 0); W=1 only with V=1."""
    net = bbn.Network("tiny")
    net.add_variable("W", ["0", "1"], table=[1 - 1e-170, 1e-170])
    net.add_variable("A", ["a0", "a1"], parents=["W"], table=[[0.5, 0.5], [zero, 1 - zero]])
    net.add_variable("V", ["0", "1"], parents=["W"], table=[[0.7, 0.3], [0, 1]])
    net.add_variable("Q", ["q0", "q1"], parents=["V"], table=[[0.9, 0.1], [0.2, 0.8]])
    return net


@pytest.mark.parametrize("kind", ["posterior", "posteriors", "map"])
def test_a_case_whose_weighed_state_is_below_the_smallest_double(kind):
    """The fit of two soft findings reads P(W=1 | A=a0) = 2e-340 as 0. The batch checks
    that 0 exactly (W=1 asked in logs) and, as one case does, says the case has no
    answer (NoAnswerError naming the row; NaN and a warning of its own with
    impossible="nan"), not that its evidence is impossible; the other case is answered
    as alone (A=a1: T puts ½ on V=1 and ½ on V=0, P'(Q) = (0.55, 0.45)). Where the table
    has a true 0, the case stays impossible."""
    soft = {"W": {"0": 0.5, "1": 0.5}, "V": {"0": 0.5, "1": 0.5}}
    frame = pd.DataFrame({"A": ["a1", "a0", "a1"]})

    def ask(net, impossible):
        if kind == "posteriors":
            return net.posteriors(frame, soft=soft, impossible=impossible)["Q"].to_numpy()
        answer = getattr(net, kind)("Q", frame, soft=soft, impossible=impossible)
        return answer.to_numpy()

    with pytest.raises(bbn.NoAnswerError, match="row 1: .* below the smallest double"):
        ask(_tiny(1e-170), "raise")
    with pytest.raises(bbn.NoAnswerError, match="below the smallest double"):
        _tiny(1e-170).posterior("Q", {"A": "a0"}, soft=soft)  # as one case says
    with pytest.warns(RuntimeWarning, match="cannot be fitted in 1 of 3 case") as warned:
        answer = ask(_tiny(1e-170), "nan")
    assert not [w for w in warned if "impossible evidence" in str(w.message)]
    if kind == "map":
        assert answer[:, 0].tolist()[0::2] == ["q0", "q0"] and pd.isna(answer[1, 0])
    else:
        np.testing.assert_allclose(answer[0::2], [[0.55, 0.45]] * 2, rtol=0, atol=1e-9)
        assert np.isnan(answer[1]).all()
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 1"):
        ask(_tiny(0.0), "raise")
    with pytest.warns(RuntimeWarning, match="1 of 3 case.* impossible evidence"):
        ask(_tiny(0.0), "nan")


def test_a_state_the_other_finding_rules_out_stays_impossible():
    """W=1 only with V=1, and the soft finding on V weighs V=0 alone: W=1 is impossible
    given the other finding (0 exactly, not below range), whatever the row's evidence."""
    soft = {"W": {"0": 0.5, "1": 0.5}, "V": {"0": 1.0}}
    frame = pd.DataFrame({"A": ["a1", "a0"]})
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 0"):
        _tiny(1e-170).posterior("Q", frame, soft=soft)


def test_questions_of_one_case_refuse_a_dataframe_with_soft_findings_or_do():
    """probability and log_probability take one case: a DataFrame is refused, not read
    as no evidence (with soft findings or do=) nor met by pandas' ValueError (without)."""
    net = bbn.load("models/chair.bn")
    frame = pd.DataFrame({"A": ["T"]})
    soft = {"W": {"T": 0.5, "F": 0.5}}
    with pytest.raises(bbn.QueryError, match="takes one case.*not DataFrame"):
        net.probability({"C": "T"}, frame)
    with pytest.raises(bbn.QueryError, match="takes one case"):
        net.log_probability(frame)
    with pytest.raises(bbn.QueryError, match="takes one case.*not DataFrame"):
        net.probability({"C": "T"}, frame, soft=soft)
    with pytest.raises(bbn.QueryError, match="takes one case"):
        net.probability({"C": "T"}, frame, do={"S": "T"})
    with pytest.raises(bbn.QueryError, match="takes one case"):
        net.log_probability(frame, soft=soft)


@pytest.mark.parametrize("seed", [500, 501, 504, 506])  # some cases possible in each
def test_three_soft_findings(seed):
    net, target, soft, frame = _setup(seed, 3)
    _check(net, target, soft, frame, atol=1e-9)
    _check_all(net, target, soft, frame, atol=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_the_batched_max_product_weighs_each_cases_likelihoods(seed):
    """max_batches.map_of_cases with ``weights``: m*_i = argmax_m Σ_h P(m, h, e_i) λ_i(w)
    and P(m*_i | e_i, λ_i), against the brute-force joint weighed per case (zeros in the
    tables and in λ; a case whose λ leaves nothing possible is NaN) — what MAP and MPE of
    a batch with soft findings run, the fitted λ given per case, no view made."""
    from bbn.engines.exact.max_batches import map_of_cases
    from tests.brute_force import BruteForce

    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 1900, 4, 6), rng)
    names = [str(v) for v in rng.permutation(list(net.variables))]
    m, w, h = names[0], names[1], names[2]
    brute, n = BruteForce(net), 12
    codes = {h: rng.integers(-1, net.cardinality(h), n)}
    weights = rng.uniform(0, 1, (n, net.cardinality(w)))
    weights[rng.random(weights.shape) < 0.25] = 0.0
    weights[3] = weights[5]  # the same case twice, and a λ of ones
    codes[h][3] = codes[h][5]
    weights[7] = 1.0
    states, p = map_of_cases(net.engine, [m], codes, cases=n, impossible="nan",
                             weights={w: weights})
    axes = {v: i for i, v in enumerate(net.variables)}
    for i in range(n):
        seen = {} if codes[h][i] < 0 else {h: net.states(h)[codes[h][i]]}
        joint = brute.restricted(seen)
        shape = [1] * joint.ndim
        shape[axes[w]] = -1
        joint = joint * weights[i].reshape(shape)
        table = joint.sum(axis=tuple(j for j in range(joint.ndim) if j != axes[m]))
        if not table.sum() > 0:
            assert states[i, 0] == -1 and np.isnan(p[i])
            continue
        assert table[states[i, 0]] == pytest.approx(table.max(), rel=1e-12)
        assert p[i] == pytest.approx(table.max() / table.sum(), rel=1e-10)


def test_a_network_with_continuous_variables():
    """Gaussians with continuous parents, numbers observed in some cells: each row with
    one or two soft findings, or a likelihood column (cells {state: number}, states,
    missing), or both, is the single-case question's answer (which fits and weighs them
    on the joint that network's own question gives), with a soft target too; a soft
    finding on a state a row's evidence rules out makes that row impossible; other
    kinds, continuous targets and approximate methods are refused, saying what to do."""
    from tests.test_continuous_batches import _clg, sampled_rows

    net = _clg()
    rows = sampled_rows(net, 25, ["x", "y", "z", "R"], 3, 0.35)
    one = {"S": {"lo": 0.3, "hi": 0.7}}
    two = {**one, "R": {"no": 0.6, "yes": 0.4}}
    weighed = rows.assign(R=[{"no": 0.2, "yes": 0.9} if i % 3 == 0 else x
                             for i, x in enumerate(rows["R"])])
    for soft, frame in ((one, rows), (two, rows.drop(columns="R")), (None, weighed),
                        (one, weighed)):
        for targets in (["C"], ["C", "S"] if soft else ["C", "R"]):
            answer = net.posterior(targets, frame, soft=soft).to_numpy()
            for i, (_, row) in enumerate(frame.iterrows()):
                case = {v: x for v, x in row.items() if isinstance(x, dict) or pd.notna(x)}
                single = net.posterior(targets, case, soft=soft).values.ravel()
                np.testing.assert_allclose(answer[i], single, rtol=0, atol=1e-9)
    with pytest.raises(bbn.QueryError, match="takes method='exact'"):
        net.posterior("C", weighed, method="lw")
    net.set_cpt("R", [[1.0, 0.0], [0.4, 0.6]])  # S=lo rules R=yes out
    cases = pd.DataFrame({"S": ["hi", "lo"], "y": [0.5, 0.5]})
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 1: the soft finding"):
        net.posterior("C", cases, soft={"R": {"no": 0.5, "yes": 0.5}})
    with pytest.warns(RuntimeWarning, match="1 of 2 case"):
        answer = net.posterior("C", cases, soft={"R": {"no": 0.5, "yes": 0.5}},
                               impossible="nan").to_numpy()
    assert np.isnan(answer[1]).all() and not np.isnan(answer[0]).any()
    with pytest.raises(bbn.QueryError, match="posterior questions of discrete variables"):
        net.posteriors(rows[["y"]], soft=one)
    with pytest.raises(bbn.QueryError, match="'x' is continuous"):
        net.posterior("x", rows[["y"]], soft=one)

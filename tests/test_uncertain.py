"""Uncertain evidence and interventions (issue 29) against brute force on the joint:
likelihood evidence is a virtual child observed, do(X=x) the mutilated joint, Jeffrey's
rule the marginal it is given."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import bbn
from tests.brute_force import BruteForce, joint_array
from tests.example_networks import loop_markov_network
from tests.generic_networks import generic_network

SEEDS = range(12)


def _states(net, v):
    return list(net.states(v))


def _pick(net, rng, k):
    return [str(v) for v in rng.choice(list(net.variables), size=k, replace=False)]


def _likelihood(net, v, rng, zero=False):
    weights = rng.uniform(0.05, 3.0, size=net.cardinality(v))
    if zero:
        weights[rng.integers(len(weights))] = 0.0
    return dict(zip(_states(net, v), weights.tolist()))


def _weighted_joint(net, likelihoods, hard):
    """The joint × Π λ_W / max λ_W, zero outside the hard findings."""
    joint = BruteForce(net).restricted(hard)
    axis = {v: i for i, v in enumerate(net.variables)}
    for v, weights in likelihoods.items():
        w = np.array([weights.get(s, 0.0) for s in net.states(v)])
        shape = [1] * joint.ndim
        shape[axis[v]] = -1
        joint = joint * (w / w.max()).reshape(shape)
    return joint


def _marginal(net, joint, variables):
    axis = [list(net.variables).index(v) for v in variables]
    others = tuple(i for i in range(joint.ndim) if i not in axis)
    table = joint.sum(axis=others)
    kept = sorted(axis)
    return np.transpose(table, [kept.index(a) for a in axis])


@pytest.mark.parametrize("seed", SEEDS)
def test_likelihood_evidence_is_a_virtual_child(seed):
    net = generic_network(seed, 4, 7)
    rng = np.random.default_rng(seed)
    q, w1, w2, h = _pick(net, rng, 4)
    hard = {h: _states(net, h)[0]}
    likelihoods = {w1: _likelihood(net, w1, rng), w2: _likelihood(net, w2, rng, zero=True)}
    evidence = {**hard, **likelihoods}
    joint = _weighted_joint(net, likelihoods, hard)
    expected = _marginal(net, joint, [q])
    np.testing.assert_allclose(net.posterior(q, evidence).values, expected / expected.sum(),
                               atol=1e-12)
    marginals = net.posteriors(evidence)
    assert set(marginals) == set(net.variables)
    for v in net.variables:
        m = _marginal(net, joint, [v])
        np.testing.assert_allclose(marginals[v].values, m / m.sum(), atol=1e-12)
    s = _states(net, q)[1]
    assert net.probability({q: s}, evidence) == pytest.approx(expected[1] / expected.sum(),
                                                              abs=1e-12)
    # P(e) with likelihoods: the probability of the virtual observations
    assert math.exp(net.log_probability(evidence)) == pytest.approx(joint.sum(), rel=1e-10)
    # MPE: the largest cell of the weighted joint (over the unobserved variables)
    assignment, p = net.mpe(evidence)
    assert p == pytest.approx(joint.max() / joint.sum(), rel=1e-10)
    cell = tuple(_states(net, v).index(assignment.get(v, hard.get(v))) for v in net.variables)
    assert joint[cell] == pytest.approx(joint.max(), rel=1e-10)
    # MAP of two variables
    two = _marginal(net, joint, [q, w1])
    assignment, p = net.map([q, w1], evidence)
    assert p == pytest.approx(two.max() / two.sum(), rel=1e-10)


def test_hard_and_negative_findings_as_likelihoods():
    net = bbn.load("models/chair.bn")
    hard = net.posterior("C", {"A": "T", "W": "T"}).values
    assert net.posterior("C", {"A": "T", "W": {"T": 3.0}}).values == pytest.approx(hard,
                                                                                    abs=1e-15)
    # "W is not T" = W=F for two states; and P(e) of the 0/1 likelihood is P(W=F)
    np.testing.assert_allclose(net.posterior("C", {"W": {"T": 0, "F": 1}}).values,
                               net.posterior("C", {"W": "F"}).values, atol=1e-15)
    assert net.log_probability({"W": {"F": 1}}) == pytest.approx(
        net.log_probability({"W": "F"}), abs=1e-12)
    with pytest.raises(bbn.QueryError, match="numbers >= 0, not all 0"):
        net.posterior("C", {"W": {"T": 0}})
    with pytest.raises(bbn.QueryError, match="no state 'X'"):
        net.posterior("C", {"W": {"X": 1}})
    with pytest.raises(bbn.QueryError, match="takes numbers"):
        net.posterior("C", {"W": {"T": "high"}})
    with pytest.raises(bbn.QueryError, match="both observed and intervened on"):
        net.posterior("C", {"A": "T"}, do={"A": "F"})


def test_likelihood_on_a_markov_network():
    net = loop_markov_network(5)
    lam = {"B": {"0": 0.2, "1": 0.0, "2": 0.9}}
    joint = joint_array(net) * np.array([0.2, 0.0, 0.9])[None, :, None, None] / 0.9
    joint = joint[:, :, :, 1]  # D=1
    expected = joint.sum(axis=(1, 2))
    evidence = {"D": "1", **lam}
    np.testing.assert_allclose(net.posterior("A", evidence).values, expected / expected.sum(),
                               atol=1e-12)
    lbp = net.posterior("A", evidence, method="lbp")  # a loop: close, not exact
    np.testing.assert_allclose(lbp.values, expected / expected.sum(), atol=0.05)
    assert set(net.posteriors(evidence)) == set("ABCD")


def test_likelihood_by_approximate_methods():
    net = bbn.load("models/chair.bn")
    evidence = {"A": "T", "W": {"T": 0.8, "F": 0.4}}
    exact = net.posterior("C", evidence).values
    # the chair network is a polytree and so is it with a virtual child: LBP is exact
    np.testing.assert_allclose(net.posterior("C", evidence, method="lbp").values, exact,
                               atol=1e-9)
    estimate = net.posterior("C", evidence, method=bbn.LikelihoodWeighting(seed=3))
    assert (abs(estimate.values - exact) < 5 * estimate.standard_error).all()
    estimate = net.posteriors(evidence, method=bbn.Gibbs(seed=3))
    assert set(estimate) == set(net.variables)
    assert abs(estimate["C"].values[0] - exact[0]) < 5 * estimate["C"].standard_error[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_do_is_the_mutilated_joint(seed):
    net = generic_network(seed + 100, 4, 7)
    rng = np.random.default_rng(seed)
    x, y, z = _pick(net, rng, 3)
    mutilated = net.copy()
    mutilated.set_parents(x, [])
    xs = _states(net, x)
    table = np.zeros(len(xs))
    table[-1] = 1.0
    mutilated.set_cpt(x, table)
    brute = BruteForce(mutilated)
    e = {z: _states(net, z)[0]}
    expected = brute.posterior([y], e)
    np.testing.assert_allclose(net.posterior(y, e, do={x: xs[-1]}).values, expected,
                               atol=1e-12)
    np.testing.assert_allclose(net.query(f"P({y} | do({x}={xs[-1]}), {z}={e[z]})").values,
                               expected, atol=1e-12)
    assert net.log_probability(e, do={x: xs[-1]}) == pytest.approx(
        math.log(brute.p_evidence(e)), abs=1e-12)
    marginals = net.posteriors(e, do={x: xs[-1]})
    for v in net.variables:
        np.testing.assert_allclose(marginals[v].values, brute.posterior([v], e), atol=1e-12)
    # a stochastic intervention: X drawn from q, whatever its parents
    q = rng.dirichlet(np.ones(len(xs)))
    mutilated.set_cpt(x, q)
    expected = BruteForce(mutilated).posterior([y], e)
    np.testing.assert_allclose(
        net.posterior(y, e, do={x: dict(zip(xs, q.tolist()))}).values, expected, atol=1e-12)


def test_do_on_a_batch_and_by_sampling():
    pd = pytest.importorskip("pandas")
    net = bbn.load("models/chair.bn")
    frame = pd.DataFrame({"A": ["T", "F", None]})
    rows = net.posterior("C", frame, do={"B": "T"})  # a DataFrame: a row per case
    assert list(rows.index) == list(frame.index) and list(rows.columns) == ["T", "F"]
    rows = rows.to_numpy()
    for row, a in zip(rows, ["T", "F", None]):
        evidence = {} if a is None else {"A": a}
        np.testing.assert_allclose(row, net.posterior("C", evidence, do={"B": "T"}).values,
                                   atol=1e-12)
    exact = net.posterior("A", do={"B": "T"}).values
    np.testing.assert_allclose(exact, [0.7, 0.3], atol=1e-15)  # P(A | B=T): B's effect
    estimate = net.posterior("A", do={"B": "T"}, method=bbn.LikelihoodWeighting(seed=1))
    assert (abs(estimate.values - exact) < 5 * estimate.standard_error + 1e-12).all()


def test_interventions_on_a_markov_network_are_refused():
    net = bbn.load("models/chair.bn").to_markov()
    with pytest.raises(bbn.QueryError, match="Bayesian network"):
        net.query("P(C | do(A=T))")


@pytest.mark.parametrize("seed", SEEDS)
def test_jeffrey_rule(seed):
    net = generic_network(seed + 200, 4, 7)
    rng = np.random.default_rng(seed)
    w, y, h = _pick(net, rng, 3)
    hard = {h: _states(net, h)[0]}
    q = rng.dirichlet(np.ones(net.cardinality(w)))
    soft = {w: dict(zip(_states(net, w), q.tolist()))}
    np.testing.assert_allclose(net.posterior(w, hard, soft=soft).values, q, atol=1e-12)
    brute = BruteForce(net)
    expected = sum(q[i] * brute.posterior([y], {**hard, w: s})
                   for i, s in enumerate(_states(net, w)))
    np.testing.assert_allclose(net.posterior(y, hard, soft=soft).values, expected, atol=1e-12)


def test_several_soft_findings_by_proportional_fitting():
    net = generic_network(7, 6, 6)
    w1, w2 = list(net.variables)[:2]
    q1 = np.full(net.cardinality(w1), 1.0 / net.cardinality(w1))
    q2 = np.linspace(1, 2, net.cardinality(w2))
    q2 /= q2.sum()
    soft = {w1: dict(zip(_states(net, w1), q1)), w2: dict(zip(_states(net, w2), q2))}
    marginals = net.posteriors(soft=soft)
    np.testing.assert_allclose(marginals[w1].values, q1, atol=1e-9)
    np.testing.assert_allclose(marginals[w2].values, q2, atol=1e-9)
    weights, fit = bbn.soft_likelihoods(net, soft)
    assert fit.converged and fit.deviation <= 1e-10 and fit.sweeps > 1
    assert set(weights) == {w1, w2}


def test_soft_findings_that_contradict():
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="soft finding on A"):
        net.posterior("B", {"B": "0"}, soft={"A": {"0": 0.5, "1": 0.5}})
    # B copies A: soft findings A ~ (0.5, 0.5) and B ~ (0.9, 0.1) cannot both hold
    with pytest.warns(UserWarning, match="Jeffrey's rule"):
        net.posterior("A", soft={"A": {"0": 0.5, "1": 0.5}, "B": {"0": 0.9, "1": 0.1}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answer = net.posterior("B", soft={"A": {"0": 0.3, "1": 0.7}})
        assert answer.to_dict()["1"] == pytest.approx(0.7)


@pytest.mark.parametrize("seed", range(6))
def test_interventions_likelihoods_and_soft_findings_together(seed):
    net = generic_network(seed + 300, 5, 7)
    rng = np.random.default_rng(seed)
    x, w, s, y, h = _pick(net, rng, 5)
    xs = _states(net, x)
    mutilated = net.copy()
    mutilated.set_parents(x, [])
    mutilated.set_cpt(x, np.eye(len(xs))[0])
    hard = {h: _states(net, h)[-1]}
    lam = _likelihood(net, w, rng)
    joint = _weighted_joint(mutilated, {w: lam}, {**hard, x: xs[0]})
    expected = _marginal(mutilated, joint, [y])
    asked = {**hard, w: lam}
    np.testing.assert_allclose(net.posterior(y, asked, do={x: xs[0]}).values,
                               expected / expected.sum(), atol=1e-12)
    np.testing.assert_allclose(net.posteriors(asked, do={x: xs[0]})[y].values,
                               expected / expected.sum(), atol=1e-12)
    # and a soft finding on s, by Jeffrey's rule on that view
    q = rng.dirichlet(np.ones(net.cardinality(s)))
    both = _marginal(mutilated, joint, [y, s])
    given_s = both / both.sum(axis=0, keepdims=True)
    soft = {s: dict(zip(_states(net, s), q.tolist()))}
    expected = given_s @ q
    np.testing.assert_allclose(net.posterior(y, asked, do={x: xs[0]}, soft=soft).values,
                               expected, atol=1e-12)
    np.testing.assert_allclose(net.posteriors(asked, do={x: xs[0]}, soft=soft)[y].values,
                               expected, atol=1e-12)


def test_questions_from_many_threads():
    from concurrent.futures import ThreadPoolExecutor

    net = bbn.load("models/chair.bn")
    asks = [({"A": "T", "W": {"T": 0.2 + k / 50, "F": 0.5}}, {"B": "TF"[k % 2]})
            for k in range(40)]
    expected = [net.posterior("C", e, do=d).values for e, d in asks]
    fresh = bbn.load("models/chair.bn")
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda ask: fresh.posteriors(ask[0], do=ask[1])["C"].values,
                              asks))
    np.testing.assert_allclose(np.array(found), np.array(expected), atol=1e-12)


def test_the_explorer_takes_per_state_weights():
    from bbn.apps.explorer.app import Explorer

    net = bbn.load("models/chair.bn")
    answer = Explorer(net).posteriors([("A", "T"), ("W", "T:0.8,F:0.4")])
    evidence = {"A": "T", "W": {"T": 0.8, "F": 0.4}}
    assert answer["posteriors"]["C"]["T"] == pytest.approx(
        net.posterior("C", evidence).to_dict()["T"], abs=1e-15)
    # P(A=T, λ) = Σ_w P(A=T, w) λ(w) / 0.8, by brute force
    brute = BruteForce(net)
    expected = sum(brute.p_evidence({"A": "T", "W": w}) * lam / 0.8
                   for w, lam in (("T", 0.8), ("F", 0.4)))
    assert answer["p_evidence"] == pytest.approx(expected, abs=1e-15)
    with pytest.raises(bbn.QueryError, match="state:number pairs"):
        Explorer(net).posteriors([("W", "T:high")])


def test_new_likelihood_numbers_reuse_the_plan():
    """A likelihood enters the model's own elimination (a virtual child in the plan):
    new numbers are answered by the same plan, with no view made for them."""
    net = generic_network(11, 6, 7)
    rng = np.random.default_rng(11)
    q, w, h = _pick(net, rng, 3)
    hard = {h: _states(net, h)[0]}
    net.posterior(q, {**hard, w: _likelihood(net, w, rng)})
    plans = len(net.engine._plans)
    for _ in range(3):
        lam = _likelihood(net, w, rng, zero=True)
        expected = _marginal(net, _weighted_joint(net, {w: lam}, hard), [q])
        np.testing.assert_allclose(net.posterior(q, {**hard, w: lam}).values,
                                   expected / expected.sum(), atol=1e-12)
    # positive numbers and numbers with a zero: two shapes (a zero may make P(e) = 0)
    assert len(net.engine._plans) == plans + 1
    assert not net._answering.derived  # no view with virtual children was made


def test_a_likelihood_where_the_evidence_underflows():
    """P(e) = 1e-600: the elimination is redone in logs, the likelihood's with it.
    P(C | e, λ) ∝ P(C) Π_i P(e_i | C) λ(C), by hand in logs."""
    net = bbn.Network("many")
    net.add_variable("C", ["a", "b"], table=[0.3, 0.7])
    for i in range(200):
        net.add_variable(f"E{i}", ["y", "n"], parents=["C"],
                         table=[[1e-3, 1 - 1e-3], [2e-3, 1 - 2e-3]])
    evidence = {f"E{i}": "y" for i in range(200)}
    lam = np.array([0.9, 1e-40])
    logs = (np.log([0.3, 0.7]) + 200 * np.log([1e-3, 2e-3]) + np.log(lam))
    expected = np.exp(logs - logs.max())
    answer = net.posterior("C", {**evidence, "C": dict(zip("ab", lam))})
    np.testing.assert_allclose(answer.values, expected / expected.sum(), rtol=1e-10)
    assert answer.values[0] == pytest.approx(0.3 * 0.9 / (0.7 * 1e-40 * 2.0 ** 200), rel=1e-9)
    assert net.log_probability(evidence) < -1000  # far below the smallest double


def test_a_likelihood_that_rules_out_everything_apart_from_the_query():
    """λ(C) = [0, 1] on a root C with P(C = c1) = 0, d-separated from the query: the
    evidence is impossible all the same (its component is kept, not dropped)."""
    net = bbn.Network("apart")
    net.add_variable("A", ["0", "1"], table=[0.4, 0.6])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    net.add_variable("C", ["0", "1"], table=[1.0, 0.0])
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("A", {"B": "1", "C": {"0": 0, "1": 1}})
    np.testing.assert_allclose(net.posterior("A", {"B": "1", "C": {"0": 1, "1": 1}}).values,
                               [0.4 * 0.1 / 0.52, 0.6 * 0.8 / 0.52], atol=1e-15)


def test_soft_findings_asked_again_with_other_numbers_and_after_a_change():
    """Jeffrey's rule needs P(W | e) of the other evidence: kept per model revision and
    evidence, so other numbers, other targets and a changed model all stay exact."""
    net = generic_network(21, 6, 7)
    rng = np.random.default_rng(21)
    w, y, z, h = _pick(net, rng, 4)
    hard = {h: _states(net, h)[0]}
    for target, changed in ((y, False), (z, False), (y, True)):
        if changed:  # a new revision: P(W | e) is not read from the old one
            net.set_cpt(w, rng.dirichlet(np.ones(net.cardinality(w)),
                                         size=np.asarray(net.cpt_array(w)).shape[:-1]))
        brute = BruteForce(net)
        for _ in range(2):
            q = rng.dirichlet(np.ones(net.cardinality(w)))
            expected = sum(q[i] * brute.posterior([target], {**hard, w: s})
                           for i, s in enumerate(_states(net, w)))
            soft = {w: dict(zip(_states(net, w), q.tolist()))}
            np.testing.assert_allclose(net.posterior(target, hard, soft=soft).values,
                                       expected, atol=1e-12)
            np.testing.assert_allclose(net.posterior(w, hard, soft=soft).values, q,
                                       atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_likelihoods_in_a_dataframe_of_cases(seed):
    """A column of {state: number} cells: each row's likelihood, by brute force on the
    virtual child; a state in the column is a hard finding, a missing cell none."""
    pd = pytest.importorskip("pandas")
    net = generic_network(seed + 400, 5, 7)
    rng = np.random.default_rng(seed)
    q, w, h = _pick(net, rng, 3)
    rows = [({h: _states(net, h)[0]}, {w: _likelihood(net, w, rng)}),
            ({}, {w: _likelihood(net, w, rng, zero=True)}),
            ({h: _states(net, h)[-1]}, {}),
            ({}, {w: {_states(net, w)[1]: 1.0}})]
    frame = pd.DataFrame({h: [r[0].get(h) for r in rows],
                          w: [r[1].get(w) for r in rows]})
    frame.loc[3, w] = _states(net, w)[1]  # a hard finding in the likelihood column
    answer = net.posterior(q, frame)
    assert list(answer.index) == list(frame.index)
    for i, (hard, lam) in enumerate(rows):
        expected = _marginal(net, _weighted_joint(net, lam, hard), [q])
        np.testing.assert_allclose(answer.to_numpy()[i], expected / expected.sum(),
                                   atol=1e-12)
    # with an intervention: the mutilated joint, row by row
    x = next(v for v in net.variables if v not in (q, w, h))
    cut = net.copy()
    cut.set_parents(x, [])
    cut.set_cpt(x, np.eye(net.cardinality(x))[0])
    both = net.posterior(q, frame, do={x: _states(net, x)[0]}).to_numpy()
    for i, (hard, lam) in enumerate(rows):
        expected = _marginal(cut, _weighted_joint(cut, lam, {**hard, x: _states(net, x)[0]}),
                             [q])
        np.testing.assert_allclose(both[i], expected / expected.sum(), atol=1e-12)


def test_impossible_likelihoods_in_a_dataframe():
    pd = pytest.importorskip("pandas")
    net = bbn.Network("copy")
    net.add_variable("A", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[1, 0], [0, 1]])
    net.add_variable("C", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.2, 0.8]])
    frame = pd.DataFrame({"A": ["0", "0"], "B": [{"0": 2.0, "1": 1.0}, {"1": 1.0}]},
                         index=["first", "second"])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="second"):
        net.posterior("C", frame)
    with pytest.warns(RuntimeWarning, match="1 of 2 case") as warned:
        answer = net.posterior("C", frame, impossible="nan").to_numpy()
    assert warned[0].filename == __file__
    np.testing.assert_allclose(answer[0], [0.9, 0.1], atol=1e-15)
    assert np.isnan(answer[1]).all()
    with pytest.raises(bbn.QueryError, match="row 'second', column 'B'"):
        net.posterior("A", pd.DataFrame({"B": [{"0": 1}, {"2": 1}]}, index=["first", "second"]))
    with pytest.raises(bbn.ImpossibleEvidenceError,
                       match=r"row 'second': A=0, B=\{'0': 0.0, '1': 1.0\}"):
        net.posteriors(frame)  # every kind's batch: tests/test_batch_likelihoods.py


def test_soft_findings_on_a_markov_network():
    """Jeffrey's rule on a loop of factors, by brute force on Z's table:
    P'(A) = Σ_b q(b) P(A | b, D=1)."""
    net = loop_markov_network(8)
    joint = joint_array(net)[:, :, :, 1]  # D=1
    given_b = joint.sum(axis=2)  # (A, B)
    given_b = given_b / given_b.sum(axis=0, keepdims=True)
    q = np.array([0.2, 0.5, 0.3])
    soft = {"B": dict(zip("012", q.tolist()))}
    expected = given_b @ q
    np.testing.assert_allclose(net.posterior("A", {"D": "1"}, soft=soft).values, expected,
                               atol=1e-12)
    marginals = net.posteriors({"D": "1"}, soft=soft)
    np.testing.assert_allclose(marginals["A"].values, expected, atol=1e-12)
    np.testing.assert_allclose(marginals["B"].values, q, atol=1e-12)
    assert net.probability({"A": "1"}, {"D": "1"}, soft=soft) == pytest.approx(expected[1],
                                                                              abs=1e-12)
    assignment, p = net.map("A", {"D": "1"}, soft=soft)
    assert assignment == {"A": str(int(np.argmax(expected)))}
    assert p == pytest.approx(expected.max(), abs=1e-12)


def test_explain_derives_likelihood_evidence_as_a_virtual_child(capsys):
    """The derivation's numbers are the engine's: ψ1(C=T) = Σ_W P(W | C=T) λ(W)/max λ
    = 0.9 × 1 + 0.1 × 0.5 = 0.95; its answer is the posterior with the likelihood."""
    from bbn.apps.cli.main import main
    from bbn.tasks.explain.derivation import explain

    net = bbn.load("models/chair.bn")
    likelihood = {"W": {"T": 0.8, "F": 0.4}}
    derivation = explain(net, "P(C | A=T)", likelihood)
    np.testing.assert_allclose(derivation.answer.values,
                               net.posterior("C", {"A": "T", **likelihood}).values, atol=1e-15)
    assert any(t.variable == "λ(W)" and t.parents == ("W",)
               for t in derivation.factorisation)
    text = derivation.to_text()
    assert "ψ1(C=T) = 0.9 × 1 + 0.1 × 0.5 = 0.95" in text
    assert "virtual child λ(W) of W" in text
    with_do = explain(net, "P(C=T | do(B=T))", likelihood)
    assert with_do.answer == pytest.approx(net.probability({"C": "T"}, likelihood,
                                                           do={"B": "T"}), abs=1e-15)
    assert main(["explain", "models/chair.bn", "P(C=T | A=T)",
                 "--likelihood", "W=T:0.8,F:0.4"]) == 0
    assert "= 0.936426" in capsys.readouterr().out
    assert main(["explain", "models/chair.bn", "P(C=T | A=T)", "--likelihood", "W"]) == 2
    assert "VARIABLE=STATE:NUMBER" in capsys.readouterr().err


def _with_zeros(net, rng, count=2):
    """``net`` with ``count`` table entries set to 0 (rows renormalised): impossible
    combinations for the zero-aware paths."""
    for v in rng.choice(list(net.variables), size=count, replace=False):
        table = np.array(net.cpt_array(str(v)), dtype=float)
        flat = table.reshape(-1, table.shape[-1])
        flat[rng.integers(len(flat)), rng.integers(flat.shape[1])] = 0.0
        net.set_cpt(str(v), flat.reshape(table.shape) / flat.sum(axis=1).reshape(
            table.shape[:-1] + (1,)))
    return net


@pytest.mark.parametrize("seed", range(12))
def test_each_state_of_the_varied_variables_is_a_hard_question(seed):
    """Engine.given_each: one batched elimination whose case w is P(Q, w, e) up to a
    per-case constant; normalised, the hard question with W = w; 0 iff P(w, e) = 0.
    When the finding d-separates W from Q it returns P(Q, e) once, and then every w is
    possible (what it drops cannot be 0)."""
    from bbn.engines.protocol import Evidence

    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 500, 5, 7), rng, 3)
    varied = _pick(net, rng, 1 + seed % 2)
    q, h = rng.choice(
        [v for v in net.variables if v not in varied], size=2, replace=False).tolist()
    brute = BruteForce(net)
    hard = {h: next(s for s in _states(net, h) if brute.p_evidence({h: s}) > 0)}
    evidence = Evidence({h: _states(net, h).index(hard[h])}, {}, hard)
    table = net.engine.given_each([q], evidence, varied)
    shape = tuple(net.cardinality(v) for v in varied)
    for w in np.ndindex(*shape):
        given = {**hard, **{v: _states(net, v)[i] for v, i in zip(varied, w)}}
        case = table if table.ndim == 1 else table[w]
        if brute.p_evidence(given) == 0:
            assert table.ndim > 1 and case.sum() == 0
        else:
            np.testing.assert_allclose(case / case.sum(), brute.posterior([q], given),
                                       atol=1e-12)


def _force_route(monkeypatch, route: str) -> None:
    """Engine.joint_of_cases takes the batch over W's states, or the joint of Y and W."""
    from bbn.engines.exact.varied_cases import VariedCases

    def forced(self, key):
        _, free, observed, varied, _ = key
        if route == "batch":
            return True, self._given_each_plan(("given each", free, observed, varied, True))
        return False, self.weighed_plan([*varied, *free], list(observed), ())

    monkeypatch.setattr(VariedCases, "_batch_or_joint", forced)


@pytest.mark.parametrize("route", ["batch", "joint"])
@pytest.mark.parametrize("seed", range(12))
def test_jeffrey_rule_as_a_batch_of_hard_questions(seed, route, monkeypatch):
    """One soft finding (no likelihoods): P'(Y) = Σ_w q(w) P(Y | w, e), by brute force,
    on networks with zeros, asked first and again, a target observed too; a q giving
    weight to a state the rest rules out is impossible evidence — by the batch over W's
    states and by the joint of Y and W (each in turn)."""
    _force_route(monkeypatch, route)
    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 600, 4, 7), rng, 3)
    w, y, h = _pick(net, rng, 3)
    brute = BruteForce(net)
    hard = {h: next(s for s in _states(net, h) if brute.p_evidence({h: s}) > 0)}
    allowed = np.array([brute.p_evidence({**hard, w: s}) > 0 for s in _states(net, w)])
    q = rng.dirichlet(np.ones(int(allowed.sum())))
    full = np.zeros(len(allowed))
    full[allowed] = q
    soft = {w: dict(zip(_states(net, w), full.tolist()))}
    expected = sum(full[i] * brute.posterior([y], {**hard, w: s})
                   for i, s in enumerate(_states(net, w)) if allowed[i])
    for _ in range(2):  # nothing is kept between the two: both are one batched question
        np.testing.assert_allclose(net.posterior(y, hard, soft=soft).values, expected,
                                   atol=1e-12)
    both = net.posterior([h, y], hard, soft=soft)  # h observed: one-hot at its state
    np.testing.assert_allclose(both.values[_states(net, h).index(hard[h])], expected,
                               atol=1e-12)
    assert both.values.sum() == pytest.approx(1.0, abs=1e-12)
    if not allowed.all():
        bad = dict.fromkeys(_states(net, w), 1.0 / len(allowed))
        with pytest.raises(bbn.ImpossibleEvidenceError, match=f"soft finding on {w}"):
            net.posterior(y, hard, soft={w: bad})


def test_jeffrey_rule_where_the_evidence_underflows():
    """P(C | x, e) needs 200 findings (P(e) = 1e-600): the batch over X's states is
    redone in logs. P'(C) = Σ_x q(x) P(C | x, e), each by hand in logs."""
    net = bbn.Network("many")
    net.add_variable("C", ["a", "b"], table=[0.3, 0.7])
    net.add_variable("X", ["u", "v"], parents=["C"], table=[[0.9, 0.1], [0.2, 0.8]])
    for i in range(200):
        net.add_variable(f"E{i}", ["y", "n"], parents=["C"],
                         table=[[1e-3, 1 - 1e-3], [2e-3, 1 - 2e-3]])
    evidence = {f"E{i}": "y" for i in range(200)}
    q = np.array([0.25, 0.75])
    expected = 0
    for i, px in enumerate(([0.9, 0.2], [0.1, 0.8])):
        logs = np.log([0.3, 0.7]) + 200 * np.log([1e-3, 2e-3]) + np.log(px)
        given = np.exp(logs - logs.max())
        expected = expected + q[i] * given / given.sum()
    answer = net.posterior("C", evidence, soft={"X": dict(zip("uv", q.tolist()))})
    np.testing.assert_allclose(answer.values, expected, rtol=1e-10)
    assert answer.values[0] == pytest.approx(3.2504e-61, rel=1e-4)  # kept, not lost as 0


@pytest.mark.parametrize("as_cases", [True, False])
def test_jeffrey_rule_where_the_soft_state_underflows_given_the_evidence(as_cases,
                                                                          monkeypatch):
    """P(W=1 | A=a0) = 2e-340 is below the smallest double, not 0: the soft finding on
    W=1 is not impossible. Asked as the hard question W=1 (in logs where it underflows):
    P'(Q) = ½ (0.9, 0.1) + ½ (0.2, 0.8) by hand, alone and on a DataFrame by either
    route of one soft finding."""
    pd = pytest.importorskip("pandas")
    net = bbn.Network("tiny")
    net.add_variable("W", ["0", "1"], table=[1 - 1e-170, 1e-170])
    net.add_variable("A", ["a0", "a1"], parents=["W"], table=[[0.5, 0.5], [1e-170, 1]])
    net.add_variable("Q", ["q0", "q1"], parents=["W"], table=[[0.9, 0.1], [0.2, 0.8]])
    soft = {"W": {"0": 0.5, "1": 0.5}}
    expected = [0.55, 0.45]
    np.testing.assert_allclose(net.posterior("Q", {"A": "a0"}, soft=soft).values, expected,
                               rtol=1e-12)
    monkeypatch.setattr(bbn.Engine, "states_as_cases", lambda *args: as_cases)
    cases = net.posterior("Q", pd.DataFrame({"A": ["a0", "a1", None]}), soft=soft)
    np.testing.assert_allclose(cases.to_numpy(), [expected] * 3, rtol=1e-12)


def test_several_soft_findings_on_a_state_below_the_smallest_double():
    """P(W=1 | A=a0) = 2e-340 > 0: the fit of two soft findings cannot represent it, and
    says so (NoAnswerError), not that the evidence is impossible; where the other
    finding's zero does rule W=1 out (W=1 only with V=1, V=1 weighed 0), or the table
    has a true 0, it stays ImpossibleEvidenceError."""
    def network(tiny: float) -> bbn.Network:
        net = bbn.Network("tiny")
        net.add_variable("W", ["0", "1"], table=[1 - 1e-170, 1e-170])
        net.add_variable("A", ["a0", "a1"], parents=["W"], table=[[0.5, 0.5], [tiny, 1 - tiny]])
        net.add_variable("V", ["0", "1"], parents=["W"], table=[[0.7, 0.3], [0, 1]])
        return net

    soft = {"W": {"0": 0.5, "1": 0.5}, "V": {"0": 0.5, "1": 0.5}}
    with pytest.raises(bbn.NoAnswerError, match="below the smallest double"):
        network(1e-170).posterior("V", {"A": "a0"}, soft=soft)
    with pytest.raises(bbn.NoAnswerError, match="below the smallest double"):
        network(1e-170).posteriors({"A": "a0"}, soft=soft)
    ruled_out = {"W": {"0": 0.5, "1": 0.5}, "V": {"0": 1.0}}
    with pytest.raises(bbn.ImpossibleEvidenceError):
        network(1e-170).posterior("A", {}, soft=ruled_out)
    with pytest.raises(bbn.ImpossibleEvidenceError):
        network(0.0).posterior("V", {"A": "a0"}, soft=soft)


def test_jeffrey_rule_when_the_findings_separate_the_soft_variable():
    """A → B → C, B observed: a soft finding on A says nothing of C (P'(C) = P(C | B));
    the batch of hard questions is then the hard question itself."""
    from bbn.engines.protocol import Evidence

    net = bbn.Network("chain")
    net.add_variable("A", ["0", "1"], table=[0.4, 0.6])
    net.add_variable("B", ["0", "1"], parents=["A"], table=[[0.9, 0.1], [0.3, 0.7]])
    net.add_variable("C", ["0", "1"], parents=["B"], table=[[0.8, 0.2], [0.25, 0.75]])
    table = net.engine.given_each(["C"], Evidence({"B": 1}, {}, {}), ["A"])
    assert table.shape == (2,)  # no case axis: A's state does not matter
    answer = net.posterior("C", {"B": "1"}, soft={"A": {"0": 0.9, "1": 0.1}})
    np.testing.assert_allclose(answer.values, [0.25, 0.75], atol=1e-15)


def _proportional_fit(joint, q1, q2, sweeps=5000):
    """Iterative proportional fitting of a 2-D table to two marginals, plainly."""
    table = joint / joint.sum()
    for _ in range(sweeps):
        table = table * np.divide(q1, table.sum(axis=1), out=np.zeros_like(q1),
                                  where=table.sum(axis=1) > 0)[:, None]
        table = table * np.divide(q2, table.sum(axis=0), out=np.zeros_like(q2),
                                  where=table.sum(axis=0) > 0)[None, :]
    return table


@pytest.mark.parametrize("seed", range(8))
def test_two_soft_findings_against_proportional_fitting_on_the_joint(seed):
    """P'(Y) = Σ_w P(Y | w, e) P'(w), P'(W1, W2) the joint P(W1, W2 | e) fitted to both
    soft findings (by a plain fit on the brute-force joint), asked first and again."""
    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 700, 5, 7), rng, 2)
    w1, w2, y, h = _pick(net, rng, 4)
    brute = BruteForce(net)
    hard = {h: next(s for s in _states(net, h) if brute.p_evidence({h: s}) > 0)}
    joint = brute.unnormalised([w1, w2], hard)
    support1, support2 = joint.sum(axis=1) > 0, joint.sum(axis=0) > 0
    q1 = np.where(support1, rng.uniform(0.2, 1, len(support1)), 0)
    q2 = np.where(support2, rng.uniform(0.2, 1, len(support2)), 0)
    q1, q2 = q1 / q1.sum(), q2 / q2.sum()
    fitted = _proportional_fit(joint, q1, q2)
    given = brute.unnormalised([w1, w2, y], hard)
    given = np.divide(given, given.sum(axis=2, keepdims=True),
                      out=np.zeros_like(given), where=given.sum(axis=2, keepdims=True) > 0)
    expected = np.einsum("ab,aby->y", fitted, given)
    soft = {w1: dict(zip(_states(net, w1), q1.tolist())),
            w2: dict(zip(_states(net, w2), q2.tolist()))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # these findings agree: the fit converges
        for _ in range(2):
            np.testing.assert_allclose(net.posterior(y, hard, soft=soft).values, expected,
                                       atol=1e-9)
            np.testing.assert_allclose(net.posterior(w1, hard, soft=soft).values, q1,
                                       atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_every_posterior_with_new_likelihood_numbers_shares_the_tree(seed):
    """net.posteriors with a likelihood whose numbers change: one junction tree per shape
    (λ > 0, λ with a zero), the model engine's, the numbers given with each question (no
    view made), and every marginal is the brute-force one, on a tree of cliques (12
    variables) and on the dense joint of a small network."""
    rng = np.random.default_rng(seed)
    for net, dense in ((generic_network(seed + 800, 12, 12), False),
                       (generic_network(seed + 900, 5, 6), True)):
        w, h = _pick(net, rng, 2)
        hard = {h: _states(net, h)[0]}
        locks = set()
        for zero in (False, True, False):
            lam = _likelihood(net, w, rng, zero=zero)
            joint = _weighted_joint(net, {w: lam}, hard)
            marginals = net.posteriors({**hard, w: lam})
            for v in net.variables:
                m = _marginal(net, joint, [v])
                np.testing.assert_allclose(marginals[v].values, m / m.sum(), atol=1e-12)
            assert net._answering.derived is None  # no view with virtual children
            trees = [tree for engine, _ in net.engine._weighed_engines.values()
                     for tree in engine._trees.values()]
            assert all((tree.joint is not None) == dense for tree in trees)
            locks.update(tree.lock for tree in trees)
        assert len(locks) == 2  # one tree for λ > 0, one for a λ with a zero


# insurance's P(Accident, OtherCarCost | e) of workload 18: Accident = None only with
# OtherCarCost = Thousand, so q(None) = q(Thousand) = 0.1 forces the rest of the Thousand
# column to 0 (the fit lies on the boundary; sweeping alone met it to 9e-5 in 1000 sweeps)
_BOUNDARY = np.array([[7.1825e-01, 0, 0, 0],
                      [8.7850e-02, 1.0132e-03, 8.5436e-04, 2.4199e-06],
                      [4.2228e-02, 1.7395e-02, 2.0390e-02, 2.1785e-06],
                      [1.4553e-02, 5.1792e-02, 4.5666e-02, 6.4545e-06]])


def test_two_soft_findings_on_the_boundary_by_newtons_method():
    """The fit on the boundary is the plain fit of J with its forced cells set to 0
    (an interior fit, met quickly by sweeping); the fit finds those cells and meets it
    block by block in a few steps, not 1000 sweeps, without a warning."""
    from bbn.questions.soft_fit import NEWTON_AFTER, fit_soft
    q1, q2 = np.array([0.1, 0.1, 0.7, 0.1]), np.array([0.1, 0.7, 0.1, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (l1, l2), fit = fit_soft(_BOUNDARY, [q1, q2])
    assert fit.converged and fit.deviation <= 1e-10 and fit.sweeps < NEWTON_AFTER
    fitted = l1[:, None] * _BOUNDARY * l2
    fitted /= fitted.sum()
    forced = _BOUNDARY.copy()
    forced[1:, 0] = 0.0
    expected = _proportional_fit(forced, q1, q2, sweeps=2000)
    np.testing.assert_allclose(fitted, expected, atol=1e-9)
    assert abs(_proportional_fit(_BOUNDARY, q1, q2, sweeps=1000) - expected).max() > 1e-6


@pytest.mark.parametrize("seed", range(6))
def test_newtons_method_meets_the_plain_fit(seed):
    """Strongly related findings (J near a permutation, some cells 0): the fit, swept a
    few times then by Newton's method, is the plain fit's limit."""
    from bbn.questions.soft_fit import NEWTON_AFTER, fit_soft
    rng = np.random.default_rng(seed)
    n1, n2 = rng.integers(2, 6, size=2)
    joint = rng.uniform(size=(n1, n2)) ** 6 + np.eye(n1, n2) * 3
    joint[rng.uniform(size=joint.shape) < 0.2] = 0.0
    joint[np.arange(n1), np.arange(n1) % n2] = 3.0  # every row and column reached
    joint[np.arange(n2) % n1, np.arange(n2)] = 3.0
    q1, q2 = rng.dirichlet(np.ones(n1)), rng.dirichlet(np.ones(n2))
    q1, q2 = 0.5 * q1 + 0.5 / n1, 0.5 * q2 + 0.5 / n2  # inside: no boundary
    (l1, l2), fit = fit_soft(joint, [q1, q2])
    fitted = l1[:, None] * joint * l2
    fitted /= fitted.sum()
    np.testing.assert_allclose(fitted, _proportional_fit(joint, q1, q2), atol=1e-9)
    assert fit.converged and fit.sweeps < NEWTON_AFTER + 20


def test_soft_findings_that_contradict_are_said_early():
    """B copies A: A ~ (0.5, 0.5) and B ~ (0.9, 0.1) cannot both hold (A = 1 asks 0.5 of
    B = 1, which gives 0.1): the fit stops at the first check, not after 1000 sweeps."""
    from bbn.questions.soft_fit import NEWTON_AFTER, fit_soft
    (l1, l2), fit = fit_soft(np.eye(2), [np.array([0.5, 0.5]), np.array([0.9, 0.1])])
    assert not fit.converged and fit.sweeps == NEWTON_AFTER and fit.deviation > 0.3


def test_two_soft_findings_on_the_boundary_in_a_network():
    """P(A, C) = the boundary table above, Y a child of C: P'(Y) = Σ_w r(w) P(Y | w) with r
    the fit of J with its forced cells 0, asked first and again, without a warning."""
    net = bbn.Network("boundary")
    states = ["0", "1", "2", "3"]
    rows = _BOUNDARY.sum(axis=1)
    net.add_variable("A", states, table=(rows / rows.sum()).tolist())
    net.add_variable("C", states, parents=["A"],
                     table=(_BOUNDARY / rows[:, None]).tolist())
    given = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.2, 0.8]])
    net.add_variable("Y", ["y", "n"], parents=["C"], table=given.tolist())
    q1, q2 = np.array([0.1, 0.1, 0.7, 0.1]), np.array([0.1, 0.7, 0.1, 0.1])
    forced = _BOUNDARY.copy()
    forced[1:, 0] = 0.0
    expected = _proportional_fit(forced, q1, q2, sweeps=2000).sum(axis=0) @ given
    soft = {"A": dict(zip(states, q1.tolist())), "C": dict(zip(states, q2.tolist()))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            np.testing.assert_allclose(net.posterior("Y", soft=soft).values, expected,
                                       atol=1e-9)


def test_soft_findings_where_a_weighed_state_meets_only_states_ruled_out():
    """W1 = 1 occurs only with W2 = 1, which the second finding rules out: not met, said
    after the sweeps (no error from Newton's method)."""
    from bbn.questions.soft_fit import NEWTON_AFTER, fit_soft
    _, fit = fit_soft(np.eye(2), [np.array([0.5, 0.5]), np.array([1.0, 0.0])])
    assert not fit.converged and fit.sweeps == NEWTON_AFTER and fit.deviation >= 0.5


def _fit_joint(joint: np.ndarray, targets: list[np.ndarray]) -> np.ndarray:
    """Plain iterative proportional fitting of ``joint`` (any number of axes) to the
    ``targets`` marginals, run to 1e-14: the oracle of Jeffrey's rule for several
    soft findings."""
    table = joint / joint.sum()
    for _ in range(20000):
        for i, q in enumerate(targets):
            others = tuple(j for j in range(table.ndim) if j != i)
            m = table.sum(axis=others)
            scale = np.divide(q, m, out=np.zeros_like(q), where=m > 0)
            table = table * scale.reshape([-1 if j == i else 1 for j in range(table.ndim)])
        if max(np.abs(table.sum(axis=tuple(j for j in range(table.ndim) if j != i)) - q).max()
               for i, q in enumerate(targets)) < 1e-14:
            break
    return table


@pytest.mark.parametrize("route", ["batch", "joint"])
@pytest.mark.parametrize("seed", range(24))
def test_several_soft_findings_in_one_batched_elimination(seed, route, monkeypatch):
    """Two or three soft findings on networks of 6-9 variables (components the findings
    separate, zeros in the tables, a soft finding that gives a state 0): P'(Y) = Σ_w
    T(w) P(Y | w, e), T the joint P(W | e) fitted to the findings by brute force; the
    fitted marginals are the findings; asked first and again; by the batch over W's
    states and by the joint of Y and W (Engine.joint_of_cases takes the one doing less
    work: here each in turn)."""
    _force_route(monkeypatch, route)
    rng = np.random.default_rng(seed)
    net = _with_zeros(generic_network(seed + 1200, 6, 9), rng, 2)
    k = 2 if seed % 3 else 3
    *ws, y, h = _pick(net, rng, k + 2)
    brute = BruteForce(net)
    hard = {h: next(s for s in _states(net, h) if brute.p_evidence({h: s}) > 0)}
    joint = brute.unnormalised(ws, hard)
    targets = []
    for i in range(k):
        support = joint.sum(axis=tuple(j for j in range(k) if j != i)) > 0
        q = np.where(support, rng.uniform(0.2, 1, len(support)), 0)
        if seed % 4 == 0 and support.sum() > 2:  # a state the finding rules out
            q[np.flatnonzero(support)[0]] = 0.0
        targets.append(q / q.sum())
    fitted = _fit_joint(joint, targets)
    soft = {w: dict(zip(_states(net, w), q.tolist())) for w, q in zip(ws, targets)}
    met = max(np.abs(fitted.sum(axis=tuple(j for j in range(k) if j != i)) - q).max()
              for i, q in enumerate(targets))
    if met > 1e-9:  # the findings contradict each other (zeros): said, not claimed met
        with pytest.warns(bbn.ConvergenceWarning):
            net.posterior(y, hard, soft=soft)
        return
    given = brute.unnormalised([*ws, y], hard)
    total = given.sum(axis=-1, keepdims=True)
    given = np.divide(given, total, out=np.zeros_like(given), where=total > 0)
    expected = np.tensordot(fitted, given, axes=k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit on the boundary may warn; the answer holds
        for _ in range(2):
            np.testing.assert_allclose(net.posterior(y, hard, soft=soft).values, expected,
                                       atol=1e-8)
        for w, q in zip(ws, targets):
            np.testing.assert_allclose(net.posterior(w, hard, soft=soft).values, q,
                                       atol=1e-8)


@pytest.mark.parametrize("seed", range(16))
def test_the_cases_of_several_varied_variables_keep_their_odds_ratios(seed):
    """Engine.given_each(..., totals=True): summing the query out leaves P(W1, W2, e) up
    to a positive scale per axis (the components the findings separate from the query
    are dropped unless they read both W1 and W2), so every odds ratio of the joint is
    the brute-force one."""
    from bbn.engines.protocol import Evidence

    rng = np.random.default_rng(seed)
    net = generic_network(seed + 1300, 6, 9)
    w1, w2, y, h = _pick(net, rng, 4)
    brute = BruteForce(net)
    hard = {h: _states(net, h)[0]}
    evidence = Evidence({h: 0}, {}, {})
    table = net.engine.given_each([y], evidence, [w1, w2], totals=True)
    expected = brute.unnormalised([w1, w2], hard)
    if table.ndim == 1:  # the finding d-separates W1 and W2 from Y, and from each other
        np.testing.assert_allclose(table / table.sum(), brute.posterior([y], hard),
                                   atol=1e-12)
        product = np.outer(expected.sum(axis=1), expected.sum(axis=0)) / expected.sum()
        np.testing.assert_allclose(expected, product, rtol=1e-9)
        return
    got = table.sum(axis=2)
    odds = got[:, :, None, None] * got[None, None, :, :]
    crossed = got[:, None, None, :] * got.T[None, :, :, None]
    true = expected[:, :, None, None] * expected[None, None, :, :]
    true_crossed = expected[:, None, None, :] * expected.T[None, :, :, None]
    np.testing.assert_allclose(odds * true_crossed, crossed * true, rtol=1e-9, atol=0)
    # each case, normalised, is the hard question with W1 = w1, W2 = w2
    for i, s1 in enumerate(_states(net, w1)):
        for j, s2 in enumerate(_states(net, w2)):
            np.testing.assert_allclose(table[i, j] / table[i, j].sum(),
                                       brute.posterior([y], {**hard, w1: s1, w2: s2}),
                                       atol=1e-12)


def _separated_question(net, rng, independent=False):
    """(y, w1, w2, h) with y ⟂ w2 | h, w1 in the graph — or, ``independent``, with
    w1 ⟂ w2 | h and y depending on each given the other — from the variables in a random
    order; None when the network has none."""
    from bbn.questions.d_separation import separated

    view = net.compiled()
    names = [str(v) for v in rng.permutation(list(net.variables))]
    for y, w1, w2, h in itertools.permutations(names, 4):
        if not independent and separated(view, [y], [w2], [h, w1]):
            return y, w1, w2, h
        if independent and separated(view, [w1], [w2], [h]) and not (
                separated(view, [y], [w2], [h, w1]) or separated(view, [y], [w1], [h, w2])):
            return y, w1, w2, h
    return None


@pytest.mark.parametrize("seed", range(16))
def test_soft_findings_the_graph_separates_from_the_query(seed):
    """Y ⟂ W2 | E, W1 in the graph: P'(Y) = Σ_w T(w) P(Y | w, e) = Σ_w1 q1(w1) P(Y | w1, e)
    (T's marginal on W1 is q1), so the finding on W2 is dropped when the tables of W and E
    have no zero (zeros elsewhere leave P(w, e) > 0: the fit exists); W1 ⟂ W2 | E (odd
    seeds): T = q1 q2, no fit — against the fit of the brute-force joint. With a zero in
    W2's table the graph is not used, and the answer still holds (or the fit says it is
    not met)."""
    from bbn.engines.protocol import Evidence
    from bbn.questions.uncertain import soft_shape

    rng = np.random.default_rng(seed)
    independent = seed % 2 == 1
    for tried in range(seed + 1500, seed + 2500, 100):  # the first network that has one
        net = generic_network(tried, 6, 9)
        found = _separated_question(net, rng, independent)
        if found is not None:
            break
    y, w1, w2, h = found
    others = [v for v in net.variables if v not in (w1, w2, h)]
    for v in rng.choice(others, size=2, replace=False):  # zeros where they do not matter
        table = np.array(net.cpt_array(str(v)), dtype=float)
        flat = table.reshape(-1, table.shape[-1])
        flat[:, rng.integers(flat.shape[1])] = 0.0
        net.set_cpt(str(v), (flat / flat.sum(axis=1, keepdims=True)).reshape(table.shape))
    for zero_in_w2 in (False, True):
        if zero_in_w2:
            _with_zeros_in(net, w2, rng)
        brute = BruteForce(net)
        state = next(s for s in _states(net, h) if brute.p_evidence({h: s}) > 0)
        hard = {h: state}
        joint = brute.unnormalised([w1, w2], hard)
        targets = [rng.uniform(0.2, 1, n) for n in joint.shape]
        targets = [q * (m > 0) / (q * (m > 0)).sum()
                   for q, m in zip(targets, (joint.sum(axis=1), joint.sum(axis=0)))]
        fitted, expected = _jeffrey_by_brute_force(brute, y, [w1, w2], hard, targets)
        soft = {w: dict(zip(_states(net, w), q.tolist())) for w, q in zip((w1, w2), targets)}
        evidence = Evidence({h: _states(net, h).index(state)}, {}, {})
        shape = soft_shape(net.engine, [y], evidence, [w1, w2])
        if zero_in_w2:
            assert shape == ((w1, w2), False)
        else:
            assert shape == ((w1, w2), True) if independent else len(shape.bearing) <= 1
        met = max(np.abs(fitted.sum(axis=1 - i) - q).max() for i, q in enumerate(targets))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if zero_in_w2 else "error")
            answer = net.posterior(y, hard, soft=soft)
        if met < 1e-9:
            np.testing.assert_allclose(answer.values, expected, atol=1e-9)


def _with_zeros_in(net, variable, rng):
    """A 0 in one row of ``variable``'s table (the row renormalised)."""
    table = np.array(net.cpt_array(variable), dtype=float)
    flat = table.reshape(-1, table.shape[-1])
    flat[rng.integers(len(flat)), rng.integers(flat.shape[1])] = 0.0
    net.set_cpt(variable, (flat / flat.sum(axis=1, keepdims=True)).reshape(table.shape))


def _jeffrey_by_brute_force(brute, y, ws, hard, targets):
    """T, the brute-force P(W | e) fitted to ``targets``, and Σ_w T(w) P(y | w, e)."""
    fitted = _fit_joint(brute.unnormalised(ws, hard), targets)
    given = brute.unnormalised([*ws, y], hard)
    total = given.sum(axis=-1, keepdims=True)
    return fitted, np.tensordot(fitted, np.divide(given, total, out=np.zeros_like(given),
                                                  where=total > 0), axes=len(ws))


@pytest.mark.parametrize("seed", range(6))
def test_three_soft_findings_one_separated_from_the_query(seed):
    """Y ⟂ W3 | E, W1, W2 with Y depending on W1 and W2: the finding on W3 still counts
    (the marginal of the fit on W1, W2 is not the fit of P(W1, W2 | e) alone), so the
    answer is the brute-force fit of all three."""
    from bbn.questions.d_separation import separated

    rng = np.random.default_rng(seed)
    for tried in range(seed + 2600, seed + 3600, 100):
        net = generic_network(tried, 7, 9)
        view = net.compiled()
        found = next(((y, w1, w2, w3, h) for y, w1, w2, w3, h in itertools.permutations(
            [str(v) for v in rng.permutation(list(net.variables))], 5)
            if separated(view, [y], [w3], [h, w1, w2]) and not separated(
                view, [y], [w1], [h, w2, w3]) and not separated(view, [y], [w2], [h, w1, w3])
            and not separated(view, [w3], [w1, w2], [h])), None)
        if found is not None:
            break
    y, *ws, h = found
    brute = BruteForce(net)
    hard = {h: _states(net, h)[0]}
    targets = [q / q.sum() for q in (rng.uniform(0.2, 1, net.cardinality(w)) for w in ws)]
    _, expected = _jeffrey_by_brute_force(brute, y, ws, hard, targets)
    soft = {w: dict(zip(_states(net, w), q.tolist())) for w, q in zip(ws, targets)}
    np.testing.assert_allclose(net.posterior(y, hard, soft=soft).values, expected, atol=1e-9)


@pytest.mark.parametrize("route", ["batch", "joint"])
def test_soft_findings_apart_from_the_query_given_impossible_evidence(route, monkeypatch):
    """W1, W2 unconnected to the query: P'(X) = P(X | e), and where P(e) = 0 that is
    impossible evidence, not a NaN posterior (the batch drops W's axes there)."""
    _force_route(monkeypatch, route)
    net = bbn.Network("apart")
    net.add_variable("E", ["0", "1"], table=[1.0, 0.0])
    net.add_variable("X", ["0", "1"], parents=["E"], table=[[0.3, 0.7], [0.6, 0.4]])
    net.add_variable("W1", ["0", "1"], table=[0.5, 0.5])
    net.add_variable("W2", ["0", "1"], table=[0.2, 0.8])
    soft = {"W1": {"0": 0.4, "1": 0.6}, "W2": {"0": 0.9, "1": 0.1}}
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("X", {"E": "1"}, soft=soft)
    np.testing.assert_allclose(net.posterior("X", {"E": "0"}, soft=soft).values, [0.3, 0.7],
                               atol=1e-15)

"""Cutset conditioning (issue 33): exact answers beyond the memory limit, time for space.

The numbers: random Bayesian and Markov networks with zeros and evidence, a memory limit
of 320 bytes forcing conditioning on 1–7 variables, against brute-force enumeration of
the joint (tests/brute_force.py) to 1e-10 in every marginal and in ln Z(e); the
assignments counted before the sum are those summed; progress reaches 100%; impossible
evidence is an ImpossibleEvidenceError exactly when the joint says P(e) = 0 — also where
the tables' zeros alone cannot prove it (an exclusive or).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce
from strategies import random_network
from test_markov import random_markov, some_evidence

import bbn
import bbn.tasks.anytime as anytime
from bbn.apps.cli.main import main
from bbn.engines.approximate.supports import supported_states
from bbn.engines.exact.cutset_conditioning import CutsetConditioning, every_table
from bbn.questions import dispatch
from bbn.questions.resolution import resolve_evidence
from bbn.tasks.anytime import answer_auto
from bbn.tasks.competition import answer_task

#: Bytes: a handful of entries, so that most networks need a cutset.
TINY = 320


def random_case(seed: int) -> tuple[bbn.Network, dict[str, str]]:
    """A random network of up to 10 variables (zero-rich tables for most seeds) and
    evidence on about a quarter of its variables."""
    net = random_network(np.random.default_rng(seed), max_variables=10, max_states=3,
                         max_parents=3)
    rng = np.random.default_rng(seed + 1000)
    evidence = {v: net.states(v)[rng.integers(net.cardinality(v))] for v in net.variables
                if rng.random() < 0.25}
    return net, evidence


def conditioning(net, evidence: dict[str, str]) -> CutsetConditioning:
    states = resolve_evidence(net.engine.network, evidence, numbers=False).states
    return CutsetConditioning(net.engine, states)


def check_against_enumeration(net, evidence, memory_limit) -> int:
    """The answer at TINY bytes equals brute force; returns the cutset's size (-1 when
    the evidence is impossible, which brute force must confirm)."""
    oracle = BruteForce(net)
    net.compiled()  # a Markov network's view is made at the usual limit
    memory_limit(TINY)
    try:
        chosen = conditioning(net, evidence)
        found = chosen.run()
    except bbn.ImpossibleEvidenceError:
        assert oracle.p_evidence(evidence) == 0
        return -1
    finally:
        memory_limit(1 << 30)
    scale = getattr(net, "log_scale", 0.0)  # a Markov network's view holds φ / max φ
    assert found.log_weight + scale == pytest.approx(np.log(oracle.p_evidence(evidence)),
                                                     abs=1e-10)
    for v in net.variables:
        np.testing.assert_allclose(found.marginals[v], oracle.posterior([v], evidence),
                                   rtol=0, atol=1e-10)
    return len(chosen.cutset)


def test_random_networks_with_zeros_equal_enumeration(memory_limit):
    sizes = [check_against_enumeration(*random_case(seed), memory_limit)
             for seed in range(60)]
    assert sizes.count(-1) >= 5  # impossible evidence met, and confirmed
    assert sum(s >= 2 for s in sizes) >= 10  # conditioning happened, on several variables


@pytest.mark.parametrize("seed", range(8))
def test_markov_networks_with_zeros_equal_enumeration(seed, memory_limit):
    net = random_markov(seed, zeros=True)
    check_against_enumeration(net, some_evidence(net, seed), memory_limit)


def test_the_count_before_is_the_count_summed_and_progress_reaches_the_end(memory_limit):
    for seed in range(60):
        net, evidence = random_case(seed)
        memory_limit(TINY)
        try:
            chosen = conditioning(net, evidence)
        except bbn.ImpossibleEvidenceError:
            continue
        finally:
            memory_limit(1 << 30)
        if len(chosen.rows) >= 6:
            break
    counted = len(chosen.rows)
    summed = []
    batch = chosen._batch
    chosen._batch = lambda rows: summed.append(len(rows)) or batch(rows)
    steps = []
    memory_limit(TINY)
    found = chosen.run(progress=steps.append)
    assert found.assignments == counted == sum(summed)
    assert "estimated" in steps[0].note and steps[0].done == 0
    assert steps[-1].fraction == 1.0 and steps[-1].done == counted
    # the rows the zeros ruled out have P(e, c) = 0: they add nothing
    oracle = BruteForce(net)
    names = chosen.cutset
    kept = {tuple(row) for row in chosen.rows.tolist()}
    cards = [net.cardinality(v) for v in names]
    for row in np.ndindex(*cards):
        if row not in kept and not any(v in evidence and net.states(v)[s] != evidence[v]
                                       for v, s in zip(names, row)):
            assignment = {v: net.states(v)[s] for v, s in zip(names, row)}
            assert oracle.p_evidence({**evidence, **assignment}) == 0


def exclusive_or() -> bbn.Network:
    """A, B fair coins; C = A xor B and D = A xor B, deterministically."""
    net = bbn.Network("xor")
    for v in "AB":
        net.add_variable(v, ["0", "1"], table=[0.5, 0.5])
    xor = [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]
    for v in "CD":
        net.add_variable(v, ["0", "1"], parents=["A", "B"], table=xor)
    return net


def test_impossible_evidence_only_when_every_assignment_gives_zero(memory_limit):
    net = exclusive_or()
    evidence = {"C": "0", "D": "1"}
    graph = every_table(net.compiled())
    supported_states(graph, {2: 0, 3: 1})  # the zeros alone prove nothing here
    net.compiled()
    memory_limit(128)  # 16 entries: the tree over A, B does not fit, one over A does
    chosen = conditioning(net, evidence)
    assert len(chosen.cutset) == 1 and len(chosen.rows) == 2  # the zeros rule out neither
    with pytest.raises(bbn.ImpossibleEvidenceError, match="P\\(e, c\\) = 0 for each"):
        chosen.run()
    found = conditioning(net, {"C": "1", "D": "1"}).run()  # possible: P = 1/2
    assert found.log_weight == pytest.approx(np.log(0.5), abs=1e-12)


def test_method_cutset_answers_the_question_kinds(memory_limit):
    net, evidence = random_case(4)  # exact refuses at TINY: 3 variables conditioned
    while not BruteForce(net).p_evidence(evidence):
        evidence.popitem()
    exact = net.posteriors(evidence)
    v = net.variables[0]
    memory_limit(TINY)
    found = net.posteriors(evidence, method="cutset")
    for u in net.variables:
        np.testing.assert_allclose(found[u].values, exact[u].values, rtol=0, atol=1e-10)
    assert net.posterior(v, evidence, method="cutset").values == pytest.approx(
        exact[v].values, abs=1e-10)
    state = net.states(v)[0]
    assert net.probability({v: state}, evidence, method="cutset") == pytest.approx(
        exact[v].values[0], abs=1e-10)
    memory_limit(1 << 30)
    log_z = dispatch.log_partition(net, evidence)
    memory_limit(TINY)
    assert dispatch.log_partition(net, evidence, "cutset") == pytest.approx(log_z, abs=1e-10)
    with pytest.raises(bbn.QueryError, match="not MPE"):
        net.mpe(evidence, method="cutset")


def test_bbn_uai_and_query_take_method_cutset(chair_file, capsys):
    assert main(["uai", str(chair_file), "--task", "MAR", "--method", "cutset"]) == 0
    assert capsys.readouterr().out == ("MAR\n5 2 0.8 0.2 2 0.02 0.98 2 0.722 0.278 2 0.17676 "
                                       "0.82324 2 0.206056 0.793944\n")
    assert main(["query", str(chair_file), "P(C | A=T)", "--method", "cutset"]) == 0
    assert "0.886749" in capsys.readouterr().out


@pytest.mark.parametrize("task", ["MAR", "PR"])
def test_auto_answers_exactly_by_conditioning_beyond_memory(task, memory_limit):
    net, evidence = random_case(4)  # exact refuses at TINY: 3 variables conditioned
    while not BruteForce(net).p_evidence(evidence):
        evidence.popitem()
    exact = answer_task(net, task, evidence)
    memory_limit(TINY)
    found = answer_auto(net, task, evidence, time_budget=30)
    assert found.method == "cutset"
    assert "cutset conditioning on" in found.why and "estimated" in found.why
    if task == "PR":
        assert found.answer.log10_partition == pytest.approx(exact.log10_partition, abs=1e-10)
    else:
        for v in net.variables:
            np.testing.assert_allclose(found.answer.marginals[v], exact.marginals[v],
                                       rtol=0, atol=1e-10)


def test_auto_says_the_estimate_when_conditioning_would_take_too_long(monkeypatch):
    net, evidence = random_case(4)  # exact refuses at TINY: 3 variables conditioned
    while not BruteForce(net).p_evidence(evidence):
        evidence.popitem()

    def refused(*args, **kwargs):
        raise bbn.MemoryLimitError("exact inference needs 9.0 GiB, above the memory limit "
                                   "of 1.0 GiB; raise it")

    monkeypatch.setattr(anytime, "answer_task", refused)
    monkeypatch.setattr(CutsetConditioning, "estimate", lambda self: 1e6)
    found = answer_auto(net, "MAR", evidence, time_budget=2)
    assert found.method == "mbis"
    assert found.why.endswith("would take about 12 days (timed on a few)")


def long_chain(n: int = 300) -> bbn.Network:
    """X0 → X1 → ... with every Xi observed where P(Xi = 1 | X_{i-1}) ≤ 0.02: P(e) far
    below the smallest double (about 1e-600)."""
    net = bbn.Network("chain")
    net.add_variable("X0", ["0", "1"], table=[0.5, 0.5])
    for i in range(1, n):
        net.add_variable(f"X{i}", ["0", "1"], parents=[f"X{i - 1}"],
                         table=[[0.99, 0.01], [0.98, 0.02]])
    return net


def test_weights_far_below_the_smallest_double():
    net = long_chain()
    evidence = {f"X{i}": "1" for i in range(2, 300) if i != 151}
    states = resolve_evidence(net.engine.network, evidence, numbers=False).states
    found = CutsetConditioning(net.engine, states, cutset=["X1", "X151"]).run()
    exact = net.posteriors(evidence)
    assert found.log_weight == pytest.approx(net.engine.log_weight(states), abs=1e-9)
    assert found.log_weight < -1000  # below ln of the smallest double, −745
    for v in ("X0", "X1", "X151", "X299"):
        np.testing.assert_allclose(found.marginals[v], exact[v].values, rtol=0, atol=1e-12)


def test_a_product_underflowing_inside_one_step_is_redone_in_logs():
    from test_no_false_impossible import underflowing_network

    net = underflowing_network()  # Z = 8e-400: two 1e-200 factors meet in one product
    states = resolve_evidence(net.engine.network, {}, numbers=False).states
    found = CutsetConditioning(net.engine, states, cutset=["X"]).run()
    assert found.log_weight + net.log_scale == pytest.approx(np.log(8) - 400 * np.log(10),
                                                             abs=1e-9)
    np.testing.assert_allclose(found.marginals["X"], [0.5, 0.5], atol=1e-12)


def test_a_markov_networks_cases_are_answered_as_one_by_one():
    """A DataFrame of cases on a Markov network (its factor nodes among the batch's
    columns) raised KeyError('φ0') before; each row now equals the single question."""
    net = random_markov(2)
    v = net.variables[0]
    rows = net.posteriors(pd.DataFrame({v: list(net.states(v))}))
    for i, state in enumerate(net.states(v)):
        one = net.posteriors({v: state})
        for u in net.variables:
            np.testing.assert_allclose(rows[u].to_numpy()[i], one[u].values, atol=1e-12)

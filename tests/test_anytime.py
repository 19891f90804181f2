"""``bbn uai`` without ``--method``: exact where it fits memory and the estimated time,
else an approximate answer within the budget, saying which method gave it.

The numbers: a chain (loopy BP is exact on a tree) answered exactly, then, where exact
inference is refused or over the budget, by loopy BP (equal to the exact marginals to
1e-9); when loopy BP gives no answer, by Gibbs sampling (within 0.05); evidence the zeros
make impossible exits 1.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from test_no_false_impossible import underflowing_network

import bbn
import bbn.tasks.anytime as anytime
from bbn.apps.cli.main import main
from bbn.engines.approximate.lbp import LoopyBP
from bbn.questions import dispatch
from bbn.tasks.anytime import answer_auto, pruned_graph
from bbn.tasks.competition import answer_task, read_result


def chain() -> bbn.Network:
    """A → B → C → D, three states each."""
    net = bbn.Network("chain")
    rng = np.random.default_rng(4)
    previous = None
    for name in "ABCD":
        shape = (3, 3) if previous else (3,)
        table = rng.dirichlet(np.ones(3), size=shape[:-1] or None)
        net.add_variable(name, ["x", "y", "z"], parents=[previous] if previous else [],
                         table=table)
        previous = name
    return net


def test_exact_where_it_fits():
    net = chain()
    found = answer_auto(net, "MAR", {"D": "y"})
    assert (found.method, found.why) == ("exact", "")
    exact = answer_task(net, "MAR", {"D": "y"}).marginals
    for v in net.variables:
        np.testing.assert_array_equal(found.answer.marginals[v], exact[v])


def test_approximate_where_exact_does_not_fit(monkeypatch):
    net = chain()
    exact = answer_task(net, "MAR", {"D": "y"}).marginals
    log10_p = answer_task(net, "PR", {"D": "y"}).log10_partition

    def refused(*args, **kwargs):
        raise bbn.MemoryLimitError("exact inference needs 9.0 GiB, above the memory limit "
                                   "of 1.0 GiB; raise it")

    monkeypatch.setattr(anytime, "answer_task", refused)
    monkeypatch.setattr(anytime, "cutset_in_time", no_cutset)
    found = answer_auto(net, "MAR", {"D": "y"}, time_budget=1)
    assert found.method == "mbis"  # importance sampling from (unsplit) mini-buckets
    assert found.why == ("exact inference needs 9.0 GiB, above the memory limit of 1.0 GiB; "
                         "cutset conditioning would take 3 days")
    for v in net.variables:  # a second of sampling from the exact conditionals
        np.testing.assert_allclose(found.answer.marginals[v], exact[v], atol=0.02)
    pr = answer_auto(net, "PR", {"D": "y"}, time_budget=1)
    assert pr.method == "mbis"  # the proposal is exact: every weight is P(e)
    assert pr.answer.log10_partition == pytest.approx(log10_p, abs=1e-9)
    # when the sampler finds no answer, loopy BP (exact on a chain) has the time left
    monkeypatch.setattr(anytime, "MiniBucketSampler", NoSample)
    found = answer_auto(net, "MAR", {"D": "y"}, time_budget=1)
    assert found.method == "lbp"
    for v in net.variables:  # a chain is a tree: loopy BP is exact
        np.testing.assert_allclose(found.answer.marginals[v], exact[v], atol=1e-9)
    pr = answer_auto(net, "PR", {"D": "y"}, time_budget=1)
    assert pr.method == "lbp" and pr.answer.log10_partition == pytest.approx(log10_p, abs=1e-9)


def test_far_beyond_the_memory_limit_exact_is_not_searched(monkeypatch):
    """A greedy order over GREEDY_OVER_LIMIT × the limit: no order search, no exact try."""
    net = chain()
    monkeypatch.setattr(anytime, "get_memory_limit", lambda: 1)  # 1 byte
    monkeypatch.setattr(anytime, "_exact_out_of_reach", None)  # never called
    monkeypatch.setattr(anytime, "cutset_in_time", no_cutset)
    found = answer_auto(net, "PR", {"D": "y"}, time_budget=1)
    assert found.method == "mbis"
    # D seen: eliminating A, B, C makes tables of 9, 9 and 3 entries, 21 × 8 bytes
    assert found.why == ("exact inference needs about 168.0 B in the greedy elimination "
                         "order, over 100 times the memory limit of 1.0 B; cutset "
                         "conditioning would take 3 days")


def no_cutset(*args):
    """Cutset conditioning estimated far too slow (what auto tries before sampling)."""
    return None, "cutset conditioning would take 3 days"


class NoSample(anytime.MiniBucketSampler):
    def run(self, graph, evidence):
        raise bbn.NoAnswerError("every sample had weight 0")


def test_approximate_when_exact_would_take_longer_than_the_budget():
    net = chain()
    exact = answer_task(net, "MAR", {"D": "y"}).marginals
    found = answer_auto(net, "MAR", {"D": "y"}, time_budget=1e-9)  # 1 s of sampling
    assert found.method == "mbis" and "budget of 1e-09 s" in found.why
    for v in net.variables:
        np.testing.assert_allclose(found.answer.marginals[v], exact[v], atol=0.02)


def test_exact_is_tried_for_the_time_left_after_an_approximate_answer(monkeypatch):
    net = chain()
    exact = answer_task(net, "MAR", {"D": "y"}).marginals
    monkeypatch.setattr(anytime, "SECONDS_PER_ENTRY", 1.0)  # estimated far too slow
    seen = []
    found = answer_auto(net, "MAR", {"D": "y"}, time_budget=30, on_answer=seen.append)
    assert [s.method for s in seen] == ["mbis"] and "would take about" in seen[0].why
    assert found.method == "exact"  # a forked child answered in time
    for v in net.variables:
        np.testing.assert_array_equal(found.answer.marginals[v], exact[v])


def test_exact_in_time_gives_up_at_the_deadline(monkeypatch):
    def slow(*args):
        time.sleep(30)

    monkeypatch.setattr(anytime, "answer_task", slow)  # the forked child inherits it
    started = time.perf_counter()
    assert anytime.exact_in_time(chain(), "MAR", {}, 0.5) is None
    assert time.perf_counter() - started < 10  # killed, not waited for


class NoAnswer(LoopyBP):
    def run(self, graph, evidence):
        raise bbn.NoAnswerError("loopy belief propagation gave no answer")


def test_gibbs_answers_when_loopy_bp_gives_none(monkeypatch):
    net = chain()
    exact = answer_task(net, "MAR", {"D": "y"}).marginals
    monkeypatch.setattr(anytime, "LoopyBP", NoAnswer)
    monkeypatch.setattr(anytime, "MiniBucketSampler", NoSample)
    found = answer_auto(net, "MAR", {"D": "y"}, time_budget=1e-9)  # 1 s of sampling
    assert found.method == "gibbs"
    for v in net.variables:  # thousands of sweeps of 100 chains: within 0.05
        np.testing.assert_allclose(found.answer.marginals[v], exact[v], atol=0.05)


def test_impossible_evidence_is_proved_by_the_zeros_and_exits_1(tmp_path, capsys):
    net = underflowing_network()
    path = tmp_path / "underflow.uai"
    bbn.save(net, path)
    evidence = tmp_path / "e.evid"
    evidence.write_text("2 0 0 1 1")  # X0 = 0 and X1 = 1, where X0 = X1
    assert main(["uai", str(path), "--evid", str(evidence), "--task", "MAR"]) == 1
    assert "propagating the tables' zeros" in capsys.readouterr().err


def test_the_command_says_which_method_answered(tmp_path, capsys, chair_file):
    assert main(["uai", str(chair_file), "--task", "MAR", "--time-budget", "1e-9"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("bbn uai: answered by mbis in ")
    assert "budget of 0 s" in captured.err  # 1e-9 s, less the reading
    sampled = read_result(captured.out).marginals
    net = bbn.load(chair_file)
    exact = answer_task(net, "MAR").marginals
    for i, v in enumerate(net.variables):  # a second of sampling, unsplit mini-buckets
        np.testing.assert_allclose(sampled[f"X{i}"], exact[v], atol=0.02)
    assert main(["uai", str(chair_file), "--task", "MAR"]) == 0
    assert capsys.readouterr().err == ""  # exact: nothing to say


def test_pruned_states_are_zeroed_in_every_table():
    graph = dispatch.factor_graph(underflowing_network())
    domains = [np.ones(2, dtype=bool) for _ in graph.variables]
    domains[0] = np.array([True, False])  # X = 1 ruled out
    pruned = pruned_graph(graph, domains)
    for scope, table in zip(pruned.scopes, pruned.tables):
        if 0 in scope:
            assert not np.take(table, 1, axis=scope.index(0)).any()

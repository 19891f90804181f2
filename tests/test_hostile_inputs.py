"""Hostile and unusual inputs at the edges: each is answered correctly or refused with
bbn's own located error — never a traceback, a hang, or a silently wrong answer.

Questions with an approximate method on forms it does not estimate, time budgets at
their extremes, decision-tree JSON files, UAI evidence files, CSV whose header is shorter
than its rows, damaged Parquet, an output path that is one of the inputs, Ctrl-C.
"""

from __future__ import annotations

import json

import pytest

from bbn.apps.cli.main import main
from bbn.core.errors import QueryError
from bbn.engines.approximate.gibbs import Gibbs
from bbn.questions.dispatch import method_from_options

METHODS = ("lbp", "lw", "is", "gibbs")


# ------------------------------------------------- approximate methods, other forms
@pytest.mark.parametrize("method", METHODS)
def test_independence_is_answered_from_the_graph_whatever_the_method(chair, method):
    # d-separation reads no number: the exact answer, the same for every method
    assert bool(chair.query("C _|_ S", method=method)) is True
    dependent = chair.query("C _|_ W | B", method=method)
    assert bool(dependent) is False
    assert dependent.to_text() == "C ⟂ W | B: false\n  active trail: C → W"


@pytest.mark.parametrize("method", METHODS)
def test_independence_with_a_method_on_the_command_line(chair_file, capsys, method):
    assert main(["query", str(chair_file), "C _|_ S", "--method", method, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"query": "C _|_ S", "independent": True,
                                                   "trail": None}


@pytest.mark.parametrize("query", ["H(C)", "I(C; S)", "H(C | A=T)", "I(C; S | W)"])
@pytest.mark.parametrize("method", METHODS)
def test_information_with_a_method_is_refused_clearly(chair, chair_file, capsys, query,
                                                      method):
    with pytest.raises(QueryError, match="questions are answered exactly only; leave out"):
        chair.query(query, method=method)
    assert main(["query", str(chair_file), query, "--method", method]) == 2
    err = capsys.readouterr().err
    assert "answered exactly only" in err and "Traceback" not in err


def test_gibbs_takes_an_infinite_time_budget(chair):
    method = method_from_options("gibbs", samples=2000, time_budget=float("inf"), seed=1)
    estimate = chair.posterior("C", {"A": "T"}, method=method)
    assert estimate.report.stopped_by == "samples"
    assert estimate.values[0] == pytest.approx(0.886749, abs=0.03)  # EXAMPLES.md §1


def test_gibbs_burn_in_stops_at_the_time_budget(chair):
    from bbn.questions.dispatch import factor_graph

    graph = factor_graph(chair)
    # a million sweeps of burn-in would take minutes: the budget cuts it, one sweep kept
    result = Gibbs(samples=10**9, time_budget=0.05, burn_in=10**6, seed=0).run(graph, {0: 0})
    assert result.report.stopped_by == "time"
    assert result.report.samples == 100  # one kept sweep of the 100 chains

"""``method=`` on every question: the approximate engines behind the same API, the query
language and the command line, checked against the exact answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.questions.estimates import Estimate


@pytest.fixture(scope="module")
def chair():
    return bbn.load("models/chair.bn")


def test_loopy_bp_answers_a_polytree_exactly_through_every_question(chair):
    # the chair network is a polytree (its skeleton has no loop): loopy BP is exact
    exact = chair.posteriors({"A": "T"})
    approximate = chair.posteriors({"A": "T"}, method="lbp")
    assert list(approximate) == list(exact)
    for v, factor in exact.items():
        assert isinstance(approximate[v], Estimate)
        np.testing.assert_allclose(approximate[v].values, factor.values, atol=1e-9)
        assert approximate[v].standard_error is None
    assert chair.posterior("C", {"A": "T"}, method="lbp").values[0] == pytest.approx(
        22840 / 25757, abs=1e-9)
    assert chair.probability({"C": "T"}, {"A": "T"}, method="lbp") == pytest.approx(
        22840 / 25757, abs=1e-9)
    assert chair.query("P(C=T | A=T)", method="lbp") == pytest.approx(22840 / 25757, abs=1e-9)
    assert chair.probability({"A": "T"}, {"A": "T"}, method="lbp") == 1.0


@pytest.mark.parametrize("method", ["lw", "is", "gibbs"])
def test_samplers_cover_the_exact_answer_with_their_standard_errors(chair, method):
    value = bbn.engines.approximate.approximate_method(method)
    settings = {"samples": 20_000, "seed": 7}
    posterior = chair.posterior("C", {"A": "T"}, method=type(value)(**settings))
    exact = 22840 / 25757
    assert posterior.report.method == method
    assert posterior.standard_error[0] > 0
    assert abs(posterior.values[0] - exact) <= 4 * posterior.standard_error[0]
    again = chair.posterior("C", {"A": "T"}, method=type(value)(**settings))
    assert np.array_equal(again.values, posterior.values)  # the seed fixes the answer


def test_markov_networks_take_the_methods_that_serve_them():
    net = bbn.MarkovNetwork("chain")
    for v in "ABC":
        net.add_variable(v, ["0", "1"])
    net.add_factor(["A", "B"], [[3, 1], [1, 2]])
    net.add_factor(["B", "C"], [[1, 4], [2, 1]])
    exact = net.posteriors({"C": "1"})
    lbp = net.posteriors({"C": "1"}, method="lbp")  # a chain: exact
    for v in net.variables:
        np.testing.assert_allclose(lbp[v].values, exact[v].values, atol=1e-9)
    gibbs = net.posterior("A", {"C": "1"}, method=bbn.Gibbs(samples=20_000, seed=2))
    assert abs(gibbs.values[0] - exact["A"].values[0]) <= 4 * gibbs.standard_error[0]
    with pytest.raises(bbn.ModelError):
        net.posterior("A", method="lw")  # forward sampling needs a Bayesian network


def test_questions_approximate_methods_do_not_answer_are_refused(chair):
    with pytest.raises(bbn.QueryError, match=r"share a factor, and \['S', 'W'\] share none; "
                       "use 'lw', 'is' or 'gibbs'"):
        chair.posterior(["S", "W"], {"A": "T"}, method="lbp")
    with pytest.raises(bbn.QueryError, match="did you mean 'lbp'"):
        chair.posterior("C", method="lpb")
    with pytest.raises(bbn.QueryError, match=r"unknown query variable .c. \(did you mean .C.\?\)"):
        chair.posterior("c", method="lbp")


def test_the_command_line_takes_a_method_and_its_settings(capsys):
    assert main(["query", "models/chair.bn", "P(C | A=T)", "--method", "lw", "--samples",
                 "20000", "--seed", "3", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    first = answer["rows"][0]
    assert abs(first["p"] - 22840 / 25757) <= 4 * first["standard_error"]
    assert main(["query", "models/chair.bn", "P(C | A=T)", "--samples", "10"]) == 2
    assert "--samples set(s) an approximate method" in capsys.readouterr().err
    assert main(["query", "models/chair.bn", "P(C | A=T)", "--method", "lbp",
                 "--samples", "10"]) == 2
    assert "method 'lbp' has no setting 'samples'" in capsys.readouterr().err


def test_a_memory_refusal_names_the_approximate_methods(memory_limit):
    # a 6 × 6 grid of 10-state variables: exact inference needs cliques of 10⁷ entries
    rng = np.random.default_rng(0)
    net = bbn.MarkovNetwork("grid")
    names = [[f"V{r}{c}" for c in range(6)] for r in range(6)]
    for row in names:
        for v in row:
            net.add_variable(v, [str(i) for i in range(10)])
    for r in range(6):
        for c in range(6):
            for other in ([names[r][c + 1]] if c < 5 else []) + ([names[r + 1][c]] if r < 5
                                                                 else []):
                net.add_factor([names[r][c], other], 1 + 0.1 * rng.random((10, 10)))
    memory_limit(4 << 20)
    with pytest.raises(bbn.MemoryLimitError, match="method='lbp'"):
        net.posteriors()
    lbp = net.posterior("V00", method="lbp")
    assert lbp.report.converged and math.isclose(float(lbp.values.sum()), 1.0)
    assert np.abs(lbp.values - 0.1).max() < 0.01  # weak couplings: near uniform


def test_the_competition_command_answers_approximately(tmp_path, capsys):
    evidence = tmp_path / "chair.evid"
    evidence.write_text("1 4 0\n")  # A (variable 4) = T (state 0)
    assert main(["uai", "models/chair.bn", "--evid", str(evidence), "--task", "PR"]) == 0
    exact = float(capsys.readouterr().out.split()[1])
    assert exact == pytest.approx(math.log10(0.206056), abs=1e-6)
    # the chair network is a polytree: loopy BP's Bethe log Z is exact there
    assert main(["uai", "models/chair.bn", "--evid", str(evidence), "--task", "PR",
                 "--method", "lbp"]) == 0
    assert float(capsys.readouterr().out.split()[1]) == pytest.approx(exact, abs=1e-6)
    assert main(["uai", "models/chair.bn", "--evid", str(evidence), "--task", "MAR",
                 "--method", "is", "--samples", "5000", "-o", str(tmp_path / "r.MAR")]) == 0
    from bbn.tasks.competition import read_result

    marginals = read_result((tmp_path / "r.MAR").read_text()).marginals
    assert abs(marginals["X0"][0] - 22840 / 25757) < 0.02  # C, within a few standard errors
    assert all(p.sum() == pytest.approx(1.0, abs=1e-5) for p in marginals.values())
    assert main(["uai", "models/chair.bn", "--task", "MPE"]) == 0
    exact_mpe = capsys.readouterr().out
    assert main(["uai", "models/chair.bn", "--task", "MPE", "--method", "gibbs"]) == 0
    assert capsys.readouterr().out == exact_mpe

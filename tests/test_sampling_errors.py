"""The samplers' errors against exact answers over many states and seeds, not one run.

Errors shrink as 1/√n: four times the samples halve the root-mean-square error over every
state of a network and several seeds, for likelihood weighting, importance sampling and
Gibbs (a random polytree, where the chains mix, and alarm from the shared networks, where
many barely move). Gibbs's standard errors are honest where the chains cannot move: a
rare state of probability 0.047 behind a deterministic copy (win95pts's DS_LCLOK, 4.8 SE
off with 100 chains of 200 sweeps) is within 4 SE in every seed and its z-scores spread
as a normal's; Gibbs takes more chains only where its chains barely move, and never for
a joint question (its counts are kept per chain).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_approximate import graph_and_evidence, loop_markov_network, polytree

import bbn
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.methods import APPROXIMATE_METHODS
from bbn.views.factor_graph import FactorGraph


def _rms_error(net: bbn.Network, evidence: dict[str, str], kind: str, samples: int,
               seeds: int = 8) -> float:
    """√(mean squared error) over every unobserved state and ``seeds`` seeds."""
    graph, coded = graph_and_evidence(net, evidence)
    exact = net.posteriors(evidence)
    squares = []
    for seed in range(seeds):
        result = APPROXIMATE_METHODS[kind](samples=samples, seed=seed).run(graph, coded)
        squares += [(result.probabilities[v] - exact[v].values) ** 2
                    for v in net.variables if v not in evidence]
    return float(np.sqrt(np.concatenate(squares).mean()))


@pytest.mark.parametrize("kind", ["lw", "is", "gibbs"])
def test_errors_halve_with_four_times_the_samples_on_a_polytree(kind):
    net = polytree(11)
    evidence = {"X8": "s0", "X5": "s1"}
    ratio = _rms_error(net, evidence, kind, 2_000) / _rms_error(net, evidence, kind, 8_000)
    assert ratio == pytest.approx(2.0, abs=0.4)


@pytest.mark.parametrize("kind", ["lw", "is", "gibbs"])
def test_errors_halve_with_four_times_the_samples_on_alarm(shared, kind):
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    evidence = {"HRBP": "HIGH", "PAP": "NORMAL"}
    ratio = (_rms_error(net, evidence, kind, 2_000, seeds=4)
             / _rms_error(net, evidence, kind, 8_000, seeds=4))
    assert ratio == pytest.approx(2.0, abs=0.4)


def _stuck_copy(rare: float) -> FactorGraph:
    """A → B → C with B a copy of A: Gibbs never moves A or B, so each chain is one
    sample of A, and P(C = 1) = (1 − rare)·0.05 + rare·0.9."""
    child = np.array([[0.95, 0.05], [0.1, 0.9]])
    return FactorGraph(("A", "B", "C"), (("0", "1"),) * 3, ((0,), (0, 1), (1, 2)),
                       (np.array([1 - rare, rare]), np.eye(2), child), (0, 1, 2))


def test_gibbs_standard_errors_are_honest_where_the_chains_cannot_move():
    rare = 0.047
    graph = _stuck_copy(rare)
    exact = {"A": rare, "C": (1 - rare) * 0.05 + rare * 0.9}
    z = {v: [] for v in exact}
    for seed in range(20):
        result = Gibbs(samples=10_000, seed=seed).run(graph, {})
        for v, p in exact.items():
            z[v].append(abs(result.probabilities[v][1] - p) / result.standard_errors[v][1])
    for v in exact:
        assert max(z[v]) <= 4, v
        # honest, not wide: a normal's median |z| is 0.674
        assert 0.4 <= float(np.median(z[v])) <= 1.0, v


def test_gibbs_takes_more_chains_only_where_they_barely_move(chair):
    stuck = Gibbs(samples=20_000, seed=1).run(_stuck_copy(0.047), {})
    assert stuck.report.samples // stuck.report.iterations == 20_000 // 20
    graph, coded = graph_and_evidence(chair, {"A": "T"})
    mixing = Gibbs(samples=20_000, seed=1).run(graph, coded)
    assert mixing.report.samples // mixing.report.iterations == 100
    # a Markov network's chains start uniformly, not from the posterior: never more
    markov = Gibbs(samples=20_000, seed=1).run(loop_markov_network(), {})
    assert markov.report.samples // markov.report.iterations == 100
    # a budget of 20 sweeps per chain or fewer keeps the chains it was given
    short = Gibbs(samples=2_000, seed=1).run(_stuck_copy(0.047), {})
    assert short.report.samples // short.report.iterations == 100


def test_a_joint_question_keeps_its_chains_and_stays_within_4_standard_errors():
    # joint counts are kept per chain of ``chains``: the run does not add chains there
    net = bbn.Network()
    net.add_variable("A", ["0", "1"], table=[0.953, 0.047])
    net.add_variable("B", ["0", "1"], parents=["A"], table=np.eye(2))
    net.add_variable("C", ["0", "1"], parents=["B"], table=[[0.95, 0.05], [0.1, 0.9]])
    joint = net.posterior(["A", "C"], method=Gibbs(samples=20_000, seed=1))
    assert joint.report.samples // joint.report.iterations == 100
    exact = np.array([[0.953 * 0.95, 0.953 * 0.05], [0.047 * 0.1, 0.047 * 0.9]])
    error = np.abs(joint.values - exact)
    assert np.all(error <= 4 * joint.standard_error)

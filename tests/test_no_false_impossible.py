"""No approximate method claims impossible evidence it has not proved.

Only exact inference, or propagating the tables' zeros (generalised arc consistency,
:mod:`bbn.engines.approximate.supports`), may raise ImpossibleEvidenceError; an approximate
method that finds no answer (loopy BP's messages underflowing to all-zero beliefs) raises
NoAnswerError, and ``bbn`` exits 1 with that message. Checked against the brute-force
joint on random networks with zeros and deterministic rows, on a network built to make
loopy BP's messages underflow, and on the shared pedigree-linkage instances.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from brute_force import joint_array
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import evidence_for, networks

import bbn
from bbn.apps.cli.main import main
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import LoopyBP
from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
from bbn.engines.approximate.mini_buckets import MiniBucketSampler
from bbn.engines.approximate.supports import supported_states
from bbn.io.formats import read_text
from bbn.questions import dispatch
from bbn.tasks.competition import read_evidence

METHODS = [LoopyBP(), Gibbs(samples=400, chains=20, burn_in=10),
           LikelihoodWeighting(samples=300), ImportanceSampling(samples=300),
           MiniBucketSampler(samples=300, largest=4)]


def coded(graph, evidence: dict[str, str]) -> dict[int, int]:
    return {graph.index(v): graph.states[graph.index(v)].index(s) for v, s in evidence.items()}


def evidence_probability(net: bbn.Network, evidence: dict[str, str]) -> float:
    joint = joint_array(net)
    index = tuple(net.states(v).index(evidence[v]) if v in evidence else slice(None)
                  for v in net.variables)
    return float(joint[index].sum())


@settings(max_examples=40, deadline=None)
@given(data=st.data(), net=networks(max_variables=7, max_states=3))
def test_an_approximate_method_says_impossible_only_when_it_is(data, net):
    evidence = data.draw(evidence_for(net))
    possible = evidence_probability(net, evidence) > 0
    graph = dispatch.factor_graph(net)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in METHODS:
            try:
                method.run(graph, coded(graph, evidence))
            except bbn.ImpossibleEvidenceError:
                assert not possible, (type(method).__name__, evidence)
            except bbn.NoAnswerError:
                pass  # an approximate method may find no answer
            else:
                assert possible, (type(method).__name__, evidence)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), net=networks(max_variables=7, max_states=3))
def test_propagating_the_zeros_keeps_every_possible_state(data, net):
    """Sound: a state of positive probability given e is never pruned, and a domain
    empties only when P(e) = 0."""
    evidence = data.draw(evidence_for(net))
    graph = dispatch.factor_graph(net)
    joint = joint_array(net)
    index = tuple(net.states(v).index(evidence[v]) if v in evidence else slice(None)
                  for v in net.variables)
    sliced = joint[index]
    try:
        domains = supported_states(graph, coded(graph, evidence))
    except bbn.ImpossibleEvidenceError:
        assert sliced.sum() == 0
        return
    free = [v for v in net.variables if v not in evidence]
    for axis, v in enumerate(free):
        marginal = sliced.sum(axis=tuple(a for a in range(len(free)) if a != axis))
        assert not (marginal > 0)[~domains[graph.index(v)]].any(), v


def underflowing_network() -> bbn.MarkovNetwork:
    """X = Y and X = W, where Y = 1 and W = 0 each cost 1e-400 (two factors of 1e-200):
    loopy BP's variable-to-factor messages underflow to one-hot, so X's two incoming
    messages are [1, 0] and [0, 1] and its belief vanishes; exactly, X is 0 or 1 with
    probability 1/2 each (Z = 2·1e-400·4, log Z = −918.95)."""
    net = bbn.MarkovNetwork("underflow")
    for v in "XYWUV":
        net.add_variable(v, ["0", "1"])
    tiny = 1e-200
    net.add_factor(["Y", "U"], [[1, 1], [tiny, tiny]])
    net.add_factor(["Y", "V"], [[1, 1], [tiny, tiny]])
    net.add_factor(["W", "U"], [[tiny, tiny], [1, 1]])
    net.add_factor(["W", "V"], [[tiny, tiny], [1, 1]])
    net.add_factor(["X", "Y"], [[1, 0], [0, 1]])
    net.add_factor(["X", "W"], [[1, 0], [0, 1]])
    return net


def test_underflowing_messages_are_no_answer_not_impossible(tmp_path, capsys):
    net = underflowing_network()
    np.testing.assert_allclose(net.posteriors()["X"].values, [0.5, 0.5], atol=1e-12)
    assert net.log_partition() == pytest.approx(np.log(8) - 400 * np.log(10), abs=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(bbn.NoAnswerError, match="left no state of 'X'.*does not show"):
            net.posteriors(method="lbp")
        with pytest.raises(bbn.NoAnswerError):
            dispatch.log_partition(net, {}, "lbp")
    path = tmp_path / "underflow.uai"  # variables X0 ... X4 in file order: X is X0
    bbn.save(net, path)
    assert main(["query", str(path), "P(X0)", "--method", "lbp"]) == 1
    assert "gave no answer" in capsys.readouterr().err


def test_impossible_evidence_is_still_proved_by_the_zeros():
    net = underflowing_network()
    with pytest.raises(bbn.ImpossibleEvidenceError, match="propagating the tables' zeros"):
        supported_states(dispatch.factor_graph(net), {0: 0, 1: 1})  # X = 0, Y = 1


@pytest.mark.parametrize("name", ["linkage_12", "linkage_14", "linkage_16", "linkage_17",
                                  "Pedigree_11", "Segmentation_11"])
def test_the_deterministic_instances_keep_their_answers(shared, name):
    """The zeros of the shared deterministic instances prove nothing impossible (their
    reference marginals are answers); every state the references give a positive
    probability is kept."""
    folder = shared / "uai2014" / "MAR"
    net = bbn.load(folder / f"{name}.uai.gz")
    evidence = read_evidence(read_text(folder / f"{name}.uai.evid.gz"), net)
    graph = dispatch.factor_graph(net)
    domains = supported_states(graph, coded(graph, evidence))
    reference = read_text(folder / f"{name}.uai.MAR.gz").split()[2:]
    at = 0
    for domain in domains:
        size = int(reference[at])
        probabilities = np.array([float(p) for p in reference[at + 1:at + 1 + size]])
        assert not (probabilities > 0)[~domain].any()
        at += 1 + size


def test_loopy_bp_on_a_linkage_instance_finds_no_answer_rather_than_impossible(shared):
    """linkage_17 (no evidence, Z > 0): loopy BP without damping leaves X0 no state —
    it used to say "impossible evidence"."""
    folder = shared / "uai2014" / "MAR"
    net = bbn.load(folder / "linkage_17.uai.gz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(bbn.NoAnswerError, match="gave no answer"):
            net.posteriors(method="lbp")

"""The approximate engines against exact answers: loopy belief propagation exact on trees
(polytree networks against the junction tree, Markov trees against the full joint) and
close on loops; the samplers within 4 standard errors of the exact posteriors, their
standard errors shrinking as 1/√n, reproducible by seed; Gibbs sampling on a Markov
network with a loop against brute-force enumeration; log Z estimates against exact
log P(e); and every error the engines raise."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import bbn
from bbn.core.errors import (
    ImpossibleEvidenceError,
    MemoryLimitError,
    ModelError,
    NoMatchingSampleError,
    QueryError,
)
from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import ConvergenceWarning, LoopyBP
from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
from bbn.engines.approximate.methods import APPROXIMATE_METHODS, approximate_method
from bbn.views.factor_graph import FactorGraph

SAMPLERS = [LikelihoodWeighting(samples=20_000, seed=1), ImportanceSampling(samples=20_000, seed=1),
            Gibbs(samples=20_000, seed=1)]


# ------------------------------------------------------------------ helpers
def polytree(seed: int, n: int = 9) -> bbn.Network:
    """A random polytree: a random tree skeleton, each edge directed at random."""
    rng = np.random.default_rng(seed)
    parents: dict[int, list[int]] = {i: [] for i in range(n)}
    for i in range(1, n):
        j = int(rng.integers(i))
        if rng.random() < 0.5:
            parents[i].append(j)
        else:
            parents[j].append(i)
    cards = rng.integers(2, 4, size=n)
    net = bbn.Network()
    added: set[int] = set()
    while len(added) < n:
        for i in range(n):
            if i not in added and all(p in added for p in parents[i]):
                shape = (*(cards[p] for p in parents[i]), cards[i])
                table = rng.dirichlet(np.ones(cards[i]), size=int(np.prod(shape[:-1])))
                net.add_variable(f"X{i}", [f"s{k}" for k in range(cards[i])],
                                 parents=[f"X{p}" for p in parents[i]],
                                 table=table.reshape(shape))
                added.add(i)
    return net


def graph_and_evidence(net: bbn.Network, evidence: dict[str, str]):
    graph = FactorGraph.from_compiled(net.compiled())
    coded = {graph.index(v): graph.states[graph.index(v)].index(s) for v, s in evidence.items()}
    return graph, coded


def markov_joint(graph: FactorGraph) -> np.ndarray:
    """The unnormalised joint Π_k φ_k of a factor graph, one axis per variable."""
    operands: list = []
    for scope, table in zip(graph.scopes, graph.tables):
        operands += [table, list(scope)]
    return np.einsum(*operands, list(range(len(graph.variables))))


def loop_markov_network() -> FactorGraph:
    """Four variables on a loop A–B–C–D–A, a triple factor over B, C, D, and a unary one."""
    rng = np.random.default_rng(7)
    states = {"A": ["a0", "a1"], "B": ["b0", "b1", "b2"], "C": ["c0", "c1"], "D": ["d0", "d1"]}
    scopes = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("B", "C", "D"), ("A",)]
    factors = [bbn.Factor(list(s), {v: states[v] for v in s},
                          rng.uniform(0.2, 2.0, size=int(np.prod([len(states[v]) for v in s]))))
               for s in scopes]
    return FactorGraph.from_factors(list(states), states, factors)


# ------------------------------------------------------------------ loopy BP
@pytest.mark.parametrize("seed", range(6))
def test_lbp_is_exact_on_polytrees(seed):
    net = polytree(seed)
    rng = np.random.default_rng(100 + seed)
    chosen = rng.choice(net.variables, size=3, replace=False)
    evidence = {v: str(rng.choice(net.states(v))) for v in chosen}
    graph, coded = graph_and_evidence(net, evidence)
    result = LoopyBP().run(graph, coded)
    exact = net.posteriors(evidence)
    for v in net.variables:
        np.testing.assert_allclose(result.probabilities[v], exact[v].values, atol=1e-9)
    assert result.log_partition == pytest.approx(math.log(net.probability(evidence)), abs=1e-9)
    assert result.report.converged and result.report.stopped_by == "tolerance"
    assert result.report.residual < 1e-8 and result.standard_errors is None


def test_lbp_is_exact_on_the_chair_network_a_tree_of_factors(chair):
    graph, coded = graph_and_evidence(chair, {"A": "T"})
    result = LoopyBP().run(graph, coded)
    assert result.probabilities["C"][0] == pytest.approx(0.886749, abs=1e-6)  # EXAMPLES §1
    assert result.probabilities["A"].tolist() == [1.0, 0.0]


def test_lbp_is_exact_on_a_markov_chain_of_factors():
    states = {v: ["0", "1", "2"] for v in "ABCD"}
    rng = np.random.default_rng(3)
    factors = [bbn.Factor([u, v], {u: states[u], v: states[v]}, rng.uniform(0.1, 3, 9))
               for u, v in ["AB", "BC", "CD"]]
    graph = FactorGraph.from_factors("ABCD", states, factors)
    joint = markov_joint(graph)
    result = LoopyBP().run(graph, {3: 2})
    conditioned = joint[..., 2]
    for i, v in enumerate("ABC"):
        others = tuple(j for j in range(3) if j != i)
        marginal = conditioned.sum(axis=others)
        np.testing.assert_allclose(result.probabilities[v], marginal / marginal.sum(),
                                   atol=1e-12)
    assert result.log_partition == pytest.approx(math.log(conditioned.sum()), abs=1e-12)


def test_lbp_on_a_loopy_network_is_close_and_matches_pyagrum_loopy_bp(shared):
    net = bbn.load(shared / "networks" / "asia.bif.gz")
    evidence = {"dysp": "yes", "xray": "no"}
    graph, coded = graph_and_evidence(net, evidence)
    result = LoopyBP().run(graph, coded)
    exact = net.posteriors(evidence)
    errors = [np.abs(result.probabilities[v] - exact[v].values).max() for v in net.variables]
    assert 1e-6 < max(errors) < 0.05  # asia has a loop: close, not exact
    gum = pytest.importorskip("pyagrum")
    engine = gum.LoopyBeliefPropagation(_agrum(gum, net))
    engine.setEvidence(evidence)
    engine.setEpsilon(1e-12)
    engine.makeInference()
    for v in net.variables:
        np.testing.assert_allclose(result.probabilities[v], engine.posterior(v).tolist(),
                                   atol=1e-6)


def _agrum(gum, net: bbn.Network):
    """The network as a pyAgrum BayesNet (the same states and tables)."""
    bn = gum.BayesNet()
    for v in net.variables:
        bn.add(gum.LabelizedVariable(v, v, list(net.states(v))))
    for v in net.variables:
        for p in net.parents(v):
            bn.addArc(p, v)
    for v in net.variables:
        names = [*net.parents(v), v]
        table = np.asarray(net.cpt_array(v))
        order = list(bn.cpt(v).names)  # pyAgrum's axis order, reversed in numpy layout
        axes = [names.index(n) for n in reversed(order)]
        bn.cpt(v).fillWith(np.transpose(table, axes).ravel().tolist())
    return bn


def test_lbp_warns_and_reports_when_it_stops_before_converging():
    graph = loop_markov_network()
    with pytest.warns(ConvergenceWarning, match="stopped by iterations after 2 sweeps"):
        result = LoopyBP(max_iterations=2).run(graph, {})
    assert not result.report.converged and result.report.iterations == 2
    assert result.report.residual > 1e-8 and result.report.stopped_by == "iterations"


def test_lbp_with_damping_reaches_the_same_fixed_point(chair):
    graph, coded = graph_and_evidence(chair, {"A": "T", "W": "F"})
    plain, damped = LoopyBP().run(graph, coded), LoopyBP(damping=0.5).run(graph, coded)
    assert damped.report.iterations > plain.report.iterations
    for v in graph.variables:
        np.testing.assert_allclose(damped.probabilities[v], plain.probabilities[v], atol=1e-7)


# ------------------------------------------------------------------ samplers
@pytest.mark.parametrize("method", SAMPLERS, ids=lambda m: type(m).__name__)
def test_samplers_cover_the_exact_posteriors_within_4_standard_errors(chair, method):
    evidence = {"A": "T"}
    graph, coded = graph_and_evidence(chair, evidence)
    result = method.run(graph, coded)
    exact = chair.posteriors(evidence)
    for v in chair.variables:
        error = np.abs(result.probabilities[v] - exact[v].values)
        assert np.all(error <= 4 * result.standard_errors[v] + 1e-15), v
        assert np.all(error < 0.02), v
    assert result.probabilities["A"].tolist() == [1.0, 0.0]
    assert result.standard_errors["A"].tolist() == [0.0, 0.0]
    assert result.report.samples == 20_000 and result.report.stopped_by == "samples"


@pytest.mark.parametrize("method", SAMPLERS, ids=lambda m: type(m).__name__)
def test_the_same_seed_gives_the_same_answer(chair, method):
    graph, coded = graph_and_evidence(chair, {"B": "T"})
    first, second = method.run(graph, coded), method.run(graph, coded)
    other = type(method)(samples=20_000, seed=2).run(graph, coded)
    assert first.probabilities["C"].tolist() == second.probabilities["C"].tolist()
    assert first.probabilities["C"].tolist() != other.probabilities["C"].tolist()


@pytest.mark.parametrize("kind", ["lw", "is", "gibbs"])
def test_standard_errors_shrink_as_one_over_root_n(chair, kind):
    graph, coded = graph_and_evidence(chair, {"A": "T"})
    cls = APPROXIMATE_METHODS[kind]
    small = cls(samples=10_000, seed=3).run(graph, coded).standard_errors
    large = cls(samples=40_000, seed=4).run(graph, coded).standard_errors
    ratios = [large[v][0] / small[v][0] for v in "CSWB"]
    assert float(np.median(ratios)) == pytest.approx(0.5, abs=0.12)


@pytest.mark.parametrize("kind", ["lw", "is"])
def test_log_partition_estimates_log_p_of_the_evidence(chair, kind):
    evidence = {"A": "T", "W": "F"}
    graph, coded = graph_and_evidence(chair, evidence)
    result = APPROXIMATE_METHODS[kind](samples=50_000).run(graph, coded)
    exact = math.log(chair.probability(evidence))
    # the delta method: SE(log Ŵ/n) ≈ 1/√n_eff · sd(w)/mean(w) ≤ ~0.02 here
    assert result.log_partition == pytest.approx(exact, abs=0.02)
    assert 0 < result.report.effective_samples <= 50_000


def test_importance_sampling_weights_are_nearly_even_on_a_polytree():
    net = polytree(11)
    evidence = {"X8": "s0", "X5": "s1", "X0": "s0"}
    graph, coded = graph_and_evidence(net, evidence)
    lw = LikelihoodWeighting(samples=20_000).run(graph, coded)
    proposal = ImportanceSampling(samples=20_000).run(graph, coded)
    assert proposal.report.effective_samples > 0.9 * 20_000
    assert proposal.report.effective_samples > lw.report.effective_samples
    assert proposal.log_partition == pytest.approx(math.log(net.probability(evidence)),
                                                   abs=0.01)


def test_gibbs_on_a_markov_network_with_a_loop_matches_enumeration():
    graph = loop_markov_network()
    joint = markov_joint(graph)[:, :, :, 1]  # D = d1
    result = Gibbs(samples=40_000, seed=5).run(graph, {3: 1})
    for i, v in enumerate("ABC"):
        others = tuple(j for j in range(3) if j != i)
        marginal = joint.sum(axis=others) / joint.sum()
        error = np.abs(result.probabilities[v] - marginal)
        assert np.all(error <= 4 * result.standard_errors[v]), v
        assert np.all(error < 0.01), v
    assert result.probabilities["D"].tolist() == [0.0, 1.0]
    assert result.log_partition is None and result.report.samples == 40_000


def _copy_chain(prior_rare: float, child: np.ndarray) -> FactorGraph:
    """A → B → C with B a copy of A (Gibbs never moves A or B) and P(C | B) = ``child``."""
    return FactorGraph(("A", "B", "C"), (("0", "1"),) * 3, ((0,), (0, 1), (1, 2)),
                       (np.array([1 - prior_rare, prior_rare]), np.eye(2), child), (0, 1, 2))


def test_gibbs_standard_errors_stay_honest_where_the_chains_cannot_move():
    # no chain starts with A = 1 (P = 0.006, 100 chains, seed 1): every chain averages
    # the same conditional of C, so the chains agree to rounding; they are 100 samples
    # of A, not 2,000, and the standard error says so (it was 1.3e-16). (A budget of
    # 20 sweeps per chain: a larger one would start more chains, test_sampling_errors.)
    graph = _copy_chain(0.006, np.array([[0.95, 0.05], [0.1, 0.9]]))
    result = Gibbs(samples=2_000, seed=1).run(graph, {})
    assert result.report.samples // result.report.iterations == 100
    exact = 0.994 * 0.05 + 0.006 * 0.9
    se = result.standard_errors["C"][1]
    assert se >= 0.02  # the floor with 100 samples: √((p(1 − p) + 1/100)/100) = 0.024
    assert abs(result.probabilities["C"][1] - exact) <= 4 * se


def test_gibbs_chains_start_from_the_importance_proposal_under_unlikely_evidence():
    # P(A = 1) = 1e-4, and C = 1 is 10,000 times likelier when B (= A) is 1: P(A = 1 |
    # C = 1) = 0.497. Likelihood-weighted starts would almost never draw A = 1, and the
    # chains could not reach it; loopy BP's proposal draws it about half the time.
    graph = _copy_chain(1e-4, np.array([[1 - 1e-4, 1e-4], [0.01, 0.99]]))
    exact = 0.99e-4 / (0.99e-4 + 0.9999e-4)
    result = Gibbs(samples=20_000, seed=0).run(graph, {2: 1})
    p, se = result.probabilities["A"][1], result.standard_errors["A"][1]
    assert abs(p - exact) <= 4 * se
    assert 0.3 < p < 0.7


def test_lbp_on_the_loop_markov_network_is_close_to_enumeration():
    graph = loop_markov_network()
    joint = markov_joint(graph)
    result = LoopyBP().run(graph, {})
    marginal = joint.sum(axis=(1, 2, 3)) / joint.sum()
    assert np.abs(result.probabilities["A"] - marginal).max() < 0.05
    assert result.log_partition == pytest.approx(math.log(joint.sum()), abs=0.1)


# ------------------------------------------------------------------ registry and settings
def test_the_registry_gives_default_settings_and_passes_instances_through():
    assert approximate_method("lbp") == LoopyBP()
    assert approximate_method(" Gibbs ") == Gibbs()
    tuned = LikelihoodWeighting(samples=7)
    assert approximate_method(tuned) is tuned
    assert set(APPROXIMATE_METHODS) == {"lbp", "lw", "is", "gibbs"}


def test_an_unknown_method_suggests_the_closest_name():
    with pytest.raises(QueryError, match=r"'lwb'.*did you mean 'lw'"):
        approximate_method("lwb")
    with pytest.raises(QueryError, match="not 3"):
        approximate_method(3)


@pytest.mark.parametrize("make, setting", [
    (lambda: LoopyBP(damping=1.0), "damping"),
    (lambda: LoopyBP(tolerance=-1), "tolerance"),
    (lambda: LoopyBP(max_iterations=0), "max_iterations"),
    (lambda: LoopyBP(time_budget=0), "time_budget"),
    (lambda: LikelihoodWeighting(samples=0), "samples"),
    (lambda: LikelihoodWeighting(samples=True), "samples"),
    (lambda: ImportanceSampling(seed=-1), "seed"),
    (lambda: ImportanceSampling(mixing=0), "mixing"),
    (lambda: ImportanceSampling(mixing=1.5), "mixing"),
    (lambda: Gibbs(chains=1), "chains"),
    (lambda: Gibbs(burn_in=-1), "burn_in"),
    (lambda: Gibbs(time_budget="1s"), "time_budget"),
])
def test_bad_settings_name_the_setting(make, setting):
    with pytest.raises(QueryError, match=setting):
        make()


# ------------------------------------------------------------------ errors
def rare_cause_network() -> bbn.Network:
    """A root with P(A = yes) = 1e-9 and B = A: B = yes is possible but never sampled."""
    net = bbn.Network()
    net.add_variable("A", ["yes", "no"], table=[1e-9, 1 - 1e-9])
    net.add_variable("B", ["yes", "no"], parents=["A"], table=[[1.0, 0.0], [0.0, 1.0]])
    return net


def test_evidence_no_sample_matched_is_said_with_another_method_suggested():
    net = rare_cause_network()
    graph, coded = graph_and_evidence(net, {"B": "yes"})
    with pytest.raises(NoMatchingSampleError, match=r"all 1000 weights were 0.*method='is'"):
        LikelihoodWeighting(samples=1000).run(graph, coded)
    # the loopy-BP proposal draws A = yes with probability 0.9 (the other 0.1 is the
    # prior's share, weight 0): the mean weight's relative SE is √(0.1/(0.9·1000)) = 0.011
    result = ImportanceSampling(samples=1000).run(graph, coded)
    assert result.probabilities["A"][0] == pytest.approx(1.0)
    assert result.log_partition == pytest.approx(math.log(1e-9), abs=0.045)
    assert result.report.effective_samples > 850


@pytest.mark.parametrize("kind", ["lbp", "lw", "is", "gibbs"])
def test_evidence_with_a_zero_table_row_is_impossible_at_once(kind):
    net = bbn.Network()
    net.add_variable("A", ["yes", "no"], table=[0.3, 0.7])
    net.add_variable("B", ["yes", "no"], parents=["A"], table=[[1.0, 0.0], [1.0, 0.0]])
    graph, coded = graph_and_evidence(net, {"B": "no"})
    with pytest.raises(ImpossibleEvidenceError, match="P\\(B=no\\) = 0"):
        approximate_method(kind).run(graph, coded)


def test_lbp_finds_impossible_evidence_spread_over_a_tree():
    net = bbn.Network()
    net.add_variable("A", ["yes", "no"], table=[0.5, 0.5])
    net.add_variable("B", ["yes", "no"], parents=["A"], table=[[1.0, 0.0], [0.0, 1.0]])
    net.add_variable("C", ["yes", "no"], parents=["A"], table=[[1.0, 0.0], [0.0, 1.0]])
    graph, coded = graph_and_evidence(net, {"B": "yes", "C": "no"})
    # the messages leave A no state, and propagating the zeros proves it
    with pytest.raises(ImpossibleEvidenceError, match="no state of 'A' is left by the zeros"):
        LoopyBP().run(graph, coded)


@pytest.mark.parametrize("kind", ["lw", "is"])
def test_forward_samplers_refuse_a_markov_network(kind):
    with pytest.raises(ModelError, match="Markov network use method='gibbs' or 'lbp'"):
        APPROXIMATE_METHODS[kind](samples=10).run(loop_markov_network(), {})


def test_evidence_out_of_range_is_a_query_error(chair):
    graph = FactorGraph.from_compiled(chair.compiled())
    with pytest.raises(QueryError, match="'A' state index 2; it has 2 states"):
        LoopyBP().run(graph, {4: 2})
    with pytest.raises(QueryError, match="variable index 9"):
        Gibbs(samples=10).run(graph, {9: 0})


def test_a_time_budget_stops_between_batches(chair):
    graph, coded = graph_and_evidence(chair, {"A": "T"})
    result = LikelihoodWeighting(samples=10**9, time_budget=1e-6).run(graph, coded)
    assert result.report.stopped_by == "time" and result.report.samples == 10_000
    gibbs = Gibbs(samples=10**9, time_budget=1e-6, burn_in=0).run(graph, coded)
    assert gibbs.report.stopped_by == "time" and gibbs.report.samples == 100
    burnt = Gibbs(samples=10**9, time_budget=1e-6, burn_in=5).run(graph, coded)
    assert burnt.report.samples == 100  # burn-in cut at the budget, one sweep kept
    assert burnt.report.stopped_by == "time"
    assert burnt.probabilities["C"].sum() == pytest.approx(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lbp = LoopyBP(time_budget=1e-9, damping=0.9).run(graph, coded)
    assert lbp.report.stopped_by == "time" and lbp.report.iterations == 1


def test_samplers_check_the_memory_limit_first(chair, memory_limit):
    graph, coded = graph_and_evidence(chair, {"A": "T"})
    memory_limit(1000)
    with pytest.raises(MemoryLimitError, match="a batch of 10000 samples"):
        LikelihoodWeighting().run(graph, coded)
    with pytest.raises(MemoryLimitError, match="Gibbs chains"):
        Gibbs().run(graph, coded)


@pytest.mark.parametrize("kind", ["lbp", "lw", "is", "gibbs"])
def test_every_variable_observed_gives_the_evidence_and_its_probability(chair, kind):
    evidence = {"C": "T", "S": "F", "W": "T", "B": "F", "A": "T"}
    graph, coded = graph_and_evidence(chair, evidence)
    result = APPROXIMATE_METHODS[kind](samples=100).run(graph, coded) if kind != "lbp" \
        else LoopyBP().run(graph, coded)
    assert result.probabilities["S"].tolist() == [0.0, 1.0]
    if kind != "gibbs":
        assert result.log_partition == pytest.approx(math.log(chair.probability(evidence)))


def test_a_variable_in_no_factor_is_uniform():
    graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1", "2")), ((0,),),
                        (np.array([1.0, 3.0]),))
    lbp, gibbs = LoopyBP().run(graph, {}), Gibbs(samples=200).run(graph, {})
    assert lbp.probabilities["B"].tolist() == pytest.approx([1 / 3] * 3)
    assert gibbs.probabilities["B"].tolist() == pytest.approx([1 / 3] * 3)
    assert lbp.log_partition == pytest.approx(math.log(4.0 * 3))

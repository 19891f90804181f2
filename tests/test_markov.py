"""Markov networks: every exact answer against the product of the factors, enumerated."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from brute_force import BruteForce

import bbn
from bbn.engines.exact import clique_building, propagation
from bbn.io.formats import uai


def random_markov(seed: int, zeros: bool = False) -> bbn.MarkovNetwork:
    """4 to 6 variables of 2 or 3 states, a factor on every variable and 3 to 6 factors
    over 2 or 3 of them (loops, so elimination must fill in); with ``zeros``, about a
    tenth of the entries are 0."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork(f"random{seed}")
    names = [f"V{i}" for i in range(rng.integers(4, 7))]
    for v in names:
        net.add_variable(v, [f"s{j}" for j in range(rng.integers(2, 4))])
    scopes = [[v] for v in names[:-1]]  # the last variable is in pairs only (or in none)
    scopes += [list(rng.choice(names, size=rng.integers(2, 4), replace=False))
               for _ in range(rng.integers(3, 7))]
    for scope in scopes:
        values = rng.gamma(1.0, 2.0, size=[net.cardinality(v) for v in scope])
        if zeros:
            values[rng.random(values.shape) < 0.1] = 0.0
        net.add_factor(scope, values)
    return net


def some_evidence(net: bbn.MarkovNetwork, seed: int) -> dict[str, str]:
    rng = np.random.default_rng(seed + 1000)
    chosen = rng.choice(net.variables, size=rng.integers(0, 3), replace=False)
    return {str(v): net.states(str(v))[rng.integers(net.cardinality(str(v)))] for v in chosen}


@pytest.mark.parametrize("seed", range(12))
def test_posteriors_and_partition_functions_equal_enumeration(seed):
    net = random_markov(seed)
    oracle = BruteForce(net)
    evidence = some_evidence(net, seed)
    z, z_e = oracle.p_evidence({}), oracle.p_evidence(evidence)
    assert net.log_partition() == pytest.approx(math.log(z), rel=1e-12, abs=1e-12)
    assert net.log_partition(evidence) == pytest.approx(math.log(z_e), rel=1e-12, abs=1e-12)
    assert net.log10_partition(evidence) == pytest.approx(math.log10(z_e), rel=1e-12, abs=1e-12)
    assert net.probability(evidence) == pytest.approx(z_e / z, rel=1e-12)
    marginals = net.posteriors(evidence)
    assert list(marginals) == list(net.variables)
    for v in net.variables:
        expected = oracle.posterior([v], evidence)
        np.testing.assert_allclose(marginals[v].values, expected, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(net.posterior(v, evidence).values, expected, rtol=1e-10,
                                   atol=1e-14)
    pair = list(net.variables[:2])
    np.testing.assert_allclose(net.posterior(pair, evidence).values,
                               oracle.posterior(pair, evidence), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_map_and_mpe_equal_enumeration(seed):
    net = random_markov(seed)
    oracle = BruteForce(net)
    evidence = some_evidence(net, seed)
    free = [v for v in net.variables if v not in evidence]
    table = oracle.posterior(free, evidence)
    best = np.unravel_index(np.argmax(table), table.shape)
    assignment, p = net.mpe(evidence)
    assert assignment == {v: net.states(v)[i] for v, i in zip(free, best)}
    assert p == pytest.approx(table.max(), rel=1e-10)
    chosen = free[:2]
    marginal = oracle.posterior(chosen, evidence)
    assignment, p = net.map(chosen, evidence)
    assert p == pytest.approx(marginal.max(), rel=1e-10)
    assert marginal[tuple(net.states(v).index(assignment[v]) for v in chosen)] == pytest.approx(p)


@pytest.mark.parametrize("seed", range(6))
def test_zero_entries_and_impossible_evidence(seed):
    net = random_markov(seed, zeros=True)
    oracle = BruteForce(net)
    for values in itertools.islice(itertools.product(*(net.states(v) for v in
                                                       net.variables[:2])), 6):
        evidence = dict(zip(net.variables[:2], values))
        z_e = oracle.p_evidence(evidence)
        if z_e == 0:
            assert net.log_partition(evidence) == -math.inf
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.posteriors(evidence)
            with pytest.raises(bbn.ImpossibleEvidenceError):
                net.posterior(net.variables[-1], evidence)
        else:
            assert net.log_partition(evidence) == pytest.approx(math.log(z_e), rel=1e-12,
                                                                abs=1e-12)
            expected = oracle.posterior([net.variables[-1]], evidence)
            np.testing.assert_allclose(net.posteriors(evidence)[net.variables[-1]].values,
                                       expected, rtol=1e-10, atol=1e-14)


def test_an_all_zero_factor_has_no_answer():
    net = bbn.MarkovNetwork()
    net.add_variable("A", ["0", "1"])
    net.add_factor(["A"], [0.0, 0.0])
    assert net.log_partition() == -math.inf
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posterior("A")


def test_a_variable_in_no_factor_counts_its_states_in_z():
    net = bbn.MarkovNetwork()
    net.add_variable("A", ["0", "1"])
    net.add_variable("B", ["0", "1", "2"])
    net.add_factor(["A"], [1.0, 4.0])
    assert math.exp(net.log_partition()) == pytest.approx(15.0, rel=1e-14)  # (1 + 4) · 3
    assert net.posterior("B").values.tolist() == pytest.approx([1 / 3] * 3, rel=1e-14)


def test_a_bayesian_network_as_a_markov_network_answers_the_same():
    net = bbn.load("models/chair.bn")
    markov = net.to_markov()
    assert isinstance(markov, bbn.MarkovNetwork) and len(markov.factors) == 5
    assert markov.log_partition() == pytest.approx(0.0, abs=1e-15)  # Z = 1
    # the course's 22840/25757 (EXAMPLES.md), and log P(e) the Bayesian network's own
    assert markov.probability({"C": "T"}, {"A": "T"}) == pytest.approx(22840 / 25757, rel=1e-12)
    assert markov.log_partition({"A": "T"}) == pytest.approx(net.log_probability({"A": "T"}),
                                                             rel=1e-12)
    for v, factor in net.posteriors({"A": "T", "W": "F"}).items():
        np.testing.assert_allclose(markov.posteriors({"A": "T", "W": "F"})[v].values,
                                   factor.values, rtol=1e-12)
    (assignment, p), (expected, q) = markov.mpe({"A": "T"}), net.mpe({"A": "T"})
    assert assignment == expected and p == pytest.approx(q, rel=1e-12)
    assert net.to_markov() == markov


def test_the_query_language_and_the_command_line_answer_markov_networks(tmp_path):
    from bbn.apps.cli.main import main

    net = random_markov(3)
    oracle = BruteForce(net)
    v, w = net.variables[0], net.variables[1]
    state = net.states(w)[1]
    expected = oracle.posterior([v], {w: state})
    np.testing.assert_allclose(net.query(f"P({v} | {w}={state})").values, expected, rtol=1e-10)
    path = tmp_path / "m.uai"
    bbn.save(net, path)
    loaded = bbn.load(path)
    assert isinstance(loaded, bbn.MarkovNetwork)
    first = loaded.variables[0]  # UAI keeps no names: X0, X1, ...
    assert loaded.probability({first: "0"}) == pytest.approx(
        net.probability({v: net.states(v)[0]}), rel=1e-12)
    assert main(["query", str(path), "P(X0=0 | X1=1)", "--json"]) == 0
    assert main(["info", str(path)]) == 0
    assert main(["check", str(path)]) == 0


def test_uai_markov_files_round_trip_every_number():
    net = random_markov(5, zeros=True)
    text = uai.write(net)
    assert text.startswith("MARKOV\n")
    again = uai.read(text, "m.uai")
    assert [f.variables for f in again.factors] == [
        tuple(f"X{net.variables.index(v)}" for v in f.variables) for f in net.factors]
    for a, b in zip(again.factors, net.factors):
        assert np.array_equal(a.values, b.values)
    assert uai.write(again) == text


@pytest.mark.parametrize("build, message", [
    (lambda n: n.add_factor(["A", "Q"], [1, 2, 3, 4]),
     "factor over ['A', 'Q']: unknown variable 'Q'"),
    (lambda n: n.add_factor(["A", "A"], [1, 2, 3, 4]), "factor over ['A', 'A']: a variable "
                                                       "appears twice"),
    (lambda n: n.add_factor(["A", "B"], [1, 2, 3]), "factor over ['A', 'B']: 3 values for 4 "
                                                    "configurations (shape (2, 2))"),
    (lambda n: n.add_factor(["A", "B"], [1, -2, 3, 4]),
     "factor over ['A', 'B']: entry (A=0, B=1) is -2.0; factors take finite numbers ≥ 0"),
    (lambda n: n.add_factor(["B"], [1, float("nan")]),
     "factor over ['B']: entry (B=1) is nan; factors take finite numbers ≥ 0"),
    (lambda n: n.add_variable("A", ["x"]), "variable 'A' already exists"),
    (lambda n: n.add_variable("C", ["x", "x"]), "variable 'C' lists state(s) ['x'] more than "
                                                "once"),
])
def test_bad_factors_and_variables_are_refused_clearly(build, message):
    net = bbn.MarkovNetwork()
    net.add_variable("A", ["0", "1"])
    net.add_variable("B", ["0", "1"])
    with pytest.raises(bbn.ModelError) as error:
        build(net)
    assert str(error.value).startswith(message)
    assert len(net.factors) == 0  # nothing half-added


def test_markov_networks_save_only_as_uai(tmp_path):
    with pytest.raises(bbn.FormatError, match="cannot express a Markov network"):
        bbn.save(random_markov(0), tmp_path / "m.bif")
    assert not (tmp_path / "m.bif").exists()


def test_uai_markov_reader_locates_a_negative_entry():
    with pytest.raises(bbn.ParseError) as error:
        uai.read("MARKOV\n1\n2\n1\n1 0\n2\n0.5 -1\n", "m.uai")
    assert str(error.value).splitlines()[0] == (
        "m.uai:7:5: factor 0 has a negative entry (factors take numbers ≥ 0), found '-1'")


def test_explanations_are_refused_for_markov_networks_not_written_wrong():
    from bbn.tasks.explain import explain

    with pytest.raises(bbn.QueryError, match="a Markov network's are not written yet"):
        explain(random_markov(1), "P(V0)")


def grid_markov(rows: int, columns: int, seed: int, zero_edge: bool = False
                ) -> bbn.MarkovNetwork:
    """An Ising-like grid of binary variables: a random factor on every variable and on
    every edge (the last edge all zeros with ``zero_edge``); 15 variables have 32,768
    joint states, beyond the joint-table shortcut, so a junction tree answers."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork(f"grid{seed}")
    name = [[f"G{r}_{c}" for c in range(columns)] for r in range(rows)]
    for row in name:
        for v in row:
            net.add_variable(v, ["-", "+"])
            net.add_factor([v], rng.gamma(1.0, 2.0, size=2))
    edges = [(name[r][c], name[r][c + 1]) for r in range(rows) for c in range(columns - 1)]
    edges += [(name[r][c], name[r + 1][c]) for r in range(rows - 1) for c in range(columns)]
    for k, edge in enumerate(edges):
        values = rng.gamma(1.0, 2.0, size=(2, 2))
        net.add_factor(list(edge), values * 0 if zero_edge and k == len(edges) - 1 else values)
    return net


@pytest.mark.parametrize("planned", [False, True])
def test_a_junction_tree_multiplies_the_factors_in_once(monkeypatch, planned):
    # The factor nodes are observed "on" in every question: their tables are sliced when
    # the tree is compiled, so without evidence every clique is clean (solved then), and
    # with evidence only the cliques between the evidence are recomputed. ``planned``:
    # every clique multiplies its tables smallest products first (normally only cliques
    # of 4,096 entries and more do).
    if planned:
        monkeypatch.setattr(propagation, "PLAN_PRODUCTS_FROM", 1)
    net = grid_markov(3, 5, seed=7)
    oracle = BruteForce(net)
    constraints = list(net.compiled().constraints)
    assert net.engine.junction_tree(constraints).collect == []
    for evidence in ({}, {"G0_0": "+"}, {"G1_2": "-", "G2_4": "+"}):
        marginals = net.posteriors(evidence)
        for v in net.variables:
            np.testing.assert_allclose(marginals[v].values, oracle.posterior([v], evidence),
                                       rtol=1e-10, atol=1e-14)
    dirty = net.engine.junction_tree(constraints + ["G0_0"])
    assert 0 < len(dirty.collect) < len(dirty.cliques)


def test_a_zero_partition_function_in_a_junction_tree_is_impossible_evidence():
    net = grid_markov(3, 5, seed=8, zero_edge=True)
    assert net.log_partition() == -math.inf
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posteriors()
    with pytest.raises(bbn.ImpossibleEvidenceError):
        net.posteriors({"G0_0": "+"})


def test_a_tree_for_one_question_answers_where_a_kept_tree_does_not_fit(memory_limit):
    # A tree kept for later questions holds the evidence side's arrays for each call; one
    # compiled for this question's states alone slices the evidence in and keeps nothing.
    from bbn.engines.exact.junction_tree import compile_tree

    net = grid_markov(3, 5, seed=9)
    evidence = {"G1_2": "-", "G0_4": "+"}
    observed = [*net.compiled().constraints, *evidence]
    states = {v: net.states(v).index(s) for v, s in evidence.items()}
    kept = net.engine.junction_tree(observed).cost.entries()
    engine = net.engine
    tree = compile_tree(engine.network, observed, engine.normalised_tables(),
                        engine.junction_order, known=states)
    single = tree.cost.entries()
    assert single < kept
    net = grid_markov(3, 5, seed=9)  # a fresh engine: no tree kept yet
    net.engine.normalised_tables()  # the model's own tables made before the limit falls
    memory_limit(8 * (single + kept) // 2)
    marginals = net.posteriors(evidence)
    oracle = BruteForce(net)
    for v in net.variables:
        np.testing.assert_allclose(marginals[v].values, oracle.posterior([v], evidence),
                                   rtol=1e-10, atol=1e-14)
    assert net.engine.cached_trees == ()
    memory_limit(8 * tree.largest_table)  # no tree fits: not even its messages alone
    with pytest.raises(bbn.MemoryLimitError):
        net.posteriors(evidence)


def blocks_markov(blocks: int, seed: int) -> bbn.MarkovNetwork:
    """Blocks of four binary variables, each with a factor over all four, consecutive
    blocks sharing one variable: cliques of 16 entries, separators of 2."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork(f"blocks{seed}")
    names = [f"B{i}" for i in range(3 * blocks + 1)]
    for v in names:
        net.add_variable(v, ["0", "1"])
    for b in range(blocks):
        net.add_factor(names[3 * b:3 * b + 4], rng.gamma(1.0, 2.0, size=(2, 2, 2, 2)))
    return net


def test_a_tree_too_big_to_hold_its_potentials_keeps_its_messages_only(memory_limit,
                                                                       monkeypatch):
    # Hugin holds every potential (5 × 16 entries) and, solved in place while compiling
    # (no evidence beyond the factor nodes, folded in), one clique's worth more; holding
    # the messages only (4 × 2) and three cliques' worth fits a limit the first does not
    # (the cliques kept apart: small ones are merged otherwise).
    monkeypatch.setattr(clique_building, "MERGE_UP_TO", 0)
    net = blocks_markov(5, seed=3)
    constraints = list(net.compiled().constraints)
    hugin = net.engine.junction_tree(constraints).cost.entries()
    assert hugin == 5 * 16 + 16
    net = blocks_markov(5, seed=3)
    net.engine.normalised_tables()
    memory_limit(8 * (4 * 2 + 3 * 16))
    marginals = net.posteriors()
    assert net.engine.junction_tree(constraints).cost.entries() == 4 * 2 + 3 * 16
    oracle = BruteForce(net)
    for v in net.variables:
        np.testing.assert_allclose(marginals[v].values, oracle.posterior([v], {}),
                                   rtol=1e-10, atol=1e-14)
    memory_limit(1 << 30)
    net = blocks_markov(5, seed=3)
    net.engine.normalised_tables()
    memory_limit(8 * (4 * 2 + 3 * 16) - 8)
    with pytest.raises(bbn.MemoryLimitError, match="induced width 3"):
        net.posteriors()


def _grid(n: int, seed: int = 0) -> bbn.MarkovNetwork:
    """An n × n grid of 3-state variables with random pairwise factors."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork("grid")
    for i, j in itertools.product(range(n), repeat=2):
        net.add_variable(f"X{i}_{j}", ["a", "b", "c"])
    for i, j in itertools.product(range(n), repeat=2):
        if i + 1 < n:
            net.add_factor([f"X{i}_{j}", f"X{i + 1}_{j}"], rng.gamma(1, 1, (3, 3)))
        if j + 1 < n:
            net.add_factor([f"X{i}_{j}", f"X{i}_{j + 1}"], rng.gamma(1, 1, (3, 3)))
    return net


def test_marginals_by_elimination_per_variable_are_refused_when_they_would_take_hours(
        memory_limit, monkeypatch):
    from bbn.tasks import competition

    net = _grid(7)
    memory_limit(512 * 1024)  # the tree (and each elimination) needs about 0.8 MiB
    monkeypatch.setattr(competition, "FALLBACK_ENTRIES", 1000)
    with pytest.raises(bbn.MemoryLimitError, match=r"one elimination per variable instead "
                       r"would multiply about .* \(49 variables × .*--method lbp or gibbs"):
        competition.answer_task(net, "MAR")


def test_pyagrum_reads_a_markov_file_right_once_its_scopes_are_decreasing(tmp_path):
    """The benchmark's rewrite for pyAgrum (workload 13): pyAgrum 3.3.1's loadMRF fills a
    factor with the smallest variable index fastest whatever the scope's order, so it
    misreads UAI's scope "0 2 1" (last variable fastest); after ``pyagrum_markov`` every
    entry pyAgrum holds equals bbn's."""
    mrf_module = pytest.importorskip("pyagrum.markov_random_field")
    from tests.benchmarks.uai import pyagrum_markov

    net = bbn.MarkovNetwork("three")
    for v, card in zip(("X0", "X1", "X2"), (2, 3, 2)):
        net.add_variable(v, [str(s) for s in range(card)])
    table = np.arange(1.0, 13.0).reshape(2, 2, 3)  # every entry different
    net.add_factor(["X0", "X2", "X1"], table)
    text = uai.write(net)
    assert text.split()[6:10] == ["3", "0", "2", "1"]

    def entries(content: str) -> dict[tuple[int, int, int], float]:
        path = tmp_path / "model.uai"
        path.write_text(content)
        mrf = mrf_module.loadMRF(str(path))
        factor = mrf.factor({"0", "1", "2"})
        return {(a, b, c): factor[{"0": a, "2": b, "1": c}] for a, b, c in np.ndindex(2, 2, 3)}

    wanted = {index: float(table[index]) for index in np.ndindex(2, 2, 3)}
    assert entries(text) != wanted  # pyAgrum's misreading, which the rewrite works around
    assert entries(pyagrum_markov(text)) == wanted

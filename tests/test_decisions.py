"""Influence diagrams (issue 30): decisions, utilities, optimal policies, the MEU and the
value of information, checked against textbook answers, brute-force enumeration of every
policy, the course's expected risk and pyAgrum."""

from __future__ import annotations

import itertools
import json
import pathlib

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parent.parent
OIL = ROOT / "models" / "oil.bn"


@pytest.fixture(scope="module")
def oil():
    return bbn.load(OIL)


# ------------------------------------------------------------------ textbook cases
def test_oil_wildcatter_meu_with_and_without_the_seismic_test(oil):
    # Raiffa (1968), Shachter (1986): no test 0.5·(−70) + 0.3·50 + 0.2·200 = 20; with the
    # test P(closed) = .24 (EU drill 21/.24), P(open) = .35 (11.5/.35), P(diffuse) = .41
    # (−12.5: do not drill): 21 + 11.5 + 0 − 10 = 22.5.
    solution = oil.solve()
    assert solution.meu == pytest.approx(22.5)
    assert solution.reading == "perfect recall" and solution.optimal
    assert solution.best() == {"Test": "test"}
    drill = solution.policies["Drill"]
    assert drill.best(Test="test", Result="closed") == "drill"
    assert drill.best(Test="test", Result="open") == "drill"
    assert drill.best(Test="test", Result="diffuse") == "no_drill"
    assert drill.best(Test="no_test", Result="none") == "drill"
    assert oil.solve({"Test": "no_test"}).meu == pytest.approx(20.0)
    assert oil.expected_utility("Test", "no_test") == pytest.approx(20.0)
    assert oil.query("EU(Test=test)") == pytest.approx(22.5)
    assert float(oil.query("MEU( | Test=no_test)")) == pytest.approx(20.0)
    rows = {tuple(k.values()): v for k, _, v in drill.rows()}
    assert rows[("test", "closed")]["drill"] == pytest.approx(21 / 0.24 - 10)
    assert rows[("test", "diffuse")]["no_drill"] == pytest.approx(-10)


def test_oil_value_of_information(oil):
    # Oil known before drilling: 0.3·50 + 0.2·200 = 55 (and no test) → EVPI 55 − 22.5.
    assert oil.evpi("Oil", "Drill") == pytest.approx(32.5)
    assert bbn.expected_value_of_information(oil, "Oil", "Test") == pytest.approx(32.5)
    # an imperfect test: the seismic result always made, free; its value is 32.5 − 20
    free = bbn.InfluenceDiagram("free test")
    free.add_variable("Oil", ["dry", "wet", "soaking"], table=[0.5, 0.3, 0.2])
    free.add_variable("Result", ["closed", "open", "diffuse"], parents=["Oil"],
                      table=[[0.1, 0.3, 0.6], [0.3, 0.4, 0.3], [0.5, 0.4, 0.1]])
    free.add_decision("Drill", ["drill", "no_drill"])
    free.add_utility("Payoff", ["Drill", "Oil"], [[-70, 50, 200], [0, 0, 0]])
    assert free.solve().meu == pytest.approx(20.0)
    assert free.evpi("Result", "Drill") == pytest.approx(12.5)
    assert free.evpi("Oil", "Drill") == pytest.approx(35.0)  # 55 − 20
    # mutual information in bits stays under its own name
    ranked = bbn.value_of_information(free, "Oil", ["Result"])
    assert 0 < ranked[0].bits < np.log2(3)


def medical():
    """Test, then treat: P(disease) = 0.1, a test of sensitivity 0.9 and specificity 0.8
    costing 1; treating a patient with the disease is worth 100, without it −20, not
    treating one with it −100, without 0."""
    net = bbn.InfluenceDiagram("medical")
    net.add_variable("Disease", ["yes", "no"], table=[0.1, 0.9])
    net.add_decision("Test", ["test", "skip"])
    net.add_variable("Result", ["positive", "negative", "none"], parents=["Disease", "Test"],
                     table=[[[0.9, 0.1, 0], [0, 0, 1]], [[0.2, 0.8, 0], [0, 0, 1]]])
    net.add_decision("Treat", ["treat", "wait"], parents=["Result"])
    net.add_utility("Cost", ["Test"], [-1, 0])
    net.add_utility("Health", ["Disease", "Treat"], [[100, -100], [-20, 0]])
    return net


def test_medical_test_and_treat_by_hand():
    # skip: treat 0.1·100 − 0.9·20 = −8, wait −10 → −8.
    # test: positive (0.09 + 0.18 = 0.27): treat 9 − 3.6 = 5.4, wait −9 → treat;
    #       negative (0.01 + 0.72 = 0.73): treat 1 − 14.4, wait −1 → wait;
    #       5.4 − 1 − 1 = 3.4.
    net = medical()
    solution = net.solve()
    assert solution.meu == pytest.approx(3.4)
    assert solution.best() == {"Test": "test"}
    treat = solution.policies["Treat"]
    assert treat.known == ("Test", "Result")
    assert treat.best(Test="test", Result="positive") == "treat"
    assert treat.best(Test="test", Result="negative") == "wait"
    assert treat.best(Test="skip", Result="none") == "treat"
    assert net.expected_utility("Test", "skip") == pytest.approx(-8.0)
    rows = {k["Result"]: v for k, _, v in treat.rows() if k["Test"] == "test"}
    assert rows["positive"]["treat"] == pytest.approx(5.4 / 0.27 - 1)
    assert net.evpi("Disease", "Treat") == pytest.approx(10.0 - 3.4)  # 0.1·100 + 0 vs 3.4


# ------------------------------------------------------------------ the course's risk
def test_seed_001_expected_risk_is_a_one_decision_network():
    # EXAMPLES.md §7: λ01 = 10, λ10 = 1, P(y=1 | x) = 0.2: R(0) = 2.0, R(1) = 0.8 → 1.
    net = bbn.InfluenceDiagram("risk")
    net.add_variable("y", ["0", "1"], table=[0.8, 0.2])
    net.add_decision("predict", ["0", "1"])
    net.add_utility("loss", ["predict", "y"], [[0, -10], [-1, 0]])  # U = −λ
    solution = net.solve()
    values = solution.policies["predict"].rows()[0][2]
    assert values == pytest.approx({"0": -2.0, "1": -0.8})
    assert solution.best() == {"predict": "1"}  # although the MAP class is 0
    # under 0/1 loss the minimum-risk decision is the MAP decision
    net.remove_utility("loss")
    net.add_utility("loss", ["predict", "y"], [[0, -1], [-1, 0]])
    assert net.solve().best() == {"predict": "0"}


def test_classifier_risk_decisions_reproduced_by_a_decision_network():
    data = [["a", "x"], ["a", "y"], ["b", "x"], ["b", "x"], ["a", "x"], ["b", "y"],
            ["a", "y"], ["b", "x"]]
    labels = ["0", "0", "1", "0", "0", "1", "1", "0"]
    loss = [[0, 10], [1, 0]]
    model = bbn.NaiveBayes(decision="risk", loss=loss).fit(data, labels)
    network = model.network_
    target = next(v for v in network.variables if not network.parents(v))
    features = [v for v in network.variables if v != target]
    net = bbn.InfluenceDiagram("classifier")
    for v in network.variables:
        net.add_variable(v, network.states(v), parents=network.parents(v),
                         table=network.cpt_array(v))
    net.add_decision("predict", network.states(target), parents=features)
    net.add_utility("loss", ["predict", target], -np.asarray(loss, dtype=float))
    policy = net.solve().policies["predict"]
    rows = list(itertools.product(*(network.states(f) for f in features)))
    expected = model.predict([list(r) for r in rows])
    assert [policy.best(**dict(zip(features, r))) for r in rows] == [str(e) for e in expected]


# ------------------------------------------------------------------ brute force
def random_diagram(seed: int, chance: int = 3, decisions: int = 2,
                   utilities: int = 2) -> bbn.InfluenceDiagram:
    """A random influence diagram: nodes in a random order, each with up to two parents
    among the earlier ones; random tables and utilities."""
    rng = np.random.default_rng(seed)
    kinds = ["c"] * chance + ["d"] * decisions
    rng.shuffle(kinds)
    net = bbn.InfluenceDiagram(f"random {seed}")
    names: list[str] = []
    for i, kind in enumerate(kinds):
        name = f"{kind.upper()}{i}"
        k = int(rng.integers(0, min(2, len(names)) + 1))
        parents = list(rng.choice(names, size=k, replace=False)) if k else []
        card = int(rng.integers(2, 4)) if kind == "c" else 2
        states = [f"s{j}" for j in range(card)]
        if kind == "c":
            shape = [net.cardinality(p) for p in parents] + [card]
            net.add_variable(name, states, parents=parents,
                             table=rng.dirichlet(np.ones(card), size=shape[:-1] or None))
        else:
            net.add_decision(name, states, parents=parents)
        names.append(name)
    for u in range(utilities):
        k = int(rng.integers(1, 3))
        parents = list(rng.choice(names, size=k, replace=False))
        net.add_utility(f"U{u}", parents, rng.integers(-10, 11, size=[
            net.cardinality(p) for p in parents]).astype(float))
    return net


def _joint(net):
    """(variables, Π P over chance variables, Σ U) as dense arrays over every variable."""
    variables = list(net.variables)
    axes = {v: i for i, v in enumerate(variables)}
    shape = [net.cardinality(v) for v in variables]
    p = np.ones(shape)
    for v in variables:
        if not net.is_decision(v):
            family = [*net.parents(v), v]
            p = p * _spread(net.cpt_array(v), family, axes, len(shape))
    u = np.zeros(shape)
    for name in net.utilities:
        u = u + _spread(net.utility(name).values, list(net.utility_parents(name)), axes,
                        len(shape))
    return variables, p, u


def _spread(array, family, axes, ndim):
    order = np.argsort([axes[v] for v in family])
    array = np.transpose(array, order)
    shape = [1] * ndim
    for v in family:
        shape[axes[v]] = array.shape[sorted(axes[f] for f in family).index(axes[v])]
    return array.reshape(shape)


def _information(net, reading):
    """decision → what it knows."""
    known, past = {}, []
    for d in net.decisions:
        past += [p for p in net.parents(d) if p not in past]
        known[d] = (list(net.parents(d)) if reading == "LIMID"
                    else [v for v in net.variables if v in past])
        past.append(d)
    return known


def _indicator(net, decision, known, choice, axes, ndim):
    """1[D = δ(known)] over every variable, δ given as option indices per configuration."""
    table = np.zeros([net.cardinality(k) for k in known] + [net.cardinality(decision)])
    flat = table.reshape(-1, table.shape[-1])
    flat[np.arange(len(flat)), choice] = 1.0
    return _spread(table, [*known, decision], axes, ndim)


def brute_force(net, reading="perfect recall"):
    """The best expected utility over every deterministic policy, and the EU function."""
    variables, p, u = _joint(net)
    axes = {v: i for i, v in enumerate(variables)}
    known = _information(net, reading)
    weighted = p * u

    def eu(choices) -> float:
        total = weighted
        for d, choice in choices.items():
            total = total * _indicator(net, d, known[d], choice, axes, len(variables))
        return float(total.sum())

    spaces = []
    for d in net.decisions:
        configurations = int(np.prod([net.cardinality(k) for k in known[d]]))
        spaces.append(list(itertools.product(range(net.cardinality(d)),
                                             repeat=configurations)))
    best = max(eu(dict(zip(net.decisions, map(np.array, combo))))
               for combo in itertools.product(*spaces))
    return best, eu, known


def _policy_choices(net, solution, known):
    """The solution's policies as option indices over what each decision knows."""
    choices = {}
    for d, policy in solution.policies.items():
        shape = [net.cardinality(k) for k in known[d]]
        choice = np.empty(shape, dtype=int)
        for index in itertools.product(*map(range, shape)):
            states = {k: net.states(k)[i] for k, i in zip(known[d], index)}
            option = policy.best(**{k: states[k] for k in policy.known})
            choice[index] = net.states(d).index(option)
        choices[d] = choice.ravel()
    return choices


def _small(net, reading):
    known = _information(net, reading)
    count = 1
    for d in net.decisions:
        count *= net.cardinality(d) ** int(np.prod([net.cardinality(k) for k in known[d]]))
    return count <= 5000


#: Random diagrams whose policies can all be enumerated (at most 5000 under perfect
#: recall): the first 18 such seeds.
ENUMERABLE = [s for s in range(60) if _small(random_diagram(s), "perfect recall")][:18]


@pytest.mark.parametrize("seed", ENUMERABLE)
def test_perfect_recall_equals_brute_force_over_every_policy(seed):
    net = random_diagram(seed)
    solution = net.solve()
    best, eu, known = brute_force(net)
    assert solution.meu == pytest.approx(best, abs=1e-9)
    assert eu(_policy_choices(net, solution, known)) == pytest.approx(best, abs=1e-9)
    assert solution.optimal


@pytest.mark.parametrize("seed", range(24))
def test_limid_single_policy_updating_against_brute_force(seed):
    net = random_diagram(100 + seed)
    if not _small(net, "LIMID"):
        pytest.skip("too many policies to enumerate")
    solution = net.solve(reading="LIMID")
    best, eu, known = brute_force(net, "LIMID")
    choices = _policy_choices(net, solution, known)
    assert eu(choices) == pytest.approx(solution.meu, abs=1e-9)
    assert solution.meu <= best + 1e-9
    if solution.optimal:
        assert solution.meu == pytest.approx(best, abs=1e-9)
    # locally optimal: no other policy of one decision does better
    for d in net.decisions:
        configurations = len(choices[d])
        for other in itertools.product(range(net.cardinality(d)), repeat=configurations):
            assert eu({**choices, d: np.array(other)}) <= solution.meu + 1e-9


def test_limid_reports_a_local_optimum_it_cannot_prove():
    # Two decisions that must agree, neither knowing the other: SPU reaches 10, the
    # perfect-recall bound (D2 knowing D1), so it is proved optimal.
    net = bbn.InfluenceDiagram()
    net.add_decision("D1", ["a", "b"])
    net.add_decision("D2", ["a", "b"])
    net.add_utility("U", ["D1", "D2"], [[10, 0], [0, 10]])
    solution = net.solve(reading="LIMID")
    assert solution.meu == pytest.approx(10.0) and solution.optimal
    # X is known to D1 only and D2 must match it: D1 could signal X to D2 (EU 10), but
    # from uniform policies no single change helps (D2 cannot read a random D1, D1 does
    # not matter to a D2 that ignores it): a local optimum of 5, reported as such.
    net = bbn.InfluenceDiagram()
    net.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    net.add_decision("D1", ["a", "b"], parents=["X"])
    net.add_decision("D2", ["a", "b"], parents=["D1"])
    net.add_utility("U", ["X", "D2"], [[10, 0], [0, 10]])
    limid = net.solve(reading="LIMID")
    assert limid.meu == pytest.approx(5.0) and not limid.optimal
    assert limid.bound == pytest.approx(10.0) == net.solve().meu
    assert "locally optimal only (the perfect-recall bound is 10)" in limid.to_text()
    assert brute_force(net, "LIMID")[0] == pytest.approx(10.0)


# ------------------------------------------------------------------ pyAgrum
def to_pyagrum(net):
    gum = pytest.importorskip("pyagrum")
    diagram = gum.InfluenceDiagram()
    ids = {}
    for v in net.variables:
        variable = gum.LabelizedVariable(v, v, list(net.states(v)))
        ids[v] = (diagram.addDecisionNode if net.is_decision(v) else diagram.addChanceNode)(
            variable)
    for u in net.utilities:
        ids[u] = diagram.addUtilityNode(gum.LabelizedVariable(u, u, 1))
    for v in net.variables:
        for p in net.parents(v):
            diagram.addArc(ids[p], ids[v])
    for u in net.utilities:
        for p in net.utility_parents(u):
            diagram.addArc(ids[p], ids[u])
    for v in net.variables:
        if net.is_decision(v):
            continue
        parents, table = net.parents(v), net.cpt_array(v)
        for index in itertools.product(*(range(net.cardinality(p)) for p in parents)):
            key = {p: net.states(p)[i] for p, i in zip(parents, index)}
            diagram.cpt(ids[v])[key] = table[index].tolist()
    for u in net.utilities:
        parents, table = net.utility_parents(u), net.utility(u).values
        for index in itertools.product(*(range(net.cardinality(p)) for p in parents)):
            key = {p: net.states(p)[i] for p, i in zip(parents, index)}
            diagram.utility(ids[u])[key] = [float(table[index])]
    return diagram


def pyagrum_meu(net, evidence=None):
    gum = pytest.importorskip("pyagrum")
    inference = gum.ShaferShenoyLIMIDInference(to_pyagrum(net))
    inference.addNoForgettingAssumption(list(net.decisions))
    for v, s in (evidence or {}).items():
        inference.addEvidence(v, s)
    inference.makeInference()
    return inference.MEU()["mean"]


def test_oil_against_pyagrum(oil):
    assert pyagrum_meu(oil) == pytest.approx(22.5)
    assert pyagrum_meu(medical()) == pytest.approx(3.4)


def dense_meu(net) -> float:
    """The perfect-recall MEU by its definition on the dense joint table: Σ_{I0} max_{D1}
    Σ_{I1} ... max_{Dn} Σ_{In} Π P · Σ U, the axes in temporal order, reduced from the
    last (an elimination of nothing: every variable at once)."""
    variables, p, u = _joint(net)
    decisions, first = list(net.decisions), {}
    for k, d in enumerate(decisions):
        for q in net.parents(d):
            first.setdefault(q, k)
    blocks = [[] for _ in range(len(decisions) + 1)]
    for v in variables:
        if not net.is_decision(v):
            blocks[first.get(v, len(decisions))].append(v)
    order = list(blocks[0])
    for k, d in enumerate(decisions):
        order += [d, *blocks[k + 1]]
    table = np.transpose(p * u, [variables.index(v) for v in order])
    for v in reversed(order):
        table = table.max(axis=-1) if net.is_decision(v) else table.sum(axis=-1)
    return float(table)


#: Random diagrams (seeds of the test below) where pyAgrum 3.3.1 answers the EU of a
#: worse policy than the optimum: 204 (3.5384 < 3.5471, which brute force over all 32 768
#: LIMID policies also reaches), 208 (−11.950, the EU of D3 = s0 everywhere, < −7.8585,
#: computed by hand), 209 (9.7459 < 10.3318). In 208 and 209 pyAgrum agrees once the
#: decisions that change nothing are removed.
PYAGRUM_SHORT = {204, 208, 209}


@pytest.mark.parametrize("seed", range(12))
def test_random_diagrams_against_pyagrum(seed):
    net = random_diagram(200 + seed, chance=6, decisions=3, utilities=3)
    meu = net.solve().meu
    assert meu == pytest.approx(dense_meu(net), abs=1e-9)
    theirs = pyagrum_meu(net)
    assert theirs <= meu + 1e-8  # pyAgrum's is the EU of some policy
    if 200 + seed not in PYAGRUM_SHORT:
        assert meu == pytest.approx(theirs, abs=1e-8)
    else:
        assert theirs < meu - 1e-4


# ------------------------------------------------------------------ the language, files
def test_bn_round_trip_and_errors(oil, tmp_path):
    text = bbn.dumps(oil, "bn")
    again = bbn.loads(text, "bn")
    assert again == oil and isinstance(again, bbn.InfluenceDiagram)
    assert again.solve().meu == pytest.approx(22.5)
    bad = OIL.read_text().replace("utility Payoff(Drill, Oil)", "utility Payoff(Drill, Oli)")
    with pytest.raises(bbn.ParseError, match=r":\d+:\d+: unknown parent 'Oli' of utility "
                                             r"'Payoff' \(did you mean 'Oil'\?\)"):
        bbn.loads(bad, "bn")
    bad = OIL.read_text().replace("-10, 0", "-10, 0, 3")
    with pytest.raises(bbn.ParseError, match="utility 'TestCost' over \\['Test'\\] needs 2"):
        bbn.loads(bad, "bn")
    bad = OIL.read_text().replace("  no_drill: 0,   0,  0\n", "")
    with pytest.raises(bbn.ParseError, match="utility 'Payoff' has no row for no_drill"):
        bbn.loads(bad, "bn")
    located = {
        "variable A { a, b }\ndecision D { x, y \nP(A) = 0.5, 0.5":
            "<string>:3:1: expected ',' or '}' to close the options of decision 'D', found 'P'",
        "variable A { a, b }\nutility U(A) = 1, x":
            "<string>:2:19: expected a number after ',', found 'x'",
        "variable A { a, b }\ndecision D(A { x }":
            "<string>:2:14: expected ',' or ')' after the variables known to decision 'D', "
            "found '{'",
        "variable A {a,b}\nutility U(A) 3":
            "<string>:2:14: expected '=' or '{' after the parents of utility 'U', found '3'",
        "decision D(B) { x, y }": "<string>:1:12: unknown variable 'B' known to decision 'D'",
        "variable A { a, b }\nutility U(A) { a: 1 }":
            "<string>:2:1: utility 'U' has one parent: write its values as utility U(A) = u1",
    }
    for text, message in located.items():
        with pytest.raises(bbn.ParseError) as caught:
            bbn.loads(text)
        assert str(caught.value).startswith(message)


def test_model_checks():
    net = bbn.InfluenceDiagram()
    net.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    net.add_decision("D", ["go", "stay"], parents=["X"])
    with pytest.raises(bbn.ModelError, match="'D' is a decision"):
        net.set_cpt("D", [0.5, 0.5])
    with pytest.raises(bbn.ModelError, match="needs 4 numbers, got 3"):
        net.add_utility("U", ["X", "D"], [1, 2, 3])
    with pytest.raises(bbn.ModelError, match="did you mean 'X'"):
        net.add_utility("U", ["x"], [1, 2])
    with pytest.raises(bbn.ModelError, match="non-finite"):
        net.add_utility("U", ["X"], [1, np.inf])
    net.add_utility("U", ["X", "D"], [[1, 2], [3, 4]])
    with pytest.raises(bbn.ModelError, match="utility 'U' depends on 'X'"):
        net.remove_variable("X")
    with pytest.raises(bbn.QueryError, match="not a decision"):
        net.query("EU(X=a)")
    with pytest.raises(bbn.QueryError, match="depends on the decision 'D'"):
        chance = net.copy()
        chance.add_variable("Y", ["y", "n"], parents=["D"], table=[[0.5, 0.5], [0.5, 0.5]])
        chance.solve({"Y": "y"})
    # chance questions on a diagram: a decision given is taken
    assert net.query("P(X=a | D=go)") == pytest.approx(0.5)
    assert net.copy() == net


def test_cli_solve_and_query(capsys):
    assert main(["solve", str(OIL), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["meu"] == pytest.approx(22.5) and answer["reading"] == "perfect recall"
    assert answer["policy"]["Test"]["rules"][0]["choose"] == "test"
    assert main(["query", str(OIL), "MEU()"]) == 0
    assert capsys.readouterr().out.startswith("MEU = 22.5 (perfect recall, optimal)")
    assert main(["query", str(OIL), "EU(Drill=no_drill | Test=no_test)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["eu"] == pytest.approx(0.0)
    assert main(["solve", str(ROOT / "models" / "chair.bn")]) == 2
    assert "no decisions" in capsys.readouterr().err


@pytest.mark.parametrize("format", ["hugin", "xmlbif", "bn"])
def test_file_round_trips(oil, format):
    for net in (oil, medical(), random_diagram(7, chance=5, decisions=2, utilities=3)):
        again = bbn.loads(bbn.dumps(net, format), format)
        assert isinstance(again, bbn.InfluenceDiagram) and again == net
        assert again.solve().meu == pytest.approx(net.solve().meu, abs=1e-12)
    with pytest.raises(bbn.FormatError, match="cannot express an influence diagram"):
        bbn.dumps(oil, "uai")


def test_hugin_decision_and_utility_nodes():
    text = """
    net { name = "umbrella"; }
    node Rain { states = ("yes" "no"); }
    decision Umbrella { label = "take it?"; states = ("take" "leave"); }
    utility Comfort { label = "how it feels"; }
    potential (Rain) { data = (0.3 0.7); }
    potential (Umbrella) { }
    potential (Comfort | Rain Umbrella) { data = ((70 0) (20 100)); }
    """
    net = bbn.loads(text, "hugin")
    assert net.decisions == ("Umbrella",) and net.utilities == ("Comfort",)
    assert net.utility_description("Comfort") == "how it feels"
    assert net.solve().meu == pytest.approx(70.0)
    missing = text.replace("potential (Comfort | Rain Umbrella) { data = ((70 0) (20 100)); }",
                           "")
    with pytest.raises(bbn.ParseError, match=r":5:5: utility 'Comfort' has no potential"):
        bbn.loads(missing, "hugin")
    short = text.replace("((70 0) (20 100))", "((70 0) (20))")
    with pytest.raises(bbn.ParseError, match="needs 4 numbers, got 3"):
        bbn.loads(short, "hugin")


def test_pyagrum_reads_and_writes_our_bifxml(oil, tmp_path):
    gum = pytest.importorskip("pyagrum")
    bbn.save(oil, tmp_path / "oil.bifxml")
    diagram = gum.loadID(str(tmp_path / "oil.bifxml"))
    inference = gum.ShaferShenoyLIMIDInference(diagram)
    inference.addNoForgettingAssumption(["Test", "Drill"])
    inference.makeInference()
    assert inference.MEU()["mean"] == pytest.approx(22.5)
    # a diagram pyAgrum makes (random tables) and writes, read by bbn
    made = gum.fastID("Weather->$Comfort<-*Umbrella<-Forecast<-Weather", 3)
    gum.saveID(made, str(tmp_path / "made.bifxml"))  # numbers to 6 digits: read it back
    net = bbn.load(tmp_path / "made.bifxml")
    inference = gum.ShaferShenoyLIMIDInference(gum.loadID(str(tmp_path / "made.bifxml")))
    inference.makeInference()
    assert net.solve().meu == pytest.approx(inference.MEU()["mean"], abs=1e-9)


def test_render_draws_decisions_as_boxes_and_utilities_as_diamonds(oil):
    pytest.importorskip("graphviz")
    source = bbn.render(oil).source
    assert "Drill [label=" in source and 'shape=box tooltip="Drill: drill?"' in source
    assert "Payoff [label=<<B>Payoff</B>>" in source and "shape=diamond" in source
    assert "Oil -> Payoff" in source and "Drill -> Payoff" in source


def test_explain_writes_each_option_as_a_sum(oil, capsys):
    working = bbn.explain(oil, "MEU()").to_text()
    # 0.208333·(−70) + 0.375·50 + 0.416667·200 − 10 = 77.5 (P(Oil | closed) = .05/.24, ...)
    assert ("= -10 + 0.208333·(-70) + 0.375·50 + 0.416667·200\n"
            "                  = 77.5") in working
    assert "  max: Drill = no_drill (-10)" in working and "  max: Test = test (22.5)" in working
    assert "= -10 + 32.5\n" in working  # the test's cost, then what drilling adds
    assert main(["explain", str(OIL), "EU(Drill=drill | Test=no_test)"]) == 0
    assert "= 0 + 0.5·(-70) + 0.3·50 + 0.2·200" in capsys.readouterr().out


def test_explorer_shows_expected_utilities_on_decisions(oil):
    from bbn.apps.explorer.app import Explorer

    app = Explorer(oil)
    answer = app.posteriors([])
    assert answer["meu"] == pytest.approx(22.5)
    assert answer["expected_utilities"]["Test"] == pytest.approx({"test": 22.5, "no_test": 20.0})
    # always drilling: best without the test, 0.5·(−70) + 0.3·50 + 0.2·200 = 20
    assert answer["expected_utilities"]["Drill"]["drill"] == pytest.approx(20.0)
    given = app.posteriors([("Test", "test"), ("Result", "diffuse")])
    assert given["expected_utilities"] == {"Drill": pytest.approx(
        {"drill": -40.487804878, "no_drill": -10.0})}
    below = app.posteriors([("Result", "diffuse")])  # the result of a test not yet decided
    assert below["meu"] is None and below["expected_utilities"]["Test"] is None
    chair = Explorer(bbn.load(ROOT / "models" / "chair.bn"))
    assert "expected_utilities" not in chair.posteriors([])


def test_a_table_too_large_is_refused_before_allocation():
    net = bbn.InfluenceDiagram()
    names = [f"X{i}" for i in range(24)]
    for name in names:
        net.add_variable(name, ["a", "b"], table=[0.5, 0.5])
    net.add_decision("D", ["a", "b"], parents=names)
    for name in names:  # the best option depends on every X: a table of 2**25 entries
        net.add_utility(f"U{name}", ["D", name], [[1, 0], [0, 1]])
    previous = bbn.get_memory_limit()
    bbn.set_memory_limit(2**20)
    try:
        with pytest.raises(bbn.MemoryLimitError, match="influence diagram"):
            net.solve()
    finally:
        bbn.set_memory_limit(previous)


def _with_chance_root(seed: int) -> bool:
    net = random_diagram(seed)
    return _small(net, "perfect recall") and any(
        not net.is_decision(v) and not net.parents(v) for v in net.variables)


@pytest.mark.parametrize("seed", [s for s in range(300, 340) if _with_chance_root(s)][:8])
def test_meu_given_evidence_equals_brute_force(seed):
    # evidence on a chance variable no decision affects, known before every decision:
    # MEU(e) = max over policies of Σ_x P(x) 1[x_E = e] U(x) / P(e)
    net = random_diagram(seed)
    roots = [v for v in net.variables if not net.is_decision(v) and not net.parents(v)]
    observed, state = roots[0], net.states(roots[0])[-1]
    mask = np.zeros(net.cardinality(observed))
    mask[-1] = 1.0
    restricted = net.copy()
    restricted.set_cpt(observed, mask)  # P(x_E) · 1[x_E = e], renormalised by P(e)
    best = brute_force(restricted)[0]
    assert net.solve({observed: state}).meu == pytest.approx(best, abs=1e-9)
    assert float(net.query(f"MEU( | {observed}={state})")) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_perfect_recall_tables_from_the_past_equal_a_whole_elimination(seed):
    # each option's EU by what the choice depends on, two ways: ψ_D plus the past's other
    # utilities (what solve uses) against one elimination of the whole diagram per
    # decision, the other decisions following their policies
    import bbn.engines.exact.influence_diagrams as solving

    net = random_diagram(400 + seed, chance=6, decisions=3, utilities=3)
    diagram = solving._Diagram(net.compiled(), {}, {})
    _, policies, _ = solving._perfect_recall(diagram)
    for d, policy in net.solve().policies.items():
        whole = solving._conditional_table(diagram, d, policies, policy.known)
        np.testing.assert_allclose(policy.expected, whole, rtol=1e-9, atol=1e-9)

"""Exact inference at the numeric edges: any number of factors, no false answer from
underflow, NaN rows for impossible cases on request.

References: the chain rule P(x) = Π_i P(x_i | pa_i) for a full assignment (read off the
tables), the log-space chain rule log P(e) = Σ_i log P(e_i | e_<i) from normalised
posteriors, and brute force over the joint table in logs (small networks whose entries
go down to 1e-250, so that products underflow).
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import evidence_for, random_network

import bbn
from bbn.apps.cli.main import main
from bbn.engines.exact import joint_table
from bbn.engines.exact.contraction import contract

# ------------------------------------------------------------------ helpers


def chain_log(net: bbn.Network, row: dict[str, str]) -> float:
    """log P(row) of a full assignment: Σ_i log P(x_i | pa_i), read off the tables."""
    return math.fsum(math.log(net.cpt_array(v)[tuple(net.states(u).index(row[u])
                                                       for u in net.parents(v) + (v,))])
                     for v in net.variables)


def ancestral_row(net: bbn.Network, rng: np.random.Generator, unlikely: float = 0.0,
                  count: int | None = None) -> dict[str, str]:
    """One row sampled parents first; with probability ``unlikely`` a variable takes its
    least probable state (among entries above 1e-250) instead of a sampled one."""
    row: dict[str, str] = {}
    for v in net.topological_order()[:count]:
        t = net.cpt_array(v)[tuple(net.states(p).index(row[p]) for p in net.parents(v))]
        possible = np.flatnonzero(t > 1e-250)
        if rng.random() < unlikely:
            i = possible[np.argmin(t[possible])]
        else:
            i = rng.choice(len(t), p=t / t.sum())
        row[v] = net.states(v)[i]
    return row


def sharpened(net: bbn.Network, power: float) -> bbn.Network:
    """The network with every row t replaced by t^power / Σ t^power (tiny entries)."""
    tables = {}
    for v in net.variables:
        t = net.cpt_array(v) ** power
        tables[v] = t / t.sum(axis=-1, keepdims=True)
    result = net.copy()
    result.set_cpts(tables)
    return result


def log_joint(net: bbn.Network) -> np.ndarray:
    """log P(X1, ..., Xn), one axis per variable in ``net.variables`` order (brute force)."""
    axis = {v: i for i, v in enumerate(net.variables)}
    total = np.zeros((1,) * len(axis))
    with np.errstate(divide="ignore"):
        for v in net.variables:
            family = net.parents(v) + (v,)
            order = sorted(family, key=axis.__getitem__)
            table = np.log(net.cpt_array(v)).transpose([family.index(u) for u in order])
            shape = [net.cardinality(u) if u in family else 1 for u in net.variables]
            total = total + table.reshape(shape)
    return total


def log_sum(logs: np.ndarray, axis=None) -> np.ndarray:
    top = np.max(logs, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(logs - top), axis=axis)) + np.squeeze(top, axis)


def restricted(net: bbn.Network, logs: np.ndarray, evidence: dict[str, str]) -> np.ndarray:
    index = tuple(net.states(v).index(evidence[v]) if v in evidence else slice(None)
                  for v in net.variables)
    kept = np.full_like(logs, -np.inf)
    kept[index] = logs[index]
    return kept


def roots(n: int, p: float = 0.5) -> bbn.Network:
    net = bbn.Network("roots")
    for i in range(n):
        net.add_variable(f"X{i}", ["a", "b"], table=[p, 1 - p])
    return net


# --------------------------------------------------- any number of factors


def test_contract_takes_any_number_of_operands():
    rng = np.random.default_rng(0)
    vectors = [rng.uniform(0.5, 1, 3) for _ in range(150)]
    matrices = [rng.uniform(0.5, 1, (3, 2)) for _ in range(70)]
    scalars = [np.array(0.9)] * 80
    operands = vectors + matrices + scalars
    subscripts = [[0]] * 150 + [[0, 1]] * 70 + [[]] * 80
    expected = (np.prod(vectors, axis=0)[:, None] * np.prod(matrices, axis=0)).sum(
        axis=0) * 0.9 ** 80
    np.testing.assert_allclose(contract(operands, subscripts, [1]), expected, rtol=1e-12)
    np.testing.assert_allclose(contract(operands, subscripts, [0, 1]).sum(axis=0), expected,
                               rtol=1e-12)


def test_64_observed_roots_answer_every_question():
    net = roots(64)
    everything = {f"X{i}": "a" for i in range(64)}
    assert net.probability(everything) == pytest.approx(0.5 ** 64, rel=1e-12)
    assert net.log_probability(everything) == pytest.approx(64 * math.log(0.5), rel=1e-12)
    others = {f"X{i}": "a" for i in range(1, 64)}
    assert net.posterior(["X0"], others).to_dict() == pytest.approx({"a": 0.5, "b": 0.5})
    assert net.map(["X0"], others)[1] == pytest.approx(0.5)
    assert net.mpe(everything) == ({}, pytest.approx(1.0))
    assert net.query("P(X0=a | " + ", ".join(f"{v}=a" for v in others) + ")") == (
        pytest.approx(0.5))


def test_200_roots_in_one_product_match_the_chain_rule():
    rng = np.random.default_rng(1)
    net = bbn.Network()
    for i in range(200):
        p = float(rng.uniform(0.1, 0.9))
        net.add_variable(f"X{i}", ["a", "b"], table=[p, 1 - p])
    net.add_variable("Y", ["y", "n"], parents=["X0"], table=[[0.3, 0.7], [0.6, 0.4]])
    row = ancestral_row(net, rng)
    assert net.log_probability(row) == pytest.approx(chain_log(net, row), rel=1e-12)
    assert net.probability(row) == pytest.approx(math.exp(chain_log(net, row)), rel=1e-10)
    evidence = {v: s for v, s in row.items() if v != "X0"}
    expected = net.cpt_array("X0")[:] * net.cpt_array("Y")[:, net.states("Y").index(row["Y"])]
    assert list(net.posterior(["X0"], evidence).values) == pytest.approx(
        list(expected / expected.sum()), rel=1e-12)
    assignment, p = net.mpe({v: row[v] for v in list(row)[:150]})
    assert p == pytest.approx(net.probability(assignment, {v: row[v] for v in list(row)[:150]}),
                              rel=1e-10)


def _shared_networks(shared, more_than: int = 63):
    for path in sorted((shared / "networks").glob("*.bif.gz")):
        net = bbn.load(path)
        if len(net.variables) > more_than:
            yield path.name, net


def test_full_assignments_on_the_shared_networks_match_the_chain_rule(shared):
    rng = np.random.default_rng(2)
    seen = 0
    for name, net in _shared_networks(shared):
        row = ancestral_row(net, rng)
        expected = chain_log(net, row)
        assert net.log_probability(row) == pytest.approx(expected, rel=1e-12), name
        assert net.probability(row) == pytest.approx(math.exp(expected), rel=1e-9), name
        seen += 1
    assert seen >= 10


@pytest.mark.parametrize("name", ["munin", "pigs", "andes"])
def test_map_with_63_observed_variables(shared, name):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    row = ancestral_row(net, np.random.default_rng(3))
    order = net.topological_order()
    evidence = {v: row[v] for v in order[-63:]}  # the leaves' side: the queries depend on it
    query = order[:3]
    assignment, p = net.map(query, evidence)
    assert p == pytest.approx(net.probability(assignment, evidence), rel=1e-9)
    assert 0 < p <= 1


def test_pathfinder_mpe_with_50_observed_variables(shared):
    net = bbn.load(shared / "networks" / "pathfinder.bif.gz")
    row = ancestral_row(net, np.random.default_rng(4))
    evidence = {v: row[v] for v in net.topological_order()[-50:]}
    assignment, p = net.mpe(evidence)
    assert p == pytest.approx(net.probability(assignment, evidence), rel=1e-9)
    # the sampled row is an assignment too: the MPE is at least as probable
    other = {v: s for v, s in row.items() if v not in evidence}
    assert p >= net.probability(other, evidence) * (1 - 1e-12)


# ----------------------------------------------------------------- underflow


def _fork(p_a, p_b, p_c) -> bbn.Network:
    """A → B, A → C."""
    net = bbn.Network("fork")
    net.add_variable("A", ["t", "f"], table=p_a)
    net.add_variable("B", ["t", "f"], parents=["A"], table=p_b)
    net.add_variable("C", ["t", "f"], parents=["A"], table=p_c)
    return net


def test_underflowing_evidence_is_not_impossible():
    net = _fork([1e-200, 1 - 1e-200], [[0.5, 0.5], [0.3, 0.7]], [[1e-300, 1 - 1e-300], [0.5, 0.5]])
    evidence = {"A": "t", "C": "t"}
    assert net.probability({"B": "f"}, evidence) == pytest.approx(0.5, rel=1e-12)
    assert net.query("P(B=f | A=t, C=t)") == pytest.approx(0.5, rel=1e-12)
    assert net.log_probability(evidence) == pytest.approx(-500 * math.log(10), rel=1e-12)
    assert net.probability(evidence) == 0.0  # 1e-500 rounds to 0: log_probability has it
    assert net.posteriors(evidence)["B"].to_dict() == pytest.approx({"t": 0.5, "f": 0.5})


def test_map_and_mpe_on_roots_far_below_the_smallest_double():
    net = bbn.Network()
    for name, p in [("A", 1e-160), ("B", 1e-200), ("C", 1e-300)]:
        net.add_variable(name, ["t", "f"], table=[p, 1 - p])
    every = {"A": "t", "B": "t", "C": "t"}
    assert net.mpe(every) == ({}, pytest.approx(1.0))
    assert net.map(["A"], {"B": "t", "C": "t"}) == ({"A": "f"}, pytest.approx(1.0))
    assert net.log_probability(every) == pytest.approx(-660 * math.log(10), rel=1e-12)


def test_the_smallest_double_as_a_probability():
    net = _fork([5e-324, 1.0], [[0.5, 0.5], [0.3, 0.7]], [[0.5, 0.5], [0.5, 0.5]])
    assert net.probability({"B": "f"}, {"A": "t"}) == pytest.approx(0.5, rel=1e-12)
    assert net.log_probability({"A": "t"}) == math.log(5e-324)
    assert net.log_probability({"A": "t", "B": "f"}) == pytest.approx(
        math.log(5e-324) + math.log(0.5), rel=1e-15)


def _four_children(impossible_child: bool = False) -> bbn.Network:
    """X → C1..C4 with P(Ci = t | X) = 1e-100, 1e-90: observing every Ci = t gives
    P(e) = ½(1e-400 + 1e-360), P(X = x0 | e) = 1e-40 / (1 + 1e-40)."""
    net = bbn.Network("four")
    net.add_variable("X", ["x0", "x1"], table=[0.5, 0.5])
    for i in range(1, 5):
        net.add_variable(f"C{i}", ["t", "f"], parents=["X"],
                         table=[[1e-100, 1 - 1e-100], [1e-90, 1 - 1e-90]])
    if impossible_child:
        net.add_variable("Z", ["t", "f"], parents=["X"], table=[[0.0, 1.0], [0.0, 1.0]])
    net.add_variable("Y", ["y", "n"], parents=["X"], table=[[0.2, 0.8], [0.6, 0.4]])
    return net


@pytest.mark.parametrize("cliques", [False, True])
def test_every_posterior_far_below_the_smallest_double(monkeypatch, cliques):
    if cliques:  # a tree of cliques, not the joint table of the hidden variables
        monkeypatch.setattr(joint_table, "DENSE_UP_TO", 0)
    net = _four_children()
    evidence = {f"C{i}": "t" for i in range(1, 5)}
    x0 = 1e-40 / (1 + 1e-40)
    for posterior in (net.posteriors(evidence)["X"], net.posterior(["X"], evidence)):
        assert posterior.values[0] == pytest.approx(x0, rel=1e-9)
        assert posterior.values[1] == pytest.approx(1.0, rel=1e-12)
    assert net.posteriors(evidence)["Y"].to_dict()["y"] == pytest.approx(0.6, rel=1e-12)
    assert net.log_probability(evidence) == pytest.approx(
        math.log(0.5) + 4 * math.log(1e-90) + math.log1p(1e-40), rel=1e-12)
    assert net.mpe(evidence) == ({"X": "x1", "Y": "y"}, pytest.approx(0.6, rel=1e-12))
    frame = pd.DataFrame({"C1": ["t", "t", "f"], "C2": ["t", "t", None],
                          "C3": ["t", "f", "t"], "C4": ["t", "t", "t"]})
    batch = net.posteriors(frame)["X"].to_numpy()
    assert batch[0] == pytest.approx([x0, 1.0], rel=1e-9)
    assert net.posterior(["X"], frame).iloc[0].tolist() == pytest.approx([x0, 1.0], rel=1e-9)
    # three observed children: 1e-300 against 1e-270, so P(x0 | e) = 1e-30 / (1 + 1e-30)
    assert batch[1][0] == pytest.approx(1e-30, rel=1e-9)


@pytest.mark.parametrize("cliques", [False, True])
def test_impossible_rows_are_nan_on_request(monkeypatch, cliques):
    if cliques:
        monkeypatch.setattr(joint_table, "DENSE_UP_TO", 0)
    net = _four_children(impossible_child=True)
    frame = pd.DataFrame({"C1": ["t", "t", "f"], "C2": ["t", "t", "t"],
                          "C3": ["t", "t", "t"], "C4": ["t", "t", "t"],
                          "Z": ["f", "t", "t"]}, index=["a", "b", "c"])
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'b'"):
        net.posterior(["X"], frame)
    with pytest.raises(bbn.ImpossibleEvidenceError, match="row 'b'"):
        net.posteriors(frame)
    with pytest.warns(RuntimeWarning, match="2 of 3 case"):
        result = net.posterior(["X", "Y"], frame, impossible="nan").to_numpy().reshape(3, 2, 2)
    assert np.isnan(result[1:]).all()
    assert result[0].sum(axis=1) == pytest.approx([1e-40 / (1 + 1e-40) * 1, 1.0], rel=1e-9)
    with pytest.warns(RuntimeWarning, match="2 of 3 case"):
        every = {v: f.to_numpy() for v, f in net.posteriors(frame, impossible="nan").items()}
    for v in net.variables:
        assert np.isnan(every[v][1:]).all(), v
    assert every["X"][0] == pytest.approx([1e-40 / (1 + 1e-40), 1.0], rel=1e-9)
    assert every["Z"][0].tolist() == [0.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no impossible row: no warning
        assert not net.posterior(["X"], frame.iloc[:1], impossible="nan").isna().any(axis=None)


def test_an_unknown_impossible_option_is_a_clear_error(chair):
    frame = pd.DataFrame({"A": ["T"]})
    for call in (lambda: chair.posterior(["C"], frame, impossible="NaN!"),
                 lambda: chair.posteriors(frame, impossible="skip"),
                 lambda: chair.posterior(["C"], {"A": "T"}, impossible="ignore")):
        with pytest.raises(bbn.QueryError, match="impossible must be 'raise' or 'nan'"):
            call()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), power=st.sampled_from([1, 60, 150]))
def test_tiny_tables_agree_with_brute_force_in_logs(data, power):
    net = sharpened(data.draw(st.builds(lambda seed: random_network(seed, max_variables=7),
                                        st.integers(0, 2**32 - 1)), label="network"), power)
    evidence = data.draw(evidence_for(net), label="evidence")
    logs = log_joint(net)
    kept = restricted(net, logs, evidence)
    expected = float(log_sum(kept))
    got = net.log_probability(evidence)
    if expected == -math.inf:
        assert got == -math.inf
        with pytest.raises(bbn.ImpossibleEvidenceError):
            net.posteriors(evidence)
        return
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    hidden = [v for v in net.variables if v not in evidence]
    posteriors = net.posteriors(evidence)
    for i, v in enumerate(net.variables):
        others = tuple(j for j in range(len(net.variables)) if j != i)
        marginal = np.exp(log_sum(kept, others) - expected) if others else np.exp(kept - expected)
        np.testing.assert_allclose(posteriors[v].values, marginal, atol=1e-12, err_msg=v)
        if v in hidden:
            np.testing.assert_allclose(net.posterior([v], evidence).values, marginal,
                                       atol=1e-12, err_msg=v)
    if hidden:
        assignment, p = net.mpe(evidence)
        best = float(np.max(kept))
        assert math.log(p) == pytest.approx(best - expected, rel=1e-12, abs=1e-12)
        full = {**evidence, **assignment}
        assert chain_log(net, full) == pytest.approx(best, rel=1e-12, abs=1e-12)


@pytest.fixture(scope="module")
def sharp(shared):
    """munin and pathfinder with their rows sharpened (t^25, t^20, normalised): a row of
    unlikely states has P down to 1e-4000."""
    return {name: sharpened(bbn.load(shared / "networks" / f"{name}.bif.gz"), power)
            for name, power in [("munin", 25), ("pathfinder", 20)]}


@settings(max_examples=3, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["munin", "pathfinder"]))
def test_log_probability_equals_the_chain_rule_down_to_1e_minus_4000(sharp, seed, name):
    net = sharp[name]
    rng = np.random.default_rng(seed)
    # pathfinder whole, munin's first 250 variables in topological order (time)
    row = ancestral_row(net, rng, unlikely=0.8, count=250)
    evidence = {v: s for v, s in row.items() if rng.random() < 0.8}
    got = net.log_probability(evidence)
    seen: dict[str, str] = {}
    terms = []
    for v, s in evidence.items():
        p = net.posterior([v], seen).to_dict()[s]
        # below 2.2e-308 a double has fewer digits (3.7e-319 has 4): such a term can
        # be a normalised posterior only roughly
        assume(p >= sys.float_info.min)
        terms.append(math.log(p))
        seen[v] = s
    expected = math.fsum(terms)
    # below 1e-1000 (most rows reach 1e-4000; a likelier one, as seed 2693's 1e-952 on
    # pathfinder, says nothing of the deep tail)
    assume(expected < -1000 * math.log(10))
    assert got == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------- the command line


def test_cli_log_prints_the_natural_log(tmp_path, capsys):
    net = _fork([1e-200, 1 - 1e-200], [[0.5, 0.5], [0.3, 0.7]], [[1e-300, 1 - 1e-300], [0.5, 0.5]])
    path = tmp_path / "fork.bn"
    bbn.save(net, path)
    assert main(["query", str(path), "P(A=t, C=t)", "--log"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("log P(A=t, C=t) = ")
    assert float(out.split("=")[-1]) == pytest.approx(-500 * math.log(10), abs=1e-6)
    assert main(["query", str(path), "P(B=f | A=t, C=t)", "--log", "--json"]) == 0
    document = capsys.readouterr().out
    assert '"log_p": ' in document and float(document.split(":")[-1][:-2]) == pytest.approx(
        math.log(0.5), rel=1e-12)
    assert main(["query", str(path), "P(B | A=t)", "--log"]) == 2
    assert "--log needs the probability of an assignment" in capsys.readouterr().err


def test_joint_posteriors_of_many_one_state_variables():
    net = bbn.Network()
    for i in range(70):
        net.add_variable(f"X{i}", ["a"], table=[1.0])
    assert net.posterior([f"X{i}" for i in range(60)]).values.shape == (1,) * 60  # 60 > 52
    assert net.mpe() == ({f"X{i}": "a" for i in range(70)}, 1.0)
    with pytest.raises(bbn.QueryError, match="numpy's limit is 64"):
        net.posterior([f"X{i}" for i in range(65)])

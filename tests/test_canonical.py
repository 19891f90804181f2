"""Compact tables: noisy-OR, noisy-AND, noisy-MAX, logistic, deterministic.

Oracles: the definitions evaluated configuration by configuration (a loop, not the
package's vectorised cumulative products), the full joint table (tests/brute_force.py),
pyAgrum 3.3.1's ``addNoisyORNet``, ``addNoisyORCompound`` and ``addLogit``, and the
closed form of a 40-cause noisy-OR.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import bbn
import bbn.model.canonical as canonical
from bbn.core.errors import ModelError
from tests.brute_force import BruteForce


def _causes(net: bbn.Network, names, priors) -> None:
    for u, p in zip(names, priors):
        net.add_variable(u, ["F", "T"], table=[1 - p, p])


def _noisy_or_by_definition(weights, leak, on):
    """P(Y = T | causes ``on``) = 1 − (1 − leak) Π_{i on} (1 − p_i), one product."""
    off = 1.0 - leak
    for p, o in zip(weights, on):
        if o:
            off *= 1.0 - p
    return 1.0 - off


@pytest.mark.parametrize("seed", range(4))
def test_noisy_or_and_full_tables_equal_the_definition(seed):
    rng = np.random.default_rng(seed)
    n = 1 + seed
    weights, leak = rng.uniform(0, 1, n), float(rng.uniform(0, 0.3))
    names = [f"U{i}" for i in range(n)]
    net = bbn.Network()
    _causes(net, names, rng.uniform(0.1, 0.9, n))
    net.add_noisy_or("Y", names, dict(zip(names, weights)), leak=leak)
    net.add_noisy_and("Z", names, dict(zip(names, weights)), leak=leak)
    for on in itertools.product([0, 1], repeat=n):
        assert net.cpt_array("Y")[on][1] == pytest.approx(
            _noisy_or_by_definition(weights, leak, on), abs=1e-12)
        # noisy-AND: the dual, P(Z = F | u) = 1 − (1 − leak) Π_{u_i = F} (1 − p_i)
        flipped = tuple(1 - o for o in on)
        assert net.cpt_array("Z")[on][0] == pytest.approx(
            _noisy_or_by_definition(weights, leak, flipped), abs=1e-12)


def test_noisy_max_full_table_equals_the_definition():
    # Y in {0, 1, 2}; A in {a0, a1, a2}, B in {b0, b1}: Y = max(Z_L, Z_A, Z_B)
    rng = np.random.default_rng(7)
    ca = rng.dirichlet(np.ones(3), size=2)
    cb = rng.dirichlet(np.ones(3), size=1)
    leak = rng.dirichlet(np.ones(3))
    net = bbn.Network()
    net.add_variable("A", ["a0", "a1", "a2"], table=[0.2, 0.3, 0.5])
    net.add_variable("B", ["b0", "b1"], table=[0.6, 0.4])
    net.add_noisy_max("Y", ["0", "1", "2"], ["A", "B"], weights={"A": ca, "B": cb}, leak=leak)
    absent = np.array([1.0, 0.0, 0.0])
    rows_a, rows_b = [absent, *ca], [absent, *cb]
    for a, b in itertools.product(range(3), range(2)):
        expected = np.zeros(3)
        for zl, za, zb in itertools.product(range(3), repeat=3):  # enumerate contributions
            expected[max(zl, za, zb)] += leak[zl] * rows_a[a][za] * rows_b[b][zb]
        np.testing.assert_allclose(net.cpt_array("Y")[a, b], expected, atol=1e-12)


def _mixed_network() -> bbn.Network:
    """Noisy-OR, noisy-AND and noisy-MAX children sharing causes, one observed below."""
    net = bbn.Network()
    _causes(net, ["A", "B", "C", "D"], [0.3, 0.6, 0.2, 0.5])
    net.add_noisy_or("Y", ["A", "B", "C", "D"],
                     {"A": 0.9, "B": 0.4, "C": 0.7, "D": 0.2}, leak=0.05)
    net.add_noisy_and("Z", ["B", "C", "D"], {"B": 0.8, "C": 0.5, "D": 0.6}, leak=0.1)
    net.add_variable("G", ["lo", "mid", "hi"], table=[0.5, 0.3, 0.2])
    net.add_noisy_max("M", ["0", "1", "2"], ["A", "G", "D"],
                      {"A": [[0.1, 0.6, 0.3]], "G": [[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]],
                       "D": [[0.3, 0.3, 0.4]]}, leak=[0.8, 0.15, 0.05])
    net.add_variable("W", ["F", "T"], parents=["Y", "M"],
                     table=[[[0.9, 0.1], [0.6, 0.4], [0.3, 0.7]],
                            [[0.5, 0.5], [0.2, 0.8], [0.1, 0.9]]])
    return net


def test_chains_answer_as_the_full_tables(monkeypatch):
    full = _mixed_network()
    assert full.compiled().auxiliary == frozenset()
    monkeypatch.setattr(canonical, "CHAIN_ABOVE", 0)
    chained = _mixed_network()
    assert chained.compiled().auxiliary == {"Y~1", "Y~2", "Y~3", "Z~1", "Z~2", "M~1", "M~2"}
    oracle = BruteForce(full)
    for evidence in ({}, {"W": "T"}, {"W": "F", "Z": "T"}, {"Y": "T", "M": "2"}):
        for v in ("A", "B", "G", "Y", "Z", "M"):
            if v in evidence:
                continue
            np.testing.assert_allclose(chained.posterior(v, evidence).values,
                                       oracle.posterior([v], evidence), atol=1e-12)
        marginals = chained.posteriors(evidence)
        assert set(marginals) == set(full.variables)  # the chain stays out of the answers
        np.testing.assert_allclose(marginals["C"].values,
                                   oracle.posterior(["C"], evidence), atol=1e-12)
    assignment, p = chained.mpe({"W": "T"})
    expected, q = full.mpe({"W": "T"})
    assert set(assignment) == set(full.variables) - {"W"}
    assert assignment == expected and p == pytest.approx(q, rel=1e-9)


def test_forty_cause_noisy_or_within_the_default_memory_limit():
    net = bbn.Network()
    names = [f"U{i}" for i in range(40)]
    _causes(net, names, [0.1] * 40)
    net.add_noisy_or("Y", names, {u: 0.5 for u in names}, leak=0.01)
    assert net.has_cpt("Y") and len(net.compiled().auxiliary) == 39  # 40 tables of 8
    p = net.posterior("U0", {"Y": "T"}).to_dict()["T"]
    # P(Y = F) = 0.99 · 0.95^40; given U0 = T, 0.99 · 0.5 · 0.95^39
    expected = 0.1 * (1 - 0.99 * 0.5 * 0.95 ** 39) / (1 - 0.99 * 0.95 ** 40)
    assert p == pytest.approx(expected, rel=1e-10)
    assert net.probability({"Y": "F"}) == pytest.approx(0.99 * 0.95 ** 40, rel=1e-10)
    with pytest.raises(bbn.MemoryLimitError):  # its full table: 2^41 entries
        net.cpt_array("Y")


pyagrum = pytest.importorskip("pyagrum", reason="pyAgrum is the noisy-OR oracle")


def _agrum(kind: str, weights, external):
    bn = pyagrum.BayesNet()
    ids = [bn.add(pyagrum.LabelizedVariable(f"U{i}", "", 2)) for i in range(len(weights))]
    make = {"net": bn.addNoisyORNet, "compound": bn.addNoisyORCompound,
            "logit": bn.addLogit}[kind]
    y = make(pyagrum.LabelizedVariable("Y", "", 2), external)
    for i, w in zip(ids, weights):
        bn.addWeightedArc(i, y, w)
    return bn, y


def _agrum_table(bn, y, n) -> np.ndarray:
    """P(Y | U0..U_{n-1}) as an array indexed [u0, ..., u_{n-1}, y]."""
    cpt = bn.cpt(y)
    out = np.empty((2,) * n + (2,))
    for on in itertools.product([0, 1], repeat=n):
        inst = {f"U{i}": o for i, o in enumerate(on)}
        for yv in (0, 1):
            out[on + (yv,)] = cpt[{**inst, "Y": yv}]
    return out


def test_noisy_or_equals_pyagrum():
    weights, leak = [0.8, 0.6, 0.3], 0.1
    names = ["U0", "U1", "U2"]
    net = bbn.Network()
    _causes(net, names, [0.5] * 3)
    net.add_noisy_or("Y", names, dict(zip(names, weights)), leak=leak)
    bn, y = _agrum("net", weights, leak)
    np.testing.assert_allclose(net.cpt_array("Y"), _agrum_table(bn, y, 3), atol=1e-9)
    # pyAgrum's compound (Henrion's) weights w_i are P(Y | cause i alone, with the leak):
    # 1 − w_i = (1 − leak)(1 − p_i)
    bn, y = _agrum("compound", weights, leak)
    net.set_cpt("Y", net.cpt_array("Y"))  # a full table replaces the compact one
    assert net.canonical("Y") is None
    other = bbn.Network()
    _causes(other, names, [0.5] * 3)
    other.add_noisy_or("Y", names, {u: 1 - (1 - w) / (1 - leak) for u, w in
                                    zip(names, weights)}, leak=leak)
    np.testing.assert_allclose(other.cpt_array("Y"), _agrum_table(bn, y, 3), atol=1e-9)


def test_noisy_or_posterior_equals_pyagrum_lazy_propagation():
    weights, leak, priors = [0.9, 0.7, 0.4, 0.2], 0.02, [0.1, 0.3, 0.5, 0.2]
    names = [f"U{i}" for i in range(4)]
    net = bbn.Network()
    _causes(net, names, priors)
    net.add_noisy_or("Y", names, dict(zip(names, weights)), leak=leak)
    bn, y = _agrum("net", weights, leak)
    for i, p in enumerate(priors):
        bn.cpt(f"U{i}").fillWith([1 - p, p])
    ie = pyagrum.LazyPropagation(bn)
    ie.setEvidence({"Y": 1})
    ie.makeInference()
    for i in range(4):
        assert net.posterior(f"U{i}", {"Y": "T"}).values[1] == pytest.approx(
            ie.posterior(f"U{i}")[1], abs=1e-9)


def test_logistic_equals_pyagrum_logit():
    weights, bias = [1.5, -2.0], 0.3
    net = bbn.Network()
    _causes(net, ["U0", "U1"], [0.5, 0.5])
    net.add_logistic("Y", ["U0", "U1"], {"U0": 1.5, "U1": -2.0}, bias=bias)
    bn, y = _agrum("logit", weights, bias)
    np.testing.assert_allclose(net.cpt_array("Y"), _agrum_table(bn, y, 2), atol=1e-9)
    assert net.cpt_array("Y")[1, 0, 1] == pytest.approx(1 / (1 + math.exp(-1.8)))


def test_deterministic_and_errors():
    net = bbn.Network()
    _causes(net, ["A", "B"], [0.3, 0.6])
    net.add_deterministic("both", ["A", "B"], lambda a, b: "T" if a == b == "T" else "F",
                          states=["F", "T"])
    assert net.probability({"both": "T"}) == pytest.approx(0.18)
    with pytest.raises(ModelError, match="did you mean 'A'"):
        net.add_noisy_or("Y", ["A", "B"], {"a": 0.5, "B": 0.5})
    with pytest.raises(ModelError, match=r"miss parent\(s\) \['B'\]"):
        net.add_noisy_or("Y", ["A", "B"], {"A": 0.5})
    with pytest.raises(ModelError, match="in \\[0, 1\\]"):
        net.add_noisy_or("Y", ["A", "B"], {"A": 1.5, "B": 0.5})
    net.add_variable("G", ["x", "y", "z"], table=[0.2, 0.3, 0.5])
    with pytest.raises(ModelError, match="'G' has 3 states"):
        net.add_noisy_or("Y", ["A", "G"], {"A": 0.5, "G": 0.5})
    with pytest.raises(ModelError, match="returns 'maybe'"):
        net.add_deterministic("Y", ["A"], lambda a: "maybe", states=["F", "T"])
    assert "Y" not in net.variables  # nothing half-added


def test_written_to_a_format_without_compact_tables(tmp_path):
    net = bbn.Network("noisy")
    _causes(net, ["A", "B", "C"], [0.3, 0.6, 0.2])
    net.add_noisy_or("Y", ["A", "B", "C"], {"A": 0.9, "B": 0.4, "C": 0.7}, leak=0.05)
    copy = net.copy()
    assert copy == net and copy.canonical("Y").same_as(net.canonical("Y"))
    path = tmp_path / "noisy.bif"
    bbn.save(net, path)
    back = bbn.load(path)
    np.testing.assert_allclose(back.cpt_array("Y"), net.cpt_array("Y"), atol=1e-6)


_BN_TEXT = """
variable A { F, T }
variable B { F, T }
variable G { lo, mid, hi }
variable Y { F, T }
variable M { 0, 1, 2 }
variable L { F, T }
P(A) = 0.3, 0.7
P(B) = 0.5, 0.5
P(G) = 0.2, 0.3, 0.5
P(Y | A, B) noisy-or { A: 0.9; B: 0.8; leak: 0.05 }
P(M | A, G) noisy-max { A: 0.1, 0.6, 0.3; G: 0.5, 0.5, 0.0, 0.2, 0.3, 0.5; leak: 0.8, 0.15, 0.05 }
P(L | A, G) logistic { A: 1.5; G: -0.5; bias: 0.2 }
"""


def test_bn_language_reads_and_writes_compact_tables():
    net = bbn.loads(_BN_TEXT, "bn")
    assert [net.canonical(v).kind for v in ("Y", "M", "L")] == ["noisy-or", "noisy-max",
                                                               "logistic"]
    assert net.cpt_array("Y")[1, 1, 1] == pytest.approx(1 - 0.95 * 0.1 * 0.2)
    assert net.cpt_array("M")[1, 2].tolist() == pytest.approx(  # P(M ≤ m) = L · C_A · C_G
        np.diff([0, 0.8 * 0.1 * 0.2, 0.95 * 0.7 * 0.5, 1.0]))
    assert net.cpt_array("L")[1, 2, 1] == pytest.approx(1 / (1 + math.exp(-(0.2 + 1.5 - 1.0))))
    text = bbn.dumps(net, "bn")
    assert "P(Y | A, B) noisy-or {" in text and "leak: 0.8, 0.15, 0.05" in text
    back = bbn.loads(text, "bn")
    assert back == net and back.canonical("M").same_as(net.canonical("M"))
    with pytest.raises(bbn.ParseError, match=r":11:32: 'b' in the noisy-or.*did you mean 'B'"):
        bbn.loads(_BN_TEXT.replace("B: 0.8; leak", "b: 0.8; leak"), "bn")


def _log_likelihood(weights, leak, causes, on):
    """Σ_rows log P(y | u) of a noisy-OR, row by row (the oracle of the EM tests)."""
    total = 0.0
    for u, y in zip(causes, on):
        p_on = _noisy_or_by_definition(weights, leak, u)
        total += math.log(p_on if y else 1.0 - p_on)
    return total


def test_em_learns_noisy_tables_and_keeps_them_compact():
    net = bbn.Network()
    _causes(net, ["A", "B", "C"], [0.3, 0.4, 0.2])
    truth = {"A": 0.9, "B": 0.6, "C": 0.3}
    net.add_noisy_or("Y", ["A", "B", "C"], truth, leak=0.05)
    net.add_noisy_and("Z", ["A", "B"], {"A": 0.7, "B": 0.5}, leak=0.1)
    data = bbn.sample(net, 20000, seed=8)
    learned = bbn.learn(net, data)
    y, z = learned.canonical("Y"), learned.canonical("Z")
    assert (y.kind, z.kind) == ("noisy-or", "noisy-and")
    assert list(y.weights) == pytest.approx([0.9, 0.6, 0.3], abs=0.03)
    assert y.bias == pytest.approx(0.05, abs=0.01)
    assert list(z.weights) == pytest.approx([0.7, 0.5], abs=0.03)
    assert z.bias == pytest.approx(0.1, abs=0.02)
    # EM climbs to a maximum: the sample is at least as likely under the estimates
    causes = (data[["A", "B", "C"]] == "T").to_numpy()
    on = (data["Y"] == "T").to_numpy()
    assert _log_likelihood(y.weights, y.bias, causes, on) >= _log_likelihood(
        [0.9, 0.6, 0.3], 0.05, causes, on)


def test_em_on_forty_causes_needs_no_full_table():
    net = bbn.Network()
    names = [f"U{i}" for i in range(40)]
    _causes(net, names, [0.03] * 40)
    net.add_noisy_or("Y", names, {u: 0.8 for u in names}, leak=0.02)
    data = bbn.sample(net, 3000, seed=9)  # drawn contribution by contribution
    learned = bbn.learn(net, data)
    assert learned.canonical("Y").kind == "noisy-or"
    assert learned.canonical("Y").bias == pytest.approx(0.02, abs=0.015)
    assert np.mean(learned.canonical("Y").weights) == pytest.approx(0.8, abs=0.05)


def test_approximate_answers_leave_the_chain_out():
    net = bbn.Network()
    names = [f"U{i}" for i in range(12)]
    _causes(net, names, [0.1] * 12)
    net.add_noisy_or("Y", names, {u: 0.5 for u in names}, leak=0.01)
    assert len(net.compiled().auxiliary) == 11  # 2^13 entries: answered through the chain
    marginals = net.posteriors({"Y": "T"}, method="lbp")
    assert set(marginals) == {*names, "Y"}  # no Y~1, Y~2...
    # a polytree: loopy BP is exact; P(Y = F | U0 = T) = 0.99 · 0.5 · 0.95^11
    expected = 0.1 * (1 - 0.99 * 0.5 * 0.95 ** 11) / (1 - 0.99 * 0.95 ** 12)
    assert marginals["U0"].values[1] == pytest.approx(expected, rel=1e-6)
    with pytest.raises(bbn.QueryError, match="use the exact MPE"):
        net.mpe({"Y": "T"}, method="lbp")


def test_equality_compares_compact_tables_without_full_tables():
    def wide(weight):
        net = bbn.Network()
        causes = [f"U{i}" for i in range(20)]
        for u in causes:
            net.add_variable(u, ["F", "T"], table=[0.5, 0.5])
        net.add_noisy_or("Y", causes, weights={u: weight if u == "U7" else 0.5 for u in causes})
        return net

    first, same, other = wide(0.9), wide(0.9), wide(0.8)
    assert first._nodes["Y"].table is None  # 2^21 entries: no full table kept
    assert first == same and first != other
    small = bbn.Network()
    for u in "AB":
        small.add_variable(u, ["F", "T"], table=[0.5, 0.5])
    small.add_noisy_or("Y", ["A", "B"], weights={"A": 0.9, "B": 0.7})
    back = bbn.loads(bbn.dumps(small, "bif"), "bif")  # no compact form: full tables compared
    assert back.canonical("Y") is None and back == small
    changed = small.copy()
    changed.set_cpt("Y", np.flip(small.cpt_array("Y"), axis=-1))
    assert changed != small

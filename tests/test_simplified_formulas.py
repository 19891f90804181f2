"""Identified formulas, simplified (issue 29): the textbook graphs give the textbook
formulas as exact strings, and on random DAGs with hidden variables the simplified and
the algorithm's own formula, evaluated on the observed marginal, both equal the
interventional distribution computed by brute force on the mutilated joint table."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bbn
from bbn.questions.formulas import Prob, Product, Quotient, Sum
from bbn.questions.identification import NotIdentifiable
from bbn.questions.simplification import simplified
from tests.brute_force import joint_array


def graph(arcs: str, seed: int = 0) -> bbn.Network:
    """A binary network of ``"A>B C>B ..."`` (nodes in the order first named), with
    random positive tables."""
    pairs = [a.split(">") for a in arcs.split()]
    nodes = list(dict.fromkeys(v for pair in pairs for v in pair))
    order, placed = [], set()
    while len(order) < len(nodes):  # parents first
        for v in nodes:
            if v not in placed and all(p in placed for p, c in pairs if c == v):
                order.append(v)
                placed.add(v)
    rng = np.random.default_rng(seed)
    net = bbn.Network("g")
    for v in order:
        parents = [p for p, c in pairs if c == v]
        net.add_variable(v, ["0", "1"], parents=parents,
                         table=rng.dirichlet([1, 1], size=(2,) * len(parents)))
    return net


TEXTBOOK = [
    ("back door", "Z>X Z>Y X>Y", None, "Y", "X", "Σ_{Z} P(Z) P(Y | Z, X)", None),
    ("front door", "U>X U>Y X>M M>Y", "XMY", "Y", "X",
     "Σ_{M} P(M | X) Σ_{X'} P(X') P(Y | X', M)", None),
    ("chain", "X>M M>Y", None, "Y", "X", "P(Y | X)", "Σ_{M} P(M | X) P(Y | X, M)"),
    ("napkin", "U1>W U1>X U2>W U2>Y W>Z Z>X X>Y", "WZXY", "Y", "X",
     "Σ_{Z} [(Σ_{W} P(W) P(X, Y | W, Z)) / (Σ_{W} P(W) P(X | W, Z))] P(Z)",
     "Σ_{Z} [(Σ_{W} P(W) P(X | W, Z) P(Y | W, Z, X)) / (Σ_{Y} Σ_{W} P(W) P(X | W, Z) "
     "P(Y | W, Z, X))] P(Z)"),
    # Pearl (2009) fig. 3.4: the back door {Z2, Z3}, W and Z1 summed away
    ("fig 3.4", "Z1>Z3 Z2>Z3 Z1>X Z3>X X>W W>Y Z2>Y Z3>Y", None, "Y", "X",
     "Σ_{Z2, Z3} P(Z2, Z3) P(Y | Z2, Z3, X)",
     "Σ_{Z1, Z2, Z3, W} P(Z1) P(Z2) P(Z3 | Z1, Z2) P(W | Z1, Z2, Z3, X) "
     "P(Y | Z1, Z2, Z3, X, W)"),
    # two treatments: X1 is a back door for X2 → Y, Z drops out
    ("sequential", "U>X1 U>Y X1>Z Z>X2 X2>Y", ["X1", "Z", "X2", "Y"], "Y", ["X1", "X2"],
     "Σ_{X1'} P(X1') P(Y | X1', X2)", "Σ_{Z} [Σ_{X1'} P(X1') P(Y | X1', Z, X2)] P(Z)"),
]


@pytest.mark.parametrize("name, arcs, observed, y, x, short, raw", TEXTBOOK,
                         ids=[case[0] for case in TEXTBOOK])
def test_textbook_formulas(name, arcs, observed, y, x, short, raw):
    net = graph(arcs)
    seen = list(observed) if observed else None
    formula = net.identify(y, do=x, observed=seen)
    original = net.identify(y, do=x, observed=seen, simplify=False)
    head = f"P({y} | do({x if isinstance(x, str) else ', '.join(x)})) = "
    assert str(formula) == head + short
    assert str(original) == head + (raw or short)
    xs = [x] if isinstance(x, str) else x
    truth = interventional(net, [y], xs)
    for found in (formula, original):
        np.testing.assert_allclose(found.evaluate(net).values, truth, atol=1e-12)


def test_not_identifiable_stays_so():
    """The bow arc and the instrument: a hedge, simplified or not."""
    for arcs in ("U>X U>Y X>Y", "Z>X U>X U>Y X>Y"):
        net = graph(arcs)
        seen = [v for v in net.variables if v != "U"]
        for simplify in (True, False):
            with pytest.raises(NotIdentifiable, match="unobserved U"):
                net.identify("Y", do="X", observed=seen, simplify=simplify)


def test_the_rules_one_by_one():
    net = graph("Z>X Z>Y X>Y X>W")
    view = net.compiled()
    # d-separation: W ⟂ Z | X cuts Z; Y ⟂ W | X, Z cuts W; Y depends on Z given X: kept
    assert str(simplified(Prob(("W",), ("Z", "X")), view)) == "P(W | X)"
    assert str(simplified(Prob(("Y",), ("Z", "X", "W")), view)) == "P(Y | Z, X)"
    # the chain rule as written, and P(a, b | c) / P(b | c) = P(a | b, c)
    chain = Product((Prob(("Y",), ("Z", "X")), Prob(("X",), ("Z",))))
    assert str(simplified(chain, view)) == "P(X, Y | Z)"
    ratio = Quotient(Prob(("X", "Y"), ("Z",)), Prob(("X",), ("Z",)))
    assert str(simplified(ratio, view)) == "P(Y | Z, X)"
    # Σ_v P(v | c) = 1 in a denominator; Σ_z P(z) P(y | x, z) keeps z (a confounder)
    denominator = Quotient(Prob(("Y",), ("X",)), Sum(("W",), Prob(("W",), ("X",))))
    assert str(simplified(denominator, view)) == "P(Y | X)"
    backdoor = Sum(("Z",), Product((Prob(("Z",)), Prob(("Y",), ("X", "Z")))))
    assert simplified(backdoor, view) == backdoor
    # a sum no factor holds as a head is left as it is
    odd = Sum(("Z",), Prob(("Y",), ("X", "Z")))
    assert simplified(odd, view) == odd


def random_hidden(seed: int) -> tuple[bbn.Network, list[str], np.random.Generator]:
    """4–7 observed variables (2–3 states, arcs forward), 1–3 hidden binary roots with
    2–3 observed children each."""
    rng = np.random.default_rng(seed)
    n, h = int(rng.integers(4, 8)), int(rng.integers(1, 4))
    observed = [f"V{i}" for i in range(n)]
    hidden = {f"U{j}": set(rng.choice(n, size=int(rng.integers(2, 4)), replace=False).tolist())
              for j in range(h)}
    net = bbn.Network(f"hidden {seed}")
    for u in hidden:
        net.add_variable(u, ["0", "1"], table=rng.dirichlet([1, 1]))
    for i, v in enumerate(observed):
        parents = [observed[k] for k in range(i) if rng.random() < 0.45][-3:]
        parents += [u for u, children in hidden.items() if i in children]
        k = int(rng.integers(2, 4))
        shape = tuple(net.cardinality(p) for p in parents)
        net.add_variable(v, [str(s) for s in range(k)], parents=parents,
                         table=rng.dirichlet(np.ones(k), size=shape))
    return net, observed, rng


def interventional(net: bbn.Network, ys: list[str], xs: list[str]) -> np.ndarray:
    """P(ys | do(xs)) by brute force: the mutilated network's joint table for each
    treatment, axes (xs..., ys...)."""
    found = []
    for states in itertools.product(*(net.states(x) for x in xs)):
        mutilated = net.copy()
        for x, s in zip(xs, states):
            mutilated.set_parents(x, [])
            mutilated.set_cpt(x, np.eye(net.cardinality(x))[net.states(x).index(s)])
        joint = joint_array(mutilated)
        table = joint.sum(axis=tuple(i for i, v in enumerate(net.variables) if v not in ys))
        kept = [v for v in net.variables if v in ys]
        found.append(np.transpose(table, [kept.index(v) for v in ys]))
    return np.array(found).reshape([net.cardinality(v) for v in (*xs, *ys)])


def test_random_hidden_networks_against_brute_force():
    """Both formulas on the observed marginal equal brute force; the simplified one is
    never longer, and shorter in many cases."""
    identified = shorter = 0
    for seed in range(400):
        net, observed, rng = random_hidden(seed)
        k = int(rng.integers(1, 3))
        picked = [observed[i] for i in sorted(rng.choice(len(observed), size=k + int(
            rng.integers(1, 3)), replace=False).tolist())]
        xs, ys = picked[:k], picked[k:]  # treatments first: effects that exist
        try:
            formula = net.identify(ys, do=xs, observed=observed)
        except NotIdentifiable:
            with pytest.raises(NotIdentifiable):
                net.identify(ys, do=xs, observed=observed, simplify=False)
            continue
        original = net.identify(ys, do=xs, observed=observed, simplify=False)
        joint = joint_array(net)
        marginal = bbn.Factor(tuple(observed), {v: net.states(v) for v in observed},
                              joint.sum(axis=tuple(i for i, v in enumerate(net.variables)
                                                   if v not in observed)))
        truth = interventional(net, ys, xs)
        for found in (formula, original):
            np.testing.assert_allclose(found.evaluate(marginal).values, truth, atol=1e-10,
                                       err_msg=f"seed {seed}: {found}")
        assert len(str(formula)) <= len(str(original))
        assert set(formula.variables()) <= set(original.variables())
        identified += 1
        shorter += len(str(formula)) < len(str(original))
    assert identified >= 200 and shorter >= 100, (identified, shorter)

"""A linear Gaussian network's regressions kept as arrays (bbn.model.regressions).

The arrays are kept in step by add_gaussian_variable and set_gaussian, dropped by every
other edit and made again when compiling. Oracles: the arrays made from scratch from the
network's variables (``Regressions.made``), the engine built without them (the view's
``linear`` removed: the general path through the Gaussian records), and the joint normal
in closed form, μ = (I − B)⁻¹ c, Σ = (I − B)⁻¹ diag(σ²) (I − B)⁻ᵀ, conditioned by the
Schur complement.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import bbn
from bbn.engines.exact.linear_gaussian import LinearGaussian
from bbn.model.regressions import Regressions


def closed_form(net: bbn.Network, targets: list[str], evidence: dict[str, float]):
    """(mean, covariance) of the targets given the evidence, from the network's numbers
    by dense inverses in the network's declaration order (parents first)."""
    names = list(net.variables)
    at = {v: i for i, v in enumerate(names)}
    n = len(names)
    b, c, var = np.zeros((n, n)), np.zeros(n), np.zeros(n)
    for v in names:
        mean, variance = net.gaussian_parameters(v)
        c[at[v]], var[at[v]] = float(mean), float(variance)
        for p, w in net.gaussian_weights(v).items():
            b[at[v], at[p]] = float(w)
    inverse = np.linalg.inv(np.eye(n) - b)
    mu, sigma = inverse @ c, inverse @ np.diag(var) @ inverse.T
    t = [at[v] for v in targets]
    e = [at[v] for v in evidence]
    x = np.array(list(evidence.values()))
    gain = sigma[np.ix_(t, e)] @ np.linalg.inv(sigma[np.ix_(e, e)]) if e else np.zeros((len(t), 0))
    mean = mu[t] + (gain @ (x - mu[e]) if e else 0.0)
    covariance = sigma[np.ix_(t, t)] - (gain @ sigma[np.ix_(e, t)] if e else 0.0)
    return mean, covariance


def random_network(n: int, seed: int) -> bbn.Network:
    rng = np.random.default_rng(seed)
    net = bbn.Network("random")
    for i in range(n):
        count = min(i, int(rng.integers(0, 4)))
        parents = [f"x{j}" for j in sorted(rng.choice(i, count, replace=False))] if count else []
        net.add_gaussian_variable(f"x{i}", parents, mean=float(rng.normal(0, 1)),
                                  variance=float(rng.uniform(0.3, 1.5)),
                                  weights={p: float(rng.normal(0, 0.6)) for p in parents})
    return net


def assert_consistent(net: bbn.Network) -> None:
    """The kept arrays (if any) equal those made from scratch, and the view's system
    equals them."""
    made = Regressions.made(net._nodes)
    kept = net._regressions
    if kept is not None:
        assert made is not None
        for a, b in zip(kept.system(), made.system()):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b
        assert kept.leaves.keys() == made.leaves.keys()
        assert all(kept.leaves[v].table is made.leaves[v].table for v in made.leaves)
    system = net.compiled().linear
    assert (system is None) == (made is None)
    if system is not None:
        for a, b in zip(system, made.system()):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b


def assert_answers(net: bbn.Network, targets: list[str], evidence: dict[str, float]) -> None:
    answer = net.posterior(targets, evidence)
    mean, covariance = closed_form(net, targets, evidence)
    np.testing.assert_allclose(np.atleast_1d(answer.mean), mean, atol=1e-9)
    np.testing.assert_allclose(answer.covariance, covariance, atol=1e-9)


def test_a_network_built_variable_by_variable_keeps_its_arrays():
    net = random_network(30, seed=1)  # past the arrays' first room (8): they grow
    assert net._regressions is not None and len(net._regressions.index) == 30
    assert_consistent(net)
    view = net.compiled()
    assert view.linear.names == net.variables
    assert dict(view.states) == dict.fromkeys(net.variables, ())
    assert dict(view.parents) == {v: net.parents(v) for v in net.variables}
    assert_answers(net, ["x3", "x29"], {"x10": 1.5, "x20": -0.5, "x0": 2.0})


def test_the_engine_from_the_arrays_equals_the_general_path():
    net = random_network(25, seed=2)
    view = net.compiled()
    fast, general = LinearGaussian(view), LinearGaussian(dataclasses.replace(view, linear=None))
    assert fast.names == general.names
    rows = [fast.index[v] for v in ("x1", "x7", "x24", "x13")]
    for a, b in zip(fast.moments(rows), general.moments(rows)):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_set_gaussian_rewrites_one_row_and_older_views_keep_theirs():
    net = random_network(12, seed=3)
    before = net.compiled()
    old_intercept = before.linear.intercept.copy()
    old_weights = before.linear.weights.copy()
    parents = net.parents("x11")
    net.set_gaussian("x11", mean=5.0, variance=0.25, weights={p: 1.0 for p in parents})
    assert net._regressions is not None
    assert_consistent(net)
    np.testing.assert_array_equal(before.linear.intercept, old_intercept)
    np.testing.assert_array_equal(before.linear.weights, old_weights)
    assert net.compiled().linear.intercept[11] == 5.0
    assert_answers(net, ["x11"], {"x2": 0.3})


@pytest.mark.parametrize("edit", ["remove", "replace", "add_edge", "discrete", "unset",
                                  "description"])
def test_other_edits_drop_the_arrays_and_compiling_makes_them_again(edit):
    net = random_network(15, seed=4)
    if edit == "remove":  # its children lose it as a parent, and their tables
        net.remove_variable("x14")
        net.remove_variable("x3")
        for v in net.variables:
            if not net.has_cpt(v):
                net.set_gaussian(v, 0.5, 1.0, {p: 0.7 for p in net.parents(v)})
    elif edit == "replace":  # a variable removed and added again under its name
        children = [v for v in net.variables if "x5" in net.parents(v)]
        net.remove_variable("x5")
        net.add_gaussian_variable("x5", ["x0"], mean=1.0, variance=2.0, weights={"x0": -1.0})
        for v in children:
            net.set_parents(v, net.parents(v) + ("x5",))
            net.set_gaussian(v, 0.0, 1.0, {p: 0.5 for p in net.parents(v)})
    elif edit == "add_edge":
        net.add_edge("x2", "x9")
        net.set_gaussian("x9", 1.0, 1.0, {p: 0.3 for p in net.parents("x9")})
    elif edit == "discrete":
        net.add_variable("D", ["a", "b"], table=[0.5, 0.5])
    elif edit == "unset":  # a Gaussian without parameters: no linear system
        net.add_gaussian_variable("late", ["x1"])
    else:
        net.set_description("x1", "the first")
    assert net._regressions is None
    assert_consistent(net)
    if edit in ("discrete", "unset"):
        assert net.compiled().linear is None
        return
    if edit == "replace":  # x5 now comes after its children: answered the general way
        assert net.compiled().linear is None and net._regressions is None
        assert_answers(net, ["x14", "x5"], {"x0": 0.4, "x4": -1.2})
        return
    assert net._regressions is not None  # made again by compiling
    targets = [v for v in net.variables[-3:]]
    evidence = {net.variables[0]: 0.4, net.variables[4]: -1.2}
    assert_answers(net, targets, evidence)
    net.add_gaussian_variable("after", [targets[0]], mean=0.0, variance=1.0,
                              weights={targets[0]: 2.0})  # kept in step again
    assert net._regressions is not None
    assert_consistent(net)
    assert_answers(net, ["after"], evidence)


def test_a_parent_declared_after_its_child_answers_by_the_general_path():
    net = bbn.Network()
    net.add_gaussian_variable("y", mean=0.0, variance=1.0)
    net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    net.set_parents("y", ["x"])
    net.set_gaussian("y", 0.0, 1.0, {"x": 3.0})
    assert Regressions.made(net._nodes) is None and net.compiled().linear is None
    answer = net.posterior("x", {"y": 2.0})
    # x ~ N(1, 2), y | x ~ N(3x, 1): E[x | y] = 1 + 6 / 19 (2 − 3), Var = 2 − 36 / 19
    assert answer.mean == pytest.approx(1 - 6 / 19, abs=1e-12)
    assert answer.variance == pytest.approx(2 - 36 / 19, abs=1e-12)


def test_copies_are_independent():
    net = random_network(10, seed=5)
    other = net.copy()
    assert other._regressions is not net._regressions
    other.set_gaussian("x9", 3.0, 0.5, {p: -1.0 for p in other.parents("x9")})
    other.add_gaussian_variable("x10", ["x9"], mean=0.0, variance=1.0, weights={"x9": 1.0})
    assert_consistent(net)
    assert_consistent(other)
    assert "x10" not in net._regressions.index
    assert net.gaussian_parameters("x9")[0] != 3.0
    assert_answers(net, ["x9"], {"x0": 1.0})
    assert_answers(other, ["x10"], {"x0": 1.0})


def test_a_pickled_network_keeps_its_arrays_and_an_old_pickle_makes_them():
    net = random_network(10, seed=6)
    again = pickle.loads(pickle.dumps(net))
    assert again._regressions is not None
    assert_consistent(again)
    assert_answers(again, ["x9", "x4"], {"x1": 0.2})
    state = net.__getstate__()
    del state["_regressions"]  # a pickle made before the arrays were kept
    old = bbn.Network.__new__(bbn.Network)
    old.__setstate__(state) if hasattr(old, "__setstate__") else old.__dict__.update(state)
    assert old._regressions is None
    assert_answers(old, ["x9", "x4"], {"x1": 0.2})
    assert old._regressions is not None


def test_a_failed_addition_leaves_the_network_answering():
    net = random_network(6, seed=7)
    with pytest.raises(bbn.ModelError):
        net.add_gaussian_variable("bad", ["x1"], mean=0.0, variance=-1.0, weights={"x1": 1.0})
    with pytest.raises(bbn.ModelError):
        net.add_gaussian_variable("bad", ["nope"], mean=0.0, variance=1.0)
    assert "bad" not in net.variables
    assert_consistent(net)
    assert_answers(net, ["x5"], {"x0": 1.0})


def test_random_edit_sequences_stay_consistent():
    rng = np.random.default_rng(8)
    for _ in range(6):
        net = random_network(8, seed=int(rng.integers(1000)))
        for step in range(12):
            names = list(net.variables)
            kind = rng.choice(["add", "set", "remove", "copy"])
            if kind == "add":
                parents = [str(p) for p in rng.choice(names, min(2, len(names)), replace=False)]
                net.add_gaussian_variable(f"n{step}", parents, mean=float(rng.normal()),
                                          variance=1.0,
                                          weights={p: float(rng.normal()) for p in parents})
            elif kind == "set":
                v = str(rng.choice(names))
                if net.has_cpt(v):
                    net.set_gaussian(v, float(rng.normal()), 0.5,
                                     {p: float(rng.normal()) for p in net.parents(v)})
            elif kind == "remove" and len(names) > 3:
                net.remove_variable(str(rng.choice(names)))
                for v in net.variables:
                    if not net.has_cpt(v):
                        net.set_gaussian(v, 0.0, 1.0, {p: 0.5 for p in net.parents(v)})
            else:
                net = net.copy()
            assert_consistent(net)
        names = list(net.variables)
        assert_answers(net, names[-2:], {names[0]: 0.5})

"""Factor algebra on small tables whose results are worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bbn
from bbn import BBNError, Factor, ModelError

TF = ("T", "F")


@pytest.fixture
def f_a():
    """f(A): P(A=T) = 0.2."""
    return Factor(["A"], {"A": TF}, [0.2, 0.8])


@pytest.fixture
def g_ab():
    """g(A, B) = P(B | A): rows A=T, A=F."""
    return Factor(["A", "B"], {"A": TF, "B": TF}, [[0.9, 0.1], [0.3, 0.7]])


@pytest.fixture
def h_cb():
    """h(C, B) with B on the second axis, so B sits at different positions in g and h."""
    return Factor(["C", "B"], {"C": ("x", "y"), "B": TF}, [[0.5, 0.25], [0.5, 0.75]])


def test_construction_and_basics():
    f = Factor(["A", "B"], {"A": TF, "B": ("u", "v", "w"), "Z": ("ignored",)}, range(6))
    assert f.variables == ("A", "B")
    assert f.states == {"A": TF, "B": ("u", "v", "w")}  # extra keys are dropped
    assert f.shape == (2, 3)
    assert f.values.dtype == float
    assert f.values[1, 2] == 5.0  # flat values fill row-major, last variable fastest
    assert f.cardinality("B") == 3
    with pytest.raises(ValueError, match="shape"):
        Factor(["A"], {"A": TF}, [0.1, 0.2, 0.7])
    with pytest.raises(ValueError, match="distinct"):
        Factor(["A", "A"], {"A": TF}, np.ones((2, 2)))


def test_scalar_factor():
    s = Factor([], {}, 2.5)
    assert s.variables == () and s.shape == ()
    assert s.total() == 2.5
    f = Factor(["A"], {"A": TF}, [0.2, 0.8])
    np.testing.assert_allclose((s * f).values, [0.5, 2.0])


def test_product_of_prior_and_conditional(f_a, g_ab):
    joint = f_a * g_ab
    assert joint.variables == ("A", "B")
    # P(A, B) = P(A) P(B | A): 0.2·0.9, 0.2·0.1, 0.8·0.3, 0.8·0.7
    np.testing.assert_allclose(joint.values, [[0.18, 0.02], [0.24, 0.56]])
    assert joint.total() == pytest.approx(1.0)
    assert f_a.product(g_ab) == joint


def test_product_aligns_shared_variables_by_name(g_ab, h_cb):
    prod = g_ab * h_cb
    assert prod.variables == ("A", "B", "C")  # left factor's axes first
    assert prod.states["C"] == ("x", "y")
    # value(a, b, c) = g(a, b) · h(c, b)
    assert prod.values[0, 1, 1] == pytest.approx(0.1 * 0.75)
    assert prod.values[1, 0, 0] == pytest.approx(0.3 * 0.5)
    assert prod.values[1, 1, 0] == pytest.approx(0.7 * 0.25)
    other = h_cb * g_ab
    assert other.variables == ("C", "B", "A")
    assert other != prod  # different axis order...
    assert other.allclose(prod)  # ...same numbers


def test_product_refuses_mismatched_states(g_ab):
    other = Factor(["B"], {"B": ("F", "T")}, [0.5, 0.5])
    with pytest.raises(ValueError, match="'B'"):
        g_ab * other


def test_sum_out_and_max_out(f_a, g_ab):
    joint = f_a * g_ab
    b = joint.sum_out(["A"])
    assert b.variables == ("B",)
    np.testing.assert_allclose(b.values, [0.42, 0.58])  # 0.18 + 0.24, 0.02 + 0.56
    np.testing.assert_allclose(joint.sum_out(["B"]).values, [0.2, 0.8])
    np.testing.assert_allclose(joint.max_out(["A"]).values, [0.24, 0.56])
    np.testing.assert_allclose(joint.max_out(["B"]).values, [0.18, 0.56])
    everything = joint.sum_out(["A", "B"])
    assert everything.variables == () and everything.total() == pytest.approx(1.0)
    assert joint.max_out(["A", "B"]).total() == pytest.approx(0.56)
    with pytest.raises(bbn.QueryError, match="Q"):
        joint.sum_out(["Q"])


def test_marginal_orders_axes_as_asked(g_ab, h_cb):
    prod = g_ab * h_cb
    m = prod.marginal(["C", "A"])
    assert m.variables == ("C", "A")
    # m(c, a) = Σ_b g(a, b) h(c, b)
    expected = np.array([[0.9 * 0.5 + 0.1 * 0.25, 0.3 * 0.5 + 0.7 * 0.25],
                         [0.9 * 0.5 + 0.1 * 0.75, 0.3 * 0.5 + 0.7 * 0.75]])
    np.testing.assert_allclose(m.values, expected)


def test_reduce_by_evidence(g_ab, h_cb):
    r = g_ab.reduce({"A": "F"})
    assert r.variables == ("B",)
    np.testing.assert_allclose(r.values, [0.3, 0.7])
    both = (g_ab * h_cb).reduce({"B": "F", "C": "y", "Unrelated": "x"})
    assert both.variables == ("A",)
    np.testing.assert_allclose(both.values, [0.1 * 0.75, 0.7 * 0.75])
    assert g_ab.reduce({}) == g_ab
    with pytest.raises(bbn.QueryError, match=r"no state 'f'.*did you mean 'F'"):
        g_ab.reduce({"A": "f"})


def test_normalize():
    f = Factor(["A"], {"A": TF}, [1.0, 3.0])
    np.testing.assert_allclose(f.normalize().values, [0.25, 0.75])
    zero = Factor(["A"], {"A": TF}, [0.0, 0.0])
    with pytest.raises(bbn.ImpossibleEvidenceError) as error:
        zero.normalize({"B": "T"})
    assert error.value.evidence == {"B": "T"}
    assert "B=T" in str(error.value)


def test_transpose_and_reorder_states(g_ab):
    t = g_ab.transpose(["B", "A"])
    assert t.variables == ("B", "A")
    np.testing.assert_allclose(t.values, [[0.9, 0.3], [0.1, 0.7]])
    assert g_ab.transpose(["A", "B"]) is g_ab
    with pytest.raises(ValueError):
        g_ab.transpose(["A", "C"])
    r = g_ab.reorder_states({"B": ("F", "T")})
    assert r.states["B"] == ("F", "T")
    np.testing.assert_allclose(r.values, [[0.1, 0.9], [0.7, 0.3]])
    assert r.allclose(g_ab)
    assert r != g_ab


def test_allclose(g_ab):
    near = Factor(["B", "A"], {"A": TF, "B": TF}, [[0.9 + 1e-12, 0.3], [0.1, 0.7]])
    assert g_ab.allclose(near)
    far = Factor(["A", "B"], {"A": TF, "B": TF}, [[0.9, 0.1], [0.3, 0.70001]])
    assert not g_ab.allclose(far)
    assert g_ab.allclose(far, atol=1e-4)
    renamed = Factor(["A", "B"], {"A": TF, "B": ("y", "n")}, g_ab.values)
    assert not g_ab.allclose(renamed)
    assert not g_ab.allclose(Factor(["A"], {"A": TF}, [0.5, 0.5]))


def test_equality_and_copy(g_ab):
    c = g_ab.copy()
    assert c == g_ab and c is not g_ab
    c.values[0, 0] = 0.0
    assert g_ab.values[0, 0] == 0.9
    assert c != g_ab
    assert (g_ab == "not a factor") is False


def test_readouts(f_a, g_ab):
    assert f_a.to_dict() == {"T": 0.2, "F": 0.8}
    joint = f_a * g_ab
    d = joint.to_dict()
    assert d[("F", "T")] == pytest.approx(0.24)
    assert list(d) == [("T", "T"), ("T", "F"), ("F", "T"), ("F", "F")]
    assert [key for key, _ in joint.rows()] == list(d)
    assert joint.argmax() == ({"A": "F", "B": "F"}, pytest.approx(0.56))
    text = joint.to_text()
    lines = text.splitlines()
    assert lines[0].split() == ["A", "B", "probability"]
    assert lines[3].split() == ["F", "T", "0.240000"]
    assert str(f_a) == f_a.to_text()
    assert "0.2000" in f_a.to_text(digits=4)


@st.composite
def factor_pairs(draw):
    """Two random factors over overlapping subsets of A..D, axes in random orders."""
    cards = {"A": 2, "B": 3, "C": 1, "D": 4}
    states = {v: tuple(f"{v.lower()}{i}" for i in range(n)) for v, n in cards.items()}
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    factors = []
    for _ in range(2):
        variables = draw(st.permutations("ABCD"))[:draw(st.integers(0, 4))]
        values = rng.uniform(0, 1, size=[cards[v] for v in variables])
        factors.append(Factor(variables, states, values))
    return factors


def _einsum(*factors: Factor, out) -> np.ndarray:
    operands = []
    for f in factors:
        operands += [f.values, ["ABCD".index(v) for v in f.variables]]
    return np.einsum(*operands, ["ABCD".index(v) for v in out])


@settings(max_examples=150, deadline=None)
@given(factor_pairs(), st.data())
def test_algebra_matches_einsum(pair, data):
    f, g = pair
    prod = f * g
    assert set(prod.variables) == set(f.variables) | set(g.variables)
    np.testing.assert_allclose(prod.values, _einsum(f, g, out=prod.variables), rtol=1e-12)
    assert prod.allclose(g * f)
    drop = (data.draw(st.lists(st.sampled_from(prod.variables), unique=True))
            if prod.variables else [])
    kept = tuple(v for v in prod.variables if v not in drop)
    np.testing.assert_allclose(prod.sum_out(drop).values, _einsum(f, g, out=kept), rtol=1e-12)
    axes = tuple(prod.variables.index(v) for v in drop)
    np.testing.assert_allclose(prod.max_out(drop).values, prod.values.max(axis=axes))
    evidence = {v: prod.states[v][-1] for v in drop}
    reduced = prod.reduce(evidence)
    assert reduced.variables == kept
    index = tuple(-1 if v in evidence else slice(None) for v in prod.variables)
    np.testing.assert_array_equal(reduced.values, prod.values[index])
    order = data.draw(st.permutations(kept))
    marginal = prod.marginal(order)
    assert marginal.variables == tuple(order)
    assert marginal.allclose(prod.sum_out(drop))


def test_marginal_of_an_unknown_variable_names_it():
    f = Factor(["A", "B"], {"A": ["T", "F"], "B": ["T", "F"]}, [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(bbn.QueryError, match="no variable 'Bb' .did you mean 'B'"):
        f.marginal(["Bb"])


def test_factor_errors_are_bbn_errors_and_value_errors(g_ab):
    for bad in (lambda: Factor(["A"], {"A": TF}, [0.1, 0.2, 0.7]),
                lambda: Factor(["A", "A"], {"A": TF}, np.ones((2, 2))),
                lambda: g_ab.transpose(["A", "C"]),
                lambda: g_ab.reorder_states({"B": ("F", "t")}),
                lambda: g_ab * Factor(["B"], {"B": ("y", "n")}, [0.5, 0.5])):
        with pytest.raises(ModelError) as caught:
            bad()
        assert isinstance(caught.value, BBNError) and isinstance(caught.value, ValueError)
    with pytest.raises(ModelError, match=r"variable 'B' has no state 't'.*did you mean 'T'"):
        g_ab.reorder_states({"B": ("F", "t")})

"""Continuous (conditional linear Gaussian) nodes in Hugin .net files: read, written,
read back; the answers of the file equal those of the model it was written from."""

import numpy as np
import pytest

import bbn
from bbn.core.errors import FormatError, ParseError
from bbn.io.formats import hugin

# Hugin's NET form of a CG network: one normal(mean, variance) per configuration of the
# discrete parents, the first parent slowest; the mean linear in the continuous parents.
CG = """
net { name = "cg"; }
node I { states = ("a" "b"); }
continuous node C2 { label = "a root"; }
continuous node C3 { }
continuous node C1 { }
potential (I) { data = (0.25 0.75); }
potential (C2) { data = normal ( 1, 4 ); }
potential (C3 | C2) { data = ( normal ( -2 + 0.5 * C2, 1 ) ); }
potential (C1 | I C2 C3)
{
    data = ( normal ( 1 + C2 - 1.6 * C3, 2.2 )     % I=a
             normal ( 3e-1 - C2 + C3*2, 0.5 ) );   % I=b
}
"""


def _hand_built() -> bbn.Network:
    net = bbn.Network("cg")
    net.add_variable("I", ["a", "b"], table=[0.25, 0.75])
    net.add_gaussian_variable("C2", mean=1.0, variance=4.0, description="a root")
    net.add_gaussian_variable("C3", ["C2"], mean=-2.0, variance=1.0, weights={"C2": 0.5})
    net.add_gaussian_variable("C1", ["I", "C2", "C3"], mean=[1.0, 0.3], variance=[2.2, 0.5],
                              weights={"C2": [1.0, -1.0], "C3": [-1.6, 2.0]})
    return net


def test_hugin_cg_file_is_read_as_the_network_it_describes():
    net = hugin.read(CG)
    assert net == _hand_built()
    assert net.gaussian_text("C1") == ["I=a: N(1 + 1·C2 − 1.6·C3, 2.2)",
                                       "I=b: N(0.3 − 1·C2 + 2·C3, 0.5)"]
    assert net.description("C2") == "a root"
    # E[C1 | I=b] = 0.3 − E[C2] + 2 E[C3] = 0.3 − 1 + 2·(−2 + 0.5) = −3.7
    answer = net.posterior("C1", {"I": "b"})
    assert answer.mean == pytest.approx(-3.7, abs=1e-12)
    # Var = 0.5 + Var(−C2 + 2·C3) = 0.5 + Var(0·C2 + 2·e3) with C3 = −2 + 0.5 C2 + e3
    assert answer.variance == pytest.approx(0.5 + 4.0 * 1.0, abs=1e-12)


def test_round_trip_keeps_every_number():
    net = _hand_built()
    rng = np.random.default_rng(5)
    net.set_gaussian("C1", mean=rng.normal(size=2) / 3, variance=rng.random(2) + 0.1,
                     weights={"C2": rng.normal(size=2) / 7, "C3": rng.normal(size=2)})
    text = bbn.dumps(net, "hugin")
    assert "continuous node C1" in text
    back = bbn.loads(text, "hugin")
    assert back == net
    for v in ("C1", "C2", "C3"):
        for a, b in zip(back.gaussian_parameters(v), net.gaussian_parameters(v)):
            assert np.array_equal(a, b)  # written exactly
        for y, w in net.gaussian_weights(v).items():
            assert np.array_equal(back.gaussian_weights(v)[y], w)
    assert back.posterior("C2", {"C1": 0.4, "I": "a"}).mean == pytest.approx(
        net.posterior("C2", {"C1": 0.4, "I": "a"}).mean, rel=1e-12)


def test_hugin_normal_errors_are_located():
    bad = CG.replace("3e-1 - C2", "3e-1 - C5")
    with pytest.raises(ParseError, match=r"'C5' in the mean of 'C1' is not a continuous "
                                         r"parent of it \(\['C2', 'C3'\]\)") as error:
        hugin.read(bad)
    assert ":13:14:" in str(error.value) and "normal ( 3e-1 - C5" in str(error.value)
    with pytest.raises(ParseError, match="has 1 normal.*expected 2"):
        hugin.read(CG.replace("normal ( 3e-1 - C2 + C3*2, 0.5 )", ""))
    with pytest.raises(ParseError, match="variance"):
        hugin.read(CG.replace("C3*2, 0.5", "C3*2, -0.5"))


def test_formats_without_continuous_nodes_refuse_them_by_name():
    net = _hand_built()
    for format in ("xmlbif", "bif", "uai"):
        with pytest.raises(FormatError, match="continuous .*'C2'.* .bn or Hugin .net"):
            bbn.dumps(net, format)
    net.add_logistic("D", ["C1"], weights={"C1": 1.0})
    with pytest.raises(FormatError, match="'D', a discrete variable with continuous.*as .bn"):
        bbn.dumps(net, "hugin")
    assert bbn.loads(bbn.dumps(net, "bn"), "bn") == net  # .bn has softmax variables

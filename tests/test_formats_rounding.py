"""Files whose numbers were rounded: rows within the rounding of six printed decimals read
as written; rows rounded harder read with ``normalize=True`` (``--normalize`` on every
command); a row summing to 0 is refused even then, naming the variable and the parents."""

from __future__ import annotations

import re

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main

# The situation of UAI 2014's BN_71 / BN_75: rows printed with six decimals, summing to
# 0.999999 (1e-6 + 3e-17 off after parsing) or 1.000001, next to exact ones.
ROUNDED_UAI = """BAYES
3
2 3 2
3
1 0
2 0 1
3 0 1 2
2
0.999999 0.000000
6
0.333333 0.333333 0.333333
0.500001 0.250000 0.250000
12
0.999999 0.000000
0.000001 0.999999
0.400000 0.600001
0.700000 0.300000
1.000000 0.000001
0.500000 0.500000
"""

# A network whose rows the formats write, made wrong by replacing one number
A_ROOT = [0.25, 0.75]
B_GIVEN_A = [[0.4, 0.6], [0.1, 0.9]]


def _network() -> bbn.Network:
    net = bbn.Network("n")
    net.add_variable("A", ["a0", "a1"], table=A_ROOT)
    net.add_variable("B", ["b0", "b1"], parents=["A"], table=B_GIVEN_A)
    return net


def _text(fmt: str, *changes: tuple[str, str]) -> str:
    text = bbn.dumps(_network(), fmt)
    for old, new in changes:
        assert len(re.findall(rf"(?<![\d.]){re.escape(old)}(?![\d])", text)) == 1, (fmt, old)
        text = re.sub(rf"(?<![\d.]){re.escape(old)}(?![\d])", new, text)
    return text


def test_rows_rounded_to_six_decimals_read_as_written():
    net = bbn.loads(ROUNDED_UAI, "uai", "BN_71.uai")
    assert net.cpt_array("X0").tolist() == [0.999999, 0.0]  # kept, not rescaled
    assert net.cpt_array("X1")[0].tolist() == [0.333333] * 3
    assert net.cpt_array("X2")[1, 1].tolist() == [1.0, 0.000001]


def test_a_row_beyond_the_rounding_needs_normalize_which_rescales_every_row():
    text = ROUNDED_UAI.replace("0.999999 0.000000\n6", "0.99 0.0\n6")
    with pytest.raises(bbn.ParseError) as caught:
        bbn.loads(text, "uai", "BN_75.uai")
    assert str(caught.value).splitlines()[0] == (
        "BN_75.uai:8:1: table 0: P(X0) sums to 0.99, not 1 (tolerance 2e-06); pass "
        "normalize=True (--normalize on the command line) to rescale rows")
    net = bbn.loads(text, "uai", "BN_75.uai", normalize=True)
    assert net.cpt_array("X0").tolist() == [1.0, 0.0]
    # every row is rescaled, also those already within the tolerance
    np.testing.assert_allclose(net.cpt_array("X1").sum(axis=-1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(net.cpt_array("X1")[1], np.array([0.500001, 0.25, 0.25])
                               / 1.000001, rtol=1e-15)


@pytest.mark.parametrize("fmt", ["bn", "bif", "xmlbif", "hugin", "uai"])
def test_every_reader_normalizes_on_request(fmt):
    text = _text(fmt, ("0.75", "0.5"))  # P(A) = 0.25, 0.5: sums to 0.75
    with pytest.raises(bbn.ParseError, match=r"sums to 0\.75, not 1 \(tolerance 2e-06\)"):
        bbn.loads(text, fmt)
    net = bbn.loads(text, fmt, normalize=True)
    first = net.variables[0]
    assert net.cpt_array(first).tolist() == [1 / 3, 2 / 3]
    assert net.cpt_array(net.variables[1]).tolist() == B_GIVEN_A


@pytest.mark.parametrize("fmt, where", [
    ("bn", "P(B | A=a1)"), ("bif", "P(B | A=a1)"), ("xmlbif", "P(B | A=a1)"),
    ("hugin", "P(B | A=a1)"), ("uai", "P(X1 | X0=1)")])
def test_a_row_summing_to_zero_is_refused_even_when_normalizing(fmt, where):
    text = _text(fmt, ("0.1", "0.0"), ("0.9", "0.0"))
    with pytest.raises(bbn.ParseError, match=re.escape(
            f"{where} sums to 0.0: only a row with a positive sum can be normalised")):
        bbn.loads(text, fmt, normalize=True)


def test_load_normalizes_a_file(tmp_path):
    path = tmp_path / "rounded.bif"
    path.write_text(_text("bif", ("0.75", "0.5")))
    with pytest.raises(bbn.ParseError, match="normalize=True"):
        bbn.load(path)
    assert bbn.load(path, normalize=True).cpt_array("A").tolist() == [1 / 3, 2 / 3]


def test_network_assemble_and_set_cpts_normalize_tables_of_mixed_widths():
    states = {"A": ["a", "b"], "B": ["x", "y", "z"]}
    net = bbn.Network.assemble("n", states, {"B": ["A"]},
                               {"A": np.array([1.0, 3.0]),
                                "B": np.array([1.0, 1.0, 2.0, 0.0, 0.0, 5.0])},
                               normalize=True)
    assert net.cpt_array("A").tolist() == [0.25, 0.75]
    assert net.cpt_array("B").tolist() == [[0.25, 0.25, 0.5], [0.0, 0.0, 1.0]]
    net.set_cpts({"A": np.array([2.0, 2.0])}, normalize=True)
    assert net.cpt_array("A").tolist() == [0.5, 0.5]
    with pytest.raises(bbn.ModelError, match=r"P\(B \| A=b\) sums to 0\.0"):
        net.set_cpts({"B": np.array([1.0, 1.0, 2.0, 0.0, 0.0, 0.0])}, normalize=True)


# ----------------------------------------------------------------- the command line
def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def rounded(tmp_path):
    path = tmp_path / "rounded.bif"
    path.write_text(_text("bif", ("0.75", "0.5")))
    (tmp_path / "data.csv").write_text("A,B\na0,b0\na1,b1\na1,b1\n")
    return path


@pytest.mark.parametrize("command", [
    ["query", "{model}", "P(A)"], ["info", "{model}"], ["check", "{model}"],
    ["convert", "{model}", "{dir}/out.net"], ["learn", "{model}", "{dir}/data.csv"],
    ["classify", "{model}", "{dir}/data.csv", "--target", "B"], ["render", "{model}"]])
def test_every_command_that_reads_a_model_takes_normalize(capsys, rounded, command):
    argv = [a.format(model=rounded, dir=rounded.parent) for a in command]
    code, _, err = _cli(capsys, *argv)
    assert code == 2 and "sums to 0.75" in err and "--normalize" in err
    code, out, err = _cli(capsys, *argv, "--normalize")
    assert code == 0, err
    if command[0] == "query":
        assert out.split()[-4:] == ["a0", "0.333333", "a1", "0.666667"]
    if command[0] == "convert":
        assert bbn.load(rounded.parent / "out.net").cpt_array("A").tolist() == [1 / 3, 2 / 3]


def test_each_row_gets_the_tolerance_of_its_width_when_tables_are_validated_together():
    states = {"A": ["a", "b"], "B": ["x", "y", "z"]}
    off = {"A": np.array([0.5, 0.5]), "B": np.array([0.5, 0.25, 0.2499978] * 2)}  # 2.2e-6
    net = bbn.Network.assemble("n", states, {"B": ["A"]}, off)  # 3 numbers: 2.5e-6
    assert net.cpt_array("B")[1].tolist() == [0.5, 0.25, 0.2499978]
    with pytest.raises(bbn.ModelError, match=r"P\(A\) sums to 0\.999997.*tolerance 2e-06"):
        bbn.Network.assemble("n", states, {"B": ["A"]},
                             {"A": np.array([0.5, 0.4999978]), "B": off["B"]})
    with pytest.raises(bbn.ModelError, match=r"P\(B \| A=a\) sums to .*tolerance 2\.5e-06"):
        bbn.Network.assemble("n", states, {"B": ["A"]},
                             {"A": off["A"], "B": np.array([0.5, 0.25, 0.249997] * 2)})

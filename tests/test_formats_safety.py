"""Readers on hostile input: declared sizes are checked before anything is expanded, and
every mistake is one of bbn's own errors, located, quoting at most ~200 characters.

Each file here is tiny; the sizes it declares are not. Every test runs under a small
memory limit, so a reader that expanded first would be refused by nothing and would
allocate gigabytes: these tests would then take minutes, not milliseconds.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import QUOTE_LIMIT, BBNError, DataError, MemoryLimitError, ParseError

LIMIT = 1 << 20  # 1 MiB: any table of 2**17 entries or more is refused


@pytest.fixture(autouse=True)
def small_limit(memory_limit):
    memory_limit(LIMIT)


def _names(k: int) -> list[str]:
    return [f"P{i}" for i in range(k)]


def bn_text(k: int, rows: bool) -> str:
    text = "".join(f"variable {p} {{a, b}}\n" for p in _names(k)) + "variable X {a, b}\n"
    header = f"P(X | {', '.join(_names(k))})"
    if rows:
        return text + f"{header} {{ {', '.join(['a'] * k)}: 0.5, 0.5 }}\n"
    return text + f"{header} = 0.5, 0.5\n"


def bif_text(k: int, body: str) -> str:
    text = "network n { }\n" + "".join(
        f"variable {p} {{ type discrete [ 2 ] {{ a, b }}; }}\n" for p in _names(k))
    text += "variable X { type discrete [ 2 ] { a, b }; }\n"
    return text + f"probability ( X | {', '.join(_names(k))} ) {{ {body} }}\n"


def hugin_text(k: int) -> str:
    text = "".join(f'node {p} {{ states = ("a" "b"); }}\n' for p in _names(k))
    return text + (f'node X {{ states = ("a" "b"); }}\n'
                   f"potential (X | {' '.join(_names(k))}) {{ data = (0.5 0.5); }}\n")


def xmlbif_text(k: int) -> str:
    variables = "".join(f"<VARIABLE><NAME>{p}</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME>"
                        "</VARIABLE>\n" for p in [*_names(k), "X"])
    given = "".join(f"<GIVEN>{p}</GIVEN>" for p in _names(k))
    return (f"<BIF><NETWORK><NAME>n</NAME>\n{variables}<DEFINITION><FOR>X</FOR>{given}\n"
            "<TABLE>0.5 0.5</TABLE></DEFINITION></NETWORK></BIF>\n")


# (format, text, the location the refusal names, what it names)
HUGE = [
    ("bn", bn_text(30, rows=True), "<string>:32:1:", "'X' (30 parents) needs 16.0 GiB"),
    ("bn", bn_text(40, rows=True), "<string>:42:1:", "'X' (40 parents)"),
    ("bn", bn_text(50, rows=False), "<string>:52:1:", "'X' (50 parents)"),
    ("bif", bif_text(26, "default 0.5, 0.5;"), "<string>:29:15:", "'X' (26 parents) needs 1.0 GiB"),
    ("bif", bif_text(60, "(" + ", ".join(["a"] * 60) + ") 0.5, 0.5;"), "<string>:63:15:",
     "'X' (60 parents)"),
    ("bif", bif_text(40, "table 0.5, 0.5;"), "<string>:43:15:", "'X' (40 parents)"),
    ("uai", "BAYES\n1\n1000000000\n1\n1 0\n2 0.5 0.5\n", "<string>:3:1:",
     "the 1000000000 state names"),
    ("uai", "BAYES 3\n300 300 2\n3\n1 0\n1 1\n3 0 1 2\n2 .5 .5\n", "<string>:6:1:",
     "table 2 (of X2) needs 1.4 MiB"),
    ("hugin", hugin_text(40), "<string>:42:", "'X' (40 parents) needs 16.0 TiB"),
    ("xmlbif", xmlbif_text(40), "<string>:44:1:", "'X' (40 parents) needs 16.0 TiB"),
]


@pytest.mark.parametrize(("fmt", "text", "where", "what"), HUGE,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(HUGE)])
def test_a_declared_table_above_the_limit_is_refused_before_it_is_made(fmt, text, where,
                                                                        what):
    assert len(text) < 5000
    with pytest.raises(MemoryLimitError) as error:
        bbn.loads(text, format=fmt)
    message = str(error.value)
    assert message.startswith(where), message
    assert what in message
    assert "above the memory limit of 1.0 MiB" in message


def test_a_default_line_over_many_configurations_is_filled_with_numpy():
    """13 parents: 8192 configurations, beyond the row keys the fast layer spells out; two
    rows and a default line give the table a brute-force fill gives."""
    k = 13
    rows = "(" + ", ".join(["b"] * k) + ") 0.1, 0.9; (" + ", ".join(["a"] * (k - 1) + ["b"]) \
        + ") 0.3, 0.7; default 0.6, 0.4;"
    net = bbn.loads(bif_text(k, rows), format="bif")
    table = net.cpt_array("X").reshape(-1, 2)
    expected = np.tile([0.6, 0.4], (2 ** k, 1))
    expected[-1] = [0.1, 0.9]   # b, b, ..., b: the last configuration
    expected[1] = [0.3, 0.7]    # a, ..., a, b: the last parent varies fastest
    assert np.array_equal(table, expected)


def test_a_rows_table_missing_most_rows_counts_them_without_listing_them():
    """15 parents (under the limit), one row given: the first missing row and the count."""
    with pytest.raises(ParseError, match=r"no row for P0=a, .*, P14=b \(and 32766 more\)"):
        bbn.loads(bn_text(15, rows=True), format="bn")


# ---------------------------------------------------------------- only bbn's errors
ODD = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("char", ODD, ids=[f"U+{ord(c):04X}" for c in ODD])
def test_bn_odd_whitespace_is_a_located_parse_error(char):
    with pytest.raises(ParseError) as error:
        bbn.loads(char)
    assert (error.value.line, error.value.column) == (1, 1)
    # a line is what ends at LF: the character is counted in its line's columns
    text = f"variable A {{ a, b }}{char}\nP(A) = 0.5, 0.5"
    with pytest.raises(ParseError) as error:
        bbn.loads(text)
    assert (error.value.line, error.value.column) == (1, 20)
    assert f"found {char!r}" in error.value.message
    shown = str(error.value).splitlines()
    assert len(shown) == 3 and shown[2].index("^") == shown[1].index("\ufffd")


@pytest.mark.parametrize(("fmt", "text", "line", "column", "message"), [
    ("xmlbif", "<BIF><NETWORK><VARIABLE><NAME>A</NAME><OUTCOME>a</OUTCOME><OUTCOME>b"
               "</OUTCOME></VARIABLE>\n<DEFINITION><FOR>A</FOR><TABLE>\u0661 0</TABLE>"
               "</DEFINITION></NETWORK></BIF>", 2, 25, "malformed number '\u0661'"),
    ("xmlbif", "\r", 2, 1, "malformed XML"),
    ("xmlbif", "<BIF>\r\n<NETWORK>\r<x>\ud800</x>", 3, 4, "lone surrogate"),
    ("uai", "BAYES 1 \u00b2", 1, 9, "found '\u00b2'"),
    ("uai", "BAYES 1 \u0663 1 1 0 3 .2 .3 .5", 1, 9, "found '\u0663'"),
    ("uai", "BAYES\n1\n\uff11", 3, 1, "found '\uff11'"),
    ("hugin", 'node A { states = ("a" "b"); }\npotential (A) { data = ' + "(" * 120 + "x"
              + ")" * 120 + "; }", 2, 143, "nested too deeply"),
    ("bif", "variable A { type discrete [ 2 ] { a, b }; }\n"
            "probability ( A ) { table \u0661, 0; }", 2, 27, "malformed number '\u0661'"),
    ("bif", "variable A { type discrete [ \u0662 ] { a, b }; }", 1, 30, "expected"),
    ("hugin", 'node A { states = ("a" "b"); }\npotential (A) { data = (\u0661 0); }', 2, 25,
     "expected a number, found '\u0661'"),
    ("bn", "variable A { a, b }\nP(A) = \u0661, 0", 2, 8, "expected"),
])
def test_unicode_digits_and_odd_input_are_located_parse_errors(fmt, text, line, column,
                                                               message):
    """Numbers are ASCII in every reader (one helper, bbn.io.formats._text.is_number)."""
    with pytest.raises(ParseError) as error:
        bbn.loads(text, format=fmt)
    assert (error.value.line, error.value.column) == (line, column), str(error.value)
    assert message in error.value.message


# ------------------------------------------------------------ short quotes
def _caret_char(error: ParseError) -> str:
    _, shown, caret = str(error).splitlines()[-3:]
    return shown[caret.index("^")]


@pytest.mark.parametrize("fmt", ["bn", "bif", "xmlbif", "uai", "hugin"])
def test_a_huge_line_is_quoted_in_at_most_200_characters(fmt):
    net = bbn.loads("variable A { a, b }  P(A) = 0.5, 0.5")
    pad = " " * 700_000
    text = bbn.dumps(net, fmt).replace("0.5", pad + "0.5 !" + pad, 1)
    with pytest.raises(BBNError) as error:
        bbn.loads(text, format=fmt)
    message = str(error.value)
    assert len(message) < 2 * QUOTE_LIMIT + 300, message[:500]


def test_the_caret_points_into_a_clipped_line():
    text = "variable A { a, b }\nP(A) = " + "0.5, " * 2000 + "x, " + "0.5, " * 2000 + "0.5"
    with pytest.raises(ParseError) as error:
        bbn.loads(text)
    assert error.value.column == 8 + 5 * 2000
    assert _caret_char(error.value) == "x"
    assert all(len(line) <= QUOTE_LIMIT + 10 for line in str(error.value).splitlines()[1:])


def test_a_huge_csv_cell_is_quoted_in_at_most_200_characters(chair):
    data = pd.DataFrame({v: [chair.states(v)[0]] * 3 for v in chair.variables})
    data.iloc[1, 0] = "y" * 10_000_000
    with pytest.raises(DataError) as error:
        bbn.learn(chair, data)
    assert "row 1" in str(error.value)
    assert len(str(error.value)) < 2 * QUOTE_LIMIT + 200
    assert re.search(r"'y+ \.\.\. y+'", str(error.value))


def unary_parents(fmt: str, k: int) -> str:
    """X with k parents of one state each: a table of 2 entries and k + 1 axes."""
    names = _names(k)
    if fmt == "bn":
        return ("".join(f"variable {p} {{a}}\n" for p in names) + "variable X {a, b}\n"
                + f"P(X | {', '.join(names)}) = 0.5, 0.5\n")
    if fmt == "bif":
        return ("".join(f"variable {p} {{ type discrete [ 1 ] {{ a }}; }}\n" for p in names)
                + "variable X { type discrete [ 2 ] { a, b }; }\n"
                + f"probability ( X | {', '.join(names)} ) {{ table 0.5, 0.5; }}\n")
    if fmt == "hugin":
        return ("".join(f'node {p} {{ states = ("a"); }}\n' for p in names)
                + 'node X { states = ("a" "b"); }\n'
                + f"potential (X | {' '.join(names)}) {{ data = (0.5 0.5); }}\n")
    if fmt == "uai":
        return (f"BAYES {k + 1}\n" + " ".join(["1"] * k) + " 2\n" + f"{k + 1}\n"
                + "".join(f"1 {i}\n" for i in range(k))
                + f"{k + 1} " + " ".join(map(str, range(k + 1))) + "\n"
                + "1 1.0\n" * k + "2 0.5 0.5\n")
    return ("<BIF><NETWORK>\n" + "".join(f"<VARIABLE><NAME>{p}</NAME><OUTCOME>a</OUTCOME>"
                                         "</VARIABLE>\n" for p in names)
            + "<VARIABLE><NAME>X</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME></VARIABLE>\n"
            + "<DEFINITION><FOR>X</FOR>" + "".join(f"<GIVEN>{p}</GIVEN>" for p in names)
            + "\n<TABLE>0.5 0.5</TABLE></DEFINITION></NETWORK></BIF>\n")


@pytest.mark.parametrize("fmt", ["bn", "bif", "hugin", "uai", "xmlbif"])
def test_64_parents_are_refused_and_63_read(fmt):
    """numpy arrays have at most 64 axes: a table has one per parent and one for the
    child (numpy's ValueError before, even for parents of one state)."""
    with pytest.raises(ParseError, match="at most 63 parents") as error:
        bbn.loads(unary_parents(fmt, 64), format=fmt)
    assert error.value.line == {"bn": 66, "bif": 66, "hugin": 66, "uai": 68,
                                "xmlbif": 68}[fmt]
    net = bbn.loads(unary_parents(fmt, 63), format=fmt)
    child = net.variables[-1]
    assert len(net.parents(child)) == 63
    assert net.cpt_array(child).reshape(-1).tolist() == [0.5, 0.5]


@pytest.mark.parametrize(("fmt", "text"), [
    ("bif", "variable A { type discrete [ " + "9" * 5000 + " ] { a, b }; }"),
    ("uai", "BAYES 1 " + "9" * 5000 + " 1 1 0 2 .5 .5"),
    ("uai", "BAYES " + "9" * 5000),
])
def test_a_count_of_5000_digits_is_a_parse_error(fmt, text):
    """Python's int() refuses strings over 4300 digits with a ValueError."""
    with pytest.raises(ParseError, match="expected the number of"):
        bbn.loads(text, format=fmt)


def test_a_long_run_of_digits_before_a_statement_is_reported_quickly():
    """Found by the fuzzing: in the missing-comma check, 800 digits took 6 s and 20 000
    far longer (every split of the digits was tried); the error is the same."""
    text = "9" * 20_000 + "00network x\nvariable C { T, F }\nP(C) = 0.8, 0.2\n"
    with pytest.raises(ParseError, match="expected a statement") as error:
        bbn.loads(text)
    assert (error.value.line, error.value.column) == (1, 1)

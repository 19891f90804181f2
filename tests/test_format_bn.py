"""The .bn model language: reading, writing, round trips and every error path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import AWKWARD_NAMES, networks, random_network

import bbn
from bbn.io.formats import bn

CHAIR = """\
# The back-ache network
network "Back ache"
variable C "the chair is uncomfortable" { T, F }
variable S "does sport" { T, F }
variable W "is a worker" { T, F }
variable B "back is injured" { T, F }
variable A "back aches" { T, F }
P(C) = 0.8, 0.2
P(S) = 0.02, 0.98
P(W | C) { T: 0.9, 0.1;  F: 0.01, 0.99 }
P(B | C, S) {
  T, T: 0.9, 0.1
  T, F: 0.2, 0.8
  F, T: 0.9, 0.1
  F, F: 0.01, 0.99
}
P(A | B) { T: 0.7, 0.3;  F: 0.1, 0.9 }
"""

#: the variables of CHAIR, for error tests that only need declarations (lines 1-2)
DECLARED = "variable C { T, F }\nvariable W { T, F }\n"


# ------------------------------------------------------------------- reading
def test_the_issue_sketch_parses_into_the_chair_network():
    net = bn.read(CHAIR, "chair.bn")
    assert net.name == "Back ache"
    assert net.variables == ("C", "S", "W", "B", "A")
    assert net.description("B") == "back is injured"
    assert net.parents("B") == ("C", "S") and net.states("B") == ("T", "F")
    assert net.cpt_array("C").tolist() == [0.8, 0.2]
    assert net.cpt_array("W").tolist() == [[0.9, 0.1], [0.01, 0.99]]
    assert net.cpt_array("B").tolist() == [[[0.9, 0.1], [0.2, 0.8]],
                                           [[0.9, 0.1], [0.01, 0.99]]]
    assert net.cpt_array("A").tolist() == [[0.7, 0.3], [0.1, 0.9]]
    assert net.free_parameters() == 10


def test_rows_may_come_in_any_order_and_are_matched_by_state_name():
    text = DECLARED + "P(C) = 0.5, 0.5\nP(W | C) { F: 0.25, 0.75\n T: 1, 0 }"
    assert bn.read(text).cpt_array("W").tolist() == [[1.0, 0.0], [0.25, 0.75]]


def test_compact_table_is_row_major_with_the_last_parent_fastest():
    text = ("variable A { a1, a2 }\nvariable B { b1, b2, b3 }\nvariable X { x, y }\n"
            "P(A) = 0.5, 0.5\nP(B) = 0.2, 0.3, 0.5\n"
            "P(X | A, B) = 0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6, 0.5, 0.5, 0.6, 0.4")
    table = bn.read(text).cpt_array("X")
    assert table.shape == (2, 3, 2)
    assert table[0, 2].tolist() == [0.3, 0.7]      # A=a1, B=b3
    assert table[1, 0].tolist() == [0.4, 0.6]      # A=a2, B=b1


def test_numbers_may_be_integers_decimals_or_exponents():
    text = ('variable X { a, b, c, d, e, f }\n'
            'P(X) = 0, 1e-1, .25, 5E-2, +0.3, 3.e-1')
    assert bn.read(text).cpt_array("X").tolist() == [0.0, 0.1, 0.25, 0.05, 0.3, 0.3]


def test_comments_whitespace_and_semicolons_go_anywhere_between_tokens():
    text = ("# heading\r\nvariable C # the name\n { T, # first\n F } ;\n"
            "variable W { T, F }\nP(C) = 0.5, # half\n 0.5;\n"
            "P(W | C) {  # a table\n  T # the key\n : 0.9, 0.1 ;  # end of row\n"
            "  # between rows: T: 7, 7\n  F: 0.5, 0.5  }\n# trailer")
    net = bn.read(text)
    assert net.states("C") == ("T", "F")
    assert net.cpt_array("C").tolist() == [0.5, 0.5]
    assert net.cpt_array("W").tolist() == [[0.9, 0.1], [0.5, 0.5]]


def test_a_hash_inside_quotes_is_not_a_comment_and_a_quote_inside_a_comment_is_ignored():
    text = ('variable "a#b" "see #3" { "#", x }  # a "comment\n'
            'P("a#b") = 0.5, # "half\n 0.5')
    net = bn.read(text)
    assert net.variables == ("a#b",) and net.states("a#b") == ("#", "x")
    assert net.description("a#b") == "see #3"
    assert net.cpt_array("a#b").tolist() == [0.5, 0.5]


def test_quoted_names_and_states_hold_any_character():
    text = r'''
network "Asia, \"chest clinic\""
variable "Lung Parench" "lung \\ parenchyma" { yes, no }
variable Age { "<5", "12+", 5-11 }
variable "Asy/Patch" { "a b", "tab\there", "new\nline" }
P(Age) = 0.2, 0.3, 0.5
P("Lung Parench" | Age) { "12+": 0.3, 0.7; "<5": 0.1, 0.9; 5-11: 0.2, 0.8 }
P("Asy/Patch" | "Lung Parench", Age) {
  yes, "<5": 1, 0, 0
  yes, 5-11: 0, 1, 0
  yes, "12+": 0, 0, 1
  no, "<5": 0.5, 0.5, 0
  no, 5-11: 0.5, 0, 0.5
  no, "12+": 0, 0.5, 0.5
}
'''
    net = bn.read(text)
    assert net.name == 'Asia, "chest clinic"'
    assert net.variables == ("Lung Parench", "Age", "Asy/Patch")
    assert net.description("Lung Parench") == "lung \\ parenchyma"
    assert net.states("Age") == ("<5", "12+", "5-11")
    assert net.states("Asy/Patch") == ("a b", "tab\there", "new\nline")
    assert net.cpt_array("Lung Parench").tolist() == [[0.1, 0.9], [0.3, 0.7], [0.2, 0.8]]
    assert net.cpt_array("Asy/Patch")[1, 1].tolist() == [0.0, 0.5, 0.5]   # no, "12+"
    assert net.cpt_array("Asy/Patch")[1, 2].tolist() == [0.5, 0.0, 0.5]   # no, 5-11


def test_numbers_and_keywords_work_as_plain_names():
    text = ("variable network { 0, 1.5, -2, +3e5 }\nvariable P { variable, P }\n"
            "P(network) = 0.25, 0.25, 0.25, 0.25\n"
            "P(P | network) { 0: 1, 0; 1.5: 0, 1; -2: 0.5, 0.5; +3e5: 0.1, 0.9 }")
    net = bn.read(text)
    assert net.states("network") == ("0", "1.5", "-2", "+3e5")
    assert net.cpt_array("P")[3].tolist() == [0.1, 0.9]


def test_structure_only_declares_parents_without_tables():
    text = DECLARED + "variable B { T, F }\nP(W | C)\nP(B | C, W)\n"
    net = bn.read(text)
    assert net.parents("B") == ("C", "W") and net.parents("W") == ("C",)
    assert not any(net.has_cpt(v) for v in net.variables)
    assert not net.is_complete
    assert bn.read(bn.write(net)) == net


def test_a_table_may_come_before_the_declarations_it_uses():
    text = "P(W | C) { T: 1, 0; F: 0, 1 }\n" + DECLARED + "P(C) = 1, 0"
    net = bn.read(text)
    assert net.variables == ("C", "W") and net.parents("W") == ("C",)


def test_the_network_is_named_after_the_file_when_the_file_does_not_name_it(tmp_path):
    path = tmp_path / "alarm.bn"
    path.write_text(DECLARED)
    assert bbn.load(path).name == "alarm"
    assert bn.read(DECLARED).name == "network"


def test_byte_order_mark_and_windows_line_ends_are_accepted(tmp_path):
    path = tmp_path / "win.bn"
    path.write_bytes(("\ufeff" + CHAIR).replace("\n", "\r\n").encode("utf-8"))
    assert bbn.load(path) == bn.read(CHAIR)


# ------------------------------------------------------------------- writing
def test_writer_output_looks_hand_written(chair_file):
    """The writer lays a network out exactly as models/chair.bn is written, comments aside."""
    by_hand = "".join(line for line in chair_file.read_text().splitlines(keepends=True)
                      if not line.startswith("#")).lstrip("\n")
    assert by_hand.startswith('network "Back ache"\n\nvariable C "the chair')
    assert bn.write(bn.read(CHAIR)) == by_hand


def test_writer_quotes_only_names_that_need_it():
    net = bbn.Network("x")
    net.add_variable("Lung Parench", ["12+", "<5", "Asy/Patch", 'say "hi"', "a\\b", "1.5"],
                     description="line\nbreak", table=[0.5, 0.5, 0, 0, 0, 0])
    text = bn.write(net)
    assert ('variable "Lung Parench" "line\\nbreak" '
            '{ 12+, "<5", "Asy/Patch", "say \\"hi\\"", "a\\\\b", 1.5 }') in text
    assert 'P("Lung Parench") = 0.5, 0.5, 0.0, 0.0, 0.0, 0.0' in text
    assert bn.read(text) == net


def test_floats_round_trip_to_the_last_bit():
    net = bbn.Network("bits")
    third = 1 / 3
    net.add_variable("X", ["a", "b", "c"], table=[third, third, 1 - 2 * third])
    net.add_variable("Y", ["a", "b"], parents=["X"],
                     table=[[0.1 + 0.2, 1 - (0.1 + 0.2)], [5e-324, 1 - 5e-324],
                            [1 - 1e-17, 1e-17]])
    back = bn.read(bn.write(net))
    assert back == net
    assert back.cpt_array("Y")[0, 0] == 0.30000000000000004


def test_shipped_models_round_trip(models, tmp_path):
    paths = sorted(models.glob("*.bn"))
    assert {p.name for p in paths} >= {"chair.bn", "monty_hall.bn", "shapes.bn"}
    structure_only = {"tennis.bn", "clusters.bn"}  # docs/learning.md learns their tables
    for path in paths:
        net = bbn.load(path)
        assert (net.is_complete and net.validate() == []) != (path.name in structure_only)
        assert bbn.loads(bbn.dumps(net)) == net
        copy = tmp_path / (path.stem + ".bn.gz")
        bbn.save(net, copy)
        assert bbn.load(copy) == net


def test_shipped_shapes_model_reproduces_the_joint_table(models):
    net = bbn.load(models / "shapes.bn")
    joint = np.einsum("k,kc,kcs->kcs", net.cpt_array("category"), net.cpt_array("colour"),
                      net.cpt_array("shape"))
    expected = [[[0.2, 0.02], [0.02, 0.01]], [[0.05, 0.3], [0.2, 0.2]]]
    np.testing.assert_allclose(joint, expected, rtol=0, atol=1e-15)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks(names="awkward", complete=False))
def test_random_networks_round_trip(net):
    assert bn.read(bn.write(net)) == net


def test_many_seeded_random_networks_round_trip():
    for seed in range(40):
        net = random_network(seed, names="awkward")
        assert bn.read(bn.write(net)) == net


def test_awkward_names_each_round_trip_as_variable_state_and_network_name():
    for name in AWKWARD_NAMES:
        net = bbn.Network(name)
        net.add_variable(name, [name, name + "!"], description=name, table=[0.5, 0.5])
        assert bn.read(bn.write(net)) == net, name


@pytest.mark.parametrize("name", ["asia", "alarm", "child", "insurance", "hailfinder",
                                  "win95pts", "andes", "pigs"])
def test_shared_networks_round_trip_through_bn(shared, name):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    assert bn.read(bn.write(net)) == net


def test_a_table_of_100k_numbers_reads_back_exactly_in_both_forms():
    rng = np.random.default_rng(1)
    net = bbn.Network("big")
    for i in range(6):
        net.add_variable(f"P{i}", [f"s{j}" for j in range(5)], table=np.full(5, 0.2))
    table = rng.random((5,) * 6 + (6,))
    net.add_variable("X", [f"x{j}" for j in range(6)], parents=[f"P{i}" for i in range(6)],
                     table=table / table.sum(axis=-1, keepdims=True))
    text = bn.write(net)
    compact = (text.split("\nP(X |")[0] + "\nP(X | P0, P1, P2, P3, P4, P5) = "
               + ", ".join(map(repr, net.cpt_array("X").ravel().tolist())))
    for form in (text, compact):  # its speed is in docs/format.md, not asserted here
        assert bn.read(form) == net


# -------------------------------------------------------------------- errors
ERRORS = [
    # (text, line, column, message fragment)
    ("variable C { T, F", 1, 18,
     "expected ',' or '}' to close the states of variable 'C', found the end of the file"),
    ("variable C { T F }", 1, 16,
     "expected ',' or '}' to close the states of variable 'C', found 'F'"),
    ("variable C T", 1, 12, "expected '{' to open the states of variable 'C'"),
    ("variable { T }", 1, 10, "expected a variable name after 'variable', found '{'"),
    ("variable C { }", 1, 14, "expected a state name of variable 'C', found '}'"),
    ("\nfoo", 2, 1, "expected a statement: 'network', 'variable', 'P(...)', 'decision' or "
                    "'utility', found 'foo'"),
    ("network", 1, 8, "expected a name for the network after 'network'"),
    ('variable C "desc { T }', 1, 12, "unterminated quoted string"),
    ('variable "C\\d" { a }', 1, 12, "unknown escape '\\d' in a quoted string"),
    ("network a\nnetwork b", 2, 9, "the network is named twice (first at line 1"),
    ("variable C { a, a }", 1, 17, "variable 'C' lists state 'a' twice"),
    (DECLARED + "variable C { a }", 3, 10, "variable 'C' is declared twice (first at line 1)"),
    ('variable C { "" }', 1, 10, "variable 'C' has an empty state name"),
    (DECLARED + "P W", 3, 3, "expected '(' after 'P', found 'W'"),
    (DECLARED + "P(W C)", 3, 5, "expected '|' or ')' after 'P(W', found 'C'"),
    (DECLARED + "P(W |) = 1", 3, 6, "expected a parent name after '|' or ',', found ')'"),
    (DECLARED + "P(C) =", 3, 7, "expected the probabilities of 'C' after '='"),
    (DECLARED + "P(C) = 0.8 0.2", 3, 12, "expected ',' between two numbers, found '0.2'"),
    (DECLARED + "P(C) = 0.8,\n  x", 4, 3, "expected a number after ',', found 'x'"),
    (DECLARED + "P(X) = 0.8, 0.2", 3, 3, "table for undeclared variable 'X'"),
    (DECLARED + "P(Wx | C)", 3, 3, "table for undeclared variable 'Wx' (did you mean 'W'?)"),
    (DECLARED + "P(W | X)", 3, 7, "unknown parent 'X' of 'W'"),
    (DECLARED + "P(W | C, C)", 3, 10, "parent 'C' of 'W' is listed twice"),
    (DECLARED + "P(W | C)\n\nP(W | C)", 5, 1,
     "a second P(W ...) statement; the first is at line 3"),
    (DECLARED + "P(W | C)\nP(C | W)", 4, 1, "would create the cycle C -> W -> C"),
    (DECLARED + "P(C) { 0.5, 0.5 }", 3, 6, "P(C) has no parents, so its table is one row"),
    (DECLARED + "P(C) = 0.8, 0.3", 3, 8, "P(C) sums to 1.1, not 1 (tolerance 2e-06)"),
    (DECLARED + "P(C) = 0.8, 0.1, 0.1", 3, 18,
     "P(C) needs 2 probabilities (one for each state: T, F), got 3"),
    (DECLARED + "P(C) = 1", 3, 8, "P(C) needs 2 probabilities (one for each state: T, F), got 1"),
    (DECLARED + "P(C) = 1e999, 0", 3, 8, "1e999 in P(C) is not a finite number"),
    (DECLARED + "P(W | C) = 0.5, 0.5, 0.5", 3, 12,
     "P(W | C) needs 4 numbers (2 parent configurations × 2 states"),
    (DECLARED + "P(W | C) = 0.5, 0.5, 0.2, 0.8, 1", 3, 32, "got 5"),
    (DECLARED + "P(W | C) = 0.5, 0.5, 0.3, 0.8", 3, 22,
     "P(W | C=F) sums to 1.1, not 1"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n}", 5, 1, "P(W | C) has no row for C=F"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  T: 0.5, 0.5\n}", 5, 3,
     "two rows for P(W | C=T) (the first at line 4)"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  Fx: 0.5, 0.5\n}", 5, 3,
     "parent 'C' has no state 'Fx' (did you mean 'F'?)"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F: 0.5, 0.5, 0.1\n}", 5, 16,
     "P(W | C=F) needs 2 probabilities (one for each state of 'W': T, F), got 3"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F: 0.6, 0.5\n}", 5, 6,
     "P(W | C=F) sums to 1.1, not 1 (tolerance 2e-06)"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F: 1.5, -0.5\n}", 5, 11,
     "-0.5 in P(W | C=F) is negative"),
    (DECLARED + "P(W | C) {\n  T: 0.9 0.1\n  F: 0.5, 0.5\n}", 4, 10,
     "expected ',' between two numbers, found '0.1'"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F, T: 0.5, 0.5\n}", 5, 3,
     "a row of P(W | C) needs 1 parent state(s) (C), got 2"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F 0.5, 0.5\n}", 5, 5,
     "expected ',' or ':' after the parent states of a row of P(W | C), found '0.5'"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1x\n}", 4, 11,
     "expected a number after ',', found '0.1x'"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F: 0.5, 0.5\n", 6, 1,
     "expected '}' to close the table of P(W | C) (or another row), found the end of the file"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  F: 0.5, 0.5\n}\n}", 7, 1,
     "expected a statement: 'network', 'variable', 'P(...)', 'decision' or 'utility', found '}'"),
    (DECLARED + "P(W | C) {\n  T: 0.9, 0.1\n  : 0.5, 0.5\n}", 5, 3,
     "expected '}' to close the table of P(W | C) (or another row), found ':'"),
    ("\tvariable C { T F }", 1, 17, "expected ',' or '}' to close the states of variable 'C'"),
]


@pytest.mark.parametrize("text, line, column, message", ERRORS,
                         ids=[f"{i}-{e[3][:30]}" for i, e in enumerate(ERRORS)])
def test_every_error_names_its_line_and_column(text, line, column, message):
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(text, "model.bn")
    error = caught.value
    assert message in error.message
    assert (error.source, error.line, error.column) == ("model.bn", line, column)
    assert error.text == text.split("\n")[line - 1]
    assert str(error).startswith(f"model.bn:{line}:{column}: ")


def test_error_message_shows_the_line_and_a_caret():
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(DECLARED + "P(W | C) { T: 0.9, 0.1;  F: 0.01, 0.98 }", "chair.bn")
    assert str(caught.value) == (
        "chair.bn:3:29: P(W | C=F) sums to 0.99, not 1 (tolerance 2e-06)\n"
        "    P(W | C) { T: 0.9, 0.1;  F: 0.01, 0.98 }\n"
        "                                ^")


def test_loading_a_bad_file_names_the_file(tmp_path):
    path = tmp_path / "bad.bn"
    path.write_text(DECLARED + "P(W | C) { T: 0.9, 0.1 }\n")
    with pytest.raises(bbn.ParseError, match=r"bad\.bn:3:24: P\(W \| C\) has no row for C=F"):
        bbn.load(path)


def test_an_error_deep_in_a_large_table_is_located_exactly():
    rows = "\n".join(f"  s{i}: 0.5, 0.5" for i in range(5000))
    text = ("variable A { " + ", ".join(f"s{i}" for i in range(5000)) + " }\n"
            "variable X { x, y }\nP(A) = " + ", ".join(["0.0002"] * 5000) + "\n"
            "P(X | A) {\n" + rows.replace("s4321: 0.5, 0.5", "s4321: 0.5 0.5") + "\n}\n")
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(text)
    assert (caught.value.line, caught.value.column) == (5 + 4321, 14)
    assert caught.value.message == "expected ',' between two numbers, found '0.5'"


def test_every_mistake_of_meaning_is_reported_not_just_the_first():
    text = ("variable C { T, F }\nvariable A { T, F }\n"
            "P(C) = 0.8, 0.3\n"
            "P(A | C) { T: 0.5, 0.6; F: -0.1, 1.1 }\n")
    with pytest.raises(bbn.ParseErrors) as caught:
        bn.read(text, "two.bn")
    error = caught.value
    assert isinstance(error, bbn.ParseError)
    assert [(e.line, e.column, e.message) for e in error.errors] == [
        (3, 8, "P(C) sums to 1.1, not 1 (tolerance 2e-06)"),
        (4, 15, "P(A | C=T) sums to 1.1, not 1 (tolerance 2e-06)"),
        (4, 28, "-0.1 in P(A | C=F) is negative"),
    ]
    assert (error.line, error.column) == (3, 8)     # it reads as the first one
    assert str(error) == "\n".join(str(e) for e in error.errors)


def test_mistakes_in_declarations_stop_before_tables_echo_them():
    text = ("variable C { T, T }\nvariable W { T, F }\nvariable W { a }\n"
            "P(W | C) { T: 1, 0; F: 0, 1 }\nP(Q) = 1\n")
    with pytest.raises(bbn.ParseErrors) as caught:
        bn.read(text)
    assert [(e.line, e.column) for e in caught.value.errors] == [(1, 17), (3, 10)]


def test_mistakes_in_rows_are_all_reported_before_numbers_are_checked():
    text = (DECLARED + "P(W | C) {\n  T: 0.5, 0.5\n  X: 1, 0\n  T: 0.2, 0.8\n  F, T: 1, 0\n}")
    with pytest.raises(bbn.ParseErrors) as caught:
        bn.read(text)
    assert [(e.line, e.column, e.message) for e in caught.value.errors] == [
        (5, 3, "parent 'C' has no state 'X'"),
        (6, 3, "two rows for P(W | C=T) (the first at line 4)"),
        (7, 3, "a row of P(W | C) needs 1 parent state(s) (C), got 2"),
    ]


def test_at_most_twenty_mistakes_are_listed():
    text = "variable X { a, b }\n" + "".join(f"P(Y{i}) = 1\n" for i in range(25))
    with pytest.raises(bbn.ParseErrors) as caught:
        bn.read(text)
    assert len(caught.value.errors) == 20
    assert str(caught.value).endswith("... and 5 more problem(s)")


def test_a_problem_the_network_finds_is_reported_in_the_phase_that_meets_it():
    # the network is built at once; on a problem it is built again phase by phase, and
    # the first phase with mistakes is the last one run
    text = ("variable A { T, F }\nvariable B { T, F }\n"
            "P(A | B) { T: 0.5, 0.5; F: 0.2, 0.8 }\nP(B | A) { T: 0.5, 0.6; F: 0.2, 0.8 }\n")
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(text + 'variable "" { x }\n', "c.bn")
    assert (caught.value.line, caught.value.column, caught.value.message) == (
        5, 10, "a variable needs a non-empty name")
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(text, "c.bn")
    assert (caught.value.line, caught.value.column, caught.value.message) == (
        4, 1, "making ['A'] the parents of 'B' would create the cycle B -> A -> B")


# ------------------------------------------------------------ Gaussian variables
PETS = """\
variable kind { cat, dog }
variable size { small, large }
variable weight "kg" gaussian
variable noise gaussian
P(kind) = 0.4, 0.6
P(size | kind) { cat: 0.9, 0.1; dog: 0.3, 0.7 }
P(weight | kind, size) {
  cat, small: N(4.0, 1.5)
  cat, large: N(6, 2.25)
  dog, small: N(9.5, 4)
  dog, large: N(3e1, 36.0)
}
P(noise) = N(-0.5, 0.25)
"""


def test_gaussian_variables_read_with_one_normal_per_parent_configuration():
    net = bn.read(PETS)
    assert net.is_gaussian("weight") and net.is_gaussian("noise")
    assert net.description("weight") == "kg" and net.parents("weight") == ("kind", "size")
    mean, variance = net.gaussian_parameters("weight")
    assert mean.tolist() == [[4.0, 6.0], [9.5, 30.0]]
    assert variance.tolist() == [[1.5, 2.25], [4.0, 36.0]]
    assert [a.tolist() for a in net.gaussian_parameters("noise")] == [-0.5, 0.25]
    # P(kind=cat | weight=5) by hand: Σ_size P(kind) P(size | kind) N(5; μ, σ²)
    def normal(x, m, v):
        return np.exp(-(x - m) ** 2 / (2 * v)) / np.sqrt(2 * np.pi * v)
    cat = 0.4 * (0.9 * normal(5, 4, 1.5) + 0.1 * normal(5, 6, 2.25))
    dog = 0.6 * (0.3 * normal(5, 9.5, 4) + 0.7 * normal(5, 30, 36))
    assert net.query("P(kind=cat | weight=5)") == pytest.approx(cat / (cat + dog), rel=1e-12)


def test_gaussian_networks_round_trip_exactly(tmp_path):
    net = bn.read(PETS)
    text = bn.write(net)
    assert "variable weight \"kg\" gaussian" in text and "P(noise) = N(-0.5, 0.25)" in text
    assert "  dog, large: N(30.0, 36.0)" in text
    assert bn.read(text) == net
    net.set_gaussian("noise", 0.1 + 0.2, 1 / 3)  # floats that need all their digits
    bbn.save(net, tmp_path / "pets.bn")
    assert bbn.load(tmp_path / "pets.bn") == net
    other = bn.read(PETS.replace("N(-0.5, 0.25)", "N(-0.5, 0.26)"))
    assert other != bn.read(PETS)


def test_a_learned_gaussian_mixture_is_saved_and_loaded(tmp_path):
    """EXAMPLES.md §10's unsupervised naive Bayes, learned by EM, kept as a .bn file."""
    rng = np.random.default_rng(3)
    rows = np.concatenate([rng.normal(0.0, 0.5, 60), rng.normal(5.0, 0.5, 40)])
    net = bbn.Network("mixture")
    net.add_variable("cluster", ["one", "two"])
    net.add_gaussian_variable("x", ["cluster"])
    learned = bbn.learn(net, pd.DataFrame({"x": rows}), missing="em", seed=0)
    bbn.save(learned, tmp_path / "mixture.bn")
    back = bbn.load(tmp_path / "mixture.bn")
    assert back == learned
    assert sorted(back.gaussian_parameters("x")[0].tolist()) == pytest.approx(
        [rows[:60].mean(), rows[60:].mean()], abs=0.05)


GAUSSIAN_ERRORS = [
    ("variable K { a, b }\nvariable x gaussian\nP(x | K) { a: 0.5, 0.5; b: N(1, 2) }", 3, 15,
     "'x' is Gaussian: write N(mean, variance) where the probabilities of a discrete "
     "variable would be"),
    ("variable K { a, b }\nP(K) = N(0, 1)", 2, 10,
     "N(mean, variance) is for a Gaussian variable, and 'K' is discrete"),
    ("variable x gaussian\nP(x) = N(0, 0)", 2, 13,
     "the variance 0 of N(x) must be a finite number > 0"),
    ("variable K { a, b }\nvariable x gaussian\nP(x | K) { a: N(0, 1); b: N(1e999, 2) }", 3,
     29, "the mean 1e999 of N(x | K=b) is not a finite number"),
    ("variable K { a, b }\nvariable x gaussian\nP(x | K) = N(0, 1)", 3, 14,
     "P(x | K): a Gaussian with parents is written as rows"),
    ("variable K { a, b }\nvariable x gaussian\nP(x | K) = N(0, 1), N(1, 1)", 3, 21,
     "expected the end of the table after N(mean, variance)"),
    ("variable K { a, b }\nvariable x gaussian\nP(K | x) = 0.5, 0.5", 3, 1,
     "'x' is continuous (Gaussian) and cannot be a parent of 'K'"),
    ("variable x gaussian\nP(x) = N(0, 1, 2)", 2, 8,
     "expected the probabilities of 'x' after '=' (or N(mean, variance) for a Gaussian)"),
    ("variable K { a, b }\nvariable x gaussian\nP(x | K) { a: N(0, 1) }", 3, 23,
     "P(x | K) has no row for K=b"),
]


@pytest.mark.parametrize("text, line, column, message", GAUSSIAN_ERRORS,
                         ids=[e[3][:30] for e in GAUSSIAN_ERRORS])
def test_every_gaussian_mistake_is_located(text, line, column, message):
    with pytest.raises(bbn.ParseError) as caught:
        bn.read(text, "model.bn")
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (line, column)


def test_a_bad_variance_and_a_bad_row_are_both_reported():
    text = "variable K { a, b }\nvariable x gaussian\nP(x | K) { a: N(0, -1); b: N(1, 0) }"
    with pytest.raises(bbn.ParseErrors) as caught:
        bn.read(text, "model.bn")
    assert [(e.line, e.column) for e in caught.value.errors] == [(3, 20), (3, 33)]


# ---------------------------------------------- the fast path reads like the grammar
#: pieces a mutation inserts: the language's punctuation, keywords, numbers and names
_PIECES = ["{", "}", "(", ")", ",", ";", ":", "=", "|", '"', "\\", "#", "\n", " ", "\t",
           "P", "P(", "variable", "network", "0.5", "1e-3", "-0.1", ".", "x", "T", "F", "é",
           "N", "N(", "N(0, 1)", "gaussian"]


def _outcome(text: str):
    """The network read, or the error's (line, column, message) list."""
    try:
        return bn.read(text, "m.bn")
    except bbn.ParseErrors as errors:
        return [(e.line, e.column, e.message) for e in errors.errors]
    except bbn.ParseError as error:
        return [(error.line, error.column, error.message)]


def _token_grammar_outcome(text: str, monkeypatch):
    """The same, with the whole-statement path switched off (the grammar reads every
    statement token by token)."""
    with monkeypatch.context() as patch:
        patch.setattr(bn.statements, "_statement_at", lambda text, loc: None)
        return _outcome(text)


@pytest.mark.parametrize("seed", range(12))
def test_whole_statements_and_the_token_grammar_read_every_text_alike(seed, monkeypatch):
    """Well-formed models and hundreds of mutants of them (a piece inserted, a character
    deleted, a span repeated) give the same network or the same errors at the same places
    both ways."""
    rng = np.random.default_rng(seed)
    net = random_network(int(seed), max_variables=6)
    texts = [CHAIR, PETS, bn.write(net), bn.write(net).replace("\n", " ; ", 3)]
    for _ in range(60):
        text = texts[int(rng.integers(4))]
        at = int(rng.integers(len(text) + 1))
        kind = rng.integers(3)
        if kind == 0:
            text = text[:at] + _PIECES[int(rng.integers(len(_PIECES)))] + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + text[at:at + int(rng.integers(1, 12))] * 2 + text[at:]
        texts.append(text)
    differences = [t for t in texts if _outcome(t) != _token_grammar_outcome(t, monkeypatch)]
    assert differences == []


@pytest.mark.parametrize("text", [
    "variable X { a, b }\nP(X) { a: 0.5, 0.5 }",           # rows for a root
    "variable X { a, b }\nP(X) = ; 0.5, 0.5",              # ';' where numbers belong
    "variable X { a, b }\nP(X) = 0.5, 0.5,",               # a stray ','
    "variable X { a, b }\nP(X) = 0.5, 0.5 ,\n",
    "variable X { a, b }\nP(X) = 0.5 0.5",                 # a missing ','
    "variable X { a }\nvariable Y { a, b }\nP(Y | X) { a: 0.5 0.5 }",
    "variable X { a }\nvariable Y { a, b }\nP(Y | X) { a: 0.5, 0.5; ; }",
    "variable X { a }\nvariable Y { a, b }\nP(Y | X) { a: 0.5, 0.5 ",  # no '}'
    "variable X { a, b, }", 'variable X "d" "e" { a }', "variable X", "network",
    "P(X | ) = 1", 'variable "a\\q" { b }', "variablex X { a }", "variable X { a }\nPx(X) = 1",
    "variable X { a }\nP ( X ) = 1", "variable X{a}P(X)=1;;", "variable X{a}P(X)=1;",
    "network n network m", "variable X { a }\nP(X) = 1.0x", "variable X { a }\nP(X) = 1e",
    "variable X { a } ; P(X) = 1 ; P(X)",
    "variable x gaussian P(x) = N(0, 1)", "variable x gaussian; P(x) = N(0 , 1 ) ;",
    "variable x gaussian P(x) = N(0, 1),", "variable x gaussianly P(x) = N(0, 1)",
    "variable x gaussian P(x) = N (0, 1)", "variable x gaussian P(x) = N(0 1)",
    "variable K { a }\nvariable x gaussian P(x | K) { a: N(0, 1), }",
])
def test_near_misses_of_a_statement_read_alike_both_ways(text, monkeypatch):
    assert _outcome(text) == _token_grammar_outcome(text, monkeypatch)

"""BIF: the 24 bnlearn networks as published, the dialects, round trips and exact errors."""

from __future__ import annotations

import doctest
import gzip
import os
import re
import threading

import numpy as np
import pytest

import bbn
from bbn.io.formats import FormatError, bif

# nodes, arcs, largest number of states: the table of ../shared/networks/README.md
SIZES = {
    "asia": (8, 8, 2), "cancer": (5, 4, 2), "earthquake": (5, 4, 2), "sachs": (11, 17, 3),
    "survey": (6, 6, 3), "alarm": (37, 46, 4), "barley": (48, 84, 67), "child": (20, 25, 6),
    "insurance": (27, 52, 5), "mildew": (35, 46, 100), "water": (32, 66, 4),
    "hailfinder": (56, 66, 11), "hepar2": (70, 123, 4), "win95pts": (76, 112, 2),
    "pathfinder": (109, 195, 63), "andes": (223, 338, 2), "munin1": (186, 273, 21),
    "diabetes": (413, 602, 21), "pigs": (441, 592, 3), "link": (724, 1125, 4),
}
MUNIN = ["munin2", "munin3", "munin4", "munin"]  # 1003–1041 nodes, 1244–1397 arcs, 21 states
NETWORKS = [*SIZES, *MUNIN]

RAIN = """network rain {
}
variable Rain {
  type discrete [ 2 ] { yes, no };
}
variable Wet {
  type discrete [ 3 ] { dry, damp, soaked };
}
probability ( Rain ) {
  table 0.2, 0.8;
}
probability ( Wet | Rain ) {
  (yes) 0.1, 0.2, 0.7;
  (no) 0.6, 0.3, 0.1;
}
"""


def _error(text: str) -> str:
    with pytest.raises(bbn.ParseError) as caught:
        bif.read(text, "t.bif")
    return str(caught.value).splitlines()[0]


# ------------------------------------------------------------- the shared files
@pytest.mark.parametrize("name", NETWORKS)
def test_reads_every_shared_network_as_published(shared, name):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    arcs = net.graph.number_of_edges()
    largest = max(net.cardinality(v) for v in net.variables)
    if name in SIZES:
        assert (len(net.variables), arcs, largest) == SIZES[name]
    else:
        assert 1003 <= len(net.variables) <= 1041 and 1244 <= arcs <= 1397 and largest == 21
    assert net.is_complete and net.validate() == []
    assert net.name == "unknown"
    # declaration order is the file's order
    text = gzip.open(shared / "networks" / f"{name}.bif.gz", "rt").read()
    assert list(net.variables) == re.findall(r"^variable (\S+) \{", text, re.M)


@pytest.mark.parametrize("name", NETWORKS)
def test_every_shared_network_is_read_by_the_fast_layer(shared, name):
    """bnlearn's files are all in the common layout: one regular expression reads each
    whole file (so none falls back to the token-level grammar)."""
    text = gzip.open(shared / "networks" / f"{name}.bif.gz", "rt").read()
    network_name, states, _, definitions = bif._plain_file(text)
    assert network_name == "unknown" and len(states) == len(definitions)


@pytest.mark.parametrize("name", NETWORKS)
def test_bif_round_trip_of_every_shared_network(shared, name):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    assert bif.read(bif.write(net)) == net


def test_child_state_names_and_row_order(shared):
    """child has states such as '12+', '<5', 'Asy/Patch', 'Transp.'; its rows list the
    first parent fastest, which bbn must map to the right configurations."""
    net = bbn.load(shared / "networks" / "child.bif.gz")
    assert net.states("LowerBodyO2") == ("<5", "5-12", "12+")
    assert net.states("CO2Report") == ("<7.5", ">=7.5")
    assert net.states("ChestXray")[-1] == "Asy/Patch"
    assert net.states("CardiacMixing")[-1] == "Transp."
    assert net.states("Age") == ("0-3_days", "4-10_days", "11-30_days")
    # probability ( HypDistrib | DuctFlow, CardiacMixing ): "(Rt_to_Lt, Mild) 0.5, 0.5;"
    # and "(Rt_to_Lt, None) 0.05, 0.95;"
    table = net.cpt(net.variables[1]).reduce({"DuctFlow": "Rt_to_Lt"})
    assert net.variables[1] == "HypDistrib"
    assert table.reduce({"CardiacMixing": "Mild"}).values.tolist() == [0.5, 0.5]
    assert table.reduce({"CardiacMixing": "None"}).values.tolist() == [0.05, 0.95]


def test_water_states_that_are_numbers(shared):
    net = bbn.load(shared / "networks" / "water.bif.gz")
    assert net.states("C_NI_12_00") == ("3", "4", "5", "6")


# ------------------------------------------------------------------ dialects
def test_plain_layout():
    net = bif.read(RAIN)
    assert net.name == "rain"
    assert net.parents("Wet") == ("Rain",)
    assert net.cpt_array("Wet").tolist() == [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]
    assert net.description("Wet") is None


def test_javabayes_dialect():
    """Quoted names, whitespace separators, no '|', properties, comments, and `table`
    lines for a child with parents (child slowest): the dog problem of JavaBayes."""
    text = """// JavaBayes
network "Dog-Problem" { //5 variables
    property "credal-set constant-density-bounded 1.1" ;
}
variable "family-out" { /* a
   comment over two lines */
    type discrete[2] { "true" "false" };
    property "position = (257, 99)" ;
    property description = "Is the \\"family\\" out?\\nSecond line";
}
variable "bowel-problem" { type discrete[2] { "true" "false" }; }
variable "dog-out" { type discrete[2] { "true" "false" }; }
probability ( "family-out" ) { table 0.15 0.85 ; }
probability ( "bowel-problem" ) { table 0.01 0.99 ; }
probability ( "dog-out" "family-out" "bowel-problem" ) { //3 variable(s) and 8 values
    table 0.99 0.97 0.9 0.3 0.01 0.03 0.1 0.7 ;
}
"""
    net = bif.read(text)
    assert net.name == "Dog-Problem"
    assert net.description("family-out") == 'Is the "family" out?\nSecond line'
    assert net.parents("dog-out") == ("family-out", "bowel-problem")
    # P(dog-out=true | family-out, bowel-problem) = 0.99, 0.97, 0.9, 0.3
    assert net.cpt_array("dog-out")[..., 0].tolist() == [[0.99, 0.97], [0.9, 0.3]]
    assert net.cpt_array("dog-out")[..., 1].tolist() == [[0.01, 0.03], [0.1, 0.7]]


def test_default_row_fills_the_configurations_not_listed():
    text = RAIN.replace("(no) 0.6, 0.3, 0.1;", "default 0.25, 0.25, 0.5;")
    assert bif.read(text).cpt_array("Wet").tolist() == [[0.1, 0.2, 0.7], [0.25, 0.25, 0.5]]


def test_rows_in_any_order_with_any_spacing_and_separators():
    text = """network n { }
variable A { type discrete [ 2 ] { a1, a2 }; }
variable B { type discrete [ 2 ] { b1, b2 }; }
variable C { type discrete [ 2 ] { c1, c2 }; }
probability ( A ) { table 0.5, 0.5; }
probability ( B ) { table 0.5 0.5; }
probability ( C | A, B ) {
  ( a2 ,b2 ) 0.4 0.6;
  (a1,b2) 0.2,0.8;
  (a2 b1) 0.3 , 0.7 ;
  (a1, b1) 1e-1, 9E-1;
}
"""
    net = bif.read(text)
    assert net.cpt_array("C")[..., 0].tolist() == [[0.1, 0.2], [0.3, 0.4]]


def test_the_common_layout_and_the_full_grammar_read_the_same_network():
    """RAIN is read by the fast layer; quoting a name (or JavaBayes' spelling) sends the
    same network through the token-level grammar."""
    quoted = RAIN.replace("variable Wet {", 'variable "Wet" {')
    javabayes = (RAIN.replace(", ", " ").replace("( Wet | Rain )", "( Wet Rain )")
                 .replace("network rain", 'network "rain"'))
    for text in (quoted, javabayes):
        assert bif.read(text) == bif.read(RAIN)
    assert bif.read(RAIN).cpt_array("Wet").tolist() == [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]


def test_two_parents_with_the_first_parent_fastest():
    """bnlearn and pyAgrum list rows with the first parent fastest; each row must land on
    its own configuration."""
    text = """network n { }
variable A { type discrete [ 2 ] { a0, a1 }; }
variable B { type discrete [ 3 ] { b0, b1, b2 }; }
variable C { type discrete [ 2 ] { c0, c1 }; }
probability ( C | A, B ) {
  (a0, b0) 0.0, 1.0;
  (a1, b0) 0.1, 0.9;
  (a0, b1) 0.2, 0.8;
  (a1, b1) 0.3, 0.7;
  (a0, b2) 0.4, 0.6;
  (a1, b2) 0.5, 0.5;
}
probability ( A ) { table 0.5, 0.5; }
probability ( B ) { table 0.2, 0.3, 0.5; }
"""
    net = bif.read(text)
    assert net.cpt_array("C")[..., 0].tolist() == [[0.0, 0.2, 0.4], [0.1, 0.3, 0.5]]
    assert net.parents("C") == ("A", "B") and net.variables == ("A", "B", "C")
    assert not net.graph.nodes["C"]["positive"] and net.graph.nodes["A"]["positive"]


PGMPY_STYLE = """network rain {
}
variable Rain {
    type discrete [ 2 ] { yes, no };
}
variable Wet {
    type discrete [ 3 ] { dry, damp, soaked };
}
probability ( Rain ) {
    table 0.2, 0.8 ;
}
probability ( Wet | Rain ) {
    ( yes ) 0.1, 0.2, 0.7;
    ( no ) 0.6, 0.3, 0.1;

}
"""


def test_row_keys_spaced_as_pgmpy_writes_them_are_read_by_the_fast_layer(monkeypatch):
    monkeypatch.setattr(bif, "_slow_body", None)  # the token-level grammar is not needed
    assert bif.read(PGMPY_STYLE) == bif.read(RAIN)
    assert bif.read(PGMPY_STYLE.replace("( no )", "(no )")) == bif.read(RAIN)


def test_a_table_line_for_a_child_with_parents_in_the_common_layout():
    text = RAIN.replace("(yes) 0.1, 0.2, 0.7;\n  (no) 0.6, 0.3, 0.1;",
                        "table 0.1, 0.6, 0.2, 0.3, 0.7, 0.1;")
    assert bif.read(text) == bif.read(RAIN)


def test_default_lines_are_read_by_the_fast_layer(monkeypatch):
    monkeypatch.setattr(bif, "_slow_body", None)  # the token-level grammar is not needed
    text = RAIN.replace("(no) 0.6, 0.3, 0.1;", "default 0.6, 0.3, 0.1;")
    assert bif.read(text) == bif.read(RAIN)
    text = """network n { }
variable A { type discrete [ 2 ] { a0, a1 }; }
variable B { type discrete [ 3 ] { b0, b1, b2 }; }
variable C { type discrete [ 2 ] { c0, c1 }; }
probability ( A ) { table 0.5, 0.5; }
probability ( B ) { table 0.2, 0.3, 0.5; }
probability ( C | A, B ) {
  default 0.5, 0.5;
  (a1, b2) 0.1, 0.9;
  (a0, b1) 0.3, 0.7;
}
"""
    assert bif.read(text).cpt_array("C")[..., 0].tolist() == [[0.5, 0.3, 0.5], [0.5, 0.5, 0.1]]


def test_pyagrum_header_a_quoted_name_and_a_comment():
    text = RAIN.replace("network rain {\n}",
                        'network "anonymousBN" {\n// written by aGrUM 3.3.1\n}')
    expected = bif.read(RAIN)
    expected.name = "anonymousBN"
    assert bif.read(text) == expected


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_windows_and_old_mac_line_ends_read_as_newlines(tmp_path, newline):
    path = tmp_path / "rain.bif"
    path.write_bytes(RAIN.replace("\n", newline).encode())
    assert bbn.load(path) == bif.read(RAIN)
    path.write_bytes(RAIN.replace("0.2, 0.7", "0.2, 0.7x").replace("\n", newline).encode())
    with pytest.raises(bbn.ParseError, match=re.escape(f"{path}:13:19: malformed number")):
        bbn.load(path)


def test_a_file_larger_than_one_read(tmp_path):
    net = bbn.Network("wide")
    for i in range(700):  # about 100 KB of BIF: more than one 64 KiB read
        net.add_variable(f"V{i}", ["low", "medium", "high"], description="x" * 40,
                         parents=[f"V{i - 1}"] if i else [],
                         table=np.full((3, 3) if i else 3, 1 / 3))
    path = tmp_path / "wide.bif"
    bbn.save(net, path)
    assert path.stat().st_size > 1 << 16
    assert bbn.load(path) == net


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
def test_a_pipe_is_read_to_its_end():
    """A pipe hands its text over in pieces: each short read is not the end."""
    text = RAIN.encode()
    reading, writing = os.pipe()

    def write_slowly():
        with os.fdopen(writing, "wb") as pipe:
            for i in range(0, len(text), 7):
                pipe.write(text[i:i + 7])
                pipe.flush()

    writer = threading.Thread(target=write_slowly)
    writer.start()
    try:
        assert bbn.load(f"/dev/fd/{reading}", format="bif") == bif.read(RAIN)
    finally:
        writer.join()
        os.close(reading)


def test_module_examples():
    assert doctest.testmod(bif).failed == 0


def test_properties_in_probability_blocks_are_ignored():
    text = RAIN.replace("(yes) 0.1", 'property "weight = 2; note" ;\n  (yes) 0.1')
    assert bif.read(text) == bif.read(RAIN)


def test_network_block_is_optional_and_structure_only_blocks():
    text = RAIN.split("}\n", 1)[1].replace("  (yes) 0.1, 0.2, 0.7;\n  (no) 0.6, 0.3, 0.1;\n", "")
    net = bif.read(text)
    assert net.name == "network"
    assert net.parents("Wet") == ("Rain",) and not net.has_cpt("Wet")
    assert bif.read(bif.write(net)) == net


def test_comment_markers_inside_strings_are_text():
    text = RAIN.replace("variable Wet {", 'variable Wet {\n  property description = '
                        '"see http://x.org/a /* b */";')
    assert bif.read(text).description("Wet") == "see http://x.org/a /* b */"


def test_tabs_keep_columns_true():
    text = RAIN.replace("  (no) 0.6, 0.3, 0.1;", "\t(no)\t0.6, 0.3, 0.1x;")
    assert _error(text) == "t.bif:14:17: malformed number '0.1x'"  # tabs count as one


# -------------------------------------------------------------------- errors
@pytest.mark.parametrize("change, message", [
    (("0.2, 0.7", "0.2, 0.7x"), "t.bif:13:19: malformed number '0.7x'"),
    (("0.2, 0.7", "0.2, 0..7"), "t.bif:13:19: malformed number '0..7'"),
    (("0.6, 0.3", "nan, 0.3"), "t.bif:14:8: malformed number 'nan'"),
    (("(no) 0.6, 0.3, 0.1", "(no) 0.6, 0.4"),
     "t.bif:14:3: this row of P(Wet | Rain) has 2 numbers, expected 3"),
    (("table 0.2, 0.8", "table 0.2, 0.7, 0.1"),
     "t.bif:10:3: the 'table' of P(Rain) has 3 numbers, expected 2"),
    (("(no) 0.6", "(non) 0.6"),
     "t.bif:14:4: parent 'Rain' has no state 'non' (did you mean 'no'?)"),
    (("(no) 0.6", "(no, yes) 0.6"),
     "t.bif:14:3: this row of P(Wet | Rain) names 2 parent state(s), expected 1 (one for each "
     "of Rain)"),
    (("  (no) 0.6, 0.3, 0.1;\n", ""), "t.bif:12:15: no row for P(Wet | Rain=no), and no "
                                      "'default' row"),
    (("(no) 0.6", "(yes) 0.6"), "t.bif:14:3: a second row of P(Wet | Rain) for the same parent "
                                "states (the first is row 1 of the block)"),
    (("( Wet | Rain )", "( Wet | Rian )"), "t.bif:12:21: unknown variable 'Rian' (did you mean "
                                           "'Rain'?)"),
    (("[ 3 ]", "[ 4 ]"), "t.bif:6:10: variable 'Wet' declares 4 states but lists 3: ['dry', "
                         "'damp', 'soaked']"),
    (("dry, damp, soaked", "dry, damp, dry"), "t.bif:6:10: variable 'Wet' lists state(s) "
                                              "['dry'] more than once"),
    (("0.2, 0.7;", "0.2, 0.7"), "t.bif:14:3: expected ';', found '(no) 0.6, 0.3, 0.1;'"),
    (("0.2, 0.7", "0.2,, 0.7"), "t.bif:13:17: expected ';', found ',, 0.7;'"),
    (("soaked };", "soaked ;"), "t.bif:7:43: expected '}', found ';'"),
    (("variable Wet", "varible Wet"), "t.bif:6:1: expected 'variable', 'probability' or the "
                                      "end of the file, found 'varible Wet {'"),
    (("0.6, 0.3, 0.1", "0.5, 0.25, 0.5"), "t.bif:12:15: P(Wet | Rain=no) sums to 1.25, not 1 "
                                         "(tolerance 2.5e-06); pass normalize=True "
                                         "(--normalize on the command line) to rescale "
                                         "rows"),
    (("(yes) 0.1, 0.2, 0.7;", "table 0.1, 0.2, 0.7, 0.6, 0.3, 0.1;"),
     "t.bif:13:3: the block of P(Wet | Rain) mixes 'table' with per-configuration rows"),
    (("(no) 0.6, 0.3, 0.1", "default 0.6, 0.3"),
     "t.bif:14:3: the 'default' row of P(Wet | Rain) has 2 numbers, expected 3"),
    (("type discrete [ 2 ] { yes, no };", "property x;"),
     "t.bif:3:10: variable 'Rain' has no 'type discrete [n] { ... };'"),
])
def test_errors_name_line_column_and_what_was_expected(change, message):
    old, new = change
    assert old in RAIN
    assert _error(RAIN.replace(old, new)) == message


def test_error_quotes_the_line_with_a_caret():
    with pytest.raises(bbn.ParseError) as caught:
        bif.read(RAIN.replace("0.2, 0.7", "0.2, 0.7x"), "t.bif")
    error = caught.value
    assert (error.source, error.line, error.column) == ("t.bif", 13, 19)
    assert str(error).splitlines()[1:] == ["      (yes) 0.1, 0.2, 0.7x;", "                      ^"]


def test_more_errors():
    assert _error(RAIN + "probability ( Rain ) {\n  table 0.5, 0.5;\n}\n") == (
        "t.bif:16:15: a second probability block for 'Rain' (the first is on line 9)")
    assert _error(RAIN + "/* open") == "t.bif:16:1: comment '/*' is never closed"
    assert _error(RAIN + "hello") == ("t.bif:16:1: expected 'variable', 'probability' or the "
                                      "end of the file, found 'hello'")
    cyclic = RAIN.replace("probability ( Rain ) {\n  table 0.2, 0.8;",
                          "probability ( Rain | Wet ) {\n  (dry) 0.2, 0.8;\n  (damp) 0.2, 0.8;\n"
                          "  (soaked) 0.2, 0.8;")
    assert _error(cyclic) == ("t.bif:14:15: making ['Rain'] the parents of 'Wet' would create the "
                              "cycle Wet -> Rain -> Wet")


def test_load_names_the_file(tmp_path):
    path = tmp_path / "bad.bif.gz"
    bbn.save(bif.read(RAIN), tmp_path / "good.bif.gz")
    path.write_bytes(gzip.compress(RAIN.replace("0.2, 0.7", "0.2, 0.7x").encode()))
    with pytest.raises(bbn.ParseError, match=re.escape(f"{path}:13:19: malformed number")):
        bbn.load(path)
    assert bbn.load(tmp_path / "good.bif.gz") == bif.read(RAIN)


# ------------------------------------------------------------------- writing
def test_numbers_are_written_exactly():
    net = bbn.Network("exact")
    third = 1 / 3
    net.add_variable("A", ["a", "b", "c"], table=[third, third, 1 - 2 * third])
    net.add_variable("B", ["x", "y"], parents=["A"],
                     table=[[0.1 + 0.2, 1 - (0.1 + 0.2)], [1e-300, 1 - 1e-300], [0.5, 0.5]])
    text = bif.write(net)
    assert "0.30000000000000004" in text and f"0.{'0' * 299}1," in text  # fixed-point
    back = bif.read(text)
    assert back == net
    assert np.array_equal(back.cpt_array("B"), net.cpt_array("B"))


def test_names_that_are_not_bare_words_are_quoted():
    net = bbn.Network("my network")
    net.add_variable("blood pressure", ["very low", "<5", "a,b", "x(y)"], table=[0.25] * 4,
                     description='said "high"\n\tthen \\ low')
    text = bif.write(net)
    assert 'variable "blood pressure" {' in text
    assert '{ "very low", <5, "a,b", "x(y)" }' in text
    assert bif.read(text) == net


@pytest.mark.parametrize("name, what", [
    ('say "hi"', "variable 'say \"hi\"'"),
    ("two\nlines", "variable 'two\\nlines'"),
])
def test_names_bif_cannot_express_are_refused(name, what):
    net = bbn.Network()
    net.add_variable(name, ["a", "b"], table=[0.5, 0.5])
    with pytest.raises(FormatError, match=re.escape(f"BIF cannot write {what}")):
        bif.write(net)


def test_a_state_bif_cannot_express_is_refused_naming_variable_and_state():
    net = bbn.Network()
    net.add_variable("A", ['5"', "b"], table=[0.5, 0.5])
    with pytest.raises(FormatError, match=re.escape("BIF cannot write state '5\"' of variable "
                                                    "'A'")):
        bif.write(net)


def test_save_refuses_before_touching_the_file(tmp_path):
    path = tmp_path / "kept.bif"
    path.write_text("old contents")
    net = bbn.Network()
    net.add_variable('"', ["a", "b"], table=[0.5, 0.5])
    with pytest.raises(FormatError):
        bbn.save(net, path)
    assert path.read_text() == "old contents"
    assert list(tmp_path.iterdir()) == [path]

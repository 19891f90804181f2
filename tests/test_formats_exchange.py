"""XMLBIF, Hugin .net and UAI: reading what other tools write, round trips, exact errors."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.io.formats import FormatError, hugin, uai, xmlbif

NETWORKS = ["asia", "cancer", "earthquake", "sachs", "survey", "alarm", "barley", "child",
            "insurance", "mildew", "water", "hailfinder", "hepar2", "win95pts", "pathfinder",
            "andes", "munin1", "diabetes", "pigs", "link", "munin2", "munin3", "munin4", "munin"]

XMLBIF = """<?xml version="1.0"?>
<BIF VERSION="0.3">
<NETWORK>
<NAME>rain</NAME>
<VARIABLE TYPE="nature">
  <NAME>Rain</NAME>
  <OUTCOME>yes</OUTCOME>
  <OUTCOME>no</OUTCOME>
  <PROPERTY>position = (10, 20)</PROPERTY>
</VARIABLE>
<VARIABLE TYPE="nature">
  <NAME>Wet</NAME>
  <OUTCOME>dry</OUTCOME>
  <OUTCOME>damp</OUTCOME>
  <OUTCOME>soaked</OUTCOME>
  <PROPERTY>description = the grass &amp; the path</PROPERTY>
</VARIABLE>
<DEFINITION>
  <FOR>Wet</FOR>
  <GIVEN>Rain</GIVEN>
  <TABLE>0.1 0.2 0.7
         0.6 0.3 0.1</TABLE>
</DEFINITION>
<DEFINITION>
  <FOR>Rain</FOR>
  <TABLE>0.2 0.8</TABLE>
</DEFINITION>
</NETWORK>
</BIF>
"""

HUGIN = """net
{
    name = "rain";
    node_size = (80 40);
}
% a comment
node Rain
{
    label = "it rains";
    position = (100 50);
    states = ("yes" "no");
}
discrete node Wet
{
    states = (dry damp soaked);   % bare words, as pyAgrum writes them
    HR_Desc = "";
}
potential (Rain) { data = (0.2 0.8); }
potential (Wet | Rain)
{
    data = (( 0.1 0.2 0.7 )    % Rain=yes
            ( 0.6 0.3 0.1 ));  % Rain=no
}
"""

# The example of the schlandals documentation of the UAI format: P(A) P(B | A) P(C | A)
# P(D | B, C), each table listed with the child (the scope's last variable) fastest.
UAI = """BAYES
4
2 2 2 2
4
1 0
2 0 1
2 0 2
3 1 2 3

2
0.2 0.8
4
0.6 0.4 0.3 0.7
4
0.25 0.75 0.75 0.25
8
1.0 0.0 0.35 0.65 0.8 0.2 0.0 1.0
"""


def _error(module, text: str, source: str) -> str:
    with pytest.raises(bbn.ParseError) as caught:
        module.read(text, source)
    return str(caught.value).splitlines()[0]


def _without_names(net: bbn.Network, name: str) -> bbn.Network:
    """``net`` as UAI can hold it: variables X0, X1, ..., states 0, 1, ..., no descriptions."""
    rename = {v: f"X{i}" for i, v in enumerate(net.variables)}
    out = bbn.Network(name)
    for v in net.variables:
        out.add_variable(rename[v], [str(i) for i in range(net.cardinality(v))])
    for v in net.variables:
        out.set_parents(rename[v], [rename[p] for p in net.parents(v)])
        out.set_cpt(rename[v], net.cpt_array(v))
    return out


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("fmt", ["xmlbif", "hugin", "uai"])
@pytest.mark.parametrize("name", NETWORKS)
def test_round_trip_of_every_shared_network(shared, name, fmt):
    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    back = bbn.loads(bbn.dumps(net, fmt), fmt)
    assert back == (_without_names(net, "network") if fmt == "uai" else net)


def _rich_network() -> bbn.Network:
    """Descriptions with XML specials, full-precision numbers, a structure-only variable."""
    net = bbn.Network("rich <&> net")
    net.add_variable("A", ["a 1", "a&2", "<3>"], description="x < y & z > 'w'",
                     table=[1 / 3, 1 / 3, 1 - 2 / 3])
    net.add_variable("B", ["t", "f"], parents=["A"],
                     table=[[0.1 + 0.2, 1 - (0.1 + 0.2)], [1e-300, 1 - 1e-300], [0.5, 0.5]])
    net.add_variable("C", ["on", "off"], parents=["A", "B"], description="")
    return net


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "hugin"])
def test_round_trip_keeps_descriptions_exact_numbers_and_structure_only_variables(fmt):
    net = _rich_network()
    back = bbn.loads(bbn.dumps(net, fmt), fmt)
    assert back == net
    assert back.cpt_array("B")[0, 0] == 0.30000000000000004
    assert back.parents("C") == ("A", "B") and not back.has_cpt("C")


@pytest.mark.parametrize("suffix", [".bif", ".bif.gz", ".xmlbif", ".bifxml", ".xml", ".net",
                                    ".net.gz", ".uai", ".uai.gz"])
def test_save_and_load_choose_the_format_by_extension(tmp_path, suffix):
    net = bbn.loads(HUGIN, "hugin")
    path = tmp_path / f"rain{suffix}"
    bbn.save(net, path)
    back = bbn.load(path)
    assert back == (_without_names(net, "rain") if ".uai" in suffix else net)


def test_cli_converts_between_formats(shared, tmp_path):
    source = shared / "networks" / "insurance.bif.gz"
    net = bbn.load(source)
    chain = [source, tmp_path / "a.net", tmp_path / "b.xmlbif", tmp_path / "c.bif.gz"]
    for a, b in zip(chain, chain[1:]):
        with redirect_stdout(io.StringIO()) as out:
            assert main(["convert", str(a), str(b)]) == 0
        assert out.getvalue() == f"wrote {b}\n"
        assert bbn.load(b) == net


# -------------------------------------------------------------------- XMLBIF
def test_xmlbif_reads_the_weka_pgmpy_layout():
    net = xmlbif.read(XMLBIF, "rain.xml")
    assert net.name == "rain" and net.variables == ("Rain", "Wet")
    assert net.states("Wet") == ("dry", "damp", "soaked")
    assert net.description("Wet") == "the grass & the path" and net.description("Rain") is None
    # the FOR variable varies fastest: rows are parent configurations
    assert net.cpt_array("Wet").tolist() == [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]
    assert net.cpt_array("Rain").tolist() == [0.2, 0.8]


def test_xmlbif_reads_the_older_probability_element():
    text = XMLBIF.replace("DEFINITION>", "PROBABILITY>")
    assert xmlbif.read(text) == xmlbif.read(XMLBIF)


def test_xmlbif_writes_what_pgmpy_and_weka_read():
    text = xmlbif.write(xmlbif.read(XMLBIF))
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<BIF VERSION="0.3">')
    assert "<VARIABLE TYPE=\"nature\">" in text
    assert "<PROPERTY>description = the grass &amp; the path</PROPERTY>" in text
    assert "<TABLE>0.1 0.2 0.7 0.6 0.3 0.1</TABLE>" in text


@pytest.mark.parametrize("change, message", [
    (("</FOR>", "</FRO>"), "rain.xml:19:13: malformed XML: mismatched tag"),
    (("0.6 0.3 0.1", "0.6 0.3"), "rain.xml:21:3: the <TABLE> of P(Wet | Rain) has 5 numbers, "
                                 "expected 6"),
    (("0.6 0.3 0.1", "0.6 0.3 O.1"), "rain.xml:21:3: the <TABLE> of P(Wet | Rain) holds a "
                                     "malformed number 'O.1'"),
    (("0.6 0.3 0.1", "0.6 0.3 nan"), "rain.xml:21:3: the <TABLE> of P(Wet | Rain) holds a "
                                     "malformed number 'nan'"),
    (('<VARIABLE TYPE="nature">\n  <NAME>Wet', '<VARIABLE TYPE="function">\n  <NAME>Wet'),
     "rain.xml:11:1: <VARIABLE> 'Wet' has TYPE='function': the types are nature, decision "
     "and utility"),
    (("<GIVEN>Rain", "<GIVEN>Rainn"), "rain.xml:20:3: <DEFINITION> for 'Wet': unknown variable "
                                      "'Rainn' (did you mean 'Rain'?)"),
    (("<NAME>Rain</NAME>", ""), "rain.xml:5:1: <VARIABLE> number 1 has no <NAME>"),
    (("<FOR>Rain</FOR>", "<FOR>Wet</FOR>"), "rain.xml:24:1: <DEFINITION> for 'Wet': a second "
                                            "definition of 'Wet'"),
    (("<OUTCOME>damp</OUTCOME>", "<OUTCOME>dry</OUTCOME>"),
     "rain.xml:11:1: <VARIABLE> 'Wet': variable 'Wet' lists state(s) ['dry'] more than once"),
    (("0.6 0.3 0.1", "0.5 0.25 0.5"), "rain.xml:18:1: <DEFINITION> for 'Wet': P(Wet | Rain=no) "
                                      "sums to 1.25, not 1 (tolerance 2.5e-06); pass "
                                      "normalize=True (--normalize on the command line) to "
                                      "rescale rows"),
])
def test_xmlbif_errors_name_the_element_and_its_line(change, message):
    old, new = change
    assert old in XMLBIF
    assert _error(xmlbif, XMLBIF.replace(old, new), "rain.xml") == message


@pytest.mark.parametrize("name, what", [
    (" padded", "variable ' padded'"), ("bell\x07", "variable 'bell\\x07'")])
def test_xmlbif_refuses_names_it_cannot_give_back(name, what):
    net = bbn.Network()
    net.add_variable(name, ["a", "b"], table=[0.5, 0.5])
    with pytest.raises(FormatError, match=re.escape(f"XMLBIF cannot write {what}")):
        xmlbif.write(net)


# --------------------------------------------------------------------- Hugin
def test_hugin_reads_comments_labels_bare_states_and_nested_data():
    net = hugin.read(HUGIN, "rain.net")
    assert net.name == "rain" and net.variables == ("Rain", "Wet")
    assert net.description("Rain") == "it rains" and net.description("Wet") is None
    assert net.states("Wet") == ("dry", "damp", "soaked")
    # parents outermost, the child innermost
    assert net.cpt_array("Wet").tolist() == [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]


def test_hugin_data_with_two_parents_lists_the_first_slowest():
    text = """node A { states = ("a1" "a2"); }
node B { states = ("b1" "b2" "b3"); }
node C { states = ("c1" "c2"); }
potential (A) { data = (0.5 0.5); }
potential (B) { data = (0.2 0.3 0.5); }
potential (C | A B) {
    data = ((( 0.1 0.9 ) ( 0.2 0.8 ) ( 0.3 0.7 ))
            (( 0.4 0.6 ) ( 0.5 0.5 ) ( 0.6 0.4 )));
}
"""
    net = hugin.read(text, "models/abc.net")
    assert net.name == "abc"  # no name in the file: the file's name
    assert net.cpt_array("C")[..., 0].tolist() == [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]
    flat = text.split("potential (C")[0] + (
        "potential (C | A B) { data = (0.1 0.9 0.2 0.8 0.3 0.7 0.4 0.6 0.5 0.5 0.6 0.4); }")
    assert hugin.read(flat, "models/abc.net") == net


@pytest.mark.parametrize("change, message", [
    (("discrete node Wet", "utility Wet"),
     "rain.net:21:5: the table of utility 'Wet' over ['Rain'] needs 2 numbers, got 6"),
    (("discrete node Wet", "function Wet"),
     "rain.net:13:1: function 'Wet': function nodes are not supported; bbn reads chance, "
     "decision and utility nodes"),
    (("discrete node Wet", "continuous node Wet"),
     "rain.net:21:5: continuous node 'Wet' needs normal(mean, variance) per configuration "
     "of its discrete parents, not a table of numbers"),
    (("( 0.6 0.3 0.1 )", "( 0.6 0.3 )"),
     "rain.net:21:5: the data of P(Wet | Rain) has 5 numbers, expected 6"),
    (("( 0.6 0.3 0.1 )", "( 0.6 0.3 x1 )"), "rain.net:22:23: expected a number, found 'x1'"),
    (("( 0.6 0.3 0.1 )", "( 0.6 0.3 0..1 )"), "rain.net:22:23: expected a number, found '0..1'"),
    (("( 0.6 0.3 0.1 ));", "( 0.6 0.3 0.1 );"), "rain.net:22:28: expected ')', found ';'"),
    (("(Wet | Rain)", "(Wet | Rian)"),
     "rain.net:19:18: unknown node 'Rian' (did you mean 'Rain'?)"),
    (("(Wet | Rain)", "(Wet Rain)"),
     "rain.net:19:16: a potential with several head variables is not a conditional "
     "probability table of one node; not supported"),
    (("net\n{", "class C\n{"), "rain.net:1:1: object-oriented Hugin classes are not supported; "
                               "export the network as a plain .net"),
    (('    states = ("yes" "no");\n', ""),
     "rain.net:7:6: node 'Rain' needs 'states = (\"s1\" \"s2\" ...);'"),
    (('label = "it rains";', 'label = "it rains"'),
     "rain.net:10:5: expected ';', found 'position = (100 50);'"),
    (("potential (Rain)", "potential (Wet | Rain) { } potential (Rain)"),
     "rain.net:19:12: a second potential for 'Wet'"),
])
def test_hugin_errors_name_line_and_column(change, message):
    old, new = change
    assert old in HUGIN
    assert _error(hugin, HUGIN.replace(old, new), "rain.net") == message


def test_hugin_writes_nested_rows_and_labels():
    text = hugin.write(hugin.read(HUGIN))
    assert 'node Rain\n{\n    label = "it rains";\n    states = ("yes" "no");\n}' in text
    assert "potential (Wet | Rain)\n{\n    data = ((0.1 0.2 0.7)\n" in text
    assert "            (0.6 0.3 0.1));" in text


@pytest.mark.parametrize("variable, state, description, message", [
    ("blood-pressure", "s", None, "Hugin .net cannot write variable 'blood-pressure': node "
                                  "names must be identifiers"),
    ("B", 'say "x"', None, "Hugin .net cannot write state 'say \"x\"' of 'B'"),
    ("B", "s", "two\nlines", "Hugin .net cannot write the description of 'B'"),
])
def test_hugin_refuses_what_it_cannot_express(variable, state, description, message):
    net = bbn.Network()
    net.add_variable(variable, [state, "other"], description=description, table=[0.5, 0.5])
    with pytest.raises(FormatError, match=re.escape(message)):
        hugin.write(net)


# ----------------------------------------------------------------------- UAI
def test_uai_reads_the_documented_example():
    net = uai.read(UAI, "models/example.uai")
    assert net.name == "example"
    assert net.variables == ("X0", "X1", "X2", "X3")
    assert net.states("X3") == ("0", "1")
    assert net.parents("X3") == ("X1", "X2")
    assert net.cpt_array("X1").tolist() == [[0.6, 0.4], [0.3, 0.7]]
    # P(X3 | X1, X2): (0,0) → 1.0 0.0, (0,1) → 0.35 0.65, (1,0) → 0.8 0.2, (1,1) → 0.0 1.0
    assert net.cpt_array("X3").tolist() == [[[1.0, 0.0], [0.35, 0.65]], [[0.8, 0.2], [0.0, 1.0]]]


def test_uai_comments():
    text = "c an example from the UAI 2016 specification\n" + UAI.replace(
        "BAYES\n", "BAYES  # pyAgrum writes comments like this\n")
    assert uai.read(text) == uai.read(UAI)


def test_uai_tables_may_come_in_any_order_of_children():
    text = UAI.replace("1 0\n2 0 1\n", "2 0 1\n1 0\n").replace(
        "2\n0.2 0.8\n4\n0.6 0.4 0.3 0.7\n", "4\n0.6 0.4 0.3 0.7\n2\n0.2 0.8\n")
    assert uai.read(text) == uai.read(UAI)


def test_uai_writes_the_child_last_and_fastest():
    net = uai.read(UAI)
    assert uai.write(net).split() == UAI.split()


@pytest.mark.parametrize("change, message", [
    (("BAYES\n4\n2 2 2 2\n4\n1 0\n", "MARKOV\n4\n2 2 2 2\n4\n1 9\n"),
     "e.uai:5:3: expected a variable of factor 0 (an integer from 0 to 3), found '9'"),
    (("BAYES", "BAYS"), "e.uai:1:1: expected 'BAYES' or 'MARKOV', found 'BAYS'"),
    (("\n8\n", "\n7\n"), "e.uai:16:1: expected the number of entries of table 3 (8), found '7'"),
    (("0.35 0.65", "0.35 O.65"), "e.uai:17:14: expected a number in table 3, found 'O.65'"),
    (("0.35 0.65", "0.35 inf"), "e.uai:17:14: expected a number in table 3, found 'inf'"),
    (("0.0 1.0\n", "0.0\n"), "e.uai:17:30: expected 8 numbers in table 3, found the end of "
                             "the file"),
    (("2 0 2\n", "2 0 1\n"), "e.uai:7:1: tables 1 and 2 both end with X1; each variable needs "
                             "exactly one table (its child last)"),
    (("2 0 2\n", "2 0 9\n"), "e.uai:7:5: expected a variable of table 2 (an integer from 0 "
                             "to 3), found '9'"),
    (("0.0 1.0\n", "0.0 1.0\n5\n"), "e.uai:18:1: expected the end of the file after the last "
                                    "table, found '5'"),
    (("\n4\n1 0", "\n3\n1 0"), "e.uai:4:1: expected the number of tables, one per variable "
                               "(4), found '3'"),
    (("2 2 2 2", "2 2 x 2"), "e.uai:3:5: expected the number of states of X2 (an integer ≥ 1), "
                             "found 'x'"),
    (("0.6 0.4", "0.75 0.5"), "e.uai:12:1: table 1: P(X1 | X0=0) sums to 1.25, not 1 "
                              "(tolerance 2e-06); pass normalize=True (--normalize on the "
                              "command line) to rescale rows"),
    (("0.6 0.4", "1e999 0.4"), "e.uai:13:1: expected a finite number in table 1, found "
                               "'1e999'"),
])
def test_uai_errors_name_line_and_column(change, message):
    old, new = change
    assert old in UAI
    assert _error(uai, UAI.replace(old, new), "e.uai") == message


def test_uai_refuses_a_network_without_every_table():
    net = bbn.Network()
    net.add_variable("A", ["a", "b"])
    with pytest.raises(FormatError, match="UAI cannot write a network without tables: 'A'"):
        uai.write(net)


# ------------------------------------------------- other tools (when installed)
def test_pyagrum_reads_what_bbn_writes(shared, tmp_path):
    gum = pytest.importorskip("pyagrum")
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    for suffix in (".bif", ".net", ".bifxml"):
        path = tmp_path / f"alarm{suffix}"
        bbn.save(net, path)
        theirs = gum.loadBN(str(path))
        for v in net.variables:
            cpt = theirs.cpt(v)
            axes = list(reversed(cpt.names))  # pyAgrum's arrays list variables last to first
            family = [*net.parents(v), v]
            values = np.transpose(cpt.toarray(), [axes.index(x) for x in family])
            assert np.allclose(values, net.cpt_array(v), atol=1e-6), (suffix, v)


def test_bbn_reads_what_pyagrum_writes(shared, tmp_path):
    gum = pytest.importorskip("pyagrum")
    for name, suffixes in (("asia", (".net", ".bifxml")), ("alarm", (".net",))):
        net = bbn.load(shared / "networks" / f"{name}.bif.gz")
        (tmp_path / f"{name}.bif").write_text(bbn.dumps(net, "bif"))
        theirs = gum.loadBN(str(tmp_path / f"{name}.bif"))
        for suffix in suffixes:
            gum.saveBN(theirs, str(tmp_path / f"{name}{suffix}"))
            back = bbn.load(tmp_path / f"{name}{suffix}")
            assert back.variables == net.variables
            for v in net.variables:
                assert back.parents(v) == net.parents(v) and back.states(v) == net.states(v)
                # pyAgrum keeps single precision
                assert np.allclose(back.cpt_array(v), net.cpt_array(v), atol=1e-6), (suffix, v)


def _pgmpy_table(model, net: bbn.Network, v: str) -> np.ndarray:
    """pgmpy's CPD of ``v`` as bbn's array: parents in bbn's order, states in bbn's order."""
    cpd = model.get_cpds(v)
    family = [*cpd.variables[1:], v]
    table = bbn.Factor(family, cpd.state_names, np.moveaxis(cpd.values, 0, -1))
    ordered = [*net.parents(v), v]
    return table.transpose(ordered).reorder_states({x: net.states(x) for x in ordered}).values


def test_pgmpy_and_bbn_read_each_others_bif_and_xmlbif(shared, tmp_path):
    readwrite = pytest.importorskip("pgmpy.readwrite")
    net = bbn.load(shared / "networks" / "asia.bif.gz")
    bbn.save(net, tmp_path / "ours.bif")
    bbn.save(net, tmp_path / "ours.xml")
    for model in (readwrite.BIFReader(str(tmp_path / "ours.bif")).get_model(),
                  readwrite.XMLBIFReader(str(tmp_path / "ours.xml")).get_model()):
        for v in net.variables:
            assert np.array_equal(_pgmpy_table(model, net, v), net.cpt_array(v)), v
    readwrite.BIFWriter(model).write(str(tmp_path / "theirs.bif"))
    readwrite.XMLBIFWriter(model).write(str(tmp_path / "theirs.xml"))
    for path in (tmp_path / "theirs.bif", tmp_path / "theirs.xml"):
        back = bbn.load(path)
        assert set(back.variables) == set(net.variables)
        for v in net.variables:
            assert back.parents(v) == net.parents(v) and back.states(v) == net.states(v)
            assert np.array_equal(back.cpt_array(v), net.cpt_array(v)), (path, v)


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "hugin", "uai"])
def test_a_byte_order_mark_is_skipped(fmt):
    net = bbn.loads(UAI, "uai")
    assert bbn.loads("\ufeff" + bbn.dumps(net, fmt), fmt) == net


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "uai"])
def test_no_exchange_format_writes_a_gaussian_variable(fmt, tmp_path):
    """Only .bn and Hugin .net hold continuous nodes (tests/test_format_bn.py,
    tests/test_hugin_continuous.py); the others refuse, and the message points there."""
    net = bbn.Network("mixed")
    net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 1.0], variance=[1.0, 1.0])
    with pytest.raises(bbn.FormatError, match="continuous .Gaussian. variable 'x'.*as .bn"):
        bbn.dumps(net, fmt)
    target = tmp_path / f"mixed.{fmt}"
    with pytest.raises(bbn.FormatError):
        bbn.save(net, target)
    assert not target.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module, text, source, changes, message", [
    (uai, UAI, "e.uai", [("0.6 0.4", "0.75 0.5"), ("0.35 0.65", "0.35 O.65")],
     "e.uai:12:1: table 1: P(X1 | X0=0) sums to 1.25, not 1 (tolerance 2e-06); pass "
     "normalize=True (--normalize on the command line) to rescale rows"),
    (uai, UAI, "e.uai", [("0.6 0.4", "0.75 0.5"), ("2 0 2\n", "2 0 1\n")],
     "e.uai:7:1: tables 1 and 2 both end with X1; each variable needs exactly one table "
     "(its child last)"),
    (hugin, HUGIN, "rain.net", [("(Wet | Rain)", "(Wet | Rian)"),
                                ("discrete node Wet", "function Wet")],
     "rain.net:13:1: function 'Wet': function nodes are not supported; bbn reads chance, "
     "decision and utility nodes"),
    (xmlbif, XMLBIF, "rain.xml", [("0.6 0.3 0.1", "0.5 0.25 0.5"),
                                  ("<FOR>Rain</FOR>", "<FOR>Wet</FOR>")],
     "rain.xml:18:1: <DEFINITION> for 'Wet': P(Wet | Rain=no) sums to 1.25, not 1 (tolerance "
     "2.5e-06); pass normalize=True (--normalize on the command line) to rescale rows"),
])
def test_of_two_problems_the_one_met_first_when_reading_in_order_is_reported(
        module, text, source, changes, message):
    # the network is built at once; a problem makes the reader build it again one
    # variable at a time, in file order, so the problem reported is the one it meets first
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    assert _error(module, text, source) == message


# ------------------------------------------- the UAI table order, and other tools' numbers
def _uai_factors(path) -> tuple[list[int], list[list[int]], list[np.ndarray]]:
    """(cardinalities, scopes, tables) of a UAI 2014 model file, as written."""
    import gzip

    tokens = gzip.open(path, "rt").read().split()
    n = int(tokens[1])
    cards = [int(t) for t in tokens[2:2 + n]]
    at, scopes, tables = 3 + n, [], []
    for _ in range(int(tokens[2 + n])):
        size = int(tokens[at])
        scopes.append([int(t) for t in tokens[at + 1:at + 1 + size]])
        at += 1 + size
    for _ in scopes:
        size = int(tokens[at])
        tables.append(np.array(tokens[at + 1:at + 1 + size], dtype=float))
        at += 1 + size
    return cards, scopes, tables


def _owners(cards, scopes, tables, order: str) -> list[list[int]]:
    """For each factor, the variables of its scope over which it sums to 1 (the variables
    it could be the conditional table of), reading its numbers in ``order`` ("C": the last
    variable fastest, "F": the first fastest)."""
    owners = []
    for scope, table in zip(scopes, tables):
        array = table.reshape([cards[v] for v in scope], order=order)
        owners.append([v for axis, v in enumerate(scope)
                       if np.allclose(array.sum(axis=axis), 1.0, atol=1e-5)])
    return owners


@pytest.mark.parametrize("name", ["Promedus_11", "Promedus_17", "Promedus_24", "Promedus_38"])
def test_uai_2014_tables_list_the_last_variable_of_the_scope_fastest(shared, name):
    """The Promedus instances are Bayesian networks written as MARKOV factors, one
    conditional table per variable. Read with the last variable fastest, every factor sums
    to 1 over exactly one variable and each variable owns exactly one factor; read with
    the first fastest, some variable would own several factors and others none."""
    cards, scopes, tables = _uai_factors(shared / "uai2014" / "MAR" / f"{name}.uai.gz")
    owners = _owners(cards, scopes, tables, "C")
    assert all(len(o) == 1 for o in owners)
    assert sorted(o[0] for o in owners) == list(range(len(cards)))
    wrong = [o[0] for o in _owners(cards, scopes, tables, "F") if len(o) == 1]
    assert len(set(wrong)) < len(cards)


def test_writers_use_no_exponent_and_stay_exact():
    net = _rich_network()
    net.set_cpt("C", np.tile([1e-05, 1 - 1e-05], (3, 2, 1)))
    for fmt in ("bif", "xmlbif", "hugin", "uai"):
        text = bbn.dumps(net, fmt)
        assert not re.search(r"\d[eE][-+]?\d", text), fmt
        assert "0.00001 " in text or "0.00001," in text, fmt
        back = bbn.loads(text, fmt)
        for old, new in zip(net.variables, back.variables):
            assert np.array_equal(back.cpt_array(new), net.cpt_array(old)), (fmt, old)


GENIE_HUGIN = """/// Bayesian Network in the Hugin .NET File Format
/// Produced by Genie Software
/// Output Created Aug 19 23:01:23 2019
net
{
    node_size = (76 36);
    HR_Desc = "";  // a comment after a value
}

node Rain
{
    label = "see http://example.org/rain";
    states = ("yes" "no");
}
/// the end
potential (Rain) { data = (0.2 0.8); }
"""


def test_hugin_reads_slash_slash_comments_as_genie_and_pgmpy_write_them():
    net = hugin.read(GENIE_HUGIN, "genie.net")
    assert net.variables == ("Rain",) and net.cpt_array("Rain").tolist() == [0.2, 0.8]
    assert net.description("Rain") == "see http://example.org/rain"  # not in a string


def _reversed_parents(net: bbn.Network, v: str) -> np.ndarray:
    """``v``'s table with its numbers read in pyAgrum's UAI order (the parents' order
    reversed: the first parent fastest after the child), as bbn's array."""
    k = len(net.parents(v))
    shape = [net.cardinality(p) for p in reversed(net.parents(v))] + [net.cardinality(v)]
    return net.cpt_array(v).reshape(shape).transpose([*range(k - 1, -1, -1), k])


def _pyagrum_table(theirs, v: str, family: list[str]) -> np.ndarray:
    cpt = theirs.cpt(v)
    axes = list(reversed(cpt.names))  # pyAgrum's arrays list variables last to first
    return np.transpose(cpt.toarray(), [axes.index(x) for x in family])


def test_pyagrum_reads_bbn_uai_files_with_the_parents_order_reversed(shared, tmp_path):
    """pyAgrum 3.3.1 deviates from the UAI specification for tables with two parents or
    more (docs/formats.md): it reads them as if the parents were listed in reverse order.
    Tables with one parent or none it reads as bbn writes them (in single precision)."""
    gum = pytest.importorskip("pyagrum")
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    path = tmp_path / "alarm.uai"
    bbn.save(net, path)
    theirs = gum.loadBN(str(path))
    several = 0
    for i, v in enumerate(net.variables):
        family = [str(net.variables.index(p)) for p in net.parents(v)] + [str(i)]
        table = _pyagrum_table(theirs, str(i), family)
        if len(net.parents(v)) < 2:
            assert np.allclose(table, net.cpt_array(v), atol=1e-6), v
        else:
            several += 1
            assert np.allclose(table, _reversed_parents(net, v), atol=1e-6), v
            assert not np.allclose(table, net.cpt_array(v), atol=1e-6), v
    assert several == 17  # alarm's nodes with 2 to 4 parents


def test_bbn_reads_the_uai_files_pyagrum_writes(tmp_path):
    """pyAgrum writes a '# name' comment after every scope line: bbn takes that as the
    sign of pyAgrum's order and reads its tables right."""
    gum = pytest.importorskip("pyagrum")
    theirs = gum.fastBN("A[3]->D<-B;C->D;A->E<-C;B->F")
    theirs.generateCPTs()
    path = tmp_path / "theirs.uai"
    gum.saveBN(theirs, str(path))
    net = bbn.load(path)
    names = {f"X{i}": theirs.variable(i).name() for i in range(theirs.size())}
    for v in net.variables:
        family = [names[p] for p in net.parents(v)] + [names[v]]
        # pyAgrum prints six significant digits
        assert np.allclose(_pyagrum_table(theirs, names[v], family), net.cpt_array(v),
                           atol=1e-6), v
    d = next(v for v in net.variables if len(net.parents(v)) == 3)
    # without the comments, the spec's order: the numbers of (Pk, ..., P1, D), reshaped
    plain = bbn.loads(re.sub(r"#[^\n]*", "", path.read_text()), "uai")
    written = net.cpt_array(d).transpose(2, 1, 0, 3).reshape(-1)
    assert plain.cpt_array(d).reshape(-1).tolist() == written.tolist()
    assert not np.allclose(plain.cpt_array(d), net.cpt_array(d), atol=1e-3)


def test_pyagrum_wants_bifxml_not_xmlbif(shared, tmp_path):
    gum = pytest.importorskip("pyagrum")
    net = bbn.load(shared / "networks" / "asia.bif.gz")
    bbn.save(net, tmp_path / "asia.xmlbif")
    with pytest.raises(Exception, match="(?i)extension|unknown|format"):
        gum.loadBN(str(tmp_path / "asia.xmlbif"))
    bbn.save(net, tmp_path / "asia.bifxml")  # the same XMLBIF, under pyAgrum's extension
    assert (tmp_path / "asia.bifxml").read_text() == (tmp_path / "asia.xmlbif").read_text()
    assert gum.loadBN(str(tmp_path / "asia.bifxml")).size() == 8


def test_pgmpy_parses_every_number_bbn_writes_in_uai(shared, tmp_path):
    """pgmpy 1.1.2's UAI reader takes fixed-point numbers only (no exponent), and reads
    each table with the scope's FIRST variable fastest (docs/formats.md): bbn's tables with
    parents come out transposed there, so only the numbers and the roots compare."""
    readwrite = pytest.importorskip("pgmpy.readwrite")
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    net.set_cpt("HYPOVOLEMIA", [1e-05, 1 - 1e-05])
    path = tmp_path / "alarm.uai"
    bbn.save(net, path)
    reader = readwrite.UAIReader(str(path))
    for child, values in reader.get_tables():
        v = net.variables[int(child.removeprefix("var_"))]
        assert np.array_equal(np.array(values, dtype=float), net.cpt_array(v).ravel()), v
    roots = bbn.Network("roots")
    roots.add_variable("A", ["0", "1"], table=[1e-05, 1 - 1e-05])
    roots.add_variable("B", ["0", "1", "2"], table=[0.2, 0.3, 0.5])
    bbn.save(roots, tmp_path / "roots.uai")
    model = readwrite.UAIReader(str(tmp_path / "roots.uai")).get_model()
    assert model.get_cpds("var_0").values.tolist() == [1e-05, 1 - 1e-05]
    assert model.get_cpds("var_1").values.tolist() == [0.2, 0.3, 0.5]


def test_hugin_reads_numbers_as_state_names_as_pyagrum_writes_them():
    # pyAgrum 3.3.1 writes munin's R_APB_FORCE so; the list of numbers is not 'data'
    text = ("node A { states = (5 4 3 2 1 0 ); position = (10 20); }\n"
            "potential (A) { data = (0.1 0.1 0.1 0.1 0.1 0.5); }")
    net = hugin.read(text)
    assert net.states("A") == ("5", "4", "3", "2", "1", "0")
    assert net.cpt_array("A").tolist() == [0.1] * 5 + [0.5]

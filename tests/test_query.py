"""The query language: parsing every form of the issue, quoting, answers and errors."""

from __future__ import annotations

import numpy as np
import pytest
from brute_force import BruteForce
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import networks, query_and_evidence

import bbn
from bbn.questions.dispatch import ask as answer
from bbn.questions.language import Query, parse_evidence, parse_query
from bbn.questions.presentation import to_json, to_text
from bbn.questions.resolution import resolve_evidence_text

EXACT = 1e-12
# Hand-derived from EXAMPLES.md §1: P(C, S, A=T) for (C, S) = (T,T), (T,F), (F,T), (F,F)
P_CS_AT = {("T", "T"): 0.01024, ("T", "F"): 0.17248, ("F", "T"): 0.00256, ("F", "F"): 0.020776}
P_AT = 0.206056


@pytest.fixture(scope="module")
def quoted():
    """A network whose names need quoting: spaces, '+', '<', '=' and a double quote."""
    net = bbn.Network("quoted")
    net.add_variable("Age", ["<5", "5-12", "12+"], table=[0.2, 0.3, 0.5])
    net.add_variable("Lung Parench", ["Normal", "Asy/Patch"], parents=["Age"],
                     table=[[0.9, 0.1], [0.8, 0.2], [0.6, 0.4]])
    net.add_variable('say "hi"', ["a=b", "c"], table=[0.25, 0.75])
    return net


# -------------------------------------------------------------------- parsing
@pytest.mark.parametrize("text, kind, targets, evidence", [
    ("P(C | A=T)", "P", (("C", None),), (("A", "T"),)),
    ("P(C=T | A=T, S=F)", "P", (("C", "T"),), (("A", "T"), ("S", "F"))),
    ("P(B, C | A=T)", "P", (("B", None), ("C", None)), (("A", "T"),)),
    ("P(A=T)", "P", (("A", "T"),), ()),
    ("P(A=T, S=F)", "P", (("A", "T"), ("S", "F")), ()),
    ("MAP(C, S | A=T)", "MAP", (("C", None), ("S", None)), (("A", "T"),)),
    ("MAP(C)", "MAP", (("C", None),), ()),
    ("MPE(A=T)", "MPE", (), (("A", "T"),)),
    ("MPE(| A=T)", "MPE", (), (("A", "T"),)),
    ("MPE()", "MPE", (), ()),
])
def test_every_form_parses(text, kind, targets, evidence):
    query = parse_query(text)
    assert (query.kind, query.targets, query.evidence) == (kind, targets, evidence)


@pytest.mark.parametrize("text", [
    "P(C|A=T,S=F)", "  P ( C | A = T , S = F )  ", "P(C\t|\nA=T,  S=F)", "p(C | A=T, S=F)",
])
def test_whitespace_and_keyword_case_do_not_matter(text):
    assert parse_query(text) == Query("P", (("C", None),), (("A", "T"), ("S", "F")))


def test_canonical_text_round_trips(quoted):
    for text in ["P(C | A=T)", "P(B, C=T | A=T, S=F)", "MAP(C, S | A=T)", "MPE(A=T)", "MPE()"]:
        assert parse_query(text).text() == text
    query = parse_query("P('Lung Parench'|Age='12+', 'say \"hi\"'=\"a=b\")")
    assert query.text() == 'P("Lung Parench" | Age=12+, "say \\"hi\\""="a=b")'
    assert parse_query(query.text()) == query


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=2, max_size=4, unique=True),
       st.lists(st.text(min_size=1, max_size=6), min_size=2, max_size=2))
def test_any_name_round_trips_through_the_canonical_text(names, states):
    """Query.text() quotes what needs quoting, so parsing it gives the same query back."""
    query = Query("P", ((names[0], None), (names[1], states[0])),
                  tuple((name, states[1]) for name in names[2:]))
    assert parse_query(query.text()) == query


@settings(max_examples=100, deadline=None)
@given(data=st.data(), net=networks(names="awkward"))
def test_queries_on_awkward_names_match_brute_force(data, net):
    query, evidence = data.draw(query_and_evidence(net))
    text = Query("P", tuple((v, None) for v in query), tuple(evidence.items())).text()
    expected = BruteForce(net).posterior(query, evidence)
    if expected is None:
        with pytest.raises(bbn.ImpossibleEvidenceError):
            net.query(text)
    else:
        np.testing.assert_allclose(net.query(text).values, expected, rtol=1e-9, atol=1e-12)


def test_parse_evidence(chair):
    assert parse_evidence("A=T, S=F") == {"A": "T", "S": "F"}
    assert resolve_evidence_text(" A = T ", chair.compiled()).given == {"A": "T"}
    assert parse_evidence("") == {}
    with pytest.raises(bbn.QueryError, match="needs a state"):
        parse_evidence("A")
    with pytest.raises(bbn.QueryError, match="did you mean 'T'"):
        resolve_evidence_text("A=t", chair.compiled())
    with pytest.raises(bbn.ParseError):
        parse_evidence("A=T,, S=F")


# -------------------------------------------------------------------- answers
def test_distribution_query(chair):
    f = chair.query("P(C | A=T)")
    assert isinstance(f, bbn.Factor)
    assert f.variables == ("C",) and f.states == {"C": ("T", "F")}
    assert f.to_dict() == {"T": pytest.approx(22840 / 25757, abs=EXACT),
                           "F": pytest.approx(0.1132507667818458, abs=EXACT)}
    assert answer(chair, "P(C | A=T)") == f


def test_probability_queries(chair):
    assert chair.query("P(A=T)") == pytest.approx(25757 / 125000, abs=EXACT)
    assert chair.query("P(C=T | A=T)") == pytest.approx(22840 / 25757, abs=EXACT)
    p_sf_at = P_CS_AT["T", "F"] + P_CS_AT["F", "F"]
    assert chair.query("P(A=T, S=F)") == pytest.approx(p_sf_at, abs=EXACT)
    assert chair.query("P(C=T | A=T, S=F)") == pytest.approx(P_CS_AT["T", "F"] / p_sf_at,
                                                             abs=EXACT)
    assert chair.query("P(C=T, S=F | A=T)") == pytest.approx(P_CS_AT["T", "F"] / P_AT,
                                                             abs=EXACT)


def test_joint_query(chair):
    f = chair.query("P(B, C | A=T)")
    assert f.variables == ("B", "C")
    expected = BruteForce(chair).posterior(["B", "C"], {"A": "T"})
    np.testing.assert_allclose(f.values, expected, atol=EXACT)
    # P(C=T, B=T | A=T) = P(C=T) Σ_S P(S) P(B=T | C=T, S) 0.7 / P(A=T)
    assert f.to_dict()["T", "T"] == pytest.approx(0.8 * (0.02 * 0.9 + 0.98 * 0.2) * 0.7 / P_AT,
                                                  abs=EXACT)
    s = chair.query("P(C, S | A=T)")
    assert s.to_dict() == {key: pytest.approx(p / P_AT, abs=EXACT) for key, p in P_CS_AT.items()}


def test_partly_assigned_query_is_a_table_over_the_free_variables(chair):
    f = chair.query("P(S, C=T | A=T)")
    assert f.variables == ("S",)
    assert f.to_dict() == {"T": pytest.approx(P_CS_AT["T", "T"] / P_AT, abs=EXACT),
                           "F": pytest.approx(P_CS_AT["T", "F"] / P_AT, abs=EXACT)}


def test_map_and_mpe_queries(chair):
    assignment, p = chair.query("MAP(C, S | A=T)")
    assert assignment == {"C": "T", "S": "F"}
    assert p == pytest.approx(P_CS_AT["T", "F"] / P_AT, abs=EXACT)
    assert chair.query("MPE()") == ({"C": "T", "S": "F", "W": "T", "B": "F", "A": "F"},
                                    pytest.approx(0.8 * 0.98 * 0.9 * 0.8 * 0.9, abs=EXACT))
    assignment, p = chair.query("MPE(A=T)")
    assert assignment == {"C": "T", "S": "F", "W": "T", "B": "T"}
    assert p == pytest.approx(0.8 * 0.98 * 0.9 * 0.2 * 0.7 / P_AT, abs=EXACT)
    assert chair.query("MPE(| A=T)") == (assignment, p)


def test_quoted_names(quoted):
    f = quoted.query('P("Lung Parench" | Age="12+")')
    assert f.variables == ("Lung Parench",)
    assert f.to_dict() == {"Normal": pytest.approx(0.6), "Asy/Patch": pytest.approx(0.4)}
    assert quoted.query("P('Lung Parench'='Asy/Patch'|Age='<5')") == pytest.approx(0.1)
    assert quoted.query('P("say \\"hi\\""="a=b")') == pytest.approx(0.25)
    # P(Age=12+ | LP=Asy/Patch) = 0.5·0.4 / (0.2·0.1 + 0.3·0.2 + 0.5·0.4)
    assert quoted.query('P(Age=12+ | "Lung Parench"=Asy/Patch)') == pytest.approx(0.2 / 0.28)


def test_quoted_mpe_probability(quoted):
    # P(LP=Normal, say=c | Age=12+) = 0.6 · 0.75
    assert quoted.query('MPE(Age="12+")') == ({"Lung Parench": "Normal", 'say "hi"': "c"},
                                              pytest.approx(0.45, abs=EXACT))


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("text, match", [
    ("P(Cc | A=T)", r"unknown query variable 'Cc' \(did you mean 'C'\?\)"),
    ("P(C | Aa=T)", r"unknown evidence variable 'Aa' \(did you mean 'A'\?\)"),
    ("P(C | A=Tr)", r"'A' has no state 'Tr'.*did you mean 'T'"),
    ("P(C=true | A=T)", r"'C' has no state 'true'; its states are T, F"),
    ("MAP(Ss | A=T)", r"did you mean 'S'"),
    ("P(C | A)", r"'A' needs a state"),
    ("MPE(A)", r"'A' needs a state"),
    ("P(C, C | A=T)", r"named more than once"),
    ("P(C | C=T, C=F)", r"named more than once"),
    ("MAP(C=T | A=T)", r"MAP takes variables without states"),
])
def test_unknown_names_and_bad_shapes_are_query_errors(chair, text, match):
    with pytest.raises(bbn.QueryError, match=match):
        chair.query(text)


@pytest.mark.parametrize("text, column, expected", [
    ("P(C | A=T", 10, "')', found the end of the query"),
    ("P(C || A=T)", 6, "found '|'"),
    ("Q(C)", 1, "P(...), MAP(...), MPE(...), MEU(...) or EU(...), found 'Q'"),
    ("", 1, "found the end of the query"),
    ("P()", 3, "expected a variable, found ')'"),
    ("MAP()", 5, "expected a variable"),
    ("P(C | A=T) extra", 12, "found 'e'"),
    ('P("C | A=T)', 3, "found '\"'"),
    ("P(Lung Parench | Age=12+)", 8, "found 'P'"),
])
def test_malformed_queries_are_parse_errors_with_column(chair, text, column, expected):
    with pytest.raises(bbn.ParseError) as error:
        chair.query(text)
    assert error.value.column == column and error.value.line == 1
    message = str(error.value)
    assert message.startswith(f"<query>:1:{column}: malformed query: expected")
    assert expected in message
    assert message.splitlines()[-1] == " " * (4 + column - 1) + "^"


def test_parse_error_names_the_source():
    with pytest.raises(bbn.ParseError, match=r"^cli:1:3:"):
        parse_query("P()", source="cli")


def test_impossible_evidence_in_a_query():
    net = bbn.Network()
    net.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[0.5, 0.5], [0.5, 0.5]])
    for text in ("P(Y | X=b)", "P(Y=a | X=b)", "MAP(Y | X=b)", "MPE(X=b)"):
        with pytest.raises(bbn.ImpossibleEvidenceError, match="X=b"):
            net.query(text)
    assert net.query("P(X=b)") == 0.0


# ---------------------------------------------------------------------- output
def test_json_documents(chair):
    query = parse_query("P(C | A=T)")
    doc = to_json(query, answer(chair, query))
    assert list(doc) == ["query", "variables", "rows"]
    assert doc["query"] == "P(C | A=T)" and doc["variables"] == ["C"]
    assert doc["rows"] == [{"C": "T", "p": pytest.approx(22840 / 25757, abs=EXACT)},
                           {"C": "F", "p": pytest.approx(0.1132507667818458, abs=EXACT)}]
    query = parse_query("P(C=T|A=T)")
    assert to_json(query, answer(chair, query)) == {
        "query": "P(C=T | A=T)", "p": pytest.approx(22840 / 25757, abs=EXACT)}
    query = parse_query("MAP(C,S|A=T)")
    assert to_json(query, answer(chair, query)) == {
        "query": "MAP(C, S | A=T)", "assignment": {"C": "T", "S": "F"},
        "p": pytest.approx(P_CS_AT["T", "F"] / P_AT, abs=EXACT)}


def test_text_answers(chair):
    query = parse_query("P(C | A=T)")
    assert to_text(query, answer(chair, query)) == (
        "P(C | A=T)\n  C   probability\n  T   0.886749\n  F   0.113251")
    query = parse_query("P(C=T | A=T)")
    assert to_text(query, answer(chair, query)) == "P(C=T | A=T) = 0.886749"
    query = parse_query("MAP(C, S | A=T)")
    assert to_text(query, answer(chair, query)) == (
        "MAP(C, S | A=T)\n  C = T\n  S = F\n  probability 0.837054")

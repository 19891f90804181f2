"""``bbn.core.errors.suggest``: close spellings, and names that are a prefix or a longer
spelling."""

from __future__ import annotations

import pytest

import bbn
from bbn.core.errors import suggest

CHAIR = ["C", "S", "W", "B", "A"]


@pytest.mark.parametrize("name, choices, expected", [
    ("Smoker", ["smoke", "either"], " (did you mean 'smoke'?)"),       # difflib
    ("chair", ["Chair", "Sport"], " (did you mean 'Chair'?)"),         # case only
    ("Chair", CHAIR, " (did you mean 'C'?)"),                          # ratio 0.33: a prefix
    ("Ache", CHAIR, " (did you mean 'A'?)"),
    ("sp", ["sport", "smoke", "spin"], " (did you mean 'spin' or 'sport'?)"),  # nearest first
    ("true", ["T", "F"], " (did you mean 'T'?)"),
    ("xyz", CHAIR, ""),
    ("", CHAIR, ""),                                                   # never every choice
    ("C", [], ""),
])
def test_suggest(name, choices, expected):
    assert suggest(name, choices) == expected


def test_suggest_names_at_most_three():
    assert suggest("a", ["ab", "abc", "abcd", "abcde"]).count("'") == 6


@pytest.mark.parametrize("ask", [
    lambda net: net.query("P(Chair | A=T)"),
    lambda net: net.query("P(C | Ache=T)"),
    lambda net: net.posterior(["C"], evidence={"Ache": "T"}),
    lambda net: net.probability({"C": "T"}, {"Ache": "T"}),
    lambda net: net.map(["C"], {"Ache": "T"}),
    lambda net: net.mpe({"Ache": "T"}),
])
def test_unknown_query_and_evidence_variables_suggest(chair_file, ask):
    net = bbn.load(chair_file)
    with pytest.raises(bbn.QueryError, match=r"unknown (query|evidence) variable '(Chair|Ache)'"
                                             r" \(did you mean '[CA]'\?\)"):
        ask(net)


@pytest.mark.parametrize("read", [
    lambda net, v: net.states(v), lambda net, v: net.cardinality(v),
    lambda net, v: net.parents(v), lambda net, v: net.children(v),
    lambda net, v: net.description(v), lambda net, v: net.has_cpt(v),
    lambda net, v: net.cpt_array(v), lambda net, v: net.cpt(v),
    lambda net, v: net.is_gaussian(v), lambda net, v: net.family_text(v),
    lambda net, v: net.configuration_text(v, 0), lambda net, v: net.set_cpt(v, [0.5, 0.5]),
    lambda net, v: net.set_parents(v, []), lambda net, v: net.set_description(v, "x"),
    lambda net, v: net.remove_variable(v), lambda net, v: net.set_parents("A", [v]),
    lambda net, v: net.to_markov().states(v),
])
def test_building_or_reading_a_model_names_an_unknown_variable_as_a_model_error(chair, read):
    with pytest.raises(bbn.ModelError, match=r"unknown variable 'c'.*did you mean 'C'"):
        read(chair, "c")
    with pytest.raises(bbn.ModelError, match=r"unknown variable \W*\['C'\]"):
        read(chair, ["C"])  # not a name (unhashable): the same error, not a TypeError

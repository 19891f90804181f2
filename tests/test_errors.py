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

"""UAI ``MARKOV`` files that are Bayesian networks written as factors read as those
networks (UAI 2014's Promedus and Pedigree instances); other Markov networks are refused."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from test_formats_exchange import UAI

import bbn
from bbn.formats import uai
from bbn.inference import posteriors


def _child_first(text: str) -> str:
    """The BAYES example written as MARKOV factors with each child first in its scope."""
    net = uai.read(text)
    index = {v: i for i, v in enumerate(net.variables)}
    scopes, tables = [], []
    for v in net.variables:
        scopes.append(" ".join(map(str, [len(net.parents(v)) + 1, index[v],
                                         *(index[p] for p in net.parents(v))])))
        values = np.moveaxis(net.cpt_array(v), -1, 0).ravel()
        tables.append(f"{values.size}\n" + " ".join(map(repr, values.tolist())))
    return "\n".join(["MARKOV", str(len(index)), "2 2 2 2", str(len(index)), *scopes, *tables])


def test_markov_factors_that_are_conditional_tables_read_as_the_network():
    expected = uai.read(UAI)
    assert uai.read(UAI.replace("BAYES", "MARKOV")) == expected  # the child last
    first = _child_first(UAI)
    assert first.splitlines()[7] == "3 3 1 2"  # P(X3 | X1, X2) with X3 first
    net = uai.read(first)
    assert net == expected
    assert net.cpt_array("X3").tolist() == [[[1.0, 0.0], [0.35, 0.65]],
                                            [[0.8, 0.2], [0.0, 1.0]]]


@pytest.mark.parametrize("change, reason", [
    (("0.6 0.4 0.3 0.7", "0.6 0.5 0.3 0.7"),
     "a factor does not sum to 1 over its child for some configuration"),
    (("4\n1 0\n", "5\n1 0\n"), "5 factors for 4 variables (a Bayesian network has one table "
                               "per variable)"),
    (("1 0\n2 0 1\n", "1 1\n2 0 1\n"), "its factors are not one conditional table per variable"),
    (("2 0 1\n2 0 2\n", "2 2 1\n2 1 2\n"), "its factors, read as conditional tables, form a "
                                            "cycle"),
])
def test_other_markov_networks_are_refused_clearly(change, reason):
    old, new = change
    text = UAI.replace("BAYES", "MARKOV")
    assert old in text
    text = text.replace(old, new)
    with pytest.raises(bbn.ParseError) as error:
        uai.read(text, "m.uai")
    assert str(error.value).splitlines()[0] == (
        f"m.uai:1:1: MARKOV networks (undirected models) are not supported yet: {reason}; bbn "
        "reads Bayesian networks ('BAYES', or MARKOV factors that are each a variable's table "
        "given the rest of the factor)")


def test_promedus_reads_as_a_bayesian_network_with_the_reference_marginals(shared):
    folder = shared / "uai2014" / "MAR"
    net = bbn.load(folder / "Promedus_15.uai.gz")
    with gzip.open(folder / "Promedus_15.uai.evid.gz", "rt") as file:
        tokens = file.read().split()  # count, then "variable state" by index
    evidence = {f"X{tokens[1 + 2 * i]}": tokens[2 + 2 * i] for i in range(int(tokens[0]))}
    with gzip.open(folder / "Promedus_15.uai.MAR.gz", "rt") as file:
        reference = file.read().split()
    result = posteriors(net, evidence)
    at = 2
    for i in range(int(reference[1])):
        count = int(reference[at])
        expected = np.array(reference[at + 1:at + 1 + count], dtype=float)
        at += 1 + count
        # the reference prints 6 significant digits
        np.testing.assert_allclose(result[f"X{i}"].values, expected, rtol=0, atol=1e-6)
    assert len(net.variables) == 385 and at == len(reference)

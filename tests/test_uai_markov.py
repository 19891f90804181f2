"""UAI ``MARKOV`` files that are Bayesian networks written as factors read as those
networks (UAI 2014's Promedus and Pedigree instances); others as Markov networks."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from brute_force import BruteForce
from test_formats_exchange import UAI

import bbn
from bbn.io.formats import uai


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


@pytest.mark.parametrize("change", [
    ("0.6 0.4 0.3 0.7", "0.6 0.5 0.3 0.7"),  # a factor that does not sum to 1 over its child
    ("4\n1 0\n", "5\n1 0\n"),  # 5 factors for 4 variables
    ("1 0\n2 0 1\n", "1 1\n2 0 1\n"),  # not one conditional table per variable
    ("2 0 1\n2 0 2\n", "2 2 1\n2 1 2\n"),  # conditional tables would form a cycle
])
def test_other_markov_files_are_markov_networks(change):
    old, new = change
    text = UAI.replace("BAYES", "MARKOV")
    assert old in text
    text = text.replace(old, new)
    if new.startswith("5"):  # a fifth factor over X0 and its 2 entries
        text = text.replace("3 1 2 3\n", "3 1 2 3\n1 0\n") + "2\n2.0 3.0\n"
    net = uai.read(text, "m.uai")
    assert isinstance(net, bbn.MarkovNetwork)
    assert net == uai.read(uai.write(net), "m.uai")
    oracle = BruteForce(net)
    assert net.log_partition() == pytest.approx(np.log(oracle.p_evidence({})), rel=1e-12)
    np.testing.assert_allclose(net.posterior("X3", {"X0": "1"}).values,
                               oracle.posterior(["X3"], {"X0": "1"}), rtol=1e-12)


def test_promedus_reads_as_a_bayesian_network_with_the_reference_marginals(shared):
    folder = shared / "uai2014" / "MAR"
    net = bbn.load(folder / "Promedus_15.uai.gz")
    with gzip.open(folder / "Promedus_15.uai.evid.gz", "rt") as file:
        tokens = file.read().split()  # count, then "variable state" by index
    evidence = {f"X{tokens[1 + 2 * i]}": tokens[2 + 2 * i] for i in range(int(tokens[0]))}
    with gzip.open(folder / "Promedus_15.uai.MAR.gz", "rt") as file:
        reference = file.read().split()
    result = net.posteriors(evidence)
    at = 2
    for i in range(int(reference[1])):
        count = int(reference[at])
        expected = np.array(reference[at + 1:at + 1 + count], dtype=float)
        at += 1 + count
        # the reference prints 6 significant digits
        np.testing.assert_allclose(result[f"X{i}"].values, expected, rtol=0, atol=1e-6)
    assert len(net.variables) == 385 and at == len(reference)

"""The UAI 2014 competition's instances, answered exactly and checked against its
reference answers (6 significant digits) through the competition's own file formats.

Every instance of the shared set, both tasks: each one's exact answer fits the default
memory limit (the slowest, Grids_15–18, need a searched elimination order and a tree
holding messages only; their PR is redone in logs, P(e) being below the smallest double),
about 2 minutes for all 98 on 2 cores. Alchemy_11's cliques multiply tens of factors (see
``JunctionTree.rescale``); Pedigree_11's tree fits only compiled for its question alone.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.io.formats import read_text
from bbn.tasks.competition import TaskAnswer, answer_task, read_evidence, read_result, result_text

# every instance of the shared set: the same 49 names in MAR/ and in PR/
INSTANCES = [
    "Alchemy_11", "CSP_11", "CSP_12", "CSP_13", "DBN_11", "DBN_12", "DBN_13", "DBN_14",
    "DBN_15", "DBN_16", "Grids_11", "Grids_12", "Grids_13", "Grids_14", "Grids_15",
    "Grids_16", "Grids_17", "Grids_18", "Pedigree_11", "Pedigree_12", "Pedigree_13",
    "Promedus_11", "Promedus_12", "Promedus_13", "Promedus_14", "Promedus_15",
    "Promedus_16", "Promedus_17", "Promedus_18", "Promedus_19", "Promedus_20",
    "Promedus_21", "Promedus_22", "Promedus_23", "Promedus_24", "Promedus_25",
    "Promedus_26", "Promedus_27", "Promedus_28", "Promedus_29", "Promedus_30",
    "Promedus_31", "Promedus_32", "Promedus_33", "Promedus_34", "Promedus_35",
    "Promedus_36", "Promedus_37", "Promedus_38",
]
MAR = PR = INSTANCES


def instance(shared, task: str, name: str):
    folder = shared / "uai2014" / task
    net = bbn.load(folder / f"{name}.uai.gz")
    evidence_file = folder / f"{name}.uai.evid.gz"
    evidence = read_evidence(read_text(evidence_file), net, str(evidence_file))
    reference = read_result(read_text(folder / f"{name}.uai.{task}.gz"))
    return net, evidence, reference


def half_unit(value: float, digits: int = 6) -> float:
    """Half a unit of the last of ``digits`` significant digits of ``value``: how far the
    reference's printed number may be from the exact one."""
    if value == 0:
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)


@pytest.mark.parametrize("name", MAR)
def test_marginals_equal_the_references(shared, name):
    net, evidence, reference = instance(shared, "MAR", name)
    answer = answer_task(net, "MAR", evidence)
    assert len(answer.marginals) == len(reference.marginals)
    for (v, mine), expected in zip(answer.marginals.items(), reference.marginals.values()):
        assert np.abs(mine - expected).max() <= 5e-7 + 1e-12, v  # the references' 6 digits


@pytest.mark.parametrize("name", PR)
def test_partition_functions_equal_the_references(shared, name):
    net, evidence, reference = instance(shared, "PR", name)
    answer = answer_task(net, "PR", evidence)
    expected = reference.log10_partition
    # within 1e-4, or half a unit of the reference's 6th digit (169.408 is ±5e-4)
    assert abs(answer.log10_partition - expected) <= max(1e-4, half_unit(expected)) + 1e-12


def test_the_command_writes_the_competitions_result_file(shared, tmp_path, capsys):
    folder = shared / "uai2014" / "PR"
    out = tmp_path / "Promedus_15.PR"
    assert main(["uai", str(folder / "Promedus_15.uai.gz"), "--evid",
                 str(folder / "Promedus_15.uai.evid.gz"), "--task", "PR", "-o", str(out)]) == 0
    mine = read_result(out.read_text()).log10_partition
    expected = read_result(read_text(folder / "Promedus_15.uai.PR.gz")).log10_partition
    assert abs(mine - expected) <= 1e-4
    assert main(["uai", str(folder / "Grids_12.uai.gz"), "--task", "MPE"]) == 0
    printed = capsys.readouterr().out
    net = bbn.load(folder / "Grids_12.uai.gz")
    assignment = read_result(printed).assignment
    best, p = net.mpe()
    assert assignment == {v: net.states(v).index(s) for v, s in best.items()}
    # the MPE's probability is the largest: no single flip of the assignment beats it
    states = {v: net.states(v)[i] for v, i in assignment.items()}
    log_best = net.log_partition(states)
    assert log_best == pytest.approx(math.log(p) + net.log_partition(), rel=1e-9)
    for v in net.variables[:20]:
        flipped = {**states, v: net.states(v)[1 - assignment[v]]}
        assert net.log_partition(flipped) <= log_best


def test_evidence_files_are_checked(shared):
    net = bbn.load(shared / "uai2014" / "MAR" / "Grids_12.uai.gz")
    with pytest.raises(bbn.DataError, match="e.evid: variable index 144 is out of range"):
        read_evidence("1 144 0", net, "e.evid")
    with pytest.raises(bbn.DataError, match=r"state index 2 of variable 3 \(X3\) is out of"):
        read_evidence("1 3 2", net, "e.evid")
    with pytest.raises(bbn.DataError, match="the count says 2 observed variable"):
        read_evidence("2 3 1", net, "e.evid")
    assert read_evidence("1 1 3 1", net) == {"X3": "1"}  # UAI 2010: one sample first


def test_result_files_round_trip():
    marginals = {"X0": np.array([0.25, 0.75]), "X1": np.array([0.1, 0.2, 0.7])}
    text = result_text("MAR", TaskAnswer("MAR", marginals=marginals))
    assert text == "MAR\n2 2 0.25 0.75 3 0.1 0.2 0.7"
    again = read_result(text)
    assert {v: p.tolist() for v, p in again.marginals.items()} == {
        v: p.tolist() for v, p in marginals.items()}

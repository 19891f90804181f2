"""States named like missing values (issue 28): a declared state wins over a missing
marker; with no states declared, only NaN, None and blank cells are missing, so texts such
as ``None`` and ``NA`` are states; CSV files written by ``bbn sample`` read back to the
rows drawn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.data import MISSING, encode, read_data, states_from_values
from bbn.tasks.structure.dataset import read_coded

MARKERS = ["None", "NA", "null", "NaN", "N/A", "?", "nan"]


def marker_network() -> bbn.Network:
    """M takes every marker as a state, uniformly; B has a state 'None' too."""
    net = bbn.Network("markers")
    net.add_variable("M", MARKERS, table=np.full(len(MARKERS), 1 / len(MARKERS)))
    net.add_variable("B", ["x", "None"], parents=["M"],
                     table=np.tile([0.25, 0.75], (len(MARKERS), 1)))
    return net


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz"])
def test_a_sampled_csv_reads_back_to_the_rows_drawn(tmp_path, name):
    net = marker_network()
    bbn.save(net, tmp_path / "m.bif")
    assert main(["sample", str(tmp_path / "m.bif"), "-n", "700", "--seed", "3",
                 "-o", str(tmp_path / name)]) == 0
    drawn = bbn.sample(net, 700, seed=3).astype(str)
    states = {v: net.states(v) for v in net.variables}
    for declared in (states, None):  # the network's states, and none
        frame, _ = read_data(str(tmp_path / name), states=declared)
        pd.testing.assert_frame_equal(frame.astype(str), drawn)
        names = [states_from_values(frame[v]) for v in net.variables] if declared is None \
            else [states[v] for v in net.variables]
        codes = encode(frame, list(net.variables), names)
        assert (codes != MISSING).all()
    # counts: each marker state learned from its own rows (MLE = count / 700)
    learned = bbn.learn(net, str(tmp_path / name))
    counts = drawn["M"].value_counts()
    assert learned.cpt("M").values.tolist() == pytest.approx(
        [counts[s] / 700 for s in MARKERS], abs=1e-12)
    assert counts.sum() == 700 and len(counts) == len(MARKERS)


def test_a_declared_state_wins_and_other_markers_stay_missing():
    frame = pd.DataFrame({"A": ["None", "NA", "", None, "yes", "?"]})
    codes = encode(frame, ["A"], [("None", "yes")])[:, 0]
    assert codes.tolist() == [0, MISSING, MISSING, MISSING, 1, MISSING]
    # the empty text is a state when declared
    assert encode(frame, ["A"], [("", "NA", "None", "yes", "?")])[:, 0].tolist() == \
        [2, 1, 0, MISSING, 3, 4]


def test_undeclared_markers_are_states_and_blank_cells_missing():
    frame = pd.DataFrame({"A": ["None", "NA", " ", None, "yes", "None", np.nan]})
    data = read_coded(frame, missing="drop")
    assert data.states[0] == ("NA", "None", "yes")
    assert data.codes[:, 0].tolist() == [1, 0, MISSING, MISSING, 2, 1, MISSING]


@pytest.mark.parametrize("network, variable", [("insurance", "ThisCarDam"),
                                               ("child", "DuctFlow")])
def test_sampled_text_learns_a_structure_with_a_state_named_none(shared, network, variable):
    truth = bbn.load(shared / "networks" / f"{network}.bif.gz")
    assert "None" in truth.states(variable)
    rows = bbn.sample(truth, 2000, seed=5).astype(str)
    learned = bbn.learn_structure(rows, estimator="laplace")
    assert learned.states(variable) == tuple(sorted(truth.states(variable)))
    data = read_coded(rows)
    j = data.variables.index(variable)
    none = data.states[j].index("None")
    assert int((data.codes[:, j] == none).sum()) == int((rows[variable] == "None").sum()) > 0
    assert (data.codes != MISSING).all()

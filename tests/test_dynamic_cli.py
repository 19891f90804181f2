"""A dynamic network on the command line (issue 31): ``bbn query`` on its unrolled network
(the slices named in the question, or ``--unroll T``) and ``bbn sample --unroll T``
(``--sequence-id`` for one row per step). Oracles: the umbrella world by hand (0.818,
0.883) and the unrolled joint table by brute force."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from tests.brute_force import joint_array
from tests.test_dynamic_io import DYNAMIC

PRIOR = np.array([0.5, 0.5])
MOVE = np.array([[0.7, 0.3], [0.3, 0.7]])
SEEN = np.array([[0.9, 0.1], [0.2, 0.8]])  # P(Umbrella | Rain)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "umbrella.bn"
    path.write_text(DYNAMIC)
    return str(path)


def ask(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def probability(capsys, *argv) -> float:
    code, out, err = ask(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)["p"]


def test_the_umbrella_world_by_its_slices(model, capsys):
    # Russell & Norvig: 0.818 after one umbrella, 0.883 after two (filtered and smoothed)
    one = probability(capsys, "query", model, "P(Rain[0]=T | Umbrella[0]=T)")
    assert one == pytest.approx(0.45 / 0.55, abs=1e-12)
    assert one == pytest.approx(0.818, abs=5e-4)
    two = probability(capsys, "query", model, "P(Rain[1]=T | Umbrella[0]=T, Umbrella[1]=T)")
    alpha = (MOVE.T @ (PRIOR * SEEN[:, 0])) * SEEN[:, 0]
    assert two == pytest.approx(alpha[0] / alpha.sum(), abs=1e-12)
    assert two == pytest.approx(0.883, abs=5e-4)
    smoothed = probability(capsys, "query", model, "P(Rain[0]=T | Umbrella[0]=T, Umbrella[1]=T)")
    assert smoothed == pytest.approx(0.883, abs=5e-4)
    # later slices change no posterior of earlier ones: --unroll 6 gives the same
    assert probability(capsys, "query", model, "P(Rain[1]=T | Umbrella[0]=T, Umbrella[1]=T)",
                       "--unroll", "6") == pytest.approx(two, abs=1e-14)
    code, out, _ = ask(capsys, "query", model, "P(Rain[1] | Umbrella[0]=T, Umbrella[1]=T)")
    assert code == 0 and out.splitlines()[2].split() == ["T", "0.883357"]


def test_every_kind_against_the_unrolled_joint(model, capsys):
    net = bbn.load(model).unroll(4)
    joint = joint_array(net)                 # axes R0 U0 R1 U1 R2 U2 R3 U3
    # P(Rain[3] | Umbrella[1]=T): a prediction two steps on
    sliced = joint[:, :, :, 0].sum(axis=(0, 1, 2, 3, 4, 6))     # R0 U0 R1 R2 U2 R3 U3
    expected = sliced / sliced.sum()
    answer = probability(capsys, "query", model, "P(Rain[3]=T | Umbrella[1]=T)", "--unroll", "5")
    assert answer == pytest.approx(expected[0], abs=1e-12)
    # by hand: filter one step, then two transitions
    alpha = (MOVE.T @ PRIOR) * SEEN[:, 0]
    assert answer == pytest.approx((alpha / alpha.sum() @ MOVE @ MOVE)[0], abs=1e-12)
    # MPE over the four slices unrolled (--unroll decides which slices are maximised)
    evidence = joint[:, 0, :, 0, :, 1, :, 0]
    best = np.unravel_index(evidence.argmax(), evidence.shape)
    code, out, _ = ask(capsys, "query", model, "MPE(Umbrella[0]=T, Umbrella[1]=T, "
                       "Umbrella[2]=F, Umbrella[3]=T)", "--unroll", "4", "--json")
    assert code == 0
    answer = json.loads(out)
    assert [answer["assignment"][f"Rain[{t}]"] for t in range(4)] == [
        "TF"[i] for i in best]
    assert answer["p"] == pytest.approx(evidence.max() / evidence.sum(), abs=1e-14)  # P(x* | e)
    # the log of a joint probability
    code, out, _ = ask(capsys, "query", model, "P(Umbrella[0]=T, Umbrella[3]=F)", "--log")
    p = joint[:, 0].sum(axis=(0, 1, 2, 3, 4, 5))[1]
    assert code == 0 and float(out.split("=")[-1]) == pytest.approx(np.log(p), abs=1e-6)


def test_a_two_slice_file_unrolls_too(capsys):
    answer = probability(capsys, "query", "models/umbrella.bn",
                         "P(Rain[2]=T | Umbrella[0]=T, Umbrella[1]=T, Umbrella[2]=T)",
                         "--unroll", "3")
    alpha = PRIOR * SEEN[:, 0]
    for _ in range(2):
        alpha = (MOVE.T @ alpha) * SEEN[:, 0]
    assert answer == pytest.approx(alpha[0] / alpha.sum(), abs=1e-12)


def test_refusals_say_what_to_write(model, capsys):
    code, _, err = ask(capsys, "query", model, "P(Rain)")
    assert code == 2
    assert f"{model} is a dynamic network" in err
    assert 'name the slices in the query, as in "P(Rain[1] | ...)", or give --unroll T' in err
    code, _, err = ask(capsys, "query", model, "P(Rain[3])", "--unroll", "3")
    assert code == 2 and "names slice 3, and --unroll 3 keeps slices 0 to 2" in err
    code, _, err = ask(capsys, "query", model, "P(Rian[1])", "--unroll", "3")
    assert code == 2 and "did you mean 'Rain[1]'" in err
    code, _, err = ask(capsys, "sample", model, "-n", "2")
    assert code == 2 and "give --unroll T" in err
    code, _, err = ask(capsys, "sample", model, "-n", "2", "--sequence-id", "who")
    assert code == 2 and "give --unroll T" in err
    with pytest.raises(SystemExit):
        main(["query", model, "P(Rain[0])", "--unroll", "0"])
    assert "at least one slice" in capsys.readouterr().err


def test_sample_sequences(model, tmp_path, capsys):
    out = tmp_path / "wide.csv"
    assert main(["sample", model, "-n", "4000", "--unroll", "3", "--seed", "2", "-o",
                 str(out), "--chunksize", "1500"]) == 0
    wide = pd.read_csv(out)
    assert wide.columns.tolist() == [f"{v}[{t}]" for t in range(3) for v in ("Rain", "Umbrella")]
    # P(Rain[2]=T) = 0.5 and P(Umbrella[t]=T) = 0.55; P(Rain[1]=Rain[0]) = 0.7
    assert (wide["Umbrella[2]"] == "T").mean() == pytest.approx(0.55, abs=0.025)
    assert (wide["Rain[1]"] == wide["Rain[0]"]).mean() == pytest.approx(0.7, abs=0.025)
    # one row per step: the same draws (same seed), as bbn learn --sequence-id reads them
    out = tmp_path / "long.csv"
    capsys.readouterr()
    assert main(["sample", model, "-n", "4000", "--unroll", "3", "--seed", "2", "-o",
                 str(out), "--sequence-id", "who", "--chunksize", "1500"]) == 0
    assert "4000 sequences of 3 steps, 12000 rows" in capsys.readouterr().out
    long = pd.read_csv(out)
    assert long.columns.tolist() == ["who", "Rain", "Umbrella"]
    assert long["who"].tolist() == np.repeat(np.arange(4000), 3).tolist()
    for v in ("Rain", "Umbrella"):
        assert (long[v].to_numpy().reshape(4000, 3)
                == wide[[f"{v}[{t}]" for t in range(3)]].to_numpy()).all()
    learned = bbn.learn_dynamic(bbn.load(model), long, sequence_id="who").two_slice()
    assert np.allclose(learned.cpt_array("Rain[1]"), MOVE, atol=0.03)
    assert np.allclose(learned.cpt_array("Umbrella[1]"), SEEN, atol=0.03)


def test_explain_on_the_unrolled_network(model, capsys):
    code, out, _ = ask(capsys, "explain", model, "P(Rain[1]=T | Umbrella[0]=T, Umbrella[1]=T)")
    # 0.5·0.9·0.7·0.9 + 0.5·0.2·0.3·0.9 = 0.3105 over P(u, u) = 0.3515: 621/703 = 0.883357
    assert code == 0 and out.rstrip().endswith("= 0.3105 / 0.3515 = 0.883357  (= 621/703)")
    code, _, err = ask(capsys, "explain", model, "P(Rain)")
    assert code == 2 and "give --unroll T" in err

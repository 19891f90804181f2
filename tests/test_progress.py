"""Progress on long work (bbn/core/progress.py): one report per EM iteration, per chunk
of a file learned or classified, per chunk sampled, per line of a structure search —
never per row; a bar only on a terminal, silence elsewhere."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.progress import Step, TerminalBar, on_terminal, reporter
from bbn.tasks.learning import em, sample_chunks


def test_a_step_is_its_line_and_its_numbers():
    step = Step("em", 4, 100, "log-likelihood -12.5")
    assert step == "em: 4 of 100, log-likelihood -12.5"
    assert (step.task, step.done, step.total, step.fraction) == ("em", 4, 100, 0.04)
    assert Step("learn", 200_000).fraction is None and Step("pc", note="x") == "pc: x"


def test_the_bar_draws_in_place_and_clears(monkeypatch):
    out = io.StringIO()
    bar = TerminalBar(out, prefix="bbn x: ", width=4)
    bar(Step("sample", 1, 4))
    bar(Step("sample", 2, 4))           # within 0.1 s of the last: not redrawn
    bar(Step("sample", 4, 4))           # the end is always drawn
    assert out.getvalue() == ("\rbbn x: sample [#...]  25%  sample: 1 of 4"
                              "\rbbn x: sample [####] 100%  sample: 4 of 4")
    bar.close()
    assert out.getvalue().endswith("\r" + " " * len("bbn x: sample [####] 100%  sample: 4 of 4")
                                   + "\r")
    assert on_terminal(stream=io.StringIO()) is None
    with pytest.raises(TypeError, match="progress must be"):
        reporter("yes")


def test_em_reports_each_iteration_and_its_log_likelihood(chair):
    rows = bbn.sample(chair, 300, seed=1)
    rows = rows.mask(np.random.default_rng(2).random(rows.shape) < 0.2)
    steps: list[Step] = []
    result = em(chair, rows, max_iter=25, progress=steps.append)
    assert [s.done for s in steps] == list(range(len(result.log_likelihood)))
    assert {s.total for s in steps} == {25} and {s.task for s in steps} == {"em"}
    assert [float(s.note.split()[-1]) for s in steps] == pytest.approx(
        result.log_likelihood, rel=1e-7)
    learned = bbn.learn(chair, rows, missing="em", max_iter=25, progress=steps.append)
    assert learned == result.network and len(steps) == 2 * len(result.log_likelihood)


def test_a_gaussian_mixture_reports_each_iteration():
    net = bbn.Network()
    net.add_variable("H", ["a", "b"])
    net.add_gaussian_variable("x", ["H"])
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(0, 1, 100), rng.normal(6, 1, 100)]     # two clusters
    steps: list[Step] = []
    result = em(net, pd.DataFrame({"x": x}), max_iter=50, progress=steps.append)
    assert [s.done for s in steps] == list(range(len(result.log_likelihood)))
    assert [float(s.note.split()[-1]) for s in steps] == pytest.approx(
        result.log_likelihood, rel=1e-7)


def test_learning_a_file_reports_each_chunk(chair, tmp_path):
    path = tmp_path / "rows.csv"
    bbn.sample(chair, 1000, seed=5).to_csv(path, index=False)
    steps: list[Step] = []
    learned = bbn.learn(chair, path, chunksize=300, progress=steps.append)
    assert [s.done for s in steps] == [300, 600, 900, 1000]
    assert learned == bbn.learn(chair, path)               # progress changes nothing


def test_classifying_a_file_reports_each_chunk(chair, tmp_path):
    path = tmp_path / "cases.csv"
    bbn.sample(chair, 500, seed=6).drop(columns=["C"]).to_csv(path, index=False)
    steps: list[Step] = []
    answers = bbn.predict_proba(chair, path, "C", chunksize=200, progress=steps.append)
    assert [s.done for s in steps] == [200, 400, 500] and {s.task for s in steps} == {"classify"}
    assert len(answers) == 500


def test_sampling_reports_each_chunk(chair):
    steps: list[Step] = []
    chunks = list(sample_chunks(chair, 5, seed=0, chunksize=2, progress=steps.append))
    assert [len(c) for c in chunks] == [2, 2, 1]
    assert [(s.done, s.total) for s in steps] == [(2, 5), (4, 5), (5, 5)]


def test_plain_sampling_reports_each_variable_and_draws_the_same_rows(chair, capsys,
                                                                       monkeypatch):
    steps: list[Step] = []
    rows = bbn.sample(chair, 1000, seed=3, progress=steps.append)
    pd.testing.assert_frame_equal(rows, bbn.sample(chair, 1000, seed=3))  # nothing changes
    assert [(s.task, s.done, s.total) for s in steps] == [("sample", k, 5) for k in range(1, 6)]
    assert steps[-1] == "sample: 5 of 5, variables drawn (1,000 rows)"
    bbn.sample(chair, 10, seed=3, progress=True)
    assert capsys.readouterr().err == ""                    # not a terminal: silent
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bbn.sample(chair, 10, seed=3, progress=True)
    assert "sample [########################] 100%  sample: 5 of 5" in capsys.readouterr().err


def test_a_structure_search_reports_steps_named_for_its_method(chair):
    steps: list[Step] = []
    bbn.learn_structure(bbn.sample(chair, 500, seed=1), method="hybrid", restarts=2,
                        progress=steps.append)
    assert all(isinstance(s, Step) for s in steps)
    assert [s.task for s in steps][0] == "hybrid" and [s.task for s in steps].count("hc") >= 2
    assert steps[0].startswith("hybrid: skeleton of")


def test_progress_true_is_silent_off_a_terminal(chair, capsys):
    rows = bbn.sample(chair, 200, seed=1).mask(np.random.default_rng(2).random((200, 5)) < .2)
    em(chair, rows, max_iter=5, progress=True)
    assert capsys.readouterr().err == ""


def test_the_commands_draw_a_bar_on_a_terminal_only(chair, tmp_path, capsys, monkeypatch,
                                                    models):
    data = tmp_path / "rows.csv"
    rows = bbn.sample(chair, 400, seed=1)
    rows.mask(np.random.default_rng(2).random(rows.shape) < 0.1).to_csv(data, index=False)
    command = ["learn", str(models / "chair.bn"), str(data), "--missing", "em",
               "-o", str(tmp_path / "out.bn")]
    assert main(command) == 0
    assert "\r" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(command) == 0
    err = capsys.readouterr().err
    assert err.startswith("\rbbn learn: em [") and "log-likelihood" in err
    cleared = err.split("\r")
    assert cleared[-1].startswith("EM:") and cleared[-2].strip() == ""   # cleared, then the summary
    assert main(["sample", str(models / "chair.bn"), "-n", "10",
                 "-o", str(tmp_path / "s.csv")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("\rbbn sample: sample [") and "10 of 10" in err

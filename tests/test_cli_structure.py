"""``bbn structure``: the learned network written and summarised, the expert knowledge from
the options and the tiers file, errors on one line with exit code 2, nothing written on
error, and the progress line only on a terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bbn
from bbn.apps.cli import structure as structure_command
from bbn.apps.cli.main import main
from bbn.apps.cli.structure import read_tiers


@pytest.fixture(scope="module")
def chair_csv(tmp_path_factory, models) -> Path:
    path = tmp_path_factory.mktemp("data") / "chair.csv"
    bbn.sample(bbn.load(models / "chair.bn"), 2000, seed=3).to_csv(path, index=False)
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def failed(capsys, *argv) -> str:
    """A command that must fail with exit code 2: its one line on stderr."""
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("bbn structure: ") and err.count("\n") == 1, err
    return err


def test_the_network_is_written_and_summarised(capsys, tmp_path, chair_csv):
    output = tmp_path / "tan.bn"
    code, out, err = run(capsys, "structure", chair_csv, "-o", output, "--method", "tan",
                         "--target", "C", "--estimator", "laplace")
    assert (code, err) == (0, "")
    expected = bbn.learn_structure(chair_csv, method="tan", target="C", estimator="laplace")
    bic = bbn.structure_score(expected, chair_csv, "bic")
    assert out.splitlines() == [f"wrote {output}",
                                f"method tan: 5 variables, 7 arcs, bic score {bic:.6g}",
                                "arcs: C->S, C->W, S->W, C->B, S->B, C->A, B->A",
                                "undirected edges: none"]
    written = bbn.load(output)
    assert sorted(written.arcs()) == sorted(expected.arcs())
    for v in expected.variables:
        assert np.allclose(written.cpt_array(v), expected.cpt_array(v), atol=1e-12)


def test_without_output_the_model_goes_to_stdout_and_the_summary_to_stderr(capsys, chair_csv):
    code, out, err = run(capsys, "structure", chair_csv, "--method", "tree", "--root", "C")
    assert code == 0
    assert bbn.loads(out).arcs() == bbn.chow_liu(chair_csv, root="C").arcs()
    assert err.splitlines() == ["method tree: 5 variables, 4 arcs, bic score -3416.13",
                                "arcs: B->S, C->W, C->B, B->A", "undirected edges: none"]


def test_the_knowledge_options_and_the_tiers_file(capsys, tmp_path, chair_csv):
    tiers = tmp_path / "tiers.txt"
    tiers.write_text("# the class first\nC\n\nS, W   B  # then the rest\n")
    code, out, _ = run(capsys, "structure", chair_csv, "--method", "tan", "--target", "C",
                       "--tiers", tiers, "--require", "W->A", "--forbid", "S->B",
                       "--forbid", "B->S", "--max-parents", "2")
    assert code == 0
    net = bbn.loads(out)
    assert net.parents("A") == ("C", "W")
    assert not {("S", "B"), ("B", "S")} & set(net.arcs())
    assert all(net.parents(v)[0] == "C" for v in "SWBA")


def test_a_start_network_is_read_and_checked(capsys, tmp_path, chair_csv):
    start = tmp_path / "start.bn"
    start.write_text("variable C { F, T }\nvariable Z { F, T }\nP(Z | C)\n")
    assert "the start network's variable 'Z' is no column of" in failed(
        capsys, "structure", chair_csv, "--method", "tree", "--start", start)
    start.write_text("variable C { F, T }\nvariable S { F, T }\nP(S | C)\n")
    assert "the start network (with the required arcs) has the arc C->S, which is " \
           "forbidden" in failed(capsys, "structure", chair_csv, "--method", "tree",
                                 "--start", start, "--forbid", "C->S")


@pytest.mark.parametrize("argv, message", [
    (["--method", "tam"], "unknown method 'tam'; the methods are "),
    (["--method", "tan"], "method 'tan' needs the class variable"),
    (["--method", "tan", "--target", "Cc"], "'Cc' is no variable of "),
    (["--score", "bick"], "did you mean 'bic'"),
    (["--require", "A->Q"], "'Q'"),
    (["--require", "A->B", "--forbid", "A->B"], "the arc A->B is both required and forbidden"),
    (["--method", "tree", "--max-parents", "-1"], "max_parents must be a whole number ≥ 0"),
    (["--alpha", "2"], "alpha (the tests' level) must be a number in (0, 1)"),
])
def test_bad_input_is_one_line_and_exit_code_2(capsys, tmp_path, chair_csv, argv, message):
    output = tmp_path / "never.bn"
    err = failed(capsys, "structure", chair_csv, "-o", output, *argv)
    assert message in err
    assert not output.exists()


def test_tiers_file_errors_are_located(capsys, tmp_path, chair_csv):
    tiers = tmp_path / "tiers.txt"
    tiers.write_text("C\n# comment\nS, Ww\n")
    err = failed(capsys, "structure", chair_csv, "--tiers", tiers)
    assert err == f"bbn structure: {tiers}:3: 'Ww' is no column of the data (did you mean 'W'?)\n"
    tiers.write_text("C S\nB, C\n")
    assert f"{tiers}:2: 'C' is in two tiers (lines 1 and 2)" in failed(
        capsys, "structure", chair_csv, "--tiers", tiers)
    tiers.write_text("# nothing\n\n")
    assert "no tiers" in failed(capsys, "structure", chair_csv, "--tiers", tiers)
    assert "no such file" in failed(capsys, "structure", chair_csv, "--tiers",
                                    tmp_path / "absent.txt").lower()
    tiers.write_text("S\nC\n")  # the tier order against the required arc
    assert "goes from tier 2 back to tier 1" in failed(
        capsys, "structure", chair_csv, "--tiers", tiers, "--require", "C->S")


def test_read_tiers_without_columns(tmp_path):
    tiers = tmp_path / "tiers.txt"
    tiers.write_text("a,b  c\n\t# only a comment\nd\n")
    assert read_tiers(str(tiers)) == [["a", "b", "c"], ["d"]]


def test_pc_gives_its_equivalence_class(capsys, chair_csv):
    code, _, err = run(capsys, "structure", chair_csv, "--method", "pc", "--max-condition",
                       "2", "--alpha", "0.01")
    expected = bbn.learn_structure(chair_csv, method="pc", max_condition=2, alpha=0.01)
    assert code == 0
    assert err.splitlines()[2] == "undirected edges: " + ", ".join(
        f"{a}-{b}" for a, b in expected.undirected_edges_)
    assert expected.undirected_edges_ == [("C", "W")]
    assert "method 'tree' has no option 'max_condition'" in failed(
        capsys, "structure", chair_csv, "--method", "tree", "--max-condition", "2")


def test_the_score_asked_for_is_summarised(capsys, chair_csv):
    code, _, err = run(capsys, "structure", chair_csv, "--method", "tree", "--score", "bdeu",
                       "--ess", "10")
    net = bbn.chow_liu(chair_csv)
    score = bbn.structure_score(net, chair_csv, "bdeu", ess=10)
    assert err.splitlines()[0] == f"method tree: 5 variables, 4 arcs, bdeu score {score:.6g}"


def test_missing_values_are_refused_or_dropped(capsys, tmp_path, chair_csv):
    holes = tmp_path / "holes.csv"
    lines = chair_csv.read_text().splitlines()
    lines[5] = "," + lines[5].split(",", 1)[1]  # C missing in data row 4 (0-based)
    holes.write_text("\n".join(lines) + "\n")
    err = failed(capsys, "structure", holes, "--method", "tree")
    assert "row 4 has no value for 'C'" in err
    code, out, _ = run(capsys, "structure", holes, "--method", "tree", "--missing", "drop")
    assert code == 0 and len(bbn.loads(out).arcs()) == 4


def test_the_progress_line_only_on_a_terminal(capsys, chair_csv, monkeypatch):
    def report(data, *args, progress=None, **kwargs):
        if progress is not None:
            progress("iteration 1")
        return learn(data, *args, **kwargs)
    learn = bbn.learn_structure
    monkeypatch.setattr(structure_command, "learn_structure", report)
    _, _, err = run(capsys, "structure", chair_csv, "--method", "tree", "-o", "/dev/null")
    assert "iteration" not in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    _, _, err = run(capsys, "structure", chair_csv, "--method", "tree", "-o", "/dev/null")
    assert err.startswith("\rbbn structure: iteration 1\r")
    assert err.split("\r")[2].strip() == ""  # then cleared


def test_console_script_exit_code_without_traceback(tmp_path, chair_csv):
    script = Path(sys.executable).parent / "bbn"
    if not script.exists():
        pytest.skip("the bbn console script is not installed next to this python")
    done = subprocess.run([script, "structure", str(chair_csv), "--method", "tan"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("bbn structure: method 'tan' needs the class variable")
    assert "Traceback" not in done.stderr


def test_pc_start_yes_or_no(capsys, tmp_path, chair_csv):
    for flag, pc_start, starts in (("yes", True, {"empty", "pc"}), ("no", False, {"empty"}),
                                   ("auto", "auto", {"empty"})):   # 2,000 rows: auto is no
        output = tmp_path / "hybrid.bn"
        code, out, _ = run(capsys, "structure", chair_csv, "-o", output, "--pc-start", flag)
        assert code == 0 and "method hybrid" in out
        learned = bbn.learn_structure(chair_csv, pc_start=pc_start)
        assert set(learned.statistics_["scores"]) == starts
        assert sorted(bbn.load(output).arcs()) == sorted(learned.arcs())

"""The ``bbn`` command: output formats, the --json schema, exit codes and error messages.

Most tests call ``bbn.apps.cli.main.main`` in-process; ``test_console_script_*`` run the installed
``bbn`` script in a subprocess to prove the real exit codes and the absence of tracebacks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bbn
from bbn.apps.cli import options
from bbn.apps.cli.main import main

EXACT = 1e-12
P_C_GIVEN_A = 22840 / 25757


@pytest.fixture
def monty_file(models) -> Path:
    return models / "monty_hall.bn"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def query_json(capsys, model, query: str) -> dict:
    """``bbn query MODEL QUERY --json``, which must succeed quietly; the parsed document."""
    code, out, err = run(capsys, "query", model, query, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def failed(capsys, code: int, *argv) -> str:
    """Run a command that must fail with ``code``; return its stderr (one clean message)."""
    got, out, err = run(capsys, *argv)
    assert got == code
    assert out == ""
    assert err.startswith(f"bbn {argv[0]}: ")
    assert "Traceback" not in err
    return err


# ----------------------------------------------------------------------- query
def test_query_table(capsys, chair_file):
    code, out, err = run(capsys, "query", chair_file, "P(C | A=T)")
    assert (code, err) == (0, "")
    assert out == "P(C | A=T)\n  C   probability\n  T   0.886749\n  F   0.113251\n"


def test_query_number_and_map_text(capsys, chair_file):
    assert run(capsys, "query", chair_file, "P(C=T|A=T)") == (
        0, "P(C=T | A=T) = 0.886749\n", "")
    assert run(capsys, "query", chair_file, "P(A=T)") == (0, "P(A=T) = 0.206056\n", "")
    code, out, _ = run(capsys, "query", chair_file, "MAP(C, S | A=T)")
    assert code == 0
    assert out == "MAP(C, S | A=T)\n  C = T\n  S = F\n  probability 0.837054\n"


def test_query_json_distribution(capsys, chair_file):
    doc = query_json(capsys, chair_file, "P(C | A=T)")
    assert list(doc) == ["query", "variables", "rows"]
    assert doc["query"] == "P(C | A=T)"
    assert doc["variables"] == ["C"]
    assert [sorted(row) for row in doc["rows"]] == [["C", "p"], ["C", "p"]]
    assert [row["C"] for row in doc["rows"]] == ["T", "F"]
    assert doc["rows"][0]["p"] == pytest.approx(P_C_GIVEN_A, abs=EXACT)
    assert doc["rows"][1]["p"] == pytest.approx(1 - P_C_GIVEN_A, abs=EXACT)


def test_query_json_joint_distribution(capsys, chair_file):
    doc = query_json(capsys, chair_file, "P(C, S | A=T)")
    assert doc["variables"] == ["C", "S"]
    rows = {(row["C"], row["S"]): row["p"] for row in doc["rows"]}
    assert set(doc["rows"][0]) == {"C", "S", "p"}
    assert rows["T", "F"] == pytest.approx(0.17248 / 0.206056, abs=EXACT)
    assert rows["F", "T"] == pytest.approx(0.00256 / 0.206056, abs=EXACT)
    assert sum(rows.values()) == pytest.approx(1.0)


def test_query_json_probability(capsys, chair_file):
    doc = query_json(capsys, chair_file, "P(C=T | A=T)")
    assert list(doc) == ["query", "p"]
    assert doc == {"query": "P(C=T | A=T)", "p": pytest.approx(P_C_GIVEN_A, abs=EXACT)}
    assert query_json(capsys, chair_file, "P(A=T)") == {
        "query": "P(A=T)", "p": pytest.approx(0.206056, abs=EXACT)}


def test_query_json_map_and_mpe(capsys, chair_file):
    doc = query_json(capsys, chair_file, "MAP(C, S | A=T)")
    assert list(doc) == ["query", "assignment", "p"]
    assert doc == {"query": "MAP(C, S | A=T)", "assignment": {"C": "T", "S": "F"},
                   "p": pytest.approx(0.17248 / 0.206056, abs=EXACT)}
    doc = query_json(capsys, chair_file, "MPE(A=T)")
    assert doc["assignment"] == {"C": "T", "S": "F", "W": "T", "B": "T"}
    assert doc["p"] == pytest.approx(0.8 * 0.98 * 0.9 * 0.2 * 0.7 / 0.206056, abs=EXACT)


def test_query_monty_hall(capsys, monty_file):
    doc = query_json(capsys, monty_file, "P(Princess | Prince=A, King=B)")
    rows = {row["Princess"]: row["p"] for row in doc["rows"]}
    assert rows == {"A": pytest.approx(1 / 3), "B": 0.0, "C": pytest.approx(2 / 3)}


def test_query_quoted_names(capsys, tmp_path):
    net = bbn.Network("quoted")
    net.add_variable("Age", ["<5", "12+"], table=[0.4, 0.6])
    net.add_variable("Lung Parench", ["Normal", "Asy/Patch"], parents=["Age"],
                     table=[[0.9, 0.1], [0.7, 0.3]])
    path = tmp_path / "quoted.bn"
    bbn.save(net, path)
    doc = query_json(capsys, path, 'P("Lung Parench" | Age="12+")')
    assert doc["query"] == 'P("Lung Parench" | Age=12+)'
    assert doc["variables"] == ["Lung Parench"]
    assert doc["rows"][1] == {"Lung Parench": "Asy/Patch", "p": pytest.approx(0.3)}


# ------------------------------------------------------------------ exit codes
@pytest.fixture
def impossible_file(tmp_path) -> Path:
    net = bbn.Network("deterministic")
    net.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[0.5, 0.5], [0.5, 0.5]])
    path = tmp_path / "deterministic.bn"
    bbn.save(net, path)
    return path


def test_impossible_evidence_exits_1(capsys, impossible_file, monty_file):
    for query in ("P(Y | X=b)", "P(Y=a | X=b)", "MAP(Y | X=b)", "MPE(X=b)"):
        err = failed(capsys, 1, "query", impossible_file, query)
        assert "impossible evidence" in err and "X=b" in err
    err = failed(capsys, 1, "query", monty_file, "P(Princess | Prince=A, King=A)", "--json")
    assert "Prince=A, King=A" in err
    # P(e) = 0 itself is a well-defined answer
    assert run(capsys, "query", impossible_file, "P(X=b)")[:2] == (0, "P(X=b) = 0.000000\n")


@pytest.mark.parametrize("query, expected", [
    ("P(C | A=T", "<query>:1:10: malformed query"),
    ("Q(C)", "<query>:1:1: malformed query"),
    ("P(Cc | A=T)", "did you mean 'C'"),
    ("P(C | A=yes)", "'A' has no state 'yes'"),
    ("P(C | A)", "needs a state"),
])
def test_bad_query_exits_2(capsys, chair_file, query, expected):
    assert expected in failed(capsys, 2, "query", chair_file, query)


def test_unreadable_models_exit_2(capsys, tmp_path, chair_file):
    missing = tmp_path / "missing.bn"
    assert "no such file" in failed(capsys, 2, "query", missing, "P(C)")
    assert "no such file" in failed(capsys, 2, "info", missing)
    assert "no such file" in failed(capsys, 2, "check", missing)
    odd = tmp_path / "model.txt"
    odd.write_text("whatever")
    assert "cannot tell the format" in failed(capsys, 2, "info", odd)
    garbage = tmp_path / "garbage.bn"
    garbage.write_text("network \"x\"\nvariable C { T, F\n")
    assert f"{garbage}:" in failed(capsys, 2, "query", garbage, "P(C)")


def _invalid_model(tmp_path) -> Path:
    path = tmp_path / "invalid.bn"
    path.write_text('network "invalid"\n'
                    "variable C { T, F }\n"
                    "variable A { T, F }\n"
                    "P(C) = 0.8, 0.3\n"
                    "P(A | C) { T: 0.5, 0.5; F: 0.1, 0.9 }\n")
    return path


def test_invalid_model_exits_2(capsys, tmp_path):
    path = _invalid_model(tmp_path)
    for argv in (("query", path, "P(C)"), ("info", path), ("check", path)):
        err = failed(capsys, 2, *argv)
        assert "P(C)" in err and "sums to 1.1" in err


def test_usage_errors_exit_2(capsys, chair_file):
    for argv in ([], ["frobnicate"], ["query", str(chair_file)]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "usage: bbn" in capsys.readouterr().err


@pytest.mark.parametrize("argv, expected", [
    (["qurey", "m.bn", "P(C)"], "(did you mean 'query'?)"),
    (["chek", "m.bn"], "(did you mean 'check'?)"),
    (["query", "m.bn", "P(C)", "--jsn"], "(did you mean '--json'?)"),
    (["learn", "m.bn", "d.csv", "--estimator", "lapace"], "(did you mean 'laplace'?)"),
    (["render", "m.bn", "--rankdir", "lr"], "(did you mean 'LR'?)"),
])
def test_usage_errors_suggest_commands_choices_and_options(capsys, argv, expected):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(expected), err


def test_usage_errors_suggest_only_the_chosen_commands_options(capsys):
    # --tables is an option of render, not of query: nothing close to suggest
    with pytest.raises(SystemExit):
        main(["query", "m.bn", "P(C)", "--tabls"])
    assert capsys.readouterr().err.rstrip().endswith("unrecognized arguments: --tabls")


# every BBNError exits 2, impossible evidence (only) exits 1, an OSError is a clean 2
@pytest.mark.parametrize("error, code", [
    (bbn.ParseError("bad token", "m.bn", 3, 7), 2),
    (bbn.ModelError("a cycle"), 2),
    (bbn.QueryError("unknown variable"), 2),
    (bbn.DataError("bad cell"), 2),
    (bbn.MemoryLimitError("needs 16.0 GiB"), 2),
    (bbn.FormatError("unknown format"), 2),
    (bbn.ImpossibleEvidenceError({"A": "T"}), 1),
    (FileNotFoundError(2, "No such file or directory", "gone.csv"), 2),
    (PermissionError(13, "Permission denied", "locked.bn"), 2),
    (IsADirectoryError(21, "Is a directory", "folder.bn"), 2),
])
def test_exit_code_of_every_error(capsys, monkeypatch, chair_file, error, code):
    def fail(*args, **kwargs):
        raise error
    monkeypatch.setattr(options, "load", fail)  # every command reads its model through options
    for argv in (("query", chair_file, "P(C)"), ("info", chair_file),
                 ("learn", chair_file, "data.csv"), ("classify", chair_file, "d.csv",
                                                      "--target", "C"),
                 ("structure", "data.csv", "--start", chair_file)):
        err = failed(capsys, code, *argv)
        message = f"{error.filename}: {error.strerror}" if isinstance(error, OSError) else error
        assert err == f"bbn {argv[0]}: {message}\n"


def test_a_bug_keeps_its_traceback(monkeypatch, chair_file):
    def bug(*args, **kwargs):
        raise ZeroDivisionError("a bug in bbn")
    monkeypatch.setattr(options, "load", bug)
    with pytest.raises(ZeroDivisionError):
        main(["query", str(chair_file), "P(C)"])


def test_console_script_exit_codes_of_model_and_data_errors(tmp_path, chair_file):
    cyclic = tmp_path / "cyclic.bn"
    cyclic.write_text("variable A { T, F }\nvariable B { T, F }\n"
                      "P(A | B) { T: 0.5, 0.5; F: 0.5, 0.5 }\n"
                      "P(B | A) { T: 0.5, 0.5; F: 0.5, 0.5 }\n")
    data = tmp_path / "data.csv"
    data.write_text("C,A\nT,maybe\n")
    folder = tmp_path / "folder.bn"
    folder.mkdir()
    cases = [
        (["info", cyclic], "cycle"),
        (["learn", chair_file, data], "no column for variable 'S'"),
        (["info", folder], "folder.bn"),
        (["qurey", chair_file, "P(C)"], "did you mean 'query'?"),
    ]
    for argv, expected in cases:
        done = subprocess.run([_console_script(), *map(str, argv)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2, (argv, done.stderr)
        assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr


# ------------------------------------------------------------------ info/check
def test_info(capsys, chair_file):
    code, out, err = run(capsys, "info", chair_file)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "network 'Back ache': 5 variables, 4 arcs"
    assert lines[1].split() == ["variable", "states", "parents"]
    table = {line.split()[0]: line.split()[1:] for line in lines[2:7]}
    assert table == {"C": ["T,", "F", "-"], "S": ["T,", "F", "-"], "W": ["T,", "F", "C"],
                     "B": ["T,", "F", "C,", "S"], "A": ["T,", "F", "B"]}
    assert lines[7] == "free parameters: 10 (the full joint table needs 31)"


def test_info_on_structure_only_model(capsys, tmp_path, chair):
    chair.set_parents("A", ["B", "W"])  # drops A's table
    path = tmp_path / "structure.bn"
    bbn.save(chair, path)
    code, out, _ = run(capsys, "info", path)
    assert code == 0
    assert "free parameters: 12 (the full joint table needs 31)" in out
    assert "structure only: no table for A" in out
    code, out, err = run(capsys, "check", path)
    assert (code, out) == (2, "")
    assert err == f"{path}: variable 'A' has no table\n{path}: 1 problem(s)\n"


def test_check(capsys, chair_file):
    assert run(capsys, "check", chair_file) == (0, f"{chair_file}: ok (5 variables, 4 arcs)\n",
                                               "")


def test_check_reports_every_problem(capsys, tmp_path):
    path = tmp_path / "two_problems.bn"
    path.write_text('network "invalid"\n'
                    "variable C { T, F }\n"
                    "variable A { T, F }\n"
                    "P(C) = 0.8, 0.3\n"
                    "P(A | C) { T: 0.5, 0.6; F: -0.1, 1.1 }\n")
    err = failed(capsys, 2, "check", path)
    assert "P(C)" in err and "P(A | C=T)" in err and "P(A | C=F)" in err


# --------------------------------------------------------------------- convert
def test_convert_round_trip(capsys, tmp_path, chair_file):
    out_file = tmp_path / "copy.bn.gz"
    code, out, _ = run(capsys, "convert", chair_file, out_file)
    assert (code, out) == (0, f"wrote {out_file}\n")
    assert bbn.load(out_file) == bbn.load(chair_file)
    assert "cannot tell the format" in failed(capsys, 2, "convert", chair_file,
                                              tmp_path / "copy.xyz")
    assert not (tmp_path / "copy.xyz").exists()


# --------------------------------------------------------- the console script
def _console_script() -> Path:
    script = Path(sys.executable).parent / "bbn"
    if not script.exists():
        pytest.skip("the bbn console script is not installed next to this python")
    return script


def test_console_script_answers(chair_file):
    done = subprocess.run([_console_script(), "query", chair_file, "P(C | A=T)", "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["rows"][0]["p"] == pytest.approx(P_C_GIVEN_A, abs=EXACT)


def test_console_script_errors_without_traceback(chair_file, impossible_file, tmp_path):
    cases = [
        (["query", chair_file, "P(C | A=T"], 2, "malformed query"),
        (["query", tmp_path / "missing.bn", "P(C)"], 2, "no such file"),
        (["query", impossible_file, "P(Y | X=b)"], 1, "impossible evidence"),
        (["check", _invalid_model(tmp_path)], 2, "sums to 1.1"),
    ]
    for argv, code, expected in cases:
        done = subprocess.run([_console_script(), *map(str, argv)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == code, (argv, done.stderr)
        assert done.stdout == ""
        assert expected in done.stderr and "Traceback" not in done.stderr

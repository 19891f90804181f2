"""The command line on real data (issue 28): --discretize on structure, learn and
classify; a closed pipe; CLI advice in messages; bbn check's every problem without float
noise; -n 1e6; bare bbn; gzip level 6; an all-missing column; dir(bbn)."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import DataError, ParseErrors

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def iris_csv(tmp_path_factory):
    datasets = pytest.importorskip("sklearn.datasets")
    frame = datasets.load_iris(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "setosa", 1: "versicolor", 2: "virginica"})
    path = tmp_path_factory.mktemp("iris") / "iris.csv"
    frame.to_csv(path, index=False)
    return path


def test_structure_learn_classify_with_discretize(iris_csv, tmp_path, capsys):
    model, relearned, out = tmp_path / "iris.bn", tmp_path / "again.bn", tmp_path / "p.csv"
    assert main(["structure", str(iris_csv), "--discretize", "mdlp", "--target", "target",
                 "--method", "tree", "--root", "target", "-o", str(model)]) == 0
    net = bbn.load(model)
    assert net.states("petal length (cm)") == ("[1, 2.45]", "(2.45, 4.75]", "(4.75, 6.9]")
    assert main(["learn", str(model), str(iris_csv), "--discretize", "-o",
                 str(relearned)]) == 0
    again = bbn.load(relearned)
    # P(petal length ≤ 2.45 | setosa) = 50/50 (every setosa's petal is shorter)
    assert again.cpt("petal length (cm)").reduce({"target": "setosa"}).values.tolist() == \
        [1.0, 0.0, 0.0]
    capsys.readouterr()
    assert main(["classify", str(relearned), str(iris_csv), "--target", "target",
                 "--discretize", "-o", str(out)]) == 0
    report = capsys.readouterr().out
    predictions = pd.read_csv(out)
    truth = pd.read_csv(iris_csv)["target"]
    right = int((predictions["predicted"] == truth).sum())
    assert f"accuracy {right / 150:.6f} ({right}/150)" in report and right >= 140
    capsys.readouterr()
    assert main(["structure", str(iris_csv), "--method", "tree", "-o",
                 str(tmp_path / "raw.bn")]) == 0
    assert "numeric columns 'sepal length (cm)'" in capsys.readouterr().err


def test_sample_into_a_closed_pipe_is_quiet(chair_file):
    command = (f"{sys.executable} -m bbn.apps.cli.main sample {chair_file} -n 1e6 --seed 1 "
               "| head -n 2; exit ${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert done.stdout.splitlines()[0] == "C,S,W,B,A" and len(done.stdout.splitlines()) == 2
    assert done.returncode == 141 and done.stderr == ""


def test_messages_give_command_line_advice(tmp_path, capsys):
    (tmp_path / "m.bn").write_text("network n\nvariable A { T, F }\nvariable B { T, F }\n")
    (tmp_path / "d.csv").write_text("A,B\nT,F\nF,\n")
    assert main(["learn", str(tmp_path / "m.bn"), str(tmp_path / "d.csv")]) == 2
    err = capsys.readouterr().err
    assert "--missing drop" in err and "--missing em" in err and "missing='drop'" not in err
    with pytest.raises(DataError, match="missing='drop'"):  # Python keeps Python's advice
        bbn.learn(bbn.load(tmp_path / "m.bn"), tmp_path / "d.csv")


def test_check_reports_every_problem_without_float_noise(tmp_path, capsys):
    path = tmp_path / "bad.bn"
    path.write_text("network b\nvariable A { T, F }\nvariable C { x, y }\nP(A) = 0.1, 0.2\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "P(A) sums to 0.3, not 1" in err and "0.30000000000000004" not in err
    assert "variable 'C' has no table" in err and "2 problem(s)" in err


def test_a_bif_tables_message_gives_the_option_and_no_float_noise(tmp_path, capsys):
    path = tmp_path / "bad.bif"
    path.write_text("network bad {\n}\nvariable A {\n  type discrete [ 2 ] { T, F };\n}\n"
                    "probability ( A ) {\n  table 0.1, 0.2;\n}\n")
    assert main(["check", str(path)]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith("P(A) sums to 0.3, not 1 (tolerance 2e-06); pass --normalize to "
                          "rescale rows"), first
    assert main(["check", str(path), "--normalize"]) == 0


def test_check_reports_every_bad_table_of_a_bif_file(tmp_path, capsys):
    path = tmp_path / "bad.bif"
    path.write_text("network bad {\n}\nvariable A {\n  type discrete [ 2 ] { T, F };\n}\n"
                    "variable B {\n  type discrete [ 2 ] { T, F };\n}\n"
                    "probability ( A ) {\n  table 0.1, 0.2;\n}\n"
                    "probability ( B | A ) {\n  (T) 0.5, 0.5;\n  (F) 1.2, -0.2;\n}\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:9:15: P(A) sums to 0.3, not 1" in err
    assert f"{path}:12:15: P(B | A=F) has a negative entry -0.2 for state 'F'" in err


def test_check_reports_every_bad_table_of_an_xmlbif_file(tmp_path, capsys):
    net = bbn.Network("x")
    net.add_variable("A", ["T", "F"], table=[0.5, 0.5])
    net.add_variable("B", ["T", "F"], parents=["A"], table=[[0.5, 0.5], [0.5, 0.5]])
    text = bbn.dumps(net, format="xmlbif").split("<TABLE>")
    path = tmp_path / "bad.xml"
    path.write_text(f"{text[0]}<TABLE>0.1 0.2</TABLE>{text[1].split('</TABLE>', 1)[1]}"
                    f"<TABLE>1.2 -0.2 0.5 0.5</TABLE>{text[2].split('</TABLE>', 1)[1]}")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "<DEFINITION> for 'A': P(A) sums to 0.3, not 1" in err
    assert "<DEFINITION> for 'B': P(B | A=T) has a negative entry -0.2 for state 'F'" in err


def test_check_reports_every_bad_table_of_a_hugin_file(tmp_path, capsys):
    net = bbn.Network("x")
    net.add_variable("A", ["T", "F"], table=[0.5, 0.5])
    net.add_variable("B", ["T", "F"], parents=["A"], table=[[0.5, 0.5], [0.5, 0.5]])
    text = bbn.dumps(net, format="hugin")
    path = tmp_path / "bad.net"
    path.write_text(text.replace("data = (0.5 0.5);", "data = (0.1 0.2);").replace(
        "(0.5 0.5));", "(1.2 -0.2));"))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "P(A) sums to 0.3, not 1" in err and "P(B | A=F) has a negative entry -0.2" in err


def test_check_reports_every_bad_table_of_a_uai_file(tmp_path, capsys):
    path = tmp_path / "bad.uai"
    path.write_text("BAYES\n2\n2 2\n2\n1 0\n2 0 1\n\n2\n 0.1 0.2\n\n4\n 0.5 0.5\n"
                    " 1.2 -0.2\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:8:1: table 0: P(X0) sums to 0.3, not 1" in err
    assert f"{path}:11:1: table 1: P(X1 | X0=1) has a negative entry -0.2" in err


def test_rows_as_1e6_and_bare_bbn(chair_file, capsys):
    assert main(["sample", str(chair_file), "-n", "1e1", "--seed", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 11
    with pytest.raises(SystemExit):
        main(["sample", str(chair_file), "-n", "1.5"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2
    listed = capsys.readouterr().err
    assert all(name in listed for name in ("query", "learn", "sample", "structure", "tree"))


def test_gz_is_written_at_level_6(chair_file, tmp_path):
    path = tmp_path / "rows.csv.gz"
    assert main(["sample", str(chair_file), "-n", "20000", "--seed", "2", "-o",
                 str(path)]) == 0
    text = gzip.decompress(path.read_bytes())
    # the header's XFL byte is 0 for levels 2-8 (2 = level 9, 4 = level 1), and the file
    # is the one zlib writes at level 6
    assert path.read_bytes()[8] == 0
    assert len(path.read_bytes()) == len(gzip.compress(text, compresslevel=6, mtime=0))


def test_an_all_missing_column_is_a_data_error_naming_it():
    X = pd.DataFrame({"a": [None, None, None], "b": ["x", "y", "x"]})
    with pytest.raises(DataError, match="column 'a' has no value in any row"):
        bbn.NaiveBayes().fit(X, ["u", "v", "u"])
    with pytest.raises(DataError, match="column 'a' has no value in any row"):
        bbn.learn_structure(X, missing="drop")


def test_dir_lists_the_lazy_names():
    names = dir(bbn)
    assert {"learn", "NaiveBayes", "render", "discretize", "Network"} <= set(names)


def test_sep_reads_and_writes_other_delimiters(chair_file, tmp_path, capsys):
    semicolons, commas = tmp_path / "rows.csv", tmp_path / "commas.csv"
    assert main(["sample", str(chair_file), "-n", "400", "--seed", "4", "--sep", ";",
                 "-o", str(semicolons)]) == 0
    assert main(["sample", str(chair_file), "-n", "400", "--seed", "4", "-o",
                 str(commas)]) == 0
    assert semicolons.read_text().replace(";", ",") == commas.read_text()
    capsys.readouterr()
    for command in (["learn", str(chair_file)], ["learn", str(chair_file), "--missing", "em"]):
        assert main([*command, str(semicolons), "--sep", "semicolon", "-o",
                     str(tmp_path / "a.bn")]) == 0
        assert main([*command, str(commas), "-o", str(tmp_path / "b.bn")]) == 0
        assert bbn.load(tmp_path / "a.bn") == bbn.load(tmp_path / "b.bn")
    tabs = tmp_path / "rows.tsv"
    tabs.write_text(commas.read_text().replace(",", "\t"))
    assert main(["structure", str(tabs), "--sep", "tab", "--method", "tree", "-o",
                 str(tmp_path / "t.bn")]) == 0
    assert main(["structure", str(commas), "--method", "tree", "-o",
                 str(tmp_path / "c.bn")]) == 0
    assert bbn.load(tmp_path / "t.bn") == bbn.load(tmp_path / "c.bn")
    capsys.readouterr()
    assert main(["classify", str(tmp_path / "a.bn"), str(semicolons), "--sep", ";",
                 "--target", "C"]) == 0
    by_semicolon = capsys.readouterr()
    assert main(["classify", str(tmp_path / "a.bn"), str(commas), "--target", "C"]) == 0
    assert capsys.readouterr() == by_semicolon
    with pytest.raises(SystemExit):
        main(["learn", str(chair_file), str(semicolons), "--sep", ";;"])
    capsys.readouterr()
    assert main(["learn", str(chair_file), str(semicolons)]) == 2  # without --sep
    assert capsys.readouterr().err.rstrip().endswith(
        "(the cells look separated by ';': --sep ;)")


def test_check_reports_a_missing_table_beside_a_negative_entry(tmp_path, capsys):
    # A negative entry is refused even with rows rescaled; the missing table is still named.
    path = tmp_path / "bad.bn"
    path.write_text("network b\nvariable A { T, F }\nvariable B { T, F }\nvariable C { x, y }\n"
                    "P(A) = -0.1, 1.1\nP(B | A) = 0.1, 0.2, 0.5, 0.5\nP(C)\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "bad.bn:5:8: -0.1 in P(A) is negative" in err
    assert "bad.bn:6:12: P(B | A=T) sums to 0.3, not 1" in err
    assert "bad.bn:4:10: variable 'C' has no table" in err
    assert err.count("has no table") == 1 and "3 problem(s)" in err
    with pytest.raises(ParseErrors) as raised:  # a missing table alone is no load error
        bbn.load(path)
    assert [e.line for e in raised.value.errors] == [5, 6]
    assert [(e.line, e.column) for e in raised.value.untabled] == [(4, 10)]


def test_tree_reads_na_and_question_marks_as_values(tmp_path, capsys):
    # The tree's states come from the data: only blank cells are missing; "NA", "?" and
    # "None" are values (as bbn structure and NaiveBayes read them), labels included.
    path = tmp_path / "d.csv"
    rows = [("NA", "1", "no"), ("?", "2", "yes"), ("None", "NA", "NA")] * 4
    path.write_text("x,n,y\n" + "".join(f"{x},{n},{y}\n" for x, n, y in rows))
    assert main(["tree", str(path), "--target", "y"]) == 0
    out = capsys.readouterr().out
    assert "x = NA: no" in out and "x = ?: yes" in out and "x = None: NA" in out
    assert "training accuracy 1.000000 (12/12)" in out
    path.write_text("x,y\nNA,no\n?,yes\n,no\n")  # a blank cell is still missing
    assert main(["tree", str(path), "--target", "y"]) == 2
    assert "missing value" in capsys.readouterr().err
    path.write_text("x,y\nNA,no\n?,\n")
    assert main(["tree", str(path), "--target", "y"]) == 2
    assert "column 'y', line 3: the target is missing" in capsys.readouterr().err

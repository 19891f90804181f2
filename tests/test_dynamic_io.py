"""Two-slice models in files (issue 31): a saved two_slice network reads back as the same
2-TBN; pyAgrum's 2-TBN naming (X0 / Xt) in a BIF file answers as pyAgrum's unrolled
network; ``bbn filter`` and ``bbn viterbi``."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main


def umbrella() -> bbn.DynamicNetwork:
    return bbn.DynamicNetwork.from_two_slice(bbn.load("models/umbrella.bn"))


def test_saved_two_slice_network_reads_back(tmp_path):
    dbn = umbrella()
    assert dbn.parents("Rain") == ("Rain[-1]",) and dbn.parents("Umbrella") == ("Rain",)
    path = tmp_path / "again.bif"
    bbn.save(dbn.two_slice(), path)
    again = bbn.DynamicNetwork.from_two_slice(bbn.load(path))
    data = pd.DataFrame({"Umbrella": ["T", "F", "T"]})
    assert np.allclose(again.smooth(data).to_numpy(), dbn.smooth(data).to_numpy(), atol=1e-12)


DYNAMIC = """network umbrella
variable Rain { T, F }
variable Umbrella { T, F }
P(Rain[0]) = 0.5, 0.5
P(Rain | Rain[-1]) { T: 0.7, 0.3; F: 0.3, 0.7 }
P(Umbrella | Rain) { T: 0.9, 0.1; F: 0.2, 0.8 }
"""


def test_the_dynamic_bn_language(tmp_path):
    from bbn.io.formats.bn.timeslices import read_dynamic

    dbn = read_dynamic(DYNAMIC, "umbrella.bn")
    data = pd.DataFrame({"Umbrella": ["T", "F", "T", "T"]})
    assert np.allclose(dbn.smooth(data).to_numpy(), umbrella().smooth(data).to_numpy(),
                       atol=1e-15)
    path = tmp_path / "dynamic.bn"
    path.write_text(DYNAMIC)
    assert bbn.load_dynamic(path).parents("Rain") == ("Rain[-1]",)
    # mistakes are located in the file as written
    wrong = DYNAMIC.replace("Rain[-1])", "Rian[-1])")
    with pytest.raises(bbn.ParseError, match=r"umbrella.bn:5:10: unknown parent 'Rian' "
                                             r"\(did you mean 'Rain'\?\)"):
        read_dynamic(wrong, "umbrella.bn")
    with pytest.raises(bbn.ParseError, match=r":5:3: .*slice-0 table"):
        read_dynamic(DYNAMIC.replace("P(Rain[0]) = 0.5, 0.5", ""), "umbrella.bn")
    with pytest.raises(bbn.ParseError,
                       match=r"umbrella.bn:5:38: P\(Rain\[1\] \| Rain\[0\]=F\) sums"):
        read_dynamic(DYNAMIC.replace("0.3, 0.7 }", "0.3, 0.8 }", 1), "umbrella.bn")
    with pytest.raises(bbn.ParseError, match=r"the same slice or one of the two before"):
        read_dynamic(DYNAMIC.replace("Rain[-1])", "Rain[-3])"), "umbrella.bn")
    with pytest.raises(bbn.ParseError, match=r":5:3: .*give its slice-1 table, P\(Rain\[1\]"):
        read_dynamic(DYNAMIC.replace("Rain[-1])", "Rain[-2])"), "umbrella.bn")
    # a plain network reads as slices with no arc between them
    assert bbn.load_dynamic("models/chair.bn").parents("A") == ("B",)


def test_load_reads_the_dynamic_form(tmp_path, capsys):
    path = tmp_path / "rain.bn"
    path.write_text(DYNAMIC)
    dbn = bbn.load(path)
    assert isinstance(dbn, bbn.DynamicNetwork) and dbn.parents("Rain") == ("Rain[-1]",)
    data = pd.DataFrame({"Umbrella": ["T", "T"]})
    assert dbn.filter(data)[("Rain", "T")].tolist() == pytest.approx([0.818182, 0.883357],
                                                                     abs=1e-6)
    assert isinstance(bbn.loads(DYNAMIC), bbn.DynamicNetwork)
    # a saved two-slice network and a plain one stay ordinary networks
    assert type(bbn.load("models/umbrella.bn")) is bbn.Network
    assert type(bbn.loads("variable A { a, b }  P(A) = 0.5, 0.5")) is bbn.Network
    wrong = tmp_path / "wrong.bn"
    wrong.write_text(DYNAMIC.replace("Rain[-1])", "Rian[-1])"))
    with pytest.raises(bbn.ParseError, match=r"wrong.bn:5:10: unknown parent 'Rian' "
                                             r"\(did you mean 'Rain'\?\)"):
        bbn.load(wrong)
    # the commands: a two-slice view where one makes sense, a clear refusal elsewhere
    assert main(["info", str(path)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("dynamic network 'umbrella': 2 variables a slice")
    assert "Rain[1]       T, F     Rain[0]" in printed
    assert main(["check", str(path)]) == 0
    assert "ok (4 variables, 3 arcs)" in capsys.readouterr().out
    bif = tmp_path / "rain.bif"
    assert main(["convert", str(path), str(bif)]) == 0 and "wrote" in capsys.readouterr().out
    assert bbn.load_dynamic(bif).parents("Rain") == ("Rain[-1]",)
    assert main(["render", str(path)]) == 0
    assert '"Rain[0]" -> "Rain[1]"' in capsys.readouterr().out
    for command in (["query", str(path), "P(Rain)"], ["sample", str(path), "-n", "2"]):
        assert main(command) == 2
        error = capsys.readouterr().err
        assert f"bbn {command[0]}: {path} is a dynamic network" in error
        assert "give --unroll T for T slices" in error   # tests/test_dynamic_cli.py


def test_errors():
    net = bbn.Network.assemble("n", {"A": ["a", "b"]}, tables={"A": [0.5, 0.5]})
    with pytest.raises(bbn.ModelError, match="neither slice convention"):
        bbn.DynamicNetwork.from_two_slice(net)
    net = bbn.Network.assemble("n", {"A0": ["a", "b"], "Bt": ["a", "b"]},
                               tables={"A0": [0.5, 0.5], "Bt": [0.5, 0.5]})
    with pytest.raises(bbn.ModelError, match="one slice only"):
        bbn.DynamicNetwork.from_two_slice(net)


def test_pyagrum_two_slice_bif(tmp_path):
    if os.environ.get("CI"):
        import pyagrum as gum
    else:
        gum = pytest.importorskip("pyagrum", reason="pyAgrum (the test oracle) is absent")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import pyagrum.lib.dynamicBN as gdyn
    gum.initRandom(3)
    two = gum.fastBN("a0->at;b0->bt;a0->b0;at->bt;bt->ct;c0->ct;b0->c0", 2)
    two.generateCPTs()
    gum.saveBN(two, str(tmp_path / "two.bif"))
    dbn = bbn.DynamicNetwork.from_two_slice(bbn.load(tmp_path / "two.bif"))
    assert [dbn.parents(v) for v in dbn.variables] == [("a[-1]",), ("b[-1]", "a"),
                                                        ("b", "c[-1]")]
    unrolled = gdyn.unroll2TBN(two, 5)
    engine = gum.LazyPropagation(unrolled)
    engine.setEvidence({"c0": "1", "c2": "0", "c4": "1"})
    engine.makeInference()
    smoothed = dbn.smooth(pd.DataFrame({"c": ["1", None, "0", None, "1"]}))
    for t in range(5):
        for v in ("a", "b"):
            assert np.allclose(smoothed[v].to_numpy()[t], engine.posterior(f"{v}{t}").toarray(),
                               atol=1e-12)


def test_filter_and_viterbi_commands(tmp_path, capsys):
    data = tmp_path / "days.csv"
    pd.DataFrame({"who": ["x", "x", "y", "x"], "Umbrella": ["T", "T", "F", ""]}).to_csv(
        data, index=False)
    assert main(["filter", "models/umbrella.bn", str(data), "--sequence-id", "who"]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert printed.columns.tolist() == ["who", "Rain=T", "Rain=F"]
    assert printed["Rain=T"][1] == pytest.approx(0.883357, abs=1e-6)
    assert printed["Rain=T"][2] == pytest.approx(0.05 / (0.05 + 0.4), abs=1e-6)  # y: one F
    out = tmp_path / "smoothed.csv"
    assert main(["filter", "models/umbrella.bn", str(data), "--sequence-id", "who",
                 "--smooth", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    smoothed = pd.read_csv(out)
    assert smoothed["Rain=T"][0] == pytest.approx(umbrella().smooth(
        pd.DataFrame({"Umbrella": ["T", "T", None]}))[("Rain", "T")][0], abs=1e-6)
    assert main(["viterbi", "models/umbrella.bn", str(data), "--sequence-id", "who"]) == 0
    states = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert states["Rain"].tolist() == ["T", "T", "F", "T"]
    assert states["log_probability"][2] == pytest.approx(np.log(0.5 * 0.8), abs=1e-6)  # F, F


def test_classify_over_time(tmp_path, capsys):
    data = tmp_path / "days.csv"
    pd.DataFrame({"who": ["x", "x", "y", "x", "y"], "Umbrella": ["T", "T", "F", "", "T"],
                  "Rain": ["T", "T", "F", "F", "T"]}).to_csv(data, index=False)
    out = tmp_path / "rain.csv"

    def classify(*options):
        assert main(["classify", "models/umbrella.bn", str(data), "--target", "Rain",
                     "--sequence-id", "who", "-o", str(out), *options]) == 0
        return pd.read_csv(out), capsys.readouterr().out

    # filtering by hand: x: 0.818, 0.883, then predicted 0.883·0.7 + 0.117·0.3 = 0.653;
    # y: 0.05 / 0.45 = 0.111, then (0.111·0.7 + 0.889·0.3)·0.9 normalised = 0.703
    filtered, report = classify()
    assert filtered.columns.tolist() == ["predicted", "who", "P(Rain=T)", "P(Rain=F)"]
    assert filtered["P(Rain=T)"].tolist() == pytest.approx(
        [0.818182, 0.883357, 0.111111, 0.653343, 0.702771], abs=1e-6)
    assert filtered["predicted"].tolist() == ["T", "T", "F", "T", "T"]
    assert "accuracy 0.800000 (4/5)" in report      # Rain is the truth, not a finding
    smoothed, _ = classify("--smooth")
    expected = umbrella().smooth(pd.read_csv(data).drop(columns="Rain"), sequence_id="who")
    assert np.allclose(smoothed[["P(Rain=T)", "P(Rain=F)"]], expected["Rain"], atol=1e-9)
    assert smoothed["P(Rain=T)"][2] == pytest.approx(0.173804, abs=1e-6)
    # the most probable explanation: x is rain, rain, rain with the umbrella on day 3,
    # 0.5·0.9 · 0.7·0.9 · 0.7·0.9 = 0.1786; y is dry then rain, 0.5·0.8 · 0.3·0.9 = 0.108
    explained, _ = classify("--viterbi")
    assert explained.columns.tolist() == ["predicted", "who", "log_probability"]
    assert explained["predicted"].tolist() == ["T", "T", "F", "T", "T"]
    assert explained["log_probability"].tolist() == pytest.approx(
        np.log([0.178605, 0.178605, 0.108, 0.178605, 0.108]), abs=1e-6)
    # a loss matrix: missing rain costs 10, so day 3 of y is called rain at P = 0.17
    loss = tmp_path / "loss.csv"
    loss.write_text("predicted,T,F\nT,0,1\nF,10,0\n")
    risky, _ = classify("--smooth", "--loss", str(loss))
    assert risky["predicted"].tolist() == ["T", "T", "T", "T", "T"]
    for options, message in [(["--viterbi", "--loss", str(loss)], "no --loss or --decision"),
                             (["--decision", "ml"], "use map or risk"),
                             (["--chunksize", "2"], "sequences are read whole")]:
        assert main(["classify", "models/umbrella.bn", str(data), "--target", "Rain",
                     "--sequence-id", "who", *options]) == 2
        assert message in capsys.readouterr().err
    assert main(["classify", "models/chair.bn", str(data), "--target", "C",
                 "--sequence-id", "who"]) == 2
    assert "needs a dynamic network" in capsys.readouterr().err
    tree = tmp_path / "tree.json"
    tree.write_text("{}")
    assert main(["classify", str(tree), str(data), "--target", "Rain", "--viterbi"]) == 2
    assert "not a decision tree" in capsys.readouterr().err


def test_command_errors(tmp_path, capsys):
    data = tmp_path / "days.csv"
    pd.DataFrame({"Umbrela": ["T"]}).to_csv(data, index=False)
    assert main(["filter", "models/umbrella.bn", str(data)]) == 2
    assert "did you mean 'Umbrella'" in capsys.readouterr().err
    bbn.save(bbn.load("models/chair.bn"), tmp_path / "chair.bif")
    assert main(["viterbi", str(tmp_path / "chair.bif"), str(data)]) == 2
    assert "slice convention" in capsys.readouterr().err


def test_memory_limit_is_checked_before_allocating():
    limit = bbn.get_memory_limit()
    try:
        bbn.set_memory_limit(4000)
        with pytest.raises(bbn.MemoryLimitError):
            umbrella().filter(pd.DataFrame({"Umbrella": ["T"] * 500}))
        hmm = bbn.HMM(["a", "b"], ["x", "y"], transition=np.eye(2), emission=np.eye(2))
        with pytest.raises(bbn.MemoryLimitError):
            hmm.smooth(np.zeros(500, dtype=int))
    finally:
        bbn.set_memory_limit(limit)


def test_render_draws_both_slices_and_the_arcs_between(tmp_path, capsys):
    path = tmp_path / "dynamic.bn"
    path.write_text(DYNAMIC)
    assert main(["render", "--dynamic", str(path)]) == 0
    dot = capsys.readouterr().out
    assert '"Rain[0]" -> "Rain[1]"' in dot and '"Rain[1]" -> "Umbrella[1]"' in dot
    assert '"Rain[0]" -> "Umbrella[0]"' in dot

"""Pictures: DOT source, PNG/SVG through Graphviz, tables, posteriors, errors, the CLI.

Expected numbers come from EXAMPLES.md §1 (models/chair.bn) and from
../shared/reference/bnlearn_exact.json; image tests skip only when Graphviz's ``dot``
is not installed (CI installs it).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import struct
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.apps.rendering import GraphvizMissingError, render

SVG = "{http://www.w3.org/2000/svg}"

# skipped without dot, except under CI (CI=true), which installs it: there they fail
needs_dot = pytest.mark.skipif(shutil.which("dot") is None and os.environ.get("CI") != "true",
                               reason="Graphviz's 'dot' is not installed")

CHAIR_ARCS = {("C", "W"), ("C", "B"), ("S", "B"), ("B", "A")}


def node_texts(svg: bytes | str) -> dict[str, list[str]]:
    """{node title: the stripped texts drawn inside it}, from an SVG Graphviz wrote."""
    root = ET.fromstring(svg)
    nodes = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node":
            texts = [(t.text or "").strip() for t in group.iter(f"{SVG}text")]
            nodes[group.find(f"{SVG}title").text] = [t for t in texts if t]
    return nodes


def edge_titles(svg: bytes | str) -> set[str]:
    root = ET.fromstring(svg)
    return {g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "edge"}


def numbers(texts: list[str]) -> list[float]:
    return [float(t) for t in texts if re.fullmatch(r"[0-9.]+(e-?[0-9]+)?", t)]


def hide_dot(monkeypatch, tmp_path) -> None:
    """Make Graphviz's executables unfindable, as on a machine without Graphviz."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


# --------------------------------------------------------------- DOT source
def test_dot_source_has_every_variable_and_arc(chair, tmp_path):
    graph = render(chair, tmp_path / "chair.dot")
    text = (tmp_path / "chair.dot").read_text()
    assert text == graph.source
    arcs = set(re.findall(r"^\s*(\w+) -> (\w+)", text, re.M))
    assert arcs == CHAIR_ARCS
    for v in chair.variables:
        assert re.search(rf"^\s*{v} \[label=<<B>{v}</B>", text, re.M)
    assert "rankdir=TB" in text
    assert "rankdir=LR" in render(chair, rankdir="lr").source


def test_gv_extension_and_no_temporary_files_left(chair, tmp_path):
    render(chair, tmp_path / "chair.gv")
    assert [p.name for p in tmp_path.iterdir()] == ["chair.gv"]


def test_unknown_extension_is_refused_before_writing(chair, tmp_path):
    with pytest.raises(bbn.BBNError, match=r"picture format.*'\.jpg'.*\.png, \.svg, \.pdf"):
        render(chair, tmp_path / "chair.jpg")
    assert list(tmp_path.iterdir()) == []


def test_bad_rankdir_and_caps(chair):
    with pytest.raises(bbn.QueryError, match="rankdir must be one of TB, LR"):
        render(chair, rankdir="up")
    with pytest.raises(bbn.QueryError, match="at least 1"):
        render(chair, tables=True, max_rows=0)


# ------------------------------------------------------------------ images
@needs_dot
def test_png_has_signature_and_sensible_size(chair, tmp_path):
    render(chair, tmp_path / "chair.png")
    data = (tmp_path / "chair.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert 200 <= width <= 1500 and 150 <= height <= 1500, (width, height)


@needs_dot
def test_pdf_is_written(chair, tmp_path):
    render(chair, tmp_path / "chair.pdf")
    assert (tmp_path / "chair.pdf").read_bytes()[:5] == b"%PDF-"


@needs_dot
def test_svg_has_every_variable_and_arc(chair, tmp_path):
    render(chair, tmp_path / "chair.svg")
    svg = (tmp_path / "chair.svg").read_bytes()
    nodes = node_texts(svg)
    assert set(nodes) == set(chair.variables)
    for v in chair.variables:
        assert nodes[v] == [v, chair.description(v)]
    assert edge_titles(svg) == {f"{p}->{c}" for p, c in CHAIR_ARCS}


@needs_dot
def test_tables_show_every_cpt_number_in_order(chair, tmp_path):
    render(chair, tmp_path / "tables.svg", tables=True)
    nodes = node_texts((tmp_path / "tables.svg").read_bytes())
    # rows in table order (parent configurations, last parent fastest), EXAMPLES.md §1
    assert numbers(nodes["C"]) == [0.8, 0.2]
    assert numbers(nodes["S"]) == [0.02, 0.98]
    assert numbers(nodes["W"]) == [0.9, 0.1, 0.01, 0.99]
    assert numbers(nodes["B"]) == [0.9, 0.1, 0.2, 0.8, 0.9, 0.1, 0.01, 0.99]
    assert numbers(nodes["A"]) == [0.7, 0.3, 0.1, 0.9]
    assert nodes["B"][:3] == ["B", "back is injured", "C"]  # header, description, parents


@needs_dot
def test_posteriors_given_evidence(chair, tmp_path):
    graph = render(chair, tmp_path / "post.svg", evidence="A=T", posteriors=True)
    svg = (tmp_path / "post.svg").read_text()
    nodes = node_texts(svg)
    assert numbers(nodes["C"]) == [0.8867, 0.1133]   # 22840/25757
    assert numbers(nodes["S"]) == [0.0621, 0.9379]   # 0.062119...
    assert numbers(nodes["A"]) == [1.0, 0.0]
    assert nodes["A"][:2] == ["A", "= T"]
    assert "posterior probabilities given A=T" in svg
    # evidence nodes carry the highlight colour, the others do not
    source = {line.split(" [")[0].strip(): line for line in graph.source.splitlines()}
    assert "#f8c471" in source["A"] and "#f8c471" not in source["C"]


@needs_dot
def test_posteriors_without_evidence_are_the_priors(chair, tmp_path):
    render(chair, tmp_path / "prior.svg", posteriors=True)
    svg = (tmp_path / "prior.svg").read_text()
    nodes = node_texts(svg)
    assert numbers(nodes["B"]) == [0.1768, 0.8232]   # P(B=T) = 0.17676
    assert numbers(nodes["A"]) == [0.2061, 0.7939]   # P(A=T) = 0.206056
    assert "prior probabilities (no evidence)" in svg


def test_evidence_is_checked(chair):
    with pytest.raises(bbn.QueryError, match=r"unknown evidence variable 'Q'"):
        render(chair, evidence={"Q": "T"})
    with pytest.raises(bbn.QueryError, match=r"has no state 'Tx'.*did you mean 'T'"):
        render(chair, evidence="A=Tx")


def test_impossible_evidence_is_reported(tmp_path):
    net = bbn.Network("sure")
    net.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(bbn.ImpossibleEvidenceError):
        render(net, evidence={"X": "b"}, posteriors=True)


def awkward_network() -> bbn.Network:
    net = bbn.Network('awkward <net> & "friends"\\')
    net.add_variable("<5", ["12+", "Asy/Patch", "R&D"], 'a "quoted" <b>note</b>',
                     table=[0.2, 0.3, 0.5])
    net.add_variable("node", ["0-3_days", "x>y"], table=[0.5, 0.5])
    net.add_variable("back\\", ["a\\", "b"], table=[0.25, 0.75])
    states = [f"s{i}" for i in range(30)]
    table = np.random.default_rng(0).dirichlet(np.ones(30), size=(3, 2, 2))
    net.add_variable("Big", states, parents=["<5", "node", "back\\"], table=table)
    return net


@needs_dot
def test_awkward_names_are_escaped(tmp_path):
    net = awkward_network()
    render(net, tmp_path / "awkward.svg", tables=True, evidence={"<5": "R&D"})
    nodes = node_texts((tmp_path / "awkward.svg").read_bytes())
    assert set(nodes) == {"<5", "node", "back\\\\", "Big"}  # DOT needs the backslash doubled
    assert nodes["<5"][:3] == ["<5", "= R&D", 'a "quoted" <b>note</b>']
    assert nodes["<5"][3:6] == ["12+", "Asy/Patch", "R&D"]
    assert ["0-3_days", "x>y"] == nodes["node"][1:3]
    assert "a\\" in nodes["back\\\\"]


@needs_dot
def test_large_tables_say_what_was_cut(tmp_path):
    net = awkward_network()
    render(net, tmp_path / "cut.svg", tables=True, max_rows=5, max_columns=4)
    texts = node_texts((tmp_path / "cut.svg").read_bytes())["Big"]
    assert "… 7 more rows" in texts       # 3·2·2 = 12 configurations, 5 drawn
    assert "… 26 more states" in texts    # 30 states, 4 drawn
    expected = net.cpt_array("Big").reshape(12, 30)[:5, :4]
    assert numbers(texts) == pytest.approx(expected.ravel(), rel=5e-4)


@needs_dot
def test_posterior_bars_are_cut_too(tmp_path):
    net = awkward_network()
    render(net, tmp_path / "bars.svg", posteriors=True, max_rows=10)
    texts = node_texts((tmp_path / "bars.svg").read_bytes())["Big"]
    assert "… 20 more states" in texts
    assert len(numbers(texts)) == 10


# ------------------------------------------------------- Graphviz missing
def test_missing_dot_says_how_to_install_and_dot_source_still_works(chair, tmp_path,
                                                                    monkeypatch):
    hide_dot(monkeypatch, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(GraphvizMissingError) as caught:
        render(chair, out / "chair.svg")
    message = str(caught.value)
    for hint in ("apt-get install graphviz", "brew install graphviz", "conda install graphviz",
                 ".dot"):
        assert hint in message
    assert isinstance(caught.value, bbn.BBNError)
    assert list(out.iterdir()) == []
    render(chair, out / "chair.dot")
    assert "C -> W" in (out / "chair.dot").read_text()


def test_repr_svg(chair, tmp_path, monkeypatch):
    if shutil.which("dot") is not None:
        svg = chair._repr_svg_()
        assert set(node_texts(svg)) == set(chair.variables)
    hide_dot(monkeypatch, tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert chair._repr_svg_() is None
    assert "apt-get install graphviz" in str(caught[0].message)


# --------------------------------------------------------------------- CLI
@needs_dot
def test_cli_render_posteriors(chair_file, tmp_path, capsys):
    out = tmp_path / "post.svg"
    code = main(["render", str(chair_file), "-o", str(out), "--evidence", "A=T, S=F",
                 "--posteriors", "--rankdir", "LR"])
    assert code == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    nodes = node_texts(out.read_bytes())
    # P(C=T | A=T, S=F) = 0.8·0.22 / (0.8·0.22 + 0.2·0.106) = 0.89249..., where
    # P(A=T | C=T, S=F) = 0.2·0.7 + 0.8·0.1 = 0.22 and P(A=T | C=F, S=F) = 0.01·0.7 + 0.99·0.1
    assert numbers(nodes["C"]) == [0.8925, 0.1075]
    assert nodes["S"][:2] == ["S", "= F"]


@needs_dot
def test_cli_render_tables_png(chair_file, tmp_path, capsys):
    out = tmp_path / "tables.png"
    assert main(["render", str(chair_file), "-o", str(out), "--tables", "--max-rows", "2"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_prints_dot_without_output(chair_file, capsys):
    assert main(["render", str(chair_file), "--rankdir", "LR", "--tables"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('digraph "Back ache" {') and "rankdir=LR" in out
    assert set(re.findall(r"^\s*(\w+) -> (\w+)$", out, re.M)) == CHAIR_ARCS


@pytest.mark.parametrize("arguments, message", [
    (["-o", "x.jpg"], "cannot tell the picture format from the extension '.jpg'"),
    (["--evidence", "Q=T"], "unknown evidence variable 'Q'"),
    (["--evidence", "A=maybe", "--posteriors"], "variable 'A' has no state 'maybe'"),
    (["--evidence", "A T"], "<evidence>:1:3"),
])
def test_cli_bad_input_exits_2(chair_file, tmp_path, capsys, arguments, message):
    arguments = [str(tmp_path / a) if a.endswith(".jpg") else a for a in arguments]
    assert main(["render", str(chair_file), *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bbn render: ") and message in err


def test_cli_missing_model_exits_2(tmp_path, capsys):
    assert main(["render", str(tmp_path / "nope.bn"), "-o", str(tmp_path / "x.svg")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_bad_rankdir_is_a_usage_error(chair_file, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["render", str(chair_file), "--rankdir", "UP"])
    assert caught.value.code == 2
    assert "invalid choice: 'UP'" in capsys.readouterr().err


def test_cli_impossible_evidence_exits_1(tmp_path, capsys):
    net = bbn.Network("sure")
    net.add_variable("X", ["a", "b"], table=[1.0, 0.0])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[0.5, 0.5], [0.5, 0.5]])
    bbn.save(net, tmp_path / "sure.bn")
    code = main(["render", str(tmp_path / "sure.bn"), "--evidence", "X=b", "--posteriors"])
    assert code == 1
    assert "impossible evidence" in capsys.readouterr().err


def test_cli_without_dot(chair_file, tmp_path, monkeypatch, capsys):
    hide_dot(monkeypatch, tmp_path)
    assert main(["render", str(chair_file), "-o", str(tmp_path / "c.png")]) == 2
    err = capsys.readouterr().err
    assert "Graphviz" in err and "apt-get install graphviz" in err
    assert main(["render", str(chair_file), "-o", str(tmp_path / "c.dot")]) == 0
    assert (tmp_path / "c.dot").exists() and not (tmp_path / "c.png").exists()


# --------------------------------------------------------- shared networks
#: name → (nodes, arcs), from ../shared/networks/README.md
NETWORKS = {
    "asia": (8, 8), "cancer": (5, 4), "earthquake": (5, 4), "sachs": (11, 17),
    "survey": (6, 6), "alarm": (37, 46), "barley": (48, 84), "child": (20, 25),
    "insurance": (27, 52), "mildew": (35, 46), "water": (32, 66), "hailfinder": (56, 66),
    "hepar2": (70, 123), "win95pts": (76, 112), "pathfinder": (109, 195), "andes": (223, 338),
    "munin1": (186, 273), "diabetes": (413, 602), "pigs": (441, 592), "link": (724, 1125),
    "munin2": (1003, 1244), "munin3": (1041, 1306), "munin4": (1038, 1388),
    "munin": (1041, 1397),
}


@functools.cache
def load_shared(folder: Path, name: str) -> bbn.Network:
    return bbn.load(folder / "networks" / f"{name}.bif.gz")


@pytest.fixture
def network(shared):
    """``network(name)``: a shared bnlearn network, loaded once per test session."""
    return functools.partial(load_shared, shared)


@pytest.mark.parametrize("name", NETWORKS)
def test_every_shared_network_renders_to_dot(network, name, tmp_path):
    net = network(name)
    nodes, arcs = NETWORKS[name]
    source = render(net, tmp_path / f"{name}.dot", tables=True).source
    assert len(re.findall(r"^\t\S.* -> ", source, re.M)) == arcs
    assert len(re.findall(r"^\t\S.* \[label=<", source, re.M)) == nodes


@needs_dot
@pytest.mark.parametrize("name", [n for n, (nodes, _) in NETWORKS.items() if nodes <= 250])
def test_shared_networks_up_to_250_nodes_render_to_svg(network, name, tmp_path):
    net = network(name)
    render(net, tmp_path / f"{name}.svg")
    svg = (tmp_path / f"{name}.svg").read_bytes()
    assert len(node_texts(svg)) == NETWORKS[name][0]
    assert len(edge_titles(svg)) == NETWORKS[name][1]


@needs_dot
@pytest.mark.parametrize("name", ["child", "mildew"])
def test_shared_network_tables_render(network, name, tmp_path):
    """child has states like '12+' and 'Asy/Patch'; mildew has 100-state tables to cut."""
    net = network(name)
    render(net, tmp_path / f"{name}.svg", tables=True)
    nodes = node_texts((tmp_path / f"{name}.svg").read_bytes())
    for v in net.variables:
        shown = nodes[v]
        assert shown[0] == v
        assert all(s in shown for s in net.states(v)[:8])


@needs_dot
def test_child_posteriors_match_the_reference(shared, network, tmp_path):
    reference = json.loads((shared / "reference" / "bnlearn_exact.json").read_text())["child"]
    # (some entries of the reference have p_evidence 0 without "impossible": skip those)
    query = next(q for q in reference["queries"]
                 if not q.get("impossible") and q["p_evidence"] > 0)
    net = network("child")
    render(net, tmp_path / "child.svg", evidence=query["evidence"], posteriors=True)
    nodes = node_texts((tmp_path / "child.svg").read_bytes())
    target = query["target"]
    states = net.states(target)
    drawn = nodes[target][-2 * len(states):]
    assert drawn[0::2] == list(states)
    expected = [query["posterior"][s] for s in states]
    assert [float(x) for x in drawn[1::2]] == pytest.approx(expected, abs=5.1e-5)
    for v, s in query["evidence"].items():
        assert nodes[v][:2] == [v, f"= {s}"]


def test_posterior_picture_of_a_network_with_a_gaussian_leaf():
    net = bbn.Network("mixed")
    net.add_variable("A", ["T", "F"], table=[0.3, 0.7])
    net.add_gaussian_variable("x", ["A"], mean=[0.0, 1.0], variance=[1.0, 1.0])
    source = bbn.render(net, tables=True, posteriors=True).source
    assert "0.3000" in source and "0.7000" in source and "x" in source

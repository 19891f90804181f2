"""The explorer over HTTP (``bbn serve``): a server on a free port in a thread, asked with
urllib. Beliefs equal ``net.posteriors`` and the hand-derived numbers of EXAMPLES.md §1;
bad input gets a 4xx with bbn's own message; nothing but the page and the model is served.

The page itself, in a real browser, is tests/test_explorer_browser.py.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.apps.explorer import Settings, serve
from bbn.apps.explorer.inline import _INLINE, explore

P_C_GIVEN_A = 22840 / 25757          # EXAMPLES.md §1
# Given S=T, P(B=T | C, S=T) = 0.9 for both C: A says nothing about C, P(C=T | A=T, S=T) =
# P(C=T) = 0.8, and P(A=T, S=T) = 0.02 · (0.9 · 0.7 + 0.1 · 0.1) = 0.0128.
P_A_AND_S = 0.02 * (0.9 * 0.7 + 0.1 * 0.1)


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """(status, headers, body) of a GET, 4xx and 5xx included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def post(url: str, body: bytes, headers: dict | None = None) -> tuple[int, dict]:
    """(status, JSON answer) of a POST with the explorer's header X-BBN: 1."""
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"X-BBN": "1", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def api(server, findings: dict | list | None = None) -> tuple[int, dict]:
    query = urlencode(findings or {})
    status, _, body = get(f"{server.url}api/posteriors?{query}")
    return status, json.loads(body)


# these read Graphviz's layout (without dot the page lays the network out itself:
# tests/test_explorer_graphviz.py): skipped without it, except under CI (CI=true), which
# installs it: there they fail
pytestmark = pytest.mark.skipif(
    shutil.which("dot") is None and os.environ.get("CI") != "true",
    reason="Graphviz's 'dot' is not installed (the explorer needs it)")


@pytest.fixture(scope="module")
def chair_server(chair_file):
    with serve(bbn.load(chair_file), port=0, block=False, source="chair.bn") as server:
        yield server


@pytest.fixture
def fresh_server(chair_file):
    """A server of its own, for tests that upload another model."""
    with serve(bbn.load(chair_file), port=0, block=False,
               settings=Settings(upload_limit=20_000)) as server:
        yield server


# ---------------------------------------------------------------- beliefs
def test_a_finding_gives_the_course_numbers(chair_server):
    status, answer = api(chair_server, {"A": "T"})
    assert status == 200
    assert answer["evidence"] == {"A": "T"}
    assert answer["posteriors"]["C"]["T"] == pytest.approx(P_C_GIVEN_A, abs=1e-12)
    assert answer["posteriors"]["S"]["T"] == pytest.approx(0.06211903560197228, abs=1e-12)
    assert answer["p_evidence"] == pytest.approx(25757 / 125000, abs=1e-12)
    status, answer = api(chair_server, {"A": "T", "S": "T"})
    assert answer["posteriors"]["C"] == pytest.approx({"T": 0.8, "F": 0.2}, abs=1e-12)
    assert answer["p_evidence"] == pytest.approx(P_A_AND_S, abs=1e-12)
    assert answer["posteriors"]["S"] == {"T": 1.0, "F": 0.0}


def test_no_finding_gives_the_priors(chair_server):
    status, answer = api(chair_server)
    assert (status, answer["evidence"], answer["p_evidence"]) == (200, {}, 1.0)
    assert answer["posteriors"]["B"]["T"] == pytest.approx(0.17676, abs=1e-12)
    assert answer["posteriors"]["A"]["T"] == pytest.approx(0.206056, abs=1e-12)


@pytest.mark.parametrize("findings", [{}, {"A": "F"}, {"W": "T", "A": "T"},
                                      {"B": "F", "S": "T", "W": "F"}])
def test_every_belief_equals_the_engine(chair_server, findings):
    net = chair_server.app.net
    _, answer = api(chair_server, findings)
    expected = net.posteriors(findings)
    assert list(answer["posteriors"]) == list(net.variables)
    for v, factor in expected.items():
        assert list(answer["posteriors"][v]) == list(net.states(v))
        np.testing.assert_allclose(list(answer["posteriors"][v].values()), factor.values,
                                   rtol=0, atol=1e-15)


@pytest.mark.parametrize("network", ["alarm", "hailfinder"])
def test_shared_networks_beliefs_and_p_evidence_equal_the_reference(shared, network):
    reference = json.loads((shared / "reference" / "bnlearn_exact.json").read_text())[network]
    with serve(bbn.load(shared / "networks" / f"{network}.bif.gz"), port=0,
               block=False) as server:
        for case in reference["queries"][:10]:
            status, answer = api(server, case["evidence"])
            if case.get("impossible"):
                assert status == 422
                continue
            assert status == 200
            assert answer["posteriors"][case["target"]] == pytest.approx(case["posterior"],
                                                                         abs=1e-9)
            assert answer["p_evidence"] == pytest.approx(case["p_evidence"], rel=1e-9)


PETS = """variable kind { cat, dog }
variable weight "kg" gaussian
P(kind) = 0.4, 0.6
P(weight | kind) {
  cat: N(4.0, 1.5)
  dog: N(20.0, 30.0)
}
"""


def test_a_continuous_finding_weighs_the_beliefs_and_has_no_p_evidence():
    """P(kind=cat | weight=6.5) = 0.4 N(6.5; 4, 1.5) / (0.4 N(6.5; 4, 1.5) + 0.6 N(6.5; 20, 30))."""
    def normal(x, mean, variance):
        return np.exp(-(x - mean) ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance)

    cat, dog = 0.4 * normal(6.5, 4.0, 1.5), 0.6 * normal(6.5, 20.0, 30.0)
    with serve(bbn.loads(PETS), port=0, block=False) as server:
        _, _, model = get(server.url + "api/model")
        weight = json.loads(model)["variables"][1]
        assert (weight["continuous"], weight["states"]) == (True, [])
        status, answer = api(server, {"weight": "6.5"})
    assert (status, answer["p_evidence"]) == (200, None)
    assert list(answer["posteriors"]) == ["kind"]
    assert answer["posteriors"]["kind"]["cat"] == pytest.approx(cat / (cat + dog), abs=1e-12)


# --------------------------------------------------------------- bad input
def test_impossible_evidence_is_422_with_bbns_message(models):
    with serve(bbn.load(models / "monty_hall.bn"), port=0, block=False) as server:
        status, answer = api(server, {"King": "A"})  # the prince picked A: never opened
        assert status == 422
        assert answer == {"error": str(bbn.ImpossibleEvidenceError({"King": "A"}))}
        assert "King" in answer["error"]


@pytest.mark.parametrize("findings, message", [
    ({"A": "t"}, "variable 'A' has no state 't'; its states are T, F (did you mean 'T'?)"),
    ({"AA": "T"}, "unknown evidence variable 'AA' (did you mean 'A'?)"),
    ([("A", "T"), ("A", "F")], "variable 'A' given twice, as 'T' and 'F'"),
])
def test_unknown_names_are_400_with_a_suggestion(chair_server, findings, message):
    status, answer = api(chair_server, findings)
    assert status == 400
    assert answer["error"].startswith(message)


def test_only_the_page_and_the_api_are_served(chair_server):
    for path in ("../bbn/explorer/app.py", "%2e%2e/%2e%2e/etc/passwd", "static/index.html",
                 "explorer.py", "api/", "models/chair.bn", "//etc/passwd"):
        status, _, body = get(chair_server.url + path)
        assert status == 404, path
        assert json.loads(body)["error"].startswith("no such page")
    status, headers, body = get(chair_server.url)
    assert status == 200 and b'<script src="explorer.js"' in body
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")
    status, headers, _ = get(chair_server.url + "explorer.js")
    assert (status, headers["Content-Type"]) == (200, "text/javascript; charset=utf-8")


def test_requests_for_another_host_are_refused(chair_server):
    """Bound to loopback, a page of another site reached through DNS rebinding gets 403."""
    status, _, body = get(chair_server.url + "api/model", {"Host": "evil.example:8000"})
    assert status == 403 and b"localhost only" in body
    status, _, _ = get(chair_server.url + "api/model", {"Host": "localhost:1234"})
    assert status == 200


def test_a_post_needs_the_explorers_header(chair_server):
    request = urllib.request.Request(chair_server.url + "api/query", data=b"P(C)",
                                     method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=30)
    assert raised.value.code == 403


def test_binding_beyond_loopback_warns(chair_file, capsys):
    with serve(bbn.load(chair_file), host="0.0.0.0", port=0, block=False):
        pass
    assert "warning: bbn serve on '0.0.0.0' answers every machine" in capsys.readouterr().err


def test_without_graphviz_the_model_is_503_with_how_to_install_it(chair_file, monkeypatch):
    from bbn.apps.rendering import output

    def no_dot(graph, fmt):
        raise output.GraphvizMissingError(f"drawing a .{fmt} picture")

    monkeypatch.setattr(output, "pipe", no_dot)
    with serve(bbn.load(chair_file), port=0, block=False) as server:
        status, _, body = get(server.url + "api/model")
        assert status == 503
        assert json.loads(body)["error"].startswith(
            "drawing a .json picture needs Graphviz's 'dot' program")
        assert api(server, {"A": "T"})[0] == 200   # the beliefs need no drawing


def test_a_port_in_use_exits_2_and_says_what_to_do(chair_server, chair_file, capsys):
    port = chair_server.url.rsplit(":", 1)[1].strip("/")
    assert main(["serve", str(chair_file), "--port", port]) == 2
    assert capsys.readouterr().err == (
        f"bbn serve: 127.0.0.1:{port} is in use (another server?); choose another port "
        "with --port, or --port 0 for any free one\n")


def test_open_shows_the_page_in_the_browser(chair_file, monkeypatch):
    import webbrowser

    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    with serve(bbn.load(chair_file), port=0, block=False, open=True) as server:
        assert opened == [server.url]


# ------------------------------------------------------------------ model
def test_the_model_has_a_box_for_every_node_and_a_path_for_every_arc(chair_server):
    status, _, body = get(chair_server.url + "api/model")
    model = json.loads(body)
    assert (status, model["name"], model["source"]) == (200, "Back ache", "chair.bn")
    assert [v["name"] for v in model["variables"]] == ["C", "S", "W", "B", "A"]
    assert model["variables"][0]["description"] == "the chair is uncomfortable"
    layout = model["layout"]
    boxes = layout["nodes"]
    geometry = layout["geometry"]
    for v in model["variables"]:  # a box holds its header and one row per state
        box = boxes[v["name"]]
        assert box["height"] == pytest.approx(
            geometry["header"] + 2 * geometry["row"] + 2 * geometry["pad"], abs=0.1)
        assert 0 <= box["x"] and box["x"] + box["width"] <= layout["width"] + 0.01
        assert 0 <= box["y"] and box["y"] + box["height"] <= layout["height"] + 0.01
    names = list(boxes)
    for i, a in enumerate(names):  # no two boxes overlap
        for b in names[i + 1:]:
            p, q = boxes[a], boxes[b]
            assert (p["x"] + p["width"] <= q["x"] or q["x"] + q["width"] <= p["x"]
                    or p["y"] + p["height"] <= q["y"] or q["y"] + q["height"] <= p["y"])
    arcs = {(arc["tail"], arc["head"]) for arc in layout["arcs"]}
    assert arcs == {("C", "W"), ("C", "B"), ("S", "B"), ("B", "A")}
    for tail, head in arcs:  # top to bottom: a parent's box above its child's
        assert boxes[tail]["y"] + boxes[tail]["height"] <= boxes[head]["y"]


# ------------------------------------------------------------------ query
@pytest.mark.parametrize("text", ["P(C | A=T)", "P(C=T | A=T)", "MAP(C, S | A=T)",
                                  "MPE(A=T)", "P(B, C=T | A=T)"])
def test_the_query_box_answers_as_bbn_query_prints(chair_server, chair_file, capsys, text):
    status, answer = post(chair_server.url + "api/query", text.encode())
    assert main(["query", str(chair_file), text]) == 0
    assert status == 200
    assert answer["text"] + "\n" == capsys.readouterr().out
    assert answer["query"] == text


@pytest.mark.parametrize("text, status", [("P(C | A=", 400), ("P(C | A=T, Q=T)", 400),
                                          ("MAP(C=T)", 400)])
def test_a_bad_query_gets_the_clis_message(chair_server, chair_file, capsys, text, status):
    got, answer = post(chair_server.url + "api/query", text.encode())
    assert main(["query", str(chair_file), text]) == 2
    assert got == status
    assert f"bbn query: {answer['error']}\n" == capsys.readouterr().err


def test_an_impossible_query_is_422(models):
    with serve(bbn.load(models / "monty_hall.bn"), port=0, block=False) as server:
        status, answer = post(server.url + "api/query", b"P(Princess | King=A)")
    assert status == 422 and "King" in answer["error"]


# ----------------------------------------------------------------- upload
def test_an_uploaded_model_replaces_the_one_on_show(fresh_server, models):
    status, model = post(fresh_server.url + "api/model",
                         (models / "monty_hall.bn").read_bytes(),
                         {"X-Filename": quote("folder/monty hall.bn")})
    assert status == 200
    assert (model["name"], model["source"]) == ("The prince and the king", "monty hall.bn")
    _, answer = api(fresh_server, {"King": "B"})
    assert answer["posteriors"]["Princess"]["C"] == pytest.approx(2 / 3, abs=1e-12)


def test_an_uploaded_exchange_file_is_read_by_its_extension(fresh_server, chair_file):
    text = bbn.dumps(bbn.load(chair_file), "xmlbif")
    status, model = post(fresh_server.url + "api/model", gzip.compress(text.encode()),
                         {"X-Filename": "chair.xmlbif.gz"})
    assert status == 200 and model["source"] == "chair.xmlbif.gz"
    _, answer = api(fresh_server, {"A": "T"})
    assert answer["posteriors"]["C"]["T"] == pytest.approx(P_C_GIVEN_A, abs=1e-12)


def test_an_upload_with_an_error_keeps_the_model_and_says_where(fresh_server, tmp_path,
                                                               capsys):
    bad = tmp_path / "bad.bn"
    bad.write_text("variable C { T, F\n")
    status, answer = post(fresh_server.url + "api/model", bad.read_bytes(),
                          {"X-Filename": "bad.bn"})
    assert status == 400
    assert main(["check", str(bad)]) == 2
    assert capsys.readouterr().err == f"bbn check: {bad}{answer['error'][len('bad.bn'):]}\n"
    assert answer["error"].startswith("bad.bn:2:1: expected ',' or '}'")
    assert fresh_server.app.net.name == "Back ache"


@pytest.mark.parametrize("name, body, status, message", [
    ("chair.bm", b"", 400, "chair.bm: cannot tell the format from the extension; known "),
    ("big.bn", b"#" * 20_001, 413, "20001 bytes is more than the limit of 20000"),
    ("bomb.bn.gz", gzip.compress(b"#" * 50_000), 413, "more than 20000 bytes once gunzipped"),
    ("latin.bn", "variable É { a }".encode("latin-1"), 400, "latin.bn: not UTF-8 text"),
])
def test_an_upload_that_cannot_be_read_is_refused(fresh_server, name, body, status, message):
    got, answer = post(fresh_server.url + "api/model", body, {"X-Filename": name})
    assert got == status
    assert message in answer["error"]
    assert fresh_server.app.net.name == "Back ache"


# ------------------------------------------------------- command, notebook
def test_bbn_serve_prints_its_address_and_serves(chair_file):
    process = subprocess.Popen([sys.executable, "-m", "bbn.apps.cli.main", "serve", str(chair_file),
                                "--port", "0"], stdout=subprocess.PIPE, text=True,
                               cwd=Path(__file__).resolve().parents[1])
    try:
        line = process.stdout.readline()
        assert line.startswith("bbn serve: 'Back ache' at http://127.0.0.1:")
        url = line.split(" at ")[1].split()[0]
        status, _, body = get(url + "api/posteriors?A=T")
        assert json.loads(body)["posteriors"]["C"]["T"] == pytest.approx(P_C_GIVEN_A)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_bbn_serve_of_a_missing_file_exits_2(capsys, tmp_path):
    assert main(["serve", str(tmp_path / "no.bn")]) == 2
    assert "no.bn: no such file" in capsys.readouterr().err


def test_explore_shows_the_app_in_a_frame_and_reuses_its_server(chair_file):
    net = bbn.load(chair_file)
    view = bbn.explore(net, height=450)
    try:
        assert view.url == bbn.explore(net).url
        assert view._repr_html_() == (f'<iframe src="{view.url}" width="100%" height="450" '
                                      'style="border: 0"></iframe>')
        status, _, body = get(view.url + "api/posteriors?S=T")
        assert json.loads(body)["posteriors"]["B"]["T"] == pytest.approx(0.9, abs=1e-12)
    finally:
        _INLINE.pop(id(net))[1].close()
    assert explore is not None

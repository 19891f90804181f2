"""Fuzzing: every reader, the query language, CSV data and the command line, fed mutated
and random input, fail only with bbn's own errors (``BBNError``).

The seeds are the shipped models (``models/*.bn``) and a few small networks of
``../shared/networks`` (skipped when absent), each written in every format with
``bbn.dumps``; hypothesis mutates them (slices deleted, duplicated or moved; tokens
replaced by odd numbers, names, Unicode digits, odd whitespace, unbalanced brackets...).

Bounded for the suite: ``BBN_FUZZ_EXAMPLES`` examples per test (default 40, with a fixed
seed). Run long (random seeds; a few minutes per reader)::

    BBN_FUZZ_EXAMPLES=100000 nice python -m pytest tests/test_fuzz.py -q -k readers

The long campaign (``python -m tests.benchmarks.fuzz_campaign``) runs these same tests
100,000 times per surface, in-process, driven by random bytes (hypothesis's
``fuzz_one_input``).

No hypothesis database is kept (``database=None``): nothing is written to the tree.
Reading runs under a 64 MiB memory limit, so a file declaring a huge table is refused
quickly rather than allocated.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import BBNError
from bbn.questions.language import parse_query
from bbn.questions.resolution import resolve_evidence_text, resolve_query

ROOT = Path(__file__).resolve().parents[1]
SHARED_NETWORKS = ROOT.parent / "shared" / "networks"
SMALL_SHARED = ("asia", "cancer", "earthquake", "sachs", "survey")
FORMATS = ("bn", "bif", "xmlbif", "hugin", "uai")
FUZZ_LIMIT = 64 << 20

pytestmark = pytest.mark.filterwarnings("ignore")  # learning warns on sparse data; fine here

EXAMPLES = int(os.environ.get("BBN_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize="BBN_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=list(HealthCheck))


def _seed_networks() -> list[bbn.Network]:
    nets = [bbn.load(path) for path in sorted((ROOT / "models").glob("*.bn"))]
    for name in SMALL_SHARED:
        path = SHARED_NETWORKS / f"{name}.bif.gz"
        if path.is_file():
            nets.append(bbn.load(path))
    return nets


NETWORKS = _seed_networks()


def _seeds(fmt: str) -> list[str]:
    texts = []
    for net in NETWORKS:
        with contextlib.suppress(BBNError):  # a Gaussian model in a discrete-only format
            texts.append(bbn.dumps(net, fmt))
    return texts


SEEDS = {fmt: _seeds(fmt) for fmt in FORMATS}

# pieces that break readers: numbers of every shape, Unicode digits, odd whitespace, lone
# surrogates, brackets, the formats' keywords
ODD = ["0", "1", "-1", "1e309", "nan", "inf", "-0.0", "1e-400", "0x10", "٣", "１", "²", "١",
       "\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\r", "\r\n", "\t", "\x00", "\ud800",
       "\ufeff", "(", ")", "((((((((((", "{", "}", "[", "]", "<", ">", "</TABLE>", "<TABLE>",
       '"', "'", "\\", ",", ";", ":", "|", "=", "%", "#", "//", "/*", "*/", "c ", "N(0, 1)",
       "default", "table", "variable", "probability", "P(", "node", "potential", "data",
       "states", "BAYES", "MARKOV", "1000000000", "99999999999999999999", " ", "\n", "é",
       "X0", "a", "T", "F", "gaussian", "<!ENTITY a 'b'>", "&a;", "&#0;", "<?xml?>"]


# Strategies made once: hypothesis works out each new strategy object's properties on its
# first draw, which cost more than the reading when made afresh at every draw.
TOKENS = st.lists(st.sampled_from(ODD) | st.text(max_size=4), min_size=1, max_size=4)
SEED_OF = {fmt: st.sampled_from(SEEDS[fmt] or [""]) for fmt in FORMATS}
PLACE = st.integers(0, 2**31)  # a place in a text of n characters: PLACE % (n + 1)
EDIT_COUNT, REPEATS = st.integers(1, 4), st.integers(2, 300)
SPAN = st.sampled_from([1, 4, 16, 256])
EDITS = st.sampled_from(["insert", "replace", "delete", "duplicate", "move", "truncate",
                         "repeat"])


def _tokens(draw) -> str:
    return "".join(draw(TOKENS))


@st.composite
def mutated(draw, fmt: str) -> str:
    """A seed of ``fmt`` after 1 to 4 random edits."""
    text = draw(SEED_OF[fmt])
    for _ in range(draw(EDIT_COUNT)):
        n = len(text)
        i = draw(PLACE) % (n + 1)
        j = min(n, i + draw(SPAN))
        j = i + draw(PLACE) % (j - i + 1)
        edit = draw(EDITS)
        if edit == "insert":
            text = text[:i] + _tokens(draw) + text[i:]
        elif edit == "replace":
            text = text[:i] + _tokens(draw) + text[j:]
        elif edit == "delete":
            text = text[:i] + text[j:]
        elif edit == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif edit == "move":
            k = draw(PLACE) % (n + 1)
            piece, rest = text[i:j], text[:i] + text[j:]
            k = min(k, len(rest))
            text = rest[:k] + piece + rest[k:]
        elif edit == "truncate":
            text = text[:i]
        else:  # a piece repeated many times: deep nesting, long lines, many parents
            text = text[:i] + _tokens(draw) * draw(REPEATS) + text[i:]
    return text


@contextlib.contextmanager
def _fuzz_limit():
    original = bbn.get_memory_limit()
    bbn.set_memory_limit(FUZZ_LIMIT)
    try:
        yield
    finally:
        bbn.set_memory_limit(original)


def _read(text: str, fmt: str) -> bbn.Network | None:
    """The network, or None after a BBNError; anything else fails the test."""
    with _fuzz_limit():
        try:
            return bbn.loads(text, format=fmt)
        except BBNError:
            return None


# ------------------------------------------------------------------------ readers
@pytest.mark.parametrize("fmt", FORMATS)
@FUZZ
@given(data=st.data())
def test_readers_fail_only_with_bbn_errors(fmt, data):
    text = data.draw(mutated(fmt))
    other = data.draw(st.sampled_from(FORMATS))
    net = _read(text, fmt)
    if net is not None:  # what was read is a network each writer can write or refuse
        with contextlib.suppress(BBNError):
            bbn.dumps(net, other)
    _read(text, other)  # and a file in the wrong format is refused cleanly


@pytest.mark.parametrize("fmt", FORMATS)
@FUZZ
@given(text=st.text(max_size=200) | st.lists(st.sampled_from(ODD)).map("".join))
def test_readers_on_random_text(fmt, text):
    _read(text, fmt)


# ----------------------------------------------------------------- query language
QUERY_PIECES = ["P(", "MAP(", "MPE(", "P", "MAP", "(", ")", "|", "=", ",", " ", "'", '"',
                "\\", "T", "F", "C", "A", "S", "W", "B", "Chair", "X", "1", "٣", "\x0c",
                "\u2028", "\ud800", "((((((((", "P(C | A=T)", "P(C=T)", "MAP(C, S | A=T)",
                "MPE(A=T)", "P(C | A=T, A=F)", "P(C | C=T)", "P(C, C)"]


@st.composite
def query_text(draw) -> str:
    pieces = st.sampled_from(QUERY_PIECES) | st.text(max_size=3)
    return "".join(draw(st.lists(pieces, max_size=12)))


@FUZZ
@given(query_text())
def test_the_query_language_fails_only_with_bbn_errors(text):
    net = NETWORKS[0]  # chair: variables C, S, W, B, A with states T, F
    for call in (lambda: net.query(text), lambda: parse_query(text),
                 lambda: resolve_query(net.compiled(), parse_query(text)),
                 lambda: resolve_evidence_text(text, net.compiled())):
        with contextlib.suppress(BBNError):
            call()


# ------------------------------------------------------------------------- data
CELLS = ["T", "F", "", " ", "t", "NaN", "nan", "?", "NA", "None", "1", "0", "1.5", "-",
         "٣", "\x0c", "T ", '"T"', "x" * 300, "inf", "1e309", "True", "\u2028"]


@st.composite
def csv_for(draw, net: bbn.Network) -> str:
    """A CSV of a few rows of ``net``'s states with cells, columns and rows mutated."""
    columns = list(net.variables)
    rows = [[draw(st.sampled_from(net.states(v))) for v in columns]
            for _ in range(draw(st.integers(0, 6)))]
    ragged = False
    for _ in range(draw(st.integers(0, 4))):
        edit = draw(st.sampled_from(["cell", "column", "drop", "header", "ragged"]))
        if edit == "cell" and rows:
            row = draw(st.integers(0, len(rows) - 1))
            col = draw(st.integers(0, len(columns) - 1))
            rows[row][col] = draw(st.sampled_from(CELLS) | st.text(max_size=5))
        elif edit == "column":
            columns.append(draw(st.sampled_from([*columns, "extra", "", "0"])))
            for row in rows:
                row.append(draw(st.sampled_from(CELLS)))
        elif edit == "drop" and len(columns) > 1:
            k = draw(st.integers(0, len(columns) - 1))
            del columns[k]
            for row in rows:
                del row[k]
        elif edit == "header":
            columns[draw(st.integers(0, len(columns) - 1))] = draw(st.sampled_from(CELLS))
        elif edit == "ragged":
            ragged = True
    lines = [",".join(columns)] + [",".join(row) for row in rows]
    if ragged and len(lines) > 1:  # a row one cell short
        lines[-1] = lines[-1].rpartition(",")[0]
    return "\n".join(lines) + "\n"


@FUZZ
@given(data=st.data())
def test_learning_and_classification_fail_only_with_bbn_errors(data, tmp_path_factory):
    net = NETWORKS[0]
    text = data.draw(csv_for(net))
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    estimator = data.draw(st.sampled_from(["mle", "laplace", "bayes", "m-estimate"]))
    missing = data.draw(st.sampled_from(["error", "drop", "em"]))
    with _fuzz_limit():
        with contextlib.suppress(BBNError):
            bbn.learn(net, path, estimator, missing=missing)
        try:  # the frame NaiveBayes gets; text pandas cannot read is not bbn's to judge
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except pd.errors.ParserError:
            return
        with contextlib.suppress(BBNError):
            target = data.draw(st.sampled_from(list(frame.columns) or ["C"]))
            model = bbn.NaiveBayes(estimator="laplace").fit(frame.drop(columns=target),
                                                            frame[target])
            model.predict(frame.drop(columns=target))


# ----------------------------------------------------------------- command line
def _run_main(argv: list[str]) -> int:
    """``main(argv)`` in-process: its exit code (argparse's SystemExit included)."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def _complete_or_absent(path: Path) -> None:
    """An output is either not written or a whole, readable file (atomic writes)."""
    if path.exists():
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if path.suffix in (".bn", ".bif", ".gz"):
            bbn.loads(data.decode(), format="bn" if ".bn" in path.name else "bif")


@FUZZ
@given(data=st.data())
def test_the_command_line_fails_only_with_exit_1_or_2(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    fmt = data.draw(st.sampled_from(FORMATS))
    model = folder / f"model.{'net' if fmt == 'hugin' else fmt}"
    model.write_text(data.draw(mutated(fmt)), encoding="utf-8", errors="surrogatepass")
    csv = folder / "data.csv"
    csv.write_text(data.draw(csv_for(NETWORKS[0])), encoding="utf-8", errors="surrogatepass")
    output = folder / data.draw(st.sampled_from(["out.bn", "out.bif.gz", "out.csv"]))
    command = data.draw(st.sampled_from([
        ["query", str(model), data.draw(query_text())],
        ["info", str(model)], ["check", str(model)],
        ["convert", str(model), str(output)],
        ["learn", str(model), str(csv), "-o", str(output)],
        ["classify", str(model), str(csv), "--target", "C", "-o", str(output)],
    ]))
    with _fuzz_limit(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        code = _run_main(command)
    assert code in (0, 1, 2)
    if code and command[0] in ("convert", "learn"):
        _complete_or_absent(output)


CLI = [sys.executable, "-c", "import sys; from bbn.apps.cli.main import main; sys.exit(main())"]


@pytest.mark.parametrize("text", [
    "variable A { a, b }\nP(A) = 0.5, \u0661",
    "\x0c",
    "variable A { a, b }\nP(A | " + ", ".join(["A"] * 70) + ") = 0.5, 0.5",
], ids=["unicode-digit", "form-feed", "70-parents"])
def test_the_command_line_in_a_subprocess_prints_no_traceback(text, tmp_path):
    model = tmp_path / "model.bn"
    model.write_text(text, encoding="utf-8")
    output = tmp_path / "out.bif"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv in (["convert", str(model), str(output)], ["query", str(model), "P(A)"]):
        done = subprocess.run(CLI + argv, capture_output=True, text=True, timeout=60, env=env)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in (1, 2), done.stderr
        assert not output.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bn"]  # no temporary left


def test_every_seed_reads_back():
    """The corpus is sound: each seed is a model its reader accepts (so mutations start
    from valid files, not from errors)."""
    for fmt, texts in SEEDS.items():
        assert texts, fmt
        for text in texts:
            assert isinstance(bbn.loads(text, format=fmt), bbn.Network)
    assert np.all([len(net.variables) > 0 for net in NETWORKS])


# ------------------------------------------------ every query form × every method
FORMS = ("P({t})", "P({t} | {e})", "P({t}={s} | {e})", "P({t}, {u} | {e})",
         "MAP({t}, {u} | {e})", "MPE({e})", "{t} _|_ {u} | {z}", "H({t} | {e})",
         "I({t}; {u} | {e})")
QUERY_METHODS = ("exact", "lbp", "lw", "is", "gibbs")


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


@FUZZ
@given(data=st.data())
def test_every_query_form_by_every_method_is_right_or_refused(data):
    """On chair, whose factor graph is a tree (loopy BP is exact there): the exact answer
    equals the brute-force one; an approximate one is within 8 standard errors (+0.02)
    of it, or a BBNError; the forms a method does not estimate are refused (H, I) or
    answered from the graph alone (independence) — never silently wrong."""
    from brute_force import BruteForce

    from bbn.questions.dispatch import method_from_options

    net = NETWORKS[0]
    names = list(net.variables)
    t, u = data.draw(st.permutations(names))[:2]
    others = [v for v in names if v not in (t, u)]
    given_ = data.draw(st.lists(st.sampled_from(others), unique=True, max_size=3))
    evidence = {v: data.draw(st.sampled_from(net.states(v))) for v in given_}
    s = data.draw(st.sampled_from(net.states(t)))
    form = data.draw(st.sampled_from(FORMS))
    text = form.format(t=t, u=u, s=s, z=", ".join(given_),
                       e=", ".join(f"{v}={x}" for v, x in evidence.items()))
    text = text.replace(" | )", ")").replace("( | ", "(").rstrip(" |")
    if "{e}" not in form:
        evidence = {}
    name = data.draw(st.sampled_from(QUERY_METHODS))
    seed = data.draw(st.integers(0, 2**16))
    method = (name if name in ("exact", "lbp") else
              method_from_options(name, samples=4000, seed=seed, time_budget=None))
    oracle = BruteForce(net)
    exact = net.query(text)
    try:
        got = net.query(text, method=method)
    except BBNError:
        assert name != "exact"
        return
    kind = text.split("(")[0] if "_|_" not in text else "IND"
    assert kind not in ("H", "I") or name == "exact", f"{text} by {name}: no refusal"
    if kind == "IND":
        assert bool(got) == bool(exact) and got.to_text() == exact.to_text()
    elif kind == "P" and "=" in text.split("|")[0]:
        truth = oracle.probability({t: s}, evidence)
        value = float(got.values[0]) if hasattr(got, "values") else float(got)
        _close(value, truth, getattr(got, "standard_error", None), name, text)
    elif kind == "P":
        targets = [t] if form.startswith("P({t})") or form == "P({t} | {e})" else [t, u]
        truth = oracle.posterior(targets, evidence)
        _close(got.values, truth, getattr(got, "standard_error", None), name, text)
    elif kind in ("MAP", "MPE"):
        assignment, p = got
        truth = oracle.probability(assignment, evidence)
        _close(p, truth, getattr(got, "standard_error", None), name, text)
        if name == "exact":
            assert p == pytest.approx(exact[1], rel=1e-9)
    elif kind == "H":
        assert got == pytest.approx(_entropy(oracle.posterior([t], evidence)), abs=1e-9)
    elif kind == "I":
        joint = oracle.posterior([t, u], evidence)
        mutual = (_entropy(joint.sum(axis=1)) + _entropy(joint.sum(axis=0))
                  - _entropy(joint.ravel()))
        assert got == pytest.approx(mutual, abs=1e-9)


def _close(value, truth, standard_error, method: str, text: str) -> None:
    value, truth = np.asarray(value, dtype=float), np.asarray(truth, dtype=float)
    if method in ("exact", "lbp"):
        assert np.allclose(value, truth, atol=1e-6), (text, method, value, truth)
    else:
        se = 0.0 if standard_error is None else np.asarray(standard_error, dtype=float)
        assert (np.abs(value - truth) <= 8 * se + 0.03).all(), (text, method, value, truth)


# ------------------------------------------------------------ decision-tree JSON
def _tree_seeds() -> list[dict]:
    frame = pd.read_csv(ROOT / "models" / "tennis.csv")
    categorical = bbn.DecisionTree().fit(frame.drop(columns=["play"]), frame["play"])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 2))
    numeric = bbn.DecisionTree(split="binary").fit(pd.DataFrame(x, columns=["u", "v"]),
                                                   np.where(x.sum(axis=1) > 0, "a", "b"))
    from bbn.tasks.trees.files import tree_json

    return [json.loads(tree_json(categorical)), json.loads(tree_json(numeric))]


TREE_VALUES = [None, True, False, 0, 1, -1, 2, 7, 10**30, -(10**30), 1.5, float("nan"),
               float("inf"), "", "x", "categorical", "continuous", [], [0], [1, 2], [-1], {},
               {"a": 1}, [[0]], 0.0, 3, "NaN", [0, 0], [1, 0]]


def _places(document, prefix=()):
    yield prefix
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _places(value, (*prefix, key))
    elif isinstance(document, list):
        for i, value in enumerate(document):
            yield from _places(value, (*prefix, i))


@st.composite
def mutated_tree(draw) -> dict:
    document = json.loads(json.dumps(draw(st.sampled_from(TREE_SEEDS))))
    for _ in range(draw(st.integers(1, 3))):
        places = list(_places(document))[1:]
        place = draw(st.sampled_from(places))
        parent = document
        for key in place[:-1]:
            parent = parent[key]
        edit = draw(st.sampled_from(["set", "delete", "copy"]))
        if edit == "set":
            # a copy: a list or dict of TREE_VALUES put in as it is would be changed by the
            # next edit, and the strategy would draw differently the next time
            parent[place[-1]] = copy.deepcopy(draw(st.sampled_from(TREE_VALUES) | st.integers()))
        elif edit == "delete":
            del parent[place[-1]]
        elif isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[place[-1]])))
        else:
            parent[f"{place[-1]}_"] = parent[place[-1]]
    return document


TREE_SEEDS = _tree_seeds()


@FUZZ
@given(document=mutated_tree())
def test_tree_files_fail_only_with_bbn_errors(document, tmp_path_factory):
    path = tmp_path_factory.mktemp("tree") / "tree.json"
    path.write_text(json.dumps(document))
    try:
        tree = bbn.load_tree(path)
    except BBNError:
        return
    space = tree.feature_space_
    rows = pd.DataFrame([[("sunny" if k == "categorical" else 0.3) for k in space.kinds],
                         [("x" if k == "categorical" else -2.0) for k in space.kinds]],
                        columns=list(space.names))
    with contextlib.suppress(BBNError):
        proba = tree.predict_proba(rows)
        assert np.allclose(proba.sum(axis=1), 1.0)  # a tree read is a tree that predicts
        tree.to_text()


# ------------------------------------------------------------------ evidence files
EVIDENCE_PIECES = ["0", "1", "2", "3", "4", "5", "-1", "--1", "²", "١", "1_0", "+1", "1.0",
                   "99999999999999999999", " ", "\n", "\t", "\x0c", "", "x"]


@FUZZ
@given(st.lists(st.sampled_from(EVIDENCE_PIECES) | st.text(max_size=3), max_size=12))
def test_evidence_files_fail_only_with_bbn_errors(pieces):
    from bbn.tasks.competition import read_evidence

    net = NETWORKS[0]
    text = " ".join(pieces)
    try:
        evidence = read_evidence(text, net, "e.evid")
    except BBNError:
        return
    numbers = [int(t) for t in text.split()]  # what was read was whole numbers only
    if len(numbers) >= 2 and numbers[0] == 1 and len(numbers) == 2 + 2 * numbers[1]:
        numbers = numbers[1:]
    assert len(evidence) == numbers[0] if numbers else evidence == {}
    for v, state in evidence.items():
        assert state in net.states(v)


# ----------------------------------------------------------------- CSV and Parquet
@FUZZ
@given(data=st.data())
def test_a_header_shorter_than_its_rows_is_never_read(data, tmp_path_factory):
    net = NETWORKS[0]
    text = data.draw(csv_for(net))
    lines = text.splitlines()
    if len(lines) < 2:
        return
    header = lines[0].split(",")
    drop = data.draw(st.integers(1, len(header)))
    lines[0] = ",".join(header[drop:]) if drop < len(header) else "C"
    if len(lines[0].split(",")) >= max(len(line.split(",")) for line in lines[1:]):
        return  # no row longer than the header: not this case
    path = tmp_path_factory.mktemp("csv") / "short.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    with _fuzz_limit(), pytest.raises(BBNError):  # refused, whatever else is wrong
        bbn.learn(net, path)


PARQUET = None


@FUZZ
@given(data=st.data())
def test_damaged_parquet_fails_only_with_bbn_errors(data, tmp_path_factory):
    pytest.importorskip("pyarrow")
    global PARQUET
    if PARQUET is None:
        buffer = io.BytesIO()
        pd.read_csv(ROOT / "models" / "tennis.csv").to_parquet(buffer)
        PARQUET = buffer.getvalue()
    raw = bytearray(PARQUET)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        edit = data.draw(st.sampled_from(["byte", "delete", "insert"]))
        if edit == "byte":
            raw[i] = data.draw(st.integers(0, 255))
        elif edit == "delete":
            del raw[i:i + data.draw(st.integers(1, 64))]
        else:
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    path = tmp_path_factory.mktemp("pq") / "data.parquet"
    path.write_bytes(bytes(raw))
    with contextlib.suppress(BBNError):
        bbn.learn(bbn.load(ROOT / "models" / "tennis.bn"), path)

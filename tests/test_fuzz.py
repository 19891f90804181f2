"""Fuzzing: every reader, the query language, CSV data and the command line, fed mutated
and random input, fail only with bbn's own errors (``BBNError``).

The seeds are the shipped models (``models/*.bn``) and a few small networks of
``../shared/networks`` (skipped when absent), each written in every format with
``bbn.dumps``; hypothesis mutates them (slices deleted, duplicated or moved; tokens
replaced by odd numbers, names, Unicode digits, odd whitespace, unbalanced brackets...).

Bounded for the suite: ``BBN_FUZZ_EXAMPLES`` examples per test (default 40, with a fixed
seed). Run long (random seeds; a few minutes per reader)::

    BBN_FUZZ_EXAMPLES=100000 nice python -m pytest tests/test_fuzz.py -q -k readers

With ``BBN_FUZZ_PROGRESS=file``, the reader tests write the number of cases run so far
to ``file.FORMAT`` every 100 cases (for runs stopped by a timeout).

No hypothesis database is kept (``database=None``): nothing is written to the tree.
Reading runs under a 64 MiB memory limit, so a file declaring a huge table is refused
quickly rather than allocated.
"""

from __future__ import annotations

import contextlib
import gzip
import io
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


def _tokens(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(ODD) | st.text(max_size=4), min_size=1,
                           max_size=4))
    return "".join(pieces)


@st.composite
def mutated(draw, fmt: str) -> str:
    """A seed of ``fmt`` after 1 to 4 random edits."""
    seeds = SEEDS[fmt]
    text = draw(st.sampled_from(seeds)) if seeds else ""
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + draw(st.sampled_from([1, 4, 16, 256])))))
        edit = draw(st.sampled_from(["insert", "replace", "delete", "duplicate", "move",
                                     "truncate", "repeat"]))
        if edit == "insert":
            text = text[:i] + _tokens(draw) + text[i:]
        elif edit == "replace":
            text = text[:i] + _tokens(draw) + text[j:]
        elif edit == "delete":
            text = text[:i] + text[j:]
        elif edit == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif edit == "move":
            k = draw(st.integers(0, n))
            piece, rest = text[i:j], text[:i] + text[j:]
            k = min(k, len(rest))
            text = rest[:k] + piece + rest[k:]
        elif edit == "truncate":
            text = text[:i]
        else:  # a piece repeated many times: deep nesting, long lines, many parents
            text = text[:i] + _tokens(draw) * draw(st.integers(2, 300)) + text[i:]
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
PROGRESS = os.environ.get("BBN_FUZZ_PROGRESS")


@pytest.mark.parametrize("fmt", FORMATS)
def test_readers_fail_only_with_bbn_errors(fmt):
    cases = [0]

    @FUZZ
    @given(mutated(fmt), st.sampled_from(FORMATS))
    def check(text, other):
        cases[0] += 1
        if PROGRESS and cases[0] % 100 == 0:
            Path(f"{PROGRESS}.{fmt}").write_text(f"{cases[0]}\n")
        net = _read(text, fmt)
        if net is not None:  # what was read is a network each writer can write or refuse
            with contextlib.suppress(BBNError):
                bbn.dumps(net, other)
        _read(text, other)  # and a file in the wrong format is refused cleanly

    check()


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

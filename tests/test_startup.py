"""What ``bbn query`` loads: no heavy module it does not need, and the query scanner that
spares it pyparsing reads exactly what the grammar reads.

The time itself is measured in tests/benchmarks/startup.py, never asserted here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbn.core.errors import ParseError
from bbn.questions import language as query_language

ROOT = Path(__file__).resolve().parents[1]  # the cwd of the runs: its bbn is imported

NOT_FOR_A_QUERY = ("pyparsing", "pandas", "graphviz", "scipy", "sklearn", "networkx",
                   "bbn.tasks.learning.parameters", "bbn.tasks.classification.classifier",
                   "bbn.apps.rendering")


def test_query_on_a_bn_file_imports_no_heavy_module(chair_file):
    code = ("import sys; from bbn.apps.cli.main import main; "
            f"code = main(['query', {str(chair_file)!r}, 'P(C | A=T)']); "
            f"print(sorted(m for m in {NOT_FOR_A_QUERY!r} if m in sys.modules), code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[] 0"


def _subcommands_loaded(argv: list[str]) -> tuple[list[str], str]:
    """The subcommand modules (those COMMANDS names) in sys.modules after ``bbn ARGV``,
    run in a new process, and what it wrote to stderr."""
    code = ("import sys; from bbn.apps.cli.main import COMMANDS, main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(sorted(m for _, m in COMMANDS.values() if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    return ast.literal_eval(done.stdout.splitlines()[-1]), done.stderr


def test_query_loads_no_other_subcommand(chair_file):
    loaded, errors = _subcommands_loaded(["query", str(chair_file), "P(C | A=T)"])
    assert loaded == ["bbn.apps.cli.query"], errors


def test_help_lists_every_command_and_loads_none():
    from bbn.apps.cli.main import COMMANDS

    loaded, errors = _subcommands_loaded(["--help"])
    assert loaded == []
    done = subprocess.run([sys.executable, "-m", "bbn.apps.cli.main", "--help"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert all(f"    {name}" in done.stdout for name in COMMANDS), done.stdout
    loaded, errors = _subcommands_loaded(["qurey", "models/chair.bn", "P(C)"])
    assert loaded == [] and "did you mean 'query'?" in errors


def test_an_ill_formed_file_or_query_still_gets_the_grammar(tmp_path):
    bad = tmp_path / "bad.bn"
    bad.write_text("variable C { T, F\n")
    code = ("import sys; from bbn.apps.cli.main import main; "
            f"main(['query', {str(bad)!r}, 'P(C)']); print('pyparsing' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert "bad.bn:2:1: expected ',' or '}'" in done.stderr
    assert done.stdout.strip() == "True"


def _grammar(text: str, which: str):
    grammar = query_language._grammars()[which]
    try:
        result = grammar.parse_string(text, parse_all=True)
    except query_language._grammars()["error"]:
        return None
    return {key: result[key] if key == "kind" else query_language._items(result[key])
            for key in ("kind", "targets", "evidence") if key in result}


@pytest.mark.parametrize("text", [
    "P(C | A=T)", "p( C|A = T )", "P(B, C=T | A=T, S=F)", "MAP(C, S | A=T)", "MPE(A=T)",
    "MPE(| A=T)", "MPE()", "mpe( )", "P(<5 | 12+=Asy/Patch)", " P(C)\n", "P(C | A)",
])
def test_scanner_reads_what_the_grammar_reads(text):
    scanned = query_language._scan(text, "query")
    assert scanned is not None and scanned == _grammar(text, "query")


@pytest.mark.parametrize("text", [
    "P(C | A=T", "P(C |)", "P()", "P(C, | A=T)", "P(C | A=T | S=F)", "MPE(A=T | B=F)",
    'P("Lung Parench" | A=T)', "PX(C)", "P(C\x0c| A=T)", "P(C=)", "Q(C)",
])
def test_scanner_leaves_the_rest_to_the_grammar(text):
    assert query_language._scan(text, "query") is None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="PMAEpa()|=, \t\n\x0c\"'CST", max_size=16),
       st.sampled_from(["query", "evidence"]))
def test_scanner_agrees_with_the_grammar(text, which):
    scanned = query_language._scan(text, which)
    if scanned is not None:
        assert scanned == _grammar(text, which)
    elif "'" not in text and '"' not in text:  # bare names: only mistakes go to the grammar
        assert _grammar(text, which) is None


def test_errors_still_located():
    with pytest.raises(ParseError, match=r"<query>:1:10: malformed query: expected"):
        query_language.parse_query("P(C | A=T")

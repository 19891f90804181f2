"""Every code block of README.md and docs/*.md runs as written; every module doctest passes.

A document's ``python`` blocks run in order in one namespace; its ``sh``/``console``
blocks, and ``text`` blocks whose lines start with ``$ ``, run their ``bbn`` commands, and
where a block shows what a command prints, the output (stdout and stderr as a terminal
interleaves them, white space normalised) must be exactly that. Everything runs in a
temporary copy of ``models/`` (with ``../shared`` linked beside it when present), so
nothing is written into the project; what the examples write must be ignored by git. A
block preceded by ``<!-- no-run: reason -->`` is not run (an installation, a signature);
fenced blocks without a language, and indented ones, are model files, formulas and
printed output.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bbn

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELLS = {"sh", "bash", "console", "text"}
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
_NO_RUN = re.compile(r"<!--\s*no-run:\s*\S.*?-->\s*$")


def code_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line, language, code) of every block of ``path`` to run, in order."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        language, code = match[1], match[2]
        if _NO_RUN.search(before):
            continue
        if language == "python" or (language in SHELLS and (
                language != "text" or code.startswith("$ "))):
            blocks.append((text.count("\n", 0, match.start()) + 1, language, code))
    return blocks


def shell_steps(code: str, language: str) -> list[tuple[str, str | None]]:
    """(command, the output the block shows or None) for each command of a shell block."""
    if not code.lstrip().startswith("$ "):  # a plain script: one command a line
        return [(line, None) for line in code.splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    steps: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "\n".join(shown) if any(s.strip() for s in shown) else None)
            for command, shown in steps]


def _words(text: str) -> list[str]:
    return text.split()


def run_command(command: str, cwd: Path) -> str:
    argv = shlex.split(command, comments=True)
    assert argv and argv[0] in ("bbn", "cat"), (
        f"{command!r}: only bbn (and cat) commands run; mark the block "
        "<!-- no-run: reason --> if it cannot")
    if argv[0] == "bbn":
        argv = [sys.executable, "-m", "bbn.apps.cli.main", *argv[1:]]
    # unbuffered, stderr into stdout: the lines in the order a terminal shows them
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120, env=env)
    assert "Traceback" not in done.stdout, done.stdout
    return done.stdout


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    """A folder holding a copy of models/ (and ../shared linked beside it): the cwd."""
    work = tmp_path / "project"
    shutil.copytree(ROOT / "models", work / "models")
    if SHARED.is_dir():
        (tmp_path / "shared").symlink_to(SHARED)
    monkeypatch.chdir(work)
    return work


def _needs_shared(path: Path) -> bool:
    return "../shared" in path.read_text(encoding="utf-8")


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          timeout=60)


def _in_git_checkout() -> bool:
    try:
        return _git("rev-parse", "--is-inside-work-tree").stdout.strip() == "true"
    except OSError:  # no git
        return False


def _require_matplotlib() -> None:
    """Skip without matplotlib (the optional extra bbn[plot]), except under CI."""
    if importlib.util.find_spec("matplotlib") is None and os.environ.get("CI") != "true":
        pytest.skip("matplotlib (bbn[plot]) is not installed")


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_code_blocks_run_as_written(path, workspace, memory_limit):  # limit restored after
    if _needs_shared(path) and not SHARED.is_dir():
        pytest.skip("../shared is absent")
    if (("render(" in path.read_text(encoding="utf-8") or path.name == "explorer.md")
            and shutil.which("dot") is None
            and os.environ.get("CI") != "true"):
        pytest.skip("Graphviz's dot is absent")
    if "bbn.plot" in path.read_text(encoding="utf-8"):
        _require_matplotlib()
    namespace: dict = {"__name__": "__doc__"}
    for line, language, code in code_blocks(path):
        where = f"{path.name}:{line}"
        if language == "python":
            try:
                exec(compile(code, where, "exec"), namespace)
            except Exception as error:  # the block's line in the message
                raise AssertionError(f"{where}: {type(error).__name__}: {error}") from error
            continue
        for command, shown in shell_steps(code, language):
            printed = run_command(command, workspace)
            if shown is not None:
                assert _words(printed) == _words(shown), (
                    f"{where}: $ {command}\nprinted:\n{printed}\ndocumented:\n{shown}")
    # what the examples write, a user running them in the project has git ignore
    written = [str(p.relative_to(workspace)) for p in workspace.rglob("*")
               if p.is_file() and p.parent != workspace / "models"]
    if written and _in_git_checkout():
        ignored = _git("check-ignore", *written).stdout.split()
        assert sorted(ignored) == sorted(written), "add to .gitignore: " + ", ".join(
            sorted(set(written) - set(ignored)))


def test_documents_have_blocks_and_few_exceptions():
    """The extraction finds the blocks; exceptions stay few and say why."""
    texts = {p.name: p.read_text(encoding="utf-8") for p in DOCUMENTS}
    assert len(code_blocks(ROOT / "docs" / "tutorial.md")) >= 6
    reasons = [m for t in texts.values() for m in re.findall(r"<!--\s*no-run:(.*?)-->", t)]
    assert len(reasons) <= 8 and all(len(r.strip()) > 10 for r in reasons), reasons


def test_shell_blocks_split_into_commands_and_outputs():
    steps = shell_steps("$ bbn a\nout 1\n  out 2\n$ bbn b   # a comment\n", "text")
    assert steps == [("bbn a", "out 1\n  out 2"), ("bbn b   # a comment", None)]
    assert shell_steps("# setup\nbbn c x.bn\n", "sh") == [("bbn c x.bn", None)]


# --------------------------------------------------------------- doctests
MODULES = sorted(m.name for m in pkgutil.walk_packages(bbn.__path__, "bbn."))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name, monkeypatch):
    """Each module's doctests, run from the repository root (they read models/)."""
    monkeypatch.chdir(ROOT)
    if name == "bbn.plot":
        _require_matplotlib()
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test, out=report.append)
    assert runner.summarize(verbose=False).failed == 0, "".join(report)


def test_booleans_read_by_read_csv_match_the_states_true_and_false(models):
    """classification.md's PlayTennis: pandas reads windy as bool; 'true' still matches."""
    import pandas as pd

    days = pd.read_csv(models / "tennis.csv")
    assert days["windy"].dtype == bool
    model = bbn.NaiveBayes(estimator="mle").fit(days.drop(columns="play"), days["play"])
    assert model.network_.states("windy") == ("false", "true")
    for windy in ("true", "True", "TRUE", True):
        new = pd.DataFrame([["sunny", "cool", "high", windy]],
                           columns=["outlook", "temperature", "humidity", "windy"])
        no = 0.02057142857142857 / (0.02057142857142857 + 0.005291005291005291)
        assert model.predict_proba(new)[0] == pytest.approx([no, 1 - no], abs=1e-12)
    structure = bbn.load(models / "tennis.bn")
    learned = bbn.learn(structure, days)                       # declared states true, false
    assert learned.cpt_array("windy")[0].tolist() == pytest.approx([3 / 9, 6 / 9])


# ------------------------------------------------------- a clean working tree
def test_running_tests_and_commands_leaves_the_tree_as_it_was():
    """Hypothesis tests and the README's read-only commands write nothing into the project
    (not even ignored files): git status, ignored files included, is unchanged."""
    if not _in_git_checkout():
        pytest.skip("not in a git checkout")
    status = ["status", "--porcelain", "--ignored", "--untracked-files=all"]
    before = _git(*status).stdout
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    runs = [[sys.executable, "-m", "pytest", "-q", "tests/test_codes.py"],  # hypothesis
            [sys.executable, "-m", "bbn.apps.cli.main", "query", "models/chair.bn", "P(C | A=T)"],
            [sys.executable, "-m", "bbn.apps.cli.main", "info", "models/chair.bn"],
            [sys.executable, "-m", "bbn.apps.cli.main", "check", "models/chair.bn"]]
    for argv in runs:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    after = _git(*status).stdout
    new = sorted(set(after.splitlines()) - set(before.splitlines()))
    assert all(line.startswith("!! ") and "__pycache__/" in line for line in new), new  # bytecode

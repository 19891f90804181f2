"""The long fuzz campaign: every surface of ``tests/test_fuzz.py`` run with many cases and
random seeds, each in a process of its own under a time limit: ``python -m
tests.benchmarks.fuzz_campaign [--cases 100000] [--minutes 60] [--surfaces reader-bn,...]``.

A surface is one test of ``tests/test_fuzz.py`` (the readers of each format, random text,
the query language, every query form × method against brute force, CSV learning and
classification, the command line, decision-tree JSON, evidence files, short CSV headers,
damaged Parquet). Each runs ``--cases`` hypothesis examples (``BBN_FUZZ_EXAMPLES``, random
seeds). For each surface the script prints the cases asked, whether it passed, and on
failure the first failing case hypothesis found and shrank: an exception that is not
bbn's own, or a wrong answer (the query surface checks every answer against the
brute-force joint). A surface still running at its time limit is reported as such (a
hang, or a slow surface: the readers' progress files tell how far they got).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: surface → pytest ``-k`` expression selecting its test in tests/test_fuzz.py
SURFACES = {
    **{f"reader-{fmt}": f"test_readers_fail_only_with_bbn_errors and {fmt}]"
       for fmt in ("bn", "bif", "xmlbif", "hugin", "uai")},
    "random-text": "test_readers_on_random_text",
    "query-language": "test_the_query_language_fails_only_with_bbn_errors",
    "query-forms-x-methods": "test_every_query_form_by_every_method_is_right_or_refused",
    "csv-learning": "test_learning_and_classification_fail_only_with_bbn_errors",
    "command-line": "test_the_command_line_fails_only_with_exit_1_or_2",
    "tree-json": "test_tree_files_fail_only_with_bbn_errors",
    "evidence-files": "test_evidence_files_fail_only_with_bbn_errors",
    "csv-short-header": "test_a_header_shorter_than_its_rows_is_never_read",
    "parquet": "test_damaged_parquet_fails_only_with_bbn_errors",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="examples per surface")
    parser.add_argument("--minutes", type=float, default=60.0, help="time limit per surface")
    parser.add_argument("--surfaces", help="comma-separated names (default: all)")
    options = parser.parse_args(argv)
    chosen = options.surfaces.split(",") if options.surfaces else list(SURFACES)
    progress = Path(os.environ.get("TMPDIR", "/tmp")) / f"bbn-fuzz-{os.getpid()}"
    failed = False
    for name in chosen:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "BBN_FUZZ_EXAMPLES": str(options.cases),
               "BBN_FUZZ_PROGRESS": str(progress)}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-x",
                   str(ROOT / "tests" / "test_fuzz.py"), "-k", SURFACES[name]]
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT,
                                  timeout=options.minutes * 60)
            verdict = "passed" if done.returncode == 0 else "FAILED"
            detail = "" if done.returncode == 0 else _first_failure(done.stdout)
        except subprocess.TimeoutExpired:
            verdict, detail = "stopped at the time limit (a hang, or too slow)", ""
        seconds = time.perf_counter() - start
        files = list(progress.parent.glob(progress.name + ".*"))
        reached = [p.read_text().strip() for p in files]
        for p in files:
            p.unlink()
        print(f"{name:<24} {options.cases} cases asked, {verdict} in {seconds:.0f} s"
              + (f" (progress: {', '.join(reached)} cases)" if reached else ""), flush=True)
        if detail:
            print("    " + detail.replace("\n", "\n    "), flush=True)
        failed |= verdict != "passed"
    return 1 if failed else 0


def _first_failure(output: str) -> str:
    """The assertion or exception and the falsifying example from pytest's report."""
    lines = output.splitlines()
    keep = [line for line in lines if line.startswith("E ") or "Falsifying" in line
            or line.strip().startswith("Draw ")]
    return "\n".join(keep[:20] or lines[-30:])


if __name__ == "__main__":
    sys.exit(main())

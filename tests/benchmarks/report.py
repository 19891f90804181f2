"""Markdown tables from a results JSON: ``python -m tests.benchmarks.report results.json``.

Used to paste a run's figures into README.md beside this file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

from tests.benchmarks.harness import ratio_text, seconds  # noqa: E402
from tests.benchmarks.structure import shd_text  # noqa: E402


def cell(data: dict | None) -> str:
    if data is None:
        return ""
    if data["kind"] == "na":
        return "n/a"
    return seconds(data["median"]) + ("\\*" if data.get("note") else "")


def section_markdown(section: dict) -> str:
    ratios = list(section["rows"][0]["ratios"]) if section["rows"] else []
    header = ["case"] + section["libraries"] + ratios + ["notes"]
    lines = [f"### {section['key']}. {section['title']}", ""]
    if section.get("comment"):
        lines += [section["comment"], ""]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    reasons = set()
    for row in section["rows"]:
        shd = row["extra"].get("shd", {})  # workload 8: structural Hamming distances
        cells = [cell(row["cells"].get(lib)) + shd_text(shd.get(lib))
                 for lib in section["libraries"]]
        lines.append("| " + " | ".join(
            [row["case"]] + cells + [ratio_text(row["ratios"][r]) for r in ratios]
            + ["; ".join(n for n in row["notes"] if n).replace("|", "\\|")]) + " |")
        reasons.update(f"{lib} on {row['case']}: {c['reason']}"
                       for lib, c in row["cells"].items() if c["kind"] == "na")
    if reasons:
        lines += ["", "n/a:"] + [f"- {r}" for r in sorted(reasons)]
    return "\n".join(lines)


def markdown(results: dict) -> str:
    info = results["machine"]
    lines = ["Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()), "",
             f"Command: `{results.get('command', '')}` — "
             f"{results.get('seconds', 0):.0f} s; load average after: "
             f"{results.get('load_average_after', '?')}", ""]
    return "\n".join(lines + [section_markdown(s) + "\n" for s in results["sections"]])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.splitlines()[0])
        return 2
    print(markdown(json.loads(Path(argv[0]).read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

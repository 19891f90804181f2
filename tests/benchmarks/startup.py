"""Workload 7: the start of a command — ``bbn query models/chair.bn "P(C | A=T)"`` — beside
``python -c pass`` (the interpreter alone), as wall-clock of a new process each time.

Rows: the query and ``bbn info`` on the shipped chair model, and the one import bbn
cannot start without (numpy), for the floor. Each row's two cells take turns. No peers:
the column ``python`` is the baseline. Bytecode is cached as on a user's machine (an
environment with PYTHONDONTWRITEBYTECODE=1 compiles every module anew, ~40 ms more).
"""

from __future__ import annotations

import os
import subprocess
import sys

from .harness import REPO, Row, Section, Settings, measure_side_by_side

TITLE = "start a command: bbn query on a .bn file beside python -c pass"

CHAIR = str(REPO / "models" / "chair.bn")

#: case → argv after ``python``
COMMANDS = {
    'bbn query chair.bn "P(C | A=T)"': ["-m", "bbn.apps.cli.main", "query", CHAIR, "P(C | A=T)"],
    "bbn info chair.bn": ["-m", "bbn.apps.cli.main", "info", CHAIR],
    "import numpy": ["-c", "import numpy"],
}


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("7", TITLE, ["command", "python"], [("command", "python")])
    section.comment = ("command: wall-clock of a new process running it; python: "
                       "`python -c pass` in the same turns")
    # bytecode cached as on a user's machine ("" unsets PYTHONDONTWRITEBYTECODE)
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "", "PYTHONPATH": path}

    def process(argv: list[str]):
        return lambda: subprocess.run([sys.executable, *argv], env=env, check=True, cwd=REPO,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    for case, argv in COMMANDS.items():
        row = Row("startup", case)
        row.cells.update(measure_side_by_side(
            settings, {"command": process(argv), "python": process(["-c", "pass"])}))
        section.add(row)
    return section

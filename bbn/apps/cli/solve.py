"""``bbn solve MODEL``: an influence diagram's maximum expected utility and the optimal
policy of every decision, as text or JSON (``{"meu": ..., "policy": {...}}``).

>>> from bbn.apps.cli.main import main
>>> main(["solve", "models/oil.bn", "--evidence", "Test=no_test"])
MEU given Test=no_test = 20 (perfect recall, optimal)
Drill = drill  if Result=none
  drill     20  *
  no_drill  0
  (3 impossible configuration(s) of Result not shown)
0
"""

from __future__ import annotations

import argparse
import json

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model
from bbn.core.errors import QueryError
from bbn.questions.language import parse_evidence


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, "influence diagram (.bn with decision and utility nodes, "
                               "Hugin .net)")
    parser.add_argument("--evidence", default="", metavar="A=a,B=b",
                        help="what is known before every decision; a decision given is taken")
    parser.add_argument("--limid", action="store_true",
                        help="a decision knows only its parents (single policy updating), "
                             "not everything known and chosen before it")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")


def run(args: argparse.Namespace) -> int:
    net = read_model(args)
    evidence = parse_evidence(args.evidence, "--evidence") if args.evidence.strip() else None
    if not hasattr(net, "solve"):
        raise QueryError("the model has no decisions and no utilities: bbn solve takes an "
                         "influence diagram (decision and utility nodes)")
    solution = net.solve(evidence, reading="LIMID" if args.limid else "perfect recall")
    print(json.dumps(solution.to_json()) if args.json else solution.to_text())
    return EXIT_OK


__all__ = ["add_arguments", "run"]

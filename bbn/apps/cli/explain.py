"""``bbn explain MODEL QUESTION``: the working of a query — factorisation, sums,
normalisation — as text, Markdown (with LaTeX formulas) or a LaTeX fragment.

>>> from bbn.apps.cli.main import main
>>> main(["explain", "models/chair.bn", "P(C=T | A=T)"])
P(C=T | A=T)
...
0
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model
from bbn.questions.language import parse_query
from bbn.tasks.explain.derivation import explain


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("query", help='e.g. "P(C=T | A=T)", "P(C | A=T)", "MAP(C, S | A=T)"')
    parser.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                        help="text (default), markdown (with LaTeX formulas) or a LaTeX "
                        "fragment")


def run(args: argparse.Namespace) -> int:
    net = read_model(args)
    derivation = explain(net, parse_query(args.query))
    print({"text": derivation.to_text, "markdown": derivation.to_markdown,
           "latex": derivation.to_latex}[args.format]().rstrip("\n"))
    return EXIT_OK


__all__ = ["add_arguments", "run"]

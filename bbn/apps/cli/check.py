"""``bbn check MODEL``: validate a model and report every problem (exit code 2 when there
is one).

>>> from bbn.apps.cli.main import main
>>> main(["check", "models/chair.bn"])
models/chair.bn: ok (5 variables, 4 arcs)
0
"""

from __future__ import annotations

import argparse
import sys

from bbn.apps.cli.advice import cli_advice
from bbn.apps.cli.exit_codes import EXIT_BAD_INPUT, EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model
from bbn.core.errors import BBNError, ParseError
from bbn.io.formats import load
from bbn.model.markov import MarkovNetwork


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        net = read_model(args, dynamic="two slices")
    except ParseError as error:  # tables refused as read: then the rest of the model
        print(f"bbn check: {cli_advice(str(error), ['--normalize'])}", file=sys.stderr)
        count = len(getattr(error, "errors", ())) or 1
        untabled = getattr(error, "untabled", None)  # a .bn file's, where they are declared
        if untabled is None:  # rows rescaled, so what else is wrong (no table) shows
            try:
                rest = load(args.model, normalize=True)
            except BBNError:
                rest = None
            untabled = [] if rest is None or isinstance(rest, MarkovNetwork) else [
                f"{args.model}: {p}" for p in rest.validate() if "no table" in p]
        for problem in untabled:
            print(problem, file=sys.stderr)
        if untabled:
            print(f"{args.model}: {count + len(untabled)} problem(s)", file=sys.stderr)
        return EXIT_BAD_INPUT
    problems = [] if isinstance(net, MarkovNetwork) else net.validate()  # checked on reading
    if problems:
        for problem in problems:
            print(f"{args.model}: {problem}", file=sys.stderr)
        print(f"{args.model}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_BAD_INPUT
    arcs = (f"{len(net.factors)} factors" if isinstance(net, MarkovNetwork)
            else f"{len(net.arcs())} arcs")
    print(f"{args.model}: ok ({len(net.variables)} variables, {arcs})")
    return EXIT_OK


__all__ = ["add_arguments", "run"]

"""``bbn explain MODEL QUESTION``: the working of a query — factorisation, sums,
normalisation — as text, Markdown (with LaTeX formulas) or a LaTeX fragment.

>>> from bbn.apps.cli.main import main
>>> main(["explain", "models/chair.bn", "P(C=T | A=T)"])
P(C=T | A=T)
...
0

``--likelihood W=T:0.8,F:0.4`` adds likelihood evidence, derived as a virtual child
λ(W) of W observed ``yes`` (docs/evidence.md). A dynamic model is explained on its
unrolled network, as ``bbn query`` asks it (``--unroll T``).
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument
from bbn.apps.cli.unrolled import add_unroll_argument, query_names, read_unrolled
from bbn.core.errors import QueryError
from bbn.questions.language import parse_query, read_weights
from bbn.tasks.explain.derivation import explain


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("query", help='e.g. "P(C=T | A=T)", "P(C | A=T)", "MAP(C, S | A=T)"')
    parser.add_argument("--likelihood", action="append", default=[], metavar="W=T:0.8,F:0.4",
                        help="likelihood evidence on W (per-state weights; repeatable), "
                        "derived as a virtual child of W")
    parser.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                        help="text (default), markdown (with LaTeX formulas) or a LaTeX "
                        "fragment")
    add_unroll_argument(parser, "a dynamic model (P(X | X[-1])): explain on its network of T "
                        "slices, variables X[0] ... X[T-1] (default: to the last slice the "
                        "query names)")


def run(args: argparse.Namespace) -> int:
    query = parse_query(args.query)
    net = read_unrolled(args, query_names(query),
                        'name the slices in the query, as in "P({first}[1] | ...)", or ')
    likelihoods = {}
    for item in args.likelihood:
        variable, equals, weights = item.partition("=")
        if not equals:
            raise QueryError(f"--likelihood takes VARIABLE=STATE:NUMBER,..., as in "
                             f"W=T:0.8,F:0.4; got {item!r}")
        likelihoods[variable.strip()] = read_weights(variable.strip(), weights)
    derivation = explain(net, query, likelihoods)
    print({"text": derivation.to_text, "markdown": derivation.to_markdown,
           "latex": derivation.to_latex}[args.format]().rstrip("\n"))
    return EXIT_OK


__all__ = ["add_arguments", "run"]

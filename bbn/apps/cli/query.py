"""``bbn query MODEL QUESTION``: a probability, a posterior table, MAP or MPE, as text or
JSON, exactly or with ``--method``; ``--log`` for ln P of a tiny probability. A dynamic
model is asked on its unrolled network (``P(Rain[2] | Umbrella[0]=T)``; ``--unroll T``).

>>> from bbn.apps.cli.main import main
>>> main(["query", "models/chair.bn", "P(C=T | A=T)"])
P(C=T | A=T) = 0.886749
0
"""

from __future__ import annotations

import argparse
import json
import math

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_method_arguments, add_model_argument, method_of
from bbn.apps.cli.unrolled import add_unroll_argument, query_names, read_unrolled
from bbn.questions import dispatch
from bbn.questions.language import parse_query
from bbn.questions.presentation import to_json, to_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, "model file (.bn, .bif, .xmlbif, .net, .uai; optionally .gz)")
    parser.add_argument("query", help='e.g. "P(C | A=T)", "P(C=T | A=T)", "MAP(C, S | A=T)"')
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser.add_argument("--log", action="store_true",
                        help="print the natural log of a probability such as P(A=T, S=F) "
                        "(exact below 1e-308, where the probability prints as 0)")
    add_method_arguments(parser)
    add_unroll_argument(parser, "a dynamic model (P(X | X[-1])): ask its network of T slices, "
                        "variables X[0] ... X[T-1] (default: to the last slice the query "
                        "names)")


def run(args: argparse.Namespace) -> int:
    query = parse_query(args.query)
    net = read_unrolled(args, query_names(query),
                        'name the slices in the query, as in "P({first}[1] | ...)", or ')
    method = method_of(args)
    if args.log:
        value = dispatch.log_answer(net, query, method)
        if args.json:  # JSON has no -Infinity: P = 0 is null
            print(json.dumps({"query": query.text(),
                              "log_p": value if value > -math.inf else None}))
        else:
            print(f"log {query.text()} = {value:.6f}")
        return EXIT_OK
    result = dispatch.ask(net, query, method)
    print(json.dumps(to_json(query, result)) if args.json else to_text(query, result))
    return EXIT_OK


__all__ = ["add_arguments", "run"]

"""``bbn render MODEL [-o PICTURE]``: a network drawn with Graphviz — its structure, its
tables, its posteriors given evidence, an active trail, or its arcs against a reference.
Without ``-o`` the DOT source is printed.

>>> from bbn.apps.cli.main import main
>>> main(["render", "models/chair.bn"])
digraph ...
0
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model, refuse_overwriting
from bbn.apps.rendering import render
from bbn.io.formats.bn.timeslices import load_dynamic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("-o", "--output", help="picture to write: .png, .svg, .pdf, or .dot/.gv "
                        "(DOT source, no Graphviz needed); without it the DOT source is printed")
    parser.add_argument("--tables", action="store_true", help="show each node's table")
    parser.add_argument("--evidence", help='observed states, e.g. "A=T, S=F" (highlighted)')
    parser.add_argument("--posteriors", action="store_true",
                        help="show a bar per state with P(state | evidence)")
    parser.add_argument("--rankdir", choices=("TB", "LR"), default="TB",
                        help="TB: parents above children (default); LR: left to right")
    parser.add_argument("--max-rows", type=int, default=16, metavar="N",
                        help="rows drawn per table before it is cut (default 16)")
    parser.add_argument("--trail", metavar="QUESTION",
                        help='an independence question, e.g. "C _|_ S | A": its observed '
                        "variables are shaded and one active trail is drawn in red")
    parser.add_argument("--do", metavar="INTERVENTION",
                        help='an intervention, e.g. "B=T": the arcs into B are drawn cut, '
                        "and --posteriors are those of the mutilated network")
    parser.add_argument("--compare", metavar="REFERENCE",
                        help="colour each arc against this model: correct, reversed, extra, "
                        "missing (dashed); the caption gives the structural Hamming distances")
    parser.add_argument("--dynamic", action="store_true",
                        help="MODEL is a dynamic network (a .bn file with P(X | X[-1]), or a "
                        "two-slice network): draw slices 0 and 1 and the arcs between them")


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, model=args.model, reference=args.compare)
    net = (load_dynamic(args.model, normalize=args.normalize).slices() if args.dynamic
           else read_model(args, dynamic="two slices"))
    reference = None if args.compare is None else read_model(args, args.compare)
    graph = render(net, args.output, tables=args.tables, evidence=args.evidence,
                   posteriors=args.posteriors, rankdir=args.rankdir, max_rows=args.max_rows,
                   compare=reference, trail=args.trail, do=args.do)
    if args.output is None:
        print(graph.source, end="")
    else:
        print(f"wrote {args.output}")
    return EXIT_OK


__all__ = ["add_arguments", "run"]

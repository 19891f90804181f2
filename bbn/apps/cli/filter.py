"""``bbn filter MODEL DATA.csv [--sequence-id COL] [--smooth]``: P(X_t | e_1:t) (or, with
``--smooth``, P(X_t | e_1:T)) at every step of every sequence of a CSV file of findings,
printed (or written with ``-o``) as CSV: the sequence id, then one column
``variable=state`` per state.

MODEL is a dynamic ``.bn`` file (``P(Rain | Rain[-1])``), or a two-slice network in any
format: variables ``X[0]`` and ``X[1]`` (as ``bbn.DynamicNetwork.two_slice`` saves
them) or pyAgrum's ``X0`` and ``Xt`` (a 2-TBN BIF file). DATA has one row per step, a
column per observed variable (empty: not observed), the rows of a sequence in time order.

>>> from bbn.apps.cli.main import main
>>> main(["filter", "models/umbrella.bn", "models/umbrella-days.csv"])
Rain=T,Rain=F
0.818182,0.181818
0.883357,0.116643
0
"""

from __future__ import annotations

import argparse
import sys

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument
from bbn.core.data import read_data
from bbn.io.formats import atomic_writer
from bbn.io.formats.bn.timeslices import load_dynamic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_sequence_arguments(parser)
    parser.add_argument("--smooth", action="store_true",
                        help="P(X_t | every finding of the sequence) rather than of the "
                             "steps up to t")
    parser.add_argument("--variables", nargs="+", metavar="VARIABLE",
                        help="the variables asked about (default: every one not in the data)")


def add_sequence_arguments(parser: argparse.ArgumentParser) -> None:
    """MODEL, DATA, ``--sequence-id``, ``-o``: what ``bbn filter`` and ``bbn viterbi``
    share."""
    add_model_argument(parser, "dynamic model: a .bn file with P(X | X[-1]), or a two-slice "
                               "network (X[0] and X[1], or pyAgrum's X0 and Xt)")
    parser.add_argument("data", help="CSV file of findings, one row per step")
    parser.add_argument("--sequence-id", metavar="COLUMN",
                        help="the column naming each row's sequence")
    parser.add_argument("-o", "--output", help="CSV file to write (default: print)")


def read_inputs(args: argparse.Namespace):
    """The 2-TBN and the findings."""
    dbn = load_dynamic(args.model, normalize=args.normalize)
    frame, _ = read_data(args.data)
    return dbn, frame


def write(frame, args: argparse.Namespace) -> None:
    """``frame`` as CSV on stdout or into ``--output`` (atomically)."""
    text = frame.to_csv(index=False, float_format="%.6f")
    if args.output is None:
        sys.stdout.write(text)
        return
    with atomic_writer(args.output) as file:
        file.write(text.encode("utf-8"))
    print(f"wrote {args.output} ({len(frame)} rows)")


def run(args: argparse.Namespace) -> int:
    dbn, frame = read_inputs(args)
    question = dbn.smooth if args.smooth else dbn.filter
    answer = question(frame, variables=args.variables, sequence_id=args.sequence_id)
    answer.columns = [f"{v}={s}" for v, s in answer.columns]
    if args.sequence_id:
        answer.insert(0, args.sequence_id, frame[args.sequence_id].to_numpy())
    write(answer, args)
    return EXIT_OK


__all__ = ["add_arguments", "add_sequence_arguments", "read_inputs", "run", "write"]

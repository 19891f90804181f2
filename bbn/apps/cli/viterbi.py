"""``bbn viterbi MODEL DATA.csv [--sequence-id COL]``: the most probable state of every
variable at every step of every sequence given a CSV file of findings, and
log P(x*, e) of each sequence's explanation, printed (or written with ``-o``) as CSV.
MODEL and DATA are those of ``bbn filter``.

>>> from bbn.apps.cli.main import main
>>> main(["viterbi", "models/umbrella.bn", "models/umbrella-days.csv"])
Rain,Umbrella,log_probability
T,T,-1.260543
T,T,-1.260543
0
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.filter import add_sequence_arguments, read_inputs, write


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_sequence_arguments(parser)


def run(args: argparse.Namespace) -> int:
    dbn, frame = read_inputs(args)
    states, best = dbn.viterbi(frame, sequence_id=args.sequence_id)
    if args.sequence_id:
        ids = frame[args.sequence_id]
        states.insert(0, args.sequence_id, ids.to_numpy())
        states["log_probability"] = best.reindex(ids).to_numpy()
    else:
        states["log_probability"] = float(best.iloc[0])
    write(states, args)
    return EXIT_OK


__all__ = ["add_arguments", "run"]

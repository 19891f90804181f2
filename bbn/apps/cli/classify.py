"""``bbn classify MODEL DATA.csv --target COL``: predictions for every row, as CSV.

DATA is read, predicted and written a chunk of rows at a time (``--chunksize``), so a
file larger than memory works. The output has one row per input row: the decided state
(``predicted``) and the posterior of every state (``P(COL=state)``). MODEL may also be a
decision tree saved by ``bbn tree -o tree.json``: its leaves' class shares are the
posterior (the file is then read whole: a tree types its columns from all of them). When
DATA has the target column, the accuracy and the confusion matrix (rows: true state,
columns: predicted) are printed — to stdout when the predictions go to a file, else to
stderr.

>>> import os, tempfile
>>> from bbn.apps.cli.main import main
>>> model = os.path.join(tempfile.mkdtemp(), "tennis.bn")
>>> main(["learn", "models/tennis.bn", "models/tennis.csv", "-o", model])
wrote ...
0
>>> main(["classify", model, "models/tennis.csv", "--target", "play", "-o", model + ".csv"])
wrote ...tennis.bn.csv (14 predictions)
accuracy ...
0
"""

from __future__ import annotations

import argparse
import contextlib
import sys

import numpy as np
import pandas as pd

import bbn.apps.cli.classify_sequences as classify_sequences
from bbn.apps.cli.delimited import add_sep_argument, delimited
from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import read_model, refuse_overwriting
from bbn.apps.cli.saved_tree import is_tree_file, tree_posteriors
from bbn.core.data import MISSING, encode_column, read_data
from bbn.core.errors import DataError
from bbn.core.progress import Step, on_terminal
from bbn.io.formats import atomic_writer
from bbn.tasks.classification.decisions import RULES, check_rule, decide, loss_matrix
from bbn.tasks.classification.prediction import (
    check_target,
    decide_rows,
    posterior_table,
    prediction_chunks,
)
from bbn.tasks.learning.discretisation import discretiser_for
from bbn.tasks.learning.policies import UNSEEN_POLICIES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file, or a decision tree saved by bbn tree "
                        "(.json)")
    parser.add_argument("data", help="CSV file; columns naming variables are evidence, "
                        "empty cells are missing")
    parser.add_argument("--target", required=True, help="the variable to predict")
    parser.add_argument("--loss", help="CSV loss matrix: first column the predicted state, "
                        "header the true states; implies --decision risk")
    parser.add_argument("--decision", choices=RULES,
                        help="MAP (default), ML (ignore the prior) or minimum expected risk")
    parser.add_argument("--unseen", choices=UNSEEN_POLICIES, default="error",
                        help="a value that is no state: error (default) or treat as missing")
    parser.add_argument("-o", "--output", help="CSV file for the predictions (default stdout)")
    parser.add_argument("--chunksize", type=int, help="rows read, predicted and written at a "
                        "time (default: from the memory limit)")
    add_sep_argument(parser)
    parser.add_argument("--discretize", action="store_true",
                        help="numbers in DATA fall into the intervals that are the model's "
                        "states ([4.3, 5.1], (5.1, 5.8]..., as bbn structure --discretize "
                        "writes them)")
    classify_sequences.add_sequence_arguments(parser)


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, model=args.model, data=args.data, loss=args.loss)
    rule = check_rule(args.decision or ("risk" if args.loss else "map"), args.loss)
    if is_tree_file(args.model):  # a decision tree saved by `bbn tree -o tree.json`
        if rule == "ml":
            raise DataError("--decision ml needs P(x | class), which a decision tree does "
                            "not give; use map or risk")
        if classify_sequences.over_time(args, None):
            raise DataError("--sequence-id, --smooth and --viterbi classify over time with "
                            "a dynamic network, not a decision tree")
        frame, source = read_data(delimited(args.data, args.sep, in_blocks=False))
        states, posterior = tree_posteriors(args.model, frame, args.target)
        chosen = decide(posterior, rule, loss=None if args.loss is None
                        else loss_matrix(args.loss, states))
        decided = iter([(frame, source, _posterior_columns(posterior, states, args), chosen)])
    else:
        net = read_model(args, dynamic="keep")
        if classify_sequences.over_time(args, net):
            states, decided = classify_sequences.sequence_predictions(net, args, rule)
        else:
            check_target(net, args.target)  # before reading the data
            states = list(net.states(args.target))
            decided = _network_chunks(net, args, rule)
    confusion = np.zeros((len(states), len(states)), dtype=np.int64)
    scored = written = 0
    progress = on_terminal("bbn classify: ")   # a bar on a terminal, else silent
    with contextlib.ExitStack() as stack:
        if progress is not None:
            stack.callback(progress.close)
        out = (stack.enter_context(atomic_writer(args.output)) if args.output
               else sys.stdout.buffer)
        for frame, source, columns, chosen in decided:
            output = pd.DataFrame({"predicted": np.asarray(states, dtype=object)[chosen]})
            for name, values in columns.items():
                output[name] = values
            out.write(output.to_csv(index=False, float_format="%.10g",
                                    header=written == 0).encode("utf-8"))
            written += len(output)
            if progress is not None:
                progress(Step("classify", written, note="rows classified"))
            if args.target in frame.columns:
                scored += 1
                truth = encode_column(frame[args.target], states, name=args.target,
                                      source=source, unknown="missing")
                known = truth != MISSING
                np.add.at(confusion, (truth[known], chosen[known]), 1)
        if not args.output:
            sys.stdout.flush()
    report = sys.stderr
    if args.output:
        print(f"wrote {args.output} ({written} predictions)")
        report = sys.stdout
    if scored:
        _print_scores(confusion, states, report)
    return EXIT_OK


def _network_chunks(net, args: argparse.Namespace, rule: str):
    """(frame, source, output columns, decided state indices) for each chunk of the data."""
    cutter = discretiser_for(True, None, states=net) if args.discretize else None
    data = delimited(args.data, args.sep, args.chunksize)
    for frame, source in prediction_chunks(net, data, chunksize=args.chunksize):
        if cutter is not None:
            frame = cutter.transform(frame)
        posterior = posterior_table(net, frame, args.target, source=source,
                                    unseen=args.unseen).to_numpy()
        yield (frame, source, _posterior_columns(posterior, net.states(args.target), args),
               decide_rows(net, posterior, args.target, rule, args.loss))


def _posterior_columns(posterior: np.ndarray, states, args: argparse.Namespace) -> dict:
    """The output's ``P(target=state)`` columns."""
    return {f"P({args.target}={s})": posterior[:, j] for j, s in enumerate(states)}


def _print_scores(counts: np.ndarray, states, stream) -> None:
    """The accuracy and the confusion matrix (rows: true state, columns: predicted)."""
    total = int(counts.sum())
    if not total:
        return
    right = int(np.trace(counts))
    print(f"accuracy {right / total:.6f} ({right}/{total})", file=stream)
    header = ["true \\ predicted", *states]
    rows = [header] + [[s, *map(str, row)] for s, row in zip(states, counts, strict=True)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for row in rows:
        print("  " + "  ".join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths, strict=True))),
              file=stream)

"""``bbn classify`` over time: a dynamic model's target at every step of every sequence
of a CSV file, by filtering P(X_t | e_1:t) (the default), smoothing P(X_t | e_1:T)
(``--smooth``) or the most probable joint explanation (``--viterbi``), with
``--sequence-id COL`` naming each row's sequence. The questions are those of ``bbn
filter`` and ``bbn viterbi`` (:class:`bbn.DynamicNetwork`); the decided state and the
scores are ``bbn classify``'s.

The target's column, when DATA has it, is the truth the predictions are scored against,
never a finding; every other column (but the sequence id) is a finding, one row per step.

>>> import os, tempfile
>>> import pandas as pd
>>> from bbn.apps.cli.main import main
>>> folder = tempfile.mkdtemp()
>>> data, out = os.path.join(folder, "days.csv"), os.path.join(folder, "rain.csv")
>>> pd.DataFrame({"Umbrella": ["T", "T", "F"], "Rain": ["T", "T", "F"]}).to_csv(
...     data, index=False)
>>> main(["classify", "models/umbrella.bn", data, "--target", "Rain", "--smooth", "-o", out])
wrote ...rain.csv (3 predictions)
accuracy 1.000000 (3/3)
...
0
>>> pd.read_csv(out).round(3).values.tolist()
[['T', 0.862, 0.138], ['T', 0.799, 0.201], ['F', 0.191, 0.809]]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from bbn.apps.cli.delimited import delimited
from bbn.core.data import read_data
from bbn.core.errors import DataError, ModelError, suggest
from bbn.model.dynamic import DynamicNetwork
from bbn.tasks.classification.decisions import decide, loss_matrix


def add_sequence_arguments(parser: argparse.ArgumentParser) -> None:
    """``--sequence-id``, ``--smooth``, ``--viterbi``: classify over time."""
    parser.add_argument("--sequence-id", metavar="COLUMN",
                        help="the column naming each row's sequence (MODEL: a dynamic "
                        "network); the target at every step is P(X_t | findings up to t)")
    parser.add_argument("--smooth", action="store_true",
                        help="over time: P(X_t | every finding of the sequence) instead")
    parser.add_argument("--viterbi", action="store_true",
                        help="over time: the target's state in the most probable "
                        "explanation of each sequence, and its log-probability")


def over_time(args: argparse.Namespace, model) -> bool:
    """Whether ``bbn classify`` answers over time: a sequence option, or a dynamic model."""
    return bool(args.sequence_id is not None or args.smooth or args.viterbi
                or isinstance(model, DynamicNetwork))


def sequence_predictions(model, args: argparse.Namespace, rule: str):
    """The target's states, and one ``(frame, source, columns, decided)`` for the whole
    file (sequences are read whole): ``columns`` the output's probability columns
    (``P(T=s)``, or ``log_probability`` with ``--viterbi``)."""
    try:
        dbn = (model if isinstance(model, DynamicNetwork)
               else DynamicNetwork.from_two_slice(model))
    except ModelError as error:
        raise DataError(f"{args.model}: classifying over time (--sequence-id, --smooth, "
                        f"--viterbi) needs a dynamic network: {error}") from None
    _refuse(args, rule)
    target = args.target
    if target not in dbn.variables:
        raise DataError(f"--target: no variable {target!r} in the dynamic network"
                        f"{suggest(str(target), dbn.variables)}")
    states = list(dbn.states(target))
    frame, source = read_data(delimited(args.data, args.sep, in_blocks=False))
    findings = frame.drop(columns=[target]) if target in frame.columns else frame
    if args.unseen == "missing":
        findings = _unseen_as_missing(dbn, findings, args.sequence_id)
    if args.viterbi:
        explanation, best = dbn.viterbi(findings, sequence_id=args.sequence_id)
        decided = pd.Index(states).get_indexer(explanation[target])
        scores = (best.reindex(frame[args.sequence_id]).to_numpy() if args.sequence_id
                  else np.full(len(frame), float(best.iloc[0])))
        columns = {"log_probability": scores}
    else:
        question = dbn.smooth if args.smooth else dbn.filter
        posterior = question(findings, variables=[target],
                             sequence_id=args.sequence_id)[target].to_numpy()
        decided = decide(posterior, rule, loss=None if args.loss is None
                         else loss_matrix(args.loss, states))
        columns = {f"P({target}={s})": posterior[:, j] for j, s in enumerate(states)}
    if args.sequence_id:
        columns = {args.sequence_id: frame[args.sequence_id].to_numpy(), **columns}
    return states, iter([(frame, source, columns, decided)])


def _refuse(args: argparse.Namespace, rule: str) -> None:
    """The options that have no meaning over time."""
    if args.smooth and args.viterbi:
        raise DataError("--smooth and --viterbi: choose one (a posterior per step, or the "
                        "most probable explanation)")
    if args.viterbi and (args.loss or args.decision):
        raise DataError("--viterbi decides by the most probable explanation: no --loss or "
                        "--decision with it")
    if rule == "ml":
        raise DataError("--decision ml divides by a prior, which a step of a sequence does "
                        "not have: use map or risk")
    for option, value in (("--chunksize", args.chunksize), ("--discretize", args.discretize)):
        if value:
            raise DataError(f"{option}: not over time (sequences are read whole, their "
                            "findings as states)")


def _unseen_as_missing(dbn: DynamicNetwork, findings: pd.DataFrame,
                       sequence_id: str | None) -> pd.DataFrame:
    """``--unseen missing``: a cell that is no state of its variable becomes missing."""
    findings = findings.copy()
    for column in findings.columns:
        if column != sequence_id and column in dbn.variables:
            values = findings[column]
            known = values.isna() | values.astype(str).isin(dbn.states(column))
            findings[column] = values.where(known)
    return findings


__all__ = ["add_sequence_arguments", "over_time", "sequence_predictions"]

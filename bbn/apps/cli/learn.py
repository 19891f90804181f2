"""``bbn learn STRUCTURE DATA.csv [-o OUT]``: fill a model's tables from data, read a chunk
at a time (or a Parquet file a record batch at a time); ``--missing em`` runs EM.
With ``--sequence-id COLUMN`` (or ``--dynamic``) STRUCTURE is a dynamic network and DATA
holds sequences, one row per step: the 2-TBN's tables are learned, by EM where a variable
has no column or a cell is empty (:func:`bbn.dynamic_em`), and written as its two-slice
network.

>>> from bbn.apps.cli.main import main
>>> main(["learn", "models/tennis.bn", "models/tennis.csv"])
network PlayTennis
...
0
"""

from __future__ import annotations

import argparse
import sys
import warnings

from bbn.apps.cli.delimited import add_sep_argument, delimited
from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import read_model, refuse_overwriting
from bbn.core.errors import DataError
from bbn.core.progress import on_terminal
from bbn.io.formats import dumps, save
from bbn.io.formats.bn.timeslices import load_dynamic
from bbn.tasks.learning.discretisation import discretiser_for
from bbn.tasks.learning.estimators import ESTIMATORS, as_estimator
from bbn.tasks.learning.missing import em
from bbn.tasks.learning.parameters import learn
from bbn.tasks.learning.policies import MISSING_POLICIES
from bbn.tasks.learning.sequence_em import dynamic_em


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("structure", help="model whose structure (and states) to keep; its "
                        "tables, if any, are replaced (e.g. a .bn file declaring no tables)")
    parser.add_argument("data", help="CSV file with a header naming the variables (read in "
                        "chunks, so it may be larger than memory), or a Parquet file")
    parser.add_argument("-o", "--output", help="model file to write (its extension picks the "
                        "format); without it the model is printed in the .bn language")
    parser.add_argument("--estimator", choices=ESTIMATORS, default="mle",
                        help="mle (default), m-estimate (--m, uniform prior), laplace "
                        "(--alpha) or bayes (BDeu, --ess)")
    parser.add_argument("--m", type=float, default=1.0, help="m of the m-estimate (default 1)")
    parser.add_argument("--alpha", type=float, default=1.0,
                        help="λ of Laplace smoothing (default 1)")
    parser.add_argument("--ess", type=float, default=1.0,
                        help="equivalent sample size of the bayes (BDeu) estimator (default 1)")
    parser.add_argument("--missing", choices=MISSING_POLICIES, default="error",
                        help="rows with missing values: refuse (default), drop, or EM")
    parser.add_argument("--max-iter", type=int, default=100, help="EM iteration cap")
    parser.add_argument("--tol", type=float, default=1e-6,
                        help="EM stops when the log-likelihood improves by less than tol·|ℓ|")
    parser.add_argument("--chunksize", type=int, help="rows read at a time (default: from "
                        "the memory limit); the tables do not depend on it")
    add_sep_argument(parser)
    parser.add_argument("--discretize", nargs="?", const=True, metavar="METHOD[:BINS]",
                        help="cut numeric columns into intervals first: alone, at the "
                        "intervals that are the model's states ([4.3, 5.1], (5.1, 5.8]...); "
                        "or fitted by quantile, uniform, kmeans (e.g. quantile:4); the data "
                        "is then read whole")
    parser.add_argument("--sequence-id", metavar="COLUMN",
                        help="STRUCTURE is a dynamic network (P(X | X[-1]), or a two-slice "
                        "network) and DATA holds sequences, one row per step, this column "
                        "naming each row's sequence (its rows contiguous, in time order); "
                        "variables without a column and empty cells are learned by EM "
                        "(--missing does not apply)")
    parser.add_argument("--dynamic", action="store_true",
                        help="STRUCTURE is a dynamic network and DATA one sequence (implied "
                        "by --sequence-id)")


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, data=args.data)  # the model may be updated in place
    if args.sequence_id is not None or args.dynamic:
        return _run_dynamic(args)
    net = read_model(args, args.structure)
    estimator = as_estimator(args.estimator, m=args.m, alpha=args.alpha, ess=args.ess)
    data = delimited(args.data, args.sep, args.chunksize, in_blocks=not args.discretize)
    if args.discretize:
        data = discretiser_for(args.discretize, data, states=net).transform(data)

    def fit(progress):
        if args.missing == "em":
            return em(net, data, estimator, tol=args.tol, max_iter=args.max_iter,
                      chunksize=args.chunksize, progress=progress)
        return learn(net, data, estimator, missing=args.missing, chunksize=args.chunksize,
                     progress=progress)

    result, caught = _watched(fit)
    learned = result.network if args.missing == "em" else result
    _tell(args, learned, result if args.missing == "em" else None, caught,
          f"{len(learned.variables)} tables learned with {args.estimator}")
    return EXIT_OK


def _run_dynamic(args: argparse.Namespace) -> int:
    """A 2-TBN's tables from the sequences of DATA (read in chunks), its two-slice
    network written."""
    if args.discretize:
        raise DataError("--discretize does not work with sequences yet: cut the columns "
                        "first (bbn.discretize)")
    dbn = load_dynamic(args.structure, normalize=args.normalize)
    estimator = as_estimator(args.estimator, m=args.m, alpha=args.alpha, ess=args.ess)
    data = delimited(args.data, args.sep, args.chunksize)
    result, caught = _watched(lambda progress: dynamic_em(
        dbn, data, estimator, sequence_id=args.sequence_id, tol=args.tol,
        max_iter=args.max_iter, chunksize=args.chunksize, progress=progress))
    _tell(args, result.network.two_slice(), result, caught,
          f"the two-slice network of {len(dbn.variables)} variables, learned with "
          f"{args.estimator}")
    return EXIT_OK


def _watched(fit):
    """``fit(progress)`` with a bar on a terminal (else silent), its warnings caught."""
    progress = on_terminal("bbn learn: ")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fit(progress), caught
        finally:
            if progress is not None:
                progress.close()


def _tell(args: argparse.Namespace, learned, result, caught, what: str) -> None:
    """EM's summary and the warnings on stderr; the model printed or written."""
    if result is not None:
        state = "converged" if result.converged else "stopped at the iteration cap"
        print(f"EM: {result.iterations} iteration(s), {state}, log-likelihood "
              f"{result.log_likelihood[-1]:.6f}", file=sys.stderr)
    for warning in caught:
        print(f"bbn learn: warning: {warning.message}", file=sys.stderr)
    if args.output is None:
        print(dumps(learned), end="")
    else:
        save(learned, args.output)
        print(f"wrote {args.output} ({what})")


__all__ = ["add_arguments", "run"]

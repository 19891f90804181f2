"""``bbn structure DATA.csv [-o OUT]``: learn a network's structure and tables from data.

The method, score and test are checked by :func:`bbn.learn_structure` (with close
matches), so this module needs no list of them.

The tiers file gives one tier per line, earliest first, names separated by commas or
spaces; ``#`` starts a comment, blank lines are skipped:

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tiers.txt")
>>> with open(path, "w") as file:
...     _ = file.write("# causes first\\nasia, smoke\\ntub lung bronc  # diseases\\n\\n"
...                    "xray dysp\\n")
>>> read_tiers(path)
[['asia', 'smoke'], ['tub', 'lung', 'bronc'], ['xray', 'dysp']]
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import warnings
from collections.abc import Sequence

from bbn.apps.cli.advice import cli_advice
from bbn.apps.cli.delimited import add_sep_argument, delimited, whole_header
from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import read_model, refuse_overwriting
from bbn.core.errors import DataError, suggest
from bbn.core.progress import on_terminal
from bbn.io.formats import dumps, save
from bbn.tasks.learning.estimators import ESTIMATORS, as_estimator
from bbn.tasks.structure import learn_structure, structure_score


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file with a header naming the variables")
    parser.add_argument("-o", "--output", help="model file to write (its extension picks the "
                        "format); without it the model is printed in the .bn language")
    parser.add_argument("--method", help="the search (default: bbn's default method; see "
                        "docs/structure.md); tan needs --target")
    parser.add_argument("--score", default="bic",
                        help="bic (default), aic, loglik, k2 or bdeu (with --ess)")
    parser.add_argument("--require", action="append", default=[], metavar='"A->B"',
                        help="an arc every result has (repeat for more)")
    parser.add_argument("--forbid", action="append", default=[], metavar='"A->B"',
                        help="an arc no result has (repeat for more)")
    parser.add_argument("--tiers", metavar="FILE", help="one tier per line, earliest first, "
                        "names separated by commas or spaces, # comments: no arc from a "
                        "later tier to an earlier one")
    parser.add_argument("--max-parents", type=int, metavar="K",
                        help="the most parents of any variable")
    parser.add_argument("--start", metavar="MODEL", help="a network to start the search from "
                        "(its structure; a structure-only .bn works)")
    parser.add_argument("--target", metavar="C", help="the class variable (method tan)")
    parser.add_argument("--root", help="the variable a tree points away from (tree, tan)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="the level of the independence tests (default 0.05)")
    parser.add_argument("--test", default="g2", help="the independence test: g2 (default) "
                        "or chi2")
    parser.add_argument("--max-condition", type=int, metavar="N",
                        help="pc: the most variables an independence test conditions on")
    parser.add_argument("--pc-start", choices=("auto", "yes", "no"), default="auto",
                        help="hybrid: climb from PC's answer on the skeleton too, beside the "
                        "empty graph (auto, the default: from 5,000 rows on)")
    parser.add_argument("--missing", choices=("error", "drop"), default="error",
                        help="a missing value is an error (default), or each family is "
                        "counted on the rows that have its values (drop)")
    parser.add_argument("--seed", type=int, default=0, help="seeds a search's random choices")
    add_sep_argument(parser)
    parser.add_argument("--discretize", metavar="METHOD[:BINS]",
                        help="cut numeric columns into intervals first: quantile, uniform, "
                        "kmeans or mdlp (with --target), e.g. quantile:4 (default 5 bins)")
    parser.add_argument("--estimator", choices=ESTIMATORS, default="mle",
                        help="how the tables are learned: mle (default), m-estimate (--m), "
                        "laplace (--lambda) or bayes (BDeu, --ess)")
    parser.add_argument("--m", type=float, default=1.0, help="m of the m-estimate (default 1)")
    parser.add_argument("--lambda", dest="laplace", type=float, default=1.0, metavar="LAMBDA",
                        help="λ of Laplace smoothing (default 1; bbn learn's --alpha)")
    parser.add_argument("--ess", type=float, default=1.0, help="equivalent sample size of "
                        "the bdeu score and of the bayes estimator (default 1)")


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, data=args.data, tiers=args.tiers)
    estimator = as_estimator(args.estimator, m=args.m, alpha=args.laplace, ess=args.ess)
    data = delimited(args.data, args.sep, in_blocks=False)
    header = _header(args.data) if args.sep == "," else whole_header(args.data, args.sep)
    tiers = None if args.tiers is None else read_tiers(args.tiers, header)
    start = None if args.start is None else read_model(args, args.start)
    options = {name: value for name, value in (("root", args.root),
                                                ("max_condition", args.max_condition))
               if value is not None}  # method options: passed only when given
    if args.pc_start != "auto":
        options["pc_start"] = args.pc_start == "yes"
    if args.method is not None:
        options["method"] = args.method
    progress = on_terminal("bbn structure: ")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            learned = learn_structure(
                data, score=args.score, estimator=estimator, required=args.require,
                forbidden=args.forbid, tiers=tiers, max_parents=args.max_parents,
                start=start, target=args.target, missing=args.missing, ess=args.ess,
                alpha=args.alpha, test=args.test, seed=args.seed, progress=progress,
                discretize=args.discretize, **options)
        finally:
            if progress is not None:
                progress.close()
    for warning in caught:
        print(f"bbn structure: warning: {cli_advice(str(warning.message), ('--discretize',))}",
              file=sys.stderr)
    summary = sys.stdout
    if args.output is None:
        print(dumps(learned), end="")
        summary = sys.stderr
    else:
        save(learned, args.output)  # written whole or not at all (a renamed temp file)
        print(f"wrote {args.output}", file=summary)
    score = learned.score_
    if score is None and args.missing == "error":  # a method without a score: the summary's
        if learned.discretiser_ is not None:
            data = learned.discretiser_.transform(data)
        score = structure_score(learned, data, args.score, ess=args.ess)
    for line in summary_lines(learned, args.score, score):
        print(line, file=summary)
    return EXIT_OK


def summary_lines(learned, score: str, value: float | None) -> list[str]:
    """What the command prints about a learned network: method and score, its arcs, and
    the edges whose direction the data leave open.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> rows = pd.DataFrame({"A": list("TTFF"), "B": list("TTFF"), "C": list("TFTF")})
    >>> net = bbn.learn_structure(rows, method="tree")
    >>> bic = bbn.structure_score(net, rows, "bic")    # 4 ln ½ + 4 ln ½ − (ln 4 / 2) · 5
    >>> print("\\n".join(summary_lines(net, "bic", bic)))
    method tree: 3 variables, 2 arcs, bic score -9.01091
    arcs: A->B, A->C
    undirected edges: none
    """
    head = (f"method {learned.method_}: {len(learned.variables)} variables, "
            f"{len(learned.arcs())} arcs")
    if value is not None:
        head += f", {score} score {value:.6g}"
    arcs = ", ".join(f"{p}->{c}" for p, c in learned.arcs()) or "none"
    undirected = ", ".join(f"{a}-{b}" for a, b in learned.undirected_edges_) or "none"
    return [head, f"arcs: {arcs}", f"undirected edges: {undirected}"]


def read_tiers(path: str, columns: Sequence[str] | None = None) -> list[list[str]]:
    """The tiers of a tiers file, earliest first (format in the module docstring).

    Parameters
    ----------
    path : str
        The file.
    columns : sequence of str, optional
        The data's variables: a name that is none of them is an error at its line.

    Returns
    -------
    list of list of str

    Raises
    ------
    DataError
        ``FILE:LINE:`` located, for a name that is no column (with close matches), a name
        given twice, or a file without any tier.
    OSError
        For a file that cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiers.txt")
    >>> with open(path, "w") as file:
    ...     _ = file.write("A B\\nC, A\\n")
    >>> read_tiers(path)
    Traceback (most recent call last):
        ...
    bbn.core.errors.DataError: ...tiers.txt:2: 'A' is in two tiers (lines 1 and 2)
    """
    tiers: list[list[str]] = []
    line_of: dict[str, int] = {}
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            names = [n for n in re.split(r"[,\s]+", line.split("#", 1)[0]) if n]
            for name in names:
                if columns is not None and name not in columns:
                    raise DataError(f"{path}:{number}: {name!r} is no column of the data"
                                    f"{suggest(name, columns)}")
                if name in line_of:
                    raise DataError(f"{path}:{number}: {name!r} is in two tiers (lines "
                                    f"{line_of[name]} and {number})")
                line_of[name] = number
            if names:
                tiers.append(names)
    if not tiers:
        raise DataError(f"{path}: no tiers (one tier per line, names separated by commas or "
                        "spaces)")
    return tiers


def _header(path: str) -> list[str] | None:
    """The column names of a CSV file's first line (None if it has none to read: the
    data's own reading reports that)."""
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return next(csv.reader(file), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


__all__ = ["add_arguments", "read_tiers", "run", "summary_lines"]

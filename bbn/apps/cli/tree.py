"""``bbn tree DATA.csv --target COL``: grow a decision tree, print it and its training
accuracy; ``-o`` writes its picture (``.svg``, ``.png``, ``.pdf``, ``.dot``) or the tree
itself (``.json``, for ``bbn classify``).

Columns whose cells are all numbers (missing cells aside) are continuous features, the
others categorical; ``--categorical`` keeps named number columns categorical.

>>> from bbn.apps.cli.main import main
>>> main(["tree", "models/tennis.csv", "--target", "play"])
outlook = overcast: yes ...
...
0
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.delimited import add_sep_argument, delimited
from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import refuse_overwriting
from bbn.apps.cli.saved_tree import is_tree_file
from bbn.apps.rendering import render
from bbn.core.data import absent_cells, location, read_data
from bbn.core.errors import DataError, suggest
from bbn.tasks.learning.policies import TREE_MISSING_POLICIES
from bbn.tasks.trees import DecisionTree
from bbn.tasks.trees.criteria import CRITERIA
from bbn.tasks.trees.features import typed_columns
from bbn.tasks.trees.pruning import PRUNINGS
from bbn.tasks.trees.splitting import SPLITS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file with a header; empty cells are missing")
    parser.add_argument("--target", required=True, help="the column to predict")
    parser.add_argument("--criterion", choices=CRITERIA, default="entropy",
                        help="information gain (default), gain ratio or Gini index")
    parser.add_argument("--split", choices=SPLITS, default="multiway",
                        help="categorical columns: one branch per value (default) or two "
                             "groups of values")
    parser.add_argument("--max-depth", type=int, help="deepest level of a node (root: 0)")
    parser.add_argument("--min-samples-split", type=int, default=2,
                        help="nodes with fewer rows are leaves (default 2)")
    parser.add_argument("--min-gain", type=float, default=0.0,
                        help="smallest gain of a split (default 0)")
    parser.add_argument("--prune", choices=PRUNINGS,
                        help="post-pruning: e(T) + N×k on the training rows, or errors on "
                             "held-out rows")
    parser.add_argument("--penalty", type=float, default=0.5,
                        help="k, the cost of a leaf for --prune pessimistic (default 0.5)")
    parser.add_argument("--validation-fraction", type=float, default=0.25,
                        help="rows held out for --prune validation (default 0.25)")
    parser.add_argument("--seed", type=int, help="seeds the held-out rows")
    add_sep_argument(parser)
    parser.add_argument("--missing", choices=TREE_MISSING_POLICIES, default="error",
                        help="a missing value: an error (default), or the row stops at the "
                             "node testing it")
    parser.add_argument("--categorical", default="",
                        help="comma-separated number columns to treat as categories")
    parser.add_argument("-o", "--output", action="append", default=[],
                        help="a picture (.svg, .png, .pdf, .dot) or the tree (.json) to "
                             "write; repeatable")


def run(args: argparse.Namespace) -> int:
    for path in args.output:
        refuse_overwriting(path, data=args.data)
    frame, source = read_data(delimited(args.data, args.sep, in_blocks=False))
    if args.target not in frame.columns:
        raise DataError(f"{source}: no column {args.target!r} to predict"
                        f"{suggest(args.target, map(str, frame.columns))}")
    keep = [c.strip() for c in args.categorical.split(",") if c.strip()]
    unknown = [c for c in keep if c not in frame.columns]
    if unknown:
        raise DataError(f"--categorical names {unknown[0]!r}, which {source} does not have"
                        f"{suggest(unknown[0], map(str, frame.columns))}")
    labels = frame[args.target]
    missing = absent_cells(labels)  # blank cells only: a label 'NA' is a class
    if missing.any():
        where = location(source, int(missing.argmax()))
        raise DataError(f"{source}: column {args.target!r}, {where}: the target is missing "
                        "(a tree learns from labelled rows only)")
    X = typed_columns(frame.drop(columns=[args.target]), keep)
    tree = DecisionTree(criterion=args.criterion, split=args.split, max_depth=args.max_depth,
                        min_samples_split=args.min_samples_split, min_gain=args.min_gain,
                        pruning=args.prune, penalty=args.penalty,
                        validation_fraction=args.validation_fraction, random_state=args.seed,
                        missing=args.missing).fit(X, labels)
    print(tree.to_text())
    right = int((tree.predict(X) == labels.to_numpy()).sum())
    print(f"\n{tree.get_n_leaves()} leaves, depth {tree.get_depth()}; training accuracy "
          f"{right / len(labels):.6f} ({right}/{len(labels)})")
    for path in args.output:
        if is_tree_file(path):
            tree.save(path)
        else:
            render(tree, path)
        print(f"wrote {path}")
    return EXIT_OK


__all__ = ["add_arguments", "run"]

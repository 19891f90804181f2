"""A decision tree saved by ``bbn tree -o tree.json``, as ``bbn classify`` reads it: which
paths name one (by extension), and its posteriors P(class | row) for rows of a CSV file.

Apart from :mod:`bbn.apps.cli.tree`, so that ``bbn classify`` does not load Graphviz.
"""

from __future__ import annotations

import os

from bbn.core.errors import DataError
from bbn.tasks.trees import load_tree
from bbn.tasks.trees.features import typed_columns

#: Extensions of a saved tree (the others name a picture).
TREE_EXTENSIONS = (".json", ".json.gz")


def is_tree_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a saved tree (by its extension), for ``bbn classify``.

    >>> is_tree_file("play.json"), is_tree_file("play.bn")
    (True, False)
    """
    return str(path).lower().endswith(TREE_EXTENSIONS)


def tree_posteriors(path: str | os.PathLike, frame, target: str):
    """The classes of the tree saved at ``path`` and P(class | row) for every row of
    ``frame`` (its other columns typed as by ``bbn tree``), for ``bbn classify``.

    Parameters
    ----------
    path : str or os.PathLike
        The saved tree.
    frame : pandas.DataFrame
        The rows, read as text.
    target : str
        Must be the tree's class.

    Returns
    -------
    (list of str, numpy.ndarray)

    Raises
    ------
    DataError
        Another target, or rows the tree cannot read.
    """
    tree = load_tree(path)
    if target != tree.class_name_:
        raise DataError(f"{path}: the tree predicts {tree.class_name_!r}, not {target!r}")
    features = [c for c in frame.columns if c != target]
    named = tree.feature_space_.names
    keep = [n for n, k in zip(named, tree.feature_space_.kinds, strict=True)
            if k == "categorical"]
    X = typed_columns(frame[features], [c for c in keep if c in features])
    return [str(c) for c in tree.classes_], tree.predict_proba(X)


__all__ = ["TREE_EXTENSIONS", "is_tree_file", "tree_posteriors"]

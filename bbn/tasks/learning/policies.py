"""What to do with imperfect data: the named policies that the library and the command
line (``bbn learn --missing``, ``bbn classify --unseen``) both offer, kept in one place.
Light: the command line imports this module at start-up.

>>> MISSING_POLICIES
('error', 'drop', 'em')
"""

from __future__ import annotations

from bbn.core.errors import DataError, suggest

#: Learning from rows with missing values: refuse them, drop them, or run EM.
MISSING_POLICIES = ("error", "drop", "em")
#: Classifying a value that is no state of its variable: refuse it, or skip it as missing.
UNSEEN_POLICIES = ("error", "ignore")
#: A decision tree meeting a missing value: refuse it, or stop the row at the node that
#: tests the column (bbn.DecisionTree(missing=...), bbn tree --missing).
TREE_MISSING_POLICIES = ("error", "stop")


def check_unseen(unseen: str) -> None:
    """DataError unless ``unseen`` is one of UNSEEN_POLICIES.

    >>> check_unseen("skip")
    Traceback (most recent call last):
    ...
    bbn.core.errors.DataError: unseen must be 'error' or 'ignore', got 'skip'
    """
    if unseen not in UNSEEN_POLICIES:
        raise DataError(f"unseen must be 'error' or 'ignore', got {unseen!r}"
                        f"{suggest(str(unseen), UNSEEN_POLICIES)}")

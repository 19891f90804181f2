"""What to do with imperfect data: the named policies that the library and the command
line (``bbn learn --missing``, ``bbn classify --unseen``) both offer, kept in one place.
Only constants: the command line imports this module at start-up.

>>> MISSING_POLICIES
('error', 'drop', 'em')
"""

from __future__ import annotations

#: Learning from rows with missing values: refuse them, drop them, or run EM.
MISSING_POLICIES = ("error", "drop", "em")
#: Classifying a value that is no state of its variable: refuse it, or skip it as missing.
UNSEEN_POLICIES = ("error", "ignore")

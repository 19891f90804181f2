"""The pyparsing token that lets a reader's fast scanner work inside its grammar.

A grammar that reports errors token by token is slow on a large file; most of a file is
in the common layout, which a regular expression reads a block (a statement, a row) per
match. :func:`run_token` makes a pyparsing token that reads such a run of items with the
fast scanner, so the token-by-token rules only see the part that is not in the common
layout — and say what is wrong where. The ``.bn``, BIF and Hugin grammars use it.

>>> words = run_token(lambda text, loc: (len(text), text[loc:].split()), "words")
>>> words.parse_string("ab cd").as_list()
['ab', 'cd']

pyparsing is imported when the first token is made (``bbn query`` never needs it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyparsing as pp


def run_token(read_at: Callable[[str, int], tuple[int, list]], name: str,
              wrap: Callable[[list], object] = list) -> pp.Token:
    """A token for a run of items that ``read_at(text, loc)`` reads fast, as one token
    ``wrap(items)``. ``read_at`` returns ``(end, items)``, stopping at the first text that
    is not a well-formed item; the token fails when there is none (named ``name`` in the
    grammar's messages), and that text is left to the other rules of the grammar."""
    return _token_class()(read_at, wrap).set_name(name)


@functools.cache
def _token_class() -> type:
    import pyparsing as pp  # here, not at the top: start-up (``bbn query`` reads no grammar)

    class Run(pp.Token):
        def __init__(self, read_at, wrap) -> None:
            super().__init__()
            self.mayReturnEmpty = False
            self.mayIndexError = False
            self.read_at, self.wrap = read_at, wrap

        def parseImpl(self, instring: str, loc: int, do_actions: bool = True):
            end, items = self.read_at(instring, loc)
            if not items:
                raise pp.ParseException(instring, loc, self.errmsg, self)
            return end, self.wrap(items)

    return Run


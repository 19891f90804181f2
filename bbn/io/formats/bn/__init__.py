"""The ``.bn`` model language: a small, hand-writable text format for Bayesian networks.

::

    # The back-ache network
    network "Back ache"
    variable C "the chair is uncomfortable" { T, F }
    variable W "is a worker" { T, F }
    P(C) = 0.8, 0.2
    P(W | C) {
      T: 0.9,  0.1
      F: 0.01, 0.99
    }
    variable weight "kg" gaussian     # continuous: N(mean, variance) per parent state
    P(weight | C) { T: N(70.0, 25.0); F: N(80.0, 36.0) }

The whole grammar, the quoting rules and the error messages are in ``docs/format.md``.
The package holds, each in a module named for it:

- ``lexicon``: the lexical pieces (names, numbers, comments, quoting);
- ``statements``: the parsed statements and the fast scanner, which takes each
  well-formed statement in one regular-expression match;
- ``grammar``: the pyparsing grammar, which the first statement that is not well formed
  sends the file to, and which says what is wrong where;
- ``building``: the network from the statements, at once or with located mistakes;
- ``writing``: the text of a network, which ``read`` turns back into an equal network
  (``write_dynamic``: a dynamic network's, in the form ``lagged`` reads);
- ``lagged``: a dynamic network's statements (``P(Rain | Rain[-1])``) rewritten into
  those of its two slices (``timeslices``: ``read_dynamic``, ``load_dynamic``).

>>> net = read('variable R { yes, no }  P(R) = 0.2, 0.8', "<doc>")
>>> net.states("R"), net.cpt_array("R").tolist()
(('yes', 'no'), [0.2, 0.8])
>>> read(write(net), "<doc>") == net
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bbn.io.formats.bn.lagged as lagged
from bbn.core.errors import ParseErrors
from bbn.core.lazy import reference
from bbn.io.formats._text import error_at, fast_or_located, plain_line_ends
from bbn.io.formats.bn import grammar
from bbn.io.formats.bn.building import LocatedBuilder, Problems, fast_network
from bbn.io.formats.bn.lexicon import blank_comments, quote
from bbn.io.formats.bn.statements import WS_RE, Problem, statements_at
from bbn.io.formats.bn.writing import write, write_dynamic
from bbn.model.network import Network

if TYPE_CHECKING:
    from bbn.model.dynamic import DynamicNetwork

__all__ = ["quote", "read", "write", "write_dynamic"]


def read(text: str, source: str = "<string>", normalize: bool = False,
         rewrite=None) -> Network | DynamicNetwork:
    """Parse a ``.bn`` model; errors raise :class:`bbn.ParseError` at ``source:line:col``.
    ``normalize`` rescales every row of every table to sum 1.

    A syntax error stops the reader; mistakes of meaning (unknown names, bad rows...) are
    collected, and several of them raise :class:`ParseErrors`, which lists them all.

    A file without a ``network`` statement is named after the file (``chair.bn`` →
    ``chair``). A text in the dynamic form (a parent in the slice before,
    ``P(Rain | Rain[-1])``, or a slice-0 table ``P(Rain[0])``) gives a
    :class:`bbn.DynamicNetwork` (:mod:`bbn.io.formats.bn.lagged`). ``rewrite``, if given,
    turns the statements read into the statements built instead.

    Parameters, result and errors are those of :func:`bbn.io.formats.loads` (the
    reader behind it for this format).

    Examples
    --------
    >>> read("variable C { T, F }  P(C) = 0.5, -0.5", "chair.bn")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: chair.bn:1:34: -0.5 in P(C) is negative...
    >>> read("variable C { T, F }  P(C) = 0.5, 0.5", "chair.bn").name
    'chair'
    >>> type(read("variable C { T, F }  P(C[0]) = 0.5, 0.5  P(C | C[-1]) = 1, 0, 0, 1")).__name__
    'DynamicNetwork'
    """
    text = plain_line_ends(text.removeprefix("\ufeff"))
    blanked = blank_comments(text)
    try:
        end, statements = statements_at(blanked, WS_RE.match(blanked).end())
        if end < len(blanked):  # not every statement well formed: the grammar says where
            statements = grammar.parse(blanked)
        dynamic = rewrite is None and lagged.is_dynamic(statements)
        if dynamic:
            rewrite = lagged.two_slice_statements
        if rewrite is not None:
            statements = rewrite(statements)
        # on a mistake, build step by step, collecting every mistake
        net = fast_or_located(
            lambda: fast_network(statements, LocatedBuilder(text, source, normalize)),
            lambda: LocatedBuilder(text, source, normalize).build(statements))
        if dynamic:  # loaded late: the dynamic model brings pandas
            return reference("bbn.model.dynamic:DynamicNetwork").from_two_slice(net)
        return net
    except grammar.errors() as error:
        raise grammar.syntax_error(error, text, blanked, source) from None
    except Problem as problem:
        raise error_at(text, source, problem.loc, problem.message) from None
    except Problems as found:
        errors = [error_at(text, source, p.loc, p.message) for p in found.problems]
        refused = errors[0] if len(errors) == 1 else ParseErrors(errors, found.dropped)
        # what a refused file also lacks (bbn check reports it; loading alone is no mistake)
        refused.untabled = [error_at(text, source, p.loc, p.message) for p in found.untabled]
        raise refused from None

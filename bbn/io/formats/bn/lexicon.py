"""The lexical pieces of the ``.bn`` language: names (bare or quoted), numbers, row keys,
``N(mean, variance)``, comments, and the quoting that writes a name back.

The same regular expressions serve the fast scanner (:mod:`bbn.io.formats.bn.statements`)
and the pyparsing grammar (:mod:`bbn.io.formats.bn.grammar`), so the two accept exactly the
same language. Comments are blanked out before parsing (see :func:`blank_comments`), so
they are whitespace in every other piece.

>>> quote("Lung Parench"), bool(NUMBER_RE.fullmatch("1e-5"))
('"Lung Parench"', True)
"""

from __future__ import annotations

import re

from bbn.io.formats import _text

# ----------------------------------------------------------------- lexical pieces
# The same regular expressions serve the pyparsing grammar and the fast scanners of table
# bodies, so the two accept exactly the same language. Comments are blanked out before
# parsing (see blank_comments), so they are whitespace here.

WS = r"[ \t\r\n]*"
QUOTED = r'"(?:[^"\\\n]|\\.)*"'
#: an unquoted name or state: letters (any script), digits and _ . + -
PLAIN = r"[\w.+\-]+(?:\[-?[0-9]+\])?"  # Rain[-1], Rain[0]: a variable in a slice
NAME = f"(?:{QUOTED}|{PLAIN})"
#: a number must not run into a name character: "0.5x" is an error, not 0.5 then x
NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?![\w.+\-])"
NUMBERS = f"{NUMBER}(?:{WS},{WS}{NUMBER})*"
KEY = f"{NAME}(?:{WS},{WS}{NAME})*"


#: a Gaussian's mean, linear in its continuous parents: ``1.5 + 2.0*x - 0.3*"y 2"``
LINEAR = f"{NUMBER}(?:{WS}[+-]{WS}{NUMBER}{WS}\\*{WS}{NAME})*"


def normal(group: str) -> str:
    """N(mean, variance) in group ``group``: a Gaussian's parameters (the mean may be
    linear in continuous parents, :data:`LINEAR`)."""
    return f"N{WS}\\({WS}(?P<{group}>{LINEAR}{WS},{WS}{NUMBER}){WS}\\)"


#: a row whose numbers end in a stray ',' is left to the token grammar, to report it
ROW = (f"(?P<key>{KEY}){WS}:{WS}(?:(?P<numbers>{NUMBERS})|{normal('normal')})"
        f"(?!{WS},){WS}(?:;{WS})?")

PLAIN_RE = re.compile(PLAIN)
QUOTED_RE = re.compile(QUOTED)
NAME_RE = re.compile(NAME)
NUMBER_RE = re.compile(NUMBER)
SEPARATOR_RE = re.compile(f"{WS},{WS}")
ROW_RE = re.compile(ROW)
NORMAL_RE = re.compile(normal("inside"))
_QUOTED_OR_COMMENT_RE = re.compile(f"{QUOTED}|#[^\n]*")

UNESCAPE = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
_ESCAPE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_NEEDS_ESCAPE_RE = re.compile(r'["\\\n\t\r]')


def quote(name: str) -> str:
    """``name`` as written in a ``.bn`` file: bare when it is a plain name, else quoted.

    >>> quote("Smoker"), quote("12+"), quote("Lung Parench"), quote('say "hi"')
    ('Smoker', '12+', '"Lung Parench"', '"say \\\\"hi\\\\""')
    """
    if PLAIN_RE.fullmatch(name):
        return name
    return '"' + _NEEDS_ESCAPE_RE.sub(lambda m: _ESCAPE[m.group()], name) + '"'


def quote_description(description: str | None) -> str:
    """A description in quotes (always quoted, so it is never taken for a name)."""
    if description is None:
        return ""
    return '"' + _NEEDS_ESCAPE_RE.sub(lambda m: _ESCAPE[m.group()], description) + '"'


def blank_comments(text: str) -> str:
    """``text`` with each comment (``#`` to the end of the line, outside quotes) replaced
    by as many spaces: positions stay the same, and the grammar need not look for comments
    before every token (which took half the parsing time)."""
    if "#" not in text:
        return text
    return _text.blank_comments(text, _QUOTED_OR_COMMENT_RE)

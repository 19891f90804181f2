"""The exceptions bbn raises.

Every error a user can cause derives from :class:`BBNError`, so a program (and the
command line) can catch them all in one place. Each message names what is wrong — the
file, line and column, or the variable and state — and, where one exists, a suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable

#: characters of an offending line (or data cell) an error quotes at most
QUOTE_LIMIT = 200
#: characters of an error's message at most (a message quoting file content stays short)
MESSAGE_LIMIT = 1000


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with " ... " in the middle, for quoting.

    Parameters
    ----------
    text : str
        What an error quotes (a line of a file, a data cell).
    limit : int
        Characters kept at most, the " ... " included.

    Returns
    -------
    str
        ``text`` itself when it is short enough.

    Examples
    --------
    >>> clip("abcdefghij", 7), clip("abc", 7)
    ('a ... j', 'abc')
    """
    if len(text) <= limit:
        return text
    keep = max(limit - 5, 2)
    return text[:keep - keep // 2] + " ... " + text[len(text) - keep // 2:]


def _excerpt(line: str, column: int | None) -> tuple[str, int | None]:
    """At most QUOTE_LIMIT characters of ``line`` around ``column`` (1-based), with "..."
    where it is cut, and the column in the excerpt; characters that would not show as one
    column (controls, line separators such as \\x0c, \\x85, \\u2028) as U+FFFD."""
    if len(line) > QUOTE_LIMIT:
        at = min(max(column or 1, 1), len(line) + 1)
        start = max(0, min(at - 1 - QUOTE_LIMIT // 2, len(line) - QUOTE_LIMIT))
        end = start + QUOTE_LIMIT
        head, tail = ("..." if start else ""), ("..." if end < len(line) else "")
        line = head + line[start:end] + tail
        column = None if column is None else at - start + len(head)
    line = "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in line)
    return line, column


class BBNError(Exception):
    """Base class of every error bbn raises on bad input.

    Examples
    --------
    >>> import bbn
    >>> try:
    ...     bbn.loads("variable C { T, F")
    ... except bbn.BBNError as error:               # every bbn error, in one place
    ...     print(type(error).__name__)
    ParseError
    """


class ModelError(BBNError, ValueError):
    """A network that is not a valid Bayesian network (cycle, bad table, unknown parent...).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"], table=[0.5, 0.6])
    Traceback (most recent call last):
        ...
    bbn.core.errors.ModelError: ...A...sums to 1.1...
    """


class ParseError(BBNError, ValueError):
    """A model file or query that does not follow its grammar.

    ``str(error)`` reads ``file:line:col: message``, then the offending line with a caret
    under the column; the parts are kept as attributes.

    Parameters
    ----------
    message : str
        What is wrong (cut to 1000 characters).
    source : str, optional
        The file's name (or ``<string>``, ``<query>``).
    line, column : int, optional
        1-based position of the mistake.
    text : str, optional
        The offending line, quoted (at most 200 characters around ``column``).

    Examples
    --------
    >>> error = ParseError("expected ',' or '}'", "chair.bn", 2, 12, "variable C { T F }")
    >>> print(error)
    chair.bn:2:12: expected ',' or '}'
        variable C { T F }
                   ^
    >>> error.line, error.column
    (2, 12)
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 column: int | None = None, text: str | None = None):
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.text = text
        where = ":".join(str(part) for part in (source, line, column) if part is not None)
        message = clip(message, MESSAGE_LIMIT)
        full = f"{where}: {message}" if where else message
        if text is not None and line is not None:
            shown, at = _excerpt(text, column)
            full += f"\n    {shown}"
            if at is not None:
                full += "\n    " + " " * (at - 1) + "^"
        super().__init__(full)


class ParseErrors(ParseError):
    """Several mistakes in one file. It reads as the first (``line``, ``column``,
    ``message``...), ``errors`` holds each as a :class:`ParseError`, and ``str()`` shows
    them all, one after the other.

    Parameters
    ----------
    errors : list of ParseError
        The mistakes, in file order (at least one).
    dropped : int
        How many more were found and not kept (reported as "... and N more").

    Examples
    --------
    >>> both = ParseErrors([ParseError("first", "m.bn", 1, 1), ParseError("second", "m.bn", 4, 2)],
    ...                    dropped=3)
    >>> both.line, len(both.errors)
    (1, 2)
    >>> print(both)
    m.bn:1:1: first
    m.bn:4:2: second
    ... and 3 more problem(s)
    """

    def __init__(self, errors: list[ParseError], dropped: int = 0):
        first = errors[0]
        super().__init__(first.message, first.source, first.line, first.column, first.text)
        self.errors = errors
        more = [f"... and {dropped} more problem(s)"] if dropped else []
        self.args = ("\n".join([str(e) for e in errors] + more),)


class QueryError(BBNError, ValueError):
    """A query that names an unknown variable or state, or is otherwise ill-formed.

    Examples
    --------
    >>> import bbn
    >>> bbn.load("models/chair.bn").query("P(Chair | A=T)")
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: ...'Chair'... (did you mean 'C'?)
    """


class ImpossibleEvidenceError(BBNError, ValueError):
    """The evidence has probability zero, so no posterior given it is defined.

    Parameters
    ----------
    evidence : dict
        The offending assignment, kept as ``.evidence``.
    message : str, optional
        The message; by default it names the evidence.

    Examples
    --------
    >>> error = ImpossibleEvidenceError({"A": "T", "S": "F"})
    >>> print(error)
    impossible evidence: P(A=T, S=F) = 0 under this model, so the conditional ...
    >>> error.evidence
    {'A': 'T', 'S': 'F'}
    """

    def __init__(self, evidence: dict, message: str | None = None):
        self.evidence = dict(evidence)
        if message is None:
            shown = ", ".join(f"{k}={v}" for k, v in self.evidence.items())
            message = (f"impossible evidence: P({shown}) = 0 under this model, "
                       "so the conditional probability is undefined")
        super().__init__(message)

    @classmethod
    def in_row(cls, evidence: dict, row: str) -> ImpossibleEvidenceError:
        """The error for one row of a batch.

        Parameters
        ----------
        evidence : dict
            The row's evidence.
        row : str
            The row's label, as shown.

        Returns
        -------
        ImpossibleEvidenceError

        Examples
        --------
        >>> print(ImpossibleEvidenceError.in_row({"A": "T"}, "7"))
        impossible evidence in row 7: A=T has probability 0 under this model
        """
        shown = ", ".join(f"{k}={v}" for k, v in evidence.items())
        return cls(evidence, f"impossible evidence in row {row}: {shown} has probability 0 "
                             "under this model")


class MemoryLimitError(BBNError, MemoryError):
    """Exact inference would need a table larger than the configured memory limit.

    Raised before allocating; the message gives the size needed and a hint.

    Examples
    --------
    >>> from bbn.core.memory import check_allocation
    >>> check_allocation(2 ** 40, "the table of X")
    Traceback (most recent call last):
        ...
    bbn.core.errors.MemoryLimitError: the table of X needs 8.0 TiB, above the memory limit ...
    """


class DataError(BBNError, ValueError):
    """Training or classification data that does not match the network.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.load("models/chair.bn")
    >>> bbn.learn(net, pd.DataFrame({"C": ["T", "F"]}))
    Traceback (most recent call last):
        ...
    bbn.core.errors.DataError: ...no column for variable 'S'...
    """


class FormatError(BBNError, ValueError):
    """A network that a format cannot express, or a file of an unknown format.

    Examples
    --------
    >>> import bbn
    >>> try:
    ...     bbn.load("model.xyz")
    ... except bbn.FormatError as error:
    ...     print(type(error).__name__, isinstance(error, bbn.BBNError))
    FormatError True
    """


class NotFittedError(BBNError, ValueError, AttributeError):
    """A classifier asked to predict (or describe its model) before ``fit``.

    Also an ``AttributeError``, as scikit-learn's own ``NotFittedError`` is, so its
    tools (``check_is_fitted``, ``hasattr``-style probes) read it the same way.

    Examples
    --------
    >>> import bbn
    >>> hasattr(bbn.NaiveBayes(), "classes_")
    False
    """


def suggest(name: str, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest matches of ``name``, or ``""``.

    Close spellings come first (difflib, case-insensitive), then the choices that are a
    prefix of ``name`` or that ``name`` begins: difflib's ratio misses ``Chair`` → ``C``
    (2·1/6 = 0.33 < 0.6), which a reader means all the same. At most three are named.

    Parameters
    ----------
    name : str
        What the user wrote.
    choices : iterable of str
        What exists (variables, states, commands, options).

    Returns
    -------
    str
        To append to an error message; ``""`` when nothing is close.

    Examples
    --------
    >>> suggest("Smoker", ["smoke", "either"])
    " (did you mean 'smoke'?)"
    >>> suggest("Chair", ["C", "S", "A"]), suggest("sp", ["sport", "smoke"])
    (" (did you mean 'C'?)", " (did you mean 'sport'?)")
    >>> suggest("qurey", ["query", "info"]), suggest("xyz", ["C"])
    (" (did you mean 'query'?)", '')
    """
    import difflib  # only when there is a mistake to name: not on every command's start

    lowered: dict[str, str] = {}
    for choice in map(str, choices):
        lowered.setdefault(choice.lower(), choice)
    key = name.lower()
    matches = difflib.get_close_matches(key, list(lowered), n=3, cutoff=0.6)
    # a shorter or a longer spelling of a choice, the nearest in length first
    spelled = sorted((c for c in lowered if key and c and c not in matches
                      and (key.startswith(c) or c.startswith(key))),
                     key=lambda c: abs(len(c) - len(key)))
    matches = (matches + spelled)[:3]
    if not matches:
        return ""
    return " (did you mean " + " or ".join(repr(lowered[m]) for m in matches) + "?)"


class NoAnswerError(BBNError, ValueError):
    """An approximate method stopped without an answer it can stand by: loopy belief
    propagation's messages left a variable no state (underflow, or no convergence), a
    sampler drew no sample of positive weight. Not a proof that the evidence is
    impossible — only exact inference or propagating the tables' zeros proves that
    (:class:`ImpossibleEvidenceError`); exact inference or another method may answer.

    Examples
    --------
    >>> issubclass(NoMatchingSampleError, NoAnswerError)
    True
    """


class NoMatchingSampleError(NoAnswerError):
    """A sampler drew no sample consistent with the evidence (every weight was 0).

    The evidence may be possible but too unlikely for the sample budget; exact inference,
    loopy belief propagation, importance sampling or more samples may answer.

    Examples
    --------
    >>> print(NoMatchingSampleError("no sample matched the evidence"))
    no sample matched the evidence
    """

"""UAI, the model format of the UAI inference competitions (``BAYES`` and ``MARKOV``).

    BAYES
    3                  number of variables
    2 2 3              their cardinalities
    3                  number of tables
    1 0                table 0: one variable, X0 (a root)
    2 0 1              table 1: P(X1 | X0), the child last
    3 0 1 2            table 2: P(X2 | X0, X1)

    2
     0.436 0.564
    4
     0.128 0.872
     0.920 0.080
    12
     ...

Each table lists its numbers in the row-major order of its scope (last variable fastest),
the child being the scope's last variable: exactly bbn's array layout, as the UAI 2008
specification says and the UAI 2014 files confirm (docs/formats.md). Tokens are
separated by any whitespace; lines starting with ``c`` are comments (the UAI 2016
specification), and so is ``#`` to the end of the line. pyAgrum writes a ``# name`` after
every scope line, and its tables with two parents or more in another order: such files
are read in pyAgrum's order (:func:`_from_pyagrum`).

UAI stores no names: variables are read as ``X0``, ``X1``, ... (in file order), states as
``0``, ``1``, ..., and the network is named after the file. Writing keeps the variable
order, the parents and every number (exact float64, in fixed-point) but loses the network name,
variable and state names and descriptions: ``load(save(net))`` equals ``net`` up to names.
A ``MARKOV`` file lists factors the same way (``MARKOV``, the cardinalities, the number of
factors, their scopes, their tables: any non-negative numbers). It is read as the Bayesian
network it writes when its factors are one conditional table per variable (UAI 2014's
Promedus and Pedigree instances), and as a :class:`bbn.MarkovNetwork` otherwise; a Markov
network is written back as ``MARKOV``. A ``BAYES`` network lacking a table is refused.

>>> net = read("BAYES 2  2 2  2  1 0  2 0 1  2 0.3 0.7  4 0.9 0.1 0.2 0.8")
>>> net.variables, net.parents("X1"), net.cpt_array("X1").tolist()
(('X0', 'X1'), ('X0',), [[0.9, 0.1], [0.2, 0.8]])
"""

from __future__ import annotations

import math
import re
from graphlib import CycleError, TopologicalSorter

import numpy as np

from bbn.core.errors import BBNError, FormatError, ParseError, ParseErrors, clip
from bbn.core.tables import is_valid
from bbn.io.formats._text import (
    MAX_PARENTS,
    STATE_BYTES,
    Retry,
    blank_comments,
    check_size,
    error_at,
    fast_or_located,
    floats,
    in_file_order,
    is_integer,
    is_number,
    name_from_source,
    number_texts,
    plain_line_ends,
)
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network

# "c" lines (the UAI 2016 specification) and "#" to the end of a line (pyAgrum's files)
_COMMENT = re.compile(r"#[^\n]*|^[ \t]*c(?:[ \t][^\n]*)?$", re.M)
# a scope line with a "# name" comment, as pyAgrum writes every one of them
_PYAGRUM_SCOPE = re.compile(r"^[ \t]*[0-9]+(?:[ \t]+[0-9]+)+[ \t]+#", re.M)


class _Tokens:
    """The whitespace-separated tokens of a UAI file, read in order, with exact error
    positions (computed only when an error is raised)."""

    def __init__(self, text: str, source: str):
        self.text, self.source = text, source
        self.tokens = text.split()
        self.next = 0

    def error(self, index: int, message: str, found: bool = True) -> ParseError:
        """The error at token ``index``; ``found`` appends what is there."""
        if index >= len(self.tokens):
            return error_at(self.text, self.source, len(self.text.rstrip()),
                            f"{message}, found the end of the file")
        match = next(m for i, m in enumerate(re.finditer(r"\S+", self.text)) if i == index)
        return error_at(self.text, self.source, match.start(),
                        f"{message}, found {clip(self.tokens[index], 40)!r}" if found else message)

    def check_size(self, index: int, entries: int, what: str, entry_bytes: int = 8) -> None:
        """Refuse ``entries`` values declared at token ``index`` that the memory limit
        does not allow, before anything is made (see _text.check_size)."""
        if entries * entry_bytes > 1 << 20:  # positions are found only for a large one
            match = next(m for i, m in enumerate(re.finditer(r"\S+", self.text)) if i == index)
            check_size(entries, what, self.text, self.source, match.start(), entry_bytes)

    def integer(self, what: str, low: int = 0, high: int | None = None) -> int:
        index = self.next
        token = self.tokens[index] if index < len(self.tokens) else ""
        if not is_integer(token) or int(token) < low or (high is not None and int(token) > high):
            bounds = (f"{low}" if low == high else f"an integer from {low} to {high}"
                      if high is not None else f"an integer ≥ {low}")
            raise self.error(index, f"expected {what} ({bounds})")
        self.next += 1
        return int(token)

    def numbers(self, count: int, what: str) -> np.ndarray:
        start = self.next
        chunk = self.tokens[start:start + count]
        values = floats(chunk)
        if values is None:
            bad = next(i for i, t in enumerate(chunk) if not is_number(t))
            raise self.error(start + bad, f"expected a number in {what}")
        if len(chunk) < count:
            raise self.error(start + len(chunk), f"expected {count} numbers in {what}")
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise self.error(start + int(bad[0]), f"expected a finite number in {what}")
        self.next += count
        return values


def read(text: str, source: str = "<string>", normalize: bool = False) -> Network:
    """Parse a UAI ``BAYES`` file into a :class:`Network` named after the file;
    ``normalize`` rescales every row of every table to sum 1.

    Parameters, result and errors are those of :func:`bbn.io.formats.loads` (the
    reader behind it for this format).

    Examples
    --------
    >>> read("BAYES 1  2  1  1 0  2 0.5 0.6", "coin.uai")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: coin.uai:1:...: table 0: P(X0) sums to 1.1, not 1 (tolerance ...
    """
    if text[:1] == "\ufeff":  # a byte-order mark (Windows tools): a space keeps the columns
        text = " " + text[1:]
    text = plain_line_ends(text)
    scope_comments = len(_PYAGRUM_SCOPE.findall(text)) if "#" in text else 0
    if "#" in text or "c" in text:
        text = blank_comments(text, _COMMENT)
    tokens = _Tokens(text, source)
    kind = tokens.tokens[0] if tokens.tokens else ""
    if kind.upper() == "MARKOV":
        return _read_markov(tokens, name_from_source(source))
    if kind.upper() != "BAYES":
        raise tokens.error(0, "expected 'BAYES' or 'MARKOV'")
    tokens.next = 1
    n = tokens.integer("the number of variables", 1)
    cards = [tokens.integer(f"the number of states of X{i}", 1) for i in range(n)]
    # states are named "0", "1", ...: the file declares their number but does not list them
    largest = max(range(n), key=cards.__getitem__)
    tokens.check_size(2 + largest, sum(cards), f"the {sum(cards)} state names (X{largest} has "
                                               f"{cards[largest]})", STATE_BYTES)
    tokens.integer("the number of tables, one per variable", n, n)
    scopes, starts = [], []
    for t in range(n):
        starts.append(tokens.next)
        size = tokens.integer(f"the size of table {t}'s scope", 1, n)
        scopes.append([tokens.integer(f"a variable of table {t}", 0, n - 1)
                       for _ in range(size)])
        if size - 1 > MAX_PARENTS:
            raise tokens.error(starts[t], f"table {t} has {size - 1} parents; bbn's tables have "
                               f"one axis per parent, and at most {MAX_PARENTS} parents",
                               found=False)
        tokens.check_size(starts[t], math.prod(cards[v] for v in scopes[t]),
                          f"table {t} (of X{scopes[t][-1]})")
    tables_at = tokens.next
    pyagrum = scope_comments == n  # pyAgrum's comment on every scope line: _from_pyagrum
    def located() -> Network:  # one table at a time, to report the first problem where it is
        tokens.next = tables_at
        return _located_network(name_from_source(source), tokens, cards, scopes, starts,
                                normalize, pyagrum)

    net = fast_or_located(lambda: _fast_network(name_from_source(source), tokens, cards,
                                                scopes, normalize, pyagrum), located)
    if tokens.next < len(tokens.tokens):
        raise tokens.error(tokens.next, "expected the end of the file after the last table")
    return net


def _read_markov(tokens: _Tokens, name: str) -> Network | MarkovNetwork:
    """A ``MARKOV`` file: the Bayesian network it writes as factors when it is one (see
    :func:`_as_bayes`: P(e) and every answer are the same, and the engine can then drop
    barren variables), else a :class:`MarkovNetwork`."""
    tokens.next = 1
    n = tokens.integer("the number of variables", 1)
    cards = [tokens.integer(f"the number of states of X{i}", 1) for i in range(n)]
    largest = max(range(n), key=cards.__getitem__)
    tokens.check_size(2 + largest, sum(cards), f"the {sum(cards)} state names (X{largest} has "
                                               f"{cards[largest]})", STATE_BYTES)
    m = tokens.integer("the number of factors", 0)
    scopes, starts = [], []
    for t in range(m):
        starts.append(tokens.next)
        size = tokens.integer(f"the size of factor {t}'s scope", 0, n)
        scope = [tokens.integer(f"a variable of factor {t}", 0, n - 1) for _ in range(size)]
        if len(set(scope)) != len(scope):
            raise tokens.error(starts[t], f"factor {t} lists a variable twice in its scope",
                               found=False)
        tokens.check_size(starts[t], math.prod(cards[v] for v in scope), f"factor {t}")
        scopes.append(scope)
    factors = _bulk_factors(tokens, cards, scopes)
    if factors is None:  # some problem: one factor at a time, to say where it is
        factors = []
        for t, scope in enumerate(scopes):
            expected = math.prod(cards[v] for v in scope)
            tokens.integer(f"the number of entries of factor {t}", expected, expected)
            at = tokens.next
            values = tokens.numbers(expected, f"factor {t}")
            negative = np.flatnonzero(values < 0)
            if negative.size:
                raise tokens.error(at + int(negative[0]), f"factor {t} has a negative entry "
                                                          "(factors take numbers ≥ 0)")
            factors.append(values.reshape([cards[v] for v in scope]))
    if tokens.next < len(tokens.tokens):
        raise tokens.error(tokens.next, "expected the end of the file after the last factor")
    net = _as_bayes(name, cards, scopes, factors)
    if net is not None:
        return net
    markov = MarkovNetwork(name)
    for i, card in enumerate(cards):
        markov.add_variable(f"X{i}", [str(s) for s in range(card)])
    for scope, values in zip(scopes, factors):
        markov.add_factor([f"X{v}" for v in scope], values)
    return markov


def _bulk_factors(tokens: _Tokens, cards: list[int],
                  scopes: list[list[int]]) -> list[np.ndarray] | None:
    """Every factor's table of a file with no problem in them, all numbers converted by
    one numpy call and checked together (Grids_12: 280 factors, a third of the reading
    time when done one by one); None on any problem, which the caller then reads one
    factor at a time to say where it is. Moves ``tokens`` past the last table."""
    if not scopes:
        return []
    sizes = [math.prod(cards[v] for v in scope) for scope in scopes]
    end = tokens.next + len(sizes) + sum(sizes)
    if len(tokens.tokens) < end:
        return None
    values = floats(tokens.tokens[tokens.next:end])
    if values is None:
        return None
    starts = np.cumsum([0] + [1 + size for size in sizes[:-1]], dtype=np.intp)
    counts = [tokens.tokens[tokens.next + start] for start in starts.tolist()]
    if (not np.array_equal(values[starts], sizes) or not all(map(is_integer, counts))
            or not (np.minimum.reduce(values) >= 0 and np.maximum.reduce(values) < np.inf)):
        return None  # a count, a negative or a non-finite entry: found where it is
    tokens.next = end
    return [values[start + 1:start + 1 + size].reshape([cards[v] for v in scope])
            for start, size, scope in zip(starts.tolist(), sizes, scopes)]


def _as_bayes(name: str, cards: list[int], scopes: list[list[int]],
              factors: list[np.ndarray]) -> Network | None:
    """The Bayesian network that MARKOV factors write, or None when they are not one.

    They are one when there is one factor per variable, and the same position of every
    scope — the last (as in BAYES) or the first (UAI 2014's Promedus instances) — names
    each variable once, reading each factor as the table of that variable given the rest
    of its scope is acyclic, and every factor sums to 1 over that variable for each
    configuration of the others (within the row tolerance). Then Π_i φ_i =
    Π_X P(X | Pa(X)), with the normalising constant 1.
    """
    n = len(cards)
    if len(scopes) != n or not all(scopes):
        return None
    for child in (-1, 0):  # the child last (as BAYES), or first
        if len({scope[child] for scope in scopes}) != n:
            continue
        tables = {f"X{scope[child]}": np.moveaxis(f, child, -1)
                  for scope, f in zip(scopes, factors)}
        if not all(map(is_valid, tables.values())):
            continue
        parents = {f"X{scope[child]}": [f"X{v}" for v in scope if v != scope[child]]
                   for scope in scopes}
        try:
            TopologicalSorter(parents).prepare()
        except CycleError:
            continue
        return Network.assemble(name, {f"X{i}": [str(s) for s in range(card)]
                                       for i, card in enumerate(cards)}, parents,
                                {v: np.ascontiguousarray(t) for v, t in tables.items()})
    return None


def _from_pyagrum(values: np.ndarray, scope: list[int], cards: list[int]) -> np.ndarray:
    """A table of a file pyAgrum wrote, in the specification's order.

    pyAgrum (checked with 3.3.1) lists P(X | P1, ..., Pk) with X fastest, then P1, ...,
    Pk slowest: the row-major order of (Pk, ..., P1, X), not of the scope (P1, ..., Pk, X)
    as the specification and the UAI competitions' files have it. The two agree for one
    parent or none. bbn recognises pyAgrum's files by the ``# name`` comment pyAgrum
    writes after every scope line.
    """
    k = len(scope) - 1
    if k < 2:
        return values
    shape = [cards[v] for v in reversed(scope[:-1])] + [cards[scope[-1]]]
    return values.reshape(shape).transpose([*range(k - 1, -1, -1), k]).reshape(-1)


def _fast_network(name: str, tokens: _Tokens, cards: list[int], scopes: list[list[int]],
              normalize: bool, pyagrum: bool) -> Network:
    """The network of a file with no problem, built at once with Network.assemble; Retry
    or an error on any problem, which :func:`_located_network` then reports where it is."""
    if any(len(set(scope)) != len(scope) for scope in scopes):
        raise Retry
    children = [f"X{scope[-1]}" for scope in scopes]
    tables = {}
    for child, scope in zip(children, scopes):
        expected = math.prod(cards[v] for v in scope)
        tokens.integer("", expected, expected)
        tables[child] = tokens.numbers(expected, "")
        if pyagrum:
            tables[child] = _from_pyagrum(tables[child], scope, cards)
    if len(tables) != len(scopes):  # two tables for one variable
        raise Retry
    return Network.assemble(name, {f"X{i}": [str(s) for s in range(card)]
                                   for i, card in enumerate(cards)},
                            {child: [f"X{p}" for p in scope[:-1]]
                             for child, scope in zip(children, scopes)}, tables,
                            normalize=normalize)


def _located_network(name: str, tokens: _Tokens, cards: list[int], scopes: list[list[int]],
           starts: list[int], normalize: bool, pyagrum: bool) -> Network:
    """The network one table at a time; the first problem raises a located error."""
    net = Network(name)
    for i, card in enumerate(cards):
        net.add_variable(f"X{i}", [str(s) for s in range(card)])
    owner: dict[int, int] = {}
    for t, scope in enumerate(scopes):
        child = scope[-1]
        if len(set(scope)) != len(scope):
            raise tokens.error(starts[t], f"table {t} lists a variable twice in its scope",
                               found=False)
        if child in owner:
            raise tokens.error(starts[t], f"tables {owner[child]} and {t} both end with X{child}; "
                                          "each variable needs exactly one table (its child last)",
                               found=False)
        owner[child] = t
        try:
            net.set_parents(f"X{child}", [f"X{p}" for p in scope[:-1]])
        except BBNError as error:
            raise tokens.error(starts[t], str(error), found=False) from None
    refused: list[ParseError] = []  # tables that are no distributions: every one
    try:
        for t, scope in enumerate(scopes):
            expected = math.prod(cards[v] for v in scope)
            at = tokens.next
            tokens.integer(f"the number of entries of table {t}", expected, expected)
            values = tokens.numbers(expected, f"table {t}")
            if pyagrum:
                values = _from_pyagrum(values, scope, cards)
            try:
                net.set_cpt(f"X{scope[-1]}", values, normalize=normalize)
            except BBNError as error:
                refused.append(tokens.error(at, f"table {t}: {error}", found=False))
    except ParseError as error:  # a later problem: raised with the tables refused before it
        if refused:
            raise ParseErrors(in_file_order([*refused, error])) from None
        raise
    if refused:
        raise refused[0] if len(refused) == 1 else ParseErrors(refused)
    return net


def write(net: Network | MarkovNetwork) -> str:
    """The network as a UAI ``BAYES`` file, or a Markov network as a ``MARKOV`` one (names
    are lost; see the module docstring).

    The writer behind :func:`bbn.io.formats.dumps` for this format; it raises
    FormatError for a variable without a table.

    Examples
    --------
    >>> write(read("BAYES 1  2  1  1 0  2 0.5 0.5")).split()
    ['BAYES', '1', '2', '1', '1', '0', '2', '0.5', '0.5']
    """
    if isinstance(net, MarkovNetwork):
        return _write_markov(net)
    missing = [v for v in net.variables if not net.has_cpt(v)]
    if missing:
        raise FormatError(f"UAI cannot write a network without tables: {missing[0]!r} has none "
                          "(UAI files always hold every table)")
    index = {v: i for i, v in enumerate(net.variables)}
    out = ["BAYES", str(len(index)), " ".join(str(net.cardinality(v)) for v in net.variables),
           str(len(index))]
    out += [" ".join(map(str, [len(net.parents(v)) + 1, *(index[p] for p in net.parents(v)),
                               index[v]])) for v in net.variables]
    for v in net.variables:
        card, texts = net.cardinality(v), number_texts(net.cpt_array(v))
        out += ["", str(len(texts))]
        out += [" " + " ".join(texts[i:i + card]) for i in range(0, len(texts), card)]
    return "\n".join(out) + "\n"


def _write_markov(net: MarkovNetwork) -> str:
    """A Markov network as a UAI ``MARKOV`` file: its factors, scopes in their axis order."""
    index = {v: i for i, v in enumerate(net.variables)}
    out = ["MARKOV", str(len(index)), " ".join(str(net.cardinality(v)) for v in net.variables),
           str(len(net.factors))]
    out += [" ".join(map(str, [len(f.variables), *(index[v] for v in f.variables)]))
            for f in net.factors]
    for f in net.factors:
        width = f.shape[-1] if f.shape else 1
        texts = number_texts(f.values)
        out += ["", str(len(texts))]
        out += [" " + " ".join(texts[i:i + width]) for i in range(0, len(texts), width)]
    return "\n".join(out) + "\n"

"""Checking probability tables: every row of a table must be a distribution.

    P(x | pa) ≥ 0 and finite,   |Σ_x P(x | pa) − 1| ≤ row_tolerance(|X|) = 1e-6 + |X| × 5e-7

With ``normalize`` a row need only have Σ_x P(x | pa) > 0 (and finite), and is then divided
by its sum. One validator serves :meth:`bbn.Network.set_cpt`, :meth:`~bbn.Network.set_cpts`,
:meth:`~bbn.Network.validate` and every reader: :func:`is_valid` (and
:func:`valid_minimum`) decide the common case (a valid table) with two numpy reductions,
:func:`check_packed` does the same for the tables of a whole file at once, and only when
something is wrong :func:`bad_rows` says which rows and why (the readers map those rows
to ``file:line:column``).

>>> table = np.array([[0.9, 0.1], [0.5, -0.2], [0.4, 0.4]])
>>> is_valid(table)
False
>>> [(bad.row, bad.reason) for bad in bad_rows(table)]
[(1, 'negative'), (2, 'sum off')]
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

#: A row of a table must sum to 1 within this tolerance, plus ROUNDING_PER_ENTRY per entry
#: (see :func:`row_tolerance`).
ROW_SUM_TOLERANCE = 1e-6
#: Half a unit of the sixth decimal: a number printed with six decimals is at most this far
#: from the number it rounds, so a row of n such numbers sums to 1 within n × 5e-7.
ROUNDING_PER_ENTRY = 5e-7


def plain(number: float) -> str:
    """A sum as messages show it: rounded to 12 significant digits, so no float noise.

    >>> plain(0.1 + 0.2), plain(1.0000001), plain(0.0), plain(1e-15)
    ('0.3', '1.0000001', '0.0', '1e-15')
    """
    return repr(float(f"{float(number):.12g}"))


def row_tolerance(width: int | np.ndarray) -> float | np.ndarray:
    """How far from 1 the sum of a row of ``width`` probabilities may be:
    ``1e-6 + width × 5e-7``.

    Files round their numbers: UAI 2014's BN_71 writes rows as ``0.999999 0.000000``
    (off by 1e-6 + 3e-17 after parsing), others ``0.333333 0.333333 0.333333``. Every row
    of numbers printed with six decimals or more is accepted as written; rows rounded
    harder need ``normalize=True``.

    Parameters
    ----------
    width : int or numpy.ndarray
        The number of entries of the row (the variable's number of states); an array
        gives one tolerance per row.

    Returns
    -------
    float or numpy.ndarray
        The largest accepted ``|Σ row − 1|``.

    Examples
    --------
    >>> row_tolerance(2)
    2e-06
    """
    return ROW_SUM_TOLERANCE + width * ROUNDING_PER_ENTRY


class BadRow(NamedTuple):
    """A row of a table that is no distribution, and why (its first problem).

    ``reason`` is ``"non-finite"`` or ``"negative"`` (an entry; ``entries`` lists every
    state whose entry is negative or not finite, in order), ``"zero sum"`` (with
    ``normalize``: the row sums to 0 or less, so it cannot be rescaled) or ``"sum off"``
    (its sum is off 1 by more than :func:`row_tolerance`). ``sum_off`` says whether the
    sum is wrong too.

    >>> bad_rows(np.array([0.5, 0.6]))[0]
    BadRow(row=0, reason='sum off', entries=(), total=1.1, sum_off=True)
    """

    row: int                  # the parent configuration, flat (the last parent fastest)
    reason: str
    entries: tuple[int, ...]  # states whose entry is negative or not finite
    total: float              # the row's sum
    sum_off: bool


def is_valid(table: np.ndarray, normalize: bool = False) -> bool:
    """Whether every row of ``table`` (its last axis) is a distribution (with
    ``normalize``: can be rescaled to one); see :func:`valid_minimum`.

    Parameters
    ----------
    table : numpy.ndarray
        The table, one row per parent configuration along the last axis.
    normalize : bool
        Accept any row of non-negative entries with a positive sum.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_valid(np.array([[0.3, 0.7], [0.5, 0.5]])), is_valid(np.array([0.3, 0.3]))
    (True, False)
    >>> is_valid(np.array([0.3, 0.3]), normalize=True)
    True
    """
    return valid_minimum(table, normalize) is not None


def valid_minimum(table: np.ndarray, normalize: bool = False) -> float | None:
    """The smallest entry of ``table`` when every row is a distribution (with
    ``normalize``: has non-negative entries and a positive sum), else None — decided by
    two numpy reductions, in which NaN and ±inf fail every comparison. The minimum says
    whether the table is zero-free (rescaling rows keeps that).

    >>> valid_minimum(np.array([[0.3, 0.7], [0.0, 1.0]])), valid_minimum(np.array([0.3, 0.3]))
    (0.0, None)
    """
    smallest = table.min()
    if not smallest >= 0:
        return None
    sums = table.sum(axis=-1)
    if normalize:
        return float(smallest) if sums.min() > 0 and np.isfinite(sums).all() else None
    worst = float(np.abs(sums - 1.0).max())
    return float(smallest) if worst <= row_tolerance(table.shape[-1]) else None


def bad_rows(table: np.ndarray, normalize: bool = False) -> list[BadRow]:
    """The rows of ``table`` that are no distribution (see :class:`BadRow`), in order;
    empty for a valid table, found by :func:`is_valid`'s two reductions.

    Parameters
    ----------
    table : numpy.ndarray
        The table, one row per parent configuration along the last axis (rows are
        numbered in row-major order of the other axes).
    normalize : bool
        Check the rows before they are rescaled: a row needs a positive sum rather
        than a sum of 1.

    Returns
    -------
    list of BadRow

    Examples
    --------
    >>> bad_rows(np.array([[0.0, 0.0], [0.2, 0.2]]), normalize=True)
    [BadRow(row=0, reason='zero sum', entries=(), total=0.0, sum_off=True)]
    """
    if is_valid(table, normalize):
        return []
    rows = table.reshape(-1, table.shape[-1])
    wrong = ~np.isfinite(rows) | (rows < 0)
    sums = rows.sum(axis=1)
    off = (~(sums > 0) | ~np.isfinite(sums) if normalize
           else ~(np.abs(sums - 1.0) <= row_tolerance(rows.shape[1])))
    found = []
    for row in np.flatnonzero(wrong.any(axis=1) | off).tolist():
        entries = tuple(np.flatnonzero(wrong[row]).tolist())
        if entries:
            reason = "negative" if np.isfinite(rows[row, entries[0]]) else "non-finite"
        else:
            reason = "zero sum" if normalize else "sum off"
        found.append(BadRow(row, reason, entries, float(sums[row]), bool(off[row])))
    return found


def normalized(table: np.ndarray) -> np.ndarray:
    """``table`` with every row divided by its sum (a new float array); a row whose sum is
    not positive is kept as it is (and refused by :func:`bad_rows` with ``normalize``).

    >>> normalized(np.array([[1.0, 3.0], [0.0, 0.0]])).tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """
    sums = table.sum(axis=-1, keepdims=True)
    return np.divide(table, sums, out=table.astype(float), where=sums > 0)


class PackedCheck(NamedTuple):
    """What :func:`check_packed` returns for valid tables: all their numbers (rows
    rescaled when asked), read-only, and each table's smallest entry."""

    numbers: np.ndarray
    smallest: list[float]


def check_packed(numbers: np.ndarray, sizes: list[int], widths: list[int],
                 normalize: bool = False) -> PackedCheck | None:
    """Check the tables packed one after the other in ``numbers`` (table i has
    ``sizes[i]`` entries in rows of ``widths[i]``) with a few numpy calls over all of them,
    however many tables there are (row sums by ``np.add.reduceat`` at the row starts):
    reading a 1000-variable file is dominated by per-call costs otherwise.

    Parameters
    ----------
    numbers : numpy.ndarray
        A flat float array of every table's entries, in order (it is rescaled in place
        with ``normalize``).
    sizes, widths : list of int
        Each table's number of entries and of states.
    normalize : bool
        Divide every row by its sum (which must be positive).

    Returns
    -------
    PackedCheck or None
        None when a table is invalid: :func:`bad_rows` on that table says where.

    Examples
    --------
    >>> check_packed(np.array([0.5, 0.5, 0.9, 0.1, 0.2, 0.8]), [2, 4], [2, 2]).smallest
    [0.5, 0.1]
    >>> check_packed(np.array([0.5, 0.6]), [2], [2]) is None
    True
    """
    ends = list(itertools.accumulate(sizes))
    starts = [0, *ends[:-1]]
    smallest = np.minimum.reduceat(numbers, starts).tolist()  # per table; NaN if one is NaN
    if not all(map((0.0).__le__, smallest)):
        return None
    # where every row starts (one range when all rows are as wide, as in small networks)
    same = len(set(widths)) == 1
    rows = (range(0, ends[-1], widths[0]) if same
            else itertools.chain.from_iterable(map(range, starts, ends, widths)))
    sums = np.add.reduceat(numbers, list(rows))  # no NaN here; +inf fails the bounds
    if normalize:
        if not (sums.min() > 0 and np.isfinite(sums).all()):
            return None
        numbers = (numbers.reshape(-1, widths[0]) / sums[:, None]).reshape(-1) if same else (
            numbers / np.repeat(sums, _row_widths(sizes, widths)))
    else:
        listed = sums.tolist()  # Python's min and max: faster than numpy's on few rows
        tight = row_tolerance(min(widths))  # the narrowest rows' bound decides most files
        if not (min(listed) >= 1.0 - tight and max(listed) <= 1.0 + tight) and (
                same or not np.all(np.abs(sums - 1.0)
                                   <= row_tolerance(_row_widths(sizes, widths)))):
            return None
    numbers.setflags(write=False)
    return PackedCheck(numbers, smallest)


def _row_widths(sizes: list[int], widths: list[int]) -> np.ndarray:
    """The width of every row of tables of these sizes and numbers of states, in order."""
    return np.repeat(widths, [size // width for size, width in zip(sizes, widths)])


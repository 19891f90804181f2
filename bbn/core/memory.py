"""The memory limit: one number that every allocation of a table is checked against.

bbn refuses, with :class:`~bbn.core.errors.MemoryLimitError`, any step that would allocate
more than the limit (1 GiB by default) — an inference plan, a junction tree, a learned
table, a table a reader is about to expand — *before* allocating it, so a user gets a
clear message instead of the operating system killing the process.

    bytes needed = entries × 8        (float64 tables)

>>> from bbn.core.memory import check_allocation, get_memory_limit
>>> get_memory_limit() == 1 << 30
True
>>> check_allocation(1000, "a table of 1000 entries")       # fine: 7.8 KiB
>>> check_allocation(2 ** 40, "the table of X")              # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
bbn.core.errors.MemoryLimitError: the table of X needs 8.0 TiB, above the memory limit of 1.0 ...
"""

from __future__ import annotations

from bbn.core.errors import MemoryLimitError

#: Bytes every allocation is checked against (see set_memory_limit).
_memory_limit = {"bytes": 1 << 30}

#: Bytes of one table entry (float64).
ENTRY_BYTES = 8

#: The hint every refusal ends with, unless the caller has a better one.
RAISE_HINT = "raise it with bbn.set_memory_limit(bytes)"


def set_memory_limit(limit_bytes: int) -> None:
    """Refuse (with MemoryLimitError) any table or computation needing more than this.

    The limit bounds everything one inference holds at once (tables, messages,
    temporaries, batch rows) and every table learning, sampling or a reader would make;
    it holds for the whole process.

    Parameters
    ----------
    limit_bytes : int
        Bytes; 1 GiB (``1 << 30``) by default.

    Examples
    --------
    >>> set_memory_limit(2 << 30); get_memory_limit()
    2147483648
    >>> set_memory_limit(1 << 30)
    """
    _memory_limit["bytes"] = int(limit_bytes)


def get_memory_limit() -> int:
    """The memory limit in bytes (1 GiB unless set_memory_limit changed it).

    Returns
    -------
    int

    Examples
    --------
    >>> get_memory_limit() / 2 ** 30
    1.0
    """
    return _memory_limit["bytes"]


def format_bytes(n: float) -> str:
    """A byte count for people.

    Parameters
    ----------
    n : float
        Bytes.

    Returns
    -------
    str
        One decimal and a binary unit (B, KiB, MiB, GiB, TiB, PiB).

    Examples
    --------
    >>> format_bytes(3 * 2 ** 30)
    '3.0 GiB'
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024:
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def check_allocation(entries: int, what: str, hint: str = RAISE_HINT,
                     entry_bytes: int = ENTRY_BYTES) -> None:
    """Raise MemoryLimitError if ``entries`` values of ``entry_bytes`` exceed the limit.

    Parameters
    ----------
    entries : int
        Values to allocate; a Python int, so a product of cardinalities never overflows.
    what : str
        Names the table ("the table of 'X' (30 parents)", "file.bif:12:3: ...").
    hint : str
        What the user can do.
    entry_bytes : int
        Bytes of one value (8: float64).

    Raises
    ------
    MemoryLimitError
        ``entries × entry_bytes`` is above :func:`get_memory_limit`.

    Examples
    --------
    >>> check_allocation(3 ** 10, "the table of 'X' (9 parents)")      # 461 KiB: fine
    >>> check_allocation(3 ** 30, "the table of 'X' (29 parents)", hint="prune")
    Traceback (most recent call last):
        ...
    bbn.core.errors.MemoryLimitError: the table of 'X' (29 parents) needs 1.5 PiB, above ...; prune
    """
    needed = int(entries) * entry_bytes
    if needed > _memory_limit["bytes"]:
        raise MemoryLimitError(
            f"{what} needs {format_bytes(needed)}, above the memory limit of "
            f"{format_bytes(_memory_limit['bytes'])}; {hint}")

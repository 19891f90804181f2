"""The memory limit: one number that every allocation of a table is checked against.

bbn refuses, with :class:`~bbn.core.errors.MemoryLimitError`, any step that would allocate
more than the limit — an inference plan, a junction tree, a learned table, a table a
reader is about to expand — *before* allocating it, so a user gets a clear message instead
of the operating system killing the process.

    bytes needed = entries × 8        (float64 tables)
    default limit = DEFAULT_FRACTION × the memory available when first needed

The memory available is the least of the physical memory the system reports available
(``MemAvailable``), the room left under the process's control group (cgroup v2
``memory.max`` − ``memory.current``, v1 ``memory.limit_in_bytes`` − ``usage_in_bytes``) and
its address-space limit (``RLIMIT_AS``); half of it by default (:data:`DEFAULT_FRACTION`),
:data:`FALLBACK_LIMIT` (1 GiB) where none can be read. The environment variable
``BBN_MEMORY_LIMIT`` sets it instead (bytes, or a number with a unit: ``8GiB``, ``500MB``,
``2.5G``), and :func:`set_memory_limit` at any time.

>>> from bbn.core.memory import check_allocation, set_memory_limit
>>> set_memory_limit(1 << 30)
>>> check_allocation(1000, "a table of 1000 entries")       # fine: 7.8 KiB
>>> check_allocation(2 ** 40, "the table of X")              # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
bbn.core.errors.MemoryLimitError: the table of X needs 8.0 TiB, above the memory limit of 1.0 ...
"""

from __future__ import annotations

import os
import re

try:
    import resource
except ImportError:  # Windows: no address-space limit to read
    resource = None

from bbn.core.errors import BBNError, MemoryLimitError

#: The share of the memory available at start that the default limit allows.
DEFAULT_FRACTION = 0.5

#: The default limit where the memory available cannot be read.
FALLBACK_LIMIT = 1 << 30

#: The environment variable that sets the limit (bytes, or a number and a unit).
ENVIRONMENT_VARIABLE = "BBN_MEMORY_LIMIT"

#: Bytes every allocation is checked against (see set_memory_limit); the default is
#: worked out on first use.
_memory_limit: dict[str, int | None] = {"bytes": None}

#: Bytes of one table entry (float64).
ENTRY_BYTES = 8

#: The hint every refusal ends with, unless the caller has a better one.
RAISE_HINT = "raise it with bbn.set_memory_limit(bytes)"

_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2,
          "g": 1000 ** 3, "gb": 1000 ** 3, "t": 1000 ** 4, "tb": 1000 ** 4,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def parse_bytes(text: str, source: str = ENVIRONMENT_VARIABLE) -> int:
    """A size in bytes from ``"8589934592"``, ``"8GiB"``, ``"500 MB"``, ``"2.5G"``
    (k, M, G, T: powers of 1000; KiB, MiB, GiB, TiB: of 1024).

    Parameters
    ----------
    text : str
        The size.
    source : str
        Where it was written, for the message.

    Returns
    -------
    int

    Raises
    ------
    BBNError
        For anything else, naming ``source``.

    Examples
    --------
    >>> parse_bytes("8GiB"), parse_bytes("2.5 G"), parse_bytes("4096")
    (8589934592, 2500000000, 4096)
    >>> parse_bytes("lots")
    Traceback (most recent call last):
        ...
    bbn.core.errors.BBNError: BBN_MEMORY_LIMIT='lots' is not a size: write bytes, or a ...
    """
    found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    unit = found.group(2).lower() if found else None
    if unit not in _UNITS or float(found.group(1)) <= 0:
        raise BBNError(f"{source}={text!r} is not a size: write bytes, or a number and a "
                       "unit (8GiB, 500MB, 2.5G)")
    return int(float(found.group(1)) * _UNITS[unit])


def _read_number(path: str) -> int | None:
    """The whole number a system file holds, None if it is absent, "max" or unreadable."""
    try:
        with open(path) as file:
            text = file.read().strip()
        return int(text)
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """Bytes this process may still allocate: the least of the memory the system reports
    available, the room under its control group's limit and its address-space limit
    (None if none is known).

    Returns
    -------
    int or None

    Examples
    --------
    >>> available_memory() is None or available_memory() > 0
    True
    """
    known = []
    try:
        with open("/proc/meminfo") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    known.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        try:
            known.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            pass
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_number(limit_file), _read_number(usage_file)
        if limit is not None and limit < 1 << 60:  # a huge number: no limit
            known.append(max(limit - (usage or 0), 0))
    if resource is not None:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            known.append(soft)
    return min(known) if known else None


def default_memory_limit() -> int:
    """The limit bbn starts with: ``BBN_MEMORY_LIMIT`` if set, otherwise
    :data:`DEFAULT_FRACTION` of :func:`available_memory` (:data:`FALLBACK_LIMIT` when it
    cannot be read).

    Returns
    -------
    int

    Raises
    ------
    BBNError
        For a ``BBN_MEMORY_LIMIT`` that is not a size.

    Examples
    --------
    >>> default_memory_limit() > 0
    True
    """
    written = os.environ.get(ENVIRONMENT_VARIABLE)
    if written:
        return parse_bytes(written)
    available = available_memory()
    return FALLBACK_LIMIT if not available else int(available * DEFAULT_FRACTION)


def set_memory_limit(limit_bytes: int) -> None:
    """Refuse (with MemoryLimitError) any table or computation needing more than this.

    The limit bounds everything one inference holds at once (tables, messages,
    temporaries, batch rows) and every table learning, sampling or a reader would make;
    it holds for the whole process.

    Parameters
    ----------
    limit_bytes : int
        Bytes; by default half the memory available when the limit is first needed
        (see the module).

    Examples
    --------
    >>> set_memory_limit(2 << 30); get_memory_limit()
    2147483648
    >>> set_memory_limit(1 << 30)
    """
    _memory_limit["bytes"] = int(limit_bytes)


def get_memory_limit() -> int:
    """The memory limit in bytes (:func:`default_memory_limit` unless set_memory_limit
    changed it).

    Returns
    -------
    int

    Examples
    --------
    >>> set_memory_limit(1 << 30); get_memory_limit() / 2 ** 30
    1.0
    """
    limit = _memory_limit["bytes"]
    if limit is None:
        limit = _memory_limit["bytes"] = default_memory_limit()
    return limit


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
    limit = get_memory_limit()
    if needed > limit:
        raise MemoryLimitError(
            f"{what} needs {format_bytes(needed)}, above the memory limit of "
            f"{format_bytes(limit)}; {hint}")

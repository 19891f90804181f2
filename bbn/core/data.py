"""Turning data into integer state codes: the edge where learning meets the user's table.

Data may be a :class:`pandas.DataFrame`, the path of a CSV file (gzip and friends are
recognised by extension) or a numpy array — a structured array carries its column names,
a plain 2-D array needs ``columns=``. Columns are matched to variables by name and cells
to states by their text, in the network's state order; the result is an integer array,
one column per variable, with ``MISSING`` (−1) where the value is missing.

>>> import pandas as pd
>>> frame = pd.DataFrame({"A": ["T", "F", None], "B": [1, 0, 1]})
>>> encode(frame, ["A", "B"], [("T", "F"), ("0", "1")]).tolist()
[[0, 1], [1, 0], [-1, 1]]

A cell matches a state when its text equals the state's name; numbers that are whole are
written without a fraction (``3.0`` matches state ``3``); booleans (``pandas.read_csv``
reads ``true``, ``True`` and ``TRUE`` as booleans) are named ``true``/``false`` and match
those three spellings, as does the text ``true`` a state ``True``. Missing are:
NaN/None, and the texts in ``MISSING_TEXT`` unless the variable has a state of that name.
"""

from __future__ import annotations

import csv
import gzip
import os
import sys
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bbn.core.errors import QUOTE_LIMIT, DataError, clip, suggest

#: The code of a missing value.
MISSING = -1

#: Cell texts read as "missing" unless the variable has a state with that name.
MISSING_TEXT = frozenset({"", "?", "NA", "N/A", "NaN", "nan", "null", "None"})


def read_data(data, columns: Sequence[str] | None = None,
              states: Mapping[str, Sequence[str]] | None = None) -> tuple[pd.DataFrame, str]:
    """The data as a DataFrame, and how to name it in messages (the file, or ``data``).

    A CSV file is read with every cell as text (no type guessing), so that ``true``,
    ``007`` or ``NA`` reach the state matching exactly as written. Given ``states``
    ({column: states}), those columns are parsed straight into categoricals over the
    states (and the missing markers), which spares a second hashing pass.

    Parameters
    ----------
    data : DataFrame, str or path, or numpy array
        A DataFrame, a CSV path (gzip and friends by extension), a structured array, or
        a plain 2-D array with ``columns``.
    columns : list of str, optional
        New names for the columns (needed by a plain array).
    states : mapping, optional
        ``{column: states}`` of the discrete variables (CSV files only: a faster read).

    Returns
    -------
    (pandas.DataFrame, str)
        The frame, its columns named by strings, and the source for messages.

    Raises
    ------
    DataError
        For a file that is absent or no CSV, two columns of one name, a ``columns`` of
        the wrong length, or an array that is not 2-D or has no names.

    Examples
    --------
    >>> frame, source = read_data(np.array([[1, 0], [0, 1]]), columns=["A", "B"])
    >>> frame.columns.tolist(), source
    (['A', 'B'], 'data')
    """
    if isinstance(data, pd.DataFrame):
        frame = named_columns(data) if columns is None else _renamed(data, columns)
        return frame, "data"
    if isinstance(data, (str, os.PathLike)):
        frame = _read_csv(data, states if columns is None else None)
        return (frame if columns is None else _renamed(frame, columns)), str(data)
    array = np.asarray(data)
    if array.dtype.names:
        frame = pd.DataFrame({name: array[name] for name in array.dtype.names})
        return (frame if columns is None else _renamed(frame, columns)), "data"
    if array.ndim != 2:
        raise DataError(f"data must be a DataFrame, a CSV path or a 2-D array, got an array "
                        f"of shape {array.shape}")
    if columns is None:
        raise DataError("a plain numpy array has no column names: pass columns=[...] "
                        "naming its columns (or a DataFrame or a structured array)")
    return _renamed(pd.DataFrame(array), columns), "data"


def _read_csv(path, states: Mapping[str, Sequence[str]] | None) -> pd.DataFrame:
    options = dict(keep_default_na=False, na_filter=False, skipinitialspace=True)
    try:
        # header=None: the names as written (read_csv would rename a second 'x' to 'x.1').
        written = pd.read_csv(path, nrows=1, header=None, dtype=str, **options)
        refuse_duplicates([str(c).strip() for c in written.iloc[0]] if len(written) else [],
                           str(path))
        header = pd.read_csv(path, nrows=0, **options).columns
        dtypes = {c: str for c in header}
        for c in header:
            if states and str(c).strip() in states:
                known = list(states[str(c).strip()])
                dtypes[c] = pd.CategoricalDtype(known + sorted(MISSING_TEXT - set(known)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a cell outside the categories: read as text
                frame = pd.read_csv(path, dtype=dtypes, **options)
            unknown = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)
                       and (frame[c].cat.codes.to_numpy() < 0).any()]
        except (Warning, ValueError, TypeError):
            unknown = list(header)
        if unknown:  # some cell is no state: re-read as text so the error can quote it
            frame = pd.read_csv(path, dtype={c: (str if c in unknown else t)
                                             for c, t in dtypes.items()}, **options)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as error:
        raise DataError(f"{path}: cannot read as CSV: {error}") from None
    refuse_longer_rows(frame, path, len(header))
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def refuse_longer_rows(frame: pd.DataFrame, path, width: int) -> None:
    """Refuse a CSV file with a row longer than its header, naming the first such line:
    pandas reads the extra leading fields as the row labels (an *implicit index*), every
    column shifted by one, which no later check would see.

    Parameters
    ----------
    frame : pandas.DataFrame
        What ``pandas.read_csv`` read (without ``index_col``).
    path : str or os.PathLike
        The file.
    width : int
        The header's number of names.

    Raises
    ------
    DataError
        ``path:line: n fields, but the header names width columns``.
    """
    if isinstance(frame.index, pd.RangeIndex):
        return
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as file:
        reader = csv.reader(file, skipinitialspace=True)
        for row in reader:
            if len(row) > width:
                raise DataError(f"{path}:{reader.line_num}: {len(row)} fields, but the header "
                                f"names {width} columns (is a name missing from the header?)")
    raise DataError(f"{path}: a row has more fields than the header's {width} names")


def named_columns(frame: pd.DataFrame, source: str = "data") -> pd.DataFrame:
    """``frame`` with every column named by its text (``0`` → ``"0"``: variables and
    features are named by strings), refusing two columns of one name.

    >>> named_columns(pd.DataFrame([[1, 2]])).columns.tolist()
    ['0', '1']
    """
    names = [str(c) for c in frame.columns]
    refuse_duplicates(names, source)
    if all(type(c) is str for c in frame.columns):
        return frame
    frame = frame.copy(deep=False)  # a new header, the same column data
    frame.columns = names
    return frame


def refuse_duplicates(names: Sequence[str], source: str) -> None:
    """DataError naming the first column name that occurs twice.

    >>> refuse_duplicates(["A", "B"], "data")
    """
    # A set, not pandas.Index(names).has_duplicates: 1 µs instead of 90 µs for child's 20
    # names (pandas 3 builds an Arrow-backed index of strings).
    seen: set[str] = set()
    for name in names:
        if name in seen:
            positions = [j + 1 for j, n in enumerate(names) if n == name]
            raise DataError(f"{source}: two columns are named {name!r} (columns "
                            f"{' and '.join(map(str, positions[:2]))}): every column needs "
                            "its own name")
        seen.add(name)


def _renamed(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    columns = [str(c) for c in columns]
    if len(columns) != frame.shape[1]:
        raise DataError(f"columns= names {len(columns)} columns but the data has "
                        f"{frame.shape[1]}")
    refuse_duplicates(columns, "columns=")
    frame = frame.copy(deep=False)
    frame.columns = columns
    return frame


def require_columns(frame: pd.DataFrame, variables: Sequence[str], source: str = "data") -> None:
    """Raise DataError for the first variable the data has no column for."""
    present = set(map(str, frame.columns))
    for v in variables:
        if v not in present:
            raise DataError(f"{source}: no column for variable {v!r}"
                            f"{suggest(v, present)}; columns are {list(frame.columns)}"
                            f"{_delimiter_hint(frame.columns)}")


def _delimiter_hint(columns) -> str:
    """A note when the one column's name looks like a header split by another delimiter.

    >>> _delimiter_hint(["A;B;C"])
    " (the cells look separated by ';': sep=';')"
    """
    if len(columns) == 1:
        for sep in (";", "\t", "|"):
            if sep in str(columns[0]):
                return f" (the cells look separated by {sep!r}: sep={sep!r})"
    return ""


def state_texts(value) -> tuple[str, ...]:
    """The state names a cell may stand for, best first (see the module docstring)."""
    if isinstance(value, (bool, np.bool_)):  # lower case first: the CSV's true/false
        return (str(bool(value)).lower(), str(bool(value)), str(bool(value)).upper())
    if isinstance(value, str) and value.lower() in ("true", "false"):  # one boolean, 3 ways
        return (value, value.lower(), value.capitalize(), value.upper())
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return (str(int(value)), str(value))
    if isinstance(value, (int, np.integer)):
        return (str(int(value)),)
    return (str(value),)


def is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, (float, np.floating))
                                                and np.isnan(value))


def absent_cells(values: pd.Series) -> np.ndarray:
    """Where a column whose states are learned from the data has no value: NaN, None and
    blank cells only (a text such as ``NA``, ``None`` or ``?`` is a state there; see
    :func:`states_from_values`).

    >>> absent_cells(pd.Series(["x", "", "  ", None, "NA", "?", float("nan")])).tolist()
    [False, True, True, True, False, False, True]
    >>> absent_cells(pd.Series([1.5, None], dtype=object)).tolist()    # no text at all
    [False, True]
    """
    texts = values.astype(object)
    missing = texts.isna().to_numpy(dtype=bool)
    try:  # pandas refuses .str on a column holding no text: then nothing is blank
        blank = texts.str.strip().eq("").to_numpy(dtype=bool)
    except AttributeError:
        return missing
    return missing | blank


def encode_column(values: pd.Series, states: Sequence[str], *, unknown: str = "error",
                  name: str | None = None, source: str = "data",
                  row_names=None, lookups: dict | None = None) -> np.ndarray:
    """The state index of every cell of one column (``MISSING`` where missing).

    Parameters
    ----------
    values : pandas.Series
        The column (any dtype: texts, numbers, booleans, categoricals).
    states : sequence of str
        The variable's states, in its order.
    unknown : {"error", "missing"}, default "error"
        What a value that is no state becomes.
    name, source, row_names
        How messages name the column, the data and its rows.
    lookups : dict, optional
        Shared between calls for columns with the same states (a cache).

    Returns
    -------
    numpy.ndarray
        int8 codes (int32 past 126 states), ``MISSING`` (−1) for missing cells.

    Raises
    ------
    DataError
        For a value that is no state (under ``unknown="error"``), naming the column, the
        row and the value, with close matches.

    Examples
    --------
    >>> encode_column(pd.Series(["b", None, 1.0], name="X"), ("1", "b")).tolist()
    [1, -1, 0]

    Text cells are matched against the states by object identity where the column reuses
    a few string objects per text (as readers and samplers do), else by one hashing pass
    (``pandas.Index.get_indexer``); only cells that match no state by their exact text
    — numbers, booleans, missing markers, errors — are then examined, once per
    *distinct* value. ``unknown="error"`` raises DataError naming the column, row and
    value; ``"missing"`` treats such a value as missing. Columns of whole numbers read
    their codes from a table (shared through ``lookups`` by columns with the same states).
    """
    name = str(values.name) if name is None else name
    dtype = np.int8 if len(states) < 127 else np.int32
    if values.dtype.kind in "iuf":
        column = values.to_numpy()
        found = _number_codes(column, tuple(states), {} if lookups is None else lookups)
        if found is not None:
            bad = np.flatnonzero(found == -2)
            if len(bad) and unknown != "missing":
                raise DataError(_unknown_message(column[bad[0]], states, name, source,
                                                 int(bad[0]), row_names))
            found[bad] = MISSING
            return found.astype(dtype)
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = values.cat.categories
        codes = values.cat.codes.to_numpy()
        if len(categories) == len(states) and all(
                isinstance(c, str) and c == s for c, s in zip(categories, states, strict=True)):
            return codes.astype(dtype, copy=False)  # categories are the states: nothing to do
        lookup = _lookup(categories, states, unknown, name, source, codes, row_names)
        return lookup.astype(dtype)[codes]
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage != "python":
        codes = pd.Index(states, dtype=values.dtype).get_indexer(values.array).astype(dtype)
    elif values.dtype.kind in "OUT" or isinstance(values.dtype, pd.StringDtype):
        codes = _text_codes(values.to_numpy(dtype=object), states, dtype)
    else:  # numbers and booleans never equal a state's text: all go to the slow path
        codes = np.full(len(values), MISSING, dtype=dtype)
    unmatched = np.flatnonzero(codes == MISSING)
    if len(unmatched):
        rest, uniques = pd.factorize(values.iloc[unmatched], use_na_sentinel=True)
        lookup = _lookup(uniques, states, unknown, name, source, rest, row_names, unmatched)
        codes[unmatched] = lookup[rest]
    return codes


def _text_codes(column: np.ndarray, states: Sequence[str], dtype) -> np.ndarray:
    """The index in ``states`` of each cell of an object column that is one of them by its
    exact text, ``MISSING`` for any other cell.

    Most cells are found by *identity*. A column read from a file or sampled holds a few
    string objects per distinct text (one per chunk a reader parsed), so comparing each
    cell's identity (:func:`_cell_identities`) with those objects' ``id`` — one
    vectorised comparison per object, no hashing, no characters compared — finds them.
    The objects come from cells spread over the column. The cells left over (other
    objects with the same text, numbers, errors) are matched by text with one hashing
    pass (``pandas.Index.get_indexer``).
    """
    codes = np.full(len(column), MISSING, dtype=dtype)
    identities = _cell_identities(column)
    objects = [] if identities is None else _state_objects(column, identities, states)
    if len(objects) <= IDENTITY_UP_TO:
        hit = np.empty(len(column), dtype=bool)
        for obj, i in objects:  # distinct objects: a cell hits one at most
            np.equal(identities, id(obj), out=hit)
            codes += hit * codes.dtype.type(i + 1)  # MISSING (−1) + i + 1 = i
    rest = np.flatnonzero(codes == MISSING)
    if len(rest):  # object Indexes on both sides, else get_indexer converts and scans
        codes[rest] = pd.Index(states, dtype=object).get_indexer(
            pd.Index(column[rest], dtype=object, copy=False))
    return codes


#: At most this many (object, state) pairs are matched by identity; past it, by hashing
#: (a comparison pass per object would cost more).
IDENTITY_UP_TO = 64


def _state_objects(column: np.ndarray, identities: np.ndarray, states: Sequence[str],
                   samples: int = 2048) -> list[tuple[str, int]]:
    """(object, state index) for the distinct string objects equal to a state among
    ``samples`` cells spread evenly over ``column`` (distinct by identity, not text)."""
    position = {s: i for i, s in enumerate(states)}
    stride = max(1, len(column) // samples)
    _, first = np.unique(identities[::stride], return_index=True)
    return [(obj, position[obj]) for obj in column[first * stride]
            if isinstance(obj, str) and obj in position]


def _cell_identities(column: np.ndarray) -> np.ndarray | None:
    """The identity of each cell's object, as integers, or None.

    An object array exports its cells through the buffer protocol as PEP 3118 format
    ``"O"``, one object pointer per cell, and CPython's ``id`` is that pointer; so
    ``np.frombuffer`` reads every cell's identity in one view, without a Python call per
    cell and without touching memory outside the array. Hashing every cell instead
    (``pd.factorize``) made encoding alarm's 100,000 sampled rows 3× slower (150 vs 46 ms
    for 37 columns). Other interpreters, or an array that will not export its buffer,
    give None (the caller matches by text).
    """
    if sys.implementation.name != "cpython" or not len(column):
        return None
    column = np.ascontiguousarray(column)
    try:  # the view keeps the contiguous copy (when one is made) alive
        identities = np.frombuffer(column, dtype=np.uintp)
    except (TypeError, ValueError, BufferError):
        return None
    # The layout is the buffer protocol's, the meaning CPython's; check it on 16 or so
    # cells spread over the column (a few µs) and match by text if a future version
    # differs. A slice, not np.linspace: 8 µs less per column.
    spread = slice(None, None, max(1, len(column) // 16))
    if identities[spread].tolist() != [id(cell) for cell in column[spread]]:
        return None
    return identities


def _lookup(uniques, states, unknown, name, source, codes, row_names, rows=None) -> np.ndarray:
    """State index of each distinct value, with a last slot (read by code −1) for NaN."""
    index = {s: i for i, s in enumerate(states)}
    lookup = np.empty(len(uniques) + 1, dtype=np.int64)
    lookup[-1] = MISSING
    for j, value in enumerate(uniques):
        lookup[j] = _state_of(value, index)
        if lookup[j] == -2:
            cells = np.flatnonzero(codes == j)  # none for a category no row uses
            if unknown != "missing" and len(cells):
                row = int(cells[0]) if rows is None else int(rows[cells[0]])
                raise DataError(_unknown_message(value, states, name, source, row, row_names))
            lookup[j] = MISSING
    return lookup


def _state_of(value, index: dict) -> int:
    """The state index for one distinct value; MISSING; or -2 when it is no state."""
    if is_missing(value):
        return MISSING
    for text in state_texts(value):
        if text in index:
            return index[text]
    if str(value).strip() in MISSING_TEXT:
        return MISSING
    return -2


def _unknown_message(value, states, name, source, row, row_names) -> str:
    where = location(source, row, row_names)
    shown = ", ".join(states) if len(states) <= 20 else ", ".join(states[:20]) + ", ..."
    text = state_texts(value)[0]
    hint = suggest(text, states) if len(text) <= QUOTE_LIMIT else ""  # a 10 MB cell: none
    return (f"{source}: column {clip(name)!r}, {where}: value {clip(text)!r} is not a state "
            f"of {clip(name)!r} (its states are {clip(shown)}){hint}")


def location(source: str, row: int, row_names=None) -> str:
    """Where row ``row`` (0-based) is: ``line N`` of a CSV file (its header is line 1),
    else ``row <label>`` of a DataFrame (by its index label when ``row_names`` is given)."""
    if source.lower().endswith((".parquet", ".pq")):  # a Parquet file has no lines
        return f"row {row_label(row if row_names is None else row_names[row])}"
    if source != "data":  # a RangeIndex: a chunk's rows, numbered from the file's first row
        return f"line {row + 2 + (row_names.start if isinstance(row_names, pd.RangeIndex) else 0)}"
    return f"row {row_label(row_names[row] if row_names is not None else row)}"


def row_label(label) -> str:
    """A DataFrame index label as messages show it: ``12``, ``'x'``."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def encode(frame: pd.DataFrame, columns: Sequence[str], states: Sequence[Sequence[str]], *,
           unknown: str = "error", source: str = "data") -> np.ndarray:
    """State codes of several columns, shape ``(rows, columns)``, Fortran order.

    Columns are contiguous because counting reads them one family at a time.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows.
    columns : sequence of str
        The columns to encode.
    states : sequence of sequences of str
        The states of each column, in order.
    unknown : {"error", "missing"}, default "error"
        What a value that is no state becomes.
    source : str, default "data"
        How messages name the data (a file name: rows are then named by line).

    Returns
    -------
    numpy.ndarray
        Codes, one column per name, ``MISSING`` (−1) where missing.

    Raises
    ------
    DataError
        For an absent column, or a value that is no state (see :func:`encode_column`).

    Examples
    --------
    >>> encode(pd.DataFrame({"A": ["F", "T"]}), ["A"], [("T", "F")]).tolist()
    [[1], [0]]
    """
    require_columns(frame, columns, source)
    row_names = frame.index  # a file's chunk: its rows numbered from the file's first
    largest = max((len(s) for s in states), default=0)
    codes = np.empty((len(frame), len(columns)), dtype=np.int8 if largest < 127 else np.int32,
                     order="F")
    lookups: dict = {}
    for j, (column, column_states) in enumerate(zip(columns, states)):
        codes[:, j] = encode_column(frame[column], column_states, unknown=unknown, name=column,
                                    source=source, row_names=row_names, lookups=lookups)
    return codes


def complete_codes(frame: pd.DataFrame, variables: Sequence[str],
                   states: Sequence[Sequence[str]], source: str = "data") -> np.ndarray:
    """The state indices of complete rows, one column per variable: structure learning
    and scores refuse missing values (DataError naming the first row and column) and
    empty data.

    >>> import pandas as pd
    >>> complete_codes(pd.DataFrame({"A": ["y", "n"]}), ["A"], [("n", "y")], "rows").tolist()
    [[1], [0]]
    """
    codes = encode(frame, variables, states, source=source)
    if not len(codes):
        raise DataError(f"{source}: no rows to learn a structure from or score")
    missing = (codes == MISSING).any(axis=1)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        column = variables[int(np.flatnonzero(codes[row] == MISSING)[0])]
        raise DataError(f"{source}: row {row} has no value for {column!r}; structure "
                        "learning and scores need complete rows (drop or impute them first)")
    return codes


def encode_matrix(array: np.ndarray, names: Sequence[str], states: Sequence[Sequence[str]], *,
                  positions: Sequence[int] | None = None, unknown: str = "error",
                  source: str = "data") -> np.ndarray:
    """State codes of columns ``positions`` (default: all) of a numeric 2-D array, NaN
    being missing; the result is column-major, one column per name.

    A column of whole numbers in a modest range reads its codes from a table indexed by
    value − min (one pass, no hashing); any other column is matched once per distinct
    value (``np.unique``).
    """
    largest = max((len(s) for s in states), default=0)
    positions = range(len(names)) if positions is None else positions
    codes = np.empty((len(array), len(names)), dtype=np.int8 if largest < 127 else np.int32,
                     order="F")
    lookups: dict = {}
    for j, (name, column_states) in enumerate(zip(names, states, strict=True)):
        key = tuple(column_states)
        column = np.ascontiguousarray(array[:, positions[j]])
        found = _number_codes(column, key, lookups)
        if found is None:
            index = _state_index(key, lookups)
            uniques, inverse = np.unique(column, return_inverse=True)
            found = np.array([_state_of(u, index) for u in uniques], dtype=np.int64)[inverse]
        bad = np.flatnonzero(found == -2)
        if len(bad):
            if unknown != "missing":
                raise DataError(_unknown_message(column[bad[0]], key, name, source,
                                                 int(bad[0]), None))
            found[bad] = MISSING
        codes[:, j] = found
    return codes


def _state_index(states: tuple, lookups: dict) -> dict:
    """{state: position}, shared through ``lookups`` by columns with the same states."""
    index = lookups.get(states)
    if index is None:
        index = lookups[states] = {s: i for i, s in enumerate(states)}
    return index


def _number_codes(column: np.ndarray, states: tuple, lookups: dict) -> np.ndarray | None:
    """Codes of a column of whole numbers in a modest range (−2: not a state), else None.

    One table indexed by value − min, built once per (states, range) and shared through
    ``lookups``; NaN becomes MISSING.
    """
    whole = _whole_numbers(column)
    if whole is None:
        return None
    values, low, high = whole
    table = lookups.get((states, low, high))
    if table is None:
        index = _state_index(states, lookups)
        table = np.array([_state_of(v, index) for v in range(low, high + 1)] + [MISSING],
                         dtype=np.int64)
        lookups[(states, low, high)] = table
    return table[values - low]  # NaN was mapped past the end, to MISSING


def _whole_numbers(column: np.ndarray, span: int = 1 << 16):
    """(values as int with NaN → high + 1, low, high) when every value is a whole number
    within ``span`` of each other; else None."""
    if column.dtype.kind in "iub":
        values = column.astype(np.int64)
    elif column.dtype.kind == "f":
        nan = np.isnan(column)
        filled = np.where(nan, 0.0, column) if nan.any() else column
        if not np.all(np.isfinite(filled)) or not np.all(np.floor(filled) == filled):
            return None
        values = filled.astype(np.int64)
    else:
        return None
    if not len(values):
        return None
    low, high = int(values.min()), int(values.max())
    if high - low > span:
        return None
    if column.dtype.kind == "f" and nan.any():
        values[nan] = high + 1
    return values, low, high


def numeric_column(values: pd.Series, name: str, source: str = "data") -> np.ndarray:
    """A column of numbers as float64 (NaN where missing), or DataError naming a bad cell."""
    converted = pd.to_numeric(values, errors="coerce")
    empty = np.flatnonzero(converted.isna().to_numpy())
    if len(empty):  # NaN after conversion: a missing cell, or text that is no number
        codes, uniques = pd.factorize(values.iloc[empty], use_na_sentinel=True)
        for j, value in enumerate(uniques):
            if not (is_missing(value) or str(value).strip() in MISSING_TEXT):
                row = int(empty[np.flatnonzero(codes == j)[0]])
                where = location(source, row, None if source != "data" else values.index)
                raise DataError(f"{source}: column {clip(name)!r}, {where}: value "
                                f"{clip(str(value))!r} is not a number (the variable "
                                f"{clip(name)!r} is continuous)")
    return converted.to_numpy(dtype=float)


def states_from_values(values: pd.Series) -> tuple[str, ...]:
    """The distinct non-missing values of a column as state names, sorted.

    Numbers sort numerically (``2`` before ``10``), everything else as text; an ordered
    categorical (``bbn.discretize``'s intervals) gives its categories in order, used or
    not. Missing are
    NaN, None and blank cells only: with no states declared, a text such as ``None``,
    ``NA`` or ``?`` is what the data says, a state (insurance's ``ThisCarDam`` has a
    state ``None``). Where states are declared, a cell whose text is a state is that
    state and the other texts of ``MISSING_TEXT`` are missing.

    Parameters
    ----------
    values : pandas.Series
        The column.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> states_from_values(pd.Series([10, 2, None, 2.0]))
    ('2', '10')
    >>> states_from_values(pd.Series(["None", "Mild", "", None]))
    ('Mild', 'None')
    >>> states_from_values(pd.Series(pd.Categorical(["(1, 2]"], ["[0, 1]", "(1, 2]"], True)))
    ('[0, 1]', '(1, 2]')
    """
    if isinstance(values.dtype, pd.CategoricalDtype) and values.cat.ordered:
        named = (state_texts(c)[0] for c in values.cat.categories)  # intervals, in order
        return tuple(t for t in named if t.strip())
    uniques = pd.unique(values.dropna())
    texts = {state_texts(v)[0] for v in uniques if not is_missing(v)}
    texts -= {t for t in texts if not t.strip()}  # blank: missing; "NA", "None": states
    try:
        return tuple(sorted(texts, key=float))
    except ValueError:
        return tuple(sorted(texts))

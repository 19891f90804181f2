"""Data in chunks: a table too large for memory, read a block of rows at a time.

Every estimate bbn learns is a function of counts, and counts add up over any split of
the rows, n(pa, x) = Σ_chunks n_chunk(pa, x); so a learner reads one chunk, counts it,
and lets it go. :func:`chunks` yields the chunks of any data bbn reads:

* a DataFrame or a numpy array: one chunk (the in-memory case is the one-chunk case);
* a CSV path: ``pandas.read_csv(chunksize=...)``, the discrete columns parsed straight
  into categoricals over the states;
* a Parquet path (``.parquet``, ``.pq``): its record batches (pyarrow, ``bbn[parquet]``);
* an iterable of DataFrames (a generator, a list).

Rows are numbered across chunks (a chunk's index continues where the last one ended),
so an error names the line of the file or the row of the stream where it is.

>>> import pandas as pd
>>> parts = [pd.DataFrame({"A": ["T", "F"]}), pd.DataFrame({"A": ["F"]})]
>>> [(c.frame.index.tolist(), c.source) for c in chunks(parts)]
[([0, 1], 'data'), ([2], 'data')]
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from bbn.core.data import (
    MISSING_TEXT,
    named_columns,
    read_data,
    refuse_duplicates,
    refuse_longer_rows,
)
from bbn.core.errors import BBNError, DataError, clip
from bbn.core.memory import get_memory_limit

#: File name endings read as Parquet.
PARQUET = (".parquet", ".pq")

#: Bytes one cell of a chunk may take while it is read and encoded (a Python string
#: object's pointer, the parser's buffers and the codes): a generous estimate, so the
#: default chunk stays well inside the memory limit.
CELL_BYTES = 64


class Chunk(NamedTuple):
    """A block of rows and how messages name where it came from (a file, or ``data``)."""

    frame: pd.DataFrame
    source: str


def default_chunksize(n_columns: int) -> int:
    """Rows per chunk: a quarter of the memory limit at ``CELL_BYTES`` a cell, between
    10,000 and 1,000,000 rows (1 GiB and 37 columns: 113,359 rows).

    >>> default_chunksize(37)
    113359
    """
    rows = get_memory_limit() // (4 * CELL_BYTES * max(1, n_columns))
    return int(min(1_000_000, max(10_000, rows)))


def source_name(data) -> str:
    """How messages name ``data``: the file, or ``data``.

    >>> source_name("rows.csv"), source_name(pd.DataFrame())
    ('rows.csv', 'data')
    """
    return str(data) if isinstance(data, (str, os.PathLike)) else "data"


def chunks(data, columns: Sequence[str] | None = None,
           states: Mapping[str, Sequence[str]] | None = None,
           chunksize: int | None = None) -> Iterator[Chunk]:
    """The chunks of ``data``, each a DataFrame with string column names.

    Parameters
    ----------
    data : DataFrame, numpy array, str or path, or iterable of DataFrames
        The rows: in memory (one chunk), a CSV or Parquet file, or DataFrames in turn.
    columns : list of str, optional
        Names for the columns (a plain 2-D array needs them).
    states : mapping, optional
        ``{column: states}`` of the discrete variables: a CSV file parses them straight
        into categoricals.
    chunksize : int, optional
        Rows per chunk of a file (default :func:`default_chunksize`).

    Yields
    ------
    Chunk
        The frame (its index numbers the rows across chunks; for DataFrames in memory,
        their own index) and its source for messages.

    Raises
    ------
    DataError
        For an absent or unreadable file, an iterable holding something other than
        DataFrames, a bad ``chunksize``, or what :func:`bbn.core.data.read_data` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> [len(c.frame) for c in chunks(np.zeros((5, 2)), columns=["A", "B"])]
    [5]
    """
    if chunksize is not None and (not isinstance(chunksize, (int, np.integer))
                                  or chunksize < 1):
        raise DataError(f"chunksize must be a positive number of rows, got {chunksize!r}")
    if isinstance(data, (str, os.PathLike)):
        if str(data).lower().endswith(PARQUET):
            yield from _parquet_chunks(data, columns, chunksize)
        else:
            yield from _csv_chunks(data, columns, states, chunksize)
        return
    if isinstance(data, (pd.DataFrame, np.ndarray)) or not _frames(data):
        yield Chunk(*read_data(data, columns, states))
        return
    first = 0
    for number, frame in enumerate(data):
        if not isinstance(frame, pd.DataFrame):
            raise DataError(f"data: chunk {number + 1} is a {type(frame).__name__}, not a "
                            "DataFrame (an iterable of data must hold DataFrames)")
        frame, source = read_data(frame, columns)
        frame = frame.set_axis(pd.RangeIndex(first, first + len(frame)))
        first += len(frame)
        yield Chunk(frame, source)


def _frames(data) -> bool:
    """Whether ``data`` is an iterable of DataFrames (a list of rows is data in memory)."""
    if isinstance(data, (list, tuple)):
        return bool(data) and isinstance(data[0], pd.DataFrame)
    return isinstance(data, Iterable) and not hasattr(data, "__array__")


def _csv_chunks(path, columns, states, chunksize) -> Iterator[Chunk]:
    options = dict(keep_default_na=False, na_filter=False, skipinitialspace=True)
    source = str(path)
    try:  # header=None: the names as written (read_csv would rename a second 'x' to 'x.1')
        written = pd.read_csv(path, nrows=1, header=None, dtype=str, **options)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as error:
        raise DataError(f"{path}: cannot read as CSV: {error}") from None
    names = [str(c).strip() for c in written.iloc[0]] if len(written) else []
    refuse_duplicates(names, source)
    if columns is not None:
        if len(columns) != len(names):
            raise DataError(f"columns= names {len(columns)} columns but {path} has "
                            f"{len(names)}")
        names = [str(c) for c in columns]
    dtypes = []
    for name in names:
        known = list((states or {}).get(name, ()))
        dtypes.append(pd.CategoricalDtype(known + sorted(MISSING_TEXT - set(known)))
                      if known else str)
    size = chunksize or default_chunksize(len(names))
    try:
        reader = pd.read_csv(path, header=0, names=names, chunksize=size,
                             dtype=dict(enumerate(dtypes)), **options)
        with reader:
            while (frame := _next_quietly(reader)) is not None:
                refuse_longer_rows(frame, path, len(names))
                unknown = [j for j, t in enumerate(dtypes) if t is not str
                           and (frame.iloc[:, j].cat.codes.to_numpy() < 0).any()]
                if unknown:  # some cell is no state: re-read the chunk as text to quote it
                    frame = pd.read_csv(path, header=0, names=names, dtype=str,
                                        skiprows=range(1, frame.index[0] + 1),
                                        nrows=len(frame), **options).set_axis(frame.index)
                yield Chunk(frame, source)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as error:
        raise DataError(f"{path}: cannot read as CSV: {error}") from None


def _next_quietly(reader) -> pd.DataFrame | None:
    """The reader's next chunk (None at the end), pandas' warning about a cell outside
    the categories silenced: such cells are found by their code, −1. Only this call is
    silenced, not the caller's code between chunks."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return next(reader, None)


def _parquet_chunks(path, columns, chunksize) -> Iterator[Chunk]:
    try:
        import pyarrow.parquet as pq  # here: optional (bbn[parquet]), ~150 ms to import
    except ImportError:
        raise DataError(f"{path}: reading Parquet needs pyarrow: pip install "
                        "'bbn[parquet]'") from None
    try:
        file = pq.ParquetFile(path)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except Exception as error:  # noqa: BLE001 - a damaged footer: pyarrow's own errors
        raise DataError(f"{path}: cannot read as Parquet: {type(error).__name__}: "
                        f"{clip(str(error), 200)}") from None
    first = 0
    # A damaged file fails anywhere: its footer, its schema's pandas metadata (JSON), a
    # dictionary page, a batch; pyarrow and pandas raise what they meet. Only bbn's own
    # errors (a column read_data refuses) pass through as they are.
    try:
        size = chunksize or default_chunksize(len(file.schema_arrow.names))
        batches = file.iter_batches(batch_size=size)
        while (batch := next(batches, None)) is not None:
            batch.validate(full=True)  # text that is not UTF-8 fails here, not in pandas later
            frame = named_columns(batch.to_pandas(), str(path))
            if columns is not None:
                frame, _ = read_data(frame, columns)
            frame = frame.set_axis(pd.RangeIndex(first, first + len(frame)))
            first += len(frame)
            yield Chunk(frame, str(path))
    except BBNError:
        raise
    except Exception as error:  # noqa: BLE001 - see above: a damaged file, told as such
        raise DataError(f"{path}: cannot read as Parquet (damaged after row {first}?): "
                        f"{type(error).__name__}: {clip(str(error), 200)}") from None

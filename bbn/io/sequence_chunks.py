"""Sequences in chunks: rows of many sequences (one row per step, a sequence-id column)
read a block at a time by :func:`bbn.io.chunks.chunks`, regrouped so that no sequence is
split across two blocks — the rows of the last sequence of a chunk are held back and
lead the next block.

    chunk_k = [... | s_j's first rows]  →  block_k = chunk_k minus s_j,
    block_{k+1} = s_j's rows ∪ chunk_{k+1} minus its own last sequence ...

In a file read in chunks the rows of a sequence are contiguous (in time order); a
sequence id met again after another sequence's rows is refused, naming its row.

>>> import pandas as pd
>>> parts = [pd.DataFrame({"id": [1, 1, 2]}), pd.DataFrame({"id": [2, 3]})]
>>> [c.frame["id"].tolist() for c in sequence_chunks(parts, "id")]
[[1, 1], [2, 2], [3]]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from bbn.core.data import location
from bbn.core.errors import DataError, suggest
from bbn.io.chunks import Chunk, chunks


def sequence_chunks(data, sequence_id: str | None, columns: Sequence[str] | None = None,
                    states: Mapping[str, Sequence[str]] | None = None,
                    chunksize: int | None = None) -> Iterator[Chunk]:
    """The blocks of whole sequences of ``data``.

    Parameters
    ----------
    data : DataFrame, str or path, iterable of DataFrames
        As :func:`bbn.io.chunks.chunks` reads it (a frame in memory: one block).
    sequence_id : str or None
        The column naming each row's sequence; None: every row is one sequence, read
        whole into one block.
    columns, states, chunksize
        As :func:`bbn.io.chunks.chunks`.

    Yields
    ------
    Chunk
        Frames holding whole sequences (their rows numbered across the file).

    Raises
    ------
    DataError
        No sequence-id column (with did-you-mean), a missing sequence id, or a sequence
        whose rows are not contiguous across chunks — each naming the row.

    Examples
    --------
    >>> import pandas as pd
    >>> parts = [pd.DataFrame({"id": ["a"]}), pd.DataFrame({"id": ["b", "a"]})]
    >>> try:
    ...     list(sequence_chunks(parts, "id"))
    ... except DataError as error:
    ...     print(str(error)[:65])
    data: sequence 'a' continues at row 2 after other sequences' rows
    """
    if sequence_id is None:
        read = list(chunks(data, columns, states, chunksize))
        if read:
            yield Chunk(pd.concat([c.frame for c in read]), read[0].source)
        return
    finished: set = set()
    held = None
    for chunk in chunks(data, columns, states, chunksize):
        frame = chunk.frame if held is None else pd.concat([held, chunk.frame])
        ids = _ids(frame, sequence_id, chunk.source)
        tail = np.zeros(len(ids), dtype=bool)   # the last sequence's trailing rows
        if len(ids):
            other = np.flatnonzero(ids != ids[-1])
            tail[(other[-1] + 1) if len(other) else 0:] = True
        ready, held = frame[~tail], frame[tail]
        if len(ready):
            _refuse_repeats(ready, ids[~tail], finished, chunk.source)
            yield Chunk(ready, chunk.source)
    if held is not None and len(held):
        _refuse_repeats(held, _ids(held, sequence_id, chunk.source), finished, chunk.source)
        yield Chunk(held, chunk.source)


def _ids(frame: pd.DataFrame, sequence_id: str, source: str):
    if sequence_id not in frame.columns:
        raise DataError(f"{source}: no sequence-id column {sequence_id!r}"
                        f"{suggest(str(sequence_id), map(str, frame.columns))}")
    ids = frame[sequence_id]
    missing = ids.isna().to_numpy()
    if missing.any() or (ids.astype(str) == "").any():
        row = int(missing.argmax()) if missing.any() else int((ids.astype(str) == "").argmax())
        raise DataError(f"{source}: {_where(frame, row, source)}: the sequence-id "
                        f"column {sequence_id!r} is empty")
    return ids.to_numpy(dtype=object)


def _where(frame: pd.DataFrame, row: int, source: str) -> str:
    """Where the ``row``-th row of a block is: its line of the file, or its label."""
    if source == "data":
        return location(source, row, frame.index)
    return location(source, int(frame.index[row]))


def _refuse_repeats(frame: pd.DataFrame, ids, finished: set, source: str) -> None:
    """DataError if a sequence of ``frame`` was finished in an earlier block."""
    unique = pd.unique(ids)
    again = [i for i in unique if i in finished]
    if again:
        row = int((ids == again[0]).argmax())
        raise DataError(f"{source}: sequence {again[0]!r} continues at "
                        f"{_where(frame, row, source)} after other sequences' rows "
                        "(a sequence's rows are contiguous when the data is read in chunks)")
    finished.update(unique)

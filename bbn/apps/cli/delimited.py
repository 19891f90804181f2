"""``--sep``: data files whose cells are separated by something other than a comma.

The library reads CSV files with commas (``bbn.learn(net, "rows.csv")``); a Python user
with semicolons reads the file with pandas and passes the frame. On the command line,
``--sep ';'`` (or ``'\\t'``, ``tab``, any one character) makes :func:`delimited` hand the
library the file as DataFrames of text, a block of rows at a time, re-read from the
start whenever the library reads it again (EM's passes): cells stay text, as bbn's own
CSV reading keeps them (no type guessing; ``NA`` stays ``NA``), and messages name the
row (``row 7``, counted from 0 across blocks).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rows.csv")
>>> with open(path, "w") as file:
...     _ = file.write("A;B\\nT;NA\\nF;x\\n")
>>> frame = whole(path, ";")
>>> frame.values.tolist()
[['T', 'NA'], ['F', 'x']]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pandas as pd

from bbn.core.errors import DataError
from bbn.io.chunks import PARQUET, default_chunksize

#: Names a delimiter may be given by on the command line.
NAMED = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " ",
         "pipe": "|"}


def add_sep_argument(parser: argparse.ArgumentParser, help: str = (
        "the delimiter of the data file's cells: one character, or tab, semicolon, space, "
        "pipe (default ',')")) -> None:
    """``--sep``: the data file's delimiter."""
    parser.add_argument("--sep", default=",", type=separator, help=help)


def separator(text: str) -> str:
    """The delimiter ``text`` names: one character, or a name of ``NAMED``.

    >>> separator(";"), separator("tab"), separator("\\\\t")
    (';', '\\t', '\\t')
    """
    sep = NAMED.get(text.lower(), text)
    if len(sep) != 1 or sep in "\"\r\n":
        raise argparse.ArgumentTypeError(
            f"{text!r} is no delimiter: give one character (such as ';') or one of "
            f"{', '.join(sorted(NAMED))}")
    return sep


def _options(sep: str) -> dict:
    return dict(sep=sep, dtype=str, keep_default_na=False, na_filter=False,
                skipinitialspace=True)


def whole(path: str, sep: str, rows: int | None = None) -> pd.DataFrame:
    """The file (its first ``rows`` rows) as one DataFrame of text, columns named as
    written.

    Raises
    ------
    DataError
        For a file that is absent or no delimited text.
    """
    try:
        frame = pd.read_csv(path, nrows=rows, **_options(sep))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as error:
        raise DataError(f"{path}: cannot read with delimiter {sep!r}: {error}") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


class Blocks:
    """The file as DataFrames of text, ``chunksize`` rows each, read again from the start
    at every iteration (an iterable of DataFrames, as :func:`bbn.io.chunks.chunks` takes).
    """

    def __init__(self, path: str, sep: str, chunksize: int | None = None) -> None:
        self.path, self.sep, self.chunksize = path, sep, chunksize

    def __iter__(self) -> Iterator[pd.DataFrame]:
        header = whole_header(self.path, self.sep)
        size = self.chunksize or default_chunksize(len(header))
        try:
            with pd.read_csv(self.path, chunksize=size, **_options(self.sep)) as reader:
                for frame in reader:
                    frame.columns = header
                    yield frame
        except (OSError, UnicodeDecodeError, pd.errors.ParserError) as error:
            raise DataError(f"{self.path}: cannot read with delimiter {self.sep!r}: "
                            f"{error}") from None


def whole_header(path: str, sep: str) -> list[str]:
    """The column names of the file's first line."""
    return list(whole(path, sep, rows=0).columns)


def delimited(path: str, sep: str, chunksize: int | None = None, in_blocks: bool = True):
    """What the library reads for the data file ``path``: the path itself when its cells
    are separated by commas (or it is Parquet), else :class:`Blocks` (``in_blocks``) or
    the whole file as a DataFrame."""
    if sep == "," or str(path).lower().endswith(PARQUET):
        return path
    return Blocks(path, sep, chunksize) if in_blocks else whole(path, sep)


__all__ = ["NAMED", "Blocks", "add_sep_argument", "delimited", "separator", "whole",
           "whole_header"]

"""``bbn sample MODEL -n N [-o DATA.csv.gz]``: draw rows from a model, a chunk at a time, as
CSV (gzipped when the output ends in ``.gz``), reproducible with ``--seed``. A dynamic
model is sampled as its network of ``--unroll T`` slices: N sequences, one row each
(columns ``X[0]`` … ``X[T-1]``), or with ``--sequence-id COL`` one row per step, as
``bbn learn --sequence-id`` and ``bbn filter`` read them.

>>> from bbn.apps.cli.main import main
>>> main(["sample", "models/chair.bn", "-n", "2", "--seed", "1"])
C,S,W,B,A
...
0
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from bbn.apps.cli.delimited import add_sep_argument
from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, count, refuse_overwriting
from bbn.apps.cli.unrolled import add_unroll_argument, read_unrolled
from bbn.core.errors import BBNError
from bbn.core.progress import on_terminal
from bbn.io.formats import atomic_writer
from bbn.tasks.learning.sampling import sample_chunks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, "model file with every table given")
    parser.add_argument("-n", "--rows", type=count, required=True,
                        help="rows to draw (1000000 or 1e6)")
    parser.add_argument("-o", "--output", help="CSV file to write (.gz: gzipped), chunk by "
                        "chunk; without it the rows are printed")
    parser.add_argument("--seed", type=int, help="makes the draw reproducible (for a given "
                        "--chunksize)")
    add_sep_argument(parser, "the delimiter written between cells: one character, or "
                     "tab, semicolon, space, pipe (default ',')")
    parser.add_argument("--chunksize", type=int, default=100_000,
                        help="rows drawn and written at a time (default 100000)")
    add_unroll_argument(parser, "a dynamic model (P(X | X[-1])): draw sequences of T slices "
                        "(columns X[0] ... X[T-1])")
    parser.add_argument("--sequence-id", metavar="COLUMN",
                        help="with --unroll: one row per step, a sequence's rows told apart "
                        "by this column (0, 1, ...), as bbn learn --sequence-id reads them")


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, model=args.model)
    if args.sequence_id is not None and args.unroll is None:
        raise BBNError("--sequence-id writes a dynamic model's sequences a row per step: "
                       "give --unroll T, the steps of each sequence")
    net = read_unrolled(args)
    progress = on_terminal("bbn sample: ")   # a bar on a terminal, else silent
    rows = sample_chunks(net, args.rows, seed=args.seed, chunksize=args.chunksize,
                         progress=progress)
    if args.sequence_id is not None:
        rows = (by_step(chunk, args.unroll, args.sequence_id) for chunk in rows)
    try:
        return _write(net, args, rows)
    finally:
        if progress is not None:
            progress.close()


def _write(net, args: argparse.Namespace, rows) -> int:
    """Write the chunks of ``rows`` to standard output or, whole or not at all, the file."""
    if args.output is None:
        for start, chunk in enumerate(rows):
            sys.stdout.write(csv_text(chunk, header=start == 0, sep=args.sep).decode("utf-8"))
        return EXIT_OK
    with atomic_writer(args.output) as file:
        written = 0
        for chunk in rows:
            file.write(csv_text(chunk, header=written == 0, sep=args.sep))
            written += len(chunk)
        if not written:  # no rows: the header alone
            file.write((args.sep.join(net.variables) + "\n").encode("utf-8"))
    if args.sequence_id is None:
        print(f"wrote {args.output} ({args.rows} rows of {len(net.variables)} variables)")
    else:
        print(f"wrote {args.output} ({args.rows} sequences of {args.unroll} steps, "
              f"{written} rows)")
    return EXIT_OK


def by_step(wide, steps: int, sequence_id: str):
    """Rows of an unrolled network (columns ``X[0]`` … ``X[T-1]``) as one row per step:
    the ``sequence_id`` column (the row's number in ``wide``'s index), then a column per
    variable of a slice.

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"X[0]": ["a", "b"], "X[1]": ["c", "d"]}, index=[4, 5])
    >>> by_step(wide, 2, "seq").to_dict("list")
    {'seq': [4, 4, 5, 5], 'X': ['a', 'c', 'b', 'd']}
    """
    names = [str(column)[:-3] for column in wide.columns if str(column).endswith("[0]")]
    if sequence_id in names:
        raise BBNError(f"--sequence-id {sequence_id}: a variable has that name; choose "
                       "another column name")
    long = {sequence_id: wide.index.to_numpy().repeat(steps)}
    for name in names:
        columns = [wide[f"{name}[{t}]"] for t in range(steps)]
        cells = pd.concat(columns, axis=1).to_numpy().reshape(-1)
        if all(isinstance(c.dtype, pd.CategoricalDtype) for c in columns):
            cells = pd.Categorical(cells, categories=columns[0].cat.categories)
        long[name] = cells
    return pd.DataFrame(long)


def csv_text(frame, header: bool, sep: str = ",") -> bytes:
    """``frame.to_csv(index=False)`` as UTF-8 bytes; with pyarrow, when every column is
    categorical and no state needs quoting, written by pyarrow's CSV writer instead:
    the same text, 7.5× faster (alarm, 100,000 rows: 0.34 s against 2.6 s).

    >>> import pandas as pd
    >>> csv_text(pd.DataFrame({"A": pd.Categorical(["T", "F"])}), header=True)
    b'A\\nT\\nF\\n'
    """
    head = frame.iloc[:0].to_csv(index=False, sep=sep).encode("utf-8") if header else b""
    if not len(frame) or not _plain_states(frame, sep):
        return head + frame.to_csv(index=False, header=False, sep=sep).encode("utf-8")
    try:
        import pyarrow as pa  # here: optional (bbn[parquet]), the fast writer
        import pyarrow.csv
    except ImportError:
        return head + frame.to_csv(index=False, header=False, sep=sep).encode("utf-8")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = pa.table({name: table[name].cast(pa.string()) for name in table.column_names})
    sink = pa.BufferOutputStream()
    pyarrow.csv.write_csv(table, sink, pyarrow.csv.WriteOptions(
        include_header=False, quoting_style="none", delimiter=sep))
    return head + sink.getvalue().to_pybytes()


def _plain_states(frame, sep: str = ",") -> bool:
    """Every column categorical, and no state empty or needing quotes in CSV."""
    special = set(f'{sep}"\r\n')
    return all(str(frame[c].dtype) == "category" and all(
        isinstance(s, str) and s and not special & set(s) for s in frame[c].cat.categories)
        for c in frame.columns)


__all__ = ["add_arguments", "by_step", "csv_text", "run"]

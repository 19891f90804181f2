"""The sufficient statistics of a network's tables, counted chunk by chunk and summed.

For a discrete X the counts of its family, for a Gaussian X the moments of its values
per parent configuration (:class:`bbn.tasks.learning.gaussian.Moments`). Both add over any
split of the rows into chunks C_1, ..., C_K:

    n(pa, x) = Σ_k n_k(pa, x)          (n, mean, M2)(pa) = ⊕_k (n_k, mean_k, M2_k)(pa)

(⊕: Chan's pairwise update), so a table learned from the statistics of the chunks is the
table learned from all rows at once: the counts are the same integers, the moments agree
to rounding. :func:`table_statistics` reads any data in chunks (:mod:`bbn.io.chunks`), or
counts a Dask collection per partition (:mod:`bbn.questions.partitions`); data in memory is the
one-chunk case. :func:`bbn.learn` and :func:`bbn.structure_score` build on it.

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"])
>>> parts = [pd.DataFrame({"A": ["T", "F"]}), pd.DataFrame({"A": ["T"]})]
>>> table_statistics(net, parts).counts["A"].tolist()
[2.0, 1.0]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bbn.core.codes import mixed_radix
from bbn.core.data import MISSING, encode, location, numeric_column, require_columns
from bbn.core.errors import DataError
from bbn.core.progress import Progress, report, reporter
from bbn.io.chunks import chunks
from bbn.model.network import Network
from bbn.questions.partitions import is_dask, sum_over_partitions
from bbn.tasks.learning.counting import family_counts
from bbn.tasks.learning.gaussian import Moments
from bbn.tasks.learning.regression import Gram


@dataclass
class TableStatistics:
    """What learning a network's tables needs from the rows, and how many there were.

    Attributes
    ----------
    counts : dict
        ``{discrete variable: n(pa, x)}``, shaped by its family's cardinalities.
    moments : dict
        ``{Gaussian variable: Moments}`` per parent configuration (for a Gaussian with
        continuous parents, its :class:`~bbn.tasks.learning.regression.Gram` matrices).
    columns : Moments or None
        The moments of each Gaussian column over the rows counted (for ε).
    rows, dropped : int
        Rows counted, and rows left out for a missing value (``missing="drop"``).

    Examples
    --------
    >>> a = TableStatistics({"A": np.array([1.0, 0.0])}, rows=1)
    >>> (a + a).counts["A"].tolist(), (a + a).rows
    ([2.0, 0.0], 2)
    """

    counts: dict[str, np.ndarray] = field(default_factory=dict)
    moments: dict[str, Moments] = field(default_factory=dict)
    columns: Moments | None = None
    rows: int = 0
    dropped: int = 0

    def __add__(self, other: TableStatistics) -> TableStatistics:
        return TableStatistics(
            {v: c + other.counts[v] for v, c in self.counts.items()},
            {v: m + other.moments[v] for v, m in self.moments.items()},
            None if self.columns is None else self.columns + other.columns,
            self.rows + other.rows, self.dropped + other.dropped)


#: How a refusal of missing values ends, by default (learning a network's tables).
LEARN_HINT = ("pass missing='drop' to ignore those rows or missing='em' to learn with "
              "expectation-maximisation")


def table_statistics(net: Network, data, *, columns=None, missing: str = "error",
                     chunksize: int | None = None, hint: str = LEARN_HINT,
                     progress: Progress = None) -> TableStatistics:
    """The statistics of every table of ``net`` from ``data``, read chunk by chunk.

    Parameters
    ----------
    net : Network
        The variables, states and parents.
    data : DataFrame, array, CSV or Parquet path, iterable of DataFrames, or Dask frame
        The rows (see :func:`bbn.io.chunks.chunks`).
    columns : list of str, optional
        Names for the columns of a plain 2-D array or a file.
    missing : {"error", "drop"}, default "error"
        A row with a missing value: DataError naming it, or left out.
    chunksize : int, optional
        Rows per chunk of a file.
    hint : str
        How the message refusing a missing value ends.
    progress : callable, True or None
        Told the rows counted after each chunk (:mod:`bbn.core.progress`).

    Returns
    -------
    TableStatistics

    Raises
    ------
    DataError
        For a missing column, a value that is no state (naming column, row and value),
        or a missing value under ``"error"``.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"])
    >>> table_statistics(net, pd.DataFrame({"A": ["F", "F"]})).counts["A"].tolist()
    [0.0, 2.0]
    """
    if is_dask(data):
        return sum_over_partitions(lambda frame: chunk_statistics(net, frame, "data", missing,
                                                                  hint), data)
    states = {v: net.states(v) for v in net.variables if not net.is_gaussian(v)}
    total, tell, rows = None, reporter(progress), 0
    for chunk in chunks(data, columns, states, chunksize):
        counted = chunk_statistics(net, chunk.frame, chunk.source, missing, hint)
        total = counted if total is None else total + counted
        rows += len(chunk.frame)
        report(tell, "learn", rows, note="rows counted")
    if total is None:  # an empty iterable: the statistics of no rows
        total = chunk_statistics(net, pd.DataFrame({v: [] for v in net.variables}), "data",
                                 missing)
    return total


def chunk_statistics(net: Network, frame: pd.DataFrame, source: str = "data",
                     missing: str = "error", hint: str = LEARN_HINT) -> TableStatistics:
    """The statistics of one chunk: one ``np.bincount`` per family.

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"])
    >>> chunk_statistics(net, pd.DataFrame({"A": ["T", None]}), missing="drop").dropped
    1
    """
    discrete = [v for v in net.variables if not net.is_gaussian(v)]
    continuous = [v for v in net.variables if net.is_gaussian(v)]
    require_columns(frame, net.variables, source)
    codes = encode(frame, discrete, [net.states(v) for v in discrete], source=source)
    values = np.column_stack([numeric_column(frame[v], v, source) for v in continuous]
                             ) if continuous else np.empty((len(frame), 0))
    incomplete = (codes == MISSING).any(axis=1) | np.isnan(values).any(axis=1)
    dropped = int(incomplete.sum())
    if dropped:
        if missing == "error":
            raise DataError(_missing_message(frame, codes, values, discrete + continuous,
                                             source, hint))
        codes, values = codes[~incomplete], values[~incomplete]
    position = {v: j for j, v in enumerate(discrete)}
    counts, moments = {}, {}
    for v in discrete:
        family = net.parents(v) + (v,)
        counts[v] = family_counts([codes[:, position[u]] for u in family],
                                  [net.cardinality(u) for u in family])
    for j, v in enumerate(continuous):
        parents = [p for p in net.parents(v) if p in position]  # the discrete ones
        cards = [net.cardinality(p) for p in parents]
        index = (mixed_radix([codes[:, position[p]] for p in parents], cards) if parents
                 else np.zeros(len(codes), dtype=np.int64))
        q = int(np.prod(cards)) if cards else 1
        regressors = [continuous.index(p) for p in net.parents(v) if p not in position]
        moments[v] = (Moments.of(index, values[:, j], q) if not regressors else Gram.of(
            index, np.column_stack([np.ones(len(values)), values[:, regressors],
                                    values[:, j]]), q))
    column_moments = None
    if continuous:  # one configuration per column: the columns side by side
        rows, width = values.shape
        column_moments = Moments.of(np.tile(np.arange(width), rows), values.ravel(), width)
    return TableStatistics(counts, moments, column_moments, len(codes), dropped)


def _missing_message(frame: pd.DataFrame, codes, values, names, source, hint) -> str:
    holes = np.column_stack([codes == MISSING, np.isnan(values)])
    row, column = (int(i) for i in np.argwhere(holes)[0])
    name = names[column]
    where = location(source, row, frame.index)
    return (f"{source}: column {name!r}, {where}: missing value ({int(holes.any(axis=1).sum())} "
            f"row(s) have one); {hint}")

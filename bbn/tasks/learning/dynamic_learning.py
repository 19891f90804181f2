"""The tables of a 2-TBN from complete sequences: slice 0's tables from the first step of
every sequence, the transition tables from every pair of consecutive steps, pooled over
time (the tables are the same at every step), each by :func:`bbn.learn` and its
estimators. A variable with no parent in the slice before and one table for every slice
is learned from every row.

    P_0(v | pa_0) from {row_1 of each sequence},  P(v_t | pa) from {(row_{t-1}, row_t)}

With a hidden variable, missing cells or a file read in chunks, the same tables come
from expected counts, by EM (:mod:`bbn.tasks.learning.sequence_em`).

>>> import bbn, pandas as pd
>>> dbn = bbn.DynamicNetwork()
>>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"], table=[[0.5, 0.5], [0.5, 0.5]],
...                  initial=[0.5, 0.5])
>>> data = pd.DataFrame({"X": ["a", "a", "b", "b", "a"], "id": [1, 1, 1, 2, 2]})
>>> learned = learn_dynamic(dbn, data, sequence_id="id")
>>> learned.two_slice().cpt_array("X[1]").tolist()
[[0.5, 0.5], [1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import bbn.model.dynamic as dynamic
import bbn.questions.findings as findings
from bbn.core.data import MISSING_TEXT
from bbn.core.errors import DataError
from bbn.tasks.learning.parameters import learn
from bbn.tasks.learning.sequence_em import dynamic_em


def learn_dynamic(dbn, data, sequence_id: str | None = None,
                  estimator="mle", **options):
    """A copy of ``dbn`` whose tables are estimated from sequences.

    Parameters
    ----------
    dbn : bbn.DynamicNetwork
        The structure; its tables, if any, are where EM starts.
    data : pandas.DataFrame, str or path, or iterable of DataFrames
        One row per step, a column per variable, rows of a sequence in time order; a
        CSV or Parquet file is read in chunks (``chunksize=``), sequences never split.
    sequence_id : str, optional
        The column naming each row's sequence (default: one sequence).
    estimator : Estimator or str, default "mle"
        As :func:`bbn.learn` takes it. Complete sequences in a DataFrame are counted
        and ``options`` go to :func:`bbn.learn`; with a hidden variable (no column),
        missing cells, or a file, the tables are learned by EM
        (:func:`bbn.tasks.learning.sequence_em.dynamic_em`, which takes ``options``:
        ``tol``, ``max_iter``, ``seed``, ``chunksize``, ``progress``).

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    DataError
        No two consecutive steps to learn the transition from, or what :func:`bbn.learn`
        or EM refuses (unknown states, a bad sequence id), naming the column (in slice
        form, ``X[0]``, ``X[1]``, for complete sequences).

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> dbn = bbn.DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    >>> learn_dynamic(dbn, pd.DataFrame({"X": ["a", "b", "b", "b"]})).unroll(1).cpt_array(
    ...     "X[0]").tolist()
    [0.25, 0.75]
    """
    dynamic.require_first_order(dbn, "bbn.learn_dynamic")
    if not _complete(dbn, data):
        return dynamic_em(dbn, data, estimator, sequence_id=sequence_id, **options).network
    rows, lengths, _ = findings.sequence_rows(data, sequence_id)
    frame = data.drop(columns=[sequence_id] if sequence_id else []).iloc[rows]
    frame = frame.reset_index(drop=True)
    starts = np.cumsum(lengths) - lengths
    current = np.setdiff1d(np.arange(len(frame)), starts)
    variables = list(dbn.variables)

    def at(positions, step: int) -> pd.DataFrame:
        return frame.iloc[positions][variables].rename(
            columns={v: dynamic.slice_name(v, step) for v in variables}).reset_index(drop=True)

    first = learn(dbn.unroll(1), at(starts, 0), estimator, **options)
    initial = {v: first.cpt_array(dynamic.slice_name(v, 0)) for v in dbn.variables}
    static = [v for v in dbn.variables if dbn.static(v)]
    if static:
        every = learn(dbn.unroll(1), at(np.arange(len(frame)), 0), estimator, **options)
        initial.update({v: every.cpt_array(dynamic.slice_name(v, 0)) for v in static})
    if len(static) == len(dbn.variables):
        return dynamic.with_tables(dbn, initial, initial)
    if len(current) == 0:
        raise DataError("no sequence has two steps: the transition tables need pairs of "
                        "consecutive rows")
    pairs = pd.concat([at(current - 1, 0), at(current, 1)], axis=1)
    two = learn(dbn.two_slice(), pairs, estimator, **options)
    transition = {v: initial[v] if v in static else two.cpt_array(dynamic.slice_name(v, 1))
                  for v in dbn.variables}
    return dynamic.with_tables(dbn, initial, transition)


def _complete(dbn, data) -> bool:
    """Whether ``data`` is a DataFrame with a column and a state in every cell for every
    variable (else EM learns the tables)."""
    if not isinstance(data, pd.DataFrame) or not set(dbn.variables) <= set(data.columns):
        return False
    cells = data[list(dbn.variables)]
    return not (cells.isna().to_numpy().any() or cells.isin(MISSING_TEXT).to_numpy().any())

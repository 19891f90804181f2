"""The tables of a 2-TBN from complete sequences: slice 0's tables from the first step of
every sequence, the transition tables from every pair of consecutive steps, pooled over
time (the tables are the same at every step), each by :func:`bbn.learn` and its
estimators. A variable with no parent in the slice before and one table for every slice
is learned from every row.

    P_0(v | pa_0) from {row_1 of each sequence},  P(v_t | pa) from {(row_{t-1}, row_t)}

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
import bbn.model.hmm as hmm_model
import bbn.questions.findings as findings
from bbn.core.errors import DataError
from bbn.tasks.learning.parameters import learn


def learn_dynamic(dbn, data: pd.DataFrame, sequence_id: str | None = None,
                  estimator="mle", **options):
    """A copy of ``dbn`` whose tables are estimated from complete sequences.

    Parameters
    ----------
    dbn : bbn.DynamicNetwork
        The structure; its tables are not used.
    data : pandas.DataFrame
        One row per step, a column per variable, rows of a sequence in time order.
    sequence_id : str, optional
        The column naming each row's sequence (default: one sequence).
    estimator : Estimator or str, default "mle"
        As :func:`bbn.learn` takes it; ``options`` go to :func:`bbn.learn` too. With a
        hidden variable (no column), the 2-TBN must be an HMM — a chain ``P(X | X[-1])``
        and one reading ``P(O | X)`` — learned by Baum–Welch (:meth:`bbn.HMM.fit`) from
        its tables; ``options`` then go to ``fit`` (``n_iter``, ``tol``).

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    DataError
        No two consecutive steps to learn the transition from, a hidden variable in a
        2-TBN that is no HMM, or what :func:`bbn.learn` refuses (missing values, unknown
        states), naming the column in slice form (``X[0]``, ``X[1]``).

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> dbn = bbn.DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    >>> learn_dynamic(dbn, pd.DataFrame({"X": ["a", "b", "b", "b"]})).unroll(1).cpt_array(
    ...     "X[0]").tolist()
    [0.25, 0.75]
    """
    rows, lengths, _ = findings.sequence_rows(data, sequence_id)
    frame = data.drop(columns=[sequence_id] if sequence_id else []).iloc[rows]
    frame = frame.reset_index(drop=True)
    starts = np.cumsum(lengths) - lengths
    current = np.setdiff1d(np.arange(len(frame)), starts)
    variables = [v for v in dbn.variables if v in frame.columns]
    if len(variables) < len(dbn.variables):
        return _baum_welch(dbn, frame, lengths, variables, options)

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


def _baum_welch(dbn, frame: pd.DataFrame, lengths: np.ndarray, observed: list[str],
                options: dict):
    """An HMM-shaped 2-TBN with its chain hidden, by Baum–Welch from its tables."""
    hidden = [v for v in dbn.variables if v not in observed]
    shape = (len(hidden) == 1 and len(observed) == 1
             and dbn.parents(hidden[0]) == (f"{hidden[0]}[-1]",)
             and dbn.parents(observed[0]) == (hidden[0],) and dbn.static(observed[0]))
    if not shape:
        raise DataError(f"no column for {hidden}: hidden variables are learned here only in "
                        "an HMM (a chain P(X | X[-1]) and one reading P(O | X)), by "
                        "Baum–Welch")
    chain, reading = hidden[0], observed[0]
    two = dbn.two_slice()
    model = hmm_model.HMM(dbn.states(chain), dbn.states(reading),
                          start=two.cpt_array(dynamic.slice_name(chain, 0)),
                          transition=two.cpt_array(dynamic.slice_name(chain, 1)),
                          emission=two.cpt_array(dynamic.slice_name(reading, 1)))
    model.fit(frame[reading].to_numpy(), lengths, **options)
    return dynamic.with_tables(dbn, {chain: model.start, reading: model.emission},
                               {chain: model.transition, reading: model.emission})

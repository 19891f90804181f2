"""Classification with any network: the posterior of one variable for every row of a table.

    P(T | e_r)   for each row r, e_r = the row's observed cells (other columns ignored)

Rows are grouped by which columns they observe (a missing cell is summed out); each
group is one batched elimination over all its rows
(:meth:`bbn.Engine.posterior_of_cases`), never one query per row. Observed Gaussian
columns weigh the batched joint posterior of the target and their unobserved parents by
their log-densities (:func:`bbn.engines.exact.continuous.weigh`), still in one pass per group.

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"],
...                  table={"yes": [0.9, 0.1], "no": [0.2, 0.8]})
>>> predict(net, pd.DataFrame({"Wet": ["yes", "no", None]}), "Rain").tolist()
['yes', 'no', 'no']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bbn.core.codes import observed_groups
from bbn.core.data import MISSING, encode_column, numeric_column
from bbn.core.errors import ModelError
from bbn.core.progress import Progress, report, reporter
from bbn.io.chunks import Chunk, chunks
from bbn.model.network import Network
from bbn.questions.partitions import is_dask, map_partitions
from bbn.questions.resolution import check_discrete, check_variables
from bbn.tasks.classification.decisions import check_rule, decide, loss_matrix
from bbn.tasks.learning.policies import check_unseen

#: Rows per batched elimination (bounds memory; the engine checks its own limit too).
BATCH_ROWS = 50_000


def predict_proba(net: Network, data, target: str, *, columns=None,
                  unseen: str = "error", chunksize: int | None = None,
                  progress: Progress = None):
    """P(target = s | row) for every row (index kept) and state s (one column each):
    ``bbn.predict_proba(net, data, target)``.

        P(T | e_r) for each row r, e_r = the row's observed cells

    Columns that name variables are evidence (the target's own column is ignored);
    missing cells are summed out. Impossible evidence in a row raises
    :class:`bbn.ImpossibleEvidenceError` naming the row. See ``docs/classification.md``.

    Parameters
    ----------
    net : Network
        The network.
    data : pandas.DataFrame, str, iterable of DataFrames or Dask DataFrame
        The cases, or the path of a CSV or Parquet file, read ``chunksize`` rows at a time
        (:mod:`bbn.io.chunks`: memory holds one chunk and the answer). A Dask DataFrame
        gives a Dask DataFrame, computed partition by partition
        (:mod:`bbn.questions.partitions`).
    target : str
        The discrete variable to predict.
    columns : sequence of str, optional
        The columns to read from a file (default: all).
    unseen : {"error", "ignore"}
        What a value that is not a state does: raise DataError, or count as missing.
    chunksize : int, optional
        Rows per chunk when reading a file.
    progress : callable, True or None
        Told the rows classified after each chunk (:mod:`bbn.core.progress`).

    Returns
    -------
    pandas.DataFrame
        One row per case (``data``'s index), one column per state of ``target``.

    Raises
    ------
    QueryError
        For an unknown or continuous target.
    DataError
        For a value that is not a state (unless ``unseen="ignore"``).

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.load("models/chair.bn")
    >>> bbn.predict_proba(net, pd.DataFrame({"A": ["T", "F"]}), "C").round(6).values.tolist()
    [[0.886749, 0.113251], [0.777486, 0.222514]]
    """
    check_target(net, target)
    check_unseen(unseen)
    if is_dask(data):
        meta = pd.DataFrame({s: pd.Series(dtype=float) for s in net.states(target)})
        return map_partitions(data, lambda frame: posterior_table(net, frame, target,
                                                                  unseen=unseen), meta)
    tables, tell, rows = [], reporter(progress), 0
    for frame, source in prediction_chunks(net, data, columns, chunksize):
        tables.append(posterior_table(net, frame, target, source=source, unseen=unseen))
        rows += len(frame)
        report(tell, "classify", rows, note="rows classified")
    return tables[0] if len(tables) == 1 else pd.concat(tables)


def prediction_chunks(net: Network, data, columns=None, chunksize: int | None = None):
    """The chunks of ``data`` with the network's discrete states parsed as categoricals
    (see :func:`bbn.io.chunks.chunks`); at least one, so that no rows give an empty answer."""
    network = net.compiled()
    states = {v: network.states[v] for v in network.variables if v not in network.gaussian}
    empty = True
    for chunk in chunks(data, columns, states, chunksize):
        empty = False
        yield chunk
    if empty:
        yield Chunk(pd.DataFrame(), "data")


def posterior_table(net: Network, frame: pd.DataFrame, target: str, *, source: str = "data",
                    unseen: str = "error") -> pd.DataFrame:
    """:func:`predict_proba` for a DataFrame already read (``source`` names it in errors)."""
    network = net.compiled()
    continuous = network.gaussian
    evidence = [str(c) for c in frame.columns if str(c) in net and str(c) != target]
    if network.softmax:
        raise ModelError(f"{next(iter(network.softmax))!r} is discrete with continuous "
                         "parents (softmax form): predict one case at a time with "
                         "net.posterior(target, evidence, method='lw')")
    if any(leaf.continuous for leaf in continuous.values()):  # linear: continuous_batches
        return net.posterior(target, frame[evidence])
    engine = net.engine
    discrete = [c for c in evidence if c not in continuous]
    observed_gaussian = [c for c in evidence if c in continuous]
    codes = {c: encode_column(frame[c], network.states[c], name=c, source=source,
                              unknown="missing" if unseen == "ignore" else "error",
                              row_names=frame.index if source == "data" else None)
             for c in discrete}
    values = {c: numeric_column(frame[c], c, source) for c in observed_gaussian}
    result = np.empty((len(frame), network.cardinality[target]))
    if not observed_gaussian:  # the engine groups rows by observed columns itself
        for start in range(0, len(frame), BATCH_ROWS):
            block = slice(start, start + BATCH_ROWS)
            result[block] = engine.posterior_of_cases(
                [target], {c: k[block] for c, k in codes.items()}, frame.index[block],
                cases=len(frame.index[block]))
        return pd.DataFrame(result, index=frame.index, columns=list(network.states[target]))
    seen = np.column_stack([codes[c] != MISSING for c in discrete]
                           + [~np.isnan(values[c]) for c in observed_gaussian])
    for rows, pattern in observed_groups(seen):
        on = [c for c, s in zip(discrete + observed_gaussian, pattern, strict=True) if s]
        for start in range(0, len(rows), BATCH_ROWS):
            block = rows[start:start + BATCH_ROWS]
            result[block] = engine.posterior_of_cases(
                [target], {c: codes[c][block] for c in on if c in codes}, frame.index[block],
                cases=len(block), values={c: values[c][block] for c in on if c in values})
    return pd.DataFrame(result, index=frame.index, columns=list(network.states[target]))


def predict(net: Network, data, target: str, *, decision: str = "map", loss=None,
            columns=None, unseen: str = "error", chunksize: int | None = None,
            progress: Progress = None):
    """The decided state of ``target`` for every row: MAP (default), ML or minimum risk;
    ``bbn.predict(net, data, target)``.

        argmax_t P(t | e_r)   (MAP),   argmax_t P(e_r | t)   (ML),
        argmin_t Σ_s loss(s, t) P(s | e_r)   (risk)

    Parameters
    ----------
    net : Network
        The network.
    data : pandas.DataFrame, str, iterable of DataFrames or Dask DataFrame
        The cases, read as :func:`predict_proba` reads them (a Dask DataFrame gives a Dask
        Series).
    target : str
        The discrete variable to predict.
    decision : {"map", "ml", "risk"}
        The rule.
    loss : mapping or array_like, optional
        For ``decision="risk"``: see :func:`bbn.tasks.classification.decisions.loss_matrix`.
    columns, unseen, chunksize, progress
        As :func:`predict_proba` takes them.

    Returns
    -------
    pandas.Series
        The chosen state of ``target`` for each case.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.load("models/chair.bn")
    >>> bbn.predict(net, pd.DataFrame({"A": ["T", "F"]}), "C").tolist()
    ['T', 'T']
    """
    rule = check_rule(decision, loss)
    if is_dask(data):
        check_target(net, target)
        return map_partitions(data, lambda frame: predict(net, frame, target, decision=decision,
                                                          loss=loss, unseen=unseen),
                              pd.Series(dtype=object, name=target))
    posterior = predict_proba(net, data, target, columns=columns, unseen=unseen,
                              chunksize=chunksize, progress=progress)
    chosen = decide_rows(net, posterior.to_numpy(), target, rule, loss)
    return pd.Series(np.asarray(net.states(target), dtype=object)[chosen],
                     index=posterior.index, name=target)


def check_target(net: Network, target: str) -> None:
    """QueryError unless ``target`` is a discrete variable of ``net``."""
    network = net.compiled()
    check_variables(network, [target], role="target")
    check_discrete(network, [target], "target")


def decide_rows(net: Network, posterior: np.ndarray, target: str, rule: str,
                loss=None) -> np.ndarray:
    """The chosen state index of ``target`` for every row of ``posterior`` (rows × states)
    under ``rule``: MAP, ML (the prior divided out) or minimum risk with ``loss``."""
    prior = net.posterior([target]).values if rule == "ml" else None
    matrix = loss_matrix(loss, list(net.states(target))) if rule == "risk" else None
    return decide(posterior, rule, loss=matrix, prior=prior)

"""Classification with any network: the posterior of one variable for every row of a table.

    P(T | e_r)   for each row r, e_r = the row's observed cells (other columns ignored)

Rows are grouped by which columns they observe (a missing cell is summed out); each
group is one batched elimination over all its rows
(:func:`bbn.inference.posterior_codes`), never one query per row. Observed Gaussian
columns weigh the batched joint posterior of the target and their unobserved parents by
their log-densities (:mod:`bbn.inference.continuous`), still in one pass per group.

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

from bbn.classification.decisions import check_rule, decide, loss_matrix
from bbn.codes import observed_groups
from bbn.data import MISSING, encode_column, numeric_column, read_data, row_label
from bbn.errors import DataError, ImpossibleEvidenceError, QueryError
from bbn.inference import check_variables
from bbn.inference.continuous import discrete_part, gaussian_variables, log_density
from bbn.network import Network

#: Rows per batched elimination (bounds memory; the engine checks its own limit too).
BATCH_ROWS = 50_000


def predict_proba(net: Network, data, target: str, *, columns=None,
                  unseen: str = "error") -> pd.DataFrame:
    """P(target = s | row) for every row (index kept) and state s (one column each).

    Columns that name variables are evidence (the target's own column is ignored);
    missing cells are summed out. ``unseen="ignore"`` treats a value that is not a state
    as missing instead of raising DataError. Impossible evidence in a row raises
    :class:`bbn.ImpossibleEvidenceError` naming the row.
    """
    check_target(net, target)
    if unseen not in ("error", "ignore"):
        raise DataError(f"unseen must be 'error' or 'ignore', got {unseen!r}")
    continuous = set(gaussian_variables(net))
    frame, source = read_data(data, columns, {v: net.states(v) for v in net.variables
                                              if v not in continuous})
    return posterior_table(net, frame, target, source=source, unseen=unseen)


def posterior_table(net: Network, frame: pd.DataFrame, target: str, *, source: str = "data",
                    unseen: str = "error") -> pd.DataFrame:
    """:func:`predict_proba` for a DataFrame already read (``source`` names it in errors)."""
    continuous = set(gaussian_variables(net))
    evidence = [str(c) for c in frame.columns if str(c) in net and str(c) != target]
    discrete = [c for c in evidence if c not in continuous]
    observed_gaussian = [c for c in evidence if c in continuous]
    codes = {c: encode_column(frame[c], net.states(c), name=c, source=source,
                              unknown="missing" if unseen == "ignore" else "error",
                              row_names=frame.index if source == "data" else None)
             for c in discrete}
    values = {c: numeric_column(frame[c], c, source) for c in observed_gaussian}
    seen = np.column_stack([codes[c] != MISSING for c in discrete]
                           + [~np.isnan(values[c]) for c in observed_gaussian]
                           ) if evidence else np.zeros((len(frame), 0), dtype=bool)
    base = discrete_part(net) if continuous else net
    result = np.empty((len(frame), net.cardinality(target)))
    if not observed_gaussian:  # the engine groups rows by observed columns itself
        for start in range(0, len(frame), BATCH_ROWS):
            block = slice(start, start + BATCH_ROWS)
            result[block] = _posterior_block(net, base, target, frame.index[block],
                                             {c: k[block] for c, k in codes.items()}, {})
        return pd.DataFrame(result, index=frame.index, columns=list(net.states(target)))
    for rows, pattern in observed_groups(seen):
        on = [c for c, s in zip(discrete + observed_gaussian, pattern, strict=True) if s]
        for start in range(0, len(rows), BATCH_ROWS):
            block = rows[start:start + BATCH_ROWS]
            result[block] = _posterior_block(net, base, target, frame.index[block],
                                             {c: codes[c][block] for c in on if c in codes},
                                             {c: values[c][block] for c in on if c in values})
    return pd.DataFrame(result, index=frame.index, columns=list(net.states(target)))


def _posterior_block(net, base, target, index, codes, values) -> np.ndarray:
    """P(target | evidence) for a block of rows (code −1: missing); rows with Gaussian
    ``values`` must all observe the same columns."""
    from bbn.inference import posterior_codes

    if not values:
        return posterior_codes(base, [target], codes, index, cases=len(index))
    parents = [p for g in values for p in net.parents(g)]
    hidden = list(dict.fromkeys(p for p in parents if p not in codes and p != target))
    query = [target] + hidden
    joint = posterior_codes(base, query, codes, index, cases=len(index))
    with np.errstate(divide="ignore"):
        log_joint = np.log(joint)
    for g, x in values.items():
        log_joint = log_joint + _aligned_log_density(net, g, x, codes, query)
    top = log_joint.reshape(len(index), -1).max(axis=1)
    if not np.all(np.isfinite(top)):
        bad = int(np.flatnonzero(~np.isfinite(top))[0])
        shown = {**{c: net.states(c)[k[bad]] for c, k in codes.items()},
                 **{g: float(x[bad]) for g, x in values.items()}}
        raise ImpossibleEvidenceError.in_row(shown, row_label(index[bad]))
    weights = np.exp(log_joint - top.reshape((-1,) + (1,) * len(query)))
    weights = weights.sum(axis=tuple(range(2, weights.ndim)))
    return weights / weights.sum(axis=1, keepdims=True)


def _aligned_log_density(net, g, x, codes, query) -> np.ndarray:
    """log p(x_r | pa) per row, laid out on axes (rows, *query) for broadcasting."""
    mean, variance = net.gaussian_parameters(g)
    parents = list(net.parents(g))
    shape = (len(x),) + (1,) * len(parents)
    table = log_density(x.reshape(shape), mean[np.newaxis], variance[np.newaxis])
    axes = list(parents)
    for p in parents:  # observed parents: pick each row's own state
        if p in codes:
            k = axes.index(p) + 1
            moved = np.moveaxis(table, k, -1)
            picked = np.take_along_axis(
                moved, codes[p].reshape((-1,) + (1,) * (moved.ndim - 1)).astype(np.intp),
                axis=-1)
            table = picked[..., 0]
            axes.remove(p)
    order = [axes.index(q) + 1 for q in query if q in axes]
    table = np.transpose(table, [0] + order)
    return table.reshape((len(x),) + tuple(net.cardinality(q) if q in axes else 1
                                          for q in query))


def predict(net: Network, data, target: str, *, decision: str = "map", loss=None,
            columns=None, unseen: str = "error") -> pd.Series:
    """The decided state of ``target`` for every row: MAP (default), ML or minimum risk.

    ``loss`` (for ``decision="risk"``): see :func:`bbn.classification.decisions.loss_matrix`.
    """
    rule = check_rule(decision, loss)
    posterior = predict_proba(net, data, target, columns=columns, unseen=unseen)
    chosen = decide_rows(net, posterior.to_numpy(), target, rule, loss)
    return pd.Series(np.asarray(net.states(target), dtype=object)[chosen],
                     index=posterior.index, name=target)


def check_target(net: Network, target: str) -> None:
    """QueryError unless ``target`` is a discrete variable of ``net``."""
    check_variables(net, [target], role="target")
    if net.is_gaussian(target):
        raise QueryError(f"the target {target!r} is continuous; classify a discrete variable")


def decide_rows(net: Network, posterior: np.ndarray, target: str, rule: str,
                loss=None) -> np.ndarray:
    """The chosen state index of ``target`` for every row of ``posterior`` (rows × states)
    under ``rule``: MAP, ML (the prior divided out) or minimum risk with ``loss``."""
    from bbn.inference import posterior as posterior_of

    prior = posterior_of(net, [target], {}).values if rule == "ml" else None
    matrix = loss_matrix(loss, list(net.states(target))) if rule == "risk" else None
    return decide(posterior, rule, loss=matrix, prior=prior)

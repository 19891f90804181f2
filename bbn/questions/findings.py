"""Questions over time on a 2-TBN: a DataFrame of findings (one row per step, a
sequence-id column for many sequences) resolved once into the evidence λ_t(v) of every
step of every sequence, answered by the interface algorithm
(:mod:`bbn.engines.exact.frontier`) on the model's two-slice network, and shown as
DataFrames.

    filter: P(X_t | e_1:t)   smooth: P(X_t | e_1:T)   predict: P(X_{T+h} | e_1:T)
    viterbi: argmax_x P(x, e)   log_likelihood: log P(e_1:T)

The model is duck-typed (``variables``, ``states(v)``, ``two_slice()``): a
:class:`bbn.DynamicNetwork`.

>>> import pandas as pd
>>> sequence_rows(pd.DataFrame({"id": ["b", "a", "b"]}), "id")[1].tolist()
[2, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bbn.core.data import encode
from bbn.core.errors import ImpossibleEvidenceError, QueryError, suggest
from bbn.engines.exact.chains import Batch
from bbn.engines.exact.frontier import Frontier
from bbn.engines.exact.slices import DenseFrontier, dense_fits


def sequence_rows(data: pd.DataFrame, sequence_id: str | None):
    """The rows of ``data`` grouped by sequence (first appearance order, rows in order),
    the length of each sequence and the sequence ids.

    Returns
    -------
    rows : ndarray
        Positions in ``data``, sequence after sequence.
    lengths : ndarray
    ids : pandas.Index
    """
    if not isinstance(data, pd.DataFrame):
        raise QueryError(f"findings over time are a pandas DataFrame, not {type(data).__name__}")
    if sequence_id is None:
        if len(data) == 0:
            raise QueryError("the findings have no rows (one row per step)")
        return np.arange(len(data)), np.array([len(data)]), pd.Index([0])
    if sequence_id not in data.columns:
        raise QueryError(f"no sequence-id column {sequence_id!r} in the findings"
                         f"{suggest(str(sequence_id), map(str, data.columns))}")
    codes, ids = pd.factorize(data[sequence_id], sort=False)
    if (codes < 0).any():
        raise QueryError(f"the sequence-id column {sequence_id!r} has missing cells")
    rows = np.argsort(codes, kind="stable")
    return rows, np.bincount(codes, minlength=len(ids)), pd.Index(ids, name=sequence_id)


class Resolved:
    """Findings read once: the batch, the evidence per variable ``(T, N, card)`` (None
    for variables never observed) and where every answer row goes."""

    def __init__(self, model, data, sequence_id: str | None) -> None:
        variables = model.variables
        self.rows, lengths, self.ids = sequence_rows(data, sequence_id)
        observed = [c for c in data.columns if c != sequence_id]
        for column in observed:
            if column not in variables:
                raise QueryError(f"no variable {column!r} for the findings' column"
                                 f"{suggest(str(column), variables)}")
        self.observed = observed
        codes = _codes(data, observed, [model.states(v) for v in observed])[self.rows]
        self.batch = batch = Batch(lengths)
        self.evidence: list = [None] * len(variables)
        for j, column in enumerate(observed):
            code = codes[:, j]
            if (code < 0).all():
                continue
            card = len(model.states(column))
            lam = np.ones((len(code), card))
            seen = code >= 0
            lam[seen] = np.arange(card) == code[seen, None]
            self.evidence[variables.index(column)] = batch.pad(lam, fill=1.0)
        self.index = data.index
        self.sorted = bool((self.rows == np.arange(len(self.rows))).all())

    def frame(self, values: np.ndarray) -> np.ndarray:
        """``(T, N, ...)`` → rows in ``data``'s order."""
        rows = self.batch.unpad(values)
        if self.sorted:
            return rows
        out = np.empty_like(rows)
        out[self.rows] = rows
        return out


def _codes(data: pd.DataFrame, columns: list[str], states: list) -> np.ndarray:
    """State codes of the findings (−1: missing): state names looked up in one hash
    pass per column; any other cell goes to :func:`bbn.core.data.encode`, which reads
    every kind of cell and names the row and value it refuses."""
    codes = np.empty((len(data), len(columns)), dtype=np.int64)
    for j, (column, names) in enumerate(zip(columns, states, strict=True)):
        values = data[column].to_numpy()
        found = pd.Index(names).get_indexer(values) if values.dtype == object else None
        if found is None or ((found < 0) & ~pd.isna(values)).any():
            return encode(data, columns, states).astype(np.int64)
        codes[:, j] = found
    return codes


def frontier(model, dense: bool | None = None) -> Frontier:
    """The interface engine of ``model``'s two-slice network (cached on its view): on
    dense slice tables when they are small (:func:`dense_fits`), else by ``einsum``;
    ``dense`` forces one."""
    view = model.two_slice().compiled()
    dense = dense_fits(view) if dense is None else dense
    cached = getattr(model, "_frontier", None)
    if cached is None or cached[0] is not view or cached[1] != dense:
        cached = model._frontier = (view, dense, (DenseFrontier if dense else Frontier)(view))
    return cached[2]


def _asked(model, variables, resolved: Resolved | None) -> list[str]:
    if variables is None:
        hidden = [v for v in model.variables if resolved is None or v not in resolved.observed]
        return hidden or list(model.variables)
    variables = [variables] if isinstance(variables, str) else list(variables)
    for v in variables:
        if v not in model.variables:
            raise QueryError(f"no variable {v!r}{suggest(str(v), model.variables)}")
    return variables


def _columns(model, asked: Sequence[str]) -> pd.MultiIndex:
    states = sorted({s for v in asked for s in model.states(v)})
    position = {s: i for i, s in enumerate(states)}
    codes = [[i for i, v in enumerate(asked) for _ in model.states(v)],
             [position[s] for v in asked for s in model.states(v)]]
    return pd.MultiIndex(levels=[list(asked), states], codes=codes, names=["variable", "state"])


def _forward(model, data, sequence_id):
    resolved = Resolved(model, data, sequence_id)
    engine = frontier(model)
    alpha, log_likelihood = engine.forward(resolved.evidence, resolved.batch)
    return resolved, engine, alpha, log_likelihood


def _possible(resolved: Resolved, log_likelihood: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(log_likelihood))
    if len(bad):
        raise ImpossibleEvidenceError({}, "impossible evidence: "
            f"the findings of sequence {resolved.ids[resolved.batch.order[bad[0]]]!r} "
            "have probability 0")


def _marginal_frame(model, resolved, engine, alpha, beta, variables) -> pd.DataFrame:
    asked = _asked(model, variables, resolved)
    positions = [model.variables.index(v) for v in asked]
    answers = engine.marginals(positions, resolved.evidence, resolved.batch, alpha, beta)
    return _frame(model, resolved, asked, answers)


def _frame(model, resolved: Resolved, asked: list[str], answers: list) -> pd.DataFrame:
    values = resolved.frame(np.concatenate(answers, axis=2))
    return pd.DataFrame(values, index=resolved.index, columns=_columns(model, asked))


def filtered(model, data, variables=None, sequence_id=None) -> pd.DataFrame:
    """P(X_t | e_1:t) of ``variables`` at every row of ``data``."""
    resolved = Resolved(model, data, sequence_id)
    asked = _asked(model, variables, resolved)
    answers, log_likelihood = frontier(model).filter(
        [model.variables.index(v) for v in asked], resolved.evidence, resolved.batch)
    _possible(resolved, log_likelihood)
    return _frame(model, resolved, asked, answers)


def smoothed(model, data, variables=None, sequence_id=None) -> pd.DataFrame:
    """P(X_t | e_1:T) of ``variables`` at every row of ``data``."""
    resolved, engine, alpha, log_likelihood = _forward(model, data, sequence_id)
    _possible(resolved, log_likelihood)
    beta = engine.backward(resolved.evidence, resolved.batch)
    return _marginal_frame(model, resolved, engine, alpha, beta, variables)


def predicted(model, data, horizon: int, variables=None, sequence_id=None) -> pd.DataFrame:
    """P(X_{T+h} | e_1:T) of ``variables``, one row per sequence."""
    if int(horizon) != horizon or horizon < 0:
        raise QueryError(f"the horizon is a whole number of steps ≥ 0, not {horizon!r}")
    resolved, engine, alpha, log_likelihood = _forward(model, data, sequence_id)
    _possible(resolved, log_likelihood)
    asked = _asked(model, variables, resolved)
    positions = [model.variables.index(v) for v in asked]
    batch = resolved.batch
    if horizon == 0:
        answers = [batch.last(a) for a in engine.marginals(positions, resolved.evidence,
                                                           batch, alpha)]
    else:
        last = batch.last(alpha)
        answers = engine.predict(positions, last, int(horizon))
    return pd.DataFrame(np.concatenate(answers, axis=1), index=resolved.ids,
                        columns=_columns(model, asked))


def log_likelihood(model, data, sequence_id=None):
    """log P(e_1:T): a float, or a Series per sequence id."""
    resolved, _, _, values = _forward(model, data, sequence_id)
    answer = np.empty_like(values)
    answer[resolved.batch.order] = values
    if sequence_id is None:
        return float(answer[0])
    return pd.Series(answer, index=resolved.ids, name="log_likelihood")


def most_probable(model, data, sequence_id=None):
    """The most probable states at every row of ``data`` and log P(x*, e) per sequence."""
    resolved = Resolved(model, data, sequence_id)
    states, best = frontier(model).most_probable(resolved.evidence, resolved.batch)
    codes = resolved.frame(states)
    index = resolved.index
    frame = pd.DataFrame({v: np.asarray(model.states(v), dtype=object)[codes[:, i]]
                          for i, v in enumerate(model.variables)}, index=index)
    scores = np.empty_like(best)
    scores[resolved.batch.order] = best
    if not np.isfinite(scores).all():
        _possible(resolved, best)
    return frame, pd.Series(scores, index=resolved.ids, name="log_probability")

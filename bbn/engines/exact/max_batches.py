"""MAP and MPE for N cases at once: max-product elimination batched over the distinct
cases of each group observing the same columns, in logs.

    m*_i = argmax_m Σ_h P(m, h, e_i)        P(m*_i | e_i) = max_m Σ_h P(m, h, e_i) / P(e_i)

The plan is the single question's (:meth:`bbn.engines.exact.engine.Engine.map`: sum out
the hidden variables, then maximise over M, without d-separation pruning, since the
maximum is divided by the whole P(e)) with the evidence tables sliced by a case axis; it
runs on the logs of the tables, so no case underflows and every argmax is that case's.
The maximising states are traced back for all cases at once: each max step stored its
best state as a table over the variables still present (the case axis among them when
the evidence reaches it), indexed by the states already chosen, an array per variable.

>>> import bbn
>>> engine = bbn.load("models/chair.bn").engine
>>> states, p = map_of_cases(engine, ["C", "S"], {"A": np.array([0, 1, 0])})
>>> states.tolist(), p.round(6).tolist()
([[0, 1], [0, 1], [0, 1]], [0.837054, 0.770231, 0.837054])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.codes import distinct_cases, observed_groups
from bbn.core.errors import QueryError
from bbn.engines.exact.elimination import CASE, check_memory, run_plan, slice_tables
from bbn.engines.protocol import impossible_row


def map_of_cases(engine, variables: Sequence[str], codes: Mapping[str, np.ndarray],
                 row_names=None, cases: int | None = None,
                 impossible: str = "raise",
                 weights: Mapping[str, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """argmax_m P(M = m | e_i) and its probability for N cases (MAP; MPE when
    ``variables`` are every unobserved variable); with ``weights``, each case's own
    likelihoods λ_i (a virtual child per weighed variable, its numbers per case:
    :meth:`~bbn.engines.exact.weighing.Weighing.weighed_plan`),

        m*_i = argmax_m Σ_h P(m, h, e_i) Π_W λ_iW(w)     (P(m*_i | e_i, λ_i) beside it).

    Parameters
    ----------
    engine : bbn.Engine
        The exact engine of a discrete network (the discrete part is used).
    variables : sequence of str
        The MAP variables M; one observed in a case takes its observed state there.
    codes : dict
        ``{variable: (N,) state indices}``, −1 where a case does not observe it.
    row_names : sequence, optional
        How errors name the cases.
    cases : int, optional
        N, when there are no columns.
    impossible : {"raise", "nan"}
        A case whose evidence has probability 0: an error, or states −1 and NaN.
    weights : dict, optional
        ``{variable: (N, |W|) likelihoods}``, none of them observed.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The states, shape ``(N, len(variables))`` (indices), and P(m*_i | e_i), ``(N,)``.

    Raises
    ------
    ImpossibleEvidenceError
        For a case whose evidence is impossible (with ``impossible="raise"``).

    Examples
    --------
    >>> import bbn
    >>> engine = bbn.load("models/chair.bn").engine
    >>> states, p = map_of_cases(engine, ["C"], {}, cases=2)
    >>> states.tolist(), p.tolist()
    ([[0], [0]], [0.8, 0.8])
    """
    variables, columns = list(variables), list(codes)
    discrete = engine.discrete
    if not columns and cases is None:
        raise QueryError("map_of_cases needs evidence columns or the number of cases")
    n = len(codes[columns[0]]) if columns else int(cases)
    matrix = (np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
              if columns else np.zeros((n, 0), dtype=np.intp))
    states = np.full((n, len(variables)), -1, dtype=np.intp)
    probability = np.full(n, np.nan)
    groups = observed_groups(matrix >= 0) if columns else (
        [(np.arange(n), np.zeros(0, dtype=bool))] if n else [])
    weighed = {v: np.asarray(w, dtype=float) for v, w in (weights or {}).items()}
    for rows, pattern in groups:
        observed = [c for c, seen in zip(columns, pattern) if seen]
        keys = matrix[np.ix_(rows, pattern)]  # distinct cases: findings and likelihoods
        first, inverse = distinct_cases(keys, [w[rows] for w in weighed.values()])
        evidence = dict(zip(observed, keys[first].T))
        m = len(first)
        free = [v for v in variables if v not in evidence]
        likelihoods = {v: w[rows[first]] for v, w in weighed.items()}
        best, chosen = _maximised(discrete, free, evidence, m, likelihoods)
        with np.errstate(invalid="ignore"):  # −inf − −inf: an impossible case, NaN
            log_p = best - _log_weight(discrete, evidence, m, likelihoods)
        zero = ~np.isfinite(log_p)
        if zero.any() and impossible == "raise":
            row = int(rows[first[int(np.flatnonzero(zero)[0])]])
            raise impossible_row(engine.network, matrix, columns, observed, row, row_names)
        found = np.stack([evidence[v] if v in evidence else chosen[v] for v in variables],
                         axis=1) if variables else np.zeros((m, 0), dtype=np.intp)
        found[zero] = -1
        states[rows] = found[inverse]
        probability[rows] = np.where(zero, np.nan, np.exp(log_p))[inverse]
    return states, probability


def _maximised(discrete, free: list[str], evidence: Mapping[str, np.ndarray],
               m: int, likelihoods: Mapping[str, np.ndarray]
               ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """log max_m Σ_h P(m, h, e) Π λ(w) per case, and the maximising state of every
    ``free`` variable per case."""
    plan, logs, evidence = _logs(discrete, evidence, likelihoods, free)
    check_memory(plan.cost, m)
    table, choices = run_plan(plan, slice_tables(plan, logs, evidence), log=True)
    chosen: dict = {CASE: np.arange(m)}
    for step, best in reversed(choices):
        index = tuple(chosen[v] for v in step.variables)
        chosen[step.eliminated] = np.broadcast_to(best[index], (m,))
    return np.broadcast_to(table, (m,)), chosen


def _log_weight(discrete, evidence: Mapping[str, np.ndarray], m: int,
                likelihoods: Mapping[str, np.ndarray]) -> np.ndarray:
    """log P(e) Π λ per case, log Σ_x P(x, e) Π_W λ(x_W) (−inf where it is 0)."""
    plan, logs, evidence = _logs(discrete, evidence, likelihoods, ())
    check_memory(plan.cost, m)
    table, _ = run_plan(plan, slice_tables(plan, logs, evidence), log=True)
    return np.broadcast_to(table, (m,))


def _logs(discrete, evidence: Mapping[str, np.ndarray], likelihoods: Mapping[str, np.ndarray],
          free: Sequence[str]) -> tuple:
    """The plan maximising ``free`` (none: summing everything), unpruned, its tables'
    logs and the evidence to slice them by — with each case's likelihoods as virtual
    children where there are any."""
    if not likelihoods:
        plan = discrete.plan([], list(evidence), batched=bool(evidence), maximize=free,
                             prune=False)
        return plan, discrete._logs(plan), evidence
    plan = discrete.weighed_plan([], list(evidence), tuple(
        (v, bool((w > 0).all())) for v, w in likelihoods.items()), batched=True,
        maximize=free, prune=False)
    logs, read = discrete.weighed_logs(plan, likelihoods)
    return plan, logs, {**evidence, **read}


__all__ = ["map_of_cases"]

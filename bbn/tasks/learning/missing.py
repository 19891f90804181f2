"""Expectation–maximisation: learning tables from data with missing values or hidden variables.

E-step: with the current tables θ, every row r with unobserved variables U_r and
observed values o_r adds, for each family F = (Pa, X) with an unobserved member,

    n̄(F = f) += P(F ∩ U_r = f_U | o_r; θ)      at the cells consistent with o_r,

the posteriors coming from one batched junction-tree calibration over every incomplete
row at once (:class:`bbn.engines.exact.expected_counts.CountingPlan`: a row is evidence
given as a likelihood per variable, 1 where unseen, so rows of any missingness pattern
share one tree and one pass per iteration). Rows are first collapsed to the distinct ones
(with multiplicities); rows that see everything are counted once, before iterating.

M-step: θ ← estimator(n̄), the estimators of complete data (``mle`` is classic EM, the
smoothing ones give MAP-EM). The observed-data log-likelihood ℓ(θ) = Σ_r log P(o_r; θ)
is recorded every iteration (the calibration's normalising constants for incomplete rows)
and iteration stops when it changes by less than ``tol · |ℓ|`` or after ``max_iter``
M-steps.

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"])
>>> net.add_variable("B", ["T", "F"], parents=["A"])
>>> rows = pd.DataFrame({"A": ["T", "T", None, "F"], "B": ["T", "F", "F", "F"]})
>>> result = em(net, rows)
>>> result.converged, result.log_likelihood[-1] >= result.log_likelihood[0]
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

import bbn.model.canonical as canonical
from bbn.core.codes import distinct_rows, mixed_radix
from bbn.core.data import MISSING, encode, require_columns
from bbn.core.errors import DataError
from bbn.core.progress import Progress, report, reporter
from bbn.engines.exact.expected_counts import CountingPlan
from bbn.io.chunks import chunks
from bbn.model.network import Network
from bbn.tasks.learning.convergence import EMResult, check_iteration, converged
from bbn.tasks.learning.counting import check_family_sizes, family_counts
from bbn.tasks.learning.estimators import (
    MLE,
    Estimator,
    estimator_from_arguments,
    table_from_counts,
    warn_unseen,
)
from bbn.tasks.learning.mixture import mixture_em
from bbn.tasks.learning.noisy_em import logistic_from_counts
from bbn.tasks.learning.noisy_max_em import compact_from_counts

#: Compact tables EM keeps compact: their M-step is the noisy EM on the expected counts
#: (a logistic: the logistic regression on them).
NOISY_KINDS = ("noisy-or", "noisy-and", "noisy-max", "logistic")


def em(net: Network, data, estimator: Estimator | str = "mle", *, columns=None,
       tol: float = 1e-6, max_iter: int = 100, seed: int | None = 0,
       initial: Network | None = None, ddof: int = 0, var_smoothing: float = 0.0,
       hard: bool = False, m: float | None = None, prior: Mapping | None = None,
       alpha: float | None = None, ess: float | None = None,
       chunksize: int | None = None, progress: Progress = None) -> EMResult:
    """Learn every table of ``net`` from ``data`` with missing values by EM.

    A noisy-OR, noisy-AND, noisy-MAX or logistic table stays compact: its M-step is the
    noisy EM (:func:`bbn.tasks.learning.noisy_max_em.compact_from_counts`) or the logistic
    regression (:func:`bbn.tasks.learning.noisy_em.logistic_from_counts`) on its expected
    counts, maximum likelihood whatever ``estimator``.

    Variables without a column are hidden (never observed). Initial tables: those of
    ``initial`` when given; otherwise counts over the rows where each family is fully
    observed, plus 1 in every cell, plus (for families touching a hidden variable) a
    random amount in [0, 1) drawn with ``seed`` so that hidden states can differ.

    A network with Gaussian variables (a Gaussian mixture when a hidden discrete
    variable is their parent), and hard EM (``hard=True``: each row assigned to its most
    probable completion), go to :func:`bbn.tasks.learning.mixture.mixture_em`, which takes
    ``ddof`` and ``var_smoothing`` (as :func:`bbn.learn`; ``ddof=0`` is the
    maximum-likelihood M-step) and needs every variable but one hidden discrete one seen.

    Parameters
    ----------
    net : Network
        The structure; its tables are not used (see ``initial``).
    data : DataFrame, str or path, or numpy array
        The rows, as for :func:`bbn.learn`; missing cells and absent columns allowed.
    estimator : Estimator or str, default "mle"
        The M-step's estimator (:mod:`bbn.tasks.learning.estimators`); ``MLE()`` is classic
        EM, a smoothing one MAP-EM.
    columns : list of str, optional
        Names for the columns of a plain 2-D array.
    tol, max_iter : float, int
        The stopping rule (:mod:`bbn.tasks.learning.convergence`).
    seed : int or None, default 0
        Seeds the random part of the initial tables.
    initial : Network, optional
        Tables to start from.
    chunksize : int, optional
        Rows per chunk of a CSV or Parquet file (discrete networks): each chunk is
        reduced to its distinct rows and their counts, which are merged, so memory holds
        the distinct rows, not all rows; every iteration then runs on them.
    progress : callable, True or None
        Told each iteration and its log-likelihood (:mod:`bbn.core.progress`; True: a bar
        on a terminal); None, the default, is silent.
    ddof, var_smoothing, hard
        For networks with Gaussian variables and for hard EM (see above).
    m, prior, alpha, ess
        Deprecated (FutureWarning): give the estimator as a value instead.

    Returns
    -------
    EMResult
        The learned network, the log-likelihood trace, the number of M-steps and
        whether EM converged.

    Raises
    ------
    DataError
        For a bad setting, a value that is no state, no rows, or no column naming any
        variable.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"])
    >>> rows = pd.DataFrame({"A": ["T", "T", None, "F"]})
    >>> result = em(net, rows, bbn.Laplace())
    >>> result.network.cpt_array("A").round(4).tolist(), result.converged
    ([0.6, 0.4], True)
    """
    estimator = estimator_from_arguments("bbn.tasks.learning.em", estimator, m=m, prior=prior,
                                         alpha=alpha, ess=ess)
    check_iteration(max_iter, tol)
    check_family_sizes(net)
    if hard or any(net.is_gaussian(v) for v in net.variables):
        return mixture_em(net, data, estimator, columns=columns, tol=tol, max_iter=max_iter,
                          seed=seed, initial=initial, ddof=ddof, var_smoothing=var_smoothing,
                          hard=hard, progress=progress)
    variables = list(net.variables)
    position = {v: j for j, v in enumerate(variables)}
    rows, weights = _distinct_over_chunks(net, data, columns, chunksize)
    shape = _Shape(net, variables)
    fixed = {v: _observed_counts(rows, weights, [position[u] for u in shape.families[v]],
                                 shape.cards_of(v)) for v in variables}
    complete = ~(rows == MISSING).any(axis=1)
    incomplete = rows[~complete]
    plan = CountingPlan(net.compiled()) if len(incomplete) else None
    evidence = {v: incomplete[:, position[v]] for v in variables
                if (incomplete[:, position[v]] != MISSING).any()}
    counted = {v: _observed_counts(rows[complete], weights[complete],
                                   [position[u] for u in shape.families[v]], shape.cards_of(v))
               for v in variables}  # complete rows: their counts never change

    theta = _initial_tables(net, initial, fixed, rows, variables, seed)
    compact = {v: net.canonical(v) for v in variables if net.parents(v)
               and getattr(net.canonical(v), "kind", None) in NOISY_KINDS}
    for v, spec in compact.items():  # start inside the compact family: EM stays monotone
        start = initial.canonical(v) if initial is not None else None
        compact[v] = start if start is not None and start.kind == spec.kind else \
            _compact_m_step(spec, theta[v], v, net.parents(v), warm=False)
        theta[v] = canonical.full_table(compact[v])
    result = EMResult(network=net)
    tell = reporter(progress)
    for iteration in range(max_iter + 1):
        expected = {v: counted[v].copy() for v in variables}
        log_tables = {v: _log(theta[v]) for v in variables}
        ll = float(np.dot(weights[complete], shape.log_joint(rows[complete], log_tables)))
        if plan is not None:
            counts, log_p = plan.expected_counts(theta, evidence, weights[~complete])
            _check_possible(log_p, incomplete, variables, net)
            ll += float(np.dot(weights[~complete], log_p))
            for v in variables:
                expected[v] += counts[v]
        result.log_likelihood.append(ll)
        report(tell, "em", iteration, max_iter, f"log-likelihood {ll:.8g}")
        if converged(result.log_likelihood, tol):
            result.converged = True
            break
        if iteration == max_iter:
            break
        theta = {v: table_from_counts(net, v, expected[v], estimator, warn=False)
                 for v in variables if v not in compact}
        for v, spec in compact.items():  # maximum likelihood on the expected counts
            compact[v] = _compact_m_step(spec, expected[v], v, net.parents(v))
            theta[v] = canonical.full_table(compact[v])
        result.iterations = iteration + 1
    result.network = _with_tables(net, theta)
    for v, spec in compact.items():
        result.network._set_canonical(v, spec)
    if isinstance(estimator, MLE):
        for v in variables:
            if v not in compact:
                warn_unseen(net, v, expected[v])
    return result


def _compact_m_step(spec, counts: np.ndarray, name: str, parents, warm: bool = True):
    """The compact table of ``spec``'s kind fitted to ``counts`` (maximum likelihood)."""
    if spec.kind == "logistic":
        return logistic_from_counts(counts, name)
    return compact_from_counts(spec, counts, name, parents, warm=warm)


def _distinct_over_chunks(net: Network, data, columns, chunksize) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of codes (MISSING where unobserved or without a column) over
    every chunk of ``data``, and how many times each occurs: EM's sufficient data, since
    the E-step gives equal rows equal expected counts."""
    variables = list(net.variables)
    position = {v: j for j, v in enumerate(variables)}
    merged = np.empty((0, len(variables)), dtype=np.int64)
    weights = np.empty(0)
    source = "data"
    for chunk in chunks(data, columns, {v: net.states(v) for v in variables}, chunksize):
        frame, source = chunk
        present = [v for v in variables if v in set(map(str, frame.columns))]
        if not present:
            require_columns(frame, variables, source)
        codes = np.full((len(frame), len(variables)), MISSING, dtype=np.int64)
        codes[:, [position[v] for v in present]] = encode(frame, present,
                                                          [net.states(v) for v in present],
                                                          source=source)
        both = np.concatenate([merged, codes])
        merged, inverse = distinct_rows(both)
        weights = np.bincount(inverse, minlength=len(merged),
                              weights=np.concatenate([weights, np.ones(len(codes))]))
    if not weights.sum():  # as bbn.learn: EM on no rows would return its start unchanged
        raise DataError(f"{source}: no rows to learn from")
    return merged, weights


class _Shape:
    """Families, cardinalities and column positions of the network's variables."""

    def __init__(self, net: Network, variables: list[str]):
        self.variables = variables
        self.position = {v: j for j, v in enumerate(variables)}
        self.families = {v: net.parents(v) + (v,) for v in variables}
        self.cards = {v: net.cardinality(v) for v in variables}

    def cards_of(self, v: str) -> list[int]:
        return [self.cards[u] for u in self.families[v]]

    def log_joint(self, codes: np.ndarray, log_tables) -> np.ndarray:
        """log P(full assignment) of every row: Σ_X log θ_X[pa, x]."""
        total = np.zeros(len(codes))
        for v, family in self.families.items():
            index = mixed_radix([codes[:, self.position[u]] for u in family], self.cards_of(v))
            total += log_tables[v].ravel()[index]
        return total


def _observed_counts(rows, weights, columns, cards) -> np.ndarray:
    """Weighted counts of a family over the distinct rows where all its members are seen."""
    seen = ~(rows[:, columns] == MISSING).any(axis=1)
    return family_counts([rows[seen, j] for j in columns], cards, weights[seen])


def _initial_tables(net, initial, fixed, rows, variables, seed) -> dict[str, np.ndarray]:
    if initial is not None:
        return {v: np.array(initial.cpt(v).transpose(net.parents(v) + (v,))
                            .reorder_states({u: net.states(u) for u in net.parents(v) + (v,)})
                            .values) for v in variables}
    rng = np.random.default_rng(seed)
    never = {v for j, v in enumerate(variables) if (rows[:, j] == MISSING).all()}
    theta = {}
    for v in variables:
        counts = fixed[v] + 1.0
        if never & set(net.parents(v) + (v,)):
            counts = counts + rng.random(counts.shape)
        theta[v] = counts / counts.sum(axis=-1, keepdims=True)
    return theta


def _with_tables(net: Network, theta: Mapping[str, np.ndarray]) -> Network:
    learned = net.copy()
    for v, table in theta.items():
        learned.set_cpt(v, table)
    return learned


def _log(table: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(table)


def _check_possible(log_p: np.ndarray, rows: np.ndarray, variables: list[str],
                    net: Network) -> None:
    """DataError naming the first row that the current tables make impossible."""
    if np.isfinite(log_p).all():
        return
    row = rows[int(np.flatnonzero(~np.isfinite(log_p))[0])]
    seen = {v: net.states(v)[int(i)] for v, i in zip(variables, row, strict=True)
            if i != MISSING}
    raise DataError(f"EM: the tables give probability 0 to the observed values {seen}; "
                    "start from other tables (initial=) or smooth them (estimator='laplace')")

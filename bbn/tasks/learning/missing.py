"""Expectation–maximisation: learning tables from data with missing values or hidden variables.

E-step: with the current tables θ, every row r with unobserved variables U_r and
observed values o_r adds, for each family F = (Pa, X) with an unobserved member,

    n̄(F = f) += P(F ∩ U_r = f_U | o_r; θ)      at the cells consistent with o_r,

the posteriors coming from bbn's own exact inference, batched over rows
(:meth:`bbn.Engine.posterior_of_cases`). Rows are first collapsed to the distinct ones
(with multiplicities); then either

* *by pattern* — rows that miss the same variables form a group, and one batched
  elimination gives the joint posterior of the group's unobserved variables for all its
  rows (used when there are few patterns: a hidden variable, a column with holes); or
* *all at once* — each variable X gets an evidence child E_X whose states are X's
  states and "missing", with P(E_X = x' | x) = ½·[x' = x] and P(E_X = missing | x) = ½:
  observing E_X = x is observing X, observing "missing" tells nothing. Every row then
  observes the same variables, so one batched elimination per family serves all rows,
  however many missingness patterns there are.

M-step: θ ← estimator(n̄), the estimators of complete data (``mle`` is classic EM, the
smoothing ones give MAP-EM). The observed-data log-likelihood ℓ(θ) = Σ_r log P(o_r; θ)
is recorded every iteration — by pattern as log P(u*, o) − log P(u* | o) with u* the
most probable completion, all at once by the chain rule over the evidence children —
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

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.codes import distinct_rows, mixed_radix
from bbn.core.data import MISSING, encode, require_columns
from bbn.core.errors import DataError
from bbn.core.progress import Progress, report, reporter
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

#: Largest joint posterior (entries per row) of a pattern's unobserved variables; rows
#: beyond it go to the all-at-once E-step.
JOINT_LIMIT = 4096
#: Rows per batched inference call.
BATCH_ROWS = 20_000
#: Name prefix of the evidence children of the all-at-once E-step, and their extra state.
EVIDENCE = "#seen "
MISSING_STATE = "#missing"


@dataclass
class _Rows:
    """Distinct incomplete rows (codes, MISSING where unobserved) and their multiplicity."""

    codes: np.ndarray
    weights: np.ndarray


def em(net: Network, data, estimator: Estimator | str = "mle", *, columns=None,
       tol: float = 1e-6, max_iter: int = 100, seed: int | None = 0,
       initial: Network | None = None, ddof: int = 0, var_smoothing: float = 0.0,
       hard: bool = False, m: float | None = None, prior: Mapping | None = None,
       alpha: float | None = None, ess: float | None = None,
       chunksize: int | None = None, progress: Progress = None) -> EMResult:
    """Learn every table of ``net`` from ``data`` with missing values by EM.

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
    groups, rest = _split(rows[~complete], weights[~complete], variables, shape)
    together = _Together(net, rest, variables) if len(rest.codes) else None

    theta = _initial_tables(net, initial, fixed, rows, variables, seed)
    result = EMResult(network=net)
    tell = reporter(progress)
    for iteration in range(max_iter + 1):
        current = _with_tables(net, theta)
        expected = {v: fixed[v].copy() for v in variables}
        log_tables = {v: _log(theta[v]) for v in variables}
        ll = float(np.dot(weights[complete], shape.log_joint(rows[complete], log_tables)))
        for hidden, group in groups:
            ll += _by_pattern(current, hidden, group, expected, log_tables, shape)
        if together is not None:
            ll += together.expect(current, expected)
        result.log_likelihood.append(ll)
        report(tell, "em", iteration, max_iter, f"log-likelihood {ll:.8g}")
        if converged(result.log_likelihood, tol):
            result.converged = True
            break
        if iteration == max_iter:
            break
        theta = {v: table_from_counts(net, v, expected[v], estimator, warn=False)
                 for v in variables}
        result.iterations = iteration + 1
    result.network = _with_tables(net, theta)
    if isinstance(estimator, MLE):
        for v in variables:
            warn_unseen(net, v, expected[v])
    return result


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


def _split(rows, weights, variables, shape: _Shape):
    """Incomplete rows: pattern groups for the by-pattern E-step, and the rest.

    By pattern costs one inference per pattern, all at once one per family and per
    observed variable; patterns are used while they are fewer than that.
    """
    holes = rows == MISSING
    patterns, which = distinct_rows(holes)
    hidden = [tuple(v for v, h in zip(variables, p, strict=True) if h) for p in patterns]
    small = [g for g, h in enumerate(hidden)
             if math.prod(shape.cards[u] for u in h) <= JOINT_LIMIT]
    if len(small) > 2 * len(variables):
        small = []
    groups = [(hidden[g], _Rows(rows[which == g], weights[which == g])) for g in small]
    rest = ~np.isin(which, small)
    return groups, _Rows(rows[rest], weights[rest])


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


# ------------------------------------------------------------- by pattern
def _by_pattern(net, hidden, group: _Rows, expected, log_tables, shape: _Shape) -> float:
    """Expected counts of rows that miss exactly ``hidden``; returns their log-likelihood."""
    hidden = list(hidden)
    sizes = [shape.cards[u] for u in hidden]
    observed = [v for v in shape.variables if v not in hidden]
    ll = 0.0
    for start in range(0, len(group.codes), BATCH_ROWS):
        codes = group.codes[start:start + BATCH_ROWS]
        weights = group.weights[start:start + BATCH_ROWS]
        post = net.engine.posterior_of_cases(
            hidden, {v: codes[:, shape.position[v]] for v in observed}, cases=len(codes))
        flat = post.reshape(len(codes), -1)
        best = np.argmax(flat, axis=1)
        completed = codes.copy()
        for j, index in enumerate(np.unravel_index(best, sizes)):
            completed[:, shape.position[hidden[j]]] = index
        log_best = np.log(flat[np.arange(len(codes)), best])
        ll += float(np.dot(weights, shape.log_joint(completed, log_tables) - log_best))
        for v, family in shape.families.items():
            missing = [u for u in family if u in hidden]
            if missing:
                drop = tuple(j + 1 for j, u in enumerate(hidden) if u not in missing)
                marginal = post.sum(axis=drop) if drop else post
                kept = [u for u in hidden if u in missing]
                marginal = np.transpose(marginal, [0] + [1 + kept.index(u) for u in missing])
                _add_expected(expected[v], marginal, codes, weights, family, missing, shape)
    return ll


def _add_expected(counts, marginal, codes, weights, family, missing, shape: _Shape) -> None:
    """counts[f] += Σ_rows w · P(missing part of f | row), one bincount per completion."""
    flat = counts.reshape(-1)
    for completion in itertools.product(*(range(shape.cards[u]) for u in missing)):
        fill = dict(zip(missing, completion, strict=True))
        index = mixed_radix([np.full(len(codes), fill[u]) if u in fill
                             else codes[:, shape.position[u]] for u in family],
                            [shape.cards[u] for u in family])
        flat += np.bincount(index, weights=weights * marginal[(slice(None),) + completion],
                            minlength=flat.size)


# ------------------------------------------------------------ all at once
class _Together:
    """The all-at-once E-step: evidence children make every row observe the same variables."""

    def __init__(self, net: Network, rows: _Rows, variables: list[str]):
        self.rows = rows
        self.variables = variables
        self.seen = [v for j, v in enumerate(variables) if (rows.codes[:, j] != MISSING).any()]
        self.names = {v: EVIDENCE + v for v in self.seen}
        self.states = {v: [*net.states(v), _fresh(MISSING_STATE, net.states(v))]
                       for v in self.seen}
        self.codes = {}
        for v in self.seen:
            column = rows.codes[:, variables.index(v)]
            self.codes[v] = np.where(column == MISSING, net.cardinality(v), column)
        self.evidence = {self.names[v]: self.codes[v] for v in self.seen}

    def augmented(self, net: Network) -> Network:
        """``net`` plus one evidence child per variable observed somewhere in these rows."""
        augmented = net.copy()
        for v in self.seen:
            k = net.cardinality(v)
            augmented.add_variable(self.names[v], self.states[v], parents=[v],
                                   table=np.hstack([0.5 * np.eye(k), np.full((k, 1), 0.5)]))
        return augmented

    def expect(self, net: Network, expected) -> float:
        """Add these rows' expected counts; return their log-likelihood."""
        augmented = self.augmented(net)
        holes = self.rows.codes == MISSING
        for v, family in ((v, net.parents(v) + (v,)) for v in self.variables):
            touched = holes[:, [self.variables.index(u) for u in family]].any(axis=1)
            if touched.any():  # rows that see the whole family were counted already
                post = augmented.engine.posterior_of_cases(list(family), self.evidence,
                                                           cases=len(self.rows.codes))
                expected[v] += np.tensordot(self.rows.weights * touched, post, axes=1)
        # log P(o) = Σ_i log P(E_i = e_i | E_<i = e_<i) − |E|·log ½ (each E_X adds a ½)
        log_p = np.zeros(len(self.rows.codes))
        names = [self.names[v] for v in self.seen]
        for i, v in enumerate(self.seen):
            post = augmented.engine.posterior_of_cases(
                [names[i]], {n: self.evidence[n] for n in names[:i]}, cases=len(log_p))
            log_p += np.log(post[np.arange(len(log_p)), self.codes[v]])
        return float(np.dot(self.rows.weights, log_p - len(names) * math.log(0.5)))


def _fresh(name: str, taken) -> str:
    """``name`` with '#' prepended until it is not among ``taken``."""
    while name in taken:
        name = "#" + name
    return name

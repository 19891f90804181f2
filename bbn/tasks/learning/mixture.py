"""EM for mixtures: one hidden discrete variable, Gaussian (and discrete) variables seen.

The unsupervised naive Bayes of EXAMPLES.md §10 (seed 002): with a hidden class H of k
states and Gaussian children x_1..x_d, EM learns a diagonal-covariance Gaussian mixture.
More generally H may have observed discrete parents and children, and any variable
may depend on H and on observed discrete variables; every other cell is observed
(numbers may be missing: such a cell adds nothing to its row's terms).

For a row r and each state h of H, the log-probability of the row completed with H = h
is one vectorised sum over the families (those without H add the same to every h):

    s_rh = Σ_{X discrete} log θ_X(x_r | pa_r) + Σ_{X Gaussian, x_r seen} log N(x_r; μ_X, σ²_X)

with μ_X, σ²_X those of the parent configuration pa_r (H = h in it).

E-step: responsibilities r_rh = exp(s_rh − logsumexp_h s_rh), and the log-likelihood
ℓ = Σ_r logsumexp_h s_rh. M-step: the expected counts n̄(f) = Σ_r r_rh·[row and h match
f] through the estimator (``mle``: P(H = h) = Σ_r r_rh / N), and for every Gaussian

    μ = Σ_r r_rh x_r / Σ_r r_rh        σ² = Σ_r r_rh (x_r − μ)² / (Σ_r r_rh − ddof) + ε

(:func:`bbn.tasks.learning.gaussian.fit_gaussian` with the responsibilities as weights).
``ddof = 0`` is the maximum-likelihood step, scikit-learn's GaussianMixture with
``reg_covar = ε``; ``ddof = 1`` reads Σ_r r_rh as a count of rows (never the maximiser,
so ℓ may then dip). Hard EM (``hard=True``) assigns each row to its most probable state
(r_rh = [h = argmax s_rh]) and records the complete-data ℓ = Σ_r max_h s_rh; with equal,
fixed variances and priors that is k-means.

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("cluster", ["a", "b"])
>>> net.add_gaussian_variable("x", ["cluster"])
>>> rows = pd.DataFrame({"x": [0.0, 0.2, -0.1, 5.0, 5.3, 4.9]})
>>> means, _ = mixture_em(net, rows).network.gaussian_parameters("x")
>>> sorted(round(float(m), 3) for m in means)
[0.033, 5.067]
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.data import MISSING, encode, location, numeric_column, read_data
from bbn.core.errors import DataError
from bbn.core.factor import Factor
from bbn.core.progress import Progress, report, reporter
from bbn.engines.exact.continuous import log_density
from bbn.model.network import Network
from bbn.tasks.learning.convergence import EMResult, check_iteration, converged
from bbn.tasks.learning.counting import check_family_sizes
from bbn.tasks.learning.estimators import Estimator, as_estimator, table_from_counts
from bbn.tasks.learning.gaussian import check_ddof, fit_gaussian, fit_gaussians, variance_epsilon

#: Gaussian variables whose only parent is H are scored and fitted together, as one
#: matrix of columns (False sends them through the per-variable path, as any other).
STACK_CHILDREN = True


@dataclass
class _Family:
    """Where a variable's parameters are read for every row and every state of H.

    The flat parameter index of row r with H = h is ``index[r] + stride·h``; ``axis`` is
    H's axis in the table (None, and ``stride`` 0, when H is not in the family); ``x``
    holds a Gaussian's seen values and ``rows`` which rows they are (None: all).
    """

    variable: str
    shape: tuple[int, ...]
    index: np.ndarray
    axis: int | None
    stride: int
    x: np.ndarray | None = None
    rows: np.ndarray | None = None

    def cells(self, k: int) -> np.ndarray:
        """Flat indices, ``(rows, k)``, or ``(rows, 1)`` when H is not in the family."""
        if self.stride == 0:
            return self.index[:, None]
        return self.index[:, None] + self.stride * np.arange(k)


@dataclass
class _Stack:
    """Gaussian variables whose only parent is H: their columns ``x`` (rows, g), NaN
    where missing, as ``values`` (0 there) and ``seen`` (None when nothing is missing)."""

    variables: list[str]
    x: np.ndarray
    values: np.ndarray
    seen: np.ndarray | None


def mixture_em(net: Network, data, estimator: Estimator | str = "mle", *,
               columns=None, tol: float = 1e-6, max_iter: int = 100, seed: int | None = 0,
               initial: Network | None = None, ddof: int = 0, var_smoothing: float = 0.0,
               hard: bool = False, progress: Progress = None) -> EMResult:
    """EM (or hard EM) for a network whose only unobserved variable is one discrete H.

    Called by :func:`bbn.tasks.learning.missing.em` for networks with Gaussian variables and
    for ``hard=True``. Initial parameters: those of ``initial`` when given; otherwise,
    drawn with ``seed``, the discrete tables of families holding H as the discrete EM
    starts them (1 + a uniform draw in [0, 1) per cell, normalised), the means of the
    Gaussian children of H at H = h the values of one of k rows drawn as k-means++ seeds
    (:func:`spread_rows`; the course's "random subset of X", spread out; a missing value
    there takes the column mean), their variances those of all rows (per configuration
    of the other parents), and the families without H their complete-data estimates.

    Parameters
    ----------
    net : Network
        The structure: at most one variable without a column (H, discrete).
    data : DataFrame, str or path, or numpy array
        The rows, as for :func:`bbn.learn`; numbers may be missing, discrete cells not.
    estimator : Estimator or str, default "mle"
        The M-step's estimator for the discrete tables (:mod:`bbn.tasks.learning.estimators`).
    columns, tol, max_iter, seed, initial
        As :func:`bbn.tasks.learning.missing.em`.
    ddof : int, default 0
        σ² divides by Σ_r r_rh − ddof (0: the maximum-likelihood step).
    var_smoothing : float, default 0.0
        Adds var_smoothing × the largest column variance to every variance.
    hard : bool, default False
        Hard EM: each row assigned to its most probable state of H.
    progress : callable, True or None
        Told each iteration and its log-likelihood (:mod:`bbn.core.progress`).

    Returns
    -------
    EMResult

    Raises
    ------
    DataError
        For a bad setting, more than one hidden variable or a hidden Gaussian one, a
        missing discrete cell, fewer rows than H has states, or a row of probability 0.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.Network()
    >>> net.add_variable("H", ["a", "b"])
    >>> net.add_gaussian_variable("x", ["H"])
    >>> rows = pd.DataFrame({"x": [0.0, 0.1, 9.9, 10.0]})
    >>> result = mixture_em(net, rows, bbn.Laplace(), hard=True)
    >>> sorted(result.network.gaussian_parameters("x")[0].round(2).tolist())
    [0.05, 9.95]
    """
    estimator = as_estimator(estimator)
    ddof = check_ddof(ddof)
    check_iteration(max_iter, tol)
    if not var_smoothing >= 0:
        raise DataError(f"var_smoothing must be ≥ 0, got {var_smoothing!r}")
    check_family_sizes(net)
    model = _Mixture(net, data, columns, hard)
    epsilon, floor = variance_epsilon(model.numbers, var_smoothing)
    model.options = dict(estimator=estimator, ddof=ddof, epsilon=epsilon, floor=floor)

    theta = _from_network(net, initial) if initial is not None else model.initial(seed)
    result, tell = EMResult(network=net), reporter(progress)
    warned: list = []
    for iteration in range(max_iter + 1):
        ll, responsibilities = model.e_step(theta)
        result.log_likelihood.append(ll)
        report(tell, "em", iteration, max_iter, f"log-likelihood {ll:.8g}")
        if converged(result.log_likelihood, tol):
            result.converged = True
            break
        if iteration == max_iter:
            break
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            theta = model.m_step(responsibilities)
        warned = caught
        result.iterations = iteration + 1
    for warning in warned:  # about the final parameters only, not every M-step
        warnings.warn(warning.message, stacklevel=3)
    result.network = _with_parameters(net, theta)
    return result


class _Mixture:
    """The rows as arrays, and the E- and M-steps over them (θ: {variable: table, or
    (μ, σ²)}, each in the network's axis order)."""

    def __init__(self, net: Network, data, columns, hard: bool):
        self.net, self.hard = net, hard
        discrete = [v for v in net.variables if not net.is_gaussian(v)]
        continuous = [v for v in net.variables if net.is_gaussian(v)]
        frame, self.source = read_data(data, columns, {v: net.states(v) for v in discrete})
        self.row_names = None if self.source != "data" else frame.index
        present = set(map(str, frame.columns))
        given = [v for v in discrete if v in present]
        codes = encode(frame, given, [net.states(v) for v in given], source=self.source)
        empty = (codes == MISSING).all(axis=0) if len(frame) else np.ones(len(given), bool)
        unseen = {v for v in net.variables if v not in present} | {
            v for v, e in zip(given, empty, strict=True) if e}  # an empty column hides too
        self.hidden = _hidden_variable(net, [v for v in net.variables if v in unseen], hard)
        observed = [v for v in given if v != self.hidden]
        codes = codes[:, [given.index(v) for v in observed]]
        if (codes == MISSING).any():
            row, column = (int(i) for i in np.argwhere(codes == MISSING)[0])
            raise DataError(f"{self.source}: column {observed[column]!r}, {self.where(row)}: "
                            "missing value; EM with Gaussian variables (or hard EM) handles one "
                            "hidden variable and missing numbers, not missing discrete cells: "
                            "drop those rows first")
        values = {v: numeric_column(frame[v], v, self.source) for v in continuous}
        for v, x in values.items():
            if np.isnan(x).all():
                raise DataError(f"{self.source}: column {v!r} has no numbers; EM cannot learn "
                                f"the Gaussian {v!r} from it")
        self.n = len(frame)
        self.k = net.cardinality(self.hidden) if self.hidden else 1
        if self.n == 0:
            raise DataError(f"{self.source}: no rows to learn from")
        if self.n < self.k:
            raise DataError(f"{self.source}: {self.n} row(s) cannot start the {self.k} states "
                            f"of {self.hidden!r} (each starts at a row)")
        self.values = values
        self.numbers = (np.column_stack(list(values.values())) if values
                        else np.empty((self.n, 0)))
        stacked = [v for v in continuous if STACK_CHILDREN and self.hidden is not None
                   and net.parents(v) == (self.hidden,)]
        self.stack = _stack(stacked, values) if stacked else None
        columns_of = {v: codes[:, j] for j, v in enumerate(observed)}
        self.families = [self.family(v, columns_of, values.get(v)) for v in net.variables
                         if v not in stacked]
        self.options: dict = {}

    def where(self, row: int) -> str:
        return location(self.source, row, self.row_names)

    def family(self, v: str, columns_of, x) -> _Family:
        net, hidden = self.net, self.hidden
        members = net.parents(v) + (() if net.is_gaussian(v) else (v,))
        shape = tuple(net.cardinality(u) for u in members)
        axis = members.index(hidden) if hidden in members else None
        stride = 0 if axis is None else int(np.prod(shape[axis + 1:]))
        zeros = np.zeros(self.n, dtype=np.int64)
        index = (mixed_radix([zeros if u == hidden else columns_of[u] for u in members], shape)
                 if members else zeros)
        if x is None:
            return _Family(v, shape, index, axis, stride)
        seen = ~np.isnan(x)
        if seen.all():
            return _Family(v, shape, index, axis, stride, x)
        return _Family(v, shape, index[seen], axis, stride, x[seen], seen)

    # ------------------------------------------------------------------ E-step
    def e_step(self, theta) -> tuple[float, np.ndarray]:
        """(ℓ, responsibilities (rows, k)): soft, or one-hot at each row's best state."""
        scores = np.zeros((self.n, self.k))
        for f in self.families:
            cells = f.cells(self.k)
            if f.x is None:
                with np.errstate(divide="ignore"):
                    scores += np.log(theta[f.variable].ravel()[cells])
                continue
            mean, variance = (a.ravel()[cells] for a in theta[f.variable])
            term = log_density(f.x[:, None], mean, variance)
            if f.rows is None:
                scores += term
            else:
                scores[f.rows] += term
        if self.stack is not None:
            self.add_stack_scores(scores, theta)
        top = scores.max(axis=1)
        if not np.all(np.isfinite(top)):
            row = int(np.flatnonzero(~np.isfinite(top))[0])
            raise DataError(f"{self.source}: {self.where(row)} has probability 0 under the "
                            "current parameters (a zero in the initial tables?)")
        if self.hard:
            return float(top.sum()), np.eye(self.k)[np.argmax(scores, axis=1)]
        shifted = np.exp(scores - top[:, None])
        total = shifted.sum(axis=1)
        return float(np.sum(top + np.log(total))), shifted / total[:, None]

    def add_stack_scores(self, scores: np.ndarray, theta) -> None:
        """scores[:, h] += Σ_j log N(x_j; μ_hj, σ²_hj) over the seen cells, one h at a time."""
        stack = self.stack
        mean = np.column_stack([theta[v][0] for v in stack.variables])  # (k, g)
        variance = np.column_stack([theta[v][1] for v in stack.variables])
        log_norm = np.log(2.0 * np.pi * variance)
        for h in range(self.k):
            squares = (stack.values - mean[h]) ** 2 / variance[h]
            if stack.seen is None:
                scores[:, h] -= 0.5 * (log_norm[h].sum() + squares.sum(axis=1))
            else:
                scores[:, h] -= 0.5 * (stack.seen @ log_norm[h]
                                       + np.sum(squares, axis=1, where=stack.seen))

    # ------------------------------------------------------------------ M-step
    def m_step(self, responsibilities: np.ndarray) -> dict:
        """New parameters from the responsibilities: estimator(n̄) and weighted moments."""
        o = self.options
        theta = {}
        for f in self.families:
            size = int(np.prod(f.shape))
            if f.stride == 0:  # H is not in the family: each row counts once
                cells, weights = f.index, None
            else:
                cells = f.cells(self.k).ravel()
                rows = responsibilities if f.rows is None else responsibilities[f.rows]
                weights = rows.ravel()
            if f.x is None:
                counts = np.bincount(cells, weights=weights, minlength=size).reshape(f.shape)
                theta[f.variable] = table_from_counts(self.net, f.variable, counts,
                                                      o["estimator"])
            else:
                x = f.x if f.stride == 0 else np.repeat(f.x, self.k)
                mean, variance = fit_gaussian([cells], [size], x, ddof=o["ddof"],
                                              epsilon=o["epsilon"], floor=o["floor"],
                                              weights=weights, name=f.variable)
                theta[f.variable] = (mean.reshape(f.shape), variance.reshape(f.shape))
        if self.stack is not None:
            mean, variance = fit_gaussians(responsibilities, self.stack.x, ddof=o["ddof"],
                                           epsilon=o["epsilon"], floor=o["floor"],
                                           names=self.stack.variables)
            for j, v in enumerate(self.stack.variables):
                theta[v] = (mean[:, j], variance[:, j])
        return theta

    # ----------------------------------------------------------- initial state
    def initial(self, seed) -> dict:
        """The seeded start described in :func:`mixture_em`."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # uniform responsibilities: the fits of all rows
            theta = self.m_step(np.full((self.n, self.k), 1.0 / self.k))
        rng = np.random.default_rng(seed)
        for f in self.families:  # the discrete EM's draws, in its order
            if f.x is None and f.axis is not None:
                counts = 1.0 + rng.random(f.shape)
                theta[f.variable] = counts / counts.sum(axis=-1, keepdims=True)
        children = [(f.variable, f.shape, f.axis) for f in self.families
                    if f.x is not None and f.axis is not None]
        if self.stack is not None:
            children += [(v, (self.k,), 0) for v in self.stack.variables]
        if not children:
            return theta
        names = list(self.net.variables)
        children.sort(key=lambda child: names.index(child[0]))
        columns = np.column_stack([self.values[v] for v, _, _ in children])
        picks = spread_rows(columns, self.k, rng)
        for (v, shape, axis), x in zip(children, columns.T, strict=True):
            start = np.where(np.isnan(x[picks]), np.nanmean(x), x[picks])
            along = [1] * len(shape)
            along[axis] = self.k
            theta[v] = (np.broadcast_to(start.reshape(along), shape).copy(), theta[v][1])
        return theta


def _stack(variables: list[str], values: Mapping[str, np.ndarray]) -> _Stack:
    x = np.column_stack([values[v] for v in variables])
    seen = ~np.isnan(x)
    if seen.all():
        return _Stack(variables, x, x, None)
    return _Stack(variables, x, np.where(seen, x, 0.0), seen)


def spread_rows(columns: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k row indices chosen as k-means++ seeds: the first uniformly, each next one with
    probability ∝ its squared distance to the nearest row chosen so far.

    Distances are taken on the columns standardised (a missing value counts as the
    column mean), so no column dominates by its unit. A loop over k, not over rows.
    """
    spread = np.nanstd(columns, axis=0)
    z = np.nan_to_num((columns - np.nanmean(columns, axis=0)) / np.where(spread > 0, spread, 1))
    picks = [int(rng.integers(len(z)))]
    nearest = np.sum((z - z[picks[0]]) ** 2, axis=1)
    for _ in range(1, k):
        total = nearest.sum()
        p = nearest / total if total > 0 else None  # every row on a seed: uniform
        picks.append(int(rng.choice(len(z), p=p)))
        nearest = np.minimum(nearest, np.sum((z - z[picks[-1]]) ** 2, axis=1))
    return np.array(picks)


def _hidden_variable(net: Network, unseen: list[str], hard: bool) -> str | None:
    """The one hidden discrete variable (None when every variable has a column)."""
    for v in unseen:
        if net.is_gaussian(v):
            raise DataError(f"no column for the continuous variable {v!r}: EM learns a hidden "
                            "discrete variable, not a hidden Gaussian one (give its column)")
    if len(unseen) > 1:
        mode = "hard EM" if hard else "EM with Gaussian variables"
        raise DataError(f"{mode} handles one hidden variable; {', '.join(map(repr, unseen))} "
                        "have no column")
    return unseen[0] if unseen else None


def _from_network(net: Network, initial: Network) -> dict:
    """Parameters of ``initial`` in ``net``'s axis and state order."""
    theta = {}
    for v in net.variables:
        parents = net.parents(v)
        states = {u: net.states(u) for u in parents + (v,)}
        if not net.is_gaussian(v):
            theta[v] = np.array(initial.cpt(v).transpose(parents + (v,))
                                .reorder_states(states).values)
            continue
        own = initial.parents(v)
        theta[v] = tuple(np.array(Factor(own, {u: initial.states(u) for u in own}, a)
                                  .transpose(parents).reorder_states(states).values)
                         for a in initial.gaussian_parameters(v))
    return theta


def _with_parameters(net: Network, theta: Mapping) -> Network:
    learned = net.copy()
    for v, parameters in theta.items():
        if net.is_gaussian(v):
            learned.set_gaussian(v, *parameters)
        else:
            learned.set_cpt(v, parameters)
    return learned

"""Exact inference with continuous variables: linear Gaussian and conditional linear
Gaussian (CLG) networks, by enumerating the discrete configurations.

For each configuration d of D (the discrete parents of the continuous variables) the
continuous variables X, in topological order, are X = c(d) + B(d) X + ε with
ε ~ N(0, diag(σ²(d))), B strictly lower triangular, so they are one multivariate normal::

    μ(d) = (I − B(d))⁻¹ c(d),      Σ(d) = (I − B(d))⁻¹ diag(σ²(d)) (I − B(d))⁻ᵀ

A continuous finding x_E conditions each component (the Schur complement)::

    μ_T|E = μ_T + Σ_TE Σ_EE⁻¹ (x_E − μ_E),      Σ_T|E = Σ_TT − Σ_TE Σ_EE⁻¹ Σ_ET

and weighs it: w(d) ∝ P(d | discrete evidence) · N(x_E; μ_E(d), Σ_EE(d)), the first
factor from the discrete engine (the continuous variables have no discrete children, so
the discrete part is a network of its own). A pure linear Gaussian network has one
configuration: the answer is one multivariate normal. With discrete parents, the answer
about continuous variables is a mixture of |D| normals, at most
:data:`MAX_CONFIGURATIONS`. When they are many,
:mod:`bbn.engines.exact.conditional_gaussian` answers group by group of connected
continuous variables instead (the strong junction tree).

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
>>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
>>> answer = net.posterior("x", {"y": 2.0})      # E[x | y] = 1/2 · 2, Var = 1 − 1/2
>>> round(answer.mean, 12), round(answer.variance, 12)
(1.0, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs, dtrtrs

from bbn.core.errors import ImpossibleEvidenceError, ModelError, QueryError
from bbn.core.memory import check_allocation
from bbn.core.normals import Normal
from bbn.engines.protocol import Evidence

if TYPE_CHECKING:
    from bbn.engines.exact.engine import Engine
    from bbn.views.compiled import CompiledNetwork

#: The most discrete configurations (of the continuous variables' discrete parents)
#: enumerated for one question.
MAX_CONFIGURATIONS = 1 << 12


class LinearGaussian:
    """The continuous part of one compiled view, as |D| multivariate normals.

    Parameters
    ----------
    network : CompiledNetwork
        A view with Gaussian variables (continuous parents allowed).

    Raises
    ------
    ModelError
        For a Gaussian without parameters, or more than :data:`MAX_CONFIGURATIONS`
        discrete configurations.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_gaussian_variable("x", mean=1.0, variance=2.0)
    >>> LinearGaussian(net.compiled()).means.tolist()
    [[1.0]]
    """

    def __init__(self, network: CompiledNetwork) -> None:
        self.network = network
        self._kept: dict[tuple, tuple] = {}  # conditioning matrices per question shape
        system = network.linear
        if system is not None:  # a linear Gaussian network kept as arrays: read as they are
            self.names, self.index, self.discrete, self.shape = (system.names, system.index,
                                                                 (), ())
            n = len(system.names)
            check_allocation(n * n * 8, f"the normal of {n} continuous variables")
            self._lower = (system.rows, system.columns, -system.weights)
            self._intercept, self._noise = system.intercept[None], system.variance[None]
            return
        gaussian = network.gaussian
        order, leaves = list(gaussian), list(gaussian.values())
        tables = [leaf.table for leaf in leaves]
        if id(None) in map(id, tables):  # (`None in tables` would compare arrays)
            v = order[[t is None for t in tables].index(True)]
            raise ModelError(f"the Gaussian {v!r} has no mean and variance yet")
        index, rows, columns = _arcs(order, leaves)
        if (columns > rows).any():  # not declared parents first: topological order
            order = _topological(gaussian)
            leaves = [gaussian[v] for v in order]
            tables = [leaf.table for leaf in leaves]
            index, rows, columns = _arcs(order, leaves)
        # discrete parents only when some variable is not Gaussian
        discrete = ({p for leaf in leaves for p in leaf.parents}
                    if len(order) < len(network.variables) else ())
        self.names = tuple(order)
        self.index = index
        self.discrete = tuple(v for v in network.variables if v in discrete) if discrete else ()
        self.shape = tuple(network.cardinality[v] for v in self.discrete)
        configurations = math.prod(self.shape)
        n = len(order)
        if configurations > MAX_CONFIGURATIONS:
            raise ModelError(
                f"the continuous variables have {len(self.discrete)} discrete parents "
                f"with {configurations} configurations; exact answers enumerate at most "
                f"{MAX_CONFIGURATIONS} (so does the component tree, "
                "bbn.engines.exact.conditional_gaussian, for connected continuous "
                "variables)")
        check_allocation(configurations * n * n * 4,
                         f"the {configurations} normals of {n} continuous variables")
        k = configurations
        # I − B, unit lower triangular in topological order: X = (I − B)⁻¹ (c + ε)
        if k == 1:  # a linear Gaussian network: every record [c, σ², b...] in one array
            flat = np.concatenate(tables)
            # weight g (of row i) sits at g + 2 (i + 1): after the i + 1 records' [c, σ²]
            at = np.arange(len(rows)) + 2 * rows + 2
            kept = np.ones(len(flat), bool)
            kept[at] = False
            intercept, noise = flat[kept].reshape(n, 2).T[:, None]
            # B's entries only: the dense I − B is made per solve and freed (a fresh
            # network's n² block kept per engine costs new memory pages each time)
            lower = (rows, columns, -flat[at])
        else:
            lower = np.zeros((k, n, n))
            intercept, noise = np.empty((k, n)), np.empty((k, n))
            for i, leaf in enumerate(leaves):
                intercept[:, i] = self._on_grid(leaf.mean, leaf.parents)
                noise[:, i] = self._on_grid(leaf.variance, leaf.parents)
                for j, p in enumerate(leaf.continuous):
                    lower[:, i, index[p]] = -self._on_grid(leaf.weights[..., j], leaf.parents)
            lower.reshape(k, n * n)[:, ::n + 1] = 1.0
        # I − B: (rows, columns, −b) of B's entries when k = 1, else dense (k, n, n)
        self._lower, self._noise, self._intercept = lower, noise, intercept

    @property
    def means(self) -> np.ndarray:
        """μ(d) = (I − B(d))⁻¹ c(d), shape (configurations, variables)."""
        return self.moments(range(len(self.names)))[0]

    def moments(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """μ_S(d) and Σ_SS(d) for the variables ``rows`` (indices in :attr:`names`), per
        configuration, without the whole Σ: with Y = (I − B)⁻ᵀ e_S (one triangular solve,
        |S| right-hand sides), μ_S = Yᵀ c and Σ_SS = Yᵀ diag(σ²) Y.

        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=1.0, variance=1.0)
        >>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 2.0})
        >>> mean, covariance = LinearGaussian(net.compiled()).moments([0, 1])
        >>> mean.tolist(), covariance.tolist()
        ([[1.0, 2.0]], [[[1.0, 2.0], [2.0, 5.0]]])
        """
        rows = list(rows)
        k, n = self._noise.shape
        if k == 1:  # LAPACK directly: (I − B)ᵀ is upper triangular, Fortran-ordered as .T
            m = len(rows)
            unit = np.zeros((m, n))  # e_S as columns, Fortran-ordered through .T
            unit.reshape(-1)[np.add(rows, range(0, m * n, n))] = 1.0
            unit = unit.T
            rows_b, columns_b, entries = self._lower
            lower = np.zeros((n, n))  # I − B (the unit diagonal implied: unitdiag)
            lower[rows_b, columns_b] = entries
            y, _ = dtrtrs(lower.T, unit, lower=0, unitdiag=1, overwrite_b=1)
            return (self._intercept @ y,
                    ((y.T * self._noise[0]) @ y)[None])
        unit = np.zeros((k, n, len(rows)))
        unit[:, rows, range(len(rows))] = 1.0
        y = np.linalg.solve(self._lower.transpose(0, 2, 1), unit)
        return (np.einsum("kis,ki->ks", y, self._intercept),
                np.einsum("kis,ki,kit->kst", y, self._noise, y))

    def _on_grid(self, array: np.ndarray, parents: Sequence[str]) -> np.ndarray:
        """A parameter over some discrete parents, repeated over every configuration of
        :attr:`discrete` (flat, the last parent fastest)."""
        array = np.asarray(array, dtype=float)
        if not self.discrete:
            return array.reshape(1)
        axes = [self.discrete.index(p) for p in parents]
        expanded = np.transpose(array, np.argsort(axes)) if axes else array
        shape = [1] * len(self.discrete)
        for a in sorted(axes):
            shape[a] = self.shape[a]
        return np.broadcast_to(expanded.reshape(shape), self.shape).reshape(-1)

    # --------------------------------------------------------------- answers
    def _log_weights(self, engine: Engine, extra: Sequence[str], evidence: Evidence
                     ) -> np.ndarray:
        """log P(extra, d | discrete evidence), shape ``(|E1|, ..., |Em|, |D|)``: the
        configurations d of :attr:`discrete` flat (the last fastest), −inf where the
        evidence or an extra variable's state rules d out."""
        states = evidence.states
        discrete_evidence = Evidence(dict(states), {}, {
            v: s for v, s in evidence.given.items() if v not in evidence.values})
        free = [v for v in self.discrete if v not in states and v not in extra]
        asked = list(extra) + free
        if asked:
            joint = engine.posterior(asked, discrete_evidence).values
        else:
            if states and engine.log_weight(dict(states)) == -math.inf:
                raise ImpossibleEvidenceError(dict(discrete_evidence.given))
            joint = np.ones(())
        k = math.prod(self.shape)
        codes = np.indices(self.shape).reshape(len(self.shape), k)
        rank = len(extra) + 1
        index = []
        for a in asked:
            if a in free:
                index.append(codes[self.discrete.index(a)])  # on the last axis
            else:
                shape = [1] * rank
                shape[extra.index(a)] = self.network.cardinality[a]
                index.append(np.arange(self.network.cardinality[a]).reshape(shape))
        values = joint[tuple(index)] if asked else np.ones(k)
        values = np.broadcast_to(values, tuple(self.network.cardinality[v] for v in extra)
                                 + (k,)).copy()
        for i, v in enumerate(self.discrete):
            if v in states:  # configurations that disagree with the evidence
                values[..., codes[i] != states[v]] = 0.0
            elif v in extra:  # an asked parent: its state must be the configuration's
                shape = [1] * rank
                shape[extra.index(v)] = self.network.cardinality[v]
                values = values * (np.arange(self.network.cardinality[v]).reshape(shape)
                                   == codes[i])
        with np.errstate(divide="ignore"):
            return np.log(values)

    def answer(self, engine: Engine, targets: Sequence[str], evidence: Evidence):
        """P(targets | evidence): a :class:`~bbn.core.normals.Normal` when the targets are
        continuous, a table (numpy array over the targets' states) when discrete.

        ``engine`` answers the discrete part (the exact engine of the same view);
        ``evidence.values`` holds the continuous findings.
        """
        continuous = [v for v in targets if v in self.network.gaussian]
        if continuous and len(continuous) != len(targets):
            raise QueryError("ask about continuous and discrete variables separately: "
                             f"{continuous} are continuous")
        discrete_targets = [] if continuous else list(targets)
        t = tuple(map(self.index.__getitem__, continuous))
        density, means, covariances = self.conditioned(evidence.values, t)
        if not self.discrete and continuous:  # a linear Gaussian network: one normal
            if evidence.states and engine.log_weight(dict(evidence.states)) == -math.inf:
                raise ImpossibleEvidenceError(dict(evidence.given))
            return Normal(continuous, np.ones(1), means, covariances)
        log_w = self._log_weights(engine, discrete_targets, evidence)
        log_w = log_w + density
        top = np.max(log_w) if log_w.size else -np.inf
        if not np.isfinite(top):
            raise ImpossibleEvidenceError(dict(evidence.given))
        weights = np.exp(log_w - top)
        if discrete_targets:
            table = weights.sum(axis=-1)
            return table / table.sum()
        weights = weights / weights.sum()
        kept = np.flatnonzero(weights > 0)
        return Normal(continuous, weights[kept], means[kept], covariances[kept])

    def posteriors(self, engine: Engine, evidence: Evidence) -> dict:
        """Every unobserved variable's answer (:meth:`answer`), the view's auxiliary
        variables left out.

        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
        >>> answers = LinearGaussian(net.compiled()).posteriors(net.engine,
        ...                                                     Evidence({}, {"y": 2.0}, {}))
        >>> round(answers["x"].mean, 12), round(answers["x"].variance, 12)
        (1.0, 0.5)
        """
        view = self.network
        return {v: self.answer(engine, [v], evidence) for v in view.variables
                if v not in evidence.values and v not in evidence.states
                and v not in view.auxiliary}

    def conditioned(self, values: Mapping[str, float], targets: tuple
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per configuration d: log N(x_E; μ_E(d), Σ_EE(d)) of the findings ``values``
        (0 without findings), and the means μ_T|E(d) and covariances Σ_T|E(d) of the
        variables ``targets`` (indices in :attr:`names`) given them.

        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
        >>> density, mean, covariance = LinearGaussian(net.compiled()).conditioned({"y": 0.0}, (0,))
        >>> round(float(density[0]), 6), mean.tolist(), covariance.round(12).tolist()
        (-1.265512, [[0.0]], [[[0.5]]])
        """
        observed = tuple(map(self.index.__getitem__, values))
        mean_e, mean_t, precision, log_det, gain, conditional = self._conditioning(observed,
                                                                                   targets)
        if not observed:
            return np.zeros(len(mean_t)), mean_t, conditional
        diff = np.fromiter(values.values(), float, len(observed))[None] - mean_e
        quadratic = ((diff[:, None, :] @ precision) @ diff[:, :, None])[:, 0, 0]
        density = -0.5 * (quadratic + log_det + len(observed) * math.log(2 * math.pi))
        return density, mean_t + (gain @ diff[:, :, None])[:, :, 0], conditional

    def _conditioning(self, observed: tuple, targets: tuple) -> tuple:
        """What conditioning on the variables ``observed`` needs whatever their values,
        kept per (observed, targets): Σ_EE⁻¹, log det Σ_EE, the gain Σ_TE Σ_EE⁻¹ and
        Σ_T|E, per configuration. Later questions of the same shape are a few products."""
        key = (observed, targets)
        found = self._kept.get(key)
        if found is None:
            e = len(observed)
            means, covariances = self.moments(observed + targets)
            s_ee, s_te = covariances[:, :e, :e], covariances[:, e:, :e]
            if e:
                precision, log_det = _inverse(s_ee)
                gain = s_te @ precision
                conditional = covariances[:, e:, e:] - gain @ s_te.transpose(0, 2, 1)
            else:
                log_det = precision = gain = None
                conditional = covariances[:, e:, e:]
            found = (means[:, :e], means[:, e:], precision, log_det, gain, conditional)
            if len(self._kept) >= 64:  # a bound on what is kept
                self._kept.clear()
            self._kept[key] = found
        return found


def _arcs(order: list, leaves: list) -> tuple[dict, np.ndarray, np.ndarray]:
    """Each Gaussian's position in ``order``, and B's entries in that order: row i (a
    Gaussian), column j (one of its continuous parents), one pair per arc."""
    index = dict(zip(order, range(len(order))))
    parents = [leaf.continuous for leaf in leaves]
    counts = list(map(len, parents))
    columns = np.fromiter(map(index.__getitem__, chain.from_iterable(parents)),
                          np.intp, sum(counts))
    return index, np.repeat(np.arange(len(order)), counts), columns


def _topological(gaussian: Mapping) -> list[str]:
    """The Gaussian variables, each after its continuous parents (declaration order
    otherwise)."""
    order: dict[str, None] = {}
    pending = list(gaussian.items())
    while pending:
        later = [(v, leaf) for v, leaf in pending
                 if not all(p in order for p in leaf.continuous) or order.setdefault(v)]
        if len(later) == len(pending):
            raise ModelError("the continuous variables have a directed cycle")
        pending = later
    return list(order)


def _inverse(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(S⁻¹, log det S) of symmetric positive definite matrices (k, e, e), by Cholesky
    (LAPACK directly for one matrix: numpy's batched call costs more than the work)."""
    if len(matrices) == 1:
        chol, info = dpotrf(matrices[0], lower=1, clean=1)
        if info:
            raise np.linalg.LinAlgError("the evidence's covariance is singular")
        inverse, _ = dpotrs(chol, np.eye(len(chol)), lower=1)
        return inverse[None], 2.0 * np.log(chol.diagonal()).sum(keepdims=True)
    chol = np.linalg.cholesky(matrices)
    return (np.linalg.inv(matrices),
            2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1))


def continuous_findings(network: CompiledNetwork, values: Mapping[str, float]) -> None:
    """QueryError for a finding on a variable that is not continuous (a safeguard:
    resolution splits them)."""
    for v in values:
        if v not in network.gaussian:
            raise QueryError(f"{v!r} is not continuous")

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
:data:`MAX_CONFIGURATIONS` (the Lauritzen–Jensen junction tree, which would lift that
limit, is not implemented; beyond it the question is refused, saying why).

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
>>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
>>> answer = net.posterior("x", {"y": 2.0})      # E[x | y] = 1/2 · 2, Var = 1 − 1/2
>>> answer.mean, answer.variance
(1.0, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

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
        gaussian = network.gaussian
        order: list[str] = []
        placed: set[str] = set()
        pending = [v for v in network.variables if v in gaussian]
        while pending:  # topological order among the continuous variables
            ready = [v for v in pending if all(p in placed for p in gaussian[v].continuous)]
            order += ready
            placed.update(ready)
            pending = [v for v in pending if v not in placed]
        self.names = tuple(order)
        self.index = {v: i for i, v in enumerate(order)}
        discrete = {p for v in order for p in gaussian[v].parents}
        self.discrete = tuple(v for v in network.variables if v in discrete)
        self.shape = tuple(network.cardinality[v] for v in self.discrete)
        configurations = math.prod(self.shape)
        n = len(order)
        if configurations > MAX_CONFIGURATIONS:
            raise ModelError(
                f"the continuous variables have {len(self.discrete)} discrete parents "
                f"with {configurations} configurations; exact answers enumerate at most "
                f"{MAX_CONFIGURATIONS} (the Lauritzen–Jensen junction tree that would "
                "need none is not implemented)")
        check_allocation(configurations * n * n * 4,
                         f"the {configurations} normals of {n} continuous variables")
        k = configurations
        intercept, noise = np.empty((k, n)), np.empty((k, n))
        coefficients = np.zeros((k, n, n))
        for i, v in enumerate(order):
            leaf = gaussian[v]
            if leaf.mean is None:
                raise ModelError(f"the Gaussian {v!r} has no mean and variance yet")
            intercept[:, i] = self._on_grid(leaf.mean, leaf.parents)
            noise[:, i] = self._on_grid(leaf.variance, leaf.parents)
            for j, p in enumerate(leaf.continuous):
                coefficients[:, i, self.index[p]] = self._on_grid(leaf.weights[..., j],
                                                                  leaf.parents)
        # X = A (c + ε), A = (I − B)⁻¹, row by row in topological order (forward
        # substitution: A_i = e_i + Σ_j B_ij A_j over the parents j of i). Elementwise
        # numpy, not LAPACK: a multi-threaded solve of 100 × 100 took 0.45 s on a loaded
        # machine where this takes 2 ms.
        a = np.zeros((k, n, n))
        for i in range(n):
            a[:, i, i] = 1.0
            parents = np.flatnonzero(coefficients[:, i, :].any(axis=0))
            if len(parents):
                a[:, i, :] += (coefficients[:, i, parents, None] * a[:, parents, :]).sum(axis=1)
        self._kept: dict[tuple, tuple] = {}  # conditioning matrices per question shape
        self.means = np.einsum("kij,kj->ki", a, intercept)
        self.covariances = np.einsum("kij,klj->kil", a * noise[:, None, :], a)

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
        log_w = self._log_weights(engine, discrete_targets, evidence)
        observed = tuple(self.index[v] for v in evidence.values)
        t = tuple(self.index[v] for v in continuous)
        x = np.array(list(evidence.values.values()), dtype=float)
        means = self.means
        if observed:
            precision, log_det, gain, conditional = self._conditioning(observed, t)
            diff = x[None] - means[:, observed]
            log_w = log_w - 0.5 * (np.einsum("ke,kef,kf->k", diff, precision, diff) + log_det
                                   + len(observed) * math.log(2 * math.pi))
        top = np.max(log_w) if log_w.size else -np.inf
        if not np.isfinite(top):
            raise ImpossibleEvidenceError(dict(evidence.given))
        weights = np.exp(log_w - top)
        if discrete_targets:
            table = weights.sum(axis=-1)
            return table / table.sum()
        weights = weights / weights.sum()
        kept = np.flatnonzero(weights > 0)
        if not observed:
            return Normal(continuous, weights[kept], means[kept][:, t],
                          self.covariances[kept][:, t][:, :, t])
        m = means[kept][:, t] + np.einsum("kte,ke->kt", gain[kept], diff[kept])
        return Normal(continuous, weights[kept], m, conditional[kept])

    def _conditioning(self, observed: tuple, targets: tuple) -> tuple:
        """What conditioning on the variables ``observed`` needs whatever their values,
        kept per (observed, targets): Σ_EE⁻¹, log det Σ_EE, the gain Σ_TE Σ_EE⁻¹ and
        Σ_T|E, per configuration. Later questions of the same shape are a few products."""
        key = (observed, targets)
        found = self._kept.get(key)
        if found is None:
            covariances = self.covariances
            s_ee = covariances[:, observed][:, :, observed]
            chol = np.linalg.cholesky(s_ee)
            log_det = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
            precision = np.linalg.inv(s_ee)
            s_te = covariances[:, targets][:, :, observed]
            gain = np.einsum("kte,kef->ktf", s_te, precision)
            conditional = (covariances[:, targets][:, :, targets]
                           - np.einsum("kte,kue->ktu", gain, s_te))
            found = (precision, log_det, gain, conditional)
            if len(self._kept) >= 64:  # a bound on what is kept
                self._kept.clear()
            self._kept[key] = found
        return found


def continuous_findings(network: CompiledNetwork, values: Mapping[str, float]) -> None:
    """QueryError for a finding on a variable that is not continuous (a safeguard:
    resolution splits them)."""
    for v in values:
        if v not in network.gaussian:
            raise QueryError(f"{v!r} is not continuous")

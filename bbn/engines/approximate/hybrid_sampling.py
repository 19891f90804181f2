"""Likelihood weighting in hybrid networks: discrete variables (tables or the softmax form
of :mod:`bbn.model.softmax_nodes`) and conditional linear Gaussians, sampled parents first.

Each particle draws every unobserved variable from its conditional given what was drawn
for its parents — a state from P(X | pa), a number from N(μ(d) + Σ b_i(d)·y_i, σ²(d)) —
and sets the observed ones to their findings; its weight is the likelihood of the
findings given its parents,

    w = Π_{v ∈ E discrete} P(e_v | pa_v) · Π_{v ∈ E continuous} N(x_v; μ_v(pa_v), σ²_v(pa_v))

and an expectation is the self-normalised average Ê[f] = Σ w_n f_n / Σ w_n, with the
delta-method standard error √(Σ w_n² (f_n − Ê f)²) / Σ w_n. Everything is vectorised
over the particles of a batch; the loop is over variables.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
>>> net.add_logistic("D", ["x"], weights={"x": 1.0})
>>> run = HybridWeighting(net.compiled()).run({}, {}, samples=20_000, seed=1)
>>> p, se = run.frequencies(["D"])
>>> bool(abs(p[1] - 0.5) < 4 * se[1])
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from graphlib import TopologicalSorter

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.memory import check_allocation
from bbn.views.compiled import CompiledNetwork

#: Particles drawn at once (memory: about 8 bytes per variable per particle).
BATCH = 20_000


@dataclass(frozen=True)
class Particles:
    """Weighted particles: per variable its draws (state indices or numbers), the
    variables' states (to size the frequencies) and the log weight of each particle.

    Examples
    --------
    >>> run = Particles({"A": np.array([0, 1])}, {"A": ("a", "b")}, np.log([1.0, 3.0]))
    >>> run.frequencies(["A"])[0].tolist(), round(run.effective_samples, 3)
    ([0.25, 0.75], 1.6)
    """

    draws: Mapping[str, np.ndarray]
    states: Mapping[str, tuple]
    log_weights: np.ndarray

    @property
    def weights(self) -> np.ndarray:
        """The weights scaled to sum to 1."""
        w = np.exp(self.log_weights - self.log_weights.max())
        return w / w.sum()

    @property
    def effective_samples(self) -> float:
        """Kish's effective sample size (Σ w)² / Σ w²."""
        w = self.weights
        return float(1.0 / np.dot(w, w))

    @property
    def log_evidence(self) -> float:
        """log P̂(e): the log of the mean weight (densities for continuous findings)."""
        top = self.log_weights.max()
        return float(top + np.log(np.mean(np.exp(self.log_weights - top))))

    def frequencies(self, variables: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The weighted joint frequencies of discrete ``variables`` and their standard
        errors, each of shape ``(|X1|, ..., |Xk|)``."""
        shape = tuple(len(self.states[v]) for v in variables)
        code = np.ravel_multi_index([self.draws[v] for v in variables], shape) if shape else \
            np.zeros(len(self.log_weights), np.int64)
        w = self.weights
        size = int(np.prod(shape))
        p = np.bincount(code, w, size)
        # Σ w² (1[x_n = x] − p)² = Σ_{x_n = x} w² (1 − 2p) + p² Σ w²
        squares = np.bincount(code, w * w, size)
        variance = squares * (1 - 2 * p) + p * p * np.dot(w, w)
        return p.reshape(shape), np.sqrt(np.maximum(variance, 0.0)).reshape(shape)

    def moments(self, variable: str) -> tuple[float, float, float]:
        """The weighted mean and variance of a continuous variable, and the standard error
        of the mean."""
        x, w = self.draws[variable], self.weights
        mean = float(np.dot(w, x))
        variance = float(np.dot(w, (x - mean) ** 2))
        return mean, variance, float(math.sqrt(np.dot(w * w, (x - mean) ** 2)))


class HybridWeighting:
    """Likelihood weighting over a compiled view with Gaussian and softmax variables.

    Parameters
    ----------
    view : CompiledNetwork
        The network's view (tables, Gaussian leaves, softmax forms).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_gaussian_variable("x", mean=2.0, variance=1.0)
    >>> round(HybridWeighting(net.compiled()).run({}, {}, 50_000).moments("x")[0], 1)
    2.0
    """

    def __init__(self, view: CompiledNetwork) -> None:
        self.view = view
        self.order = tuple(TopologicalSorter(
            {v: view.parents[v] for v in view.variables}).static_order())

    def run(self, states: Mapping[str, int], values: Mapping[str, float],
            samples: int = 100_000, seed: int = 0) -> Particles:
        """``samples`` particles weighted by the findings: ``states`` (discrete variable →
        state index) and ``values`` (Gaussian → number).

        Raises
        ------
        ImpossibleEvidenceError
            When every particle has weight 0.
        """
        view = self.view
        check_allocation(8 * samples * (len(view.variables) + 1), "hybrid sampling")
        rng = np.random.default_rng(seed)
        parts, weights = [], []
        for start in range(0, samples, BATCH):
            draws, log_w = self._batch(min(BATCH, samples - start), states, values, rng)
            parts.append(draws)
            weights.append(log_w)
        log_weights = np.concatenate(weights)
        if not np.isfinite(log_weights.max()):
            raise ImpossibleEvidenceError({**states, **values})
        draws = {v: np.concatenate([d[v] for d in parts]) for v in view.variables}
        return Particles(draws, view.states, log_weights)

    def _batch(self, n: int, states: Mapping[str, int], values: Mapping[str, float],
               rng: np.random.Generator) -> tuple[dict, np.ndarray]:
        view, draws = self.view, {}
        log_w = np.zeros(n)
        with np.errstate(divide="ignore"):
            for v in self.order:
                leaf = view.gaussian.get(v)
                if leaf is not None:
                    at = tuple(draws[p] for p in leaf.parents)
                    mean = np.broadcast_to(leaf.mean[at], (n,)).astype(float)
                    for i, y in enumerate(leaf.continuous):
                        mean = mean + leaf.weights[at + (i,)] * draws[y]
                    sd = np.sqrt(np.broadcast_to(leaf.variance[at], (n,)))
                    if v in values:
                        x = float(values[v])
                        log_w += -0.5 * ((x - mean) / sd) ** 2 - np.log(sd * math.sqrt(2 * math.pi))
                        draws[v] = np.full(n, x)
                    else:
                        draws[v] = mean + sd * rng.standard_normal(n)
                    continue
                spec = view.softmax.get(v)
                if spec is not None:
                    codes = np.stack([draws[p] for p in spec.discrete], axis=1) if \
                        spec.discrete else np.zeros((n, 0), np.int64)
                    probs = spec.probabilities(codes, np.stack(
                        [draws[p] for p in spec.continuous], axis=1))
                else:
                    at = tuple(draws[p] for p in view.parents[v])
                    probs = np.broadcast_to(view.table(v)[at], (n, view.cardinality[v]))
                if v in states:
                    state = states[v]
                    log_w += np.log(probs[:, state])
                    draws[v] = np.full(n, state, np.int64)
                else:
                    u = rng.random(n)[:, None]
                    cumulative = np.cumsum(probs, axis=1)
                    draws[v] = np.minimum((cumulative < u * cumulative[:, -1:]).sum(axis=1),
                                          probs.shape[1] - 1)
        return draws, log_w

"""Importance sampling with a proposal built from loopy belief propagation.

Likelihood weighting draws from the prior and lets the evidence weigh the samples, so
evidence that the prior finds unlikely leaves few samples with any weight. Here each
variable is drawn from its table tilted by what loopy belief propagation says the
evidence *below and beside* it wants — the messages of every factor but its own:

    λ_v(x) = Π_{f ∋ v, f ≠ P(v | pa_v)} μ_{f→v}(x)
    Q(x_v | pa_v) = (1 − ε) · P(x_v | pa_v) λ_v(x_v) / Σ_x P(x | pa_v) λ_v(x) + ε · P(x_v | pa_v)

On a polytree, with exact messages, the first term is close to P(x_v | pa_v, e) and the
weights are nearly equal; the defensive mixture with the prior (ε, ``mixing``) keeps
Q > 0 wherever P > 0 and bounds every factor's weight ratio P/Q by 1/ε, so a poor
approximation from loopy messages costs variance, never bias. The weights are
P(x, e)/Q(x) and the estimates, standard errors and log P̂(e) are those of
:mod:`bbn.engines.approximate.weighted`.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> result = ImportanceSampling(samples=20_000).run(graph, {4: 0})
>>> bool(abs(result.probabilities["C"][0] - 0.8867) < 4 * result.standard_errors["C"][0])
True
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from bbn.core.errors import ModelError, QueryError
from bbn.engines.approximate.clamping import check_evidence
from bbn.engines.approximate.lbp import ConvergenceWarning, LoopyBP, propagate
from bbn.engines.approximate.result import Marginals
from bbn.engines.approximate.settings import SamplerSettings, check_count, check_fraction
from bbn.engines.approximate.weighted import weighted_sampling
from bbn.views.factor_graph import FactorGraph


@dataclass(frozen=True)
class ImportanceSampling(SamplerSettings):
    """Importance sampling from a loopy-belief-propagation proposal (Bayesian networks).

    Parameters
    ----------
    samples : int
        The sample budget.
    time_budget : float, optional
        Seconds for the whole run (the propagation included); checked between batches.
    seed : int
        Seeds the random generator.
    mixing : float
        ε in (0, 1]: the prior's share of the proposal (1: likelihood weighting).
    propagation_sweeps : int
        Sweeps of loopy belief propagation (undamped) for the proposal; it need not
        converge.

    Raises
    ------
    QueryError
        For a setting out of range.

    Examples
    --------
    >>> ImportanceSampling().mixing
    0.1
    """

    mixing: float = 0.1
    propagation_sweeps: int = 50

    def __post_init__(self) -> None:
        super().__post_init__()
        check_fraction("ImportanceSampling", "mixing", self.mixing, closed=True)
        if self.mixing == 0:
            raise QueryError("ImportanceSampling: mixing must be in (0, 1], not 0 (the "
                             "proposal must keep the prior's support)")
        check_count("ImportanceSampling", "propagation_sweeps", self.propagation_sweeps)

    def run(self, graph: FactorGraph, evidence: Mapping[int, int], watch=None) -> Marginals:
        """P(X | e) of every variable, with standard errors and log P̂(e).

        Parameters
        ----------
        graph : FactorGraph
            A Bayesian network's factor graph.
        evidence : mapping of int to int
            ``{variable index: state index}``.
        watch : callable, optional
            Sees every batch of samples (see
            :func:`~bbn.engines.approximate.weighted.weighted_sampling`).

        Returns
        -------
        Marginals
            ``report.method`` is ``"is"``; ``report.seconds`` includes the propagation.

        Raises
        ------
        ModelError
            For a Markov network.
        ImpossibleEvidenceError
            When the evidence zeroes a table, or the propagation finds it impossible.
        NoMatchingSampleError
            When every sample's weight was zero.

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0,), (0, 1)),
        ...                     (np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.1, 0.9]])),
        ...                     (0, 1))
        >>> result = ImportanceSampling(samples=1000).run(graph, {1: 1})
        >>> result.probabilities["A"].round(1).tolist()
        [0.1, 0.9]
        """
        start = time.perf_counter()
        if not graph.is_bayesian:
            raise ModelError("is: importance sampling needs a Bayesian network; for a "
                             "Markov network use method='gibbs' or 'lbp'")
        evidence = check_evidence(graph, evidence)
        proposal = self.proposal(graph, evidence)
        left = (None if self.time_budget is None else
                max(self.time_budget - (time.perf_counter() - start), 1e-9))
        result = weighted_sampling(graph, evidence, proposal, "is", self.samples, left,
                                   self.seed, watch)
        return replace(result, report=replace(result.report,
                                              seconds=time.perf_counter() - start))

    def proposal(self, graph: FactorGraph, evidence: Mapping[int, int]) -> list[np.ndarray]:
        """Q per table: each variable's table tilted by the loopy-BP messages of every
        factor but its own, mixed with the prior (Gibbs's chains start from it too).

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0,), (0, 1)),
        ...                     (np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.1, 0.9]])),
        ...                     (0, 1))
        >>> ImportanceSampling().proposal(graph, {1: 1})[0].round(2).tolist()
        [0.14, 0.86]
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # a proposal needs no fixed point
            # undamped: damping leaves a geometric trace of the uniform start in the
            # messages (0.5^20 ≈ 1e-6 after 20 sweeps), enough to undo a 1e-9 prior
            messages = propagate(graph, evidence, LoopyBP(
                tolerance=1e-12, max_iterations=self.propagation_sweeps,
                time_budget=None if self.time_budget is None else self.time_budget / 2)
            ).to_variable
        tilt = [np.ones(c) for c in graph.cardinality]
        for (k, v), message in messages.items():
            if graph.child[k] != v:
                tilt[v] = tilt[v] * message
        return [self._tilted(table, tilt[graph.child[k]]) for k, table in enumerate(graph.tables)]

    def _tilted(self, table: np.ndarray, tilt: np.ndarray) -> np.ndarray:
        """Q(x | pa) = (1 − ε) P(x | pa) λ(x) / Σ_x P λ + ε P(x | pa), a row of zeros of
        P λ falling back to P."""
        tilted = table * (tilt / tilt.max() if tilt.max() > 0 else 1.0)
        totals = tilted.sum(axis=-1, keepdims=True)
        rows = table.sum(axis=-1, keepdims=True)
        posterior = np.where(totals > 0, tilted / np.where(totals > 0, totals, 1.0), table)
        return (1 - self.mixing) * posterior * rows + self.mixing * table

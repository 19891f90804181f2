"""Likelihood weighting: forward samples from the prior, weighted by the evidence.

Each sample draws the unobserved variables from P(X_v | pa_v), parents first, and sets
the observed ones to their evidence; its weight is the likelihood of the evidence given
what was drawn,

    w = Π_{v ∈ E} P(e_v | pa_v),      P̂(X = x | e) = Σ w_i [x_i = x] / Σ w_i,
    P̂(e) = mean w

(the shared loop and the standard errors: :mod:`bbn.engines.approximate.weighted`). Unbiased
for P(e) and consistent for the posteriors; weak when the evidence is unlikely under the
prior (most weights near 0: watch ``report.effective_samples``).

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> result = LikelihoodWeighting(samples=20_000).run(graph, {4: 0})
>>> result.report.samples, bool(abs(result.probabilities["C"][0] - 0.8867) < 0.02)
(20000, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bbn.engines.approximate.result import Marginals
from bbn.engines.approximate.settings import SamplerSettings
from bbn.engines.approximate.weighted import weighted_sampling
from bbn.views.factor_graph import FactorGraph


@dataclass(frozen=True)
class LikelihoodWeighting(SamplerSettings):
    """Likelihood weighting (Bayesian networks only).

    Parameters
    ----------
    samples : int
        The sample budget.
    time_budget : float, optional
        Seconds; the run stops after the batch (10 000 samples) that spends them.
    seed : int
        Seeds the random generator (the same seed, the same answer).

    Raises
    ------
    QueryError
        For a setting out of range.

    Examples
    --------
    >>> LikelihoodWeighting().samples
    100000
    """

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

        Raises
        ------
        ModelError
            For a Markov network.
        ImpossibleEvidenceError
            When an evidence row is zero whatever the other variables are.
        NoMatchingSampleError
            When every sample's weight was zero.

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([0.25, 0.75]),),
        ...                     (0,))
        >>> LikelihoodWeighting(samples=10).run(graph, {0: 0}).probabilities["A"].tolist()
        [1.0, 0.0]
        """
        return weighted_sampling(graph, evidence, graph.tables, "lw", self.samples,
                                 self.time_budget, self.seed, watch)

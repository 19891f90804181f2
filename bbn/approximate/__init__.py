"""Approximate inference: loopy belief propagation and sampling, for Bayesian and Markov
networks alike, on their :class:`~bbn.approximate.factor_graph.FactorGraph`.

Each method is a frozen dataclass of its settings with ``run(graph, evidence)``
returning :class:`~bbn.approximate.result.Marginals`; ``approximate_method(name)`` gives
one by name (``"lbp"``, ``"lw"``, ``"is"``, ``"gibbs"``).

>>> import bbn
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> approximate_method("lbp").run(graph, {}).probabilities["C"].round(3).tolist()
[0.8, 0.2]
"""

from bbn.approximate.factor_graph import FactorGraph
from bbn.approximate.gibbs import Gibbs
from bbn.approximate.importance_sampling import ImportanceSampling
from bbn.approximate.lbp import ConvergenceWarning, LoopyBP
from bbn.approximate.likelihood_weighting import LikelihoodWeighting
from bbn.approximate.methods import APPROXIMATE_METHODS, approximate_method
from bbn.approximate.result import MapEstimate, Marginals, RunReport

__all__ = ["APPROXIMATE_METHODS", "ConvergenceWarning", "FactorGraph", "Gibbs",
           "ImportanceSampling", "LikelihoodWeighting", "LoopyBP", "MapEstimate", "Marginals",
           "RunReport", "approximate_method"]

"""Approximate inference: loopy belief propagation and sampling, for Bayesian and Markov
networks alike, on their :class:`~bbn.views.factor_graph.FactorGraph`.

Each method is a frozen dataclass of its settings with ``run(graph, evidence)``
returning :class:`~bbn.engines.approximate.result.Marginals`; ``approximate_method(name)`` gives
one by name (``"lbp"``, ``"lw"``, ``"is"``, ``"gibbs"``).

>>> import bbn
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> approximate_method("lbp").run(graph, {}).probabilities["C"].round(3).tolist()
[0.8, 0.2]
"""

from bbn.engines.approximate.gibbs import Gibbs
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.lbp import ConvergenceWarning, LoopyBP
from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
from bbn.engines.approximate.methods import APPROXIMATE_METHODS, approximate_method
from bbn.engines.approximate.result import MapEstimate, Marginals, RunReport
from bbn.views.factor_graph import FactorGraph

__all__ = ["APPROXIMATE_METHODS", "ConvergenceWarning", "FactorGraph", "Gibbs",
           "ImportanceSampling", "LikelihoodWeighting", "LoopyBP", "MapEstimate", "Marginals",
           "RunReport", "approximate_method"]

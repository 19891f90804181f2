"""bbn — exact discrete Bayesian networks: model, query, learn, classify, draw.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> print(net.query("P(C | A=T)").to_text())
  C   probability
  T   0.886749
  F   0.113251
"""

from __future__ import annotations

from bbn.errors import (
    BBNError,
    DataError,
    ImpossibleEvidenceError,
    MemoryLimitError,
    ModelError,
    NoMatchingSampleError,
    ParseError,
    ParseErrors,
    QueryError,
)
from bbn.factor import Factor
from bbn.formats import FormatError, dumps, load, loads, save
from bbn.inference.engine import Engine
from bbn.lazy import lazy_attributes
from bbn.markov import MarkovNetwork
from bbn.memory import get_memory_limit, set_memory_limit
from bbn.network import Network

__version__ = "0.1.0"

# Public names whose modules load on first use, so `import bbn` stays fast and the
# command line does not import pandas or graphviz unless a command needs them.
_LAZY = {
    "learn": "bbn.learning",
    "sample": "bbn.learning",
    "MLE": "bbn.learning",
    "Laplace": "bbn.learning",
    "MEstimate": "bbn.learning",
    "BDeu": "bbn.learning",
    "naive_bayes": "bbn.classification",
    "NaiveBayes": "bbn.classification",
    "Boosting": "bbn.classification",
    "Bagging": "bbn.classification",
    "DecisionTree": "bbn.trees",
    "load_tree": "bbn.trees",
    "render": "bbn.rendering",
    "structure_score": "bbn.structure",
    "chow_liu": "bbn.structure",
    "learn_structure": "bbn.structure",
    "LearnedNetwork": "bbn.structure",
    "compare": "bbn.structure",
    "serve": "bbn.explorer",
    "LoopyBP": "bbn.approximate",
    "LikelihoodWeighting": "bbn.approximate",
    "ImportanceSampling": "bbn.approximate",
    "Gibbs": "bbn.approximate",
    "ConvergenceWarning": "bbn.approximate",
}

__all__ = [
    "BBNError", "DataError", "Engine", "Factor", "FormatError", "ImpossibleEvidenceError",
    "MarkovNetwork", "MemoryLimitError", "ModelError", "Network", "NoMatchingSampleError",
    "ParseError", "ParseErrors", "QueryError",
    "dumps", "get_memory_limit", "load", "loads", "save", "set_memory_limit", *_LAZY,
]


__getattr__ = lazy_attributes("bbn", _LAZY)

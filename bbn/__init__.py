"""bbn — exact discrete Bayesian networks: model, query, learn, classify, draw.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> print(net.query("P(C | A=T)").to_text())
  C   probability
  T   0.886749
  F   0.113251
"""

from __future__ import annotations

import bbn.core.interrupts as _interrupts  # first: Ctrl-C while bbn loads exits 130 quietly
from bbn.core.errors import (
    BBNError,
    DataError,
    ImpossibleEvidenceError,
    MemoryLimitError,
    ModelError,
    NoAnswerError,
    NoMatchingSampleError,
    ParseError,
    ParseErrors,
    QueryError,
)
from bbn.core.factor import Factor
from bbn.core.lazy import lazy_attributes
from bbn.core.memory import get_memory_limit, set_memory_limit

# The deprecated Network methods and the picture Jupyter shows are installed by these two
# modules, since the model layer may not import the layers they call (both resolve them on
# first use); FUNCTIONS: the functions over a network, by module.
from bbn.deprecated import FUNCTIONS
from bbn.engines.exact.engine import Engine
from bbn.io.formats import FormatError, dumps, load, loads, save
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network
from bbn.notebook import repr_svg  # noqa: F401  (importing it installs Network._repr_svg_)

__version__ = "0.1.0"

# Public names whose modules load on first use, so `import bbn` stays fast and the
# command line does not import pandas or graphviz unless a command needs them.
_LAZY = {
    "learn": "bbn.tasks.learning",
    "sample": "bbn.tasks.learning",
    "discretize": "bbn.tasks.learning",
    "Discretiser": "bbn.tasks.learning",
    "MLE": "bbn.tasks.learning",
    "Laplace": "bbn.tasks.learning",
    "MEstimate": "bbn.tasks.learning",
    "BDeu": "bbn.tasks.learning",
    "NormalInverseGamma": "bbn.tasks.learning",
    "naive_bayes": "bbn.tasks.classification",
    "NaiveBayes": "bbn.tasks.classification",
    "Boosting": "bbn.tasks.classification",
    "Bagging": "bbn.tasks.classification",
    "DecisionTree": "bbn.tasks.trees",
    "load_tree": "bbn.tasks.trees",
    "render": "bbn.apps.rendering",
    "structure_score": "bbn.tasks.structure",
    "chow_liu": "bbn.tasks.structure",
    "learn_structure": "bbn.tasks.structure",
    "LearnedNetwork": "bbn.tasks.structure",
    "compare": "bbn.tasks.structure",
    "serve": "bbn.apps.explorer",
    "LoopyBP": "bbn.engines.approximate",
    "LikelihoodWeighting": "bbn.engines.approximate",
    "ImportanceSampling": "bbn.engines.approximate",
    "Gibbs": "bbn.engines.approximate",
    "ConvergenceWarning": "bbn.engines.approximate",
    "HMM": "bbn.model.hmm",
    "DynamicNetwork": "bbn.model.dynamic",
    "learn_dynamic": "bbn.tasks.learning",
    "dynamic_em": "bbn.tasks.learning",
    "load_dynamic": "bbn.io.formats.bn.timeslices",
    "plot": "bbn.plot",  # the module: bbn.plot.posterior(...), bbn.plot.roc(...)
    "InfluenceDiagram": "bbn.model.influence_diagram",
    "expected_value_of_information": "bbn.model.influence_diagram",
    "soft_likelihoods": "bbn.questions.dispatch",
    "effect": "bbn.tasks.effect",
    "NotIdentifiable": "bbn.questions.identification",
    "Normal": "bbn.core.normals",
    # functions over a network (the old Network methods are deprecated aliases of them)
    **FUNCTIONS,
}

__all__ = [
    "BBNError", "DataError", "Engine", "Factor", "FormatError", "ImpossibleEvidenceError",
    "MarkovNetwork", "MemoryLimitError", "ModelError", "Network", "NoMatchingSampleError",
    "NoAnswerError", "ParseError", "ParseErrors", "QueryError",
    "dumps", "get_memory_limit", "load", "loads", "save", "set_memory_limit", *_LAZY,
]


__getattr__ = lazy_attributes("bbn", _LAZY)


def __dir__() -> list[str]:
    """The module's names and the lazy ones (``dir(bbn)`` lists ``learn``, ``NaiveBayes``).

    >>> import bbn
    >>> "NaiveBayes" in dir(bbn) and "load" in dir(bbn)
    True
    """
    return sorted(set(globals()) | set(_LAZY))


_interrupts.uninstall()  # loaded: a program using bbn keeps its own excepthook

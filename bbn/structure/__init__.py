"""Structure learning: the graph of a network from data and what an expert knows, and how
well a graph explains the data (scores).

>>> from bbn.structure import SCORES
>>> SCORES
('loglik', 'bic', 'aic', 'k2', 'bdeu')
"""

from bbn.structure.compare import Comparison, compare
from bbn.structure.learn import METHODS, chow_liu, learn_structure
from bbn.structure.learned import LearnedNetwork
from bbn.structure.scores import SCORES, family_score, structure_score
from bbn.structure.tree import mutual_information

__all__ = ["METHODS", "SCORES", "Comparison", "LearnedNetwork", "chow_liu", "compare",
           "family_score", "learn_structure", "mutual_information", "structure_score"]

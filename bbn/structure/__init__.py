"""Structure learning: how well a graph explains the data (scores), and, later, the graph
itself from data and what an expert knows.

>>> from bbn.structure import SCORES
>>> SCORES
('loglik', 'bic', 'aic', 'k2', 'bdeu')
"""

from bbn.structure.scores import SCORES, family_score, structure_score
from bbn.structure.tree import chow_liu, mutual_information

__all__ = ["SCORES", "chow_liu", "family_score", "mutual_information", "structure_score"]

"""Bernoulli features: presence or absence, x > ``binarize``, each a two-state child.

    log P(x | c) = Σ_i [b_i log p_ic + (1 − b_i) log (1 − p_ic)],   b_i = [x_i > binarize]

Absence counts as evidence too (unlike a bag of words); a missing value is skipped.

>>> import bbn
>>> model = bbn.NaiveBayes(features="bernoulli").fit([[0], [3], [5]], ["x", "y", "y"])
>>> model.network_.states("x0")
('0', '1')
"""

from __future__ import annotations

import numpy as np

from bbn.tasks.classification.categorical import CategoricalLikelihood
from bbn.tasks.classification.inputs import Inputs


class BernoulliLikelihood(CategoricalLikelihood):
    """Numeric features read as present (state ``"1"``) when above ``binarize``.

        log P(x | c) = Σ_{i observed} log θ_i[c, [x_i > binarize]]

    The table of each feature has the states ``"0"`` and ``"1"``, estimated from the
    (weighted) counts of presence per class, as a categorical feature's.

    Parameters
    ----------
    columns : list of str
        The Bernoulli columns, in column order.
    binarize : float
        The threshold: present when x > binarize.

    Attributes
    ----------
    states_ : dict
        ``{column: ("0", "1")}``.

    Examples
    --------
    >>> import bbn
    >>> from bbn.tasks.classification.inputs import Inputs
    >>> model = bbn.NaiveBayes(features="bernoulli").fit([[0], [3], [5]], ["x", "y", "y"])
    >>> part = model.likelihoods_[0]
    >>> part.codes(Inputs.of([[0.0], [2.0], [np.nan]]), "error")["x0"].tolist()
    [0, 1, -1]
    >>> np.exp(part.log_likelihood(model.network_, Inputs.of([[2.0]]), "error")).round(4)
    array([[0.3333, 0.75  ]])
    """

    kind = "bernoulli"

    def __init__(self, columns: list[str], binarize: float):
        super().__init__(columns, dict.fromkeys(columns, ("0", "1")))
        self.binarize = binarize

    def codes(self, inputs: Inputs, unknown: str, hint: str = "") -> dict[str, np.ndarray]:
        """1 where x > binarize, 0 where not, −1 where missing."""
        if not self.columns:
            return {}
        x = inputs.numbers(self.columns)
        present = np.where(np.isnan(x), -1, (x > self.binarize)).astype(np.int8)
        return {c: present[:, j] for j, c in enumerate(self.columns)}

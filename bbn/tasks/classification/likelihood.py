"""What every likelihood of a naive Bayes model shares: one term of the joint.

    log P(c, x) = log P(c) + Σ_parts log P(x_part | c)

A naive Bayes model is the class prior and a few *likelihoods*, one per kind of feature
(:mod:`~bbn.tasks.classification.categorical`, :mod:`~bbn.tasks.classification.bernoulli`,
:mod:`~bbn.tasks.classification.gaussian_features`,
:mod:`~bbn.tasks.classification.multinomial`,
:mod:`~bbn.tasks.classification.tree_augmented`). Each learns its statistics from a
batch of rows (``count``: they add up over batches, :mod:`~bbn.tasks.classification.
naive_counts`), puts its nodes and tables in the fitted network (``add_node``,
``counts_to_estimate``) and reads them back to score rows (``log_likelihood``, shape
(rows, classes), vectorised over rows); the classifier
(:class:`bbn.tasks.classification.base.LikelihoodClassifier`) sums the terms.

>>> import numpy as np
>>> log_sum_exp(np.array([[np.log(0.25), np.log(0.25)], [np.log(0.5), -np.inf]])).round(4).tolist()
[-0.6931, -0.6931]
"""

from __future__ import annotations

import numpy as np

from bbn.model.network import Network
from bbn.tasks.classification.inputs import Inputs

#: Rows per block when summing log-probabilities (keeps temporaries in the CPU cache).
BLOCK = 1 << 13


class Likelihood:
    """One kind of feature's term log P(x_part | c) of a naive Bayes model.

    Subclasses set ``kind`` and ``columns`` (the input columns they read) and implement
    :meth:`count`, :meth:`add_node`, :meth:`counts_to_estimate` and :meth:`log_likelihood`.
    Fitted attributes end in ``_`` (scikit-learn's convention).
    """

    kind = ""
    columns: list[str]

    def count(self, inputs: Inputs, y_codes: np.ndarray, n_classes: int,
              weights: np.ndarray | None, hint: str = ""):
        """The sufficient statistics of one batch (a value with ``+``)."""
        raise NotImplementedError

    def node(self, column: str) -> str:
        """The network node of an input column (its own name, by default)."""
        return column

    def add_node(self, net: Network, column: str, class_name: str, statistics) -> None:
        """Declare the node of ``column`` (a child of the class)."""
        raise NotImplementedError

    def counts_to_estimate(self, net: Network, statistics) -> dict:
        """``{node: counts}`` of the tables to estimate (after every node is declared)."""
        return {}

    def log_likelihood(self, net: Network, inputs: Inputs, unknown: str) -> np.ndarray:
        """log P(x_part | c) for every row and class: shape (rows, classes)."""
        raise NotImplementedError

    def zero_probabilities(self, net: Network, single: Inputs,
                           class_name: str) -> tuple[dict, dict]:
        """For one impossible row: its observed values ``{node: state}`` and
        ``{"node=state": [classes under which it has probability 0]}``."""
        return {}, {}


def seen_weights(weights: np.ndarray | None, seen: np.ndarray) -> np.ndarray | None:
    """The weights of the rows where a feature is seen (None: unweighted)."""
    return None if weights is None else weights[seen]


def log_sum_exp(terms: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis, −∞ where every term is −∞ (no warning)."""
    top = terms.max(axis=-1)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return shift + np.log(np.exp(terms - shift[..., None]).sum(axis=-1))


def zero_classes(table: np.ndarray, code: int, classes: list[str]) -> list[str]:
    """The classes (rows of ``table``) under which state ``code`` has probability 0."""
    return [classes[c] for c in np.flatnonzero(table[:, code] == 0)]


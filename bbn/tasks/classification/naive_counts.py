"""What naive Bayes learns from, and how it adds up over batches of rows.

Every table of a naive Bayes model is a function of counts and moments per class:

    n(c)                 rows of class c                 (the class prior)
    n(c, x)              rows of class c with value x    (a categorical or Bernoulli X)
    (n, mean, M2)(c)     the values of class c           (a Gaussian X)
    n_w(c)               occurrences of word w in class c (the bag of words)
    n(c, xi, xj)         pairs of features (a tree-augmented model's tree and tables)

(weighted by ``sample_weight``). Each is a sum over rows, so the statistics of two
batches add: counts by ``+``, moments by Chan's update
(:class:`bbn.tasks.learning.gaussian.Moments`), word counts over the union of the two
vocabularies (:class:`bbn.tasks.classification.multinomial.WordCounts`). Each
likelihood counts its own part; :class:`NaiveCounts` holds the class counts and every
part's. :meth:`bbn.NaiveBayes.fit` counts all rows at once, ``partial_fit`` adds a batch
to the counts so far, and a Dask fit adds the counts of its partitions: one model
either way.

>>> one = NaiveCounts(np.array([2.0, 1.0]), (TableCounts({"X": np.array([[1.0, 1.0]])}),))
>>> total = one + one
>>> total.classes.tolist(), total.parts[0].tables["X"].tolist()
([4.0, 2.0], [[2.0, 2.0]])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class TableCounts:
    """n(c, x) of every discrete feature node (class first), and a tree-augmented
    model's ``pairs``: ``{(column i, column j): n(c, xi, xj)}``, i before j.

    Examples
    --------
    >>> one = TableCounts({"X": np.array([[1.0, 1.0], [0.0, 1.0]])})
    >>> (one + one).tables["X"].tolist()
    [[2.0, 2.0], [0.0, 2.0]]
    """

    tables: dict[str, np.ndarray] = field(default_factory=dict)
    pairs: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)

    def __add__(self, other: TableCounts) -> TableCounts:
        return TableCounts(
            {node: counts + other.tables[node] for node, counts in self.tables.items()},
            {pair: counts + other.pairs[pair] for pair, counts in self.pairs.items()})


@dataclass
class NaiveCounts:
    """The sufficient statistics of a naive Bayes model: n(c), one per class, and each
    likelihood's own (``parts``, in the order of the model's ``likelihoods_``)."""

    classes: np.ndarray
    parts: tuple = ()

    def __add__(self, other: NaiveCounts) -> NaiveCounts:
        return NaiveCounts(self.classes + other.classes,
                           tuple(a + b for a, b in zip(self.parts, other.parts, strict=True)))

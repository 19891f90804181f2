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
vocabularies (each sorted, as :func:`bbn.tasks.classification.text.bag_of_words` sorts it).
:meth:`bbn.NaiveBayes.fit` counts all rows at once, ``partial_fit`` adds a batch to the
counts so far, and a Dask fit adds the counts of its partitions: one model either way.

>>> a = NaiveCounts(np.array([1.0, 0.0]), words=np.array([[2.0], [0.0]]), vocabulary=("b",))
>>> b = NaiveCounts(np.array([0.0, 1.0]), words=np.array([[0.0], [1.0]]), vocabulary=("a",))
>>> total = a + b
>>> total.vocabulary, total.words.tolist()
(('a', 'b'), [[0.0, 2.0], [1.0, 0.0]])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bbn.tasks.learning.gaussian import Moments


@dataclass
class NaiveCounts:
    """The sufficient statistics of a naive Bayes model (see the module docstring).

    Attributes
    ----------
    classes : numpy.ndarray
        n(c), one per class.
    tables : dict
        ``{feature node: n(c, x)}`` (class first).
    moments : dict
        ``{Gaussian column: Moments}`` per class.
    spread : Moments or None
        The moments of each Gaussian column over all its seen values (for ε).
    words : numpy.ndarray or None
        n_w(c), shape (classes, words), and ``vocabulary`` its words.
    pairs : dict
        A tree-augmented model's ``{(column i, column j): n(c, xi, xj)}``, i before j.

    Examples
    --------
    >>> one = NaiveCounts(np.array([2.0, 1.0]), {"X": np.array([[1.0, 1.0], [0.0, 1.0]])})
    >>> (one + one).tables["X"].tolist()
    [[2.0, 2.0], [0.0, 2.0]]
    """

    classes: np.ndarray
    tables: dict[str, np.ndarray] = field(default_factory=dict)
    moments: dict[str, Moments] = field(default_factory=dict)
    spread: Moments | None = None
    words: np.ndarray | None = None
    vocabulary: tuple[str, ...] = ()
    pairs: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)

    def __add__(self, other: NaiveCounts) -> NaiveCounts:
        words, vocabulary = self.words, self.vocabulary
        if words is not None:
            words, vocabulary = _merged_words(self.words, self.vocabulary, other.words,
                                              other.vocabulary)
        return NaiveCounts(
            self.classes + other.classes,
            {node: counts + other.tables[node] for node, counts in self.tables.items()},
            {column: m + other.moments[column] for column, m in self.moments.items()},
            None if self.spread is None else self.spread + other.spread,
            words, vocabulary,
            {pair: counts + other.pairs[pair] for pair, counts in self.pairs.items()})


def _merged_words(a: np.ndarray, a_words: tuple, b: np.ndarray, b_words: tuple):
    """Word counts of two batches over the union of their (sorted) vocabularies."""
    if a_words == b_words:
        return a + b, a_words
    vocabulary = tuple(sorted(set(a_words) | set(b_words), key=str))
    position = {w: k for k, w in enumerate(vocabulary)}
    total = np.zeros((a.shape[0], len(vocabulary)))
    for counts, words in ((a, a_words), (b, b_words)):
        total[:, [position[w] for w in words]] += counts
    return total, vocabulary

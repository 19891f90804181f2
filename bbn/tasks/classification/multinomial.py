"""A bag of words: raw text (``text``) or word-count columns (``multinomial``).

    log P(doc | c) = Σ_w n_w(doc) · log P(w | c)

The network has one word node, the vocabulary as its states, a child of the class
(repeated, in the course's picture, for every word position). With the Laplace
estimator (α = 1) its table is the course's P(w_k | v_j) = (n_k + 1)/(n + |Vocabulary|).
Words outside the vocabulary are skipped (the course's rule).

>>> a = WordCounts(np.array([[2.0], [0.0]]), ("b",))
>>> b = WordCounts(np.array([[0.0], [1.0]]), ("a",))
>>> total = a + b
>>> total.vocabulary, total.words.tolist()
(('a', 'b'), [[0.0, 2.0], [1.0, 0.0]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bbn.core.errors import DataError
from bbn.model.network import Network
from bbn.tasks.classification.inputs import WORD, Inputs
from bbn.tasks.classification.likelihood import Likelihood, zero_classes
from bbn.tasks.classification.text import (
    TOKEN_PATTERN,
    Bag,
    bag_from_matrix,
    bag_log_likelihood,
    bag_of_words,
    class_word_counts,
)


@dataclass
class WordCounts:
    """n_w(c), shape (classes, words), over ``vocabulary`` (sorted for text); two
    batches add over the union of their vocabularies."""

    words: np.ndarray
    vocabulary: tuple[str, ...]

    def __add__(self, other: WordCounts) -> WordCounts:
        if self.vocabulary == other.vocabulary:
            return WordCounts(self.words + other.words, self.vocabulary)
        vocabulary = tuple(sorted(set(self.vocabulary) | set(other.vocabulary), key=str))
        position = {w: k for k, w in enumerate(vocabulary)}
        total = np.zeros((self.words.shape[0], len(vocabulary)))
        for counts, words in ((self.words, self.vocabulary), (other.words, other.vocabulary)):
            total[:, [position[w] for w in words]] += counts
        return WordCounts(total, vocabulary)


class WordLikelihood(Likelihood):
    """One bag of words: a text column, tokenised, or word-count columns.

        log P(doc | c) = Σ_w n_w(doc) log θ[c, w],   θ[c, w] from n_w(c) = Σ_{d of c} n_w(d)

    Parameters
    ----------
    text : list of str
        The text column (at most one).
    counts : list of str
        The word-count columns (each a word), when there is no text column.
    token_pattern : str, optional
        The regular expression of a token (default
        :data:`bbn.tasks.classification.text.TOKEN_PATTERN`).

    Attributes
    ----------
    vocabulary_ : tuple of str
        The words, as fitted (the word node's states).

    Examples
    --------
    >>> import bbn
    >>> from bbn.tasks.classification.inputs import Inputs
    >>> model = bbn.NaiveBayes().fit(["spam spam", "ham"], ["s", "h"])
    >>> part = model.likelihoods_[0]
    >>> part.vocabulary_
    ('ham', 'spam')
    >>> np.exp(part.log_likelihood(model.network_, Inputs.of(["spam"]), "error")).round(4)
    array([[0.3333, 0.75  ]])
    """

    def __init__(self, text: list[str], counts: list[str], token_pattern: str | None = None):
        if text and counts or len(text) > 1:
            raise DataError("naive Bayes takes one bag of words: a single text column, or "
                            "word-count (multinomial) columns, not both")
        self.kind = "text" if text else "multinomial"
        self.columns = text or counts
        self.token_pattern = token_pattern
        self.vocabulary_: tuple[str, ...] = ()

    def node(self, column: str = "") -> str:
        """The word node: the text column's name, or ``word`` for count columns."""
        return self.columns[0] if self.kind == "text" else WORD

    def bag(self, inputs: Inputs, vocabulary: tuple[str, ...] | None) -> tuple[Bag, tuple]:
        """The bag of words of ``inputs`` over ``vocabulary`` (None: every word seen)."""
        if self.kind == "text":
            return bag_of_words(inputs.column(self.columns[0]).tolist(), vocabulary,
                                self.token_pattern or TOKEN_PATTERN)
        vocabulary = tuple(self.columns) if vocabulary is None else vocabulary
        matrix = inputs.matrix if inputs.matrix is not None else inputs.numbers(self.columns)
        return bag_from_matrix(matrix, len(vocabulary)), vocabulary

    def count(self, inputs: Inputs, y_codes: np.ndarray, n_classes: int,
              weights: np.ndarray | None, hint: str = "") -> WordCounts:
        bag, vocabulary = self.bag(inputs, None)
        return WordCounts(class_word_counts(bag, y_codes, n_classes, len(vocabulary), weights),
                          vocabulary)

    def add_node(self, net: Network, column: str, class_name: str,
                 statistics: WordCounts) -> None:
        self.vocabulary_ = statistics.vocabulary
        net.add_variable(self.node(), statistics.vocabulary, parents=[class_name])

    def counts_to_estimate(self, net: Network, statistics: WordCounts) -> dict:
        return {self.node(): statistics.words}

    def log_likelihood(self, net: Network, inputs: Inputs, unknown: str) -> np.ndarray:
        bag, _ = self.bag(inputs, self.vocabulary_)
        with np.errstate(divide="ignore"):
            return bag_log_likelihood(bag, np.log(net.cpt_array(self.node())))

    def zero_probabilities(self, net: Network, single: Inputs,
                           class_name: str) -> tuple[dict, dict]:
        bag, _ = self.bag(single, self.vocabulary_)
        node, classes = self.node(), list(net.states(class_name))
        table, zeros = net.cpt_array(node), {}
        for word in bag.words:
            zero = zero_classes(table, int(word), classes)
            if zero:
                zeros[f"{node}={net.states(node)[word]}"] = zero
        return {}, zeros

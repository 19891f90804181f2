"""Text as a bag of words: bbn's tokeniser and sparse word counts without scipy.

Tokens are the lower-cased maximal runs of word characters and the runs of symbols
(``TOKEN_PATTERN``: ``£``, ``!!!`` and ``&lt;`` say as much about spam as words do);
``WORD_PATTERN`` keeps words only, as scikit-learn's
``CountVectorizer(token_pattern=r"\\b\\w+\\b")`` does. A
collection of documents becomes a :class:`Bag`: three parallel arrays (document, word,
count) over a vocabulary — the coordinate form of the document × word count matrix.
A scipy sparse matrix is accepted wherever a Bag is (anything with ``tocoo()``).

>>> tokenize("Free entry in 2 a wkly comp! FREE")
['free', 'entry', 'in', '2', 'a', 'wkly', 'comp', '!', 'free']
>>> tokenize("Free entry in 2 a wkly comp! FREE", WORD_PATTERN)
['free', 'entry', 'in', '2', 'a', 'wkly', 'comp', 'free']
>>> bag, vocabulary = bag_of_words(["b a b", "c"])
>>> vocabulary, bag.documents.tolist(), bag.words.tolist(), bag.counts.tolist()
(('a', 'b', 'c'), [0, 0, 1], [0, 1, 2], [1.0, 2.0, 1.0])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bbn.core.errors import DataError

#: bbn's default: words, and runs of symbols (white space separates nothing else).
TOKEN_PATTERN = r"\w+|[^\w\s]+"
#: Words only: scikit-learn's CountVectorizer(token_pattern=r"\b\w+\b").
WORD_PATTERN = r"\b\w+\b"


def tokenize(text, pattern: str = TOKEN_PATTERN) -> list[str]:
    """The lower-cased tokens of ``text`` (missing text has none)."""
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return []
    return re.findall(pattern, str(text).lower())


@dataclass(frozen=True)
class Bag:
    """Word counts in coordinate form: ``counts[i]`` of word ``words[i]`` in document
    ``documents[i]``; ``n_documents`` rows (some may have no words)."""

    documents: np.ndarray
    words: np.ndarray
    counts: np.ndarray
    n_documents: int


def bag_of_words(texts: Sequence, vocabulary: Sequence[str] | None = None,
                 pattern: str = TOKEN_PATTERN) -> tuple[Bag, tuple[str, ...]]:
    """Token counts of each document, and the vocabulary.

    Without ``vocabulary`` it is every distinct token of the documents, sorted; with it,
    tokens outside it are left out.
    """
    findall = re.compile(pattern).findall  # looked up once, not once per document
    tokenised = [findall(text.lower()) if type(text) is str else tokenize(text, pattern)
                 for text in texts]
    lengths = np.fromiter((len(t) for t in tokenised), dtype=np.int64, count=len(tokenised))
    flat = [t for tokens in tokenised for t in tokens]
    documents = np.repeat(np.arange(len(tokenised)), lengths)
    if vocabulary is None:
        codes, uniques = pd.factorize(np.array(flat, dtype=object)) if flat else (
            np.empty(0, np.int64), np.empty(0, dtype=object))
        order = np.argsort(uniques.astype(str)) if len(uniques) else np.empty(0, np.int64)
        vocabulary = tuple(uniques[order].tolist())
        words = np.empty(len(order), dtype=np.int64)
        words[order] = np.arange(len(order))  # rank of each first-seen token
        words = words[codes]
    else:
        vocabulary = tuple(vocabulary)
        words = pd.Index(list(vocabulary)).get_indexer(flat) if flat else np.empty(0, np.int64)
    known = words >= 0
    bag = _merged(documents[known], words[known], np.ones(int(known.sum())), len(tokenised),
                  len(vocabulary))
    return bag, vocabulary


def bag_from_matrix(matrix, n_words: int | None = None) -> Bag:
    """A Bag from a scipy sparse matrix or a dense 2-D array of non-negative counts."""
    if hasattr(matrix, "tocoo"):
        coo = matrix.tocoo()
        rows, columns, values = (np.asarray(coo.row), np.asarray(coo.col),
                                 np.asarray(coo.data, dtype=float))
        shape = coo.shape
    else:
        dense = np.asarray(matrix, dtype=float)
        if dense.ndim != 2:
            raise DataError(f"word counts must be a 2-D matrix, got shape {dense.shape}")
        rows, columns = np.nonzero(np.nan_to_num(dense))
        values, shape = dense[rows, columns], dense.shape
    if n_words is not None and shape[1] != n_words:
        raise DataError(f"word counts have {shape[1]} columns, the model's vocabulary "
                        f"{n_words} words")
    if np.any(values < 0) or not np.all(np.isfinite(values)):
        raise DataError("Negative values in data, or infinite ones: word counts must be "
                        "finite and non-negative")
    # No merging of repeated (document, word) pairs (a non-canonical sparse matrix may
    # hold some): every use of a Bag is a weighted bincount, which sums them anyway.
    nonzero = values != 0
    return Bag(rows[nonzero].astype(np.int64), columns[nonzero].astype(np.int64),
               values[nonzero], shape[0])


def _merged(documents, words, counts, n_documents: int, n_words: int) -> Bag:
    """Sum repeated (document, word) pairs, so each pair appears once; drop zero counts."""
    nonzero = counts != 0
    documents, words, counts = documents[nonzero], words[nonzero], counts[nonzero]
    key = documents * max(n_words, 1) + words
    unique, inverse = np.unique(key, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=counts, minlength=len(unique))
    return Bag(unique // max(n_words, 1), unique % max(n_words, 1), summed, n_documents)


def class_word_counts(bag: Bag, classes: np.ndarray, n_classes: int, n_words: int,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """n_k(c) = Σ over documents d of class c of w_d · (count of word k in d): shape
    (classes, words); every w_d = 1 without ``weights`` (one per document)."""
    key = classes[bag.documents] * n_words + bag.words
    counts = bag.counts if weights is None else bag.counts * weights[bag.documents]
    return np.bincount(key, weights=counts,
                       minlength=n_classes * n_words).reshape(n_classes, n_words)


def bag_log_likelihood(bag: Bag, log_table: np.ndarray) -> np.ndarray:
    """Σ_w count_w · log P(w | c) for every document and class: shape (documents, classes).

    ``log_table`` has shape (classes, words). One weighted bincount per class.
    """
    gathered = log_table[:, bag.words]  # (classes, entries)
    return np.column_stack([
        np.bincount(bag.documents, weights=bag.counts * row, minlength=bag.n_documents)
        for row in gathered]) if len(log_table) else np.zeros((bag.n_documents, 0))

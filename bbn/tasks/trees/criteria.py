"""Split criteria, from class counts, vectorised over candidate splits.

    E(t)       = −Σ_c P(c; t) log₂ P(c; t)                      (entropy)
    G(t)       = 1 − Σ_c P(c; t)²                                (Gini index)
    Δ          = I(parent) − Σ_j (n_j / n) I(j)                  (gain; information gain for E)
    SplitINFO  = −Σ_j (n_j / n) log₂ (n_j / n)
    GainRATIO  = Δ_E / SplitINFO                                (0 when SplitINFO = 0)

A node is its class counts, shape ``(..., classes)``; a split is the counts of its
branches, shape ``(..., branches, classes)``: every function reduces the last axis (or the
last two), so one call scores every candidate split of a node at once.

>>> counts = np.array([[2, 3], [4, 0], [3, 2]])      # PlayTennis by outlook: (yes, no)
>>> round(float(impurity(counts.sum(axis=0), "entropy")), 3)
0.94
>>> round(float(gain(counts, "entropy")), 3), round(float(gain_ratio(counts)), 3)
(0.247, 0.156)
"""

from __future__ import annotations

import numpy as np

from bbn.core.errors import DataError, suggest

#: The criteria a tree can optimise.
CRITERIA = ("entropy", "gain_ratio", "gini")


def check_criterion(criterion) -> str:
    """``criterion`` if it is one of ``CRITERIA``, else a DataError (did you mean).

    >>> check_criterion("gini")
    'gini'
    """
    if not isinstance(criterion, str) or criterion not in CRITERIA:
        raise DataError(f"unknown criterion {criterion!r}; the criteria are "
                        f"{', '.join(CRITERIA)}{suggest(str(criterion), CRITERIA)}")
    return criterion


def entropy(counts: np.ndarray) -> np.ndarray:
    """E = −Σ p log₂ p over the last axis (0 log 0 = 0; an empty node has E = 0).

    Parameters
    ----------
    counts : numpy.ndarray, shape (..., classes)
        Class counts (or weights) of one or many nodes.

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> entropy(np.array([9, 5])).round(3)
    np.float64(0.94)
    """
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    p = counts / np.where(total > 0, total, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return 0.0 - terms.sum(axis=-1)  # 0.0, not −0.0, for a pure node


def gini(counts: np.ndarray) -> np.ndarray:
    """G = 1 − Σ p² over the last axis (an empty node has G = 0).

    Parameters
    ----------
    counts : numpy.ndarray, shape (..., classes)

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> gini(np.array([9, 5])).round(4)
    np.float64(0.4592)
    """
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1)
    squares = (counts ** 2).sum(axis=-1)
    return np.where(total > 0, 1.0 - squares / np.where(total > 0, total, 1.0) ** 2, 0.0)


def impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    """The impurity the criterion measures: Gini for ``"gini"``, else entropy.

    Parameters
    ----------
    counts : numpy.ndarray, shape (..., classes)
    criterion : {"entropy", "gain_ratio", "gini"}

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> float(impurity(np.array([1, 1]), "entropy"))
    1.0
    """
    return gini(counts) if criterion == "gini" else entropy(counts)


def gain(branches: np.ndarray, criterion: str = "entropy") -> np.ndarray:
    """Δ = I(parent) − Σ_j (n_j / n) I(j), the parent being the sum of the branches.

    Parameters
    ----------
    branches : numpy.ndarray, shape (..., branches, classes)
        The class counts of every branch of one or many candidate splits.
    criterion : {"entropy", "gain_ratio", "gini"}
        The impurity (entropy for ``"gain_ratio"`` too).

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> round(float(gain(np.array([[3, 4], [6, 1]]))), 3)     # humidity: high, normal
    0.152
    """
    branches = np.asarray(branches, dtype=float)
    sizes = branches.sum(axis=-1)
    n = sizes.sum(axis=-1)
    weighted = (sizes * impurity(branches, criterion)).sum(axis=-1) / np.where(n > 0, n, 1.0)
    return impurity(branches.sum(axis=-2), criterion) - weighted


def split_information(sizes: np.ndarray) -> np.ndarray:
    """SplitINFO = −Σ_j (n_j / n) log₂ (n_j / n): the entropy of the branch sizes.

    Parameters
    ----------
    sizes : numpy.ndarray, shape (..., branches)

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> round(float(split_information(np.array([5, 4, 5]))), 3)    # outlook
    1.577
    """
    return entropy(sizes)


def gain_ratio(branches: np.ndarray) -> np.ndarray:
    """Δ_E / SplitINFO: the information gain corrected for many-valued splits (0 where
    SplitINFO = 0, a split that separates nothing).

    Parameters
    ----------
    branches : numpy.ndarray, shape (..., branches, classes)

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> round(float(gain_ratio(np.array([[3, 4], [6, 1]]))), 3)
    0.152
    """
    branches = np.asarray(branches, dtype=float)
    info = split_information(branches.sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(info > 0, gain(branches, "entropy") / np.where(info > 0, info, 1.0),
                        0.0)


def split_gains(branches: np.ndarray, criterion: str) -> tuple[np.ndarray, np.ndarray]:
    """(Δ, score) of many splits given by integer branch counts, fast: with
    xlog(x) = x log₂ x read from a table of the integers 0..n,

        n E(t) = xlog(n) − Σ_c xlog(n_c),   Σ_j n_j E(j) = Σ_j xlog(n_j) − Σ_jc xlog(n_jc),
        n SplitINFO = xlog(n) − Σ_j xlog(n_j),
        Σ_j n_j G(j) = n − Σ_j Σ_c n_jc² / n_j;

    so a node's thousand candidate cuts cost a few gathers, no logarithm per count.

    Parameters
    ----------
    branches : numpy.ndarray of int, shape (..., branches, classes)
    criterion : {"entropy", "gain_ratio", "gini"}

    Returns
    -------
    gain, score : numpy.ndarray, shape (...)
        Δ, and the value the criterion maximises (Δ, or the gain ratio).

    Examples
    --------
    >>> gain_, ratio = split_gains(np.array([[2, 3], [4, 0], [3, 2]]), "gain_ratio")
    >>> round(float(gain_), 4), round(float(ratio), 4)
    (0.2467, 0.1564)
    """
    branches = np.asarray(branches)
    if branches.dtype.kind not in "iu":  # weights: the formulas as written
        return gain(branches, criterion), score(branches, criterion)
    sizes = branches.sum(axis=-1)
    n = sizes.sum(axis=-1)
    safe = np.maximum(n, 1).astype(float)
    if criterion == "gini":
        parent = branches.sum(axis=-2).astype(float)
        squares = (branches.astype(float) ** 2).sum(axis=-1)
        within = n - (squares / np.maximum(sizes, 1)).sum(axis=-1)
        found = (1.0 - (parent ** 2).sum(axis=-1) / safe ** 2) - within / safe
        return found, found
    top = int(n.max()) if n.size else 0
    whole = np.arange(top + 1, dtype=float)
    xlog = whole * np.log2(np.maximum(whole, 1.0))
    branch_terms = xlog[sizes]
    parent_entropy = (xlog[n] - xlog[branches.sum(axis=-2)].sum(axis=-1)) / safe
    flat = branches.reshape(*branches.shape[:-2], -1)
    within = branch_terms.sum(axis=-1) - xlog[flat].sum(axis=-1)
    found = parent_entropy - within / safe
    if criterion != "gain_ratio":
        return found, found
    info = (xlog[n] - branch_terms.sum(axis=-1)) / safe
    positive = info > 1e-12  # rounding of a split that separates nothing
    return found, np.where(positive, found / np.where(positive, info, 1.0), 0.0)


def cut_gains(left: np.ndarray, totals: np.ndarray, run: np.ndarray,
              criterion: str) -> tuple[np.ndarray, np.ndarray]:
    """(Δ, score) of many two-way cuts: cut i sends the class counts ``left[i]`` to one
    branch and ``totals[run[i]] − left[i]`` to the other. The same formulas as
    :func:`split_gains`, without building the (cuts, 2, classes) array, and the parent's
    impurity computed once per run (a node's column), not once per cut.

    Parameters
    ----------
    left : numpy.ndarray of int, shape (cuts, classes)
    totals : numpy.ndarray of int, shape (runs, classes)
    run : numpy.ndarray of int, shape (cuts,)
    criterion : {"entropy", "gain_ratio", "gini"}

    Returns
    -------
    gain, score : numpy.ndarray, shape (cuts,)

    Examples
    --------
    >>> gain_, ratio = cut_gains(np.array([[3, 4]]), np.array([[9, 5]]), np.array([0]),
    ...                          "gain_ratio")
    >>> round(float(gain_[0]), 4), round(float(ratio[0]), 4)      # humidity
    (0.1518, 0.1518)
    """
    if criterion == "gini":
        return split_gains(np.stack([left, totals[run] - left], axis=1), criterion)
    right = totals[run] - left
    n_run = totals.sum(axis=1)
    n = n_run[run]
    n_left = left.sum(axis=1)
    top = int(n_run.max()) if len(n_run) else 0
    whole = np.arange(top + 1, dtype=float)
    xlog = whole * np.log2(np.maximum(whole, 1.0))
    safe_run = np.maximum(n_run, 1).astype(float)
    parent = ((xlog[n_run] - xlog[totals].sum(axis=1)) / safe_run)[run]
    sides = xlog[n_left] + xlog[n - n_left]
    within = sides - (xlog[left].sum(axis=1) + xlog[right].sum(axis=1))
    safe = safe_run[run]
    found = parent - within / safe
    if criterion != "gain_ratio":
        return found, found
    info = (xlog[n] - sides) / safe
    positive = info > 1e-12  # rounding of a split that separates nothing
    return found, np.where(positive, found / np.where(positive, info, 1.0), 0.0)


def score(branches: np.ndarray, criterion: str) -> np.ndarray:
    """The value a split maximises: the gain ratio for ``"gain_ratio"``, else Δ.

    Parameters
    ----------
    branches : numpy.ndarray, shape (..., branches, classes)
    criterion : {"entropy", "gain_ratio", "gini"}

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    >>> round(float(score(np.array([[6, 2], [3, 3]]), "entropy")), 3)    # windy
    0.048
    """
    return gain_ratio(branches) if criterion == "gain_ratio" else gain(branches, criterion)


__all__ = ["CRITERIA", "check_criterion", "entropy", "gain", "gain_ratio", "gini",
           "cut_gains", "impurity", "score", "split_gains", "split_information"]

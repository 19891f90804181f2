"""Plots for a notebook (matplotlib, the optional extra ``bbn[plot]``): a posterior as
bars, EM's log-likelihood by iteration, a structure search's score by move, and a
classifier's calibration curve and ROC. Each function draws on ``ax`` (a new figure's
axes by default) and returns the Axes, so a cell ending in one shows the picture.

ROC, over the thresholds t of the scores s_i = P(positive | x_i), distinct, from the
highest: TPR(t) = #{s_i ≥ t, y_i = +} / #{+}, FPR(t) = #{s_i ≥ t, y_i = −} / #{−}, from
(0, 0) to (1, 1); AUC by the trapezoid rule. Calibration: the scores in ``bins`` equal
bins of [0, 1]; for each bin holding scores, their mean against the fraction of
positives.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import bbn, bbn.plot
>>> ax = bbn.plot.posterior(bbn.load("models/chair.bn").query("P(C | A=T)"))
>>> [round(float(bar.get_height()), 6) for bar in ax.patches]
[0.886749, 0.113251]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from bbn.core.errors import BBNError, DataError
from bbn.core.factor import Factor

#: The bars' colour (the HTML tables' too).
COLOUR = "#4c78a8"

#: ``bbn.plot`` as the package's lazy name (``bbn.plot.posterior(...)`` after ``import bbn``).
plot = sys.modules[__name__]


def _axes(ax):
    """``ax``, or the axes of a new figure (BBNError naming the extra without matplotlib)."""
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as pyplot
    except ImportError as error:
        raise BBNError("bbn.plot needs matplotlib: pip install 'bbn[plot]' "
                       "(or pip install matplotlib)") from error
    return pyplot.subplots(figsize=(5, 3.2))[1]


def posterior(answer: Factor, ax=None, *, title: str | None = None):
    """A posterior as bars, one per state (per joint state for several variables); an
    approximate answer's bars carry ± one standard error.

    Parameters
    ----------
    answer : Factor
        A posterior (``net.query(...)``, ``net.posterior(...)``), exact or estimated.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure's axes by default.
    title : str, optional
        The title; by default P(variables).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> ax = posterior(net.posterior(["C", "S"], {"A": "T"}))
    >>> [label.get_text() for label in ax.get_xticklabels()]
    ['T, T', 'T, F', 'F, T', 'F, F']
    """
    ax = _axes(ax)
    labels = [", ".join(key) for key, _ in answer.rows()]
    error = getattr(answer, "standard_error", None)
    ax.bar(range(len(labels)), answer.values.ravel(), color=COLOUR,
           yerr=None if error is None else np.ravel(error), capsize=4)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel(", ".join(answer.variables))
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.set_title(title or f"P({', '.join(answer.variables)})")
    return ax


def _trace(values: Sequence[float], ax, x_label: str, y_label: str, title: str):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or not len(values):
        raise DataError(f"a trace is a list of numbers, got {len(values)} values of shape "
                        f"{values.shape}")
    ax = _axes(ax)
    ax.plot(np.arange(len(values)), values, marker="o", markersize=3, color=COLOUR)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title)
    return ax


def em_trace(result, ax=None):
    """EM's observed-data log-likelihood by iteration (0: the initial tables).

    Parameters
    ----------
    result : EMResult or sequence of float
        What :func:`bbn.tasks.learning.em` returns, or its ``log_likelihood``.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    DataError
        For no values.

    Examples
    --------
    >>> ax = em_trace([-12.0, -10.5, -10.25])
    >>> ax.lines[0].get_ydata().tolist()
    [-12.0, -10.5, -10.25]
    """
    values = getattr(result, "log_likelihood", result)
    return _trace(values, ax, "iteration", "log-likelihood", "EM")


def score_trace(learned, ax=None):
    """A structure search's score after every move (hill climbing, MMHC: the
    ``statistics_["score_trace"]`` of :func:`bbn.learn_structure`'s network).

    Parameters
    ----------
    learned : LearnedNetwork or sequence of float
        A network learned by a score-based search, or its scores.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    DataError
        For a network whose search records no scores (PC, a tree).

    Examples
    --------
    >>> score_trace([-50.0, -42.0, -41.5]).lines[0].get_ydata().tolist()
    [-50.0, -42.0, -41.5]
    """
    statistics = getattr(learned, "statistics_", None)
    if statistics is not None:
        if "score_trace" not in statistics:
            raise DataError(f"method {learned.method_!r} records no scores; a score-based "
                            "search (hc, hybrid) does")
        learned = statistics["score_trace"]
    return _trace(learned, ax, "move", "score", "structure search")


def _scores(model, X, y, positive) -> tuple[np.ndarray, np.ndarray, object]:
    """P(positive | x) for every row, whether each row is positive, and the positive
    class (the last of ``classes_`` by default)."""
    classes = list(model.classes_)
    if positive is None:
        positive = classes[-1]
    if positive not in classes:
        raise DataError(f"positive class {positive!r} is not among the classes {classes}")
    probability = np.asarray(model.predict_proba(X), dtype=float)[:, classes.index(positive)]
    truth = np.asarray(y, dtype=object) == positive
    if truth.all() or not truth.any():
        raise DataError(f"y needs rows of class {positive!r} and of other classes")
    return probability, truth, positive


def roc_points(scores: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) at every distinct threshold, from (0, 0) (formula in the module
    docstring).

    Parameters
    ----------
    scores : numpy.ndarray
        P(positive | x_i).
    truth : numpy.ndarray of bool
        Whether row i is positive.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> fpr, tpr = roc_points(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 0, 1, 0], bool))
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    order = np.argsort(-scores, kind="stable")
    scores, truth = scores[order], truth[order]
    last = np.r_[np.flatnonzero(np.diff(scores)), len(scores) - 1]  # the last of equal scores
    tps = np.cumsum(truth)[last]
    fps = last + 1 - tps
    return np.r_[0.0, fps / fps[-1]], np.r_[0.0, tps / tps[-1]]


def roc(model, X, y, positive=None, ax=None):
    """A classifier's ROC curve on (X, y), its AUC in the legend.

    Parameters
    ----------
    model : classifier
        Fitted, with ``classes_`` and ``predict_proba`` (``bbn.NaiveBayes``,
        ``bbn.DecisionTree``, a scikit-learn classifier).
    X, y
        Rows and their true classes.
    positive : optional
        The positive class; the last of ``model.classes_`` by default.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    DataError
        For a positive class the model does not know, or y of one kind only.

    Examples
    --------
    >>> import bbn
    >>> rows, classes = [["a"], ["a"], ["b"], ["b"]], ["n", "y", "y", "y"]
    >>> model = bbn.NaiveBayes(estimator="mle").fit(rows, classes)
    >>> ax = roc(model, rows, classes)
    >>> ax.lines[0].get_xydata().tolist()
    [[0.0, 0.0], [0.0, 0.6666666666666666], [1.0, 1.0]]
    """
    scores, truth, positive = _scores(model, X, y, positive)
    fpr, tpr = roc_points(scores, truth)
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    ax = _axes(ax)
    ax.plot(fpr, tpr, color=COLOUR, label=f"AUC = {auc:.3f}")
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"ROC, positive class {positive}")
    ax.legend(loc="lower right")
    return ax


def calibration_points(scores: np.ndarray, truth: np.ndarray,
                       bins: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(mean score, fraction positive) of each of ``bins`` equal bins of [0, 1] that holds
    a score (a score on an inner edge goes to the lower bin).

    Parameters
    ----------
    scores : numpy.ndarray
        P(positive | x_i).
    truth : numpy.ndarray of bool
        Whether row i is positive.
    bins : int
        The number of bins.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> mean, fraction = calibration_points(np.array([0.1, 0.2, 0.8, 0.9]),
    ...                                     np.array([0, 1, 1, 1], bool), bins=2)
    >>> mean.round(6).tolist(), fraction.tolist()
    ([0.15, 0.85], [0.5, 1.0])
    """
    if not (isinstance(bins, (int, np.integer)) and bins >= 1):
        raise DataError(f"bins must be a whole number ≥ 1, got {bins!r}")
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.searchsorted(edges[1:-1], scores)
    total = np.bincount(which, minlength=bins)
    sums = np.bincount(which, weights=scores, minlength=bins)
    hits = np.bincount(which, weights=truth.astype(float), minlength=bins)
    held = total > 0
    return sums[held] / total[held], hits[held] / total[held]


def calibration(model, X, y, positive=None, bins: int = 10, ax=None):
    """A classifier's calibration curve on (X, y): in each bin of predicted P(positive),
    the mean prediction against the fraction of positives; the diagonal is perfect.

    Parameters
    ----------
    model : classifier
        Fitted, with ``classes_`` and ``predict_proba``.
    X, y
        Rows and their true classes.
    positive : optional
        The positive class; the last of ``model.classes_`` by default.
    bins : int, default 10
        Equal bins of [0, 1].
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    DataError
        For a positive class the model does not know, y of one kind only, or bins < 1.

    Examples
    --------
    >>> import bbn
    >>> rows, classes = [["a"], ["a"], ["b"], ["b"]], ["n", "y", "y", "y"]
    >>> model = bbn.NaiveBayes(estimator="mle").fit(rows, classes)
    >>> ax = calibration(model, rows, classes, bins=4)
    >>> ax.lines[0].get_ydata().tolist()      # P(y | a) = 1/2 (rows 1, 2), P(y | b) = 1
    [0.5, 1.0]
    """
    scores, truth, positive = _scores(model, X, y, positive)
    mean, fraction = calibration_points(scores, truth, bins)
    ax = _axes(ax)
    ax.plot(mean, fraction, marker="o", color=COLOUR, label="classifier")
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey", label="calibrated")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"mean predicted P({positive})")
    ax.set_ylabel("fraction positive")
    ax.set_title("calibration")
    ax.legend(loc="upper left")
    return ax

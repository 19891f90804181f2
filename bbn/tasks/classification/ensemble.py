"""Ensembles of classifiers: boosting and bagging (seed 000; EXAMPLES.md §9).

Both train T copies of one base classifier (default :class:`~bbn.tasks.classification.
classifier.NaiveBayes`) on different distributions of the training data, then let them
vote. *Boosting* (AdaBoost) weighs the instances, raising the weight of those the last
classifier got wrong, and gives every classifier a vote α_t that grows with its accuracy:

    w_i¹ = 1/N
    ε_t = Σ_{i: C_t(x_i) ≠ c_i} w_i^t / Σ_i w_i^t
    α_t = ½ ln((1 − ε_t) / ε_t)
    w_i^{t+1} ∝ w_i^t e^{−α_t} if C_t(x_i) = c_i,   w_i^t e^{α_t} if not   (Σ_i w_i^{t+1} = 1)
    c_BO(x) = argmax_c Σ_t α_t δ(c, C_t(x))

*Bagging* trains every classifier on a bootstrap sample S_t (N rows drawn with
replacement) and gives them equal votes: c_BA(x) = argmax_c Σ_t δ(c, C_t(x)).

Ties in a vote go to the first class in ``classes_`` order. ``predict_proba`` is each
class's share of the vote, Σ_t v_t δ(c, C_t(x)) / Σ_t v_t, so ``predict`` is its argmax
(the course's voting, not an average of the members' probabilities).

>>> import pandas as pd
>>> X = pd.DataFrame({"a": list("pp" "qq" "pp"), "b": list("rr" "rr" "ss")})
>>> mle = NaiveBayes(estimator="mle")
>>> model = Boosting(mle, n_estimators=2).fit(X, ["yes", "no", "yes", "no", "yes", "yes"])
>>> model.estimator_errors_.round(4).tolist()  # C_1 gets rows 2 and 3 wrong, C_2 rows 1 and 4
[0.3333, 0.25]
>>> model.predict(X).tolist()                  # α_2 = ½ ln 3 > α_1 = ½ ln 2: C_2 wins
['no', 'no', 'yes', 'yes', 'yes', 'yes']
"""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pandas as pd

from bbn.core.errors import DataError
from bbn.tasks.classification.base import Classifier, check_labels, class_codes
from bbn.tasks.classification.classifier import NaiveBayes
from bbn.tasks.classification.inputs import check_sample_weight


class _Ensemble(Classifier):
    """What boosting and bagging share: parameters (scikit-learn's protocol), cloning the
    base classifier, and the weighted vote."""

    def _input_tags(self) -> dict:
        """The base classifier's: the members see X as it is given."""
        return self._base()._input_tags() if hasattr(self._base(), "_input_tags") else (
            super()._input_tags())

    def _poor_score(self) -> bool:
        return self._base()._poor_score() if hasattr(self._base(), "_poor_score") else False

    def _nested(self, name: str):
        if name == "estimator" and self.estimator is None:  # the default, made explicit
            self.estimator = NaiveBayes()
        return super()._nested(name)

    # -------------------------------------------------------------- members
    def _check_n_estimators(self) -> int:
        n = self.n_estimators
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise DataError(f"n_estimators must be a positive integer, got {n!r}")
        return int(n)

    def _base(self):
        return NaiveBayes() if self.estimator is None else self.estimator

    def _new_member(self):
        """A fresh, unfitted copy of the base classifier (scikit-learn's ``clone``)."""
        base = self._base()
        return type(base)(**copy.deepcopy(base.get_params(deep=False)))

    def _takes_weights(self) -> bool:
        return "sample_weight" in inspect.signature(self._base().fit).parameters

    def _targets(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """The labels of y (checked against X's rows) and their codes; sets ``classes_``."""
        n_rows = X.shape[0] if hasattr(X, "shape") else len(X) if hasattr(X, "__len__") else (
            np.asarray(X).shape[0])  # anything with only __array__
        if n_rows == 0:
            raise DataError("X has 0 rows: there is nothing to learn from")
        labels = check_labels(y, n_rows)
        self.classes_, codes = class_codes(labels)
        return labels, codes

    def _describe_inputs(self) -> None:
        """``n_features_in_`` (and ``feature_names_in_``) as the members saw X."""
        first = self.estimators_[0]
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(first, name):
                setattr(self, name, getattr(first, name))
            else:
                vars(self).pop(name, None)  # from an earlier fit

    def _codes(self, predicted) -> np.ndarray:
        """Each predicted label's index in ``classes_``."""
        return pd.Index(self.classes_).get_indexer(np.asarray(predicted))

    # ------------------------------------------------------------- voting
    def votes(self, X) -> np.ndarray:
        """Σ_t v_t δ(c, C_t(x)) for every row and class, columns in ``classes_`` order.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows as the members take them.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)

        Raises
        ------
        NotFittedError
            Before ``fit``; otherwise what the members' ``predict`` raises.

        Examples
        --------
        >>> import bbn
        >>> X, y = [["p"], ["p"], ["q"], ["q"]], ["yes", "yes", "no", "yes"]
        >>> model = bbn.Bagging(n_estimators=3, seed=0).fit(X, y)
        >>> model.votes([["p"]]).tolist()
        [[0.0, 3.0]]
        """
        if not hasattr(self, "estimators_"):
            raise self._not_fitted()
        total = None
        for member, weight in zip(self.estimators_, self._vote_weights()):
            codes = self._codes(member.predict(X))
            if total is None:
                total = np.zeros((len(codes), len(self.classes_)))
            total[np.arange(len(codes)), codes] += weight
        return total

    def predict(self, X) -> np.ndarray:
        """The class with the most (weighted) votes for every row (ties: the first class).

        Returns
        -------
        numpy.ndarray
            One label of ``classes_`` per row.

        Examples
        --------
        >>> import bbn
        >>> X, y = [["p"], ["p"], ["q"], ["q"]], ["yes", "yes", "no", "yes"]
        >>> model = bbn.Bagging(n_estimators=3, seed=0).fit(X, y)
        >>> model.predict([["p"], ["q"]]).tolist()   # q: 2 of 3 members say yes
        ['yes', 'yes']
        """
        votes = self.votes(X)
        return self.classes_[np.argmax(votes, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """Each class's share of the (weighted) vote for every row.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)
            Every row sums to 1.

        Examples
        --------
        >>> import bbn
        >>> X, y = [["p"], ["p"], ["q"], ["q"]], ["yes", "yes", "no", "yes"]
        >>> model = bbn.Bagging(n_estimators=3, seed=0).fit(X, y)
        >>> model.predict_proba([["q"]]).round(4).tolist()
        [[0.3333, 0.6667]]
        """
        votes = self.votes(X)
        return votes / votes.sum(axis=1, keepdims=True)


class Boosting(_Ensemble):
    """AdaBoost as the course gives it (seed 000), for two classes or more.

    Round t trains a fresh copy of ``estimator`` on the instance weights w^t, passed as
    ``sample_weight = W · w^t`` with W = Σ_i sample_weight_i (N without ``sample_weight``):
    frequency weights of the data's own total, so round 1 is the ordinary (weighted) fit,
    the same as on the rows repeated, and smoothing estimators and the Gaussian N − 1 see
    the data's own size. Then

        ε_t = Σ_{wrong} w_i^t / Σ_i w_i^t,   α_t = ½ ln((1 − ε_t) / ε_t),
        w_i^{t+1} ∝ w_i^t e^{∓α_t} (− if right, + if wrong),   Σ_i w_i^{t+1} = 1,

    and the boosted class is argmax_c Σ_t α_t δ(c, C_t(x)). Several classes use the same
    rule (AdaBoost.M1). Boosting stops early

    * when ε_t = 0: C_t is perfect on the weighted data, α_t = ∞, and it gets the whole
      vote (the earlier members are kept but outvoted);
    * when ε_t ≥ ½, as AdaBoost.M1 does: α_t ≤ 0, C_t is no better than its complement,
      and it is discarded; if this happens in round 1 there is no ensemble (DataError).

    For two classes this is scikit-learn's SAMME (``AdaBoostClassifier``): its
    α = ln((1 − ε)/ε) is twice the notes' and it only raises the wrong rows' weights, but
    after normalising the weights, hence the members and the vote, are the same.

    Parameters
    ----------
    estimator : classifier, optional
        The base classifier (default ``NaiveBayes()``); its ``fit`` must take
        ``sample_weight``. Copied afresh for every round from its ``get_params()``.
    n_estimators : int, default 10
        T, the most rounds.

    Attributes
    ----------
    classes_, estimators_ : numpy.ndarray, list
        The sorted labels; the members C_1..C_T.
    alphas_, estimator_weights_ : numpy.ndarray
        α_t (one array under both names).
    estimator_errors_ : numpy.ndarray
        ε_t.
    sample_weights_ : numpy.ndarray
        w^t, each summing to 1: the distribution round t was trained on.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": list("ppqqpp"), "b": list("rrrrss")})
    >>> model = Boosting(NaiveBayes(estimator="mle"), n_estimators=2)
    >>> model = model.fit(X, ["yes", "no", "yes", "no", "yes", "yes"])
    >>> model.sample_weights_[1].round(4).tolist()  # wrong rows 2 and 3 share ½
    [0.125, 0.25, 0.25, 0.125, 0.125, 0.125]
    >>> bool(np.isclose(model.alphas_[0], 0.5 * np.log((1 - 1/3) / (1/3))))
    True
    """

    def __init__(self, estimator=None, n_estimators: int = 10):
        self.estimator = estimator
        self.n_estimators = n_estimators

    def fit(self, X, y, sample_weight=None) -> Boosting:
        """Boost ``estimator`` on rows X, labels y; ``sample_weight`` gives w¹ (∝ it)."""
        rounds = self._check_n_estimators()
        if not self._takes_weights():
            raise DataError(f"boosting needs a base classifier whose fit takes sample_weight; "
                            f"{type(self._base()).__name__}.fit does not")
        labels, codes = self._targets(X, y)
        n = len(labels)
        given = check_sample_weight(sample_weight, n)
        total = n if given is None else given.sum()
        w = np.full(n, 1.0 / n) if given is None else given / total
        members, alphas, errors, weights = [], [], [], []
        for t in range(rounds):
            member = self._new_member().fit(X, y, sample_weight=total * w)
            wrong = self._codes(member.predict(X)) != codes
            error = w[wrong].sum() / w.sum()
            if error >= 0.5:
                if not members:
                    raise DataError(
                        f"the base classifier's weighted training error in round 1 is "
                        f"ε = {error:.6g} ≥ 1/2: boosting needs a classifier better than "
                        "that (AdaBoost.M1 stops here, with no classifier)")
                break
            members.append(member)
            errors.append(error)
            weights.append(w)
            if error == 0:  # a perfect classifier: α = ∞, the whole vote
                alphas.append(np.inf)
                break
            alpha = 0.5 * np.log((1 - error) / error)
            alphas.append(alpha)
            if t + 1 < rounds:
                w = w * np.exp(np.where(wrong, alpha, -alpha))
                w = w / w.sum()
        self.estimators_ = members
        self.alphas_ = self.estimator_weights_ = np.array(alphas)
        self.estimator_errors_ = np.array(errors)
        self.sample_weights_ = np.array(weights)
        self._describe_inputs()
        return self

    def _vote_weights(self) -> np.ndarray:
        perfect = np.isinf(self.alphas_)
        return perfect.astype(float) if perfect.any() else self.alphas_


class Bagging(_Ensemble):
    """Bootstrap aggregating: T classifiers on bootstrap samples, equal votes.

    For t = 1..T, S_t is N row indices drawn uniformly with replacement
    (``numpy.random.default_rng(seed).integers(0, N, size=(T, N))``, row t), C_t is a
    fresh copy of ``estimator`` fitted on S_t, and c_BA(x) = argmax_c Σ_t δ(c, C_t(x)).

    If the base classifier's ``fit`` takes ``sample_weight``, S_t is passed as weights —
    how many times each row was drawn — which is the same fit (frequency weights) except
    that every state and class of the whole training set stays declared, so each member
    can classify any row the ensemble is asked about. Otherwise C_t is fitted on the
    drawn rows themselves. Given ``sample_weight`` w, member t is fitted with weights
    w_i · (times row i was drawn), as scikit-learn's ``BaggingClassifier`` does (the draw
    itself stays uniform); that needs a base classifier that takes weights.

    Parameters
    ----------
    estimator : classifier, optional
        The base classifier (default ``NaiveBayes()``; with categorical features keep
        its smoothing Laplace estimator: under ``estimator="mle"`` a value that no drawn
        row of any class has would have probability 0).
    n_estimators : int, default 10
        T.
    seed : int, numpy.random.Generator or None
        Makes the samples reproducible (anything ``numpy.random.default_rng`` takes).

    Attributes
    ----------
    classes_, estimators_ : numpy.ndarray, list
        The sorted labels; the members.
    samples_ : numpy.ndarray, shape (T, N)
        The row indices each member was drawn.
    estimator_weights_ : numpy.ndarray
        All 1.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": list("ppqqpp")})
    >>> model = Bagging(NaiveBayes(estimator="laplace"), n_estimators=3, seed=0)
    >>> model.fit(X, ["yes", "no", "yes", "no", "yes", "yes"]).samples_.shape
    (3, 6)
    """

    def __init__(self, estimator=None, n_estimators: int = 10, seed=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.seed = seed

    def fit(self, X, y, sample_weight=None) -> Bagging:
        """Fit ``n_estimators`` copies of ``estimator`` on bootstrap samples of X, y
        (each row's draws weighted by ``sample_weight`` when given)."""
        rounds = self._check_n_estimators()
        labels, _ = self._targets(X, y)
        n = len(labels)
        given = check_sample_weight(sample_weight, n)
        weighted = self._takes_weights()
        if given is not None and not weighted:
            raise DataError(f"sample_weight needs a base classifier whose fit takes "
                            f"sample_weight; {type(self._base()).__name__}.fit does not")
        samples = np.random.default_rng(self.seed).integers(0, n, size=(rounds, n))
        self.estimators_ = []
        for rows in samples:
            member = self._new_member()
            if weighted:
                draws = np.bincount(rows, minlength=n)
                member.fit(X, y, sample_weight=draws if given is None else draws * given)
            else:
                member.fit(_take(X, rows), labels[rows])
            self.estimators_.append(member)
        self.samples_ = samples
        self.estimator_weights_ = np.ones(rounds)
        self._describe_inputs()
        return self

    def _vote_weights(self) -> np.ndarray:
        return self.estimator_weights_


def _take(X, rows: np.ndarray):
    """The given rows of X (a DataFrame or Series, a sparse matrix, an array or a list)."""
    if isinstance(X, (pd.DataFrame, pd.Series)):
        return X.iloc[rows]
    if hasattr(X, "tocsr"):
        return X.tocsr()[rows]
    return (X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object))[rows]


__all__ = ["Bagging", "Boosting"]

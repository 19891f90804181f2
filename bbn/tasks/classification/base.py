"""What every bbn classifier shares: scikit-learn's estimator protocol and class labels;
and what every naive Bayes likelihood shares: Bayes' rule over them.

    P(c | x) = P(c) Π_parts P(x_part | c) / Σ_c' P(c') Π_parts P(x_part | c')

A classifier's parameters are the arguments of its ``__init__``, stored under the same
names (scikit-learn's convention), so ``get_params``/``set_params``, ``clone`` and grid
searches work without scikit-learn being imported here. ``name__inner=value`` reaches
the parameters of a parameter that has its own (an ensemble's base classifier).

Class labels are checked once (one per row, none missing) and coded by their rank
among the sorted distinct labels — the ``classes_`` order of scikit-learn:

>>> classes, codes = class_codes(np.array(["spam", "ham", "ham"], dtype=object))
>>> classes.tolist(), codes.tolist()
(['ham', 'spam'], [1, 0, 0])
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

import bbn.tasks.classification.fitted_tables as fitted_tables
from bbn.core.data import row_label, state_texts
from bbn.core.errors import DataError, ImpossibleEvidenceError, NotFittedError, suggest
from bbn.model.network import Network
from bbn.questions.partitions import is_dask, require_dask, sum_over_partitions
from bbn.tasks.classification.decisions import check_rule, decide, expected_risk, loss_matrix
from bbn.tasks.classification.inputs import (
    PARTIAL_HINT,
    Inputs,
    check_sample_weight,
    label_codes,
    one_d_message,
)
from bbn.tasks.classification.likelihood import Likelihood
from bbn.tasks.classification.naive_counts import NaiveCounts
from bbn.tasks.learning.estimators import Estimator, table_from_counts

#: The kinds of a bag of words: one network node for a text column or many count columns.
WORD_KINDS = ("text", "multinomial")


class Classifier:
    """scikit-learn's estimator protocol for bbn's classifiers."""

    _estimator_type = "classifier"

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        """The constructor's parameters, as scikit-learn's ``clone`` and grid searches
        read them.

        Parameters
        ----------
        deep : bool, default True
            Also list the parameters of parameters that have their own (as
            ``name__inner``).

        Returns
        -------
        dict
            ``{parameter name: value}``, the values as given to the constructor.

        Examples
        --------
        >>> import bbn
        >>> bbn.NaiveBayes(estimator="mle").get_params()["estimator"]
        'mle'
        """
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if hasattr(value, "get_params") and not isinstance(value, type):
                    params.update({f"{name}__{k}": v
                                   for k, v in value.get_params(deep=True).items()})
        return params

    def set_params(self, **params) -> Classifier:
        """Set parameters; ``name__inner=value`` sets one of parameter ``name``'s own.

        Parameters
        ----------
        **params
            ``name=value`` for constructor parameters (a ``ValueError`` names an unknown
            one, with close matches).

        Returns
        -------
        Classifier
            The classifier itself, for chaining.

        Examples
        --------
        >>> import bbn
        >>> bbn.NaiveBayes().set_params(unseen="ignore").unseen
        'ignore'
        """
        valid, nested = self._param_names(), {}
        for key, value in params.items():
            name, _, inner = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}"
                                 f"{suggest(name, valid)}")
            if inner:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
        for name, inner in nested.items():
            target = self._nested(name)
            if not hasattr(target, "set_params"):
                raise ValueError(f"invalid parameter {name + '__' + next(iter(inner))!r} for "
                                 f"{type(self).__name__}: {name} has no parameters of its own")
            target.set_params(**inner)
        return self

    def _nested(self, name: str):
        """The object whose parameters ``name__...`` set."""
        return getattr(self, name)

    def _input_tags(self) -> dict:
        """What X may hold, as scikit-learn's ``InputTags`` fields (a classifier of
        categorical features by default: any values, strings, missing ones)."""
        return dict(categorical=True, string=True, allow_nan=True, sparse=False)

    def _poor_score(self) -> bool:
        """Whether scikit-learn should not expect 83 % training accuracy on its blobs."""
        return False

    def score(self, X, y) -> float:
        """The accuracy: the fraction of rows whose prediction equals y.

        Parameters
        ----------
        X : DataFrame, array-like (or what the classifier's ``fit`` takes)
            Rows with the columns ``fit`` saw.
        y : array-like
            Their true labels.

        Returns
        -------
        float

        Raises
        ------
        NotFittedError, DataError
            As the classifier's ``predict``.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.score([["a"], ["b"]], ["y", "y"])
        0.5
        """
        return float(np.mean(self.predict(X) == check_labels(y, None)))

    def _not_fitted(self) -> NotFittedError:
        """The error of a method that needs ``fit`` first."""
        return sklearn_compatible(NotFittedError, "sklearn.exceptions", "NotFittedError")(
            f"this {type(self).__name__} is not fitted yet: call fit(X, y) first")

    def __sklearn_tags__(self):
        # Only scikit-learn calls this (scikit-learn ≥ 1.6's tag protocol), so importing
        # it here adds no runtime dependency.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(poor_score=self._poor_score()),
                    input_tags=InputTags(**self._input_tags()))

    def __repr__(self) -> str:
        defaults = inspect.signature(type(self).__init__).parameters
        shown = [f"{k}={v!r}" for k, v in self.get_params(deep=False).items()
                 if not _is_default(v, defaults[k].default)]
        return f"{type(self).__name__}(" + ", ".join(shown) + ")"


class LikelihoodClassifier(Classifier):
    """Bayes' rule over likelihoods, the shared base of naive Bayes classifiers.

        log P(c | x) = log P(c) + Σ_parts log P(x_part | c) − log Σ_c' exp(...)

    X is checked once, at the boundary (:class:`~bbn.tasks.classification.inputs.Inputs`);
    every likelihood (:class:`~bbn.tasks.classification.likelihood.Likelihood`) adds its
    term, vectorised over rows. The class prior is the relative frequency of the
    classes, or ``class_prior``. ``fit``, ``partial_fit`` and a Dask fit all count
    statistics that add up (:mod:`~bbn.tasks.classification.naive_counts`) and build
    the fitted network ``network_`` from them.

    A subclass's ``_settings()`` checks its parameters and returns the estimator;
    ``_describe(X, y, inputs)`` sets ``likelihoods_``, ``feature_kinds_``,
    ``class_variable_``, ``n_features_in_`` (and ``feature_names_in_``) from the first
    data; ``_network_name()`` names the network. It has the parameters ``class_prior``,
    ``unseen``, ``decision`` and ``loss``.

    Examples
    --------
    >>> import bbn
    >>> isinstance(bbn.NaiveBayes(), LikelihoodClassifier)
    True
    """

    class_prior = None
    unseen = "error"
    decision = "map"
    loss = None

    def _settings(self) -> Estimator:
        raise NotImplementedError

    def _describe(self, X, y, inputs: Inputs) -> None:
        raise NotImplementedError

    def _network_name(self) -> str:
        return "naive Bayes"

    def _prepared(self, X, y=None, refit: bool = False):
        """X as the likelihoods read it (:class:`NaiveBayes` cuts numeric columns)."""
        return X

    def fit(self, X, y, sample_weight=None) -> LikelihoodClassifier:
        """Learn P(class) and P(feature | class) for every feature from rows X, labels y.

        ``sample_weight`` (one non-negative number per row) makes every count a weighted
        count, n(c, x) = Σ_{rows r of class c with value x} w_r, and every Gaussian moment a
        weighted one: frequency weights, so an integer weight k is the row repeated k
        times. A row of weight 0 adds no counts, but its values and label are still
        states and classes of the model. :class:`bbn.Boosting` trains on its instance
        weights this way.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            The rows (columns named by a DataFrame, else ``x0, x1, ...``).
        y : array-like
            One class label per row: texts, booleans or whole numbers, none missing.
        sample_weight : array-like, optional
            One finite, non-negative weight per row, not all zero.

        Returns
        -------
        LikelihoodClassifier
            ``self``, fitted.

        Raises
        ------
        DataError
            For a bad setting (estimator, decision, ``ddof``, ``unseen``), X without rows
            or columns, labels that are missing, continuous or not one per row, or bad
            weights.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.classes_.tolist(), model.network_.cpt_array("x0").round(3).tolist()
        (['x', 'y'], [[0.667, 0.333], [0.25, 0.75]])
        """
        estimator = self._settings()
        X = self._prepared(X, y, refit=True)
        if is_dask(X):
            return self._fit_partitions(X, y, sample_weight, estimator)
        inputs = Inputs.of(X)
        inputs.require_data()
        labels = check_labels(y, inputs.n_rows)
        weights = check_sample_weight(sample_weight, inputs.n_rows)
        self.classes_, y_codes = class_codes(labels)
        self._describe(X, y, inputs)
        counts = self._count(inputs, y_codes, weights)
        self._build(counts, estimator)
        self._counts = counts  # a partial_fit after fit adds to them, as scikit-learn's
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None) -> LikelihoodClassifier:
        """Add a batch of rows to the counts learned so far, and refit the tables.

        As scikit-learn's ``partial_fit``: the first call needs every class (``classes``),
        later calls (and calls after :meth:`fit`) add batches: rows that do not fit in
        memory at once, or that arrive over time. The counts add up, so the model after
        the last batch is the model :meth:`fit` learns from all rows: the same tables
        for categorical, Bernoulli and word features, and Gaussian moments combined by
        Chan's update (equal to rounding). The states of a categorical feature are
        ``states`` or those of the first batch; a value first seen in a later batch is
        a DataError naming its column, row and value (declare it with ``states=``). A
        text feature's vocabulary grows with every batch. ``structure="tan"`` keeps the
        counts n(c, xi, xj) of every pair of features and grows its tree again from
        them after each batch.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            A batch of rows, with the columns of the first batch.
        y : array-like
            One class label per row, each among ``classes``.
        classes : array-like, optional
            Every class label; required on the first call, ignored after.
        sample_weight : array-like, optional
            One finite, non-negative weight per row.

        Returns
        -------
        LikelihoodClassifier
            ``self``, fitted on every batch so far.

        Raises
        ------
        DataError
            As :meth:`fit`; also for a first call without ``classes``, a label outside
            them, columns other than the first batch's, or a categorical value that is
            no state.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes(states=["a", "b"])
        >>> model = model.partial_fit([["a"], ["b"]], ["x", "y"], classes=["x", "y"])
        >>> model.partial_fit([["b"]], ["y"]).network_.cpt_array("x0").round(3).tolist()
        [[0.667, 0.333], [0.25, 0.75]]
        """
        estimator = self._settings()
        X = self._prepared(X, y, refit=not hasattr(self, "_counts"))
        inputs = Inputs.of(X)
        inputs.require_data()
        labels = check_labels(y, inputs.n_rows)
        weights = check_sample_weight(sample_weight, inputs.n_rows)
        first = not hasattr(self, "_counts")
        if first:
            if classes is None:
                raise DataError("classes must be passed on the first call to partial_fit "
                                "(every class label, so that later batches may lack some)")
            self.classes_, _ = class_codes(check_labels(classes, len(np.ravel(classes))))
        y_codes = label_codes(labels, self.classes_)
        if first:
            self._describe(X, y, inputs)
        elif len(inputs.names) != self.n_features_in_:
            raise DataError(f"X has {len(inputs.names)} features, but {type(self).__name__} is "
                            f"expecting {self.n_features_in_} features as input")
        elif inputs.names != list(self.feature_kinds_):
            raise DataError(f"X has columns {inputs.names[:5]}, but the first batch had "
                            f"{list(self.feature_kinds_)[:5]}: every batch needs the same "
                            "columns")
        counts = self._count(inputs, y_codes, weights, hint="" if first else PARTIAL_HINT)
        self._counts = counts if first else self._counts + counts
        self._build(self._counts, estimator)
        return self

    def _fit_partitions(self, X, y, sample_weight,
                        estimator: Estimator) -> LikelihoodClassifier:
        """fit on a Dask DataFrame X and Series y (and sample_weight) partitioned alike:
        the classes and each column's distinct values are computed first (small), then
        every partition is counted where it lives and the counts are summed there
        (:func:`bbn.questions.partitions.sum_over_partitions`); no row reaches the client."""
        dask = require_dask()
        if not hasattr(X, "columns") or not is_dask(y):
            raise DataError("a Dask fit needs X as a Dask DataFrame and y as a Dask Series "
                            "(columns of one frame, partitioned alike)")
        # split_out=1: each column's distinct values by a tree of reductions, no shuffle
        labels, *distinct = dask.compute(*[column.drop_duplicates(split_out=1) for column in
                                           (y, *(X[c] for c in X.columns))])
        labels = check_labels(pd.Series(labels, name=y.name), len(labels))
        self.classes_, _ = class_codes(labels)
        # One frame of every column's distinct values (padded with NaN): the states and
        # the kinds fit would find in all rows.
        values = pd.concat([column.reset_index(drop=True) for column in distinct], axis=1)
        self._describe(values, y, Inputs.of(values))
        model, classes = self, self.classes_

        def count(X_part, y_part, w_part=None):
            inputs = Inputs.of(X_part)
            codes = label_codes(check_labels(y_part, inputs.n_rows), classes)
            weights = (None if w_part is None
                       else check_sample_weight(w_part, inputs.n_rows, allow_zero=True))
            return model._count(inputs, codes, weights)

        collections = (X, y) if sample_weight is None else (X, y, sample_weight)
        counts = sum_over_partitions(count, *collections)
        self._build(counts, estimator)
        self._counts = counts
        return self

    def _count(self, inputs: Inputs, y_codes: np.ndarray, weights: np.ndarray | None,
               hint: str = "") -> NaiveCounts:
        """The statistics of one batch of rows: n(c), then every likelihood's."""
        n_classes = len(self.classes_)
        return NaiveCounts(np.bincount(y_codes, weights=weights, minlength=n_classes),
                           tuple(part.count(inputs, y_codes, n_classes, weights, hint)
                                 for part in self.likelihoods_))

    def _build(self, counts: NaiveCounts, estimator: Estimator) -> None:
        """The network from the statistics: the class, every feature's node in column
        order, then every table (P(class) last, from ``class_prior`` or the counts)."""
        class_name = self.class_variable_
        class_states = [state_texts(c)[0] for c in self.classes_]
        net = Network(self._network_name())
        net.add_variable(class_name, class_states)
        statistics = dict(zip(map(id, self.likelihoods_), counts.parts, strict=True))
        for column, part in self._node_owners():
            part.add_node(net, column, class_name, statistics[id(part)])
        tables = {}
        for part, part_counts in zip(self.likelihoods_, counts.parts, strict=True):
            tables.update(part.counts_to_estimate(net, part_counts))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a class with no data for a feature: uniform row
            for node, table in tables.items():
                net.set_cpt(node, table_from_counts(net, node, table, estimator))
        net.set_cpt(class_name, self._class_prior(counts.classes, class_states))
        self.network_ = net

    def _node_owners(self) -> list[tuple[str, Likelihood]]:
        """(column, likelihood) of every network node but the class's, in column order
        (a bag of words, one node for many columns, last)."""
        owners = {c: part for part in self.likelihoods_ if part.kind not in WORD_KINDS
                  for c in part.columns}
        ordered = ([(c, owners[c]) for c in self.feature_kinds_ if c in owners] if owners
                   else [])
        return ordered + [(part.node(), part) for part in self.likelihoods_
                          if part.kind in WORD_KINDS]

    def _class_prior(self, counts: np.ndarray, class_states) -> np.ndarray:
        if self.class_prior is None:
            return counts / counts.sum()
        given = self.class_prior
        if isinstance(given, Mapping):
            given = [given.get(c, given.get(s, 0.0)) for c, s in zip(self.classes_, class_states,
                                                                      strict=True)]
        prior = np.asarray(given, dtype=float)
        if prior.shape != counts.shape or np.any(prior < 0) or not np.isclose(prior.sum(), 1):
            raise DataError(f"class_prior must give {len(counts)} non-negative probabilities "
                            f"summing to 1 (classes {list(self.classes_)}), got {given!r}")
        return prior

    # ----------------------------------------------------------- predicting
    # ----------------------------------------------------------- predicting
    def _repr_html_(self) -> str:
        """What Jupyter shows: the fitted tables (:mod:`.fitted_tables`)."""
        return fitted_tables.fitted_html(self)

    def _check_fitted(self) -> None:
        if not hasattr(self, "network_"):
            raise self._not_fitted()

    def joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c) + Σ_i log P(x_i | c) for every row and class: shape (rows, classes);
        with ``structure="tan"`` log P(x_i | c, x_pa(i)), missing values summed out.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)

        Raises
        ------
        ImpossibleEvidenceError
            For a row that has probability 0 under every class (naming the values).
        NotFittedError
            Before ``fit``.
        DataError
            For a missing column or (``unseen="error"``) a value that is no state.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.joint_log_likelihood([["b"]]).round(4).tolist()   # log 1/9, log 1/2
        [[-2.1972, -0.6931]]
        """
        self._check_fitted()
        log_prior, log_likelihood, inputs = self._log_terms(X)
        joint = log_prior + log_likelihood
        impossible = ~np.isfinite(joint.max(axis=1)) if joint.size else np.zeros(0, bool)
        if impossible.any():
            raise self._impossible(inputs, np.flatnonzero(impossible))
        return joint

    def _log_terms(self, X) -> tuple[np.ndarray, np.ndarray, Inputs]:
        """log P(c), Σ_parts log P(x_part | c) (rows, classes), and X read as Inputs:
        X checked once against the columns ``fit`` saw."""
        kinds = self.feature_kinds_
        inputs = Inputs.of(self._prepared(X))
        if inputs.one_d and any(kind != "text" for kind in kinds.values()):
            raise DataError(one_d_message(f"the model was fitted on {self.n_features_in_} "
                                          "features, not texts"))
        if not inputs.named and len(inputs.names) != self.n_features_in_:
            raise DataError(f"X has {len(inputs.names)} features, but {type(self).__name__} is "
                            f"expecting {self.n_features_in_} features as input")
        if inputs.named or self._named:  # else both are x0, x1, ...
            present = set(inputs.names)
            missing = [c for c in kinds if c not in present]
            if missing:
                raise DataError(f"X has no column {missing[0]!r}"
                                f"{suggest(missing[0], inputs.names)}")
        net = self.network_
        with np.errstate(divide="ignore"):
            log_prior = np.log(net.cpt_array(self.class_variable_))
        unknown = "missing" if self.unseen == "ignore" else "error"
        total = np.zeros((inputs.n_rows, len(self.classes_)))
        for part in self.likelihoods_:
            total += part.log_likelihood(net, inputs, unknown)
        return log_prior, total, inputs

    def _impossible(self, inputs: Inputs, rows: np.ndarray) -> ImpossibleEvidenceError:
        """The error for rows of probability 0, naming the feature values responsible."""
        row = int(rows[0])
        single = inputs.take(row)
        classes = self.network_.states(self.class_variable_)
        evidence, zero_in = {}, {}
        for part in self.likelihoods_:
            seen, zeros = part.zero_probabilities(self.network_, single, self.class_variable_)
            evidence.update(seen)
            zero_in.update(zeros)
        everywhere = [f for f, cs in zero_in.items() if len(cs) == len(classes)]
        if everywhere:
            reason = (f"{', '.join(everywhere)} never occurred with any class in training, "
                      f"so P({everywhere[0].split('=')[0]} | {self.class_variable_}) = 0 for "
                      "every class")
        else:
            reason = "; ".join(f"{f} has probability 0 given {self.class_variable_}="
                               f"{'/'.join(cs)}" for f, cs in zero_in.items()) or (
                "a feature value has probability 0 under every class")
        shown = ", ".join(f"{k}={v}" for k, v in evidence.items())
        more = f" ({len(rows)} such rows)" if len(rows) > 1 else ""
        return ImpossibleEvidenceError(evidence, (
            f"impossible evidence in row {row_label(inputs.row_name(row))}{more}: P({shown}) = 0 "
            f"under this model: {reason}; the posterior is undefined (a smoothing estimator "
            "such as 'laplace' or 'm-estimate' avoids zero probabilities)"))

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(c | x) for every row, columns in ``classes_`` order.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)

        Raises
        ------
        ImpossibleEvidenceError, NotFittedError, DataError
            As :meth:`joint_log_likelihood`.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.predict_log_proba([["b"]]).round(4).tolist()
        [[-1.7047, -0.2007]]
        """
        joint = self.joint_log_likelihood(X)
        top = joint.max(axis=1, keepdims=True)
        return joint - top - np.log(np.exp(joint - top).sum(axis=1, keepdims=True))

    def predict_proba(self, X) -> np.ndarray:
        """P(c | x) for every row, columns in ``classes_`` order.

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)
            Every row sums to 1.

        Raises
        ------
        ImpossibleEvidenceError, NotFittedError, DataError
            As :meth:`joint_log_likelihood`.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.predict_proba([["b"]]).round(4).tolist()   # (1/9, 1/2) normalised
        [[0.1818, 0.8182]]
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """The decided class of every row (``decision``: MAP, ML or minimum risk).

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray
            One label of ``classes_`` per row.

        Raises
        ------
        ImpossibleEvidenceError, NotFittedError, DataError
            As :meth:`joint_log_likelihood`; DataError also for a bad decision rule.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
        >>> model.predict([["a"], ["b"]]).tolist()
        ['x', 'y']
        """
        rule = check_rule(self.decision, self.loss)
        self._check_fitted()
        if rule == "map":
            return self.classes_[np.argmax(self.joint_log_likelihood(X), axis=1)]
        if rule == "ml":
            log_prior, log_likelihood, inputs = self._log_terms(X)
            joint = log_prior + log_likelihood
            impossible = ~np.isfinite(joint.max(axis=1))
            if impossible.any():
                raise self._impossible(inputs, np.flatnonzero(impossible))
            return self.classes_[np.argmax(log_likelihood, axis=1)]
        return self.classes_[decide(self.predict_proba(X), "risk", loss=self.loss_matrix())]

    def expected_risk(self, X) -> np.ndarray:
        """R(a_i | x) = Σ_j λ_ij P(j | x) for every row and class (needs ``loss``).

        Parameters
        ----------
        X : DataFrame, array-like, list of texts or sparse matrix
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)

        Raises
        ------
        DataError
            Without a loss matrix; otherwise as :meth:`predict_proba`.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes(loss=[[0, 10], [1, 0]])
        >>> model.fit([["a"], ["b"], ["b"]], ["x", "y", "y"]).expected_risk([["b"]]).round(4)
        array([[8.1818, 0.1818]])
        """
        return expected_risk(self.predict_proba(X), self.loss_matrix())

    def loss_matrix(self) -> np.ndarray:
        """The loss λ as a (predicted × true) array in ``classes_`` order.

        Returns
        -------
        numpy.ndarray, shape (classes, classes)

        Raises
        ------
        NotFittedError
            Before ``fit``.
        DataError
            Without ``loss``, or one that does not fit the classes.

        Examples
        --------
        >>> import bbn
        >>> model = bbn.NaiveBayes(loss={("x", "y"): 5})
        >>> model.fit([["a"], ["b"]], ["x", "y"]).loss_matrix().tolist()
        [[0.0, 5.0], [1.0, 0.0]]
        """
        self._check_fitted()
        if self.loss is None:
            raise DataError("no loss matrix: set loss=... (rows predicted, columns true class)")
        return loss_matrix(self.loss, self.network_.states(self.class_variable_))


class DataConversionWarning(UserWarning):
    """y given as a column (shape (n, 1)) and read as one label per row — the warning
    scikit-learn's own estimators give (same name, so its checks recognise it)."""


@functools.cache
def _combined(ours: type, theirs: type) -> type:
    return type(ours.__name__, (ours, theirs), {"__module__": ours.__module__})


def sklearn_compatible(ours: type, module: str, name: str) -> type:
    """``ours``, or — when the program has already imported scikit-learn — a subclass of
    both it and scikit-learn's class of that name, so that ``except NotFittedError`` and
    warning filters written for scikit-learn catch bbn's too. scikit-learn is never
    imported here: bbn does not depend on it.

    >>> sklearn_compatible(DataConversionWarning, "no.such.module", "X") is DataConversionWarning
    True
    """
    theirs = getattr(sys.modules.get(module), name, None)
    return ours if theirs is None or issubclass(ours, theirs) else _combined(ours, theirs)


def check_labels(y, n_rows: int | None) -> np.ndarray:
    """y as a 1-D array of class labels; with ``n_rows`` (fitting), one per row and none
    missing. Labels are texts, booleans or whole numbers, not a mix of texts and numbers
    (``"1"`` and ``1`` would be one state name) and not measurements (continuous y).

    >>> check_labels([0, 1.0, 2], 3).tolist()
    [0.0, 1.0, 2.0]
    """
    if y is None:
        raise DataError("this classifier requires y to be passed, but the target y is None")
    if isinstance(y, (pd.Series, pd.DataFrame)):
        y = y.to_numpy()
    elif isinstance(y, (list, tuple)) and n_rows is not None and (
            pd.api.types.infer_dtype(y, skipna=True) in _MIXED):
        # A list: numpy would turn [1, "1"] into ["1", "1"], merging two labels unseen.
        y = np.asarray(y, dtype=object)
    labels = np.asarray(y)
    if labels.ndim == 2 and labels.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected: y of shape "
                      f"{labels.shape} is read as one label per row",
                      sklearn_compatible(DataConversionWarning, "sklearn.exceptions",
                                         "DataConversionWarning"), stacklevel=3)
        labels = labels[:, 0]
    if labels.ndim != 1:
        raise DataError(f"y must be one label per row, got shape {labels.shape}")
    if n_rows is not None and len(labels) != n_rows:
        raise DataError(f"X has {n_rows} rows but y has {len(labels)} labels")
    if n_rows is None:
        return labels
    if labels.dtype.kind == "c":
        raise DataError("Complex data not supported: y holds complex numbers, not class labels")
    kind = labels.dtype.kind if labels.dtype != object else pd.api.types.infer_dtype(
        labels, skipna=True)
    if kind in _MIXED:  # texts and numbers: sorting and naming fail
        numbers = [v for v in labels if isinstance(v, (int, float, np.number))]
        texts = [v for v in labels if isinstance(v, str)]
        shown = f" ({texts[0]!r} and {numbers[0]!r})" if numbers and texts else ""
        raise DataError(f"Unknown label type: y mixes texts and numbers{shown}; give every "
                        "label as a text, or every label as a number")
    missing = pd.isna(labels)
    if missing.any():
        raise DataError(f"y has a missing label in row {int(np.flatnonzero(missing)[0])}")
    if kind in ("f", "floating", "mixed-integer-float", "decimal"):
        values = labels.astype(float)
        if not np.isfinite(values).all():
            row = int(np.flatnonzero(~np.isfinite(values))[0])
            raise DataError(f"y has the label {values[row]} in row {row}: class labels must "
                            "be finite")
        if (values != np.round(values)).any():
            row = int(np.flatnonzero(values != np.round(values))[0])
            raise DataError(f"Unknown label type: y is continuous ({values[row]:g} in row {row}):"
                            " a classifier needs class labels (texts or whole numbers); "
                            "for a measurement, bin it first (pandas.cut)")
    return labels


#: The kinds of ``pandas.api.types.infer_dtype`` that mix texts and numbers (or others).
_MIXED = frozenset({"mixed", "mixed-integer"})


def class_codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels (as ``np.unique`` gives them) and each row's index among
    them, by hashing: sorting thousands of string labels costs more than a whole fit."""
    codes, uniques = pd.factorize(labels)
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    classes = np.asarray(uniques)[order]
    return (classes if labels.dtype == object else classes.astype(labels.dtype)), rank[codes]


def _is_default(value, default) -> bool:
    """Whether a parameter still has its default (for the repr; arrays never do)."""
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):
        return False

"""What every bbn classifier shares: scikit-learn's estimator protocol and class labels.

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

import numpy as np
import pandas as pd

from bbn.core.errors import DataError, NotFittedError, suggest


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

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

import inspect

import numpy as np
import pandas as pd

from bbn.errors import DataError, suggest


class Classifier:
    """scikit-learn's estimator protocol for bbn's classifiers."""

    _estimator_type = "classifier"
    #: Whether X may be one text per row (a 1-D list) instead of a table.
    _one_d_input = False

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if hasattr(value, "get_params") and not isinstance(value, type):
                    params.update({f"{name}__{k}": v
                                   for k, v in value.get_params(deep=True).items()})
        return params

    def set_params(self, **params) -> Classifier:
        """Set parameters; ``name__inner=value`` sets one of parameter ``name``'s own."""
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

    def __sklearn_tags__(self):
        # Only scikit-learn calls this, so importing it here adds no runtime dependency.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(),
                    input_tags=InputTags(categorical=True, string=True, allow_nan=True,
                                         sparse=True, one_d_array=self._one_d_input))

    def __repr__(self) -> str:
        defaults = inspect.signature(type(self).__init__).parameters
        shown = [f"{k}={v!r}" for k, v in self.get_params(deep=False).items()
                 if not _is_default(v, defaults[k].default)]
        return f"{type(self).__name__}(" + ", ".join(shown) + ")"


def check_labels(y, n_rows: int | None) -> np.ndarray:
    """y as a 1-D array of labels; with ``n_rows`` (fitting), one per row and none missing."""
    labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if labels.ndim != 1:
        raise DataError(f"y must be one label per row, got shape {labels.shape}")
    if n_rows is not None and len(labels) != n_rows:
        raise DataError(f"X has {n_rows} rows but y has {len(labels)} labels")
    if n_rows is not None and pd.isna(labels).any():
        raise DataError(f"y has a missing label in row {int(np.flatnonzero(pd.isna(labels))[0])}")
    return labels


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

"""The edge where a tree meets its data: X → categorical codes and continuous numbers.

Every column is one of two kinds, decided once at ``fit``:

* ``categorical`` — state codes 0..k−1 (the states: the sorted distinct values seen in
  training), tested by value (one branch per value) or by a grouping of values;
* ``continuous`` — float64 numbers, tested by a threshold x ≤ v.

By default a column of numbers (integers, floats) is continuous and any other column
(texts, booleans, categories) categorical; ``features=`` overrides it, as one kind for all
columns, ``{column: kind}`` or one kind per column. Missing values (NaN, None, empty) are
refused unless ``missing="stop"``; a categorical value that no training row had gets the
code −1 at prediction (the row stops at the node that tests it, see :mod:`bbn.tasks.trees.nodes`).

>>> import pandas as pd
>>> X = pd.DataFrame({"outlook": ["sunny", "rain"], "temp": [30.5, 20.0]})
>>> space, coded = read_features(X, None, "error")
>>> space.kinds, space.states["outlook"], coded.codes.tolist(), coded.numbers.tolist()
(('categorical', 'continuous'), ('rain', 'sunny'), [[1], [0]], [[30.5], [20.0]])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bbn.core.data import (
    MISSING,
    absent_cells,
    encode_column,
    is_missing,
    named_columns,
    numeric_column,
    state_texts,
    states_from_values,
)
from bbn.core.errors import DataError, suggest
from bbn.tasks.learning.policies import TREE_MISSING_POLICIES as MISSING_POLICIES

#: The kinds of column a tree tests.
KINDS = ("categorical", "continuous")


@dataclass(frozen=True)
class FeatureSpace:
    """The columns a tree was fitted on: names, kinds, and the categorical states.

    ``position[j]`` is column j's index among the columns of its kind (in
    :class:`CodedFeatures` ``codes`` or ``numbers``).
    """

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    states: dict[str, tuple[str, ...]]
    named: bool

    @property
    def position(self) -> tuple[int, ...]:
        seen = {"categorical": 0, "continuous": 0}
        positions = []
        for kind in self.kinds:
            positions.append(seen[kind])
            seen[kind] += 1
        return tuple(positions)

    @property
    def column_states(self) -> list[tuple[str, ...] | None]:
        """The states of every column, by position (None: continuous)."""
        return [self.states.get(n) if k == "categorical" else None
                for n, k in zip(self.names, self.kinds, strict=True)]

    def columns(self, kind: str) -> list[int]:
        """The indices of the columns of one kind, in column order."""
        return [j for j, k in enumerate(self.kinds) if k == kind]

    def code(self, X, missing: str, owner: str = "DecisionTree") -> CodedFeatures:
        """Rows to predict, coded as at fit (columns matched by name when both are named;
        an unseen categorical value gets code −1)."""
        frame, array, names, named = _table(X)
        if not (named and self.named) and len(names) != len(self.names):
            raise DataError(f"X has {len(names)} features, but {owner} is expecting "
                            f"{len(self.names)} features as input")
        if named and self.named:
            absent = [n for n in self.names if n not in set(names)]
            if absent:
                raise DataError(f"X has no column {absent[0]!r}{suggest(absent[0], names)}")
            chosen = list(self.names)
        else:
            chosen = names
        return _coded(frame, array, chosen, self.kinds, self.column_states, missing)


@dataclass(frozen=True)
class CodedFeatures:
    """Rows as two matrices: ``codes`` (rows × categorical columns; −1: missing or
    unseen) and ``numbers`` (rows × continuous columns; NaN: missing)."""

    codes: np.ndarray
    numbers: np.ndarray

    @property
    def n_rows(self) -> int:
        return max(len(self.codes), len(self.numbers))


def check_missing(missing) -> str:
    """``missing`` if it is one of ``MISSING_POLICIES``, else a DataError.

    >>> check_missing("stop")
    'stop'
    """
    if not isinstance(missing, str) or missing not in MISSING_POLICIES:
        raise DataError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got "
                        f"{missing!r}{suggest(str(missing), MISSING_POLICIES)}")
    return missing


def read_features(X, features, missing: str) -> tuple[FeatureSpace, CodedFeatures]:
    """The feature space of training rows X (kinds, states) and X coded in it.

    Parameters
    ----------
    X : DataFrame or array-like, shape (rows, columns)
        The training rows.
    features : None, str, mapping or list
        The kind of every column (see the module docstring).
    missing : {"error", "stop"}
        Whether a missing value is refused.

    Returns
    -------
    FeatureSpace, CodedFeatures

    Raises
    ------
    DataError
        X without rows or columns, an unknown kind, a text in a continuous column, an
        infinite number, or a missing value under ``missing="error"``.

    Examples
    --------
    >>> space, coded = read_features([[1.0, 2.0], [3.0, 4.0]], None, "error")
    >>> space.names, space.kinds
    (('x0', 'x1'), ('continuous', 'continuous'))
    """
    frame, array, names, named = _table(X)
    n_rows = len(frame) if frame is not None else len(array)
    if n_rows == 0:
        raise DataError(f"X has 0 rows (shape=(0, {len(names)})): there is nothing to learn "
                        "from")
    if not names:
        raise DataError(f"X has 0 feature(s) (shape=({n_rows}, 0)) while a minimum of 1 is "
                        "required.")
    factorized = {}  # object columns: one hashing pass, read for the kind and the codes
    if frame is not None:
        for name in names:
            if frame[name].dtype.kind not in "iufc":
                factorized[name] = pd.factorize(frame[name], use_na_sentinel=True)
    kinds = _kinds(features, names, frame, array, factorized)
    states, fitted_codes = {}, {}
    for name, kind in zip(names, kinds, strict=True):
        if kind == "categorical":
            states[name], fitted_codes[name] = _states_and_codes(
                frame[name], factorized.get(name))
    space = FeatureSpace(tuple(names), kinds, states, named)
    return space, _coded(frame, array, names, kinds, space.column_states, missing,
                         fitted_codes)


def _states_and_codes(column: pd.Series, factorized) -> tuple[tuple[str, ...], np.ndarray]:
    """A training column's states (as ``states_from_values``) and its codes, from one
    factorisation: the few distinct values are named and sorted, not the rows."""
    codes, uniques = factorized if factorized is not None else pd.factorize(
        column, use_na_sentinel=True)
    uniques = pd.Series(np.asarray(uniques, dtype=object))
    states = states_from_values(uniques)
    index = {state: i for i, state in enumerate(states)}
    lookup = np.array([index.get(state_texts(u)[0], MISSING) if not is_missing(u) else MISSING
                       for u in uniques] + [MISSING], dtype=np.int32)
    return states, lookup[codes]  # code −1 (missing) reads the last entry


def _table(X) -> tuple[pd.DataFrame | None, np.ndarray | None, list[str], bool]:
    """X as a DataFrame (named or of mixed kinds) or a numeric 2-D array, its column
    names, and whether they were given."""
    if isinstance(X, pd.DataFrame):
        frame = named_columns(X, "X")
        if any(dtype.kind == "c" for dtype in frame.dtypes):
            raise DataError("Complex data not supported: X has a column of complex numbers")
        return frame, None, list(frame.columns), True
    if hasattr(X, "tocoo"):
        raise DataError("a sparse X is not supported by decision trees: give a dense array "
                        "(X.toarray())")
    try:
        array = np.asarray(X)
    except ValueError:  # ragged rows
        raise DataError("X must be a 2-D table: its rows have different lengths") from None
    if array.dtype.kind == "c":
        raise DataError("Complex data not supported: X holds complex numbers")
    if array.ndim != 2:
        raise DataError(f"X must be a 2-D table, got shape {array.shape}: Reshape your data "
                        "with X.reshape(-1, 1) for one feature, or X.reshape(1, -1) for one "
                        "row")
    names = [f"x{j}" for j in range(array.shape[1])]
    if array.dtype.kind in "biuf":
        return None, array, names, False
    return pd.DataFrame(array, columns=names, dtype=object), None, names, False


def _kinds(features, names: list[str], frame, array, factorized: Mapping) -> tuple[str, ...]:
    def default(name: str) -> str:
        if array is not None:
            return "continuous"
        if name in factorized:  # numbers held as objects are continuous too
            uniques = factorized[name][1]
            numeric = pd.api.types.infer_dtype(uniques, skipna=True) in _NUMBERS
            return "continuous" if numeric and frame[name].dtype != bool else "categorical"
        return "continuous" if frame[name].dtype.kind in "iuf" else "categorical"

    if features is None:
        return tuple(default(n) for n in names)
    if isinstance(features, str):
        kinds = [features] * len(names)
    elif isinstance(features, Mapping):
        given = {str(k): v for k, v in features.items()}
        unknown = [k for k in given if k not in names]
        if unknown:
            raise DataError(f"features names column {unknown[0]!r}, which X does not have"
                            f"{suggest(unknown[0], names)}")
        kinds = [given.get(n) or default(n) for n in names]
    else:
        kinds = list(features)
        if len(kinds) != len(names):
            raise DataError(f"features lists {len(kinds)} kinds for {len(names)} columns")
    for name, kind in zip(names, kinds, strict=True):
        if kind not in KINDS:
            raise DataError(f"column {name!r}: unknown feature kind {kind!r}; kinds are "
                            f"{', '.join(KINDS)}{suggest(str(kind), KINDS)}")
    return tuple(kinds)


#: The kinds of ``pandas.api.types.infer_dtype`` of numbers (a continuous column).
_NUMBERS = frozenset({"integer", "floating", "mixed-integer-float", "decimal"})


def _coded(frame, array, names, kinds, states, missing,
           fitted_codes: Mapping | None = None) -> CodedFeatures:
    """X coded: ``states[j]`` are the states of column j (categorical ones);
    ``fitted_codes``: the codes of training columns, already made."""
    fitted_codes = fitted_codes or {}
    n_rows = len(frame) if frame is not None else len(array)
    categorical = [j for j, k in enumerate(kinds) if k == "categorical"]
    continuous = [j for j, k in enumerate(kinds) if k == "continuous"]
    codes = np.empty((n_rows, len(categorical)), dtype=np.int32, order="F")  # by column
    if array is not None and len(continuous) == len(names):
        numbers = np.array(array, dtype=float)  # a copy: the tree keeps no view of X
    else:
        numbers = np.empty((n_rows, len(continuous)))
    source = frame if frame is not None else pd.DataFrame(array, columns=names)
    for i, j in enumerate(categorical):
        column = source[names[j]]
        if names[j] in fitted_codes:
            codes[:, i] = fitted_codes[names[j]]
        else:
            codes[:, i] = encode_column(column, states[j], unknown="missing", name=names[j],
                                        source="X")
        unmatched = np.flatnonzero(codes[:, i] < 0)  # missing, or (predicting) unseen
        if missing == "error" and len(unmatched):
            absent = unmatched if names[j] in fitted_codes else unmatched[
                [_is_missing_cell(v) for v in column.iloc[unmatched]]]  # the few unmatched
            if len(absent):
                _refuse_missing(names[j], int(absent[0]))
    if not (array is not None and len(continuous) == len(names)):
        for i, j in enumerate(continuous):
            numbers[:, i] = numeric_column(source[names[j]], names[j], "X")
    if numbers.size:
        infinite = np.isinf(numbers)
        if infinite.any():
            row, i = (int(a[0]) for a in np.nonzero(infinite))
            raise DataError(f"X has infinity in column {names[continuous[i]]!r}, row {row}: "
                            "a continuous feature must be finite")
        absent = np.isnan(numbers)
        if missing == "error" and absent.any():
            row, i = (int(a[0]) for a in np.nonzero(absent))
            _refuse_missing(names[continuous[i]], row)
    return CodedFeatures(codes, numbers)


def typed_columns(frame: pd.DataFrame, keep: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` read from a CSV file as text, with its missing cells (NaN, None, blank:
    the states are learned from the data, so ``NA`` or ``?`` is a value) as None and every
    column whose other cells are all numbers as floats — a continuous feature — except
    those named in ``keep``.

    >>> frame = typed_columns(pd.DataFrame({"a": ["1", "2.5", ""], "b": ["x", "?", " "]}))
    >>> frame["a"].tolist(), frame["b"].tolist()
    ([1.0, 2.5, nan], ['x', '?', None])
    """
    typed = {}
    for name in frame.columns:
        text = frame[name].astype(object)
        missing = absent_cells(text)
        text = text.where(~missing, None)
        numbers = pd.to_numeric(text, errors="coerce")
        if name in keep or (numbers.isna() & ~missing).any() or missing.all():
            typed[name] = text
        else:
            typed[name] = numbers.astype(float)
    return pd.DataFrame(typed, index=frame.index)


def _is_missing_cell(value) -> bool:
    return is_missing(value) or (isinstance(value, str) and not value.strip())


def _refuse_missing(name: str, row: int) -> None:
    raise DataError(f"X has a missing value (NaN) in column {name!r}, row {row}: decision "
                    "trees refuse missing values unless missing='stop' (a row without the "
                    "tested value stops at that node)")


__all__ = ["KINDS", "CodedFeatures", "FeatureSpace", "check_missing",
           "read_features"]

"""The boundary of a classifier: X, y and sample weights checked once and read as columns.

X is a DataFrame (columns named by their text), a 2-D array (columns ``x0, x1, ...``),
a list of texts (a 1-D X: one document per row, the column ``word``) or a sparse
word-count matrix; :class:`Inputs` holds it in the form it came, and hands out the
columns a likelihood asks for — state codes, numbers or the matrix itself — without
copying X into another shape first.

>>> inputs = Inputs.of([[1, "a"], [2, "b"]])
>>> inputs.names, inputs.n_rows
(['x0', 'x1'], 2)
>>> feature_kinds({"x0": "gaussian"}, inputs)
{'x0': 'gaussian', 'x1': 'categorical'}
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bbn.core.data import (
    absent_cells,
    encode_column,
    encode_matrix,
    named_columns,
    numeric_column,
)
from bbn.core.errors import DataError, suggest

#: The kinds of feature, each read by its own likelihood.
KINDS = ("categorical", "bernoulli", "gaussian", "text", "multinomial")
#: The word node of ``multinomial`` count columns, and the column of a bare list of texts.
WORD = "word"


class Inputs:
    """X as named columns: a DataFrame, a numeric 2-D array, or a sparse word-count matrix.

    Build it with :meth:`Inputs.of`; ``one_d`` marks a 1-D X (one text per row)."""

    def __init__(self, names, frame=None, array=None, matrix=None, named=False,
                 one_d=False):
        self.names, self.frame, self.array, self.matrix, self.named = (names, frame, array,
                                                                       matrix, named)
        self.one_d = one_d  # a 1-D X: one text per row

    @classmethod
    def of(cls, X) -> Inputs:
        if isinstance(X, pd.DataFrame):
            frame = named_columns(X, "X")
            if any(dtype.kind == "c" for dtype in frame.dtypes):
                raise DataError("Complex data not supported: X has a column of complex numbers")
            return cls(list(frame.columns), frame=frame, named=True)
        if hasattr(X, "tocoo"):
            if getattr(X, "ndim", 2) != 2:
                raise DataError(f"a sparse X must be 2-D (documents × words), got shape "
                                f"{X.shape}")
            return cls(generated_names(X.shape[1]), matrix=X)
        if isinstance(X, pd.Series):
            return cls([WORD], frame=X.to_frame(WORD), one_d=True)
        array = X if isinstance(X, np.ndarray) else as_array(X)
        if array.dtype.kind == "c":
            raise DataError("Complex data not supported: X holds complex numbers")
        if array.ndim == 1:
            return cls([WORD], frame=pd.DataFrame({WORD: array}), one_d=True)
        if array.ndim != 2:
            raise DataError(f"X must be a 2-D table, a list of texts or a sparse matrix, got "
                            f"shape {array.shape}")
        names = generated_names(array.shape[1])
        if array.dtype.kind in "biuf":  # numbers: kept as one array for whole-matrix passes
            return cls(names, array=array)
        return cls(names, frame=pd.DataFrame(array, columns=names))

    @property
    def n_rows(self) -> int:
        for data in (self.matrix, self.array, self.frame):
            if data is not None:
                return data.shape[0]
        return 0

    def require_data(self) -> None:
        """Refuse X with no rows or no columns: there is nothing to learn from."""
        if self.n_rows == 0:
            raise DataError(f"X has 0 rows (shape=(0, {len(self.names)})): there is nothing to "
                            "learn from")
        if not self.names:
            raise DataError(f"X has 0 feature(s) (shape=({self.n_rows}, 0)) while a minimum of "
                            "1 is required.")

    def column(self, name: str) -> pd.Series:
        if self.array is not None:
            return pd.Series(self.array[:, self.names.index(name)], name=name)
        if self.frame is None:
            raise DataError(f"feature {name!r} is not a word count: a sparse matrix X only "
                            "holds multinomial features")
        return self.frame[name]

    def numbers(self, names: list[str]) -> np.ndarray:
        """The named columns as a float matrix (NaN where missing)."""
        if self.array is not None:
            return self.array[:, self.positions(names)].astype(float)
        return np.column_stack([numeric_column(self.column(n), n) for n in names])

    def positions(self, names: list[str]) -> list[int]:
        where = {n: j for j, n in enumerate(self.names)}
        return [where[n] for n in names]

    def codes(self, names: list[str], states: list, unknown: str) -> dict[str, np.ndarray]:
        """State codes of categorical columns (MISSING where missing or, if allowed, unknown)."""
        if self.array is not None and names:
            matrix = encode_matrix(self.array, names, states, unknown=unknown,
                                   positions=self.positions(names))
            return {n: matrix[:, j] for j, n in enumerate(names)}
        lookups: dict = {}  # columns with the same states share their lookup tables
        return {n: encode_column(self.column(n), s, unknown=unknown, name=n,
                                 row_names=self.column(n).index, lookups=lookups)
                for n, s in zip(names, states, strict=True)}

    def take(self, row: int) -> Inputs:
        if self.matrix is not None:
            return Inputs(self.names, matrix=self.matrix[[row]])
        if self.array is not None:
            return Inputs(self.names, array=self.array[[row]])
        return Inputs(self.names, frame=self.frame.iloc[[row]], named=self.named)

    def row_name(self, row: int):
        return self.frame.index[row] if self.frame is not None else row


def as_array(X) -> np.ndarray:
    """A list (or anything array-like) as an array: numbers as numbers, anything else as
    objects (numpy would turn [[1, "a"]] into the texts "1" and "a")."""
    try:
        array = np.asarray(X)
    except ValueError:  # ragged rows
        return np.asarray(X, dtype=object)
    return array if array.dtype.kind in "biufc" else np.asarray(X, dtype=object)


@functools.lru_cache(maxsize=8)
def generated_names(n_columns: int) -> list[str]:
    """``x0, x1, ...``: the names of unnamed columns (cached: a word-count matrix has
    thousands, named again at every predict). Callers must not modify the list."""
    return [f"x{j}" for j in range(n_columns)]


def check_sample_weight(sample_weight, n_rows: int,
                        allow_zero: bool = False) -> np.ndarray | None:
    """``sample_weight`` as a float array of ``n_rows`` finite, non-negative weights, not
    all zero unless ``allow_zero`` (one partition of many; None stays None: every row
    weighs 1).

    >>> check_sample_weight([1, 2, 0], 3).tolist()
    [1.0, 2.0, 0.0]
    """
    if sample_weight is None:
        return None
    given = np.asarray(sample_weight.to_numpy() if isinstance(sample_weight, pd.Series)
                       else sample_weight)
    if given.ndim != 1:
        raise DataError(f"sample_weight must be one number per row, got shape {given.shape}")
    if len(given) != n_rows:
        raise DataError(f"X has {n_rows} rows but sample_weight has {len(given)} weights")
    try:
        weights = given.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"sample_weight must be numbers, got {given.dtype} values such as "
                        f"{given[0]!r}") from None
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(f"sample_weight of row {row} is {weights[row]:g}: weights must be "
                        "finite and non-negative")
    if not weights.any() and not allow_zero:
        raise DataError("sample_weight is zero for every row: there is nothing to learn from")
    return weights


#: How the message for a value that is no state ends in a later batch of partial_fit.
PARTIAL_HINT = ("; partial_fit takes a feature's states from states= or its first batch: "
                "declare every state with states=")


def label_codes(labels: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Each label's index among ``classes`` (partial_fit's), or DataError naming the
    first label that is none of them.

    >>> label_codes(np.array(["b", "a"]), np.array(["a", "b"])).tolist()
    [1, 0]
    """
    codes = pd.Index(classes).get_indexer(labels)
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0])
        raise DataError(f"y has the label {labels[row:row + 1].tolist()[0]!r} in row {row}, "
                        f"which is not among the classes {classes.tolist()} of partial_fit's "
                        "first call")
    return codes


def feature_kinds(features, inputs: Inputs) -> dict[str, str]:
    """The kind of every input column."""
    names = inputs.names
    if inputs.one_d and features not in (None, "text"):
        raise DataError(one_d_message(f"only text features are one per row, not {features!r}"))
    if features is None:
        if inputs.one_d and pd.api.types.infer_dtype(inputs.frame[WORD], skipna=True) not in (
                "string", "empty"):
            raise DataError(one_d_message("but not texts (for a bag of words)"))
        if inputs.matrix is not None or inputs.one_d:
            kinds = dict.fromkeys(names, "multinomial" if inputs.matrix is not None else "text")
        else:
            kinds = {c: default_kind(inputs.column(c)) for c in names}
    elif isinstance(features, str):
        kinds = dict.fromkeys(names, features)
    elif isinstance(features, Mapping):
        features = {str(f): kind for f, kind in features.items()}  # column 0 is named "0"
        unknown = [f for f in features if f not in names]
        if unknown:
            raise DataError(f"features names column {unknown[0]!r}, which X does not have"
                            f"{suggest(str(unknown[0]), names)}")
        kinds = {c: features.get(c, "categorical") for c in names}
    else:
        features = list(features)
        if len(features) != len(names):
            raise DataError(f"features lists {len(features)} kinds for {len(names)} columns")
        kinds = dict(zip(names, features, strict=True))
    used = set(kinds.values())
    if not used <= set(KINDS):
        column, kind = next((c, k) for c, k in kinds.items() if k not in KINDS)
        raise DataError(f"column {column!r}: unknown feature kind {kind!r}; kinds are "
                        f"{', '.join(KINDS)}{suggest(str(kind), KINDS)}")
    if inputs.matrix is not None and used != {"multinomial"}:
        raise DataError(f"sparse input is not supported for {', '.join(sorted(used))} "
                        "features: a sparse matrix X holds word counts, so its features must "
                        "be multinomial")
    return kinds


#: A column of whole numbers with at most this many distinct values (codes, counts, a
#: scale of 1 to 5, pixel levels) is categorical by default; other numbers are Gaussian.
CATEGORIES_UP_TO = 20


def default_kind(column: pd.Series) -> str:
    """A column's kind when ``features`` does not say: ``"gaussian"`` for numbers (also
    written as texts, ``"5.1"``) unless they are whole numbers with at most
    ``CATEGORIES_UP_TO`` distinct values; ``"categorical"`` for anything else (texts,
    booleans, a column with no value).

    >>> default_kind(pd.Series([4.3, 5.1, 5.8])), default_kind(pd.Series([0, 1, 1]))
    ('gaussian', 'categorical')
    >>> default_kind(pd.Series(["5.1", "6.2", None])), default_kind(pd.Series(["a", 1.5]))
    ('gaussian', 'categorical')
    """
    if column.dtype.kind in "iuf":
        values = column.to_numpy(dtype=float)
    elif column.dtype.kind == "O" or isinstance(column.dtype, pd.StringDtype):
        if pd.api.types.infer_dtype(column, skipna=True) not in (
                "integer", "floating", "mixed-integer-float", "decimal", "string"):
            return "categorical"
        texts = column.astype(object)
        absent = absent_cells(texts)
        values = pd.to_numeric(texts.where(~absent, None), errors="coerce").to_numpy(float)
        if np.isnan(values[~absent]).any():  # some text is no number
            return "categorical"
    else:
        return "categorical"
    values = values[~np.isnan(values)]
    if not len(values) or not np.isfinite(values).all():
        return "categorical"
    if np.array_equal(values, np.floor(values)) and len(np.unique(values)) <= CATEGORIES_UP_TO:
        return "categorical"
    return "gaussian"


def one_d_message(why: str) -> str:
    return (f"X is 1-D, one value per row, {why}: Reshape your data with X.reshape(-1, 1) "
            "for one feature, or X.reshape(1, -1) for one row")


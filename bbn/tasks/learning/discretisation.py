"""Discretisation: numeric columns cut into intervals whose names are readable states.

A column x with cut points c_1 < … < c_{k−1} becomes k states, the intervals

    [min, c_1], (c_1, c_2], …, (c_{k−1}, max]

(right-closed, as ``pandas.cut``; ``min`` and ``max`` are the training data's). A value
below ``min`` goes to the first interval and one above ``max`` to the last, so the cuts
are reusable on any new data. The methods choose the cuts:

* ``"uniform"`` (equal width) — c_i = min + i·(max − min)/k;
* ``"quantile"`` (equal frequency) — c_i = the i/k quantile (``numpy.quantile``'s linear
  interpolation), ties merged (fewer intervals where values repeat);
* ``"kmeans"`` — 1-D k-means (Lloyd) from the centres of the equal-width intervals, to a
  fixed point; the cuts are the midpoints between consecutive centres (scikit-learn's
  ``KBinsDiscretizer(strategy="kmeans")``);
* ``"mdlp"`` — supervised (``target=``): Fayyad and Irani's (1993) recursive entropy
  cuts. At each step the cut T of the rows S minimising the class entropy
  E(T; S) = |S₁|/|S|·Ent(S₁) + |S₂|/|S|·Ent(S₂) is kept only when its gain passes the
  minimum description length test

      Ent(S) − E(T; S) > log₂(N − 1)/N + Δ/N,
      Δ = log₂(3^k − 2) − [k·Ent(S) − k₁·Ent(S₁) − k₂·Ent(S₂)]

  (k, k₁, k₂: the classes present in S, S₁, S₂); ``bins`` is ignored.

A column is numeric when every value that is not missing is a number (texts such as
``"5.1"`` from a CSV file count). By default every numeric column with more distinct
values than ``bins`` is cut; a column with fewer keeps its values as states.

>>> import pandas as pd
>>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "c": list("aabbcc")})
>>> d = discretize(frame, method="uniform", bins=2)
>>> d.cuts
{'x': [3.5]}
>>> d.transform(frame)["x"].tolist()
['[1, 3.5]', '[1, 3.5]', '[1, 3.5]', '(3.5, 6]', '(3.5, 6]', '(3.5, 6]']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bbn.core.data import is_missing, read_data, states_from_values
from bbn.core.errors import DataError, suggest

#: The methods that choose cut points.
METHODS = ("quantile", "uniform", "kmeans", "mdlp")
#: Intervals per column unless ``bins=`` says otherwise.
DEFAULT_BINS = 5
#: A numeric column with more distinct values than this that is read as categories
#: draws a warning (each value would be a state).
MANY_VALUES = 20



class ManyValuesWarning(UserWarning):
    """A numeric column with many distinct values read as categories, one state each."""


_INTERVAL = re.compile(r"^([\[(])\s*([^,\s]+)\s*,\s*([^,\s]+)\s*\]$")


class Discretiser:
    """Cut points per numeric column, fitted once and applied to any data.

    Build one with :func:`discretize`, or from a network's interval states with
    :meth:`from_states`.

    Parameters
    ----------
    method : str
        How the cuts were chosen.
    bins : int
        The intervals asked for per column.
    target : str or None
        The class column of a supervised method.
    cuts : mapping of str to sequence of float
        The interior cut points of every column to cut, increasing.
    bounds : mapping of str to (float, float)
        The training minimum and maximum of those columns.
    states : mapping of str to sequence of str, optional
        The states of the columns left uncut.

    Attributes
    ----------
    method : str
        How the cuts were chosen.
    bins : int
        The intervals asked for per column (MDLP chooses its own number).
    target : str or None
        The class column of a supervised method (never cut).
    cuts : dict of str to list of float
        The interior cut points of every discretised column, increasing.
    bounds : dict of str to (float, float)
        The training minimum and maximum of every discretised column (for the labels).
    states : dict of str to tuple of str
        The states of every column ``transform`` writes: the interval names of a cut
        column, in order; the sorted values of any other column.

    Examples
    --------
    >>> import pandas as pd
    >>> d = discretize(pd.DataFrame({"x": [0, 10, 20, 30]}), "uniform", bins=3)
    >>> d.states["x"]
    ('[0, 10]', '(10, 20]', '(20, 30]')
    >>> d.transform(pd.DataFrame({"x": [-5, 15, 99]}))["x"].tolist()
    ['[0, 10]', '(10, 20]', '(20, 30]']
    """

    def __init__(self, method: str, bins: int, target: str | None,
                 cuts: Mapping[str, Sequence[float]], bounds: Mapping[str, tuple[float, float]],
                 states: Mapping[str, Sequence[str]] | None = None) -> None:
        self.method, self.bins, self.target = method, bins, target
        self.cuts = {c: [float(v) for v in cut] for c, cut in cuts.items()}
        self.bounds = {c: (float(lo), float(hi)) for c, (lo, hi) in bounds.items()}
        self.states = {c: interval_names(self.cuts[c], *self.bounds[c]) for c in self.cuts}
        for column, values in (states or {}).items():
            self.states.setdefault(column, tuple(values))

    @classmethod
    def from_states(cls, states: Mapping[str, Sequence[str]]) -> Discretiser:
        """The discretiser whose intervals are the given states: every column whose states
        are all intervals as :func:`interval_names` writes them (``[a, b]``, ``(b, c]``...).

        Parameters
        ----------
        states : mapping
            ``{column: states}`` (a network's: ``{v: net.states(v) for v in net.variables}``).

        Returns
        -------
        Discretiser
            Cuts for the columns named by intervals; other columns are left alone.

        Examples
        --------
        >>> Discretiser.from_states({"x": ["(1.5, 4]", "[0, 1.5]"], "y": ["a"]}).cuts
        {'x': [1.5]}
        """
        cuts, bounds = {}, {}
        for column, names in states.items():
            ends = [_INTERVAL.match(str(s)) for s in names]
            if not names or not all(ends):
                continue
            try:
                pairs = sorted((float(m[2]), float(m[3])) for m in ends)
            except ValueError:
                continue
            left, right = [a for a, _ in pairs], [b for _, b in pairs]
            if all(a == b for a, b in zip(right[:-1], left[1:])) and right == sorted(right):
                cuts[column], bounds[column] = right[:-1], (left[0], right[-1])
        return cls("states", 0, None, cuts, bounds)

    def transform(self, data, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """``data`` with every cut column replaced by its intervals (an ordered
        categorical; missing stays missing) and every other column of ``states`` by a
        categorical over its states; the target and unknown columns as they are.

        Parameters
        ----------
        data : DataFrame, str or path, or numpy array
            Rows with (some of) the fitted columns, read as :func:`bbn.learn` reads data.
        columns : list of str, optional
            Column names for a plain 2-D array.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        DataError
            For a cut column with a value that is not a number, naming column and value.
        """
        frame, source = read_data(data, columns)
        out = {}
        for name in frame.columns:
            values = frame[name]
            if name in self.cuts:
                numbers = _numbers(values, name, source)
                codes = np.searchsorted(np.asarray(self.cuts[name]), numbers, side="left")
                codes[np.isnan(numbers)] = -1
                out[name] = pd.Categorical.from_codes(codes, self.states[name], ordered=True)
            elif name in self.states and name != self.target:
                out[name] = pd.Categorical(_texts(values), categories=self.states[name],
                                           ordered=True)
            else:
                out[name] = values.to_numpy()
        return pd.DataFrame(out, index=frame.index)

    def __repr__(self) -> str:
        shown = ", ".join(f"{c}: {len(v) + 1} intervals" for c, v in self.cuts.items())
        return f"Discretiser(method={self.method!r}, {shown or 'no numeric column'})"


def discretize(data, method: str = "quantile", bins: int = DEFAULT_BINS,
               target: str | None = None, columns: Sequence[str] | None = None,
               names: Sequence[str] | None = None) -> Discretiser:
    """Fit cut points for the numeric columns of ``data`` (see the module docstring).

    Parameters
    ----------
    data : DataFrame, str or path, or numpy array
        The training rows (a CSV path is read with every cell as text; numbers in text
        are numbers).
    method : {"quantile", "uniform", "kmeans", "mdlp"}, default "quantile"
        How the cuts are chosen; ``"mdlp"`` needs ``target``.
    bins : int, default 5
        Intervals per column (at most; ties and empty intervals make fewer).
    target : str, optional
        The class column: never cut; the supervision of ``"mdlp"``.
    columns : list of str, optional
        The columns to cut (default: every numeric column, other than the target, with
        more than ``bins`` distinct values).
    names : list of str, optional
        Column names for a plain 2-D array.

    Returns
    -------
    Discretiser
        ``.cuts`` per column, ``.states`` and ``.transform(frame)``.

    Raises
    ------
    DataError
        An unknown method or column, ``bins`` < 2, ``"mdlp"`` without a target, or a
        column to cut that holds a value that is not a number.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "y": list("aaaabbbb")})
    >>> discretize(frame, "mdlp", target="y").cuts
    {'x': [4.5]}
    """
    if method not in METHODS:
        raise DataError(f"unknown discretisation method {method!r}; the methods are "
                        f"{', '.join(METHODS)}{suggest(str(method), METHODS)}")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 2:
        raise DataError(f"bins must be a whole number of intervals, at least 2, got {bins!r}")
    frame, source = read_data(data, names)
    if target is not None and target not in frame.columns:
        raise DataError(f"{source}: no target column {target!r}"
                        f"{suggest(target, list(frame.columns))}")
    if method == "mdlp" and target is None:
        raise DataError("method 'mdlp' chooses its cuts by the classes of a target column: "
                        "give target=... (CLI: --target)")
    if columns is not None:
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise DataError(f"{source}: no column {unknown[0]!r} to discretise"
                            f"{suggest(str(unknown[0]), list(frame.columns))}")
    labels = None
    if method == "mdlp":  # class codes: each distinct value named once (1 and "1" are one)
        codes, uniques = pd.factorize(frame[target], use_na_sentinel=True)
        names = pd.factorize(np.array([str(u) for u in uniques] + [""], dtype=object))[0]
        labels = np.where(codes >= 0, names[codes], -1)
    cuts, bounds, states = {}, {}, {}
    for name in frame.columns:
        if name == target:
            continue
        numbers = _numbers(frame[name], name, source, quiet=columns is None)
        chosen = name in columns if columns is not None else (
            numbers is not None and len(pd.unique(numbers[~np.isnan(numbers)])) > bins)
        if not chosen:
            states[name] = states_from_values(frame[name])
            continue
        present = ~np.isnan(numbers)
        if not present.any():
            raise DataError(f"{source}: column {name!r} has no value in any row")
        x = numbers[present]
        if method == "mdlp":
            y = labels[present]
            keep = y >= 0
            cut = mdlp_cuts(x[keep], y[keep])
        else:
            cut = CUTTERS[method](x, bins)
        cuts[name], bounds[name] = cut, (float(x.min()), float(x.max()))
    return Discretiser(method, int(bins), target, cuts, bounds, states)


def parse_option(text) -> tuple[str, int]:
    """``"METHOD[:BINS]"`` (the CLI's ``--discretize``) as (method, bins).

    >>> parse_option("kmeans:4"), parse_option("mdlp")
    (('kmeans', 4), ('mdlp', 5))
    """
    method, _, bins = str(text).partition(":")
    if method not in METHODS:
        raise DataError(f"unknown discretisation method {method!r}; the methods are "
                        f"{', '.join(METHODS)}{suggest(method, METHODS)}")
    if not bins:
        return method, DEFAULT_BINS
    try:
        return method, int(bins)
    except ValueError:
        raise DataError(f"discretisation {text!r}: BINS must be a whole number, as in "
                        f"{method}:4") from None


def discretiser_for(option, data, target: str | None = None, states=None) -> Discretiser:
    """The discretiser an option names: a fitted :class:`Discretiser` as it is; ``True``:
    the intervals that are the states of ``states`` (a network); or a method
    (``"quantile"``, ``"kmeans:4"``, ``("uniform", 3)``) fitted on ``data``."""
    if isinstance(option, Discretiser):
        return option
    if option is True:
        if states is None:
            raise DataError("discretize=True cuts at a network's interval states; give a "
                            "method (discretize='quantile') where there is no network")
        return Discretiser.from_states({v: states.states(v) for v in states.variables})
    method, bins = (option[0], int(option[1])) if isinstance(option, tuple) \
        else parse_option(option)
    return discretize(data, method, bins, target=target)


def uniform_cuts(x: np.ndarray, bins: int) -> list[float]:
    """Equal-width cuts, c_i = min + i·(max − min)/bins (none for a constant column).

    >>> uniform_cuts(np.array([0.0, 4.0]), 4)
    [1.0, 2.0, 3.0]
    """
    low, high = float(x.min()), float(x.max())
    if low == high:
        return []
    return np.linspace(low, high, bins + 1)[1:-1].tolist()


def quantile_cuts(x: np.ndarray, bins: int) -> list[float]:
    """Equal-frequency cuts, the i/bins quantiles (linear interpolation), repeated ones
    and those at the minimum or maximum dropped.

    >>> quantile_cuts(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 2)
    [3.0]
    """
    cut = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)[1:-1]))
    return cut[(cut > x.min()) & (cut < x.max())].tolist()


def kmeans_cuts(x: np.ndarray, bins: int, max_iter: int = 300) -> list[float]:
    """1-D k-means cuts: Lloyd's iterations from the centres of the equal-width
    intervals until no value changes cluster (an empty cluster takes the value farthest
    from its centre, as scikit-learn's); the midpoints of consecutive centres.

    Assigning a sorted column to the nearest of sorted centres is a ``searchsorted`` on
    the midpoints, and each centre the mean of its run of values (cumulative sums).

    >>> [round(c, 9) for c in kmeans_cuts(np.array([0, 0.1, 0.2, 5, 5.1, 9.9, 10]), 3)]
    [2.575, 7.5]
    """
    x = np.sort(x)
    edges = np.linspace(x[0], x[-1], bins + 1)
    centres = (edges[1:] + edges[:-1]) / 2
    total = np.concatenate([[0.0], np.cumsum(x)])
    starts = None
    for _ in range(max_iter):
        middles = (centres[1:] + centres[:-1]) / 2
        new = np.concatenate([[0], np.searchsorted(x, middles, side="right"), [len(x)]])
        if starts is not None and np.array_equal(new, starts):
            break
        starts = new
        sizes = np.diff(starts).astype(float)
        sums = total[starts[1:]] - total[starts[:-1]]
        empty = np.flatnonzero(sizes == 0)
        if len(empty):  # as scikit-learn: an empty cluster takes the farthest values
            labels = np.repeat(np.arange(bins), np.diff(starts))
            far = np.argsort(-np.abs(x - centres[labels]), kind="stable")[:len(empty)]
            for cluster, i in zip(empty, far, strict=True):
                sums[labels[i]] -= x[i]
                sizes[labels[i]] -= 1
                sums[cluster], sizes[cluster] = x[i], 1
        centres = np.sort(np.where(sizes > 0, sums / np.maximum(sizes, 1), centres))
    cut = np.unique((centres[1:] + centres[:-1]) / 2)
    return cut[(cut > x[0]) & (cut < x[-1])].tolist()


def mdlp_cuts(x: np.ndarray, y: np.ndarray) -> list[float]:
    """Fayyad–Irani cuts of ``x`` by the class codes ``y`` (0, 1, ...), with the MDL
    stopping rule (module docstring); candidate cuts are the midpoints between
    consecutive distinct values, all scored at once from cumulative class counts.

    >>> mdlp_cuts(np.array([1.0, 2, 3, 4, 5, 6, 7, 8]), np.array([0, 0, 0, 0, 1, 1, 1, 1]))
    [4.5]
    """
    order = np.argsort(x, kind="stable")
    x, y = x[order], np.asarray(y)[order]
    n_classes = int(y.max()) + 1 if len(y) else 0
    onehot = np.zeros((len(y), n_classes))
    onehot[np.arange(len(y)), y] = 1
    counts = np.vstack([np.zeros(n_classes), np.cumsum(onehot, axis=0)])  # rows [0, i)
    cuts: list[float] = []
    pending = [(0, len(x))]
    while pending:
        start, stop = pending.pop()
        split = _best_split(x, counts, start, stop)
        if split is not None:
            cuts.append(float((x[split - 1] + x[split]) / 2))
            pending += [(start, split), (split, stop)]
    return sorted(cuts)


def _entropy(counts: np.ndarray) -> np.ndarray:
    """Ent in bits of each row of class counts (0 log 0 = 0)."""
    totals = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=-1)


def _best_split(x, counts, start: int, stop: int) -> int | None:
    """The position of the accepted cut of rows [start, stop), or None."""
    n = stop - start
    if n < 2:
        return None
    positions = start + 1 + np.flatnonzero(x[start + 1:stop] != x[start:stop - 1])
    if not len(positions):
        return None
    whole = counts[stop] - counts[start]
    left = counts[positions] - counts[start]
    right = whole - left
    n_left = positions - start
    entropy = (n_left * _entropy(left) + (n - n_left) * _entropy(right)) / n
    best = int(np.argmin(entropy))
    e_all, e_left, e_right = _entropy(whole), _entropy(left[best]), _entropy(right[best])
    k, k1, k2 = (int((c > 0).sum()) for c in (whole, left[best], right[best]))
    delta = np.log2(3.0 ** k - 2) - (k * e_all - k1 * e_left - k2 * e_right)
    gain = e_all - entropy[best]
    if gain > (np.log2(n - 1) + delta) / n:
        return int(positions[best])
    return None


#: The unsupervised methods: (numbers, bins) → cuts.
CUTTERS = {"uniform": uniform_cuts, "quantile": quantile_cuts, "kmeans": kmeans_cuts}


def interval_names(cuts: Sequence[float], low: float, high: float) -> tuple[str, ...]:
    """The states of the intervals: ``[low, c1]``, ``(c1, c2]``, …, ``(ck, high]``, each
    number written with the fewest significant digits, from 4, that keep distinct ends
    distinct.

    >>> interval_names([5.1, 5.8], 4.3, 7.9)
    ('[4.3, 5.1]', '(5.1, 5.8]', '(5.8, 7.9]')
    >>> interval_names([], 2.0, 2.0)
    ('[2, 2]',)
    """
    ends = [low, *cuts, high]
    for digits in range(4, 18):
        texts = [f"{v:.{digits}g}" for v in ends]
        if len(set(texts)) == len(set(ends)):
            break
    if not cuts:
        return (f"[{texts[0]}, {texts[-1]}]",)
    return tuple([f"[{texts[0]}, {texts[1]}]"]
                 + [f"({a}, {b}]" for a, b in zip(texts[1:-2], texts[2:-1], strict=True)]
                 + [f"({texts[-2]}, {texts[-1]}]"])


def numeric_categories(states: Mapping[str, Sequence[str]]) -> list[str]:
    """The columns whose inferred states are more than ``MANY_VALUES`` numbers: each
    would be a category (the caller warns, naming them).

    >>> numeric_categories({"age": [str(a) for a in range(18, 60)], "c": ["a", "b"]})
    ['age']
    """
    many = []
    for name, names in states.items():
        if len(names) > MANY_VALUES:
            try:
                [float(s) for s in names[:MANY_VALUES + 1]]
            except ValueError:
                continue
            many.append(name)
    return many


def many_values_message(columns: Sequence[str], source: str = "data") -> str:
    """The warning for numeric columns read as categories (see :func:`numeric_categories`).

    >>> many_values_message(["age"])
    "data: numeric column 'age' has more than 20 distinct values, each read as a state; ..."
    """
    named = ", ".join(repr(c) for c in columns[:5]) + (", ..." if len(columns) > 5 else "")
    return (f"{source}: numeric column{'s' if len(columns) > 1 else ''} {named} "
            f"{'have' if len(columns) > 1 else 'has'} more than {MANY_VALUES} distinct "
            "values, each read as a state; cut them into intervals first: "
            "discretize='quantile' or bbn.discretize(frame)")


def _texts(values: pd.Series) -> list:
    return [None if is_missing(v) else (str(int(v)) if isinstance(v, (float, np.floating))
                                        and float(v).is_integer() else str(v))
            for v in values.to_numpy(dtype=object)]


def _numbers(values: pd.Series, name: str, source: str, quiet: bool = False):
    """The column as floats (NaN where missing), or None (``quiet``) / DataError when a
    value is not a number."""
    if values.dtype.kind in "iuf":
        return values.to_numpy(dtype=float)
    if values.dtype.kind == "b":
        if quiet:
            return None
        raise DataError(f"{source}: column {name!r} holds booleans, not numbers to cut")
    text = values.astype(object)
    blank = text.isna() | (text.str.strip() == "") if pd.api.types.infer_dtype(
        text, skipna=True) == "string" else text.isna()
    numbers = pd.to_numeric(text.where(~blank, None), errors="coerce")
    bad = numbers.isna() & ~blank
    if bad.any():
        if quiet:
            return None
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{source}: column {name!r}, row {row}: value "
                        f"{str(text.iloc[row])!r} is not a number to cut into intervals")
    return numbers.to_numpy(dtype=float)


__all__ = ["CUTTERS", "DEFAULT_BINS", "METHODS", "Discretiser", "ManyValuesWarning", "discretize",
           "discretiser_for", "interval_names", "kmeans_cuts", "many_values_message",
           "mdlp_cuts", "numeric_categories", "parse_option", "quantile_cuts",
           "uniform_cuts"]

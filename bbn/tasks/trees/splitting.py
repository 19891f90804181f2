"""The best test of a node, from one histogram of (column value, class) counts.

Every cell of X is one integer *key* per column (:class:`KeyedColumns`): a categorical
column's state, a continuous column's rank among its distinct training values. At a node,
one ``np.bincount`` over the keys of its rows gives n(value, class) for every column at
once; every candidate split is then read off that histogram, vectorised:

* multi-way (ID3): column j's branches are its values present at the node, counts
  n(v, c);
* threshold x ≤ v (continuous): cumulative class counts over the sorted distinct values
  of the column at the node give the left branch of every cut, L(v, c) = Σ_{u ≤ v} n(u, c),
  and the right one T(c) − L(v, c); the threshold is the midpoint between the value and
  the next present one (scikit-learn's choice). No Python loop over cuts;
* binary grouping of a categorical column's values: with two classes, sorting the values
  by P(class 1 | v) and cutting that order is optimal (Breiman et al., 1984) — the same
  cumulative scan; with more classes, every grouping of up to ``EXHAUSTIVE_VALUES``
  values as one matrix product, and beyond that the order of P(majority class | v).

The best candidate has the highest score; ties go to the leftmost column, then the lowest
threshold (the first cut) — the order scikit-learn's trees use when they scan the
columns in order. With ``missing="stop"`` a column's gain is computed on the rows that
have a value and multiplied by their fraction (C4.5's rule).

>>> keyed = KeyedColumns.build(np.array([[0], [0], [1], [1]], dtype=np.int32),
...                            np.zeros((4, 0)), ("categorical",))
>>> test = best_test(keyed, np.arange(4), np.array([0, 0, 1, 1]), 2, Settings())
>>> test.column, test.branches, round(test.gain, 3)
(0, (0, 1), 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bbn.core.memory import check_allocation
from bbn.tasks.trees.criteria import cut_gains, split_gains
from bbn.tasks.trees.nodes import Test

#: Split kinds for categorical columns: one branch per value, or two groups of values.
SPLITS = ("multiway", "binary")
#: Most values of a categorical column whose groupings are all tried (2^(v−1) − 1 of them)
#: when there are more than two classes: 10 values are 511 groupings.
EXHAUSTIVE_VALUES = 10


@dataclass(frozen=True)
class Settings:
    """How a node's test is chosen."""

    criterion: str = "entropy"
    split: str = "multiway"
    weigh_known: bool = False  # missing="stop": gains × the fraction of rows with a value


@dataclass(frozen=True)
class KeyedColumns:
    """Every cell of X as a key: the keys of column j are ``start[j]`` to
    ``start[j + 1] − 1``; ``n_keys`` marks a missing cell.

    Attributes
    ----------
    keys : numpy.ndarray, shape (rows, columns)
    start : numpy.ndarray, shape (columns + 1,)
    column_of_key, value_of_key : numpy.ndarray, shape (n_keys,)
        The column of every key and its value: a state code, or a distinct number.
    continuous : numpy.ndarray of bool, shape (columns,)
    position : tuple of int
        Every column's index among the columns of its kind.
    """

    keys: np.ndarray
    start: np.ndarray
    column_of_key: np.ndarray
    value_of_key: np.ndarray
    continuous: np.ndarray
    position: tuple[int, ...]

    @property
    def n_keys(self) -> int:
        return int(self.start[-1])

    @classmethod
    def build(cls, codes: np.ndarray, numbers: np.ndarray, kinds) -> KeyedColumns:
        """The keys of coded training rows (codes: state codes, −1 missing; numbers: NaN
        missing), the columns in ``kinds`` order."""
        n_rows = max(len(codes), len(numbers))
        check_allocation(n_rows * len(kinds), "the keys of a decision tree's rows",
                         entry_bytes=8)
        values, position = [], []
        matrix = np.empty((n_rows, len(kinds)), dtype=np.int64)  # per column: 0..k−1, −1
        seen = {"categorical": 0, "continuous": 0}
        for kind in kinds:
            position.append(seen[kind])
            seen[kind] += 1
        categorical = [j for j, kind in enumerate(kinds) if kind == "categorical"]
        matrix[:, categorical] = codes  # one block copy, not a column at a time
        top = codes.max(axis=0) if codes.size else np.zeros(codes.shape[1], dtype=int)
        continuous = [j for j, kind in enumerate(kinds) if kind == "continuous"]
        distinct = _ranks(numbers, matrix, continuous)  # all continuous columns at once
        for j, kind in enumerate(kinds):
            values.append(np.arange(int(top[position[j]]) + 1, dtype=float)
                          if kind == "categorical" else distinct[position[j]])
        sizes = np.array([len(v) for v in values], dtype=np.int64)
        start = np.concatenate([[0], np.cumsum(sizes)])
        keys = np.where(matrix >= 0, matrix + start[:-1], start[-1])
        return cls(keys, start, np.repeat(np.arange(len(kinds)), sizes),
                   np.concatenate(values) if values else np.zeros(0),
                   np.array([k == "continuous" for k in kinds]), tuple(position))


def _ranks(numbers: np.ndarray, matrix: np.ndarray, columns: list[int]) -> list[np.ndarray]:
    """Write every continuous value's rank among its column's distinct values into
    ``matrix[:, columns]`` (−1: missing), one sort for all columns; the distinct values
    of every column, sorted."""
    if not columns:
        return []
    by_column = np.ascontiguousarray(numbers.T)  # a column per row: contiguous sorts
    order = np.argsort(by_column, axis=1, kind="stable")  # NaN last
    ordered = np.take_along_axis(by_column, order, axis=1)
    known = ~np.isnan(ordered)
    new = known.copy()
    new[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    rank = np.where(known, np.cumsum(new, axis=1) - 1, -1)
    ranks = np.empty_like(rank)
    np.put_along_axis(ranks, order, rank, axis=1)
    matrix[:, columns] = ranks.T
    return [ordered[i, new[i]] for i in range(len(by_column))]


def histogram(keyed: KeyedColumns, rows: np.ndarray, y_rows: np.ndarray,
              n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The keys present among ``rows`` (sorted) and their class counts n(key, c).

    One ``bincount`` over all keys when they are few for the node's cells, else a sort
    of the node's (key, class) pairs: a small node of a column with many distinct values
    never costs the size of the whole key range.
    """
    keys = keyed.keys[rows]
    pairs = keys * n_classes + y_rows[:, None]
    n_all = (keyed.n_keys + 1) * n_classes
    if n_all <= 4 * pairs.size:
        counts = np.bincount(pairs.ravel(), minlength=n_all).reshape(-1, n_classes)
        counts = counts[:keyed.n_keys]
        present = np.flatnonzero(counts.any(axis=1))
        return present, counts[present]
    pair, number = np.unique(pairs, return_counts=True)
    key = pair // n_classes
    starts = np.empty(len(key), dtype=bool)
    starts[:1] = True
    np.not_equal(key[1:], key[:-1], out=starts[1:])
    present = key[starts]
    counts = np.zeros((len(present), n_classes), dtype=np.int64)
    counts[np.cumsum(starts) - 1, pair % n_classes] = number
    keep = present < keyed.n_keys
    return present[keep], counts[keep]


def best_test(keyed: KeyedColumns, rows: np.ndarray, y_rows: np.ndarray, n_classes: int,
              settings: Settings) -> Test | None:
    """The best test of the node of ``rows``, node by node (grouped splits, and key
    ranges too wide for :func:`best_tests`).

    Parameters
    ----------
    keyed : KeyedColumns
        The keys of all training rows.
    rows : numpy.ndarray
        The node's rows.
    y_rows : numpy.ndarray
        Their class codes.
    n_classes : int
    settings : Settings

    Returns
    -------
    Test or None
        None: no column splits the rows in two.
    """
    present, counts = histogram(keyed, rows, y_rows, n_classes)
    column = keyed.column_of_key[present]
    m = len(column)
    starts = np.empty(m, dtype=bool)  # where a column's run of present keys starts
    starts[:1] = True
    np.not_equal(column[1:], column[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    run_of = np.cumsum(starts) - 1
    cumulative = np.zeros((m + 1, n_classes), dtype=counts.dtype)
    np.cumsum(counts, axis=0, out=cumulative[1:])
    base = cumulative[first]
    totals = cumulative[np.append(first[1:], m)] - base  # class counts per column
    share = None
    if settings.weigh_known:  # C4.5: a column's gain × the fraction of rows with a value
        share = np.zeros(len(keyed.continuous))
        share[column[first]] = totals.sum(axis=1) / len(rows)
    options: list[tuple[float, int, Test]] = []
    # Cuts between consecutive present values of one continuous column.
    cut = np.flatnonzero(~starts[1:] & keyed.continuous[column[:-1]])
    if len(cut):
        branches = np.empty((len(cut), 2, n_classes), dtype=counts.dtype)
        run = run_of[cut]
        np.subtract(cumulative[cut + 1], base[run], out=branches[:, 0])
        np.subtract(totals[run], branches[:, 0], out=branches[:, 1])
        gains, scores = _scored(branches, column[cut], settings, share)
        i = int(np.argmax(scores))  # the first best: lowest column, then threshold
        low, high = keyed.value_of_key[present[cut[i]:cut[i] + 2]]
        options.append((scores[i], int(column[cut[i]]),
                        Test(int(column[cut[i]]), threshold=_midpoint(low, high),
                             gain=float(gains[i]), score=float(scores[i]))))
    sizes = np.diff(np.append(first, m))
    splittable = np.flatnonzero(~keyed.continuous[column[first]] & (sizes >= 2))
    if len(splittable):
        states = keyed.value_of_key[present].astype(np.int64)
        n_states = np.diff(keyed.start)
        if settings.split == "multiway":
            options.append(_multiway(counts, first, sizes, splittable, column, states,
                                     n_states, settings, share))
        else:
            options.extend(_grouping(counts[first[r]:first[r] + sizes[r]], int(column[first[r]]),
                                     states[first[r]:first[r] + sizes[r]], n_states, settings,
                                     share) for r in splittable)
    if not options:
        return None
    return min(options, key=lambda o: (-o[0], o[1]))[2]  # ties: the leftmost column


def best_tests(keyed: KeyedColumns, node_rows: list[np.ndarray], y: np.ndarray,
               n_classes: int, settings: Settings) -> list[Test | None]:
    """The best test of many nodes at once (one tree level): one ``bincount`` of
    (node, key, class) over all their rows, every candidate of every node scored in one
    pass. Gives the same tests as :func:`best_test` node by node; for multi-way or
    threshold splits only (grouped splits of categorical columns go node by node).

    Parameters
    ----------
    keyed : KeyedColumns
    node_rows : list of numpy.ndarray
        The rows of every node.
    y : numpy.ndarray
        The class codes of all training rows.
    n_classes : int
    settings : Settings

    Returns
    -------
    list of Test or None
        One per node (None: no column splits its rows in two).
    """
    n_nodes, n_keys, n_columns = len(node_rows), keyed.n_keys, len(keyed.continuous)
    sizes = np.array([len(r) for r in node_rows])
    rows = np.concatenate(node_rows)
    node_of_row = np.repeat(np.arange(n_nodes), sizes)
    pairs = node_of_row[:, None] * (n_keys + 1) + keyed.keys[rows]  # (node, key) of a cell
    occupied = np.bincount(pairs.ravel(), minlength=n_nodes * (n_keys + 1))
    cells = pairs * n_classes
    cells += y[rows][:, None]
    hist = np.bincount(cells.ravel(), minlength=n_nodes * (n_keys + 1) * n_classes)
    hist = hist.reshape(n_nodes, n_keys + 1, n_classes)
    # The (node, key) pairs present, node by node and key by key, and their class counts
    # (missing cells, key n_keys, left out): from here on the work is proportional to what
    # the nodes hold, not to nodes × keys.
    node, key = np.nonzero(occupied.reshape(n_nodes, n_keys + 1)[:, :n_keys])
    counts = hist[node, key]
    column = keyed.column_of_key[key]
    group = node * n_columns + column
    starts = np.empty(len(group), dtype=bool)  # where a (node, column) run starts
    starts[:1] = True
    np.not_equal(group[1:], group[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    run_of = np.cumsum(starts) - 1
    run_sizes = np.diff(np.append(first, len(group)))
    cumulative = np.zeros((len(group) + 1, n_classes), dtype=counts.dtype)
    np.cumsum(counts, axis=0, out=cumulative[1:])
    base = cumulative[first]
    totals = cumulative[first + run_sizes] - base
    share = totals.sum(axis=1) / sizes[node[first]] if settings.weigh_known else None
    candidate_runs, candidate_keys, candidate_scores, candidate_gains = [], [], [], []
    between = ~starts[1:] & keyed.continuous[column[:-1]]
    if settings.criterion != "gain_ratio":
        # Fayyad & Irani (1992): the best cut for entropy (and any concave impurity, Gini
        # too) lies on a boundary — never between two values whose rows are all of one
        # and the same class. Such cuts, most of them in deep nodes, are not scored.
        pair_sizes = occupied.reshape(n_nodes, n_keys + 1)[node, key]
        two = counts[:-1] + counts[1:]  # two neighbours all of one class: max = their rows
        between &= two.max(axis=1) != pair_sizes[:-1] + pair_sizes[1:]
    cut = np.flatnonzero(between)
    if len(cut):  # thresholds between consecutive present values of a continuous column
        run = run_of[cut]
        left = cumulative[cut + 1] - base[run]
        found_gains, found_scores = cut_gains(left, totals, run, settings.criterion)
        candidate_runs.append(run)
        candidate_keys.append(cut)
        candidate_scores.append(found_scores)
        candidate_gains.append(found_gains)
    multiway = np.flatnonzero(~keyed.continuous[column[first]] & (run_sizes >= 2))
    if len(multiway):  # one branch per present value of a categorical column
        width = int(run_sizes[multiway].max())
        padded = np.zeros((len(multiway), width, n_classes), dtype=counts.dtype)
        slot = np.full(len(first), -1)
        slot[multiway] = np.arange(len(multiway))
        pairs = np.flatnonzero(slot[run_of] >= 0)
        padded[slot[run_of[pairs]], pairs - first[run_of[pairs]]] = counts[pairs]
        found_gains, found_scores = split_gains(padded, settings.criterion)
        candidate_runs.append(multiway)
        candidate_keys.append(first[multiway])
        candidate_scores.append(found_scores)
        candidate_gains.append(found_gains)
    tests: list[Test | None] = [None] * n_nodes
    if not candidate_runs:
        return tests
    runs = np.concatenate(candidate_runs)
    at = np.concatenate(candidate_keys)  # the pair where the candidate is read
    scores = np.concatenate(candidate_scores)
    gains = np.concatenate(candidate_gains)
    if share is not None:
        scores, gains = scores * share[runs], gains * share[runs]
    owner = node[at]
    chosen = _first_best(owner, at, scores, ordered=len(candidate_runs) == 1)
    for c in chosen.tolist():
        i, j, pair = int(owner[c]), int(column[at[c]]), int(at[c])
        if keyed.continuous[j]:
            low, high = keyed.value_of_key[key[pair:pair + 2]]
            tests[i] = Test(j, threshold=_midpoint(low, high), gain=float(gains[c]),
                            score=float(scores[c]))
        else:
            run = run_of[pair]
            states = key[first[run]:first[run] + run_sizes[run]] - keyed.start[j]
            branches_of = np.full(int(keyed.start[j + 1] - keyed.start[j]), -1, dtype=np.int64)
            branches_of[states] = np.arange(len(states))
            tests[i] = Test(j, branches=tuple(branches_of.tolist()), gain=float(gains[c]),
                            score=float(scores[c]))
    return tests


def _first_best(owner: np.ndarray, at: np.ndarray, scores: np.ndarray,
                ordered: bool) -> np.ndarray:
    """The candidate chosen for every node that has one: its highest score, then its
    lowest key (``at``). ``ordered``: the candidates are already by node, then key."""
    if not ordered:
        order = np.lexsort((at, -scores, owner))
        return order[np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    top = np.maximum.reduceat(scores, starts)
    index = np.arange(len(scores))
    ends = np.append(starts[1:], len(scores))
    segment = np.repeat(np.arange(len(starts)), ends - starts)
    return np.minimum.reduceat(np.where(scores == top[segment], index, len(scores)), starts)


def _scored(branches: np.ndarray, columns: np.ndarray, settings: Settings,
            share: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(Δ, score) of candidate splits, each weighed by its column's known share."""
    gains, scores = split_gains(branches, settings.criterion)
    if share is not None:
        gains, scores = gains * share[columns], scores * share[columns]
    return gains, scores


def _midpoint(low: float, high: float) -> float:
    """(low + high) / 2, or low where rounding puts the midpoint on high (so that
    x ≤ threshold still separates the two values), as scikit-learn."""
    middle = low / 2.0 + high / 2.0
    return float(low if middle == high or np.isinf(middle) else middle)


def _multiway(counts, first, sizes, splittable, column, states, n_states, settings,
              share) -> tuple[float, int, Test]:
    """The best multi-way split (one branch per present value) of the splittable
    categorical columns, scored all at once."""
    width = int(sizes[splittable].max())
    padded = np.zeros((len(splittable), width, counts.shape[1]), dtype=counts.dtype)
    for i, r in enumerate(splittable):  # one slice per column (tens), not per row or cut
        padded[i, :sizes[r]] = counts[first[r]:first[r] + sizes[r]]
    columns = column[first[splittable]]
    gains, scores = _scored(padded, columns, settings, share)
    i = int(np.argmax(scores))
    r = splittable[i]
    branches = np.full(int(n_states[columns[i]]), -1, dtype=np.int64)
    branches[states[first[r]:first[r] + sizes[r]]] = np.arange(sizes[r])
    return scores[i], int(columns[i]), Test(int(columns[i]), branches=tuple(branches.tolist()),
                                             gain=float(gains[i]), score=float(scores[i]))


def _grouping(counts: np.ndarray, column: int, states: np.ndarray, n_states: np.ndarray,
              settings: Settings, share: np.ndarray | None) -> tuple[float, int, Test]:
    """The best split of one categorical column's present values into two groups."""
    n_values, n_classes = counts.shape
    total = counts.sum(axis=0)
    if n_classes > 2 and n_values <= EXHAUSTIVE_VALUES:
        groupings = np.arange(1, 1 << (n_values - 1))  # the last value always on the right
        left_of = ((groupings[:, None] >> np.arange(n_values)) & 1).astype(bool)
    else:  # sorted by P(class | value) of the node's majority class, cut in order
        share_of = counts[:, int(np.argmax(total))] / counts.sum(axis=1)
        order = np.argsort(share_of, kind="stable")
        below, at = np.tril_indices(n_values - 1)
        left_of = np.zeros((n_values - 1, n_values), dtype=bool)
        left_of[below, order[at]] = True
    left = left_of.astype(counts.dtype) @ counts
    gains, scores = _scored(np.stack([left, total - left], axis=1),
                            np.full(len(left), column), settings, share)
    i = int(np.argmax(scores))
    branches = np.full(int(n_states[column]), -1, dtype=np.int64)
    branches[states] = np.where(left_of[i], 0, 1)
    return scores[i], column, Test(column, branches=tuple(branches.tolist()),
                                   gain=float(gains[i]), score=float(scores[i]))


__all__ = ["EXHAUSTIVE_VALUES", "SPLITS", "KeyedColumns", "Settings",
           "best_test", "best_tests", "histogram"]

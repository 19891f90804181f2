"""Tree-augmented naive Bayes: the discrete features also form a tree given the class.

    P(c | x) ∝ P(c) · Π_i P(x_i | c, x_pa(i))

The tree is the maximum spanning tree of the conditional mutual information
I(Xi; Xj | C) (each pair counted on the rows that have both values, with the sample
weights), rooted at the first feature (:mod:`bbn.tasks.structure.chow_liu_trees`); each table
P(x_i | c, x_pa(i)) is estimated by the classifier's estimator from the pair counts.

Scoring rows is message passing from the leaves of the tree up, vectorised over rows
(:func:`tree_log_likelihood`): a gather of one table entry per row where the feature has
a value, a log-sum-exp over its states where it is missing — the exact answer the
network's engine gives (``network_.posterior(class, rows)``, equal to 1e-12, tested).
It stays here rather than going through the engine because it is faster: on the digits
split (64 features × 17 states, 450 rows) it takes 17 ms against the engine's 16 ms
with every value present, but 53 ms against 178 ms with 5 % of the values missing (the
engine eliminates once per pattern of observed columns); and it gives log P(x | c)
itself, which the other likelihoods' terms are added to.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bbn.model.network import Network
from bbn.tasks.classification.categorical import CategoricalLikelihood
from bbn.tasks.classification.inputs import Inputs
from bbn.tasks.classification.likelihood import (
    Likelihood,
    log_sum_exp,
    seen_weights,
    zero_classes,
)
from bbn.tasks.classification.naive_counts import TableCounts
from bbn.tasks.learning.counting import family_counts
from bbn.tasks.structure.chow_liu_trees import conditional_mutual_information, spanning_tree

#: Rows per block of messages: (rows, classes, states) per feature in flight.
TREE_BLOCK = 1 << 10


class TreeAugmentedLikelihood(Likelihood):
    """The categorical and Bernoulli features of a TAN model, a tree given the class.

        log P(x | c) = log Σ_{x_missing} Π_i P(x_i | c, x_pa(i))

    Parameters
    ----------
    parts : list of CategoricalLikelihood
        The discrete likelihoods (categorical, Bernoulli) whose columns form the tree;
        each codes its own columns.
    columns : list of str
        Their columns in column order (the first is the root).

    Attributes
    ----------
    tree_ : dict
        The tree parent of every column (None for the root), parents before children.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> from bbn.tasks.classification.inputs import Inputs
    >>> X = pd.DataFrame({"a": list("xxyyxy"), "b": list("ppqqpq")})
    >>> model = bbn.NaiveBayes(structure="tan").fit(X, list("cccddd"))
    >>> part = model.likelihoods_[0]
    >>> part.tree_
    {'a': None, 'b': 'a'}
    >>> row = Inputs.of(pd.DataFrame({"a": [None], "b": ["p"]}))
    >>> np.exp(part.log_likelihood(model.network_, row, "error")).round(4)
    array([[0.5833, 0.4167]])
    """

    kind = "tan"

    def __init__(self, parts: list[CategoricalLikelihood], columns: list[str]):
        self.parts = parts
        self.columns = columns
        self._owner = {c: part for part in parts for c in part.columns}
        self.tree_: dict[str, str | None] = {}

    @property
    def states_(self) -> dict:
        """``{column: states}`` of every column, in column order."""
        return {c: self._owner[c].states_[c] for c in self.columns}

    def codes(self, inputs: Inputs, unknown: str, hint: str = "") -> dict[str, np.ndarray]:
        codes = {}
        for part in self.parts:
            codes.update(part.codes(inputs, unknown, hint))
        return codes

    def count(self, inputs: Inputs, y_codes: np.ndarray, n_classes: int,
              weights: np.ndarray | None, hint: str = "") -> TableCounts:
        """n(c, x_i) of every column (the root's table) and n(c, x_i, x_j) of every pair."""
        codes = self.codes(inputs, "error", hint)
        tables = {}
        for part in self.parts:
            tables.update(part.counted(codes, y_codes, n_classes, weights))
        return TableCounts(tables, pair_counts(self.columns, codes, self.states_, y_codes,
                                               n_classes, weights))

    def add_node(self, net: Network, column: str, class_name: str, statistics) -> None:
        self._owner[column].add_node(net, column, class_name, statistics)

    def counts_to_estimate(self, net: Network, statistics: TableCounts) -> dict:
        """The tree from the pair counts; each feature's parents become (class, tree
        parent) and its counts n(c, x_pa, x)."""
        self.tree_ = feature_tree(self.columns, statistics.pairs)
        class_name = net.parents(self.columns[0])[0]
        tables = dict(statistics.tables)
        for column, parent in self.tree_.items():
            if parent is not None:
                net.set_parents(column, [class_name, parent])
                pair = statistics.pairs.get((parent, column))  # axes (class, parent, column)
                tables[column] = (pair if pair is not None else
                                  statistics.pairs[column, parent].transpose(0, 2, 1))
        return tables

    def log_likelihood(self, net: Network, inputs: Inputs, unknown: str) -> np.ndarray:
        codes = self.codes(inputs, unknown, hint="; unseen='ignore' skips such a value, "
                                                  "states=... declares every value a feature "
                                                  "can take")
        with np.errstate(divide="ignore"):
            logs = {c: np.log(net.cpt_array(c)) for c in self.columns}
        total = np.zeros((inputs.n_rows, len(next(iter(logs.values())))))
        for start in range(0, inputs.n_rows, TREE_BLOCK):
            total[start:start + TREE_BLOCK] = tree_log_likelihood(
                self.tree_, logs, {c: codes[c][start:start + TREE_BLOCK] for c in self.columns})
        return total

    def zero_probabilities(self, net: Network, single: Inputs,
                           class_name: str) -> tuple[dict, dict]:
        codes = self.codes(single, "missing")
        classes = list(net.states(class_name))
        evidence, zeros = {}, {}
        for column in self.columns:
            code = int(codes[column][0])
            if code < 0:
                continue
            evidence[column] = net.states(column)[code]
            table, value = net.cpt_array(column), f"{column}={evidence[column]}"
            parent = self.tree_.get(column)
            if parent is not None:  # P(x | c, x_parent): its parent's row
                parent_code = int(codes[parent][0])
                if parent_code < 0:
                    continue
                table = table[:, parent_code]
                value += f" (with {parent}={net.states(parent)[parent_code]})"
            zero = zero_classes(table, code, classes)
            if zero:
                zeros[value] = zero
        return evidence, zeros


def pair_counts(columns: list[str], codes: Mapping[str, np.ndarray], states: Mapping,
                 y_codes: np.ndarray, n_classes: int,
                 weights: np.ndarray | None) -> dict[tuple[str, str], np.ndarray]:
    """n(c, xi, xj) for every pair of columns i < j, counted on the rows that have both
    values: what a tree-augmented model learns its tree and its tables from."""
    pairs = {}
    for a in range(len(columns)):
        for b in range(a + 1, len(columns)):
            family = [y_codes, codes[columns[a]], codes[columns[b]]]
            seen = (family[1] >= 0) & (family[2] >= 0)
            if not seen.all():  # complete columns (the usual case) are counted uncopied
                family, pair_weights = [f[seen] for f in family], seen_weights(weights, seen)
            else:
                pair_weights = weights
            pairs[columns[a], columns[b]] = family_counts(
                family, [n_classes, len(states[columns[a]]), len(states[columns[b]])],
                pair_weights)
    return pairs


def feature_tree(columns: list[str],
                  pairs: Mapping[tuple[str, str], np.ndarray]) -> dict[str, str | None]:
    """The tree parent of every column (None for the root): the maximum spanning tree of
    I(Xi; Xj | C) from the pair counts of :func:`pair_counts`."""
    n = len(columns)
    information = np.full((n, n), -np.inf)
    for a in range(n):
        for b in range(a + 1, n):
            information[a, b] = conditional_mutual_information(pairs[columns[a], columns[b]])
    parents = spanning_tree(information, ~np.eye(n, dtype=bool), 0, columns)
    depth = [0] * n
    for a in range(n):
        up = parents[a]
        while up is not None:
            depth[a] += 1
            up = parents[up]
    order = sorted(range(n), key=depth.__getitem__)  # parents before children
    return {columns[a]: None if parents[a] is None else columns[parents[a]] for a in order}


def tree_log_likelihood(tree: Mapping[str, str | None], logs: Mapping[str, np.ndarray],
                        codes: Mapping[str, np.ndarray]) -> np.ndarray:
    """log P(x_observed | c) of a tree of features given the class, for every row and
    class: shape (rows, classes).

    Messages from the leaves up, vectorised over rows: a feature sends its parent
    m(c, x_pa) = Σ_x P(x | c, x_pa) Π_children m_child(c, x), the sum reduced to the one
    observed x where the row has a value (a gather) and a log-sum-exp over the states
    where it is missing (code −1). A root's message m(c) enters the result.

    Parameters
    ----------
    tree : mapping
        The parent of every feature (None for a root), parents before children.
    logs : mapping
        log P(x | c) of a root, shape (classes, states); log P(x | c, x_pa) of the others,
        shape (classes, parent states, states).
    codes : mapping
        The state code of every feature in every row (−1: missing).

    Returns
    -------
    numpy.ndarray, shape (rows, classes)

    Examples
    --------
    >>> import numpy as np
    >>> logs = {"A": np.log([[0.5, 0.5]]), "B": np.log([[[0.9, 0.1], [0.2, 0.8]]])}
    >>> codes = {"A": np.array([0, -1]), "B": np.array([1, 1])}
    >>> np.exp(tree_log_likelihood({"A": None, "B": "A"}, logs, codes)).round(4).tolist()
    [[0.05], [0.45]]
    """
    rows = len(next(iter(codes.values())))
    n_classes = next(iter(logs.values())).shape[0]
    total = np.zeros((rows, n_classes))
    incoming: dict[str, np.ndarray] = {}
    for column in reversed(list(tree)):  # children first
        log_table, code = logs[column], codes[column]
        below = incoming.pop(column, None)  # (rows, classes, states) from the children
        observed = np.where(code >= 0, code, 0)
        pick = np.arange(rows)
        if tree[column] is None:
            message = log_table.T[observed]  # (rows, classes)
        else:
            message = np.moveaxis(log_table, 2, 0)[observed]  # (rows, classes, parent states)
        if below is not None:
            own = below[pick, :, observed]
            message = message + (own if tree[column] is None else own[:, :, None])
        missing = np.flatnonzero(code < 0)
        if len(missing):
            terms = np.broadcast_to(log_table, (len(missing), *log_table.shape))
            if below is not None:
                gathered = below[missing]
                terms = terms + (gathered if tree[column] is None else gathered[:, :, None, :])
            message[missing] = log_sum_exp(terms)
        if tree[column] is None:
            total += message
        else:
            parent = tree[column]
            incoming[parent] = incoming[parent] + message if parent in incoming else message
    return total

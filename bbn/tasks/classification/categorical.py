"""Categorical features: a table P(x | c) per feature, read by a gather per row.

    log P(x | c) = Σ_i log P(x_i | c),   P(x_i = s | c) = θ_isc, estimated from n(c, x_i = s)

A missing value (and, with ``unseen="ignore"``, a value that is no state) is skipped:
its term is 0, as summing the feature out of the star network gives.

>>> import bbn
>>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
>>> type(model.likelihoods_[0]).__name__
'CategoricalLikelihood'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.data import state_texts, states_from_values
from bbn.core.errors import DataError
from bbn.model.network import Network
from bbn.tasks.classification.inputs import Inputs
from bbn.tasks.classification.likelihood import BLOCK, Likelihood, seen_weights, zero_classes
from bbn.tasks.classification.naive_counts import TableCounts
from bbn.tasks.learning.counting import family_counts


class CategoricalLikelihood(Likelihood):
    """Discrete features, each a child of the class with its own table.

        log P(x | c) = Σ_{i observed} log θ_i[c, x_i]

    Every θ_i is estimated from the (weighted) counts n(c, x_i) by the classifier's
    estimator (Laplace: θ = (n(c, x) + α) / (n(c) + α |X_i|)).

    Parameters
    ----------
    columns : list of str
        The categorical columns, in column order.
    states : mapping
        The states of every column (texts).

    Attributes
    ----------
    states_ : dict
        ``{column: states}``, as fitted.

    Examples
    --------
    >>> import bbn
    >>> from bbn.tasks.classification.inputs import Inputs
    >>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
    >>> part = model.likelihoods_[0]
    >>> part.states_
    {'x0': ('a', 'b')}
    >>> np.exp(part.log_likelihood(model.network_, Inputs.of([["b"]]), "error")).round(4)
    array([[0.3333, 0.75  ]])
    """

    kind = "categorical"

    def __init__(self, columns: list[str], states: Mapping[str, Sequence[str]]):
        self.columns = columns
        self.states_ = dict(states)

    @classmethod
    def declared(cls, columns: list[str], inputs: Inputs, declared) -> CategoricalLikelihood:
        """The likelihood of ``columns``, their states ``declared`` (one list for all, or
        ``{column: states}``) or else the values of ``inputs``."""
        if isinstance(declared, Mapping):  # column 0 is named "0"
            declared = {str(c): s for c, s in declared.items()}
        states = {}
        for column in columns:
            given = declared.get(column) if isinstance(declared, Mapping) else declared
            states[column] = (states_from_values(inputs.column(column)) if given is None
                              else tuple(state_texts(s)[0] for s in given))
            if not states[column]:
                raise DataError(f"X: column {column!r} has no value in any row (every cell "
                                "missing): drop the column or declare its states")
        return cls(columns, states)

    def codes(self, inputs: Inputs, unknown: str, hint: str = "") -> dict[str, np.ndarray]:
        """The state code of every column in every row (−1: skipped); ``hint`` ends the
        message of a value that is no state."""
        try:
            return inputs.codes(self.columns, [self.states_[c] for c in self.columns], unknown)
        except DataError as error:
            if not hint:
                raise
            raise DataError(f"{error}{hint}") from None

    def count(self, inputs: Inputs, y_codes: np.ndarray, n_classes: int,
              weights: np.ndarray | None, hint: str = "") -> TableCounts:
        """n(c, x_i) of every column, on the rows where x_i is seen."""
        return TableCounts(self.counted(self.codes(inputs, "error", hint), y_codes, n_classes,
                                        weights))

    def counted(self, codes: Mapping[str, np.ndarray], y_codes: np.ndarray, n_classes: int,
                weights: np.ndarray | None) -> dict[str, np.ndarray]:
        """``{node: n(c, x)}`` from the codes of every column."""
        tables = {}
        for column in self.columns:
            seen = codes[column] >= 0
            tables[self.node(column)] = family_counts(
                [y_codes[seen], codes[column][seen]], [n_classes, len(self.states_[column])],
                seen_weights(weights, seen))
        return tables

    def add_node(self, net: Network, column: str, class_name: str, statistics) -> None:
        net.add_variable(self.node(column), self.states_[column], parents=[class_name])

    def counts_to_estimate(self, net: Network, statistics: TableCounts) -> dict:
        return statistics.tables

    def log_likelihood(self, net: Network, inputs: Inputs, unknown: str) -> np.ndarray:
        codes = self.codes(inputs, unknown, hint="; unseen='ignore' skips such a value, "
                                                 "states=... declares every value a feature "
                                                 "can take")
        tables = [_log_rows(net.cpt_array(self.node(c))) for c in self.columns]
        total = np.zeros((inputs.n_rows, tables[0].shape[1] if tables else 0))
        for start in range(0, inputs.n_rows, BLOCK):  # blocks: in cache
            block = total[start:start + BLOCK]
            for column, table in zip(self.columns, tables, strict=True):
                block += table[codes[column][start:start + BLOCK]]  # code −1: the zero row
        return total

    def zero_probabilities(self, net: Network, single: Inputs,
                           class_name: str) -> tuple[dict, dict]:
        codes = self.codes(single, "missing")
        classes = list(net.states(class_name))
        evidence, zeros = {}, {}
        for column in self.columns:
            node, code = self.node(column), int(codes[column][0])
            if code >= 0:
                evidence[node] = net.states(node)[code]
                zero = zero_classes(net.cpt_array(node), code, classes)
                if zero:
                    zeros[f"{node}={evidence[node]}"] = zero
        return evidence, zeros


def _log_rows(table: np.ndarray) -> np.ndarray:
    """log P(x | c) transposed to (states, classes), plus a zero row for code −1 (skipped)."""
    with np.errstate(divide="ignore"):
        return np.vstack([np.log(table).T, np.zeros((1, table.shape[0]))])

"""Questions about N cases at once, as state indices: one batched elimination per group
of distinct cases.

    P(Q | e_i) for i = 1..N     cases grouped by the variables they observe, then by their
                                distinct evidence: each distinct case answered once

The methods of :class:`CaseBatches` are the exact engine's (:class:`bbn.Engine` inherits
them): a DataFrame of evidence becomes ``{variable: (N,) state indices}`` in
:mod:`bbn.questions.resolution` (−1 where a case does not observe the variable), numbers
observed on Gaussian leaves weigh the answer (:mod:`bbn.engines.exact.continuous`), and
every posterior of every case comes from batched junction-tree propagation.

>>> import bbn, numpy as np
>>> bbn.load("models/chair.bn").engine.posterior_of_cases(["C"], {"A": np.array([0, 1])}).shape
(2, 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

import bbn.engines.exact.continuous as continuous
from bbn.core.codes import distinct_rows, observed_groups
from bbn.core.errors import QueryError
from bbn.core.lazy import lazy_attributes
from bbn.engines.exact.elimination import CASE, Plan, compile_plan
from bbn.engines.protocol import NO_EVIDENCE, impossible_case, impossible_row

#: Every posterior of a batch comes from the junction tree, loaded on first use (a lazy
#: reference: see :mod:`bbn.core.lazy`).
_trees = lazy_attributes(__name__, {"marginals_of_cases": "bbn.engines.exact.junction_tree"})


class CaseBatches:
    """The exact engine's answers for N cases at once (a mixin of :class:`bbn.Engine`,
    which provides ``network``, ``discrete``, ``plan``, ``posterior``, ``_execute`` and
    ``_tree_source``).

    Examples
    --------
    >>> import bbn, numpy as np
    >>> engine = bbn.load("models/chair.bn").engine
    >>> isinstance(engine, CaseBatches)
    True
    """

    def posterior_of_cases(self, variables: Sequence[str], codes: Mapping[str, np.ndarray],
                           row_names=None, cases: int | None = None,
                           impossible: str = "raise",
                           values: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """P(variables | e_i) for N cases given as state indices ``{variable: (N,) ints}``.

        −1 marks a missing value: that variable is summed out for that case. Cases are
        grouped by which variables they observe and, within a group, by their distinct
        evidence — each distinct case is answered once, all of a group in one pass of the
        batched elimination. ``values`` gives numbers observed on Gaussian leaves, N per
        leaf (every case observing them), which weigh the answer (see
        :func:`bbn.engines.exact.continuous.weigh`).

        Parameters
        ----------
        variables : sequence of str
            The query variables.
        codes : dict
            ``{variable: (N,) state indices}``, −1 where missing.
        row_names : sequence, optional
            How errors name the cases.
        cases : int, optional
            N, when there are no columns.
        impossible : {"raise", "nan"}
            What to do with a case whose evidence is impossible.
        values : dict, optional
            ``{Gaussian leaf: (N,) numbers}``.

        Returns
        -------
        numpy.ndarray
            Shape ``(N, |X1|, ..., |Xk|)``.

        Raises
        ------
        ImpossibleEvidenceError
            For a case whose evidence is impossible, named by ``row_names`` when given
            (with ``impossible="nan"`` its row is NaN instead).

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.posterior_of_cases(["C"], {"A": np.array([0, -1])}).round(6).tolist()
        [[0.886749, 0.113251], [0.8, 0.2]]
        """
        variables = list(variables)
        overlap = [v for v in variables if v in codes]
        if overlap:
            raise QueryError(f"query variable(s) {overlap} are also evidence columns")
        if values:
            return self._weighted_cases(variables, codes, row_names, cases, impossible,
                                        values)
        discrete = self.discrete
        shape = tuple(self.network.cardinality[v] for v in variables)
        columns = list(codes)
        if not columns:
            if cases is None:
                raise QueryError("posterior_of_cases needs evidence columns or the number "
                                 "of cases")
            prior = discrete.posterior(variables, NO_EVIDENCE).values
            return np.array(np.broadcast_to(prior, (cases,) + shape))
        matrix = np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
        result = np.empty((len(matrix),) + shape)
        if not len(matrix):
            return result
        for rows, pattern in observed_groups(matrix >= 0):
            observed = [c for c, seen in zip(columns, pattern) if seen]
            whole = len(rows) == len(matrix) and pattern.all()
            distinct, inverse = distinct_rows(matrix if whole else matrix[np.ix_(rows, pattern)])
            plan = discrete.plan(variables, observed, batched=True)
            table, _, _ = discrete._execute(plan, dict(zip(observed, distinct.T)),
                                            cases=len(distinct))
            if plan.result_variables[:1] != (CASE,):  # the evidence says nothing of the query
                table = np.broadcast_to(table, (len(distinct),) + shape)
            totals = table.reshape(len(distinct), -1).sum(axis=1)
            zero = ~(totals > 0)
            if zero.any():
                if impossible == "raise":
                    case = int(np.flatnonzero(zero)[0])
                    row = int(rows[int(np.flatnonzero(inverse.ravel() == case)[0])])
                    raise impossible_row(self.network, matrix, columns, observed, row,
                                         row_names)
                totals[zero] = np.nan
            normalised = table / totals.reshape((-1,) + (1,) * len(shape))
            result[rows] = normalised[inverse.ravel()]
        return result

    def _weighted_cases(self, variables: list[str], codes: Mapping[str, np.ndarray],
                        row_names, cases: int | None, impossible: str,
                        values: Mapping[str, np.ndarray]) -> np.ndarray:
        """P(variables | e_i, x_i): the discrete engine's joint of the variables and the
        hidden parents of the observed leaves, weighed by their densities, for each group
        of cases that observe the same discrete columns."""
        n = len(next(iter(values.values())))
        result = np.empty((n,) + tuple(self.network.cardinality[v] for v in variables))
        columns = list(codes)
        matrix = np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1) \
            if columns else np.zeros((n, 0), dtype=np.intp)
        for rows, pattern in observed_groups(matrix >= 0):
            observed = {c: matrix[rows, j] for j, c in enumerate(columns) if pattern[j]}
            result[rows] = self._weighted_group(
                variables, observed, None if row_names is None else row_names[rows],
                impossible, {g: np.asarray(x, dtype=float)[rows] for g, x in values.items()})
        return result

    def _weighted_group(self, variables: list[str], codes: Mapping[str, np.ndarray],
                        row_names, impossible: str,
                        values: Mapping[str, np.ndarray]) -> np.ndarray:
        """:meth:`_weighted_cases` for cases that all observe the columns of ``codes``."""
        network = self.network
        hidden = continuous.hidden_parents(network, variables, list(codes), list(values))
        query = variables + hidden
        n = len(next(iter(values.values())))
        joint = self.posterior_of_cases(query, codes, row_names, n, impossible)
        weights, top = continuous.weigh(network, query, joint, codes, values)
        bad = ~np.isfinite(top)
        if bad.any() and impossible == "raise":
            row = int(np.flatnonzero(bad)[0])
            shown = {**{c: network.states[c][int(k[row])] for c, k in codes.items()},
                     **{g: float(x[row]) for g, x in values.items()}}
            raise impossible_case(shown, row, row_names)
        weights = weights.sum(axis=tuple(range(1 + len(variables), weights.ndim)))
        totals = weights.reshape(n, -1).sum(axis=1)
        totals[bad] = np.nan
        return weights / totals.reshape((-1,) + (1,) * len(variables))

    def weights_plan(self, observed: Sequence[str], order: Sequence[str] | None = None):
        """The batched elimination plan of P(e_i) for cases observing ``observed`` (no
        pruning: the weight itself), compiled once; in ``order`` when given (no search
        for another: cutset conditioning checks many candidate plans).

        Parameters
        ----------
        observed : sequence of str
            The variables every case observes.
        order : sequence of str, optional
            The elimination order (default: the engine's, searched when large).

        Returns
        -------
        Plan

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").engine.weights_plan(["A"]).cost.width
        2
        """
        discrete = self.discrete
        if order is None:
            return discrete.plan([], list(observed), batched=True, prune=False)
        key = ("weights", tuple(sorted(observed)), tuple(order))

        def compile_weights() -> Plan:
            parents, cardinality, _ = discrete._plain_structure()
            plan = compile_plan(parents, cardinality, [], list(observed), batched=True,
                                order=order)
            plan.tables = [discrete.network.table(source.variable) for source in plan.sources]
            return plan

        return discrete._once.get(discrete._plans, key, compile_weights)

    def log_weights_of_cases(self, codes: Mapping[str, np.ndarray], cases: int,
                             order: Sequence[str] | None = None) -> np.ndarray:
        """ln P(e_i) for N cases that observe every variable of ``codes`` (state indices,
        ``{variable: (N,) ints}``; a Markov network's constraints among them): one batched
        elimination, in logs where it underflows; −inf where P(e_i) = 0.

        Parameters
        ----------
        codes : dict
            ``{variable: (N,) state indices}``, none missing.
        cases : int
            N (when ``codes`` is empty: every weight is then 1).
        order : sequence of str, optional
            The elimination order (see :meth:`weights_plan`).

        Returns
        -------
        numpy.ndarray
            Shape ``(N,)``.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> np.exp(engine.log_weights_of_cases({"A": np.array([0, 1])}, 2)).round(6).tolist()
        [0.206056, 0.793944]
        """
        if not codes:
            return np.zeros(cases)
        discrete = self.discrete
        plan = self.weights_plan(list(codes), order)
        table, scale, _ = discrete._execute(plan, codes, cases=cases)
        table = np.broadcast_to(np.asarray(table, dtype=float).reshape(-1), (cases,))
        with np.errstate(divide="ignore"):
            return np.log(table) + scale

    def marginals_of_cases(self, codes: Mapping[str, np.ndarray], row_names=None,
                           cases: int | None = None,
                           impossible: str = "raise") -> dict[str, np.ndarray]:
        """P(X | e_i) for every variable X and N cases given as state indices
        ``{variable: (N,) ints}`` (−1 where a case does not observe it; ``cases`` gives
        N when there are no columns), one batched junction-tree propagation per group of
        distinct cases (the discrete variables' posteriors, for a network with Gaussian
        leaves).

        Parameters
        ----------
        codes : dict
            ``{variable: (N,) state indices}``, −1 where missing.
        row_names : sequence, optional
            How errors name the cases.
        cases : int, optional
            N, when there are no columns.
        impossible : {"raise", "nan"}
            What to do with a case whose evidence is impossible.

        Returns
        -------
        dict
            ``{variable: (N, |X|) array}``.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.marginals_of_cases({"A": np.array([0, -1])})["C"].round(6).tolist()
        [[0.886749, 0.113251], [0.8, 0.2]]
        """
        result = _trees("marginals_of_cases")(self.discrete._tree_source(), codes, row_names,
                                              cases, impossible)
        for v in self.network.auxiliary:  # a compact table's chain: not the model's
            del result[v]
        return result

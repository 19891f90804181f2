"""Jeffrey's rule's eliminations: P(Q, w, e) for every joint state w of the softly
observed variables W, by the plan doing less work,

    batch    the states w as the cases of one batched elimination, W observed in each
             (the evidence then cuts the network as for the hard question), or
    joint    one elimination of the joint of Q and W (W summed out nowhere),

what one soft finding's sum Σ_w q(w) P(Q | w, e) and several findings' fit and sum need
(:mod:`bbn.questions.uncertain`). A mixin of :class:`bbn.engines.exact.engine.Engine`;
plans compiled once per shape and kept with the engine's.

>>> import bbn
>>> from bbn.engines.protocol import Evidence
>>> engine = bbn.load("models/chair.bn").engine
>>> table = engine.joint_of_cases(["C"], Evidence({"A": 0}, {}, {}), ["W"])
>>> (table / table.sum(axis=1, keepdims=True)).round(6).tolist()  # P(C | A=T, W=w)
[[0.998583, 0.001417], [0.441623, 0.558377]]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.engines.exact.elimination import (
    CASE,
    Plan,
    check_memory,
    constant_factors,
    evaluate,
)
from bbn.engines.protocol import Evidence


class VariedCases:
    """Jeffrey's rule's eliminations, for :class:`bbn.engines.exact.engine.Engine`: the
    cases of the varied variables' states (:meth:`given_each`) or the joint with the
    query, whichever does less work (:meth:`joint_of_cases`)."""

    def given_each(self, free: Sequence[str], evidence: Evidence,
                   varied: Sequence[str], states: Sequence[int] | None = None,
                   totals: bool = False) -> np.ndarray:
        """c_w · P(free, w, e) for every joint state w of the variables ``varied`` (none
        of them observed or in ``free``; a constant c_w > 0 per case), by one batched
        elimination in which only the tables of ``varied`` carry the case axis
        (compiled once per shape): W is observed in it, so the evidence d-separates as
        much as it does for the hard question, and the hard findings slice the other
        tables once. Each case normalised is P(free | e, w) (Jeffrey's rule is
        P'(free) = Σ_w q(w) P(free | e, w)); a case sums to 0 iff P(w, e) = 0.

        With ``totals`` the constant is c · Π_i a_i(w_i), one positive factor per
        variable of W: the tables reading two or more of W's states are kept even where
        the evidence d-separates them from ``free``, so summing out ``free`` leaves
        P(W, e) up to a scale per axis — all that fitting several soft findings needs
        (the fit diag(λ_1) ⊗ ... P(W | e) is the same for every such scale), from the
        same elimination as P(free | e, w).

        Parameters
        ----------
        free : sequence of str
            The query variables, none observed.
        evidence : Evidence
            The hard findings, state indices.
        varied : sequence of str
            The variables whose every joint state is a case.
        states : sequence, optional
            The cases to take, in this order: with one variable in ``varied``, its
            state indices; with several, one index array per variable (case k is
            ``states[i][k]`` for each). A case P(w, e) = 0 costs a run in logs, to tell
            it from underflow: leave out what is not needed.
        totals : bool, default False
            Cases in the ratios of P(w, e) up to a scale per variable (see above).

        Returns
        -------
        numpy.ndarray
            Axes ``varied + free`` (one case axis, ``len(states)`` long, when ``states``
            is given); or ``free`` alone when the hard findings d-separate ``varied``
            from ``free`` without ``totals`` (then P(free | e, w) = P(free | e), and
            P(w, e) > 0 for every w when P(e) > 0).

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> table = engine.given_each(["C"], Evidence({"A": 0}, {}, {}), ["W"])
        >>> (table / table.sum(axis=1, keepdims=True)).round(6).tolist()
        [[0.998583, 0.001417], [0.441623, 0.558377]]
        >>> joint = engine.given_each([], Evidence({"A": 0}, {}, {}), ["W", "B"],
        ...                           totals=True)
        >>> expected = engine.posterior(["W", "B"], Evidence({"A": 0}, {}, {})).values
        >>> def odds(t):  # what no scale per axis changes
        ...     return t[0, 0] * t[1, 1] / (t[0, 1] * t[1, 0])
        >>> bool(np.isclose(odds(joint), odds(expected)))
        True
        """
        indices = evidence.states
        plan = self._given_each_plan(("given each", tuple(free), tuple(sorted(indices)),
                                      tuple(varied), totals))
        return self._run_given_each(plan, indices, varied, states, totals)

    def _run_given_each(self, plan: Plan, indices: Mapping[str, int], varied: Sequence[str],
                        states, totals: bool) -> np.ndarray:
        """:meth:`given_each` once its plan is found."""
        cases = dict(indices)
        if states is None:
            cases.update(plan.cases)
            cardinality = self.network.cardinality
            shape = tuple([cardinality[v] for v in varied])
        elif len(varied) == 1:
            cases[varied[0]] = np.asarray(states, dtype=np.intp)
            shape = (len(states),)
        else:
            cases.update(zip(varied, (np.asarray(s, dtype=np.intp) for s in states)))
            shape = (len(states[0]),)
        check_memory(plan.cost, math.prod(shape))
        table, scale, _ = evaluate(plan, cases, self._logs)
        if plan.result_variables[:1] != (CASE,):
            return table
        if totals and type(scale) is np.ndarray:  # some cases run in logs: one constant
            table = table * np.exp(scale - scale.max()).reshape(
                (-1,) + (1,) * (table.ndim - 1))
        return table.reshape(shape + table.shape[1:])

    def _given_each_plan(self, key: tuple) -> Plan:
        return self.kept(key, lambda: self._compile_given_each(key))

    def _compile_given_each(self, key: tuple) -> Plan:
        _, query, observed, varied, totals = key
        parents, cardinality, zero_free = self._plain_structure()
        plan = self._searched_plan((parents, cardinality, query, [*observed, *varied],
                                    frozenset(varied), (), zero_free, totals),
                                   [*observed, *varied])
        table = self.network.table
        plan.tables = [table(source.variable) for source in plan.sources]
        shape = tuple(cardinality[v] for v in varied)
        plan.cases = (((varied[0], slice(None)),) if len(varied) == 1 else  # no copy
                      tuple(zip(varied, np.unravel_index(np.arange(math.prod(shape)), shape))))
        return plan

    def joint_of_cases(self, free: Sequence[str], evidence: Evidence,
                       varied: Sequence[str],
                       states: Sequence[Sequence[int]] | None = None) -> np.ndarray:
        """c · Π_i a_i(w_i) · P(free, w, e) for the joint states w of ``varied`` (a
        constant c > 0 and a positive scale a_i per variable: what a fit of soft
        findings and Jeffrey's sum Σ_w T(w) P(free | w, e) need), by the plan doing less
        work — counted as Σ over its steps of a step's own cost and the entries
        multiplied, times the cases where a step carries the case axis:

        * the batch of :meth:`given_each` with ``totals`` (W observed in each case, so
          the evidence cuts the network as for the hard question), or
        * one elimination with ``varied`` among the query variables (a_i = 1), better
          where the cases would multiply large tables.

        Parameters
        ----------
        free : sequence of str
            The query variables, none observed.
        evidence : Evidence
            The hard findings, state indices.
        varied : sequence of str
            One or more variables, none observed or in ``free``.
        states : sequence of sequences of int, optional
            Per variable of ``varied``, the states to take (their product is taken);
            every state when left out.

        Returns
        -------
        numpy.ndarray
            Axes ``varied + free`` (each varied axis as long as its ``states``); or
            ``free`` alone when the hard findings d-separate ``varied`` from ``free``
            and from each other (then P(free | e, w) = P(free | e), and P(w, e) > 0 for
            every w when P(e) > 0).

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> table = engine.joint_of_cases(["C"], Evidence({"A": 0}, {}, {}), ["W", "B"])
        >>> given = table / table.sum(axis=-1, keepdims=True)  # P(C | A=T, W=w, B=b)
        >>> hard = engine.posterior(["C"], Evidence({"A": 0, "W": 1, "B": 0}, {}, {}))
        >>> bool(np.allclose(given[1, 0], hard.values))
        True
        """
        cases = None  # every joint state of ``varied`` (counted when the plan is made)
        if states is not None:
            states = [list(s) for s in states]
            cases = math.prod(map(len, states))
        indices = evidence.states
        key = ("joint of cases", tuple(free), tuple(sorted(indices)), tuple(varied), cases)
        chosen = self._plans.get(key)  # (Engine.kept inlined: asked once per question)
        if chosen is None:
            chosen = self._once.get(self._plans, key, lambda: self._batch_or_joint(key))
        batch, plan = chosen
        if batch:
            if states is None:
                return self._run_given_each(plan, indices, varied, None, True)
            grid = states[0] if len(varied) == 1 else [  # given_each's forms of states
                axis.ravel() for axis in np.meshgrid(*states, indexing="ij")]
            table = self._run_given_each(plan, indices, varied, grid, True)
            return table if table.ndim == len(free) else table.reshape(
                tuple(map(len, states)) + table.shape[1:])
        check_memory(plan.cost)  # the joint's plan weighs nothing: its own tables alone
        table = evaluate(plan, indices, self._logs)[0]
        for axis, taken in enumerate(states or ()):  # (np.ix_ costs more than a take)
            if len(taken) < table.shape[axis]:
                table = table.take(taken, axis=axis)
        return table

    def _batch_or_joint(self, key: tuple) -> tuple[bool, Plan]:
        """(whether :meth:`joint_of_cases` takes the batch, the plan it takes): the batch
        where it does less work, the joint on a tie (one evaluation, no case axis to
        lay out: 6 against 10 µs on child's smallest)."""
        _, free, observed, varied, cases = key
        if cases is None:
            cases = math.prod([self.network.cardinality[v] for v in varied])
        batch = self._given_each_plan(("given each", free, observed, varied, True))
        joint = self.weighed_plan([*varied, *free], list(observed), ())
        return (True, batch) if _work(batch, cases) < _work(joint, 1) else (False, joint)

    def states_as_cases(self, free: Sequence[str], observed: Sequence[str],
                        varied: Sequence[str], cases: int) -> bool:
        """Whether a batch of ``cases`` cases observing ``observed`` costs less with the
        joint states of ``varied`` as more cases (W observed in each: N · |W| cases of
        the plan of ``free``) than with ``varied`` among the query variables (N cases of
        the plan of ``varied + free``), counted as :meth:`joint_of_cases` counts.

        Parameters
        ----------
        free : sequence of str
            The query variables.
        observed : sequence of str
            The variables the cases observe.
        varied : sequence of str
            The variables whose states would become cases.
        cases : int
            N, the cases of the batch.

        Returns
        -------
        bool
            True where the states as cases do less work.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.states_as_cases(["C"], ["A"], ["W"], 1000)  # the joint of W and C does less
        False
        >>> engine.states_as_cases(["W"], ["A"], ["C"], 1000)  # C observed in each case does less
        True
        """
        discrete = self.discrete
        states = math.prod(self.network.cardinality[v] for v in varied)
        batch = discrete.plan(list(free), [*observed, *varied], batched=True)
        joint = discrete.plan([*varied, *free], list(observed), batched=True)
        return _work(batch, cases * states) < _work(joint, cases)


#: What one step of a plan costs beside its arithmetic, in entries multiplied (about
#: 3 µs against 3 ns an entry, measured on the shared networks).
STEP_ENTRIES = 1000


def _work(plan: Plan, cases: int) -> int:
    """A plan's time in entries multiplied: Σ over the steps it runs at each question
    (not those reading no evidence: :func:`~bbn.engines.exact.elimination.fold_constants`)
    of STEP_ENTRIES + the entries of the product, times ``cases`` where the step carries
    the case axis."""
    constant = constant_factors(plan)[len(plan.sources):]
    return sum(STEP_ENTRIES + step.size * (cases if CASE in step.variables else 1)
               for step, folded in zip(plan.steps, constant) if not folded)

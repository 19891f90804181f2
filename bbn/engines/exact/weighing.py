"""Likelihoods weighed into the elimination: a virtual child per weighed variable, its
numbers given with each question, its plan compiled once per question shape.

    P(Q | e, λ) ∝ Σ_h Π_i P(Xi | parents(Xi)) |_e · Π_W λ_W(w)

A likelihood λ_W on W is W's *virtual child*: an observed variable whose sliced table is
λ_W. The plan is compiled for the shape (query, observed, weighed variables) as for any
observed child — W is summed out, not sliced, and the virtual child keeps W's ancestors
relevant — and kept by the engine like every plan; the numbers of λ enter only when the
plan runs, so new numbers cost what repeated ones do. Where λ has no zero the virtual
child cannot make P(e) zero, and what the evidence d-separates from the query is dropped
as for hard findings (a likelihood on a variable d-separated from the query costs
nothing). A batch of N cases gives each case its own λ (an ``(N, |W|)`` array).

    P'(Q) = Σ_w q(w) P(Q | e, W = w)                       (Jeffrey's rule, a soft finding)

needs P(Q | e, w) for every state w: :mod:`bbn.engines.exact.varied_cases` gives them in
one batched elimination whose case axis is W's own, W observed in each case (so the
evidence d-separates as for the hard question), or in the joint of Q and W. Every
posterior at once is one propagation in the junction tree of the view with virtual
children (compiled once per shape, its virtual children's tables given with each call):
:meth:`Weighing.weighed_posteriors`. New
numbers for likelihoods asked of a view with virtual children (MAP, MPE, ...) share that
view's junction trees: :meth:`Weighing.reweighed`.

>>> import bbn, numpy as np
>>> engine = bbn.load("models/chair.bn").engine
>>> from bbn.engines.protocol import Evidence
>>> hard = engine.posterior(["C"], Evidence({"A": 0, "W": 0}, {}, {})).values
>>> weighed = engine.weighed_posterior(["C"], Evidence({"A": 0}, {}, {}),
...                                    {"W": np.array([1.0, 0.0])}).values
>>> bool(np.allclose(hard, weighed, atol=1e-15))
True
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from bbn.core.codes import observed_groups
from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.factor import Factor
from bbn.core.lazy import lazy_attributes
from bbn.engines.exact.cliques import JunctionTree, Table
from bbn.engines.exact.elimination import (
    CASE,
    Plan,
    check_memory,
    evaluate,
    log_smallest,
    plan_floor,
)
from bbn.engines.protocol import NO_EVIDENCE, Evidence, impossible_case
from bbn.views.compiled import CompiledNetwork

#: The junction-tree module, loaded on the first question that needs every posterior
#: (as :mod:`bbn.engines.exact.engine` loads it).
_trees = lazy_attributes(__name__, {"posteriors_one": "bbn.engines.exact.junction_tree"})

#: The states of a virtual child; it is observed at the first.
VIRTUAL_STATES = ("yes", "no")

#: Views with virtual children (one per weighed shape) whose engines an engine keeps for
#: :meth:`Weighing.weighed_posteriors`, the most recently asked.
KEPT_SHAPES = 32


def virtual_name(variable: str, taken: Mapping) -> str:
    """The name of ``variable``'s virtual child: ``λ(W)``, primed until not in ``taken``.

    >>> virtual_name("W", {"λ(W)": 1})
    "λ(W)'"
    """
    name = f"λ({variable})"
    while name in taken:
        name += "'"
    return name


def virtual_view(network: CompiledNetwork, likelihoods: Mapping[str, np.ndarray]
                 ) -> tuple[CompiledNetwork, dict[str, str]]:
    """``network`` with a virtual child per variable of ``likelihoods`` (named by
    :func:`virtual_name`, states :data:`VIRTUAL_STATES`, table :func:`virtual_table`),
    and the virtual children's names.

    Examples
    --------
    >>> import bbn
    >>> base = bbn.load("models/chair.bn").compiled()
    >>> view, virtual = virtual_view(base, {"W": np.array([0.8, 0.4])})
    >>> virtual, view.table("λ(W)").tolist(), view.zero_free["λ(W)"]
    ({'W': 'λ(W)'}, [[1.0, 0.0], [0.5, 0.5]], True)
    """
    if not likelihoods:
        return network, {}
    states, parents = dict(network.states), dict(network.parents)
    cardinality, tables, zero_free = (dict(network.cardinality), dict(network.tables),
                                      dict(network.zero_free))
    variables = list(network.variables)
    virtual = {}
    for v, weights in likelihoods.items():
        name = virtual_name(v, states)
        states[name], parents[name], cardinality[name] = VIRTUAL_STATES, (v,), 2
        tables[name] = virtual_table(weights)
        zero_free[name] = bool((weights > 0).all())  # "yes" is read
        variables.append(name)
        virtual[v] = name
    view = CompiledNetwork(network.revision, tuple(variables), *map(MappingProxyType, (
        states, parents, cardinality, tables, zero_free)), network.gaussian,
        network.constraints, network.auxiliary)
    return view, virtual


def virtual_table(weights: np.ndarray) -> np.ndarray:
    """A virtual child's table: P(yes | w) = λ(w) / max λ (read-only).

    >>> virtual_table(np.array([0.8, 0.4])).tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    """
    scaled = weights / weights.max()
    table = np.stack([scaled, 1.0 - scaled], axis=-1)
    table.setflags(write=False)
    return table


class Weighing:
    """The exact engine's questions with likelihoods (a mixin of :class:`bbn.Engine`,
    which provides ``network``, ``_plans``, ``_once``, ``_plain_structure``, ``_logs`` and
    ``_searched_plan``).

    Examples
    --------
    >>> import bbn
    >>> isinstance(bbn.load("models/chair.bn").engine, Weighing)
    True
    """

    def weighed_plan(self, query: Sequence[str], observed: Sequence[str],
                     weighed: Sequence[tuple[str, bool]], batched: bool = False,
                     maximize: Sequence[str] = (), prune: bool = True) -> Plan:
        """The elimination plan of P(query, e, λ) (compiled once per shape): ``observed``
        sliced, each variable of ``weighed`` — (variable, whether its likelihood has no
        zero) pairs — given a virtual child, observed. The virtual children's sources are
        named by :func:`virtual_name`; their ``tables`` are None (the numbers come with
        each question: :meth:`run_weighed`, :meth:`weighed_logs`).

        Parameters
        ----------
        query, observed : sequence of str
            As for :meth:`bbn.Engine.plan`.
        weighed : sequence of (str, bool)
            The weighed variables, each with whether its likelihood is positive.
        batched : bool, default False
            A leading case axis.
        maximize : sequence of str, optional
            Variables max-eliminated after the others are summed out (MAP).
        prune : bool, default True
            Drop the tables the evidence d-separates (leave it off to compute P(e, λ)
            itself).

        Returns
        -------
        Plan

        Examples
        --------
        >>> import bbn
        >>> plan = bbn.load("models/chair.bn").engine.weighed_plan(["C"], ["A"], [("W", True)])
        >>> [s.variable for s in plan.sources if s.variable.startswith("λ")]
        ['λ(W)']
        """
        key = ("weighed", tuple(query), tuple(sorted(observed)), tuple(weighed), batched,
               tuple(maximize), prune)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._once.get(self._plans, key, lambda: self._compile_weighed(key))
        return plan

    def _compile_weighed(self, key: tuple) -> Plan:
        _, query, observed, weighed, batched, maximize, prune = key
        parents, cardinality, zero_free = (dict(d) for d in self._plain_structure())
        virtual = {}
        for v, positive in weighed:
            name = virtual_name(v, parents)
            parents[name], cardinality[name], zero_free[name] = (v,), 1, positive
            virtual[name] = v
        plan = self._searched_plan((parents, cardinality, query, [*observed, *virtual],
                                    batched, maximize, zero_free if prune else None),
                                   observed)
        table = self.network.table
        plan.tables = [None if s.variable in virtual else table(s.variable)
                       for s in plan.sources]
        plan.weighed = tuple((i, s.free[-1]) for i, s in enumerate(plan.sources)
                             if s.variable in virtual)
        return plan

    def run_weighed(self, plan: Plan, indices: Mapping[str, int | np.ndarray],
                    weights: Mapping[str, np.ndarray], cases: int = 1):
        """(table, log scale) of a :meth:`weighed_plan` run: the result is table ×
        exp(log scale), safe from underflow.

        Parameters
        ----------
        plan : Plan
            From :meth:`weighed_plan`.
        indices : dict
            The hard findings, ``{variable: state index}`` (``(N,)`` arrays for a batch).
        weights : dict
            ``{variable: λ}`` for each weighed variable of the plan: ``(|W|,)``, or
            ``(N, |W|)`` for a batch of N cases.
        cases : int, default 1
            The cases of a batch (for the memory check).

        Returns
        -------
        tuple
            ``(table, log_scale)``.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> plan = engine.weighed_plan(["W"], [], [("W", True)])
        >>> table, scale = engine.run_weighed(plan, {}, {"W": np.array([1.0, 0.0])})
        >>> table.round(6).tolist(), scale
        ([0.722, 0.0], 0.0)
        """
        tables, read = _weighed_tables(plan, weights)
        evidence = {**indices, **read}
        # the smallest positive product: the network's tables' part is the plan's own
        floor = plan.floor if plan.floor is not None else plan_floor(plan)
        for _, v in plan.weighed:
            w = weights[v]
            if w.size <= 64:  # a few numbers: Python's min
                smallest = min([x for x in w.ravel().tolist() if x > 0], default=1.0)
                floor += math.log(smallest) if smallest < 1.0 else 0.0
            else:
                floor += log_smallest(w)
        check_memory(plan.cost, cases)
        table, scale, _ = evaluate(plan, evidence, lambda _: self._weighed_logs(plan, tables),
                                   tables, floor)
        return table, scale

    def weighed_logs(self, plan: Plan, weights: Mapping[str, np.ndarray]
                     ) -> tuple[list[np.ndarray], dict[str, np.ndarray | int]]:
        """The logs of a :meth:`weighed_plan`'s tables, each virtual child's the logs of
        its λ (``{W: (|W|,)}``, or ``(N, |W|)`` for N cases), and where each virtual child
        is read (its evidence: case k reads column k): what a run in logs slices, as the
        max-product of a batch of cases with likelihoods does
        (:mod:`bbn.engines.exact.max_batches`).

        Parameters
        ----------
        plan : Plan
            From :meth:`weighed_plan`.
        weights : dict
            ``{variable: λ}`` for each weighed variable of the plan.

        Returns
        -------
        tuple
            ``(logs of the tables, the virtual children's evidence)``.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> plan = engine.weighed_plan([], [], [("W", True)], batched=True, prune=False)
        >>> logs, read = engine.weighed_logs(plan, {"W": np.array([[1.0, 0.5]])})
        >>> read
        {'λ(W)': array([0])}
        """
        tables, read = _weighed_tables(plan, weights)
        return self._weighed_logs(plan, tables), read

    def _weighed_logs(self, plan: Plan, tables: list[np.ndarray]) -> list[np.ndarray]:
        """The logs of ``tables`` (a weighed plan's with its λ in place): the network's
        tables' logs kept by the engine, the virtual children's taken here."""
        weighed = {i for i, _ in plan.weighed}
        real = copy.copy(plan)
        real.sources = [s for i, s in enumerate(plan.sources) if i not in weighed]
        real.tables = [t for i, t in enumerate(plan.tables) if i not in weighed]
        found = iter(self._logs(real))
        with np.errstate(divide="ignore"):
            return [np.log(t) if i in weighed else next(found) for i, t in enumerate(tables)]

    def weighed_posterior(self, variables: Sequence[str], evidence: Evidence = NO_EVIDENCE,
                          weights: Mapping[str, np.ndarray] | None = None) -> Factor:
        """P(variables | e, λ) as a normalised :class:`Factor` (an observed variable
        one-hot at its state), each ``weights[W]`` the likelihood λ_W over W's states.

        Parameters
        ----------
        variables : sequence of str
            The query variables, checked already.
        evidence : Evidence
            The hard findings, state indices (no numbers on Gaussian leaves).
        weights : dict, optional
            ``{variable: λ}``, each λ ≥ 0 with one number per state.

        Returns
        -------
        Factor

        Raises
        ------
        ImpossibleEvidenceError
            When P(e, λ) = 0.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.weighed_posterior(["C"], Evidence({"A": 0}, {}, {}),
        ...                          {"W": np.array([0.8, 0.4])}).values.round(6).tolist()
        [0.936426, 0.063574]
        """
        variables = list(variables)
        free = [v for v in variables if v not in evidence.states]
        table = self.weighed_table(free, evidence, weights or {})
        return posterior_factor(self.network.states, variables, free, evidence, table)

    def weighed_table(self, free: Sequence[str], evidence: Evidence,
                      weights: Mapping[str, np.ndarray]) -> np.ndarray:
        """c · Σ_h P(free, h, e) Π_W λ_W(w), for some c > 0: the unnormalised joint of
        the unobserved variables ``free`` (axes in that order) with the hard findings and
        the likelihoods ``weights`` (what :meth:`weighed_posterior` normalises).

        Parameters
        ----------
        free : sequence of str
            The query variables, none observed.
        evidence : Evidence
            The hard findings, state indices.
        weights : dict
            ``{variable: λ}``, each λ ≥ 0 with one number per state.

        Returns
        -------
        numpy.ndarray
            Axes ``free``; all zeros when P(e, λ) = 0.

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> table = engine.weighed_table(["C"], Evidence({"A": 0}, {}, {}),
        ...                              {"W": np.array([0.8, 0.4])})
        >>> (table / table.sum()).round(6).tolist()
        [0.936426, 0.063574]
        """
        indices = evidence.states
        plan = self.weighed_plan(free, list(indices), tuple(
            (v, 0.0 not in w.tolist()) for v, w in weights.items()))
        return self.run_weighed(plan, indices, weights)[0]


    def reweighed(self, network, changed: Sequence[str]):
        """An engine for ``network``, a view that differs from this engine's only in the
        numbers of the tables of ``changed`` — observed variables with one parent each
        (a likelihood's virtual children given new numbers): the junction trees kept for
        observed sets holding them are shared, each changed table put in its place (a tree
        reads an observed variable's table at every call; its compiled, evidence-free
        parts never do), so that new numbers cost a propagation, not a new tree.

        Parameters
        ----------
        network : CompiledNetwork
            The view with the new numbers (same variables, structure and zero-free flags).
        changed : sequence of str
            The variables whose tables changed.

        Returns
        -------
        Engine

        Examples
        --------
        >>> import bbn
        >>> from bbn.questions.uncertain import derived_view
        >>> base = bbn.load("models/chair.bn").compiled()
        >>> old, _ = derived_view(base, {}, {"W": np.array([0.8, 0.4])})
        >>> new, _ = derived_view(base, {}, {"W": np.array([0.2, 0.6])})
        >>> engine = bbn.Engine(old)
        >>> answer = engine.posteriors(Evidence({"A": 0, "λ(W)": 0}, {}, {}))
        >>> again = engine.reweighed(new, ["λ(W)"])
        >>> again.cached_trees == engine.cached_trees
        True
        >>> fresh = bbn.Engine(new).posteriors(Evidence({"A": 0, "λ(W)": 0}, {}, {}))
        >>> shared = again.posteriors(Evidence({"A": 0, "λ(W)": 0}, {}, {}))
        >>> bool(np.allclose(shared["C"].values, fresh["C"].values, atol=1e-15))
        True
        """
        engine = type(self)(network)
        engine._junction_order = self._junction_order
        tables = {v: network.table(v) for v in changed}
        with self._once.lock:
            kept = list(self._trees.items())
        for key, tree in kept:
            if set(changed) <= set(key):
                engine._trees[key] = _replaced(tree, tables)
        return engine

    def weighed_posteriors(self, evidence: Evidence, weights: Mapping[str, np.ndarray]
                           ) -> dict[str, Factor]:
        """P(X | e, λ) for every variable X, by one propagation in the junction tree of
        this network with a virtual child per weighed variable, observed: the tree is
        compiled once per shape (the observed and weighed variables, and whether each λ
        has a zero) and its virtual children's tables are given with each call, so new
        numbers cost a propagation — no new view, engine or tree.

        Parameters
        ----------
        evidence : Evidence
            The hard findings, state indices (no Gaussian leaves).
        weights : dict
            ``{variable: λ}``, each λ ≥ 0, not all 0, with one number per state.

        Returns
        -------
        dict
            ``{variable: Factor}`` in declaration order, observed variables one-hot.

        Raises
        ------
        ImpossibleEvidenceError
            When P(e, λ) = 0.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> marginals = engine.weighed_posteriors(Evidence({"A": 0}, {}, {}),
        ...                                       {"W": np.array([0.8, 0.4])})
        >>> marginals["C"].values.round(6).tolist()
        [0.936426, 0.063574]
        """
        shape = tuple(sorted((v, 0.0 not in w.tolist()) for v, w in weights.items()))
        engine, virtual = self._virtual_engine(shape)
        indices = {**evidence.states, **dict.fromkeys(virtual.values(), 0)}
        slices = {virtual[v]: w / w.max() for v, w in weights.items()}  # P(yes | w)

        def eliminate(variables: Sequence[str], codes: Mapping[str, np.ndarray]):
            """What a propagation falls back on: the weighed elimination, in logs where
            underflow threatens (the virtual children's λ given with it)."""
            cases = len(next(iter(codes.values())))
            return self.weighed_posterior_of_cases(
                variables, {u: c for u, c in codes.items() if u not in slices},
                {v: np.broadcast_to(w, (cases, len(w))) for v, w in weights.items()},
                impossible="nan")

        source = engine._tree_source()._replace(eliminate=eliminate)
        result = _trees("posteriors_one")(source, indices, evidence.given, slices)
        for v in (*virtual.values(), *self.network.auxiliary):
            del result[v]
        return result

    def _virtual_engine(self, shape: tuple) -> tuple:
        """(the engine of this network with a virtual child per weighed variable of
        ``shape``, their names), made once per shape, the last :data:`KEPT_SHAPES` kept
        (each engine keeps its junction trees within the memory limit)."""
        kept, lock = self._weighed_engines, self._once.lock
        with lock:
            found = kept.get(shape)
            if found is not None:
                kept.move_to_end(shape)
                return found
        # the tables of the virtual children are placeholders: each call gives its own
        view, virtual = virtual_view(self.network, {v: np.array(
            [1.0] * self.network.cardinality[v] if positive else
            [1.0] + [0.0] * (self.network.cardinality[v] - 1)) for v, positive in shape})
        engine = type(self)(view)
        # the virtual children are observed in every tree: the order of the hidden
        # variables is this network's (searched once, not again per shape)
        engine._junction_order = self.junction_order()
        made = (engine, virtual)
        with lock:
            found = kept.setdefault(shape, made)
            kept.move_to_end(shape)
            while len(kept) > KEPT_SHAPES:
                kept.popitem(last=False)
        return found

    def weighed_posterior_of_cases(self, variables: Sequence[str],
                                   codes: Mapping[str, np.ndarray],
                                   weights: Mapping[str, np.ndarray], row_names=None,
                                   impossible: str = "raise") -> np.ndarray:
        """P(variables | e_i, λ_i) for N cases: hard findings as state indices (−1 where a
        case does not observe the variable), each case's own likelihoods; one batched
        elimination per group of cases observing the same columns.

        Parameters
        ----------
        variables : sequence of str
            The query variables.
        codes : dict
            ``{variable: (N,) state indices}``, −1 where missing.
        weights : dict
            ``{variable: (N, |W|) likelihoods}`` (a row of ones: no finding on W).
        row_names : sequence, optional
            How errors name the cases.
        impossible : {"raise", "nan"}
            What to do with a case whose evidence is impossible.

        Returns
        -------
        numpy.ndarray
            Shape ``(N, |X1|, ..., |Xk|)``.

        Raises
        ------
        ImpossibleEvidenceError
            For a case whose evidence is impossible (NaN rows with ``impossible="nan"``).

        Examples
        --------
        >>> import bbn, numpy as np
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.weighed_posterior_of_cases(
        ...     ["C"], {"A": np.array([0, 0])},
        ...     {"W": np.array([[0.8, 0.4], [1.0, 0.0]])}).round(6).tolist()
        [[0.936426, 0.063574], [0.998583, 0.001417]]
        """
        variables = list(variables)
        n = len(next(iter(weights.values())))
        shape = tuple(self.network.cardinality[v] for v in variables)
        columns = list(codes)
        matrix = (np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
                  if columns else np.zeros((n, 0), dtype=np.intp))
        result = np.empty((n,) + shape)
        for rows, pattern in (observed_groups(matrix >= 0) if n else ()):
            observed = [c for c, seen in zip(columns, pattern) if seen]
            group = {v: np.asarray(w, dtype=float)[rows] for v, w in weights.items()}
            plan = self.weighed_plan(variables, observed, tuple(
                (v, bool((w > 0).all())) for v, w in group.items()), batched=True)
            table, _ = self.run_weighed(plan, {c: matrix[rows, columns.index(c)]
                                               for c in observed}, group, cases=len(rows))
            if plan.result_variables[:1] != (CASE,):  # the evidence says nothing of it
                table = np.broadcast_to(table, (len(rows),) + shape)
            totals = table.reshape(len(rows), -1).sum(axis=1)
            zero = ~(totals > 0)
            if zero.any():
                if impossible == "raise":
                    k = int(np.flatnonzero(zero)[0])
                    row = int(rows[k])
                    states = self.network.states
                    shown = {**{c: states[c][int(matrix[row, columns.index(c)])]
                                for c in observed},
                             **{v: dict(zip(states[v], w[k].tolist()))
                                for v, w in group.items()}}
                    raise impossible_case(shown, row, row_names)
                totals[zero] = np.nan
            result[rows] = table / totals.reshape((-1,) + (1,) * len(shape))
        return result


def _weighed_tables(plan: Plan, weights: Mapping[str, np.ndarray]
                    ) -> tuple[list[np.ndarray], dict[str, np.ndarray | int]]:
    """A weighed plan's tables with each virtual child's λ in place — ``(|W|, 1)``, or
    ``(|W|, N)`` for N cases — and where each is read (state 0, or case k column k)."""
    tables, read = list(plan.tables), {}
    for i, v in plan.weighed:  # a virtual child of W: λ_W, read where it is observed
        w = weights[v]
        name = plan.sources[i].variable
        if w.ndim == 2:  # a batch: case k reads column k
            tables[i], read[name] = w.T, np.arange(len(w))
        else:
            tables[i], read[name] = w[:, None], 0
    return tables, read


def posterior_factor(states: Mapping[str, tuple[str, ...]], variables: list[str],
                     free: list[str], evidence: Evidence, table: np.ndarray) -> Factor:
    """The posterior of ``variables`` from ``table`` (the unnormalised joint of the
    ``free`` ones with the evidence): normalised, each observed variable a one-hot axis
    at its state, in the order of ``variables``; ImpossibleEvidenceError when it sums
    to 0.

    >>> from bbn.engines.protocol import Evidence
    >>> posterior_factor({"A": ("T", "F"), "B": ("T", "F")}, ["B", "A"], ["A"],
    ...                  Evidence({"B": 1}, {}, {}), np.array([1.0, 3.0])).values.tolist()
    [[0.0, 0.0], [0.25, 0.75]]
    """
    total = table.sum()
    if not total > 0:
        raise ImpossibleEvidenceError(evidence.given)
    values = table / total
    indices = evidence.states
    for v in variables:
        if v in indices:  # P(V = v | ..., V = e) is 1 at e: a one-hot axis
            one_hot = np.zeros(len(states[v]))
            one_hot[indices[v]] = 1.0
            values = np.multiply.outer(values, one_hot)
    order = tuple(free + [v for v in variables if v in indices])
    result = Factor.unchecked(order, {v: states[v] for v in order}, values)
    return result.transpose(variables)


def _replaced(tree: JunctionTree, tables: Mapping[str, np.ndarray]) -> JunctionTree:
    """``tree`` sharing everything but the evidence tables of ``tables``' variables (each
    over (parent, itself), observed, the parent not), which take those numbers, laid out
    as the tree lays them (the observed axis first). The trees share the arrays reused
    between calls, and the lock that gives them to one call at a time."""

    def placed(table: Table) -> Table:
        if table.variable not in tables:
            return table
        values = np.ascontiguousarray(tables[table.variable].T)
        if values.shape != table.values.shape:
            raise ValueError(f"{table.variable}: {values.shape}, not {table.values.shape}")
        table = copy.copy(table)  # a shallow copy: dataclasses.replace costs five times more
        table.values = values
        return table

    if tree.joint is not None:
        joint = tree.joint
        return dataclasses.replace(tree, joint=dataclasses.replace(
            joint, tables=[(placed(t), spread) for t, spread in joint.tables]))
    cliques = list(tree.cliques)
    for i, clique in enumerate(cliques):
        if any(t.variable in tables for t in clique.tables):
            cliques[i] = clique = copy.copy(clique)
            clique.tables = [placed(t) for t in clique.tables]
    return dataclasses.replace(tree, cliques=cliques)  # the lock and reused arrays shared

"""Exact inference beyond memory by conditioning: time for space.

When the junction tree of a question does not fit the memory limit, fixing a few
variables C (a *cutset*) cuts the graph: every tree given e and C = c is smaller, and the
sum over C's states is exact::

    P(X, e) = Σ_c P(X, e, c) = Σ_c P(e, c) · P(X | e, c)
    Z(e)    = Σ_c P(e, c)                         P(X | e) = P(X, e) / Z(e)

1. **The cutset**, greedily: eliminate the hidden variables in weighted min-fill order
   (:func:`bbn.engines.exact.ordering.greedy_order`); while the tables that order makes
   (all held at once: a junction tree's cliques) exceed the memory limit, condition on the
   variable whose tables over the limit's share are largest in all, per state it adds
   (its clique entries / its states), and order again.
2. **The assignments**: the states of C left by the tables' zeros (generalised arc
   consistency given e, :func:`bbn.engines.approximate.supports.supported_states`), built
   one variable at a time as rows of an array, each table whose cutset variables are all
   placed dropping the rows it rules out (its entries, given e and the other variables'
   supported states, all 0: forward checking). What is left is the exact count run.
3. **The estimate before starting**: one junction tree is compiled for e ∪ C in the order
   of step 1; a probe of a few assignments is timed, and the time of the rest is
   extrapolated (``assignments × seconds per assignment``): linkage-size instances are
   hours, and that is said before they start.
4. **The sum**: batches of assignments, each one batched propagation of that tree (the
   assignments are the cases of :func:`bbn.engines.exact.junction_tree.marginals_of_cases`,
   a leading axis of N) and one batched elimination for P(e, c) (logs where it
   underflows); weights accumulated against a running maximum of log P(e, c); progress
   after each batch.

An assignment with P(e, c) = 0 adds nothing; only when every assignment gives 0 is the
evidence impossible — proved exactly (ImpossibleEvidenceError).

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> view = net.compiled()
>>> found = CutsetConditioning(net.engine, {"A": 0}, cutset=["B"]).run()
>>> found.cutset, found.assignments, round(float(found.marginals["C"][0]), 6)
(('B',), 2, 0.886749)
>>> round(found.log_weight, 6) == round(net.engine.log_weight({"A": 0}), 6)
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, MemoryLimitError, QueryError
from bbn.core.memory import ENTRY_BYTES, check_allocation, format_bytes, get_memory_limit
from bbn.core.progress import Progress, report, reporter
from bbn.engines.approximate.supports import supported_states
from bbn.engines.exact.clique_building import build_cliques
from bbn.engines.exact.contraction import contract
from bbn.engines.exact.elimination import (
    CASE,
    Cost,
    Plan,
    check_memory,
    fits,
    slice_tables,
)
from bbn.engines.exact.junction_tree import TreeSource, compile_cliques, marginals_of_cases
from bbn.engines.exact.ordering import eliminate, greedy_order, interaction_graph
from bbn.views.factor_graph import FactorGraph

if TYPE_CHECKING:
    from bbn.engines.exact.engine import Engine

#: Assignments enumerated at most (rows of the array of cutset states): beyond this the
#: conditioning is refused before it starts, with the count's bound.
MOST_ASSIGNMENTS = 1 << 24

#: Cutset variables chosen at most.
MOST_CUTSET = 40

#: Assignments in the timed probe before the estimate.
PROBE = 4

#: Batches the run is cut into at least (one progress report each), memory permitting.
BATCHES = 20


class TreeSize(NamedTuple):
    """The tables an elimination order makes: their entries, all and the largest, and
    each step's clique (variables, entries)."""

    total: int
    largest: int
    cliques: list[tuple[tuple[str, ...], int]]

    def peak(self) -> int:
        """Entries alive at the peak of a junction tree of these cliques with evidence on
        every clique, one case (:func:`bbn.engines.exact.cliques.tree_cost`): every
        potential, the dirty ones again, and a belief with its sums."""
        return 2 * self.total + 2 * self.largest


def tree_size(adjacency: Mapping[str, set[str]], card: Mapping[str, int],
              order: Sequence[str]) -> TreeSize:
    """The cliques that eliminating ``order`` from the interaction graph ``adjacency``
    makes (the graph is not modified).

    Examples
    --------
    >>> path = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    >>> tree_size(path, {"A": 2, "B": 3, "C": 2}, ["A", "B", "C"]).total
    14
    """
    work = {v: set(n) for v, n in adjacency.items()}
    cliques = []
    for v in order:
        members = (v, *eliminate(work, v))
        cliques.append((members, math.prod(card[u] for u in members)))
    sizes = [size for _, size in cliques]
    return TreeSize(sum(sizes), max(sizes, default=1), cliques)


def hidden_graph(parents: Mapping[str, tuple[str, ...]], observed: set[str]) -> dict:
    """The interaction graph of the families with the observed variables sliced away."""
    graph = interaction_graph([u for u in (*parents[v], v) if u not in observed]
                              for v in parents)
    return {v: links for v, links in graph.items() if v not in observed}


def choose_cutset(parents: Mapping[str, tuple[str, ...]], card: Mapping[str, int],
                  observed: Sequence[str], entries: int,
                  fits_too: Callable[[list[str], list[str]], bool] | None = None
                  ) -> tuple[tuple[str, ...], list[str], TreeSize]:
    """A cutset C that brings the greedy tree given ``observed`` ∪ C to at most
    ``entries`` at its peak (:meth:`TreeSize.peak`), the order of the rest and its size;
    ``fits_too(observed + C, order)``, when given, must hold too (the tree actually built
    in that order, and P(e, c)'s elimination, fit).

    Each round conditions on the variable with the most clique entries over the limit's
    share (a quarter of ``entries``) per state it adds; at most MOST_CUTSET rounds
    (MemoryLimitError then: no small cutset).

    Examples
    --------
    >>> parents = {"A": (), "B": ("A",), "C": ("A",), "D": ("B", "C")}
    >>> choose_cutset(parents, dict.fromkeys(parents, 2), [], 60)[0]  # 2·22 + 2·8 fits
    ()
    >>> cutset, order, size = choose_cutset(parents, dict.fromkeys(parents, 2), [], 30)
    >>> cutset, order, size.total                     # C fixed: a chain B–D–A left
    (('C',), ['A', 'B', 'D'], 10)
    """
    cutset: list[str] = []
    seen = set(observed)
    while True:
        graph = hidden_graph(parents, seen)
        order = greedy_order(graph, card, list(graph))
        size = tree_size(graph, card, order)
        if size.peak() <= entries and (fits_too is None or fits_too([*observed, *cutset], order)):
            return tuple(cutset), order, size
        if len(cutset) >= MOST_CUTSET or not graph:
            raise MemoryLimitError(
                f"no cutset of at most {MOST_CUTSET} variables brings the junction tree "
                f"under the memory limit of {format_bytes(get_memory_limit())} (still "
                f"{format_bytes(size.peak() * ENTRY_BYTES)} with {len(cutset)})")
        share = max(entries // 4, 1)
        scores: dict[str, float] = {}
        for members, entries_of in size.cliques:
            if entries_of > share or entries_of == size.largest:
                for u in members:
                    scores[u] = scores.get(u, 0) + entries_of
        chosen = max(scores, key=lambda u: (scores[u] / card[u], u))
        cutset.append(chosen)
        seen.add(chosen)


def consistent_assignments(graph: FactorGraph, evidence: Mapping[int, int],
                           cutset: Sequence[int]) -> np.ndarray:
    """The cutset's joint states (rows of state indices, columns in ``cutset`` order) that
    the tables' zeros leave: domains by arc consistency given the evidence, then every
    table with cutset variables checked as soon as they are all placed (its entries
    given e, over the other variables' supported states, all 0: the row goes).

    Raises
    ------
    ImpossibleEvidenceError
        When arc consistency empties a domain, or no row is left (a proof).
    MemoryLimitError
        Beyond MOST_ASSIGNMENTS rows.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[1.0, 0.0], [0.5, 0.5]]),))
    >>> consistent_assignments(graph, {}, [0, 1]).tolist()
    [[0, 0], [1, 0], [1, 1]]
    """
    domains = supported_states(graph, evidence)
    column = {v: j for j, v in enumerate(cutset)}
    # per table with cutset variables: its support over them, given the others' domains
    checks: dict[int, list[tuple[tuple[int, ...], np.ndarray]]] = {}
    for scope, table in zip(graph.scopes, graph.tables):
        inside = [v for v in scope if v in column]
        if not inside:
            continue
        allowed = np.asarray(table) > 0
        for axis, v in enumerate(scope):
            shape = [1] * len(scope)
            shape[axis] = -1
            allowed = allowed & domains[v].reshape(shape)
        others = tuple(a for a, v in enumerate(scope) if v not in column)
        support = allowed.any(axis=others) if others else allowed
        order = sorted(range(len(inside)), key=lambda k: column[inside[k]])
        support = support.transpose(order)
        inside = [inside[k] for k in order]
        last = max(column[v] for v in inside)
        checks.setdefault(last, []).append((tuple(column[v] for v in inside), support))
    most = max((int(graph.cardinality[v]) for v in cutset), default=1)
    kind = np.uint8 if most <= 256 else np.int32  # a row of 24 binary states: 24 bytes
    rows = np.zeros((1, 0), dtype=kind)
    for j, v in enumerate(cutset):
        states = np.flatnonzero(domains[v]).astype(kind)
        bound = len(rows) * math.prod(int(domains[u].sum()) for u in cutset[j:])
        if len(rows) * len(states) > MOST_ASSIGNMENTS:
            raise MemoryLimitError(
                f"cutset conditioning would enumerate over {MOST_ASSIGNMENTS:,} assignments "
                f"of its {len(cutset)} variables (at most {bound:.3g} after the zeros)")
        check_allocation(2 * len(rows) * len(states) * (j + 1),
                         f"the {len(cutset)} cutset variables' assignments",
                         entry_bytes=rows.itemsize)
        rows = np.concatenate([np.repeat(rows, len(states), axis=0),
                               np.tile(states, len(rows))[:, None]], axis=1)
        for columns, support in checks.get(j, ()):
            rows = rows[support[tuple(rows[:, c] for c in columns)]]
    if not len(rows):
        named = {graph.variables[v]: graph.states[v][s] for v, s in evidence.items()}
        raise ImpossibleEvidenceError(named, "impossible evidence: P("
                                      + ", ".join(f"{k}={s}" for k, s in named.items())
                                      + ") = 0 under this model (propagating the tables' "
                                      "zeros over the cutset's states: none is left)")
    return rows


def every_table(network) -> FactorGraph:
    """The factor graph of every table of the view, a Markov network's factor nodes (its
    ``constraints``, not among its ``variables``) and a compact table's chain included.

    Examples
    --------
    >>> import bbn
    >>> every_table(bbn.load("models/chair.bn").compiled()).scopes[3]
    (0, 1, 3)
    """
    names = tuple(network.parents)
    index = {v: i for i, v in enumerate(names)}
    return FactorGraph(names, tuple(tuple(network.states[v]) for v in names),
                       tuple(tuple(index[u] for u in (*network.parents[v], v)) for v in names),
                       tuple(network.table(v) for v in names))


def scaled_weights(plan: Plan, arrays: Sequence[np.ndarray], cases: int,
                   support: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Run a batched plan of P(e_i) (no query: its result is over the case axis) with each
    step's output divided by its largest entry per case, the logs of the divisors summed:
    P(e_i) = value_i × exp(log_i), with no underflow between steps (pedigree linkage's
    P(e, c) ≈ 1e-316 in linear time, where the elimination in logs took 3–4 × longer).
    A value of 0 is a true 0 or a product that underflowed inside one step; with
    ``support`` the tables are read as 0/1 (nonzero) and every output as its support, so
    0 is exactly P(e_i) = 0.

    Examples
    --------
    >>> import bbn
    >>> engine = bbn.load("models/chair.bn").engine
    >>> plan = engine.weights_plan(["A"])
    >>> arrays = slice_tables(plan, plan.tables, {"A": np.array([0, 1])})
    >>> value, log = scaled_weights(plan, arrays, 2)
    >>> (value * np.exp(log)).round(6).tolist()
    [0.206056, 0.793944]
    """
    factors: list = [(a > 0).astype(float) if support else a for a in arrays]
    logs = np.zeros(cases)
    for step in plan.steps:
        operands = [factors[i] for i in step.inputs]
        out = (contract(operands, step.subscripts, step.output, step.path, step.wide)
               if operands else np.ones(()))
        for i in step.inputs:
            factors[i] = None
        if support:
            out = (out > 0).astype(float)
        elif out.size:
            if CASE in step.variables:
                k = step.variables.index(CASE)
                top = np.moveaxis(out, k, 0).reshape(out.shape[k], -1).max(axis=1)
                top = np.where(top > 0, top, 1.0)
                shape = [1] * out.ndim
                shape[k] = -1
                out = out / top.reshape(shape)
                logs += np.log(top)
            else:
                top = float(out.max())
                if top > 0:
                    out = out / top
                    logs += math.log(top)
        factors.append(out)
    value = np.broadcast_to(np.asarray(factors[-1], dtype=float).reshape(-1), (cases,))
    return value, logs


class _Measured(Exception):
    """Raised by the memory callback of :func:`measured_tree`: the cost is known, stop."""


def measured_tree(engine: Engine, observed: Sequence[str], order: Sequence[str]) -> Cost:
    """The peak of the junction tree given ``observed`` built in ``order`` (its cliques
    merged as :func:`~bbn.engines.exact.clique_building.build_cliques` merges them), known
    before anything is allocated.

    Examples
    --------
    >>> import bbn
    >>> engine = bbn.load("models/chair.bn").engine
    >>> measured_tree(engine, ["A"], ["W", "B", "C", "S"])   # one clique C, S, W, B
    Cost(fixed=16, per_case=48, largest=16, width=3)
    """
    found: list[Cost] = []

    def room(cost: Cost) -> int:
        found.append(cost)
        raise _Measured

    try:
        build_cliques(engine.network, list(observed), list(order), engine.normalised_tables(),
                      room)
    except _Measured:
        pass
    return found[0]


class CutsetAnswer(NamedTuple):
    """What conditioning found: ``marginals`` (variable → P(X | e), the observed and
    conditioned ones too), ``log_weight`` = ln Σ_c P(e, c) (ln Z(e)), the ``cutset``, the
    ``assignments`` summed, the ``seconds`` it took and the ``estimated`` seconds said
    before the sum started."""

    marginals: dict[str, np.ndarray]
    log_weight: float
    cutset: tuple[str, ...]
    assignments: int
    seconds: float
    estimated: float


class CutsetConditioning:
    """Exact answers of one evidence by summing over a cutset's states (see the module).

    Parameters
    ----------
    engine : Engine
        The exact engine of the network (no Gaussian leaves).
    evidence : mapping
        ``{variable: state index}`` (a Markov network's constraints included).
    cutset : sequence of str, optional
        The variables to condition on (default: chosen greedily for ``entries``).
    entries : int, optional
        The tree's peak allowed, in entries (default: the memory limit's).

    Examples
    --------
    >>> import bbn
    >>> conditioning = CutsetConditioning(bbn.load("models/chair.bn").engine, {})
    >>> conditioning.cutset, len(conditioning.rows)      # the tree fits: nothing to fix
    ((), 1)
    """

    def __init__(self, engine: Engine, evidence: Mapping[str, int],
                 cutset: Sequence[str] | None = None, entries: int | None = None) -> None:
        network = engine.network
        if network.gaussian:
            raise QueryError("cutset conditioning takes discrete networks only; "
                             f"{next(iter(network.gaussian))!r} is a Gaussian leaf")
        self.engine, self.evidence = engine, dict(evidence)
        if entries is None:
            entries = get_memory_limit() // ENTRY_BYTES
        parents, card = dict(network.parents), dict(network.cardinality)
        if cutset is None:
            def fits_too(observed: list[str], order: list[str]) -> bool:
                return (fits(engine.weights_plan(observed, order).cost)
                        and fits(measured_tree(engine, observed, order)))

            cutset, self.order, self.size = choose_cutset(parents, card, list(evidence),
                                                          entries, fits_too)
        else:
            graph = hidden_graph(parents, set(evidence) | set(cutset))
            self.order = greedy_order(graph, card, list(graph))
            self.size = tree_size(graph, card, self.order)
        self.cutset = tuple(cutset)
        graph = every_table(network)
        index = {v: i for i, v in enumerate(graph.variables)}
        self.rows = consistent_assignments(graph, {index[v]: s for v, s in evidence.items()},
                                           [index[v] for v in self.cutset])
        self.observed = [*self.evidence, *self.cutset]
        self._tree = None
        self._probe: tuple | None = None  # (rows done, their batches' answers, estimate)

    def __repr__(self) -> str:
        return (f"CutsetConditioning({len(self.cutset)} variables, {len(self.rows):,} "
                f"assignments, tree of {self.size.total:.2e} entries)")

    # ----------------------------------------------------------------- the parts
    def _source(self) -> TreeSource:
        """The tree for e ∪ C in this order (compiled once) and the engine's fallbacks."""
        engine = self.engine
        if self._tree is None:
            self._tree = compile_cliques(engine.network, self.observed, self.order,
                                         engine.normalised_tables())
        return TreeSource(engine.network, engine.normalised_tables, lambda: self.order,
                          lambda observed: self._tree,
                          lambda variables, codes: engine.posterior_of_cases(
                              variables, codes, impossible="nan"))

    def _codes(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The cases of a batch of assignments: the evidence repeated, the cutset's rows."""
        codes = {v: np.full(len(rows), s, dtype=np.intp) for v, s in self.evidence.items()}
        codes.update({v: rows[:, j].astype(np.intp) for j, v in enumerate(self.cutset)})
        return codes

    def _batch(self, rows: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """ln P(e, c) (−inf where 0) and P(X | e, c) (only for the rows with P(e, c) > 0:
        the others add nothing) for each row."""
        codes = self._codes(rows)
        logs = self._log_weights(codes, len(rows))
        live = np.flatnonzero(logs > -math.inf)
        marginals = marginals_of_cases(self._source(), {v: c[live] for v, c in codes.items()},
                                       cases=len(live), impossible="nan") if len(live) else {}
        return logs[live], marginals

    def _log_weights(self, codes: Mapping[str, np.ndarray], cases: int) -> np.ndarray:
        """ln P(e, c) for a batch: the scaled run (:func:`scaled_weights`); where it gives
        0, the supports' run tells a true 0 (−inf) from an underflow (then the elimination
        in logs, exact)."""
        if not codes:
            return np.zeros(cases)
        engine = self.engine
        plan = engine.weights_plan(list(codes), self.order)
        check_memory(plan.cost, cases)
        arrays = slice_tables(plan, plan.tables, codes)
        value, logs = scaled_weights(plan, arrays, cases)
        with np.errstate(divide="ignore"):
            logs = np.log(value) + logs
        zero = np.flatnonzero(value == 0)
        if len(zero):
            part = {v: c[zero] for v, c in codes.items()}
            possible, _ = scaled_weights(plan, slice_tables(plan, plan.tables, part),
                                         len(zero), support=True)
            redo = zero[possible > 0]
            if len(redo):
                logs[redo] = engine.log_weights_of_cases({v: c[redo] for v, c in codes.items()},
                                                         len(redo), self.order)
        return logs

    def batch_size(self) -> int:
        """Assignments per batch: a twentieth of them (one progress report each), as many
        as the memory limit allows the tree and P(e, c)'s elimination per case."""
        tree = self._tree
        plan = self.engine.weights_plan(self.observed, self.order)
        room = get_memory_limit() // ENTRY_BYTES - (tree.cost.fixed if tree else 0)
        per_case = max((tree.cost.per_case if tree else 1), plan.cost.per_case, 1)
        return int(max(1, min(room // per_case, -(-len(self.rows) // BATCHES))))

    # ------------------------------------------------------------------ answers
    def estimate(self) -> float:
        """Seconds the whole sum should take: the tree compiled and a first assignment
        run (the first call compiles the weights' plan and fills caches: counted as
        spent), then a probe of up to PROBE more timed, its seconds per assignment
        extrapolated to the rest (the batches done are kept for :meth:`run`).

        Examples
        --------
        >>> import bbn
        >>> CutsetConditioning(bbn.load("models/chair.bn").engine, {}).estimate() >= 0
        True
        """
        if self._probe is None:
            start = time.perf_counter()
            self._source()
            batches = [self._batch(self.rows[:1])]
            spent = time.perf_counter() - start
            rows = self.rows[1:1 + min(PROBE, self.batch_size())]
            start = time.perf_counter()
            if len(rows):
                batches.append(self._batch(rows))
            each = (time.perf_counter() - start) / max(len(rows), 1)
            done = 1 + len(rows)
            self._probe = (done, batches, spent + each * len(rows) + each * (
                len(self.rows) - done))
        return self._probe[2]

    def run(self, progress: Progress = None) -> CutsetAnswer:
        """Sum over every assignment: P(X | e) of every variable and ln Z(e).

        Parameters
        ----------
        progress : callable, bool or None
            Told after each batch (``Step("cutset", done, total)``; see
            :mod:`bbn.core.progress`); the first report, at 0, carries the estimate.

        Returns
        -------
        CutsetAnswer

        Raises
        ------
        ImpossibleEvidenceError
            When P(e, c) = 0 for every assignment c: P(e) = 0, exactly.
        """
        start = time.perf_counter()
        tell = reporter(progress)
        estimated = self.estimate()
        total = len(self.rows)
        report(tell, "cutset", 0, total, f"{len(self.cutset)} variables conditioned on, "
               f"estimated {estimated:.3g} s")
        done, batches, _ = self._probe
        top, weight, sums = -math.inf, 0.0, {}
        for logs, marginals in batches:
            top, weight = self._add(logs, marginals, top, weight, sums)
        report(tell, "cutset", done, total)
        size = self.batch_size()
        while done < total:
            logs, marginals = self._batch(self.rows[done:done + size])
            top, weight = self._add(logs, marginals, top, weight, sums)
            done = min(done + size, total)
            report(tell, "cutset", done, total)
        if not weight > 0:
            network = self.engine.network
            raise ImpossibleEvidenceError(
                {v: network.states[v][s] for v, s in self.evidence.items()
                 if v not in network.constraints},
                "impossible evidence: P(e) = 0 under this model (exactly: P(e, c) = 0 for "
                f"each of the {total:,} states of the cutset {list(self.cutset)})")
        result = {v: values / values.sum() for v, values in sums.items()}
        return CutsetAnswer(result, top + math.log(weight), self.cutset, total,
                            time.perf_counter() - start, estimated)

    @staticmethod
    def _add(logs: np.ndarray, marginals: Mapping[str, np.ndarray], top: float, weight: float,
             sums: dict) -> tuple[float, float]:
        """Weigh a batch's P(X | e, c) by P(e, c) = exp(logs) into ``sums`` (in place),
        all scaled by exp(−top), the largest log weight so far; the new (top, weight)."""
        best = float(logs.max(initial=-math.inf))
        if best == -math.inf:
            return top, weight
        if best > top:
            shrink = math.exp(top - best) if top > -math.inf else 0.0
            for v in sums:
                sums[v] *= shrink
            top, weight = best, weight * shrink
        w = np.exp(logs - top)
        live = w > 0
        for v, p in marginals.items():
            term = w[live] @ np.asarray(p)[live]
            sums[v] = sums[v] + term if v in sums else term
        return top, weight + float(w.sum())


__all__ = ["CutsetAnswer", "CutsetConditioning", "choose_cutset", "consistent_assignments",
           "every_table", "hidden_graph", "measured_tree", "tree_size"]

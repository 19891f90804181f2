"""Variable elimination, compiled once per question shape and replayed on numbers.

A *question shape* is (which variables are queried, which are observed). Everything
that depends only on the shape — the pruned set of tables, how each is sliced by the
evidence, the elimination order and each step's einsum — is compiled into a
:class:`Plan` and kept by the network's engine (:class:`bbn.Engine`). Answering then
only indexes the tables with the evidence values and runs the einsums.

Sum-product elimination of X from the factors φ1..φk that mention it::

    ψ(N(X)) = Σ_x Π_i φi        (one ``numpy.einsum`` per step)

A batch of N evidence rows is the same plan run with arrays of state indices instead
of single indices: sliced tables gain a leading case axis ``CASE`` that is never
summed out, so N rows cost one pass.

Underflow: products of many small entries fall below the smallest double (1e-308) and
read as 0. A result whose largest entry (per case) is at least TRUSTED = 1e-200 cannot
have lost anything that matters (a lost term is < 1e-308, below 1e-108 of it); any other
result — P(e) = 1e-4000, or a false 0 — is computed again in logs (:func:`evaluate`)::

    log ψ(N(X)) = log Σ_x exp(Σ_i log φi)      (max and argmax for MAP steps)

and returned as a mantissa (largest entry 1) times exp(log scale), so that 0 means
P = 0 exactly. einsum takes at most 63 operands: a step with more multiplies its 0-d
factors first and contracts the rest in groups (:func:`contract`).

Memory is checked against the limit before anything is allocated, on the peak of
everything alive at once (:class:`Cost`), not on the largest table alone. Replaying the
plan's steps on sizes, the peak is the largest, over steps, of::

    alive (sliced tables, unconsumed step outputs, argmax tables of max steps)
    + k × the step's product Π_{U ∈ inputs} |U|  (k = 3 for a max step, which
      materialises it; 2 for a sum of more than two tables, contracted pairwise; 0 for
      one or two, which einsum sums without storing the product)
    + the step's output (twice for a max step: max and argmax)

with the entries over the case axis counted N times for a batch of N cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import NamedTuple

import numpy as np

from bbn.core.memory import ENTRY_BYTES, check_allocation, format_bytes, get_memory_limit
from bbn.engines.exact.contraction import OPERANDS, Step, max_product, sum_product
from bbn.engines.exact.ordering import eliminate_greedily, interaction_graph


class _CaseAxis:
    """The batch axis: a name no variable can have, since variable names are strings."""

    def __repr__(self) -> str:
        return "<case>"


#: Name of the batch axis in plans.
CASE = _CaseAxis()

#: Products of at least this many entries are contracted pairwise along a cached path.
_PAIRWISE_FROM = 1 << 16

#: Cases assumed when a batched plan's contraction paths are planned (the case axis's
#: size is known only when the plan runs; paths are fixed when it is compiled).
_PATH_CASES = 256

#: Distinct subscripts einsum accepts; plans with more variables number them per step.
_LETTERS = 52


#: A result whose largest entry is at least this lost nothing to underflow that matters.
TRUSTED = 1e-200

#: Entries below this may hold denormal (imprecise) parts: 1e-310 has 13 digits, 1e-320 3.
SHARP = 1e-280


@dataclass(frozen=True, slots=True)
class Cost:
    """Entries (float64) alive at once at the peak of a computation: ``fixed`` ones plus
    ``per_case`` for each case of a batch (an upper bound: the two maxima may come from
    different moments); ``largest`` is the largest single table and ``width`` the induced
    width, for the message."""

    fixed: int
    per_case: int
    largest: int
    width: int

    def entries(self, cases: int = 1) -> int:
        """Entries alive at the peak for ``cases`` cases."""
        return self.fixed + max(cases, 1) * self.per_case


class Source(NamedTuple):
    """One table of a plan, as the evidence slices it."""

    #: the variable whose table P(variable | parents) this is
    variable: str
    #: its variables fixed by evidence (indexed away), in the order they are indexed
    fixed: tuple[str, ...]
    #: the variables of the sliced factor (with the case axis first in a batch)
    free: tuple
    #: the transposition that puts the fixed axes first; None when nothing is fixed
    axes: tuple[int, ...] | None


@dataclass
class Plan:
    """A compiled elimination for one question shape.

    ``sources`` are the tables it multiplies (:class:`Source`); steps refer to factors by
    index (sources first, then step outputs in order). ``result`` holds the index of the
    final factor. ``tables`` are the network's tables of ``sources``, set by the engine
    before it keeps the plan (see :meth:`bbn.Engine.plan`).
    """

    sources: list[Source]
    steps: list[Step] = field(default_factory=list)
    result: int = -1
    result_variables: tuple[str, ...] = ()
    largest_table: int = 0  # entries, without the batch axis
    width: int = 0  # induced width: largest number of variables in one table, minus one
    cost: Cost = Cost(0, 0, 0, 0)  # the peak of the run (see check_memory)
    tables: list[np.ndarray] | None = None
    #: (position in ``sources``, weighed variable) of each virtual child of a weighed plan
    weighed: tuple[tuple[int, str], ...] = ()
    #: (variable, (N,) state indices) of each variable whose states vary over the cases
    #: of a plan batched over every joint state of some variables
    cases: tuple[tuple[str, np.ndarray], ...] = ()
    #: log of the smallest positive product of one entry of each table (−inf where not
    #: known; None until first run): :func:`evaluate` needs no run in logs above TRUSTED
    floor: float | None = None
    #: the outputs of the steps that read no evidence and no per-question table, found
    #: at the first run (:func:`fold_constants`): (the ``tables`` list they come from,
    #: step index → its table, or None for a step only other such steps read)
    constants: tuple[list, dict[int, np.ndarray | None]] | None = None


def relevant_variables(parents: Mapping[str, tuple[str, ...]], targets: set[str]) -> set[str]:
    """``targets`` and their ancestors: the variables that are not barren.

    A variable none of whose descendants is queried or observed sums out to 1, so it
    and its table can be dropped before elimination.
    """
    seen = set(targets)
    stack = list(targets)
    while stack:
        for p in parents[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def compile_plan(parents: Mapping[str, tuple[str, ...]], cardinality: Mapping[str, int],
                 query: Sequence[str], observed: Sequence[str],
                 batched: bool | frozenset[str] = False,
                 maximize: Sequence[str] = (),
                 positive: Mapping[str, bool] | None = None, totals: bool = False,
                 order: Sequence[str] | None = None) -> Plan:
    """Plan the elimination of everything but ``query`` given ``observed`` variables.

    The result factor is over ``(CASE,) + query`` when batched, else ``query``.
    ``batched`` may instead name the observed variables whose states vary from case to
    case: then only the tables they slice carry the case axis, the others are sliced by
    one state each (ints), so a batch over the states of one variable W is the joint of
    the query with W in which W still blocks paths as a finding does. The
    ``maximize`` variables (for MAP) are max-eliminated after every other variable has
    been summed out — the order MAP requires, max_m Σ_h P(m, h, e).

    With ``positive`` (variable → its table has no zero), tables that the evidence
    d-separates from the query are dropped: after slicing by the evidence they form
    connected components of the interaction graph without a query variable, whose sum
    is a constant factor of P(e). Such a component is kept only if it may sum to 0 —
    the evidence would then be impossible, which must be reported, not hidden — that
    is, if the table of an observed variable in it has a zero. The tables of its hidden
    variables H cannot make it 0: their parents are in H or observed, so summing them
    out children first gives Π row sums = 1, and the component's sum is at least the
    product of the smallest entries of its observed variables' tables. Leave
    ``positive`` out when the caller needs P(e) itself.

    ``order`` replaces the greedy elimination order: the variables to eliminate are taken
    in its order (the summed ones, then the maximised ones), any it lacks after them.
    """
    # Compiling is what a question on an empty cache pays for, and costs far more than
    # answering with small tables: the loops below avoid rebuilding tuples, dicts and
    # sets per step, and the interaction graph is built once for pruning and ordering.
    observed_set = set(observed)
    cased = None if isinstance(batched, bool) else frozenset(batched)
    batched = bool(batched) or cased is not None
    keep = tuple(query)
    targets = set(keep).union(maximize)
    sources = []
    for v in sorted(relevant_variables(parents, targets | observed_set)):
        family = parents[v] + (v,)
        if observed_set.isdisjoint(family):
            sources.append(Source(v, (), family, None))
            continue
        fixed: list = []
        free: list = []
        for u in family:
            (fixed if u in observed_set else free).append(u)
        axes = tuple(map(family.index, fixed + free))
        if batched and (cased is None or not cased.isdisjoint(fixed)):
            free.insert(0, CASE)
        sources.append(Source(v, tuple(fixed), tuple(free), axes))
    kept: dict = {v: set() for v in keep}
    if batched:
        kept[CASE] = set()
    graph = interaction_graph((source.free for source in sources), kept)  # sliced tables
    if positive is not None:
        risky = [v for v in observed_set if not positive[v]]
        sources, graph = _drop_separated(sources, graph, targets, risky,
                                         cased if totals and cased else frozenset())
    card = {**cardinality, CASE: 1} if batched else cardinality  # plan without the batch axis
    maximized = set(maximize)
    letter = {u: i for i, u in enumerate(graph)}  # einsum's subscripts, one per variable
    summed = [v for v in letter if v not in targets and v is not CASE]
    if order is not None:
        order = _follow(order, summed) + _follow(order, [v for v in maximized if v in letter])
    else:
        order = eliminate_greedily(graph, card, summed)
        if maximized:  # on what the summed variables leave behind
            order += eliminate_greedily(graph, card, maximized)

    size_of = card.__getitem__
    to_letter = letter.__getitem__
    scopes: list = [source.free for source in sources]  # factor i's variables; None once used
    subscripts = [list(map(to_letter, scope)) for scope in scopes]
    every_scope = list(scopes)  # kept whole, for the contraction paths
    holding: dict[str, list[int]] = {}  # variable → factors that mention it, ascending
    for i, scope in enumerate(scopes):
        for u in scope:
            ids = holding.get(u)
            if ids is None:
                holding[u] = [i]
            else:
                ids.append(i)
    steps = []
    largest, widest = 1, 0
    # Entries alive, [fixed, per case], and each factor's share of them (which of the two,
    # how many): a sliced table is a new array, an unsliced one a view of the network's.
    alive = [0, 0]
    kinds: list[int] = []
    shares: list[int] = []
    for source, scope in zip(sources, scopes):
        kind = 1 if batched and CASE in scope else 0
        share = math.prod(map(size_of, scope)) if source.fixed else 0
        kinds.append(kind)
        shares.append(share)
        alive[kind] += share
    peak = alive.copy()
    for v in order:
        bucket = [i for i in holding.pop(v) if scopes[i] is not None]
        union = dict.fromkeys(chain.from_iterable([scopes[i] for i in bucket]))
        size = math.prod(map(size_of, union))
        largest = max(largest, size)
        widest = max(widest, len(union))
        k = 1 if batched and CASE in union else 0  # the product's and the output's kind
        made = size // size_of(v)
        copies = 2 if v in maximized else 1  # a max step keeps its argmax table to the end
        at_peak = alive[k] + _temporaries(size, len(bucket), copies == 2) + copies * made
        if at_peak > peak[k]:  # the other kind's entries are not above their peak now
            peak[k] = at_peak
        alive[k] += copies * made
        for i in bucket:
            alive[kinds[i]] -= shares[i]
        kinds.append(k)
        shares.append(made)  # consuming the output frees it once: the argmax stays
        del union[v]
        out = tuple(union)
        output = list(map(to_letter, out))
        steps.append(Step(bucket, [subscripts[i] for i in bucket], output, v, out,
                          v in maximized, size))
        for i in bucket:
            scopes[i] = None
        new = len(scopes)
        scopes.append(out)
        every_scope.append(out)
        subscripts.append(output)
        for u in out:
            holding[u].append(new)
    has_case = batched and any(source.free[:1] == (CASE,) for source in sources)
    final = ((CASE,) if has_case else ()) + keep
    remaining = [i for i, scope in enumerate(scopes) if scope is not None]
    union = dict.fromkeys(chain.from_iterable([scopes[i] for i in remaining]))
    size = math.prod(map(size_of, union))
    steps.append(Step(remaining, [subscripts[i] for i in remaining],
                      list(map(to_letter, final)), None, final, size=size))
    k = 1 if has_case else 0  # the last product, its result and the normalised copy of it
    peak[k] = max(peak[k], alive[k] + _temporaries(size, len(remaining), False)
                  + 2 * math.prod(map(size_of, final)))
    if len(letter) > _LETTERS:
        for step in steps:
            _relabel(step)
    largest, width = max(largest, size), max(widest, len(union)) - 1
    if largest > _PAIRWISE_FROM:
        _plan_paths(steps, every_scope, card)
    return Plan(sources=sources, steps=steps, result=len(scopes), result_variables=final,
                largest_table=largest, width=width, cost=Cost(*peak, largest, width))


def _plan_paths(steps: list[Step], scopes: list, card: Mapping) -> None:
    """Give each step that multiplies three or more tables into a product of more than
    _PAIRWISE_FROM entries einsum's greedy contraction path (found on arrays of the right
    shapes that hold no memory; a batch counted as _PATH_CASES cases)."""
    def size(u) -> int:
        return _PATH_CASES if u is CASE else card[u]

    empty = np.empty(())
    for step in steps:
        if (2 < len(step.inputs) <= OPERANDS and step.size > _PAIRWISE_FROM
                and not step.maximize and not step.wide):
            args: list = []
            for i, subscript in zip(step.inputs, step.subscripts):
                args += [np.broadcast_to(empty, tuple(map(size, scopes[i]))), subscript]
            step.path = np.einsum_path(*args, step.output, optimize="greedy")[0]


def _temporaries(size: int, operands: int, maximize: bool) -> int:
    """Entries of the temporaries of one step whose product has ``size`` entries (measured
    with tracemalloc): a max step materialises the product and numpy's einsum may add two
    aligned copies of it (3 ×); a sum of at most two operands loops over the product
    without storing it (0); more operands are contracted pairwise, each intermediate at
    most the product, with a copy for the contraction (2 ×)."""
    return size * (3 if maximize else 2 if operands > 2 else 0)


def _follow(order: Sequence[str], chosen: Sequence[str]) -> list[str]:
    """``chosen`` in the order of ``order``, those it lacks last."""
    wanted = set(chosen)
    ranked = [v for v in order if v in wanted]
    seen = set(ranked)
    return ranked + [v for v in chosen if v not in seen]


def _drop_separated(sources: list, graph: dict, targets: set[str],
                    risky: Sequence[str], joint: frozenset = frozenset()) -> tuple[list, dict]:
    """Remove the components (ignoring the case axis) that hold no target and no table
    of a ``risky`` variable, nor tables reading the states of two or more variables of
    ``joint`` (the cases of such a component are not a product of one factor per
    variable).

    A component is what a target, or a risky table, reaches in the interaction graph
    ``graph``. A plain search of the graph that is built anyway for ordering: this runs
    once per compiled question, and a networkx graph or union-find built for it costs
    more than the elimination plan itself on small networks.
    """
    reached = {CASE}  # the case axis is shared by every sliced table: never walk through it
    stack = list(targets)
    keep = set(risky)
    for v, _, free, _ in sources:  # Source(variable, fixed, free, axes)
        if v in keep:  # a component where this table may make P(e) = 0: keep it
            stack += free
    _reach(graph, stack, reached)
    if len(joint) > 1:
        _reach_joint(sources, graph, joint, reached, keep)
    reached.discard(CASE)
    # a table is reached through its own variable, the last of its free ones
    kept = [s for s in sources if s.variable in keep or (s.free and s.free[-1] in reached)]
    if len(reached) == len(graph) - (CASE in graph):
        return kept, graph  # every variable is reached: at most fully observed tables go
    pruned = {u: links for u, links in graph.items() if u in reached}
    if CASE in graph:
        pruned[CASE] = graph[CASE] & reached
    return kept, pruned


def _reach(graph: dict, stack: list, reached: set) -> None:
    """Add to ``reached`` what ``stack``'s variables reach in ``graph``."""
    while stack:
        u = stack.pop()
        if u not in reached:
            reached.add(u)
            stack += graph[u] - reached


def _reach_joint(sources: list, graph: dict, joint: frozenset, reached: set,
                 keep: set) -> None:
    """Reach the components not reached yet whose tables read two or more variables of
    ``joint`` (a table with no free variable but the case axis is a component alone,
    kept by its variable in ``keep``)."""
    component: dict = {}  # variable → its component's first variable
    reads: dict = {}  # component → the variables of ``joint`` its tables read
    for source in sources:
        if source.free[:1] != (CASE,):
            continue
        read = joint.intersection(source.fixed)
        if len(source.free) == 1:  # only the case axis: a component of its own
            if len(read) > 1:
                keep.add(source.variable)
            continue
        if source.free[-1] in reached:
            continue
        start = source.free[1]
        if start not in component:
            members = set(reached)  # CASE among them: the search does not walk through it
            _reach(graph, [start], members)
            for u in members.difference(reached):
                component[u] = start
        reads.setdefault(component[start], set()).update(read)
    for start, read in reads.items():
        if len(read) > 1:
            _reach(graph, [start], reached)


def _relabel(step: Step) -> None:
    """Number a step's variables from 0 (einsum takes at most 52 distinct subscripts)."""
    used = dict.fromkeys(chain(chain.from_iterable(step.subscripts), step.output))
    letter = dict(zip(used, range(len(used)))).__getitem__
    step.subscripts = [list(map(letter, s)) for s in step.subscripts]
    step.output = list(map(letter, step.output))
    step.wide = len(used) > _LETTERS


def fits(cost: Cost, cases: int = 1, held: int = 0) -> bool:
    """Whether :func:`check_memory` accepts ``cost``."""
    # cost.entries(cases), inlined: this runs on every query (~1 µs saved of ~25)
    entries = cost.fixed + (cases if cases > 1 else 1) * cost.per_case + held
    return entries * ENTRY_BYTES <= get_memory_limit()


def check_memory(cost: Cost, cases: int = 1, held: int = 0) -> None:
    """Raise MemoryLimitError, before anything is allocated, if the peak of a computation
    (a plan's or a junction tree's :class:`Cost`) for ``cases`` cases, plus ``held``
    entries kept by earlier ones, exceeds the memory limit."""
    if fits(cost, cases, held):  # the message is only built for a refusal: queries are hot
        return
    largest = format_bytes(ENTRY_BYTES * cost.largest * max(cases, 1))
    check_allocation(cost.entries(cases) + held,
                     f"exact inference (induced width {cost.width}, largest table {largest}, "
                     "everything alive at once counted)",
                     "raise the limit with bbn.set_memory_limit(bytes), query fewer "
                     "variables at once, add evidence, or answer approximately with "
                     "method='lbp' (loopy belief propagation), 'gibbs', 'lw' or 'is' "
                     "(sampling; see docs/approximate.md)")


def slice_tables(plan: Plan, tables: Sequence[np.ndarray],
                 evidence: Mapping[str, int | np.ndarray]) -> list[np.ndarray]:
    """Index each source's table (``tables[i]`` for ``plan.sources[i]``) with the evidence
    (ints, or arrays for a batch).

    Evidence axes are moved to the front and indexed together, so a batch's case axis
    comes first, matching the planned variables ``(CASE,) + free``.
    """
    arrays = []
    for source, table in zip(plan.sources, tables):
        if source.fixed:
            table = table.transpose(source.axes)[tuple(evidence[u] for u in source.fixed)]
        arrays.append(table)
    return arrays


def evaluate(plan: Plan, evidence: Mapping[str, int | np.ndarray | slice],
             logs: Callable[[Plan], list[np.ndarray]],
             tables: Sequence[np.ndarray] | None = None,
             floor: float | None = None) -> tuple[np.ndarray, np.ndarray | float, list]:
    """Run the plan on its tables (``tables`` in their place when given) sliced by
    ``evidence``, safe from underflow (``logs`` gives the logs of the tables run, for the
    runs in logs). In a batch, ``slice(None)`` for an observed variable makes each of its
    states in turn a case (the case axis is its own axis: no table is copied).

    The steps that read neither evidence nor a table given per run are run once, at the
    first run, and their tables kept on the plan (:func:`fold_constants`): ``tables``
    may differ from ``plan.tables`` only where those are None.

    Returns ``(table, log_scale, choices)``: the result is ``table × exp(log_scale)``
    (``log_scale`` per case, an array, for a batched result; else a float). A result
    whose largest entry is below TRUSTED, or which holds an entry in (0, SHARP), (per
    case) is computed again in logs; it then comes back with largest entry 1, or all
    zeros when it is 0 exactly — unless the smallest positive product of the tables run
    is above TRUSTED (:func:`plan_floor`, or ``floor`` for the ``tables`` given), when
    nothing can have underflowed.
    """
    folded = plan.constants
    constants = (folded[1] if folded is not None and folded[0] is plan.tables else
                 fold_constants(plan))
    table, choices = run_plan(plan, slice_tables(plan, plan.tables if tables is None else
                                                 tables, evidence), constants=constants)
    if tables is None:
        floor = plan.floor if plan.floor is not None else plan_floor(plan)
    if floor is not None and floor >= _LOG_TRUSTED:
        return table, 0.0, choices  # every positive entry is above TRUSTED: 0 is exact
    batched = plan.result_variables[:1] == (CASE,)
    if not batched and _trusted(table):
        return table, 0.0, choices  # the common case, first
    if batched:
        flat = table.reshape(len(table), -1)
        if table.size <= 64 and _trusted_cases(flat.tolist()):
            return table, 0.0, choices  # a few cases of a few floats: Python's min and max
        low = ~(flat.max(axis=1) >= TRUSTED)
        if flat.min() < SHARP:
            low |= _blurred(flat).any(axis=1)
        if not low.any():
            return table, 0.0, choices
    log_tables = logs(plan)
    if not batched:
        logs, choices = run_plan(plan, slice_tables(plan, log_tables, evidence), log=True)
        top = float(np.max(logs))
        if top == -np.inf:
            return np.zeros_like(logs), 0.0, choices
        return np.exp(logs - top), top, choices
    rows = np.flatnonzero(low)
    part = {u: e[rows] if type(e) is np.ndarray else rows if type(e) is slice else e
            for u, e in evidence.items()}  # an int holds in every case, a slice is the case
    logs, _ = run_plan(plan, slice_tables(plan, log_tables, part), log=True)
    top = logs.reshape(len(rows), -1).max(axis=1)
    top[top == -np.inf] = 0.0  # P = 0 exactly: exp(−inf) = 0 stays
    table = np.array(table)  # einsum may return a view of a table
    table[rows] = np.exp(logs - top.reshape((-1,) + (1,) * (logs.ndim - 1)))
    scale = np.zeros(len(table))
    scale[rows] = top
    return table, scale, choices


#: The most entries :func:`fold_constants` keeps on one plan (512 KiB of float64; on the
#: shared networks a plan keeps a few hundred, munin1 21,438).
KEPT_ENTRIES = 1 << 16

#: log(TRUSTED).
_LOG_TRUSTED = math.log(TRUSTED)

#: Tables up to this many entries are scanned for their smallest positive entry.
_FLOOR_SCAN = 1 << 20


def plan_floor(plan: Plan) -> float:
    """Σ_t log min(1, min{x ∈ t : x > 0}) over the plan's tables (−inf when one is
    larger than _FLOOR_SCAN entries; a table given per run, None in ``plan.tables``,
    left to the caller to add), kept on the plan: every positive entry of a result, and
    of every product and sum on the way to it, is at least its exponential — a sum of
    products of one entry per table — so above TRUSTED a result of 0 is exactly 0 and
    nothing underflows.

    >>> plan = Plan([], tables=[np.array([0.5, 0.5]), np.array([[0.0, 1.0], [0.1, 0.9]])])
    >>> round(math.exp(plan_floor(plan)), 12)  # 0.5 · 0.1
    0.05
    """
    floor = 0.0 if plan.tables is not None else -math.inf
    for t in plan.tables or ():
        if t is None:
            continue
        if t.size > _FLOOR_SCAN:
            floor = -math.inf
            break
        floor += log_smallest(t)
    plan.floor = floor
    return floor


def log_smallest(table: np.ndarray) -> float:
    """log min(1, the smallest positive entry of ``table``) (0 when it has none).

    >>> log_smallest(np.array([0.0, 0.25, 4.0])) == math.log(0.25)
    True
    """
    smallest = float(np.min(table, where=table > 0, initial=1.0)) if table.size else 1.0
    return math.log(smallest) if smallest < 1.0 else 0.0


def _trusted(table: np.ndarray) -> bool:
    """Whether one (unbatched) result lost nothing to underflow: its largest entry is at
    least TRUSTED and none lies in (0, SHARP)."""
    if table.size <= 64:  # a posterior's few floats: Python's min/max take ~1 µs, numpy's ~6
        values = table.ravel().tolist()
        positive = [x for x in values if x > 0]
        return max(values) >= TRUSTED and min(positive) >= SHARP
    return table.max() >= TRUSTED and (table.min() >= SHARP or not _blurred(table).any())


def _trusted_cases(rows: list[list[float]]) -> bool:
    """Whether every case of a small batched result (its rows, as Python floats) lost
    nothing to underflow, as :func:`_trusted` says of one."""
    if min(map(max, rows)) < TRUSTED:
        return False
    return min(map(min, rows)) >= SHARP or not any(0 < x < SHARP for r in rows for x in r)


def _blurred(table: np.ndarray) -> np.ndarray:
    """Entries in (0, SHARP): tiny beside the largest, and perhaps imprecise — redone in logs
    so that even P(x | e) = 1e-250 comes out to the last digits."""
    return (table > 0) & (table < SHARP)


def run_plan(plan: Plan, arrays: list[np.ndarray], log: bool = False,
             trace: list | None = None,
             constants: Mapping[int, np.ndarray | None] | None = None
             ) -> tuple[np.ndarray, list]:
    """Execute the plan's steps (on the logs of the tables when ``log``).

    Returns the final array (axes ``result_variables``) and, for every max step, the
    argmax table needed to trace the MAP assignment back (see :func:`trace_back`).
    ``trace``, when given, receives each step's output in order (what
    :mod:`bbn.tasks.explain` prints: the engine's own numbers). ``constants`` (of
    :func:`fold_constants`, not with ``log``) gives the outputs of the steps not run.
    """
    factors = list(arrays)
    choices = []
    for k, step in enumerate(plan.steps):
        if constants and k in constants:  # read no evidence: run once, kept on the plan
            factors.append(constants[k])
            continue
        if step.maximize:
            table, best = max_product([factors[i] for i in step.inputs], step, log)
            factors.append(table)
            choices.append((step, best))
        else:
            factors.append(sum_product([factors[i] for i in step.inputs], step, log))
        if trace is not None:
            trace.append(factors[-1])
        for i in step.inputs:
            factors[i] = None  # free memory as soon as a table is consumed
    return factors[-1], choices


def fold_constants(plan: Plan) -> dict[int, np.ndarray | None]:
    """Run once the sum steps of ``plan`` that read only constants — the network's own
    tables that no evidence slices (not those given per run, None in ``plan.tables``)
    and the outputs of such steps — and keep them on the plan (``plan.constants``, with
    the list of tables they come from: new tables are folded again): what the evidence
    cannot change is not computed at every question. The last step always runs (its
    table is the caller's). The tables kept are read-only, at most KEPT_ENTRIES entries
    in all (more: nothing is kept); no more is alive while they are found than in a run.

    >>> plan = Plan([Source("A", (), ("A",), None), Source("B", ("B",), ("A",), (1, 0))],
    ...             [Step([0], [[0]], [0], None, ("A",)), Step([1, 2], [[0], [0]], [], "A", ())])
    >>> plan.tables = [np.array([0.5, 0.5]), np.array([[0.9, 0.1], [0.2, 0.8]])]
    >>> {k: t.tolist() for k, t in fold_constants(plan).items()}  # the last reads evidence
    {0: [0.5, 0.5]}
    """
    given = plan.tables
    constant = constant_factors(plan)
    factors: list = [t if c else None for t, c in zip(given or (), constant)]
    first = len(plan.sources)
    for k, step in enumerate(plan.steps):
        if constant[first + k]:
            factors.append(sum_product([factors[i] for i in step.inputs], step))
            for i in step.inputs:
                factors[i] = None  # read by this step alone: no more alive than in a run
        else:
            factors.append(None)
    kept = {k: factors[first + k] for k in range(len(plan.steps)) if constant[first + k]}
    if sum(t.size for t in kept.values() if t is not None) > KEPT_ENTRIES:
        kept = {}  # too large to hold between questions: every step runs each time
    for table in kept.values():
        if table is not None:  # read by a step still run (the others were freed)
            table.setflags(write=False)
    plan.constants = (given, kept)
    return kept


def constant_factors(plan: Plan) -> list[bool]:
    """Per factor of ``plan`` (its sources, then its steps' outputs), whether it reads
    neither evidence nor a table given per run (None in ``plan.tables``): a source no
    evidence slices, or the output of a sum step (not the last) reading only such
    factors — what :func:`fold_constants` runs once.

    >>> plan = Plan([Source("A", (), ("A",), None), Source("B", ("B",), ("A",), (1, 0))],
    ...             [Step([0], [[0]], [0], None, ("A",)), Step([1, 2], [[0], [0]], [], "A", ())],
    ...             tables=[np.ones(2), np.ones((2, 2))])
    >>> constant_factors(plan)  # A's table, B's (sliced), P(A), the last step
    [True, False, True, False]
    """
    tables = plan.tables or [None] * len(plan.sources)
    constant = [not s.fixed and t is not None for s, t in zip(plan.sources, tables)]
    last = len(plan.steps) - 1
    for k, step in enumerate(plan.steps):
        constant.append(k < last and not step.maximize
                        and all(constant[i] for i in step.inputs))
    return constant

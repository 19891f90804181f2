"""Variable elimination, compiled once per question shape and replayed on numbers.

A *question shape* is (which variables are queried, which are observed). Everything
that depends only on the shape — the pruned set of tables, how each is sliced by the
evidence, the elimination order and each step's einsum — is compiled into a
:class:`Plan` and cached on the network. Answering then only indexes the tables with
the evidence values and runs the einsums.

Sum-product elimination of X from the factors φ1..φk that mention it::

    ψ(N(X)) = Σ_x Π_i φi        (one ``numpy.einsum`` per step)

A batch of N evidence rows is the same plan run with arrays of state indices instead
of single indices: sliced tables gain a leading case axis ``CASE`` that is never
summed out, so N rows cost one pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bbn.errors import MemoryLimitError
from bbn.inference.ordering import eliminate, greedy_order


class _CaseAxis:
    """The batch axis: a name no variable can have, since variable names are strings."""

    def __repr__(self) -> str:
        return "<case>"


#: Name of the batch axis in plans.
CASE = _CaseAxis()

#: Largest intermediate table, in bytes, that inference may build (see set_memory_limit).
_memory_limit = {"bytes": 1 << 30}


#: Products of at least this many entries are contracted pairwise along a cached path.
_PAIRWISE_FROM = 1 << 16


def set_memory_limit(limit_bytes: int) -> None:
    """Refuse (with MemoryLimitError) eliminations whose largest table exceeds this."""
    _memory_limit["bytes"] = int(limit_bytes)


def get_memory_limit() -> int:
    return _memory_limit["bytes"]


@dataclass
class Step:
    """Multiply the factors in ``inputs`` and sum (or max) out ``eliminated``."""

    inputs: list[int]
    subscripts: list[list[int]]
    output: list[int]
    eliminated: str | None
    variables: tuple[str, ...]  # the output factor's variables
    maximize: bool = False  # max-product (MAP) instead of sum-product
    size: int = 1  # entries of the product of the inputs (without the batch axis)
    path: list | None = None  # einsum's contraction path, found on the first run


@dataclass
class Plan:
    """A compiled elimination for one question shape.

    ``sources[i]`` = (table variable, axes of that table fixed by evidence, variables of
    the sliced factor); steps refer to factors by index (sources first, then step
    outputs in order). ``result`` holds the index of the final factor.
    """

    sources: list[tuple[str, tuple[str, ...], tuple[str, ...]]]
    steps: list[Step] = field(default_factory=list)
    result: int = -1
    result_variables: tuple[str, ...] = ()
    largest_table: int = 0  # entries, without the batch axis
    width: int = 0  # induced width: largest number of variables in one table, minus one


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
                 query: Sequence[str], observed: Sequence[str], batched: bool = False,
                 maximize: Sequence[str] = (),
                 positive: Mapping[str, bool] | None = None) -> Plan:
    """Plan the elimination of everything but ``query`` given ``observed`` variables.

    The result factor is over ``(CASE,) + query`` when batched, else ``query``. The
    ``maximize`` variables (for MAP) are max-eliminated after every other variable has
    been summed out — the order MAP requires, max_m Σ_h P(m, h, e).

    With ``positive`` (variable → its table has no zero), tables that the evidence
    d-separates from the query are dropped: after slicing by the evidence they form
    connected components of the interaction graph without a query variable, whose sum
    is a constant factor of P(e). Such a component is kept only if one of its tables has
    a zero, because then its sum may be 0 and the evidence impossible — which must be
    reported, not hidden. Leave ``positive`` out when the caller needs P(e) itself.
    """
    observed_set = set(observed)
    keep = tuple(query)
    needed = relevant_variables(parents, set(keep) | observed_set | set(maximize))
    sources = []
    for v in sorted(needed):
        family = parents[v] + (v,)
        fixed = tuple(u for u in family if u in observed_set)
        free = tuple(u for u in family if u not in observed_set)
        if fixed and batched:
            free = (CASE,) + free
        sources.append((v, fixed, free))
    if positive is not None:
        sources = _drop_separated(sources, set(keep) | set(maximize), positive)
    card = dict(cardinality)
    card[CASE] = 1  # the batch axis multiplies every size equally; plan without it
    adjacency: dict[str, set[str]] = {v: set() for v in keep}
    if batched:
        adjacency[CASE] = set()
    for _, _, free in sources:
        for u in free:
            adjacency.setdefault(u, set()).update(w for w in free if w != u)
    kept = set(keep) | ({CASE} if batched else set())
    maximized = set(maximize)
    summed = [v for v in adjacency if v not in kept and v not in maximized]
    order = greedy_order(adjacency, card, summed)
    if maximized:
        order += greedy_order(_eliminated_graph(adjacency, order), card, sorted(maximized))

    plan = Plan(sources=sources)
    live = {i: free for i, (_, _, free) in enumerate(sources)}
    holding: dict[str, set[int]] = {}  # variable → the live factors that mention it
    for i, free in live.items():
        for u in free:
            holding.setdefault(u, set()).add(i)
    next_id = len(sources)
    largest = 1
    for v in order:
        bucket = sorted(holding.pop(v, ()))
        union = _union(live[i] for i in bucket)
        size = math.prod(card[u] for u in union)
        largest = max(largest, size)
        out = tuple(u for u in union if u != v)
        plan.steps.append(_step(bucket, [live[i] for i in bucket], out, v, v in maximized, size))
        for i in bucket:
            for u in live.pop(i):
                if u != v:
                    holding[u].discard(i)
        live[next_id] = out
        for u in out:
            holding[u].add(next_id)
        next_id += 1
    has_case = any(CASE in free for _, _, free in sources)
    final = ((CASE,) if has_case else ()) + keep
    remaining = list(live)
    union = _union(live[i] for i in remaining)
    size = math.prod(card[u] for u in union) if union else 1
    largest = max(largest, size)
    plan.steps.append(_step(remaining, [live[i] for i in remaining], final, None, size=size))
    plan.result = next_id
    plan.result_variables = final
    plan.largest_table = largest
    plan.width = _width(plan) - 1
    return plan


def _drop_separated(sources: list, targets: set[str], positive: Mapping[str, bool]) -> list:
    """Remove the components (ignoring the case axis) that hold no target and no zero.

    Tables are joined through the variables they share (networkx's union-find): a
    component is what one table can reach.
    """
    from networkx.utils import UnionFind

    joined = UnionFind()
    for i, (_, _, free) in enumerate(sources):
        joined.union(("table", i), *(u for u in free if u != CASE))
    needed = {joined[u] for u in targets}
    risky = {joined[("table", i)] for i, (v, _, _) in enumerate(sources) if not positive[v]}
    keep = needed | risky  # a component with a zero table may make P(e) = 0: keep it
    return [source for i, source in enumerate(sources) if joined[("table", i)] in keep]


def _eliminated_graph(adjacency: Mapping[str, set[str]], order: list[str]) -> dict:
    """The interaction graph left after eliminating ``order`` (with its fill-in edges)."""
    graph = {v: set(n) for v, n in adjacency.items()}
    for v in order:
        eliminate(graph, v)
    return graph


def _union(groups) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        for u in group:
            seen.setdefault(u)
    return tuple(seen)


def _step(inputs: list[int], variables: list[tuple[str, ...]], output: tuple[str, ...],
          eliminated: str | None, maximize: bool = False, size: int = 1) -> Step:
    letters = {u: i for i, u in enumerate(_union(variables + [output]))}
    return Step(inputs=inputs, subscripts=[[letters[u] for u in vs] for vs in variables],
                output=[letters[u] for u in output], eliminated=eliminated, variables=output,
                maximize=maximize, size=size)


def _width(plan: Plan) -> int:
    widest = 0
    for step in plan.steps:
        names = {u for vs in step.subscripts for u in vs}
        widest = max(widest, len(names))
    return widest


def check_memory(plan: Plan, cases: int = 1) -> None:
    """Raise MemoryLimitError if the plan's largest table would exceed the limit."""
    estimated = plan.largest_table * max(cases, 1) * 8
    if estimated > _memory_limit["bytes"]:
        raise MemoryLimitError(
            f"exact inference would build a table of about {_format_bytes(estimated)} "
            f"(induced width {plan.width}), above the memory limit of "
            f"{_format_bytes(_memory_limit['bytes'])}; raise it with "
            "bbn.inference.set_memory_limit(bytes), query fewer variables at once, "
            "or add evidence")


def _format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def slice_tables(plan: Plan, tables: Mapping[str, np.ndarray],
                 families: Mapping[str, tuple[str, ...]],
                 evidence: Mapping[str, int | np.ndarray]) -> list[np.ndarray]:
    """Index each source table with the evidence (ints, or arrays for a batch).

    Evidence axes are moved to the front and indexed together, so a batch's case axis
    comes first, matching the planned variables ``(CASE,) + free``.
    """
    arrays = []
    for v, fixed, _ in plan.sources:
        table = tables[v]
        if fixed:
            family = families[v]
            axes = [family.index(u) for u in fixed]
            rest = [i for i in range(len(family)) if i not in axes]
            table = table.transpose(axes + rest)[tuple(evidence[u] for u in fixed)]
        arrays.append(table)
    return arrays


def run_plan(plan: Plan, arrays: list[np.ndarray]) -> tuple[np.ndarray, list]:
    """Execute the plan's steps.

    Returns the final array (axes ``result_variables``) and, for every max step, the
    argmax table needed to trace the MAP assignment back (see :func:`trace_back`).
    """
    factors = list(arrays)
    choices = []
    for step in plan.steps:
        operands = [factors[i] for i in step.inputs]
        if step.maximize:
            table, best = _max_product(operands, step)
            factors.append(table)
            choices.append((step, best))
        elif not operands:
            factors.append(np.ones(()))
        else:
            args = []
            for array, subscript in zip(operands, step.subscripts):
                args += [array, subscript]
            # Small products: one pass of einsum's own loop beats planning a path.
            if len(operands) > 2 and step.size > _PAIRWISE_FROM and step.path is None:
                step.path = np.einsum_path(*args, step.output, optimize="greedy")[0]
            factors.append(np.einsum(*args, step.output, optimize=step.path or False))
        for i in step.inputs:
            factors[i] = None  # free memory as soon as a table is consumed
    return factors[-1], choices


def _max_product(operands: list[np.ndarray], step: Step) -> tuple[np.ndarray, np.ndarray]:
    """Π operands over (output axes..., eliminated axis); max and argmax over the last."""
    eliminated = next(u for s in step.subscripts for u in s if u not in step.output)
    axes = step.output + [eliminated]
    args = []
    for array, subscript in zip(operands, step.subscripts):
        args += [array, subscript]
    product = np.einsum(*args, axes) if len(operands) > 1 else _align(operands[0],
                                                                       step.subscripts[0], axes)
    return product.max(axis=-1), product.argmax(axis=-1)


def _align(array: np.ndarray, subscript: list[int], axes: list[int]) -> np.ndarray:
    return array.transpose([subscript.index(u) for u in axes])


def trace_back(choices: list, states: Mapping[str, int] | None = None) -> dict[str, int]:
    """Recover the maximising state index of every max-eliminated variable.

    Walks the max steps backwards: when X was eliminated, its best state was stored as
    a function of the variables still present, all of which are assigned by then.
    """
    assignment: dict[str, int] = dict(states or {})
    for step, best in reversed(choices):
        index = tuple(assignment[name] for name in step.variables)
        assignment[step.eliminated] = int(best[index])
    return assignment

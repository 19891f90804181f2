"""The arithmetic of one elimination step, on numpy arrays: the product of a step's
tables summed (:func:`sum_product`) or maximised (:func:`max_product`) over the variable
it eliminates, in logs where a product may underflow; ``numpy.einsum`` of any number of
operands (:func:`contract`); the MAP assignment traced back through the max steps
(:func:`trace_back`). A :class:`Step` says which factors it multiplies; plans
(:mod:`bbn.engines.exact.elimination`) are lists of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

#: Operands one einsum call takes: numpy's NPY_MAXARGS (64) counts the output too.
OPERANDS = 63


@dataclass(slots=True)
class Step:
    """Multiply the factors in ``inputs`` and sum (or max) out ``eliminated``."""

    inputs: list[int]
    subscripts: list[list[int]]
    output: list[int]
    eliminated: str | None
    variables: tuple[str, ...]  # the output factor's variables
    maximize: bool = False  # max-product (MAP) instead of sum-product
    size: int = 1  # entries of the product of the inputs (without the batch axis)
    path: list | None = None  # einsum's contraction path (large products of 3+ tables)
    wide: bool = False  # over 52 distinct subscripts (one-state variables): beyond einsum


def sum_product(operands: list[np.ndarray], step: Step, log: bool = False) -> np.ndarray:
    """Σ over the step's eliminated variable of Π operands (log Σ exp Σ of the logs when
    ``log``), on the step's output axes.

    >>> step = Step([0, 1], [[0], [0, 1]], [1], "A", ("B",))
    >>> tables = [np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])]
    >>> sum_product(tables, step).round(6).tolist()  # P(b) = Σ_a P(a) P(b | a)
    [0.41, 0.59]
    >>> np.exp(sum_product([np.log(t) for t in tables], step, log=True)).round(6).tolist()
    [0.41, 0.59]
    """
    if not operands:
        return np.zeros(()) if log else np.ones(())
    if log:
        axes = step.output + [u for u in dict.fromkeys(chain.from_iterable(step.subscripts))
                              if u not in step.output]
        return _log_sum(_spread_product(operands, step.subscripts, axes, log=True),
                        tuple(range(len(step.output), len(axes))))
    if len(operands) > OPERANDS or step.wide:
        return contract(operands, step.subscripts, step.output, wide=step.wide)
    args = []
    for array, subscript in zip(operands, step.subscripts):
        args += [array, subscript]
    # Small products: one pass of einsum's own loop beats a path (step.path None).
    return np.einsum(*args, step.output, optimize=step.path or False)


def contract(operands: Sequence[np.ndarray], subscripts: Sequence[list[int]],
             output: list[int], path: list | None = None, wide: bool = False) -> np.ndarray:
    """``numpy.einsum`` of any number of operands: Σ over the subscripts not in ``output``
    of the product of the operands.

    einsum takes at most 63 operands: with more, the 0-d ones (observed roots, fully
    observed tables) are multiplied first, and the rest contracted in groups of
    neighbours (sorted by subscripts), each group keeping the subscripts that later
    groups or the output still need. ``wide``: more than 52 distinct subscripts, which
    einsum cannot number (only one-state variables make such a product small enough):
    the operands are broadcast together instead.

    >>> contract([np.full(2, 0.5)] * 100, [[0]] * 100, [0]).tolist() == [0.5 ** 100] * 2
    True
    """
    if len(operands) > OPERANDS:
        scalar = math.prod(float(a) for a in operands if a.ndim == 0)
        pairs = sorted(((s, a) for a, s in zip(operands, subscripts) if a.ndim),
                       key=lambda pair: pair[0])
        while len(pairs) + 1 > OPERANDS:
            group, pairs = pairs[:OPERANDS], pairs[OPERANDS:]
            needed = set(output).union(*(s for s, _ in pairs))
            kept = [u for u in dict.fromkeys(chain.from_iterable(s for s, _ in group))
                    if u in needed]
            pairs.append((kept, contract([a for _, a in group], [s for s, _ in group], kept,
                                         wide=wide)))
        operands = [np.array(scalar)] + [a for _, a in pairs]
        subscripts = [[]] + [s for s, _ in pairs]
    if wide:
        axes = list(dict.fromkeys(chain(output, chain.from_iterable(subscripts))))
        return np.add.reduce(_spread_product(operands, subscripts, axes),
                             axis=tuple(range(len(output), len(axes))))
    args = []
    for array, subscript in zip(operands, subscripts):
        args += [array, subscript]
    return np.einsum(*args, output, optimize=path or False)


def _spread_product(operands: Sequence[np.ndarray], subscripts: Sequence[list[int]],
                    axes: list[int], log: bool = False) -> np.ndarray:
    """Π_i φi (Σ_i log φi when ``log``), laid out on ``axes``: the operands broadcast
    together into one new array (the step's product, as large as the plan said)."""
    spreads = []
    shape = [1] * len(axes)
    for array, subscript in zip(operands, subscripts):
        present = [u for u in axes if u in subscript]
        layout = [array.shape[subscript.index(u)] if u in subscript else 1 for u in axes]
        shape = [max(a, b) for a, b in zip(shape, layout)]
        spreads.append(_align(array, subscript, present).reshape(layout))
    total = np.zeros(shape) if log else np.ones(shape)
    for spread in spreads:
        if log:
            total += spread
        else:
            total *= spread
    return total


def _log_sum(logs: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """log Σ exp(logs) over ``axes``, shifted by the maximum so nothing underflows
    (``logs`` is overwritten)."""
    if not axes:
        return logs
    top = np.max(logs, axis=axes, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # all −inf: the sum is 0, its log −inf
    logs -= top
    np.exp(logs, out=logs)
    with np.errstate(divide="ignore"):
        return np.log(np.add.reduce(logs, axis=axes)) + np.squeeze(top, axes)


def max_product(operands: list[np.ndarray], step: Step,
                log: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Π operands (Σ of their logs when ``log``) over (output axes..., eliminated axis);
    max and argmax over the last.

    >>> step = Step([0, 1], [[0], [0, 1]], [1], "A", ("B",), maximize=True)
    >>> best, where = max_product([np.array([0.3, 0.7]), np.array([[0.9, 0.1],
    ...                                                            [0.2, 0.8]])], step)
    >>> best.round(6).tolist(), where.tolist()  # max_a P(a) P(b | a), the best a per b
    ([0.27, 0.56], [0, 1])
    """
    eliminated = next(u for s in step.subscripts for u in s if u not in step.output)
    axes = step.output + [eliminated]
    if log:
        product = _spread_product(operands, step.subscripts, axes, log=True)
    elif len(operands) > 1:
        product = contract(operands, step.subscripts, axes, wide=step.wide)
    else:
        product = _align(operands[0], step.subscripts[0], axes)
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

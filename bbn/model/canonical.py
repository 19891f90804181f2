"""Canonical (compact) tables: noisy-MAX and noisy-MIN (noisy-OR, noisy-AND), logistic.

A noisy-MAX variable Y (states ordered y_0 < y_1 < ...) is the largest of independent
contributions, one Z_i per parent U_i and a leak Z_L::

    P(Y ≤ y | u) = L(≤ y) · Π_i C_i[u_i](≤ y)

with C_i[u] the distribution of Z_i when U_i = u (its first state, "absent", gives
y_0 for sure) and L the leak's. Noisy-OR is the binary case: with P(Z_i = T | U_i = T)
= p_i, P(Y = F | u) = (1 − leak) · Π_{i: u_i = T} (1 − p_i). A noisy-MIN (noisy-AND) is
the same with ≥ for ≤: Y is the smallest contribution. Such a table needs
Σ_i |U_i|·|Y| numbers where the full one needs Π_i |U_i|·|Y|, and inference needs no
full table either: Y = max(Z_L, Z_1, ..., Z_n) is the end of a chain of partial maxima
A_i = max(A_{i−1}, Z_i) (parent divorcing), each a table over (A_{i−1}, U_i, A_i) of
|Y|²·|U_i| entries, so a 40-cause noisy-OR is 40 tables of 8 entries, exact
(:func:`chained_view`). A logistic table, P(Y = T | u) = σ(b + Σ_i w_i · u_i) (u_i: the
state's index), and a deterministic one are kept as full tables.

>>> spec = noisy_or((2, 2, 2), [0.8, 0.6], leak=0.1)
>>> full_table(spec)[1, 1].round(4).tolist()           # 1 - 0.9 · 0.2 · 0.4
[0.072, 0.928]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from bbn.core.draws import draw_states
from bbn.core.errors import ModelError
from bbn.core.memory import check_allocation
from bbn.views.compiled import CompiledNetwork

#: A canonical table with more entries than this is answered through its chain of
#: partial maxima (:func:`chained_view`); a smaller one by its full table.
CHAIN_ABOVE = 1 << 10

#: A canonical table with at most this many entries is also kept in full on its variable
#: (what ``cpt``, the writers and learning read); a larger one is made on demand.
KEEP_FULL_UP_TO = 1 << 16


@dataclass(frozen=True, eq=False)
class Canonical:
    """A compact table of one variable.

    Parameters
    ----------
    kind : str
        ``"noisy-max"`` (``"noisy-or"`` when binary), ``"noisy-min"`` (``"noisy-and"``),
        ``"logistic"`` or ``"deterministic"``.
    combine : str or None
        ``"max"`` or ``"min"`` for the noisy kinds, None for the others.
    contributions : tuple of numpy.ndarray
        The noisy kinds: per parent, C_i of shape ``(|U_i|, |Y|)``, rows summing to 1.
    leak : numpy.ndarray or None
        The noisy kinds: L, shape ``(|Y|,)``.
    table : numpy.ndarray or None
        The logistic and deterministic kinds: their full table.
    weights : tuple of float
        What the user gave, per parent (noisy-OR/AND: p_i; logistic: w_i), for display.
    bias : float
        The logistic's b; the noisy-OR/AND leak probability.

    Examples
    --------
    >>> noisy_or((2, 2, 2), [0.9, 0.8], leak=0.0).kind
    'noisy-or'
    """

    kind: str
    combine: str | None
    contributions: tuple[np.ndarray, ...] = ()
    leak: np.ndarray | None = None
    table: np.ndarray | None = None
    weights: tuple = ()
    bias: float = 0.0

    @property
    def chainable(self) -> bool:
        """Whether inference can use the chain of partial maxima (or minima)."""
        return self.combine is not None

    def same_as(self, other: Canonical | None) -> bool:
        """The same kind and numbers."""
        if other is None or (self.kind, self.combine) != (other.kind, other.combine):
            return False
        pairs = list(zip(self.contributions, other.contributions)) + [
            (self.leak, other.leak), (self.table, other.table)]
        return len(self.contributions) == len(other.contributions) and all(
            (a is None and b is None) or (a is not None and b is not None
                                           and np.array_equal(a, b)) for a, b in pairs)


def _probability(value, what: str) -> float:
    try:
        p = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= p <= 1.0:
        raise ModelError(f"{what} must be in [0, 1], got {p}")
    return p


def noisy_or(shape: Sequence[int], weights: Sequence[float], leak: float = 0.0,
             name: str = "Y", parents: Sequence[str] = (), dual: bool = False) -> Canonical:
    """The noisy-OR (``dual``: noisy-AND) of binary parents, ``shape`` = (|U_1|, ...,
    |U_n|, |Y|) all 2: P(Y = F | u) = (1 − leak) Π_{u_i = T} (1 − p_i); the noisy-AND,
    its dual, P(Y = T | u) = (1 − leak) Π_{u_i = F} (1 − p_i).

    >>> noisy_or((2, 2), [0.7], leak=0.2, dual=True).leak.tolist()
    [0.2, 0.8]
    """
    parents = tuple(parents) or tuple(f"U{i + 1}" for i in range(len(shape) - 1))
    for p, k in zip((*parents, name), shape):
        if k != 2:
            raise ModelError(f"a noisy-{'AND' if dual else 'OR'} needs binary variables; "
                             f"{p!r} has {k} states")
    ps = [_probability(w, f"the weight of {p!r} in the noisy table of {name!r}")
          for p, w in zip(parents, weights)]
    q = _probability(leak, f"the leak of {name!r}")
    if dual:  # the De Morgan dual: F absorbs (min), a parent at F inhibits with p_i
        rows = [np.array([[p, 1.0 - p], [0.0, 1.0]]) for p in ps]
        return Canonical("noisy-and", "min", tuple(rows), np.array([q, 1.0 - q]),
                         weights=tuple(ps), bias=q)
    rows = [np.array([[1.0, 0.0], [1.0 - p, p]]) for p in ps]
    return Canonical("noisy-or", "max", tuple(rows), np.array([1.0 - q, q]),
                     weights=tuple(ps), bias=q)


def noisy_max(shape: Sequence[int], contributions: Sequence, leak=None, name: str = "Y",
              parents: Sequence[str] = ()) -> Canonical:
    """The noisy-MAX of ``contributions`` (per parent, P(Z_i = y | U_i = u) for u its
    states after the first, shape ``(|U_i| − 1, |Y|)``; the first state contributes y_0)
    and ``leak`` (P(Z_L = y); default y_0 for sure).

    >>> noisy_max((2, 3), [[[0.2, 0.5, 0.3]]]).contributions[0].tolist()
    [[1.0, 0.0, 0.0], [0.2, 0.5, 0.3]]
    """
    parents = tuple(parents) or tuple(f"U{i + 1}" for i in range(len(shape) - 1))
    states = shape[-1]
    rows = []
    for p, k, given in zip(parents, shape, contributions):
        given = np.asarray(given, dtype=float).reshape(-1, states) if np.size(given) else None
        if given is None or given.shape != (k - 1, states):
            raise ModelError(f"the noisy-MAX weights of {p!r} in {name!r} need shape "
                             f"({k - 1}, {states}): P({name} | {p}) for each of its states "
                             f"after the first, got {np.shape(given)}")
        _check_rows(given, f"the noisy-MAX weights of {p!r} in {name!r}")
        absent = np.zeros((1, states))
        absent[0, 0] = 1.0
        rows.append(np.vstack([absent, given]))
    if leak is None:
        leak = np.eye(states)[0]
    leak = np.asarray(leak, dtype=float).reshape(-1)
    if leak.shape != (states,):
        raise ModelError(f"the leak of {name!r} needs {states} numbers, got {leak.size}")
    _check_rows(leak[None], f"the leak of {name!r}")
    return Canonical("noisy-max", "max", tuple(rows), leak)


def _check_rows(rows: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(rows)) or (rows < 0).any() or not np.allclose(
            rows.sum(axis=-1), 1.0, atol=1e-6):
        raise ModelError(f"{what}: each row must be non-negative and sum to 1, got "
                         f"{rows.round(6).tolist()}")


def logistic(shape: Sequence[int], weights: Sequence[float], bias: float = 0.0,
             name: str = "Y") -> Canonical:
    """P(Y = y_1 | u) = σ(b + Σ_i w_i · u_i), u_i the index of U_i's state, Y binary.

    >>> full_table(logistic((2, 2), [2.0], bias=-1.0))[:, 1].round(4).tolist()
    [0.2689, 0.7311]
    """
    if shape[-1] != 2:
        raise ModelError(f"a logistic table needs a binary variable; {name!r} has "
                         f"{shape[-1]} states")
    w = np.asarray([float(x) for x in weights])
    check_allocation(int(np.prod(shape)), f"the logistic table of {name!r}")
    score = np.full(shape[:-1], float(bias))
    for i, k in enumerate(shape[:-1]):
        score = score + w[i] * np.arange(k).reshape((-1,) + (1,) * (len(shape) - 2 - i))
    on = 1.0 / (1.0 + np.exp(-score))
    table = np.stack([1.0 - on, on], axis=-1)
    return Canonical("logistic", None, table=table, weights=tuple(w.tolist()), bias=float(bias))


def deterministic(table: np.ndarray) -> Canonical:
    """A table of 0s and 1s: Y a function of its parents (``table`` made by the caller).

    >>> deterministic(np.eye(2)).kind
    'deterministic'
    """
    return Canonical("deterministic", None, table=table)


def _cumulative(rows: np.ndarray, combine: str) -> np.ndarray:
    """P(Z ≤ y) (max) or P(Z ≥ y) (min) along the last axis."""
    if combine == "max":
        return np.cumsum(rows, axis=-1)
    return np.cumsum(rows[..., ::-1], axis=-1)[..., ::-1]


def _from_cumulative(cumulative: np.ndarray, combine: str) -> np.ndarray:
    """The probabilities back from :func:`_cumulative`, clipped at 0 against rounding."""
    if combine == "max":
        out = np.diff(cumulative, axis=-1, prepend=0.0)
    else:
        out = -np.diff(cumulative, axis=-1, append=0.0)
    return np.where(out > 0.0, np.minimum(out, 1.0), 0.0)  # no −0.0 from rounding


def full_table(spec: Canonical, what: str = "the canonical table") -> np.ndarray:
    """The full table, shape ``(|U_1|, ..., |U_n|, |Y|)`` (memory checked first).

    >>> full_table(noisy_or((2, 2, 2), [1.0, 1.0], dual=True))[:, :, 1].tolist()  # AND
    [[0.0, 0.0], [0.0, 1.0]]
    """
    if spec.table is not None:
        return spec.table
    states = spec.leak.shape[0]
    n = len(spec.contributions)
    check_allocation(int(np.prod([len(c) for c in spec.contributions])) * states * 2, what)
    cumulative = _cumulative(spec.leak, spec.combine)
    for i, rows in enumerate(spec.contributions):
        c = _cumulative(rows, spec.combine)
        cumulative = cumulative[..., None, :] * c.reshape((1,) * i + c.shape)
        del c
    return _from_cumulative(cumulative.reshape(
        tuple(len(c) for c in spec.contributions) + (states,)) if n else cumulative,
        spec.combine)


def draw(spec: Canonical, parents: Sequence[np.ndarray], rng: np.random.Generator
         ) -> np.ndarray:
    """States of a noisy-MAX or -MIN variable for N rows, the parents' state codes
    given: each contribution drawn from its row, then combined (max or min), so no full
    table is made.

    >>> rng = np.random.default_rng(0)
    >>> spec = noisy_or((2, 2, 2), [1.0, 0.0])
    >>> draw(spec, [np.array([1, 0, 0]), np.array([0, 1, 0])], rng).tolist()
    [1, 0, 0]
    """
    rows = len(parents[0]) if parents else 0
    combined = draw_states(spec.leak[None], np.zeros(rows, dtype=np.int64), rng)
    pick = np.maximum if spec.combine == "max" else np.minimum
    for contribution, codes in zip(spec.contributions, parents):
        combined = pick(combined, draw_states(contribution, codes, rng))
    return combined


def chain_tables(spec: Canonical) -> list[np.ndarray]:
    """The tables of the chain A_1, ..., A_n = Y: P(A_1 | U_1) (the leak folded in),
    then P(A_i | A_{i−1}, U_i), each of shape ``(|Y|, |U_i|, |Y|)``.

    >>> [t.shape for t in chain_tables(noisy_or((2, 2, 2), [0.9, 0.8]))]
    [(2, 2), (2, 2, 2)]
    """
    combine, leak = spec.combine, spec.leak
    states = leak.shape[0]
    first = _cumulative(leak, combine) * _cumulative(spec.contributions[0], combine)
    tables = [_from_cumulative(first, combine)]
    # [a ≤ y] (max) or [a ≥ y] (min): the partial result a before this parent
    a, y = np.arange(states)[:, None], np.arange(states)[None, :]
    passed = (a <= y if combine == "max" else a >= y).astype(float)
    for rows in spec.contributions[1:]:
        c = _cumulative(rows, combine)  # (|U_i|, |Y|)
        tables.append(_from_cumulative(passed[:, None, :] * c[None, :, :], combine))
    return tables


def chained_view(view: CompiledNetwork, specs: Mapping[str, Canonical],
                 above: int | None = None) -> CompiledNetwork:
    """The view with each canonical variable Y of ``specs`` (noisy-MAX or -MIN, more than
    one parent, a full table above :data:`CHAIN_ABOVE` entries) answered through its
    chain: new variables A_1, ..., A_{n−1} (named ``Y~1``, ``Y~2``...; listed in the
    view's ``auxiliary``) and Y's parents (A_{n−1}, U_n). Every question about the
    model's variables has the same answer. ``above`` replaces :data:`CHAIN_ABOVE`.

    >>> import bbn
    >>> net = bbn.Network()
    >>> for u in "ABC":
    ...     net.add_variable(u, ["F", "T"], table=[0.5, 0.5])
    >>> net.add_noisy_or("Y", ["A", "B", "C"], weights={"A": 0.9, "B": 0.8, "C": 0.7})
    >>> view = chained_view(net.compiled(), {"Y": net.canonical("Y")}, above=0)
    >>> view.parents["Y"], view.parents["Y~2"], sorted(view.auxiliary)
    (('Y~2', 'C'), ('Y~1', 'B'), ['Y~1', 'Y~2'])
    """
    states, parents = dict(view.states), dict(view.parents)
    cardinality, tables, zero_free = dict(view.cardinality), dict(view.tables), \
        dict(view.zero_free)
    order, auxiliary = [], set(view.auxiliary)
    above = CHAIN_ABOVE if above is None else above
    for v in view.variables:
        spec = specs.get(v)
        if spec is None or not spec.chainable or len(view.parents[v]) < 2 or (
                view.tables[v] is not None and view.tables[v].size <= above):
            order.append(v)
            continue
        given = view.parents[v]
        chain = chain_tables(spec)
        names = []
        for i in range(1, len(given)):
            name = f"{v}~{i}"
            while name in states:
                name += "'"
            names.append(name)
        previous = None
        for i, (u, table) in enumerate(zip(given, chain)):
            node = names[i] if i < len(names) else v
            parents[node] = (u,) if previous is None else (previous, u)
            states[node], cardinality[node] = view.states[v], len(view.states[v])
            table = np.ascontiguousarray(table)
            table.setflags(write=False)
            tables[node] = table
            zero_free[node] = bool((table > 0).all())
            order.append(node)
            previous = node
        auxiliary.update(names)
    return CompiledNetwork(view.revision, tuple(order), *map(MappingProxyType, (
        states, parents, cardinality, tables, zero_free)), view.gaussian, view.constraints,
        frozenset(auxiliary))

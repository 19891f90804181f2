"""Compact tables in the ``.bn`` language: rows keyed by parent names, not states.

::

    P(wet | rain, sprinkler) noisy-or { rain: 0.9; sprinkler: 0.8; leak: 0.01 }
    P(alarm | a, b) noisy-and { a: 0.9; b: 0.5 }
    P(pain | injury) noisy-max { injury: 0.2, 0.5, 0.3; leak: 0.9, 0.1, 0.0 }
    P(buy | price) logistic { price: -1.5; bias: 0.5 }

A noisy-OR or noisy-AND row gives p_i, ``leak`` the leak probability; a noisy-MAX row
gives P(Y | that parent's state) for each of its states after the first, one after the
other, and ``leak`` Y's distribution when no cause is present; a logistic row gives w_i
and ``bias`` b (see :mod:`bbn.model.canonical`). Deterministic tables are written in
full.

>>> from bbn.io.formats.bn import read, write
>>> net = read('''variable A { F, T }  variable Y { F, T }  P(A) = 0.5, 0.5
...               P(Y | A) noisy-or { A: 0.9; leak: 0.1 }''', "<doc>")
>>> net.canonical("Y").kind, net.cpt_array("Y")[1].round(2).tolist()
('noisy-or', [0.09, 0.91])
>>> read(write(net), "<doc>").canonical("Y").weights
(0.9,)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import bbn.model.canonical as canonical
from bbn.core.errors import ModelError, suggest
from bbn.io.formats.bn.lexicon import quote
from bbn.io.formats.bn.statements import Table, number_strings
from bbn.model.network import Network

#: The key of the row that is no parent's, by kind.
_EXTRA = {"noisy-or": "leak", "noisy-and": "leak", "noisy-max": "leak", "logistic": "bias"}


def set_compact(net: Network, table: Table, report: Callable[[str, int], None]) -> None:
    """Give the declared variable of ``table`` its compact table, or ``report(message,
    loc)`` each mistake."""
    kind, variable = table.compact.value, table.variable.value
    parents = net.parents(variable)
    extra = _EXTRA[kind]
    given: dict[str, np.ndarray] = {}
    for row in table.rows:
        key = row.key[0] if len(row.key) == 1 else ", ".join(row.key)
        if key not in parents and key != extra:
            report(f"{key!r} in the {kind} table of {variable!r} is not one of its parents "
                   f"{list(parents)} nor {extra!r}"
                   f"{suggest(key, (*parents, extra))}", row.key_loc)
            continue
        try:
            given[key] = np.array([float(x) for x in number_strings(row.numbers)])
        except ValueError:
            report(f"a number in the {kind} table of {variable!r} is not one",
                   row.numbers.loc)
    missing = [p for p in parents if p not in given]
    if missing:
        report(f"the {kind} table of {variable!r} has no row for parent(s) {missing}",
               table.loc)
        return
    shape = tuple(net.cardinality(p) for p in parents) + (net.cardinality(variable),)
    try:
        if kind in ("noisy-or", "noisy-and"):
            spec = canonical.noisy_or(shape, [_one(given[p], p) for p in parents],
                                      _one(given.get("leak", [0.0]), "leak"), variable,
                                      parents, dual=kind == "noisy-and")
        elif kind == "noisy-max":
            spec = canonical.noisy_max(shape, [given[p] for p in parents],
                                       given.get("leak"), variable, parents)
        else:
            spec = canonical.logistic(shape, [_one(given[p], p) for p in parents],
                                      _one(given.get("bias", [0.0]), "bias"), variable)
        net._set_canonical(variable, spec)
    except ModelError as error:
        report(str(error), table.loc)


def _one(numbers, what: str) -> float:
    if len(numbers) != 1:
        raise ModelError(f"{what!r} takes one number, got {len(numbers)}")
    return float(numbers[0])


def compact_lines(net: Network, variable: str, header: str) -> list[str] | None:
    """The lines of a compact table, or None when the variable's table is a full one
    (deterministic tables too: they are written in full)."""
    spec = net.canonical(variable)
    if spec is None or spec.kind == "deterministic":
        return None
    parents = net.parents(variable)
    if spec.kind == "noisy-max":
        rows = [c[1:].ravel().tolist() for c in spec.contributions] + [spec.leak.tolist()]
    else:
        rows = [[w] for w in spec.weights] + [[spec.bias]]
    keys = [*map(quote, parents), _EXTRA[spec.kind]]
    return [f"{header} {spec.kind} {{"] + [
        f"  {k}: {', '.join(map(repr, map(float, r)))}" for k, r in zip(keys, rows)] + ["}"]

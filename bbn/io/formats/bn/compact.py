"""Compact tables in the ``.bn`` language: rows keyed by parent names, not states.

::

    P(wet | rain, sprinkler) noisy-or { rain: 0.9; sprinkler: 0.8; leak: 0.01 }
    P(alarm | a, b) noisy-and { a: 0.9; b: 0.5 }
    P(pain | injury) noisy-max { injury: 0.2, 0.5, 0.3; leak: 0.9, 0.1, 0.0 }
    P(buy | price) logistic { price: -1.5; bias: 0.5 }
    P(level | x, y) softmax { x: 0.0, 1.0, 2.0; y: 0.0, -0.5, 0.5; bias: 0.0, 0.2, -1.0 }

A noisy-OR or noisy-AND row gives p_i, ``leak`` the leak probability; a noisy-MAX row
gives P(Y | that parent's state) for each of its states after the first, one after the
other, and ``leak`` Y's distribution when no cause is present; a logistic row gives w_i
and ``bias`` b (see :mod:`bbn.model.canonical`). Deterministic tables are written in
full. A logistic may have continuous (Gaussian) parents, then it is the two-state softmax
of ``add_logistic``; a softmax (``add_softmax``, continuous parents only) gives each
continuous parent's w_k, one per state of Y, and ``bias`` a_k, P(Y = k | y) ∝
exp(a_k + Σ_i w_ki·y_i) (:mod:`bbn.model.softmax_nodes`).

>>> from bbn.io.formats.bn import read, write
>>> net = read('''variable A { F, T }  variable Y { F, T }  P(A) = 0.5, 0.5
...               P(Y | A) noisy-or { A: 0.9; leak: 0.1 }''', "<doc>")
>>> net.canonical("Y").kind, net.cpt_array("Y")[1].round(2).tolist()
('noisy-or', [0.09, 0.91])
>>> read(write(net), "<doc>").canonical("Y").weights
(0.9,)
>>> net = read('''variable x gaussian  variable D { F, T }  P(x) = N(0.0, 1.0)
...               P(D | x) logistic { x: 1.5; bias: -0.5 }''', "<doc>")
>>> net.canonical("D").weights[..., 0].tolist(), write(net).splitlines()[-4:]
([0.0, 1.5], ['P(D | x) logistic {', '  x: 1.5', '  bias: -0.5', '}'])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import bbn.model.canonical as canonical
from bbn.core.errors import FormatError, ModelError, suggest
from bbn.io.formats.bn.lexicon import quote
from bbn.io.formats.bn.statements import Table, number_strings
from bbn.model.compact_tables import logistic_as_softmax
from bbn.model.network import Network
from bbn.model.softmax_nodes import Softmax

#: The key of the row that is no parent's, by kind.
_EXTRA = {"noisy-or": "leak", "noisy-and": "leak", "noisy-max": "leak", "logistic": "bias",
          "softmax": "bias"}


def softmax_form(net: Network, table: Table) -> None:
    """Before the parents of a logistic or softmax table are set: a variable with a
    continuous parent takes the softmax form (as ``add_softmax`` does), so the parents
    are accepted; its numbers come with :func:`set_compact`."""
    kind = table.compact.value if table.compact is not None else None
    if kind in ("logistic", "softmax"):
        _mark(net, table.variable.value, [p.value for p in table.parents if p.value in net])


def _mark(net: Network, variable: str, parents: list[str]) -> bool:
    """Give ``variable`` the softmax form (numbers to come) when a parent is continuous."""
    continuous = tuple(p for p in parents if net.is_gaussian(p))
    if continuous:
        discrete = tuple(p for p in parents if not net.is_gaussian(p))
        net._nodes[variable].compact = Softmax(discrete, continuous, np.zeros(0), np.zeros(0))
    return bool(continuous)


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
        if kind in ("logistic", "softmax") and _mark(net, variable, parents):
            _set_softmax(net, variable, kind, parents, given)  # continuous parents
            return
        if kind == "softmax":
            raise ModelError(f"the softmax table of {variable!r} needs a continuous "
                             "(Gaussian) parent; with discrete parents only write a table "
                             "or a logistic")
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


def _set_softmax(net: Network, variable: str, kind: str, parents: tuple,
                 given: dict[str, np.ndarray]) -> None:
    """The numbers of a variable in the softmax form: a logistic's w_i and b, or a
    softmax's w_ki and a_k (continuous parents only)."""
    continuous = [p for p in parents if net.is_gaussian(p)]
    if kind == "logistic":
        discrete = [p for p in parents if not net.is_gaussian(p)]
        if net.cardinality(variable) != 2:
            raise ModelError(f"a logistic {variable!r} has two states, not "
                             f"{net.cardinality(variable)}: write a softmax")
        bias, weights = logistic_as_softmax(
            tuple(net.cardinality(p) for p in discrete),
            [_one(given[p], p) for p in discrete],
            {p: _one(given[p], p) for p in continuous}, _one(given.get("bias", [0.0]), "bias"))
    else:
        if len(continuous) != len(parents):
            raise ModelError(f"the softmax table of {variable!r} takes continuous parents "
                             f"only (its weights do not depend on {parents!r}'s discrete "
                             "ones in this syntax); build it with add_softmax")
        weights = {p: given[p] for p in continuous}
        bias = given.get("bias", np.zeros(net.cardinality(variable)))
    net.set_softmax(variable, weights, bias)


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
    if spec.kind == "softmax":
        return _softmax_lines(net, variable, header, spec)
    if spec.kind == "noisy-max":
        rows = [c[1:].ravel().tolist() for c in spec.contributions] + [spec.leak.tolist()]
    else:
        rows = [[w] for w in spec.weights] + [[spec.bias]]
    keys = [*map(quote, parents), _EXTRA[spec.kind]]
    return [f"{header} {spec.kind} {{"] + [
        f"  {k}: {', '.join(map(repr, map(float, r)))}" for k, r in zip(keys, rows)] + ["}"]


def _softmax_lines(net: Network, variable: str, header: str, spec: Softmax) -> list[str]:
    """A variable in the softmax form: a ``logistic`` when it is one (two states,
    a_F = w_F = 0, a_T linear in the discrete parents' state indices, w_T the same for
    every configuration), else ``softmax`` rows (continuous parents only); FormatError
    for a softmax whose weights depend on discrete parents."""
    parents = net.parents(variable)
    bias, weights = spec.bias, spec.weights  # (..., |Y|), (..., |Y|, m)
    shape = bias.shape[:-1]
    flat = weights.reshape(-1, *weights.shape[-2:])
    if bias.shape[-1] == 2 and not bias[..., 0].any() and not flat[:, 0].any() and (
            flat[:, 1] == flat[0, 1]).all():
        score = bias[..., 1]
        b = float(score[(0,) * len(shape)])
        steps = [float(score[tuple(1 if j == i else 0 for j in range(len(shape)))] - b)
                 if n > 1 else 0.0 for i, n in enumerate(shape)]
        again, _ = logistic_as_softmax(shape, steps, {}, b)
        if np.allclose(again[..., 1], score, rtol=0, atol=1e-12):
            given = dict(zip(spec.discrete, steps)) | dict(zip(spec.continuous,
                                                               flat[0, 1].tolist()))
            return [f"{header} logistic {{"] + [
                f"  {quote(p)}: {float(given[p])!r}" for p in parents] + [f"  bias: {b!r}", "}"]
    if spec.discrete:
        raise FormatError(f"the .bn language cannot express {variable!r}: a softmax whose "
                          "weights depend on its discrete parents; keep the model in Python "
                          "(pickle)")
    rows = [weights[:, i].tolist() for i in range(len(spec.continuous))] + [bias.tolist()]
    keys = [*map(quote, spec.continuous), "bias"]
    return [f"{header} softmax {{"] + [
        f"  {k}: {', '.join(map(repr, map(float, r)))}" for k, r in zip(keys, rows)] + ["}"]

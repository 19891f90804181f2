"""Gaussians with continuous parents in the ``.bn`` language: the mean is linear in them.

::

    variable x gaussian
    variable y gaussian
    P(x) = N(0.0, 1.0)
    P(y | x, S) { lo: N(1.0 + 1.0*x, 0.5); hi: N(-1.0 + 3.0*x, 2.0) }

A row is keyed by the states of the discrete parents only (no rows, ``= N(...)``, when
there are none); its mean is the intercept followed by ``+ b*parent`` (or ``- b*parent``)
terms, one per continuous parent (a parent left out has b = 0).

>>> from bbn.io.formats.bn import read, write
>>> net = read('''variable x gaussian  variable y gaussian  P(x) = N(0.0, 1.0)
...               P(y | x) = N(1.0 + 2.0*x, 0.5)''', "<doc>")
>>> {k: v.tolist() for k, v in net.gaussian_weights("y").items()}
{'x': 2.0}
>>> print(write(net).splitlines()[-1])
P(y | x) = N(1.0 + 2.0*x, 0.5)
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.io.formats.bn.lexicon import NAME, NUMBER, WS, quote
from bbn.io.formats.bn.statements import Numbers, Table, unquote_name
from bbn.model.network import Network

_TERM_RE = re.compile(f"{WS}(?P<sign>[+-]){WS}(?P<b>{NUMBER}){WS}\\*{WS}(?P<name>{NAME})")
_NUMBER_RE = re.compile(NUMBER)


def is_linear(net: Network, table: Table) -> bool:
    """Whether ``table`` is a Gaussian's with continuous parents, or writes linear terms."""
    variable = table.variable.value
    if not net.is_gaussian(variable):
        return False
    if any(net.is_gaussian(p) for p in net.parents(variable)):
        return True
    blocks = [table.numbers] if table.numbers is not None else [r.numbers for r in table.rows]
    return any(b is not None and "*" in b.text for b in blocks)


def _parse(numbers: Numbers, continuous: tuple, variable: str,
           report: Callable[[str, int], None]) -> tuple[float, dict, float] | None:
    """(intercept, {parent: b}, variance) of one ``N(...)``; None after reporting."""
    if not numbers.normal:
        report(f"{variable!r} is Gaussian: write N(mean, variance) where the probabilities "
               "of a discrete variable would be", numbers.loc)
        return None
    mean_text, variance_text = numbers.text.rsplit(",", 1)
    first = _NUMBER_RE.match(mean_text)
    intercept, weights, pos = float(first.group()), {}, first.end()
    while (term := _TERM_RE.match(mean_text, pos)) is not None:
        name = unquote_name(term.group("name"), numbers.loc + term.start("name"))
        where = numbers.loc + term.start("name")
        if name not in continuous:
            report(f"{name!r} in the mean of {variable!r} is not one of its continuous "
                   f"parents {list(continuous)}{suggest(name, continuous)}", where)
            return None
        if name in weights:
            report(f"{name!r} appears twice in the mean of {variable!r}", where)
            return None
        b = float(term.group("b"))
        weights[name] = -b if term.group("sign") == "-" else b
        pos = term.end()
    return intercept, weights, float(variance_text)


def set_linear(net: Network, table: Table, report: Callable[[str, int], None]) -> None:
    """Give the Gaussian of ``table`` its means, variances and weights, or report each
    mistake."""
    variable = table.variable.value
    parents = net.parents(variable)
    discrete = tuple(p for p in parents if not net.is_gaussian(p))
    continuous = tuple(p for p in parents if net.is_gaussian(p))
    shape = tuple(net.cardinality(p) for p in discrete)
    count = math.prod(shape)
    if table.numbers is not None:
        if discrete:
            report(f"{net.family_text(variable)}: a Gaussian with discrete parents is written "
                   f"as rows, one N(...) per configuration of {list(discrete)}",
                   table.numbers.loc)
            return
        placed = {0: table.numbers}
    else:
        placed = {}
        for row in table.rows:
            if len(row.key) != len(discrete):
                report(f"a row of {net.family_text(variable)} is keyed by the states of its "
                       f"discrete parents {list(discrete)}, got {len(row.key)}", row.key_loc)
                return
            position = 0
            for i, (p, state) in enumerate(zip(discrete, row.key)):
                states = net.states(p)
                if state not in states:
                    report(f"parent {p!r} has no state {state!r}{suggest(state, states)}",
                           row.state_loc(i))
                    return
                position = position * len(states) + states.index(state)
            if position in placed:
                report(f"two rows for {net.configuration_text(variable, position)}",
                       row.key_loc)
                return
            placed[position] = row.numbers
        if len(placed) < count:
            report(f"{net.family_text(variable)} has {len(placed)} row(s), one per "
                   f"configuration of {list(discrete)} needs {count}", table.end)
            return
    parsed = [_parse(placed[k], continuous, variable, report) for k in range(count)]
    if any(p is None for p in parsed):
        return
    mean = np.array([p[0] for p in parsed]).reshape(shape)
    variance = np.array([p[2] for p in parsed]).reshape(shape)
    weights = {y: np.array([p[1].get(y, 0.0) for p in parsed]).reshape(shape)
               for y in continuous}
    try:
        net.set_gaussian(variable, mean, variance, weights)
    except ModelError as error:
        report(str(error), table.loc)


def linear_lines(net: Network, variable: str, header: str) -> list[str] | None:
    """The lines of a Gaussian with continuous parents, one ``N(mean + b*y ...,
    variance)`` per discrete configuration; None for any other variable."""
    if not net.is_gaussian(variable):
        return None
    weights = net.gaussian_weights(variable)
    if not weights:
        return None
    mean, variance = (a.reshape(-1) for a in net.gaussian_parameters(variable))
    flat = {y: b.reshape(-1) for y, b in weights.items()}
    cells = []
    for k in range(len(mean)):
        terms = "".join(f" + {float(b[k])!r}*{quote(y)}" for y, b in flat.items())
        cells.append(f"N({float(mean[k])!r}{terms}, {float(variance[k])!r})")
    discrete = [p for p in net.parents(variable) if not net.is_gaussian(p)]
    if not discrete:
        return [f"{header} = {cells[0]}"]
    keys = itertools.product(*([quote(s) for s in net.states(p)] for p in discrete))
    return [f"{header} {{"] + [f"  {', '.join(key)}: {cell}"
                               for key, cell in zip(keys, cells)] + ["}"]

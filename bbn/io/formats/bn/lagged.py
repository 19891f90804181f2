"""The statements of a dynamic ``.bn`` file rewritten into those of its two-slice network:
a variable's parents may be named in the slice before (``P(Rain | Rain[-1])``) and slice
0's table is written for ``Rain[0]``; the rewrite declares ``Rain[0]`` and ``Rain[1]``,
and every name keeps its place in the file, so the ordinary reader reports each mistake
at its line and column. :func:`is_dynamic` tells a dynamic file from an ordinary one (the
``.bn`` reader then returns a :class:`bbn.DynamicNetwork`).

>>> from bbn.io.formats.bn.statements import Name
>>> _split(Name("Rain[-1]", 0)), _split(Name("Rain", 0))
(('Rain', -1), ('Rain', None))
"""

from __future__ import annotations

import dataclasses
import re

from bbn.core.errors import suggest
from bbn.io.formats.bn.statements import Name, Problem, Table, Variable

_SLICED = re.compile(r"^(.*)\[(-?[0-9]+)\]$")


def _slice_name(variable: str, step: int) -> str:
    """``Rain`` at step 1: ``Rain[1]`` (the naming of :func:`bbn.model.dynamic.slice_name`,
    which this layer does not load: it brings pandas)."""
    return f"{variable}[{step}]"


def is_dynamic(statements: list) -> bool:
    """Whether a table names a variable at a slice (``Rain[0]``, a parent ``Rain[-1]``)
    that is not itself declared, in a file whose variables are not all declared at a
    slice (a saved two-slice network, ``Rain[0]`` and ``Rain[1]``, is an ordinary one).

    Examples
    --------
    >>> from bbn.io.formats.bn.statements import Name, Table, Variable
    >>> rain = Variable(Name("Rain", 0), None, [Name("T", 0), Name("F", 0)])
    >>> lag = Table(0, Name("Rain", 0), [Name("Rain[-1]", 0)])
    >>> is_dynamic([rain, lag]), is_dynamic([rain])
    (True, False)
    """
    variables = [s.name for s in statements if type(s) is Variable]
    if variables and all(_split(name)[1] is not None for name in variables):
        return False
    declared = {name.value for name in variables}
    return any(_split(name)[1] is not None and name.value not in declared
               for s in statements if type(s) is Table for name in (s.variable, *s.parents))


def _split(name: Name) -> tuple[str, int | None]:
    match = _SLICED.match(name.value)
    return (name.value, None) if match is None else (match.group(1), int(match.group(2)))


def _renamed(name: Name, step: int) -> Name:
    return Name(_slice_name(name.value, step), name.loc)


def two_slice_statements(statements: list) -> list:
    """The statements of the two-slice network a dynamic ``.bn`` file describes (three
    slices for a second-order one, with parents two slices before: ``X[-2]``); a file
    already in slice form (every variable declared as ``X[0]``, ``X[1]``...) is returned
    as it is.

    A table written for a variable, ``P(X | ...)``, is that of every later slice; for
    ``X[0]`` slice 0's (its parents in slice 0); for ``X[1]`` slice 1's, needed by a
    variable with a parent two slices before (its parents in slice 1, named plainly or
    ``Y[1]``, or in slice 0, ``Y[0]`` or ``Y[-1]``)."""
    variables = [s for s in statements if type(s) is Variable]
    if variables and all(_split(s.name)[1] is not None for s in variables):
        return statements
    names = [s.name.value for s in variables]
    order = 2 if any(type(s) is Table and _split(s.variable)[1] is None and
                     any(_split(p)[1] == -2 for p in s.parents) for s in statements) else 1
    early: dict = {0: {}, 1: {}}
    transition, others = {}, []
    for s in statements:
        if type(s) is not Table:
            if type(s) is not Variable:
                others.append(s)
            continue
        base, step = _split(s.variable)
        if step not in (None, 0, 1) or (step == 1 and order == 1):
            raise Problem(f"P({s.variable.value} ...): a table is written for a variable "
                          f"(every slice) or for its slice 0, {base}[0] (and slice 1, "
                          f"{base}[1], with a parent two slices before)", s.variable.loc)
        parents = [_placed(p, names, step, order) for p in s.parents]
        table = dataclasses.replace(s, variable=_renamed(
            Name(base, s.variable.loc), order if step is None else step), parents=parents)
        (transition if step is None else early[step])[base] = (table, s)
    rewritten = list(others)
    for s in variables:
        rewritten += [dataclasses.replace(s, name=_renamed(s.name, t)) for t in range(order + 1)]
    for base, (table, written) in transition.items():
        rewritten.append(table)
        lags = [_split(p)[1] for p in written.parents]
        for step in range(order - 1, -1, -1):
            if base in early[step]:
                continue
            if any(lag is not None and lag < -step for lag in lags):
                raise Problem(f"P({written.variable.value} | ...) has a parent "
                              f"{'two slices' if step else 'in the slice'} before: give "
                              f"its slice-{step} table, P({base}[{step}] ...)",
                              written.variable.loc)
            rewritten.append(dataclasses.replace(
                table, variable=_renamed(Name(base, table.variable.loc), step),
                parents=[Name(_slice_name(_split(p)[0], step + (_split(p)[1] or 0)), p.loc)
                         for p in written.parents]))
    rewritten += [table for step in (1, 0) for table, _ in early[step].values()]
    for base, (_, written) in early[1].items():
        if base not in transition or not any(_split(p)[1] == -2
                                             for p in transition[base][1].parents):
            raise Problem(f"P({written.variable.value} ...): slice 1's own table is for a "
                          "variable with a parent two slices before ([-2])",
                          written.variable.loc)
    return rewritten


def _placed(parent: Name, names: list[str], step: int | None, order: int) -> Name:
    """A parent named in a table of slice ``step`` (None: every later slice) → its name in
    the slice network: in a later slice's table relative (``Y``, ``Y[-1]``, ``Y[-2]``),
    in slice 0's and 1's a slice (``Y[0]``, ``Y[1]``; ``Y[-1]`` in slice 1's: slice 0)."""
    base, lag = _split(parent)
    if base not in names:
        raise Problem(f"unknown parent {base!r}{suggest(base, names)}", parent.loc)
    if step == 0 and lag not in (None, 0):
        raise Problem(f"P(... | {parent.value}) is slice 0's table: its parents are in slice "
                      f"0 ({base} or {base}[0])", parent.loc)
    if step == 1:
        if lag not in (None, 0, 1, -1):
            raise Problem(f"parent {parent.value}: slice 1's table has its parents in slice "
                          f"1 ({base} or {base}[1]) or 0 ({base}[0] or {base}[-1])",
                          parent.loc)
        return _renamed(Name(base, parent.loc), 1 if lag in (None, 1) else 0)
    if step is None and lag not in (None, 0, -1, -2):
        raise Problem(f"parent {parent.value}: a parent is in the same slice or one of the two "
                      "before ([-1], [-2])", parent.loc)
    return _renamed(Name(base, parent.loc), 0 if step == 0 else order + (lag or 0))

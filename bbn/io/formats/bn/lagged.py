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
    """The statements of the two-slice network a dynamic ``.bn`` file describes; a file
    already in two-slice form (every variable declared as ``X[0]`` or ``X[1]``) is
    returned as it is."""
    variables = [s for s in statements if type(s) is Variable]
    if variables and all(_split(s.name)[1] is not None for s in variables):
        return statements
    names = [s.name.value for s in variables]
    initial, transition, others = {}, {}, []
    for s in statements:
        if type(s) is not Table:
            if type(s) is not Variable:
                others.append(s)
            continue
        base, step = _split(s.variable)
        if step not in (None, 0):
            raise Problem(f"P({s.variable.value} ...): a table is written for a variable "
                          f"(every slice) or for its slice 0, {base}[0]", s.variable.loc)
        parents = []
        for p in s.parents:
            parent, lag = _split(p)
            if parent not in names:
                raise Problem(f"unknown parent {parent!r}{suggest(parent, names)}", p.loc)
            if step == 0 and lag not in (None, 0):
                raise Problem(f"P({s.variable.value} ...) is slice 0's table: its parents "
                              f"are in slice 0 ({parent} or {parent}[0])", p.loc)
            if lag not in (None, 0, -1):
                raise Problem(f"parent {p.value}: a parent is in the same slice or the one "
                              "before ([-1])", p.loc)
            parents.append(_renamed(Name(parent, p.loc), 0 if step == 0 or lag == -1 else 1))
        table = dataclasses.replace(s, variable=_renamed(Name(base, s.variable.loc),
                                                         1 if step is None else 0),
                                    parents=parents)
        (initial if step == 0 else transition)[base] = (table, s)
    rewritten = list(others)
    for s in variables:
        rewritten += [dataclasses.replace(s, name=_renamed(s.name, t)) for t in (0, 1)]
    for base, (table, written) in transition.items():
        rewritten.append(table)
        if base in initial:
            continue
        if any(_split(p)[1] == -1 for p in written.parents):
            raise Problem(f"P({written.variable.value} | ...) has a parent in the slice "
                          f"before: give its slice-0 table, P({base}[0] ...)",
                          written.variable.loc)
        rewritten.append(dataclasses.replace(
            table, variable=_renamed(Name(base, table.variable.loc), 0),
            parents=[Name(_slice_name(_split(p)[0], 0), p.loc) for p in written.parents]))
    rewritten += [table for table, _ in initial.values()]
    return rewritten

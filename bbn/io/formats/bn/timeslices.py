"""Dynamic networks in the ``.bn`` language: a variable's parents may be named in the
slice before, ``P(Rain | Rain[-1])``, and slice 0's table is written for ``Rain[0]``::

    network umbrella
    variable Rain { T, F }
    variable Umbrella { T, F }
    P(Rain[0]) = 0.5, 0.5                 # slice 0
    P(Rain | Rain[-1]) { T: 0.7, 0.3; F: 0.3, 0.7 }
    P(Umbrella | Rain) { T: 0.9, 0.1; F: 0.2, 0.8 }   # every slice, slice 0 too

The statements are rewritten into those of the two-slice network (``X[0]``, ``X[1]``),
each name keeping its place in the file, and built by the ``.bn`` reader, so every
mistake is reported at its line and column; the result is a
:class:`bbn.DynamicNetwork`. A file of a two-slice network (variables ``X[0]`` and
``X[1]``, as ``bbn.save(dbn.two_slice(), ...)`` writes it) reads as well.

>>> dbn = read_dynamic('''
... variable Rain { T, F }
... variable Umbrella { T, F }
... P(Rain[0]) = 0.5, 0.5
... P(Rain | Rain[-1]) { T: 0.7, 0.3; F: 0.3, 0.7 }
... P(Umbrella | Rain) { T: 0.9, 0.1; F: 0.2, 0.8 }''', "umbrella.bn")
>>> dbn.parents("Rain"), dbn.parents("Umbrella")
(('Rain[-1]',), ('Rain',))
"""

from __future__ import annotations

import dataclasses
import re

import bbn.io.formats as formats
import bbn.io.formats.bn as bn_format
import bbn.model.dynamic as dynamic
from bbn.core.errors import suggest
from bbn.io.formats.bn.statements import Name, Problem, Table, Variable

_SLICED = re.compile(r"^(.*)\[(-?[0-9]+)\]$")


def read_dynamic(text: str, source: str = "<string>",
                 normalize: bool = False) -> dynamic.DynamicNetwork:
    """The dynamic network of a ``.bn`` text (see the module's description).

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        How errors name it (``file.bn``).
    normalize : bool
        Rescale every row of every table to sum 1.

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    ParseError
        At ``source:line:col``: a slice other than 0 (for a table's variable) or −1 and 0
        (for a parent), a variable with a parent in the slice before and no slice-0
        table, and every mistake of an ordinary ``.bn`` file.

    Examples
    --------
    >>> read_dynamic("variable X { a, b }  P(X | X[-1]) = 0.5, 0.5, 0.5, 0.5")
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: <string>:1:24: P(X | ...) has a parent in the slice before: ...
    """
    net = bn_format.read(text, source, normalize, rewrite=two_slice_statements)
    return dynamic.DynamicNetwork.from_two_slice(net)


def load_dynamic(path, normalize: bool = False) -> dynamic.DynamicNetwork:
    """A dynamic network from a file: a ``.bn`` file in the dynamic form (or two-slice),
    any other format as a two-slice network (``X[0]``/``X[1]`` or pyAgrum's ``X0``/``Xt``,
    :meth:`bbn.DynamicNetwork.from_two_slice`).

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz``: gunzipped).
    normalize : bool
        Rescale every row of every table to sum 1.

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    ParseError, ModelError
        As :func:`read_dynamic` and :func:`bbn.load`.

    Examples
    --------
    >>> load_dynamic("models/umbrella.bn").parents("Rain")
    ('Rain[-1]',)
    """
    if formats.format_of(path) == "bn":
        return read_dynamic(formats.read_text(path), str(path), normalize)
    return dynamic.DynamicNetwork.from_two_slice(formats.load(path, normalize=normalize))


def _split(name: Name) -> tuple[str, int | None]:
    match = _SLICED.match(name.value)
    return (name.value, None) if match is None else (match.group(1), int(match.group(2)))


def _renamed(name: Name, step: int) -> Name:
    return Name(dynamic.slice_name(name.value, step), name.loc)


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
            parents=[Name(dynamic.slice_name(_split(p)[0], 0), p.loc) for p in written.parents]))
    rewritten += [table for table, _ in initial.values()]
    return rewritten

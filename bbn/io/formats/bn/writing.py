"""Writing a network as ``.bn`` text that reads back into an equal network (floats are
written with ``repr``, which round-trips every float64).

>>> from bbn.model.network import Network
>>> print(write(Network.assemble("rain", {"R": ["yes", "no"]}, tables={"R": [0.2, 0.8]})))
network rain
<BLANKLINE>
variable R { yes, no }
<BLANKLINE>
P(R) = 0.2, 0.8
<BLANKLINE>
"""

from __future__ import annotations

import itertools

import numpy as np

from bbn.io.formats.bn.compact import compact_lines
from bbn.io.formats.bn.lexicon import quote, quote_description
from bbn.io.formats.bn.linear import linear_lines
from bbn.model.network import Network


def write(net: Network) -> str:
    """The network as ``.bn`` text: declarations first, then one table per variable.

    Names are quoted only when they need it, numbers are written with ``repr`` (exact
    round trip) and the rows of a table are aligned in columns, one row per parent
    configuration, the last parent varying fastest.

    Parameters
    ----------
    net : Network
        The network (discrete and Gaussian variables, with or without tables).

    Returns
    -------
    str
        Text that :func:`bbn.io.formats.bn.read` turns back into an equal network.

    Examples
    --------
    >>> from bbn.io.formats.bn import read
    >>> net = read("variable A { a, b }  variable B { x, y }  P(A) = 0.5, 0.5 "
    ...            "P(B | A) { a: 0.9, 0.1; b: 0.25, 0.75 }")
    >>> print(write(net), end="")
    network network
    <BLANKLINE>
    variable A { a, b }
    variable B { x, y }
    <BLANKLINE>
    P(A) = 0.5, 0.5
    <BLANKLINE>
    P(B | A) {
      a: 0.9,  0.1
      b: 0.25, 0.75
    }
    """
    lines = [f"network {quote(net.name)}", ""] + _declarations(net)
    decisions = set(getattr(net, "_decisions", ()))
    chunks = [_table_lines(net, v) if net.has_cpt(v) else [family_header(net, v)]
              for v in net.variables
              if v not in decisions and (net.has_cpt(v) or net.parents(v))]
    chunks += [_utility_lines(net, u) for u in getattr(net, "utilities", ())]
    return _joined(lines, chunks)


def _joined(lines: list[str], chunks: list[list[str]]) -> str:
    """The declarations' ``lines``, then the tables' ``chunks``: a multi-line table stands
    apart, one-line tables follow each other."""
    previous: list[str] = ["", ""]  # a blank line after the declarations
    for chunk in chunks:
        if len(chunk) > 1 or len(previous) > 1:
            lines.append("")
        lines += chunk
        previous = chunk
    return "\n".join(lines) + "\n"


_ALIGN_LIMIT = 32  # wider names or descriptions are not padded, to keep lines short


def _declarations(net: Network) -> list[str]:
    names = [quote(v) for v in net.variables]
    descriptions = [quote_description(net.description(v)) for v in net.variables]
    name_width = max([len(n) for n in names if len(n) <= _ALIGN_LIMIT], default=0)
    description_width = max([len(d) for d in descriptions if len(d) <= _ALIGN_LIMIT],
                            default=0)
    lines = []
    for variable, name, description in zip(net.variables, names, descriptions):
        head = name.ljust(name_width)
        if description_width:
            head += " " + description.ljust(description_width)
        if variable in getattr(net, "_decisions", ()):
            known = ", ".join(quote(p) for p in net.parents(variable))
            head = name + (f"({known})" if known else "") + (
                f" {description}" if description_width and net.description(variable) else "")
            lines.append(f"decision {head} {{ {', '.join(map(quote, net.states(variable)))} }}")
        elif net.is_gaussian(variable):
            lines.append(f"variable {head} gaussian")
        else:
            lines.append(f"variable {head} {{ {', '.join(map(quote, net.states(variable)))} }}")
    return lines


def family_header(net: Network, variable: str) -> str:
    parents = net.parents(variable)
    given = f" | {', '.join(quote(p) for p in parents)}" if parents else ""
    return f"P({quote(variable)}{given})"


def write_dynamic(dbn) -> str:
    """A dynamic network as ``.bn`` text in the dynamic form, which :func:`bbn.loads`
    reads back into an equal 2-TBN: each variable declared once, ``P(Rain | Rain[-1])``
    for the tables of slices t ≥ 1, and ``P(Rain[0] | ...)`` for slice 0's own table
    where the variable has one (its parents named at slice 0); with a parent two slices
    before, ``P(X | X[-1], X[-2])`` and slice 1's table ``P(X[1] | X[0])``.

    Parameters
    ----------
    dbn : bbn.DynamicNetwork
        (Duck-typed: its module loads pandas, which writing a file does not need.)

    Returns
    -------
    str

    Examples
    --------
    >>> from bbn.io.formats.bn import read
    >>> dbn = read("variable X { a, b }  P(X[0]) = 0.5, 0.5  P(X | X[-1]) = 1, 0, 0.25, 0.75")
    >>> print(write_dynamic(dbn), end="")
    network network
    <BLANKLINE>
    variable X { a, b }
    <BLANKLINE>
    P(X[0]) = 0.5, 0.5
    <BLANKLINE>
    P(X | X[-1]) {
      a: 1.0,  0.0
      b: 0.25, 0.75
    }
    """
    last = max(dbn.order, 1)  # the slice whose tables every later slice repeats
    net = dbn.unroll(last + 1)
    variables = dbn.variables
    states = {v: dbn.states(v) for v in variables}
    descriptions = {v: net.description(f"{v}[{last}]") for v in variables}
    # a network only to write the families: X (later slices), X[0], X[1] (slices 0 and
    # 1, as slices), X[-1] and X[-2] (the slices before)
    steps = ("[-2]", "[-1]", "[0]", "[1]", "")
    family_states = {f"{v}{step}": states[v] for step in steps for v in variables}
    second = {v for v in variables if any(p.endswith("[-2]") for p in dbn.parents(v))}
    parents = {v: dbn.parents(v) for v in variables}
    parents.update({f"{v}[0]": net.parents(f"{v}[0]") for v in variables})
    parents.update({f"{v}[1]": net.parents(f"{v}[1]") for v in second})
    sources = {v: f"{v}[{last}]" for v in variables}
    sources.update({f"{v}[{k}]": f"{v}[{k}]" for v in variables for k in (0, 1)
                    if k == 0 or v in second})
    tables = {name: net.cpt_array(source) for name, source in sources.items()
              if net.has_cpt(source)}
    families = Network.assemble(dbn.name, family_states, parents, tables)
    chunks = []
    for v in variables:
        names = ([v] if _one_table(families, v) else [f"{v}[0]", v]) if v not in second \
            else [f"{v}[0]", f"{v}[1]", v]
        chunks += [_table_lines(families, name) if families.has_cpt(name)
                   else [family_header(families, name)] for name in names]
    declared = Network.assemble(dbn.name, states, descriptions=descriptions)
    return _joined([f"network {quote(dbn.name)}", ""] + _declarations(declared), chunks)


def _one_table(families: Network, variable: str) -> bool:
    """Whether ``variable``'s table in slice 0 is that of the later slices: no parent in
    the slice before, the same parents, the same numbers (or no table in either)."""
    first = f"{variable}[0]"
    if families.parents(first) != tuple(f"{p}[0]" for p in families.parents(variable)):
        return False
    if families.has_cpt(first) != families.has_cpt(variable):
        return False
    return not families.has_cpt(first) or np.array_equal(families.cpt_array(first),
                                                         families.cpt_array(variable))


def _table_lines(net: Network, variable: str) -> list[str]:
    header = family_header(net, variable)
    parents = net.parents(variable)
    compact = compact_lines(net, variable, header) or linear_lines(net, variable, header)
    if compact is not None:
        return compact
    if net.is_gaussian(variable):
        array = np.stack(net.gaussian_parameters(variable), axis=-1)
        cells = np.array([f"N({mean!r}, {variance!r})" for mean, variance
                          in array.reshape(-1, 2).tolist()], dtype=object).reshape(-1, 1)
    else:
        array = net.cpt_array(variable)
        cells = np.array(list(map(repr, array.ravel().tolist())), dtype=object).reshape(
            -1, array.shape[-1])
    width = cells.shape[-1]
    if not parents:
        return [f"{header} = {', '.join(cells[0])}"]
    # pad every column but the last so numbers line up; keys end with ':' aligned
    widths = [max(map(len, cells[:, j])) + 1 for j in range(width - 1)]
    keys = [[quote(s) for s in net.states(p)] for p in parents]
    key_widths = [max(map(len, k)) + 1 for k in keys]
    lines = [header + " {"]
    for configuration, row in zip(itertools.product(*keys), cells):
        key = " ".join((state + ("," if i < len(parents) - 1 else ":")).ljust(key_widths[i])
                       for i, state in enumerate(configuration))
        numbers = [(value + ",").ljust(widths[j]) for j, value in enumerate(row[:-1])]
        lines.append(f"  {key} {' '.join(numbers + [row[-1]])}")
    lines.append("}")
    return lines


def _utility_lines(net: Network, name: str) -> list[str]:
    """``utility U(A, B) { a: u, u ... }`` (one row per state of every parent but the last)
    or ``utility U(A) = u, u``; numbers with ``repr``."""
    parents = net.utility_parents(name)
    table = net.utility(name).values
    header = f"utility {quote(name)}({', '.join(quote(p) for p in parents)})"
    if len(parents) < 2:
        return [f"{header} = {', '.join(map(repr, np.ravel(table).tolist()))}"]
    lines = [header + " {"]
    rows = table.reshape(-1, table.shape[-1])
    keys = itertools.product(*([quote(s) for s in net.states(p)] for p in parents[:-1]))
    for key, row in zip(keys, rows.tolist()):
        lines.append(f"  {', '.join(key)}: {', '.join(map(repr, row))}")
    lines.append("}")
    return lines

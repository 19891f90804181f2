"""HTML tables for a notebook: what ``_repr_html_`` of bbn's results is made of.

A table is a header and rows of cells; a text cell is escaped, a number shown with six
decimals, and a number in a probability column also as a bar of width 100·p pixels. A
conditional table P(X | parents) is shown pivoted: one row per parent configuration, one
column per state of X. No styling beyond inline widths, so the notebook's own style
applies.

>>> page = table(["A", "probability"], [["T", 0.25]], probabilities=(1,))
>>> page.count("<tr>"), "<td>T</td>" in page, "width:25.0px" in page
(2, True, True)
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import numpy as np

#: The most rows a table shows (a note says how many more there are).
MAX_ROWS = 200

_BAR = ('<div style="display:inline-block;width:{width:.1f}px;height:0.8em;'
        'background:#4c78a8;margin-left:0.5em;vertical-align:middle"></div>')


def cell(value, bar: bool = False) -> str:
    """One ``<td>``: text escaped; a number with six decimals, and a bar when ``bar``
    and 0 ≤ value ≤ 1.

    Examples
    --------
    >>> cell("<T>"), cell(0.5)
    ('<td>&lt;T&gt;</td>', '<td style="text-align:right">0.500000</td>')
    """
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if bar and 0.0 <= value <= 1.0:
            return (f'<td style="text-align:left">{value:.6f}'
                    f"{_BAR.format(width=100 * value)}</td>")
        return f'<td style="text-align:right">{value:.6f}</td>'
    return f"<td>{html.escape(str(value))}</td>"


def table(header: Sequence[str], rows: Iterable[Sequence], *, probabilities: Iterable[int] = (),
          caption: str | None = None, total: int | None = None,
          max_rows: int = MAX_ROWS) -> str:
    """An HTML table of ``rows`` under ``header``.

    Parameters
    ----------
    header : sequence of str
        The column titles.
    rows : iterable of sequences
        The cells (text or numbers); read up to ``max_rows``.
    probabilities : iterable of int
        The positions of columns whose numbers are shown with a bar too.
    caption : str, optional
        A caption above the table.
    total : int, optional
        The number of rows in all, when ``rows`` is cut short (for the note).
    max_rows : int
        The most rows shown.

    Returns
    -------
    str

    Examples
    --------
    >>> table(["x"], [[1.0]] * 3, max_rows=2, total=3).endswith("<p>… 1 more row</p>")
    True
    """
    bars = set(probabilities)
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body, shown = [], 0
    for row in rows:
        if shown == max_rows:
            break
        body.append("<tr>" + "".join(cell(v, i in bars) for i, v in enumerate(row)) + "</tr>")
        shown += 1
    top = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    more = (total or shown) - shown
    note = f"<p>… {more} more row{'s' if more > 1 else ''}</p>" if more > 0 else ""
    return (f'<table class="bbn-table">{top}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>{note}")


def conditional(variables: Sequence[str], states: dict, values: np.ndarray,
                caption: str | None = None) -> str:
    """P(X | parents) pivoted: one row per configuration of the parents (the first
    variables), one column per state of X (the last), each a probability.

    Parameters
    ----------
    variables : sequence of str
        The parents, then X (the axis order of ``values``).
    states : dict
        Each variable's states.
    values : numpy.ndarray
        The table, of shape ``(|P1|, ..., |Pk|, |X|)``.
    caption : str, optional
        Shown above the table.

    Returns
    -------
    str

    Examples
    --------
    >>> page = conditional(["C", "X"], {"C": ["a", "b"], "X": ["u", "v"]},
    ...                    np.array([[0.25, 0.75], [0.5, 0.5]]))
    >>> page.count("<tr>"), "<th>u</th>" in page
    (3, True)
    """
    *parents, child = variables
    flat = np.asarray(values).reshape(-1, len(states[child]))
    configurations = np.indices(flat.shape[:1] if not parents else
                                tuple(len(states[p]) for p in parents)).reshape(
        len(parents) or 1, -1)
    rows = ([*(states[p][configurations[i][r]] for i, p in enumerate(parents)), *flat[r]]
            for r in range(len(flat)))
    columns = len(parents)
    return table([*parents, *states[child]], rows, caption=caption, total=len(flat),
                 probabilities=range(columns, columns + len(states[child])))

"""Graphviz HTML-like labels for one node: its name, its table, its posterior bars.

Every label is a string ``<...>`` that Graphviz reads as an HTML-like label; all text
taken from the model (names, states, descriptions) goes through :func:`escape`, so names
such as ``<5``, ``12+``, ``Asy/Patch`` or ``R&D`` are drawn as written.

Tables and posteriors longer than the caps are cut, and the picture says so in a last
row (``… 40 more rows``): a reader never mistakes a cut table for a whole one.

>>> escape("<5 & >2")
'&lt;5 &amp; &gt;2'
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

#: Colours of the default style (a light node, a warm highlight for evidence).
NODE_FILL = "#e8f0fb"
NODE_LINE = "#3b5b8c"
HEADER_FILL = "#c9daf2"
EVIDENCE_FILL = "#f8c471"
EVIDENCE_LINE = "#b9770e"
BAR_FILL = "#3b78c3"
EVIDENCE_BAR_FILL = "#e67e22"
BAR_TRACK = "#e6e6e6"
MUTED = "#555555"

#: Width of a posterior bar at probability 1, in points.
BAR_WIDTH = 72
#: Descriptions longer than this are shortened on the node (the tooltip keeps them whole).
DESCRIPTION_CHARS = 40


def escape(text: str) -> str:
    """Text safe inside an HTML-like label (``&``, ``<``, ``>``, ``"``, line breaks).

    Parameters
    ----------
    text : str
        A name, state or description from the model.

    Returns
    -------
    str
        Entities for the markup characters; ``<BR/>`` for line breaks.

    Examples
    --------
    >>> escape('R&D "x"'), escape("two" + chr(10) + "lines")
    ('R&amp;D &quot;x&quot;', 'two<BR/>lines')
    """
    text = (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
    return "<BR/>".join(text.splitlines()) if "\n" in text or "\r" in text else text


def shorten(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis.

    Parameters
    ----------
    text : str
        A description.
    limit : int
        Characters at most, the ellipsis included.

    Returns
    -------
    str

    Examples
    --------
    >>> shorten("the chair   is uncomfortable", 12)
    'the chair i…'
    """
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def probability_text(p: float) -> str:
    """A table entry: four significant digits, no trailing zeros.

    Parameters
    ----------
    p : float
        A probability.

    Returns
    -------
    str

    Examples
    --------
    >>> probability_text(0.9), probability_text(0.02), probability_text(0.00001)
    ('0.9', '0.02', '1e-05')
    """
    return f"{p:.4g}"


def posterior_text(p: float) -> str:
    """A posterior: four decimals, as ``bbn query`` prints them rounded.

    Parameters
    ----------
    p : float
        A probability.

    Returns
    -------
    str

    Examples
    --------
    >>> posterior_text(0.886749)
    '0.8867'
    """
    return f"{p:.4f}"


def plain_label(name: str, description: str | None, observed: str | None,
                regression: Sequence[str] = ()) -> str:
    """The name (``= state`` when observed), then the shortened description and, for a
    Gaussian, its regression: a line ``N(1 + 2·x, 0.5)`` per configuration.

    Parameters
    ----------
    name : str
        The variable.
    description : str or None
        Its description, drawn small below the name.
    observed : str or None
        Its observed state, if any.
    regression : sequence of str
        A Gaussian's regression lines (:meth:`bbn.Network.gaussian_text`).

    Returns
    -------
    str
        An HTML-like label, ``<...>``.

    Examples
    --------
    >>> plain_label("A", None, "T")
    '<<B>A</B> = T>'
    >>> plain_label("y", None, None, ["N(1 + 2·x, 0.5)"])
    '<<B>y</B><BR/><FONT POINT-SIZE="10">N(1 + 2·x, 0.5)</FONT>>'
    """
    lines = [f"<B>{escape(name)}</B>" + ("" if observed is None else f" = {escape(observed)}")]
    if description:
        lines.append(f'<FONT POINT-SIZE="9" COLOR="{MUTED}">{escape(shorten(description))}'
                     "</FONT>")
    lines += [f'<FONT POINT-SIZE="10">{escape(line)}</FONT>' for line in regression]
    return "<" + "<BR/>".join(lines) + ">"


def node_label(name: str, description: str | None, *, observed: str | None = None,
               table: str | None = None, bars: str | None = None,
               regression: Sequence[str] = ()) -> str:
    """A boxed label: a header with the name, then the CPT and/or the posterior bars.

    Parameters
    ----------
    name : str
        The variable.
    description : str or None
        Its description, drawn small below the header.
    observed : str or None
        Its observed state: the header is highlighted and shows it.
    table, bars : str or None
        The inner tables made by :func:`cpt_table` and :func:`posterior_table`.
    regression : sequence of str
        A Gaussian's regression lines, one row each.

    Returns
    -------
    str
        An HTML-like label, ``<<TABLE ...>>``.

    Examples
    --------
    >>> label = node_label("C", "the chair", table=cpt_table("C", ["T", "F"], [], [],
    ...                    np.array([0.8, 0.2]), 16, 8))
    >>> label.startswith("<<TABLE"), "0.8" in label, "the chair" in label
    (True, True, True)
    """
    fill = EVIDENCE_FILL if observed is not None else HEADER_FILL
    header = f"<B>{escape(name)}</B>"
    if observed is not None:
        header += f" = {escape(observed)}"
    rows = [f'<TR><TD BGCOLOR="{fill}" CELLPADDING="4">{header}</TD></TR>']
    if description:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="{MUTED}">'
                    f"{escape(shorten(description))}</FONT></TD></TR>")
    rows += [f'<TR><TD><FONT POINT-SIZE="10">{escape(line)}</FONT></TD></TR>'
             for line in regression]
    if table is not None:
        rows.append(f"<TR><TD>{table}</TD></TR>")
    if bars is not None:
        if table is not None:
            rows.append("<HR/>")
        rows.append(f"<TR><TD>{bars}</TD></TR>")
    line = EVIDENCE_LINE if observed is not None else NODE_LINE
    return (f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2" '
            f'COLOR="{line}" BGCOLOR="white">{"".join(rows)}</TABLE>>')


def cpt_table(variable: str, states: Sequence[str], parents: Sequence[str],
              parent_states: Sequence[Sequence[str]], array: np.ndarray | None,
              max_rows: int, max_columns: int) -> str:
    """P(variable | parents) as an inner table: one row per parent configuration.

    Parameters
    ----------
    variable : str
        The variable X.
    states : sequence of str
        X's states (the columns).
    parents : sequence of str
        X's parents, in table-axis order.
    parent_states : sequence of sequence of str
        Each parent's states.
    array : numpy.ndarray or None
        The table, of shape ``(|P1|, ..., |Pk|, |X|)``; None for a structure-only model.
    max_rows, max_columns : int
        At most this many configurations and states are drawn; a last row or column
        says how many were left out.

    Returns
    -------
    str
        An inner ``<TABLE>`` for :func:`node_label`.

    Examples
    --------
    >>> table = cpt_table("W", ["T", "F"], ["C"], [["T", "F"]],
    ...                   np.array([[0.9, 0.1], [0.5, 0.5]]), max_rows=1, max_columns=8)
    >>> "0.9" in table, "0.5" in table, "1 more row" in table
    (True, False, True)
    """
    if array is None:
        return f'<FONT COLOR="{MUTED}"><I>no table</I></FONT>'
    shown_states = list(states[:max_columns])
    hidden_states = len(states) - len(shown_states)
    cells = [f'<TD ALIGN="LEFT"><I>{escape(p)}</I></TD>' for p in parents]
    if parents:
        cells.append("<VR/>")
    cells += [f'<TD ALIGN="RIGHT"><B>{escape(s)}</B></TD>' for s in shown_states]
    if hidden_states:
        cells.append(f"<TD><I>… {hidden_states} more states</I></TD>")
    rows = ["<TR>" + "".join(cells) + "</TR>", "<HR/>"]
    table = array.reshape(-1, len(states))
    configurations = itertools.islice(itertools.product(*parent_states), max_rows)
    for configuration, values in zip(configurations, table[:max_rows], strict=True):
        cells = [f'<TD ALIGN="LEFT">{escape(s)}</TD>' for s in configuration]
        if parents:
            cells.append("<VR/>")
        cells += [f'<TD ALIGN="RIGHT">{probability_text(p)}</TD>'
                  for p in values[:max_columns]]
        if hidden_states:
            cells.append("<TD></TD>")
        rows.append("<TR>" + "".join(cells) + "</TR>")
    hidden_rows = table.shape[0] - max_rows
    if hidden_rows > 0:
        span = len(parents) + len(shown_states) + bool(hidden_states)
        rows.append(f'<TR><TD COLSPAN="{span}" ALIGN="LEFT"><I>… {hidden_rows} more '
                    f'row{"s" if hidden_rows > 1 else ""}</I></TD></TR>')
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3">'
            + "".join(rows) + "</TABLE>")


def posterior_table(states: Sequence[str], probabilities: np.ndarray, observed: str | None,
                    max_rows: int) -> str:
    """One row per state: the state, a bar of length proportional to P, and P itself.

    Parameters
    ----------
    states : sequence of str
        The variable's states.
    probabilities : numpy.ndarray
        P(state | evidence), in the order of ``states``.
    observed : str or None
        The observed state, if any (its bars are drawn in the evidence colour).
    max_rows : int
        At most this many states are drawn; a last row says how many were left out.

    Returns
    -------
    str
        An inner ``<TABLE>`` for :func:`node_label`.

    Examples
    --------
    >>> bars = posterior_table(["T", "F"], np.array([0.886749, 0.113251]), None, 16)
    >>> "0.8867" in bars, 'WIDTH="64"' in bars            # 0.886749 × 72 points
    (True, True)
    """
    fill = EVIDENCE_BAR_FILL if observed is not None else BAR_FILL
    rows = []
    for state, p in zip(states[:max_rows], probabilities[:max_rows], strict=True):
        filled = int(round(float(p) * BAR_WIDTH))
        bar = "".join(
            f'<TD WIDTH="{width}" HEIGHT="10" FIXEDSIZE="TRUE" BGCOLOR="{colour}"></TD>'
            for width, colour in ((filled, fill), (BAR_WIDTH - filled, BAR_TRACK)) if width)
        rows.append(f'<TR><TD ALIGN="LEFT">{escape(state)}</TD>'
                    f'<TD><TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0"><TR>{bar}</TR>'
                    f'</TABLE></TD><TD ALIGN="RIGHT">{posterior_text(float(p))}</TD></TR>')
    hidden = len(states) - max_rows
    if hidden > 0:
        rows.append(f'<TR><TD COLSPAN="3" ALIGN="LEFT"><I>… {hidden} more '
                    f'state{"s" if hidden > 1 else ""}</I></TD></TR>')
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
            + "".join(rows) + "</TABLE>")

"""An answer shown: the text ``bbn query`` prints and the JSON of ``bbn query --json``.

    P(C | A=T)            →  the table of the Factor, one row per state
    P(C=T | A=T) = 0.886749
    MAP / MPE             →  one line per variable, then the probability
    H(...), I(...)        →  bits

Each function takes the parsed :class:`~bbn.questions.language.Query` (for its canonical
text) and the answer :func:`bbn.questions.dispatch.ask` gave; approximate answers add
their standard errors and run report.

>>> import bbn
>>> from bbn.questions.language import parse_query
>>> query = parse_query("P(C=T | A=T)")
>>> to_text(query, bbn.load("models/chair.bn").query(query.text()))
'P(C=T | A=T) = 0.886749'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.factor import Factor
from bbn.questions.language import Query


def _in_bits(query: Query) -> bool:
    """Whether the query's number is information in bits (``H(...)``, ``I(...)``)."""
    return query.kind in ("H", "I")


def to_json(query: Query, result) -> dict:
    """The JSON document ``bbn query --json`` prints for ``result``.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.language import parse_query
    >>> query = parse_query("P(C=T | A=T)")
    >>> to_json(query, 0.5)
    {'query': 'P(C=T | A=T)', 'p': 0.5}
    """
    if hasattr(result, "to_json") and not isinstance(result, (Factor, tuple)):  # Independence
        return {"query": query.text(), **result.to_json()}
    if _in_bits(query):
        return {"query": query.text(), "bits": float(result)}
    if isinstance(result, Factor):
        rows = [{**dict(zip(result.variables, key)), "p": value}
                for key, value in result.rows()]
        errors = getattr(result, "standard_error", None)  # an approximate answer's
        if errors is not None:
            for row, error in zip(rows, errors.ravel().tolist()):
                row["standard_error"] = error
        return {"query": query.text(), "variables": list(result.variables), "rows": rows}
    if isinstance(result, tuple):
        assignment, p = result
        details = result.to_json() if hasattr(result, "to_json") else {}  # approximate
        return {"query": query.text(), "assignment": assignment, "p": p, **details}
    if query.kind == "EU":  # an expected utility, not a probability
        return {"query": query.text(), "eu": float(result)}
    report = getattr(result, "report", None)  # an approximate probability's
    if report is not None:
        return {"query": query.text(), "p": float(result),
                "standard_error": result.standard_error, "method": report.method}
    return {"query": query.text(), "p": float(result)}


def to_text(query: Query, result, digits: int = 6) -> str:
    """The readable answer ``bbn query`` prints.

    Examples
    --------
    >>> from bbn.questions.language import parse_query
    >>> print(to_text(parse_query("MAP(C | A=T)"), ({"C": "T"}, 0.886749)))
    MAP(C | A=T)
      C = T
      probability 0.886749
    """
    if hasattr(result, "to_text") and not isinstance(result, (Factor, tuple)):
        return result.to_text()  # an Independence
    if _in_bits(query):
        return f"{query.text()} = {float(result):.{digits}f} bits"
    if isinstance(result, Factor):
        return f"{query.text()}\n{result.to_text(digits=digits)}"
    if isinstance(result, tuple):
        assignment, p = result
        width = max((len(v) for v in assignment), default=0)
        lines = [f"  {v.ljust(width)} = {s}" for v, s in assignment.items()]
        details = result.text_lines(digits) if hasattr(result, "text_lines") else []
        return "\n".join([query.text(), *lines, f"  probability {p:.{digits}f}", *details])
    report = getattr(result, "report", None)  # an approximate probability's
    if report is not None:
        error = ("no standard error" if result.standard_error is None
                 else f"standard error {result.standard_error:.{digits}f}")
        return f"{query.text()} = {float(result):.{digits}f} ({report.method}, {error})"
    return f"{query.text()} = {float(result):.{digits}f}"


def frame_of_cases(values: np.ndarray, variables: Sequence[str],
                   states: Mapping[str, Sequence[str]], index):
    """A batch's answers as a DataFrame indexed like the cases: P(X | e_i) in row i, one
    column per state of X (for several variables, one per joint state, columns a
    MultiIndex named by the variables, last variable fastest); for continuous variables
    (no states) a ``mean`` and a ``variance`` column each.

    Parameters
    ----------
    values : numpy.ndarray
        ``(N, |X1|, ..., |Xk|)``, as the engine answers a batch (``(N, k, 2)`` for
        continuous variables).
    variables : sequence of str
        X1, ..., Xk.
    states : mapping of str to sequence of str
        Each variable's states.
    index : pandas.Index
        The cases' index.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = frame_of_cases(np.array([[0.25, 0.75]]), ["C"], {"C": ("T", "F")},
    ...                        pd.Index(["r1"]))
    >>> frame.loc["r1", "F"], frame.columns.name
    (np.float64(0.75), 'C')
    """
    import pandas as pd

    if not states[variables[0]]:  # continuous variables: (N, k, 2), a mean and a variance
        columns = (pd.Index(["mean", "variance"], name=variables[0]) if len(variables) == 1
                   else pd.MultiIndex.from_product([list(variables), ["mean", "variance"]],
                                                   names=["variable", "moment"]))
    elif len(variables) == 1:
        columns = pd.Index(list(states[variables[0]]), name=variables[0])
    else:
        columns = pd.MultiIndex.from_product([list(states[v]) for v in variables],
                                             names=list(variables))
    values = np.asarray(values)
    return pd.DataFrame(values.reshape(len(values), int(np.prod(values.shape[1:]))), index=index,
                        columns=columns)

"""Checking a question's evidence at the edge of inference: names, states, codes.

Every function here validates what a user wrote — variable and state names, evidence
columns — and converts it to state indices, with errors that name the variable or the
cell and suggest close matches.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.errors import ImpossibleEvidenceError, QueryError, suggest
from bbn.network import Network


def check_variables(net: Network, variables: Sequence[str], role: str = "query") -> None:
    """Raise QueryError for a variable the network does not have (with close matches)."""
    for v in variables:
        if v not in net:
            raise QueryError(f"unknown {role} variable {v!r}{suggest(str(v), net.variables)}")


def state_index(net: Network, variable: str, state) -> int:
    """Position of ``state`` among the states of ``variable``, or a QueryError."""
    states = net.states(variable)
    state = str(state)
    try:
        return states.index(state)
    except ValueError:
        raise QueryError(f"variable {variable!r} has no state {state!r}; its states are "
                         f"{', '.join(states)}{suggest(state, states)}") from None


def evidence_indices(net: Network, evidence: Mapping[str, str]) -> dict[str, int]:
    """``{variable: state}`` → ``{variable: state index}``, validating both names."""
    check_variables(net, list(evidence), role="evidence")
    continuous = [v for v in evidence if net.is_gaussian(v)]
    if continuous:
        raise QueryError(f"{continuous[0]!r} is continuous: evidence on it weighs posterior "
                         f"queries (P(X | {continuous[0]}=3.2)); probabilities of evidence, "
                         "MAP and MPE take discrete evidence only")
    return {v: state_index(net, v, s) for v, s in evidence.items()}


def evidence_codes(net: Network, frame) -> dict[str, np.ndarray]:
    """A DataFrame of state names → ``{variable: state indices}`` (−1 where missing).

    A cell that is not a state of its column's variable raises DataError naming the
    column, the row and the value (see :func:`bbn.data.encode_column`).
    """
    from bbn.data import encode_column

    check_variables(net, [str(c) for c in frame.columns], role="evidence")
    refuse_continuous_columns(net, [str(c) for c in frame.columns])
    return {str(c): encode_column(frame[c], net.states(str(c)), name=str(c),
                                  row_names=frame.index).astype(np.intp)
            for c in frame.columns}


def refuse_continuous_columns(net: Network, columns: Sequence[str]) -> None:
    continuous = [c for c in columns if net.is_gaussian(c)]
    if continuous:
        raise QueryError(f"{continuous[0]!r} is continuous: for batches with continuous "
                         "evidence use net.predict_proba(data, target)")


#: What a batch does with a case whose evidence is impossible (P(e_i) = 0).
IMPOSSIBLE = ("raise", "nan")


def check_impossible(impossible: str) -> None:
    """QueryError unless ``impossible`` is one of IMPOSSIBLE."""
    if impossible not in IMPOSSIBLE:
        raise QueryError(f"impossible must be 'raise' or 'nan', got {impossible!r}"
                         f"{suggest(str(impossible), IMPOSSIBLE)}")


def warn_impossible(answer: np.ndarray, stacklevel: int = 4) -> None:
    """Warn how many cases (rows of ``answer``, NaN where the evidence is impossible)
    have impossible evidence; ``stacklevel`` 4 names the caller of a public method that
    calls the function calling this one."""
    first = answer[(slice(None),) + (0,) * (answer.ndim - 1)]
    count = int(np.isnan(first).sum())
    if count:
        warnings.warn(f"{count} of {len(first)} case(s) have impossible evidence "
                      "(P(e) = 0): their rows are NaN", RuntimeWarning, stacklevel=stacklevel)


def impossible_row(net: Network, matrix: np.ndarray, columns: Sequence[str],
                   observed: Sequence[str], row: int, row_names=None) -> ImpossibleEvidenceError:
    """The error for case ``row`` of a batch (state indices ``matrix``, one column each)."""
    from bbn.data import row_label

    shown = {c: net.states(c)[int(matrix[row, list(columns).index(c)])] for c in observed}
    name = row_label(row_names[row]) if row_names is not None else str(row)
    return ImpossibleEvidenceError.in_row(shown, name)

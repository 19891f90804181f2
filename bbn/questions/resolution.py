"""Resolving a question against the compiled network, once: names → state indices.

    e = {X1 = s1, ..., Xk = sk}  →  {X1: i1, ..., Xk: ik}   with sj = states(Xj)[ij]

Every function here checks what a user wrote — variable and state names, evidence
columns, numbers given to Gaussian leaves — against a :class:`bbn.views.compiled.CompiledNetwork`
and converts it, with errors that name the variable or the cell and suggest close
matches. Engines answer only resolved questions: evidence on Gaussian leaves is split
off as numbers (:class:`Evidence`), a batch's evidence is a matrix of state indices.

>>> import bbn
>>> network = bbn.load("models/chair.bn").compiled()
>>> resolve_evidence(network, {"A": "T", "S": "F"}).states
{'A': 0, 'S': 1}
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, ModelError, QueryError, suggest

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork


class Evidence(NamedTuple):
    """Evidence resolved against a network: ``states`` maps each observed discrete
    variable to its state index, ``values`` each observed Gaussian leaf to its number,
    ``given`` is the evidence as written (what ImpossibleEvidenceError shows)."""

    states: dict[str, int]
    values: dict[str, float]
    given: dict


#: No evidence at all.
NO_EVIDENCE = Evidence({}, {}, {})


class Question(NamedTuple):
    """A question of the query language resolved against one compiled network: its
    ``kind`` ("P", "MAP" or "MPE"), the targets without a state (``free``), those with
    one (``assigned``: variable → state index) and the :class:`Evidence`."""

    kind: str
    free: tuple[str, ...]
    assigned: dict[str, int]
    evidence: Evidence
    network: CompiledNetwork


#: What a continuous variable cannot be, and what to say (the one place for these messages;
#: "parent" and "table" are mistakes in building a model, the others in asking questions).
_CONTINUOUS = {
    "parent": ("{v!r} is continuous (Gaussian) and cannot be a parent of {value!r}: "
               "continuous variables are leaves"),
    "table": ("{v!r} is continuous (Gaussian) and has no probability table; see "
              "gaussian_parameters"),
    "subject": "{v!r} is continuous: it can be evidence ({v}=3.2), not the subject of a query",
    "number": "{v!r} is continuous: its evidence must be a number, got {value!r}",
    "discrete evidence": ("{v!r} is continuous: evidence on it weighs posterior queries "
                          "(P(X | {v}=3.2)); probabilities of evidence, MAP and MPE take "
                          "discrete evidence only"),
    "batch": ("{v!r} is continuous: for batches with continuous evidence use "
              "bbn.predict_proba(net, data, target)"),
    "target": "the target {v!r} is continuous; classify a discrete variable",
    "all posteriors": ("posteriors of every variable for a batch of cases need a network "
                       "without Gaussian variables ({v!r} is continuous); pass one case at "
                       "a time"),
}


def continuous_error(variable: str, use: str, value: object = None) -> QueryError | ModelError:
    """The error for the continuous ``variable`` used as ``use`` (a key of the messages
    above: ModelError for "parent" (``value``: the child) and "table", QueryError for
    "subject", "number" (``value``: what was given), "discrete evidence", "batch",
    "target" and "all posteriors").

    >>> str(continuous_error("x", "subject"))
    "'x' is continuous: it can be evidence (x=3.2), not the subject of a query"
    """
    error = ModelError if use in ("parent", "table") else QueryError
    return error(_CONTINUOUS[use].format(v=variable, value=value))


def _known(network: CompiledNetwork, variable) -> bool:
    try:
        return variable in network.states
    except TypeError:  # unhashable: not a name
        return False


def check_variables(network: CompiledNetwork, variables: Sequence[str],
                    role: str = "query") -> None:
    """Raise QueryError for a variable the network does not have (with close matches)."""
    for v in variables:
        if not _known(network, v):
            raise QueryError(f"unknown {role} variable {v!r}"
                             f"{suggest(str(v), network.variables)}")


def check_discrete(network: CompiledNetwork, variables: Sequence[str],
                   use: str = "subject") -> None:
    """Raise :func:`continuous_error` for the first Gaussian leaf among ``variables``."""
    if network.gaussian:
        for v in variables:
            if v in network.gaussian:
                raise continuous_error(v, use)


def state_index(network: CompiledNetwork, variable: str, state) -> int:
    """Position of ``state`` among the states of ``variable``, or a QueryError."""
    states = network.states[variable]
    state = str(state)
    try:
        return states.index(state)
    except ValueError:
        raise QueryError(f"variable {variable!r} has no state {state!r}; its states are "
                         f"{', '.join(states)}{suggest(state, states)}") from None


def gaussian_value(variable: str, value) -> float:
    """The number observed on a Gaussian leaf, or a QueryError."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise continuous_error(variable, "number", value) from None
    if not math.isfinite(x):
        raise QueryError(f"evidence {variable}={value!r} is not a finite number")
    return x


def evidence_value(network: CompiledNetwork, variable: str, state) -> int | float:
    """What one item ``variable=state`` says: the state's index for a discrete variable,
    the number for a Gaussian leaf (QueryError for a bad state or number)."""
    if variable in network.gaussian:
        return gaussian_value(variable, state)
    return state_index(network, variable, state)


#: numpy arrays have at most 64 axes: one per query variable (and one for a batch's cases).
MAX_AXES = 64


def check_targets(network: CompiledNetwork, variables: Sequence[str],
                  batched: bool = False) -> None:
    """Query variables: known, discrete, and few enough for numpy's axes."""
    check_variables(network, variables)
    check_discrete(network, variables)
    if len(variables) + batched > MAX_AXES:
        raise QueryError(f"a joint posterior of {len(variables)} variables needs an array of "
                         f"{len(variables) + batched} axes, numpy's limit is {MAX_AXES}: ask "
                         "for fewer variables at once")


def resolve_targets(network: CompiledNetwork, variables: Sequence[str] | str,
                    batched: bool = False) -> list[str]:
    """The variables of a posterior, checked: at least one, none twice, and
    :func:`check_targets`."""
    variables = [variables] if isinstance(variables, str) else list(variables)
    if not variables:
        raise QueryError("a posterior needs at least one query variable")
    if len(set(variables)) != len(variables):
        raise QueryError(f"a query variable is named twice: {variables}")
    check_targets(network, variables, batched)
    return variables


def resolve_evidence(network: CompiledNetwork, evidence: Mapping | None,
                     numbers: bool = True) -> Evidence:
    """``{variable: state}`` → :class:`Evidence`, checking every name and state; numbers
    on Gaussian leaves are split off (with ``numbers=False``, refused: probabilities of
    evidence, MAP and MPE take discrete evidence only)."""
    if not evidence:
        return Evidence(dict(network.constraints), {}, {}) if network.constraints else NO_EVIDENCE
    if type(evidence) is Evidence:  # resolved already
        return evidence
    given = dict(evidence)
    check_variables(network, list(given), role="evidence")
    gaussian = network.gaussian
    if not numbers:
        check_discrete(network, given, "discrete evidence")
    states, values = dict(network.constraints), {}
    for v, s in given.items():
        (values if v in gaussian else states)[v] = evidence_value(network, v, s)
    return Evidence(states, values, given)


def check_columns(network: CompiledNetwork, columns: Sequence[str]) -> None:
    """Evidence columns of a batch: known variables, none continuous."""
    check_variables(network, columns, role="evidence")
    check_discrete(network, columns, "batch")


def evidence_codes(network: CompiledNetwork, frame) -> dict[str, np.ndarray]:
    """A DataFrame of state names → ``{variable: state indices}`` (−1 where missing).

    A cell that is not a state of its column's variable raises DataError naming the
    column, the row and the value (see :func:`bbn.core.data.encode_column`).
    """
    from bbn.core.data import encode_column  # pandas: only batches need it (start-up time)

    columns = [str(c) for c in frame.columns]
    check_columns(network, columns)
    codes = {v: np.full(len(frame), i, dtype=np.intp) for v, i in network.constraints.items()}
    return {**codes, **{str(c): encode_column(frame[c], network.states[str(c)], name=str(c),
                                              row_names=frame.index).astype(np.intp)
                        for c in frame.columns}}


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


def impossible_row(network: CompiledNetwork, matrix: np.ndarray, columns: Sequence[str],
                   observed: Sequence[str], row: int, row_names=None) -> ImpossibleEvidenceError:
    """The error for case ``row`` of a batch (state indices ``matrix``, one column each)."""
    from bbn.core.data import row_label  # pandas: only batches need it (start-up time)

    shown = {c: network.states[c][int(matrix[row, list(columns).index(c)])] for c in observed}
    name = row_label(row_names[row]) if row_names is not None else str(row)
    return ImpossibleEvidenceError.in_row(shown, name)

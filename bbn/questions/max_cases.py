"""MAP and MPE of a DataFrame of cases: the batch answers of the kinds ``MAP`` and
``MPE`` (:data:`bbn.questions.dispatch.KINDS`), by the batched max-product of
:mod:`bbn.engines.exact.max_batches`, and the frame they are shown as.

    row i:  m*_i = argmax_m P(m | e_i),   P(m*_i | e_i)

MPE maximises over every discrete variable that some case does not observe (a column
observed in every case is left out; a variable a case observes keeps its state there).

>>> import bbn, pandas as pd
>>> net = bbn.load("models/chair.bn")
>>> net.map(["C", "S"], pd.DataFrame({"A": ["T", "F"]})).round(6)
   C  S  probability
0  T  F     0.837054
1  T  F     0.770231
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

import bbn.engines.exact.max_batches as max_batches
from bbn.questions.resolution import continuous_error, warn_impossible


class Assignments(NamedTuple):
    """A batch's MAP (or MPE) answers: the ``variables``, their states per case as
    indices (``(N, k)``, −1 in an impossible case) and P(m*_i | e_i) (``(N,)``, NaN in
    an impossible case)."""

    variables: tuple[str, ...]
    states: np.ndarray
    probability: np.ndarray


def map_of_cases(answering, question, model, impossible: str = "raise",
                 weights: Mapping[str, np.ndarray] | None = None, **options) -> Assignments:
    """The MAP of the question's variables in every case (the ``MAP`` kind's batch);
    ``weights``: each case's likelihoods, ``{W: (N, |W|)}`` (soft findings' fitted λ)."""
    return _maximised(answering, question, list(question.free), impossible, weights)


def mpe_of_cases(answering, question, model, impossible: str = "raise",
                 weights: Mapping[str, np.ndarray] | None = None, **options) -> Assignments:
    """The MPE of every case (the ``MPE`` kind's batch): every discrete variable that
    not every case observes; ``weights`` as for :func:`map_of_cases`."""
    view, codes = answering.view, question.evidence.codes
    always = {c for c, column in codes.items() if (np.asarray(column) >= 0).all()}
    variables = [v for v in view.variables if v not in always and v not in view.gaussian
                 and v not in view.auxiliary]
    return _maximised(answering, question, variables, impossible, weights)


def _maximised(answering, question, variables: list[str], impossible: str,
               weights: Mapping[str, np.ndarray] | None = None) -> Assignments:
    cases = question.evidence
    if cases.values:  # max-product takes discrete evidence only
        raise continuous_error(next(iter(cases.values)), "discrete evidence")
    states, probability = max_batches.map_of_cases(
        answering.engine, variables, cases.codes, cases.row_names, cases.count, impossible,
        weights)
    warn_impossible(probability, None)  # names the caller of net.map / net.mpe
    return Assignments(tuple(variables), states, probability)


def frame_of_assignments(result: Assignments, states: Mapping[str, Sequence[str]], index):
    """A batch's MAP or MPE as a DataFrame indexed like the cases: a column per variable
    (its state in each case, categorical) and ``probability``.

    Examples
    --------
    >>> import pandas as pd
    >>> found = Assignments(("C",), np.array([[1], [-1]]), np.array([0.6, np.nan]))
    >>> frame_of_assignments(found, {"C": ("T", "F")}, pd.RangeIndex(2))
         C  probability
    0    F          0.6
    1  NaN          NaN
    """
    import pandas as pd

    columns = {v: pd.Categorical.from_codes(result.states[:, j], list(states[v]))
               for j, v in enumerate(result.variables)}
    columns["probability"] = result.probability
    return pd.DataFrame(columns, index=index)


__all__ = ["Assignments", "frame_of_assignments", "map_of_cases", "mpe_of_cases"]

"""A causal effect estimated from data: the identified formula on the data's frequencies.

    P̂(y | do(x)) = F[P̂(V)]        P̂: the relative frequencies of the observed columns

:func:`effect` identifies P(outcome | do(treatment)) on the graph with the data's columns
as the observed variables (:func:`bbn.questions.identification.identify`: back door,
front door or any formula of the ID algorithm; "not identifiable" names the
confounding), then evaluates the formula on the joint frequencies of the variables it
reads (rows missing one of them are left out).

>>> import bbn, pandas as pd
>>> net = bbn.load("models/chair.bn")
>>> data = bbn.sample(net, 20_000, seed=1)
>>> table = effect(data, net, "B", "A")
>>> print(identify(net, "A", "B"))            # simplified: B → A, nothing confounds
P(A | do(B)) = P(A | B)
>>> table.values[0].round(3).tolist()          # P(A | do(B=T)) = P(A | B=T) = (0.7, 0.3)
[0.697, 0.303]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.core.data import MISSING, encode, read_data
from bbn.core.errors import DataError
from bbn.core.factor import Factor
from bbn.questions.identification import identify


def effect(data, graph, treatment: str | Sequence[str], outcome: str | Sequence[str]) -> Factor:
    """P(outcome | do(treatment)) estimated from ``data`` with the formula the graph
    identifies (the data's columns are the observed variables).

    Parameters
    ----------
    data : DataFrame or CSV path
        One row per unit; columns named as the graph's variables (the unobserved ones
        absent), cells as their states.
    graph : Network
        The causal graph (its tables are not read).
    treatment, outcome : str or sequence of str
        X and Y.

    Returns
    -------
    Factor
        Over (treatment..., outcome...): one distribution of the outcome per treatment.

    Raises
    ------
    NotIdentifiable
        When the effect is not identifiable from the observed columns (naming the
        confounding).
    DataError
        For a cell that is no state of its variable, or no complete row.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> table = effect(bbn.sample(net, 5_000, seed=2), net, "C", "B")
    >>> table.variables
    ('C', 'B')
    """
    frame, source = read_data(data)
    view = graph.compiled()
    observed = [v for v in view.variables if v in {str(c) for c in frame.columns}]
    formula = identify(graph, outcome, treatment, observed=observed)
    variables = list(formula.variables())
    states = [view.states[v] for v in variables]
    codes = encode(frame, variables, states, source=source)
    complete = codes[(codes != MISSING).all(axis=1)]
    if not len(complete):
        raise DataError(f"{source}: no row observes all of {variables}")
    shape = [len(s) for s in states]
    counts = np.bincount(mixed_radix([complete[:, j] for j in range(len(variables))], shape),
                         minlength=int(np.prod(shape))).reshape(shape)
    joint = Factor(variables, dict(zip(variables, states)), counts / counts.sum())
    return formula.evaluate(joint)

"""Likelihood columns of a DataFrame of cases for every kind of batch question (all
posteriors, MAP, MPE): one virtual child per column, whose state in each case codes that
case's likelihood, so the batch is asked as hard findings by the kind's own batch path.

For a column W whose cases carry m distinct likelihoods λ_1 … λ_m (each scaled to a
largest value of 1; a missing cell is λ = 1, a state a one-hot λ), the virtual child
V_W has the states 1 … m and a last one never observed, with

    P(V_W = j | W = w) = λ_j(w) / m        P(V_W = rest | w) = 1 − Σ_j λ_j(w) / m  (≥ 0)

Observing V_W = j multiplies the joint by λ_j(w) / m, a likelihood proportional to λ_j:
every posterior, MAP and MPE given V_W = j is the one given the likelihood λ_j (the
constant 1/m cancels when conditioning). A posterior question keeps its own path, the
likelihoods weighed into the elimination per case
(:meth:`bbn.engines.exact.weighing.Weighing.weighed_posterior_of_cases`).

>>> import bbn, pandas as pd
>>> net = bbn.load("models/chair.bn")
>>> cases = pd.DataFrame({"A": ["T", "T"], "W": [{"T": 0.8, "F": 0.4}, None]})
>>> round(float(net.posteriors(cases)["C"].loc[0, "T"]), 6), round(net.posterior(
...     "C", {"A": "T", "W": {"T": 0.8, "F": 0.4}}).to_dict()["T"], 6)
(0.936426, 0.936426)
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.memory import check_allocation
from bbn.questions.resolution import Asked, likelihood_cells, resolve
from bbn.views.compiled import CompiledNetwork


class Coded:
    """A model seen with its coded virtual children: what dispatch asks, as it asks a
    model (its view, and the slot where the view's engine is kept)."""

    __slots__ = ("view", "_answering")

    def __init__(self, view: CompiledNetwork) -> None:
        self.view, self._answering = view, None

    def compiled(self) -> CompiledNetwork:
        return self.view


def coded_view(base: CompiledNetwork, weights: dict[str, np.ndarray]) -> tuple[
        CompiledNetwork, dict[str, str], dict[str, np.ndarray]]:
    """``base`` with a virtual child per column of ``weights`` (``{W: (N, |W|)
    likelihoods}``), the virtual children's names and each case's state of each.

    Examples
    --------
    >>> import bbn
    >>> base = bbn.load("models/chair.bn").compiled()
    >>> view, names, codes = coded_view(base, {"W": np.array([[0.8, 0.4], [1, 1], [4, 2]])})
    >>> names, codes["W"].tolist(), view.table(names["W"]).round(3).tolist()
    ({'W': 'λ(W)'}, [0, 1, 0], [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25]])
    """
    states, parents = dict(base.states), dict(base.parents)
    cardinality, tables, zero_free = (dict(base.cardinality), dict(base.tables),
                                      dict(base.zero_free))
    variables, names, codes = list(base.variables), {}, {}
    for w, cells in weights.items():
        top = cells.max(axis=1, keepdims=True)
        scaled = np.divide(cells, top, out=np.zeros_like(cells), where=top > 0)
        distinct, inverse = np.unique(scaled, axis=0, return_inverse=True)
        m = len(distinct)
        check_allocation((m + 1) * len(distinct[0]), "a likelihood column's virtual child")
        table = np.empty((cells.shape[1], m + 1))
        table[:, :m] = distinct.T / m
        table[:, m] = np.maximum(0.0, 1.0 - table[:, :m].sum(axis=1))
        table.setflags(write=False)
        name = f"λ({w})"
        while name in states:
            name += "'"
        states[name] = (*(f"λ{j + 1}" for j in range(m)), "rest")
        parents[name], cardinality[name], tables[name] = (w,), m + 1, table
        zero_free[name] = False
        variables.append(name)
        names[w], codes[w] = name, inverse.ravel()
    view = CompiledNetwork(base.revision, tuple(variables), *map(MappingProxyType, (
        states, parents, cardinality, tables, zero_free)), base.gaussian, base.constraints,
        base.auxiliary)
    return view, names, codes


def ask_coded(model, asked: Asked, columns: list, extra: dict, answer: Callable, method,
              **options):
    """Answer the batch ``asked`` of ``model`` whose ``columns`` hold likelihoods: each
    column replaced by its virtual child's states, ``extra`` findings added to every case
    (an intervention's), the question asked of the coded view through ``answer``
    (:func:`bbn.questions.dispatch.answer`); a posterior of every variable leaves the
    virtual children out."""
    base, frame = model.compiled(), asked.evidence
    weights = {str(c): likelihood_cells(base, frame[c], str(c), frame.index) for c in columns}
    return ask_weights(model, asked, frame.drop(columns=columns).assign(**extra), weights,
                       answer, method, **options)


def ask_weights(model, asked: Asked, frame, weights: dict[str, np.ndarray], answer: Callable,
                method, **options):
    """:func:`ask_coded` with the likelihoods given as numbers, ``{W: (N, |W|)}``, beside
    the cases' hard findings ``frame`` (what soft findings on a batch weigh in:
    :mod:`bbn.questions.soft_cases`)."""
    base = model.compiled()
    view, names, codes = coded_view(base, weights)
    found = {names[w]: np.asarray(view.states[names[w]], dtype=object)[codes[w]]
             for w in weights}
    cases = frame.assign(**found)
    try:
        result = answer(Coded(view), resolve(view, asked._replace(
            evidence=cases, do=None, soft=None)), method, **options)
    except ImpossibleEvidenceError as error:  # named by the likelihoods, not their codes
        raise _as_written(error, view, {name: w for w, name in names.items()}) from None
    if type(result) is dict:
        result = {v: r for v, r in result.items() if v in base.states}
    return result


def _as_written(error: ImpossibleEvidenceError, view: CompiledNetwork,
                virtual: dict[str, str]) -> ImpossibleEvidenceError:
    """``error`` with each virtual child's state shown as the likelihood it codes (scaled
    to a largest value of 1)."""
    shown, text = {}, str(error)
    for name, state in error.evidence.items():
        w = virtual.get(name)
        if w is None:
            shown[name] = state
            continue
        table = view.tables[name]
        j = view.states[name].index(state)
        weights = dict(zip(view.states[w], (table[:, j] * (table.shape[1] - 1)).tolist()))
        shown[w] = weights
        text = text.replace(f"{name}={state}", f"{w}={weights}")
    return ImpossibleEvidenceError(shown, text)


__all__ = ["Coded", "ask_coded", "ask_weights", "coded_view"]

"""Learning every table of a network from data, its structure given.

    P(X = x | Pa = pa)  ←  estimator(n(pa, x))      for every variable X

where n(pa, x) counts the rows in which X's family takes that configuration (see
:mod:`bbn.learning.counting`) and the estimator is one of :mod:`bbn.learning.estimators`.
Gaussian variables get a mean and a variance per parent configuration
(:func:`bbn.learning.gaussian.fit_gaussian`).

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"])
>>> net.add_variable("B", ["T", "F"], parents=["A"])
>>> rows = pd.DataFrame({"A": ["T", "T", "F", "F"], "B": ["T", "F", "F", "F"]})
>>> learn(net, rows).cpt("B").to_dict()[("T", "T")]
0.5
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bbn.data import (
    MISSING,
    encode,
    location,
    numeric_column,
    read_data,
    require_columns,
)
from bbn.errors import DataError
from bbn.learning.counting import check_family_sizes, family_counts
from bbn.learning.estimators import (
    UnseenParentsWarning,
    check_estimator,
    empty_rows,
    estimate,
    prior_table,
)
from bbn.learning.gaussian import check_ddof, fit_gaussian, variance_epsilon
from bbn.network import Network

MISSING_POLICIES = ("error", "drop", "em")


def learn(net: Network, data, estimator: str = "mle", *, m: float = 1.0,
          prior: Mapping | None = None, alpha: float = 1.0, ess: float = 1.0,
          missing: str = "error", columns=None, ddof: int | None = None,
          var_smoothing: float = 0.0,
          tol: float = 1e-6, max_iter: int = 100, seed: int | None = 0) -> Network:
    """A copy of ``net`` whose tables are estimated from ``data``.

    ``data``: a DataFrame, a CSV path, or a numpy array (structured, or 2-D with
    ``columns=``). Columns match variables by name; extra columns are ignored.

    ``estimator``: ``"mle"``, ``"m-estimate"`` (``m``, and ``prior`` = {variable: p}; p
    uniform otherwise), ``"laplace"`` (``alpha``) or ``"bayes"`` (BDeu, equivalent sample
    size ``ess``); see :mod:`bbn.learning.estimators`.

    ``missing``: ``"error"`` (default) refuses data with missing values, ``"drop"``
    ignores every row that has one, ``"em"`` runs expectation–maximisation
    (:func:`bbn.learning.missing.em`, with ``tol``, ``max_iter`` and ``seed``; call that function
    for the log-likelihood trace). A variable with no column at all is an error except
    under ``"em"``, where it is hidden.

    Gaussian variables: ``ddof`` (default 1, the sample variance with N − 1; under
    ``"em"`` default 0, the maximum-likelihood M-step) and ``var_smoothing`` (adds
    var_smoothing × the largest column variance). A hidden discrete parent of Gaussian
    variables makes ``"em"`` learn a Gaussian mixture (:mod:`bbn.learning.mixture`).
    """
    estimator = check_estimator(estimator, m, alpha, ess)
    if missing not in MISSING_POLICIES:
        raise DataError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    ddof = check_ddof((0 if missing == "em" else 1) if ddof is None else ddof)
    check_family_sizes(net)
    if missing == "em":
        from bbn.learning.missing import em
        return em(net, data, estimator, m=m, prior=prior, alpha=alpha, ess=ess, columns=columns,
                  tol=tol, max_iter=max_iter, seed=seed, ddof=ddof,
                  var_smoothing=var_smoothing).network
    discrete = [v for v in net.variables if not net.is_gaussian(v)]
    continuous = [v for v in net.variables if net.is_gaussian(v)]
    frame, source = read_data(data, columns, {v: net.states(v) for v in discrete})
    require_columns(frame, net.variables, source)
    codes = encode(frame, discrete, [net.states(v) for v in discrete], source=source)
    values = np.column_stack([numeric_column(frame[v], v, source) for v in continuous]
                             ) if continuous else np.empty((len(frame), 0))
    incomplete = (codes == MISSING).any(axis=1) | np.isnan(values).any(axis=1)
    if incomplete.any():
        if missing == "error":
            raise DataError(_missing_message(frame, codes, values, discrete, continuous, source))
        codes, values = codes[~incomplete], values[~incomplete]
    if len(codes) == 0:
        raise DataError(f"{source}: no rows to learn from"
                        + (" (every row has a missing value)" if incomplete.any() else ""))
    learned = net.copy()
    position = {v: j for j, v in enumerate(discrete)}
    for v in discrete:
        family = net.parents(v) + (v,)
        counts = family_counts([codes[:, position[u]] for u in family],
                               [net.cardinality(u) for u in family])
        learned.set_cpt(v, table_from_counts(net, v, counts, estimator, m=m, prior=prior,
                                             alpha=alpha, ess=ess))
    if continuous:
        epsilon, floor = variance_epsilon(values, var_smoothing)
        for j, v in enumerate(continuous):
            parents = net.parents(v)
            mean, variance = fit_gaussian([codes[:, position[p]] for p in parents],
                                          [net.cardinality(p) for p in parents], values[:, j],
                                          ddof=ddof, epsilon=epsilon, floor=floor, name=v)
            learned.set_gaussian(v, mean, variance)
    return learned


def table_from_counts(net: Network, variable: str, counts: np.ndarray, estimator: str, *,
                      m: float = 1.0, prior: Mapping | None = None, alpha: float = 1.0,
                      ess: float = 1.0, warn: bool = True) -> np.ndarray:
    """The estimated table of ``variable`` from its family counts; with ``warn``, warns
    about parent configurations never seen (mle)."""
    p = (prior_table(variable, net.states(variable), counts.shape, prior)
         if estimator == "m-estimate" else None)
    if estimator == "mle" and warn:
        warn_unseen(net, variable, counts)
    return estimate(counts, estimator, m=m, p=p, alpha=alpha, ess=ess)


def warn_unseen(net: Network, variable: str, counts: np.ndarray) -> None:
    """Warn, listing them, about parent configurations with no data (they get 1/r)."""
    unseen = empty_rows(counts)
    if not len(unseen):
        return
    parents = net.parents(variable)
    shown = ["(" + ", ".join(f"{p}={net.states(p)[i]}" for p, i in zip(parents, row, strict=True))
             + ")" for row in unseen[:10]]
    more = f" and {len(unseen) - 10} more" if len(unseen) > 10 else ""
    family = net.family_text(variable)
    warnings.warn(f"{family}: no data for {len(unseen)} parent configuration(s) "
                  f"{', '.join(shown)}{more}; their rows are uniform (mle cannot estimate them; "
                  "a smoothing estimator can)", UnseenParentsWarning, stacklevel=4)


def _missing_message(frame: pd.DataFrame, codes, values, discrete, continuous, source) -> str:
    holes = np.column_stack([codes == MISSING, np.isnan(values)])
    row, column = (int(i) for i in np.argwhere(holes)[0])
    name = (discrete + continuous)[column]
    where = location(source, row, None if source != "data" else frame.index)
    return (f"{source}: column {name!r}, {where}: missing value ({int(holes.any(axis=1).sum())} "
            "row(s) have one); pass missing='drop' to ignore those rows or missing='em' to "
            "learn with expectation-maximisation")

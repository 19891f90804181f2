"""Exact inference: variable elimination and junction trees, behind one engine.

    P(Q | e) = Σ_h Π_i P(Xi | parents(Xi)) |_e  /  P(e)

The engine of a network (:class:`bbn.Engine`, ``net.engine``; see
:mod:`bbn.engines.exact.engine`) answers every question and keeps what it compiles. The
functions here are the same questions asked of a network, for code that passes
networks around: each is ``net.engine.<method>(...)``. Evidence is a dict
``{variable: state}``; the batched forms take a :class:`pandas.DataFrame` with one row per
case, or state indices.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> round(posterior(net, ["C"], {"A": "T"}).to_dict()["T"], 6)      # 22840/25757
0.886749
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from bbn.core.factor import Factor
from bbn.core.memory import get_memory_limit, set_memory_limit
from bbn.engines.exact.elimination import CASE
from bbn.engines.exact.engine import Engine

__all__ = [
    "CASE", "Engine", "get_memory_limit", "log_probability", "map_query",
    "marginals_of_cases", "posterior", "posterior_batch", "posterior_of_cases", "posteriors",
    "probability", "probability_of_evidence", "set_memory_limit",
]


class Model(Protocol):
    """What the functions here take: a model with an exact :class:`Engine` (a
    :class:`bbn.Network` or :class:`bbn.MarkovNetwork`; ``net.engine``)."""

    @property
    def engine(self) -> Engine: ...


def posterior(net: Model, variables: Sequence[str], evidence: Mapping | None = None) -> Factor:
    """P(variables | evidence) as a normalised :class:`Factor` (:meth:`bbn.Engine.posterior`)."""
    return net.engine.posterior(variables, evidence)


def probability_of_evidence(net: Model, evidence: Mapping[str, str]) -> float:
    """P(e) (:meth:`bbn.Engine.probability_of_evidence`)."""
    return net.engine.probability_of_evidence(evidence)


def log_probability(net: Model, evidence: Mapping[str, str]) -> float:
    """log P(e), exact below 1e-308 (:meth:`bbn.Engine.log_probability`)."""
    return net.engine.log_probability(evidence)


def probability(net: Model, assignment: Mapping[str, str],
                evidence: Mapping[str, str] | None = None) -> float:
    """P(assignment | evidence) (:meth:`bbn.Engine.probability`)."""
    return net.engine.probability(assignment, evidence)


def map_query(net: Model, variables: Sequence[str],
              evidence: Mapping[str, str] | None = None) -> tuple[dict[str, str], float]:
    """The most probable joint state of ``variables`` and its probability
    (:meth:`bbn.Engine.map`)."""
    return net.engine.map(variables, evidence)


def posterior_batch(net: Model, variables: Sequence[str], evidence,
                    impossible: str = "raise") -> np.ndarray:
    """P(variables | e_i) for every row e_i of a DataFrame, as one batched elimination
    (:meth:`bbn.Engine.posterior` with a DataFrame): shape ``(N, |X1|, ..., |Xk|)``.

    With ``impossible="nan"``, rows whose evidence is impossible are NaN (and a
    RuntimeWarning says how many) instead of raising ImpossibleEvidenceError.

    >>> import bbn, pandas as pd, warnings
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["t", "f"], table=[1.0, 0.0])
    >>> net.add_variable("B", ["t", "f"], parents=["A"], table=[[0.9, 0.1], [0.5, 0.5]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rows = posterior_batch(net, ["B"], pd.DataFrame({"A": ["t", "f"]}), impossible="nan")
    >>> rows.tolist(), str(caught[0].message)[:39]
    ([[0.9, 0.1], [nan, nan]], '1 of 2 case(s) have impossible evidence')
    """
    return net.engine.posterior(variables, evidence, impossible)


def posterior_of_cases(net: Model, variables: Sequence[str],
                       codes: Mapping[str, np.ndarray], row_names=None,
                       cases: int | None = None, impossible: str = "raise") -> np.ndarray:
    """P(variables | e_i) for N cases given as state indices ``{variable: (N,) ints}``,
    −1 where missing (:meth:`bbn.Engine.posterior_of_cases`)."""
    return net.engine.posterior_of_cases(variables, codes, row_names, cases, impossible)


def posteriors(net: Model, evidence=None, impossible: str = "raise") -> dict:
    """P(X | e) for every variable X, by one junction-tree propagation
    (:meth:`bbn.Engine.posteriors`)."""
    return net.engine.posteriors(evidence, impossible)


def marginals_of_cases(net: Model, codes: Mapping[str, np.ndarray], row_names=None,
                       cases: int | None = None,
                       impossible: str = "raise") -> dict[str, np.ndarray]:
    """P(X | e_i) for every variable X and N cases given as state indices
    (:meth:`bbn.Engine.marginals_of_cases`)."""
    return net.engine.marginals_of_cases(codes, row_names, cases, impossible)

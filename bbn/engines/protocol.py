"""What every engine answers: questions already resolved to state *indices*.

    P(Q | e) = Σ_h Π_k φ_k |_e / Σ_{q,h} Π_k φ_k |_e          e = {X1: i1, ..., Xk: ik}

An engine is built on one compiled view (:class:`bbn.views.compiled.CompiledNetwork`) and
never sees a user's names: :mod:`bbn.questions.resolution` checks every variable and
state (with did-you-mean errors) and hands the engine an :class:`Evidence` of state
indices (numbers on Gaussian leaves split off), or for a batch ``{variable: (N,) state
indices}`` with −1 where a case does not observe the variable. Variables are the view's
own names (already checked), answers are :class:`bbn.Factor` objects, floats and
``(assignment, probability)`` pairs. :mod:`bbn.questions.dispatch` is the one module
that calls these methods.

:class:`bbn.engines.exact.engine.Engine` satisfies :class:`ExactEngine`; the approximate
methods (:mod:`bbn.engines.approximate`) run on the view's factor graph instead, each a
frozen dataclass of settings with ``run(graph, evidence) -> Marginals``.

>>> import bbn
>>> engine = bbn.Engine(bbn.load("models/chair.bn").compiled())
>>> isinstance(engine, ExactEngine)
True
>>> engine.posterior(["C"], Evidence({"A": 0}, {}, {"A": "T"})).values.round(6).tolist()
[0.886749, 0.113251]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.factor import Factor
from bbn.core.lazy import lazy_attributes

#: The data edge names a batch's rows (row labels); it loads pandas, so it is reached only
#: when an impossible row is reported (a lazy reference, see :mod:`bbn.core.lazy`).
_data = lazy_attributes(__name__, {"row_label": "bbn.core.data"})


class Evidence(NamedTuple):
    """Evidence resolved against a network: ``states`` maps each observed discrete
    variable to its state index, ``values`` each observed Gaussian leaf to its number,
    ``given`` is the evidence as written (what ImpossibleEvidenceError shows).

    >>> Evidence({"A": 0}, {}, {"A": "T"}).states
    {'A': 0}
    """

    states: dict[str, int]
    values: dict[str, float]
    given: dict


#: No evidence at all.
NO_EVIDENCE = Evidence({}, {}, {})


@runtime_checkable
class ExactEngine(Protocol):
    """The questions an exact engine answers over state indices (see the module).

    ``posterior(variables, evidence)``
        P(variables | e), a normalised Factor with axes ``variables`` (an observed one
        is one-hot); evidence on Gaussian leaves weighs it.
    ``posteriors(evidence)``
        ``{X: P(X | e)}`` for every discrete variable.
    ``probability(assigned, evidence)``
        P(a | e) = P(a, e) / P(e), 0 for an assignment that contradicts e.
    ``log_weight(states)``
        log P(e, c) (c: the view's constraints), exact far below 1e-308; −inf at 0.
    ``log_probability(states)``
        log P(e | c) = log P(e, c) − log P(c).
    ``map(variables, evidence)``, ``mpe(evidence)``
        argmax of P(M = m | e) (M every hidden variable for MPE) and its probability.
    ``posterior_of_cases(variables, codes, ...)``, ``marginals_of_cases(codes, ...)``
        A batch: N cases of state indices (−1 missing) → arrays ``(N, |X1|, ...)``.
    """

    def posterior(self, variables: Sequence[str], evidence: Evidence) -> Factor: ...

    def posteriors(self, evidence: Evidence) -> dict[str, Factor]: ...

    def probability(self, assigned: Mapping[str, int], evidence: Evidence) -> float: ...

    def log_weight(self, states: Mapping[str, int]) -> float: ...

    def log_probability(self, states: Mapping[str, int]) -> float: ...

    def map(self, variables: Sequence[str],
            evidence: Evidence) -> tuple[dict[str, str], float]: ...

    def mpe(self, evidence: Evidence) -> tuple[dict[str, str], float]: ...

    def posterior_of_cases(self, variables: Sequence[str], codes: Mapping[str, np.ndarray],
                           row_names=None, cases: int | None = None,
                           impossible: str = "raise",
                           values: Mapping[str, np.ndarray] | None = None) -> np.ndarray: ...

    def marginals_of_cases(self, codes: Mapping[str, np.ndarray], row_names=None,
                           cases: int | None = None,
                           impossible: str = "raise") -> dict[str, np.ndarray]: ...


def impossible_case(shown: Mapping, row: int, row_names=None) -> ImpossibleEvidenceError:
    """The error for case ``row`` of a batch, whose evidence ``shown`` (names and
    states, as shown) is impossible; the row is named by ``row_names[row]`` when given.

    >>> print(impossible_case({"A": "T"}, 2))
    impossible evidence in row 2: A=T has probability 0 under this model
    """
    label = str(row) if row_names is None else _data("row_label")(row_names[row])
    return ImpossibleEvidenceError.in_row(dict(shown), label)


def impossible_row(network, matrix: np.ndarray, columns: Sequence[str],
                   observed: Sequence[str], row: int, row_names=None):
    """The ImpossibleEvidenceError for case ``row`` of a batch (state indices ``matrix``,
    one column per name of ``columns``; ``network``: the compiled view), naming the row by
    ``row_names`` when given.

    >>> import bbn, numpy as np
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> str(impossible_row(network, np.array([[0]]), ["A"], ["A"], 0))
    'impossible evidence in row 0: A=T has probability 0 under this model'
    """
    shown = {c: network.states[c][int(matrix[row, list(columns).index(c)])] for c in observed}
    return impossible_case(shown, row, row_names)

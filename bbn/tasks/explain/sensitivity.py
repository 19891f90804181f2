"""Sensitivity of a posterior to one table entry θ = P(X = x | parents = u).

When θ changes and the other entries of its row are rescaled to keep the row summing to 1
(θ_j(θ) = θ_j (1 − θ)/(1 − θ0)), every term of the joint is linear in θ, so::

    P(y, e)(θ) = α_y θ + β_y,     P(e)(θ) = γ θ + δ = Σ_y (α_y θ + β_y)

    P(y | e)(θ) = (α_y θ + β_y) / (γ θ + δ)
    d/dθ P(y | e) = (α_y δ − β_y γ) / (γ θ + δ)²

The coefficients come from exact solves by the engine at two values of θ (0 and 1; one
solve gives P(y, e) for every y). The MAP decision argmax_y P(y | e) changes only where
two numerator lines α_y θ + β_y cross (the denominator is common): the range of θ over
which the current decision holds is read off those lines.

>>> import bbn
>>> result = sensitivity(bbn.load("models/chair.bn"), "P(C=T | A=T)", "S", {}, "T")
>>> round(result.value, 6), round(result.derivative, 4)
(0.886749, -0.2749)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import QueryError
from bbn.questions.language import Query, parse_query
from bbn.questions.resolution import check_variables, resolve_query, state_index

if TYPE_CHECKING:
    from bbn.model.network import Network


@dataclass(frozen=True)
class Sensitivity:
    """A posterior as a function of one table entry θ.

    Attributes
    ----------
    target : str
        The query variable Y; ``states`` its states; ``state`` the one asked (None for a
        distribution).
    theta : float
        The entry's current value θ0.
    numerator : numpy.ndarray
        ``(|Y|, 2)``: α_y, β_y of P(y, e)(θ) = α_y θ + β_y.
    denominator : tuple of float
        γ, δ of P(e)(θ) = γ θ + δ.
    decision : str
        argmax_y P(y | e) at θ0; ``decision_range`` the interval of θ in [0, 1] over which
        it stays the argmax (ties at the ends).
    """

    target: str
    states: tuple[str, ...]
    state: str | None
    variable: str
    row: tuple[tuple[str, str], ...]
    entry: str
    theta: float
    numerator: np.ndarray
    denominator: tuple[float, float]
    decision: str
    decision_range: tuple[float, float]
    evidence: tuple[tuple[str, str], ...] = ()

    def at(self, theta: float) -> np.ndarray:
        """P(y | e) for every y when the entry is ``theta``.

        >>> import bbn
        >>> result = sensitivity(bbn.load("models/chair.bn"), "P(C | A=T)", "C", {}, "T")
        >>> result.at(0.8).round(6).tolist()
        [0.886749, 0.113251]
        """
        gamma, delta = self.denominator
        return (self.numerator[:, 0] * theta + self.numerator[:, 1]) / (gamma * theta + delta)

    def _index(self) -> int:
        return self.states.index(self.state if self.state is not None else self.decision)

    @property
    def value(self) -> float:
        """P(state | e) at θ0 (the decision's probability for a distribution)."""
        return float(self.at(self.theta)[self._index()])

    @property
    def derivative(self) -> float:
        """d P(state | e) / dθ at θ0."""
        alpha, beta = self.numerator[self._index()]
        gamma, delta = self.denominator
        return float((alpha * delta - beta * gamma) / (gamma * self.theta + delta) ** 2)

    def to_text(self) -> str:
        """The function of θ, its value and slope at θ0, and the range of the decision.

        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> print(sensitivity(net, "P(C | A=T)", "C", None, "T").to_text().splitlines()[1])
        P(C=T | A=T)(θ) = (0.2284 θ + 0) / (0.11172 θ + 0.11668)
        """
        asked = self.state if self.state is not None else self.decision
        alpha, beta = self.numerator[self._index()]
        gamma, delta = self.denominator
        low, high = self.decision_range
        given = "".join(f"{', ' if i else ' | '}{v}={s}" for i, (v, s) in enumerate(self.evidence))
        return "\n".join([
            f"θ = {self.entry} = {self.theta:.6g}",
            f"P({self.target}={asked}{given})(θ) = ({alpha:.6g} θ + {beta:.6g}) / "
            f"({gamma:.6g} θ + {delta:.6g})",
            f"  at θ = {self.theta:.6g}: {self.value:.6g}, derivative {self.derivative:.6g}",
            f"  the decision {self.target}={self.decision} holds for θ in "
            f"[{low:.6g}, {high:.6g}]"])


def sensitivity(net: Network, query: str | Query, variable: str,
                parents_state: Mapping[str, str] | Sequence[str] | None, state: str
                ) -> Sensitivity:
    """P(query | e) as a function of θ = P(variable=state | parents=parents_state), the
    rest of that row rescaled proportionally.

    Parameters
    ----------
    net : Network
    query : str or Query
        ``P(Y=y | e)`` or ``P(Y | e)``: one target variable, discrete evidence.
    variable : str
        The table's variable X.
    parents_state : dict or sequence of str, or None
        The row: ``{parent: state}``, or one state per parent in order; None or ``{}``
        for a root.
    state : str
        The entry's state x.

    Returns
    -------
    Sensitivity

    Raises
    ------
    QueryError
        For a query of another shape, or an unknown variable, parent or state.
    ImpossibleEvidenceError
        When P(e) = 0 at the current θ.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> result = sensitivity(net, "P(C | A=T)", "B", {"C": "T", "S": "F"}, "T")
    >>> result.decision, [round(x, 4) for x in result.decision_range]
    ('T', [0.0, 1.0])
    """
    if isinstance(query, str):
        query = parse_query(query)
    question = resolve_query(net.compiled(), query)
    targets = list(question.free) + list(question.assigned)
    if query.kind != "P" or len(targets) != 1 or question.evidence.values:
        raise QueryError("sensitivity takes P(Y=y | e) or P(Y | e): one target variable "
                         f"and discrete evidence, not {query.text()}")
    (target,) = targets
    net.engine.posterior([target], question.evidence)  # P(e) = 0: ImpossibleEvidenceError
    states = net.states(target)
    row, index, entry = _row(net, variable, parents_state, state)
    table = np.array(net.cpt_array(variable), dtype=float)
    theta = float(table[row][index])
    evidence = dict(question.evidence.given)
    values = np.array([_joint(net, variable, table, row, index, t, target, states, evidence)
                       for t in (0.0, 1.0)])  # (θ, y)
    numerator = np.stack([values[1] - values[0], values[0]], axis=1)
    gamma, delta = numerator.sum(axis=0)
    current = numerator[:, 0] * theta + numerator[:, 1]
    best = int(np.argmax(current))
    return Sensitivity(target, states, None if question.free else query.targets[0][1],
                       variable, tuple(zip(net.parents(variable),
                                           (net.states(p)[i] for p, i in zip(
                                               net.parents(variable), row)))),
                       entry, theta, numerator, (float(gamma), float(delta)), states[best],
                       _holding(numerator, best, theta), tuple(evidence.items()))


def _row(net: Network, variable: str, parents_state, state: str
         ) -> tuple[tuple[int, ...], int, str]:
    """The row's parent state indices, the entry's state index, and its name."""
    compiled = net.compiled()
    check_variables(compiled, [variable], role="table")
    parents = net.parents(variable)
    if parents_state is None:
        parents_state = {}
    if not isinstance(parents_state, Mapping):
        parents_state = dict(zip(parents, parents_state))
    missing = [p for p in parents if p not in parents_state]
    extra = [p for p in parents_state if p not in parents]
    if missing or extra:
        raise QueryError(f"the row of {net.family_text(variable)} needs a state for each "
                         f"parent: {', '.join(parents) or 'none'}"
                         + (f"; missing {missing}" if missing else "")
                         + (f"; not a parent: {extra}" if extra else ""))
    row = tuple(state_index(compiled, p, parents_state[p]) for p in parents)
    index = state_index(compiled, variable, state)
    given = ", ".join(f"{p}={parents_state[p]}" for p in parents)
    return row, index, f"P({variable}={state}" + (f" | {given})" if given else ")")


def _joint(net: Network, variable: str, table: np.ndarray, row: tuple[int, ...], index: int,
           theta: float, target: str, states: Sequence[str],
           evidence: Mapping[str, str]) -> list[float]:
    """P(y, e) for every y with the entry set to ``theta`` (its row rescaled)."""
    changed = table.copy()
    changed[row] = rescaled_row(table[row], index, theta)
    other = net.copy()
    other.set_cpt(variable, changed)
    return [other.probability({**evidence, target: y}) if evidence.get(target, y) == y
            else 0.0 for y in states]


def rescaled_row(row: np.ndarray, index: int, theta: float) -> np.ndarray:
    """The row with entry ``index`` set to ``theta`` and the others rescaled to sum to
    1 − θ (shared equally when they were all 0).

    >>> rescaled_row(np.array([0.2, 0.3, 0.5]), 0, 0.6).round(6).tolist()
    [0.6, 0.15, 0.25]
    """
    others = np.delete(row, index)
    rest = others.sum()
    scaled = others * ((1 - theta) / rest) if rest > 0 else np.full_like(
        others, (1 - theta) / len(others))
    return np.insert(scaled, index, theta)


def _holding(numerator: np.ndarray, best: int, theta: float) -> tuple[float, float]:
    """The interval of θ in [0, 1] around ``theta`` on which line ``best`` is the highest."""
    low, high = 0.0, 1.0
    a0, b0 = numerator[best]
    for k, (a, b) in enumerate(numerator):
        if k == best or a == a0:  # parallel lines never cross
            continue
        cross = (b - b0) / (a0 - a)  # best − y = (a0 − a) θ + (b0 − b) is 0 here
        if a0 > a:  # the gap grows with θ: best stays ahead above the crossing
            low = max(low, cross)
        else:
            high = min(high, cross)
    return float(low), float(high)

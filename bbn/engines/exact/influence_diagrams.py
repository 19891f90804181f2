"""Influence diagrams solved: the optimal policy of every decision and the maximum expected
utility, by variable elimination on (probability, utility) pairs.

    MEU = Σ_{I0} max_{D1} Σ_{I1} max_{D2} ... max_{Dn} Σ_{In} Π_X P(x | pa(X)) · Σ_u U_u

Iₖ are the chance variables first known when D₍ₖ₊₁₎ is taken (I0: before D1, In: never
known). Each variable is eliminated from a pair of lists, probability potentials φ and
utility potentials ψ, whose value is Π φ · Σ ψ:

- sum out a chance X: φ' = Σ_X Π φ_X and ψ' = Σ_X Π φ_X · Σ ψ_X / φ' (0 where φ' = 0);
- max out a decision D: Π φ_D does not depend on D (nothing known before D depends on
  it), so φ' is its slice and ψ' = max_D Σ ψ_D: the best option for every configuration
  of what ψ_D depends on, the part of the past the choice needs (Jensen, Jensen and
  Dittmer 1994; Shachter 1986 by arc reversal gives the same answer).

Two readings of the information arcs, named in the answer:

- **perfect recall** (no-forgetting): D_k knows everything D_1, ..., D_{k-1} knew and
  chose; exact, the elimination order above (sum before max, the temporal order of the
  decisions: an order of the graph, ties broken by declaration);
- **LIMID** (only the parents are known): single policy updating (Lauritzen and Nilsson
  2001): each decision in turn gets the best policy given the others', until no change.
  The result is optimal when its MEU reaches the perfect-recall MEU (an upper bound);
  otherwise it is reported as only *locally* optimal (no single policy change helps).

Each policy is then shown as a table: for each configuration of what the choice depends
on, every option's expected utility E[Σ_u U_u | known, D = d] with the other decisions
following their policies, and the best option. Evidence is known before every decision;
evidence on a decision fixes it.

>>> import bbn
>>> net = bbn.InfluenceDiagram()
>>> net.add_variable("Rain", ["yes", "no"], table=[0.3, 0.7])
>>> net.add_decision("Umbrella", ["take", "leave"])
>>> net.add_utility("U", ["Rain", "Umbrella"], [[70, 0], [20, 100]])
>>> solution = solve(net.compiled(), {})
>>> round(solution.meu, 6), solution.best()
(70.0, {'Umbrella': 'leave'})
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, MemoryLimitError, QueryError
from bbn.core.memory import check_allocation
from bbn.engines.exact.decision_policies import PERFECT_RECALL, READINGS, Policy, Solution
from bbn.views.decision_network import DecisionNetwork, temporal_order

#: A potential: its variables (axis order) and its array.
Potential = tuple[tuple[str, ...], np.ndarray]

#: Sweeps of single policy updating at most (each improves the MEU or stops).
MAX_SWEEPS = 100


# ------------------------------------------------------------------ potentials
def _product(potentials: Sequence[Potential], cards: Mapping[str, int],
             scope: tuple[str, ...] | None = None) -> Potential:
    """Π of the potentials, over the union of their scopes, or broadcast to ``scope``
    (which holds that union)."""
    union = tuple(dict.fromkeys(v for p in potentials for v in p[0]))
    check_allocation(math.prod(cards[v] for v in scope or union),
                     "an influence diagram's potential")
    if not potentials:
        array = np.ones(())
    elif len(potentials) == 1:
        array = potentials[0][1]
    else:
        labels = {v: i for i, v in enumerate(union)}
        operands = []
        for variables, array in potentials:
            operands += [array, [labels[v] for v in variables]]
        # the output keeps every axis: no contraction order to optimise
        array = np.einsum(*operands, list(range(len(union))))
    if scope is None or scope == union:
        return union, array
    return scope, np.broadcast_to(_broadcast((union, array), scope),
                                  tuple(cards[v] for v in scope))


def _broadcast(potential: Potential, scope: tuple[str, ...]) -> np.ndarray:
    """The potential's array with the axes of ``scope`` (size 1 where it has none)."""
    variables, array = potential
    order = [variables.index(v) for v in scope if v in variables]
    array = np.transpose(array, order) if order != list(range(len(order))) else array
    return array.reshape([array.shape[order.index(variables.index(v))] if v in variables
                          else 1 for v in scope]) if variables else array.reshape(
        (1,) * len(scope))


def _sum_utilities(potentials: Sequence[Potential], cards: Mapping[str, int],
                   scope: tuple[str, ...]) -> np.ndarray:
    """Σ of the utility potentials, over ``scope``."""
    shape = tuple(cards[v] for v in scope)
    check_allocation(math.prod(shape), "an influence diagram's utility potential")
    if len(potentials) == 1:
        return np.broadcast_to(_broadcast(potentials[0], scope), shape)
    total = np.zeros(shape)
    for potential in potentials:
        total = total + _broadcast(potential, scope)
    return total


class _Pairs:
    """The two lists of an elimination: probability and utility potentials, whose value
    is Π φ · Σ ψ."""

    __slots__ = ("cards", "probabilities", "utilities")

    def __init__(self, cards: Mapping[str, int], probabilities: list[Potential],
                 utilities: list[Potential]) -> None:
        self.cards, self.probabilities, self.utilities = cards, probabilities, utilities

    def variables(self) -> list[str]:
        """Every variable of a potential, in the order first met."""
        return list(dict.fromkeys(v for p in (*self.probabilities, *self.utilities)
                                  for v in p[0]))

    def _take(self, variable: str) -> tuple[list[Potential], list[Potential]]:
        found = [p for p in self.probabilities if variable in p[0]]
        used = [u for u in self.utilities if variable in u[0]]
        self.probabilities = [p for p in self.probabilities if variable not in p[0]]
        self.utilities = [u for u in self.utilities if variable not in u[0]]
        return found, used

    def sum_out(self, variable: str) -> None:
        """φ' = Σ_X Π φ_X, ψ' = Σ_X Π φ_X Σ ψ_X / φ' (X has a table: a chance
        variable's, or a decision's policy)."""
        found, used = self._take(variable)
        if not used:
            scope, phi = _product(found, self.cards)
            axis = scope.index(variable)
            self.probabilities.append((scope[:axis] + scope[axis + 1:], phi.sum(axis=axis)))
            return
        own, phi = _product(found, self.cards)
        scope = tuple(dict.fromkeys((*own, *(v for u in used for v in u[0]))))
        psi = _sum_utilities(used, self.cards, scope)
        axis = scope.index(variable)
        kept = scope[:axis] + scope[axis + 1:]
        marginal = phi.sum(axis=own.index(variable))
        weighted = (_broadcast((own, phi), scope) * psi).sum(axis=axis)
        own_kept = tuple(v for v in own if v != variable)
        spread = _broadcast((own_kept, marginal), kept)
        with np.errstate(invalid="ignore", divide="ignore"):
            conditional = np.where(spread > 0, weighted / np.where(spread > 0, spread, 1), 0.0)
        self.utilities.append((kept, conditional))
        self.probabilities.append((own_kept, marginal))
        return

    def max_out(self, decision: str) -> Potential:
        """ψ' = max_D Σ ψ_D (with the utilities already settled by the same variables);
        returns Σ ψ_D, the expected utility of each option by what it depends on."""
        found, used = self._take(decision)
        scope = tuple(dict.fromkeys(v for u in used for v in u[0])) or (decision,)
        if decision not in scope:
            scope = (*scope, decision)
        settled = [u for u in self.utilities if set(u[0]) <= set(scope)]
        self.utilities = [u for u in self.utilities if not set(u[0]) <= set(scope)]
        psi = _sum_utilities(used + settled, self.cards, scope)
        axis = scope.index(decision)
        kept = scope[:axis] + scope[axis + 1:]
        self.utilities.append((kept, psi.max(axis=axis)))
        for variables, phi in found:  # constant along the decision: its first slice
            self.probabilities.append((tuple(v for v in variables if v != decision),
                                       np.take(phi, 0, axis=variables.index(decision))))
        return scope, psi

    def sum_all_but(self, kept: Sequence[str], order: Sequence[str]) -> tuple[Potential, Potential]:
        """Every variable of ``order`` not in ``kept`` summed out; (Π φ, Σ ψ) over ``kept``."""
        keep = set(kept)
        for variable in order:
            if variable not in keep:
                self.sum_out(variable)
        scope = tuple(kept)
        return ((scope, _product(self.probabilities, self.cards, scope)[1]),
                (scope, _sum_utilities(self.utilities, self.cards, scope)))

    def value(self) -> tuple[float, float]:
        """(Π φ, Σ ψ) once every variable is eliminated: P(e) and E[U | e]."""
        weight = math.prod(float(p[1]) for p in self.probabilities)
        return weight, sum(float(u[1]) for u in self.utilities)


# ------------------------------------------------------------------ the diagram
class _Diagram:
    """A view restricted to the evidence: its pairs, the free decisions in temporal order,
    the chance variables left and the order in which to sum them."""

    def __init__(self, view: DecisionNetwork, evidence: Mapping[str, int],
                 given: Mapping) -> None:
        if not view.decisions and not view.utilities:
            raise QueryError("the network has no decisions and no utilities: MEU, EU and "
                             "policies are questions of an influence diagram "
                             "(bbn.InfluenceDiagram; decision and utility nodes)")
        self.view, self.evidence, self.given = view, dict(evidence), dict(given)
        decisions = set(view.decisions)
        self.decisions = tuple(d for d in view.decisions if d not in evidence)
        relevant = self._relevant(view, evidence)
        self.chance = [v for v in view.variables
                       if v not in decisions and v not in evidence and v in relevant]
        self.cards = {v: view.cardinality[v] for v in view.variables}
        self._check_evidence(decisions)
        self.probabilities = [self._restricted((*view.parents[v], v), view.table(v))
                              for v in view.variables if v not in decisions and v in relevant]
        self.utilities = [self._restricted(u.parents, u.table) for u in view.utilities.values()]

    @staticmethod
    def _relevant(view: DecisionNetwork, evidence: Mapping[str, int]) -> set:
        """The ancestors of the utilities and of the evidence (through every arc,
        information arcs too), themselves included: any other chance variable is barren,
        its table sums out to 1."""
        stack = [p for u in view.utilities.values() for p in u.parents] + list(evidence)
        found: set = set()
        while stack:
            v = stack.pop()
            if v not in found:
                found.add(v)
                stack.extend(view.parents[v])
        return found

    def _check_evidence(self, decisions: set) -> None:
        """Evidence on a chance variable is known before every decision: none of its
        ancestors may be a decision left free."""
        free = set(self.decisions)
        for v in self.evidence:
            if v in decisions:
                continue
            stack, seen = list(self.view.parents[v]), set()
            while stack:
                parent = stack.pop()
                if parent in free:
                    raise QueryError(f"evidence on {v!r} is known before every decision, but "
                                     f"{v!r} depends on the decision {parent!r}: give "
                                     f"{parent}=... too (the option taken)")
                if parent not in seen:
                    seen.add(parent)
                    stack.extend(self.view.parents[parent])

    def _restricted(self, variables: tuple[str, ...], table: np.ndarray) -> Potential:
        index = tuple(self.evidence.get(v, slice(None)) for v in variables)
        kept = tuple(v for v in variables if v not in self.evidence)
        return kept, np.asarray(table[index], dtype=float)

    def pairs(self, policies: Mapping[str, Potential] | None = None) -> _Pairs:
        """The pairs of the diagram, with the given decisions' policies as tables."""
        extra = list((policies or {}).values())
        return _Pairs(self.cards, self.probabilities + extra, list(self.utilities))

    def sum_order(self, variables: Sequence[str], pairs: _Pairs) -> list[str]:
        """A greedy order in which to sum ``variables``: each time the one whose product
        of neighbours' cardinalities is smallest (ties: the first given)."""
        neighbours: dict[str, set] = {v: set() for v in variables}
        for scope, _ in (*pairs.probabilities, *pairs.utilities):
            for v in scope:
                if v in neighbours:
                    neighbours[v].update(scope)
        cards, order = self.cards, []
        score = {v: math.prod(cards[u] for u in neighbours[v]) for v in variables}
        while score:
            best = min(score, key=score.__getitem__)
            del score[best]
            order.append(best)
            joined = neighbours.pop(best)
            joined.discard(best)
            for v in joined:
                if v in neighbours:
                    grown = neighbours[v]
                    grown |= joined
                    score[v] = math.prod(cards[u] for u in grown)
        return order

    def known(self, decision: str, reading: str) -> tuple[str, ...]:
        """What ``decision`` knows: its free parents (LIMID), or everything known or
        chosen before it (perfect recall)."""
        if reading != PERFECT_RECALL:
            return tuple(p for p in self.view.parents[decision] if p not in self.evidence)
        position = self.decisions.index(decision)
        past = [*self.decisions[:position]]
        for d in self.decisions[:position + 1]:
            past += [p for p in self.view.parents[d] if p not in self.evidence]
        return tuple(v for v in self.view.variables if v in set(past))


# ------------------------------------------------------------------ solving
def _perfect_recall(diagram: _Diagram) -> tuple[float, dict[str, Potential], dict]:
    """MEU, the optimal policy of every free decision over what it depends on, exact, and
    for each decision what its table needs: ψ_D (the utilities it changes, by what it
    depends on and its option) and the pairs of the past left when it was maximised."""
    decisions = diagram.decisions
    first_known: dict[str, int] = {}
    for k, d in enumerate(decisions):
        for p in diagram.view.parents[d]:
            first_known.setdefault(p, k)
    pairs = diagram.pairs()
    blocks: list[list[str]] = [[] for _ in range(len(decisions) + 1)]
    for v in diagram.chance:
        blocks[first_known.get(v, len(decisions))].append(v)
    policies, past = {}, {}
    for k in range(len(decisions), -1, -1):
        for v in diagram.sum_order(blocks[k], pairs):
            pairs.sum_out(v)
        if k > 0:
            decision = decisions[k - 1]
            scope, psi = pairs.max_out(decision)
            policies[decision] = _deterministic(scope, psi, decision)
            # ψ' = max_D ψ_D was appended last: the rest is the past's other utilities
            past[decision] = ((scope, psi), list(pairs.probabilities), pairs.utilities[:-1])
    weight, meu = pairs.value()
    if weight <= 0:
        raise ImpossibleEvidenceError(diagram.given)
    return meu, policies, past


def _deterministic(scope: tuple[str, ...], expected: np.ndarray, decision: str) -> Potential:
    """The policy choosing the best option, as a 0/1 table over ``scope``."""
    axis = scope.index(decision)
    best = np.expand_dims(np.argmax(expected, axis=axis), axis)
    options = np.arange(expected.shape[axis]).reshape(
        [-1 if i == axis else 1 for i in range(expected.ndim)])
    return scope, (options == best).astype(float)


def _local_table(diagram: _Diagram, decision: str, policies: Mapping[str, Potential],
                 known: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(weight, expected utility) of every option of ``decision`` for every
    configuration of ``known``, the other decisions following ``policies`` (those in
    ``known`` taken as given): arrays of shape ``(|K1|, ..., |D|)``."""
    others = {d: p for d, p in policies.items() if d != decision and d not in known}
    pairs = diagram.pairs(others)
    kept = (*known, decision)
    rest = [v for v in pairs.variables() if v not in kept]
    (_, weight), (_, expected) = pairs.sum_all_but(kept, diagram.sum_order(rest, pairs))
    return weight, expected


def _limid(diagram: _Diagram) -> tuple[float, dict[str, Potential], int]:
    """Single policy updating from uniform policies, latest decision first, until a sweep
    changes nothing: (MEU, policies, sweeps)."""
    policies: dict[str, Potential] = {}
    for d in diagram.decisions:
        scope = (*diagram.known(d, "LIMID"), d)
        policies[d] = scope, np.full(tuple(diagram.cards[v] for v in scope),
                                     1.0 / diagram.cards[d])
    sweeps = 0
    while sweeps < MAX_SWEEPS:
        sweeps += 1
        changed = False
        for d in reversed(diagram.decisions):
            scope = policies[d][0]
            weight, expected = _local_table(diagram, d, policies, scope[:-1])
            values = weight * expected
            current = policies[d][1]
            best = np.argmax(values, axis=-1)
            # keep the current option where it is as good as the best (no cycling)
            now = np.argmax(current, axis=-1)
            now_value = np.take_along_axis(values, now[..., None], -1)[..., 0]
            is_deterministic = np.all(current.max(axis=-1) == 1.0)
            top = values.max(axis=-1)
            if is_deterministic:
                best = np.where(now_value >= top - 1e-12 * np.maximum(1, np.abs(top)), now, best)
            new = _deterministic(scope, np.eye(diagram.cards[d])[best], d)[1]
            if not np.array_equal(new, current):
                changed = True
                policies[d] = scope, new
        if not changed:
            break
    return _evaluate(diagram, policies), policies, sweeps


def _evaluate(diagram: _Diagram, policies: Mapping[str, Potential]) -> float:
    """E[Σ U | e] when every free decision follows its policy."""
    pairs = diagram.pairs(policies)
    for v in diagram.sum_order(pairs.variables(), pairs):
        pairs.sum_out(v)
    weight, value = pairs.value()
    if weight <= 0:
        raise ImpossibleEvidenceError(diagram.given)
    return value


def solve(view: DecisionNetwork, evidence: Mapping[str, int], reading: str = PERFECT_RECALL,
          given: Mapping | None = None) -> Solution:
    """The optimal policies and the MEU of an influence diagram given evidence.

    Parameters
    ----------
    view : DecisionNetwork
        The compiled influence diagram.
    evidence : dict
        ``{variable: state index}``; a decision given is taken.
    reading : {"perfect recall", "LIMID"}
        What a decision knows: everything before it, or only its parents.
    given : dict, optional
        The evidence as written (for messages and the answer).

    Returns
    -------
    Solution

    Raises
    ------
    QueryError
        For a network without decisions or utilities, evidence that depends on a free
        decision, or an unknown reading.
    ImpossibleEvidenceError
        When P(e) = 0.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.InfluenceDiagram()
    >>> net.add_decision("D", ["a", "b"])
    >>> net.add_utility("U", ["D"], [1.0, 3.0])
    >>> solve(net.compiled(), {}).meu
    3.0
    """
    if reading not in READINGS:
        raise QueryError(f"reading must be one of {', '.join(READINGS)}, got {reading!r}")
    diagram = _Diagram(view, evidence, given or evidence)
    past: dict = {}
    if reading == PERFECT_RECALL:
        meu, policies, past = _perfect_recall(diagram)
        optimal, bound, sweeps = True, meu, 0
    else:
        meu, policies, sweeps = _limid(diagram)
        try:
            bound = _perfect_recall(diagram)[0]  # the MEU of perfect recall
        except MemoryLimitError:  # the bound needs too large a table: not proved optimal
            bound = math.nan
        optimal = bool(meu >= bound - 1e-9 * max(1.0, abs(bound)))
    tables = {}
    for d in diagram.decisions:
        known = tuple(v for v in diagram.known(d, reading) if v in policies[d][0])
        shape = tuple(diagram.cards[v] for v in (*known, d))
        chosen = np.argmax(np.broadcast_to(_broadcast(policies[d], (*known, d)), shape),
                           axis=-1)
        table = (functools.partial(_table_from_the_past, diagram, d, policies, known, past[d])
                 if d in past else
                 functools.partial(_conditional_table, diagram, d, policies, known))
        tables[d] = Policy(d, known, {v: view.states[v] for v in (*known, d)}, table, chosen)
    return Solution(meu, tables, reading, optimal, bound, sweeps, dict(given or {}))


def _table_from_the_past(diagram: _Diagram, decision: str, policies: Mapping[str, Potential],
                         known: tuple[str, ...], past: tuple) -> np.ndarray:
    """E[Σ U | known = k, D = d] with perfect recall: ψ_D(k, d), the utilities the choice
    changes (later decisions optimal), plus E[the past's other utilities | k], the
    earlier decisions not in ``known`` following their policies: one elimination over
    what was left when D was maximised (the observed past), not over the whole diagram."""
    (scope, psi), probabilities, utilities = past
    earlier = [p for d, p in policies.items()
               if d != decision and d not in known and d in diagram.decisions[
                   :diagram.decisions.index(decision)]]
    pairs = _Pairs(diagram.cards, probabilities + earlier, list(utilities))
    rest = [v for v in pairs.variables() if v not in known]
    (_, weight), (_, rest_utility) = pairs.sum_all_but(known, diagram.sum_order(rest, pairs))
    order = [scope.index(v) for v in (*known, decision)]
    total = np.transpose(psi, order) + rest_utility[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight[..., None] > 0, total, np.nan)


def _conditional_table(diagram: _Diagram, decision: str, policies: Mapping[str, Potential],
                       known: tuple[str, ...]) -> np.ndarray:
    """E[Σ U | known = k, decision = d] (NaN where k is impossible)."""
    weight, expected = _local_table(diagram, decision, policies, known)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 0, expected, np.nan)


def expected_utility(view: DecisionNetwork, decision: str, option: int,
                     evidence: Mapping[str, int], reading: str = PERFECT_RECALL,
                     given: Mapping | None = None) -> float:
    """EU(D = d | e): the MEU with ``decision`` fixed at ``option``, the other decisions
    optimal.

    >>> import bbn
    >>> net = bbn.InfluenceDiagram()
    >>> net.add_decision("D", ["a", "b"])
    >>> net.add_utility("U", ["D"], [1.0, 3.0])
    >>> expected_utility(net.compiled(), "D", 0, {})
    1.0
    """
    return solve(view, {**evidence, decision: option}, reading, given).meu


def value_of_perfect_information(view: DecisionNetwork, variable: str, decision: str,
                                 evidence: Mapping[str, int],
                                 reading: str = PERFECT_RECALL) -> float:
    """EVPI = MEU with ``variable`` known when ``decision`` is taken − MEU without, in
    utility units: E_x[MEU(e, x)] with an information arc X → D added to the diagram.

    >>> import bbn
    >>> net = bbn.InfluenceDiagram()
    >>> net.add_variable("Rain", ["yes", "no"], table=[0.3, 0.7])
    >>> net.add_decision("Umbrella", ["take", "leave"])
    >>> net.add_utility("U", ["Rain", "Umbrella"], [[70, 0], [20, 100]])
    >>> round(value_of_perfect_information(net.compiled(), "Rain", "Umbrella", {}), 6)
    21.0
    """
    if variable in view.decisions or variable not in view.tables:
        raise QueryError(f"{variable!r} is not a chance variable: the value of information "
                         "is that of observing one")
    if decision not in view.decisions:
        raise QueryError(f"{decision!r} is not a decision of the network"
                         f" (its decisions: {', '.join(view.decisions)})")
    without = solve(view, evidence, reading).meu
    if variable in evidence:
        return 0.0
    informed = _with_arc(view, variable, decision)
    return solve(informed, evidence, reading).meu - without


def _with_arc(view: DecisionNetwork, variable: str, decision: str) -> DecisionNetwork:
    """The view with the information arc ``variable`` → ``decision`` added."""
    stack, seen = [variable], set()
    while stack:  # the arc must not close a cycle: D must not be an ancestor of X
        v = stack.pop()
        if v == decision:
            raise QueryError(f"{variable!r} depends on the decision {decision!r}: it cannot "
                             f"be known before {decision!r} is taken")
        if v not in seen:
            seen.add(v)
            stack.extend(view.parents[v])
    if variable in view.parents[decision]:
        return view
    parents = {**view.parents, decision: (*view.parents[decision], variable)}
    return DecisionNetwork.extend(view, temporal_order(view.variables, parents, view.decisions),
                                  view.utilities, parents)


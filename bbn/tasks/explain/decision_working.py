"""The working behind an influence diagram's answer: each option's expected utility as a
sum, the maximum, the policy.

    EU(d | k) = Σ_u E[U_u | k, D = d] = Σ_u Σ_y P(y | k, D = d) · U_u(y, k, d)

For every decision and every possible configuration k of what it depends on, each
option's expected utility is written as the sum of its utilities' terms: a utility whose
parents are all known is its value; one over chance variables that no free decision
affects is written out as Σ_y P(y | k, d) · U(y, ...) with the numbers (at most
:data:`MAX_TERMS` of them); the rest — the utilities that later decisions still change,
taken optimally — is one number, the difference from the option's total, so that each
line adds up. Then the maximum and the option chosen.

>>> import bbn
>>> working = explain_decisions(bbn.load("models/oil.bn"), "EU(Drill=drill | Test=no_test)")
>>> for line in working.lines[3:6] + working.lines[-1:]:
...     print(line)  # doctest: +ELLIPSIS
  EU(Drill=drill) = TestCost(Test=no_test)
                  + Σ_Oil P(Oil | Test=no_test, Result=none, Drill=drill) · Payoff(...)
                  = 0 + 0.5·(-70) + 0.3·50 + 0.2·200
                  = 20
  max: Drill = drill (20)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import QueryError
from bbn.questions.language import Query, parse_query

#: Terms of a written-out expectation at most (more: one number).
MAX_TERMS = 12

#: The query kinds whose working this module writes.
DECISION_KINDS = ("MEU", "EU")


def _g(x: float) -> str:
    return f"{x:.6g}"


@dataclass(frozen=True)
class DecisionWorking:
    """The lines of the working (``to_text``; Markdown and LaTeX wrap the same lines)."""

    lines: tuple[str, ...]

    def to_text(self) -> str:
        return "\n".join(self.lines)

    def to_markdown(self) -> str:
        return "```text\n" + self.to_text() + "\n```"

    def to_latex(self) -> str:
        return "\\begin{verbatim}\n" + self.to_text() + "\n\\end{verbatim}"


def explain_decisions(net, query: str | Query) -> DecisionWorking:
    """The working of ``MEU( | e)`` (every decision) or ``EU(D=d | e)`` (decision D).

    Parameters
    ----------
    net : InfluenceDiagram
        The diagram.
    query : str or Query
        ``MEU(...)`` or ``EU(D=d | e)``.

    Returns
    -------
    DecisionWorking

    Raises
    ------
    QueryError
        For another kind of query, or a network without decisions.
    """
    if isinstance(query, str):
        query = parse_query(query)
    if query.kind not in DECISION_KINDS:
        raise QueryError(f"the working of decisions is for MEU(...) and EU(...), not "
                         f"{query.text()}")
    evidence = {v: s for v, s in query.evidence}
    solution = net.query(Query("MEU", (), query.evidence).text())
    wanted = [v for v, _ in query.targets] or list(solution.policies)
    lines = [solution.to_text().splitlines()[0]]
    for decision in wanted:
        policy = solution.policies.get(decision)
        if policy is None:
            raise QueryError(f"{decision!r} is given as evidence: it has no policy to explain")
        lines += _decision_lines(net, policy, evidence)
    return DecisionWorking(tuple(lines))


def _decision_lines(net, policy, evidence: Mapping[str, str]) -> list[str]:
    lines = []
    d, options = policy.decision, policy.states[policy.decision]
    for known, option, values in policy.rows():
        if all(math.isnan(x) for x in values.values()):
            continue  # an impossible configuration of what is known
        given = {**evidence, **known}
        chance_given = {v: s for v, s in given.items() if not net.is_decision(v)}
        p = net.probability(chance_given, {v: s for v, s in given.items()
                                           if net.is_decision(v)}) if chance_given else 1.0
        head = ", ".join(f"{v}={s}" for v, s in known.items())
        lines += ["", f"{d}, when {head} (P = {_g(p)})" if head else f"{d}"]
        for o in options:
            lines += _option_lines(net, d, o, {**given, d: o}, values[o])
        lines.append(f"  max: {d} = {option} ({_g(values[option])})")
    return lines


def _option_lines(net, decision: str, option: str, given: Mapping[str, str],
                  total: float) -> list[str]:
    """``EU(D=d) = term + term ... = numbers = total`` for one option."""
    free_decisions = {v for v in net.decisions if v not in given}
    symbols, numbers, counted = [], [], 0.0
    for u in net.utilities:
        parents = net.utility_parents(u)
        table = net.utility(u).values
        free = [p for p in parents if p not in given]
        if not free:
            value = float(table[tuple(net.states(p).index(given[p]) for p in parents)])
            symbols.append(f"{u}({', '.join(f'{p}={given[p]}' for p in parents)})")
            numbers.append(_g(value))
            counted += value
            continue
        size = int(np.prod([net.cardinality(p) for p in free]))
        if size > MAX_TERMS or _affected(net, free, free_decisions):
            continue  # in the remainder
        chance = {v: s for v, s in given.items() if not net.is_decision(v)}
        taken = {v: s for v, s in given.items() if net.is_decision(v)}
        joint = net.posterior(free, {**chance, **taken}).values.reshape(-1)
        condition = ", ".join(f"{v}={s}" for v, s in given.items())
        args = ", ".join(f"{p}={given[p]}" if p in given else p for p in parents)
        symbols.append(f"Σ_{','.join(free)} P({', '.join(free)} | {condition}) · "
                       f"{u}({args if len(condition) + len(args) < 60 else '...'})")
        terms = []
        for probability, states in zip(joint, itertools.product(*(net.states(p)
                                                                   for p in free))):
            at = dict(zip(free, states))
            value = float(table[tuple(net.states(p).index(given.get(p, at.get(p)))
                                      for p in parents)])
            terms.append(f"{_g(probability)}·{_g(value) if value >= 0 else f'({_g(value)})'}")
            counted += probability * value
        numbers.append(" + ".join(terms))
    rest = total - counted
    if abs(rest) > 1e-9 * max(1.0, abs(total)):
        symbols.append("E[utilities the later decisions change | taken optimally]")
        numbers.append(_g(rest))
    name = f"  EU({decision}={option}) = "
    pad = " " * (len(name) - 2)
    lines = [name + (f"\n{pad}+ ".join(symbols) if symbols else "0")]
    lines.append(" " * (len(name) - 2) + "= " + " + ".join(numbers or ["0"]))
    if len(numbers) > 1 or " + " in (numbers[0] if numbers else ""):
        lines.append(" " * (len(name) - 2) + "= " + _g(total))
    return lines


def _affected(net, variables: list[str], decisions: set) -> bool:
    """Whether a decision of ``decisions`` is an ancestor of one of ``variables``."""
    stack, seen = list(variables), set()
    while stack:
        v = stack.pop()
        if v in decisions:
            return True
        if v not in seen:
            seen.add(v)
            stack.extend(net.parents(v))
    return False

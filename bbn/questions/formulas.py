"""Formulas over an observed distribution: P(A | B), sums, products and quotients.

    F[P(V)] = Σ_s Π_i P(a_i | b_i)  (and quotients of such)

What :func:`bbn.questions.identification.identify` returns P(y | do(x)) as: a
:class:`Formula` prints as text (``Σ_{T} P(T | X) Σ_{X'} P(X') P(Y | X', T)``, the front
door; a primed X' is the treatment's variable summed over, beside the X asked) and
evaluates on a joint :class:`bbn.Factor` of the observed variables, or on a network, to
P(y | do(x)) as a Factor over (X..., Y...).

>>> formula = Formula(("Y",), ("X",), Sum(("Z",), Product((Prob(("Y",), ("X", "Z")),
...                                                         Prob(("Z",))))), ("Z", "X", "Y"))
>>> print(formula)
P(Y | do(X)) = Σ_{Z} P(Y | X, Z) P(Z)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.factor import Factor


class Expression:
    """A term of a formula over the observed distribution P(V)."""

    def evaluate(self, marginal) -> Factor:  # pragma: no cover - overridden
        raise NotImplementedError

    def variables(self) -> set[str]:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class Prob(Expression):
    """P(targets | given) of the observed distribution."""

    targets: tuple[str, ...]
    given: tuple[str, ...] = ()

    def __str__(self) -> str:
        inside = ", ".join(self.targets)
        return f"P({inside} | {', '.join(self.given)})" if self.given else f"P({inside})"

    def evaluate(self, marginal) -> Factor:
        joint = marginal(self.targets + self.given)
        if not self.given:
            return joint
        return _divide(joint, marginal(self.given))

    def variables(self) -> set[str]:
        return set(self.targets) | set(self.given)


@dataclass(frozen=True)
class Sum(Expression):
    """Σ over ``over`` of ``term``."""

    over: tuple[str, ...]
    term: Expression

    def __str__(self) -> str:
        return f"Σ_{{{', '.join(self.over)}}} {self.term}"

    def evaluate(self, marginal) -> Factor:
        return self.term.evaluate(marginal).sum_out(self.over)

    def variables(self) -> set[str]:
        return self.term.variables() | set(self.over)


@dataclass(frozen=True)
class Product(Expression):
    """The product of ``terms``."""

    terms: tuple[Expression, ...]

    def __str__(self) -> str:
        return " ".join(f"[{t}]" if isinstance(t, (Sum, Quotient)) and k < len(self.terms) - 1
                        else str(t) for k, t in enumerate(self.terms))

    def evaluate(self, marginal) -> Factor:
        result = self.terms[0].evaluate(marginal)
        for term in self.terms[1:]:
            result = result.product(term.evaluate(marginal))
        return result

    def variables(self) -> set[str]:
        return set().union(*(t.variables() for t in self.terms))


@dataclass(frozen=True)
class Quotient(Expression):
    """``numerator / denominator`` (0 where the denominator is 0)."""

    numerator: Expression
    denominator: Expression

    def __str__(self) -> str:
        return f"({self.numerator}) / ({self.denominator})"

    def evaluate(self, marginal) -> Factor:
        return _divide(self.numerator.evaluate(marginal), self.denominator.evaluate(marginal))

    def variables(self) -> set[str]:
        return self.numerator.variables() | self.denominator.variables()


def _divide(numerator: Factor, denominator: Factor) -> Factor:
    """numerator / denominator over the union of their axes, 0 where it is 0/0."""
    variables = numerator.variables + tuple(v for v in denominator.variables
                                            if v not in numerator.variables)
    states = {**denominator.states, **numerator.states}
    top = Factor(variables, states, np.broadcast_to(
        numerator.broadcast_to(variables), [len(states[v]) for v in variables]))
    bottom = denominator.broadcast_to(variables)
    values = np.divide(top.values, bottom, out=np.zeros(top.shape), where=bottom > 0)
    return Factor(variables, states, values)


def _product(terms: Sequence[Expression]) -> Expression:
    flat: list[Expression] = []
    for t in terms:
        flat += list(t.terms) if isinstance(t, Product) else [t]
    return flat[0] if len(flat) == 1 else Product(tuple(flat))


def _sum(over: Iterable[str], term: Expression, order: Sequence[str]) -> Expression:
    over = tuple(v for v in order if v in set(over))
    if not over:
        return term
    if isinstance(term, Prob) and not term.given:  # Σ_a P(a, b) = P(b)
        kept = tuple(v for v in term.targets if v not in over)
        return Prob(kept) if kept else term
    return Sum(over, term)


@dataclass(frozen=True)
class Formula:
    """P(outcome | do(treatment)) as a formula over the observed distribution.

    ``expression`` is the estimand (free variables: the treatment and the outcome);
    ``text`` the formula with the question, as printed.
    """

    outcome: tuple[str, ...]
    treatment: tuple[str, ...]
    expression: Expression
    observed: tuple[str, ...]

    def __str__(self) -> str:
        return (f"P({', '.join(self.outcome)} | do({', '.join(self.treatment)})) = "
                f"{self.expression}")

    @property
    def text(self) -> str:
        """The formula as printed."""
        return str(self)

    def variables(self) -> tuple[str, ...]:
        """The observed variables the formula reads (primed copies named by the original),
        the treatment and the outcome."""
        names = {v.rstrip("'") for v in self.expression.variables()} | set(
            self.treatment + self.outcome)
        return tuple(v for v in self.observed if v in names)

    def evaluate(self, source) -> Factor:
        """P(outcome | do(treatment)) as a Factor over (treatment..., outcome...), each
        treatment row normalised: the formula on a joint ``Factor`` of the observed
        variables, or on a network (its joint of the variables the formula reads).

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> formula = net.identify("A", do="B")
        >>> formula.evaluate(net).values.round(6).tolist()
        [[0.7, 0.3], [0.1, 0.9]]
        """
        joint = source if isinstance(source, Factor) else source.posterior(
            list(self.variables()))
        cache: dict[tuple[str, ...], Factor] = {}

        def marginal(names: tuple[str, ...]) -> Factor:
            key = tuple(sorted(names))
            found = cache.get(key)
            if found is None:
                bare = [v.rstrip("'") for v in key]
                table = joint.marginal(bare)
                found = cache[key] = Factor(key, {p: table.states[b] for p, b in
                                                  zip(key, bare)},
                                            table.transpose(bare).values)
            return found

        result = self.expression.evaluate(marginal)
        order = self.treatment + self.outcome
        missing = [v for v in order if v not in result.variables]
        for v in missing:  # an outcome the treatment does not reach: constant in it
            states = joint.states[v]
            result = result.product(Factor((v,), {v: states}, np.ones(len(states))))
        result = result.transpose(order)
        totals = result.values.sum(axis=tuple(range(len(self.treatment), len(order))),
                                   keepdims=True)
        values = np.divide(result.values, totals, out=np.full(result.shape, np.nan),
                           where=totals > 0)
        return Factor(order, result.states, values)


def _free(e: Expression) -> set[str]:
    """The variables of an expression not summed over."""
    if isinstance(e, Prob):
        return e.variables()
    if isinstance(e, Sum):
        return _free(e.term) - set(e.over)
    if isinstance(e, Product):
        return set().union(*(_free(t) for t in e.terms))
    return _free(e.numerator) | _free(e.denominator)


__all__ = ["Expression", "Formula", "Prob", "Product", "Quotient", "Sum"]

"""Identified formulas made shorter: conditioning sets cut by d-separation, chain-rule
factors joined, sums over a variable that only one factor holds as a head dropped.

    P(a | b, c) = P(a | c)                  when a ⟂ b | c in the graph
    P(a | b, c) P(b | c) = P(a, b | c)      the chain rule
    Σ_v P(v, a | c) = P(a | c)              v in no other factor (Σ_v P(v | c) = 1)
    P(a, b | c) / P(b | c) = P(a | b, c)

The rules of Tikka and Karvanen (2017, "Simplifying probabilistic expressions in causal
inference", JMLR 18(36)) for the output of the ID algorithm: a variable summed over is
removed when the factors that hold it can be joined, by the chain rule, into one joint
whose head holds it — each factor's conditioning set first widened or narrowed where
d-separation in the network's graph (its unobserved variables included) says the
conditional is the same. Every factor of an identified formula is a conditional of the
observed distribution, which that graph generates, so each step is an identity wherever
the conditioning events have positive probability (the ID algorithm's positivity); where
one has probability 0 the formulas may differ in that term, which the division
``evaluate`` defines as 0.

>>> import bbn
>>> from bbn.questions.formulas import Prob, Product, Sum
>>> net = bbn.Network("chain")
>>> net.add_variable("X", ["0", "1"], table=[0.5, 0.5])
>>> net.add_variable("M", ["0", "1"], parents=["X"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> net.add_variable("Y", ["0", "1"], parents=["M"], table=[[0.7, 0.3], [0.4, 0.6]])
>>> raw = Sum(("M",), Product((Prob(("M",), ("X",)), Prob(("Y",), ("X", "M")))))
>>> print(raw, "=", simplified(raw, net.compiled()))
Σ_{M} P(M | X) P(Y | X, M) = P(Y | X)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import bbn.questions.d_separation as d_separation
from bbn.questions.formulas import Expression, Prob, Product, Quotient, Sum, _free


class _Kept(Exception):
    """A sum left over a variable no factor holds: the formula is kept as it was."""


class _Graph:
    """The network's graph, read for d-separation, and its variables' order."""

    def __init__(self, view) -> None:
        self.parents: Mapping[str, Sequence[str]] = {v: tuple(view.parents[v])
                                                     for v in view.variables}
        children: dict[str, list[str]] = {v: [] for v in view.variables}
        for v in view.variables:
            for p in view.parents[v]:
                children[p].append(v)
        self.children = children
        self.rank = {v: i for i, v in enumerate(view.variables)}
        self._seen: dict[tuple, bool] = {}

    def key(self, v: str) -> tuple[int, int]:
        """Where ``v`` (a primed copy after its variable) sorts."""
        bare = v.rstrip("'")
        return self.rank[bare], len(v) - len(bare)

    def independent(self, a: Sequence[str], b: Sequence[str], given: Sequence[str]) -> bool:
        """A ⟂ B | given (names primed or not: a prime is the same variable), False when
        two of them are copies of one variable."""
        if not b:
            return True
        names = [v.rstrip("'") for v in (*a, *b, *given)]
        if len(set(names)) < len(names):
            return False
        bare_a, bare_b, bare_g = (frozenset(names[:len(a)]),
                                  frozenset(names[len(a):len(a) + len(b)]),
                                  frozenset(names[len(a) + len(b):]))
        key = (bare_a, bare_b, bare_g)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = d_separation._search(
                self.parents, self.children, sorted(bare_a), set(bare_b), set(bare_g)) is None
        return found

    def sorted(self, names) -> tuple[str, ...]:
        return tuple(sorted(names, key=self.key))


def simplified(expression: Expression, view) -> Expression:
    """``expression`` (a formula of conditionals of the observed distribution of the
    network whose compiled view is ``view``) with the rules above applied until none
    applies; ``expression`` itself where nothing is left to simplify.

    Parameters
    ----------
    expression : Expression
        As :func:`bbn.questions.identification.identify` builds it (primed copies of a
        variable summed beside the variable itself).
    view : CompiledNetwork
        Its graph is read: every variable, observed or not.

    Returns
    -------
    Expression
        Equal to ``expression`` wherever its conditioning events have positive
        probability.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.formulas import Prob, Product, Sum
    >>> view = bbn.load("models/chair.bn").compiled()   # C → B ← S, B → A
    >>> print(simplified(Sum(("S",), Product((Prob(("S",), ("C",)),
    ...                                       Prob(("A",), ("B", "C", "S"))))), view))
    P(A | B)
    """
    graph = _Graph(view)
    try:
        result = _simplified(expression, graph)
    except _Kept:
        return expression
    return expression if result is None else result


def _simplified(e: Expression, graph: _Graph) -> Expression | None:
    """``e`` simplified; None for the constant 1."""
    if isinstance(e, Prob):
        return _narrowed(e, graph)
    if isinstance(e, Quotient):
        top, bottom = _simplified(e.numerator, graph), _simplified(e.denominator, graph)
        if bottom is None:
            return top
        if top is None:
            return Quotient(e.numerator, bottom)
        if (isinstance(top, Prob) and isinstance(bottom, Prob) and top.given == bottom.given
                and set(bottom.targets) < set(top.targets)):  # P(a, b | c) / P(b | c)
            return _narrowed(Prob(graph.sorted(set(top.targets) - set(bottom.targets)),
                                  graph.sorted({*top.given, *bottom.targets})), graph)
        return Quotient(top, bottom)
    if isinstance(e, Product):
        terms = [t for t in (_simplified(t, graph) for t in e.terms) if t is not None]
        return _joined(_chained(_flat(terms), graph))
    return _summed(e, graph)


def _flat(terms: list[Expression]) -> list[Expression]:
    flat: list[Expression] = []
    for t in terms:
        flat += list(t.terms) if isinstance(t, Product) else [t]
    return flat


def _joined(terms: list[Expression]) -> Expression | None:
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else Product(tuple(terms))


def _narrowed(p: Prob, graph: _Graph) -> Prob:
    """P(a | b, c) = P(a | c) for each b with a ⟂ b | c, the latest first."""
    given = list(p.given)
    cut = True
    while cut:  # passes until one cuts nothing
        cut = False
        for b in reversed(list(given)):
            rest = [g for g in given if g != b]
            if graph.independent(p.targets, [b], rest):
                given, cut = rest, True
    return p if len(given) == len(p.given) else Prob(p.targets, tuple(given))


def _merged(a: Prob, b: Prob, graph: _Graph, exact: bool = False) -> Prob | None:
    """P(A | Ga) P(B | Gb) as one P(A, B | C), C = (Ga − B) ∪ Gb, where P(A | Ga) =
    P(A | B, C) and P(B | Gb) = P(B | C) by d-separation (``exact``: only where Ga is
    B ∪ Gb, the chain rule as written); None where it is not one."""
    heads_a, heads_b = set(a.targets), set(b.targets)
    if heads_a & set(b.given) or heads_a & heads_b:
        return None
    c = (set(a.given) - heads_b) | set(b.given)
    if exact:
        if set(a.given) != heads_b | set(b.given):
            return None
    elif not (graph.independent(a.targets, graph.sorted((heads_b | c) - set(a.given)),
                                a.given)
              and graph.independent(b.targets, graph.sorted(c - set(b.given)), b.given)):
        return None
    return Prob(graph.sorted(heads_a | heads_b), graph.sorted(c))


def _chained(terms: list[Expression], graph: _Graph) -> list[Expression]:
    """Factors P(a | b, c) and P(b | c) of one product joined into P(a, b | c), at the
    place of the first."""
    terms = list(terms)
    joined = True
    while joined:
        joined = False
        for i, a in enumerate(terms):
            for j, b in enumerate(terms):
                if i == j or not (isinstance(a, Prob) and isinstance(b, Prob)):
                    continue
                merged = _merged(a, b, graph, exact=True)
                if merged is not None:
                    terms[min(i, j)] = merged
                    del terms[max(i, j)]
                    joined = True
                    break
            if joined:
                break
    return terms


def _summed(e: Sum, graph: _Graph) -> Expression | None:
    """Σ_S of the factors: each v of S held by one joint (its factors merged) summed out."""
    term = _simplified(e.term, graph)
    if term is None:
        raise _Kept
    over = list(e.over)
    if isinstance(term, Sum) and not set(term.over) & set(over):  # Σ_a Σ_b = Σ_{a, b}
        over += list(term.over)
        term = term.term
    terms = _flat([term])
    dropped = True
    while dropped:
        dropped = False
        for v in over:
            found = _summed_out(v, terms, graph)
            if found is not None:
                terms, dropped = found, True
                over.remove(v)
                break
    if any(not any(v in _free(t) for t in terms) for v in over):
        raise _Kept  # Σ_v of a term without v: not an identified formula's
    body = _joined(_chained(terms, graph))
    return Sum(tuple(over), body) if over else body  # None: Σ_v P(v | c) = 1


def _summed_out(v: str, terms: list[Expression], graph: _Graph) -> list[Expression] | None:
    """The factors with Σ_v done, when the ones holding v join into one joint whose head
    holds v; else None."""
    users = [i for i, t in enumerate(terms) if v in _free(t)]
    heads = [i for i in users if isinstance(terms[i], Prob) and v in terms[i].targets]
    if len(heads) != 1:
        return None
    joint = terms[heads[0]]
    for i in users:
        if i == heads[0]:
            continue
        if not isinstance(terms[i], Prob):
            return None
        joint = _merged(terms[i], joint, graph)
        if joint is None:
            return None
    kept = tuple(t for t in joint.targets if t != v)
    place, result = min(users), []
    for i, t in enumerate(terms):
        if i == place and kept:
            result.append(_narrowed(Prob(kept, joint.given), graph))
        elif i not in users:
            result.append(t)
    return result


__all__ = ["simplified"]

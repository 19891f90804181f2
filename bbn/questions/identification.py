"""Causal effects identified from observed quantities: the ID algorithm and its formulas.

    P(y | do(x)) = F[P(V)]        F a formula of sums, products and quotients of P(A | B)

A network whose variables are not all observed is seen through its *latent projection*
on the observed ones: A → B when a directed path leads from A to B through unobserved
variables only, A ↔ B when an unobserved variable reaches both so. On that semi-Markovian
graph :func:`identify` runs the ID algorithm of Shpitser and Pearl (2006; Tian and Pearl's
c-component factorisation): it returns a :class:`Formula` over the observed distribution,
or raises :class:`NotIdentifiable` naming the confounded variables (the hedge) and the
unobserved variables that confound them.

A formula prints as text (``Σ_t P(t | x) Σ_x' P(y | t, x') P(x')``, the front door) and
evaluates on a joint :class:`bbn.Factor` of the observed variables (a network's or the
frequencies of data: :func:`bbn.tasks.effect.effect`) to P(y | do(x)) as a Factor over
(X..., Y...).

>>> import bbn
>>> net = bbn.Network("front door")
>>> net.add_variable("U", ["0", "1"], table=[0.5, 0.5])
>>> net.add_variable("X", ["0", "1"], parents=["U"], table=[[0.8, 0.2], [0.3, 0.7]])
>>> net.add_variable("T", ["0", "1"], parents=["X"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> net.add_variable("Y", ["0", "1"], parents=["T", "U"],
...                  table=[[[0.9, 0.1], [0.4, 0.6]], [[0.7, 0.3], [0.2, 0.8]]])
>>> formula = identify(net, "Y", "X", observed=["X", "T", "Y"])
>>> print(formula)
P(Y | do(X)) = Σ_{T} P(T | X) Σ_{X'} P(X') P(Y | X', T)
>>> truth = net.posterior("Y", do={"X": "1"}).values
>>> bool(abs(formula.evaluate(net).values[1] - truth).max() < 1e-12)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import bbn.questions.simplification as simplification
from bbn.core.errors import QueryError
from bbn.questions.formulas import (
    Expression,
    Formula,
    Prob,
    Product,
    Quotient,
    Sum,
    _free,
    _product,
    _sum,
)
from bbn.questions.resolution import check_variables


class NotIdentifiable(QueryError):
    """The effect is not identifiable from the observed variables (a QueryError).

    Parameters
    ----------
    message : str
    hedge : tuple of str
        The variables of the confounded component found (Shpitser and Pearl's hedge).
    confounders : tuple of str
        The unobserved variables behind its bidirected arcs.

    Examples
    --------
    >>> error = NotIdentifiable("not identifiable", ("X", "Y"), ("U",))
    >>> error.hedge, error.confounders, isinstance(error, QueryError)
    (('X', 'Y'), ('U',), True)
    """

    def __init__(self, message: str, hedge: tuple[str, ...] = (),
                 confounders: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.hedge, self.confounders = hedge, confounders


# ------------------------------------------------------------------ the graph
@dataclass(frozen=True)
class Graph:
    """A semi-Markovian graph: ``parents`` (directed arcs among ``nodes``) and
    ``bidirected`` arcs, each with the unobserved variables behind it."""

    nodes: tuple[str, ...]
    parents: dict[str, tuple[str, ...]]
    bidirected: dict[frozenset, tuple[str, ...]]

    def sub(self, keep: Iterable[str]) -> Graph:
        keep = set(keep)
        return Graph(tuple(v for v in self.nodes if v in keep),
                     {v: tuple(p for p in self.parents[v] if p in keep)
                      for v in self.nodes if v in keep},
                     {e: u for e, u in self.bidirected.items() if e <= keep})

    def ancestors(self, of: Iterable[str]) -> set[str]:
        seen, stack = set(of), list(of)
        while stack:
            for p in self.parents[stack.pop()]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen

    def cut(self, into: Iterable[str]) -> Graph:
        """Every arc into ``into`` removed (directed and bidirected)."""
        into = set(into)
        return Graph(self.nodes, {v: () if v in into else self.parents[v] for v in self.nodes},
                     {e: u for e, u in self.bidirected.items() if not e & into})

    def components(self) -> list[set[str]]:
        """The c-components: nodes joined by bidirected arcs."""
        neighbours: dict[str, set[str]] = {v: set() for v in self.nodes}
        for e in self.bidirected:
            a, b = tuple(e)
            neighbours[a].add(b)
            neighbours[b].add(a)
        seen: set[str] = set()
        found = []
        for v in self.nodes:
            if v in seen:
                continue
            part, stack = {v}, [v]
            while stack:
                for w in neighbours[stack.pop()] - part:
                    part.add(w)
                    stack.append(w)
            seen |= part
            found.append(part)
        return found


def projection(parents: dict[str, tuple[str, ...]], order: Sequence[str],
               observed: Sequence[str]) -> Graph:
    """The latent projection of a DAG (``parents``, topological ``order``) on
    ``observed``.

    >>> g = projection({"U": (), "X": ("U",), "Y": ("X", "U")}, ["U", "X", "Y"], ["X", "Y"])
    >>> g.parents, list(g.bidirected.values())
    ({'X': (), 'Y': ('X',)}, [('U',)])
    """
    seen = set(observed)
    children: dict[str, list[str]] = {v: [] for v in order}
    for v in order:
        for p in parents[v]:
            children[p].append(v)

    def reached(start: str) -> set[str]:
        """Observed nodes reached from ``start`` through unobserved nodes only."""
        found, stack, visited = set(), list(children[start]), set()
        while stack:
            v = stack.pop()
            if v in visited:
                continue
            visited.add(v)
            if v in seen:
                found.add(v)
            else:
                stack += children[v]
        return found

    nodes = tuple(v for v in order if v in seen)
    projected: dict[str, list[str]] = {v: [] for v in nodes}
    for a in nodes:
        for b in reached(a):
            projected[b].append(a)
    bidirected: dict[frozenset, tuple[str, ...]] = {}
    for u in order:
        if u in seen:
            continue
        reach = sorted(reached(u), key=nodes.index)
        for i, a in enumerate(reach):
            for b in reach[i + 1:]:
                key = frozenset((a, b))
                bidirected[key] = (*bidirected.get(key, ()), u)
    return Graph(nodes, {v: tuple(sorted(projected[v], key=nodes.index)) for v in nodes},
                 bidirected)


# ------------------------------------------------------------------ ID
class _Distribution:
    """The distribution an ID call holds: over ``nodes``, as ``expression``; ``chain``
    maps each node to P(v | its predecessors) when it is the product of those (step 7),
    and ``observed`` says it is the observed P(nodes) itself."""

    def __init__(self, nodes: tuple[str, ...], expression: Expression,
                 chain: dict[str, Expression] | None = None, observed: bool = False) -> None:
        self.nodes, self.expression, self.chain, self.observed = (nodes, expression, chain,
                                                                  observed)

    def conditional(self, v: str, before: tuple[str, ...], order: Sequence[str]) -> Expression:
        """P(v | before) of this distribution (``before``: v's predecessors among its nodes)."""
        if self.observed:
            return Prob((v,), before)
        if self.chain is not None:
            return self.chain[v]
        numerator = _sum([u for u in self.nodes if u not in before and u != v],
                         self.expression, order)
        denominator = _sum([u for u in self.nodes if u not in before], self.expression, order)
        return Quotient(numerator, denominator)

    def marginal(self, keep: set[str], order: Sequence[str]) -> _Distribution:
        nodes = tuple(v for v in self.nodes if v in keep)
        if self.observed:
            return _Distribution(nodes, Prob(nodes), observed=True)
        return _Distribution(nodes, _sum(set(self.nodes) - keep, self.expression, order))


def _id(y: set[str], x: set[str], p: _Distribution, g: Graph, order: Sequence[str]
        ) -> Expression:
    """Shpitser and Pearl's ID(y, x, P, G); the steps are numbered as theirs."""
    v = set(g.nodes)
    if not x:  # 1
        return _sum(v - y, p.expression, order) if not p.observed else Prob(
            tuple(u for u in order if u in y))
    ancestors = g.ancestors(y)
    if ancestors != v:  # 2
        return _id(y, x & ancestors, p.marginal(ancestors, order), g.sub(ancestors), order)
    w = (v - x) - g.cut(x).ancestors(y)
    if w:  # 3
        return _id(y, x | w, p, g, order)
    rest = g.sub(v - x)
    parts = rest.components()
    if len(parts) > 1:  # 4
        return _sum(v - (y | x), _product([_id(s, v - s, p, g, order) for s in parts]), order)
    s = parts[0]
    whole = g.components()
    if len(whole) == 1:  # 5: a hedge
        confounders = sorted({u for e, us in g.bidirected.items() for u in us})
        raise NotIdentifiable(
            f"not identifiable: {', '.join(sorted(v))} are one confounded component "
            f"(joined by the unobserved {', '.join(confounders) or '(none)'}), and the "
            f"intervened {', '.join(sorted(x))} lie in it: a hedge for "
            f"{', '.join(sorted(s))}", tuple(sorted(v)), tuple(confounders))
    ranked = [u for u in order if u in v]

    def before(u: str) -> tuple[str, ...]:
        return tuple(ranked[:ranked.index(u)])

    if s in whole:  # 6
        factors = [p.conditional(u, before(u), order) for u in ranked if u in s]
        return _sum(s - y, _product(factors), order)
    bigger = next(c for c in whole if s < c)  # 7
    nodes = tuple(u for u in ranked if u in bigger)
    chain = {u: p.conditional(u, before(u), order) for u in nodes}
    return _id(y, x & bigger, _Distribution(nodes, _product(list(chain.values())), chain),
               g.sub(bigger), order)

def _primed(expression: Expression, keep: set[str]) -> Expression:
    """Summed variables that are also free (the treatment) renamed X', so that the
    formula reads as printed: Σ_{x'} P(y | t, x') P(x') beside P(t | x)."""
    def rename(e: Expression, names: dict[str, str]) -> Expression:
        if isinstance(e, Prob):
            return Prob(tuple(names.get(v, v) for v in e.targets),
                        tuple(names.get(v, v) for v in e.given))
        if isinstance(e, Sum):
            inner = dict(names)
            for v in e.over:
                if v in keep or v in names:
                    inner[v] = names.get(v, v) + "'"
            return Sum(tuple(inner.get(v, v) for v in e.over), rename(e.term, inner))
        if isinstance(e, Product):
            return Product(tuple(rename(t, names) for t in e.terms))
        return Quotient(rename(e.numerator, names), rename(e.denominator, names))
    return rename(expression, {})


def identify(model, outcome: str | Sequence[str], treatment: str | Sequence[str],
             observed: Sequence[str] | None = None, simplify: bool = True) -> Formula:
    """P(outcome | do(treatment)) as a formula over the distribution of the ``observed``
    variables (all of the network's by default), by the ID algorithm on the network's
    latent projection.

    Parameters
    ----------
    model : Network
        Its graph is read (its tables only when the formula is evaluated on it).
    outcome, treatment : str or sequence of str
        Y and X, disjoint, both observed.
    observed : sequence of str, optional
        The variables measured; the others are unobserved (latent).
    simplify : bool, default True
        Shorten the algorithm's formula (:mod:`bbn.questions.simplification`:
        conditioning sets cut by d-separation, chain-rule factors joined, sums over a
        variable only one joint holds dropped); False gives it as the algorithm builds
        it. Both evaluate to the same P(y | do(x)).

    Returns
    -------
    Formula

    Raises
    ------
    NotIdentifiable
        A QueryError naming the confounded component (hedge) and the unobserved
        variables that confound it.
    QueryError
        For unknown variables, or treatment and outcome not disjoint and observed.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network("bow")
    >>> net.add_variable("U", ["0", "1"], table=[0.5, 0.5])
    >>> net.add_variable("X", ["0", "1"], parents=["U"], table=[[0.8, 0.2], [0.3, 0.7]])
    >>> net.add_variable("Y", ["0", "1"], parents=["X", "U"],
    ...                  table=[[[0.9, 0.1], [0.4, 0.6]], [[0.7, 0.3], [0.2, 0.8]]])
    >>> identify(net, "Y", "X", observed=["X", "Y"])
    Traceback (most recent call last):
        ...
    bbn.questions.identification.NotIdentifiable: not identifiable: X, Y are one ...
    """
    view = model.compiled()
    ys = (outcome,) if isinstance(outcome, str) else tuple(outcome)
    xs = (treatment,) if isinstance(treatment, str) else tuple(treatment)
    seen = tuple(view.variables) if observed is None else tuple(observed)
    check_variables(view, [*ys, *xs], role="causal")
    check_variables(view, seen, role="observed")
    if set(ys) & set(xs) or not ys or not xs:
        raise QueryError("an effect needs a treatment and an outcome, disjoint")
    hidden = [v for v in (*ys, *xs) if v not in seen]
    if hidden:
        raise QueryError(f"{hidden[0]!r} is in the effect asked but not observed")
    order = list(view.variables)  # declaration order is topological
    graph = projection(dict(view.parents), order, seen)
    expression = _id(set(ys), set(xs), _Distribution(graph.nodes, Prob(graph.nodes),
                                                     observed=True), graph, graph.nodes)
    extra = [v for v in graph.nodes if v in _free(expression) and v not in ys + xs]
    if extra:  # step 3 made them interventions the answer does not depend on: average
        expression = _sum(extra, _product([expression, Prob(tuple(extra))]), graph.nodes)
    expression = _primed(expression, set(xs))
    if simplify:
        expression = simplification.simplified(expression, view)
    return Formula(ys, xs, expression, graph.nodes)

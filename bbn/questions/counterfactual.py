"""Counterfactuals of a structural causal model, by the twin network.

    P(Y_{X=x} = y | e) = Σ_u P(u | e) [Y = y in the model with X := x, exogenous u]

A network is a structural causal model here when every variable with parents is a
deterministic function of them (its table all 0s and 1s): the randomness is in the
roots, the exogenous variables. The *twin network* copies every other variable ``V`` as
``V*`` (the world where X := x), its parents the twins of V's parents, the roots shared;
``X*`` is cut from its parents and set to x. The factual evidence is observed on the
original variables and the question asked of the twins: ``P(Y_{X=x} | X=x', Y=y')``,
``net.counterfactual("Y", do={"X": "x"}, evidence={...})``. Any other network is refused
with the variable whose table is not deterministic.

>>> import bbn
>>> net = bbn.Network("switch")
>>> net.add_variable("U", ["off", "on"], table=[0.4, 0.6])
>>> net.add_variable("X", ["0", "1"], parents=["U"], table=[[1, 0], [0, 1]])
>>> net.add_variable("Y", ["0", "1"], parents=["X"], table=[[1, 0], [0, 1]])
>>> net.query("P(Y_{X=0} | Y=1)").values.tolist()      # Y copies X whatever happened
[1.0, 0.0]
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType as frozen

import numpy as np

from bbn.core.errors import QueryError
from bbn.core.factor import Factor
from bbn.questions.resolution import Asked, check_variables, resolve, state_index
from bbn.questions.uncertain import Derived
from bbn.views.compiled import CompiledNetwork


def _deterministic(table: np.ndarray) -> bool:
    return bool(((table == 0) | (table == 1)).all())


def twin_view(view: CompiledNetwork, world: dict[str, int]
              ) -> tuple[CompiledNetwork, dict[str, str]]:
    """The twin network of ``view`` with the variables of ``world`` set to their state
    indices in the twin world; also the twins' names (variable → ``variable*``).

    Raises
    ------
    QueryError
        For a Markov network, continuous variables, or a variable with parents whose
        table is not deterministic (naming it).

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network("n")
    >>> net.add_variable("U", ["0", "1"], table=[0.5, 0.5])
    >>> net.add_variable("X", ["0", "1"], parents=["U"], table=[[1, 0], [0, 1]])
    >>> twin, names = twin_view(net.compiled(), {"X": 0})
    >>> twin.variables, twin.parents["X*"], names
    (('U', 'X', 'X*'), (), {'X': 'X*'})
    """
    if view.constraints or view.gaussian:
        raise QueryError("counterfactuals need a discrete Bayesian network (a structural "
                         "causal model)")
    for v in view.variables:
        if view.parents[v] and not _deterministic(view.table(v)):
            raise QueryError(
                f"counterfactuals need a structural causal model: every variable with "
                f"parents a deterministic function of them (tables of 0s and 1s), the "
                f"randomness in exogenous roots; {v!r} is not (P({v} | "
                f"{', '.join(view.parents[v])}) has entries strictly between 0 and 1)")
    copied = {v for v in view.variables if view.parents[v] or v in world}
    names: dict[str, str] = {}
    taken = set(view.variables)
    for v in view.variables:
        if v in copied:
            name = f"{v}*"
            while name in taken:
                name += "*"
            taken.add(name)
            names[v] = name
    states, parents = dict(view.states), dict(view.parents)
    cardinality, tables, zero_free = (dict(view.cardinality), dict(view.tables),
                                      dict(view.zero_free))
    for v, twin in names.items():
        states[twin], cardinality[twin] = view.states[v], view.cardinality[v]
        if v in world:
            table = np.zeros(view.cardinality[v])
            table[world[v]] = 1.0
            table.setflags(write=False)
            parents[twin], tables[twin], zero_free[twin] = (), table, False
        else:
            parents[twin] = tuple(names.get(p, p) for p in view.parents[v])
            tables[twin], zero_free[twin] = view.tables[v], view.zero_free[v]
    variables = (*view.variables, *names.values())
    twin_network = CompiledNetwork(view.revision, variables, frozen(states), frozen(parents),
                                   frozen(cardinality), frozen(tables), frozen(zero_free),
                                   view.gaussian, view.constraints, view.auxiliary)
    return twin_network, names


def ask_counterfactual(model, asked: Asked, method, answer, answering, joint: bool = False,
                       **options):
    """``P(Y_{X=x} | e)`` of the query language (:func:`bbn.questions.dispatch.ask`):
    the twin network made (kept per revision and intervention), the question asked of
    the twins of the targets, the answer named by the targets."""
    query = asked.query
    view = answering.view
    world_names = dict(query.counterfactual)
    check_variables(view, list(world_names), role="intervened")
    if query.do:
        raise QueryError("a counterfactual takes its intervention as a subscript, "
                         "P(Y_{X=x} | ...), not do(...)")
    world = {v: state_index(view, v, s) for v, s in world_names.items()}
    key = ("twin", tuple(sorted(world.items())))
    kept = answering.derived
    if kept is None:
        kept = answering.derived = {}
    found = kept.get(key)
    if found is None:
        twin, names = twin_view(view, world)
        found = kept[key] = Derived(twin, None, 0.0, names)
    names = found.virtual
    check_variables(view, [v for v, _ in query.targets])
    targets = tuple((names.get(v, v), s) for v, s in query.targets)
    twin_query = replace(query, targets=targets, counterfactual=(),
                         evidence=(*query.evidence, *((names[v], s)
                                                      for v, s in world_names.items())))
    result = answer(found, resolve(found.view, Asked(query.kind, "query", query=twin_query)),
                    method, **options)
    if not isinstance(result, Factor):
        return result
    back = {names.get(v, v): v for v, _ in query.targets}
    variables = tuple(back.get(v, v) for v in result.variables)
    states = {back.get(v, v): s for v, s in result.states.items()}
    if hasattr(result, "standard_error"):  # an approximate Estimate
        return type(result)(variables, states, result.values, result.standard_error,
                            result.report)
    return Factor(variables, states, result.values)

"""The dense form for tiny networks: the joint table of the hidden variables.

When the hidden variables have at most DENSE_UP_TO joint states, the compiled "tree" is a
single clique holding them all (:class:`~bbn.engines.exact.cliques.Joint`): the tables
no evidence reaches are multiplied into it once, and a call multiplies in the sliced
evidence tables φ and sums once per variable::

    P(X = x | e) = Σ_{others} Π φ / Σ_all Π φ

On a handful of variables this beats building and walking a tree of cliques in Python.

>>> import bbn
>>> net = bbn.Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> tree = net.engine.junction_tree(["Wet"])
>>> tree.joint.variables
('Rain',)
>>> round(float(joint_posteriors(tree, {"Wet": 0}, None)["Rain"][0]), 4)
0.5294
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bbn.engines.exact.cliques import Joint, JunctionTree, Table, tree_cost
from bbn.engines.exact.elimination import Cost, check_memory, relevant_variables
from bbn.engines.exact.propagation import SMALLEST, ZeroProbability, checked_total

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork

#: Evidence that leaves at most this many joint states of the hidden variables is
#: answered from that joint table itself (see :class:`~bbn.engines.exact.cliques.Joint`):
#: on a few variables, building and walking a tree of cliques costs more, in Python,
#: than the whole table.
#: (Much above it, a tree's small cliques win on every call: sachs with 3 observed
#: variables has 6561 joint states but 45 clique entries.)
DENSE_UP_TO = 1 << 11


def compile_joint(network: CompiledNetwork, observed: Sequence[str], hidden: list[str],
                  normalised: Mapping[str, tuple],
                  room: Callable[[Cost], int] | None = None) -> JunctionTree:
    """A tree without cliques: its :class:`~bbn.engines.exact.cliques.Joint` holds every
    table of ``network`` (all set; the tables of barren variables are handled, with
    ``normalised``, as in :func:`bbn.engines.exact.clique_building.build_cliques`)."""
    parents, card, tables = (dict(network.parents), dict(network.cardinality),
                             dict(network.tables))  # plain dicts: faster lookups
    shape = tuple(map(card.__getitem__, hidden))
    size = math.prod(shape)
    tree = JunctionTree(observed=tuple(observed), cliques=[], constants=[], collect=[],
                        distribute=[], fixed_marginals={}, largest_table=size,
                        width=len(hidden) - 1, total_entries=size)
    # the joint, then per case its product with the evidence tables and one weighted copy
    tree.cost = tree_cost(size, size, size, tree.width)
    check_memory(tree.cost, held=room(tree.cost) if room else 0)
    observed_set = set(observed)
    ancestral = relevant_variables(parents, observed_set)
    axis = {v: i for i, v in enumerate(hidden)}
    joint = tree.joint = Joint(tuple(hidden), np.ones(shape), [], [])
    for v, table in tables.items():
        family = parents[v] + (v,)
        fixed = tuple(u for u in family if u in observed_set)
        free = sorted((u for u in family if u not in observed_set), key=axis.__getitem__)
        order = list(map(family.index, fixed + tuple(free)))
        if not free:
            tree.constants.append(Table(v, fixed, table.transpose(order)))
            continue
        values = (table if v in ancestral else normalised[v][0]).transpose(order)
        spread = tuple(n if u in free else 1 for u, n in zip(hidden, shape))
        if fixed:
            joint.tables.append((Table(v, fixed, np.ascontiguousarray(values)), spread))
        else:
            joint.evidence_free *= values.reshape(spread)
        sums = normalised[v][1]
        if sums is not None and v not in ancestral and v in axis and len(free) > 1:
            # v's parents, in v's layout without v's own axis
            kept = [i for i in order if i < len(family) - 1]
            joint.weighted.append((v, Table(v, fixed, sums.transpose(kept)),
                                   tuple(n if u in free and u != v else 1
                                         for u, n in zip(hidden, shape))))
    joint.evidence_free.setflags(write=False)
    tree.cached_bytes = joint.evidence_free.nbytes
    return tree


def joint_posteriors(tree: JunctionTree, evidence: Mapping[str, int | np.ndarray],
                      cases: int | None,
                      slices: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Every hidden posterior from the joint, P(X = x | e) = Σ_{others} Π φ / Σ_all Π φ,
    with a leading case axis when the evidence holds arrays of ``cases`` indices;
    ``slices``: the slices of some evidence tables, in place of the tree's."""
    joint = tree.joint
    bad = None if cases is None else np.zeros(cases, dtype=bool)
    for table in tree.constants:
        checked_total(table.values[tuple(evidence[u] for u in table.fixed)][..., None], bad,
                      least=SMALLEST)
    product = joint.evidence_free
    lead: tuple[int, ...] = ()
    for i, (table, spread) in enumerate(joint.tables):
        if slices is not None and table.variable in slices:
            values = slices[table.variable]
        else:
            values = table.values[tuple(evidence[u] for u in table.fixed)]
        lead = values.shape[:1] if cases is not None else ()
        values = values.reshape(lead + spread)
        if i:
            product *= values  # this call's own array
        else:
            product = product * values
    total = checked_total(product.reshape(lead + (-1,)), bad)
    axes = range(len(lead), product.ndim)
    result = {}
    for v, a in zip(joint.variables, axes):
        summed = tuple(k for k in axes if k != a)
        result[v] = (np.add.reduce(product, axis=summed) if summed else product) / total
    for v, table, spread in joint.weighted:
        values = table.values[tuple(evidence[u] for u in table.fixed)]
        a = len(lead) + joint.variables.index(v)
        values = values.reshape((values.shape[:1] if cases is not None and table.fixed else ())
                                + spread)
        marginal = np.add.reduce(product * values, axis=tuple(k for k in axes if k != a))
        result[v] = marginal / np.add.reduce(marginal, axis=-1, keepdims=True)
    if bad is not None and bad.any():
        raise ZeroProbability(bad, result)
    return result

"""Exact CLG inference without enumerating every discrete configuration: the strong
junction tree, component by component.

Group the continuous variables into components C (connected by continuous parent–child
arcs); the head H(C) is the set of their discrete parents. Given h ∈ H(C), C is one
multivariate normal, and discrete variables never have continuous parents, so::

    p(d, x) = P(d) · Π_C p(x_C | h_C(d))

Continuous findings x_E weigh the discrete part by one factor per component,
ℓ_C(h) = N(x_{E∩C}; μ_E(h), Σ_EE(h)), a table over H(C). The discrete engine answers
P(d | e) with each ℓ_C attached as an observed binary child of H(C) (its table
[1 − ℓ_C/max ℓ_C, ℓ_C/max ℓ_C]), so its junction tree has a clique holding H(C) — the
clique a strong triangulation (continuous variables eliminated first) makes for the
component in the Lauritzen–Jensen (2001) junction tree, whose CG potential holds one
normal per h just as :class:`~bbn.engines.exact.linear_gaussian.LinearGaussian` does
for the component here. The answer about continuous targets is the exact mixture::

    p(x_T | e) = Σ_h P(h | e) · N(x_T; μ_T|E(h), Σ_T|E(h)),   h over the targets' heads

so its mean and variance (moment matching, the weak marginal) are exact, and so are the
discrete posteriors. Cost: Π|H(C)| normals per component (refused above
:data:`~bbn.engines.exact.linear_gaussian.MAX_CONFIGURATIONS`) and the discrete
junction tree, instead of Π|D| over every discrete parent at once.
:func:`continuous_model` chooses between the two by that count.

>>> import bbn
>>> net = bbn.Network()
>>> for i in range(3):
...     net.add_variable(f"D{i}", ["a", "b"], table=[0.5, 0.5])
...     net.add_gaussian_variable(f"x{i}", [f"D{i}"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> tree = ComponentTree(net.compiled())
>>> [c.names for c in tree.components]
[('x0',), ('x1',), ('x2',)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import ImpossibleEvidenceError, ModelError, QueryError
from bbn.core.normals import Normal
from bbn.engines.exact.engine import Engine
from bbn.engines.exact.linear_gaussian import MAX_CONFIGURATIONS, LinearGaussian
from bbn.engines.protocol import Evidence
from bbn.views.compiled import CompiledNetwork

if TYPE_CHECKING:
    from collections.abc import Mapping

#: Enumerate every configuration of the continuous variables' discrete parents when
#: there are at most this many; the component tree above. Measured on switching chains
#: (first question with findings): 16 configurations 0.5 ms enumerated vs 1.0 ms by the
#: tree, 64: 1.3 vs 1.2 ms, 256: 15 vs 1.7 ms, 4096: 321 vs 13 ms.
ENUMERATE_AT_MOST = 32


def components(network: CompiledNetwork) -> list[tuple[str, ...]]:
    """The continuous variables grouped by continuous arcs (union–find), each group in
    declaration order, groups in the order of their first variable.

    >>> import bbn
    >>> net = bbn.Network()
    >>> for v in "xyz":
    ...     net.add_gaussian_variable(v, mean=0.0, variance=1.0)
    >>> net.add_gaussian_variable("w", ["x", "z"], mean=0.0, variance=1.0,
    ...                           weights={"x": 1.0, "z": 1.0})
    >>> components(net.compiled())
    [('x', 'z', 'w'), ('y',)]
    """
    gaussian = network.gaussian
    root = {v: v for v in gaussian}

    def find(v: str) -> str:
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    for v, leaf in gaussian.items():
        for p in leaf.continuous:
            root[find(v)] = find(p)
    groups: dict[str, list[str]] = {}
    for v in network.variables:
        if v in gaussian:
            groups.setdefault(find(v), []).append(v)
    return [tuple(g) for g in groups.values()]


def configurations(network: CompiledNetwork, names: Sequence[str]) -> int:
    """Π|D| over the discrete parents of the continuous variables ``names``.

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("D", ["a", "b", "c"], table=[0.2, 0.3, 0.5])
    >>> net.add_gaussian_variable("x", ["D"], mean=[0.0, 1.0, 2.0], variance=[1.0] * 3)
    >>> configurations(net.compiled(), ["x"])
    3
    """
    if not network.tables:  # no discrete variable
        return 1
    heads = {p for v in names for p in network.gaussian[v].parents}
    return math.prod(network.cardinality[p] for p in heads)


def continuous_model(network: CompiledNetwork) -> LinearGaussian | ComponentTree:
    """The continuous engine of a view, by cost: enumeration
    (:class:`~bbn.engines.exact.linear_gaussian.LinearGaussian`) when the discrete
    parents of all continuous variables have at most :data:`ENUMERATE_AT_MOST`
    configurations or the continuous variables are one component, the component tree
    otherwise.

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    >>> type(continuous_model(net.compiled())).__name__
    'LinearGaussian'
    """
    count = configurations(network, list(network.gaussian))
    if count <= ENUMERATE_AT_MOST or len(components(network)) == 1:
        return LinearGaussian(network)
    return ComponentTree(network)


class Component:
    """One group of continuous variables: its ``names``, its discrete ``head`` (the
    parents of its members, in declaration order) and their normals per head
    configuration (a :class:`~bbn.engines.exact.linear_gaussian.LinearGaussian` of the
    component alone).

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("D", ["a", "b"], table=[0.5, 0.5])
    >>> net.add_gaussian_variable("x", ["D"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    >>> net.add_gaussian_variable("y", ["x"], mean=0.0, variance=1.0, weights={"x": 1.0})
    >>> component = Component(net.compiled(), ("x", "y"))
    >>> component.head, component.normals.means.tolist()
    (('D',), [[0.0, 0.0], [2.0, 2.0]])
    """

    __slots__ = ("names", "head", "normals")

    def __init__(self, network: CompiledNetwork, names: tuple[str, ...]) -> None:
        self.names = names
        heads = {p for v in names for p in network.gaussian[v].parents}
        self.head = tuple(v for v in network.variables if v in heads)
        kept = self.head + names

        def only(mapping: Mapping) -> MappingProxyType:
            return MappingProxyType({v: mapping[v] for v in kept if v in mapping})

        view = CompiledNetwork(network.revision, kept, only(network.states),
                               only(network.parents), only(network.cardinality),
                               MappingProxyType({}), MappingProxyType({}),
                               only(network.gaussian))
        self.normals = LinearGaussian(view)


class ComponentTree:
    """The continuous part of a view as components with discrete heads; questions are
    answered by the discrete junction tree with one likelihood child per observed
    component (see the module).

    Parameters
    ----------
    network : CompiledNetwork
        A view with Gaussian variables (continuous parents allowed; discrete variables
        with continuous parents are not).

    Raises
    ------
    ModelError
        When a component's head has more than
        :data:`~bbn.engines.exact.linear_gaussian.MAX_CONFIGURATIONS` configurations.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("D", ["a", "b"], table=[0.5, 0.5])
    >>> net.add_gaussian_variable("x", ["D"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    >>> tree = ComponentTree(net.compiled())
    >>> tree.answer(net.engine, ["x"], Evidence({}, {}, {})).mean
    1.0
    """

    def __init__(self, network: CompiledNetwork) -> None:
        self.network = network
        for v in network.variables:
            if v not in network.gaussian and any(p in network.gaussian
                                                 for p in network.parents[v]):
                raise ModelError(f"the discrete variable {v!r} has a continuous parent; "
                                 "the component tree answers CLG networks only")
        self.components: list[Component] = []
        for names in components(network):
            count = configurations(network, names)
            if count > MAX_CONFIGURATIONS:
                raise ModelError(
                    f"the continuous variables {list(names)[:5]} are connected and have "
                    f"discrete parents with {count} configurations; exact answers keep at "
                    f"most {MAX_CONFIGURATIONS} normals per connected group (the "
                    "Lauritzen–Jensen junction tree needs a clique of as many)")
            self.components.append(Component(network, names))
        self.of = {v: c for c in self.components for v in c.names}
        self._discrete = network.discrete_part()
        self._last: tuple | None = None  # the last evidence's engine (one question's
        # posteriors of every variable share it)

    def _engine(self, engine: Engine, evidence: Evidence) -> tuple[Engine, Evidence, dict]:
        """The discrete engine and evidence that account for the continuous findings:
        a view with an observed likelihood child per observed component (or ``engine``
        itself without findings), and per component its findings' conditioning."""
        discrete = Evidence(dict(evidence.states), {}, evidence.given)
        if not evidence.values:
            return engine, discrete, {}
        key = (tuple(evidence.states.items()), tuple(evidence.values.items()))
        kept = self._last
        if kept is not None and kept[0] == key:  # every posterior of one evidence
            return kept[1]
        made = self._weighed(evidence, discrete)
        self._last = (key, made)
        return made

    def _weighed(self, evidence: Evidence, discrete: Evidence) -> tuple[Engine, Evidence, dict]:
        observed: dict[Component, dict[str, float]] = {}
        for v, x in evidence.values.items():
            observed.setdefault(self.of[v], {})[v] = x
        view = self._discrete
        variables, states = list(view.variables), dict(view.states)
        parents, cardinality = dict(view.parents), dict(view.cardinality)
        tables, zero_free = dict(view.tables), dict(view.zero_free)
        found = dict(discrete.states)
        for i, (component, values) in enumerate(observed.items()):
            density = component.normals.conditioned(values, ())[0]
            top = density.max()
            if not np.isfinite(top):
                raise ImpossibleEvidenceError(dict(evidence.given))
            likelihood = np.exp(density - top).reshape(component.normals.shape)
            name = f"~likelihood{i}"
            while name in states:
                name += "'"
            variables.append(name)
            states[name], cardinality[name] = ("no", "yes"), 2
            parents[name] = component.head
            tables[name] = np.stack([1.0 - likelihood, likelihood], axis=-1)
            zero_free[name] = False
            found[name] = 1
        view = CompiledNetwork(view.revision, tuple(variables), *map(MappingProxyType, (
            states, parents, cardinality, tables, zero_free, {})), view.constraints,
            view.auxiliary | frozenset(variables[len(view.variables):]))
        return Engine(view), Evidence(found, {}, evidence.given), observed

    def answer(self, engine: Engine, targets: Sequence[str], evidence: Evidence):
        """P(targets | evidence) as :meth:`LinearGaussian.answer
        <bbn.engines.exact.linear_gaussian.LinearGaussian.answer>` gives it: a
        :class:`~bbn.core.normals.Normal` for continuous targets, a numpy table over the
        states of discrete ones."""
        gaussian = self.network.gaussian
        continuous = [v for v in targets if v in gaussian]
        if continuous and len(continuous) != len(targets):
            raise QueryError("ask about continuous and discrete variables separately: "
                             f"{continuous} are continuous")
        engine, discrete, observed = self._engine(engine, evidence)
        if not continuous:
            return engine.posterior(list(targets), discrete).values
        asked = list(dict.fromkeys(self.of[v] for v in continuous))
        head = list(dict.fromkeys(p for c in asked for p in c.head))
        shape = tuple(self.network.cardinality[p] for p in head)
        if math.prod(shape) > MAX_CONFIGURATIONS:
            raise ModelError(f"the targets' discrete parents have {math.prod(shape)} "
                             f"configurations; ask about at most {MAX_CONFIGURATIONS}")
        weights = (engine.posterior(head, discrete).values.reshape(-1) if head
                   else np.ones(1))
        codes = np.indices(shape).reshape(len(shape), math.prod(shape))
        means, blocks, order = [], [], []
        for c in asked:
            mine = tuple(c.normals.index[v] for v in continuous if v in c.names)
            order += [v for v in continuous if v in c.names]
            _, m, s = c.normals.conditioned(observed.get(c, {}), mine)
            at = (np.ravel_multi_index(tuple(codes[head.index(p)] for p in c.head),
                                       c.normals.shape) if c.head else
                  np.zeros(len(weights), dtype=int))
            means.append(m[at])
            blocks.append(s[at])
        kept = np.flatnonzero(weights > 0)
        mean = np.concatenate(means, axis=1)[kept]
        covariance = np.zeros((len(kept), len(order), len(order)))
        start = 0
        for s in blocks:  # independent given the heads: block diagonal
            covariance[:, start:start + s.shape[1], start:start + s.shape[1]] = s[kept]
            start += s.shape[1]
        position = [order.index(v) for v in continuous]
        return Normal(continuous, weights[kept] / weights[kept].sum(),
                      mean[:, position], covariance[:, position][:, :, position])

    def posteriors(self, engine: Engine, evidence: Evidence) -> dict:
        """Every unobserved variable's answer, as :meth:`answer` gives it: the discrete
        ones by one propagation of the discrete junction tree, a continuous one mixed
        over its component's head (read off that propagation when the head is one
        variable).

        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("D", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["D"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> answers = ComponentTree(net.compiled()).posteriors(net.engine,
        ...                                                    Evidence({}, {"x": 1.0}, {}))
        >>> answers["D"].tolist(), answers.keys() == {"D"}
        ([0.5, 0.5], True)
        """
        view = self.network
        weighed, discrete, observed = self._engine(engine, evidence)
        tables = weighed.posteriors(discrete)
        normals = {}
        for c in self.components:
            asked = [v for v in c.names if v not in evidence.values]
            if not asked:
                continue
            if len(c.head) == 1:
                weights = tables[c.head[0]].values
            else:
                weights = (weighed.posterior(list(c.head), discrete).values.reshape(-1)
                           if c.head else np.ones(1))
            kept = np.flatnonzero(weights > 0)
            share = weights[kept] / weights[kept].sum()
            for v in asked:
                _, mean, covariance = c.normals.conditioned(observed.get(c, {}),
                                                            (c.normals.index[v],))
                normals[v] = Normal((v,), share, mean[kept], covariance[kept])
        return {v: normals[v] if v in view.gaussian else tables[v].values
                for v in view.variables
                if v not in evidence.values and v not in evidence.states
                and v not in view.auxiliary}

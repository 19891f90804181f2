"""The exact inference engine of one network revision: it owns what questions compile.

    P(Q | e) = Σ_h Π_i P(Xi | parents(Xi)) |_e  /  P(e)

An :class:`Engine` is built from one :class:`bbn.views.compiled.CompiledNetwork` and keeps
everything derived from it: the elimination plans by question shape
(:mod:`bbn.engines.exact.elimination`), the junction trees by set of observed variables
(:mod:`bbn.engines.exact.junction_tree`), the junction order, the row-normalised tables and
the engine of the discrete part (the network without its Gaussian leaves). Since the
compiled view never changes, nothing here is ever cleared: a changed network makes a
new engine (``net.engine``).

Its methods answer questions already resolved to state indices (the protocol of
:mod:`bbn.engines.protocol`; :mod:`bbn.questions.resolution` checks a user's names and
:mod:`bbn.questions.dispatch` calls the engine).

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> engine = net.engine
>>> round(engine.posterior(["C"], Evidence({"A": 0}, {}, {})).to_dict()["T"], 6)  # 22840/25757
0.886749
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

import bbn.engines.exact.continuous as continuous
from bbn.core.errors import ImpossibleEvidenceError
from bbn.core.factor import Factor
from bbn.core.lazy import lazy_attributes
from bbn.core.memory import ENTRY_BYTES, get_memory_limit
from bbn.core.once import Once
from bbn.engines.exact.batches import CaseBatches
from bbn.engines.exact.contraction import trace_back
from bbn.engines.exact.elimination import (
    Cost,
    Plan,
    check_memory,
    compile_plan,
    evaluate,
    fits,
)
from bbn.engines.exact.ordering import evidence_order
from bbn.engines.exact.varied_cases import VariedCases
from bbn.engines.exact.weighing import Weighing, posterior_factor
from bbn.engines.protocol import NO_EVIDENCE, Evidence

if TYPE_CHECKING:
    from bbn.engines.exact.cliques import JunctionTree
    from bbn.engines.exact.junction_tree import TreeSource
    from bbn.views.compiled import CompiledNetwork

#: The junction-tree modules (about 5 ms to import) load on the first question that needs
#: every posterior, a batch of marginals or a plan too large for elimination alone: a
#: single query needs none of them (lazy references, see :mod:`bbn.core.lazy`).
_trees = lazy_attributes(__name__, {
    **dict.fromkeys(("compile_tree", "posteriors_one", "TreeSource"),
                    "bbn.engines.exact.junction_tree"),
    **dict.fromkeys(("junction_order", "normalised_tables"), "bbn.engines.exact.clique_building")})

#: Plans whose peak is above this many entries also try the junction tree's order.
SEARCH_AGAIN_ABOVE = 1_000_000


class Engine(CaseBatches, Weighing, VariedCases):
    """Exact inference on one revision of a network (variable elimination and junction
    trees), with everything it compiles kept for the next question.

    Parameters
    ----------
    network : CompiledNetwork
        The view it answers on (``net.compiled()``); ``net.engine`` builds one per
        revision.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network("rain")
    >>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
    >>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
    >>> engine = bbn.Engine(net.compiled())
    >>> round(engine.probability({"Rain": 0}, Evidence({"Wet": 0}, {}, {})), 4)
    0.5294
    """

    def __init__(self, network: CompiledNetwork) -> None:
        self.network = network
        self._plans: dict[tuple, Plan] = {}  # and what callers keep per shape (kept)
        # observed variables → tree, least recently used first
        self._trees: OrderedDict[tuple[str, ...], JunctionTree] = OrderedDict()
        self._junction_order: list[str] | None = None
        self._evidence_orders: dict[tuple[str, ...], list[str]] = {}
        self._normalised: dict | None = None
        self._tables: Mapping[str, np.ndarray] | None = None
        self._log_tables: dict[str, np.ndarray] = {}
        # parents, cardinalities and zero-free flags as plain dicts, for compiling plans
        # (a read-only mapping's lookups cost 1.5 × a dict's)
        self._structure: tuple[dict, dict, dict] | None = None
        # the engine of the discrete part, made on first need when there are Gaussian
        # leaves (never ``self``: a reference to itself would keep a 180 MB junction tree
        # of link alive until the garbage collector's next pass)
        self._discrete: Engine | None = None
        # weighed shape → the engine of the view with its virtual children, and their
        # names (Weighing.weighed_posteriors), least recently used first
        self._weighed_engines: OrderedDict[tuple, tuple[Engine, dict]] = OrderedDict()
        # the caches' bookkeeping, shared by threads: each value made once, by one thread,
        # outside the lock (bbn.core.once)
        self._once = Once()

    def __reduce__(self) -> tuple:
        """A copy (pickled, deep-copied) is a fresh engine of the same view: its caches
        and locks are made again on demand."""
        return (Engine, (self.network,))

    def __repr__(self) -> str:
        return (f"Engine(revision {self.network.revision}, {len(self.network.variables)} "
                f"variables, {len(self._plans)} plans, {len(self._trees)} junction trees)")

    # ------------------------------------------------------------ what it keeps
    def kept(self, key: tuple, make: Callable[[], object]) -> object:
        """What a caller derives once per question shape from this engine's view, made
        once (:class:`Once`) and kept with the plans for the engine's life — the
        read-only view's revision.

        Parameters
        ----------
        key : tuple
            The shape, led by the caller's name for what it keeps.
        make : callable
            Makes the value (never None) from the view.

        Returns
        -------
        object
            The value kept for ``key``.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.kept(("example", 1), lambda: [1, 2]) is engine.kept(("example", 1), list)
        True
        """
        found = self._plans.get(key)
        return found if found is not None else self._once.get(self._plans, key, make)

    @property
    def discrete(self) -> Engine:
        """The engine of the discrete part (itself when there are no Gaussian leaves)."""
        if not self.network.gaussian:
            return self
        return self._once.attribute(self, "_discrete",
                                    lambda: Engine(self.network.discrete_part()))

    def tables(self) -> Mapping[str, np.ndarray]:
        """Every table of the network (ModelError naming the first variable of a
        structure-only model that has none).

        Returns
        -------
        Mapping
            ``{variable: table}``, each of shape ``(|P1|, ..., |Pk|, |X|)``.

        Raises
        ------
        ModelError
            For a structure-only model, naming the first variable with no table.

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").engine.tables()["A"].tolist()
        [[0.7, 0.3], [0.1, 0.9]]
        """
        network = self.network
        return self._once.attribute(self, "_tables",
                                    lambda: {v: network.table(v) for v in network.tables})

    def plan(self, query: Sequence[str], observed: Sequence[str], batched: bool = False,
             maximize: Sequence[str] = (), prune: bool = True) -> Plan:
        """The elimination plan for one question shape (compiled once, with its tables):
        ``query`` kept, ``observed`` sliced, ``maximize`` max-eliminated; ``prune`` drops
        the tables the evidence d-separates (leave it off to compute P(e) itself).

        Parameters
        ----------
        query : sequence of str
            The variables kept in the result.
        observed : sequence of str
            The observed variables (their order does not matter).
        batched : bool, default False
            Evidence holds N cases at once (a leading case axis).
        maximize : sequence of str, optional
            The variables max-eliminated (MAP).
        prune : bool, default True
            Drop the tables the evidence d-separates from ``query``.

        Returns
        -------
        Plan

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> plan = engine.plan(["C"], ["A"])
        >>> plan.result_variables, engine.plan(["C"], ["A"]) is plan
        (('C',), True)
        """
        key = (tuple(query), tuple(sorted(observed)), batched, tuple(maximize), prune)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._once.get(self._plans, key, lambda: self._compile_plan(key))
        return plan

    def _compile_plan(self, key: tuple) -> Plan:
        """The plan of one question shape (``key`` as :meth:`plan` makes it)."""
        query, observed, batched, maximize, prune = key
        network = self.network
        parents, cardinality, zero_free = self._plain_structure()
        plan = self._searched_plan((parents, cardinality, query, observed, batched, maximize,
                                    zero_free if prune else None), observed)
        table = network.table  # a structure-only model fails here, naming the variable
        plan.tables = [table(source.variable) for source in plan.sources]
        return plan

    def _searched_plan(self, arguments: tuple, observed: Sequence[str]) -> Plan:
        """:func:`compile_plan` of ``arguments``, its order searched again when large."""
        plan = compile_plan(*arguments)
        if plan.cost.entries() > SEARCH_AGAIN_ABOVE:
            # Greedy min-fill on the pruned graph is sometimes far worse than the order
            # searched for this evidence (Grids_15: width 20 against 29) or the
            # junction tree's (Promedus_17: 26 against 28): try them too, the tree's
            # only when the plan does not fit yet (Grids_15's tree order is searched
            # for seconds in vain: its tree never fits in 1 GiB).
            for searched in (lambda: self.evidence_order(observed), self.junction_order):
                other = compile_plan(*arguments, order=searched())
                if other.cost.entries() < plan.cost.entries():
                    plan = other
                if fits(plan.cost):
                    break
        return plan

    def _plain_structure(self) -> tuple[dict, dict, dict]:
        """Parents, cardinalities and zero-free flags as plain dicts (made once)."""
        network = self.network
        return self._once.attribute(self, "_structure", lambda: (
            dict(network.parents), dict(network.cardinality), dict(network.zero_free)))

    def junction_tree(self, observed: Sequence[str]) -> JunctionTree:
        """The compiled junction tree for this set of observed variables.

        Trees are kept most recently used last; older ones are dropped once the cached
        arrays of all of them exceed the memory limit (the newest is kept).

        Parameters
        ----------
        observed : sequence of str
            The observed variables (their order does not matter).

        Returns
        -------
        JunctionTree

        Raises
        ------
        MemoryLimitError
            When the tree's peak would exceed the memory limit.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> tree = engine.junction_tree(["A"])
        >>> tree.width, engine.cached_trees
        (3, (('A',),))
        """
        trees, lock = self._trees, self._once.lock
        key = tuple(sorted(observed))
        with lock:  # the order of use is bookkeeping too: threads share it
            tree = trees.get(key)
            if tree is not None:
                trees.move_to_end(key)
                return tree

        def room(cost: Cost) -> int:
            """Entries the cached trees keep once the oldest are dropped, as long as the
            new tree's peak and theirs would exceed the limit together."""
            with lock:
                held = sum(t.cached_bytes for t in trees.values()) // ENTRY_BYTES
                while trees and not fits(cost, held=held):
                    held -= trees.popitem(last=False)[1].cached_bytes // ENTRY_BYTES
                return held

        def compile_tree() -> JunctionTree:
            return _trees("compile_tree")(self.network, list(key), self.normalised_tables(),
                                          self.junction_order, room)

        tree = self._once.get(trees, key, compile_tree)
        with lock:
            while (len(trees) > 1
                   and sum(t.cached_bytes for t in trees.values()) > get_memory_limit()):
                trees.popitem(last=False)
        return tree

    def _tree_source(self) -> TreeSource:
        """What the junction tree functions need of this engine (they never call it)."""
        return _trees("TreeSource")(self.network, self.normalised_tables, self.junction_order,
                                    self.junction_tree,
                                    functools.partial(self.posterior_of_cases,
                                                      impossible="nan"))

    @property
    def cached_trees(self) -> tuple[tuple[str, ...], ...]:
        """The observed variables of each junction tree kept, least recently used first."""
        with self._once.lock:
            return tuple(self._trees)

    def junction_order(self) -> list[str]:
        """The elimination order of the network without evidence (computed once; greedy,
        or searched where costly: :mod:`bbn.engines.exact.ordering`): the order junction
        trees start from, offered to large elimination plans too.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").engine.junction_order()
        ['A', 'W', 'B', 'C', 'S']
        """
        def search() -> list[str]:
            parents, cardinality, _ = self._plain_structure()
            return _trees("junction_order")(parents, cardinality, self.network.constraints)

        return self._once.attribute(self, "_junction_order", search)

    def evidence_order(self, observed: Sequence[str]) -> list[str]:
        """The elimination order searched for the graph this evidence leaves (computed once
        per set of observed variables; see :func:`bbn.engines.exact.ordering.evidence_order`),
        offered to large elimination plans.

        Parameters
        ----------
        observed : sequence of str
            The observed variables (their order does not matter).

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").engine.evidence_order(["A", "S"])
        ['B', 'C', 'W']
        """
        key = tuple(sorted(observed))
        def search() -> list[str]:
            parents, cardinality, _ = self._plain_structure()
            return evidence_order(parents, cardinality, key)

        return self._once.get(self._evidence_orders, key, search)

    def normalised_tables(self) -> dict:
        """``{variable: (table with rows scaled to sum to 1, raw row sums or None)}``,
        computed once (see :func:`bbn.engines.exact.clique_building.normalised_tables`).

        Returns
        -------
        dict

        Examples
        --------
        >>> import bbn
        >>> table, sums = bbn.load("models/chair.bn").engine.normalised_tables()["A"]
        >>> table.tolist(), sums
        ([[0.7, 0.3], [0.1, 0.9]], None)
        """
        return self._once.attribute(self, "_normalised",
                                    lambda: _trees("normalised_tables")(self.tables()))

    def _logs(self, plan: Plan) -> list[np.ndarray]:
        """The logs of a plan's tables, each made once when first needed."""
        found = self._log_tables
        logs = []
        for source, table in zip(plan.sources, plan.tables):
            log = found.get(source.variable)
            if log is None:
                with np.errstate(divide="ignore"):
                    log = found[source.variable] = np.log(table)
            logs.append(log)
        return logs

    # -------------------------------------------------------------- questions
    def posterior(self, variables: Sequence[str], evidence: Evidence = NO_EVIDENCE) -> Factor:
        """P(variables | e) as a normalised :class:`Factor` with axes ``variables`` (an
        observed one is one-hot at its state); numbers on Gaussian leaves weigh it.

        Parameters
        ----------
        variables : sequence of str
            The query variables (a joint posterior when several), checked already.
        evidence : Evidence
            State indices (and numbers on Gaussian leaves).

        Returns
        -------
        Factor

        Raises
        ------
        ImpossibleEvidenceError
            When P(e) = 0.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> engine.posterior(["C"], Evidence({"A": 0}, {}, {})).values.round(6).tolist()
        [0.886749, 0.113251]
        """
        variables = list(variables)
        if evidence.values:
            return self._weighted_posterior(variables, evidence)
        discrete = self.discrete
        indices = evidence.states
        free = [v for v in variables if v not in indices]
        plan = discrete.plan(free, list(indices))
        if len(variables) == 1 and free and not fits(plan.cost):
            # One variable never needs more than the junction tree of every posterior
            # (which checks its own cost): answer from it rather than refuse.
            return _trees("posteriors_one")(discrete._tree_source(), evidence.states,
                                            evidence.given)[variables[0]]
        table, _, _ = discrete._execute(plan, indices)
        return posterior_factor(self.network.states, variables, free, evidence, table)

    def posteriors(self, evidence: Evidence = NO_EVIDENCE) -> dict[str, Factor]:
        """P(X | e) for every discrete variable X, by one junction-tree propagation (a
        network with Gaussian leaves: one posterior per variable, weighed by them).

        Parameters
        ----------
        evidence : Evidence

        Returns
        -------
        dict
            ``{variable: Factor}`` in declaration order, observed variables one-hot.

        Raises
        ------
        ImpossibleEvidenceError
            When P(e) = 0.
        MemoryLimitError
            When the tree's peak would exceed the memory limit.

        Examples
        --------
        >>> import bbn
        >>> marginals = bbn.load("models/chair.bn").engine.posteriors(Evidence({"A": 0}, {}, {}))
        >>> round(marginals["C"].to_dict()["T"], 6)
        0.886749
        """
        network = self.network
        if network.gaussian:  # continuous leaves weigh the discrete answer: one query each
            return {v: self.posterior([v], evidence) for v in network.variables
                    if v not in network.gaussian}
        result = _trees("posteriors_one")(self._tree_source(), evidence.states, evidence.given)
        for v in network.auxiliary:  # a compact table's chain: not the model's variables
            del result[v]
        return result

    def probability(self, assigned: Mapping[str, int],
                    evidence: Evidence = NO_EVIDENCE) -> float:
        """P(a | e) = P(a, e) / P(e); 0 for an assignment that contradicts the evidence.

        Parameters
        ----------
        assigned : dict
            ``{variable: state index}``.
        evidence : Evidence
            Discrete evidence (state indices).

        Returns
        -------
        float

        Raises
        ------
        ImpossibleEvidenceError
            When P(e) = 0: no conditional probability is defined.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> round(engine.probability({"C": 0}, Evidence({"A": 0}, {}, {})), 6)
        0.886749
        """
        discrete, states = self.discrete, evidence.states
        marginal, scale = discrete._weight(states) if states else (1.0, 0.0)
        if not marginal > 0:
            raise ImpossibleEvidenceError(evidence.given)
        if any(v in states and states[v] != i for v, i in assigned.items()):
            return 0.0
        joint, joint_scale = discrete._weight({**states, **assigned})
        return joint / marginal * math.exp(joint_scale - scale) if joint else 0.0

    def log_weight(self, states: Mapping[str, int]) -> float:
        """log P(e, c): the evidence ``states`` together with the observations every
        question includes (``constraints`` of the compiled view: a Markov network's factor
        nodes; pass them in ``states``); natural log, exact far below the smallest double
        (P(e) = 1e-4000 gives −9210.34), −inf only when it is 0.

        Parameters
        ----------
        states : dict
            ``{variable: state index}``.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/chair.bn").engine.log_weight({"A": 0}), 6)
        -1.579607
        """
        mantissa, scale = self.discrete._weight(states)
        return math.log(mantissa) + scale if mantissa else -math.inf

    def probability_of_evidence(self, states: Mapping[str, int]) -> float:
        """P(e | c) = Σ over the unobserved variables of the joint at the observed states
        (c: the view's constraints); below about 1e-308 it rounds to 0.0, where
        :meth:`log_probability` gives its logarithm.

        Parameters
        ----------
        states : dict
            ``{variable: state index}`` of discrete variables.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/chair.bn").engine.probability_of_evidence({"A": 0}), 6)
        0.206056
        """
        constraints = self.network.constraints
        mantissa, scale = self.discrete._weight({**constraints, **states})
        if constraints:  # P(e | c) = P(e, c) / P(c)
            total, total_scale = self.discrete._weight(dict(constraints))
            return mantissa / total * math.exp(scale - total_scale) if mantissa else 0.0
        return mantissa * math.exp(scale) if mantissa else 0.0

    def log_probability(self, states: Mapping[str, int]) -> float:
        """log P(e | c) = log P(e, c) − log P(c), c the view's constraints (none for a
        Bayesian network: log P(e)); −inf when it is 0.

        Parameters
        ----------
        states : dict
            ``{variable: state index}`` of discrete variables.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/chair.bn").engine.log_probability({"A": 0}), 6)
        -1.579607
        """
        constraints = self.network.constraints
        log_p = self.log_weight({**constraints, **states})
        if constraints:
            log_c = self.log_weight(dict(constraints))
            return log_p - log_c if log_c > -math.inf else -math.inf
        return log_p

    def map(self, variables: Sequence[str],
            evidence: Evidence = NO_EVIDENCE) -> tuple[dict[str, str], float]:
        """argmax_m P(M = m | e) and its probability (MAP), by max-product elimination
        after summing out the hidden variables.

        Parameters
        ----------
        variables : sequence of str
            The MAP variables M (discrete).
        evidence : Evidence
            Discrete evidence (state indices).

        Returns
        -------
        tuple
            ``({variable: state}, P(M = m | e))``.

        Raises
        ------
        ImpossibleEvidenceError
            When P(e) = 0.

        Examples
        --------
        >>> import bbn
        >>> engine = bbn.load("models/chair.bn").engine
        >>> assignment, p = engine.map(["C", "S"], Evidence({"A": 0}, {}, {}))
        >>> assignment, round(p, 6)
        ({'C': 'T', 'S': 'F'}, 0.837054)
        """
        discrete, indices = self.discrete, evidence.states
        p_evidence, scale = discrete._weight(indices)
        if not p_evidence > 0:
            raise ImpossibleEvidenceError(evidence.given)
        free = [v for v in variables if v not in indices]
        # No d-separation pruning here: max Σ P(m, h, e) must be divided by the full P(e).
        plan = discrete.plan([], list(indices), maximize=free, prune=False)
        best, best_scale, choices = discrete._execute(plan, indices)
        chosen = trace_back(choices)
        states = self.network.states
        assignment = {v: states[v][indices[v] if v in indices else chosen[v]]
                      for v in variables}
        return assignment, float(best) / p_evidence * math.exp(float(best_scale) - scale)

    def mpe(self, evidence: Evidence = NO_EVIDENCE) -> tuple[dict[str, str], float]:
        """The most probable state of every unobserved discrete variable given the
        evidence, and its probability (:meth:`map` of them all).

        Parameters
        ----------
        evidence : Evidence
            Discrete evidence (state indices).

        Examples
        --------
        >>> import bbn
        >>> assignment, p = bbn.load("models/chair.bn").engine.mpe(Evidence({"A": 0}, {}, {}))
        >>> sorted(assignment.items())[:2], round(p, 6)
        ([('B', 'T'), ('C', 'T')], 0.479404)
        """
        network = self.network
        return self.map([v for v in network.variables if v not in evidence.states
                         and v not in network.gaussian and v not in network.auxiliary],
                        evidence)

    # ---------------------------------------------------------- internals
    def _weighted_posterior(self, variables: list[str], evidence: Evidence) -> Factor:
        """P(Q | e, x) ∝ Σ_h P(Q, h | e) · Π_g p(x_g | pa_g): one case of
        :meth:`_weighted_cases`, with the errors of a single question."""
        network = self.network
        states = evidence.states
        hidden = continuous.hidden_parents(network, variables, list(states),
                                           list(evidence.values))
        query = variables + hidden
        discrete = Evidence(states, {}, {v: s for v, s in evidence.given.items()
                                         if v in states})
        joint = self.posterior(query, discrete)
        weights, top = continuous.weigh(
            network, query, joint.values[np.newaxis],
            {v: np.array([i]) for v, i in states.items()},
            {g: np.array([x]) for g, x in evidence.values.items()})
        if not np.isfinite(top[0]):
            raise ImpossibleEvidenceError(evidence.given)
        values = weights[0].sum(axis=tuple(range(len(variables), len(query))))
        return Factor(variables, {v: network.states[v] for v in variables},
                      values / values.sum())

    def _execute(self, plan: Plan, evidence: Mapping[str, int | np.ndarray], cases: int = 1):
        """(table, log scale, MAP choices): the plan's result is table × exp(log scale)."""
        check_memory(plan.cost, cases)
        return evaluate(plan, evidence, self._logs)

    def _weight(self, indices: Mapping[str, int]) -> tuple[float, float]:
        """P(e) as (mantissa, log scale): P(e) = mantissa × exp(scale), mantissa 0 iff
        P(e) = 0."""
        table, scale, _ = self._execute(self.plan([], list(indices), prune=False), indices)
        return float(table), float(scale)


"""The Bayesian network: named discrete variables on a DAG, one table per variable.

    P(X1, ..., Xn) = Π_i P(Xi | parents(Xi))

Each variable keeps its ordered states, an optional description, the ordered tuple of
its parents (the one parent list: arcs parent → child are read from it) and its
conditional probability table, a numpy array of shape ``(|parent 1|, ..., |parent k|, |X|)``
whose last axis sums to 1, in one typed record (:class:`bbn.model.variables.Variable`;
no networkx: it costs 0.2 s to import, a third of a ``bbn query``); ``Network.graph``
builds a read-only networkx copy on demand. The methods come in one concept a module:
the arcs (:mod:`bbn.model.dag`), the tables (:mod:`bbn.model.conditional_tables`), the
Gaussian leaves (:mod:`bbn.model.gaussian_leaves`); this one builds, compiles and asks.
Explanations, independence, information, prediction and the explorer are functions over
a network: ``bbn.explain(net, query)``, ``bbn.is_independent(net, x, y)``, ...

Every change makes a new *revision*. Inference never reads the records: it reads the
immutable view of the current revision (``net.compiled()``, :mod:`bbn.views.compiled`) through
that revision's engine (``net.engine``, :class:`bbn.Engine`), which keeps what it compiles.

>>> net = Network("rain")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
>>> net.add_variable("Wet", ["yes", "no"], parents=["Rain"],
...                  table={"yes": [0.9, 0.1], "no": [0.2, 0.8]})
>>> round(net.query("P(Rain=yes | Wet=yes)"), 4)
0.5294
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from bbn.core.errors import ModelError
from bbn.core.tables import (  # noqa: F401  (ROW_SUM_TOLERANCE, ROUNDING_PER_ENTRY: re-exported)
    ROUNDING_PER_ENTRY,
    ROW_SUM_TOLERANCE,
)
from bbn.engines.exact.engine import Engine
from bbn.model.canonical import chained_view
from bbn.model.causal_questions import CausalQuestions
from bbn.model.compact_tables import CompactTables
from bbn.model.conditional_tables import ConditionalTables
from bbn.model.dag import DAG, assembled
from bbn.model.gaussian_leaves import GaussianLeaves, gaussian_records
from bbn.model.markov import MarkovNetwork
from bbn.model.regressions import linear_view
from bbn.model.softmax_nodes import SoftmaxNodes
from bbn.model.variables import PackedTables, Variable, require, unpacked
from bbn.questions import dispatch
from bbn.views.compiled import CompiledNetwork, GaussianLeaf
from bbn.views.factor_graph import FactorGraph

_record = tuple.__new__  # a Gaussian's record when compiling (faster than _make)

__all__ = ["Network", "PackedTables"]


class Network(DAG, ConditionalTables, GaussianLeaves, CompactTables, CausalQuestions,
              SoftmaxNodes):
    """A discrete Bayesian network.

    Variables keep the order in which they were added (``variables``), parents keep the
    order in which they were given (that order is the axis order of the table). The
    methods on arcs (:mod:`bbn.model.dag`), tables (:mod:`bbn.model.conditional_tables`)
    and Gaussian leaves (:mod:`bbn.model.gaussian_leaves`) live in modules of their own.

    Parameters
    ----------
    name : str, default "network"
        The network's name (what files and messages call it).

    Examples
    --------
    >>> net = Network("rain")
    >>> net.add_variable("Rain", ["yes", "no"], table=[0.2, 0.8])
    >>> net
    Network('rain', 1 variables, 0 arcs)
    """

    def __init__(self, name: str = "network") -> None:
        self.name = name
        # variable → its record (states, description, parents, table, ...), in order
        self._nodes: dict[str, Variable] = {}
        # variable → its children, in the order the arcs were added (a dict as ordered set)
        self._children: dict[str, dict[str, None]] = {}
        # Every change bumps the revision and drops the compiled view and its engine.
        self._revision = 0
        self._compiled: CompiledNetwork | None = None
        self._answering = None  # bbn.questions.dispatch caches what answers this revision here

    def __getstate__(self) -> dict:
        """What a pickle or deep copy keeps: the model, not the caches of its revision
        (the compiled view, engines, junction trees and their locks are made again on the
        first question), so a model crosses to another process, a Dask worker, as its
        tables."""
        return {**self.__dict__, "_compiled": None, "_answering": None}

    # ------------------------------------------------------------- building
    def add_variable(self, name: str, states: Sequence, description: str | None = None,
                     parents: Sequence[str] = (), table=None, normalize: bool = False) -> None:
        """Add a discrete variable; optionally its parents and its table at once.

        ``states`` are stored as strings, in order; they must be distinct and non-empty.

        Parameters
        ----------
        name : str
            The new variable's name (not yet in the network).
        states : sequence
            Its states, in order (stored as strings).
        description : str, optional
            A free-text description.
        parents : sequence of str, optional
            Its parents, in the order of the table's axes.
        table : array_like, dict or Factor, optional
            Its table, as :meth:`set_cpt` takes it.
        normalize : bool, default False
            Rescale every row of ``table`` to sum to 1.

        Raises
        ------
        ModelError
            For a duplicate name or state, no states, an unknown parent, a cycle or a bad
            table; the network is then left unchanged.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("Rain", ["yes", "no"], "it rains", table=[0.2, 0.8])
        >>> net.states("Rain"), net.description("Rain")
        (('yes', 'no'), 'it rains')
        """
        name = self._new_name(name)
        states = tuple(map(str, states))
        if not states:
            raise ModelError(f"variable {name!r} has no states")
        duplicated = (sorted({s for s in states if states.count(s) > 1})  # quadratic: only
                      if len(set(states)) != len(states) else [])  # when there is a duplicate
        if duplicated:
            raise ModelError(f"variable {name!r} lists state(s) {duplicated} more than once")
        if "" in states:
            raise ModelError(f"variable {name!r} has an empty state name")
        def fill() -> None:
            if table is not None:
                self.set_cpt(name, table, normalize=normalize)

        self._add_node(name, states, description, parents, fill)

    @classmethod
    def assemble(cls, name: str, states: Mapping[str, Sequence],
                 parents: Mapping[str, Sequence[str]] | None = None,
                 tables: Mapping[str, object] | PackedTables | None = None,
                 descriptions: Mapping[str, str | None] | None = None,
                 normalize: bool = False) -> Network:
        """A whole network at once: ``states`` names the variables, in order, with their
        states; ``parents``, ``tables`` (or :class:`PackedTables`) and ``descriptions`` give
        them for the variables that have them, in any order; ``normalize`` rescales every
        row of every table (as set_cpt does).

        The result and the checks are those of add_variable for every variable, then
        set_parents, set_cpt and set_description for each, but the graph is built once,
        acyclicity is checked once (and only when an arc goes against the order of
        ``states``) and the tables are validated together (see :meth:`set_cpts`): readers
        of whole files build networks this way. On a problem, or with tables that are not
        numpy arrays, those calls are made one at a time, so the error is the one they
        raise.

        Parameters
        ----------
        name : str
            The network's name.
        states : mapping
            ``{variable: its states}``, in declaration order.
        parents : mapping, optional
            ``{variable: its parents}``.
        tables : mapping or PackedTables, optional
            ``{variable: its table}``, as :meth:`set_cpt` takes them.
        descriptions : mapping, optional
            ``{variable: its description}``.
        normalize : bool, default False
            Rescale every row of every table to sum to 1.

        Returns
        -------
        Network

        Raises
        ------
        ModelError
            The first problem that add_variable, set_parents, set_cpt or set_description
            would raise.

        Examples
        --------
        >>> net = Network.assemble("rain", {"Wet": ["yes", "no"], "Rain": ["yes", "no"]},
        ...                        parents={"Wet": ["Rain"]},
        ...                        tables={"Wet": [[0.9, 0.1], [0.2, 0.8]], "Rain": [0.2, 0.8]})
        >>> net.variables, net.parents("Wet")
        (('Wet', 'Rain'), ('Rain',))
        """
        parents, tables, descriptions = parents or {}, tables or {}, descriptions or {}
        net = cls(name)
        built = assembled(states, parents, tables, descriptions, normalize)
        if built:
            net._nodes, net._children = built
            return net
        for variable, names in states.items():
            net.add_variable(variable, names)
        for variable, given in parents.items():
            net.set_parents(variable, given)
        for variable, table in unpacked(net._nodes, tables).items():
            net.set_cpt(variable, table, normalize=normalize)
        for variable, description in descriptions.items():
            net.set_description(variable, description)
        return net

    def _new_name(self, name) -> str:
        name = str(name)
        if not name:
            raise ModelError("a variable needs a non-empty name")
        if name in self._nodes:
            raise ModelError(f"variable {name!r} is declared twice")
        return name

    def _add_node(self, name: str, states: tuple, description, parents, fill,
                  kind: str | None = None) -> None:
        """Add the node with every attribute, its parents, then ``fill()`` its table;
        all or nothing."""
        self._nodes[name] = Variable(states, description, kind=kind)
        self._children[name] = {}
        self._changed()
        try:
            if parents:
                self.set_parents(name, parents)
            fill()
        except BaseException:
            self._drop(name)
            raise

    def set_description(self, variable: str, description: str | None) -> None:
        """Set (or with None, remove) the description of ``variable``.

        Parameters
        ----------
        variable : str
            The variable.
        description : str or None
            Its new description.

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"]})
        >>> net.set_description("A", "the alarm")
        >>> net.description("A")
        'the alarm'
        """
        self._require(variable).description = description
        self._changed()

    # ------------------------------------------------------------ inspecting
    @property
    def variables(self) -> tuple[str, ...]:
        """The variables, in the order they were added."""
        return tuple(self._nodes)

    def __contains__(self, variable: object) -> bool:
        """``"Rain" in net``: whether the network has that variable."""
        try:
            return variable in self._nodes
        except TypeError:  # unhashable: not a name
            return False

    @property
    def revision(self) -> int:
        """How many changes the network has seen: every method that changes it (a
        variable, an arc, a table, a description) adds one.

        >>> net = Network()
        >>> net.add_variable("A", ["a", "b"], table=[0.5, 0.5])
        >>> net.revision
        2
        """
        return self._revision

    def _changed(self) -> None:
        """A new revision: the compiled view and the engine built on it are dropped."""
        self._revision += 1
        self._compiled = None
        self._answering = None
        self._regressions = None  # add_gaussian_variable and set_gaussian keep them

    def compiled(self) -> CompiledNetwork:
        """The immutable view of this revision that inference engines read (built once
        per revision): variables, states, parents, cardinalities, tables, which tables
        have no zero, and the Gaussian leaves with their means and variances.

        Returns
        -------
        CompiledNetwork

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"]}, tables={"A": [0.5, 0.5]})
        >>> network = net.compiled()
        >>> network.states["A"], network.zero_free["A"], net.compiled() is network
        (('a', 'b'), True, True)
        """
        compiled = self._compiled
        if compiled is None:  # a linear Gaussian network: from its regressions' arrays
            compiled = self._compiled = linear_view(self)
        if compiled is None:
            states, parents, cardinality, tables, zero_free, gaussian = {}, {}, {}, {}, {}, {}
            compact = {}
            # one pass over the node attributes: a lookup per variable costs more
            for v, node in self._nodes.items():
                states[v] = node.states
                parents[v] = node.parents
                cardinality[v] = len(node.states)
                if node.kind:  # its record as if every parent were continuous
                    gaussian[v] = _record(GaussianLeaf, ((), node.table, node.parents))
                else:
                    tables[v] = node.table
                    zero_free[v] = node.positive
                    if node.compact is not None:
                        compact[v] = node.compact
            if gaussian and tables:  # discrete variables: each Gaussian's parents by kind
                gaussian = gaussian_records(self._nodes, gaussian)
            compiled = CompiledNetwork(
                self._revision, tuple(self._nodes), *map(MappingProxyType, (
                    states, parents, cardinality, tables, zero_free, gaussian)))
            if compact:  # large noisy tables: answered through their chains
                compiled = chained_view(compiled, compact)
                softmax = {v: c for v, c in compact.items() if c.kind == "softmax"}
                if softmax:  # discrete variables with continuous parents
                    compiled = dataclasses.replace(compiled, softmax=MappingProxyType(softmax))
            self._compiled = compiled
        return compiled

    @property
    def engine(self) -> Engine:
        """The inference engine of this revision (:class:`bbn.Engine`): it keeps the
        compiled plans and junction trees, so questions after the first are fast; any
        change to the network makes a new one.

        >>> net = Network.assemble("n", {"A": ["a", "b"]}, tables={"A": [0.2, 0.8]})
        >>> net.engine is net.engine, net.engine.posterior(["A"]).to_dict()["b"]
        (True, 0.8)
        """
        return dispatch.engine(self)

    def states(self, variable: str) -> tuple[str, ...]:
        """The states of ``variable``, in order.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        tuple of str

        Raises
        ------
        ModelError
            For an unknown variable (with suggestions).

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").states("C")
        ('T', 'F')
        """
        return self._require(variable).states

    def cardinality(self, variable: str) -> int:
        """The number of states of ``variable``, |X|.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        int

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").cardinality("B")
        2
        """
        return len(self.states(variable))

    def description(self, variable: str) -> str | None:
        """The description of ``variable``, or None.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        str or None

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").description("A")
        'back aches'
        """
        return self._require(variable).description

    def factor_graph(self) -> FactorGraph:
        """The view the approximate engines read: one factor per table, by index.

        Returns
        -------
        FactorGraph

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").factor_graph().scopes[3]
        (0, 1, 3)
        """
        return dispatch.factor_graph(self)

    def to_markov(self) -> MarkovNetwork:
        """The same distribution as a Markov network, one factor per table:
        φ_X = P(X | Pa(X)), so Z = 1 and every answer is the same.

        Returns
        -------
        MarkovNetwork

        Raises
        ------
        ModelError
            For a Gaussian leaf or a variable without a table.

        Examples
        --------
        >>> import bbn
        >>> markov = bbn.load("models/chair.bn").to_markov()
        >>> markov, round(markov.probability({"C": "T"}, {"A": "T"}), 6)
        (MarkovNetwork('Back ache', 5 variables, 5 factors), 0.886749)
        """
        markov = MarkovNetwork(self.name)
        for v in self.variables:
            if self.is_gaussian(v):
                raise ModelError(f"{v!r} is a Gaussian leaf: Markov networks here are discrete")
            markov.add_variable(v, self.states(v))
        for v in self.variables:
            markov.add_factor([*self.parents(v), v], self.cpt_array(v))
        return markov

    # ------------------------------------------------------------- inference
    def query(self, text: str, method="exact"):
        """Answer a query written in the query language (see ``docs/query.md``).

        ``P(C | A=T)`` → :class:`Factor`; ``P(C=T | A=T)`` → float;
        ``MAP(C, S | A=T)`` and ``MPE(A=T)`` → (assignment, probability).

        Parameters
        ----------
        text : str
            The query, e.g. ``"P(C | A=T)"``.
        method : str or method value, default "exact"
            ``"exact"``, or an approximate method: ``"lbp"``, ``"lw"``, ``"is"``,
            ``"gibbs"`` or a value such as ``bbn.Gibbs(samples=10_000, seed=1)`` (see
            ``docs/approximate.md``); approximate answers carry standard errors.

        Returns
        -------
        Factor, float or tuple
            As above, by the kind of query.

        Raises
        ------
        QueryError
            For a query that does not parse, or names an unknown variable or state.
        ImpossibleEvidenceError
            When P(evidence) = 0.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/chair.bn").query("P(C=T | A=T)"), 6)
        0.886749
        """
        return dispatch.ask(self, text, method)

    def posterior(self, variables: Sequence[str] | str, evidence=None,
                  impossible: str = "raise", method="exact", do=None, soft=None):
        """P(variables | evidence) as a normalised :class:`Factor` (joint when several).

        With a :class:`pandas.DataFrame` as ``evidence`` (one case per row, missing
        cells allowed) the answer for every row comes from one batched elimination, as
        a DataFrame indexed like it, a column per state (per joint state for several
        variables; a Dask DataFrame gives a Dask DataFrame, one batched elimination per
        partition, ``docs/scale.md``); a row
        with impossible evidence raises ImpossibleEvidenceError, or with
        ``impossible="nan"`` is NaN (a warning counts such rows). See :meth:`bbn.Engine.posterior`.
        Continuous (Gaussian) variables answer a :class:`bbn.Normal` (a normal or a mixture:
        mean, variance, covariance, components, pdf, cdf; ``docs/continuous.md``).

        Parameters
        ----------
        variables : str or sequence of str
            The query variables.
        evidence : dict, pandas.DataFrame or Dask DataFrame, optional
            ``{variable: state}``, or one case per row.
        impossible : {"raise", "nan"}
            What a batch does with a case whose evidence is impossible.
        method : str or method value, default "exact"
            ``"exact"``, or an approximate method: ``"lbp"``, ``"lw"``, ``"is"``,
            ``"gibbs"`` or a value such as ``bbn.Gibbs(samples=10_000, seed=1)`` (see
            ``docs/approximate.md``); approximate answers carry standard errors.
        do, soft : dict, optional
            Interventions (``docs/causal.md``) and soft findings by Jeffrey's rule
            (``{variable: {state: probability}}``, ``docs/evidence.md``); with a DataFrame,
            ``soft`` applies to every row, each row's cells its other evidence.

        Returns
        -------
        Factor, or for a DataFrame a DataFrame (for a Dask DataFrame a Dask DataFrame)

        Raises
        ------
        QueryError
            For an unknown variable or state.
        ImpossibleEvidenceError
            When P(evidence) = 0.

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").posterior("C", {"A": "T"}).values.round(6).tolist()
        [0.886749, 0.113251]
        """
        return dispatch.posterior(self, variables, evidence, impossible, method, do, soft)

    def posteriors(self, evidence=None, impossible: str = "raise", method="exact", do=None,
                   soft=None) -> dict:
        """P(X | evidence) for every variable X, from one junction-tree propagation.

        Returns ``{variable: Factor}``; with a :class:`pandas.DataFrame` as ``evidence``
        (one case per row), ``{variable: array of shape (N, |X|)}`` (``impossible="nan"``:
        NaN rows for impossible cases, as in :meth:`posterior`).

        Parameters
        ----------
        evidence : dict or pandas.DataFrame, optional
            ``{variable: state}``, or one case per row.
        impossible : {"raise", "nan"}
            What a batch does with a case whose evidence is impossible.
        method : str or method value, default "exact"
            ``"exact"``, or an approximate method: ``"lbp"``, ``"lw"``, ``"is"``,
            ``"gibbs"`` or a value such as ``bbn.Gibbs(samples=10_000, seed=1)`` (see
            ``docs/approximate.md``); approximate answers carry standard errors.

        Returns
        -------
        dict

        Examples
        --------
        >>> import bbn
        >>> marginals = bbn.load("models/chair.bn").posteriors({"A": "T"})
        >>> round(marginals["C"].to_dict()["T"], 6)
        0.886749
        """
        return dispatch.posteriors(self, evidence, impossible, method, do, soft)

    def probability(self, assignment: Mapping[str, str],
                    evidence: Mapping[str, str] | None = None, method="exact", do=None,
                    soft=None) -> float:
        """P(assignment | evidence); with no evidence, the probability of the assignment.

        Parameters
        ----------
        assignment, evidence : dict
            ``{variable: state}`` of discrete variables.
        method : str or method value, default "exact"
            ``"exact"``, or an approximate method: ``"lbp"``, ``"lw"``, ``"is"``,
            ``"gibbs"`` or a value such as ``bbn.Gibbs(samples=10_000, seed=1)`` (see
            ``docs/approximate.md``); approximately, one variable's state.

        Returns
        -------
        float

        Raises
        ------
        ImpossibleEvidenceError
            When P(evidence) = 0.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> round(net.probability({"C": "T"}, {"A": "T"}), 6), round(net.probability({"A": "T"}), 6)
        (0.886749, 0.206056)
        """
        return dispatch.probability(self, assignment, evidence, method, do, soft)

    def log_probability(self, evidence: Mapping[str, str], do=None, soft=None) -> float:
        """log P(evidence), natural logarithm: exact also below 1e-308, where
        :meth:`probability` rounds to 0; −inf only when P(evidence) = 0 exactly.

        Parameters
        ----------
        evidence : dict
            ``{variable: state}`` of discrete variables.

        Returns
        -------
        float

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/chair.bn").log_probability({"A": "T"}), 6)
        -1.579607
        """
        return dispatch.log_probability(self, evidence, do, soft)

    def map(self, variables: Sequence[str] | str, evidence: Mapping[str, str] | None = None,
            method="exact", do=None, soft=None, impossible: str = "raise"):
        """The most probable joint state of ``variables`` given ``evidence``.

        Returns ``(assignment, P(assignment | evidence))``.

        Parameters
        ----------
        variables : str or sequence of str
            The MAP variables (discrete).
        evidence : dict, optional
            ``{variable: state}`` of discrete variables.
        method : str or method value, default "exact"
            ``"exact"``, or an approximate method: ``"lw"``, ``"is"``, ``"gibbs"`` (the
            most frequent weighted joint state, with its standard error and its margin
            over the runner-up) or ``"lbp"`` (a search on Bethe estimates); see
            ``docs/approximate.md``.
        impossible : {"raise", "nan"}, default "raise"
            For a DataFrame of cases: a case with P(e) = 0 raises, naming its row, or
            (``"nan"``) its row has no states (missing) and a NaN probability, and a
            ``RuntimeWarning`` counts such rows. One case always raises.

        Returns
        -------
        tuple
            ``({variable: state}, probability)``; approximately a
            :class:`bbn.engines.approximate.result.MapEstimate` (the same pair, with
            ``standard_error``, ``runner_up``, ``margin`` and ``report``). For a
            :class:`pandas.DataFrame` of cases (one per row; cells of likelihoods
            ``{state: weight}`` allowed), a DataFrame indexed like it: a column per
            variable (categorical states) and ``probability``.

        Raises
        ------
        ImpossibleEvidenceError
            When P(evidence) = 0 (in a batch, with ``impossible="raise"``).

        Examples
        --------
        >>> import bbn
        >>> assignment, p = bbn.load("models/chair.bn").map(["C", "S"], {"A": "T"})
        >>> assignment, round(p, 6)
        ({'C': 'T', 'S': 'F'}, 0.837054)
        """
        return dispatch.map(self, variables, evidence, method, do, soft, impossible)

    def mpe(self, evidence: Mapping[str, str] | None = None, method="exact", do=None,
            soft=None, impossible: str = "raise"):
        """The most probable state of every unobserved variable given ``evidence``.

        Parameters
        ----------
        evidence : dict, optional
            ``{variable: state}`` of discrete variables.
        method : str or method value, default "exact"
            ``"exact"``, or ``"lbp"`` (max-product loopy belief propagation and a local
            search) or a sampler, ``"lw"``, ``"is"``, ``"gibbs"`` (the best-scoring
            sample and the same local search), by name or as a value with its settings,
            for networks too large for exact inference (see ``docs/approximate.md``).
        impossible : {"raise", "nan"}, default "raise"
            For a DataFrame of cases, as in :meth:`map`.

        Returns
        -------
        tuple
            ``({variable: state}, probability)``, as :meth:`map`; approximately an
            assignment no single change improves, and P(x | e) with P(e) estimated. For
            a DataFrame of cases, a DataFrame as :meth:`map`'s, a column per variable
            that some case does not observe.

        Examples
        --------
        >>> import bbn
        >>> assignment, p = bbn.load("models/chair.bn").mpe({"A": "T"})
        >>> assignment, round(p, 6)
        ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
        """
        return dispatch.mpe(self, evidence, method, do, soft, impossible)

    # ------------------------------------------------------------- comparing
    def copy(self) -> Network:
        """An independent copy: changing one does not change the other.

        Returns
        -------
        Network

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> other = net.copy()
        >>> other == net, other is net
        (True, False)
        """
        other = Network(self.name)
        other._nodes = {v: node.copy() for v, node in self._nodes.items()}
        other._children = {v: dict(children) for v, children in self._children.items()}
        if self._regressions is not None:
            other._regressions = self._regressions.copy()
        return other

    def __eq__(self, other: object) -> bool:
        """Same name, variables (in order), states, descriptions, parents and tables; a
        variable with a compact table on both sides (noisy-OR, softmax...) compares its
        numbers (a large one keeps no full table), one compact on one side only compares
        the full tables (a file without compact tables reads back equal)."""
        if not isinstance(other, Network):
            return NotImplemented
        if self.name != other.name or self.variables != other.variables:
            return False
        for v in self.variables:
            a, b = self._nodes[v], other._nodes[v]
            if (a.states, a.description, a.parents) != (b.states, b.description, b.parents):
                return False
            if a.compact is not None and b.compact is not None:
                if not a.compact.same_as(b.compact):
                    return False
                continue
            if (a.table is None) != (b.table is None):
                return False
            if a.table is not None and not np.array_equal(a.table, b.table):
                return False
        return True

    __hash__ = None

    def __repr__(self) -> str:
        return (f"Network({self.name!r}, {len(self.variables)} variables, "
                f"{len(self.arcs())} arcs)")


    def _require(self, variable: str, context: str = "") -> Variable:
        """The record of ``variable``; ModelError with did-you-mean for an unknown name."""
        return require(self._nodes, variable, context)

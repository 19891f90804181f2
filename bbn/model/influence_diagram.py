"""Influence diagrams: a Bayesian network with decision and utility nodes.

    MEU = max_δ Σ_x Π_{X chance} P(x | pa(X)) · Σ_u U_u(pa(u))      D = δ_D(what D knows)

An :class:`InfluenceDiagram` is a :class:`bbn.Network` whose variables are chance
variables (a table each) and *decisions* (states = the options, no table: their parents
are the information arcs, what is known when the decision is taken), with *utility* nodes
beside them: each a real-valued table over its parents, no states; several utilities add
up. It is a subclass, so a chance-only network pays nothing, and every chance question
(``query``, ``posterior``...) works on a diagram too: a decision not given as evidence is
read as chosen at random, one given is taken (``P(Oil | Drill=yes)`` is the intervention,
since a decision's choice does not depend on its parents' probabilities). Utilities are
not variables: they are in ``utilities``, not in ``variables``.

``solve`` gives the optimal policies and the maximum expected utility (MEU),
``expected_utility`` the EU of one option, ``evpi`` the expected value of perfect
information, in utility units (not :func:`bbn.value_of_information`, which is mutual
information in bits).

>>> net = InfluenceDiagram("umbrella")
>>> net.add_variable("Rain", ["yes", "no"], table=[0.3, 0.7])
>>> net.add_decision("Umbrella", ["take", "leave"])
>>> net.add_utility("Comfort", ["Rain", "Umbrella"], [[70, 0], [20, 100]])
>>> solution = net.solve()
>>> solution.meu, solution.best()
(70.0, {'Umbrella': 'leave'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.core.factor import Factor
from bbn.model.network import Network
from bbn.questions import dispatch
from bbn.views.decision_network import DecisionNetwork, UtilityTable, temporal_order

__all__ = ["InfluenceDiagram", "expected_value_of_information"]


class InfluenceDiagram(Network):
    """A Bayesian network with decisions and utilities (see the module).

    Parameters
    ----------
    name : str, default "network"
        The diagram's name.

    Examples
    --------
    >>> net = InfluenceDiagram("choice")
    >>> net.add_decision("D", ["a", "b"], "what to do")
    >>> net.add_utility("U", ["D"], [1.0, 3.0])
    >>> net, net.decisions, net.utilities
    (InfluenceDiagram('choice', 1 variables, 0 arcs, 1 decisions, 1 utilities), ('D',), ('U',))
    """

    def __init__(self, name: str = "network") -> None:
        super().__init__(name)
        self._decisions: dict[str, None] = {}
        self._utilities: dict[str, UtilityTable] = {}
        self._utility_descriptions: dict[str, str | None] = {}

    # ------------------------------------------------------------- building
    def add_decision(self, name: str, options: Sequence, description: str | None = None,
                     parents: Sequence[str] = ()) -> None:
        """Add a decision: its options (states, in order) and what is known when it is
        taken (its parents: the information arcs).

        Parameters
        ----------
        name : str
            The new decision's name.
        options : sequence
            Its options (stored as strings; distinct, non-empty).
        description : str, optional
            A free-text description.
        parents : sequence of str, optional
            The chance variables and decisions known when it is taken.

        Raises
        ------
        ModelError
            As :meth:`add_variable`: a duplicate name or option, an unknown parent, a cycle.

        Examples
        --------
        >>> net = InfluenceDiagram()
        >>> net.add_variable("Result", ["+", "-"], table=[0.5, 0.5])
        >>> net.add_decision("Treat", ["yes", "no"], parents=["Result"])
        >>> net.parents("Treat"), net.is_decision("Treat")
        (('Result',), True)
        """
        self.add_variable(name, options, description)
        self._decisions[str(name)] = None
        try:
            if parents:
                self.set_parents(name, parents)
        except BaseException:
            self.remove_variable(name)
            raise

    def add_utility(self, name: str, parents: Sequence[str], table,
                    description: str | None = None) -> None:
        """Add a utility node: U(pa) for every configuration of its parents.

        Parameters
        ----------
        name : str
            The utility's name (not a variable's).
        parents : sequence of str
            The chance variables and decisions it depends on, in the order of the
            table's axes.
        table : array_like, dict or Factor
            Numbers of shape ``(|P1|, ..., |Pk|)`` (nested lists, the last parent
            fastest), ``{(p1 state, ..., pk state): u}``, or a :class:`bbn.Factor` over
            the parents.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a taken name, an unknown or repeated parent, a wrong size or a number
            that is not finite.

        Examples
        --------
        >>> net = InfluenceDiagram()
        >>> net.add_decision("D", ["a", "b"])
        >>> net.add_utility("U", ["D"], {"a": 1, "b": -2})
        >>> net.utility("U").values.tolist()
        [1.0, -2.0]
        """
        name = self._new_name(name)
        parents = tuple(str(p) for p in parents)
        for p in parents:
            self._require(p, f" (named as a parent of the utility {name!r})")
        if len(set(parents)) != len(parents):
            raise ModelError(f"utility {name!r} lists a parent twice: {list(parents)}")
        array = self._utility_array(name, parents, table)
        array.setflags(write=False)
        self._utilities[name] = UtilityTable(parents, array)
        self._utility_descriptions[name] = description
        self._changed()

    def _utility_array(self, name: str, parents: tuple[str, ...], table) -> np.ndarray:
        shape = tuple(len(self.states(p)) for p in parents)
        if isinstance(table, Factor):
            if set(table.variables) != set(parents):
                raise ModelError(f"the factor given for utility {name!r} is over "
                                 f"{list(table.variables)}, not its parents {list(parents)}")
            table = table.transpose(parents).reorder_states(
                {p: self.states(p) for p in parents}).values
        elif isinstance(table, Mapping):
            array = np.full(shape, np.nan)
            for key, value in table.items():
                key = key if isinstance(key, tuple) else (key,)
                if len(key) != len(parents):
                    raise ModelError(f"key {key} of utility {name!r} needs one state for "
                                     f"each parent {list(parents)}")
                index = []
                for p, s in zip(parents, map(str, key)):
                    if s not in self.states(p):
                        raise ModelError(f"utility {name!r}: {p!r} has no state {s!r}"
                                         f"{suggest(s, self.states(p))}")
                    index.append(self.states(p).index(s))
                array[tuple(index)] = value
            if np.isnan(array).any():
                missing = np.argwhere(np.isnan(array))[0]
                given = ", ".join(f"{p}={self.states(p)[i]}" for p, i in zip(parents, missing))
                raise ModelError(f"utility {name!r} has no value for {given}")
            table = array
        try:
            array = np.array(table, dtype=float)
        except (TypeError, ValueError) as error:
            raise ModelError(f"the table of utility {name!r} is not numeric: {error}") from None
        if array.size != int(np.prod(shape)):
            raise ModelError(f"the table of utility {name!r} over {list(parents)} needs "
                             f"{int(np.prod(shape))} numbers, got {array.size}")
        if not np.all(np.isfinite(array)):
            raise ModelError(f"the table of utility {name!r} holds a non-finite number")
        return array.reshape(shape)

    def _new_name(self, name) -> str:
        name = super()._new_name(name)
        if name in getattr(self, "_utilities", ()):
            raise ModelError(f"{name!r} is already a utility")
        return name

    def set_cpt(self, variable: str, table, normalize: bool = False) -> None:
        """As :meth:`bbn.Network.set_cpt`; a decision has no table (ModelError)."""
        if variable in self._decisions:
            raise ModelError(f"{variable!r} is a decision: it has options and a policy, "
                             "not a probability table")
        super().set_cpt(variable, table, normalize)

    @property
    def is_complete(self) -> bool:
        """True when every chance variable has a table (a decision has a policy instead)."""
        return all(node.table is not None for v, node in self._nodes.items()
                   if v not in self._decisions)

    def validate(self) -> list[str]:
        """Every problem of the diagram, as messages (a decision needs no table).

        >>> net = InfluenceDiagram()
        >>> net.add_decision("D", ["a", "b"])
        >>> net.validate()
        []
        """
        return [p for p in super().validate()
                if not any(p == f"variable {d!r} has no table" for d in self._decisions)]

    def free_parameters(self) -> int:
        """Σ (|X| − 1) · Π |parents| over the chance variables (decisions have no table).

        >>> InfluenceDiagram().free_parameters()
        0
        """
        return sum((len(node.states) - 1) * int(np.prod(
            [len(self._nodes[p].states) for p in node.parents]))
            for v, node in self._nodes.items() if v not in self._decisions)

    def remove_variable(self, variable: str) -> None:
        """As :meth:`bbn.Network.remove_variable`; refused while a utility depends on it."""
        for name, utility in self._utilities.items():
            if variable in utility.parents:
                raise ModelError(f"the utility {name!r} depends on {variable!r}: remove it "
                                 "first (remove_utility)")
        super().remove_variable(variable)
        self._decisions.pop(variable, None)

    def remove_utility(self, name: str) -> None:
        """Remove the utility ``name``.

        >>> net = InfluenceDiagram()
        >>> net.add_utility("U", [], 5.0)
        >>> net.remove_utility("U"); net.utilities
        ()
        """
        if name not in self._utilities:
            raise ModelError(f"unknown utility {name!r}{suggest(str(name), self._utilities)}")
        del self._utilities[name]
        del self._utility_descriptions[name]
        self._changed()

    # ------------------------------------------------------------ inspecting
    @property
    def decisions(self) -> tuple[str, ...]:
        """The decisions in their temporal order (an order of the graph; decisions that no
        path orders keep the order they were added in)."""
        return self.compiled().decisions

    @property
    def utilities(self) -> tuple[str, ...]:
        """The utility nodes, in the order they were added."""
        return tuple(self._utilities)

    def is_decision(self, variable: str) -> bool:
        """Whether ``variable`` is a decision."""
        self._require(variable)
        return variable in self._decisions

    def utility_parents(self, name: str) -> tuple[str, ...]:
        """The parents of the utility ``name``, in the order of its table's axes."""
        return self._utility(name).parents

    def utility_description(self, name: str) -> str | None:
        """The description of the utility ``name``, or None."""
        self._utility(name)
        return self._utility_descriptions[name]

    def utility(self, name: str) -> Factor:
        """The table of the utility ``name`` as a :class:`bbn.Factor` over its parents.

        >>> net = InfluenceDiagram()
        >>> net.add_decision("D", ["a", "b"])
        >>> net.add_utility("U", ["D"], [1, 2])
        >>> net.utility("U").to_dict()
        {'a': 1.0, 'b': 2.0}
        """
        utility = self._utility(name)
        return Factor(utility.parents, {p: self.states(p) for p in utility.parents},
                      utility.table)

    def _utility(self, name: str) -> UtilityTable:
        try:
            return self._utilities[name]
        except (KeyError, TypeError):
            raise ModelError(f"unknown utility {name!r}"
                             f"{suggest(str(name), self._utilities)}") from None

    def compiled(self) -> DecisionNetwork:
        """The view of this revision: chance variables, decisions (uniform tables) and
        utilities (see :class:`bbn.views.decision_network.DecisionNetwork`)."""
        view = self._compiled
        if type(view) is not DecisionNetwork:
            base = super().compiled()
            order = temporal_order(base.variables, base.parents, tuple(self._decisions))
            view = self._compiled = DecisionNetwork.extend(base, order, self._utilities)
        return view

    # ------------------------------------------------------------- decisions
    def solve(self, evidence: Mapping[str, str] | None = None,
              reading: str = "perfect recall"):
        """The optimal policy of every decision and the maximum expected utility.

        Parameters
        ----------
        evidence : dict, optional
            ``{variable: state}`` known before every decision; a decision given is taken.
        reading : {"perfect recall", "LIMID"}
            What a decision knows: everything known and chosen before it (exact, by
            variable elimination with sums before maxima), or only its parents (single
            policy updating; the answer says whether it is proved optimal).

        Returns
        -------
        bbn.engines.exact.decision_policies.Solution
            ``meu``, ``policies`` (decision → table), ``reading``, ``optimal``.

        Raises
        ------
        QueryError
            For an unknown name or state, or evidence that depends on a decision not given.
        ImpossibleEvidenceError
            When P(evidence) = 0.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/oil.bn")
        >>> solution = net.solve()
        >>> round(solution.meu, 6), solution.best()
        (22.5, {'Test': 'test'})
        """
        return dispatch.solve(self, evidence, reading)

    def expected_utility(self, decision: str, option: str,
                         evidence: Mapping[str, str] | None = None,
                         reading: str = "perfect recall") -> float:
        """EU(decision = option | evidence): the expected utility when that option is
        taken and every other decision is optimal.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/oil.bn").expected_utility("Test", "no_test"), 6)
        20.0
        """
        return dispatch.expected_utility(self, decision, option, evidence, reading)

    def evpi(self, variable: str, decision: str, evidence: Mapping[str, str] | None = None,
             reading: str = "perfect recall") -> float:
        """The expected value of perfect information: how much the MEU grows when
        ``variable`` is known before ``decision`` is taken, in utility units.

        EVPI = E_x[MEU(e, X = x)] − MEU(e)  (an information arc X → decision added).
        Not :func:`bbn.value_of_information`, which is mutual information in bits.

        Examples
        --------
        >>> import bbn
        >>> round(bbn.load("models/oil.bn").evpi("Oil", "Drill"), 6)
        32.5
        """
        return dispatch.evpi(self, variable, decision, evidence, reading)

    # ------------------------------------------------------------- comparing
    def copy(self) -> InfluenceDiagram:
        """An independent copy (decisions and utilities too)."""
        other = InfluenceDiagram(self.name)
        plain = Network.copy(self)
        other._nodes, other._children = plain._nodes, plain._children
        other._decisions = dict(self._decisions)
        other._utilities = dict(self._utilities)
        other._utility_descriptions = dict(self._utility_descriptions)
        return other

    def __eq__(self, other: object) -> bool:
        """As :meth:`bbn.Network.__eq__`, and the same decisions and utilities."""
        equal = super().__eq__(other)
        if equal is not True:
            return equal
        decisions = getattr(other, "_decisions", {})
        utilities = getattr(other, "_utilities", {})
        return (set(self._decisions) == set(decisions)
                and list(self._utilities) == list(utilities)
                and all(u.parents == utilities[n].parents
                        and np.allclose(u.table, utilities[n].table, rtol=1e-12, atol=0)
                        for n, u in self._utilities.items()))

    __hash__ = None

    def __repr__(self) -> str:
        return (f"InfluenceDiagram({self.name!r}, {len(self.variables)} variables, "
                f"{len(self.arcs())} arcs, {len(self._decisions)} decisions, "
                f"{len(self._utilities)} utilities)")


def expected_value_of_information(net: InfluenceDiagram, variable: str, decision: str,
                                  evidence: Mapping[str, str] | None = None,
                                  reading: str = "perfect recall") -> float:
    """The expected value of perfect information of observing ``variable`` before
    ``decision``, in utility units: E_x[MEU(e, X = x)] − MEU(e) (:meth:`InfluenceDiagram.evpi`).

    For an imperfect test, put the test result T (a chance variable with P(T | X)) in the
    diagram and ask for the value of observing T. Not :func:`bbn.value_of_information`,
    which is the mutual information I(X; Y | e) in bits of a Bayesian network.

    Parameters
    ----------
    net : InfluenceDiagram
        The diagram.
    variable : str
        A chance variable.
    decision : str
        The decision before which it would be observed.
    evidence : dict, optional
        ``{variable: state}`` known before every decision.
    reading : {"perfect recall", "LIMID"}
        What a decision knows (see :meth:`InfluenceDiagram.solve`).

    Returns
    -------
    float

    Examples
    --------
    >>> import bbn
    >>> round(bbn.expected_value_of_information(bbn.load("models/oil.bn"), "Oil", "Drill"), 6)
    32.5
    """
    return net.evpi(variable, decision, evidence, reading)

"""The Bayesian network: named discrete variables on a DAG, one table per variable.

    P(X1, ..., Xn) = Π_i P(Xi | parents(Xi))

Each variable keeps its ordered states, an optional description, the ordered tuple of
its parents (the one parent list: arcs parent → child are read from it) and its
conditional probability table, a numpy array of shape ``(|parent 1|, ..., |parent k|, |X|)``
whose last axis sums to 1. Plain dicts hold them (networkx costs 0.2 s to import, a third
of a ``bbn query``); ``Network.graph`` builds a read-only networkx copy on demand.

Every change makes a new *revision*. Inference never reads the dicts: it reads the
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

import heapq
import itertools
import math
from collections.abc import Mapping, Sequence
from graphlib import CycleError, TopologicalSorter
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.core.factor import Factor
from bbn.core.tables import (  # noqa: F401  (ROW_SUM_TOLERANCE, ROUNDING_PER_ENTRY: re-exported)
    ROUNDING_PER_ENTRY,
    ROW_SUM_TOLERANCE,
    bad_rows,
    check_packed,
    normalized,
    row_tolerance,
    valid_minimum,
)
from bbn.engines.exact.engine import Engine
from bbn.model.markov import MarkovNetwork, markov_from_network
from bbn.questions import dispatch
from bbn.questions.resolution import continuous_error
from bbn.views.compiled import CompiledNetwork, GaussianLeaf, missing_table
from bbn.views.factor_graph import FactorGraph

if TYPE_CHECKING:
    import networkx as nx


class Network:
    """A discrete Bayesian network.

    Variables keep the order in which they were added (``variables``), parents keep the
    order in which they were given (that order is the axis order of the table).

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
        # variable → its attributes ("states", "description", "parents", "table",
        # "positive", and "kind" for a Gaussian), in declaration order
        self._nodes: dict[str, dict] = {}
        # variable → its children, in the order the arcs were added (a dict as ordered set)
        self._children: dict[str, dict[str, None]] = {}
        # Every change bumps the revision and drops the compiled view and its engine.
        self._revision = 0
        self._compiled: CompiledNetwork | None = None
        self._engine: Engine | None = None

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
        if net._add_all(states, parents, tables, descriptions, normalize):
            return net
        net = cls(name)
        for variable, names in states.items():
            net.add_variable(variable, names)
        for variable, given in parents.items():
            net.set_parents(variable, given)
        for variable, table in net._unpacked(tables).items():
            net.set_cpt(variable, table, normalize=normalize)
        for variable, description in descriptions.items():
            net.set_description(variable, description)
        return net

    def _add_all(self, states: Mapping, parents: Mapping, tables: Mapping | PackedTables,
                 descriptions: Mapping, normalize: bool = False) -> bool:
        """Add every variable with its parents, table and description if nothing is wrong
        and the tables are packed or numpy arrays of the right sizes; False (and a network
        to throw away) otherwise. One pass fills the node attributes in place."""
        printed = list(map(str, states))
        if len(set(printed)) != len(states) or "" in printed:  # two names that print the same
            return False
        nodes, edges, backward = self._nodes, [], False  # nodes: those seen so far, in order
        for (variable, names), name in zip(states.items(), printed):
            names = tuple(map(str, names))
            if not names or "" in names or len(set(names)) != len(names):
                return False
            given = parents.get(variable)
            if not given:
                given = ()
            else:
                given = tuple(map(str, given))
                distinct = set(given)
                if len(distinct) != len(given):
                    return False
                # arcs from variables earlier in the order cannot close a cycle
                backward = backward or not nodes.keys() >= distinct
                edges += zip(given, itertools.repeat(name))
            nodes[name] = {"states": names, "description": descriptions.get(variable),
                           "parents": given, "table": None, "positive": False}
        if (not parents.keys() <= states.keys() or not descriptions.keys() <= states.keys()
                or backward and not all(parent in nodes for parent, _ in edges)  # unknown
                or tables and not _set_all(tables, nodes, normalize)):
            return False
        if backward:
            try:
                TopologicalSorter({v: node["parents"] for v, node in nodes.items()}).prepare()
            except CycleError:
                return False
        children = self._children = {name: {} for name in nodes}
        for parent, child in edges:
            children[parent][child] = None
        return True

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
        attributes = {"kind": kind} if kind else {}
        self._nodes[name] = dict(states=states, description=description, parents=(),
                                 table=None, positive=False, **attributes)
        self._children[name] = {}
        self._changed()
        try:
            if parents:
                self.set_parents(name, parents)
            fill()
        except BaseException:
            self._drop(name)
            raise

    def set_parents(self, variable: str, parents: Sequence[str]) -> None:
        """Make ``parents`` (in this order) the parents of ``variable``.

        The variable's table is dropped, since its shape changes; a cycle is refused.

        Parameters
        ----------
        variable : str
            The child.
        parents : sequence of str
            Its new parents, in the order of its table's axes.

        Raises
        ------
        ModelError
            For an unknown or repeated parent, a Gaussian parent, or a cycle.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("A", ["a", "b"])
        >>> net.add_variable("B", ["x", "y"])
        >>> net.set_parents("B", ["A"])
        >>> net.parents("B"), net.has_cpt("B")
        (('A',), False)
        """
        node = self._require(variable)
        parents = tuple(str(p) for p in parents)
        for p in parents:
            if self._require(p, f" (named as a parent of {variable!r})").get("kind"):
                raise continuous_error(p, "parent", variable)
        if len(set(parents)) != len(parents):
            raise ModelError(f"variable {variable!r} lists a parent twice: {list(parents)}")
        cycle = self._path_to(variable, set(parents))
        if cycle:
            shown = " -> ".join([*cycle, variable])
            raise ModelError(f"making {list(parents)} the parents of {variable!r} would create "
                             f"the cycle {shown}")
        children = self._children
        for p in node["parents"]:
            del children[p][variable]
        for p in parents:
            children[p][variable] = None
        node["parents"] = parents
        node["table"] = None
        self._changed()

    def _path_to(self, variable: str, targets: set[str]) -> list[str] | None:
        """A path variable → ... → t to one of ``targets`` along arcs (``[variable]`` when it
        is a target itself), or None: the cycle that arcs from ``targets`` to ``variable``
        would close. A depth-first search from variable (children in the order their arcs
        were added; the first target whose other children are all explored wins, as arcs
        t → variable would come last), so only descendants are visited: adding a variable
        without children costs nothing, which keeps reading a 1000-node file linear."""
        children = self._children
        if not targets or not children[variable]:
            return [variable] if variable in targets else None
        path, stack, seen = [variable], [iter(children[variable])], {variable}
        while stack:
            for child in stack[-1]:
                if child not in seen:
                    seen.add(child)
                    path.append(child)
                    stack.append(iter(children[child]))
                    break
            else:
                stack.pop()
                if path[-1] in targets:
                    return path
                path.pop()
        return None

    def add_edge(self, parent: str, child: str) -> None:
        """Add the arc parent → child (``parent`` becomes the child's last parent).

        Parameters
        ----------
        parent, child : str
            The arc's ends.

        Raises
        ------
        ModelError
            As :meth:`set_parents`: an unknown variable, a repeated arc or a cycle.

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]})
        >>> net.add_edge("A", "B")
        >>> net.arcs()
        [('A', 'B')]
        """
        self.set_parents(child, self.parents(child) + (parent,))

    def remove_variable(self, variable: str) -> None:
        """Remove a variable; its children lose it as a parent (and their tables).

        Parameters
        ----------
        variable : str
            The variable to remove.

        Raises
        ------
        ModelError
            For an unknown variable.

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]}, {"B": ["A"]})
        >>> net.remove_variable("A")
        >>> net.variables, net.parents("B")
        (('B',), ())
        """
        self._require(variable)
        for child in self.children(variable):
            self.set_parents(child, [p for p in self.parents(child) if p != variable])
        self._drop(variable)

    def _drop(self, variable: str) -> None:
        """Remove a variable that has no children, with its arcs from its parents."""
        for p in self._nodes.pop(variable)["parents"]:
            del self._children[p][variable]
        del self._children[variable]
        self._changed()

    def set_cpt(self, variable: str, table, normalize: bool = False) -> None:
        """Set P(variable | parents).

        ``table`` may be
          * a numpy array or nested lists of shape ``(|P1|, ..., |Pk|, |X|)`` or
            ``(|P1|·...·|Pk|, |X|)`` (parent configurations in row-major order, the last
            parent fastest), or a flat list of ``|X|`` numbers for a root;
          * a dict ``{parent state(s): [p(x1), ..., p(xm)]}`` keyed by a state (one
            parent) or a tuple of states (several parents), covering every configuration;
          * a :class:`Factor` over the parents and the variable (any axis order).

        Rows must be non-negative and sum to 1 within :func:`row_tolerance` (which allows
        numbers rounded to six decimals); with ``normalize=True`` each row is divided by
        its sum instead (a row summing to 0 is still an error, since it cannot be
        normalised).

        Parameters
        ----------
        variable : str
            The variable whose table this is.
        table : array_like, dict or Factor
            The table, in one of the forms above.
        normalize : bool, default False
            Divide each row by its sum instead of requiring it to sum to 1.

        Raises
        ------
        ModelError
            For a Gaussian variable, a wrong shape, a missing row, a negative or non-finite
            entry, or a row that does not sum to 1.

        Examples
        --------
        >>> net = Network.assemble("rain", {"Rain": ["yes", "no"], "Wet": ["yes", "no"]},
        ...                        {"Wet": ["Rain"]})
        >>> net.set_cpt("Wet", {"yes": [0.9, 0.1], "no": [0.2, 0.8]})
        >>> net.cpt_array("Wet").tolist()
        [[0.9, 0.1], [0.2, 0.8]]
        """
        if self._require(variable).get("kind"):
            raise ModelError(f"{variable!r} is continuous (Gaussian): give its mean and "
                             "variance with set_gaussian, not a table")
        array = self._table_as_array(variable, table)
        shape = self._table_shape(variable)
        if array.shape != shape:
            if array.size != int(np.prod(shape)):
                raise ModelError(f"the table of {self.family_text(variable)} needs shape "
                                 f"{shape} ({int(np.prod(shape))} numbers), got "
                                 f"{array.shape} ({array.size} numbers)")
            array = array.reshape(shape)
        smallest = valid_minimum(array, normalize)  # two reductions decide the common case
        if smallest is None:
            if not np.all(np.isfinite(array)):
                raise ModelError(f"the table of {self.family_text(variable)} holds a "
                                 "non-finite number")
            problems = self._table_problems(variable, array, normalize)
            raise ModelError(problems[0] + (f" (and {len(problems) - 1} more problem(s))"
                                            if len(problems) > 1 else ""))
        if normalize:
            array = normalized(array)
        array.setflags(write=False)
        node = self._nodes[variable]
        node["table"] = array
        # Inference may drop d-separated tables only when they cannot make P(e) zero.
        node["positive"] = bool(smallest > 0)
        self._changed()

    def set_cpts(self, tables: Mapping[str, object] | PackedTables,
                 normalize: bool = False) -> None:
        """Set several tables: the same as set_cpt for each in turn, with the same errors,
        but numpy arrays (of the right size) or :class:`PackedTables` are validated
        together, by a few numpy reductions over all their numbers at once (row sums by
        ``np.add.reduceat`` at the row starts), and copied into one read-only array of which
        each variable's table is a view.

        Parameters
        ----------
        tables : mapping or PackedTables
            ``{variable: its table}``, as :meth:`set_cpt` takes each.
        normalize : bool, default False
            Divide each row by its sum.

        Raises
        ------
        ModelError
            The error set_cpt raises for the first bad table.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("A", ["a", "b"])
        >>> net.add_variable("B", ["x", "y"], parents=["A"])
        >>> net.set_cpts({"A": [0.3, 0.7], "B": [[0.9, 0.1], [0.5, 0.5]]})
        >>> net.cpt_array("B")[1].tolist()
        [0.5, 0.5]
        """
        if _set_all(tables, self._nodes, normalize):
            self._changed()
            return
        for variable, table in self._unpacked(tables).items():  # one at a time says what
            self.set_cpt(variable, table, normalize)             # is wrong

    def _unpacked(self, tables: Mapping[str, object] | PackedTables) -> Mapping[str, object]:
        """{variable: its table}; packed tables are cut by the sizes of the tables."""
        if type(tables) is not PackedTables:
            return tables
        numbers = np.asarray(tables.numbers, dtype=float).reshape(-1)
        if len(set(tables.variables)) != len(tables.variables):
            raise ModelError(f"the packed tables name a variable twice: "
                             f"{list(tables.variables)}")
        sizes = [math.prod(self._table_shape(v)) for v in tables.variables]
        if sum(sizes) != numbers.size:
            raise ModelError(f"the packed tables hold {numbers.size} numbers, the tables of "
                             f"{list(tables.variables)} need {sum(sizes)}")
        ends = list(itertools.accumulate(sizes))
        return {v: numbers[end - size:end] for v, size, end in zip(tables.variables, sizes, ends)}

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
        self._require(variable)["description"] = description
        self._changed()

    # ------------------------------------------- continuous (Gaussian) variables
    def add_gaussian_variable(self, name: str, parents: Sequence[str] = (), mean=None,
                              variance=None, description: str | None = None) -> None:
        """Add a continuous variable with a Gaussian density given its discrete parents:

            p(x | pa) = exp(−(x − μ(pa))² / (2σ²(pa))) / sqrt(2π σ²(pa))

        ``mean`` and ``variance`` hold one number per parent configuration, shape
        ``(|P1|, ..., |Pk|)`` (a number for a root). Such a variable has no states and is
        always a leaf; observing it contributes the likelihood factor over its parents
        (:mod:`bbn.engines.exact.continuous`). The node's ``table`` stores ``[μ, σ²]`` rows.

        Parameters
        ----------
        name : str
            The new variable's name.
        parents : sequence of str, optional
            Its discrete parents.
        mean, variance : array_like, optional
            μ(pa) and σ²(pa), one number per parent configuration (see :meth:`set_gaussian`).
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a duplicate name, a Gaussian parent, or bad means or variances.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        """
        name = self._new_name(name)
        def fill() -> None:
            if mean is not None or variance is not None:
                self.set_gaussian(name, mean, variance)

        self._add_node(name, (), description, parents, fill, kind="gaussian")

    def is_gaussian(self, variable: str) -> bool:
        """Whether ``variable`` is a continuous (Gaussian) variable.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        bool

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> net.is_gaussian("x"), net.is_gaussian("C")
        (True, False)
        """
        return self._require(variable).get("kind") == "gaussian"

    def set_gaussian(self, variable: str, mean, variance) -> None:
        """Set μ(pa) and σ²(pa) of a Gaussian variable (variances must be > 0).

        Parameters
        ----------
        variable : str
            A Gaussian variable.
        mean, variance : array_like
            One number per parent configuration, shape ``(|P1|, ..., |Pk|)``.

        Raises
        ------
        ModelError
            For a discrete variable, a wrong number of values, or a non-finite mean or a
            variance that is not > 0.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"])
        >>> net.set_gaussian("x", mean=[0.0, 2.0], variance=[1.0, 4.0])
        >>> net.gaussian_parameters("x")[1].tolist()
        [1.0, 4.0]
        """
        if not self.is_gaussian(variable):
            raise ModelError(f"{variable!r} is discrete; set_gaussian is for Gaussian variables")
        shape = self._table_shape(variable)[:-1]
        arrays = []
        for label, values in (("mean", mean), ("variance", variance)):
            array = np.asarray(values, dtype=float)
            if array.size != int(np.prod(shape)):
                raise ModelError(f"the {label} of {variable!r} needs {int(np.prod(shape))} "
                                 "number(s), one per configuration of "
                                 f"{list(self.parents(variable))}, got {array.size}")
            arrays.append(array.reshape(shape))
        if not (np.all(np.isfinite(arrays[0])) and np.all(np.isfinite(arrays[1]))
                and np.all(arrays[1] > 0)):
            raise ModelError(f"the Gaussian {variable!r} needs finite means and variances > 0")
        table = np.stack(arrays, axis=-1)
        table.setflags(write=False)
        self._nodes[variable]["table"] = table
        self._changed()

    def gaussian_parameters(self, variable: str) -> tuple[np.ndarray, np.ndarray]:
        """(μ, σ²) of a Gaussian variable, each of shape ``(|P1|, ..., |Pk|)``.

        Parameters
        ----------
        variable : str
            A Gaussian variable.

        Returns
        -------
        tuple of numpy.ndarray
            ``(mean, variance)``.

        Raises
        ------
        ModelError
            For a discrete variable, or a Gaussian one with no parameters yet.

        Examples
        --------
        >>> net = Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> [a.tolist() for a in net.gaussian_parameters("x")]
        [[0.0, 2.0], [1.0, 1.0]]
        """
        if not self.is_gaussian(variable):
            raise ModelError(f"{variable!r} is discrete; it has a table, not Gaussian parameters")
        table = self._nodes[variable]["table"]
        if table is None:
            raise ModelError(f"the Gaussian {variable!r} has no mean and variance yet")
        return table[..., 0], table[..., 1]

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
        self._engine = None

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
        if compiled is None:
            states, parents, cardinality, tables, zero_free, gaussian = {}, {}, {}, {}, {}, {}
            # one pass over the node attributes: a lookup per variable costs more
            for v, data in self._nodes.items():
                states[v] = data["states"]
                parents[v] = data["parents"]
                cardinality[v] = len(data["states"])
                table = data["table"]
                if data.get("kind"):
                    gaussian[v] = (GaussianLeaf(data["parents"], None, None) if table is None
                                   else GaussianLeaf(data["parents"], table[..., 0],
                                                     table[..., 1]))
                else:
                    tables[v] = table
                    zero_free[v] = data["positive"]
            compiled = self._compiled = CompiledNetwork(
                self._revision, tuple(self._nodes), *map(MappingProxyType, (
                    states, parents, cardinality, tables, zero_free, gaussian)))
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

    def arcs(self) -> list[tuple[str, str]]:
        """Every arc (parent, child): children in declaration order, each one's parents in
        their order.

        Returns
        -------
        list of tuple

        Examples
        --------
        >>> Network.assemble("n", {"A": ["a"], "B": ["b"]}, {"B": ["A"]}).arcs()
        [('A', 'B')]
        """
        return [(p, v) for v, data in self._nodes.items() for p in data["parents"]]

    @property
    def graph(self) -> nx.DiGraph:
        """A read-only copy of the network as a frozen :class:`networkx.DiGraph`: nodes in
        declaration order with their attributes (copied), arcs parent →
        child. Built on each access (networkx is imported only here); changing it cannot
        change the network, whose methods (set_parents, remove_variable, ...) do.

        >>> Network.assemble("n", {"A": ["a"], "B": ["b"]}, {"B": ["A"]}).graph.edges
        OutEdgeView([('A', 'B')])
        """
        import networkx as nx  # 0.2 s to import: only for this copy (start-up time)

        graph = nx.DiGraph(name=self.name)
        graph.add_nodes_from((v, dict(data)) for v, data in self._nodes.items())
        graph.add_edges_from((v, child) for v, children in self._children.items()
                             for child in children)
        return nx.freeze(graph)

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
        return self._require(variable)["states"]

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

    def parents(self, variable: str) -> tuple[str, ...]:
        """The parents of ``variable``, in the order of its table's axes.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").parents("B")
        ('C', 'S')
        """
        return self._require(variable)["parents"]

    def children(self, variable: str) -> tuple[str, ...]:
        """The children of ``variable``, in the order their arcs were added.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        tuple of str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").children("C")
        ('W', 'B')
        """
        self._require(variable)
        return tuple(self._children[variable])

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
        return self._require(variable)["description"]

    def has_cpt(self, variable: str) -> bool:
        """Whether ``variable`` has a table yet.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        bool

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"]})
        >>> net.has_cpt("A")
        False
        """
        return self._require(variable)["table"] is not None

    def cpt_array(self, variable: str) -> np.ndarray:
        """The raw table, shape ``(|P1|, ..., |Pk|, |X|)``, read-only.

        Parameters
        ----------
        variable : str
            A discrete variable.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        ModelError
            For a Gaussian variable or one with no table yet.

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").cpt_array("A").tolist()
        [[0.7, 0.3], [0.1, 0.9]]
        """
        node = self._require(variable)
        if node.get("kind"):
            raise continuous_error(variable, "table")
        table = node["table"]
        if table is None:
            raise missing_table(variable)
        return table

    def cpt(self, variable: str) -> Factor:
        """P(variable | parents) as a :class:`Factor` over ``parents + (variable,)``.

        Parameters
        ----------
        variable : str
            A discrete variable with a table.

        Returns
        -------
        Factor

        Examples
        --------
        >>> import bbn
        >>> table = bbn.load("models/chair.bn").cpt("A")
        >>> table.variables, table.to_dict()[("F", "F")]
        (('B', 'A'), 0.9)
        """
        family = self.parents(variable) + (variable,)
        return Factor(family, {v: self.states(v) for v in family}, self.cpt_array(variable))

    @property
    def is_complete(self) -> bool:
        """True when every variable has a table (structure-only models are not)."""
        return all(data["table"] is not None for data in self._nodes.values())

    def topological_order(self) -> list[str]:
        """Parents before children; ties broken by declaration order.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").topological_order()
        ['C', 'S', 'W', 'B', 'A']
        """
        # Kahn's algorithm taking the earliest declared ready variable each time (what
        # networkx's lexicographical_topological_sort keyed by position returns).
        position = {v: i for i, v in enumerate(self._nodes)}
        waiting = {v: len(data["parents"]) for v, data in self._nodes.items()}
        ready = [position[v] for v, n in waiting.items() if n == 0]  # already a heap: sorted
        names, order = list(self._nodes), []
        while ready:
            v = names[heapq.heappop(ready)]
            order.append(v)
            for child in self._children[v]:
                waiting[child] -= 1
                if not waiting[child]:
                    heapq.heappush(ready, position[child])
        return order

    def free_parameters(self) -> int:
        """Σ_i (|Xi| − 1) · Π_{P ∈ parents(Xi)} |P|: the numbers the network stores.

        A Gaussian variable stores two (μ, σ²) per parent configuration.

        Returns
        -------
        int

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").free_parameters()
        10
        """
        return sum((2 if self.is_gaussian(v) else self.cardinality(v) - 1)
                   * int(np.prod([self.cardinality(p) for p in self.parents(v)]))
                   for v in self.variables)

    def joint_parameters(self) -> int:
        """Π_i |Xi| − 1: the numbers a full joint table over all variables needs.

        Returns
        -------
        int

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").joint_parameters()
        31
        """
        return int(np.prod([self.cardinality(v) for v in self.variables
                            if not self.is_gaussian(v)], dtype=object)) - 1

    def validate(self) -> list[str]:
        """Every problem of the model, as messages; empty when it is a valid network.

        Returns
        -------
        list of str

        Examples
        --------
        >>> net = Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]},
        ...                        tables={"A": [0.5, 0.5]})
        >>> net.validate()
        ["variable 'B' has no table"]
        """
        problems = []
        for v in self.variables:
            table = self._nodes[v]["table"]
            if table is None:
                problems.append(f"variable {v!r} has no table")
            elif not self._nodes[v].get("kind"):  # Gaussian ones are checked when set
                problems.extend(self._table_problems(v, table))
        return problems

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
        other._nodes = {v: dict(data) for v, data in self._nodes.items()}
        other._children = {v: dict(children) for v, children in self._children.items()}
        return other

    def __eq__(self, other: object) -> bool:
        """Same name, variables (in order), states, descriptions, parents and tables."""
        if not isinstance(other, Network):
            return NotImplemented
        if self.name != other.name or self.variables != other.variables:
            return False
        for v in self.variables:
            a, b = self._nodes[v], other._nodes[v]
            if (a["states"], a["description"], a["parents"]) != (b["states"], b["description"],
                                                                 b["parents"]):
                return False
            if (a["table"] is None) != (b["table"] is None):
                return False
            if a["table"] is not None and not np.array_equal(a["table"], b["table"]):
                return False
        return True

    __hash__ = None

    def __repr__(self) -> str:
        return (f"Network({self.name!r}, {len(self.variables)} variables, "
                f"{len(self.arcs())} arcs)")

    def explore(self, height: int = 600):
        """The explorer inline in a notebook: this network with belief bars in a frame; a
        click on a state enters a finding (see ``docs/explorer.md``).

        A server starts on 127.0.0.1 in a background thread the first time and is reused.

        Parameters
        ----------
        height : int
            The frame's height in pixels.

        Returns
        -------
        bbn.apps.explorer.InlineExplorer
            Shown by Jupyter as the app; its ``url`` also opens in a browser.

        Examples
        --------
        >>> import bbn
        >>> view = bbn.load("models/chair.bn").explore()            # doctest: +SKIP
        >>> view.url                                                 # doctest: +SKIP
        'http://127.0.0.1:40123/'
        """
        from bbn.apps.explorer.inline import explore  # http.server: only the explorer needs it
        return explore(self, height)

    def _repr_svg_(self) -> str | None:
        """The picture Jupyter shows for a network (see ``docs/rendering.md``)."""
        from bbn.apps.rendering import repr_svg  # graphviz: imported on first use (start-up)
        return repr_svg(self)

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
        """The same distribution as a Markov network, one factor per table (Z = 1).

        Returns
        -------
        MarkovNetwork

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").to_markov()
        MarkovNetwork('Back ache', 5 variables, 5 factors)
        """
        return markov_from_network(self)

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
                  impossible: str = "raise", method="exact"):
        """P(variables | evidence) as a normalised :class:`Factor` (joint when several).

        With a :class:`pandas.DataFrame` as ``evidence`` (one case per row, missing
        cells allowed) the answer for every row comes from one batched elimination, as
        an array of shape ``(N, |X1|, ..., |Xk|)`` (a Dask DataFrame: a Dask array of
        that shape, one batched elimination per partition, ``docs/scale.md``); a row
        with impossible evidence raises ImpossibleEvidenceError, or with
        ``impossible="nan"`` is NaN (a warning counts such rows). See :meth:`bbn.Engine.posterior`.

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

        Returns
        -------
        Factor, or for a DataFrame a numpy.ndarray (for a Dask DataFrame a Dask array)

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
        return dispatch.posterior(self, variables, evidence, impossible, method)

    def posteriors(self, evidence=None, impossible: str = "raise", method="exact") -> dict:
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
        return dispatch.posteriors(self, evidence, impossible, method)

    def probability(self, assignment: Mapping[str, str],
                    evidence: Mapping[str, str] | None = None, method="exact") -> float:
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
        return dispatch.probability(self, assignment, evidence, method)

    def log_probability(self, evidence: Mapping[str, str]) -> float:
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
        return dispatch.log_probability(self, evidence)

    def map(self, variables: Sequence[str] | str, evidence: Mapping[str, str] | None = None,
            method="exact"):
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

        Returns
        -------
        tuple
            ``({variable: state}, probability)``; approximately a
            :class:`bbn.engines.approximate.result.MapEstimate` (the same pair, with
            ``standard_error``, ``runner_up``, ``margin`` and ``report``).

        Raises
        ------
        ImpossibleEvidenceError
            When P(evidence) = 0.

        Examples
        --------
        >>> import bbn
        >>> assignment, p = bbn.load("models/chair.bn").map(["C", "S"], {"A": "T"})
        >>> assignment, round(p, 6)
        ({'C': 'T', 'S': 'F'}, 0.837054)
        """
        return dispatch.map(self, variables, evidence, method)

    def mpe(self, evidence: Mapping[str, str] | None = None, method="exact"):
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

        Returns
        -------
        tuple
            ``({variable: state}, probability)``, as :meth:`map`; approximately an
            assignment no single change improves, and P(x | e) with P(e) estimated.

        Examples
        --------
        >>> import bbn
        >>> assignment, p = bbn.load("models/chair.bn").mpe({"A": "T"})
        >>> assignment, round(p, 6)
        ({'C': 'T', 'S': 'F', 'W': 'T', 'B': 'T'}, 0.479404)
        """
        return dispatch.mpe(self, evidence, method)

    # ---------------------------------------------------------- explanations
    def explain(self, query: str):
        """The derivation of a ``P(...)``, ``MAP(...)`` or ``MPE(...)`` question, step by
        step with the engine's numbers (see ``docs/explain.md``).

        Parameters
        ----------
        query : str
            The question, e.g. ``"P(C=T | A=T)"``.

        Returns
        -------
        Derivation
            ``to_text()``, ``to_markdown()``, ``to_latex()``; Jupyter shows the Markdown.

        Raises
        ------
        QueryError
            For another kind of question or evidence on a Gaussian leaf.

        Examples
        --------
        >>> import bbn
        >>> print(bbn.load("models/chair.bn").explain("P(C=T | A=T)").to_text().splitlines()[-1])
             P(C=T | A=T) = 0.18272 / 0.206056 = 0.886749  (= 22840/25757)
        """
        from bbn.tasks.explain.derivation import (
            explain,  # here: bbn query needs none of bbn.tasks.explain
        )

        return explain(self, query)

    def is_independent(self, x: str | Sequence[str], y: str | Sequence[str],
                       given: str | Sequence[str] | None = None) -> bool:
        """Whether X ⟂ Y | given holds by d-separation (networkx).

        Parameters
        ----------
        x, y : str or sequence of str
            The two sets of variables.
        given : str or sequence of str, optional
            The observed variables.

        Returns
        -------
        bool

        Raises
        ------
        QueryError
            For an unknown variable or overlapping sets.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> net.is_independent("C", "S"), net.is_independent("C", "S", given="A")
        (True, False)
        """
        from bbn.questions.d_separation import is_independent  # here: networkx costs ~200 ms

        return is_independent(self, x, y, given)

    def active_trail(self, x: str | Sequence[str], y: str | Sequence[str],
                     given: str | Sequence[str] | None = None):
        """One trail from X to Y that ``given`` does not block, with why each middle node
        passes (chain, fork, collider with an observed descendant); None when independent.

        Parameters
        ----------
        x, y : str or sequence of str
            The two sets of variables.
        given : str or sequence of str, optional
            The observed variables.

        Returns
        -------
        Trail or None

        Raises
        ------
        QueryError
            For an unknown variable or overlapping sets.

        Examples
        --------
        >>> import bbn
        >>> print(bbn.load("models/chair.bn").active_trail("C", "S", given="A"))
        C → B ← S
          B: a collider whose descendant A is observed
        """
        from bbn.questions.d_separation import active_trail  # here: not loaded by bbn query

        return active_trail(self, x, y, given)

    def markov_blanket(self, variable: str) -> tuple[str, ...]:
        """Parents, children and the children's other parents of ``variable``.

        Parameters
        ----------
        variable : str

        Returns
        -------
        tuple of str
            In declaration order.

        Raises
        ------
        QueryError
            For an unknown variable.

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").markov_blanket("B")
        ('C', 'S', 'A')
        """
        from bbn.questions.d_separation import markov_blanket  # here: not loaded by bbn query

        return markov_blanket(self, variable)

    def value_of_information(self, target: str, candidates: Sequence[str] | None = None,
                             evidence: Mapping[str, str] | None = None) -> list:
        """The unobserved variables ranked by I(target; X | evidence) in bits: the expected
        fall of the target's entropy if X were observed next.

        Parameters
        ----------
        target : str
        candidates : sequence of str, optional
            Default: every unobserved discrete variable but the target.
        evidence : dict, optional

        Returns
        -------
        list of Information
            ``(variable, bits)``, the most informative first.

        Raises
        ------
        QueryError
            For an unknown, observed or repeated variable.

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").value_of_information("C", evidence={"A": "T"})[0].variable
        'W'
        """
        from bbn.questions.information import value_of_information  # here: not for bbn query

        return value_of_information(self, target, candidates, evidence)

    def sensitivity(self, query: str, variable: str,
                    parents_state: Mapping[str, str] | Sequence[str] | None, state: str):
        """P(query) as a function (αθ + β)/(γθ + δ) of one table entry θ = P(variable=state
        | parents_state), its row rescaled; value, derivative, and the θ range of the MAP
        decision.

        Parameters
        ----------
        query : str
            ``P(Y=y | e)`` or ``P(Y | e)``.
        variable : str
            The table's variable.
        parents_state : dict or sequence of str, or None
            The row (None for a root).
        state : str
            The entry's state.

        Returns
        -------
        Sensitivity

        Raises
        ------
        QueryError
            For another query shape or an unknown variable, parent or state.

        Examples
        --------
        >>> import bbn
        >>> result = bbn.load("models/chair.bn").sensitivity("P(C | A=T)", "C", None, "T")
        >>> [round(x, 6) for x in result.decision_range]
        [0.338124, 1.0]
        """
        from bbn.tasks.explain.sensitivity import sensitivity  # here: not loaded by bbn query

        return sensitivity(self, query, variable, parents_state, state)

    def predict_proba(self, data, target: str, **options):
        """P(target | row) for every row of ``data`` (DataFrame or CSV), one column per state.

        The other columns are evidence; missing cells are summed out. See
        :func:`bbn.tasks.classification.prediction.predict_proba` and ``docs/classification.md``.

        Parameters
        ----------
        data : pandas.DataFrame or str
            The cases, or the path of a CSV file.
        target : str
            The variable to predict.
        **options
            As :func:`bbn.tasks.classification.prediction.predict_proba` takes them.

        Returns
        -------
        pandas.DataFrame
            One row per case, one column per state of ``target``.

        Examples
        --------
        >>> import bbn, pandas as pd
        >>> net = bbn.load("models/chair.bn")
        >>> net.predict_proba(pd.DataFrame({"A": ["T", "F"]}), "C").round(6).values.tolist()
        [[0.886749, 0.113251], [0.777486, 0.222514]]
        """
        from bbn.tasks.classification.prediction import predict_proba  # pandas: start-up time
        return predict_proba(self, data, target, **options)

    def predict(self, data, target: str, **options):
        """The decided state of ``target`` for every row (MAP unless ``decision=``).

        Parameters
        ----------
        data : pandas.DataFrame or str
            The cases, or the path of a CSV file.
        target : str
            The variable to predict.
        **options
            As :func:`bbn.tasks.classification.prediction.predict` takes them.

        Returns
        -------
        pandas.Series
            The chosen state of ``target`` for each case.

        Examples
        --------
        >>> import bbn, pandas as pd
        >>> net = bbn.load("models/chair.bn")
        >>> net.predict(pd.DataFrame({"A": ["T", "F"]}), "C").tolist()
        ['T', 'T']
        """
        from bbn.tasks.classification.prediction import predict  # pandas: start-up time
        return predict(self, data, target, **options)

    # ------------------------------------------------------------- messages
    def family_text(self, variable: str) -> str:
        """``P(X | A, B)``: how messages name the table of ``variable``.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        str

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").family_text("B")
        'P(B | C, S)'
        """
        parents = self.parents(variable)
        return f"P({variable} | {', '.join(parents)})" if parents else f"P({variable})"

    def configuration_text(self, variable: str, index: int | tuple[int, ...]) -> str:
        """``P(X | A=a, B=b)``: one row of the table, by parent state indices or by its
        flat row number (the last parent fastest).

        Parameters
        ----------
        variable : str
            A variable of the network.
        index : int or tuple of int
            The row: its flat number, or one state index per parent.

        Returns
        -------
        str

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> net.configuration_text("B", 1), net.configuration_text("B", (1, 0))
        ('P(B | C=T, S=F)', 'P(B | C=F, S=T)')
        """
        parents = self.parents(variable)
        if isinstance(index, (int, np.integer)):
            index = np.unravel_index(int(index), [self.cardinality(p) for p in parents])
        given = ", ".join(f"{p}={self.states(p)[i]}" for p, i in zip(parents, index))
        return f"P({variable} | {given})" if given else f"P({variable})"

    # -------------------------------------------------------------- helpers
    def _require(self, variable: str, context: str = "") -> dict:
        try:
            return self._nodes[variable]
        except (KeyError, TypeError):  # TypeError: unhashable, not a name
            raise ModelError(f"unknown variable {variable!r}{context}"
                             f"{suggest(str(variable), self._nodes)}") from None

    def _table_shape(self, variable: str) -> tuple[int, ...]:
        return tuple(self.cardinality(p) for p in self.parents(variable)) + (
            self.cardinality(variable),)


    def _table_as_array(self, variable: str, table) -> np.ndarray:
        if isinstance(table, Factor):
            family = self.parents(variable) + (variable,)
            if set(table.variables) != set(family):
                raise ModelError(f"the factor given for {self.family_text(variable)} is over "
                                 f"{list(table.variables)}")
            return table.transpose(family).reorder_states(
                {v: self.states(v) for v in family}).values.astype(float)
        if isinstance(table, Mapping):
            return self._table_from_mapping(variable, table)
        try:
            return np.array(table, dtype=float)
        except (TypeError, ValueError) as error:
            raise ModelError(f"the table of {self.family_text(variable)} is not numeric: "
                             f"{error}") from None

    def _table_from_mapping(self, variable: str, table: Mapping) -> np.ndarray:
        parents = self.parents(variable)
        shape = self._table_shape(variable)
        array = np.empty(shape)
        rows = {}
        for key, row in table.items():
            key = (key,) if not isinstance(key, tuple) else key
            key = tuple(str(k) for k in key)
            if len(key) != len(parents):
                raise ModelError(f"row key {key} of {self.family_text(variable)} needs one "
                                 f"state for each parent {list(parents)}")
            index = []
            for p, s in zip(parents, key):
                if s not in self.states(p):
                    raise ModelError(f"row {key} of {self.family_text(variable)}: parent {p!r} "
                                     f"has no state {s!r}{suggest(s, self.states(p))}")
                index.append(self.states(p).index(s))
            rows[tuple(index)] = row
        for index in itertools.product(*(range(n) for n in shape[:-1])):
            if index not in rows:
                raise ModelError(f"the table of {self.family_text(variable)} has no row for "
                                 f"{self.configuration_text(variable, index)}")
            row = np.asarray(rows[index], dtype=float)
            if row.shape != (shape[-1],):
                raise ModelError(f"row {self.configuration_text(variable, index)} needs "
                                 f"{shape[-1]} numbers, got {row.size}")
            array[index] = row
        return array

    def _table_problems(self, variable: str, array: np.ndarray,
                        normalize: bool = False) -> list[str]:
        """Messages for the bad rows of ``array`` (see :func:`bbn.core.tables.bad_rows`): its
        first five negative entries, then its first five rows whose sum is wrong."""
        bad = bad_rows(array, normalize)
        rows = array.reshape(-1, array.shape[-1])
        states = self.states(variable)
        negative = [(b.row, c) for b in bad for c in b.entries if rows[b.row, c] < 0]
        problems = [f"{self.configuration_text(variable, row)} has a negative entry "
                    f"{float(rows[row, c])!r} for state {states[c]!r}"
                    for row, c in negative[:5]]
        off = [b for b in bad if b.sum_off]
        tolerance = row_tolerance(array.shape[-1])
        for b in off[:5]:
            where = f"{self.configuration_text(variable, b.row)} sums to {b.total!r}"
            problems.append(f"{where}: only a row with a positive sum can be normalised"
                            if normalize else
                            f"{where}, not 1 (tolerance {tolerance:.2g}); pass normalize=True "
                            "(--normalize on the command line) to rescale rows")
        if len(off) > 5:
            problems.append(f"... {len(off) - 5} more rows of {self.family_text(variable)} "
                            "do not sum to 1")
        return problems


class PackedTables(NamedTuple):
    """The tables of several variables in one flat array: ``numbers`` holds the table of
    ``variables[0]``, then that of ``variables[1]``, ..., each in row-major order (parent
    configurations with the last parent fastest, the variable's states within each). A
    reader hands over a whole file's numbers this way, with no array per table.

    >>> net = Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]}, {"B": ["A"]},
    ...                        PackedTables(["A", "B"], [0.5, 0.5, 0.9, 0.1, 0.2, 0.8]))
    >>> net.cpt_array("B").tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """

    variables: Sequence[str]
    numbers: np.ndarray | Sequence[float]


def _set_all(tables: Mapping[str, object] | PackedTables, nodes: Mapping[str, dict],
             normalize: bool = False) -> bool:
    """Put each table in its node's attributes (``nodes``: name → attribute dict) if all
    are packed, or each is a numpy array with as many numbers as its variable's table
    (reshaped as set_cpt does), and all are valid; False (and nothing set) otherwise.

    Valid as :func:`bbn.core.tables.check_packed` decides, on one array of all the tables
    (a few numpy calls however many tables there are: small networks are dominated by
    per-call costs).
    """
    packed = type(tables) is PackedTables
    variables = tables.variables if packed else tables
    shapes, cards = [], []
    for variable in variables:
        node = nodes.get(variable)
        if node is None or node.get("kind"):
            return False
        card, parents = len(node["states"]), node["parents"]
        shapes.append((*[len(nodes[p]["states"]) for p in parents], card) if parents
                      else (card,))
        cards.append(card)
    if not shapes:
        return True
    sizes = list(map(math.prod, shapes))
    try:
        if packed:
            flat = np.array(tables.numbers, dtype=float)
            if flat.shape != (sum(sizes),) or len(set(variables)) != len(variables):
                return False
        else:
            arrays = list(tables.values())
            if any(type(a) is not np.ndarray for a in arrays) or [a.size for a in arrays] != sizes:
                return False
            flat = np.concatenate(arrays, axis=None, dtype=float)
    except (TypeError, ValueError):  # numbers that are not real
        return False
    checked = check_packed(flat, sizes, cards, normalize)
    if checked is None:
        return False
    start = 0
    for variable, shape, size, low in zip(variables, shapes, sizes, checked.smallest):
        table = checked.numbers[start:start + size]
        start += size
        node = nodes[variable]
        node["table"] = table if len(shape) == 1 else table.reshape(shape)
        node["positive"] = low > 0
    return True

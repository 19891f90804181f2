"""The directed acyclic graph of a network: its arcs kept acyclic, parents and children, its
topological order, and a whole network's variables built at once.

    parents(X) ⊂ variables,   no directed cycle X → ... → X

A network keeps each variable's ordered parents in its :class:`~bbn.model.variables.Variable`
record and, for speed, each variable's children (a dict used as an ordered set, in the
order the arcs were added). The functions here read those two mappings; :class:`DAG`
holds the methods of :class:`bbn.Network` that edit and read the arcs.

>>> nodes = {"A": Variable(("a",)), "B": Variable(("b",), parents=("A",))}
>>> children = {"A": {"B": None}, "B": {}}
>>> topological_order(nodes, children), cycle_path(children, "A", {"B"})
(['A', 'B'], ['A', 'B'])
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping, Sequence
from graphlib import CycleError, TopologicalSorter
from typing import TYPE_CHECKING

from bbn.core.errors import ModelError
from bbn.model.softmax_nodes import takes_continuous
from bbn.model.variables import PackedTables, Variable, set_all
from bbn.questions.resolution import continuous_error

if TYPE_CHECKING:
    import networkx as nx


def cycle_path(children: Mapping[str, Mapping[str, None]], variable: str,
               targets: set[str]) -> list[str] | None:
    """A path variable → ... → t to one of ``targets`` along arcs (``[variable]`` when it
    is a target itself), or None: the cycle that arcs from ``targets`` to ``variable``
    would close.

    A depth-first search from variable (children in the order their arcs were added; the
    first target whose other children are all explored wins, as arcs t → variable would
    come last), so only descendants are visited: adding a variable without children costs
    nothing, which keeps reading a 1000-node file linear.

    Parameters
    ----------
    children : mapping
        variable → its children (ordered).
    variable : str
        The child whose parents would become ``targets``.
    targets : set of str
        The would-be parents.

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> cycle_path({"A": {"B": None}, "B": {}}, "A", {"C"}) is None
    True
    """
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


def topological_order(nodes: Mapping[str, Variable],
                      children: Mapping[str, Mapping[str, None]]) -> list[str]:
    """Parents before children; ties broken by declaration order (the order of ``nodes``).

    Kahn's algorithm taking the earliest declared ready variable each time (what
    networkx's lexicographical_topological_sort keyed by position returns).

    Parameters
    ----------
    nodes : mapping
        variable → its record, in declaration order.
    children : mapping
        variable → its children.

    Returns
    -------
    list of str

    Examples
    --------
    >>> nodes = {"B": Variable(("b",), parents=("A",)), "A": Variable(("a",))}
    >>> topological_order(nodes, {"A": {"B": None}, "B": {}})
    ['A', 'B']
    """
    position = {v: i for i, v in enumerate(nodes)}
    waiting = {v: len(node.parents) for v, node in nodes.items()}
    ready = [position[v] for v, n in waiting.items() if n == 0]  # already a heap: sorted
    names, order = list(nodes), []
    while ready:
        v = names[heapq.heappop(ready)]
        order.append(v)
        for child in children[v]:
            waiting[child] -= 1
            if not waiting[child]:
                heapq.heappush(ready, position[child])
    return order


def assembled(states: Mapping, parents: Mapping, tables: Mapping | PackedTables,
              descriptions: Mapping, normalize: bool = False
              ) -> tuple[dict[str, Variable], dict[str, dict[str, None]]] | None:
    """Every variable's record and children at once, or None when anything is wrong or a
    table is neither packed nor a numpy array of the right size (the caller then builds
    the network one call at a time, to raise the error those calls raise).

    One pass fills the records; acyclicity is checked once, and only when an arc goes
    against the order of ``states``; the tables are validated together
    (:func:`~bbn.model.variables.set_all`).

    Parameters
    ----------
    states, parents, tables, descriptions : mapping
        As :meth:`bbn.Network.assemble` takes them.
    normalize : bool
        Rescale every row of every table.

    Returns
    -------
    tuple or None
        ``(records, children)``.

    Examples
    --------
    >>> records, children = assembled({"A": ["a"], "B": ["b"]}, {"B": ["A"]}, {}, {})
    >>> records["B"].parents, children
    (('A',), {'A': {'B': None}, 'B': {}})
    """
    printed = list(map(str, states))
    if len(set(printed)) != len(states) or "" in printed:  # two names that print the same
        return None
    nodes: dict[str, Variable] = {}  # those seen so far, in order
    edges: list[tuple[str, str]] = []
    backward = False
    for (variable, names), name in zip(states.items(), printed):
        names = tuple(map(str, names))
        if not names or "" in names or len(set(names)) != len(names):
            return None
        given = parents.get(variable)
        if not given:
            given = ()
        else:
            given = tuple(map(str, given))
            distinct = set(given)
            if len(distinct) != len(given):
                return None
            # arcs from variables earlier in the order cannot close a cycle
            backward = backward or not nodes.keys() >= distinct
            edges += zip(given, itertools.repeat(name))
        nodes[name] = Variable(names, descriptions.get(variable), given)
    if (not parents.keys() <= states.keys() or not descriptions.keys() <= states.keys()
            or backward and not all(parent in nodes for parent, _ in edges)  # unknown
            or tables and not set_all(tables, nodes, normalize)):
        return None
    if backward:
        try:
            TopologicalSorter({v: node.parents for v, node in nodes.items()}).prepare()
        except CycleError:
            return None
    children: dict[str, dict[str, None]] = {name: {} for name in nodes}
    for parent, child in edges:
        children[parent][child] = None
    return nodes, children


class DAG:
    """The arcs of a :class:`bbn.Network` (a mixin: the network holds ``_nodes``, the
    records, and ``_children``; every edit calls ``_changed()``, a new revision).

    Examples
    --------
    >>> import bbn
    >>> bbn.Network.assemble("n", {"A": ["a"], "B": ["b"]}, {"B": ["A"]}).children("A")
    ('B',)
    """

    _nodes: dict[str, Variable]
    _children: dict[str, dict[str, None]]
    name: str

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
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["a", "b"])
        >>> net.add_variable("B", ["x", "y"])
        >>> net.set_parents("B", ["A"])
        >>> net.parents("B"), net.has_cpt("B")
        (('A',), False)
        """
        node = self._require(variable)
        parents = tuple(str(p) for p in parents)
        for p in parents:
            if self._require(p, f" (named as a parent of {variable!r})").kind and not (
                    node.kind or takes_continuous(node)):
                raise continuous_error(p, "parent", variable)
        if len(set(parents)) != len(parents):
            raise ModelError(f"variable {variable!r} lists a parent twice: {list(parents)}")
        cycle = cycle_path(self._children, variable, set(parents))
        if cycle:
            shown = " -> ".join([*cycle, variable])
            raise ModelError(f"making {list(parents)} the parents of {variable!r} would create "
                             f"the cycle {shown}")
        children = self._children
        for p in node.parents:
            del children[p][variable]
        for p in parents:
            children[p][variable] = None
        node.parents = parents
        node.table = node.compact = None
        self._changed()

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
        >>> import bbn
        >>> net = bbn.Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]})
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
        >>> import bbn
        >>> net = bbn.Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]}, {"B": ["A"]})
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
        for p in self._nodes.pop(variable).parents:
            del self._children[p][variable]
        del self._children[variable]
        self._changed()

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
        return self._require(variable).parents

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

    def arcs(self) -> list[tuple[str, str]]:
        """Every arc (parent, child): children in declaration order, each one's parents in
        their order.

        Returns
        -------
        list of tuple

        Examples
        --------
        >>> import bbn
        >>> bbn.Network.assemble("n", {"A": ["a"], "B": ["b"]}, {"B": ["A"]}).arcs()
        [('A', 'B')]
        """
        return [(p, v) for v, node in self._nodes.items() for p in node.parents]

    @property

    def graph(self) -> nx.DiGraph:
        """A read-only copy of the network as a frozen :class:`networkx.DiGraph`: nodes in
        declaration order with their attributes (copied), arcs parent →
        child. Built on each access (networkx is imported only here); changing it cannot
        change the network, whose methods (set_parents, remove_variable, ...) do.

        >>> import bbn
        >>> bbn.Network.assemble("n", {"A": ["a"], "B": ["b"]}, {"B": ["A"]}).graph.edges
        OutEdgeView([('A', 'B')])
        """
        import networkx as nx  # 0.2 s to import: only for this copy (start-up time)

        graph = nx.DiGraph(name=self.name)
        graph.add_nodes_from((v, node.attributes()) for v, node in self._nodes.items())
        graph.add_edges_from((v, child) for v, children in self._children.items()
                             for child in children)
        return nx.freeze(graph)

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
        return topological_order(self._nodes, self._children)

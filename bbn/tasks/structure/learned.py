"""A network learned from data, with what the search found beside it.

>>> import bbn, pandas as pd
>>> rows = pd.DataFrame({"A": list("TTFF"), "B": list("TTFF")})
>>> net = bbn.learn_structure(rows, method="tree")
>>> isinstance(net, LearnedNetwork), net.method_, net.arcs()
(True, 'tree', [('A', 'B')])
"""

from __future__ import annotations

from collections.abc import Mapping

from bbn.model.network import Network


class LearnedNetwork(Network):
    """A :class:`~bbn.model.network.Network` learned by :func:`bbn.learn_structure`.

    Everything a network does, plus the fitted attributes below. Saving it keeps the
    network only.

    Parameters
    ----------
    name : str, default "network"
        The network's name.

    Attributes
    ----------
    method_ : str
        The method that found the structure.
    score_ : float or None
        The structure's score on the data (the method's score), if computed.
    undirected_edges_ : list of (str, str)
        Edges whose direction the data leave open (the equivalence class the method
        returns, e.g. PC's); the network orients them one consistent way.
    statistics_ : dict
        The work done: iterations, tests, families scored, moves skipped by reason.
    discretiser_ : Discretiser or None
        The cuts of ``discretize=``, to cut new data the same way.

    Examples
    --------
    >>> net = LearnedNetwork("learned")
    >>> net.method_, net.undirected_edges_
    (None, [])
    """

    def __init__(self, name: str = "network") -> None:
        super().__init__(name)
        self.method_: str | None = None
        self.score_: float | None = None
        self.undirected_edges_: list[tuple[str, str]] = []
        self.statistics_: dict = {}
        self.discretiser_ = None

    def record(self, method: str, score: float | None, undirected_edges,
               statistics: Mapping) -> LearnedNetwork:
        """Set the fitted attributes; returns the network itself."""
        self.method_ = method
        self.score_ = score
        self.undirected_edges_ = [tuple(edge) for edge in undirected_edges]
        self.statistics_ = dict(statistics)
        return self

    def copy(self) -> LearnedNetwork:
        """An independent copy, the fitted attributes included.

        Examples
        --------
        >>> net = LearnedNetwork("x").record("hc", -1.5, [], {"iterations": 3})
        >>> net.copy().statistics_
        {'iterations': 3}
        """
        other = LearnedNetwork(self.name)  # node by node: Gaussian variables too
        other._nodes = {v: node.copy() for v, node in self._nodes.items()}
        other._children = {v: dict(children) for v, children in self._children.items()}
        other.discretiser_ = self.discretiser_
        return other.record(self.method_, self.score_, self.undirected_edges_,
                            self.statistics_)

"""Compact tables on a network: noisy-OR, noisy-AND, noisy-MAX, logistic, deterministic.

    noisy-OR:  P(Y = F | u) = (1 − leak) · Π_{i: u_i = T} (1 − p_i)

:class:`CompactTables` holds the methods of :class:`bbn.Network` that add a variable
with a canonical table (:mod:`bbn.model.canonical`): a few numbers per parent where a
full table needs one row per parent configuration. The variable keeps its
:class:`~bbn.model.canonical.Canonical` and, when it is small, the full table too (what
``cpt``, learning and the file writers read: formats without compact tables get the full
one); inference on a large noisy table uses its chain of partial maxima, so a 40-cause
noisy-OR is answered without a 2^40 table.

>>> import bbn
>>> net = bbn.Network()
>>> for u in ("rain", "sprinkler"):
...     net.add_variable(u, ["F", "T"], table=[0.5, 0.5])
>>> net.add_noisy_or("wet", ["rain", "sprinkler"], weights={"rain": 0.9, "sprinkler": 0.8})
>>> round(net.probability({"wet": "T"}, {"rain": "T", "sprinkler": "T"}), 4)  # 1 − 0.1·0.2
0.98
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

import numpy as np

import bbn.model.canonical as canonical_tables
from bbn.core.errors import ModelError, suggest
from bbn.core.memory import check_allocation
from bbn.model.variables import Variable, checked_weights


class CompactTables:
    """The compact-table methods of a :class:`bbn.Network`.

    Examples
    --------
    >>> import bbn
    >>> bbn.Network().canonical  # doctest: +ELLIPSIS
    <bound method CompactTables.canonical of Network('network', 0 variables, 0 arcs)>
    """

    _nodes: dict[str, Variable]

    def add_noisy_or(self, name: str, parents: Sequence[str], weights: Mapping[str, float],
                     leak: float = 0.0, states: Sequence[str] = ("F", "T"),
                     description: str | None = None) -> None:
        """Add a binary variable whose table is the noisy-OR of its binary parents:

            P(Y = F | u) = (1 − leak) · Π_{i: u_i = T} (1 − p_i)

        p_i is the probability that cause i alone (no leak) turns Y on (Pearl's, GeNIe's
        and pyAgrum's ``addNoisyORNet`` parametrisation). A parent's first state is
        "absent", its second "present"; so are Y's.

        Parameters
        ----------
        name : str
            The new variable.
        parents : sequence of str
            Its causes, each binary.
        weights : mapping
            ``{parent: p_i}``, every parent, each in [0, 1].
        leak : float, default 0
            P(Y = T) when no cause is present.
        states : sequence of str, default ("F", "T")
            Y's states, absent first.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a parent that is not binary, a missing or unknown weight, a number
            outside [0, 1].

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["F", "T"], table=[0.5, 0.5])
        >>> net.add_noisy_or("Y", ["A"], weights={"A": 0.9}, leak=0.1)
        >>> net.cpt_array("Y").round(2).tolist()
        [[0.9, 0.1], [0.09, 0.91]]
        """
        self._add_noisy(name, parents, weights, leak, states, description, dual=False)

    def add_noisy_and(self, name: str, parents: Sequence[str], weights: Mapping[str, float],
                      leak: float = 0.0, states: Sequence[str] = ("F", "T"),
                      description: str | None = None) -> None:
        """Add a binary variable whose table is the noisy-AND of its binary parents, the
        dual of the noisy-OR (each absent cause vetoes Y with probability p_i):

            P(Y = T | u) = (1 − leak) · Π_{i: u_i = F} (1 − p_i)

        Parameters
        ----------
        name, parents, weights, leak, states, description
            As :meth:`add_noisy_or`; ``leak`` is P(Y = F) when every cause is present.

        Raises
        ------
        ModelError
            As :meth:`add_noisy_or`.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["F", "T"], table=[0.5, 0.5])
        >>> net.add_noisy_and("Y", ["A"], weights={"A": 0.9})
        >>> net.cpt_array("Y").round(2).tolist()
        [[0.9, 0.1], [0.0, 1.0]]
        """
        self._add_noisy(name, parents, weights, leak, states, description, dual=True)

    def _add_noisy(self, name, parents, weights, leak, states, description, dual) -> None:
        parents = tuple(parents)

        def fill() -> None:
            given = checked_weights(name, parents, weights)
            shape = tuple(self.cardinality(p) for p in parents) + (len(self.states(name)),)
            self._set_canonical(name, canonical_tables.noisy_or(
                shape, [given[p] for p in parents], leak, name, parents, dual))

        self.add_variable(name, states, description)
        self._fill_new(name, parents, fill)

    def add_noisy_max(self, name: str, states: Sequence[str], parents: Sequence[str],
                      weights: Mapping[str, object], leak=None,
                      description: str | None = None) -> None:
        """Add a graded variable whose table is the noisy-MAX of its parents:

            P(Y ≤ y | u) = L(≤ y) · Π_i C_i[u_i](≤ y)

        ``states`` are Y's states from the lowest; each parent's first state is "absent"
        (it contributes Y's lowest state). ``weights[parent]`` gives, for each of the
        parent's other states, P(Y = y | that state, every other cause absent, no leak),
        shape ``(|U| − 1, |Y|)``; ``leak`` the distribution of Y when every cause is
        absent (default: the lowest state).

        Parameters
        ----------
        name : str
            The new variable.
        states : sequence of str
            Its states, lowest first.
        parents : sequence of str
            Its causes.
        weights : mapping
            ``{parent: rows}`` as above, every parent.
        leak : array_like, optional
            ``|Y|`` numbers summing to 1.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a missing or unknown weight, a row of the wrong size or that does not sum
            to 1.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["none", "some"], table=[0.5, 0.5])
        >>> net.add_noisy_max("Y", ["low", "mid", "high"], ["A"],
        ...                   weights={"A": [[0.2, 0.5, 0.3]]}, leak=[0.9, 0.1, 0.0])
        >>> net.cpt_array("Y")[1].round(3).tolist()       # P(Y ≤ y) = 0.2·0.9, 0.7·1, 1
        [0.18, 0.52, 0.3]
        """
        parents = tuple(parents)

        def fill() -> None:
            given = checked_weights(name, parents, weights)
            shape = tuple(self.cardinality(p) for p in parents) + (len(self.states(name)),)
            self._set_canonical(name, canonical_tables.noisy_max(
                shape, [given[p] for p in parents], leak, name, parents))

        self.add_variable(name, states, description)
        self._fill_new(name, parents, fill)

    def add_logistic(self, name: str, parents: Sequence[str], weights: Mapping[str, float],
                     bias: float = 0.0, states: Sequence[str] = ("F", "T"),
                     description: str | None = None) -> None:
        """Add a binary variable with a logistic table:

            P(Y = T | u) = σ(b + Σ_i w_i · u_i),     σ(s) = 1 / (1 + e^(−s))

        u_i is the index of parent i's state (0, 1, ...), or the value of a continuous
        (Gaussian) parent. Without continuous parents it is kept and answered as its full
        table (memory checked), which :meth:`cpt` shows; with one, it is the two-state
        softmax form of :meth:`add_softmax` (answered approximately, ``method="lw"``).

        Parameters
        ----------
        name : str
            The new variable.
        parents : sequence of str
            Its parents.
        weights : mapping
            ``{parent: w_i}``, every parent.
        bias : float, default 0
            b.
        states : sequence of str, default ("F", "T")
            Y's states.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a missing or unknown weight.
        MemoryLimitError
            When the full table does not fit the memory limit.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["F", "T"], table=[0.5, 0.5])
        >>> net.add_logistic("Y", ["A"], weights={"A": 2.0}, bias=-1.0)
        >>> net.cpt_array("Y")[:, 1].round(4).tolist()
        [0.2689, 0.7311]
        """
        parents = tuple(parents)
        if any(p in self._nodes and self._nodes[p].kind for p in parents):
            self._logistic_softmax(name, parents, checked_weights(name, parents, weights), bias,
                                   states, description)
            return

        def fill() -> None:
            given = checked_weights(name, parents, weights)
            shape = tuple(self.cardinality(p) for p in parents) + (len(self.states(name)),)
            self._set_canonical(name, canonical_tables.logistic(
                shape, [float(given[p]) for p in parents], bias, name))

        self.add_variable(name, states, description)
        self._fill_new(name, parents, fill)

    def add_deterministic(self, name: str, parents: Sequence[str], function: Callable,
                          states: Sequence[str] | None = None,
                          description: str | None = None) -> None:
        """Add a variable that is a function of its parents: P(Y = f(u) | u) = 1.

        ``function`` is called once per parent configuration with the parents' states
        (strings, in the order of ``parents``) and returns Y's state; ``states`` default
        to the values it returns, in the order first met.

        Parameters
        ----------
        name : str
            The new variable.
        parents : sequence of str
            Its parents.
        function : callable
            ``function(*parent_states) -> state``.
        states : sequence of str, optional
            Y's states.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            When ``function`` returns a value that is not one of ``states``.
        MemoryLimitError
            When the full table does not fit the memory limit.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> for u in "AB":
        ...     net.add_variable(u, ["0", "1"], table=[0.5, 0.5])
        >>> net.add_deterministic("xor", ["A", "B"], lambda a, b: str(int(a != b)),
        ...                       states=["0", "1"])
        >>> round(net.probability({"xor": "1"}), 6)
        0.5
        """
        parents = tuple(parents)
        for p in parents:
            self._require(p, f" (named as a parent of {name!r})")
        configurations = list(itertools.product(*(self.states(p) for p in parents)))
        check_allocation(len(configurations), f"the deterministic table of {name!r}")
        values = [str(function(*c)) for c in configurations]
        if states is None:
            states = tuple(dict.fromkeys(values))
        states = tuple(map(str, states))
        index = {s: i for i, s in enumerate(states)}
        for c, value in zip(configurations, values):
            if value not in index:
                shown = ", ".join(f"{p}={s}" for p, s in zip(parents, c))
                raise ModelError(f"the function of {name!r} returns {value!r} at {shown}, "
                                 f"which is not one of its states {list(states)}"
                                 f"{suggest(value, states)}")
        table = np.zeros((len(values), len(states)))
        table[np.arange(len(values)), [index[v] for v in values]] = 1.0
        shape = tuple(self.cardinality(p) for p in parents) + (len(states),)

        def fill() -> None:
            self._set_canonical(name, canonical_tables.deterministic(table.reshape(shape)))

        self.add_variable(name, states, description)
        self._fill_new(name, parents, fill)

    def canonical(self, variable: str) -> canonical_tables.Canonical | None:
        """The compact table of ``variable`` (:class:`~bbn.model.canonical.Canonical`), or
        None for a full table.

        Parameters
        ----------
        variable : str
            A variable of the network.

        Returns
        -------
        Canonical or None

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["F", "T"], table=[0.5, 0.5])
        >>> net.add_noisy_or("Y", ["A"], weights={"A": 0.9})
        >>> net.canonical("Y").kind, net.canonical("A")
        ('noisy-or', None)
        """
        return self._require(variable).compact

    # ----------------------------------------------------------------- helpers
    def _fill_new(self, name: str, parents: tuple, fill: Callable[[], None]) -> None:
        """Parents and compact table of the just-added ``name``; all or nothing."""
        try:
            if parents:
                self.set_parents(name, parents)
            fill()
        except BaseException:
            self._drop(name)
            raise

    def _logistic_softmax(self, name: str, parents: tuple, given: dict, bias: float,
                          states: Sequence[str], description: str | None) -> None:
        """A logistic with continuous parents as its softmax: a_T(d) = b + Σ w_j·d_j over
        the discrete parents, w_T = w_i for the continuous ones, a_F = w_F = 0."""
        discrete = [p for p in parents if not self._nodes[p].kind]
        bias, weights = logistic_as_softmax(
            tuple(self.cardinality(p) for p in discrete), [given[p] for p in discrete],
            {p: given[p] for p in parents if self._nodes[p].kind}, bias)
        self.add_softmax(name, states, parents, bias=bias, weights=weights,
                         description=description)

    def _set_canonical(self, name: str, spec: canonical_tables.Canonical) -> None:
        node = self._nodes[name]
        entries = int(np.prod([self.cardinality(p) for p in node.parents])) * len(node.states)
        table = spec.table
        if table is None and entries <= canonical_tables.KEEP_FULL_UP_TO:
            table = canonical_tables.full_table(spec)
        if table is not None:
            table = np.ascontiguousarray(table, dtype=float)
            table.setflags(write=False)
        node.table = table
        node.positive = bool(table is not None and (table > 0).all())
        node.compact = spec
        self._changed()


def logistic_as_softmax(shape: tuple, discrete: Sequence[float], continuous: Mapping,
                        bias: float) -> tuple[np.ndarray, dict]:
    """A logistic P(Y = T | d, y) = σ(b + Σ_j w_j·d_j + Σ_i w_i·y_i) as its softmax:
    a_T(d) = b + Σ_j w_j·d_j over the discrete parents (state indices d_j, ``shape``
    their numbers of states, ``discrete`` their w_j), w_T = w_i for the continuous ones
    (``continuous``: {parent: w_i}), a_F = w_F = 0. Returns (bias of shape
    ``shape + (2,)``, {parent: [0, w_i]}).

    >>> bias, weights = logistic_as_softmax((2,), [1.5], {"x": 2.0}, -1.0)
    >>> bias.tolist(), weights
    ([[0.0, -1.0], [0.0, 0.5]], {'x': [0.0, 2.0]})
    """
    score = np.full(shape, float(bias))
    for i, (w, n) in enumerate(zip(discrete, shape)):
        score = score + float(w) * np.arange(n).reshape(
            [-1 if j == i else 1 for j in range(len(shape))])
    return (np.stack([np.zeros(shape), score], -1),
            {p: [0.0, float(w)] for p, w in continuous.items()})



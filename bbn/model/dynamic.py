"""Dynamic Bayesian networks as two-slice networks (2-TBNs).

    P(x_0:T-1) = Π_v P_0(v_0 | pa_0(v)) · Π_{t≥1} Π_v P(v_t | pa(v) in slices t and t-1)

A variable's parents are named in its own slice (``"Rain"``) or in the slice before
(``"Rain[-1]"``); slice 0 has its own table (``initial=``) over the parents of the same
slice. The variables of step t are named ``Rain[t]`` (:func:`slice_name`) in the networks
that :meth:`DynamicNetwork.two_slice` (steps 0 and 1) and :meth:`DynamicNetwork.unroll`
give — ordinary :class:`bbn.Network` s on which every question works, the query language
included (``P(Rain[2] | Umbrella[0]=T)``). The questions over time (filter, smooth,
predict, Viterbi, the log-likelihood) take a DataFrame of findings, one row per step (and
a sequence-id column for many sequences), and are answered by the interface algorithm of
:mod:`bbn.engines.exact.frontier` on the two-slice network, never the unrolled one.

>>> import bbn
>>> dbn = bbn.DynamicNetwork("umbrella")
>>> dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
...                  table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.5, 0.5])
>>> dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> dbn.unroll(3).variables[:4]
('Rain[0]', 'Umbrella[0]', 'Rain[1]', 'Umbrella[1]')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

import bbn.questions.findings as findings
from bbn.core.errors import ModelError, suggest
from bbn.model.network import Network

_LAGGED = re.compile(r"^(.*)\[(-?\d+)\]$")
_SLICES = re.compile(r"^(.+)\[([012])\]$")     # Rain[0], Rain[1] (Rain[2]: second order)
_AGRUM = re.compile(r"^(.+)(0|t)$")             # Rain0, Raint: pyAgrum's 2-TBN names
_NAMINGS = ("brackets", "pyagrum")


def slice_name(variable: str, step: int) -> str:
    """The name of ``variable`` at ``step`` in a two-slice or unrolled network.

    Examples
    --------
    >>> slice_name("Rain", 2)
    'Rain[2]'
    """
    return f"{variable}[{step}]"


def parent_lag(parent: str) -> tuple[str, int]:
    """``"Rain[-1]"`` → ``("Rain", -1)``; ``"Rain"`` → ``("Rain", 0)``.

    Examples
    --------
    >>> parent_lag("Rain[-1]"), parent_lag("Wet")
    (('Rain', -1), ('Wet', 0))
    """
    match = _LAGGED.match(parent)
    if match is None:
        return parent, 0
    return match.group(1), int(match.group(2))


class _Spec(NamedTuple):
    states: tuple[str, ...]
    parents: tuple[tuple[str, int], ...]
    table: object
    initial_parents: tuple[str, ...]
    initial: object
    description: str | None
    #: slice 1's own family, for a variable with a parent two slices before: its parents
    #: (as ``parents``, lags 0 and −1) and table
    second_parents: tuple[tuple[str, int], ...] = ()
    second: object = None


class DynamicNetwork:
    """A 2-TBN: the variables of one slice, their tables within a slice and from the slice
    before, and slice 0's tables.

    Parameters
    ----------
    name : str
        The network's name.

    Examples
    --------
    >>> dbn = DynamicNetwork("walk")
    >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"], table=[[0.9, 0.1], [0.2, 0.8]],
    ...                  initial=[1.0, 0.0])
    >>> dbn.variables, dbn.parents("X")
    (('X',), ('X[-1]',))
    """

    def __init__(self, name: str = "dbn") -> None:
        self.name = name
        self._specs: dict[str, _Spec] = {}
        self._two_slice: Network | None = None
        self._frontier = None
        self._first_order: DynamicNetwork | None = None  # a second-order one's equivalent

    # ------------------------------------------------------------- building
    def add_variable(self, name: str, states: Sequence, parents: Sequence[str] = (),
                     table=None, initial=None, initial_parents: Sequence[str] | None = None,
                     description: str | None = None, second=None,
                     second_parents: Sequence[str] | None = None) -> None:
        """Add a variable of every slice.

        Parameters
        ----------
        name : str
            The variable (without a slice suffix).
        states : sequence
            Its states.
        parents : sequence of str
            Its parents, in the order of ``table``'s axes: ``"Y"`` in the same slice,
            ``"Y[-1]"`` in the slice before, ``"Y[-2]"`` two slices before (a
            second-order arc).
        table : array_like, optional
            P(name_t | parents), as :meth:`bbn.Network.set_cpt` takes it; without it
            (and ``initial``) the variable is structure only, its tables to be learned
            (:func:`bbn.learn_dynamic`).
        initial : array_like, optional
            P(name_0 | initial_parents); needed with ``table`` when ``parents`` reach the
            slice before, else ``table`` is used in slice 0 too.
        initial_parents : sequence of str, optional
            The slice-0 parents (default: the same-slice ``parents``).
        description : str, optional
        second : array_like, optional
            P(name_1 | second_parents): slice 1's table, needed with ``table`` when
            ``parents`` reach two slices before (slice 1 has no slice −1).
        second_parents : sequence of str, optional
            Slice 1's parents, in the slice (``"Y"``) or slice 0 (``"Y[-1]"``); default:
            ``parents`` without those two slices before.

        Raises
        ------
        ModelError
            A duplicate name, a lag other than 0, −1 and −2, a missing initial (or
            second) table; an unknown parent or a bad table when the network is built.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> try:
        ...     dbn.add_variable("X", ["a", "b"], parents=["X[-1]"], table=[[1, 0], [0, 1]])
        ... except ModelError as error:
        ...     print(str(error)[-54:])
        the slice before: give its slice-0 table with initial=
        """
        name = str(name)
        if name in self._specs:
            raise ModelError(f"variable {name!r} is declared twice")
        if _LAGGED.match(name):
            raise ModelError(f"variable {name!r}: a name ending in [n] is kept for slices")
        lagged = tuple(parent_lag(str(p)) for p in parents)
        bad = [str(p) for p, (_, lag) in zip(parents, lagged) if lag not in (0, -1, -2)]
        if bad:
            raise ModelError(f"variable {name!r}: a parent is in its slice or one of the "
                             f"two before ([-1], [-2]); {bad[0]!r} is not")
        same = tuple(p for p, lag in lagged if lag == 0)
        if initial is None and table is not None:
            if len(same) != len(lagged):
                raise ModelError(f"variable {name!r} has parents in the slice before: give "
                                 "its slice-0 table with initial=")
            initial, initial_parents = table, same
        earlier = () if second_parents is None else tuple(parent_lag(str(p))
                                                           for p in second_parents)
        if any(lag == -2 for _, lag in lagged):
            if second_parents is None:
                earlier = tuple((p, lag) for p, lag in lagged if lag != -2)
            if second is None and table is not None:
                raise ModelError(f"variable {name!r} has parents two slices before: give "
                                 "its slice-1 table with second=")
        elif second is not None or second_parents is not None:
            raise ModelError(f"variable {name!r}: second= is slice 1's table of a variable "
                             "with a parent two slices before ([-2]); it has none")
        if any(lag not in (0, -1) for _, lag in earlier):
            raise ModelError(f"variable {name!r}: slice 1's parents are in slice 1 or 0")
        self._specs[name] = _Spec(tuple(map(str, states)), lagged, table,
                                  tuple(same if initial_parents is None else initial_parents),
                                  initial, description, earlier, second)
        self._two_slice = None
        self._frontier = None
        self._first_order = None

    @property
    def variables(self) -> tuple[str, ...]:
        """The variables of one slice, in order."""
        return tuple(self._specs)

    @property
    def order(self) -> int:
        """How many slices back the farthest parent is (1, or 2 with ``X[-2]``; 0 for
        slices with no arc between them).

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
        >>> dbn.order
        0
        """
        return max((-lag for spec in self._specs.values() for _, lag in spec.parents),
                   default=0)

    def second_parents(self, variable: str) -> tuple[str, ...]:
        """The parents of ``variable`` in slice 1 when it has a parent two slices before
        (``"Y[-1]"``: slice 0); else ``()``.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]", "X[-2]"],
        ...                  table=np.full((2, 2, 2), 0.5), initial=[0.5, 0.5],
        ...                  second=[[0.9, 0.1], [0.1, 0.9]])
        >>> dbn.second_parents("X"), dbn.order
        (('X[-1]',), 2)
        """
        return tuple(p if lag == 0 else f"{p}[{lag}]"
                     for p, lag in self._spec(variable).second_parents)

    def states(self, variable: str) -> tuple[str, ...]:
        """The states of ``variable``.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
        >>> dbn.states("X")
        ('a', 'b')
        """
        return self._spec(variable).states

    def parents(self, variable: str) -> tuple[str, ...]:
        """The parents of ``variable`` in slices t ≥ 1 (``"Y[-1]"``: the slice before).

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
        >>> dbn.parents("X")
        ()
        """
        return tuple(p if lag == 0 else f"{p}[{lag}]" for p, lag in self._spec(variable).parents)

    def static(self, variable: str) -> bool:
        """Whether ``variable`` has no parent in the slice before and the same table (and
        parents) in every slice, slice 0 included.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
        >>> dbn.static("X")
        True
        """
        spec = self._spec(variable)
        return (all(lag == 0 for _, lag in spec.parents) and spec.initial is spec.table
                and spec.initial_parents == tuple(p for p, _ in spec.parents))

    def _spec(self, variable: str) -> _Spec:
        try:
            return self._specs[variable]
        except KeyError:
            raise ModelError(f"unknown variable {variable!r}"
                             f"{suggest(str(variable), self._specs)}") from None

    @classmethod
    def from_two_slice(cls, net: Network) -> DynamicNetwork:
        """The 2-TBN of a two-slice network: its variables named ``X[0]`` and ``X[1]``
        (as :meth:`two_slice` writes them, so a saved two-slice network reads back) or
        ``X0`` and ``Xt`` (pyAgrum's 2-TBN convention, in a BIF file for instance).

        Slice 0's variables give the initial tables; slice 1's the tables of every later
        slice (a parent in slice 0 is in the slice before).

        Parameters
        ----------
        net : bbn.Network

        Returns
        -------
        DynamicNetwork

        Raises
        ------
        ModelError
            A variable named in neither convention, a variable missing in one slice, a
            slice-0 variable with a parent in slice 1.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network.assemble("rain", {"R0": ["y", "n"], "Rt": ["y", "n"]},
        ...                            parents={"Rt": ["R0"]},
        ...                            tables={"R0": [0.5, 0.5], "Rt": [[0.7, 0.3], [0.3, 0.7]]})
        >>> DynamicNetwork.from_two_slice(net).parents("R")
        ('R[-1]',)
        """
        names = net.variables
        pattern = _SLICES if all(_SLICES.match(v) for v in names) else _AGRUM
        split = {}
        for name in names:
            match = pattern.match(name)
            if match is None:
                raise ModelError(f"variable {name!r} is named in neither slice convention: "
                                 "X[0] and X[1], or pyAgrum's X0 and Xt")
            split[name] = (match.group(1), {"0": 0, "t": 1}.get(match.group(2)) or
                           int(match.group(2)))
        last = max((step for _, step in split.values()), default=1)
        slices = [{base: v for v, (base, step) in split.items() if step == k}
                  for k in range(max(last, 1) + 1)]
        for k in range(1, len(slices)):
            if set(slices[0]) != set(slices[k]):
                odd = sorted(set(slices[0]) ^ set(slices[k]))[0]
                raise ModelError(f"variable {odd!r} is in one slice only: a two-slice network "
                                 "has every variable in both (a three-slice one in all three)")
        dbn = cls(net.name)
        for base, name in slices[0].items():
            initial_parents = [split[p] for p in net.parents(name)]
            if any(step for _, step in initial_parents):
                raise ModelError(f"variable {name!r} of slice 0 has a parent in slice 1")
            final = slices[-1][base]
            lagged = [(b, step - last) for b, step in (split[p] for p in net.parents(final))]
            second = second_parents = None
            if last == 2:
                second, second_parents = _second(net, base, slices[1][base], split, lagged)
            dbn.add_variable(base, net.states(name),
                             parents=[b if lag == 0 else f"{b}[{lag}]" for b, lag in lagged],
                             table=_table(net, final), initial=_table(net, name),
                             initial_parents=[b for b, _ in initial_parents],
                             description=net.description(name), second=second,
                             second_parents=second_parents)
        return dbn

    # ------------------------------------------------------------- networks
    def unroll(self, steps: int) -> Network:
        """The ordinary network of ``steps`` slices: variables ``X[0]``, ``X[1]``, …

        Parameters
        ----------
        steps : int
            How many slices (≥ 1).

        Returns
        -------
        bbn.Network

        Raises
        ------
        ModelError
            An unknown parent (with did-you-mean), a bad table, a cycle in a slice.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
        ...                  table=[[0.9, 0.1], [0.2, 0.8]], initial=[0.5, 0.5])
        >>> net = dbn.unroll(2)
        >>> net.parents("X[1]"), net.posterior("X[1]").to_dict()["a"]
        (('X[0]',), 0.55)
        """
        steps = int(steps)
        if steps < 1:
            raise ModelError(f"a network unrolls to at least one slice, not {steps}")
        for variable, spec in self._specs.items():
            for parent, _ in (*spec.parents, *spec.second_parents,
                              *((p, 0) for p in spec.initial_parents)):
                if parent not in self._specs:
                    raise ModelError(f"variable {variable!r}: unknown parent {parent!r}"
                                     f"{suggest(parent, self._specs)}")
        states, parents, tables, descriptions = {}, {}, {}, {}
        for t in range(steps):
            for variable, spec in self._specs.items():
                name = slice_name(variable, t)
                states[name] = spec.states
                descriptions[name] = spec.description
                if t == 0:
                    parents[name] = [slice_name(p, 0) for p in spec.initial_parents]
                    tables[name] = spec.initial
                elif t == 1 and _second_order(spec):  # no slice −1 for X[-2]
                    parents[name] = [slice_name(p, t + lag) for p, lag in spec.second_parents]
                    tables[name] = spec.second
                else:
                    parents[name] = [slice_name(p, t + lag) for p, lag in spec.parents]
                    tables[name] = spec.table
        return Network.assemble(self.name, states, parents,
                                {k: v for k, v in tables.items() if v is not None},
                                {k: v for k, v in descriptions.items() if v is not None})

    def two_slice(self, names: str = "brackets") -> Network:
        """The network of slices 0 and 1 (:meth:`unroll` of 2): what the questions over
        time run on (built once).

        Parameters
        ----------
        names : {"brackets", "pyagrum"}
            The variables named ``X[0]`` and ``X[1]``, or ``X0`` and ``Xt`` (pyAgrum's
            2-TBN convention: ``pyagrum.lib.dynamicBN`` unrolls such a network, and every
            file format can name them). :meth:`from_two_slice` reads either back.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
        >>> dbn.two_slice().variables, dbn.two_slice("pyagrum").variables
        (('X[0]', 'X[1]'), ('X0', 'Xt'))
        """
        if self._two_slice is None:
            self._two_slice = self.unroll(2)
        if names == "brackets":
            return self._two_slice
        if names != "pyagrum":
            raise ModelError(f"names={names!r}: the two slices are named 'brackets' (X[0], "
                             f"X[1]) or 'pyagrum' (X0, Xt){suggest(str(names), _NAMINGS)}")
        two = self._two_slice
        renamed = {f"{v}[{step}]": f"{v}{'0t'[step]}" for v in self._specs for step in (0, 1)}
        return Network.assemble(
            two.name, {renamed[v]: two.states(v) for v in two.variables},
            {renamed[v]: [renamed[p] for p in two.parents(v)] for v in two.variables},
            {renamed[v]: two.cpt_array(v) for v in two.variables if two.has_cpt(v)},
            {renamed[v]: two.description(v) for v in two.variables if two.description(v)})

    def slices(self) -> Network:
        """The slices that hold every table: :meth:`two_slice`, or for a second-order
        network slices 0, 1 and 2 (:meth:`unroll` of 3) — what ``bbn info``, ``check``
        and ``render`` show.

        Examples
        --------
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-2]"])
        >>> dbn.slices().variables
        ('X[0]', 'X[1]', 'X[2]')
        """
        return self.two_slice() if self.order < 2 else self.unroll(self.order + 1)

    # ------------------------------------------------------------- questions
    def filter(self, data, variables: Sequence[str] | None = None,
               sequence_id: str | None = None):
        """P(X_t | e_1:t) at every step of every sequence.

        Parameters
        ----------
        data : pandas.DataFrame
            One row per step: findings in columns named for variables (missing cells
            unobserved), in time order within each sequence.
        variables : sequence of str, optional
            The variables asked about (default: every variable not in ``data``).
        sequence_id : str, optional
            The column naming each row's sequence (rows of a sequence in order).

        Returns
        -------
        pandas.DataFrame
            ``data``'s index; columns ``(variable, state)``.

        Raises
        ------
        QueryError
            An unknown column, variable or state (with did-you-mean).
        ImpossibleEvidenceError
            Findings of probability 0.

        Examples
        --------
        >>> import pandas as pd
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
        ...                  table=[[0.5, 0.5], [0.5, 0.5]], initial=[0.5, 0.5])
        >>> dbn.add_variable("O", ["x", "y"], parents=["X"], table=[[0.8, 0.2], [0.2, 0.8]])
        >>> dbn.filter(pd.DataFrame({"O": ["x"]})).to_numpy().round(2).tolist()
        [[0.8, 0.2]]
        """
        return findings.filtered(self._answering(), data, self._asked(data, variables),
                                 sequence_id)

    def smooth(self, data, variables: Sequence[str] | None = None,
               sequence_id: str | None = None):
        """P(X_t | e_1:T) at every step of every sequence (forward–backward over the
        interface).

        Parameters
        ----------
        data, variables, sequence_id
            As :meth:`filter`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
        ...                  table=[[0.9, 0.1], [0.1, 0.9]], initial=[0.5, 0.5])
        >>> dbn.add_variable("O", ["x", "y"], parents=["X"], table=[[1.0, 0.0], [0.5, 0.5]])
        >>> dbn.smooth(pd.DataFrame({"O": ["y", "y"]})).to_numpy()[0].tolist()
        [0.0, 1.0]
        """
        return findings.smoothed(self._answering(), data, self._asked(data, variables),
                                 sequence_id)

    def predict(self, data, h: int = 1, variables: Sequence[str] | None = None,
                sequence_id: str | None = None):
        """P(X_{T+h} | e_1:T): h steps after each sequence's last row.

        Parameters
        ----------
        data, variables, sequence_id
            As :meth:`filter`.
        h : int, default 1

        Returns
        -------
        pandas.DataFrame
            One row per sequence (index: the sequence ids, or 0).

        Examples
        --------
        >>> import pandas as pd
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
        ...                  table=[[0.9, 0.1], [0.1, 0.9]], initial=[1.0, 0.0])
        >>> dbn.predict(pd.DataFrame(index=range(1)), 1).to_numpy().tolist()
        [[0.9, 0.1]]
        """
        return findings.predicted(self._answering(), data, h, self._asked(data, variables),
                                  sequence_id)

    def viterbi(self, data, sequence_id: str | None = None):
        """The most probable states of every variable at every step given the findings,
        and log P(x*, e) per sequence.

        Parameters
        ----------
        data, sequence_id
            As :meth:`filter`.

        Returns
        -------
        (pandas.DataFrame, pandas.Series)
            The states (``data``'s index, a column per variable) and the log-probability
            of each sequence's best explanation.

        Examples
        --------
        >>> import pandas as pd
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
        ...                  table=[[0.9, 0.1], [0.1, 0.9]], initial=[0.5, 0.5])
        >>> dbn.add_variable("O", ["x", "y"], parents=["X"], table=[[0.9, 0.1], [0.1, 0.9]])
        >>> dbn.viterbi(pd.DataFrame({"O": ["x", "y", "y"]}))[0]["X"].tolist()
        ['a', 'b', 'b']
        """
        states, scores = findings.most_probable(self._answering(), data, sequence_id)
        return (states if self.order < 2 else states[list(self.variables)]), scores

    def log_likelihood(self, data, sequence_id: str | None = None):
        """log P(e_1:T): a float, or a Series per sequence with ``sequence_id``.

        Parameters
        ----------
        data, sequence_id
            As :meth:`filter`.

        Returns
        -------
        float or pandas.Series

        Examples
        --------
        >>> import pandas as pd
        >>> dbn = DynamicNetwork()
        >>> dbn.add_variable("X", ["a", "b"], table=[0.25, 0.75])
        >>> round(float(dbn.log_likelihood(pd.DataFrame({"X": ["a", "b"]}))), 6)
        -1.673976
        """
        return findings.log_likelihood(self._answering(), data, sequence_id)

    def _answering(self) -> DynamicNetwork:
        """What the interface algorithm runs on: this network, or for a second-order one
        its first-order equivalent (:func:`first_order`, made once)."""
        if self.order < 2:
            return self
        if self._first_order is None:
            self._first_order = first_order(self)
        return self._first_order

    def _asked(self, data, variables):
        """The variables a question over time asks about: ``variables``, or by default
        (for a second-order network, whose equivalent has more) those not in ``data``."""
        if variables is not None or self.order < 2:
            return variables
        hidden = [v for v in self.variables if v not in data.columns]
        return hidden or list(self.variables)

    def __repr__(self) -> str:
        return f"DynamicNetwork({self.name!r}, {len(self._specs)} variables per slice)"


def require_first_order(dbn: DynamicNetwork, what: str) -> None:
    """A ModelError when ``dbn`` has a parent two slices before, for ``what`` (learning,
    which counts pairs of consecutive slices).

    >>> require_first_order(DynamicNetwork(), "bbn.learn_dynamic")
    """
    if dbn.order > 1:
        raise ModelError(f"{what} learns networks whose parents are in the slice or the "
                         "one before; this one has a parent two slices before ([-2])")


def _second_order(spec: _Spec) -> bool:
    """Whether a variable has a parent two slices before."""
    return any(lag == -2 for _, lag in spec.parents)


#: The state of a copy X_{t-1} in slice 0, where X_{-1} does not exist.
NONE = "none"


def first_order(dbn: DynamicNetwork) -> DynamicNetwork:
    """The first-order 2-TBN equivalent to a second-order one: for every Y with a child
    two slices on, a copy ``"Y (t-1)"`` holding Y_{t-1} (a deterministic child of
    ``Y[-1]``; in slice 0 the extra state ``none``), and each ``Y[-2]`` parent read as
    the copy in the slice before. A child's table at a configuration where a copy is
    ``none`` — slice 1, and only there — is its slice-1 table; elsewhere its own table:

        X_t ~ P(X | pa_0, pa_-1, Y_{t-2})   read as   P(X | pa_0, pa_-1, (Y (t-1))_{t-1})

    The joint of the original variables is the same, so every question over time (and
    the interface algorithm, whose interface now spans two slices) answers the same.

    Examples
    --------
    >>> dbn = DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], parents=["X[-2]"], table=[[1.0, 0.0], [0.0, 1.0]],
    ...                  initial=[1.0, 0.0], second=[0.0, 1.0])
    >>> equivalent = first_order(dbn)
    >>> equivalent.parents("X"), equivalent.states("X (t-1)")
    (('X (t-1)[-1]',), ('a', 'b', 'none'))
    >>> equivalent.unroll(4).posterior("X[3]").values.tolist()    # a, b, a, b
    [0.0, 1.0]
    """
    specs = dbn._specs
    copies = {}
    for spec in specs.values():
        for parent, lag in spec.parents:
            if lag == -2 and parent not in copies:
                name = f"{parent} (t-1)"
                while name in specs or name in copies.values():
                    name += "'"
                copies[parent] = name
    equivalent = DynamicNetwork(dbn.name)
    for variable, spec in specs.items():
        keys = [(copies[p], -1) if lag == -2 else (p, lag) for p, lag in spec.parents]
        if not _second_order(spec):
            equivalent._specs[variable] = spec
            continue
        keys += [key for key in spec.second_parents if key not in keys]
        table = spec.table
        if table is not None:
            table = _spread_second(spec, keys, copies, {v: len(s.states)
                                                        for v, s in specs.items()})
        equivalent._specs[variable] = spec._replace(
            parents=tuple(keys), table=table, second_parents=(), second=None)
    for parent, name in copies.items():
        states = specs[parent].states
        k = len(states)
        # a new state name where one of the parent's is "none"
        extra = NONE if NONE not in states else next(
            f"{NONE}{i}" for i in range(1, k + 2) if f"{NONE}{i}" not in states)
        equivalent._specs[name] = _Spec(
            (*states, extra), ((parent, -1),), np.eye(k, k + 1), (),
            np.eye(1, k + 1, k)[0], None)
    return equivalent


def _spread_second(spec: _Spec, keys: list, copies: dict[str, str],
                   cards: dict[str, int]) -> np.ndarray:
    """A second-order variable's table over ``keys`` (its parents, each ``Y[-2]`` a copy
    of Y one slice back, then slice 1's other parents): its own numbers where no copy is
    ``none``, slice 1's table where one is."""
    copied = {name: parent for parent, name in copies.items()}
    card = len(spec.states)
    size = [cards[copied[p]] + 1 if p in copied else cards[p] for p, _ in keys]
    own = [(copies[p], -1) if lag == -2 else (p, lag) for p, lag in spec.parents]
    result = np.empty((*size, card))
    second = np.asarray(spec.second, dtype=float).reshape(
        [cards[p] for p, _ in spec.second_parents] + [card])
    result[...] = _aligned(second, list(spec.second_parents), keys)
    table = np.asarray(spec.table, dtype=float).reshape(
        [cards[p] for p, _ in spec.parents] + [card])
    inner = tuple(slice(0, n - 1) if p in copied else slice(None)
                  for (p, _), n in zip(keys, size))
    result[inner] = _aligned(table, own, keys)
    return result


def _aligned(table: np.ndarray, axes: list, keys: list) -> np.ndarray:
    """``table`` (axes ``axes``, then the variable's) laid on ``keys`` then the
    variable's axis, with a length-1 axis for each key it lacks (to broadcast)."""
    moved = table.transpose([axes.index(k) for k in keys if k in axes] + [len(axes)])
    sizes = iter(moved.shape[:-1])
    return moved.reshape([next(sizes) if k in axes else 1 for k in keys] + [moved.shape[-1]])


def _second(net: Network, base: str, middle: str, split: dict, lagged: list) -> tuple:
    """Slice 1's table and parents of ``base`` in a three-slice network (second order):
    ``(None, None)`` when its family in slice 2 has no parent in slice 0, and then its
    slice-1 family must be the same one slice earlier."""
    parents = [(b, step - 1) for b, step in (split[p] for p in net.parents(middle))]
    if any(lag < -1 for _, lag in parents):
        raise ModelError(f"variable {middle!r} of slice 1 has a parent in slice 2")
    if any(lag == -2 for _, lag in lagged):
        return _table(net, middle), [b if lag == 0 else f"{b}[{lag}]" for b, lag in parents]
    final = next(v for v, (b, step) in split.items() if b == base and step == 2)
    if parents != lagged or net.has_cpt(middle) != net.has_cpt(final) or (
            net.has_cpt(middle) and not np.array_equal(net.cpt_array(middle),
                                                       net.cpt_array(final))):
        raise ModelError(f"variable {base!r} has no parent two slices before, so its "
                         f"tables in slices 1 and 2 are one: {middle!r} and {final!r} differ")
    return None, None


def _table(net: Network, variable: str):
    """``variable``'s table, or None in a network of structure only."""
    return net.cpt_array(variable) if net.has_cpt(variable) else None


def with_tables(dbn: DynamicNetwork, initial: dict, transition: dict) -> DynamicNetwork:
    """A copy of ``dbn`` with slice 0's tables ``initial`` and the later slices' tables
    ``transition`` (``{variable: array}``; a variable absent keeps its table).

    Examples
    --------
    >>> dbn = DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    >>> with_tables(dbn, {"X": [0.1, 0.9]}, {"X": [0.2, 0.8]}).unroll(1).cpt_array("X[0]").tolist()
    [0.1, 0.9]
    """
    copy = DynamicNetwork(dbn.name)
    for variable, spec in dbn._specs.items():
        copy._specs[variable] = spec._replace(table=transition.get(variable, spec.table),
                                              initial=initial.get(variable, spec.initial))
    return copy

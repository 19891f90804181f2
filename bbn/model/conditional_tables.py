"""The conditional probability tables of a network: setting, reading and checking them.

    P(X1, ..., Xn) = Π_i P(Xi | parents(Xi)),   Σ_x P(x | pa) = 1

:class:`ConditionalTables` holds the methods of :class:`bbn.Network` about tables (a
mixin: the network holds the :class:`~bbn.model.variables.Variable` records in
``_nodes``); reading a table in any form and checking its rows is
:mod:`bbn.model.variables`'s.

>>> import bbn
>>> bbn.load("models/chair.bn").cpt_array("C").tolist()
[0.8, 0.2]
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bbn.core.errors import ModelError
from bbn.core.factor import Factor
from bbn.model.canonical import full_table as compact_in_full
from bbn.model.variables import (
    PackedTables,
    Variable,
    checked_table,
    configuration_text,
    family_text,
    set_all,
    table_problems,
    unpacked,
)
from bbn.questions.resolution import continuous_error
from bbn.views.compiled import missing_table


class ConditionalTables:
    """The tables of a :class:`bbn.Network`: P(X | parents) for each discrete variable.

    Examples
    --------
    >>> import bbn
    >>> bbn.load("models/chair.bn").has_cpt("A")
    True
    """

    _nodes: dict[str, Variable]

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
        >>> import bbn
        >>> net = bbn.Network.assemble("rain", {"Rain": ["yes", "no"], "Wet": ["yes", "no"]},
        ...                            {"Wet": ["Rain"]})
        >>> net.set_cpt("Wet", {"yes": [0.9, 0.1], "no": [0.2, 0.8]})
        >>> net.cpt_array("Wet").tolist()
        [[0.9, 0.1], [0.2, 0.8]]
        """
        array, positive = checked_table(self._nodes, variable, table, normalize)
        node = self._nodes[variable]
        node.table = array
        node.compact = None  # a full table replaces a compact one
        # Inference may drop d-separated tables only when they cannot make P(e) zero.
        node.positive = positive
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
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("A", ["a", "b"])
        >>> net.add_variable("B", ["x", "y"], parents=["A"])
        >>> net.set_cpts({"A": [0.3, 0.7], "B": [[0.9, 0.1], [0.5, 0.5]]})
        >>> net.cpt_array("B")[1].tolist()
        [0.5, 0.5]
        """
        if set_all(tables, self._nodes, normalize):
            self._changed()
            return
        for variable, table in unpacked(self._nodes, tables).items():  # one at a time says what
            self.set_cpt(variable, table, normalize)             # is wrong

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
        >>> import bbn
        >>> net = bbn.Network.assemble("n", {"A": ["a", "b"]})
        >>> net.has_cpt("A")
        False
        """
        node = self._require(variable)
        return node.table is not None or node.compact is not None

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
        if node.kind:
            raise continuous_error(variable, "table")
        table = node.table
        if table is None:
            if node.compact is not None and node.compact.kind == "softmax":
                raise ModelError(f"{variable!r} has continuous parents (softmax form): it "
                                 f"has no table; see net.canonical({variable!r})")
            if node.compact is not None:  # a large compact table, made in full on demand
                return compact_in_full(node.compact, f"the full table of {variable!r}")
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
        return all(node.table is not None or node.compact is not None
                   for node in self._nodes.values())

    def validate(self) -> list[str]:
        """Every problem of the model, as messages; empty when it is a valid network.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network.assemble("n", {"A": ["a", "b"], "B": ["x", "y"]},
        ...                            tables={"A": [0.5, 0.5]})
        >>> net.validate()
        ["variable 'B' has no table"]
        """
        problems = []
        for v, node in self._nodes.items():
            if node.table is None and node.compact is None:
                problems.append(f"variable {v!r} has no table")
            elif not node.kind:  # Gaussian ones are checked when set
                problems.extend(table_problems(self._nodes, v, node.table))
        return problems

    def free_parameters(self) -> int:
        """Σ_i (|Xi| − 1) · Π_{P ∈ parents(Xi)} |P|: the numbers the network stores.

        A Gaussian variable stores μ, σ² and one weight per continuous parent, per
        configuration of its discrete parents; a softmax variable (discrete with m
        continuous parents) (|X| − 1) · (1 + m) per configuration of its discrete ones.

        Returns
        -------
        int

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").free_parameters()
        10
        """
        def stored(v: str) -> int:
            parents = self.parents(v)
            if self.is_gaussian(v):
                continuous = sum(self.is_gaussian(p) for p in parents)
                return (2 + continuous) * int(np.prod([self.cardinality(p) for p in parents
                                                       if not self.is_gaussian(p)]))
            continuous = sum(self.is_gaussian(p) for p in parents)
            return (self.cardinality(v) - 1) * (1 + continuous) * int(np.prod(
                [self.cardinality(p) for p in parents if not self.is_gaussian(p)]))

        return sum(stored(v) for v in self.variables)

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
        return family_text(self._nodes, variable)

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
        return configuration_text(self._nodes, variable, index)

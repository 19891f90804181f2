"""The factor: a table of non-negative numbers over named discrete variables.

A factor φ(X1, ..., Xk) is a numpy array with one axis per variable, in the order of
``variables``; ``states[X]`` names the entries along X's axis. Conditional probability
tables, intermediate results of inference, learned counts and posteriors are all
factors: this one type is what inference, learning and classification exchange.

>>> f = Factor(["A"], {"A": ["T", "F"]}, [0.25, 0.75])
>>> g = Factor(["A", "B"], {"A": ["T", "F"], "B": ["T", "F"]}, [[0.5, 0.5], [0.25, 0.75]])
>>> (f * g).sum_out(["A"]).to_dict()      # Σ_a f(a) g(a, B): 1/8 + 3/16, 1/8 + 9/16
{'T': 0.3125, 'F': 0.6875}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

import bbn.core.html_tables as html_tables
from bbn.core.errors import ImpossibleEvidenceError, ModelError, QueryError, suggest


class Factor:
    """A numpy array with named axes.

    Parameters
    ----------
    variables : sequence of str
        The names of the axes, in order.
    states : mapping of str to sequence of str
        For each variable, its state names in axis order (extra keys are ignored).
    values : array_like
        Anything ``numpy.asarray`` accepts, of shape ``(|X1|, ..., |Xk|)`` or of that
        many entries (reshaped, last variable fastest).

    Raises
    ------
    ModelError
        Repeated variables, or values that do not fit the shape (a ValueError too).

    Examples
    --------
    >>> f = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]}, [0.1, 0.2, 0.3, 0.4])
    >>> f.variables, f.shape, f.values.tolist()
    (('A', 'B'), (2, 2), [[0.1, 0.2], [0.3, 0.4]])
    """

    __slots__ = ("variables", "states", "values")

    def __init__(self, variables: Sequence[str], states: Mapping[str, Sequence[str]],
                 values) -> None:
        self.variables: tuple[str, ...] = tuple(variables)
        if len(set(self.variables)) != len(self.variables):
            raise ModelError(f"a factor's variables must be distinct, got {self.variables}")
        self.states: dict[str, tuple[str, ...]] = {v: tuple(states[v]) for v in self.variables}
        values = np.asarray(values, dtype=float)
        shape = tuple(len(self.states[v]) for v in self.variables)
        if values.shape != shape:
            if values.size != int(np.prod(shape)):
                raise ModelError(f"values of shape {values.shape} do not fit variables "
                                 f"{self.variables} with shape {shape}")
            values = values.reshape(shape)
        self.values: np.ndarray = values

    @classmethod
    def unchecked(cls, variables: tuple[str, ...], states: Mapping[str, tuple[str, ...]],
                  values: np.ndarray) -> Factor:
        """A factor from parts already checked, as the engines build their answers: no
        copy and no check (the constructor's take 2 µs, as long as a small query).

        Parameters
        ----------
        variables : tuple of str
            Distinct names, in axis order.
        states : mapping of str to tuple of str
            Each variable's states, for exactly those variables.
        values : numpy.ndarray
            Float values of shape ``tuple(len(states[v]) for v in variables)``.

        Returns
        -------
        Factor

        Examples
        --------
        >>> Factor.unchecked(("A",), {"A": ("T", "F")}, np.array([0.25, 0.75])).to_dict()
        {'T': 0.25, 'F': 0.75}
        """
        factor = cls.__new__(cls)
        factor.variables, factor.states, factor.values = variables, states, values
        return factor

    # ------------------------------------------------------------------ basics
    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    def cardinality(self, variable: str) -> int:
        """The number of states of ``variable``.

        Parameters
        ----------
        variable : str
            One of the factor's variables.

        Returns
        -------
        int

        Examples
        --------
        >>> Factor(["A"], {"A": ["lo", "mid", "hi"]}, [0.2, 0.3, 0.5]).cardinality("A")
        3
        """
        return len(self.states[variable])

    def copy(self) -> Factor:
        """A factor with its own copy of the values.

        Returns
        -------
        Factor

        Examples
        --------
        >>> f = Factor(["A"], {"A": ["T", "F"]}, [0.5, 0.5])
        >>> g = f.copy(); g.values[0] = 1.0
        >>> f.values.tolist()
        [0.5, 0.5]
        """
        return Factor(self.variables, self.states, self.values.copy())

    def __repr__(self) -> str:
        return f"Factor({list(self.variables)}, shape={self.values.shape})"

    def __str__(self) -> str:
        return self.to_text()

    def __eq__(self, other: object) -> bool:
        """Same variables in the same order, same states, and identical values."""
        if not isinstance(other, Factor):
            return NotImplemented
        return (self.variables == other.variables and self.states == other.states
                and np.array_equal(self.values, other.values))

    __hash__ = None  # mutable container

    def allclose(self, other: Factor, atol: float = 1e-9, rtol: float = 0.0) -> bool:
        """True when ``other`` holds the same numbers, whatever the order of its axes
        and states.

        Parameters
        ----------
        other : Factor
            The factor to compare with.
        atol, rtol : float
            Absolute and relative tolerances, as in ``numpy.allclose``.

        Returns
        -------
        bool
            False also when the variables or their state sets differ.

        Examples
        --------
        >>> f = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]}, [[0.1, 0.2], [0.3, 0.4]])
        >>> twice = Factor(f.variables, f.states, 2 * f.values)
        >>> f.allclose(f.transpose(["B", "A"])), f.allclose(twice)
        (True, False)
        """
        if set(self.variables) != set(other.variables):
            return False
        if any(set(self.states[v]) != set(other.states[v]) for v in self.variables):
            return False
        aligned = other.transpose(self.variables).reorder_states(self.states)
        return bool(np.allclose(self.values, aligned.values, atol=atol, rtol=rtol))

    # ------------------------------------------------------------ arrangement
    def transpose(self, variables: Sequence[str]) -> Factor:
        """The same factor with its axes in the order ``variables``.

        Parameters
        ----------
        variables : sequence of str
            Every variable of the factor, in the order wanted.

        Returns
        -------
        Factor
            ``self`` when the order is already that one.

        Raises
        ------
        ModelError
            ``variables`` is not a reordering of the factor's variables.

        Examples
        --------
        >>> f = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]}, [[0.1, 0.2], [0.3, 0.4]])
        >>> f.transpose(["B", "A"]).values.tolist()
        [[0.1, 0.3], [0.2, 0.4]]
        """
        variables = tuple(variables)
        if variables == self.variables:
            return self
        if sorted(variables) != sorted(self.variables):
            raise ModelError(f"cannot reorder {self.variables} as {variables}")
        axes = [self.variables.index(v) for v in variables]
        return Factor(variables, self.states, self.values.transpose(axes))

    def reorder_states(self, states: Mapping[str, Sequence[str]]) -> Factor:
        """The same factor with the states of each named variable in the given order.

        Parameters
        ----------
        states : mapping of str to sequence of str
            For some variables, their states in the order wanted; the others keep theirs.

        Returns
        -------
        Factor

        Raises
        ------
        ModelError
            A state the variable does not have (with did-you-mean).

        Examples
        --------
        >>> f = Factor(["A"], {"A": ["T", "F"]}, [0.25, 0.75])
        >>> f.reorder_states({"A": ["F", "T"]}).to_dict()
        {'F': 0.75, 'T': 0.25}
        """
        values = self.values
        for axis, v in enumerate(self.variables):
            wanted = tuple(states.get(v, self.states[v]))
            if wanted != self.states[v]:
                unknown = [s for s in wanted if s not in self.states[v]]
                if unknown:
                    raise ModelError(f"variable {v!r} has no state {unknown[0]!r}; its states "
                                     f"are {list(self.states[v])}"
                                     f"{suggest(unknown[0], self.states[v])}")
                index = [self.states[v].index(s) for s in wanted]
                values = np.take(values, index, axis=axis)
        return Factor(self.variables, {v: states.get(v, self.states[v]) for v in self.variables},
                      values)

    def broadcast_to(self, variables: tuple[str, ...]) -> np.ndarray:
        """``values`` transposed and reshaped to broadcast against axes ``variables``.

        Parameters
        ----------
        variables : tuple of str
            A superset of this factor's variables, in any order.

        Returns
        -------
        numpy.ndarray
            Of the factor's sizes on its own axes and 1 on the others.

        Examples
        --------
        >>> f = Factor(["B"], {"B": ["y", "n"]}, [0.1, 0.9])
        >>> f.broadcast_to(("A", "B")).shape
        (1, 2)
        """
        present = [v for v in variables if v in self.states]
        values = self.transpose(present).values
        shape = [len(self.states[v]) if v in self.states else 1 for v in variables]
        return values.reshape(shape)

    # -------------------------------------------------------------- algebra
    def product(self, other: Factor) -> Factor:
        """φ·ψ over the union of both variable sets (this factor's axes first); also
        ``f * g``.

            (φ·ψ)(x ∪ y) = φ(x) · ψ(y)

        Parameters
        ----------
        other : Factor
            A factor whose shared variables have the same states in the same order.

        Returns
        -------
        Factor

        Raises
        ------
        ModelError
            A shared variable with different states.

        Examples
        --------
        >>> prior = Factor(["A"], {"A": ["T", "F"]}, [0.25, 0.75])
        >>> likelihood = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                     [[0.5, 0.5], [0.25, 0.75]])
        >>> (prior * likelihood).values.tolist()       # P(A, B) = P(A) P(B | A)
        [[0.125, 0.125], [0.1875, 0.5625]]
        """
        variables = self.variables + tuple(v for v in other.variables if v not in self.states)
        states = {**other.states, **self.states}
        for v in set(self.variables) & set(other.variables):
            if self.states[v] != other.states[v]:
                raise ModelError(f"variable {v!r} has states {self.states[v]} in one factor "
                                 f"and {other.states[v]} in the other")
        return Factor(variables, states,
                      self.broadcast_to(variables) * other.broadcast_to(variables))

    __mul__ = product

    def sum_out(self, variables: Iterable[str]) -> Factor:
        """Σ over the given variables: the marginal of the others.

        Parameters
        ----------
        variables : iterable of str
            Variables of the factor to sum out.

        Returns
        -------
        Factor

        Raises
        ------
        QueryError
            A variable the factor does not hold.

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.sum_out(["A"]).to_dict()
        {'y': 0.375, 'n': 0.625}
        """
        return self._reduce_axes(variables, np.sum)

    def max_out(self, variables: Iterable[str]) -> Factor:
        """max over the given variables (used for MAP / MPE).

        Parameters
        ----------
        variables : iterable of str
            Variables of the factor to maximise out.

        Returns
        -------
        Factor

        Raises
        ------
        QueryError
            A variable the factor does not hold.

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.max_out(["A"]).to_dict()
        {'y': 0.25, 'n': 0.5}
        """
        return self._reduce_axes(variables, np.max)

    def _reduce_axes(self, variables: Iterable[str], reducer) -> Factor:
        drop = set(variables)
        unknown = drop - set(self.variables)
        if unknown:
            raise QueryError(f"factor over {self.variables} has no variable(s) {sorted(unknown)}")
        axes = tuple(i for i, v in enumerate(self.variables) if v in drop)
        keep = [v for v in self.variables if v not in drop]
        return Factor(keep, self.states, reducer(self.values, axis=axes))

    def marginal(self, variables: Sequence[str]) -> Factor:
        """Sum out everything but ``variables``; axes come in the order given.

        Parameters
        ----------
        variables : sequence of str
            The variables to keep.

        Returns
        -------
        Factor

        Raises
        ------
        QueryError
            A variable the factor does not hold (with a close match suggested).

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.marginal(["A"]).to_dict()
        {'T': 0.25, 'F': 0.75}
        """
        unknown = [v for v in variables if v not in self.states]
        if unknown:
            raise QueryError(f"factor over {self.variables} has no variable {unknown[0]!r}"
                             f"{suggest(str(unknown[0]), self.variables)}")
        others = [v for v in self.variables if v not in variables]
        return self.sum_out(others).transpose(variables)

    def reduce(self, evidence: Mapping[str, str]) -> Factor:
        """Fix the variables named in ``evidence`` to their states and drop their axes.

        Parameters
        ----------
        evidence : mapping of str to str
            ``{variable: state}``; variables the factor does not hold are ignored.

        Returns
        -------
        Factor
            Unnormalised: the entries consistent with the evidence.

        Raises
        ------
        QueryError
            A state the variable does not have.

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.reduce({"B": "n", "C": "x"}).to_dict()
        {'T': 0.125, 'F': 0.5}
        """
        index: list = []
        keep = []
        for v in self.variables:
            if v in evidence:
                index.append(self.state_index(v, evidence[v]))
            else:
                index.append(slice(None))
                keep.append(v)
        return Factor(keep, self.states, self.values[tuple(index)])

    def state_index(self, variable: str, state) -> int:
        """Position of ``state`` among the states of ``variable``.

        Parameters
        ----------
        variable : str
            One of the factor's variables.
        state : str or object
            The state (compared as text).

        Returns
        -------
        int

        Raises
        ------
        QueryError
            Naming the variable's states and a close match.

        Examples
        --------
        >>> f = Factor(["A"], {"A": ["T", "F"]}, [0.5, 0.5])
        >>> f.state_index("A", "F")
        1
        >>> f.state_index("A", "t")
        Traceback (most recent call last):
            ...
        bbn.core.errors.QueryError: variable 'A' has no state 't'; ... (did you mean 'T'?)
        """
        states = self.states[variable]
        try:
            return states.index(str(state))
        except ValueError:
            raise QueryError(f"variable {variable!r} has no state {str(state)!r}; its states "
                             f"are {list(states)}{suggest(str(state), states)}") from None

    def normalize(self, evidence: Mapping[str, str] | None = None) -> Factor:
        """Scale so the entries sum to 1.

        Parameters
        ----------
        evidence : mapping of str to str, optional
            The evidence behind the factor, named by the error when it sums to 0.

        Returns
        -------
        Factor

        Raises
        ------
        ImpossibleEvidenceError
            The entries sum to 0: the evidence behind them was impossible (rather than
            returning NaN).

        Examples
        --------
        >>> Factor(["A"], {"A": ["T", "F"]}, [1.0, 3.0]).normalize().to_dict()
        {'T': 0.25, 'F': 0.75}
        >>> Factor(["A"], {"A": ["T", "F"]}, [0.0, 0.0]).normalize({"B": "y"})
        Traceback (most recent call last):
            ...
        bbn.core.errors.ImpossibleEvidenceError: impossible evidence: P(B=y) = 0 under this ...
        """
        total = self.values.sum()
        if not total > 0:
            raise ImpossibleEvidenceError(evidence or {})
        return Factor(self.variables, self.states, self.values / total)

    def total(self) -> float:
        """The sum of the entries (P(e) for a factor reduced by evidence e).

        Returns
        -------
        float

        Examples
        --------
        >>> Factor(["A"], {"A": ["T", "F"]}, [0.125, 0.5]).total()
        0.625
        """
        return float(self.values.sum())

    # ------------------------------------------------------------- readouts
    def argmax(self) -> tuple[dict[str, str], float]:
        """The assignment with the largest entry, and that entry.

        Returns
        -------
        tuple of (dict of str to str, float)
            The first such assignment in axis order when there are ties.

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.argmax()
        ({'A': 'F', 'B': 'n'}, 0.5)
        """
        flat = int(np.argmax(self.values))
        position = np.unravel_index(flat, self.values.shape)
        assignment = {v: self.states[v][i] for v, i in zip(self.variables, position)}
        return assignment, float(self.values.flat[flat])

    def to_dict(self) -> dict:
        """``{state: value}`` for one variable; ``{(s1, s2, ...): value}`` for several.

        Returns
        -------
        dict

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.to_dict()[("F", "n")], joint.marginal(["B"]).to_dict()
        (0.5, {'y': 0.375, 'n': 0.625})
        """
        if len(self.variables) == 1:
            v = self.variables[0]
            return {s: float(p) for s, p in zip(self.states[v], self.values)}
        result = {}
        for position in np.ndindex(*self.values.shape):
            key = tuple(self.states[v][i] for v, i in zip(self.variables, position))
            result[key] = float(self.values[position])
        return result

    def rows(self) -> list[tuple[tuple[str, ...], float]]:
        """Every (assignment, value) in axis order (last variable fastest).

        Returns
        -------
        list of (tuple of str, float)

        Examples
        --------
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> joint.rows()[:2]
        [(('T', 'y'), 0.125), (('T', 'n'), 0.125)]
        """
        return [(tuple(self.states[v][i] for v, i in zip(self.variables, position)),
                 float(self.values[position])) for position in np.ndindex(*self.values.shape)]

    def columns(self, value_header: str = "probability") -> dict[str, np.ndarray]:
        """The value columns of the factor's table, each flat in axis order (last
        variable fastest): ``{value_header: values}``; an approximate answer adds its
        standard errors.

        Parameters
        ----------
        value_header : str
            The title of the value column.

        Returns
        -------
        dict of str to numpy.ndarray

        Examples
        --------
        >>> Factor(["A"], {"A": ["T", "F"]}, [0.25, 0.75]).columns()
        {'probability': array([0.25, 0.75])}
        """
        return {value_header: self.values.ravel()}

    def to_pandas(self, value_header: str = "probability"):
        """The table as pandas: a Series indexed by the states for one variable (and no
        other column), else a DataFrame with one column per variable, then the values.

        Parameters
        ----------
        value_header : str
            The name of the value column (the Series' name).

        Returns
        -------
        pandas.Series or pandas.DataFrame

        Examples
        --------
        >>> Factor(["C"], {"C": ["T", "F"]}, [0.25, 0.75]).to_pandas().to_dict()
        {'T': 0.25, 'F': 0.75}
        >>> joint = Factor(["A", "B"], {"A": ["T", "F"], "B": ["y", "n"]},
        ...                [[0.125, 0.125], [0.25, 0.5]])
        >>> print(joint.to_pandas().to_string(index=False))
        A B  probability
        T y        0.125
        T n        0.125
        F y        0.250
        F n        0.500
        """
        import pandas as pd

        columns = self.columns(value_header)
        if len(self.variables) == 1 and len(columns) == 1:
            v = self.variables[0]
            return pd.Series(columns[value_header], index=pd.Index(self.states[v], name=v),
                             name=value_header)
        grid = np.indices(self.values.shape).reshape(len(self.variables), self.values.size)
        frame = {v: np.asarray(self.states[v], dtype=object)[grid[i]]
                 for i, v in enumerate(self.variables)}
        return pd.DataFrame({**frame, **columns})

    def _repr_html_(self) -> str:
        """The table Jupyter shows: one column per variable, then the values (a bar for
        each probability), at most :data:`bbn.core.html_tables.MAX_ROWS` rows.

        Examples
        --------
        >>> html = Factor(["C"], {"C": ["T", "F"]}, [0.25, 0.75])._repr_html_()
        >>> html.count("<tr>"), "0.750000" in html
        (3, True)
        """
        columns = self.columns()
        flat = list(columns.values())
        rows = ([*(self.states[v][i] for v, i in zip(self.variables, position)),
                 *(values[n] for values in flat)]
                for n, position in enumerate(np.ndindex(*self.values.shape)))
        return html_tables.table([*self.variables, *columns], rows, total=self.values.size,
                                 probabilities=(len(self.variables),))

    def to_text(self, value_header: str = "probability", digits: int = 6) -> str:
        """An aligned plain-text table, one row per assignment (what ``bbn query``
        prints).

        Parameters
        ----------
        value_header : str
            The title of the value column.
        digits : int
            Decimals shown.

        Returns
        -------
        str

        Examples
        --------
        >>> print(Factor(["C"], {"C": ["T", "F"]}, [0.886749, 0.113251]).to_text())
          C   probability
          T   0.886749
          F   0.113251
        """
        header = [*self.variables, value_header]
        body = [[*key, f"{value:.{digits}f}"] for key, value in self.rows()]
        widths = [max(len(str(row[i])) for row in [header, *body]) for i in range(len(header))]
        lines = ("   ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
                 for row in [header, *body])
        return "\n".join("  " + line for line in lines)

"""Continuous leaves of a network: a Gaussian density given discrete parents.

    p(x | pa) = exp(−(x − μ(pa))² / (2σ²(pa))) / sqrt(2π σ²(pa))

:class:`GaussianLeaves` holds the methods of :class:`bbn.Network` for such variables (a
mixin: the network holds the :class:`~bbn.model.variables.Variable` records, whose
``table`` stores ``[μ, σ²]`` rows for a Gaussian). Observing one contributes the
likelihood factor over its parents (:mod:`bbn.engines.exact.continuous`); the compiled
view lists them as :class:`~bbn.views.compiled.GaussianLeaf`.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> net.is_gaussian("x")
True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from bbn.core.errors import ModelError
from bbn.model.regressions import Regressions
from bbn.model.variables import Variable, gaussian_table
from bbn.views.compiled import GaussianLeaf

_leaf = GaussianLeaf._make  # (a record per Gaussian when compiling: faster than the call)


def gaussian_leaf(nodes: Mapping[str, Variable], node: Variable) -> GaussianLeaf:
    """The compiled view's record of a Gaussian variable: its discrete parents (the axes
    of the mean and variance), continuous parents and their weights."""
    parents = node.parents
    if parents:  # (list comprehensions: a linear network compiles 1.8x faster)
        continuous = tuple([p for p in parents if nodes[p].kind])
        discrete = (parents if not continuous else () if len(continuous) == len(parents)
                    else tuple([p for p in parents if not nodes[p].kind]))
    else:
        discrete = continuous = ()
    return _leaf((discrete, node.table, continuous))


def gaussian_records(nodes: Mapping[str, Variable], names: Iterable[str]
                     ) -> dict[str, GaussianLeaf]:
    """:func:`gaussian_leaf` of each of the Gaussian variables ``names`` (their parents
    split into discrete and continuous).

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("d", ["a", "b"], table=[0.5, 0.5])
    >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    >>> net.add_gaussian_variable("y", ["d", "x"], mean=[1.0, 2.0], variance=[0.5, 0.5],
    ...                           weights={"x": 2.0})
    >>> records = gaussian_records(net._nodes, ["y"])
    >>> records["y"].continuous, records["y"].parents, records["y"].weights.tolist()
    (('x',), ('d',), [[2.0], [2.0]])
    """
    return {v: gaussian_leaf(nodes, nodes[v]) for v in names}


class GaussianLeaves:
    """The Gaussian variables of a :class:`bbn.Network`.

    Examples
    --------
    >>> import bbn
    >>> bbn.Network().is_gaussian  # doctest: +ELLIPSIS
    <bound method GaussianLeaves.is_gaussian of Network('network', 0 variables, 0 arcs)>
    """

    _nodes: dict[str, Variable]
    # a linear Gaussian network's regressions as arrays (bbn.model.regressions), or None
    _regressions: Regressions | None = None

    def add_gaussian_variable(self, name: str, parents: Sequence[str] = (), mean=None,
                              variance=None, description: str | None = None,
                              weights: Mapping[str, object] | None = None) -> None:
        """Add a continuous variable, conditional linear Gaussian given its parents:

            x | d, y ~ N(μ(d) + Σ_i b_i(d) · y_i, σ²(d))

        d: the configuration of its discrete parents, y: its continuous parents (other
        Gaussian variables). ``mean`` and ``variance`` hold one number per configuration
        of the discrete parents, shape ``(|D1|, ..., |Dk|)`` (a number without discrete
        parents); ``weights={y_i: b_i}`` one number, or one per configuration. A discrete
        variable cannot have a continuous parent. The node's ``table`` stores
        ``[μ, σ², b_1, ...]`` rows. Questions about it are answered exactly
        (:mod:`bbn.engines.exact.linear_gaussian`): a :class:`bbn.core.normals.Normal`.

        Parameters
        ----------
        name : str
            The new variable's name.
        parents : sequence of str, optional
            Its parents, discrete and continuous.
        mean, variance : array_like, optional
            μ(d) and σ²(d), one number per discrete configuration (see :meth:`set_gaussian`).
        description : str, optional
            A free-text description.
        weights : mapping, optional
            ``{continuous parent: b}``, every continuous parent.

        Raises
        ------
        ModelError
            For a duplicate name, or bad means, variances or weights.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": 2.0})
        >>> net.posterior("y").mean                    # 1 + 2 · E[x] = 1 + 2 · 1
        3.0
        """
        name = self._new_name(name)
        kept = self._regressions if self._nodes else Regressions()  # (each edit drops it)
        def fill() -> None:
            if mean is not None or variance is not None:
                self.set_gaussian(name, mean, variance, weights)

        self._add_node(name, (), description, parents, fill, kind="gaussian")
        if kept is not None and kept.append(name, self._nodes[name]):
            self._regressions = kept

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
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> net.is_gaussian("x"), net.is_gaussian("C")
        (True, False)
        """
        return self._require(variable).kind == "gaussian"

    def set_gaussian(self, variable: str, mean, variance,
                     weights: Mapping[str, object] | None = None) -> None:
        """Set μ(d), σ²(d) (> 0) and the weights b_i(d) of the continuous parents of a
        Gaussian variable.

        Parameters
        ----------
        variable : str
            A Gaussian variable.
        mean, variance : array_like
            One number per discrete parent configuration, shape ``(|D1|, ..., |Dk|)``.
        weights : mapping, optional
            ``{continuous parent: b}`` (a number, or one per discrete configuration).

        Raises
        ------
        ModelError
            For a discrete variable, a wrong number of values, or a non-finite mean or a
            variance that is not > 0.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"])
        >>> net.set_gaussian("x", mean=[0.0, 2.0], variance=[1.0, 4.0])
        >>> net.gaussian_parameters("x")[1].tolist()
        [1.0, 4.0]
        """
        if not self.is_gaussian(variable):
            raise ModelError(f"{variable!r} is discrete; set_gaussian is for Gaussian variables")
        kept = self._regressions  # (each edit drops it)
        self._nodes[variable].table = gaussian_table(self._nodes, variable, mean, variance,
                                                     weights)
        self._changed()
        if kept is not None and kept.update(variable, self._nodes[variable]):
            self._regressions = kept

    def gaussian_text(self, variable: str) -> list[str]:
        """The regression of a Gaussian variable as text, one line per configuration of
        its discrete parents: ``S=lo: N(1 + 2·x − 0.5·w, 0.5)`` (what ``bbn info`` and
        ``bbn render --tables`` show).

        Parameters
        ----------
        variable : str
            A Gaussian variable with parameters.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": -2.0})
        >>> net.gaussian_text("y")
        ['N(1 − 2·x, 0.5)']
        """
        mean, variance = (a.reshape(-1) for a in self.gaussian_parameters(variable))
        weights = {y: b.reshape(-1) for y, b in self.gaussian_weights(variable).items()}
        discrete = [p for p in self._nodes[variable].parents if not self._nodes[p].kind]
        keys = itertools.product(*(self._nodes[p].states for p in discrete))
        lines = []
        for k, key in enumerate(keys):
            terms = "".join(f" {'−' if b[k] < 0 else '+'} {abs(float(b[k])):.6g}·{y}"
                            for y, b in weights.items())
            text = f"N({float(mean[k]):.6g}{terms}, {float(variance[k]):.6g})"
            given = ", ".join(f"{p}={s}" for p, s in zip(discrete, key))
            lines.append(f"{given}: {text}" if given else text)
        return lines

    def gaussian_weights(self, variable: str) -> dict[str, np.ndarray]:
        """``{continuous parent: b(d)}`` of a Gaussian variable, each of shape
        ``(|D1|, ..., |Dk|)`` (empty without continuous parents).

        Parameters
        ----------
        variable : str
            A Gaussian variable.

        Returns
        -------
        dict

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": 2.0})
        >>> {k: v.tolist() for k, v in net.gaussian_weights("y").items()}
        {'x': 2.0}
        """
        self.gaussian_parameters(variable)  # the checks
        table = self._nodes[variable].table
        continuous = [p for p in self._nodes[variable].parents if self._nodes[p].kind]
        return {p: table[..., 2 + i] for i, p in enumerate(continuous)}

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
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> [a.tolist() for a in net.gaussian_parameters("x")]
        [[0.0, 2.0], [1.0, 1.0]]
        """
        if not self.is_gaussian(variable):
            raise ModelError(f"{variable!r} is discrete; it has a table, not Gaussian parameters")
        table = self._nodes[variable].table
        if table is None:
            raise ModelError(f"the Gaussian {variable!r} has no mean and variance yet")
        return table[..., 0], table[..., 1]


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

from collections.abc import Sequence

import numpy as np

from bbn.core.errors import ModelError
from bbn.model.variables import Variable, gaussian_table


class GaussianLeaves:
    """The Gaussian variables of a :class:`bbn.Network`.

    Examples
    --------
    >>> import bbn
    >>> bbn.Network().is_gaussian  # doctest: +ELLIPSIS
    <bound method GaussianLeaves.is_gaussian of Network('network', 0 variables, 0 arcs)>
    """

    _nodes: dict[str, Variable]

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
        >>> import bbn
        >>> net = bbn.Network()
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
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
        >>> net.is_gaussian("x"), net.is_gaussian("C")
        (True, False)
        """
        return self._require(variable).kind == "gaussian"

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
        self._nodes[variable].table = gaussian_table(self._nodes, variable, mean, variance)
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


"""Discrete variables with continuous parents: the softmax (multinomial logistic) form.

    P(Y = k | d, y) = exp(a_k(d) + Σ_i w_ki(d) · y_i) / Σ_j exp(a_j(d) + Σ_i w_ji(d) · y_i)

d: the configuration of Y's discrete parents, y: the values of its continuous
(Gaussian) parents. With two states ``("F", "T")`` and a_F = w_F = 0 this is the
logistic P(T | d, y) = σ(a_T(d) + Σ_i w_i(d) · y_i). Such a variable has no table (it
would be a table over the reals): its :class:`Softmax` is kept on the record's
``compact`` field and on the compiled view's ``softmax``. No closed form exists for the
posteriors of such a network, so questions about it are answered by likelihood
weighting with the continuous variables sampled
(:mod:`bbn.engines.approximate.hybrid_sampling`); the exact engine refuses them, saying
why (:mod:`bbn.questions.hybrid_answers`).

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
>>> net.add_softmax("D", ["lo", "mid", "hi"], ["x"], weights={"x": [-2.0, 0.0, 2.0]})
>>> net.canonical("D").probabilities(np.zeros((1, 0), int), np.array([[0.0]])).round(4)
array([[0.3333, 0.3333, 0.3333]])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.model.variables import Variable, checked_weights


@dataclass(frozen=True, eq=False)
class Softmax:
    """The softmax form of a discrete variable with continuous parents.

    Parameters
    ----------
    discrete : tuple of str
        Its discrete parents (the leading axes of ``bias`` and ``weights``).
    continuous : tuple of str
        Its continuous parents, in the order of ``weights``' last axis.
    bias : numpy.ndarray
        a_k(d), shape ``(|D1|, ..., |Dk|, |Y|)``.
    weights : numpy.ndarray
        w_ki(d), shape ``(|D1|, ..., |Dk|, |Y|, m)``.

    Examples
    --------
    >>> spec = Softmax((), ("x",), np.zeros(2), np.array([[0.0], [1.0]]))
    >>> spec.probabilities(np.zeros((1, 0), int), np.array([[0.0]])).tolist()
    [[0.5, 0.5]]
    """

    discrete: tuple[str, ...]
    continuous: tuple[str, ...]
    bias: np.ndarray
    weights: np.ndarray
    kind = "softmax"
    chainable = False
    table = None

    def probabilities(self, codes: np.ndarray, values: np.ndarray) -> np.ndarray:
        """P(Y | d_n, y_n) for n rows: ``codes`` (n, k) discrete parent state indices,
        ``values`` (n, m) continuous parent values → (n, |Y|), rows summing to 1."""
        at = tuple(codes[:, j] for j in range(codes.shape[1]))
        n, (k, m) = len(values), self.weights.shape[-2:]
        scores = self.bias[at] + np.einsum(
            "nkm,nm->nk", np.broadcast_to(self.weights[at], (n, k, m)), values)
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        return scores / scores.sum(axis=1, keepdims=True)

    def same_as(self, other: object) -> bool:
        """Whether ``other`` is the same form (parents, biases and weights)."""
        return (isinstance(other, Softmax) and other.discrete == self.discrete
                and other.continuous == self.continuous
                and np.array_equal(other.bias, self.bias)
                and np.array_equal(other.weights, self.weights))


def takes_continuous(node: Variable) -> bool:
    """Whether a discrete record may have continuous parents (it has the softmax form)."""
    return isinstance(node.compact, Softmax)


class SoftmaxNodes:
    """The discrete variables with continuous parents of a :class:`bbn.Network`.

    Examples
    --------
    >>> import bbn
    >>> bbn.Network().add_softmax  # doctest: +ELLIPSIS
    <bound method SoftmaxNodes.add_softmax of Network(...)>
    """

    _nodes: dict[str, Variable]

    def add_softmax(self, name: str, states: Sequence[str], parents: Sequence[str],
                    weights: Mapping[str, object], bias=0.0,
                    description: str | None = None) -> None:
        """Add a discrete variable whose parents include continuous ones, in the softmax
        form:

            P(Y = k | d, y) ∝ exp(a_k(d) + Σ_i w_ki(d) · y_i)

        d: the configuration of the discrete parents, y: the continuous parents' values.
        Networks with such a variable are answered approximately (``method="lw"``,
        likelihood weighting with the continuous variables sampled, standard errors
        reported); the exact engine refuses them.

        Parameters
        ----------
        name : str
            The new variable.
        states : sequence of str
            Its states (at least two).
        parents : sequence of str
            Its parents, discrete and continuous (at least one continuous).
        weights : mapping
            ``{continuous parent: w}``, every continuous parent; ``w`` one number per
            state of Y (shape ``(|Y|,)``) or per discrete configuration and state
            (``(|D1|, ..., |Dk|, |Y|)``).
        bias : float or array, default 0
            a_k(d): a number (the same for every state: no effect), one per state, or per
            discrete configuration and state.
        description : str, optional
            A free-text description.

        Raises
        ------
        ModelError
            For a parent that is not continuous when none is, a missing or unknown weight,
            or a shape that does not fit.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_softmax("D", ["F", "T"], ["C", "x"], weights={"x": [[0, 1], [0, 3]]},
        ...                 bias=[[0, -1], [0, 1]])
        >>> net.canonical("D").weights[..., 0].tolist()
        [[0.0, 1.0], [0.0, 3.0]]
        """
        parents = tuple(parents)
        self.add_variable(name, states, description)
        node = self._nodes[name]
        try:
            unknown = [p for p in parents if p not in self._nodes]
            if unknown:
                raise ModelError(f"unknown parent {unknown[0]!r} of {name!r}"
                                 f"{suggest(str(unknown[0]), self._nodes)}")
            continuous = tuple(p for p in parents if self._nodes[p].kind)
            discrete = tuple(p for p in parents if not self._nodes[p].kind)
            if not continuous:
                raise ModelError(f"the softmax variable {name!r} needs a continuous parent; "
                                 "for discrete parents only use add_logistic or a table")
            node.compact = Softmax(discrete, continuous, np.zeros(0), np.zeros(0))
            self.set_parents(name, parents)
            shape = tuple(len(self._nodes[p].states) for p in discrete) + (len(node.states),)
            node.compact = _checked(name, discrete, continuous, shape, weights, bias)
            self._changed()
        except BaseException:
            self._drop(name)
            raise


    def set_softmax(self, variable: str, weights: Mapping[str, object], bias=0.0) -> None:
        """Set the weights and biases of a softmax variable (shapes as in
        :meth:`add_softmax`).

        Parameters
        ----------
        variable : str
            A softmax variable.
        weights : mapping
            ``{continuous parent: w}``, every continuous parent.
        bias : float or array, default 0
            a_k(d).

        Raises
        ------
        ModelError
            For a variable that is not in the softmax form, or weights that do not fit.

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network()
        >>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
        >>> net.add_logistic("D", ["x"], weights={"x": 1.0})
        >>> net.set_softmax("D", {"x": [0.0, 2.0]}, bias=[0.0, -1.0])
        >>> net.canonical("D").bias.tolist()
        [0.0, -1.0]
        """
        node = self._require(variable)
        spec = node.compact
        if not isinstance(spec, Softmax):
            raise ModelError(f"{variable!r} is not a softmax variable (add_softmax makes one)")
        shape = tuple(len(self._nodes[p].states) for p in spec.discrete) + (len(node.states),)
        node.compact = _checked(variable, spec.discrete, spec.continuous, shape, weights, bias)
        self._changed()


def _checked(name: str, discrete: tuple, continuous: tuple, shape: tuple,
             weights: Mapping, bias) -> Softmax:
    """The :class:`Softmax` of ``name`` from what the user gave, every shape checked."""
    weights = checked_weights(name, continuous, weights, "continuous parent")

    def spread(what: str, given) -> np.ndarray:
        array = np.asarray(given, dtype=float)
        if array.ndim == 0 or array.shape == shape[-1:] or array.shape == shape:
            array = np.broadcast_to(array, shape)
        if array.shape != shape or not np.isfinite(array).all():
            raise ModelError(f"the {what} of the softmax variable {name!r} must be finite "
                             f"numbers of shape {shape[-1:]} (one per state) or {shape} (per "
                             f"discrete parent configuration and state), got shape "
                             f"{np.shape(given)}")
        return array

    bias_array = spread("bias", bias).copy()
    weight_array = np.stack([spread(f"weight of {p!r}", weights[p]) for p in continuous],
                            axis=-1)
    for array in (bias_array, weight_array):
        array.setflags(write=False)
    return Softmax(discrete, continuous, bias_array, weight_array)

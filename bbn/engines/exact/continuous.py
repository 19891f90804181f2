"""Evidence on Gaussian (continuous) variables.

A Gaussian variable X with discrete parents Pa has one normal density per parent
configuration (see :meth:`bbn.Network.add_gaussian_variable`)::

    p(x | pa) = exp(−(x − μ(pa))² / (2σ²(pa))) / sqrt(2π σ²(pa))

Such variables are leaves, so an unobserved one sums out to 1 and can simply be left
out, while an observed one, X = x, multiplies in the likelihood factor λ(pa) = p(x | pa)
over its parents. That is all inference needs: P(Q | discrete evidence, x1, x2, ...) is
the discrete engine's P(Q, H | discrete evidence) on the network without its continuous
leaves (H: the observed leaves' parents neither queried nor observed), weighed by the
likelihood factors in log space (:func:`weigh`), H summed out — for one case or for a
batch of them alike.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> round(net.posterior(["C"], {"x": 2.0}).to_dict()["b"], 6)   # 1 / (1 + e^-2)
0.880797
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import ModelError
from bbn.core.factor import Factor

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork, GaussianLeaf


def log_density(x, mean, variance) -> np.ndarray:
    """log N(x; μ, σ²) = −½ log(2πσ²) − (x − μ)² / (2σ²), elementwise with broadcasting."""
    x, mean, variance = (np.asarray(a, dtype=float) for a in (x, mean, variance))
    return -0.5 * np.log(2.0 * np.pi * variance) - (x - mean) ** 2 / (2.0 * variance)


def _parameters(variable: str, leaf: GaussianLeaf) -> tuple[np.ndarray, np.ndarray]:
    if leaf.mean is None:
        raise ModelError(f"the Gaussian {variable!r} has no mean and variance yet")
    return leaf.mean, leaf.variance


def gaussian_likelihood_factor(network: CompiledNetwork, variable: str, value: float) -> Factor:
    """λ(pa) = p(x = value | pa): the factor that evidence on a Gaussian variable
    contributes, over its parents (densities may underflow for far-away values, which is
    why :func:`weigh` works in logs).

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
    >>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
    >>> gaussian_likelihood_factor(net.compiled(), "x", 0.0).values.round(4).tolist()
    [0.3989, 0.054]
    """
    leaf = network.gaussian[variable]
    mean, variance = _parameters(variable, leaf)
    return Factor(leaf.parents, {p: network.states[p] for p in leaf.parents},
                  np.exp(log_density(float(value), mean, variance)))


def hidden_parents(network: CompiledNetwork, query: Sequence[str], observed: Sequence[str],
                   leaves: Sequence[str]) -> list[str]:
    """H: the parents of the observed Gaussian ``leaves`` that are neither queried nor
    ``observed`` (discrete evidence), in order; the discrete engine is asked for
    P(query, H | e) and H is summed out after the weighting."""
    known = set(query).union(observed)
    return list(dict.fromkeys(p for g in leaves for p in network.gaussian[g].parents
                              if p not in known))


def weigh(network: CompiledNetwork, query: Sequence[str], joint: np.ndarray,
          states: Mapping[str, np.ndarray], values: Mapping[str, np.ndarray]
          ) -> tuple[np.ndarray, np.ndarray]:
    """Weigh P(query | e_i) by the densities of the Gaussian evidence, case by case::

        w_i(q) = exp(log P(q | e_i) + Σ_g log p(x_gi | pa_g) − top_i)

    ``joint`` has shape ``(N, |Q1|, ..., |Qk|)`` (rows: cases), ``states`` gives the state
    indices of the discrete evidence of each case (the parents of a leaf are read there
    when they are not queried), ``values`` the N numbers of each observed leaf. Returns
    the weights (largest 1 per case; the caller sums out the hidden parents and
    normalises) and ``top`` per case, −inf or NaN where the evidence is impossible.
    """
    with np.errstate(divide="ignore"):
        log_joint = np.log(joint)
    for g, x in values.items():
        log_joint = log_joint + _aligned_log_density(network, g, x, states, query)
    top = log_joint.reshape(len(joint), -1).max(axis=1)
    shift = np.where(np.isfinite(top), top, 0.0)
    return np.exp(log_joint - shift.reshape((-1,) + (1,) * len(query))), top


def _aligned_log_density(network: CompiledNetwork, g: str, x: np.ndarray,
                         states: Mapping[str, np.ndarray], query: Sequence[str]) -> np.ndarray:
    """log p(x_r | pa) per case r, laid out on axes (cases, *query) for broadcasting."""
    leaf = network.gaussian[g]
    mean, variance = _parameters(g, leaf)
    x = np.asarray(x, dtype=float)
    shape = (len(x),) + (1,) * len(leaf.parents)
    table = log_density(x.reshape(shape), mean[np.newaxis], variance[np.newaxis])
    axes = list(leaf.parents)
    for p in leaf.parents:  # observed parents: pick each case's own state
        if p in states and p not in query:
            k = axes.index(p) + 1
            moved = np.moveaxis(table, k, -1)
            picked = np.take_along_axis(
                moved, np.asarray(states[p], dtype=np.intp).reshape(
                    (-1,) + (1,) * (moved.ndim - 1)), axis=-1)
            table = picked[..., 0]
            axes.remove(p)
    order = [axes.index(q) + 1 for q in query if q in axes]
    table = np.transpose(table, [0] + order)
    return table.reshape((len(x),) + tuple(network.cardinality[q] if q in axes else 1
                                          for q in query))

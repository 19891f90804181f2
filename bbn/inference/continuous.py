"""Evidence on Gaussian (continuous) variables.

A Gaussian variable X with discrete parents Pa has one normal density per parent
configuration (see :meth:`bbn.Network.add_gaussian_variable`)::

    p(x | pa) = exp(−(x − μ(pa))² / (2σ²(pa))) / sqrt(2π σ²(pa))

Such variables are leaves, so an unobserved one sums out to 1 and can simply be left
out, while an observed one, X = x, multiplies in the likelihood factor λ(pa) = p(x | pa)
over its parents. That is all inference needs: :func:`posterior` answers
P(Q | discrete evidence, x1, x2, ...) with the discrete engine on the network without
its continuous leaves, then weighs by the likelihood factors in log space.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> round(posterior(net, ["C"], {"x": 2.0}).to_dict()["b"], 6)   # 1 / (1 + e^-2)
0.880797
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.network import Network


def log_density(x, mean, variance) -> np.ndarray:
    """log N(x; μ, σ²) = −½ log(2πσ²) − (x − μ)² / (2σ²), elementwise with broadcasting."""
    x, mean, variance = (np.asarray(a, dtype=float) for a in (x, mean, variance))
    return -0.5 * np.log(2.0 * np.pi * variance) - (x - mean) ** 2 / (2.0 * variance)


def gaussian_log_likelihood_factor(net: Network, variable: str, value: float) -> Factor:
    """log p(x = value | pa) as a Factor over the parents of ``variable`` (log scale)."""
    mean, variance = net.gaussian_parameters(variable)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise QueryError(f"{variable!r} is continuous: its evidence must be a number, got "
                         f"{value!r}") from None
    if not math.isfinite(x):
        raise QueryError(f"evidence {variable}={value!r} is not a finite number")
    parents = net.parents(variable)
    return Factor(parents, {p: net.states(p) for p in parents}, log_density(x, mean, variance))


def gaussian_likelihood_factor(net: Network, variable: str, value: float) -> Factor:
    """λ(pa) = p(x = value | pa): the factor that evidence on a Gaussian variable contributes.

    Densities may underflow for far-away values; :func:`posterior` works in log space.
    """
    log = gaussian_log_likelihood_factor(net, variable, value)
    return Factor(log.variables, log.states, np.exp(log.values))


def gaussian_variables(net: Network) -> tuple[str, ...]:
    """The network's Gaussian variables (cached until the network changes)."""
    found = net._cache.get("gaussian variables")
    if found is None:
        found = tuple(v for v, data in net.nodes() if data.get("kind") == "gaussian")
        net._cache["gaussian variables"] = found
    return found


def discrete_part(net: Network) -> Network:
    """The network without its Gaussian leaves: the same distribution over the rest."""
    part = net._cache.get("discrete part")
    if part is None:
        part = net.copy()
        for v in gaussian_variables(net):
            part.remove_variable(v)  # a leaf: no child loses a parent
        net._cache["discrete part"] = part
    return part


def posterior(net: Network, variables: Sequence[str], evidence: Mapping) -> Factor:
    """P(variables | evidence) where evidence may give numbers for Gaussian variables.

        P(Q | e, x) ∝ Σ_h P(Q, h | e) · Π_g p(x_g | pa_g)

    with h the parents of the observed Gaussians that are neither queried nor observed.
    The discrete part is answered by the engine, the weighting is done in log space.
    """
    from bbn.inference import posterior as discrete_posterior

    variables = list(variables)
    continuous = set(gaussian_variables(net))
    queried = [v for v in variables if v in continuous]
    if queried:
        raise QueryError(f"{queried[0]!r} is continuous: ask for the posterior of discrete "
                         "variables (a continuous variable can only be evidence)")
    observed = {v: x for v, x in evidence.items() if v in continuous}
    discrete = {v: s for v, s in evidence.items() if v not in continuous}
    base = discrete_part(net)
    if not observed:
        return discrete_posterior(base, variables, discrete)
    logs = [gaussian_log_likelihood_factor(net, v, x).reduce(
        {k: s for k, s in discrete.items() if k in net.parents(v)}) for v, x in observed.items()]
    hidden = list(dict.fromkeys(u for f in logs for u in f.variables if u not in variables))
    joint = discrete_posterior(base, variables + hidden, discrete)
    with np.errstate(divide="ignore"):
        log_values = np.log(joint.values)
    for factor in logs:
        log_values = log_values + factor.broadcast_to(joint.variables)
    top = np.max(log_values)
    if not np.isfinite(top):
        raise ImpossibleEvidenceError(dict(evidence))
    weights = Factor(joint.variables, joint.states, np.exp(log_values - top))
    result = weights.sum_out(hidden) if hidden else weights
    return result.normalize(dict(evidence)).transpose(variables)

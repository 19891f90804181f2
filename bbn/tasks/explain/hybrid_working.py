"""The derivation of a question on a conditional linear Gaussian network: the regressions.

    p(e_c | d) = N(e_c; μ(d), Σ(d)),  μ_v = b_0(d) + Σ_i b_i·μ_i,  σ²_v = σ²(d) + Σ_ij b_i b_j Σ_ij
    P(x | e) = Σ_d P(d | e) · N(x; μ_x + Σ_xe Σ_ee⁻¹ (e − μ_e), Σ_xx − Σ_xe Σ_ee⁻¹ Σ_ex)

The continuous findings become a likelihood λ(d) over the configurations d of the discrete
variables their regressions depend on (the unobserved continuous variables integrated out
by the regressions' means and variances); λ is a virtual child of those variables,
observed ``yes``, and the discrete derivation follows as usual. A continuous target is the
mixture over the same configurations, weighted by the discrete derivation's P(d | e), each
component by the conditioning formula.

>>> import bbn
>>> net = bbn.Network("t")
>>> net.add_variable("C", ["a", "b"], table=[0.4, 0.6])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 0.5])
>>> net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": 2.0})
>>> d = bbn.explain(net, "P(C | y=1.5)")
>>> round(float(d.result.normalize().values[0]), 6)
0.848497
>>> d.regression[1]
'  E[x | C=a] = 0'
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import QueryError
from bbn.core.factor import Factor
from bbn.engines.exact.weighing import virtual_name
from bbn.questions.language import Query
from bbn.questions.uncertain import VIRTUAL_STATES
from bbn.tasks.explain.formatting import Derivation

if TYPE_CHECKING:
    from bbn.model.network import Network
    from bbn.questions.resolution import Question


def _g(x: float) -> str:
    return f"{x:.6g}"


def _p(x: float) -> str:
    """A number as a factor: negative ones in parentheses, ``(-1)``."""
    return f"({x:.6g})" if x < 0 else f"{x:.6g}"


def _plus(x: float) -> str:
    """`` + x`` or `` − |x|``."""
    return f" {'−' if x < 0 else '+'} {abs(x):.6g}"


def explain_hybrid(net: Network, query: Query, question: Question, explain) -> Derivation:
    """The derivation of ``P(...)`` with continuous findings or one continuous target.

    Parameters
    ----------
    net : Network
        A conditional linear Gaussian network (no discrete child of a continuous variable).
    query : Query
        The question, of kind ``P``.
    question : Question
        Its resolution on ``net``.
    explain : callable
        :func:`bbn.tasks.explain.derivation.explain`, for the discrete derivation.

    Returns
    -------
    Derivation
        With ``regression`` (the findings' likelihood) and, for a continuous target,
        ``mixture`` (its components).

    Raises
    ------
    QueryError
        For a question it does not derive, naming the variable (``bbn query`` answers it).
    """
    gaussian = [v for v in net.variables if net.is_gaussian(v)]
    asked = list(question.free) + list(question.assigned)
    continuous_asked = [v for v in asked if v in gaussian]
    hint = f"; bbn query answers {query.text()}"
    if query.kind != "P" or query.do or query.counterfactual:
        raise QueryError(f"explain derives P(...) on a network with Gaussian variables "
                         f"({', '.join(continuous_asked or list(question.evidence.values))})"
                         + hint)
    if any(v in question.assigned for v in continuous_asked):
        raise QueryError(f"explain does not derive the density of {continuous_asked[0]} at a "
                         f"point; ask P({continuous_asked[0]} | ...) for its mixture" + hint)
    if continuous_asked and (len(asked) > 1):
        raise QueryError(f"explain derives one continuous target alone, not "
                         f"{', '.join(asked)} together" + hint)
    findings = {v: float(x) for v, x in question.evidence.values.items()}
    involved = _ancestors(net, set(findings) | set(continuous_asked))
    for v in involved:
        for p in net.parents(v):
            if p not in gaussian and any(net.is_gaussian(u) for u in net.parents(p)):
                raise QueryError(f"explain does not derive {p}, a discrete variable with "
                                 "continuous parents" + hint)
    order = [v for v in net.variables if v in involved]
    discrete = [v for v in net.variables if v not in gaussian
                and any(v in net.parents(u) for u in order)]
    for v in net.variables:
        if v not in gaussian and any(net.is_gaussian(p) for p in net.parents(v)):
            if v in asked or v in question.evidence.states:
                raise QueryError(f"explain does not derive {v}, a discrete variable with "
                                 "continuous parents" + hint)
    configurations = list(itertools.product(*(net.states(v) for v in discrete)))
    lines = [f"The regressions{', for each configuration of ' if discrete else ''}"
             f"{', '.join(discrete)}, with the unobserved continuous parents integrated out:"]
    lam, moments = [], []  # λ in logs
    e_names = [v for v in order if v in findings]
    e = np.array([findings[v] for v in e_names])
    for config in configurations:
        at = dict(zip(discrete, config))
        given = ", ".join(f"{v}={s}" for v, s in at.items())
        bar = f" | {given}" if given else ""
        mean, cov, written = _moments(net, order, at, bar)
        moments.append((mean, cov))
        lines += written
        if e_names:
            idx = [order.index(v) for v in e_names]
            mu, sigma = mean[idx], cov[np.ix_(idx, idx)]
            log_density = _log_density(e, mu, sigma)
            density = math.exp(log_density)
            lam.append(log_density)
            point = ", ".join(f"{v}={_g(x)}" for v, x in zip(e_names, e))
            if len(e_names) == 1:
                lines.append(f"  p({point}{bar}) = N({_g(e[0])}; {_g(mu[0])}, "
                             f"{_g(sigma[0, 0])}) = {_g(density)}")
            else:
                lines.append(f"  p({point}{bar}) = N(({', '.join(map(_g, e))}); "
                             f"μ = ({', '.join(map(_g, mu))}), Σ = "
                             f"{[[float(f'{c:.6g}') for c in row] for row in sigma]}) "
                             f"= {_g(density)}")
    evidence = [(v, s) for v, s in query.evidence if v not in findings]
    reduced = net.copy()
    for v in reversed([u for u in net.variables if u in gaussian]):
        reduced.remove_variable(v)
    if e_names and discrete:
        scaled = np.exp(np.asarray(lam) - max(lam))  # in logs: far findings underflow
        name = virtual_name("".join(e_names), reduced.variables)
        reduced.add_variable(name, list(VIRTUAL_STATES), parents=discrete,
                             table=np.stack([scaled, 1.0 - scaled], axis=-1).reshape(
                                 [len(net.states(v)) for v in discrete] + [2]))
        evidence.append((name, VIRTUAL_STATES[0]))
        lines.append(f"The findings are a virtual child {name} of {', '.join(discrete)}, "
                     f"observed {VIRTUAL_STATES[0]}: P({name}={VIRTUAL_STATES[0]} | "
                     f"{', '.join(discrete)}) = λ / max λ = "
                     f"{', '.join(_g(x) for x in scaled)} (only the ratios matter).")
    elif e_names:
        lines.append("No discrete variable enters these densities: the findings do not "
                     "change the discrete answer.")
    answer = net.query(query.text())
    if not continuous_asked:
        derivation = explain(reduced, replace(query, evidence=tuple(evidence)))
        return replace(derivation, answer=answer, regression=tuple(lines),
                       title=query.text())
    target = continuous_asked[0]
    observed = dict(evidence)
    free = [v for v in discrete if v not in observed]
    consistent = [k for k, config in enumerate(configurations)
                  if all(observed.get(v, s) == s for v, s in zip(discrete, config))]
    configurations = [configurations[k] for k in consistent]
    moments = [moments[k] for k in consistent]
    if free:
        derivation = explain(reduced, Query("P", tuple((v, None) for v in free),
                                            tuple(evidence)))
        weights = derivation.result.normalize().values.reshape(-1)
    else:  # one normal: no discrete derivation, no weights
        derivation = Derivation(query, (), (), (), (), Factor((), {}, np.array(1.0)), 1.0,
                                answer, None, None)
        weights = np.ones(1)
    mixture = [f"P({target}{' | ' if query.evidence else ''}"
               f"{', '.join(f'{v}={s}' for v, s in query.evidence)}) = Σ_d P(d | e) · "
               f"N({target}; μ_d, σ²_d), d over {', '.join(free)}:" if free else
               f"P({target}{' | ' if query.evidence else ''}"
               f"{', '.join(f'{v}={s}' for v, s in query.evidence)}) = N({target}; μ, σ²), "
               "one normal (no unobserved discrete variable):"]
    t = order.index(target)
    idx = [order.index(v) for v in e_names]
    components = []
    for config, w, (mean, cov) in zip(configurations, weights, moments):
        given = ", ".join(f"{v}={s}" for v, s in zip(discrete, config) if v in free) or target
        weight = (f", weight P({given}{' | e' if idx or evidence else ''}) = {_g(w)}"
                  if free else "")
        m, var = float(mean[t]), float(cov[t, t])
        if not idx:
            mixture.append(f"  {given}: μ = {_g(m)}, σ² = {_g(var)}{weight}")
            components.append((m, var))
            continue
        sxe, see = cov[t, idx], cov[np.ix_(idx, idx)]
        gain = np.linalg.solve(see, sxe)
        m_c, v_c = m + float(gain @ (e - mean[idx])), var - float(gain @ sxe)
        components.append((m_c, v_c))
        if len(idx) == 1:
            mixture.append(f"  {given}: μ = {_g(m)}{_plus(sxe[0])} / {_g(see[0, 0])} · "
                           f"({_g(e[0])}{_plus(-mean[idx][0])}) = {_g(m_c)}, σ² = "
                           f"{_g(var)} − {_p(sxe[0])}² / {_g(see[0, 0])} = {_g(v_c)}{weight}")
        else:
            mixture.append(f"  {given}: μ = μ_{target} + Σ_{target}e Σ_ee⁻¹ (e − μ_e) = "
                           f"{_g(m)} + ({', '.join(map(_g, gain))})·(e − "
                           f"({', '.join(map(_g, mean[idx]))})) = {_g(m_c)}, σ² = "
                           f"Σ_{target}{target} − Σ_{target}e Σ_ee⁻¹ Σ_e{target} = {_g(var)} − "
                           f"{_g(float(gain @ sxe))} = {_g(v_c)}{weight}")
    means, variances = (np.array(c) for c in zip(*components))
    total_mean = float(weights @ means)
    total_variance = float(weights @ (variances + means ** 2)) - total_mean ** 2
    mixture += [] if not free else [f"  mean = Σ_d P(d | e) μ_d = {_g(total_mean)}; variance = "
                   f"Σ_d P(d | e) (σ²_d + μ_d²) − mean² = {_g(total_variance)} "
                   "(moments matched)"]
    return replace(derivation, answer=answer, regression=tuple(lines), mixture=tuple(mixture),
                   title=query.text(), components=tuple(
                       (float(w), m, v) for w, (m, v) in zip(weights, components)))


def _ancestors(net: Network, start: set[str]) -> set[str]:
    """The continuous variables among ``start`` and their continuous ancestors."""
    seen, stack = set(), [v for v in start if net.is_gaussian(v)]
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack += [p for p in net.parents(v) if net.is_gaussian(p)]
    return seen


def _moments(net: Network, order: list[str], at: dict[str, str], bar: str):
    """The mean vector and covariance of ``order``'s variables given the discrete
    configuration ``at``, with each regression written out."""
    n = len(order)
    mean, cov = np.zeros(n), np.zeros((n, n))
    lines = []
    for k, v in enumerate(order):
        discrete = [p for p in net.parents(v) if not net.is_gaussian(p)]
        shape = [len(net.states(p)) for p in discrete]
        flat = int(np.ravel_multi_index([net.states(p).index(at[p]) for p in discrete],
                                        shape)) if discrete else 0
        mu, var = (a.reshape(-1)[flat] for a in net.gaussian_parameters(v))
        b = {p: float(w.reshape(-1)[flat]) for p, w in net.gaussian_weights(v).items()}
        idx = [order.index(p) for p in b]
        bv = np.array(list(b.values()))
        mean[k] = mu + (bv @ mean[idx] if idx else 0.0)
        cov[k, :k] = cov[:k, k] = bv @ cov[idx, :k] if idx else 0.0
        cov[k, k] = var + (bv @ cov[np.ix_(idx, idx)] @ bv if idx else 0.0)
        m_terms = "".join(f"{_plus(w)}·{_p(mean[j])}" for w, j in zip(bv, idx))
        v_terms = "".join(f" + {_p(w)}²·{_g(cov[j, j])}" for w, j in zip(bv, idx))
        v_terms += "".join(f" + 2·{_p(bv[a])}·{_p(bv[c])}·{_p(cov[idx[a], idx[c]])}"
                           for a in range(len(idx)) for c in range(a + 1, len(idx))
                           if cov[idx[a], idx[c]] != 0.0)
        lines.append(f"  E[{v}{bar}] = {_g(mu)}{m_terms}"
                     + (f" = {_g(mean[k])}" if idx else ""))
        lines.append(f"  Var[{v}{bar}] = {_g(var)}{v_terms}"
                     + (f" = {_g(cov[k, k])}" if idx else ""))
    return mean, cov, lines


def _log_density(e: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> float:
    """log N(e; μ, Σ), the multivariate normal density's logarithm."""
    r = e - mu
    quad = float(r @ np.linalg.solve(sigma, r))
    return -0.5 * (quad + len(e) * math.log(2 * math.pi) + np.linalg.slogdet(sigma)[1])

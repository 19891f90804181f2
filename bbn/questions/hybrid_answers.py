"""Questions about networks in which a discrete variable has continuous parents (the
softmax form, :mod:`bbn.model.softmax_nodes`): answered by likelihood weighting with the
continuous variables sampled (:mod:`bbn.engines.approximate.hybrid_sampling`).

    P̂(T = t | e) = Σ_n w_n [t_n = t] / Σ_n w_n,    Ê[Y | e] = Σ_n w_n y_n / Σ_n w_n

each with its standard error. The exact engine refuses them: the posterior of a
continuous parent given a softmax child is not a mixture of normals (the integral of a
normal times a logistic has no closed form). Resolution gives such questions the kinds
``"HYBRID"`` and ``"HYBRID_POSTERIORS"``; :data:`bbn.questions.dispatch.KINDS` names the
functions here.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_gaussian_variable("x", mean=0.0, variance=1.0)
>>> net.add_logistic("D", ["x"], weights={"x": 2.0})
>>> net.posterior("D")
Traceback (most recent call last):
    ...
bbn.core.errors.ModelError: 'D' is discrete with continuous parents (softmax form): ...
>>> answer = net.posterior("x", {"D": "T"}, method="lw")
>>> bool(0.5 < answer.mean < 0.8), answer.report.method
(True, 'lw')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import ModelError, QueryError
from bbn.engines.approximate.hybrid_sampling import HybridWeighting, Particles
from bbn.engines.approximate.likelihood_weighting import LikelihoodWeighting
from bbn.engines.approximate.methods import approximate_method
from bbn.engines.approximate.result import RunReport
from bbn.questions.estimates import Estimate, EstimatedProbability


@dataclass(frozen=True)
class SampledMoments:
    """An approximate answer about a continuous variable: its posterior mean and
    variance estimated from weighted samples, the standard error of the mean, and how
    the sampler ran. Not a normal: only the moments are claimed.

    Examples
    --------
    >>> print(SampledMoments("x", 1.0, 2.0, 0.01, RunReport("lw", samples=10)).to_text())
    x   mean 1.000000 (standard error 0.010000)   variance 2.000000   (lw, 10 samples)
    """

    variable: str
    mean: float
    variance: float
    standard_error: float
    report: RunReport

    @property
    def std(self) -> float:
        """The posterior standard deviation √variance."""
        return float(np.sqrt(self.variance))

    def to_text(self, digits: int = 6) -> str:
        """One line: mean, its standard error, variance and the run."""
        return (f"{self.variable}   mean {self.mean:.{digits}f} (standard error "
                f"{self.standard_error:.{digits}f})   variance {self.variance:.{digits}f}   "
                f"({self.report.method}, {self.report.samples} samples)")

    def __str__(self) -> str:
        return self.to_text()


def refuse(answering, question, model, **options):
    """The exact engine's answer: a ModelError saying why and what to use instead."""
    v = next(iter(question.network.softmax))
    raise ModelError(f"{v!r} is discrete with continuous parents (softmax form): posteriors "
                     "are not mixtures of normals and have no exact answer; ask with "
                     "method='lw' (likelihood weighting, with standard errors)")


def _run(answering, question, method) -> tuple[Particles, RunReport]:
    settings = approximate_method(method)
    if not isinstance(settings, LikelihoodWeighting):
        raise QueryError("networks with softmax variables (discrete with continuous parents) "
                         "are answered by likelihood weighting: method='lw' or "
                         f"LikelihoodWeighting(...), not {type(settings).__name__}")
    evidence, start = question.evidence, time.perf_counter()
    particles = HybridWeighting(answering.view).run(evidence.states, evidence.values,
                                                    settings.samples, settings.seed)
    return particles, RunReport("lw", samples=settings.samples,
                                effective_samples=particles.effective_samples,
                                seconds=time.perf_counter() - start, stopped_by="samples")


def _one(particles: Particles, report: RunReport, view, variables: list, evidence):
    if len(variables) == 1 and variables[0] in view.gaussian:
        mean, variance, error = particles.moments(variables[0])
        return SampledMoments(variables[0], mean, variance, error, report)
    if any(v in view.gaussian for v in variables):
        raise QueryError(f"ask about one continuous variable at a time in a network with "
                         f"softmax variables (got {variables})")
    p, error = particles.frequencies(variables)
    return Estimate(variables, {v: view.states[v] for v in variables}, p, error, report)


def answer_hybrid(answering, question, method):
    """P(free, assigned | e) by likelihood weighting: an
    :class:`~bbn.questions.estimates.Estimate` (discrete targets), a
    :class:`SampledMoments` (one continuous target), a float when all are assigned."""
    particles, report = _run(answering, question, method)
    view, free, assigned = answering.view, list(question.free), question.assigned
    if not assigned:
        return _one(particles, report, view, free, question.evidence)
    joint = _one(particles, report, view, free + list(assigned), question.evidence)
    cell = (Ellipsis, *assigned.values())
    if not free:
        return EstimatedProbability(float(joint.values[cell]),
                                    float(joint.standard_error[cell]), report)
    return Estimate(free, {v: view.states[v] for v in free}, joint.values[cell],
                    joint.standard_error[cell], report)


def answer_hybrid_posteriors(answering, question, method) -> dict:
    """Every unobserved variable's answer from one run."""
    particles, report = _run(answering, question, method)
    view, evidence = answering.view, question.evidence
    return {v: _one(particles, report, view, [v], evidence) for v in view.variables
            if v not in evidence.states and v not in evidence.values
            and v not in view.auxiliary}

"""Questions about continuous variables, and with continuous findings in a network whose
Gaussians have continuous parents: answered by
:class:`bbn.engines.exact.linear_gaussian.LinearGaussian` (one multivariate normal per
discrete configuration) or, when those are many, by
:class:`bbn.engines.exact.conditional_gaussian.ComponentTree` (the strong junction tree),
built once per compiled view.

    P(T | e_d, x_E) = Σ_d w(d) · N(T; μ_T|E(d), Σ_T|E(d))
    w(d) ∝ P(d | e_d) · N(x_E; μ_E(d), Σ_EE(d))

Resolution gives such questions the kinds ``"CONTINUOUS"`` (one posterior) and
``"CONTINUOUS_POSTERIORS"`` (every variable's); :data:`bbn.questions.dispatch.KINDS`
names the two functions here.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_variable("C", ["a", "b"], table=[0.5, 0.5])
>>> net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 1.0])
>>> answer = net.posterior("x")            # a mixture of two normals
>>> answer.mean, answer.variance, answer.components.weights.tolist()
(1.0, 2.0, [0.5, 0.5])
"""

from __future__ import annotations

import numpy as np

import bbn.engines.exact.conditional_gaussian as conditional_gaussian
from bbn.core.factor import Factor
from bbn.core.normals import Normal
from bbn.engines.exact.linear_gaussian import LinearGaussian


def continuous_engine(answering) -> LinearGaussian | conditional_gaussian.ComponentTree:
    """The view's continuous engine, kept on its ``Answering`` (made on first need):
    enumeration or the component tree, by cost
    (:func:`bbn.engines.exact.conditional_gaussian.continuous_model`)."""
    found = answering.continuous
    if found is None:
        found = answering.continuous = conditional_gaussian.continuous_model(answering.view)
    return found


def answer_continuous(answering, question, model, **options) -> Normal | Factor | float:
    """P(free, assigned | evidence): a :class:`~bbn.core.normals.Normal` for continuous
    targets, a :class:`~bbn.core.factor.Factor` for discrete ones (a float when every
    target is assigned: the assigned axes of the joint sliced at their states)."""
    free, assigned = list(question.free), question.assigned
    result = continuous_engine(answering).answer(answering.engine, free + list(assigned),
                                                 question.evidence)
    if isinstance(result, Normal):
        return result
    if assigned:
        result = np.asarray(result)[(Ellipsis, *assigned.values())]
        if not free:
            return float(result)
    view = answering.view
    return Factor(free, {v: view.states[v] for v in free}, result)


def answer_continuous_posteriors(answering, question, model, **options) -> dict:
    """Every variable's posterior (continuous ones as :class:`~bbn.core.normals.Normal`),
    observed ones left out."""
    view = answering.view
    answers = continuous_engine(answering).posteriors(answering.engine, question.evidence)
    return {v: answer if isinstance(answer, Normal) else Factor(
        (v,), {v: view.states[v]}, answer) for v, answer in answers.items()}

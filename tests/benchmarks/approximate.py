"""Workload 12: approximate inference at equal budgets — time and error against exact.

For each network, one evidence set of 3 variables (:func:`evidence_cases`), the exact
posteriors of every node from bbn's junction tree, then one row per method with bbn's and
pyAgrum's engine side by side, given the same budget:

* ``lbp``: bbn ``LoopyBP()`` (tolerance 1e-8, ≤ 1000 sweeps) — pyAgrum
  ``LoopyBeliefPropagation`` with ``setEpsilon(1e-8)``, ``setMaxIter(1000)``;
* ``lw``: bbn ``LikelihoodWeighting(samples=N)`` — pyAgrum ``WeightedSampling``;
* ``is``: bbn ``ImportanceSampling(samples=N)`` (loopy-BP proposal) — pyAgrum
  ``ImportanceSampling``;
* ``gibbs``: bbn ``Gibbs(samples=N)`` (100 chains, 100 sweeps burn-in; where the
  chains barely move, N/20 chains of 20) — pyAgrum
  ``GibbsSampling`` (its default burn-in).

pyAgrum's samplers are held to N samples: ``setMaxIter(N)`` with its epsilon stopping rules
turned off (``setEpsilon``/``setMinEpsilonRate`` 1e-300), no time limit. The timed run
builds the engine (bbn: the factor graph from the compiled view; pyAgrum: the engine
object) and answers every node. The notes give each side's mean absolute error over the
states of every unobserved node ("MAE"), the largest ("max"), and the samples pyAgrum
drew (``nbrIterations``).
"""

from __future__ import annotations

import numpy as np

from .harness import Row, Section, Settings, Timing, attempt, measure_side_by_side
from .models import bbn_network, evidence_cases, model, pyagrum_network

TITLE = "approximate inference at equal budgets (time; error against exact)"

#: The networks of the run: small to mid-sized, where exact answers are at hand (on andes
#: each of pyAgrum's samplers took over 180 s for 20,000 samples: ``--networks andes``).
NETWORKS = ["alarm", "child", "insurance", "hailfinder", "win95pts"]
#: Samples per run (lw, is, gibbs); --quick uses QUICK_SAMPLES.
SAMPLES = 20_000
QUICK_SAMPLES = 5_000
METHODS = ["lbp", "lw", "is", "gibbs"]
_PYAGRUM = {"lbp": "LoopyBeliefPropagation", "lw": "WeightedSampling",
            "is": "ImportanceSampling", "gibbs": "GibbsSampling"}


def bbn_run(net, method: str, samples: int, evidence: dict[str, str]) -> dict[str, np.ndarray]:
    from bbn.engines.approximate import FactorGraph, approximate_method

    graph = FactorGraph.from_compiled(net.compiled())
    coded = {graph.index(v): graph.states[graph.index(v)].index(s) for v, s in evidence.items()}
    settings = approximate_method(method)
    if method != "lbp":
        settings = type(settings)(samples=samples)
    return settings.run(graph, coded).probabilities


def pyagrum_run(bn, method: str, samples: int, evidence: dict[str, str]):
    import pyagrum as gum

    engine = getattr(gum, _PYAGRUM[method])(bn)
    if method == "lbp":
        engine.setEpsilon(1e-8)
        engine.setMaxIter(1000)
    else:
        engine.setEpsilon(1e-300)
        engine.setMinEpsilonRate(1e-300)
        engine.setMaxIter(samples)
    engine.setEvidence(evidence)
    engine.makeInference()
    return {v: engine.posterior(v).toarray() for v in bn.names()}, engine.nbrIterations()


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("12", TITLE, ["bbn", "pyAgrum"], [("bbn", "pyAgrum")])
    samples = QUICK_SAMPLES if settings.quick else SAMPLES
    section.comment = (f"equal budgets: {samples} samples (lw, is, gibbs), tolerance 1e-8 "
                       "(lbp); MAE = mean |P̂ − P| over the states of the unobserved nodes")
    for name in networks or NETWORKS:
        for method in METHODS:
            section.add(_row(settings, name, method, samples))
    return section


def _row(settings: Settings, name: str, method: str, samples: int) -> Row:
    row = Row("approximate", f"{name} {method}")
    cases, failed = attempt(lambda: evidence_cases(name, 3, 1))
    if failed:
        row.cells["bbn"] = failed
        return row
    evidence = cases[0][1]
    net = bbn_network(name)
    exact = {v: f.values for v, f in net.posteriors(evidence).items()}
    hidden = [v for v in model(name).variables if v not in evidence]
    runs = {"bbn": lambda: bbn_run(net, method, samples, evidence)}
    bn, failed = attempt(lambda: pyagrum_network(name), "pyAgrum: ")
    if failed:
        row.cells["pyAgrum"] = failed
    else:
        runs["pyAgrum"] = lambda: pyagrum_run(bn, method, samples, evidence)
    row.cells.update(measure_side_by_side(settings, runs))
    errors = {}
    answer, failed = attempt(lambda: bbn_run(net, method, samples, evidence))
    if not failed:
        errors["bbn"] = _errors(answer, exact, hidden)
    if isinstance(row.cells.get("pyAgrum"), Timing):  # not again after a stopped run
        result, failed = attempt(lambda: pyagrum_run(bn, method, samples, evidence))
        if not failed:
            errors["pyAgrum"] = _errors(result[0], exact, hidden)
            if method != "lbp":
                row.notes.append(f"pyAgrum drew {result[1]}")
    for library, (mean, worst) in errors.items():
        row.notes.append(f"{library} MAE {mean:.1e} max {worst:.1e}")
    row.extra.update(evidence=evidence, samples=samples,
                     errors={k: {"mae": m, "max": w} for k, (m, w) in errors.items()})
    return row


def _errors(answer: dict, exact: dict, hidden: list[str]) -> tuple[float, float]:
    gaps = np.concatenate([np.abs(np.asarray(answer[v]) - exact[v]) for v in hidden])
    return float(gaps.mean()), float(gaps.max())

"""Workload 13: the UAI 2014 competition's instances — every one answered, checked
against the competition's reference answers.

For each instance of ``../shared/uai2014/MAR`` (marginals) and ``PR`` (log10 Z(e)), one
timed run of each cell (the instances take seconds to minutes; no repetition):

* ``bbn exact``: ``bbn.competition.answer_task`` (junction tree — kept, or compiled for
  the question alone, or holding its messages only — or one elimination per variable when
  no tree fits; for PR one elimination), stopped after ``EXACT_CAP`` seconds; n/a with the
  reason when exact inference does not fit in 1 GiB;
* where exact gives no answer, ``bbn lbp`` (``LoopyBP(damping=0.5)``) and a sampler
  (``Gibbs`` for a Markov network, ``ImportanceSampling`` for a Bayesian network), each
  with ``time_budget=BUDGET``;
* ``pyAgrum exact`` (MAR only): ``loadMRF`` and ``ShaferShenoyMRFInference``, every
  posterior, stopped after ``EXACT_CAP`` seconds; ``pyAgrum lbp``: its
  ``LoopyBeliefPropagation`` (``setMaxTime(BUDGET)``) where bbn reads the instance as a
  Bayesian network (written as BIF for pyAgrum).

The notes give each answer's error against the reference: for MAR the largest and mean
absolute marginal error over every state, for PR |Δ log10 Z|.
"""

from __future__ import annotations

import gzip
import tempfile
import time
from pathlib import Path

import numpy as np

from .harness import NA, Row, Section, Settings, Timing, deadline, describe

TITLE = "UAI 2014 instances: every answer against the competition's references"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "uai2014"
#: Seconds an exact answer may take before the cell is stopped.
EXACT_CAP = 120.0
#: Seconds each approximate method is given (its time_budget).
BUDGET = 30.0


def instances(task: str) -> list[str]:
    return sorted(p.name[:-len(".uai.gz")] for p in (SHARED / task).glob("*.uai.gz"))


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("13", TITLE, ["bbn exact", "bbn lbp", "bbn sampler", "pyAgrum exact",
                                    "pyAgrum lbp"],
                      [("bbn exact", "pyAgrum exact"), ("bbn lbp", "pyAgrum lbp")])
    section.comment = (f"one run per cell; exact stopped after {EXACT_CAP:g} s; approximate "
                       f"methods given {BUDGET:g} s; errors against the references")
    if not SHARED.is_dir():
        section.comment += " — ../shared/uai2014 is absent: nothing ran"
        return section
    for task in ("MAR", "PR"):
        for name in instances(task):
            if networks and name not in networks:
                continue
            section.add(_row(task, name, settings.quick))
    return section


def _timed(make, cap: float):
    """(value, Timing) or (None, NA) for one run of ``make`` stopped after ``cap`` s."""
    try:
        with deadline(cap):
            t0 = time.perf_counter()
            value = make()
            took = time.perf_counter() - t0
        return value, Timing(took, 1, took, took)
    except Exception as error:  # a refusal or a stop is a result of the run
        return None, NA(describe(error))


def _row(task: str, name: str, quick: bool) -> Row:
    import bbn
    from bbn.competition import answer_task, read_evidence, read_result

    folder = SHARED / task
    row = Row("uai", f"{task} {name}")
    net = bbn.load(folder / f"{name}.uai.gz")
    evidence = read_evidence(gzip.open(folder / f"{name}.uai.evid.gz", "rt").read(), net)
    reference = read_result(gzip.open(folder / f"{name}.uai.{task}.gz", "rt").read())
    budget = 5.0 if quick else BUDGET
    answer, row.cells["bbn exact"] = _timed(lambda: answer_task(net, task, evidence), EXACT_CAP)
    if answer is not None:
        row.notes.append("exact " + _error(task, answer, reference))
    else:
        sampler = (bbn.Gibbs(samples=10**9, time_budget=budget)
                   if isinstance(net, bbn.MarkovNetwork)
                   else bbn.ImportanceSampling(samples=10**9, time_budget=budget))
        methods = {"bbn lbp": bbn.LoopyBP(damping=0.5, time_budget=budget),
                   "bbn sampler": sampler}
        if task == "PR" and isinstance(net, bbn.MarkovNetwork):
            del methods["bbn sampler"]  # Gibbs gives no estimate of Z
        for cell, method in methods.items():
            found, row.cells[cell] = _timed(
                lambda m=method: answer_task(net, task, evidence, m), 3 * budget)
            if found is not None:
                row.notes.append(f"{cell[4:]} {_error(task, found, reference)}")
    if task == "MAR":
        _pyagrum(row, folder / f"{name}.uai.gz", net, evidence, reference, budget)
    row.extra.update(kind=type(net).__name__, variables=len(net.variables))
    return row


def _error(task: str, answer, reference) -> str:
    if task == "PR":
        return f"|Δlog10 Z| {abs(answer.log10_partition - reference.log10_partition):.1e}"
    gaps = np.concatenate([np.abs(p - reference.marginals[v])
                           for v, p in answer.marginals.items()])
    return f"max {gaps.max():.1e} mean {gaps.mean():.1e}"


def _pyagrum(row: Row, path: Path, net, evidence: dict, reference, budget: float) -> None:
    """pyAgrum's exact MRF engine (every posterior), and its loopy BP on a Bayesian
    network, with the same evidence."""
    import bbn

    try:
        import pyagrum as gum
        import pyagrum.markov_random_field as mrf_module
    except ImportError:
        row.cells["pyAgrum exact"] = NA("pyAgrum is not installed")
        return
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "model.uai"
        plain.write_text(gzip.open(path, "rt").read())
        mrf = mrf_module.loadMRF(str(plain))

        def exact():
            engine = mrf_module.ShaferShenoyMRFInference(mrf)
            engine.setEvidence({mrf.variable(int(v[1:])).name(): int(s)
                                for v, s in evidence.items()})  # X7 → pyAgrum's 7th
            engine.makeInference()
            return {f"X{i}": engine.posterior(mrf.variable(i).name()).toarray()
                    for i in range(len(net.variables))}

        found, row.cells["pyAgrum exact"] = _timed(exact, EXACT_CAP)
        if found is not None:
            gaps = np.concatenate([np.abs(found[v] - reference.marginals[v]) for v in found])
            row.notes.append(f"pyAgrum exact max {gaps.max():.1e}")
        if isinstance(net, bbn.Network):
            bif = Path(folder) / "model.bif"
            bbn.save(net, bif)
            bn = gum.loadBN(str(bif))

            def loopy():
                engine = gum.LoopyBeliefPropagation(bn)
                engine.setMaxTime(budget)
                engine.setEvidence(dict(evidence))
                engine.makeInference()
                return {v: engine.posterior(v).toarray() for v in net.variables}

            found, row.cells["pyAgrum lbp"] = _timed(loopy, 3 * budget)
            if found is not None:
                gaps = np.concatenate([np.abs(found[v] - reference.marginals[v])
                                       for v in found])
                row.notes.append(f"pyAgrum lbp max {gaps.max():.1e} mean {gaps.mean():.1e}")

"""Workload 13: the UAI 2014 competition's instances — every one answered, checked
against the competition's reference answers.

For each instance of ``../shared/uai2014/MAR`` (marginals) and ``PR`` (log10 Z(e)), the
exact cells taking turns (``EXACT_TIMING``: a small instance repeated, the median kept; a
slow one run once; each bbn run on a network freshly loaded, outside the timing), the
approximate cells one run each:

* ``bbn exact``: ``bbn.tasks.competition.answer_task`` (junction tree — kept, or compiled for
  the question alone, or holding its messages only — or one elimination per variable when
  no tree fits; for PR one elimination), stopped after ``EXACT_CAP`` seconds; n/a with the
  reason when exact inference does not fit in 1 GiB;
* where exact gives no answer, ``bbn lbp`` (``LoopyBP(damping=0.5)``) and a sampler
  (``Gibbs`` for a Markov network, ``ImportanceSampling`` for a Bayesian network), each
  with ``time_budget=BUDGET``;
* ``pyAgrum exact`` (MAR only): ``loadMRF`` (of the file as :func:`pyagrum_markov`
  rewrites it: pyAgrum misreads a scope not in decreasing order) and
  ``ShaferShenoyMRFInference``, every posterior, stopped after ``EXACT_CAP`` seconds;
  ``pyAgrum lbp``: its ``LoopyBeliefPropagation`` (``setMaxTime(BUDGET)``) where bbn
  reads the instance as a Bayesian network (written as BIF for pyAgrum).

The notes give each answer's error against the reference: for MAR the largest and mean
absolute marginal error over every state, for PR |Δ log10 Z|.
"""

from __future__ import annotations

import gzip
import tempfile
import time
from pathlib import Path

import numpy as np

from .harness import NA, Row, Section, Settings, Timing, deadline, describe, measure_side_by_side

TITLE = "UAI 2014 instances: every answer against the competition's references"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "uai2014"
#: Seconds an exact answer may take before the cell is stopped.
EXACT_CAP = 120.0
#: Seconds each approximate method is given (its time_budget).
BUDGET = 30.0
#: The exact cells' timing: a small instance repeated for 2 s (bbn and pyAgrum taking
#: turns, the median kept: one run of 50 ms moves by ±30% on a shared machine), a slow
#: one run once; a run over EXACT_CAP is stopped.
EXACT_TIMING = Settings(budget=2.0, min_reps=1, deadline=EXACT_CAP)


def instances(task: str) -> list[str]:
    return sorted(p.name[:-len(".uai.gz")] for p in (SHARED / task).glob("*.uai.gz"))


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("13", TITLE, ["bbn exact", "bbn lbp", "bbn sampler", "pyAgrum exact",
                                    "pyAgrum lbp"],
                      [("bbn exact", "pyAgrum exact"), ("bbn lbp", "pyAgrum lbp")])
    section.comment = (f"exact cells taking turns, repeated for {EXACT_TIMING.budget:g} s "
                       f"(median) or run once when slower, stopped after {EXACT_CAP:g} s; "
                       f"approximate methods one run, given {BUDGET:g} s; errors against the "
                       "references")
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
    from bbn.tasks.competition import answer_task, read_evidence, read_result

    folder = SHARED / task
    row = Row("uai", f"{task} {name}")
    path = folder / f"{name}.uai.gz"
    net = bbn.load(path)
    evidence = read_evidence(gzip.open(folder / f"{name}.uai.evid.gz", "rt").read(), net)
    reference = read_result(gzip.open(folder / f"{name}.uai.{task}.gz", "rt").read())
    budget = 5.0 if quick else BUDGET
    answers: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder_for_pyagrum:
        runs = {"bbn exact": lambda fresh: answers.update(
            {"bbn exact": answer_task(fresh, task, evidence)})}
        setups = {"bbn exact": lambda: bbn.load(path)}
        pyagrum = _pyagrum_exact(path, Path(folder_for_pyagrum), len(net.variables), evidence,
                                 row) if task == "MAR" else None
        if pyagrum is not None:
            runs["pyAgrum exact"] = lambda: answers.update({"pyAgrum exact": pyagrum()})
        row.cells.update(measure_side_by_side(EXACT_TIMING, runs, setups))
    if "bbn exact" in answers:
        row.notes.append("exact " + _error(task, answers["bbn exact"], reference))
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
    if "pyAgrum exact" in answers:
        found = answers["pyAgrum exact"]
        gaps = np.concatenate([np.abs(found[v] - reference.marginals[v]) for v in found])
        row.notes.append(f"pyAgrum exact max {gaps.max():.1e}")
    if task == "MAR" and isinstance(net, bbn.Network):
        _pyagrum_loopy(row, net, evidence, reference, budget)
    row.extra.update(kind=type(net).__name__, variables=len(net.variables))
    return row


def _error(task: str, answer, reference) -> str:
    if task == "PR":
        return f"|Δlog10 Z| {abs(answer.log10_partition - reference.log10_partition):.1e}"
    gaps = np.concatenate([np.abs(p - reference.marginals[v])
                           for v, p in answer.marginals.items()])
    return f"max {gaps.max():.1e} mean {gaps.mean():.1e}"


def pyagrum_markov(text: str) -> str:
    """A UAI ``MARKOV`` file as pyAgrum's ``loadMRF`` reads it right: every scope in
    decreasing variable order, its table transposed to match.

    pyAgrum 3.3.1's reader fills each factor with the variables sorted by index, the
    smallest changing fastest, whatever the scope's order; the format has the scope's
    last variable fastest. The two agree only for a scope in decreasing order (or a
    symmetric table: Grids' pairwise factors), so pyAgrum answered a different model on
    every Promedus, Pedigree and CSP instance (README, workload 13).

    >>> pyagrum_markov("MARKOV 2 2 2 1 2 0 1 4 1 2 3 4").split()
    ['MARKOV', '2', '2', '2', '1', '2', '1', '0', '4', '1.0', '3.0', '2.0', '4.0']
    """
    tokens = text.split()
    n = int(tokens[1])
    cards = [int(t) for t in tokens[2:2 + n]]
    at, scopes = 3 + n, []
    for _ in range(int(tokens[2 + n])):
        size = int(tokens[at])
        scopes.append([int(t) for t in tokens[at + 1:at + 1 + size]])
        at += 1 + size
    lines = [tokens[0], str(n), " ".join(map(str, cards)), str(len(scopes))]
    tables = []
    for scope in scopes:
        entries = int(tokens[at])
        values = np.array(tokens[at + 1:at + 1 + entries], float)
        at += 1 + entries
        order = sorted(range(len(scope)), key=lambda axis: -scope[axis])
        lines.append(" ".join(map(str, [len(scope), *(scope[a] for a in order)])))
        table = values.reshape([cards[v] for v in scope]).transpose(order)
        tables += ["", str(entries), " ".join(map(repr, table.ravel().tolist()))]
    return "\n".join(lines + tables) + "\n"


def _pyagrum_exact(path: Path, folder: Path, n: int, evidence: dict, row: Row):
    """pyAgrum's exact MRF engine on the instance (every posterior, with the same
    evidence), as a function to time; None, with the reason in the row, without
    pyAgrum."""
    try:
        import pyagrum.markov_random_field as mrf_module
    except ImportError:
        row.cells["pyAgrum exact"] = NA("pyAgrum is not installed")
        return None
    plain = folder / "model.uai"
    plain.write_text(pyagrum_markov(gzip.open(path, "rt").read()))
    mrf = mrf_module.loadMRF(str(plain))
    observed = {mrf.variable(int(v[1:])).name(): int(s)
                for v, s in evidence.items()}  # X7 → pyAgrum's 7th

    def exact():
        engine = mrf_module.ShaferShenoyMRFInference(mrf)
        engine.setEvidence(observed)
        engine.makeInference()
        return {f"X{i}": engine.posterior(mrf.variable(i).name()).toarray() for i in range(n)}

    return exact


def _pyagrum_loopy(row: Row, net, evidence: dict, reference, budget: float) -> None:
    """pyAgrum's loopy BP on an instance bbn reads as a Bayesian network (written as BIF
    for pyAgrum), with the same evidence."""
    import bbn

    try:
        import pyagrum as gum
    except ImportError:
        return
    with tempfile.TemporaryDirectory() as folder:
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
            gaps = np.concatenate([np.abs(found[v] - reference.marginals[v]) for v in found])
            row.notes.append(f"pyAgrum lbp max {gaps.max():.1e} mean {gaps.mean():.1e}")

"""Workload 2: one query P(X | e) with 1, 3 and 5 evidence variables.

Each cell answers the same ``count`` (query, evidence) pairs — evidence taken from
sampled cases, so it is possible — and reports the median time per query.

* bbn: ``net.posterior([X], e)`` on an already loaded network. *warm*: the compiled
  plan for this question shape is cached (every pair is asked once before timing);
  *cold*: a ``net.copy()`` (empty plan cache) per question, made outside the timing.
* pyAgrum: a new ``LazyPropagation`` per query (``setEvidence``, ``addTarget``,
  ``makeInference``, ``posterior``).
* pgmpy: a new ``VariableElimination`` per query, ``query([X], evidence=e)``.
"""

from __future__ import annotations

from .engines import bbn_posterior, difference_note, pgmpy_posterior, pyagrum_posterior
from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .models import LISTED, bbn_network, evidence_cases, pgmpy_network, pyagrum_network

TITLE = "single query P(X | e), per query, fresh peer engine each time"


def run(settings: Settings, networks: list[str] | None = None,
        sizes: tuple[int, ...] = (1, 3, 5)) -> Section:
    section = Section("2", TITLE, ["bbn", "bbn cold", "pyAgrum", "pgmpy"],
                      [("bbn", "pyAgrum"), ("bbn", "pgmpy"), ("bbn cold", "pyAgrum")])
    section.comment = ("bbn = warm plan cache; bbn cold = empty cache (net.copy()); "
                       "times are per query, median over repetitions")
    count = 3 if settings.quick else 5
    for name in networks or LISTED:
        engines = {"bbn": attempt(lambda name=name: bbn_network(name), "bbn: "),
                   "pyAgrum": attempt(lambda name=name: pyagrum_network(name), "pyAgrum: "),
                   "pgmpy": attempt(lambda name=name: pgmpy_network(name), "pgmpy: ")}
        for k in sizes:
            section.add(_row(settings, name, k, count, engines))
    return section


def _row(settings: Settings, name: str, k: int, count: int, engines: dict) -> Row:
    row = Row("single query", f"{name} e={k}")
    cases, failed = attempt(lambda: evidence_cases(name, k, count))
    if failed:
        row.cells["bbn"] = failed
        return row
    answers, runs, setups = {}, {}, {}
    for library, ask in [("bbn", bbn_posterior), ("pyAgrum", pyagrum_posterior),
                         ("pgmpy", pgmpy_posterior)]:
        engine, failed = engines[library]
        if failed:
            row.cells[library] = failed
            continue

        def all_cases(ask=ask, engine=engine):
            return [ask(engine, x, e) for x, e in cases]

        # answering once first checks the answers and warms bbn's plan cache
        first, failed = attempt(all_cases)
        if failed:
            row.cells[library] = failed
            continue
        answers[library] = first
        runs[library] = all_cases
        if library == "bbn":
            runs["bbn cold"] = lambda copies: [bbn_posterior(c, x, e)
                                               for c, (x, e) in zip(copies, cases)]
            setups["bbn cold"] = lambda engine=engine: [engine.copy() for _ in cases]
    row.cells.update(measure_side_by_side(settings, runs, setups, per=len(cases)))
    note, diffs = difference_note(answers)
    row.notes.append(note)
    row.extra["max_abs_diff"] = diffs
    row.extra["queries"] = [{"target": x, "evidence": e} for x, e in cases]
    return row

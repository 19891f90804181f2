"""Workload 4: P(X | e_i) for many evidence rows e_i sampled from the network.

The same 3 evidence variables in every row, different values (10,000 rows; 1,000 with
--quick). The cell is the time for all rows.

* bbn: one call ``net.posterior([X], frame)`` (*warm*: plan cached;
  *cold*: on a ``net.copy()``).
* pyAgrum: one ``LazyPropagation`` with X as target, then per row ``updateEvidence``,
  ``makeInference``, ``posterior(X)`` — the engine reused, as a user would loop.
* pgmpy: one ``VariableElimination``, ``query`` per row.

A peer loop that would run past its time budget is stopped and its total extrapolated
from the rows it did (marked ``*``; the number of rows is in the JSON and the notes).
"""

from __future__ import annotations

import time

import numpy as np

from .engines import difference_note
from .harness import NA, Row, Section, Settings, Timing, attempt, describe, measure
from .models import (
    LISTED,
    bbn_network,
    model,
    pgmpy_network,
    pyagrum_network,
    samples,
    stable_seed,
)

TITLE = "batched P(X | e_i) for many sampled evidence rows (total time)"


def choose(name: str, k: int = 3) -> tuple[str, list[str]]:
    """The query variable and the ``k`` evidence variables for a network (fixed)."""
    variables = model(name).variables
    rng = np.random.default_rng(stable_seed("batch", name, k))
    chosen = [variables[i] for i in rng.choice(len(variables), k + 1, replace=False)]
    return chosen[0], chosen[1:]


def bbn_batch(net, target: str, frame) -> np.ndarray:
    return net.posterior([target], frame).to_numpy()  # a DataFrame: one column per state


def loop(rows: list[dict], answer, budget: float, limit: int | None = None):
    """Answer rows in order until done, ``limit`` rows, or ``budget`` seconds; returns
    (Timing of the total extrapolated to every row, answers)."""
    answers = []
    started = time.perf_counter()
    for row in rows[:limit]:
        answers.append(answer(row))
        if time.perf_counter() - started > budget:
            break
    spent = time.perf_counter() - started
    done = len(answers)
    total = spent / done * len(rows)
    note = "" if done == len(rows) else f"extrapolated from {done} rows"
    return Timing(total, 1, total, total, note), answers


def pyagrum_loop(bn, target: str, rows: list[dict], budget: float):
    import pyagrum as gum

    engine = gum.LazyPropagation(bn)
    engine.addTarget(target)
    engine.setEvidence(rows[0])

    def answer(row):
        engine.updateEvidence(row)
        engine.makeInference()
        return engine.posterior(target).toarray()

    return loop(rows, answer, budget)


def pgmpy_loop(net, target: str, rows: list[dict], budget: float, limit: int):
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(net)

    def answer(row):
        return np.asarray(engine.query([target], evidence=row, show_progress=False).values)

    return loop(rows, answer, budget, limit)


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("4", TITLE, ["bbn", "bbn cold", "pyAgrum", "pgmpy"],
                      [("bbn", "pyAgrum"), ("bbn", "pgmpy"), ("bbn cold", "pyAgrum")])
    n = 1000 if settings.quick else 10_000
    peer_budget = 3.0 if settings.quick else 10.0
    pgmpy_rows = 50 if settings.quick else 300
    section.comment = (f"{n} rows, 3 evidence variables; total time for all rows; * = peer "
                       f"loop stopped after {peer_budget:g} s (pgmpy after at most "
                       f"{pgmpy_rows} rows) and extrapolated to {n} rows")
    for name in networks or LISTED:
        section.add(_row(settings, name, n, peer_budget, pgmpy_rows))
    return section


def _row(settings: Settings, name: str, n: int, peer_budget: float, pgmpy_rows: int) -> Row:
    row = Row("batch", f"{name} N={n}")
    data, failed = attempt(lambda: samples(name, n))
    if failed:
        row.cells["bbn"] = failed
        return row
    target, observed = choose(name)
    frame = data[observed].reset_index(drop=True)
    records = frame.to_dict("records")
    answers = {}
    net, failed = attempt(lambda: bbn_network(name), "bbn: ")
    if failed:
        row.cells["bbn"] = row.cells["bbn cold"] = failed
    else:
        first, failed = attempt(lambda: bbn_batch(net, target, frame))
        if failed:
            row.cells["bbn"] = row.cells["bbn cold"] = failed
        else:
            answers["bbn"] = list(first)
            row.cells["bbn"] = measure(settings, lambda: bbn_batch(net, target, frame))
            row.cells["bbn cold"] = measure(
                settings, lambda copy: bbn_batch(copy, target, frame), setup=net.copy)
    loops = {"pyAgrum": (pyagrum_network, lambda e: pyagrum_loop(e, target, records,
                                                                 peer_budget)),
             "pgmpy": (pgmpy_network, lambda e: pgmpy_loop(e, target, records, peer_budget,
                                                           pgmpy_rows))}
    for library, (build, run_loop) in loops.items():
        engine, failed = attempt(lambda build=build: build(name), f"{library}: ")
        if failed:
            row.cells[library] = failed
            continue
        try:
            timing, result = run_loop(engine)
        except Exception as error:
            row.cells[library] = NA(describe(error))
            continue
        row.cells[library] = timing
        if timing.note:
            row.notes.append(f"{library} {timing.note}")
        if "bbn" in answers:
            answers[library] = result
    if "bbn" in answers:
        # compare on the rows every library answered
        done = min(len(a) for a in answers.values())
        answers = {k: v[:done] for k, v in answers.items()}
    note, diffs = difference_note(answers)
    if note:
        row.notes.append(note)
    row.extra.update(max_abs_diff=diffs, target=target, evidence_variables=observed, rows=n)
    return row

"""Workload 10: d-separation, is X ⟂ Y | Z? — 100 random questions per cell.

X and Y are two random variables, Z each other variable with probability 0.15 (seeded by
the network's name), the same questions for every library; time per question.

* bbn: ``bbn.is_independent(net, x, y, z)`` (networkx's ``is_d_separator`` on the revision's
  graph, kept), and ``bbn.active_trail(net, x, y, z)`` (one trail with its reasons, or None).
* pyAgrum: ``bn.isIndependent(x, y, z)``.
* pgmpy: ``not model.is_dconnected(x, y, z)``.

The answers are compared: the notes say how many questions the libraries disagree on.
"""

from __future__ import annotations

import numpy as np

import bbn

from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .models import LISTED, bbn_network, model, pgmpy_network, pyagrum_network, stable_seed

TITLE = "d-separation X ⟂ Y | Z, per question"


def questions(name: str, count: int) -> list[tuple[str, str, list[str]]]:
    """``count`` (x, y, z) of the network, seeded by its name."""
    rng = np.random.default_rng(stable_seed("independence", name))
    variables = list(model(name).variables)
    found = []
    for _ in range(count):
        chosen = [str(v) for v in rng.permutation(variables)]
        found.append((chosen[0], chosen[1], [v for v in chosen[2:] if rng.random() < 0.15]))
    return found


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("10", TITLE, ["bbn", "bbn trail", "pyAgrum", "pgmpy"],
                      [("bbn", "pyAgrum"), ("bbn", "pgmpy"), ("bbn trail", "pyAgrum")])
    section.comment = ("bbn = networkx's is_d_separator on the kept graph; bbn trail = "
                       "active_trail (one active trail and why each node passes, or None)")
    for name in networks or LISTED:
        section.add(_row(settings, name, 30 if settings.quick else 100))
    return section


def _row(settings: Settings, name: str, count: int) -> Row:
    row = Row("d-separation", name)
    asked = questions(name, count)
    asks = {
        "bbn": (lambda: bbn_network(name), lambda net, x, y, z: bbn.is_independent(net, x, y, z)),
        "bbn trail": (lambda: bbn_network(name),
                      lambda net, x, y, z: bbn.active_trail(net, x, y, z) is None),
        "pyAgrum": (lambda: pyagrum_network(name),
                    lambda bn, x, y, z: bool(bn.isIndependent(x, y, z))),
        "pgmpy": (lambda: pgmpy_network(name),
                  lambda m, x, y, z: not m.is_dconnected(x, y, z)),
    }
    runs, answers = {}, {}
    for library, (make, ask) in asks.items():
        engine, failed = attempt(make, f"{library}: ")
        if failed:
            row.cells[library] = failed
            continue

        def all_questions(engine=engine, ask=ask):
            return [ask(engine, x, y, z) for x, y, z in asked]

        first, failed = attempt(all_questions)  # answers, and bbn's graph kept
        if failed:
            row.cells[library] = failed
            continue
        answers[library] = first
        runs[library] = all_questions
    row.cells.update(measure_side_by_side(settings, runs, per=len(asked)))
    reference = answers.get("bbn")
    if reference is not None:
        row.notes.append(", ".join(
            f"{library}: {sum(a != b for a, b in zip(reference, given))} disagreements"
            for library, given in answers.items() if library != "bbn"))
        row.notes.append(f"{sum(reference)}/{len(reference)} independent")
    return row

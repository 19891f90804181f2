"""Workload 17: influence diagrams solved — the MEU and every optimal policy, per solve.

Cases: the oil wildcatter (models/oil.bn); diagrams pyAgrum makes with ``gum.fastID``
(its syntax: ``*`` a decision, ``$`` a utility; random tables, seeded); and random
diagrams of 30, 45 and 60 chance variables with 3 or 4 decisions (up to two parents each,
binary or ternary), each decision with a utility of its own and a few more utilities.
Both libraries read the same numbers: pyAgrum's diagram is written as BIFXML and read by
bbn (fastID cases), or bbn's diagram written as BIFXML and read by pyAgrum.

* bbn: ``net.solve()`` — perfect recall, variable elimination on (probability, utility)
  pairs: the MEU and every decision's optimal choice for each configuration of what is
  known (what pyAgrum's ``makeInference`` gives); each option's expected utility there is
  computed on first use, one elimination per decision: ``bbn + EU tables`` reads them all.
* pyAgrum: ``ShaferShenoyLIMIDInference(diagram)`` with ``addNoForgettingAssumption``
  (the decisions in bbn's temporal order) and ``makeInference()``.

The notes give both MEUs' largest difference.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import bbn

from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .models import stable_seed

TITLE = "influence diagrams: MEU and the optimal policies, per solve"

OIL = Path(__file__).resolve().parents[2] / "models" / "oil.bn"

#: Diagrams made by pyAgrum's fastID (the same strings as its tutorials' style).
FAST_IDS = {
    "umbrella (fastID)": "Weather->$Comfort<-*Umbrella<-Forecast<-Weather",
    "two tests (fastID)": ("Disease->Test1->*Treat->$Health<-Disease->Test2->*Treat;"
                           "*Do1->Test1;*Do2->Test2;Do1->$Cost1;Do2->$Cost2;Do1->Do2->Treat"),
    "chain of 3 (fastID)": ("A->B->C->D;*D1->B;*D2->C;*D3->D;A->*D1->*D2->*D3;"
                            "D->$U1;C->$U2<-D2;B->$U3<-D1;D3->$U4"),
}

RANDOM = {"random 30": (30, 3), "random 45": (45, 4), "random 60": (60, 4)}


def random_diagram(chance: int, decisions: int, seed: int) -> bbn.InfluenceDiagram:
    """Chance variables and decisions in a random order, up to two parents each among the
    earlier nodes; every decision has a utility over it and a random chance variable, and
    there are ``decisions`` more utilities over chance variables."""
    rng = np.random.default_rng(seed)
    kinds = ["c"] * chance + ["d"] * decisions
    rng.shuffle(kinds)
    net = bbn.InfluenceDiagram(f"random {chance}")
    names: list[str] = []
    for i, kind in enumerate(kinds):
        name = f"{kind.upper()}{i}"
        k = int(rng.integers(0, min(2, len(names)) + 1))
        parents = [str(p) for p in rng.choice(names, size=k, replace=False)] if k else []
        card = int(rng.integers(2, 4))
        if kind == "c":
            shape = [net.cardinality(p) for p in parents]
            net.add_variable(name, [f"s{j}" for j in range(card)], parents=parents,
                             table=rng.dirichlet(np.ones(card), size=shape or None))
        else:
            net.add_decision(name, [f"o{j}" for j in range(card)], parents=parents)
        names.append(name)
    chances = [n for n in names if n.startswith("C")]
    for i, d in enumerate(n for n in names if n.startswith("D")):
        parents = [d, str(rng.choice(chances))]
        net.add_utility(f"U{i}", parents, rng.integers(-20, 21, size=[
            net.cardinality(p) for p in parents]).astype(float))
    for i in range(decisions):
        parents = [str(p) for p in rng.choice(chances, size=2, replace=False)]
        net.add_utility(f"V{i}", parents, rng.integers(-20, 21, size=[
            net.cardinality(p) for p in parents]).astype(float))
    return net


def _pyagrum_pair(name: str, folder: Path):
    """(bbn's diagram, pyAgrum's) of one case, the same numbers."""
    import pyagrum as gum

    path = folder / f"{stable_seed(name)}.bifxml"
    if name in FAST_IDS:
        gum.initRandom(stable_seed("decisions", name) % 2**31)
        gum.saveID(gum.fastID(FAST_IDS[name], 3), str(path))
        return bbn.load(path), gum.loadID(str(path))
    net = bbn.load(OIL) if name == "oil wildcatter" else random_diagram(
        *RANDOM[name], stable_seed("decisions", name))
    bbn.save(net, path)
    return net, gum.loadID(str(path))


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("17", TITLE, ["bbn", "bbn + EU tables", "pyAgrum"],
                      [("bbn", "pyAgrum"), ("bbn + EU tables", "pyAgrum")])
    section.comment = ("bbn = net.solve() (perfect recall: MEU and policies); bbn + EU tables = "
                       "and every option's expected utility read; pyAgrum = "
                       "ShaferShenoyLIMIDInference + no-forgetting + makeInference")
    cases = networks or ["oil wildcatter", *FAST_IDS, *RANDOM]
    with tempfile.TemporaryDirectory() as folder:
        for name in cases:
            section.add(_row(settings, name, Path(folder)))
    return section


def _row(settings: Settings, name: str, folder: Path) -> Row:
    row = Row("solve", name)
    pair, failed = attempt(lambda: _pyagrum_pair(name, folder), "setup: ")
    if failed:
        row.cells["bbn"] = row.cells["pyAgrum"] = failed
        return row
    net, diagram = pair
    order = list(net.decisions)

    def ours() -> float:
        return net.solve().meu

    def ours_with_tables() -> float:
        solution = net.solve()
        for policy in solution.policies.values():
            policy.expected  # noqa: B018 (computed on first use)
        return solution.meu

    def theirs() -> float:
        import pyagrum as gum

        inference = gum.ShaferShenoyLIMIDInference(diagram)
        inference.addNoForgettingAssumption(order)
        inference.makeInference()
        return inference.MEU()["mean"]

    runs, meus = {}, {}
    for library, solve in (("bbn", ours), ("bbn + EU tables", ours_with_tables),
                           ("pyAgrum", theirs)):
        meu, failed = attempt(solve, f"{library}: ")
        if failed:
            row.cells[library] = failed
        else:
            runs[library], meus[library] = solve, meu
    row.cells.update(measure_side_by_side(settings, runs))
    chance = sum(not net.is_decision(v) for v in net.variables)
    row.notes.append(f"{chance} chance, {len(net.decisions)} decisions, "
                     f"{len(net.utilities)} utilities")
    if "bbn" in meus and "pyAgrum" in meus:
        row.notes.append(f"MEU {meus['bbn']:.6g}, |Δ| {abs(meus['bbn'] - meus['pyAgrum']):.1e}"
                         + (" (pyAgrum's lower)" if meus["pyAgrum"] < meus["bbn"] - 1e-6
                            else ""))
    return row

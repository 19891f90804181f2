"""Workload 3: the posterior of every node given one evidence set (3 observed variables).

* bbn: ``net.posteriors(e)`` (the junction tree); while that does not exist, one
  ``net.posterior([X], e)`` per node, labelled "per-node fallback". *warm*: compiled
  structures cached (asked once before timing); *cold*: a ``net.copy()`` per repetition.
* pyAgrum: a new ``LazyPropagation``, ``setEvidence``, ``makeInference``, then
  ``posterior(X)`` for every node.
* pgmpy has no engine that returns all marginals in one pass at this scale (the issue's
  table leaves it out), so it is not measured here.
"""

from __future__ import annotations

import math

import numpy as np

from .engines import difference_note, pyagrum_posterior
from .harness import NA, Row, Section, Settings, Timing, attempt, measure_side_by_side
from .models import LISTED, all_networks, bbn_network, evidence_cases, model, pyagrum_network

TITLE = "posterior of every node given 3 evidence variables"


def bbn_all(net, evidence: dict[str, str]) -> dict[str, np.ndarray]:
    if hasattr(net, "posteriors"):
        result = net.posteriors(evidence)
    else:
        try:
            from bbn.engines.exact.junction_tree import posteriors
        except ImportError:
            return {v: net.posterior([v], evidence).values for v in net.variables}
        result = posteriors(net, evidence)
    return {v: f.values for v, f in result.items()}


def bbn_method(net) -> str:
    if hasattr(net, "posteriors"):
        return "net.posteriors"
    try:
        from bbn.engines.exact.junction_tree import posteriors  # noqa: F401
    except ImportError:
        return "per-node fallback"
    return "junction_tree.posteriors"


def pyagrum_all(bn, evidence: dict[str, str]) -> dict[str, np.ndarray]:
    import pyagrum as gum

    engine = gum.LazyPropagation(bn)
    engine.setEvidence(evidence)
    engine.makeInference()
    return {v: engine.posterior(v).toarray() for v in bn.names()}


#: Above this many junction-tree entries pyAgrum is not run: on link (1.3e9 entries, ~10
#: GB) it ends in std::bad_alloc after ~30 s, or draws the OS's out-of-memory killer.
MAX_PYAGRUM_ENTRIES = 1e9


def pyagrum_tree_entries(bn) -> float:
    """Entries of all cliques of pyAgrum's junction tree for ``bn``."""
    import pyagrum as gum

    tree = gum.LazyPropagation(bn).junctionTree()
    return float(sum(math.prod(bn.variable(v).domainSize() for v in tree.clique(c))
                     for c in tree.nodes()))


def networks_in_order() -> list[str]:
    return LISTED + [n for n in all_networks() if n not in LISTED]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("3", TITLE, ["bbn", "bbn cold", "pyAgrum"],
                      [("bbn", "pyAgrum"), ("bbn cold", "pyAgrum")])
    section.comment = ("pgmpy: not measured (no all-marginals engine that finishes on these "
                       "networks); bbn cold = empty plan/junction-tree cache")
    for name in networks or networks_in_order():
        section.add(_row(settings, name))
    return section


def _row(settings: Settings, name: str) -> Row:
    row = Row("all posteriors", name)
    cases, failed = attempt(lambda: evidence_cases(name, 3, 1))
    if failed:
        row.cells["bbn"] = failed
        return row
    evidence = cases[0][1]
    variables = model(name).variables
    answers, runs, setups = {}, {}, {}
    net, failed = attempt(lambda: bbn_network(name), "bbn: ")
    if failed:
        row.cells["bbn"] = row.cells["bbn cold"] = failed
    else:
        row.notes.append(bbn_method(net))
        first, failed = attempt(lambda: bbn_all(net, evidence))  # also fills the cache
        if failed:
            row.cells["bbn"] = row.cells["bbn cold"] = failed
        else:
            answers["bbn"] = [first[v] for v in variables]
            runs["bbn"] = lambda: bbn_all(net, evidence)
            runs["bbn cold"] = lambda copy: bbn_all(copy, evidence)  # a copy's cache is empty
            setups["bbn cold"] = net.copy
    bn, failed = attempt(lambda: pyagrum_network(name), "pyAgrum: ")
    entries = pyagrum_tree_entries(bn) if bn is not None else 0.0
    if failed:
        row.cells["pyAgrum"] = failed
    elif entries > MAX_PYAGRUM_ENTRIES:
        row.cells["pyAgrum"] = NA(f"not run: its junction tree has {entries:.2g} entries "
                                  f"(~{entries * 8 / 2**30:.0f} GiB); it runs out of memory")
    else:
        runs["pyAgrum"] = lambda: pyagrum_all(bn, evidence)
    row.cells.update(measure_side_by_side(settings, runs, setups))
    if "bbn" in answers and isinstance(row.cells.get("pyAgrum"), Timing):
        result = pyagrum_all(bn, evidence)
        answers["pyAgrum"] = [result[v] for v in variables]
    note, diffs = difference_note(answers)
    if note:
        row.notes.append(note)
    if diffs and max(diffs.values()) > 1e-12:
        row.notes.append(_recheck(bn, variables, answers, evidence))
    row.extra.update(max_abs_diff=diffs, evidence=evidence)
    return row


def _recheck(bn, variables: list[str], answers: dict, evidence: dict[str, str]) -> str:
    """Ask pyAgrum again for the node where the two disagree most, as a single targeted
    query: tells whose all-posteriors answer is off."""
    gaps = [float(np.max(np.abs(a - b))) for a, b in zip(answers["bbn"], answers["pyAgrum"])]
    worst = int(np.argmax(gaps))
    single = pyagrum_posterior(bn, variables[worst], evidence)
    return (f"worst node {variables[worst]}: pyAgrum asked for it alone differs from bbn by "
            f"{float(np.max(np.abs(single - answers['bbn'][worst]))):.1e}")

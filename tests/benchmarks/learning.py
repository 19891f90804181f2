"""Workload 5: learn every table (maximum likelihood) of a known structure from rows.

100,000 rows (10,000 with --quick) sampled from the network, held as an in-memory
DataFrame of string columns (what ``pandas.read_csv`` gives); every library starts
from that same frame, so its own encoding of the data is part of its time.

* bbn: ``bbn.learn(net, frame, estimator="mle")``.
* pyAgrum: ``BNLearner(frame, template)``, ``useNoPrior()``, ``fitParameters(bn)``
  (a 1e-9 smoothing prior instead where it refuses unseen parent configurations).
* pgmpy: ``DiscreteBayesianNetwork(edges).fit(frame)`` (its default ``DiscreteMLE``).

The learned tables are compared on the parent configurations seen in the data (an
unseen one has no maximum-likelihood estimate; each library fills it its own way).
"""

from __future__ import annotations

import time

import numpy as np

from .harness import Row, Section, Settings, attempt, measure_side_by_side, seconds
from .models import bbn_network, model, pyagrum_network, samples

TITLE = "learn every table (MLE) from sampled rows in a DataFrame"
NETWORKS = ["alarm", "hepar2", "win95pts"]


def bbn_learn(net, frame):
    import bbn

    return bbn.learn(net, frame, estimator="mle")


#: pyAgrum refuses MLE when a parent configuration never appears: then a prior this
#: small stands in (it moves the estimates of seen configurations by about 1e-9).
TINY_PRIOR = 1e-9


def pyagrum_learn(template, frame, prior: float = 0.0):
    import pyagrum as gum

    learned = gum.BayesNet(template)
    learner = gum.BNLearner(frame, template)  # kept in a name: a chained temporary crashes
    if prior:
        learner.useSmoothingPrior(prior)
    else:
        learner.useNoPrior()
    learner.fitParameters(learned, False)
    return learned


def pgmpy_learn(name: str, frame):
    from pgmpy.models import DiscreteBayesianNetwork

    m = model(name)
    structure = DiscreteBayesianNetwork()
    structure.add_nodes_from(m.variables)
    structure.add_edges_from((p, v) for v in m.variables for p in m.parents[v])
    return structure.fit(frame)


def tables(library: str, learned, name: str) -> dict[str, np.ndarray]:
    """Learned tables in bbn's layout (parents..., variable)."""
    m = model(name)
    out = {}
    for v in m.variables:
        family = list(m.parents[v]) + [v]
        if library == "bbn":
            out[v] = learned.cpt_array(v)
        elif library == "pyAgrum":
            cpt = learned.cpt(v)
            axes = list(reversed(cpt.names))  # toarray() axes
            out[v] = cpt.toarray().transpose([axes.index(u) for u in family])
        else:
            cpd = learned.get_cpds(v)
            table = np.moveaxis(np.asarray(cpd.values), 0, -1)  # (evidence..., v)
            order = list(cpd.variables[1:]) + [v]
            table = table.transpose([order.index(u) for u in family])
            # pgmpy knows only the states found in the data, in its own order: put them in
            # the model's order, a state never seen getting probability 0
            for axis, u in enumerate(family):
                names = [str(s) for s in cpd.state_names[u]]
                if names != list(m.states[u]):
                    shape = list(table.shape)
                    shape[axis] = len(m.states[u])
                    full = np.zeros(shape)
                    for i, state in enumerate(names):
                        index = [slice(None)] * len(shape)
                        index[axis] = m.states[u].index(state)
                        full[tuple(index)] = np.take(table, i, axis=axis)
                    table = full
            out[v] = table
    return out


def seen_configurations(name: str, frame) -> dict[str, np.ndarray]:
    """For each variable, a boolean array over parent configurations seen in the data."""
    m = model(name)
    seen = {}
    for v in m.variables:
        parents = list(m.parents[v])
        mask = np.zeros([len(m.states[p]) for p in parents], dtype=bool)
        if parents:
            codes = [frame[p].map({s: i for i, s in enumerate(m.states[p])}).to_numpy()
                     for p in parents]
            mask[tuple(codes)] = True
        else:
            mask = np.ones((), dtype=bool)
        seen[v] = mask
    return seen


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("5", TITLE, ["bbn", "pyAgrum", "pgmpy"],
                      [("bbn", "pyAgrum"), ("bbn", "pgmpy")])
    n = 10_000 if settings.quick else 100_000
    section.comment = (f"{n} rows of string columns; pyAgrum's time includes building its "
                       "BNLearner from the DataFrame (its fit alone is in the notes)")
    for name in networks or NETWORKS:
        section.add(_row(settings, name, n))
    return section


def _row(settings: Settings, name: str, n: int) -> Row:
    row = Row("learn", f"{name} N={n}")
    frame, failed = attempt(lambda: samples(name, n))
    if failed:
        row.cells["bbn"] = failed
        return row
    learned = {}
    prior = _pyagrum_prior(name, frame)
    if prior:
        row.notes.append(f"pyAgrum: smoothing prior {prior:g} (unseen parent configurations)")
    fits = {"bbn": lambda: bbn_learn(bbn_network(name), frame),
            "pyAgrum": lambda: pyagrum_learn(pyagrum_network(name), frame, prior),
            "pgmpy": lambda: pgmpy_learn(name, frame)}
    runs = {}
    for library, fit in fits.items():
        result, failed = attempt(fit, f"{library}: ")
        if failed:
            row.cells[library] = failed
            continue
        learned[library] = tables(library, result, name)
        runs[library] = fit
    row.cells.update(measure_side_by_side(settings, runs))
    if "pyAgrum" in learned:
        row.notes.append("pyAgrum fit alone " + seconds(_pyagrum_fit_only(name, frame, prior)))
    if len(learned) > 1:
        seen = seen_configurations(name, frame)
        reference = "bbn" if "bbn" in learned else next(iter(learned))
        diffs = {}
        for library in learned:
            if library != reference:
                diffs[f"{reference}-{library}"] = max(
                    float(np.max(np.abs(learned[reference][v] - learned[library][v])[seen[v]],
                                 initial=0.0))
                    for v in seen)
        row.notes.append("max Δ on seen configurations " + ", ".join(
            f"{pair} {d:.1e}" for pair, d in diffs.items()))
        row.extra["max_abs_diff"] = diffs
    return row


def _pyagrum_prior(name: str, frame) -> float:
    try:
        pyagrum_learn(pyagrum_network(name), frame)
        return 0.0
    except Exception as error:
        return TINY_PRIOR if "never appears" in str(error) else 0.0


def _pyagrum_fit_only(name: str, frame, prior: float) -> float:
    import pyagrum as gum

    template = pyagrum_network(name)
    learner = gum.BNLearner(frame, template)
    if prior:
        learner.useSmoothingPrior(prior)
    else:
        learner.useNoPrior()
    times = []
    for _ in range(3):
        learned = gum.BayesNet(template)
        t0 = time.perf_counter()
        learner.fitParameters(learned, False)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))

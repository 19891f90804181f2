"""Workload 15: EM — every table of a known structure from rows with missing values.

Rows sampled from the network (10,000 and 100,000; 10,000 only with --quick), then each
cell missing at random with probability 5 %, held as a DataFrame of string columns with
missing cells (pyAgrum reads them as "?"). Both libraries start from that frame and stop
by the same rule: the log-likelihood's relative change below 1e-6.

* bbn: ``bbn.learn(net, frame, missing="em")`` (maximum-likelihood EM: one batched
  junction-tree calibration of every incomplete row per iteration).
* pyAgrum: ``BNLearner(frame, template)``, ``useNoPrior()``,
  ``useEMWithRateCriterion(1e-6)``, ``fitParameters(bn)``.

Each library's learned network is scored by the same observed-data log-likelihood
Σ_r log P(o_r) (computed by bbn's E-step on the other's tables), so "same
log-likelihood at convergence" is checked, not assumed. pyAgrum is slow here (minutes per
run at 100,000 rows): each cell runs ``min_reps`` times, taking turns.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .learning import TINY_PRIOR, tables
from .models import bbn_network, pyagrum_network, samples

TITLE = "EM: learn every table from rows with 5 % of cells missing at random"
NETWORKS = ["alarm", "hepar2"]
#: Networks where pyAgrum refuses maximum likelihood (a parent configuration never seen).
NEEDS_PRIOR = {"hepar2"}
MISSING_RATE = 0.05
TOL = 1e-6


def with_holes(frame, seed: int = 7):
    """The frame with each cell missing independently with probability MISSING_RATE."""
    mask = np.random.default_rng(seed).random(frame.shape) < MISSING_RATE
    return frame.astype(object).mask(mask)


def bbn_em(net, frame):
    import bbn

    return bbn.learn(net, frame, missing="em", estimator="mle", tol=TOL)


def pyagrum_em(template, frame, prior: float = 0.0):
    import pyagrum as gum

    learned = gum.BayesNet(template)
    learner = gum.BNLearner(frame.fillna("?"), template)  # kept in a name (see learning.py)
    if prior:
        learner.useSmoothingPrior(prior)
    else:
        learner.useNoPrior()
    learner.useEMWithRateCriterion(TOL)
    learner.fitParameters(learned, False)
    return learned


def log_likelihood(name: str, learned_tables: dict[str, np.ndarray], frame) -> float:
    """Σ_r log P(observed cells of row r) under the given tables (bbn's exact E-step)."""
    import bbn.tasks.learning.missing as missing

    net = bbn_network(name)
    for v, table in learned_tables.items():
        net.set_cpt(v, table)
    result = missing.em(net, frame, initial=net, max_iter=1, tol=0.0)
    return result.log_likelihood[0]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("15", TITLE, ["bbn", "pyAgrum"], [("bbn", "pyAgrum")])
    sizes = [10_000] if settings.quick else [10_000, 100_000]
    section.comment = ("5 % of cells missing at random; both stop when the log-likelihood "
                       f"changes by less than {TOL:g} (relative); log-likelihoods of both "
                       "answers in the notes")
    for name in networks or NETWORKS:
        for n in sizes:
            section.add(_row(settings, name, n))
    return section


def _row(settings: Settings, name: str, n: int) -> Row:
    # pyAgrum's EM takes minutes here: no cell is cut short, and the big ones run once.
    settings = dataclasses.replace(settings, deadline=max(settings.deadline, 7200.0),
                                   min_reps=settings.min_reps if n <= 10_000 else 1)
    row = Row("EM", f"{name} N={n}")
    frame, failed = attempt(lambda: with_holes(samples(name, n)))
    if failed:
        row.cells["bbn"] = failed
        return row
    learned = {}  # each library's last answer, scored after timing

    def fit(library, make):
        learned[library] = make()

    # pyAgrum refuses MLE where a parent configuration is never seen (hepar2): then the
    # same tiny prior as workload 5 stands in.
    prior = TINY_PRIOR if name in NEEDS_PRIOR else 0.0
    if prior:
        row.notes.append(f"pyAgrum: smoothing prior {prior:g} (unseen parent configurations)")
    fits = {"bbn": lambda: fit("bbn", lambda: bbn_em(bbn_network(name), frame)),
            "pyAgrum": lambda: fit("pyAgrum",
                                   lambda: pyagrum_em(pyagrum_network(name), frame, prior))}
    row.cells.update(measure_side_by_side(settings, fits))
    scores = {library: log_likelihood(name, tables(library, answer, name), frame)
              for library, answer in learned.items()}
    row.notes.append("log-likelihood " + ", ".join(f"{k} {v:.6f}" for k, v in scores.items()))
    row.extra["log_likelihood"] = scores
    return row

"""Workload 19: linear Gaussian networks — inference and learning.

A random linear Gaussian network of 100 variables (each with up to three parents among
the earlier ones, seeded), the same for every library.

* inference, per question: 20 questions P(5 targets | 10 continuous findings), the same
  10 observed variables with different values. bbn: ``net.posterior(targets, evidence)``
  (the joint normal kept for the revision, each question a conditioning); "bbn first" a
  fresh copy's first question (the joint normal built, then conditioned). pgmpy 1.1.2:
  ``LinearGaussianBayesianNetwork.predict_probability`` of a one-row frame per question
  (it rebuilds the joint normal each call), and "pgmpy batch" one call for the 20 rows.
* build + first question: the model made from its numbers, variable by variable (bbn:
  ``add_gaussian_variable``; pgmpy: ``LinearGaussianCPD``, ``add_cpds``), then asked
  the first question: what a network kept as arrays while it is built costs there.
* learning, per node: 10 000 rows sampled from the network. bbn: ``bbn.learn(structure,
  rows)`` (least squares per node from Gram matrices), divided by the 100 nodes;
  scikit-learn: ``LinearRegression().fit(rows[parents], rows[node])`` for every node.

* CLG with many discrete parents: a 12-step switching model (D_t a binary chain,
  X_t | D_t normal, Y_t | X_t linear Gaussian: 4,096 configurations, the most the
  enumeration takes), 20 questions P(X5 | Y_0..Y_11) with different readings. bbn: the
  default engine (the component tree) on a kept network; "enumeration": the enumeration
  engine (``LinearGaussian``, built once, untimed) asked the same questions. No peer
  answers CLG with discrete variables (pyAgrum's CLG has none, pgmpy has no CLG).

The answers are compared: the notes give the largest difference of the posterior means.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import bbn

from .harness import NA, Row, Section, Settings, attempt, measure_side_by_side

TITLE = "linear Gaussian networks: inference per question, learning per node"

N_VARIABLES, QUESTIONS, ROWS = 100, 20, 10_000


def network(n: int = N_VARIABLES, seed: int = 15):
    """(bbn network, {node: (intercept, [(parent, b)], variance)})."""
    rng = np.random.default_rng(seed)
    spec = {}
    for i in range(n):
        count = min(i, int(rng.integers(0, 4)))
        parents = [f"x{j}" for j in sorted(rng.choice(i, count, replace=False))] if count else []
        weights = [(p, float(rng.normal(0, 0.6))) for p in parents]
        spec[f"x{i}"] = (float(rng.normal(0, 1)), weights, float(rng.uniform(0.3, 1.5)))
    return built(spec), spec


def built(spec) -> bbn.Network:
    """The bbn network of ``spec``, variable by variable."""
    net = bbn.Network("linear")
    for v, (c, weights, variance) in spec.items():
        net.add_gaussian_variable(v, [p for p, _ in weights], mean=c, variance=variance,
                                  weights=dict(weights))
    return net


def pgmpy_model(spec):
    from pgmpy.factors.continuous import LinearGaussianCPD
    from pgmpy.models import LinearGaussianBayesianNetwork

    model = LinearGaussianBayesianNetwork()
    model.add_nodes_from(list(spec))
    cpds = []
    for v, (c, weights, variance) in spec.items():
        model.add_edges_from([(p, v) for p, _ in weights])
        cpds.append(LinearGaussianCPD(v, [c] + [b for _, b in weights], math.sqrt(variance),
                                      [p for p, _ in weights]))
    model.add_cpds(*cpds)
    return model


def questions(seed: int = 16):
    rng = np.random.default_rng(seed)
    names = [f"x{i}" for i in range(N_VARIABLES)]
    chosen = [str(v) for v in rng.permutation(names)]
    observed, targets = chosen[:10], chosen[10:15]
    return targets, [{v: float(rng.normal(0, 2)) for v in observed} for _ in range(QUESTIONS)]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("19", TITLE, ["bbn", "bbn first", "pgmpy", "pgmpy batch", "sklearn",
                                    "enumeration"],
                      [("bbn", "pgmpy"), ("bbn first", "pgmpy"), ("bbn", "pgmpy batch"),
                       ("bbn", "sklearn"), ("bbn", "enumeration")])
    section.comment = ("inference: per question (bbn: the joint normal kept; bbn first: a "
                       "fresh copy's first question); learning: per node, bbn.learn over "
                       "all nodes / 100 against LinearRegression per node")
    net, spec = network()
    section.add(_inference(settings, net, spec))
    section.add(_building(settings, spec))
    section.add(_learning(settings, net, spec))
    section.add(_switching(settings))
    return section


def _inference(settings: Settings, net: bbn.Network, spec) -> Row:
    row = Row("P(5 targets | 10 findings)", f"linear Gaussian, {N_VARIABLES} variables")
    targets, asked = questions()
    model, failed = attempt(lambda: pgmpy_model(spec), "pgmpy: ")
    frames = [pd.DataFrame([e]) for e in asked]
    batch = pd.DataFrame(asked)

    def bbn_questions():
        return [net.posterior(targets, e) for e in asked]

    def bbn_first(copies):  # each fresh copy's first question: the joint normal built
        return [copy.posterior(targets, e) for copy, e in zip(copies, asked)]

    runs = {"bbn": bbn_questions, "bbn first": bbn_first}
    setups = {"bbn first": lambda: [net.copy() for _ in asked]}
    if failed:
        row.cells["pgmpy"] = row.cells["pgmpy batch"] = failed
    else:
        runs["pgmpy"] = lambda: [model.predict_probability(f) for f in frames]
        runs["pgmpy batch"] = lambda: model.predict_probability(batch)
        _, mu, _ = model.predict_probability(batch)
        order = model.predict_probability(frames[0])[0]
        ours = np.array([net.posterior(order, e).mean for e in asked])
        row.notes.append(f"largest |Δ mean| against pgmpy {np.abs(ours - mu).max():.1e}")
    row.cells.update(measure_side_by_side(settings, runs, setups, per=QUESTIONS))
    return row


def _building(settings: Settings, spec) -> Row:
    row = Row("build + P(5 targets | 10 findings)",
              f"built from its numbers + first question, {N_VARIABLES} variables")
    targets, asked = questions()
    model, failed = attempt(lambda: pgmpy_model(spec), "pgmpy: ")
    runs = {"bbn": lambda: built(spec).posterior(targets, asked[0])}
    if failed:
        row.cells["pgmpy"] = failed
    else:
        frame = pd.DataFrame([asked[0]])
        runs["pgmpy"] = lambda: pgmpy_model(spec).predict_probability(frame)
    row.cells.update(measure_side_by_side(settings, runs))
    return row


def _learning(settings: Settings, net: bbn.Network, spec) -> Row:
    row = Row("learn every node", f"{ROWS} rows, {N_VARIABLES} nodes")
    data = bbn.sample(net, ROWS, seed=17)
    structure = bbn.Network("linear")
    for v, (_, weights, _) in spec.items():
        structure.add_gaussian_variable(v, [p for p, _ in weights])
    families = [(v, [p for p, _ in weights]) for v, (_, weights, _) in spec.items()]
    runs = {"bbn": lambda: bbn.learn(structure, data)}
    try:
        from sklearn.linear_model import LinearRegression

        def sklearn_fit():
            for v, parents in families:
                target = data[v].to_numpy()
                features = (data[parents].to_numpy() if parents
                            else np.zeros((len(data), 0)))
                if parents:
                    LinearRegression().fit(features, target)
                else:
                    target.mean(), target.var()
        runs["sklearn"] = sklearn_fit
    except ImportError:
        row.cells["sklearn"] = NA("scikit-learn is not installed")
    row.cells.update(measure_side_by_side(settings, runs, per=N_VARIABLES))
    learned = bbn.learn(structure, data)
    worst = max(abs(learned.gaussian_weights(v)[p] - b) for v, (_, w, _) in spec.items()
                for p, b in w)
    row.notes.append(f"largest |b̂ − b| {float(worst):.3f} from {ROWS} rows")
    return row


def switching(steps: int = 12, seed: int = 18) -> tuple[bbn.Network, list[dict]]:
    """The switching model and 20 sets of readings Y_0..Y_{steps-1}."""
    rng = np.random.default_rng(seed)
    net = bbn.Network("switching")
    for t in range(steps):
        net.add_variable(f"D{t}", ["calm", "busy"], parents=[f"D{t - 1}"] if t else [],
                         table=[[0.8, 0.2], [0.3, 0.7]] if t else [0.6, 0.4])
        net.add_gaussian_variable(f"X{t}", [f"D{t}"], mean=rng.normal([-1, 1], 0.3),
                                  variance=rng.uniform(0.5, 1.5, 2))
        net.add_gaussian_variable(f"Y{t}", [f"X{t}"], mean=float(rng.normal(0, 0.5)),
                                  variance=float(rng.uniform(0.3, 1)),
                                  weights={f"X{t}": float(rng.normal(1, 0.3))})
    return net, [{f"Y{t}": float(v) for t, v in enumerate(rng.normal(0, 1.5, steps))}
                 for _ in range(QUESTIONS)]


def _switching(settings: Settings) -> Row:
    from bbn.engines.exact.linear_gaussian import LinearGaussian
    from bbn.questions.resolution import resolve_evidence

    net, asked = switching()
    row = Row("P(X5 | 12 readings)", "CLG switching, 12 steps, 4,096 configurations")
    view, engine = net.compiled(), net.engine
    enumeration = LinearGaussian(view)
    evidence = [resolve_evidence(view, e) for e in asked]
    runs = {"bbn": lambda: [net.posterior("X5", e) for e in asked],
            "enumeration": lambda: [enumeration.answer(engine, ["X5"], e) for e in evidence]}
    row.cells.update(measure_side_by_side(settings, runs, per=QUESTIONS))
    worst = max(abs(net.posterior("X5", e).mean - enumeration.answer(engine, ["X5"], r).mean)
                for e, r in zip(asked, evidence))
    row.notes.append(f"largest |Δ mean| against the enumeration {worst:.1e}")
    return row

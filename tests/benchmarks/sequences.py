"""Workload 16: time — hidden Markov models against hmmlearn, filtering a dynamic
network against pgmpy's DBNInference and pyAgrum on the unrolled network.

* HMM: 1,000 sequences of length 1,000 (K hidden states, 6 symbols, random tables of
  seed 0, symbols uniform), given concatenated with their lengths to both:
  forward–backward (``bbn.HMM.smooth`` against ``CategoricalHMM.predict_proba``),
  Viterbi (``viterbi`` against ``decode``: bbn's paths as state names, and as indices
  with ``names=False``, the output hmmlearn gives) and one Baum–Welch iteration
  (``fit(n_iter=1)`` from the same tables, both). K = 4 and K = 16.
* DBN: ten variables per slice — five binary hidden chains H0…H4 (H_i's parents
  H_i[-1] and H_{i-1}) and five binary readings O_i of H_i — and one sequence of 20
  steps with every reading observed: bbn's filter (P(H_t | e_1:t) of the five chains at
  every step) against pgmpy's ``DBNInference.forward_inference`` of the five chains at
  the last step, and pyAgrum's ``LazyPropagation`` on the 200-variable unrolled network
  (the five chains at the last step, every reading set as evidence). bbn answers more
  (every step), the peers the last step only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .harness import NA, Row, Section, Settings, attempt, describe, measure_side_by_side

TITLE = "time: HMMs against hmmlearn; filtering a 10-variable DBN against pgmpy and pyAgrum"
SEQUENCES, LENGTH, SYMBOLS = 1000, 1000, 6
CHAINS, STEPS = 5, 20


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("16", TITLE, ["bbn", "hmmlearn", "pgmpy", "pyAgrum"],
                      [("bbn", "hmmlearn"), ("bbn", "pgmpy"), ("bbn", "pyAgrum")])
    section.comment = (f"HMM: {SEQUENCES:,} sequences × {LENGTH:,} steps, {SYMBOLS} symbols; "
                       f"DBN: {2 * CHAINS} variables per slice, one sequence of {STEPS} steps")
    try:
        import bbn
    except Exception as error:
        row = Row("HMM", "all")
        row.cells["bbn"] = NA(describe(error))
        section.add(row)
        return section
    lengths = [100, 10] if settings.quick else [LENGTH, LENGTH]
    for k in (4, 16):
        for row in _hmm(settings, bbn, k, SEQUENCES // (10 if settings.quick else 1),
                        lengths[0]):
            section.add(row)
    section.add(_dbn(settings, bbn))
    return section


def _tables(k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k), size=k),
            rng.dirichlet(np.ones(SYMBOLS), size=k))


def _hmm(settings: Settings, bbn, k: int, n: int, length: int) -> list[Row]:
    rows = [Row("HMM", f"K={k}: {what}") for what in
            ("forward–backward", "Viterbi", "Viterbi, paths as indices",
             "one Baum–Welch iteration")]
    start, transition, emission = _tables(k)
    codes = np.random.default_rng(1).integers(0, SYMBOLS, size=n * length)
    lengths = np.full(n, length)
    hidden, symbols = [f"s{i}" for i in range(k)], [f"o{i}" for i in range(SYMBOLS)]

    def ours():
        return bbn.HMM(hidden, symbols, start=start, transition=transition, emission=emission)

    try:
        from hmmlearn.hmm import CategoricalHMM
    except Exception as error:
        for row in rows:
            row.cells["hmmlearn"] = NA(describe(error))
        CategoricalHMM = None

    def theirs():
        model = CategoricalHMM(n_components=k, init_params="", n_iter=1, tol=-np.inf)
        model.startprob_, model.transmat_, model.emissionprob_ = start, transition, emission
        model.n_features = SYMBOLS
        return model

    x = codes[:, None]
    fitted_ours, fitted_theirs = ours(), theirs() if CategoricalHMM else None
    pairs = [
        (lambda: fitted_ours.smooth(codes, lengths),
         lambda: fitted_theirs.predict_proba(x, lengths)),
        (lambda: fitted_ours.viterbi(codes, lengths),
         lambda: fitted_theirs.decode(x, lengths)),
        (lambda: fitted_ours.viterbi(codes, lengths, names=False),   # hmmlearn's output
         lambda: fitted_theirs.decode(x, lengths)),
        (lambda: ours().fit(codes, lengths, n_iter=1),
         lambda: theirs().fit(x, lengths)),
    ]
    for row, (a, b) in zip(rows, pairs, strict=True):
        runs = {"bbn": a}
        if CategoricalHMM is not None:
            runs["hmmlearn"] = b
        row.cells.update(measure_side_by_side(settings, runs))
    if CategoricalHMM is not None:
        gap = abs(fitted_ours.log_likelihood(codes, lengths).sum()
                  - fitted_theirs.score(x, lengths))
        rows[0].notes.append(f"log-likelihoods differ by {gap:.1e}")
    return rows


def dbn_model(bbn, chains: int = CHAINS):
    """The benchmark's 2-TBN: ``chains`` binary hidden chains, one reading each."""
    rng = np.random.default_rng(7)

    def table(*shape):
        return rng.dirichlet(np.ones(shape[-1]) * 2, size=shape[:-1])

    dbn = bbn.DynamicNetwork("chains")
    for i in range(chains):
        same = [f"H{i - 1}"] if i else []
        dbn.add_variable(f"H{i}", ["a", "b"], parents=[f"H{i}[-1]", *same],
                         table=table(*([2] * (1 + len(same))), 2),
                         initial=table(*([2] * len(same)), 2), initial_parents=same)
        dbn.add_variable(f"O{i}", ["x", "y"], parents=[f"H{i}"], table=table(2, 2))
    return dbn


def _dbn(settings: Settings, bbn) -> Row:
    row = Row("DBN filtering", f"{2 * CHAINS} variables, {STEPS} steps")
    dbn = dbn_model(bbn)
    rng = np.random.default_rng(3)
    readings = pd.DataFrame({f"O{i}": rng.choice(["x", "y"], size=STEPS)
                             for i in range(CHAINS)})
    hidden = [f"H{i}" for i in range(CHAINS)]
    runs = {"bbn": lambda: dbn.filter(readings, variables=hidden)}
    last = dbn.filter(readings, variables=hidden).iloc[-1]
    answers = {}

    pgmpy_run, failed = attempt(lambda: _pgmpy(dbn, readings, hidden, answers), "pgmpy: ")
    if failed:
        row.cells["pgmpy"] = failed
    else:
        runs["pgmpy"] = pgmpy_run
    agrum_run, failed = attempt(lambda: _pyagrum(dbn, readings, hidden, answers), "pyAgrum: ")
    if failed:
        row.cells["pyAgrum"] = failed
    else:
        runs["pyAgrum"] = agrum_run
    row.cells.update(measure_side_by_side(settings, runs))
    for library, answer in answers.items():
        gap = max(abs(answer[v] - last[v].to_numpy()).max() for v in hidden)
        row.notes.append(f"{library} differs by {gap:.1e}")
    return row


def _pgmpy(dbn, readings: pd.DataFrame, hidden: list[str], answers: dict):
    import logging

    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import DBNInference
    from pgmpy.models import DynamicBayesianNetwork

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    two = dbn.two_slice()
    model = DynamicBayesianNetwork()
    node = {}
    for name in two.variables:
        variable, step = name[:-3], int(name[-2])
        node[name] = (variable, step)
    model.add_edges_from([(node[p], node[v]) for v in two.variables for p in two.parents(v)])
    cpds = []
    for v in two.variables:
        parents = list(two.parents(v))
        if v.endswith("[1]") and not any(p.endswith("[0]") for p in parents):
            continue  # pgmpy repeats slice 0's table of a variable with no parent before
        table = np.asarray(two.cpt_array(v))
        columns = table.reshape(-1, table.shape[-1]).T
        cpds.append(TabularCPD(node[v], table.shape[-1], columns,
                               evidence=[node[p] for p in parents] or None,
                               evidence_card=[two.cardinality(p) for p in parents] or None))
    model.add_cpds(*cpds)
    model.initialize_initial_state()
    inference = DBNInference(model)
    evidence = {(column, t): int(value == "y") for column in readings.columns
                for t, value in enumerate(readings[column])}
    targets = [(v, len(readings) - 1) for v in hidden]

    def run():
        return inference.forward_inference(targets, evidence)

    result = run()
    answers["pgmpy"] = {v: np.asarray(result[(v, len(readings) - 1)].values) for v in hidden}
    return run


def _pyagrum(dbn, readings: pd.DataFrame, hidden: list[str], answers: dict):
    import pyagrum as gum

    net = dbn.unroll(len(readings))
    bn = gum.BayesNet("unrolled")
    for v in net.variables:
        bn.add(gum.LabelizedVariable(v, v, list(net.states(v))))
    for v in net.variables:
        for p in net.parents(v):
            bn.addArc(p, v)
    for v in net.variables:
        cpt = bn.cpt(v)
        family = list(net.parents(v)) + [v]
        axes = [family.index(u) for u in reversed(cpt.names)]
        cpt.fillWith(np.asarray(net.cpt_array(v)).transpose(axes).ravel().tolist())
    evidence = {f"{column}[{t}]": value for column in readings.columns
                for t, value in enumerate(readings[column])}
    targets = [f"{v}[{len(readings) - 1}]" for v in hidden]

    def run():
        engine = gum.LazyPropagation(bn)
        engine.setEvidence(evidence)
        engine.makeInference()
        return {v: engine.posterior(t).toarray() for v, t in zip(hidden, targets, strict=True)}

    answers["pyAgrum"] = run()
    return run

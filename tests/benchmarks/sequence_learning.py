"""Workload 21: EM for dynamic networks with hidden variables (``bbn.dynamic_em``).

* HMM-shaped 2-TBN (K = 4 hidden states, 6 symbols, the tables of workload 16), 1,000
  sequences of length 1,000: five EM iterations of ``bbn.dynamic_em`` from a DataFrame
  (a sequence-id column, the readings categorical) against hmmlearn's
  ``CategoricalHMM.fit(n_iter=5)`` on the codes and bbn's own ``HMM.fit(n_iter=5)``
  (the HMM-only path). ``dynamic_em`` also reads the frame and runs a sixth E-step, the
  learned tables' log-likelihood.
* The 10-variable 2-TBN of workload 16 (five binary hidden chains, five readings), 200
  sequences of 100 steps, a tenth of the readings missing: five EM iterations from the
  structure alone (random starting tables, seed 0), from the DataFrame and from a CSV
  file read 5,000 rows at a time. No peer learns a 2-TBN with
  hidden variables: pgmpy 1.1.2's ``DynamicBayesianNetwork.fit`` is maximum likelihood
  on complete data; pyAgrum 3.3.1's ``KTBNLearner`` learns from complete trajectory
  files, without EM.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .harness import NA, Row, Section, Settings, describe, measure_side_by_side
from .sequences import SYMBOLS, _tables, dbn_model

TITLE = "time: EM for dynamic networks with hidden variables"
SEQUENCES, LENGTH, ITERATIONS = 1000, 1000, 5
DBN_SEQUENCES, DBN_STEPS = 200, 100
NO_PEER = {"pgmpy": NA("DynamicBayesianNetwork.fit: complete data, maximum likelihood only"),
           "pyAgrum": NA("KTBNLearner: complete trajectories, no EM")}


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("21", TITLE, ["bbn", "bbn HMM.fit", "hmmlearn", "pgmpy", "pyAgrum"],
                      [("bbn", "hmmlearn"), ("bbn", "bbn HMM.fit")])
    scale = 10 if settings.quick else 1
    section.comment = (f"{ITERATIONS} EM iterations; HMM shape: {SEQUENCES // scale:,} × "
                       f"{LENGTH // scale:,} steps, K=4, {SYMBOLS} symbols; DBN: 10 "
                       f"variables per slice, {DBN_SEQUENCES // scale} × {DBN_STEPS} steps")
    try:
        import bbn
    except Exception as error:
        row = Row("EM", "all")
        row.cells["bbn"] = NA(describe(error))
        section.add(row)
        return section
    section.add(_hmm_shaped(settings, bbn, SEQUENCES // scale, LENGTH // scale))
    for row in _dbn(settings, bbn, DBN_SEQUENCES // scale):
        section.add(row)
    return section


def _hmm_shaped(settings: Settings, bbn, n: int, length: int) -> Row:
    row = Row("EM", f"HMM-shaped 2-TBN, K=4: {ITERATIONS} iterations")
    k = 4
    start, transition, emission = _tables(k)
    codes = np.random.default_rng(1).integers(0, SYMBOLS, size=n * length)
    lengths = np.full(n, length)
    hidden, symbols = [f"s{i}" for i in range(k)], [f"o{i}" for i in range(SYMBOLS)]
    dbn = bbn.DynamicNetwork("hmm")
    dbn.add_variable("X", hidden, parents=["X[-1]"], table=transition, initial=start)
    dbn.add_variable("O", symbols, parents=["X"], table=emission)
    frame = pd.DataFrame({"sequence": np.repeat(np.arange(n), length),
                          "O": pd.Categorical.from_codes(codes, symbols)})

    def ours():
        return bbn.dynamic_em(dbn, frame, sequence_id="sequence", max_iter=ITERATIONS, tol=0)

    def hmm():
        return bbn.HMM(hidden, symbols, start=start, transition=transition,
                       emission=emission).fit(codes, lengths, n_iter=ITERATIONS, tol=-np.inf)

    runs = {"bbn": ours, "bbn HMM.fit": hmm}
    try:
        from hmmlearn.hmm import CategoricalHMM
    except Exception as error:
        row.cells["hmmlearn"] = NA(describe(error))
        CategoricalHMM = None
    if CategoricalHMM is not None:
        def theirs():
            model = CategoricalHMM(n_components=k, init_params="", n_iter=ITERATIONS,
                                   tol=-np.inf)
            model.startprob_, model.transmat_, model.emissionprob_ = start, transition, emission
            model.n_features = SYMBOLS
            return model.fit(codes[:, None], lengths)
        runs["hmmlearn"] = theirs
    row.cells.update(measure_side_by_side(settings, runs))
    row.cells.update(NO_PEER)
    history = ours().log_likelihood[:ITERATIONS]
    gap = np.abs(np.array(history) - hmm().history_).max()
    row.notes.append(f"log-likelihood histories: bbn vs HMM.fit differ by {gap:.1e}")
    if CategoricalHMM is not None:
        gap = np.abs(np.array(history) - list(theirs().monitor_.history)).max()
        row.notes.append(f"vs hmmlearn by {gap:.1e} (of {abs(history[-1]):.1e})")
    return row


def _dbn(settings: Settings, bbn, n: int) -> list[Row]:
    truth = dbn_model(bbn)
    wide = bbn.sample(truth.unroll(DBN_STEPS), n, seed=4)
    readings = [v for v in truth.variables if v.startswith("O")]
    frame = pd.concat([pd.DataFrame({"sequence": np.arange(n), "step": t,
                                     **{v: wide[f"{v}[{t}]"] for v in readings}})
                       for t in range(DBN_STEPS)])
    frame = frame.sort_values(["sequence", "step"], kind="stable").drop(columns="step")
    frame = frame.reset_index(drop=True).astype(object)
    lost = np.random.default_rng(5).random(frame[readings].shape) < 0.1
    frame[readings] = frame[readings].mask(lost)
    start = bbn.DynamicNetwork("chains")  # the structure alone: EM starts from random tables
    for i in range(5):
        start.add_variable(f"H{i}", ["a", "b"], parents=[f"H{i}[-1]"] + ([f"H{i - 1}"] * (i > 0)))
        start.add_variable(f"O{i}", ["x", "y"], parents=[f"H{i}"])
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sequences.csv"
        frame.to_csv(path, index=False)
        for case, data, options in (("from a DataFrame", frame, {}),
                                    ("from a CSV file in chunks of 5,000 rows", str(path),
                                     {"chunksize": 5000})):
            row = Row("EM", f"10-variable DBN, 5 hidden chains, {ITERATIONS} iterations, "
                            f"{case}")

            def ours(data=data, options=options):
                return bbn.dynamic_em(start, data, sequence_id="sequence",
                                      max_iter=ITERATIONS, tol=0, **options)

            row.cells.update(measure_side_by_side(settings, {"bbn": ours}))
            row.cells.update(NO_PEER)
            result = ours()
            row.notes.append(f"log-likelihood {result.log_likelihood[0]:.1f} → "
                             f"{result.log_likelihood[-1]:.1f}, never down: "
                             f"{bool(np.diff(result.log_likelihood).min() > -1e-9)}")
            rows.append(row)
    return rows

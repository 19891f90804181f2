"""EM for a 2-TBN with hidden variables or missing cells (issue 31): the expected counts
equal brute force on the unrolled network; on an HMM-shaped 2-TBN the iterations are
bbn.HMM.fit's and hmmlearn's; the log-likelihood never decreases; a file read in chunks
(sequences never split) gives what the DataFrame gives."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from brute_force import BruteForce

import bbn
import bbn.questions.findings as findings
from bbn.engines.exact.chains import Batch
from bbn.engines.exact.frontier import Frontier
from bbn.engines.exact.slice_counts import expected_counts, prepare
from bbn.engines.exact.slices import DenseFrontier
from bbn.io.sequence_chunks import sequence_chunks
from bbn.tasks.learning.missing import em
from bbn.tasks.learning.sequence_em import dynamic_em


def _rows(rng, *shape):
    table = rng.random(shape) + 0.1
    return table / table.sum(axis=-1, keepdims=True)


def hidden_dbn(seed: int = 3) -> bbn.DynamicNetwork:
    """A hidden chain H, a variable A with a lagged parent of its own and an intra-slice
    parent, a reading O with two parents; slice-0 tables of their own."""
    rng = np.random.default_rng(seed)
    dbn = bbn.DynamicNetwork("hidden")
    dbn.add_variable("H", ["h0", "h1", "h2"], parents=["H[-1]"], table=_rows(rng, 3, 3),
                     initial=_rows(rng, 3))
    dbn.add_variable("A", ["a0", "a1"], parents=["H", "A[-1]"], table=_rows(rng, 3, 2, 2),
                     initial=_rows(rng, 3, 2), initial_parents=["H"])
    dbn.add_variable("O", ["x", "y"], parents=["A", "H"], table=_rows(rng, 2, 3, 2))
    return dbn


FINDINGS = pd.DataFrame({"id": [1, 1, 1, 2, 3, 3, 3, 3],
                         "A": ["a0", None, "a1", None, "a1", "a0", None, None],
                         "O": ["x", "y", None, "y", "x", None, "y", "x"]})


@pytest.mark.parametrize("engine", [Frontier, DenseFrontier])
def test_expected_counts_equal_brute_force(engine):
    dbn = hidden_dbn()
    rows, lengths, _ = findings.sequence_rows(FINDINGS, "id")
    codes = np.column_stack([pd.Index(dbn.states(v)).get_indexer(FINDINGS[v])
                             if v in FINDINGS else np.full(len(FINDINGS), -1)
                             for v in dbn.variables])[rows]
    batch, form = Batch(lengths), engine(dbn.two_slice().compiled())
    counts = expected_counts(form, prepare(form, codes, batch), batch)
    first = [np.zeros_like(c) for c in counts.initial]
    later = [np.zeros_like(c) for c in counts.transition]
    log_likelihood = 0.0
    for _, rows in FINDINGS.groupby("id", sort=False):
        net = dbn.unroll(len(rows))
        oracle = BruteForce(net)
        evidence = {f"{v}[{t}]": value for t, (_, row) in enumerate(rows.iterrows())
                    for v in ("A", "O") if isinstance(value := row[v], str)}
        p = oracle.p_evidence(evidence)
        log_likelihood += np.log(p)
        for t in range(len(rows)):
            for k, v in enumerate(dbn.variables):
                name = f"{v}[{t}]"
                family = [*net.parents(name), name]
                (first if t == 0 else later)[k] += oracle.unnormalised(family, evidence) / p
    for ours, truth in zip(counts.initial + counts.transition, first + later, strict=True):
        assert ours.shape == truth.shape
        assert np.abs(ours - truth).max() < 1e-12
    assert counts.log_likelihood.sum() == pytest.approx(log_likelihood, abs=1e-12)


@pytest.fixture(scope="module")
def hmm_module():
    """hmmlearn.hmm, an oracle: skipped without it, required under CI."""
    if os.environ.get("CI"):
        import hmmlearn.hmm
        return hmmlearn.hmm
    return pytest.importorskip("hmmlearn.hmm", reason="hmmlearn (the test oracle) is absent")


def test_an_hmm_shaped_dbn_follows_baum_welch():
    rng = np.random.default_rng(31)
    lengths = np.array([50, 1, 17, 120, 2])
    codes = rng.integers(0, 4, size=lengths.sum())
    start, transition, emission = (rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3), 3),
                                   rng.dirichlet(np.ones(4), 3))
    dbn = bbn.DynamicNetwork("hmm")
    dbn.add_variable("X", ["s0", "s1", "s2"], parents=["X[-1]"], table=transition,
                     initial=start)
    dbn.add_variable("O", list("abcd"), parents=["X"], table=emission)
    data = pd.DataFrame({"seq": np.repeat(np.arange(5), lengths),
                         "O": np.array(list("abcd"))[codes]})
    result = dynamic_em(dbn, data, sequence_id="seq", max_iter=15, tol=0)
    hmm = bbn.HMM(["s0", "s1", "s2"], list("abcd"), start=start, transition=transition,
                  emission=emission).fit(codes, lengths, n_iter=15, tol=-np.inf)
    assert result.iterations == 15 and len(result.log_likelihood) == 16
    assert np.allclose(result.log_likelihood[:15], hmm.history_, atol=1e-9, rtol=0)
    two = result.network.two_slice()
    assert np.abs(two.cpt_array("X[1]") - hmm.transition).max() < 1e-9
    assert np.abs(two.cpt_array("X[0]") - hmm.start).max() < 1e-9
    assert np.abs(two.cpt_array("O[1]") - hmm.emission).max() < 1e-9
    assert np.abs(two.cpt_array("O[0]") - hmm.emission).max() < 1e-9
    # the last entry is the learned tables' log-likelihood
    assert result.log_likelihood[-1] == pytest.approx(
        result.network.log_likelihood(data, sequence_id="seq").sum(), abs=1e-9)


def test_an_hmm_shaped_dbn_equals_hmmlearn(hmm_module):
    rng = np.random.default_rng(7)
    lengths = np.array([40, 3, 25, 1])
    codes = rng.integers(0, 3, size=lengths.sum())
    start, transition, emission = (rng.dirichlet(np.ones(2)), rng.dirichlet(np.ones(2), 2),
                                   rng.dirichlet(np.ones(3), 2))
    dbn = bbn.DynamicNetwork("hmm")
    dbn.add_variable("X", ["s0", "s1"], parents=["X[-1]"], table=transition, initial=start)
    dbn.add_variable("O", list("abc"), parents=["X"], table=emission)
    data = pd.DataFrame({"seq": np.repeat(np.arange(4), lengths),
                         "O": np.array(list("abc"))[codes]})
    result = dynamic_em(dbn, data, sequence_id="seq", max_iter=12, tol=0)
    theirs = hmm_module.CategoricalHMM(n_components=2, init_params="", n_iter=12, tol=-np.inf)
    theirs.startprob_, theirs.transmat_, theirs.emissionprob_ = start, transition, emission
    theirs.n_features = 3
    theirs.fit(codes[:, None], lengths)
    assert np.allclose(result.log_likelihood[:12], list(theirs.monitor_.history), atol=1e-9,
                       rtol=0)
    two = result.network.two_slice()
    assert np.abs(two.cpt_array("X[1]") - theirs.transmat_).max() < 1e-9
    assert np.abs(two.cpt_array("O[1]") - theirs.emissionprob_).max() < 1e-9


@pytest.fixture(scope="module")
def sampled():
    """400 sequences of 2–9 steps drawn from ``hidden_dbn``; H never seen, a fifth of A's
    and O's cells blanked."""
    dbn, rng = hidden_dbn(), np.random.default_rng(11)
    frames = []
    for steps in range(2, 10):
        wide = bbn.sample(dbn.unroll(steps), 50, seed=steps)
        frames += [pd.DataFrame({"id": np.arange(50) + 100 * steps, "t": t,
                                 "A": wide[f"A[{t}]"], "O": wide[f"O[{t}]"]})
                   for t in range(steps)]
    data = pd.concat(frames).sort_values(["id", "t"], kind="stable").drop(columns="t")
    data = data.reset_index(drop=True).astype(object)
    for column in ("A", "O"):
        data.loc[rng.random(len(data)) < 0.2, column] = None
    return data


def test_log_likelihood_never_decreases(sampled):
    structure = bbn.DynamicNetwork("structure")     # no tables: a random start
    structure.add_variable("H", ["h0", "h1", "h2"], parents=["H[-1]"])
    structure.add_variable("A", ["a0", "a1"], parents=["H", "A[-1]"], initial_parents=["H"])
    structure.add_variable("O", ["x", "y"], parents=["A", "H"])
    told = []
    result = dynamic_em(structure, sampled, sequence_id="id", max_iter=25, tol=0, seed=4,
                        progress=told.append)
    steps = np.diff(result.log_likelihood)
    assert (steps > -1e-9).all() and steps[0] > 1.0
    assert len(told) == 26 and told[-1].done == 25
    smoothed = dynamic_em(structure, sampled, bbn.Laplace(1.0), sequence_id="id",
                          max_iter=5, seed=4)
    assert (smoothed.network.two_slice().cpt_array("H[1]") > 0).all()
    # the learned tables explain the data better than the tables that drew them? Not
    # necessarily (H's labels are free); but at least as well as the random start
    assert result.log_likelihood[-1] > result.log_likelihood[0]


def test_a_file_in_chunks_gives_what_the_frame_gives(sampled, tmp_path):
    path = tmp_path / "sequences.csv"
    sampled.to_csv(path, index=False)
    dbn = hidden_dbn(seed=8)
    whole = dynamic_em(dbn, sampled, sequence_id="id", max_iter=6, tol=0)
    read = dynamic_em(dbn, str(path), sequence_id="id", max_iter=6, tol=0, chunksize=37)
    assert np.allclose(read.log_likelihood, whole.log_likelihood, atol=1e-9, rtol=0)
    for name in ("H[0]", "H[1]", "A[0]", "A[1]", "O[1]"):
        assert np.abs(read.network.two_slice().cpt_array(name)
                      - whole.network.two_slice().cpt_array(name)).max() < 1e-12
    blocks = list(sequence_chunks(str(path), "id", chunksize=37))
    assert sum(len(b.frame) for b in blocks) == len(sampled)
    ids = [set(b.frame["id"]) for b in blocks]
    assert all(not (a & b) for i, a in enumerate(ids) for b in ids[i + 1:])  # never split
    # complete sequences from a file: the counts of the frame
    complete = sampled.dropna().groupby("id").filter(lambda rows: len(rows) > 1)
    complete = complete.assign(H="h0")
    complete.to_csv(path, index=False)
    counted = bbn.learn_dynamic(dbn, complete, sequence_id="id", estimator=bbn.Laplace(1.0))
    chunked = bbn.learn_dynamic(dbn, str(path), sequence_id="id", estimator=bbn.Laplace(1.0),
                                chunksize=50)
    for name in ("A[0]", "A[1]", "O[1]"):
        assert np.abs(chunked.two_slice().cpt_array(name)
                      - counted.two_slice().cpt_array(name)).max() < 1e-12


def test_refusals(sampled, tmp_path):
    path = tmp_path / "split.csv"
    pd.DataFrame({"id": [1, 1, 2, 1], "O": ["x", "y", "y", "x"]}).to_csv(path, index=False)
    with pytest.raises(bbn.DataError, match=r"split.csv: sequence '1' continues at line 5"):
        dynamic_em(hidden_dbn(), str(path), sequence_id="id", chunksize=2)
    with pytest.raises(bbn.DataError, match="did you mean 'id'"):
        dynamic_em(hidden_dbn(), sampled, sequence_id="idd")
    with pytest.raises(bbn.DataError, match="no column"):
        dynamic_em(hidden_dbn(), sampled.rename(columns={"A": "B", "O": "P"}),
                   sequence_id="id")
    with pytest.raises(bbn.DataError, match="is not a state"):
        dynamic_em(hidden_dbn(), sampled.replace({"x": "z"}), sequence_id="id")
    for empty in ({}, {"sequence_id": "id"}):
        with pytest.raises(bbn.DataError, match="data: no rows to learn from"):
            dynamic_em(hidden_dbn(), sampled.head(0), **empty)
    with pytest.raises(bbn.DataError, match="two steps"):
        dynamic_em(hidden_dbn(), sampled.groupby("id").head(1), sequence_id="id")
    zero = bbn.DynamicNetwork("zero")
    zero.add_variable("X", ["a", "b"], parents=["X[-1]"], table=[[1.0, 0.0], [0.0, 1.0]],
                      initial=[1.0, 0.0])
    zero.add_variable("O", ["x", "y"], parents=["X"], table=[[1.0, 0.0], [0.0, 1.0]])
    rows = pd.DataFrame({"id": ["s", "s", "r", "r"], "O": ["x", "x", "x", "y"]})
    with pytest.raises(bbn.DataError, match="probability 0 to sequence 'r'"):
        dynamic_em(zero, rows, sequence_id="id")


def test_bbn_learn_with_sequences(sampled, tmp_path, capsys):
    from bbn.apps.cli.main import main
    data, model, out = tmp_path / "rows.csv", tmp_path / "hidden.bn", tmp_path / "out.bn"
    sampled.to_csv(data, index=False)
    bbn.save(hidden_dbn(seed=8).two_slice(), model)
    assert main(["learn", str(model), str(data), "--sequence-id", "id", "--max-iter", "4",
                 "--chunksize", "64", "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "EM: 4 iteration(s), stopped at the iteration cap" in printed.err
    learned = bbn.load_dynamic(out)
    want = dynamic_em(bbn.load_dynamic(model), sampled, sequence_id="id", max_iter=4)
    assert float(printed.err.split("log-likelihood ")[1]) == pytest.approx(
        want.log_likelihood[-1], abs=1e-6)
    for name in ("H[1]", "A[1]", "O[1]"):
        assert np.abs(learned.two_slice().cpt_array(name)
                      - want.network.two_slice().cpt_array(name)).max() < 1e-12
    assert main(["learn", str(model), str(data), "--sequence-id", "ids"]) == 2
    assert "did you mean 'id'" in capsys.readouterr().err


def test_both_engine_forms_give_the_same_iterations(sampled, monkeypatch):
    dbn = hidden_dbn(seed=8)
    dense = dynamic_em(dbn, sampled, sequence_id="id", max_iter=4, tol=0)
    monkeypatch.setattr(findings, "dense_fits", lambda view: False)   # one einsum a family
    assert not isinstance(findings.frontier(hidden_dbn(seed=9)), DenseFrontier)
    contracted = dynamic_em(dbn, sampled, sequence_id="id", max_iter=4, tol=0)
    assert np.allclose(contracted.log_likelihood, dense.log_likelihood, atol=1e-9, rtol=0)
    for name in ("H[0]", "H[1]", "A[0]", "A[1]", "O[1]"):
        assert np.abs(contracted.network.two_slice().cpt_array(name)
                      - dense.network.two_slice().cpt_array(name)).max() < 1e-10
    learned = bbn.learn_dynamic(dbn, sampled, sequence_id="id", max_iter=4, tol=0)
    assert np.abs(learned.two_slice().cpt_array("H[1]")
                  - dense.network.two_slice().cpt_array("H[1]")).max() < 1e-10


def test_a_dbn_without_lags_is_the_static_em():
    # no parent in the slice before: the rows are independent, and the iterations are
    # those of bbn.em on the one-slice network from the same tables
    dbn = bbn.DynamicNetwork("mixture")
    dbn.add_variable("H", ["a", "b"], table=[0.4, 0.6])
    dbn.add_variable("O", ["x", "y", "z"], parents=["H"],
                     table=[[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    dbn.add_variable("P", ["u", "v"], parents=["H"], table=[[0.7, 0.3], [0.2, 0.8]])
    rows = bbn.sample(dbn.unroll(1), 300, seed=2).rename(columns=lambda c: c[:-3])
    rows = rows.drop(columns="H").astype(object)
    rows.loc[np.random.default_rng(0).random(300) < 0.2, "P"] = None
    rows["id"] = np.repeat(np.arange(60), 5)
    ours = dynamic_em(dbn, rows, sequence_id="id", max_iter=8, tol=0)
    one = dbn.unroll(1)
    net = bbn.Network.assemble("mixture", {v: dbn.states(v) for v in dbn.variables},
                               {"H": [], "O": ["H"], "P": ["H"]},
                               {v: one.cpt_array(f"{v}[0]") for v in dbn.variables})
    static = em(net, rows.drop(columns="id"), max_iter=8, tol=0, initial=net)
    assert np.allclose(ours.log_likelihood, static.log_likelihood, atol=1e-9, rtol=0)
    for v in dbn.variables:
        assert np.abs(ours.network.unroll(1).cpt_array(f"{v}[0]")
                      - static.network.cpt_array(v)).max() < 1e-12

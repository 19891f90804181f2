"""Hidden Markov models (issue 31): bbn.HMM against hmmlearn's CategoricalHMM and
GaussianHMM on the same parameters (log-likelihood, posteriors, Viterbi paths, Baum–Welch),
the umbrella world (Russell & Norvig), long sequences, errors."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import bbn
import bbn.engines.exact.chains as chains


@pytest.fixture(scope="module")
def hmm_module():
    """hmmlearn.hmm, the oracle: its tests skip without it, and fail under CI."""
    if os.environ.get("CI"):
        import hmmlearn.hmm
        return hmmlearn.hmm
    return pytest.importorskip("hmmlearn.hmm", reason="hmmlearn (the test oracle) is absent")


def random_tables(rng, k, m):
    return (rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k), size=k),
            rng.dirichlet(np.ones(m), size=k))


def path_log_probability(hmm, codes, path):
    """log P(x, e) of one path, by hand."""
    logs = np.log(hmm.start[path[0]]) + np.log(hmm.emission[path, codes]).sum()
    return logs + np.log(hmm.transition[path[:-1], path[1:]]).sum()


@pytest.fixture(scope="module")
def ours():
    """A categorical HMM of random tables (3 states, 4 symbols), five sequences."""
    rng = np.random.default_rng(31)
    k, m = 3, 4
    start, transition, emission = random_tables(rng, k, m)
    hmm = bbn.HMM(["s0", "s1", "s2"], ["a", "b", "c", "d"], start=start,
                  transition=transition, emission=emission)
    lengths = np.array([50, 1, 17, 120, 2])
    codes = rng.integers(0, m, size=lengths.sum())
    return hmm, codes, lengths


@pytest.fixture(scope="module")
def categorical(ours, hmm_module):
    """``ours`` and hmmlearn's CategoricalHMM on the same tables."""
    hmm, codes, lengths = ours
    theirs = hmm_module.CategoricalHMM(n_components=len(hmm.start), init_params="")
    theirs.startprob_, theirs.transmat_ = hmm.start, hmm.transition
    theirs.emissionprob_, theirs.n_features = hmm.emission, len(hmm.observations)
    return hmm, theirs, codes, lengths


def test_umbrella_world():
    # AIMA: P(Rain_2 | u1, u2) = 0.883; smoothed P(Rain_1 | u1, u2) = 0.883
    hmm = bbn.HMM(["rain", "dry"], ["umbrella", "none"], start=[0.5, 0.5],
                  transition=[[0.7, 0.3], [0.3, 0.7]], emission=[[0.9, 0.1], [0.2, 0.8]])
    seq = ["umbrella", "umbrella"]
    assert hmm.filter(seq)[0, 0] == pytest.approx(0.818, abs=5e-4)
    assert hmm.filter(seq)[1, 0] == pytest.approx(0.883, abs=5e-4)
    assert hmm.smooth(seq)[0, 0] == pytest.approx(0.883, abs=5e-4)
    # AIMA fig. 15.4 (five days u, u, ¬u, u, u): Viterbi rain, rain, dry, rain, rain
    path, _ = hmm.viterbi(["umbrella", "umbrella", "none", "umbrella", "umbrella"])
    assert path == ["rain", "rain", "dry", "rain", "rain"]
    # prediction converges to the stationary (0.5, 0.5)
    assert hmm.predict(seq, 50) == pytest.approx([0.5, 0.5], abs=1e-9)
    # hand: P(u1, u2) = Σ = 0.5·(0.9·(0.7·0.9+0.3·0.2) + 0.2·(0.3·0.9+0.7·0.2))
    assert np.exp(hmm.log_likelihood(seq)) == pytest.approx(
        0.5 * (0.9 * (0.7 * 0.9 + 0.3 * 0.2) + 0.2 * (0.3 * 0.9 + 0.7 * 0.2)), abs=1e-12)


def test_categorical_equals_hmmlearn(categorical):
    ours, theirs, codes, lengths = categorical
    x = codes[:, None]
    per_sequence = ours.log_likelihood(codes, lengths)
    assert per_sequence.sum() == pytest.approx(theirs.score(x, lengths), abs=1e-9)
    assert np.abs(ours.smooth(codes, lengths) - theirs.predict_proba(x, lengths)).max() < 1e-9
    starts = np.cumsum(lengths) - lengths
    for start, length, value in zip(starts, lengths, per_sequence, strict=True):
        piece = x[start:start + length]
        assert value == pytest.approx(theirs.score(piece), abs=1e-9)
        logprob, states = theirs.decode(piece, algorithm="viterbi")
        path, best = ours.viterbi(codes[start:start + length])
        assert best == pytest.approx(logprob, abs=1e-9)
        # products of the same factors in another order tie (A_22 A_21 A_12 both ways):
        # the path found scores hmmlearn's best, and is hmmlearn's where that is unique
        found = [int(name[1:]) for name in path]
        assert path_log_probability(ours, piece[:, 0], found) == pytest.approx(logprob, abs=1e-9)
        if length < 20:
            assert found == states.tolist()
    # the batched Viterbi agrees with one call per sequence
    paths, bests = ours.viterbi(codes, lengths)
    assert [len(p) for p in paths] == lengths.tolist()
    assert bests[3] == pytest.approx(theirs.decode(x[starts[3]:starts[3] + 120])[0], abs=1e-9)


def test_batched_viterbi_equals_hmmlearn_and_brute_force(hmm_module):
    # 40 sequences of lengths 1…60 in one call, tables with zeros (log 0 = −inf): every
    # path scores hmmlearn's best, is hmmlearn's, and is the one of a call per sequence
    rng = np.random.default_rng(5)
    k, m = 5, 4
    start, transition, emission = random_tables(rng, k, m)
    transition[0, 2] = transition[3, 1] = emission[1, 0] = 0.0
    transition /= transition.sum(axis=1, keepdims=True)
    emission /= emission.sum(axis=1, keepdims=True)
    ours = bbn.HMM([f"s{i}" for i in range(k)], list("abcd"), start=start,
                   transition=transition, emission=emission)
    theirs = hmm_module.CategoricalHMM(n_components=k, init_params="")
    theirs.startprob_, theirs.transmat_ = start, transition
    theirs.emissionprob_, theirs.n_features = emission, m
    lengths = rng.integers(1, 61, size=40)
    codes = rng.integers(0, m, size=lengths.sum())
    paths, bests = ours.viterbi(codes, lengths)
    starts = np.cumsum(lengths) - lengths
    same = 0
    for i, (first, length) in enumerate(zip(starts, lengths, strict=True)):
        piece = codes[first:first + length]
        logprob, states = theirs.decode(piece[:, None])
        found = [int(name[1:]) for name in paths[i]]
        assert bests[i] == pytest.approx(logprob, abs=1e-9)
        assert path_log_probability(ours, piece, found) == pytest.approx(logprob, abs=1e-9)
        same += found == states.tolist()
        assert ours.viterbi(piece) == (paths[i], pytest.approx(bests[i], abs=1e-12))
    assert same == 40   # ties broken as hmmlearn does
    # brute force over every path of four short sequences
    short = np.array([6, 1, 4, 5])
    codes = rng.integers(0, m, size=short.sum())
    paths, bests = ours.viterbi(codes, short)
    for i, (first, length) in enumerate(zip(np.cumsum(short) - short, short, strict=True)):
        piece = codes[first:first + length]
        with np.errstate(divide="ignore"):
            scores = {path: path_log_probability(ours, piece, list(path))
                      for path in itertools.product(range(k), repeat=int(length))}
        best = max(scores.values())
        assert bests[i] == pytest.approx(best, abs=1e-12)
        assert scores[tuple(int(name[1:]) for name in paths[i])] == pytest.approx(best, abs=1e-12)


def test_batched_gaussian_viterbi_equals_hmmlearn(hmm_module):
    rng = np.random.default_rng(11)
    start, transition, _ = random_tables(rng, 3, 2)
    means, variances = np.array([-2.0, 0.5, 3.0]), np.array([0.5, 1.0, 2.0])
    ours = bbn.HMM(["a", "b", "c"], kind="gaussian", start=start, transition=transition,
                   means=means, variances=variances)
    theirs = hmm_module.GaussianHMM(n_components=3, covariance_type="diag", init_params="")
    theirs.startprob_, theirs.transmat_ = start, transition
    theirs.means_, theirs.covars_ = means[:, None], variances[:, None]
    lengths = np.array([30, 1, 70, 12])
    x = rng.normal(size=lengths.sum()) * 3
    paths, bests = ours.viterbi(x, lengths)
    for i, first in enumerate(np.cumsum(lengths) - lengths):
        logprob, states = theirs.decode(x[first:first + lengths[i], None])
        assert bests[i] == pytest.approx(logprob, abs=1e-9)
        assert paths[i] == [ours.hidden_states[s] for s in states]


def test_filter_is_the_smoothed_last_step(ours):
    ours, codes, lengths = ours
    starts = np.cumsum(lengths) - lengths
    filtered = ours.filter(codes, lengths)
    for start, length in zip(starts, lengths, strict=True):
        piece = codes[start:start + length]
        assert np.allclose(filtered[start + length - 1], ours.smooth(piece)[-1], atol=1e-12)
        assert np.allclose(filtered[start:start + length], ours.filter(piece), atol=1e-12)
    # prediction h steps on: the last filtered row times A^h
    last = ours.filter(codes[:50])[-1]
    assert np.allclose(ours.predict(codes[:50], 3), last @ np.linalg.matrix_power(
        ours.transition, 3), atol=1e-12)


def test_names_and_codes_agree(ours):
    ours, codes, lengths = ours
    names = np.array(ours.observations)[codes].tolist()
    assert np.allclose(ours.smooth(names, lengths), ours.smooth(codes, lengths), atol=0)


def test_gaussian_equals_hmmlearn(hmm_module):
    rng = np.random.default_rng(7)
    k = 3
    start, transition, _ = random_tables(rng, k, 2)
    means, variances = np.array([-2.0, 0.5, 3.0]), np.array([0.5, 1.0, 2.0])
    ours = bbn.HMM(["a", "b", "c"], kind="gaussian", start=start, transition=transition,
                   means=means, variances=variances)
    theirs = hmm_module.GaussianHMM(n_components=k, covariance_type="diag", init_params="")
    theirs.startprob_, theirs.transmat_ = start, transition
    theirs.means_, theirs.covars_ = means[:, None], variances[:, None]
    lengths = np.array([80, 3, 40])
    x = rng.normal(size=lengths.sum()) * 3
    x[5] = 60.0  # an outlier: every density underflows in linear space
    assert ours.log_likelihood(x, lengths).sum() == pytest.approx(
        theirs.score(x[:, None], lengths), abs=1e-9)
    assert np.abs(ours.smooth(x, lengths) - theirs.predict_proba(x[:, None], lengths)).max() < 1e-9
    logprob, states = theirs.decode(x[:80, None])
    path, best = ours.viterbi(x[:80])
    assert best == pytest.approx(logprob, abs=1e-9)
    assert path == [ours.hidden_states[s] for s in states]


def test_baum_welch_equals_hmmlearn(categorical, hmm_module):
    _, _, codes, lengths = categorical
    rng = np.random.default_rng(3)
    start, transition, emission = random_tables(rng, 3, 4)
    ours = bbn.HMM(["s0", "s1", "s2"], ["a", "b", "c", "d"], start=start,
                   transition=transition, emission=emission)
    ours.fit(codes, lengths, n_iter=15, tol=-np.inf)
    theirs = hmm_module.CategoricalHMM(n_components=3, init_params="", n_iter=15, tol=-np.inf)
    theirs.startprob_, theirs.transmat_, theirs.emissionprob_ = start, transition, emission
    theirs.n_features = 4
    theirs.fit(codes[:, None], lengths)
    assert np.allclose(ours.history_, list(theirs.monitor_.history), atol=1e-9, rtol=0)
    assert np.abs(ours.transition - theirs.transmat_).max() < 1e-9
    assert np.abs(ours.emission - theirs.emissionprob_).max() < 1e-9
    assert ours.log_likelihood(codes, lengths).sum() == pytest.approx(
        theirs.score(codes[:, None], lengths), abs=1e-9)


def test_gaussian_baum_welch_equals_hmmlearn(hmm_module):
    rng = np.random.default_rng(11)
    truth = bbn.HMM(["a", "b"], kind="gaussian", start=[0.5, 0.5],
                    transition=[[0.95, 0.05], [0.1, 0.9]], means=[0.0, 4.0], variances=[1, 2])
    states = [0]
    for _ in range(599):
        states.append(rng.choice(2, p=truth.transition[states[-1]]))
    x = rng.normal(truth.means[states], np.sqrt(truth.variances[states]))
    lengths = [300, 200, 100]
    start, transition = [0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]]
    ours = bbn.HMM(["a", "b"], kind="gaussian", start=start, transition=transition,
                   means=[-1.0, 1.0], variances=[3.0, 3.0]).fit(x, lengths, n_iter=10,
                                                                 tol=-np.inf)
    theirs = hmm_module.GaussianHMM(2, init_params="", n_iter=10, tol=-np.inf,
                                    covars_prior=0.0)
    theirs.startprob_, theirs.transmat_ = np.array(start), np.array(transition)
    theirs.means_, theirs.covars_ = np.array([[-1.0], [1.0]]), np.array([[3.0], [3.0]])
    theirs.fit(x[:, None], lengths)
    assert np.allclose(ours.history_, list(theirs.monitor_.history), atol=1e-8, rtol=0)
    assert np.abs(ours.means - theirs.means_[:, 0]).max() < 1e-9
    assert np.abs(ours.variances - theirs.covars_[:, 0, 0]).max() < 1e-9


def test_long_sequence_does_not_underflow():
    hmm = bbn.HMM(["rain", "dry"], ["umbrella", "none"], start=[0.5, 0.5],
                  transition=[[0.7, 0.3], [0.3, 0.7]], emission=[[0.9, 0.1], [0.2, 0.8]])
    codes = np.random.default_rng(0).integers(0, 2, size=100_000)
    value = hmm.log_likelihood(codes)
    assert np.isfinite(value) and -100_000 * np.log(10) < value < 0
    smoothed = hmm.smooth(codes)
    assert np.isfinite(smoothed).all() and np.allclose(smoothed.sum(axis=1), 1)
    path, best = hmm.viterbi(codes[:20_000])       # in log space: no scaling to test
    assert len(path) == 20_000 and best < hmm.log_likelihood(codes[:20_000]) < 0


def test_errors():
    hmm = bbn.HMM(["rain", "dry"], ["umbrella", "none"], start=[0.5, 0.5],
                  transition=[[0.7, 0.3], [0.3, 0.7]], emission=[[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(bbn.QueryError, match="did you mean 'umbrella'"):
        hmm.filter(["umbrella", "umbrela"])
    with pytest.raises(bbn.QueryError, match="position 1"):
        hmm.filter(["umbrella", "umbrela"])
    with pytest.raises(bbn.QueryError, match="lengths"):
        hmm.filter(["umbrella"], lengths=[2])
    with pytest.raises(bbn.ModelError, match="transition"):
        bbn.HMM(["a", "b"], ["x"], transition=[[0.5, 0.6], [0.5, 0.5]])
    certain = bbn.HMM(["a", "b"], ["x", "y"], transition=np.eye(2),
                      emission=[[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(bbn.ImpossibleEvidenceError):
        certain.smooth(["x", "y"])
    assert certain.log_likelihood(["x", "y"]) == -np.inf
    with pytest.raises(bbn.BBNError, match="not all set"):
        bbn.HMM(["a", "b"], ["x", "y"]).filter(["x"])


def test_fit_from_no_tables():
    # two regimes, N(0, 1) then N(5, 1): the means start at the data's quartiles
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 1, 300), rng.normal(5, 1, 300)])
    hmm = bbn.HMM(["a", "b"], kind="gaussian").fit(x, random_state=1)
    assert np.allclose(np.sort(hmm.means), [0, 5], atol=0.15)
    assert np.allclose(hmm.variances, 1, atol=0.1)
    assert hmm.viterbi(x)[0] == ["a"] * 300 + ["b"] * 300
    # a categorical model's tables drawn at random (seeded), then learned
    first = bbn.HMM(["a", "b"], ["x", "y", "z"]).fit(list("xyzxxy") * 20, random_state=0)
    again = bbn.HMM(["a", "b"], ["x", "y", "z"]).fit(list("xyzxxy") * 20, random_state=0)
    assert np.array_equal(first.emission, again.emission)
    assert first.history_[-1] >= first.history_[0]


def test_viterbi_as_indices_is_the_named_path():
    # names=False gives each path as state indices: the same path as the names, for one
    # sequence, equal lengths (one (N, T) array) and ragged lengths (a list of arrays)
    rng = np.random.default_rng(8)
    k, m = 3, 4
    start, transition, emission = random_tables(rng, k, m)
    hidden = [f"h{i}" for i in range(k)]
    ours = bbn.HMM(hidden, list("wxyz"), start=start, transition=transition,
                   emission=emission)
    for lengths in (np.full(6, 9), rng.integers(1, 12, size=7)):
        codes = rng.integers(0, m, size=lengths.sum())
        named, best = ours.viterbi(codes, lengths)
        indexed, best_too = ours.viterbi(codes, lengths, names=False)
        assert [[hidden[i] for i in path] for path in indexed] == named
        np.testing.assert_array_equal(best, best_too)
        if len(set(lengths.tolist())) == 1:
            assert indexed.shape == (6, 9) and indexed.dtype.kind == "i"
    one, score = ours.viterbi(list("wxyz"), names=False)
    assert [hidden[i] for i in one] == ours.viterbi(list("wxyz"))[0]
    assert score == ours.viterbi(list("wxyz"))[1]


@pytest.mark.parametrize("k", [1, 2, 4, 6, 130])
def test_viterbi_breaks_ties_as_hmmlearn(hmm_module, k):
    # states in pairs with equal start, emission rows, transition rows and columns: δ of
    # the two states of a pair are equal floats at every step, so every step back ties.
    # hmmlearn takes the first best state at the last step and the last best one on the
    # way back; bbn's paths are hmmlearn's, element for element, equal lengths or not
    # (130 states: paths held in int16)
    rng = np.random.default_rng(k)
    m, half = 3, max(k // 2, 1)
    pair = np.ones((2, 2)) if k > 1 else np.ones((1, 1))
    start = np.kron(rng.dirichlet(np.ones(half)), pair[0])
    transition = np.kron(rng.dirichlet(np.ones(half), size=half), pair)
    transition /= transition.sum(axis=1, keepdims=True)
    emission = np.kron(rng.dirichlet(np.ones(m), size=half), pair[:, :1])
    start /= start.sum()
    ours = bbn.HMM([f"s{i}" for i in range(k)], list("abc"), start=start,
                   transition=transition, emission=emission)
    theirs = hmm_module.CategoricalHMM(n_components=k, init_params="")
    theirs.startprob_, theirs.transmat_ = start, transition
    theirs.emissionprob_, theirs.n_features = emission, m
    for lengths in (np.full(5, 30), np.array([1, 40, 7, 1, 25, 40, 3])):
        codes = rng.integers(0, m, size=lengths.sum())
        paths, bests = ours.viterbi(codes, lengths, names=False)
        named, _ = ours.viterbi(codes, lengths)
        starts = np.cumsum(lengths) - lengths
        for i, (first, length) in enumerate(zip(starts, lengths, strict=True)):
            logprob, states = theirs.decode(codes[first:first + length, None])
            np.testing.assert_array_equal(paths[i], states)
            assert named[i] == [f"s{j}" for j in states]
            assert bests[i] == pytest.approx(logprob, abs=1e-9)


def test_equal_lengths_pad_by_reshape_as_by_rows():
    # equal lengths are padded by one reshape; the same (T, N, ...) as the gather through
    # Batch.rows that ragged batches take, for 1-D and 2-D values
    values = np.arange(24).reshape(12, 2)
    batch = chains.Batch(np.full(3, 4))
    for data in (values, values[:, 0]):
        np.testing.assert_array_equal(batch.pad(data), data[batch.rows])
    assert batch.pad(values).shape == (4, 3, 2) and batch.pad(values)[1, 2].tolist() == [18, 19]

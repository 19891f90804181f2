"""Learning from data in chunks: CSV files read a block at a time, Parquet files,
iterables of DataFrames. Every table must equal the one learned from all rows at once
(the counts are the same integers), and errors must name the row across chunks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError
from bbn.io.chunks import chunks, default_chunksize
from bbn.tasks.learning.gaussian import Moments
from bbn.tasks.learning.statistics import table_statistics


@pytest.fixture(scope="module")
def chair_rows(tmp_path_factory):
    """2,003 rows drawn from the chair network (a chunk size of 500 leaves a short last
    chunk), as a frame and as a gzipped CSV."""
    net = bbn.load("models/chair.bn")
    frame = bbn.sample(net, 2003, seed=7)
    path = tmp_path_factory.mktemp("rows") / "chair.csv.gz"
    frame.to_csv(path, index=False)
    return net, frame, path


def assert_same_tables(a: bbn.Network, b: bbn.Network) -> None:
    for v in a.variables:
        assert np.array_equal(a.cpt_array(v), b.cpt_array(v)), v


@pytest.mark.parametrize("estimator", ["mle", bbn.Laplace(alpha=0.5), bbn.BDeu(ess=3)])
def test_a_csv_in_chunks_gives_the_tables_of_the_whole_frame(chair_rows, estimator):
    net, frame, path = chair_rows
    whole = bbn.learn(net, frame, estimator)
    for size in (500, 2003, 10_000):
        assert_same_tables(bbn.learn(net, path, estimator, chunksize=size), whole)
    assert_same_tables(bbn.learn(net, frame.head(300), estimator),
                       bbn.learn(net, [frame.iloc[[i]] for i in range(300)], estimator))


def test_counts_in_chunks_are_the_counts_of_the_whole(chair_rows):
    net, frame, path = chair_rows
    counted = table_statistics(net, path, chunksize=333)
    assert counted.rows == 2003
    for v in net.variables:  # the hand count of one family, by pandas
        family = list(net.parents(v) + (v,))
        expected = frame.groupby(family, observed=False).size().to_numpy()
        assert counted.counts[v].ravel().tolist() == expected.astype(float).tolist(), v


def test_an_iterable_of_frames_and_a_generator(chair_rows):
    net, frame, _ = chair_rows
    whole = bbn.learn(net, frame)
    pieces = [frame.iloc[i:i + 400] for i in range(0, len(frame), 400)]
    assert_same_tables(bbn.learn(net, pieces), whole)
    assert_same_tables(bbn.learn(net, (p.astype(str) for p in pieces)), whole)


def test_parquet_in_record_batches(chair_rows, tmp_path):
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (bbn[parquet])")
    net, frame, _ = chair_rows
    path = tmp_path / "chair.parquet"
    frame.astype(str).to_parquet(path, row_group_size=300)
    assert_same_tables(bbn.learn(net, path, chunksize=250), bbn.learn(net, frame))
    assert [len(c.frame) for c in chunks(path, chunksize=1000)][-1] == 3


def test_missing_values_dropped_over_chunks(chair_rows, tmp_path):
    net, frame, _ = chair_rows
    holey = frame.astype(object)
    holey.iloc[::7, 2] = None
    path = tmp_path / "holes.csv"
    holey.to_csv(path, index=False)
    whole = bbn.learn(net, holey, missing="drop")
    assert_same_tables(bbn.learn(net, path, missing="drop", chunksize=100), whole)
    assert table_statistics(net, path, missing="drop", chunksize=100).dropped == 287


def test_em_over_chunks_is_em_over_the_whole(chair_rows, tmp_path):
    net, frame, _ = chair_rows
    holey = frame.astype(object)
    holey.iloc[::3, 0] = None
    holey.iloc[1::5, 3] = None
    path = tmp_path / "holes.csv"
    holey.to_csv(path, index=False)
    whole = bbn.tasks.learning.em(net, holey)
    streamed = bbn.tasks.learning.em(net, path, chunksize=150)
    assert streamed.log_likelihood == whole.log_likelihood
    assert_same_tables(streamed.network, whole.network)


def test_gaussian_moments_add_over_chunks(tmp_path):
    net = bbn.Network()
    net.add_variable("c", ["a", "b"])
    net.add_gaussian_variable("x", ["c"])
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"c": rng.choice(["a", "b"], 1001), "x": rng.normal(5, 2, 1001)})
    path = tmp_path / "x.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    whole = bbn.learn(net, frame, var_smoothing=1e-3)
    streamed = bbn.learn(net, path, var_smoothing=1e-3, chunksize=64)
    for a, b in zip(whole.gaussian_parameters("x"), streamed.gaussian_parameters("x")):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # by hand: the sample mean and variance of each class's values
    for j, c in enumerate("ab"):
        x = frame.loc[frame["c"] == c, "x"]
        np.testing.assert_allclose(streamed.gaussian_parameters("x")[0][j], x.mean(),
                                   rtol=1e-12)


def test_moments_combine_as_the_whole():
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    index = np.array([0, 1, 0, 1, 0])
    whole = Moments.of(index, x, 2)
    parts = Moments.of(index[:2], x[:2], 2) + Moments.of(index[2:], x[2:], 2)
    assert whole.n.tolist() == parts.n.tolist() == [3.0, 2.0]
    np.testing.assert_allclose(parts.mean, [7.0, 5.0])
    np.testing.assert_allclose(parts.m2, [(36 + 9 + 81), 18.0])


def test_a_state_first_seen_in_a_later_chunk_names_the_line(chair_rows, tmp_path):
    net, frame, _ = chair_rows
    bad = frame.astype(str)
    bad.iloc[1500, 1] = "maybe"
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    column = frame.columns[1]
    with pytest.raises(DataError, match=rf"column '{column}', line 1502: value 'maybe' is "
                                        "not a state"):
        bbn.learn(net, path, chunksize=400)
    pieces = [bad.iloc[i:i + 400].reset_index(drop=True) for i in range(0, 2003, 400)]
    with pytest.raises(DataError, match=rf"column '{column}', row 1500: value 'maybe'"):
        bbn.learn(net, pieces)


def test_a_missing_value_in_a_later_chunk_names_the_line(chair_rows, tmp_path):
    net, frame, _ = chair_rows
    bad = frame.astype(object)
    bad.iloc[1234, 0] = None
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(DataError, match=rf"column '{frame.columns[0]}', line 1236: missing"):
        bbn.learn(net, path, chunksize=300)


def test_bad_chunk_inputs_are_clear_errors(chair_rows, tmp_path):
    net, frame, _ = chair_rows
    with pytest.raises(DataError, match="chunksize must be a positive number of rows"):
        bbn.learn(net, "x.csv", chunksize=0)
    with pytest.raises(DataError, match="chunk 2 is a list, not a DataFrame"):
        bbn.learn(net, iter([frame, [1, 2]]))
    with pytest.raises(DataError, match="no such file"):
        bbn.learn(net, tmp_path / "absent.csv")
    with pytest.raises(DataError, match="no rows to learn from"):
        bbn.learn(net, iter([]))


def test_structure_scores_from_chunks(chair_rows):
    net, frame, path = chair_rows
    for score in ("bic", "bdeu", "k2"):
        assert bbn.structure_score(net, path, score, chunksize=100) == pytest.approx(
            bbn.structure_score(net, frame, score), rel=1e-13)


def test_the_default_chunk_follows_the_memory_limit(memory_limit):
    memory_limit(1 << 30)
    assert default_chunksize(37) == (1 << 30) // (4 * 64 * 37)
    memory_limit(1 << 20)
    assert default_chunksize(37) == 10_000


def test_bbn_learn_reads_a_large_csv_in_chunks(chair_rows, tmp_path):
    net, frame, path = chair_rows
    structure = tmp_path / "chair.bn"
    bbn.save(net, structure)
    out = tmp_path / "learned.bn"
    from bbn.apps.cli.main import main
    assert main(["learn", str(structure), str(path), "-o", str(out),
                 "--chunksize", "300"]) == 0
    assert_same_tables(bbn.load(out), bbn.learn(net, frame))


def test_bbn_sample_writes_chunks_of_one_draw(tmp_path, chair_file):
    from bbn.apps.cli.main import main
    from bbn.tasks.learning.sampling import sample_chunks

    out = tmp_path / "rows.csv.gz"
    assert main(["sample", str(chair_file), "-n", "2500", "--seed", "3", "--chunksize", "1000",
                 "-o", str(out)]) == 0
    written = pd.read_csv(out, dtype=str)
    drawn = pd.concat(sample_chunks(bbn.load(chair_file), 2500, seed=3, chunksize=1000))
    assert written.columns.tolist() == ["C", "S", "W", "B", "A"]
    assert written.equals(drawn.astype(str).reset_index(drop=True))
    # the chunks are one draw, not one seed per chunk: no two chunks repeat each other
    assert not written.iloc[:1000].equals(written.iloc[1000:2000].reset_index(drop=True))
    # P(C=T) = 0.8 in the chair model: 2,500 draws are within 4 standard deviations
    assert abs((written["C"] == "T").mean() - 0.8) < 4 * (0.8 * 0.2 / 2500) ** 0.5


def test_bbn_sample_refuses_a_model_without_tables_and_writes_nothing(tmp_path, capsys):
    from bbn.apps.cli.main import main

    structure = tmp_path / "s.bn"
    structure.write_text("variable A { T, F }\n")
    out = tmp_path / "rows.csv"
    assert main(["sample", str(structure), "-n", "10", "-o", str(out)]) == 2
    assert "no table for 'A'" in capsys.readouterr().err
    assert not out.exists()


def test_bbn_classify_streams_the_predictions(chair_rows, chair_file, tmp_path, capsys):
    from bbn.apps.cli.main import main

    net, frame, path = chair_rows
    outputs = []
    for size in ("250", "100000"):
        out = tmp_path / f"p{size}.csv"
        assert main(["classify", str(chair_file), str(path), "--target", "C", "-o", str(out),
                     "--chunksize", size]) == 0
        outputs.append((out.read_text(), capsys.readouterr().out))
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][1].splitlines()[1:] == outputs[1][1].splitlines()[1:]  # the scores
    predicted = pd.read_csv(tmp_path / "p250.csv")
    expected = bbn.predict_proba(net, frame.drop(columns="C"), "C")
    np.testing.assert_allclose(predicted["P(C=T)"], expected["T"], rtol=1e-9)
    right = int((predicted["predicted"] == frame["C"].astype(str)).sum())
    assert f"({right}/2003)" in outputs[0][1]


def test_predict_proba_reads_a_file_in_chunks(chair_rows, chair_file):
    net, frame, path = chair_rows
    whole = bbn.predict_proba(net, frame, "C")
    streamed = bbn.predict_proba(net, path, "C", chunksize=300)
    assert streamed.index.tolist() == list(range(2003))
    np.testing.assert_array_equal(streamed.to_numpy(), whole.to_numpy())
    assert (bbn.predict(net, path, "C", chunksize=300).tolist()
            == bbn.predict(net, frame, "C").tolist())


def test_bbn_sample_quotes_states_that_need_it(tmp_path):
    from bbn.apps.cli.main import main
    from bbn.apps.cli.sample import csv_text

    net = bbn.Network()
    net.add_variable("A", ["x, y", 'say "hi"'], table=[0.5, 0.5])
    net.add_variable("B", ["T", "F"], parents=["A"], table={"x, y": [1.0, 0.0],
                                                            'say "hi"': [0.0, 1.0]})
    structure, out = tmp_path / "q.bn", tmp_path / "q.csv"
    bbn.save(net, structure)
    assert main(["sample", str(structure), "-n", "50", "--seed", "1", "-o", str(out)]) == 0
    written = pd.read_csv(out, dtype=str)
    assert set(written["A"]) == {"x, y", 'say "hi"'}
    assert ((written["A"] == "x, y") == (written["B"] == "T")).all()
    frame = pd.DataFrame({"A": pd.Categorical(["T", "F"]), "B": pd.Categorical(["F", "F"])})
    assert csv_text(frame, header=True) == frame.to_csv(index=False).encode()

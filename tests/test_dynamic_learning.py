"""Learning a 2-TBN's tables from complete sequences (issue 31): equal to the counts of
first rows and of consecutive pairs, by hand with pandas; close to the tables that drew
the data; Baum–Welch on a hidden chain recovers an HMM's likelihood."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bbn


def umbrella() -> bbn.DynamicNetwork:
    dbn = bbn.DynamicNetwork("umbrella")
    dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
                     table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.6, 0.4])
    dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
    return dbn


@pytest.fixture(scope="module")
def long_format():
    """3,000 sequences of 6 steps drawn from the unrolled network, one row per step."""
    dbn, steps = umbrella(), 6
    wide = bbn.sample(dbn.unroll(steps), 3000, seed=5)
    frames = [pd.DataFrame({"id": np.arange(len(wide)), "step": t,
                            "Rain": wide[f"Rain[{t}]"], "Umbrella": wide[f"Umbrella[{t}]"]})
              for t in range(steps)]
    frame = pd.concat(frames).sort_values(["id", "step"], kind="stable").drop(columns="step")
    return frame.reset_index(drop=True)


def test_tables_are_the_counts(long_format):
    learned = bbn.learn_dynamic(umbrella(), long_format, sequence_id="id")
    first = long_format.groupby("id").head(1)
    want_initial = first["Rain"].value_counts(normalize=True)[["T", "F"]].to_numpy()
    assert np.allclose(learned.unroll(1).cpt_array("Rain[0]"), want_initial, atol=1e-12)
    previous = long_format.groupby("id")["Rain"].shift()
    pairs = pd.crosstab(previous[previous.notna()], long_format["Rain"][previous.notna()],
                        normalize="index").loc[["T", "F"], ["T", "F"]].to_numpy()
    assert np.allclose(learned.two_slice().cpt_array("Rain[1]"), pairs, atol=1e-12)
    # the reading has no parent in the slice before: every row counts
    emission = pd.crosstab(long_format["Rain"], long_format["Umbrella"],
                           normalize="index").loc[["T", "F"], ["T", "F"]].to_numpy()
    assert np.allclose(learned.two_slice().cpt_array("Umbrella[1]"), emission, atol=1e-12)
    assert np.allclose(learned.two_slice().cpt_array("Rain[1]"), [[0.7, 0.3], [0.3, 0.7]],
                       atol=0.02)


def test_estimators_and_errors(long_format):
    laplace = bbn.learn_dynamic(umbrella(), long_format.head(12), sequence_id="id",
                                estimator=bbn.Laplace(1.0))
    assert (laplace.two_slice().cpt_array("Rain[1]") > 0).all()
    with pytest.raises(bbn.DataError, match="two steps"):
        bbn.learn_dynamic(umbrella(), long_format.groupby("id").head(1), sequence_id="id")


def test_baum_welch_on_a_hidden_chain(long_format):
    # the rain is hidden: Baum–Welch on the umbrellas alone climbs to a likelihood at
    # least that of the tables that drew them
    codes = (long_format["Umbrella"] == "F").to_numpy().astype(np.int64)
    lengths = long_format.groupby("id", sort=False).size().to_numpy()
    truth = bbn.HMM(["T", "F"], ["T", "F"], start=[0.6, 0.4],
                    transition=[[0.7, 0.3], [0.3, 0.7]], emission=[[0.9, 0.1], [0.2, 0.8]])
    fitted = bbn.HMM(["T", "F"], ["T", "F"], start=[0.5, 0.5],
                     transition=[[0.6, 0.4], [0.4, 0.6]],
                     emission=[[0.7, 0.3], [0.4, 0.6]]).fit(codes, lengths, n_iter=200)
    assert np.all(np.diff(fitted.history_) > -1e-8)          # EM never goes down
    assert fitted.log_likelihood(codes, lengths).sum() >= truth.log_likelihood(
        codes, lengths).sum() - 1e-6


def test_a_hidden_chain_is_learned_by_baum_welch(long_format):
    umbrellas = long_format.drop(columns="Rain")
    start = bbn.DynamicNetwork("start")
    start.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
                       table=[[0.6, 0.4], [0.4, 0.6]], initial=[0.5, 0.5])
    start.add_variable("Umbrella", ["T", "F"], parents=["Rain"],
                       table=[[0.7, 0.3], [0.4, 0.6]])
    learned = bbn.learn_dynamic(start, umbrellas, sequence_id="id", max_iter=30, tol=0)
    codes = (umbrellas["Umbrella"] == "F").to_numpy().astype(np.int64)
    lengths = umbrellas.groupby("id", sort=False).size().to_numpy()
    hmm = bbn.HMM(["T", "F"], ["T", "F"], start=[0.5, 0.5], transition=[[0.6, 0.4], [0.4, 0.6]],
                  emission=[[0.7, 0.3], [0.4, 0.6]]).fit(codes, lengths, n_iter=30, tol=-np.inf)
    two = learned.two_slice()
    assert np.allclose(two.cpt_array("Rain[1]"), hmm.transition, atol=1e-12)
    assert np.allclose(two.cpt_array("Umbrella[0]"), hmm.emission, atol=1e-12)
    assert np.allclose(two.cpt_array("Rain[0]"), hmm.start, atol=1e-12)
    with pytest.raises(bbn.DataError, match="no column"):
        bbn.learn_dynamic(start, umbrellas.rename(columns={"Umbrella": "x"}),
                          sequence_id="id")

"""Structure scores (bbn.structure_score): hand-derived values, pgmpy's numbers for the
same DAG and data, score equivalence, decomposability and the errors at the edge."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, ModelError
from bbn.tasks.structure import SCORES, family_score, structure_score

ROWS = pd.DataFrame({"A": list("TTFFT"), "B": list("TFFFT")})


def two(parent: str, child: str) -> bbn.Network:
    net = bbn.Network()
    net.add_variable(parent, ["T", "F"])
    net.add_variable(child, ["T", "F"], parents=[parent])
    return net


def test_hand_derived_scores_of_a_to_b():
    # A: T 3, F 2; B | A=T: T 2, F 1; B | A=F: F 2; N = 5, q(r-1) = 1 + 2 = 3 parameters
    loglik = (3 * math.log(3 / 5) + 2 * math.log(2 / 5)
              + 2 * math.log(2 / 3) + math.log(1 / 3))
    net = two("A", "B")
    assert structure_score(net, ROWS, "loglik") == pytest.approx(loglik, rel=1e-12)
    assert structure_score(net, ROWS, "bic") == pytest.approx(
        loglik - 0.5 * math.log(5) * 3, rel=1e-12)
    assert structure_score(net, ROWS, "aic") == pytest.approx(loglik - 3, rel=1e-12)
    lg = math.lgamma
    # K2: root A (q = 1): lnΓ(2) − lnΓ(7) + lnΓ(4) + lnΓ(3); B: two parent rows
    k2 = (lg(2) - lg(7) + lg(4) + lg(3)
          + lg(2) - lg(5) + lg(3) + lg(2) + lg(2) - lg(4) + lg(1) + lg(3))
    assert structure_score(net, ROWS, "k2") == pytest.approx(k2, rel=1e-12)
    # BDeu with α = 2: A: α_j = 2, α_jk = 1; B: α_j = 1, α_jk = 1/2
    bdeu = (lg(2) - lg(7) + lg(4) + lg(3) - 2 * lg(1)
            + 2 * lg(1) - lg(4) - lg(3) + lg(2.5) + lg(1.5) + lg(0.5) + lg(2.5)
            - 4 * lg(0.5))
    assert structure_score(net, ROWS, "bdeu", ess=2.0) == pytest.approx(bdeu, rel=1e-12)


def test_the_terms_add_up_to_the_score_and_unseen_parent_rows_add_nothing():
    net = two("A", "B")
    terms = structure_score(net, ROWS, "bdeu", per_variable=True)
    assert set(terms) == {"A", "B"}
    assert math.fsum(terms.values()) == pytest.approx(structure_score(net, ROWS, "bdeu"))
    counts = np.array([[2.0, 1.0], [0.0, 2.0]])
    padded = np.array([[2.0, 1.0], [0.0, 2.0], [0.0, 0.0]])  # a parent state never seen
    for score in ("loglik", "k2"):
        assert family_score(padded, score) == pytest.approx(family_score(counts, score))


@pytest.mark.parametrize("score", ["loglik", "bic", "aic", "bdeu"])
def test_markov_equivalent_dags_score_the_same(score):
    rows = bbn.sample(bbn.load("models/chair.bn"), 500, seed=3)
    # C → B ← S and B → A; the chain C → W reversed is Markov equivalent
    original = bbn.load("models/chair.bn")
    reversed_arc = original.copy()
    reversed_arc.set_parents("W", [])
    reversed_arc.set_parents("C", ["W"])  # W → C: covered (Pa(W) = Pa(C) ∪ {C})
    assert structure_score(original, rows, score) == pytest.approx(
        structure_score(reversed_arc, rows, score), rel=1e-10)


def test_k2_is_not_score_equivalent():
    rows = bbn.sample(bbn.load("models/chair.bn"), 500, seed=3)
    original = bbn.load("models/chair.bn")
    reversed_arc = original.copy()
    reversed_arc.set_parents("W", [])
    reversed_arc.set_parents("C", ["W"])
    assert structure_score(original, rows, "k2") != pytest.approx(
        structure_score(reversed_arc, rows, "k2"), rel=1e-6)


@pytest.mark.parametrize("score", SCORES)
def test_the_true_structure_beats_the_empty_one_on_enough_data(score):
    net = bbn.load("models/chair.bn")
    rows = bbn.sample(net, 5000, seed=1)
    empty = net.copy()
    for v in empty.variables:
        empty.set_parents(v, [])
    assert structure_score(net, rows, score) > structure_score(empty, rows, score)


@pytest.mark.parametrize("name", ["asia", "alarm"])
def test_equal_to_pgmpy_for_the_same_dag_and_data(shared, name):
    pgmpy_estimators = pytest.importorskip("pgmpy.estimators")
    from pgmpy.models import DiscreteBayesianNetwork

    net = bbn.load(shared / "networks" / f"{name}.bif.gz")
    rows = bbn.sample(net, 2000, seed=7).astype(str)
    model = DiscreteBayesianNetwork(net.arcs())
    model.add_nodes_from(net.variables)
    states = {v: list(net.states(v)) for v in net.variables}  # states never sampled too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {"bic": pgmpy_estimators.BIC(rows, state_names=states).score(model),
                  "aic": pgmpy_estimators.AIC(rows, state_names=states).score(model),
                  "k2": pgmpy_estimators.K2(rows, state_names=states).score(model),
                  "bdeu": pgmpy_estimators.BDeu(rows, equivalent_sample_size=5,
                                                state_names=states).score(model)}
    # pgmpy's K2 adds ln Γ(r) for every parent configuration the data never show (their
    # term is ln Γ(r) − ln Γ(0 + r) = 0 in Cooper and Herskovits' formula)
    unseen = sum((math.prod(net.cardinality(p) for p in net.parents(v))
                  - (len(rows[list(net.parents(v))].drop_duplicates()) if net.parents(v)
                     else 1)) * math.lgamma(net.cardinality(v)) for v in net.variables)
    for score, value in theirs.items():
        ours = structure_score(net, rows, score, ess=5.0)
        assert ours + (unseen if score == "k2" else 0.0) == pytest.approx(value, rel=1e-9), score


def test_bad_questions_are_clear_errors():
    net = two("A", "B")
    with pytest.raises(ModelError, match=r"unknown score 'bick'.*did you mean 'bic'"):
        structure_score(net, ROWS, "bick")
    with pytest.raises(ModelError, match="ess .* must be a number > 0, got 0"):
        structure_score(net, ROWS, "bdeu", ess=0)
    with pytest.raises(DataError, match=r"column 'B', row 1: missing value.*need complete rows"):
        structure_score(net, pd.DataFrame({"A": ["T", "F"], "B": ["T", None]}))
    with pytest.raises(DataError, match="'maybe'"):
        structure_score(net, pd.DataFrame({"A": ["T", "maybe"], "B": ["T", "F"]}))
    gaussian = two("A", "B")
    gaussian.add_gaussian_variable("x", ["A"])
    with pytest.raises(ModelError, match="'x' is continuous"):  # K2, BDeu: discrete only
        structure_score(gaussian, ROWS.assign(x=1.0), "k2")
    with pytest.raises(DataError, match="'x' has zero residual variance"):  # BIC: unbounded
        structure_score(gaussian, ROWS.assign(x=1.0))

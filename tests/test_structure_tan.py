"""Tree-augmented naive Bayes (method "tan" and NaiveBayes(structure="tan")): the tree by
conditional mutual information, by hand and by brute force over every tree, pgmpy's
TreeSearch, the knowledge honoured, errors."""

from __future__ import annotations

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bbn
from bbn.core.errors import ModelError
from bbn.tasks.structure import structure_score
from bbn.tasks.structure.chow_liu_trees import conditional_mutual_information


def dependent_features() -> bbn.Network:
    """A class C and features whose values copy one another given C (a chain A → B → D,
    E noise): naive Bayes counts the same evidence several times, TAN once."""
    net = bbn.Network("dependent")
    net.add_variable("C", ["c0", "c1"], table=[0.5, 0.5])
    net.add_variable("A", ["a0", "a1"], parents=["C"], table=[[0.7, 0.3], [0.3, 0.7]])
    net.add_variable("B", ["b0", "b1"], parents=["C", "A"],
                     table=[[[0.95, 0.05], [0.05, 0.95]], [[0.9, 0.1], [0.1, 0.9]]])
    net.add_variable("D", ["d0", "d1", "d2"], parents=["C", "B"],
                     table=[[[0.9, 0.05, 0.05], [0.05, 0.05, 0.9]],
                            [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]])
    net.add_variable("E", ["e0", "e1"], parents=["C"], table=[[0.6, 0.4], [0.45, 0.55]])
    return net


def cmi_by_definition(rows: pd.DataFrame, x: str, y: str, given: str) -> float:
    """Σ_c P(c) Σ_xy P(x, y | c) ln(P(x, y | c) / (P(x | c) P(y | c))), one cell at a time."""
    total = 0.0
    for _, part in rows.groupby(given, observed=True):
        p_c = len(part) / len(rows)
        for (a, b), n in part.groupby([x, y], observed=True).size().items():
            p_xy = n / len(part)
            p_x = (part[x] == a).mean()
            p_y = (part[y] == b).mean()
            total += p_c * p_xy * math.log(p_xy / (p_x * p_y))
    return total


def test_conditional_mutual_information_by_hand():
    # given c0, X = Y (2 rows each): ln 2; given c1 X, Y independent: 0; P(c0) = 1/2
    counts = np.array([[[2.0, 0.0], [0.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]])
    assert conditional_mutual_information(counts) == pytest.approx(0.5 * math.log(2), rel=1e-12)
    # P(c0) = 3/4: n(c0) = 6 with x, y of (3, 1 / 0, 2)
    counts = np.array([[[3.0, 1.0], [0.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]]])
    p = np.array([3, 1, 0, 2]) / 6  # P(x, y | c0)
    px, py = np.array([4, 2]) / 6, np.array([3, 3]) / 6
    given_c0 = sum(p[2 * a + b] * math.log(p[2 * a + b] / (px[a] * py[b]))
                   for a in range(2) for b in range(2) if p[2 * a + b] > 0)
    expected = 0.75 * given_c0 + 0.25 * math.log(2)
    assert conditional_mutual_information(counts) == pytest.approx(expected, rel=1e-12)
    assert conditional_mutual_information(np.zeros((2, 2, 2))) == 0.0


def test_three_features_keep_the_two_strongest_dependences_given_the_class():
    rows = bbn.sample(dependent_features(), 3000, seed=4)[["C", "A", "B", "D"]]
    weights = {pair: cmi_by_definition(rows, *pair, "C")
               for pair in [("A", "B"), ("A", "D"), ("B", "D")]}
    # the weakest pair is A–D (D depends on A only through B)
    assert min(weights, key=weights.get) == ("A", "D")
    net = bbn.learn_structure(rows, method="tan", target="C")
    assert net.parents("A") == ("C",)            # the root: the first feature
    assert net.parents("B") == ("C", "A")
    assert net.parents("D") == ("C", "B")
    assert net.statistics_["tree_information"] == pytest.approx(
        weights["A", "B"] + weights["B", "D"], rel=1e-12)
    assert net.statistics_["pairs"] == 3
    lines = []
    bbn.learn_structure(rows, method="tan", target="C", progress=lines.append)
    assert lines == [f"tan: the pairs of {v!r} ({k} of 3 features)"
                     for k, v in enumerate("ABD", start=1)]
    # the tables are the maximum likelihood ones of that structure
    assert np.allclose(net.cpt_array("D"), bbn.learn(net, rows).cpt_array("D"), atol=1e-12)


def test_the_tan_tree_is_the_best_of_every_tree_over_four_features():
    rows = bbn.sample(dependent_features(), 2000, seed=8)
    features = ["A", "B", "D", "E"]
    learned = bbn.learn_structure(rows, method="tan", target="C", root="E")
    best = structure_score(learned, rows, "loglik")
    assert learned.parents("E") == ("C",)
    trees = 0
    for edges in itertools.combinations(itertools.combinations(features, 2), 3):
        skeleton = nx.Graph(list(edges))
        if skeleton.number_of_nodes() < 4 or not nx.is_tree(skeleton):
            continue
        trees += 1
        net = bbn.Network()
        net.add_variable("C", ["c0", "c1"])
        for v in features:
            net.add_variable(v, list(dependent_features().states(v)), parents=["C"])
        for parent, child in nx.bfs_edges(skeleton, "A"):
            net.set_parents(child, ["C", parent])
        # log-likelihood = N Σ I(Xi; Xpa(i) | C) + terms the tree does not change
        assert structure_score(net, rows, "loglik") <= best + 1e-9
        information = sum(cmi_by_definition(rows, a, b, "C") for a, b in edges)
        assert information <= learned.statistics_["tree_information"] + 1e-12
    assert trees == 16  # Cayley: 4^(4-2)


def test_the_arcs_are_pgmpys_tan(shared):
    pytest.importorskip("pgmpy")
    with warnings.catch_warnings():  # pgmpy's own deprecation notice on import
        warnings.simplefilter("ignore")
        from pgmpy.estimators import TreeSearch

    rows = bbn.sample(bbn.load(shared / "networks" / "asia.bif.gz"), 5000, seed=11).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TreeSearch(rows, root_node="smoke").estimate(
            estimator_type="tan", class_node="dysp", show_progress=False)
    ours = bbn.learn_structure(rows, method="tan", target="dysp", root="smoke",
                               estimator="laplace")
    assert sorted(ours.arcs()) == sorted(theirs.edges())
    assert ours.parents("either") == ("dysp", "lung")  # not naive Bayes


def test_the_knowledge_is_honoured():
    rows = bbn.sample(dependent_features(), 2000, seed=8)
    free = bbn.learn_structure(rows, method="tan", target="C")
    assert ("A", "B") in free.arcs()
    # forbidding both directions of A–B leaves the pair out of the tree
    net = bbn.learn_structure(rows, method="tan", target="C", forbidden=["A->B", "B->A"])
    assert not {("A", "B"), ("B", "A")} & set(net.arcs())
    assert all("C" in net.parents(v) for v in "ABDE")
    # a required arc between features is in the tree, in its direction
    net = bbn.learn_structure(rows, method="tan", target="C", required=["E->D"])
    assert net.parents("D") == ("C", "E")
    # tiers: B first, so the tree is rooted where no arc goes back to it
    net = bbn.learn_structure(rows, method="tan", target="C", tiers=[["C"], ["B"], ["A", "D", "E"]])
    assert net.parents("B") == ("C",)
    assert ("B", "A") in net.arcs()
    # one parent at most: the class takes it, naive Bayes
    net = bbn.learn_structure(rows, method="tan", target="C", max_parents=1)
    assert sorted(net.arcs()) == [("C", v) for v in "ABDE"]


def test_missing_values_are_counted_per_triple():
    rows = bbn.sample(dependent_features(), 1500, seed=2).astype(object)
    rows.loc[::7, "E"] = None
    with pytest.raises(bbn.DataError, match="row 0 has no value for 'E'"):
        bbn.learn_structure(rows, method="tan", target="C")
    net = bbn.learn_structure(rows, method="tan", target="C", missing="drop",
                              required=["C->E"])
    assert net.statistics_["pairs"] == 6
    tree = [(p, c) for p, c in net.arcs() if p != "C"]
    assert len(tree) == 3 and any("E" in arc for arc in tree)
    # each pair weighed on the rows that have its three values
    expected = sum(cmi_by_definition(rows[["C", p, c]].dropna(), p, c, "C") for p, c in tree)
    assert net.statistics_["tree_information"] == pytest.approx(expected, rel=1e-12)
    assert expected != pytest.approx(sum(cmi_by_definition(rows.dropna(), p, c, "C")
                                         for p, c in tree), rel=1e-6)


@pytest.mark.parametrize("options, message", [
    ({}, "method 'tan' needs the class variable: target="),
    ({"target": "C", "root": "C"}, "the root 'C' is no feature"),
    ({"target": "C", "root": "Bb"}, "did you mean 'B'"),
    ({"target": "C", "forbidden": ["C->D"]}, "the arc C->D is forbidden"),
    ({"target": "C", "tiers": [["A"], ["C"]]}, "the arc C->A is against the tiers"),
    ({"target": "C", "required": ["A->C"]}, "the arc A->C is required"),
    ({"target": "C", "max_parents": 0}, "max_parents=0"),
    ({"target": "C", "max_parents": 1, "required": ["A->B"]},
     "with max_parents=1 the class 'C' is every feature's only parent, but the arc A->B"),
    ({"target": "C", "tier": [["A"]]}, "method 'tan' has no option 'tier'"),
    ({"target": "C", "required": ["A->B", "D->B"]}, "no orientation of the tree"),
])
def test_errors(options, message):
    rows = bbn.sample(dependent_features(), 300, seed=1)
    with pytest.raises(ModelError) as error:
        bbn.learn_structure(rows, method="tan", **options)
    assert message in str(error.value)


# ------------------------------------------------------- NaiveBayes(structure="tan")
def split(seed: int, n: int) -> tuple[pd.DataFrame, pd.Series]:
    rows = bbn.sample(dependent_features(), n, seed=seed)
    return rows.drop(columns="C"), rows["C"]


def test_the_classifier_has_the_methods_tree():
    X, y = split(3, 2000)
    model = bbn.NaiveBayes(structure="tan", estimator="mle").fit(X, y)
    learned = bbn.learn_structure(pd.concat([y, X], axis=1), method="tan", target="C")
    assert sorted(model.network_.arcs()) == sorted(learned.arcs())
    assert model.network_.parents("B") == ("C", "A")
    for v in learned.variables:
        assert np.allclose(model.network_.cpt_array(v), learned.cpt_array(v), atol=1e-12)
    assert model.get_params()["structure"] == "tan"
    assert bbn.NaiveBayes().structure == "naive"


def test_the_classifier_equals_exact_inference_missing_values_summed_out():
    X, y = split(5, 1500)
    model = bbn.NaiveBayes(structure="tan").fit(X, y)
    test, _ = split(6, 300)
    test = test.astype(object)
    test.iloc[::3, 1] = None        # B: a parent and a child in the tree
    test.iloc[::5, 0] = None        # A: the root
    test.iloc[::4, 2] = None
    test.iloc[7, :] = None          # nothing known: the prior
    ours = model.predict_proba(test)
    exact = bbn.predict_proba(model.network_, test, "C").to_numpy()
    assert np.abs(ours - exact).max() < 1e-12
    assert ours[7] == pytest.approx(model.network_.cpt_array("C"), abs=1e-12)
    assert model.predict(test).tolist() == model.classes_[exact.argmax(axis=1)].tolist()


def test_tan_is_more_accurate_than_naive_bayes_on_dependent_features():
    X, y = split(1, 3000)
    test_X, test_y = split(2, 3000)
    naive = bbn.NaiveBayes().fit(X, y).score(test_X, test_y)
    tan = bbn.NaiveBayes(structure="tan").fit(X, y).score(test_X, test_y)
    assert (round(naive, 3), round(tan, 3)) == (0.671, 0.7)
    # the true network is TAN-shaped: TAN is as accurate as it (to sampling noise)
    truth = bbn.predict(dependent_features(), test_X, "C").to_numpy()
    assert round(float(np.mean(truth == test_y.to_numpy())), 3) == 0.699


def test_whole_weights_are_repeated_rows():
    X, y = split(9, 400)
    weights = np.arange(400) % 3
    weighted = bbn.NaiveBayes(structure="tan").fit(X, y, sample_weight=weights)
    repeated = bbn.NaiveBayes(structure="tan").fit(X.loc[X.index.repeat(weights)],
                                                   y.loc[y.index.repeat(weights)])
    assert weighted.network_.arcs() == repeated.network_.arcs()
    assert np.allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12)


def test_an_unknown_structure_is_refused():
    X, y = split(9, 50)
    with pytest.raises(bbn.DataError, match="unknown structure 'tab'.*did you mean 'tan'"):
        bbn.NaiveBayes(structure="tab").fit(X, y)


def test_impossible_evidence_names_the_value_and_its_tree_parent():
    X = pd.DataFrame({"a": list("xxyy"), "b": list("pqpq"), "d": list("uuvv")})
    model = bbn.NaiveBayes(structure="tan", estimator="mle").fit(X, ["c1", "c1", "c2", "c2"])
    assert model.network_.parents("d") == ("class", "a")
    with pytest.raises(bbn.ImpossibleEvidenceError) as error:
        model.predict(pd.DataFrame({"a": ["x"], "b": [None], "d": ["v"]}))
    assert ("P(a=x, d=v) = 0 under this model: a=x has probability 0 given class=c2; "
            "d=v (with a=x) has probability 0 given class=c1;") in str(error.value)


def test_scikit_learn_protocol_with_the_structure_as_a_parameter():
    pytest.importorskip("sklearn")
    import pickle

    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    X, y = split(1, 1500)
    model = bbn.NaiveBayes(structure="tan")
    assert clone(model).get_params() == model.get_params()
    assert repr(model) == "NaiveBayes(structure='tan')"
    fitted = model.fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict_proba(X), fitted.predict_proba(X))
    search = GridSearchCV(bbn.NaiveBayes(), {"structure": ["naive", "tan"]}, cv=3).fit(X, y)
    assert search.best_params_ == {"structure": "tan"}


_ROWS = bbn.sample(dependent_features(), 400, seed=12)
_FEATURE_ARCS = [(p, c) for p in "ABDE" for c in "ABDE" if p != c]


@settings(max_examples=40, deadline=None)
@given(forbidden=st.lists(st.sampled_from(_FEATURE_ARCS), max_size=6, unique=True),
       required=st.lists(st.sampled_from(_FEATURE_ARCS), max_size=2, unique=True),
       tiers=st.one_of(st.none(), st.lists(st.integers(0, 2), min_size=4, max_size=4)))
def test_every_result_is_a_tan_honouring_the_knowledge(forbidden, required, tiers):
    grouped = None if tiers is None else [["C"]] + [
        [v for v, t in zip("ABDE", tiers) if t == tier] for tier in range(3)]
    grouped = grouped and [g for g in grouped if g]
    try:
        net = bbn.learn_structure(_ROWS, method="tan", target="C", forbidden=forbidden,
                                  required=required, tiers=grouped)
    except ModelError as error:  # knowledge against itself, or against every tree
        assert any(text in str(error) for text in (
            "no orientation of the tree", "both required and forbidden", "back to tier",
            "form a cycle")), error
        return
    arcs = set(net.arcs())
    assert set(required) <= arcs and not set(forbidden) & arcs
    assert net.parents("C") == ()
    for v in "ABDE":
        assert net.parents(v)[0] == "C" and len(net.parents(v)) <= 2
    order = {v: t for t, group in enumerate(grouped or []) for v in group}
    assert all(order.get(p, 0) <= order.get(c, 0) for p, c in arcs if grouped)


def test_a_triple_above_the_memory_limit_is_never_allocated(memory_limit):
    wide = pd.DataFrame({v: [str(i % 30) for i in range(90)] for v in "XYZ"})
    wide["C"] = [str(i % 2) for i in range(90)]
    memory_limit(2 * 30 ** 2 * 8 - 1)            # one 2 × 30 × 30 table does not fit
    net = bbn.learn_structure(wide, method="tan", target="C")
    assert sorted(net.arcs()) == [("C", "X"), ("C", "Y"), ("C", "Z")]
    assert net.statistics_["skipped"] == {"memory": 3} and net.statistics_["pairs"] == 0
    memory_limit(2 * 30 ** 2 * 8)
    net = bbn.learn_structure(wide, method="tan", target="C", estimator="laplace")
    assert len(net.arcs()) == 5 and net.statistics_["skipped"] == {"memory": 0}

"""Decision trees: the course's PlayTennis numbers (EXAMPLES.md §4's data), splits
against brute force, equality with scikit-learn's tree, pruning, and the estimator
protocol."""

from __future__ import annotations

import copy
import itertools
import pickle
from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import DataError, NotFittedError
from bbn.tasks.trees.criteria import entropy, gain, gain_ratio, gini, split_gains, split_information
from bbn.tasks.trees.nodes import leaves
from bbn.tasks.trees.pruning import prune_pessimistic
from bbn.tasks.trees.splitting import KeyedColumns, Settings, best_test

FEATURES = ["outlook", "temperature", "humidity", "windy"]


@pytest.fixture(scope="module")
def tennis(models) -> pd.DataFrame:
    return pd.read_csv(models / "tennis.csv", dtype=str)


def _branches(data: pd.DataFrame, column: str) -> np.ndarray:
    """Class counts (no, yes) of every value of ``column``: the branches of its split."""
    return pd.crosstab(data[column], data["play"]).to_numpy()


# ------------------------------------------------------------------ PlayTennis
def test_tennis_csv_is_the_course_data(tennis, shared):
    text = (shared / "EXAMPLES.md").read_text(encoding="utf-8")
    section = text[text.index("## 4."):text.index("## 5.")]
    rows = [line.strip().split(",") for line in section.splitlines()
            if line.startswith("    ") and line.count(",") == 4]
    assert rows == tennis.to_numpy().tolist()


def test_tennis_entropy_gains_and_gain_ratios(tennis):
    # EXAMPLES.md's figures are those of the course, rounded after rounded entropies
    # (0.940 − 0.694 = 0.246): within 0.001 of the exact values.
    assert entropy(tennis["play"].value_counts().to_numpy()) == pytest.approx(0.940, abs=5e-4)
    expected_gain = {"outlook": 0.246, "humidity": 0.151, "windy": 0.048, "temperature": 0.029}
    expected_ratio = {"outlook": 0.156, "humidity": 0.151, "windy": 0.049, "temperature": 0.019}
    for column in FEATURES:
        branches = _branches(tennis, column)
        assert gain(branches) == pytest.approx(expected_gain[column], abs=1e-3)
        assert gain_ratio(branches) == pytest.approx(expected_ratio[column], abs=1e-3)
        fast_gain, fast_ratio = split_gains(branches, "gain_ratio")
        assert fast_gain == pytest.approx(gain(branches), abs=1e-12)
        assert fast_ratio == pytest.approx(gain_ratio(branches), abs=1e-12)
    # exact: outlook's branches (sunny 2/3, overcast 4/0, rain 3/2 of 14)
    e = lambda *p: -sum(x * np.log2(x) for x in p if x)  # noqa: E731
    exact = e(9 / 14, 5 / 14) - 5 / 14 * e(2 / 5, 3 / 5) - 4 / 14 * 0 - 5 / 14 * e(3 / 5, 2 / 5)
    assert gain(_branches(tennis, "outlook")) == pytest.approx(exact, abs=1e-12)
    assert split_information(np.array([5, 4, 5])) == pytest.approx(e(5 / 14, 4 / 14, 5 / 14))


def test_id3_tree_on_tennis(tennis):
    tree = bbn.DecisionTree().fit(tennis[FEATURES], tennis["play"])
    root = tree.tree_
    assert tree.feature_space_.names[root.test.column] == "outlook"
    assert root.test.gain == pytest.approx(gain(_branches(tennis, "outlook")))
    assert [str(r) for r in tree.rules()] == [
        "IF outlook = overcast THEN yes (yes 4)",
        "IF outlook = rainy AND windy = false THEN yes (yes 3)",
        "IF outlook = rainy AND windy = true THEN no (no 2)",
        "IF outlook = sunny AND humidity = high THEN no (no 3)",
        "IF outlook = sunny AND humidity = normal THEN yes (yes 2)",
    ]
    assert tree.get_depth() == 2 and tree.get_n_leaves() == 5
    assert tree.score(tennis[FEATURES], tennis["play"]) == 1.0
    assert tree.class_name_ == "play"
    assert tree.to_text().splitlines()[1:4] == [
        "outlook = rainy", "|   windy = false: yes (yes 3)", "|   windy = true: no (no 2)"]


def test_gain_ratio_and_gini_trees_on_tennis(tennis):
    ratio = bbn.DecisionTree(criterion="gain_ratio").fit(tennis[FEATURES], tennis["play"])
    assert ratio.tree_.test.score == pytest.approx(gain_ratio(_branches(tennis, "outlook")))
    gini_tree = bbn.DecisionTree(criterion="gini").fit(tennis[FEATURES], tennis["play"])
    counts = _branches(tennis, "outlook")
    expected = gini(counts.sum(axis=0)) - sum(n.sum() / 14 * gini(n) for n in counts)
    assert gini_tree.tree_.test.gain == pytest.approx(expected)


def test_binary_grouping_on_tennis(tennis):
    tree = bbn.DecisionTree(split="binary").fit(tennis[FEATURES], tennis["play"])
    # Every grouping of outlook's 3 values and the 2-valued columns, by brute force:
    best = max(gain(np.stack([_branches(tennis, c)[list(g)].sum(axis=0),
                              _branches(tennis, c)[[i for i in range(len(_branches(tennis, c)))
                                                    if i not in g]].sum(axis=0)]))
               for c in FEATURES for k in (1,) for g in itertools.combinations(
                   range(len(_branches(tennis, c))), k))
    assert tree.tree_.test.gain == pytest.approx(best)
    assert tree.branch_labels(tree.tree_) == ["outlook in {rainy, sunny}", "outlook = overcast"]
    assert all(len(n.children) in (0, 2) for n in tree.nodes())
    assert tree.score(tennis[FEATURES], tennis["play"]) == 1.0


def test_unseen_value_takes_the_node_majority(tennis):
    tree = bbn.DecisionTree().fit(tennis[FEATURES], tennis["play"])
    day = pd.DataFrame([["foggy", "hot", "high", "false"]], columns=FEATURES)
    assert tree.predict(day).tolist() == ["yes"]  # the root's majority: 9 yes of 14
    assert tree.predict_proba(day).tolist() == [[5 / 14, 9 / 14]]
    sunny_odd = pd.DataFrame([["sunny", "hot", "damp", "false"]], columns=FEATURES)
    assert tree.predict_proba(sunny_odd).tolist() == [[3 / 5, 2 / 5]]  # stops at sunny


# -------------------------------------------------------- splits vs brute force
def _brute_threshold(x: np.ndarray, y: np.ndarray, criterion: str) -> float:
    best = -np.inf
    for v in np.unique(x)[:-1]:
        left, right = y[x <= v], y[x > v]
        branches = np.array([np.bincount(left, minlength=3), np.bincount(right, minlength=3)])
        value = gain_ratio(branches) if criterion == "gain_ratio" else gain(branches, criterion)
        best = max(best, float(value))
    return best


@pytest.mark.parametrize("criterion", ["entropy", "gini", "gain_ratio"])
def test_best_threshold_is_the_best_cut(criterion):
    rng = np.random.default_rng(7)
    for _ in range(20):
        x = rng.integers(0, 8, size=(30, 3)).astype(float)
        y = rng.integers(0, 3, size=30)
        keyed = KeyedColumns.build(np.zeros((30, 0), dtype=np.int32), x, ("continuous",) * 3)
        test = best_test(keyed, np.arange(30), y, 3, Settings(criterion))
        brute = max(_brute_threshold(x[:, j], y, criterion) for j in range(3))
        assert test.score == pytest.approx(brute, abs=1e-12)
        column = x[:, test.column]
        assert _brute_threshold(column, y, criterion) == pytest.approx(test.score, abs=1e-12)
        assert column[column <= test.threshold].max() < test.threshold < column[
            column > test.threshold].min()


@pytest.mark.parametrize("n_classes", [2, 3])
def test_best_grouping_is_the_best_of_every_grouping(n_classes):
    rng = np.random.default_rng(3)
    for _ in range(20):
        codes = rng.integers(0, 6, size=(60, 1)).astype(np.int32)
        y = rng.integers(0, n_classes, size=60)
        keyed = KeyedColumns.build(codes, np.zeros((60, 0)), ("categorical",))
        test = best_test(keyed, np.arange(60), y, n_classes, Settings(split="binary"))
        counts = np.zeros((6, n_classes), dtype=int)
        np.add.at(counts, (codes[:, 0], y), 1)
        values = [v for v in range(6) if counts[v].any()]
        brute = max(float(gain(np.array([counts[list(g)].sum(axis=0),
                                          counts[[v for v in values if v not in g]].sum(axis=0)])))
                    for k in range(1, len(values)) for g in itertools.combinations(values, k))
        assert test.gain == pytest.approx(brute, abs=1e-12)  # Breiman's order for 2 classes


def test_multiway_split_has_one_branch_per_value_present():
    codes = np.array([[0], [2], [2], [3]], dtype=np.int32)
    keyed = KeyedColumns.build(codes, np.zeros((4, 0)), ("categorical",))
    test = best_test(keyed, np.arange(4), np.array([0, 1, 1, 0]), 2, Settings())
    assert test.branches == (0, -1, 1, 2)  # value 1 absent: no branch


# ------------------------------------------------------ equal to scikit-learn
def _compare_with_sklearn(ours, theirs, X, y):
    """Walk both trees together; where the tests differ, both must have the same gain (a
    tie, broken differently). Returns (identical inner nodes, ties)."""
    from bbn.tasks.trees.criteria import gain as gain_of

    tree = theirs.tree_
    same = ties = 0
    stack = [(ours.tree_, 0, np.arange(len(y)))]
    while stack:
        node, k, rows = stack.pop()
        assert (tree.children_left[k] == -1) == node.is_leaf
        assert np.array_equal(node.counts, np.bincount(y[rows], minlength=len(node.counts)))
        if node.is_leaf:
            continue
        f, t = tree.feature[k], tree.threshold[k]
        left = X[rows, f] <= t
        theirs_gain = gain_of(np.array([np.bincount(y[rows][left], minlength=len(node.counts)),
                                        np.bincount(y[rows][~left],
                                                    minlength=len(node.counts))]))
        if node.test.column == f and node.test.threshold == pytest.approx(t, abs=1e-6):
            same += 1
            stack.append((node.children[0], tree.children_left[k], rows[left]))
            stack.append((node.children[1], tree.children_right[k], rows[~left]))
        else:
            assert node.test.gain == pytest.approx(theirs_gain, abs=1e-9)
            ties += 1
    return same, ties


@pytest.mark.parametrize("max_depth", [None, 2, 4])
def test_iris_predictions_equal_sklearns(max_depth):
    sklearn = pytest.importorskip("sklearn")  # noqa: F841
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:110], order[110:]
    ours = bbn.DecisionTree(split="binary", max_depth=max_depth).fit(X[train], y[train])
    theirs = DecisionTreeClassifier(criterion="entropy", max_depth=max_depth,
                                    random_state=0).fit(X[train], y[train])
    assert np.array_equal(ours.predict(X[test]), theirs.predict(X[test]))
    assert np.array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    same, ties = _compare_with_sklearn(ours, theirs, X[train], y[train])
    assert ties <= 1  # the root: petal length and petal width both set setosa apart


@pytest.mark.parametrize("max_depth", [None, 3, 8])
def test_digits_trees_equal_sklearns_up_to_ties(max_depth):
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_digits
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_digits(return_X_y=True)
    ours = bbn.DecisionTree(split="binary", max_depth=max_depth).fit(X[:1400], y[:1400])
    theirs = DecisionTreeClassifier(criterion="entropy", max_depth=max_depth,
                                    random_state=0).fit(X[:1400], y[:1400])
    same, ties = _compare_with_sklearn(ours, theirs, X[:1400], y[:1400])
    assert same >= 7 and ties <= same  # every differing test is an equal-gain tie
    if max_depth == 3:  # no tie in the first levels: the same tree
        assert ties == 0
        assert np.array_equal(ours.predict(X[1400:]), theirs.predict(X[1400:]))
    accuracy = ours.score(X[1400:], y[1400:])
    assert abs(accuracy - theirs.score(X[1400:], y[1400:])) <= 0.03


# ------------------------------------------------------------------ pruning
@pytest.fixture(scope="module")
def noisy_digits():
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    noisy = y.copy()
    flip = rng.random(len(y)) < 0.2  # 20 % of the labels replaced by random digits
    noisy[flip] = rng.integers(0, 10, flip.sum())
    return X[order[:1200]], noisy[order[:1200]], X[order[1200:]], y[order[1200:]]


@pytest.fixture(scope="module")
def grown_noisy(noisy_digits):
    X, y, _, _ = noisy_digits
    return bbn.DecisionTree(split="binary").fit(X, y)


@pytest.mark.parametrize("settings", [dict(pruning="pessimistic"),
                                      dict(pruning="validation", random_state=0)])
def test_pruning_reduces_leaves_and_keeps_accuracy(noisy_digits, grown_noisy, settings):
    pytest.importorskip("sklearn")
    X, y, X_test, y_test = noisy_digits
    grown = grown_noisy
    pruned = bbn.DecisionTree(split="binary", **settings).fit(X, y)
    assert pruned.get_n_leaves() < grown.get_n_leaves()
    assert pruned.score(X_test, y_test) >= grown.score(X_test, y_test) - 0.01


def test_penalty_moves_the_size_monotonically(grown_noisy):
    pytest.importorskip("sklearn")
    grown = grown_noisy.tree_
    sizes = []
    for k in (0, 0.5, 1, 2, 4, 8, 1000):
        root = copy.deepcopy(grown)
        prune_pessimistic(root, k)  # what fit(pruning="pessimistic", penalty=k) does
        sizes.append(len(leaves(root)))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-2] > sizes[-1] == 1


def test_pessimistic_pruning_by_hand():
    # x0 ≤ 0.5: 5 a / 1 b; else 1 a / 3 b. Unpruned: e = 2, N = 2; as a leaf: e = 4, N = 1.
    X = np.array([[0.0]] * 6 + [[1.0]] * 4)
    y = np.array(list("aaaaab") + list("abbb"))
    kept = bbn.DecisionTree(max_depth=1, pruning="pessimistic", penalty=1.5).fit(X, y)
    assert kept.get_n_leaves() == 2  # 4 + 1.5 > 2 + 3
    cut = bbn.DecisionTree(max_depth=1, pruning="pessimistic", penalty=2.0).fit(X, y)
    assert cut.get_n_leaves() == 1  # 4 + 2 ≤ 2 + 4


# ------------------------------------------------------------------ stopping
def test_stopping_rules(tennis):
    X, y = tennis[FEATURES], tennis["play"]
    assert bbn.DecisionTree(max_depth=1).fit(X, y).get_depth() == 1
    assert bbn.DecisionTree(max_depth=0).fit(X, y).get_n_leaves() == 1
    # the sunny and rainy nodes have 5 rows each: not split below 6
    assert bbn.DecisionTree(min_samples_split=6).fit(X, y).get_n_leaves() == 3
    # the outlook gain 0.247 is the only one above 0.3? none: no split at all
    assert bbn.DecisionTree(min_gain=0.3).fit(X, y).get_n_leaves() == 1
    assert bbn.DecisionTree(min_gain=0.2).fit(X, y).get_n_leaves() == 5


def test_identical_feature_vectors_make_a_leaf():
    tree = bbn.DecisionTree().fit([["a"], ["a"], ["a"]], ["x", "y", "y"])
    assert tree.get_n_leaves() == 1 and tree.predict([["a"]]).tolist() == ["y"]


# ---------------------------------------------------------------- missing
def test_missing_values_are_an_error_by_default():
    with pytest.raises(DataError, match=r"column 'x1', row 1.*missing='stop'"):
        bbn.DecisionTree().fit([[1.0, 2.0], [2.0, np.nan]], ["a", "b"])


def test_missing_stop_policy():
    X = pd.DataFrame({"c": ["p", "p", "q", "q", None, None], "n": [1.0] * 6})
    y = ["a", "a", "b", "b", "b", "b"]
    tree = bbn.DecisionTree(missing="stop").fit(X, y)
    root = tree.tree_
    # gain on the 4 rows with a value (1 bit), times their share 4/6
    assert root.test.gain == pytest.approx(4 / 6)
    assert [c.counts.tolist() for c in root.children] == [[2, 0], [0, 2]]
    assert tree.predict_proba(pd.DataFrame({"c": [None], "n": [1.0]})).tolist() == [
        [1 / 3, 2 / 3]]  # stops at the root


# ---------------------------------------------------------- estimator protocol
def test_scikit_learn_protocol(tennis):
    from sklearn.base import clone

    tree = bbn.DecisionTree(criterion="gini", max_depth=3)
    assert tree.get_params()["criterion"] == "gini"
    assert tree.set_params(split="binary").split == "binary"
    assert repr(tree) == "DecisionTree(criterion='gini', split='binary', max_depth=3)"
    copy = clone(tree)
    assert copy.get_params() == tree.get_params() and not hasattr(copy, "tree_")
    tree.fit(tennis[FEATURES], tennis["play"])
    assert tree.feature_names_in_.tolist() == FEATURES and tree.n_features_in_ == 4
    again = pickle.loads(pickle.dumps(tree))
    assert np.array_equal(again.predict_proba(tennis[FEATURES]),
                          tree.predict_proba(tennis[FEATURES]))
    shuffled = tennis[FEATURES[::-1]]  # columns matched by name
    assert np.array_equal(tree.predict(shuffled), tree.predict(tennis[FEATURES]))
    with pytest.raises(NotFittedError):
        bbn.DecisionTree().predict([[1]])
    with pytest.raises(ValueError, match="invalid parameter 'criterion2'"):
        tree.set_params(criterion2="x")


@pytest.mark.parametrize("settings, message", [
    (dict(criterion="entropie"), "did you mean 'entropy'"),
    (dict(split="binar"), "did you mean 'binary'"),
    (dict(pruning="pessimist"), "did you mean 'pessimistic'"),
    (dict(max_depth=-1), "max_depth"),
    (dict(min_samples_split=1), "min_samples_split"),
    (dict(min_gain=-0.1), "min_gain"),
    (dict(penalty=-1), "penalty"),
    (dict(validation_fraction=1.0), "validation_fraction"),
    (dict(missing="skip"), "missing must be one of"),
    (dict(features="numbers"), "unknown feature kind"),
])
def test_bad_settings_name_the_option(settings, message):
    with pytest.raises(DataError, match=message):
        bbn.DecisionTree(**settings).fit([[1.0], [2.0]], ["a", "b"])


def test_bad_input_at_predict(tennis):
    tree = bbn.DecisionTree().fit(tennis[FEATURES], tennis["play"])
    with pytest.raises(DataError, match="X has no column 'windy'.*did you mean 'windi'"):
        tree.predict(tennis[FEATURES[:3]].rename(columns={}).assign(windi="true"))
    with pytest.raises(DataError, match="X has 2 features, but DecisionTree is expecting 4"):
        tree.predict(np.array([["sunny", "hot"]], dtype=object))
    with pytest.raises(DataError, match="is not a number"):
        bbn.DecisionTree(features="continuous").fit(tennis[FEATURES], tennis["play"])


def test_continuous_and_categorical_columns_together():
    X = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "red", "blue"],
                      "size": [1.0, 5.0, 1.0, 5.0, 2.0, 6.0]})
    y = ["s", "l", "s", "l", "s", "l"]
    tree = bbn.DecisionTree().fit(X, y)
    assert tree.feature_space_.kinds == ("categorical", "continuous")
    assert tree.branch_labels(tree.tree_) == ["size <= 3.5", "size > 3.5"]
    forced = bbn.DecisionTree(features={"size": "categorical"}).fit(X, y)
    assert forced.feature_space_.kinds == ("categorical", "categorical")
    assert forced.tree_.test.n_branches == 4  # one per size: 1, 2, 5, 6


# ------------------------------------------------- files, pictures, the command
def test_saved_tree_predicts_as_the_fitted_one(tennis, tmp_path):
    X = tennis[FEATURES].assign(temp=np.linspace(10, 30, 14))
    tree = bbn.DecisionTree(split="binary", criterion="gain_ratio").fit(X, tennis["play"])
    for name in ("tree.json", "tree.json.gz"):
        tree.save(tmp_path / name)
        again = bbn.load_tree(tmp_path / name)
        assert again.get_params() == tree.get_params()
        assert again.to_text() == tree.to_text()
        assert np.array_equal(again.predict_proba(X), tree.predict_proba(X))
        assert again.feature_names_in_.tolist() == X.columns.tolist()


def test_bad_tree_files_name_the_problem(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "bbn decision tree",\n "version": 1, }')
    with pytest.raises(DataError, match=r"broken.json:2:16: not JSON"):
        bbn.load_tree(broken)
    other = tmp_path / "other.json"
    other.write_text('{"nodes": []}')
    with pytest.raises(DataError, match="not a saved decision tree"):
        bbn.load_tree(other)
    with pytest.raises(NotFittedError):
        bbn.DecisionTree().save(tmp_path / "unfitted.json")
    assert not (tmp_path / "unfitted.json").exists()


def test_render_draws_every_node_with_counts_and_entropy(tennis, tmp_path):
    tree = bbn.DecisionTree().fit(tennis[FEATURES], tennis["play"])
    graph = bbn.render(tree, tmp_path / "tree.gv")
    source = (tmp_path / "tree.gv").read_text()
    assert source == graph.source
    assert source.count("->") == len(tree.nodes()) - 1 == 7
    assert "no 5, yes 9" in source and "entropy 0.940" in source  # the root
    assert source.count("entropy 0.971") == 2 and source.count("entropy 0.000") == 5
    assert 'label="= overcast"' in source


class _Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys):
    """``bbn ARGS`` in this process: its exit code and output."""
    def run(*args) -> _Done:
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return _Done(code, out, err)
    return run


def test_command_prints_the_tree_and_saves_it_for_classify(run, models, tmp_path):
    saved = tmp_path / "tennis.json"
    done = run("tree", models / "tennis.csv", "--target", "play", "-o", saved)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "outlook = overcast: yes (yes 4)"
    assert "5 leaves, depth 2; training accuracy 1.000000 (14/14)" in lines
    classified = run("classify", saved, models / "tennis.csv", "--target", "play")
    assert classified.returncode == 0, classified.stderr
    rows = classified.stdout.splitlines()
    assert rows[0] == "predicted,P(play=no),P(play=yes)" and rows[1] == "no,1,0"
    assert "accuracy 1.000000 (14/14)" in classified.stderr


def test_command_reads_number_columns_as_continuous(run, tmp_path):
    data = tmp_path / "sizes.csv"
    data.write_text("size,colour,label\n1,red,s\n2,red,s\n8,blue,l\n9,red,l\n")
    done = run("tree", data, "--target", "label")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["size <= 5: s (s 2)", "size > 5: l (l 2)"]
    kept = run("tree", data, "--target", "label", "--categorical", "size")
    assert kept.stdout.splitlines()[0] == "size = 1: s (s 1)"


def test_command_errors_exit_2_without_traceback(run, models, tmp_path):
    done = run("tree", models / "tennis.csv", "--target", "plya")
    assert done.returncode == 2 and "did you mean 'play'" in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(SystemExit):  # argparse: usage error, exit 2
        run("tree", models / "tennis.csv", "--target", "play", "--criterion", "entropie")
    saved = tmp_path / "t.json"
    run("tree", models / "tennis.csv", "--target", "play", "-o", saved)
    wrong = run("classify", saved, models / "tennis.csv", "--target", "windy")
    assert wrong.returncode == 2 and "predicts 'play', not 'windy'" in wrong.stderr


@pytest.mark.parametrize("criterion", ["entropy", "gini", "gain_ratio"])
def test_level_at_once_finds_the_node_by_node_tests(criterion):
    from bbn.tasks.trees.splitting import best_tests

    rng = np.random.default_rng(11)
    codes = rng.integers(0, 4, size=(80, 2)).astype(np.int32)
    numbers = np.column_stack([rng.integers(0, 9, 80), rng.normal(size=80)])
    keyed = KeyedColumns.build(codes, numbers, ("categorical", "continuous",
                                                "categorical", "continuous"))
    y = rng.integers(0, 3, size=80)
    nodes = [np.arange(80), np.arange(0, 80, 2), np.arange(10, 30), np.array([5, 6])]
    together = best_tests(keyed, nodes, y, 3, Settings(criterion))
    for rows, test in zip(nodes, together, strict=True):
        alone = best_test(keyed, rows, y[rows], 3, Settings(criterion))
        if alone is None:
            assert test is None
            continue
        assert test.score == pytest.approx(alone.score, abs=1e-12)
        assert test.gain == pytest.approx(alone.gain, abs=1e-12)


def test_validation_pruning_by_hand():
    from bbn.tasks.trees.nodes import Node, Test
    from bbn.tasks.trees.pruning import prune_on_validation

    # x ≤ 0.5 → leaf (5 a, 1 b), else leaf (1 a, 3 b); the node's majority is a (6 of 10).
    left, right = Node(np.array([5, 1]), 1), Node(np.array([1, 3]), 1)
    root = Node(np.array([6, 4]), 0, Test(0, threshold=0.5), [left, right])
    # held-out rows: 2 a + 0 b reach the left leaf, 2 a + 1 b the right one
    reached = {id(root): np.array([4, 1]), id(left): np.array([2, 0]),
               id(right): np.array([2, 1])}
    prune_on_validation(root, reached)  # subtree: 0 + 2 errors; as a leaf (a): 1 error
    assert root.is_leaf
    kept = Node(np.array([6, 4]), 0, Test(0, threshold=0.5),
                [Node(np.array([5, 1]), 1), Node(np.array([1, 3]), 1)])
    reached = {id(kept): np.array([2, 3]), id(kept.children[0]): np.array([2, 0]),
               id(kept.children[1]): np.array([0, 3])}
    prune_on_validation(kept, reached)  # subtree: 0 errors; as a leaf: 3
    assert not kept.is_leaf


def test_missing_continuous_value_stops_at_the_node():
    X = np.array([[1.0], [2.0], [8.0], [9.0], [np.nan]])
    tree = bbn.DecisionTree(missing="stop").fit(X, ["s", "s", "l", "l", "l"])
    assert tree.tree_.test.threshold == 5.0
    assert tree.tree_.test.gain == pytest.approx(4 / 5)  # 1 bit on 4 of the 5 rows
    assert tree.predict_proba([[np.nan], [0.0]]).tolist() == [[3 / 5, 2 / 5], [0.0, 1.0]]

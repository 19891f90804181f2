"""``DecisionTree``: greedy top-down induction, as the course teaches it (ID3, C4.5, CART).

At every node the test that maximises the criterion is chosen (:mod:`bbn.tasks.trees.splitting`)

    entropy:     Δ = E(t) − Σ_j (n_j / n) E(j),   E(t) = −Σ_c P(c; t) log₂ P(c; t)
    gain_ratio:  Δ / SplitINFO,                  SplitINFO = −Σ_j (n_j / n) log₂ (n_j / n)
    gini:        Δ with G(t) = 1 − Σ_c P(c; t)²

on categorical columns one branch per value (``split="multiway"``, ID3) or the best two
groups of values (``split="binary"``), on continuous columns the best threshold x ≤ v.
Growth stops at pure nodes, identical feature vectors, ``max_depth``,
``min_samples_split`` and ``min_gain`` (pre-pruning); ``pruning`` then cuts subtrees
bottom-up (:mod:`bbn.tasks.trees.pruning`). A leaf predicts P(c | x) = n(c, leaf) / n(leaf).

>>> import pandas as pd
>>> X = pd.DataFrame({"outlook": ["sunny", "sunny", "rain", "overcast"],
...                   "windy": ["no", "yes", "yes", "no"]})
>>> tree = DecisionTree().fit(X, pd.Series(["no", "no", "no", "yes"], name="play"))
>>> print(tree.to_text())
outlook = overcast: yes (yes 1)
outlook = rain: no (no 1)
outlook = sunny: no (no 2)

ID3 on PlayTennis (walked through, gain by gain, in ``docs/trees.md``):

>>> data = pd.read_csv("models/tennis.csv")
>>> print(DecisionTree().fit(data.drop(columns="play"), data["play"]).to_text())
outlook = overcast: yes (yes 4)
outlook = rainy
|   windy = false: yes (yes 3)
|   windy = true: no (no 2)
outlook = sunny
|   humidity = high: no (no 3)
|   humidity = normal: yes (yes 2)
"""

from __future__ import annotations

import html
from typing import NamedTuple

import numpy as np

import bbn.core.pictures as pictures
from bbn.core.errors import DataError, suggest
from bbn.tasks.classification.base import Classifier, check_labels, class_codes
from bbn.tasks.trees.criteria import check_criterion, impurity
from bbn.tasks.trees.features import check_missing, read_features
from bbn.tasks.trees.files import read_tree, save_tree
from bbn.tasks.trees.growing import Stopping, grow
from bbn.tasks.trees.nodes import Node, leaves, route, walk
from bbn.tasks.trees.pruning import check_pruning, prune_on_validation, prune_pessimistic
from bbn.tasks.trees.splitting import SPLITS, KeyedColumns, Settings


class Rule(NamedTuple):
    """One path from the root to a leaf: IF conditions THEN class.

    Attributes
    ----------
    conditions : tuple of str
        The tests on the path, in order (``"outlook = sunny"``, ``"x3 <= 2.45"``).
    label : object
        The predicted class (the leaf's majority).
    counts : dict
        The training rows of every class at the leaf (classes with none left out).
    """

    conditions: tuple[str, ...]
    label: object
    counts: dict

    def __str__(self) -> str:
        condition = " AND ".join(self.conditions) or "TRUE"
        return f"IF {condition} THEN {self.label} ({_counts_text(self.counts)})"


class DecisionTree(Classifier):
    """A decision tree classifier: entropy, gain ratio or Gini; multi-way, grouped or
    threshold splits; pre- and post-pruning.

    scikit-learn compatible (``fit``, ``predict``, ``predict_proba``, ``score``,
    ``classes_``, ``get_params``/``set_params``, clone-able, picklable) without importing
    it. The constructor stores its arguments as given; ``fit`` checks them.

    Parameters
    ----------
    criterion : {"entropy", "gain_ratio", "gini"}, default "entropy"
        What a test maximises: the information gain, the gain ratio Δ / SplitINFO, or the
        decrease of the Gini index.
    split : {"multiway", "binary"}, default "multiway"
        Categorical columns: one branch per value present at the node (ID3), or the
        best grouping of the values into two branches. Continuous columns always split
        by a threshold x ≤ v.
    max_depth : int, optional
        Nodes at this depth are leaves (the root is at depth 0).
    min_samples_split : int, default 2
        Nodes with fewer training rows are leaves.
    min_gain : float, default 0.0
        A node is split only if its best test's gain Δ is at least this (also for
        ``gain_ratio``, which ranks the tests).
    pruning : {None, "pessimistic", "validation"}, default None
        Post-pruning: Occam's penalty e(T) + N × ``penalty`` on the training rows, or the
        errors on ``validation_fraction`` of the training rows held out from growing.
    penalty : float, default 0.5
        k, the cost of a leaf in misclassified rows (``pruning="pessimistic"``).
    validation_fraction : float, default 0.25
        The share of training rows held out (``pruning="validation"``).
    random_state : int, optional
        Seeds the choice of the held-out rows.
    features : None, str, mapping or list, default None
        The kind of every column, ``"categorical"`` or ``"continuous"``: one for all,
        ``{column: kind}`` or a list; by default columns of numbers are continuous and
        the others categorical.
    missing : {"error", "stop"}, default "error"
        A missing value is an error; or (``"stop"``) a column's gain is computed on the
        rows that have a value, times their fraction (C4.5), those without stay at the
        node, and at prediction a row stops where its value is missing.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The class labels, sorted.
    tree_ : Node
        The root of the fitted tree (:mod:`bbn.tasks.trees.nodes`).
    feature_space_ : FeatureSpace
        The columns' names, kinds and categorical states.
    class_name_ : str
        The class's name (``y.name``, else ``"class"``).
    n_features_in_, feature_names_in_
        The columns seen by ``fit`` (as scikit-learn).

    Notes
    -----
    A categorical value that no training row at a node had (a value unseen at
    prediction, or seen elsewhere in the tree) has no branch: the row stops there and the
    node's class counts predict, its majority class. Ties between tests go to the
    leftmost column, then to the lowest threshold; ties between classes to the first in
    ``classes_``.

    Examples
    --------
    >>> import bbn
    >>> tree = bbn.DecisionTree(max_depth=1).fit([[1.0], [2.0], [3.0]], ["a", "a", "b"])
    >>> tree.predict([[1.5], [2.8]]).tolist(), tree.get_n_leaves()
    (['a', 'b'], 2)
    """

    def __init__(self, criterion: str = "entropy", split: str = "multiway",
                 max_depth: int | None = None, min_samples_split: int = 2,
                 min_gain: float = 0.0, pruning: str | None = None, penalty: float = 0.5,
                 validation_fraction: float = 0.25, random_state: int | None = None,
                 features=None, missing: str = "error"):
        self.criterion = criterion
        self.split = split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.pruning = pruning
        self.penalty = penalty
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.features = features
        self.missing = missing

    # -------------------------------------------------------------- fitting
    def fit(self, X, y) -> DecisionTree:
        """Grow the tree on rows X with labels y, then prune it (``pruning``).

        Parameters
        ----------
        X : DataFrame or array-like, shape (rows, columns)
            The training rows (columns named by a DataFrame, else ``x0, x1, ...``).
        y : array-like
            One class label per row: texts, booleans or whole numbers, none missing.

        Returns
        -------
        DecisionTree
            ``self``, fitted.

        Raises
        ------
        DataError
            For a bad setting, X without rows or columns, a missing value (unless
            ``missing="stop"``), or labels that are missing, continuous or not one per row.

        Examples
        --------
        >>> import bbn
        >>> bbn.DecisionTree().fit([["a"], ["b"]], ["x", "y"]).get_depth()
        1
        """
        stopping, settings = self._settings()
        space, coded = read_features(X, self.features, self.missing)
        labels = check_labels(y, coded.n_rows)
        self.classes_, y_codes = class_codes(labels)
        keyed = KeyedColumns.build(coded.codes, coded.numbers, space.kinds)
        n_classes = len(self.classes_)
        rows = held_out = None
        if self.pruning == "validation":
            rows, held_out = self._hold_out(len(y_codes))
        root = grow(keyed, y_codes, n_classes, stopping, settings, rows)
        if self.pruning == "pessimistic":
            prune_pessimistic(root, float(self.penalty))
        elif self.pruning == "validation":
            reached: dict[int, np.ndarray] = {}
            codes, numbers = coded.codes[held_out], coded.numbers[held_out]
            y_held = y_codes[held_out]
            route(root, codes, numbers, space.position,
                  visit=lambda node, r: reached.__setitem__(
                      id(node), np.bincount(y_held[r], minlength=n_classes)))
            prune_on_validation(root, reached)
        self.tree_ = root
        self.feature_space_ = space
        self.n_features_in_ = len(space.names)
        if space.named and all(isinstance(c, str) for c in X.columns):  # as scikit-learn
            self.feature_names_in_ = np.array(space.names, dtype=object)
        else:
            vars(self).pop("feature_names_in_", None)  # from an earlier fit
        name = getattr(y, "name", None)
        self.class_name_ = name if isinstance(name, str) else "class"
        return self

    def _settings(self) -> tuple[Stopping, Settings]:
        """The parameters, checked once."""
        criterion = check_criterion(self.criterion)
        if self.split not in SPLITS:
            raise DataError(f"unknown split {self.split!r}; the splits are "
                            f"{', '.join(SPLITS)}{suggest(str(self.split), SPLITS)}")
        depth, least, min_gain = self.max_depth, self.min_samples_split, self.min_gain
        if depth is not None and (isinstance(depth, bool) or not isinstance(
                depth, (int, np.integer)) or depth < 0):
            raise DataError(f"max_depth must be None or an integer ≥ 0, got {depth!r}")
        if isinstance(least, bool) or not isinstance(least, (int, np.integer)) or least < 2:
            raise DataError(f"min_samples_split must be an integer ≥ 2, got {least!r}")
        if isinstance(min_gain, bool) or not isinstance(min_gain, (int, float)) or not (
                min_gain >= 0):
            raise DataError(f"min_gain must be a number ≥ 0, got {min_gain!r}")
        check_pruning(self.pruning, self.penalty, self.validation_fraction)
        missing = check_missing(self.missing)
        return (Stopping(depth, int(least), float(min_gain)),
                Settings(criterion, self.split, weigh_known=missing == "stop"))

    def _hold_out(self, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows to grow on and the rows held out for validation pruning (seeded)."""
        held = int(round(self.validation_fraction * n_rows))
        if held < 1 or held >= n_rows:
            raise DataError(f"validation_fraction={self.validation_fraction} of n_samples="
                            f"{n_rows} rows leaves no rows to validate on or none to grow on")
        order = np.random.default_rng(self.random_state).permutation(n_rows)
        return np.sort(order[held:]), np.sort(order[:held])

    def _input_tags(self) -> dict:
        return dict(categorical=True, string=True, allow_nan=self.missing == "stop",
                    sparse=False)

    # ----------------------------------------------------------- predicting
    def _check_fitted(self) -> None:
        if not hasattr(self, "tree_"):
            raise self._not_fitted()

    def apply(self, X) -> np.ndarray:
        """The number of the node where every row stops (a leaf, or an inner node whose
        column it has no branch for): its index in :meth:`nodes`.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray of int

        Raises
        ------
        NotFittedError
            Before ``fit``.
        DataError
            For a missing column, or a missing value under ``missing="error"``.

        Examples
        --------
        >>> import bbn
        >>> bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"]).apply([[0.0], [5.0]]).tolist()
        [1, 2]
        """
        self._check_fitted()
        space = self.feature_space_
        coded = space.code(X, self.missing, type(self).__name__)
        return route(self.tree_, coded.codes, coded.numbers, space.position)

    def nodes(self) -> list[Node]:
        """Every node, parents before children (the numbering of :meth:`apply`).

        Returns
        -------
        list of Node

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> len(bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"]).nodes())
        3
        """
        self._check_fitted()
        return list(walk(self.tree_))

    def predict_proba(self, X) -> np.ndarray:
        """P(c | x) = n(c, node) / n(node) at the node where every row stops.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray, shape (rows, classes)

        Raises
        ------
        NotFittedError, DataError
            As :meth:`apply`.

        Examples
        --------
        >>> import bbn
        >>> tree = bbn.DecisionTree(max_depth=0).fit([[1], [2], [3]], ["a", "b", "b"])
        >>> tree.predict_proba([[1]]).round(3).tolist()
        [[0.333, 0.667]]
        """
        stopped = self.apply(X)
        counts = np.array([n.counts for n in walk(self.tree_)], dtype=float)
        return (counts / counts.sum(axis=1, keepdims=True))[stopped]

    def predict(self, X) -> np.ndarray:
        """The majority class of the node where every row stops.

        Parameters
        ----------
        X : DataFrame or array-like
            Rows with the columns ``fit`` saw.

        Returns
        -------
        numpy.ndarray
            One label of ``classes_`` per row.

        Raises
        ------
        NotFittedError, DataError
            As :meth:`apply`.

        Examples
        --------
        >>> import bbn
        >>> bbn.DecisionTree().fit([["a"], ["b"]], ["x", "y"]).predict([["b"]]).tolist()
        ['y']
        """
        chosen = np.argmax(self.predict_proba(X), axis=1)  # raises NotFittedError first
        return self.classes_[chosen]

    # ------------------------------------------------------------- reading
    def get_depth(self) -> int:
        """The depth of the deepest leaf (0: the root is a leaf).

        Returns
        -------
        int

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "a"]).get_depth()
        2
        """
        return max(n.depth for n in self.nodes())

    def get_n_leaves(self) -> int:
        """The number of leaves N.

        Returns
        -------
        int

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "a"]).get_n_leaves()
        3
        """
        self._check_fitted()
        return len(leaves(self.tree_))

    def impurity(self, node: Node) -> float:
        """The node's impurity under the criterion: entropy (Gini for ``"gini"``).

        Parameters
        ----------
        node : Node

        Returns
        -------
        float

        Examples
        --------
        >>> import bbn
        >>> tree = bbn.DecisionTree(max_depth=0).fit([[1], [2]], ["a", "b"])
        >>> tree.impurity(tree.tree_)
        1.0
        """
        return float(impurity(node.counts, self.criterion))

    def branch_labels(self, node: Node) -> list[str]:
        """The condition of every branch of an inner node, as text: ``"outlook = sunny"``,
        ``"outlook in {rain, sunny}"``, ``"x3 <= 2.45"``, ``"x3 > 2.45"``.

        Parameters
        ----------
        node : Node
            An inner node of this tree.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import bbn
        >>> tree = bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"])
        >>> tree.branch_labels(tree.tree_)
        ['x0 <= 1.5', 'x0 > 1.5']
        """
        test, space = node.test, self.feature_space_
        name = space.names[test.column]
        if test.branches is None:
            return [f"{name} <= {test.threshold:.6g}", f"{name} > {test.threshold:.6g}"]
        states = space.column_states[test.column]
        labels = []
        for b in range(test.n_branches):
            values = [s for s, branch in zip(states, test.branches, strict=True) if branch == b]
            labels.append(f"{name} = {values[0]}" if len(values) == 1
                          else f"{name} in {{{', '.join(values)}}}")
        return labels

    def to_text(self) -> str:
        """The tree as an indented rule listing: one line per branch, ``|`` per level,
        a leaf's line ends in its class and its training counts per class.

        Returns
        -------
        str

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> print(bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "b"]).to_text())
        x0 <= 1.5: a (a 1)
        x0 > 1.5: b (b 2)
        """
        self._check_fitted()
        if self.tree_.is_leaf:
            return f"{self._leaf_text(self.tree_)}"
        lines: list[str] = []
        stack = self._branches(self.tree_, 0)
        while stack:
            label, child, level = stack.pop()
            text = "|   " * level + label
            if child.is_leaf:
                lines.append(f"{text}: {self._leaf_text(child)}")
            else:
                lines.append(text)
                stack.extend(self._branches(child, level + 1))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """What Jupyter shows: the tree's picture when Graphviz's ``dot`` draws it (lent
        by the package top, :mod:`bbn.core.pictures`), else :meth:`to_text`; the
        parameters before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> page = bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "b"])._repr_html_()
        >>> "x0" in page
        True
        """
        if not hasattr(self, "tree_"):
            return f"<pre>{html.escape(repr(self))}</pre>"
        svg = pictures.picture("tree", self)
        return svg if svg is not None else f"<pre>{html.escape(self.to_text())}</pre>"

    def _branches(self, node: Node, level: int) -> list[tuple[str, Node, int]]:
        """(condition, child, level) of every branch, last first (for a stack)."""
        return [(label, child, level) for label, child in
                reversed(list(zip(self.branch_labels(node), node.children, strict=True)))]

    def rules(self) -> list[Rule]:
        """One rule per leaf, left to right: the conditions on its path, its class and
        counts (``str(rule)``: IF ... THEN ...).

        Returns
        -------
        list of Rule

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import bbn
        >>> tree = bbn.DecisionTree().fit([[1], [2], [3]], ["a", "b", "b"])
        >>> [str(r) for r in tree.rules()]
        ['IF x0 <= 1.5 THEN a (a 1)', 'IF x0 > 1.5 THEN b (b 2)']
        """
        self._check_fitted()
        found: list[Rule] = []
        stack: list[tuple[Node, tuple[str, ...]]] = [(self.tree_, ())]
        while stack:
            node, conditions = stack.pop()
            if node.is_leaf:
                found.append(Rule(conditions, self.classes_[node.majority],
                                  self._counts(node)))
                continue
            stack.extend((child, (*conditions, label))
                         for label, child, _ in self._branches(node, 0))
        return found

    def save(self, path) -> None:
        """Write the fitted tree to a JSON file, atomically (see :mod:`bbn.tasks.trees.files`;
        :func:`bbn.load_tree` reads it back, ``bbn classify`` classifies with it).

        Parameters
        ----------
        path : str or os.PathLike
            The file (``.gz``: gzipped).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        DataError
            When the file cannot be written.

        Examples
        --------
        >>> import bbn, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "tree.json")
        >>> bbn.DecisionTree().fit([["a"], ["b"]], ["x", "y"]).save(path)
        >>> print(bbn.load_tree(path).to_text())
        x0 = a: x (x 1)
        x0 = b: y (y 1)
        """
        save_tree(self, path)

    def _counts(self, node: Node) -> dict:
        return {c: int(n) for c, n in zip(self.classes_, node.counts, strict=True) if n}

    def _leaf_text(self, node: Node) -> str:
        return f"{self.classes_[node.majority]} ({_counts_text(self._counts(node))})"


def load_tree(path) -> DecisionTree:
    """A decision tree saved by ``DecisionTree.save`` (a JSON file, see
    :mod:`bbn.tasks.trees.files`), fitted as it was saved.

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz``: gzipped).

    Returns
    -------
    DecisionTree

    Raises
    ------
    DataError
        A file that is not JSON (naming line and column) or not a saved tree.

    Examples
    --------
    >>> import bbn, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tree.json")
    >>> bbn.DecisionTree().fit([[1.0], [2.0]], ["a", "b"]).save(path)
    >>> bbn.load_tree(path).get_n_leaves()
    2
    """
    saved = read_tree(path)
    try:
        tree = DecisionTree(**saved.parameters)
    except TypeError as error:
        raise DataError(f"{path}: not a valid saved decision tree ({error})") from None
    tree.tree_, tree.feature_space_ = saved.root, saved.feature_space
    tree.classes_, tree.class_name_ = saved.classes, saved.class_name
    tree.n_features_in_ = len(saved.feature_space.names)
    if saved.feature_space.named:
        tree.feature_names_in_ = np.array(saved.feature_space.names, dtype=object)
    return tree


def _counts_text(counts: dict) -> str:
    return ", ".join(f"{c} {n}" for c, n in counts.items())


__all__ = ["DecisionTree", "Rule", "load_tree"]

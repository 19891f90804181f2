"""Workload 11: decision trees — fit + predict against scikit-learn's Cython tree, and a
multi-way categorical fit on 100,000 alarm samples.

* digits (8×8 images, pixels 0–16 as numbers) and iris, the 75/25 stratified split of
  seed 0: ``bbn.DecisionTree(split="binary", criterion="entropy")`` against
  ``DecisionTreeClassifier(criterion="entropy", random_state=0)``, both grown fully;
  the notes give both accuracies and the share of identical predictions (ties between
  equal-gain tests are broken differently: see docs/trees.md);
* alarm, 100,000 rows drawn by ``bbn.sample`` (string columns as a CSV reader gives
  them), target ``LVFAILURE``, the 36 other variables as categorical features:
  ``bbn.DecisionTree()`` (ID3's multi-way splits, grown fully). scikit-learn has no
  multi-way categorical split; for scale only, the same rows ordinal-coded
  (``pandas.factorize``, untimed) in ``DecisionTreeClassifier(criterion="entropy")`` —
  a different (binary) tree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .harness import NA, Row, Section, Settings, attempt, describe, measure_side_by_side
from .models import samples

TITLE = "decision trees: fit + predict against scikit-learn; multi-way fit on alarm"
#: alarm's target: any variable will do; this one's tree (762 leaves, depth 25) is typical
ALARM_TARGET = "LVFAILURE"
ALARM_ROWS = 100_000


def split(loader):
    from sklearn.model_selection import train_test_split

    X, y = loader(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("11", TITLE, ["bbn", "scikit-learn"], [("bbn", "scikit-learn")])
    section.comment = ("digits, iris: fit on 75% + predict the other 25%; alarm: fit on "
                       f"{ALARM_ROWS:,} rows (scikit-learn: ordinal codes, a binary tree)")
    try:
        from sklearn.datasets import load_digits, load_iris
        from sklearn.tree import DecisionTreeClassifier

        import bbn
    except Exception as error:
        row = Row("decision tree", "all")
        row.cells["bbn"] = NA(describe(error))
        section.add(row)
        return section

    def ours(train, y, test):
        return bbn.DecisionTree(split="binary").fit(train, y).predict(test)

    def theirs(train, y, test):
        return DecisionTreeClassifier(criterion="entropy", random_state=0).fit(
            train, y).predict(test)

    for label, loader in (("digits", load_digits), ("iris", load_iris)):
        section.add(_fit_predict(settings, label, lambda loader=loader: split(loader),
                                 ours, theirs))
    section.add(_alarm(settings, bbn, DecisionTreeClassifier))
    return section


def _fit_predict(settings: Settings, label: str, loader, ours, theirs) -> Row:
    row = Row("decision tree", label)
    data, failed = attempt(loader, "data: ")
    if failed:
        row.cells["bbn"] = row.cells["scikit-learn"] = failed
        return row
    train, test, y_train, y_test = data
    fits = {"bbn": ours, "scikit-learn": theirs}
    predictions, runs = {}, {}
    for library, fit in fits.items():
        predicted, failed = attempt(lambda fit=fit: fit(train, y_train, test))
        if failed:
            row.cells[library] = failed
            continue
        predictions[library] = np.asarray(predicted)
        runs[library] = lambda fit=fit: fit(train, y_train, test)
    row.cells.update(measure_side_by_side(settings, runs))
    accuracy = {lib: float(np.mean(p == y_test)) for lib, p in predictions.items()}
    row.notes.append("accuracy " + ", ".join(f"{lib} {a:.4f}" for lib, a in accuracy.items()))
    if len(predictions) == 2:
        same = float(np.mean(predictions["bbn"] == predictions["scikit-learn"]))
        row.notes.append(f"same predictions {same:.2%}")
        row.extra["same_predictions"] = same
    row.extra["accuracy"] = accuracy
    return row


def _alarm(settings: Settings, bbn, DecisionTreeClassifier) -> Row:
    row = Row("decision tree", f"alarm {ALARM_ROWS:,} rows, multi-way, target {ALARM_TARGET}")
    frame, failed = attempt(lambda: samples("alarm", ALARM_ROWS), "data: ")
    if failed:
        row.cells["bbn"] = row.cells["scikit-learn"] = failed
        return row
    X, y = frame.drop(columns=[ALARM_TARGET]), frame[ALARM_TARGET]
    ordinal = np.column_stack([pd.factorize(X[c])[0] for c in X.columns])
    fitted = {}

    def ours():
        fitted["bbn"] = bbn.DecisionTree().fit(X, y)

    def theirs():
        fitted["scikit-learn"] = DecisionTreeClassifier(criterion="entropy",
                                                        random_state=0).fit(ordinal, y)

    row.cells.update(measure_side_by_side(settings, {"bbn": ours, "scikit-learn": theirs}))
    if "bbn" in fitted:
        tree = fitted["bbn"]
        row.notes.append(f"bbn {tree.get_n_leaves()} leaves, depth {tree.get_depth()}, "
                         f"training accuracy {tree.score(X, y):.4f}")
    if "scikit-learn" in fitted:
        tree = fitted["scikit-learn"]
        row.notes.append(f"scikit-learn {tree.get_n_leaves()} leaves, depth "
                         f"{tree.get_depth()}")
    return row

r"""Workload 6: naive Bayes fit on a training split + predict on the test split.

The same split (75/25, stratified, seed 0) for both libraries and the same model:

* digits (scikit-learn's 8×8 images, pixels 0–16 as categories): ``bbn.NaiveBayes(
  estimator="laplace")`` against ``CategoricalNB(alpha=1)``;
* SMS spam, raw text: ``bbn.NaiveBayes(features="text", estimator="laplace",
  token_pattern=r"\b\w+\b")`` (bbn tokenises) against ``CountVectorizer`` (same
  pattern) + ``MultinomialNB(alpha=1)``; and once more with bbn's default tokens (words
  and runs of symbols), against the same scikit-learn pipeline;
* SMS spam, word-count matrix: both given the same sparse counts (``multinomial``).

Accuracy on the test split and the share of identical predictions are in the notes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .harness import NA, Row, Section, Settings, attempt, describe, measure_side_by_side
from .models import SHARED

TITLE = "naive Bayes fit + predict against scikit-learn"
TOKENS = r"\b\w+\b"  # bbn's tokeniser, given to CountVectorizer so both see the same words


def digits():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = load_digits()
    X = pd.DataFrame(data.data.astype(int), columns=[f"p{i}" for i in range(64)])
    return train_test_split(X, data.target, test_size=0.25, random_state=0, stratify=data.target)


def sms():
    from sklearn.model_selection import train_test_split

    frame = pd.read_csv(SHARED / "data" / "sms_spam_collection.tsv", sep="\t", quoting=3)
    return train_test_split(frame["SMS"].astype(str), frame["Label"].to_numpy(),
                            test_size=0.25, random_state=0, stratify=frame["Label"])


def cases():
    """(label, data loader, bbn fit+predict, scikit-learn fit+predict)."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import CategoricalNB, MultinomialNB

    import bbn

    states = [str(v) for v in range(17)]

    def bbn_digits(train, y, test):
        return bbn.NaiveBayes(estimator="laplace", states=states).fit(train, y).predict(test)

    def sk_digits(train, y, test):
        return CategoricalNB(alpha=1.0, min_categories=17).fit(train, y).predict(test)

    def bbn_text(train, y, test):
        return bbn.NaiveBayes(features="text", estimator="laplace",
                              token_pattern=TOKENS).fit(train, y).predict(test)

    def bbn_text_default(train, y, test):
        return bbn.NaiveBayes(features="text", estimator="laplace").fit(train, y).predict(test)

    def sk_text(train, y, test):
        vectorizer = CountVectorizer(token_pattern=TOKENS)
        model = MultinomialNB(alpha=1.0).fit(vectorizer.fit_transform(train), y)
        return model.predict(vectorizer.transform(test))

    def counts(loader):
        def load():
            train, test, y_train, y_test = loader()
            vectorizer = CountVectorizer(token_pattern=TOKENS)
            return (vectorizer.fit_transform(train), vectorizer.transform(test), y_train,
                    y_test)
        return load

    def bbn_counts(train, y, test):
        return bbn.NaiveBayes(features="multinomial", estimator="laplace").fit(
            train, y).predict(test)

    def sk_counts(train, y, test):
        return MultinomialNB(alpha=1.0).fit(train, y).predict(test)

    return [("digits (categorical)", digits, bbn_digits, sk_digits),
            ("SMS spam (raw text, same tokens)", sms, bbn_text, sk_text),
            ("SMS spam (raw text, bbn default tokens)", sms, bbn_text_default, sk_text),
            ("SMS spam (count matrix)", counts(sms), bbn_counts, sk_counts)]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("6", TITLE, ["bbn", "scikit-learn"], [("bbn", "scikit-learn")])
    section.comment = "time = fit on 75% + predict the other 25%; accuracy on that 25%"
    try:
        chosen = cases()
    except Exception as error:
        row = Row("naive Bayes", "all")
        row.cells["bbn"] = NA(describe(error))
        section.add(row)
        return section
    for label, loader, bbn_fit, sk_fit in chosen:
        section.add(_row(settings, label, loader, {"bbn": bbn_fit, "scikit-learn": sk_fit}))
    return section


def _row(settings: Settings, label: str, loader, fits: dict) -> Row:
    row = Row("naive Bayes", label)
    split, failed = attempt(loader, "data: ")
    if failed:
        row.cells["bbn"] = row.cells["scikit-learn"] = failed
        return row
    train, test, y_train, y_test = split
    predictions, runs = {}, {}
    for library, fit in fits.items():
        predicted, failed = attempt(lambda fit=fit: fit(train, y_train, test))
        if failed:
            row.cells[library] = failed
            continue
        predictions[library] = np.asarray(predicted).astype(str)
        runs[library] = lambda fit=fit: fit(train, y_train, test)
    row.cells.update(measure_side_by_side(settings, runs))
    truth = np.asarray(y_test).astype(str)
    accuracy = {lib: float(np.mean(p == truth)) for lib, p in predictions.items()}
    row.notes.append("accuracy " + ", ".join(f"{lib} {a:.4f}" for lib, a in accuracy.items()))
    if len(predictions) == 2:
        same = float(np.mean(predictions["bbn"] == predictions["scikit-learn"]))
        row.notes.append(f"same predictions {same:.2%}")
        row.extra["same_predictions"] = same
    row.extra["accuracy"] = accuracy
    return row

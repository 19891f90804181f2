"""scikit-learn's own estimator checks on every bbn classifier (skipped without it).

Every check passes except those listed in ``INAPPLICABLE``, each with its reason (also
in docs/classification.md). ``NaiveBayes(features="text")`` takes one string per row,
which the checks cannot generate: scikit-learn skips it (its tags say a 1-D X), and its
scikit-learn behaviour is tested in tests/test_naive_bayes.py.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("sklearn", minversion="1.6")  # expected_failed_checks=, __sklearn_tags__
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import bbn  # noqa: E402

#: A bootstrap sample of N weighted rows is not one of the repeated rows.
_BOOTSTRAP = ("a bootstrap sample of N weighted rows is not one of the repeated rows "
              "(scikit-learn's BaggingClassifier fails this check too)")
#: Boosting is AdaBoost.M1 (the course's): it stops with an error when the first member's
#: weighted error is 1/2 or more, as on scikit-learn's random 3-class sparse data.
_M1 = ("AdaBoost.M1 refuses a first member with weighted error ε ≥ 1/2, and the labels of "
       "this check are random over 3 classes")
INAPPLICABLE = {
    "NaiveBayes": {},
    "Boosting": {"check_estimator_sparse_tag": _M1, "check_estimator_sparse_array": _M1,
                 "check_estimator_sparse_matrix": _M1},
    "Bagging": {"check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP,
                "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP},
}

ESTIMATORS = [
    bbn.NaiveBayes(),
    bbn.NaiveBayes(estimator=bbn.MEstimate(m=2)),  # an estimator value as a parameter
    bbn.NaiveBayes(features="gaussian"),
    bbn.NaiveBayes(features="bernoulli"),
    bbn.NaiveBayes(features="multinomial"),
    bbn.NaiveBayes(structure="tan"),  # tree-augmented: the categorical features' tree
    bbn.Boosting(),
    bbn.Bagging(seed=0),  # seeded: fitting twice gives the same members
    bbn.DecisionTree(),
    bbn.DecisionTree(split="binary", criterion="gini", max_depth=5),
    bbn.DecisionTree(criterion="gain_ratio", pruning="pessimistic"),
    bbn.DecisionTree(pruning="validation", random_state=0),
]


def _expected_failures(estimator) -> dict[str, str]:
    kind = getattr(estimator, "features", None)
    if kind is not None or isinstance(estimator, bbn.DecisionTree):
        return {}
    return INAPPLICABLE[type(estimator).__name__]


with warnings.catch_warnings():  # bbn's classifiers follow the protocol, not the base class
    warnings.filterwarnings("ignore", message=".*does not inherit from `sklearn.base")
    _checks = parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)


@_checks
def test_scikit_learn_check(estimator, check):
    check(estimator)


def test_every_inapplicable_check_is_documented(models):
    text = (models.parent / "docs" / "classification.md").read_text(encoding="utf-8")
    for checks in INAPPLICABLE.values():
        for name in checks:
            assert f"`{name}`" in text, name


def test_not_fitted_is_scikit_learns_error_too_once_it_is_imported():
    from sklearn.exceptions import NotFittedError as TheirNotFittedError
    from sklearn.utils.validation import check_is_fitted

    from bbn.core.errors import NotFittedError

    for model in (bbn.NaiveBayes(), bbn.Boosting(), bbn.Bagging(), bbn.DecisionTree()):
        with pytest.raises(TheirNotFittedError) as error:
            model.predict([[0, 1]])
        assert isinstance(error.value, NotFittedError) and isinstance(error.value, bbn.BBNError)
        with pytest.raises(TheirNotFittedError):
            check_is_fitted(model)  # no attribute ending in "_" before fit
        check_is_fitted(model.fit([[0, 1], [1, 0]], ["a", "b"]))

"""Naive Bayes: the course's examples (EXAMPLES.md §4–§6), its feature kinds, and the
scikit-learn protocol."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.core.errors import DataError, ImpossibleEvidenceError, NotFittedError
from bbn.tasks.classification.inputs import Inputs
from bbn.tasks.classification.text import WORD_PATTERN

PLAY_TENNIS = """sunny,hot,high,false,no
sunny,hot,high,true,no
overcast,hot,high,false,yes
rainy,mild,high,false,yes
rainy,cool,normal,false,yes
rainy,cool,normal,true,no
overcast,cool,normal,true,yes
sunny,mild,high,false,no
sunny,cool,normal,false,yes
rainy,mild,normal,false,yes
sunny,mild,normal,true,yes
overcast,mild,high,true,yes
overcast,hot,normal,false,yes
rainy,mild,high,true,no"""
FEATURES = ["outlook", "temperature", "humidity", "windy"]


@pytest.fixture(scope="module")
def tennis() -> pd.DataFrame:
    return pd.DataFrame([line.split(",") for line in PLAY_TENNIS.splitlines()],
                        columns=[*FEATURES, "play"])


NEW_DAY = pd.DataFrame([["sunny", "cool", "high", "true"]], columns=FEATURES)


# ------------------------------------------------------------- EXAMPLES.md §4
def test_play_tennis_tables_scores_class_and_posterior(tennis):
    model = bbn.NaiveBayes(estimator="mle").fit(tennis[FEATURES], tennis["play"])
    net = model.network_
    assert net.parents("outlook") == ("play",) and net.variables[0] == "play"
    prior = net.cpt("play").to_dict()
    assert prior["yes"] == pytest.approx(9 / 14) and prior["no"] == pytest.approx(5 / 14)
    outlook = net.cpt("outlook").to_dict()
    assert outlook[("yes", "sunny")] == pytest.approx(2 / 9)
    assert outlook[("no", "sunny")] == pytest.approx(3 / 5)
    assert outlook[("no", "overcast")] == 0.0
    windy = net.cpt("windy").to_dict()
    assert windy[("yes", "true")] == pytest.approx(3 / 9)
    assert windy[("no", "true")] == pytest.approx(3 / 5)
    scores = dict(zip(model.classes_, np.exp(model.joint_log_likelihood(NEW_DAY))[0],
                      strict=True))
    assert scores["yes"] == pytest.approx(0.005291005291005291, rel=1e-12)
    assert scores["no"] == pytest.approx(0.02057142857142857, rel=1e-12)
    assert model.predict(NEW_DAY).tolist() == ["no"]
    posterior = dict(zip(model.classes_, model.predict_proba(NEW_DAY)[0], strict=True))
    assert posterior["no"] == pytest.approx(0.795417348608838, abs=1e-12)


def test_play_tennis_through_the_network(tennis):
    net = bbn.NaiveBayes(estimator="mle").fit(tennis[FEATURES], tennis["play"]).network_
    day = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    assert net.probability({"play": "yes", **day}) == pytest.approx(0.005291005291005291)
    assert net.probability({"play": "no", **day}) == pytest.approx(0.02057142857142857)
    assert net.query("P(play=no | outlook=sunny, temperature=cool, humidity=high, "
                     "windy=true)") == pytest.approx(0.795417348608838, abs=1e-12)
    assert bbn.predict(net, NEW_DAY, "play").tolist() == ["no"]
    # the builder gives the same network from the same data
    built = bbn.naive_bayes("play", FEATURES, tennis)
    for v in FEATURES + ["play"]:
        np.testing.assert_allclose(built.cpt(v).transpose(net.cpt(v).variables)
                                   .reorder_states(net.cpt(v).states).values,
                                   net.cpt(v).values)


def test_naive_bayes_builder_declares_structure_only():
    net = bbn.naive_bayes("play", {"windy": ["true", "false"], "temp": "gaussian"},
                          class_states=["yes", "no"])
    assert net.parents("windy") == ("play",) and net.is_gaussian("temp")
    assert not net.is_complete
    with pytest.raises(DataError, match="class_states"):
        bbn.naive_bayes("play", {"windy": ["true", "false"]})


# ------------------------------------------------------------- EXAMPLES.md §5
def shapes_network() -> bbn.Network:
    net = bbn.naive_bayes("Y", {"size": ["small", "medium", "large"],
                                "color": ["red", "blue", "green"],
                                "shape": ["square", "triangle", "circle"]},
                          class_states=["positive", "negative"])
    net.set_cpt("Y", [0.5, 0.5])
    net.set_cpt("size", {"positive": [0.4, 0.1, 0.5], "negative": [0.4, 0.2, 0.4]})
    net.set_cpt("color", {"positive": [0.9, 0.05, 0.05], "negative": [0.3, 0.3, 0.4]})
    net.set_cpt("shape", {"positive": [0.05, 0.05, 0.9], "negative": [0.4, 0.3, 0.3]})
    return net


def test_examples_5_given_tables():
    net = shapes_network()
    x = {"size": "medium", "color": "red", "shape": "circle"}
    assert net.probability({"Y": "positive", **x}) == pytest.approx(0.0405, abs=1e-15)
    assert net.probability({"Y": "negative", **x}) == pytest.approx(0.009, abs=1e-15)
    posterior = net.posterior(["Y"], x).to_dict()
    assert posterior["positive"] == pytest.approx(0.8181818181818182, abs=1e-12)
    assert bbn.predict(net, pd.DataFrame([x]), "Y").tolist() == ["positive"]


# ------------------------------------------------------------- EXAMPLES.md §6
SMALL = pd.DataFrame({"size": ["small", "large", "small", "large"],
                      "color": ["red", "red", "red", "blue"],
                      "shape": ["circle", "circle", "triangle", "circle"],
                      "class": ["pos", "pos", "neg", "neg"]})
DECLARED = {"size": ["small", "medium", "large"], "color": ["red", "blue", "green"],
            "shape": ["square", "triangle", "circle"]}
QUESTION = pd.DataFrame([["medium", "red", "circle"]], columns=["size", "color", "shape"])


def test_examples_6_mle_zero_probability_is_a_clear_error():
    model = bbn.NaiveBayes(estimator="mle", states=DECLARED).fit(SMALL[list(DECLARED)],
                                                                 SMALL["class"])
    np.testing.assert_allclose(model.network_.cpt_array("size")[:, 1], [0, 0])
    with pytest.raises(ImpossibleEvidenceError) as error:
        model.predict_proba(QUESTION)
    message = str(error.value)
    assert "size=medium" in message and "every class" in message
    assert error.value.evidence == {"size": "medium", "color": "red", "shape": "circle"}
    for method in (model.predict, model.predict_log_proba):
        with pytest.raises(ImpossibleEvidenceError):
            method(QUESTION)
    with pytest.raises(ImpossibleEvidenceError):  # the same network, asked by the engine
        model.network_.query("P(class | size=medium, color=red, shape=circle)")
    with pytest.raises(ImpossibleEvidenceError, match="size=medium"):
        bbn.predict(model.network_, QUESTION, "class")


def test_examples_6_smoothing_gives_answers():
    for estimator in ("m-estimate", "laplace", "bayes"):
        model = bbn.NaiveBayes(estimator=estimator, states=DECLARED)
        proba = model.fit(SMALL[list(DECLARED)], SMALL["class"]).predict_proba(QUESTION)
        assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)
    model = bbn.NaiveBayes(estimator=bbn.MEstimate(m=1), states=DECLARED)
    size = model.fit(SMALL[list(DECLARED)], SMALL["class"]).network_.cpt_array("size")
    # two examples per class, p = 1/3: (n_c + 1/3) / (2 + 1)
    np.testing.assert_allclose(size, [[(1 + 1 / 3) / 3, (1 / 3) / 3, (1 + 1 / 3) / 3]] * 2)



def test_old_estimator_settings_still_work_with_a_future_warning():
    X, y = SMALL[list(DECLARED)], SMALL["class"]
    new = bbn.NaiveBayes(estimator=bbn.MEstimate(m=2), states=DECLARED).fit(X, y)
    old = bbn.NaiveBayes(estimator="m-estimate", m=2, states=DECLARED)
    assert old.get_params()["m"] == 2  # stored as given, read at fit
    with pytest.warns(FutureWarning, match=r"NaiveBayes: m= beside estimator= is deprecated"
                                           r".*write estimator=bbn.MEstimate\(m=2\)"):
        old.fit(X, y)
    assert old.network_ == new.network_
    with pytest.raises(DataError, match="alpha given beside"):
        bbn.NaiveBayes(estimator=bbn.Laplace(), alpha=2).fit(X, y)
    with pytest.warns(FutureWarning, match="bbn.naive_bayes: alpha="):
        net = bbn.naive_bayes("class", list(DECLARED), SMALL, estimator="laplace", alpha=0.5)
    assert net == bbn.naive_bayes("class", list(DECLARED), SMALL, estimator=bbn.Laplace(0.5))
    # color (blue, red) given class (neg, pos): neg saw one of each, pos red twice
    np.testing.assert_allclose(net.cpt_array("color"), [[0.5, 0.5], [0.5 / 3, 2.5 / 3]])


# --------------------------------------------------------------- digits (§10)
@pytest.fixture(scope="module")
def digits():
    datasets = pytest.importorskip("sklearn.datasets")
    from sklearn.model_selection import train_test_split

    X, y = datasets.load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_digits_laplace_equals_categorical_nb(digits):
    from sklearn.naive_bayes import CategoricalNB

    X_train, X_test, y_train, y_test = digits
    model = bbn.NaiveBayes(estimator=bbn.Laplace(alpha=1), states=range(17)).fit(X_train,
                                                                                 y_train)
    reference = CategoricalNB(alpha=1, min_categories=17).fit(X_train, y_train)
    assert np.array_equal(model.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(model.predict_proba(X_test), reference.predict_proba(X_test),
                               atol=1e-12)
    assert round(model.score(X_test, y_test), 4) == 0.9130
    assert model.network_.states("x0") == tuple(str(v) for v in range(17))


def test_digits_m_estimate_accuracy_is_491_of_540(digits):
    X_train, X_test, y_train, y_test = digits
    model = bbn.NaiveBayes(estimator=bbn.MEstimate(m=1), states=range(17)).fit(X_train,
                                                                                y_train)
    np.testing.assert_allclose(model.network_.cpt_array("x0")[0].sum(), 1.0)
    assert int(np.sum(model.predict(X_test) == y_test)) == 491 and len(y_test) == 540


def test_digits_gaussian_equals_gaussian_nb(digits):
    from sklearn.naive_bayes import GaussianNB

    X_train, X_test, y_train, y_test = digits
    model = bbn.NaiveBayes(features="gaussian", ddof=0, var_smoothing=1e-9).fit(X_train, y_train)
    reference = GaussianNB(var_smoothing=1e-9).fit(X_train, y_train)
    assert np.array_equal(model.predict(X_test), reference.predict(X_test))
    assert round(model.score(X_test, y_test), 4) == 0.8481
    mean, variance = model.network_.gaussian_parameters("x10")
    np.testing.assert_allclose(mean, reference.theta_[:, 10])
    np.testing.assert_allclose(variance, reference.var_[:, 10])


def test_gaussian_default_is_the_sample_variance_with_a_floor(digits):
    X_train, _, y_train, _ = digits
    model = bbn.NaiveBayes(features="gaussian").fit(X_train, y_train)
    mean, variance = model.network_.gaussian_parameters("x20")
    for c, label in enumerate(model.classes_):
        column = X_train[y_train == label, 20]
        assert mean[c] == pytest.approx(column.mean())
        assert variance[c] == pytest.approx(column.var(ddof=1))
    _, variance = model.network_.gaussian_parameters("x0")  # pixel 0 is always 0
    floor = 1e-9 * X_train.var(axis=0).max()
    np.testing.assert_allclose(variance, floor)


def test_bernoulli_equals_bernoulli_nb(digits):
    from sklearn.naive_bayes import BernoulliNB

    X_train, X_test, y_train, _ = digits
    model = bbn.NaiveBayes(features="bernoulli", estimator="laplace").fit(X_train, y_train)
    reference = BernoulliNB(alpha=1, binarize=0.0).fit(X_train, y_train)
    assert np.array_equal(model.predict(X_test), reference.predict(X_test))
    np.testing.assert_allclose(model.predict_log_proba(X_test),
                               reference.predict_log_proba(X_test), atol=1e-9)


def test_400_pixels_never_underflow():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=600)
    pixels = rng.integers(0, 17, size=(600, 400))  # each value has probability ~1/17
    pixels[:, :20] = np.minimum(16, pixels[:, :20] // 4 + 4 * labels[:, None])  # some signal
    model = bbn.NaiveBayes(estimator="laplace", states=range(17)).fit(pixels[:400],
                                                                      labels[:400])
    joint = model.joint_log_likelihood(pixels[400:])
    assert np.all(joint < -1000) and np.all(np.exp(joint) == 0.0)  # linear space: all 0
    proba = model.predict_proba(pixels[400:])
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert model.score(pixels[400:], labels[400:]) > 0.9
    gaussian = bbn.NaiveBayes(features="gaussian").fit(pixels[:400], labels[:400])
    assert np.all(np.isfinite(gaussian.predict_proba(pixels[400:])))


# ------------------------------------------------------------------- SMS spam
@pytest.fixture(scope="module")
def spam(shared):
    from sklearn.model_selection import train_test_split

    frame = pd.read_csv(shared / "data" / "sms_spam_collection.tsv", sep="\t", quoting=3,
                        dtype=str, keep_default_na=False)
    assert frame.shape == (5574, 2)
    texts, labels = frame.iloc[:, 1].tolist(), frame.iloc[:, 0].to_numpy()
    return train_test_split(texts, labels, test_size=0.3, random_state=0, stratify=labels)


def test_sms_spam_multinomial_accuracy(spam):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    X_train, X_test, y_train, y_test = spam
    # bbn's own tokeniser (words and runs of symbols such as '£' or '!!!')
    model = bbn.NaiveBayes(features="text", estimator=bbn.Laplace(alpha=1)).fit(X_train,
                                                                                 y_train)
    assert np.sum(model.predict(X_test) == y_test) == 1652  # of 1673: 0.98745 >= 0.9845
    # words only: the very predictions of scikit-learn's MultinomialNB on \b\w+\b counts
    words = bbn.NaiveBayes(features="text", estimator=bbn.Laplace(alpha=1),
                           token_pattern=WORD_PATTERN).fit(X_train, y_train)
    predicted = words.predict(X_test)
    vectorizer = CountVectorizer(token_pattern=r"\b\w+\b")
    reference = MultinomialNB(alpha=1).fit(vectorizer.fit_transform(X_train), y_train)
    assert len(words.vocabulary_) == len(vectorizer.vocabulary_)
    assert np.array_equal(predicted, reference.predict(vectorizer.transform(X_test)))
    assert np.sum(predicted == y_test) == 1647  # 0.98446, the course's reference 0.9845
    # the word node: class → word, with the vocabulary as its states
    word = model.network_.cpt_array("word")
    assert model.network_.parents("word") == ("class",) and word.shape == (2, len(
        model.vocabulary_))


def test_learn_naive_bayes_text_formula():
    texts = ["free money now", "free free prize", "see you at lunch", "lunch now?"]
    labels = ["spam", "spam", "ham", "ham"]
    model = bbn.NaiveBayes(features="text", estimator="laplace",
                           token_pattern=WORD_PATTERN).fit(texts, labels)
    vocabulary = model.vocabulary_
    assert vocabulary == ("at", "free", "lunch", "money", "now", "prize", "see", "you")
    table = model.network_.cpt("word").to_dict()
    # each class has n = 6 word positions; "free" occurs 3 times in spam, never in ham
    assert table[("spam", "free")] == pytest.approx((3 + 1) / (6 + 8))
    assert table[("ham", "free")] == pytest.approx((0 + 1) / (6 + 8))
    assert table[("ham", "lunch")] == pytest.approx((2 + 1) / (6 + 8))
    # unknown words are skipped (positions ← words found in Vocabulary)
    assert np.allclose(model.predict_proba(["free zebra"]), model.predict_proba(["free"]))
    # a 1,000-word message stays finite in log space
    proba = model.predict_proba([" ".join(["free"] * 1000)])
    assert np.all(np.isfinite(proba)) and proba[0, list(model.classes_).index("spam")] == 1.0


def test_multinomial_word_counts_equal_multinomial_nb():
    from sklearn.naive_bayes import MultinomialNB

    rng = np.random.default_rng(0)
    counts = rng.poisson(0.7, size=(200, 30))
    labels = (counts[:, :5].sum(axis=1) > 3).astype(int)
    model = bbn.NaiveBayes(features="multinomial", estimator="laplace").fit(counts, labels)
    reference = MultinomialNB(alpha=1).fit(counts, labels)
    np.testing.assert_allclose(model.predict_log_proba(counts),
                               reference.predict_log_proba(counts), atol=1e-10)
    scipy_sparse = pytest.importorskip("scipy.sparse")
    sparse = scipy_sparse.csr_matrix(counts)
    np.testing.assert_allclose(model.predict_proba(sparse), model.predict_proba(counts))


# ------------------------------------------------------------- unseen, missing
def test_unseen_value_error_or_ignore(tennis):
    foggy = NEW_DAY.assign(outlook="foggy")
    model = bbn.NaiveBayes(estimator="laplace").fit(tennis[FEATURES], tennis["play"])
    with pytest.raises(DataError, match=r"column 'outlook', row 0: value 'foggy'"):
        model.predict(foggy)
    ignoring = bbn.NaiveBayes(estimator="laplace", unseen="ignore")
    ignoring.fit(tennis[FEATURES], tennis["play"])
    without = NEW_DAY.assign(outlook=None)
    np.testing.assert_allclose(ignoring.predict_proba(foggy), model.predict_proba(without))
    # a missing feature is summed out: the network's posterior without that evidence
    expected = model.network_.posterior(["play"], {"temperature": "cool", "humidity": "high",
                                                  "windy": "true"})
    np.testing.assert_allclose(model.predict_proba(without)[0],
                               [expected.to_dict()[c] for c in model.classes_])


def test_declared_states_and_training_values_must_agree(tennis):
    with pytest.raises(DataError, match="'overcast'.*did you mean"):
        bbn.NaiveBayes(states={"outlook": ["sunny", "rainy", "overcst"]}).fit(
            tennis[FEATURES], tennis["play"])
    with pytest.raises(DataError, match="unknown feature kind 'gausian'.*did you mean"):
        bbn.NaiveBayes(features={"outlook": "gausian"}).fit(tennis[FEATURES], tennis["play"])


# ---------------------------------------------------------- mixed, Gaussian node
def test_mixed_features_agree_with_the_network_posterior():
    rng = np.random.default_rng(3)
    n = 300
    label = rng.choice(["a", "b", "c"], size=n)
    X = pd.DataFrame({"colour": np.where(label == "a", "red", rng.choice(["red", "blue"], n)),
                      "height": rng.normal(np.select([label == "a", label == "b"], [1.0, 2.0],
                                                     3.0), 0.7)})
    model = bbn.NaiveBayes(features={"height": "gaussian"}, estimator="laplace").fit(X, label)
    net = model.network_
    assert net.is_gaussian("height") and not net.is_gaussian("colour")
    rows = X.iloc[:5]
    proba = model.predict_proba(rows)
    for i in range(5):
        evidence = {"colour": rows["colour"].iloc[i], "height": float(rows["height"].iloc[i])}
        posterior = net.posterior(["class"], evidence).to_dict()
        np.testing.assert_allclose(proba[i], [posterior[c] for c in model.classes_],
                                   atol=1e-12)
    np.testing.assert_allclose(bbn.predict_proba(net, rows, "class").to_numpy(), proba, atol=1e-12)


# --------------------------------------------------------- scikit-learn protocol
def test_scikit_learn_protocol(digits):
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    X_train, X_test, y_train, _ = digits
    model = bbn.NaiveBayes(estimator=bbn.MEstimate(m=2), states=range(17))
    assert is_classifier(model)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    assert copy.set_params(estimator=bbn.MEstimate(m=3)).estimator == bbn.MEstimate(m=3)
    assert model.estimator == bbn.MEstimate(m=2)
    with pytest.raises(ValueError, match="invalid parameter"):
        copy.set_params(mm=3)
    scores = cross_val_score(model, X_train, y_train, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.8)
    pipeline = Pipeline([("halve", FunctionTransformer(lambda X: np.floor(X / 2))),
                         ("nb", bbn.NaiveBayes(estimator="laplace", states=range(9)))])
    assert cross_val_score(pipeline, X_train, y_train, cv=3).mean() > 0.8
    fitted = model.fit(X_train, y_train)
    restored = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(restored.predict(X_test), fitted.predict(X_test))
    assert restored.network_ == fitted.network_
    assert repr(model) == "NaiveBayes(estimator=MEstimate(m=2), states=range(0, 17))"
    from sklearn.model_selection import GridSearchCV

    grid = [bbn.Laplace(alpha=0.5), bbn.MEstimate(m=1)]  # estimator values as a grid
    search = GridSearchCV(bbn.NaiveBayes(states=range(17)), {"estimator": grid}, cv=3)
    chosen = search.fit(X_train, y_train).best_estimator_.estimator
    assert chosen in grid and search.best_score_ > 0.8


def test_unfitted_model_and_mismatched_columns_say_so(tennis):
    calls = {"predict": ([[1, 2]],), "predict_proba": ([[1, 2]],), "score": ([[1, 2]], ["a"]),
             "loss_matrix": ()}
    for method, arguments in calls.items():
        # scikit-learn's NotFittedError contract: a ValueError and an AttributeError
        with pytest.raises(NotFittedError, match="not fitted") as error:
            getattr(bbn.NaiveBayes(), method)(*arguments)
        assert isinstance(error.value, ValueError) and isinstance(error.value, AttributeError)
    model = bbn.NaiveBayes(estimator="laplace").fit(np.array([[0, 1], [1, 0]]), ["a", "b"])
    with pytest.raises(DataError, match="X has 1 features, but NaiveBayes is expecting 2"):
        model.predict(np.array([[1]]))
    model = bbn.NaiveBayes(estimator="laplace").fit(tennis[FEATURES], tennis["play"])
    with pytest.raises(DataError, match="no column 'windy' .*did you mean 'wind'"):
        model.predict(NEW_DAY.rename(columns={"windy": "wind"}))


def test_naive_bayes_is_not_importing_scikit_learn():
    import subprocess
    import sys

    code = ("import sys, bbn, numpy as np; m = bbn.NaiveBayes(estimator='laplace')"
            ".fit(np.array([[0], [1]]), ['a', 'b']); m.predict(np.array([[1]]));"
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# ------------------------------------------------------------ bookkeeping
@pytest.mark.parametrize("labels", [
    ["spam", "ham", "ham", "eggs"],
    np.array(["b", "a", "b"]),                      # fixed-width strings keep their dtype
    np.array([3, 1, 2, 3, 1]),
    np.array([True, False, True]),
    pd.Series(["x", "y", "x"], dtype="category"),
])
def test_classes_are_those_of_np_unique(labels):
    X = np.zeros((len(labels), 1), dtype=int)
    model = bbn.NaiveBayes(estimator="laplace").fit(X, labels)
    expected = np.unique(np.asarray(labels))
    np.testing.assert_array_equal(model.classes_, expected)
    assert model.classes_.dtype == expected.dtype
    # one constant feature: the most frequent class wins, ties going to the first
    counts = {c: list(np.asarray(labels)).count(c) for c in expected}
    assert model.predict(X)[0] == max(expected, key=lambda c: (counts[c], -list(expected)
                                                               .index(c)))


def test_mixed_kinds_keep_column_order_in_the_network():
    rng = np.random.default_rng(5)
    n = 60
    X = pd.DataFrame({"size": rng.normal(size=n), "colour": rng.choice(["r", "g"], n),
                      "lit": rng.integers(0, 2, n), "shape": rng.choice(["o", "x"], n)})
    y = rng.choice(["p", "q"], n)
    model = bbn.NaiveBayes(features={"size": "gaussian", "lit": "bernoulli"},
                           estimator="laplace").fit(X, y)
    assert model.network_.variables == ("class", "size", "colour", "lit", "shape")
    counts = pd.crosstab(y, X["shape"]).to_numpy() + 1.0  # Laplace, α = 1
    np.testing.assert_allclose(model.network_.cpt_array("shape"),
                               counts / counts.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_a_frame_fitted_model_checks_names_even_for_an_array():
    X = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    model = bbn.NaiveBayes(estimator="laplace").fit(X, ["u", "v", "v", "u"])
    with pytest.raises(DataError, match="no column 'a'"):
        model.predict(np.array([[0, 1]]))


# -------------------------------------------- inputs at the edge (issue 11, item 12-14)
def test_integer_column_names_in_fit_and_predict():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((20, 3)))              # columns 0, 1, 2 (integers)
    y = rng.integers(0, 2, 20)
    model = bbn.NaiveBayes().fit(X, y)
    named = bbn.NaiveBayes().fit(X.rename(columns=str), y)
    assert model.network_.variables == ("class", "0", "1", "2")
    np.testing.assert_array_equal(model.predict_proba(X), named.predict_proba(X))
    # numbers that are no small set of whole numbers are Gaussian features by default
    assert set(model.feature_kinds_.values()) == {"gaussian"} and model.n_features_in_ == 3
    gaussian = bbn.NaiveBayes(features="gaussian").fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), gaussian.predict_proba(X))
    assert not hasattr(model, "feature_names_in_")  # as scikit-learn: names not all text
    assert named.feature_names_in_.tolist() == ["0", "1", "2"]
    assert not hasattr(named.fit(X, y), "feature_names_in_")  # refitted: none any more
    mixed = bbn.NaiveBayes(features={1: "gaussian"}, states={0: X[0].tolist() + [2.5]}).fit(X, y)
    assert mixed.feature_kinds_ == {"0": "categorical", "1": "gaussian", "2": "categorical"}
    assert "2.5" in mixed.network_.states("0")


def test_duplicated_column_names_are_refused():
    X = pd.DataFrame([[0, 1], [1, 0]], columns=["a", "a"])
    with pytest.raises(DataError, match=r"two columns are named 'a' \(columns 1 and 2\)"):
        bbn.NaiveBayes().fit(X, ["u", "v"])
    X = pd.DataFrame([[0, 1], [1, 0]], columns=[0, "0"])  # one name once read as text
    with pytest.raises(DataError, match="two columns are named '0'"):
        bbn.NaiveBayes().fit(X, ["u", "v"])
    model = bbn.NaiveBayes().fit(pd.DataFrame({"a": [0, 1], "b": [1, 0]}), ["u", "v"])
    with pytest.raises(DataError, match="two columns are named 'b'"):
        model.predict(pd.DataFrame([[0, 1, 1]], columns=["a", "b", "b"]))


@pytest.mark.parametrize("labels", [["1", 1, "1", 1], np.array(["1", 1, "1", 1], dtype=object),
                                    pd.Series(["1", 1, "1", 1])])
def test_labels_mixing_texts_and_numbers_are_refused(labels):
    X = np.array([[0], [1], [0], [1]])
    for model in (bbn.NaiveBayes(), bbn.Boosting(), bbn.Bagging()):
        with pytest.raises(DataError, match=r"mixes texts and numbers \('1' and 1\)"):
            model.fit(X, labels)


def test_continuous_and_infinite_labels_are_refused_whole_floats_kept():
    X = np.array([[0], [1], [0], [1]])
    with pytest.raises(DataError, match=r"Unknown label type: y is continuous \(0.5 in row 1\)"):
        bbn.NaiveBayes().fit(X, [0.0, 0.5, 1.0, 1.0])
    with pytest.raises(DataError, match="label inf in row 2: class labels must be finite"):
        bbn.NaiveBayes().fit(X, [0.0, 1.0, np.inf, 1.0])
    model = bbn.NaiveBayes().fit(X, [0.0, 1.0, 0.0, 1.0])
    assert model.classes_.tolist() == [0.0, 1.0] and model.predict(X).tolist() == [0, 1, 0, 1]


def test_column_vector_y_warns_and_fits_as_one_label_per_row():
    from bbn.tasks.classification.base import DataConversionWarning

    X = np.array([[0, 1], [1, 1], [0, 0], [1, 0], [1, 1]])
    y = np.array(["a", "b", "a", "b", "b"])
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        column = bbn.NaiveBayes().fit(X, y[:, None])
    flat = bbn.NaiveBayes().fit(X, y)
    np.testing.assert_array_equal(column.predict_proba(X), flat.predict_proba(X))
    with pytest.raises(DataError, match=r"one label per row, got shape \(5, 2\)"):
        bbn.NaiveBayes().fit(X, np.column_stack([y, y]))
    with pytest.raises(DataError, match="requires y to be passed"):
        bbn.NaiveBayes().fit(X, None)


def test_complex_empty_and_one_dimensional_numbers_are_refused():
    with pytest.raises(DataError, match="Complex data not supported"):
        bbn.NaiveBayes().fit(np.array([[1 + 1j], [2 + 0j]]), ["a", "b"])
    with pytest.raises(DataError, match="Complex data not supported"):
        bbn.NaiveBayes().fit(pd.DataFrame({"z": [1 + 1j, 2]}), ["a", "b"])
    with pytest.raises(DataError, match=r"X has 0 rows \(shape=\(0, 3\)\)"):
        bbn.NaiveBayes().fit(np.empty((0, 3)), [])
    with pytest.raises(DataError, match=r"0 feature\(s\) \(shape=\(2, 0\)\)"):
        bbn.NaiveBayes().fit(np.empty((2, 0)), ["a", "b"])
    with pytest.raises(DataError, match="1-D, one value per row, but not texts.*reshape"):
        bbn.NaiveBayes().fit(np.array([0.5, 1.5]), ["a", "b"])
    with pytest.raises(DataError, match="only text features are one per row, not 'gaussian'"):
        bbn.NaiveBayes(features="gaussian").fit(np.array([0.5, 1.5]), ["a", "b"])
    model = bbn.NaiveBayes().fit(np.array([[0, 1], [1, 0]]), ["a", "b"])
    with pytest.raises(DataError, match="fitted on 2 features, not texts: Reshape your data"):
        model.predict(np.array([0, 1]))


def test_sparse_input_for_other_kinds_says_sparse():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(DataError, match="sparse input is not supported for gaussian features"):
        bbn.NaiveBayes(features="gaussian").fit(sparse.csr_matrix(np.eye(2)), ["a", "b"])


def test_laplace_is_the_default_and_unseen_words_are_skipped():
    assert bbn.NaiveBayes().estimator == "laplace"
    texts = ["free money now", "free free prize", "see you at lunch", "lunch now"]
    labels = ["spam", "spam", "ham", "ham"]
    model = bbn.NaiveBayes(token_pattern=WORD_PATTERN).fit(texts, labels)  # raw texts
    # only new words: skipped, so the posterior is the prior (2 spam, 2 ham)
    np.testing.assert_allclose(model.predict_proba(["zebra quagga"]), [[0.5, 0.5]])
    # "prize" (spam only): P(prize | spam) = (1 + 1)/(6 + 8), P(prize | ham) = 1/(6 + 8),
    # and the unseen "zebra" adds nothing: P(spam | prize, zebra) = 2/3
    proba = model.predict_proba(["prize zebra"])
    assert proba[0, model.classes_.tolist().index("spam")] == pytest.approx(2 / 3, abs=1e-12)
    assert model.predict(["prize zebra", "lunch with you"]).tolist() == ["spam", "ham"]
    with pytest.raises(ImpossibleEvidenceError, match="word=lunch has probability 0 given "
                                                      "class=spam; word=prize .* class=ham"):
        # the old default: the word "prize" has P = 0 in ham, "lunch" in spam
        bbn.NaiveBayes(estimator="mle", token_pattern=WORD_PATTERN).fit(texts, labels) \
            .predict_proba(["prize lunch"])


def test_bbn_learn_keeps_maximum_likelihood_as_its_default(tennis):
    net = bbn.naive_bayes("play", FEATURES, tennis)
    learned = bbn.learn(net, tennis)
    assert learned.cpt("outlook").to_dict()[("no", "overcast")] == 0.0  # 0/5: MLE
    assert learned.cpt("outlook").to_dict()[("yes", "sunny")] == pytest.approx(2 / 9)


def test_cross_val_score_on_digits_gives_real_accuracies():
    datasets = pytest.importorskip("sklearn.datasets")
    from sklearn.model_selection import cross_val_score

    X, y = datasets.load_digits(return_X_y=True)
    for model in (bbn.NaiveBayes(states=range(17)), bbn.NaiveBayes(unseen="ignore")):
        scores = cross_val_score(model, X, y, cv=3)
        assert np.all(scores > 0.8), scores
    # under MLE every fold has a test image with a pixel value P = 0 in every class
    with pytest.warns(UserWarning):
        scores = cross_val_score(bbn.NaiveBayes(estimator="mle", states=range(17)), X, y, cv=3)
    assert np.isnan(scores).all()


def test_an_unseen_value_error_says_how_to_accept_it():
    model = bbn.NaiveBayes().fit(np.array([[0], [1]]), ["a", "b"])
    with pytest.raises(DataError, match="value '2' is not a state.*unseen='ignore' skips"):
        model.predict(np.array([[2]]))


# ------------------------------------------------- one likelihood per kind of feature
def test_every_kind_of_feature_has_its_likelihood_and_its_node_in_column_order():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"g": rng.normal(size=60), "a": rng.choice(list("pq"), 60),
                      "b": rng.integers(0, 3, 60)})
    y = np.where(X["g"] > 0, "up", "down")
    model = bbn.NaiveBayes(features={"g": "gaussian", "b": "bernoulli"}).fit(X, y)
    assert [type(part).__name__ for part in model.likelihoods_] == [
        "CategoricalLikelihood", "BernoulliLikelihood", "GaussianLikelihood"]
    assert list(model.network_.variables) == ["class", "g", "a", "b"]
    assert model.likelihoods_[0].states_ == {"a": ("p", "q")}
    # the joint is the class prior plus every likelihood's term
    terms = sum(part.log_likelihood(model.network_, Inputs.of(X), "error")
                for part in model.likelihoods_)
    prior = np.log(model.network_.cpt_array("class"))
    assert np.allclose(model.joint_log_likelihood(X), prior + terms, atol=1e-12)


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_the_fitted_network_answers_as_the_classifier(structure):
    """network_ is a real Network: the exact engine's batched posterior over a DataFrame
    (missing cells summed out) equals predict_proba."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f: rng.choice(list("abc"), 300) for f in "pqrs"})
    y = np.where((X["p"] == "a") | (X["q"] == X["r"]), "yes", "no")
    test = X.iloc[:60].astype(object).copy()
    test.iloc[::4, 1] = None
    test.iloc[::7, 0] = None
    model = bbn.NaiveBayes(structure=structure).fit(X, y)
    engine = model.network_.posterior(model.class_variable_, test)
    assert list(engine.columns) == list(model.classes_) and engine.index.equals(test.index)
    assert np.abs(engine.to_numpy() - model.predict_proba(test)).max() < 1e-12

"""Naive Bayes: the star network class → every feature, learned and queried in bulk.

    P(c | x1, ..., xn) ∝ P(c) · Π_i P(xi | c)
    log P(c | x) = log P(c) + Σ_i log P(xi | c) − log Σ_c' P(c') Π_i P(xi | c')

Each feature is a child of the class in an ordinary :class:`bbn.Network`, of one kind:

* ``categorical`` — a table P(x | c) over the feature's states;
* ``bernoulli`` — presence: the states ``0``/``1`` of ``x > binarize``;
* ``gaussian`` — a continuous child: N(x; μ_c, σ²_c) (:mod:`bbn.tasks.learning.gaussian`);
* ``text`` (raw strings, tokenised by bbn) and ``multinomial`` (word-count columns) —
  a word node with the vocabulary as states, repeated for every word position: a
  document is the bag of its words, P(doc | c) = Π_w P(w | c)^count_w. With the Laplace
  estimator (α = 1) its table is the course's P(w_k | v_j) = (n_k + 1)/(n + |Vocabulary|).

Each kind is read by its own likelihood class on the shared base
:class:`~bbn.tasks.classification.base.LikelihoodClassifier` (categorical, bernoulli,
gaussian_features, multinomial and, for ``structure="tan"``, tree_augmented);
:class:`NaiveBayes` picks them from its options. Classifying many rows is numpy
throughout, in log space so that a 1,000-word message or 400 pixels never underflow.

>>> import bbn, pandas as pd
>>> X = pd.DataFrame({"outlook": ["sunny", "rainy", "sunny"], "windy": ["no", "no", "yes"]})
>>> model = bbn.NaiveBayes(estimator="laplace").fit(X, ["no", "yes", "no"])
>>> model.predict(pd.DataFrame({"outlook": ["rainy"], "windy": ["no"]})).tolist()
['yes']
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from bbn.core.data import read_data, state_texts, states_from_values
from bbn.core.errors import DataError, suggest
from bbn.core.lazy import lazy_attributes
from bbn.model.network import Network
from bbn.questions.partitions import is_dask
from bbn.tasks.classification.base import WORD_KINDS, LikelihoodClassifier
from bbn.tasks.classification.bernoulli import BernoulliLikelihood
from bbn.tasks.classification.categorical import CategoricalLikelihood
from bbn.tasks.classification.decisions import check_rule
from bbn.tasks.classification.gaussian_features import GaussianLikelihood
from bbn.tasks.classification.inputs import (
    KINDS,
    WORD,
    Inputs,
    as_array,
    check_sample_weight,
    feature_kinds,
    generated_names,
)
from bbn.tasks.classification.likelihood import Likelihood
from bbn.tasks.classification.multinomial import WordLikelihood
from bbn.tasks.learning.discretisation import discretiser_for, parse_option
from bbn.tasks.learning.estimators import Estimator, estimator_from_arguments
from bbn.tasks.learning.gaussian import check_ddof
from bbn.tasks.learning.parameters import learn
from bbn.tasks.learning.policies import check_unseen

#: The shapes of the network: the star class → features, or tree-augmented (TAN).
STRUCTURES = ("naive", "tan")
#: Key of the bag-of-words node in ``nodes_`` (no column can be named this).
WORD_KEY = "\0word"
#: The tree-augmented likelihood, loaded on first use: its tree needs networkx (~0.3 s
#: to import), and only a TAN needs it.
_TREE_AUGMENTED = lazy_attributes(__name__, {
    "TreeAugmentedLikelihood": "bbn.tasks.classification.tree_augmented"})


def naive_bayes(class_variable: str, features, data=None, *, class_states=None,
                name: str = "naive Bayes", estimator: Estimator | str = "mle",
                ddof: int = 1, var_smoothing: float = 0.0, m: float | None = None,
                prior: Mapping | None = None, alpha: float | None = None,
                ess: float | None = None) -> Network:
    """The star network ``class_variable`` → each feature; learned from ``data`` if given.

    Parameters
    ----------
    class_variable : str
        The class node's name.
    features : mapping or list of str
        Each feature mapped to its states, or to ``"gaussian"`` for a continuous one; a
        plain list of names takes every feature's states from ``data``.
    data : DataFrame, str or path, optional
        Rows to learn every table from (the class's too), rows with a missing value
        dropped; without it the result declares structure only (fill it with
        :func:`bbn.learn`).
    class_states : list of str, optional
        The class's states (default: the values in ``data``).
    name : str, default "naive Bayes"
        The network's name.
    estimator : Estimator or str, default "mle"
        How the tables are estimated (:mod:`bbn.tasks.learning.estimators`).
    ddof, var_smoothing
        Gaussian features, as :func:`bbn.learn`.
    m, prior, alpha, ess
        Deprecated (FutureWarning): give the estimator as a value instead.

    Returns
    -------
    Network

    Raises
    ------
    DataError
        When states can be taken neither from the arguments nor from ``data``, a
        column is absent, or learning fails (see :func:`bbn.learn`).

    Examples
    --------
    >>> net = naive_bayes("play", {"windy": ["true", "false"]}, class_states=["yes", "no"])
    >>> net.parents("windy"), net.is_complete
    (('play',), False)
    """
    estimator = estimator_from_arguments("bbn.naive_bayes", estimator, m=m, prior=prior,
                                         alpha=alpha, ess=ess)
    frame = None
    if data is not None:
        frame, _ = read_data(data)
    if not isinstance(features, Mapping):
        features = {str(f): None for f in features}
    if class_states is None:
        if frame is None:
            raise DataError("naive_bayes needs class_states=... or data to take them from")
        class_states = states_from_values(_column(frame, class_variable))
    net = Network(name)
    net.add_variable(class_variable, class_states)
    for feature, states in features.items():
        if isinstance(states, str) and states == "gaussian":
            net.add_gaussian_variable(feature, [class_variable])
            continue
        if states is None:
            if frame is None:
                raise DataError(f"feature {feature!r} needs its states (or data to take "
                                "them from)")
            states = states_from_values(_column(frame, feature))
        net.add_variable(feature, states, parents=[class_variable])
    if frame is None:
        return net
    return learn(net, frame, estimator, ddof=ddof, var_smoothing=var_smoothing,
                 missing="drop")


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame.columns:
        raise DataError(f"data has no column {name!r}{suggest(name, map(str, frame.columns))}")
    return frame[name]


class NaiveBayes(LikelihoodClassifier):
    """A naive Bayes classifier whose model is an ordinary bbn network (``network_``).

    scikit-learn compatible (``fit``, ``predict``, ``predict_proba``,
    ``predict_log_proba``, ``score``, ``classes_``, ``get_params``/``set_params``,
    clone-able, usable in pipelines and ``cross_val_score``) without importing it. The
    constructor stores its arguments as given; they are checked by ``fit``.

    Parameters
    ----------
    features : None, str, mapping or list, default None
        The kind of every feature: None (by its values: numbers ``gaussian``, unless
        they are at most 20 distinct whole numbers, and all else ``categorical``, see
        :func:`~bbn.tasks.classification.inputs.default_kind`; raw texts → ``text``; a
        sparse matrix → ``multinomial``), one kind for all, ``{column: kind}`` (others
        categorical) or a list with one kind per column. Kinds: ``KINDS``.
    estimator : Estimator or str, default "laplace"
        How the feature tables are estimated: ``bbn.MLE()``, ``bbn.Laplace(alpha)``,
        ``bbn.MEstimate(m, prior)``, ``bbn.BDeu(ess)``, or one's name (as
        :func:`bbn.learn`). The default is Laplace with α = 1, as scikit-learn's naive
        Bayes, so that a word or value seen with some classes only never gets
        probability 0 (:func:`bbn.learn` keeps ``mle``).
    states : list or mapping, optional
        The states of categorical features: one list for all, or ``{column: states}``;
        otherwise the values seen in training.
    class_prior : array-like or mapping, optional
        P(class); None estimates it by relative frequency (the course's
        P(v_j) = |examples_j| / |examples|, and scikit-learn's); or probabilities in
        ``classes_`` order, or a ``{class: p}`` mapping.
    ddof, var_smoothing : int, float
        Gaussian features: σ² = Σ(x − μ)²/(N_c − ddof) + var_smoothing · (largest
        feature variance), never below ``VARIANCE_FLOOR`` times it.
    binarize : float, default 0.0
        Bernoulli features: present when ``x > binarize``.
    unseen : {"error", "ignore"}, default "error"
        A categorical value that is not among the feature's states: an error, or the
        feature is skipped for that row, as if missing. Missing values (NaN/None) are
        always skipped; words outside the vocabulary are always skipped (the course's
        rule).
    decision : {"map", "ml", "risk"}, default "map"
        The decision rule; ``"risk"`` needs ``loss``.
    loss : array-like, mapping, DataFrame or path, optional
        The loss matrix (rows predicted, columns true class; see
        :mod:`bbn.tasks.classification.decisions`).
    class_variable : str, optional
        The class node's name (default: ``y.name`` or ``"class"``).
    token_pattern : str, optional
        The regular expression that finds tokens in raw text (default
        ``bbn.tasks.classification.text.TOKEN_PATTERN``: words and runs of symbols;
        ``WORD_PATTERN`` for words only, as scikit-learn's ``r"\b\\w+\b"``).
    structure : {"naive", "tan"}, default "naive"
        ``"tan"``: tree-augmented naive Bayes (:mod:`bbn.tasks.structure.tan`), the
        categorical and Bernoulli features also form a tree, the maximum spanning tree of
        I(Xi; Xj | C) rooted at the first of them, so each has the class and at most one
        feature as parents: P(c | x) ∝ P(c) Π_i P(xi | c, x_pa(i)). A missing value is
        summed out (exact, as the network's inference); Gaussian and word features stay
        children of the class only.
    discretize : str or Discretiser, optional
        Numeric columns cut into intervals (categorical features) before anything else:
        a method of :func:`bbn.discretize` (``"quantile"``, ``"kmeans:4"``, ``"mdlp"``
        supervised by the labels) fitted by ``fit``, or a fitted discretiser; the cuts
        are ``discretiser_`` and apply to the rows predicted.
    m, prior, alpha, ess : optional, keyword only
        Deprecated (FutureWarning at ``fit``): the settings of a named estimator; give
        the estimator as a value instead (``estimator=bbn.MEstimate(m=2)``).

    Attributes
    ----------
    classes_ : numpy.ndarray
        The class labels, sorted.
    network_ : Network
        The fitted star network.
    likelihoods_ : list of Likelihood
        One likelihood per kind of feature (:mod:`bbn.tasks.classification.likelihood`),
        each with its own fitted attributes (``states_``, ``vocabulary_``, ``tree_``...).
    feature_kinds_, nodes_, vocabulary_, class_variable_, n_features_in_,
    feature_names_in_
        The kind and node of every column, the bag of words' vocabulary, the class
        node's name, and the columns seen by ``fit`` (as scikit-learn).

    Examples
    --------
    >>> import bbn
    >>> model = bbn.NaiveBayes(estimator=bbn.Laplace(alpha=0.5))
    >>> model.fit([["a"], ["b"], ["b"]], ["x", "y", "y"]).predict([["b"]]).tolist()
    ['y']
    """

    def __init__(self, features=None, estimator: Estimator | str = "laplace", states=None,
                 class_prior=None, ddof: int = 1, var_smoothing: float = 0.0,
                 binarize: float = 0.0, unseen: str = "error", decision: str = "map",
                 loss=None, class_variable: str | None = None,
                 token_pattern: str | None = None, structure: str = "naive",
                 discretize=None, *, m: float | None = None,
                 prior: Mapping | None = None, alpha: float | None = None,
                 ess: float | None = None):
        self.features = features
        self.estimator = estimator
        self.states = states
        self.class_prior = class_prior
        self.ddof = ddof
        self.var_smoothing = var_smoothing
        self.binarize = binarize
        self.unseen = unseen
        self.decision = decision
        self.loss = loss
        self.class_variable = class_variable
        self.token_pattern = token_pattern
        self.structure = structure
        self.discretize = discretize
        self.m = m
        self.prior = prior
        self.alpha = alpha
        self.ess = ess

    # -------------------------------------------------------------- fitting

    def _settings(self) -> Estimator:
        """The estimator, every setting checked (fit's first step)."""
        estimator = estimator_from_arguments(type(self).__name__, self.estimator, m=self.m,
                                             prior=self.prior, alpha=self.alpha, ess=self.ess)
        check_rule(self.decision, self.loss)
        check_structure(self.structure)
        check_unseen(self.unseen)
        check_ddof(self.ddof)
        return estimator

    def _network_name(self) -> str:
        return "naive Bayes" if self.structure == "naive" else "tree-augmented naive Bayes"

    def _describe(self, X, y, inputs: Inputs) -> None:
        """The model's shape from the first data: every column's kind and likelihood, the
        class node's name, the states of the categorical features (``states``, else the
        values of ``inputs``: all rows, the first batch, or a Dask fit's distinct values)."""
        class_states = [state_texts(c)[0] for c in self.classes_]
        if len(set(class_states)) != len(class_states):
            raise DataError(f"class labels {list(self.classes_)} do not have distinct names")
        kinds = feature_kinds(self.features, inputs)
        self.feature_kinds_ = kinds
        columns = columns_by_kind(kinds)
        self.n_features_in_ = len(inputs.names)
        self._named = inputs.named  # columns matched by name at predict
        if inputs.named and all(isinstance(c, str) for c in X.columns):  # as scikit-learn
            self.feature_names_in_ = np.array(inputs.names, dtype=object)
        else:
            vars(self).pop("feature_names_in_", None)  # from an earlier fit
        self.class_variable_ = self.class_variable or (
            getattr(y, "name", None) if isinstance(getattr(y, "name", None), str)
            else None) or "class"
        self.likelihoods_ = self._likelihoods(columns, inputs)
        self.nodes_ = {c: part.node(c) for part in self.likelihoods_
                       if part.kind not in WORD_KINDS for c in part.columns}
        for part in self.likelihoods_:
            if part.kind in WORD_KINDS:
                self.nodes_[WORD_KEY] = part.node()
        if self.class_variable_ in self.nodes_.values():
            raise DataError(f"the class variable {self.class_variable_!r} has the name of a "
                            "feature; choose another with class_variable=...")
        if columns["multinomial"] and WORD in columns["own node"]:
            raise DataError(f"a column is named {WORD!r}, the name of the word-count node")

    def _likelihoods(self, columns: Mapping[str, list[str]], inputs: Inputs) -> list[Likelihood]:
        """One likelihood per kind of feature present; with ``structure="tan"`` the
        categorical and Bernoulli ones form one tree."""
        discrete: list[CategoricalLikelihood] = []
        if columns["categorical"]:
            discrete.append(CategoricalLikelihood.declared(columns["categorical"], inputs,
                                                           self._declared_states()))
        if columns["bernoulli"]:
            discrete.append(BernoulliLikelihood(columns["bernoulli"], self.binarize))
        parts: list[Likelihood] = list(discrete)
        if self.structure == "tan" and discrete:
            chosen = set(columns["categorical"]) | set(columns["bernoulli"])
            parts = [_TREE_AUGMENTED("TreeAugmentedLikelihood")(
                discrete, [c for c in columns["own node"] if c in chosen])]
        if columns["gaussian"]:
            parts.append(GaussianLikelihood(columns["gaussian"], self.ddof, self.var_smoothing))
        if columns["text"] or columns["multinomial"]:
            parts.append(WordLikelihood(columns["text"], columns["multinomial"],
                                        self.token_pattern))
        return parts

    def _declared_states(self):
        """``states``, with the intervals of the cut columns (in order) added."""
        cutter = getattr(self, "discretiser_", None)
        if cutter is None or (self.states is not None and not isinstance(self.states, Mapping)):
            return self.states
        return {**{c: cutter.states[c] for c in cutter.cuts},
                **{str(c): s for c, s in (self.states or {}).items()}}

    def _prepared(self, X, y=None, refit: bool = False):
        """X with its numeric columns cut (``discretize``); the cuts fitted when ``refit``."""
        if self.discretize is None:
            vars(self).pop("discretiser_", None)
            return X
        if is_dask(X):
            raise DataError("discretize= cuts rows held in memory, not a Dask collection: "
                            "fit bbn.discretize on a sample, transform each partition "
                            "(map_partitions) and fit on that")
        named = isinstance(X, pd.DataFrame)
        frame = X if named else pd.DataFrame(as_array(X))
        if not named:
            frame.columns = generated_names(frame.shape[1])
        if refit or getattr(self, "discretiser_", None) is None:
            option, target = self.discretize, None
            if isinstance(option, str) and parse_option(option)[0] == "mdlp":
                target = "\0class"
                frame = frame.assign(**{target: np.ravel(np.asarray(y, dtype=object))})
            self.discretiser_ = discretiser_for(option, frame, target)
            frame = frame.drop(columns=[c for c in (target,) if c is not None])
        cut = self.discretiser_.transform(frame)
        return cut if named else cut.to_numpy(dtype=object)

    @property
    def vocabulary_(self) -> tuple[str, ...]:
        """The bag of words' vocabulary (empty without one), as fitted."""
        if not hasattr(self, "likelihoods_"):
            raise AttributeError("vocabulary_")
        return next((part.vocabulary_ for part in self.likelihoods_
                     if part.kind in WORD_KINDS), ())

    def _input_tags(self) -> dict:
        """scikit-learn's input tags for this instance's kind of features: raw text is one
        string per row (a 1-D X), word counts may be sparse and are non-negative, and
        numbers read as Bernoulli or Gaussian features are not categories."""
        kind = self.features if isinstance(self.features, str) else None
        if kind == "text":
            return dict(one_d_array=True, two_d_array=False, string=True, allow_nan=True)
        if kind == "multinomial":  # a missing count (NaN) counts no word
            return dict(positive_only=True, sparse=True, string=True, allow_nan=True)
        if kind in ("gaussian", "bernoulli"):  # numbers, also written as texts ("3.5")
            return dict(categorical=False, string=True, allow_nan=True)
        # categorical (None: also a sparse matrix of word counts, read as multinomial)
        return dict(super()._input_tags(), sparse=self.features is None)

    def _poor_score(self) -> bool:
        # Word counts of continuous blobs (scikit-learn's test data) are no bag of words.
        return self.features == "multinomial"


def columns_by_kind(kinds: Mapping[str, str]) -> dict[str, list[str]]:
    """The columns of every kind, in column order; ``"own node"``: the columns that are a
    node of their own (categorical, Bernoulli, Gaussian), not part of the bag of words.

    >>> columns_by_kind({"a": "gaussian", "b": "text"})["own node"]
    ['a']
    """
    used = set(kinds.values())
    if len(used) == 1:  # the usual case, and thousands of word-count columns: no loop
        (only,) = used
        columns = {kind: list(kinds) if kind == only else [] for kind in KINDS}
    else:
        columns = {kind: [] for kind in KINDS}
        for column, kind in kinds.items():
            columns[kind].append(column)
    columns["own node"] = [c for c, k in kinds.items() if k not in WORD_KINDS] if (
        len(used) > 1) else ([] if used <= set(WORD_KINDS) else list(kinds))
    return columns


def check_structure(structure) -> str:
    """``structure`` if it is one of ``STRUCTURES``, else a DataError (did you mean).

    >>> check_structure("tan")
    'tan'
    """
    if not isinstance(structure, str) or structure not in STRUCTURES:
        raise DataError(f"unknown structure {structure!r}; the structures are "
                        f"{', '.join(STRUCTURES)}{suggest(str(structure), STRUCTURES)}")
    return structure


__all__ = ["KINDS", "STRUCTURES", "NaiveBayes", "check_sample_weight", "naive_bayes"]

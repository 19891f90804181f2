"""Gaussian family scores for a structure search over continuous columns.

For a child X with continuous parents U (|U| = k) over n complete rows, the maximum
log-likelihood of the linear Gaussian X | U ~ N(b_0 + bᵀu, σ²) depends on the residual
sum of squares only, which the centred cross-product matrix C = Σ (x − x̄)(x − x̄)ᵀ of
all columns gives for every family at once:

    RSS(X | U) = C_XX − C_XU C_UU⁻¹ C_UX,      loglik = −n/2 · (ln(2π · RSS/n) + 1)

    bic-g = loglik − (k + 2)/2 · ln n,   aic-g = loglik − (k + 2),   loglik-g = loglik

(k + 2 parameters: the intercept, k weights and the variance; bnlearn's ``bic-g`` and
pgmpy's ``BICGauss``). :class:`GaussianFamilyScores` answers the hill climb
(:mod:`bbn.tasks.structure.hill_climbing`) as
:class:`~bbn.tasks.structure.family_scores.FamilyScores` does for counts; each family
costs one k × k solve, and the data are read once.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a = rng.normal(size=500); b = 2 * a + rng.normal(size=500)
>>> scores = GaussianFamilyScores(("a", "b"), np.column_stack([a, b]), "bic-g")
>>> bool(scores.score(1, (0,)) > scores.score(1, ()))
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bbn.core.data import numeric_column, read_data
from bbn.core.errors import DataError
from bbn.core.progress import reporter
from bbn.tasks.learning.parameters import learn
from bbn.tasks.structure.dataset import read_coded
from bbn.tasks.structure.hill_climbing import ClimbOptions, hill_climb
from bbn.tasks.structure.knowledge import Knowledge
from bbn.tasks.structure.learned import LearnedNetwork
from bbn.tasks.structure.method import Settings
from bbn.tasks.structure.mixed_scores import ConditionalGaussianScores

#: The Gaussian scores by name: the penalty per parameter (× ln n for BIC); ``-cg``: the
#: conditional Gaussian ones, with discrete columns (:mod:`bbn.tasks.structure.mixed_scores`).
GAUSSIAN_SCORES = {"bic-g": "bic", "aic-g": "aic", "loglik-g": "loglik",
                   "bic-cg": "bic", "aic-cg": "aic", "loglik-cg": "loglik"}


class GaussianFamilyScores:
    """The cached Gaussian score of every family asked for.

    Parameters
    ----------
    variables : tuple of str
        The columns' names.
    values : numpy.ndarray
        The rows, shape ``(n, p)``, complete and finite.
    score : {"bic-g", "aic-g", "loglik-g"}
        The score.

    Attributes
    ----------
    scored, hits, skipped_memory : int
        Families scored, answered from the cache, and (always 0) skipped.

    Raises
    ------
    DataError
        For fewer than two rows, or a column with no variance.

    Examples
    --------
    >>> x = np.array([[0.0, 1.0], [1.0, 3.1], [2.0, 4.9], [3.0, 7.0]])
    >>> scores = GaussianFamilyScores(("x", "y"), x, "loglik-g")
    >>> round(scores.score(1, (0,)), 4)     # RSS 0.018: −2 (ln(2π · 0.0045) + 1)
    5.1316
    """

    def __init__(self, variables: Sequence[str], values: np.ndarray, score: str) -> None:
        self.variables = tuple(variables)
        n = len(values)
        if n < 2:
            raise DataError(f"a Gaussian structure score needs at least 2 rows, got {n}")
        centred = values - values.mean(axis=0)
        self.cross = centred.T @ centred
        flat = np.flatnonzero(np.diag(self.cross) <= 1e-12 * max(1.0, float(
            np.abs(self.cross).max())))
        if len(flat):
            raise DataError(f"column {self.variables[int(flat[0])]!r} is constant: a "
                            "Gaussian score needs variance in every column")
        self.n = n
        self.penalty = {"bic": 0.5 * math.log(n), "aic": 1.0, "loglik": 0.0}[
            GAUSSIAN_SCORES[score]]
        self.cache: dict[tuple[int, tuple[int, ...]], float] = {}
        self.scored = self.hits = self.skipped_memory = 0

    def log_likelihood(self, child: int, parents: Sequence[int]) -> float:
        """The maximum log-likelihood of ``child`` given ``parents``."""
        c, u = self.cross, list(parents)
        rss = c[child, child]
        if u:
            rss -= c[child, u] @ np.linalg.solve(c[np.ix_(u, u)], c[u, child])
        rss = max(float(rss), 1e-300)
        return -0.5 * self.n * (math.log(2 * math.pi * rss / self.n) + 1.0)

    def score(self, child: int, parents: Sequence[int]) -> float:
        """s(child, parents): log-likelihood − penalty · (|parents| + 2)."""
        key = (child, tuple(sorted(parents)))
        known = self.cache.get(key)
        if known is not None:
            self.hits += 1
            return known
        value = self.log_likelihood(child, key[1]) - self.penalty * (len(key[1]) + 2)
        self.cache[key] = value
        self.scored += 1
        return value

    #: The score change of toggling each p of ``others`` in the child's ``parents``: the
    #: conditional Gaussian scores' method, on this class's :meth:`score`.
    gains = ConditionalGaussianScores.gains

    def prefetch(self, needed: np.ndarray) -> None:
        """Nothing to do: a family costs one small solve."""


def continuous_column(column) -> bool:
    """Whether a column holds continuous numbers: floats, some of them not whole.

    >>> import pandas as pd
    >>> continuous_column(pd.Series([0.5, 1.0])), continuous_column(pd.Series([0.0, 1.0]))
    (True, False)
    """
    return column.dtype.kind == "f" and bool((column.dropna() % 1 != 0).any())


def numeric_frame(frame) -> bool:
    """Whether some column of a DataFrame is continuous (:func:`continuous_column`): the
    frame is searched with a Gaussian (or conditional Gaussian) score.

    >>> import pandas as pd
    >>> numeric_frame(pd.DataFrame({"a": [0.5, 1.0]})), numeric_frame(pd.DataFrame({"a": [0, 1]}))
    (True, False)
    """
    return any(continuous_column(frame[c]) for c in frame.columns)


#: Restarts of the Gaussian hill climb unless ``restarts=`` is given.
RESTARTS = 5


class _Columns(NamedTuple):
    """What the climb reads of the data: the variables."""

    variables: tuple[str, ...]


def gaussian_structure(data, score: str, *, columns=None, required=(),
                       forbidden=(), tiers=None, max_parents=None, start=None,
                       missing: str = "error", seed: int = 0, progress=None,
                       name: str = "learned", options=None) -> LearnedNetwork:
    """A (conditional) linear Gaussian network learned from continuous columns, and
    discrete ones if any: hill climbing on a Gaussian score (conditional Gaussian with
    discrete columns, :mod:`bbn.tasks.structure.mixed_scores`; no arc from a continuous
    to a discrete variable), then least squares per family (:func:`bbn.learn`).

    Parameters
    ----------
    data : DataFrame, path or array
        Rows, one column per variable; float columns with fractional values are
        continuous, the others discrete (their distinct values, sorted, the states).
    score : {"bic-g", "aic-g", "loglik-g", "bic-cg", "aic-cg", "loglik-cg"}
        The Gaussian score (the ``-cg`` one is used when there are discrete columns).
    columns, required, forbidden, tiers, max_parents, start, missing, seed, progress, name
        As for :func:`bbn.learn_structure`; ``missing="drop"`` keeps the complete rows.
    options : dict, optional
        Hill-climbing options (``tabu_length``, ``restarts``...); ``restarts`` defaults
        to :data:`RESTARTS` here (a family costs one small solve, and a v-structure is
        often missed by a single climb: 2 of 4 samples of 5,000 rows in the tests).

    Returns
    -------
    LearnedNetwork

    Raises
    ------
    ModelError
        For knowledge that contradicts itself.
    DataError
        For a missing value (``missing="error"``), a text cell in a continuous column,
        or a constant column.

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> a = rng.normal(size=2000); b = a + rng.normal(size=2000)
    >>> c = b + rng.normal(size=2000)
    >>> net = gaussian_structure(pd.DataFrame({"a": a, "b": b, "c": c}), "bic-g")
    >>> len(net.arcs()), net.is_gaussian("c"), net.method_
    (2, True, 'hc')
    """
    frame, source = read_data(data, columns)
    holes = frame.isna().any(axis=1).to_numpy()
    if holes.any():
        if missing != "drop":
            row = int(np.flatnonzero(holes)[0])
            column = str(frame.columns[int(np.flatnonzero(frame.iloc[row].isna())[0])])
            raise DataError(f"{source}: column {column!r}, row {row}: missing value; pass "
                            "missing='drop' to search on the complete rows")
        frame = frame[~holes]
    continuous = [str(v) for v in frame.columns if continuous_column(frame[v])]
    discrete = [str(v) for v in frame.columns if str(v) not in continuous]
    if not continuous:
        raise DataError(f"{source}: the {score!r} score needs a continuous column (floats "
                        "with fractional values); these columns are discrete")
    variables = tuple(discrete + continuous)  # the mixed scores read the discrete first
    values = np.column_stack([numeric_column(frame[v], v, source) for v in continuous])
    knowledge = Knowledge.build(variables, required, [*forbidden, *(
        (c, d) for c in continuous for d in discrete)], tiers, max_parents)
    first = None
    if start is not None:
        parents = [set() for _ in variables]
        for p, c in (*start.arcs(), *((variables[p], variables[c])
                                       for p, c in knowledge.required)):
            parents[variables.index(c)].add(variables.index(p))
        first = tuple(tuple(sorted(ps)) for ps in parents)
        knowledge.check_dag(first, "the start network (with the required arcs)")
    base = score[:-3] if score.endswith("-cg") else score[:-2]
    score = f"{base}-cg" if discrete else f"{base}-g"
    settings = Settings(score=score, seed=int(seed), start=first, progress=reporter(progress),
                        options={"restarts": RESTARTS, **(options or {})})
    if discrete:
        coded = read_coded(frame[discrete])
        scores = ConditionalGaussianScores(coded, variables, values, score)
    else:
        scores = GaussianFamilyScores(variables, values, score)
    found = hill_climb(_Columns(variables), knowledge, settings,
                       ClimbOptions.read(settings, "hc"), scores=scores)
    knowledge.check_dag(found.parents, "the structure found by 'hc'")
    structure = LearnedNetwork(name)
    for v in map(str, frame.columns):  # in the data's column order
        if v in continuous:
            structure.add_gaussian_variable(v)
        else:
            structure.add_variable(v, coded.states[coded.variables.index(v)])
    for c, ps in enumerate(found.parents):
        if ps:
            structure.set_parents(variables[c], [variables[p] for p in ps])
    rows = frame[list(map(str, frame.columns))].copy()
    for v in discrete:  # the states as text, as the coding named them
        rows[v] = rows[v].map(str)
    learned = learn(structure, rows)
    return learned.record("hc", found.score, [], found.statistics)

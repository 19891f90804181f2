"""Conditional Gaussian family scores: a structure search over discrete and continuous
columns together (bnlearn's ``bic-cg``).

A discrete child has discrete parents only (its score is the usual one from counts,
:class:`~bbn.tasks.structure.family_scores.FamilyScores`); a continuous child X with
discrete parents D (q configurations) and continuous parents Y (m of them) is a linear
regression per configuration d, from its Gram matrices
(:mod:`bbn.tasks.learning.regression`):

    loglik = Σ_d −n_d/2 · (ln(2π · RSS_d / n_d) + 1),    k = (m + 2) · q

    bic-cg = loglik − k/2 · ln n,   aic-cg = loglik − k,   loglik-cg = loglik

The search forbids arcs from continuous to discrete variables (no such conditional
Gaussian family exists).

>>> import numpy as np
>>> from bbn.tasks.structure.dataset import CodedData
>>> rng = np.random.default_rng(0)
>>> s = rng.integers(0, 2, 400)
>>> x = np.where(s == 1, 3.0, 0.0) + rng.normal(size=400)
>>> scores = ConditionalGaussianScores(CodedData(("S",), (("0", "1"),), s[:, None]),
...                                    ("S", "x"), x[:, None], "bic-cg")
>>> bool(scores.score(1, (0,)) > scores.score(1, ()))     # x depends on S
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from bbn.core.codes import mixed_radix
from bbn.tasks.learning.regression import Gram, gaussian_log_likelihood
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.family_scores import FamilyScores

#: The discrete score each conditional Gaussian score pairs with.
_DISCRETE = {"bic-cg": "bic", "aic-cg": "aic", "loglik-cg": "loglik"}


class ConditionalGaussianScores:
    """The cached conditional Gaussian score of every family asked for.

    Parameters
    ----------
    discrete : CodedData
        The discrete columns, coded.
    variables : tuple of str
        Every variable: the discrete ones first (in ``discrete``'s order), then the
        continuous ones (the columns of ``values``).
    values : numpy.ndarray
        The continuous columns, shape ``(n, len(variables) − len(discrete.variables))``.
    score : {"bic-cg", "aic-cg", "loglik-cg"}

    Examples
    --------
    >>> data = CodedData(("A",), (("0", "1"),), np.array([[0], [1], [0], [1]]))
    >>> scores = ConditionalGaussianScores(data, ("A", "x"), np.array([[0.1], [2.0],
    ...                                     [-0.1], [2.2]]), "loglik-cg")
    >>> round(scores.score(1, (0,)), 4)   # per A: RSS 0.02, 2 rows: −(ln(2π · 0.01) + 1)
    3.5346
    """

    def __init__(self, discrete: CodedData, variables: Sequence[str], values: np.ndarray,
                 score: str) -> None:
        self.counts = FamilyScores(discrete, _DISCRETE[score])
        self.variables = tuple(variables)
        self.d = len(discrete.variables)
        self.codes = discrete.codes
        self.cards = list(discrete.cardinality)
        self.values = values
        n = len(values)
        self.penalty = {"bic": 0.5 * math.log(max(n, 1)), "aic": 1.0, "loglik": 0.0}[
            _DISCRETE[score]]
        self.cache: dict[tuple[int, tuple[int, ...]], float] = {}
        self.own_scored = self.own_hits = 0

    @property
    def scored(self) -> int:
        """Families scored (counts and regressions)."""
        return self.counts.scored + self.own_scored

    @property
    def hits(self) -> int:
        """Families answered from a cache."""
        return self.counts.hits + self.own_hits

    @property
    def skipped_memory(self) -> int:
        """Discrete families over the memory limit."""
        return self.counts.skipped_memory

    def score(self, child: int, parents: Sequence[int]) -> float:
        """s(child, parents); −∞ for a discrete child with a continuous parent."""
        parents = tuple(sorted(parents))
        if child < self.d:
            if any(p >= self.d for p in parents):
                return -math.inf
            return self.counts.score(child, parents)
        key = (child, parents)
        known = self.cache.get(key)
        if known is not None:
            self.own_hits += 1
            return known
        discrete = [p for p in parents if p < self.d]
        cards = [self.cards[p] for p in discrete]
        index = (mixed_radix([self.codes[:, p] for p in discrete], cards) if discrete
                 else np.zeros(len(self.values), np.int64))
        design = np.column_stack([np.ones(len(self.values)),
                                  self.values[:, [p - self.d for p in parents if p >= self.d]],
                                  self.values[:, child - self.d]])
        log_l, k = gaussian_log_likelihood(Gram.of(index, design, math.prod(cards)),
                                           self.variables[child])
        value = log_l - self.penalty * k
        self.cache[key] = value
        self.own_scored += 1
        return value

    def gains(self, child: int, parents: Sequence[int], others: Sequence[int]) -> np.ndarray:
        """The score change of toggling each p of ``others`` in the child's ``parents``."""
        current = tuple(sorted(parents))
        base = self.score(child, current)
        return np.array([self.score(child, tuple(q for q in current if q != p) if p in current
                                    else (*current, p)) - base for p in others])

    def prefetch(self, needed: np.ndarray) -> None:
        """Nothing to do: families are scored when first asked for."""

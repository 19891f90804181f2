"""Decomposable structure scores: how well a DAG explains complete discrete data.

Every score is a sum over families, S(G : D) = Σ_X s(X, Pa(X)), each term a function of
the family counts N_jk = #rows with Pa(X) in configuration j and X in state k
(N_j = Σ_k N_jk, N rows, r = |X|, q = Π_{P ∈ Pa(X)} |P|). Natural logarithms:

    loglik  s = Σ_jk N_jk ln(N_jk / N_j)                       (0 · ln 0 = 0)
    bic     s = loglik − (ln N / 2) · q (r − 1)
    aic     s = loglik − q (r − 1)
    k2      s = Σ_j [ ln Γ(r) − ln Γ(N_j + r) + Σ_k ln Γ(N_jk + 1) ]
    bdeu    s = Σ_j [ ln Γ(α/q) − ln Γ(N_j + α/q) + Σ_k (ln Γ(N_jk + α/(qr)) − ln Γ(α/(qr))) ]

with α the equivalent sample size (``ess``) of BDeu. A parent configuration never seen
adds 0 to every score, so the numbers equal pgmpy's (``BIC``, ``AIC``, ``BDeu``) for the
same DAG, data and states; pgmpy's ``K2`` adds ln Γ(r) for each such configuration
(ln Γ(r) − ln Γ(0 + r) is 0 in Cooper and Herskovits' formula). BIC, AIC, the
log-likelihood and BDeu give Markov-equivalent DAGs the same score (A → B and B → A in
:func:`structure_score`'s example); K2 does not.

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"])
>>> net.add_variable("B", ["T", "F"], parents=["A"])
>>> rows = pd.DataFrame({"A": list("TTFFT"), "B": list("TFFFT")})
>>> round(structure_score(net, rows, "bic"), 6)
-7.688758
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from bbn.core.errors import DataError, ModelError, suggest
from bbn.io.chunks import source_name
from bbn.model.network import Network
from bbn.tasks.learning.counting import check_family_sizes
from bbn.tasks.learning.regression import gaussian_log_likelihood
from bbn.tasks.learning.statistics import table_statistics

#: The scores :func:`structure_score` knows, by name.
SCORES = ("loglik", "bic", "aic", "k2", "bdeu")


def _log_gamma(values: np.ndarray) -> np.ndarray:
    """ln Γ elementwise; counts repeat a few values, so math.lgamma runs once per
    distinct value, not once per entry."""
    distinct, inverse = np.unique(values, return_inverse=True)
    logs = np.array([math.lgamma(v) for v in distinct.tolist()])
    return logs[inverse].reshape(values.shape)


def check_ess(ess: float) -> None:
    """ModelError unless BDeu's equivalent sample size is a finite number > 0.

    >>> check_ess(0)
    Traceback (most recent call last):
        ...
    bbn.core.errors.ModelError: ess (BDeu's equivalent sample size) must be a number > 0, got 0
    """
    if not (isinstance(ess, (int, float)) and math.isfinite(ess) and ess > 0):
        raise ModelError(f"ess (BDeu's equivalent sample size) must be a number > 0, "
                         f"got {ess!r}")


def family_score(counts: np.ndarray, score: str = "bic", rows: int | None = None,
                 ess: float = 1.0) -> float:
    """The score of one family from its count table.

    Parameters
    ----------
    counts : numpy.ndarray
        N_jk, shape ``(|P1|, ..., |Pk|, |X|)`` (the child's states last).
    score : {"loglik", "bic", "aic", "k2", "bdeu"}
        The score (formulas in this module's docstring).
    rows : int, optional
        N, the number of rows (BIC's penalty); the counts' total by default.
    ess : float, default 1.0
        BDeu's equivalent sample size α (> 0).

    Returns
    -------
    float
        The family's term of the score, a natural logarithm.

    Examples
    --------
    >>> import numpy as np
    >>> round(family_score(np.array([3.0, 2.0]), "loglik"), 6)   # 3 ln(3/5) + 2 ln(2/5)
    -3.365058
    """
    counts = np.asarray(counts, dtype=float)
    r = counts.shape[-1]
    by_parent = counts.reshape(-1, r)
    q = by_parent.shape[0]
    totals = by_parent.sum(axis=1)
    if score in ("loglik", "bic", "aic"):
        seen = by_parent > 0
        ratio = np.divide(by_parent, totals[:, None], out=np.ones_like(by_parent),
                          where=seen)
        loglik = float(np.sum(by_parent * np.log(ratio)))
        if score == "loglik":
            return loglik
        n = float(totals.sum()) if rows is None else float(rows)
        penalty = q * (r - 1)
        return loglik - (0.5 * math.log(n) * penalty if score == "bic" and n > 0
                         else penalty if score == "aic" else 0.0)
    if score == "k2":
        return float(q * math.lgamma(r) - _log_gamma(totals + r).sum()
                     + _log_gamma(by_parent + 1.0).sum())
    if score == "bdeu":
        a_j, a_jk = ess / q, ess / (q * r)
        return float(q * math.lgamma(a_j) - _log_gamma(totals + a_j).sum()
                     + _log_gamma(by_parent + a_jk).sum() - q * r * math.lgamma(a_jk))
    raise ModelError(f"unknown score {score!r}; the scores are {', '.join(SCORES)}"
                     f"{suggest(str(score), SCORES)}")


#: The scores a Gaussian family has (a likelihood; no Dirichlet prior).
GAUSSIAN_SCORES = ("loglik", "bic", "aic")


def gaussian_score(statistic, score: str, rows: int, name: str) -> float:
    """A Gaussian family's term: log L − (k/2) log N (BIC), log L − k (AIC) or log L,
    from :func:`bbn.tasks.learning.regression.gaussian_log_likelihood`.

    >>> from bbn.tasks.learning.gaussian import Moments
    >>> m = Moments.of(np.zeros(4, dtype=np.int64), np.array([0.0, 1.0, 2.0, 3.0]), 1)
    >>> round(gaussian_score(m, "bic", 4, "x"), 6)   # −2 (log(2π · 1.25) + 1) − log 4
    -7.508336
    """
    log_l, k = gaussian_log_likelihood(statistic, name)
    if score == "bic":
        return log_l - 0.5 * k * math.log(rows)
    if score == "aic":
        return log_l - k
    return log_l


def structure_score(net: Network, data, score: str = "bic", *, ess: float = 1.0,
                    columns=None, per_variable: bool = False,
                    chunksize: int | None = None) -> float | Mapping[str, float]:
    """S(G : D): how well the DAG of ``net`` explains complete discrete ``data``.

    Only the structure is read (variables, states, parents): a structure-only model
    works. The data are read as :func:`bbn.learn` reads them.

    Parameters
    ----------
    net : Network
        The DAG and the variables' states.
    data : DataFrame, str or path, numpy array, iterable of DataFrames, or Dask DataFrame
        Complete rows (a missing value is a DataError: drop or impute first); files are
        read ``chunksize`` rows at a time and a Dask DataFrame is counted per partition,
        as :func:`bbn.learn` reads data.
    score : {"loglik", "bic", "aic", "k2", "bdeu"}, default "bic"
        The score; formulas in :mod:`bbn.tasks.structure.scores`.
    ess : float, default 1.0
        BDeu's equivalent sample size α (> 0).
    columns : sequence of str, optional
        Column names for a 2-D numpy array.
    per_variable : bool, default False
        Return ``{variable: its family's term}`` instead of the sum.
    chunksize : int, optional
        Rows per chunk of a CSV or Parquet file (the score does not depend on it).

    Returns
    -------
    float or dict
        The score (natural logarithm; higher is better), or its terms.

    Raises
    ------
    ModelError
        For an unknown score, ``ess`` ≤ 0, or a continuous (Gaussian) variable scored by
        K2 or BDeu (Gaussian families take the log-likelihood, BIC and AIC: the Gaussian
        BIC of conditional linear Gaussians, :func:`gaussian_score`).
    DataError
        For a missing column, a value that is no state, a missing value, or no rows.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> rows = pd.DataFrame({"A": list("TTFFT"), "B": list("TFFFT")})
    >>> a_to_b = bbn.Network()
    >>> a_to_b.add_variable("A", ["T", "F"])
    >>> a_to_b.add_variable("B", ["T", "F"], parents=["A"])
    >>> b_to_a = bbn.Network()
    >>> b_to_a.add_variable("B", ["T", "F"])
    >>> b_to_a.add_variable("A", ["T", "F"], parents=["B"])
    >>> [round(structure_score(n, rows, "bdeu", ess=1.0), 6) for n in (a_to_b, b_to_a)]
    [-8.500088, -8.500088]
    """
    if score not in SCORES:
        raise ModelError(f"unknown score {score!r}; the scores are {', '.join(SCORES)}"
                         f"{suggest(str(score), SCORES)}")
    check_ess(ess)
    continuous = [v for v in net.variables if net.is_gaussian(v)]
    if continuous and score not in GAUSSIAN_SCORES:
        raise ModelError(f"{continuous[0]!r} is continuous (Gaussian): its family is scored "
                         f"by {', '.join(GAUSSIAN_SCORES)}, not {score!r}")
    softmax = [v for v in net.variables if getattr(net.canonical(v), "kind", "") == "softmax"]
    if softmax:
        raise ModelError(f"{softmax[0]!r} is discrete with continuous parents (softmax "
                         "form): structure scores have no term for such a family")
    variables = list(net.variables)
    check_family_sizes(net)
    statistics = table_statistics(net, data, columns=columns, chunksize=chunksize,
                                  hint="structure scores need complete rows (drop or "
                                  "impute them first)")
    if not statistics.rows:
        raise DataError(f"{source_name(data)}: no rows to learn a structure from or score")
    terms = {v: family_score(statistics.counts[v], score, rows=statistics.rows, ess=ess)
             if v in statistics.counts else
             gaussian_score(statistics.moments[v], score, statistics.rows, v)
             for v in variables}
    return terms if per_variable else math.fsum(terms.values())

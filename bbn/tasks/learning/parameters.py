"""Learning every table of a network from data, its structure given.

    P(X = x | Pa = pa)  ←  estimator(n(pa, x))      for every variable X

where n(pa, x) counts the rows in which X's family takes that configuration (see
:mod:`bbn.tasks.learning.counting`) and the estimator is one of
:mod:`bbn.tasks.learning.estimators`.
Gaussian variables get a mean and a variance per parent configuration
(:func:`bbn.tasks.learning.gaussian.fit_gaussian`).

>>> import bbn, pandas as pd
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"])
>>> net.add_variable("B", ["T", "F"], parents=["A"])
>>> rows = pd.DataFrame({"A": ["T", "T", "F", "F"], "B": ["T", "F", "F", "F"]})
>>> learn(net, rows).cpt("B").to_dict()[("T", "T")]
0.5
"""

from __future__ import annotations

from collections.abc import Mapping

from bbn.core.errors import DataError, ModelError
from bbn.core.progress import Progress
from bbn.io.chunks import source_name
from bbn.model.network import Network
from bbn.tasks.learning.counting import check_family_sizes
from bbn.tasks.learning.discretisation import discretiser_for
from bbn.tasks.learning.estimators import (
    Estimator,
    estimator_from_arguments,
    table_from_counts,
)
from bbn.tasks.learning.gaussian import check_ddof, epsilon_from_moments, gaussian_from_moments
from bbn.tasks.learning.hybrid_em import hybrid_em
from bbn.tasks.learning.missing import em
from bbn.tasks.learning.noisy_em import learn_noisy, noisy_variables, without_parents
from bbn.tasks.learning.policies import MISSING_POLICIES
from bbn.tasks.learning.regression import Gram, fit_regression
from bbn.tasks.learning.softmax_fit import learn_softmax
from bbn.tasks.learning.statistics import table_statistics


def learn(net: Network, data, estimator: Estimator | str = "mle", *, missing: str = "error",
          columns=None, ddof: int | None = None, var_smoothing: float = 0.0,
          tol: float = 1e-6, max_iter: int = 100, seed: int | None = 0,
          m: float | None = None, prior: Mapping | None = None, alpha: float | None = None,
          ess: float | None = None, chunksize: int | None = None,
          progress: Progress = None, discretize=None) -> Network:
    """A copy of ``net`` whose tables are estimated from ``data``.

    Parameters
    ----------
    net : Network
        The structure (variables, states, parents); its tables, if any, are not used.
    data : DataFrame, str or path, numpy array, iterable of DataFrames, or Dask DataFrame
        The rows: a DataFrame, a CSV or Parquet path (read ``chunksize`` rows at a time,
        so a file larger than memory works), a numpy array (structured, or 2-D with
        ``columns=``), DataFrames in turn (a generator of chunks), or a Dask DataFrame
        (counted per partition on its scheduler; ``bbn[dask]``). Columns match
        variables by name; extra columns are ignored. See ``docs/scale.md``.
    estimator : Estimator or str, default "mle"
        :class:`~bbn.tasks.learning.estimators.MLE`, ``Laplace(alpha)``, ``MEstimate(m, prior)``
        or ``BDeu(ess)`` (:mod:`bbn.tasks.learning.estimators`), or one's name: ``"mle"``,
        ``"laplace"``, ``"m-estimate"``, ``"bayes"`` (with the default settings).
        ``BDeu(gaussian=NormalInverseGamma(...))`` also learns the Gaussian variables
        under the conjugate prior (:mod:`bbn.tasks.learning.conjugate`: the posterior
        means of the coefficients and of σ²; ``ddof`` and ``var_smoothing`` then do not
        apply); otherwise they are least squares.
    missing : {"error", "drop", "em"}, default "error"
        ``"error"`` refuses data with missing values, ``"drop"`` ignores every row that
        has one, ``"em"`` runs expectation–maximisation (:func:`bbn.tasks.learning.missing.em`,
        with ``tol``, ``max_iter`` and ``seed``; call that function for the
        log-likelihood trace). A variable with no column at all is an error except under
        ``"em"``, where it is hidden. With Gaussians having continuous parents, EM takes
        missing continuous values (:mod:`bbn.tasks.learning.linear_em`) or missing discrete
        values (:mod:`bbn.tasks.learning.hybrid_em`), not both in one data set.
    columns : list of str, optional
        Names for the columns of a plain 2-D array.
    ddof : int, optional
        Gaussian variables: σ² divides by N − ddof (default 1, the sample variance;
        under ``"em"`` default 0, the maximum-likelihood M-step).
    var_smoothing : float, default 0.0
        Gaussian variables: adds var_smoothing × the largest column variance. A hidden
        discrete parent of Gaussian variables makes ``"em"`` learn a Gaussian mixture
        (:mod:`bbn.tasks.learning.mixture`).
    tol, max_iter, seed
        EM's stopping rule (:mod:`bbn.tasks.learning.convergence`) and its random start.
    chunksize : int, optional
        Rows per chunk of a CSV or Parquet file (default
        :func:`bbn.io.chunks.default_chunksize`: a quarter of the memory limit). The tables
        do not depend on it.
    progress : callable, True or None
        Told the rows counted after each chunk, or under ``"em"`` each iteration and its
        log-likelihood (:mod:`bbn.core.progress`; True: a bar on a terminal). Silent by
        default.
    m, prior, alpha, ess
        Deprecated (FutureWarning): the settings of a named estimator; give the
        estimator as a value instead (``estimator=Laplace(alpha=0.5)``).
    discretize : True, str or Discretiser, optional
        Numeric columns cut into intervals first (:mod:`bbn.tasks.learning.discretisation`;
        the data is then read whole): ``True`` cuts them at the intervals that are
        ``net``'s states (``[4.3, 5.1]``, ``(5.1, 5.8]``...); a fitted
        :class:`~bbn.tasks.learning.discretisation.Discretiser` applies its cuts; a method
        (``"quantile"``, ``"kmeans:4"``) fits one on ``data``, whose intervals must then be
        the states of ``net``.

    Returns
    -------
    Network
        A copy of ``net`` with every table learned.

    Raises
    ------
    DataError
        For an unknown estimator or a bad setting, a missing column, a value that is no
        state (naming column, row and value), missing values under ``"error"``, or no
        rows.
    MemoryLimitError
        When a table to learn would exceed the memory limit.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"])
    >>> net.add_variable("B", ["T", "F"], parents=["A"])
    >>> rows = pd.DataFrame({"A": ["T", "T", "F"], "B": ["T", "F", "F"]})
    >>> learn(net, rows, bbn.Laplace(alpha=1.0)).cpt_array("B").tolist()
    [[0.5, 0.5], [0.3333333333333333, 0.6666666666666666]]
    """
    estimator = estimator_from_arguments("bbn.learn", estimator, m=m, prior=prior,
                                         alpha=alpha, ess=ess)
    if discretize is not None and discretize is not False:
        cutter = discretiser_for(discretize, data, states=net)
        data, columns = cutter.transform(data, columns), None
    if missing not in MISSING_POLICIES:
        raise DataError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    ddof = check_ddof((0 if missing == "em" else 1) if ddof is None else ddof)
    noisy = noisy_variables(net)  # learned by EM below, kept compact
    softmax = [v for v in net.variables if getattr(net.canonical(v), "kind", "") == "softmax"]
    counted = without_parents(net, noisy + softmax) if noisy or softmax else net
    check_family_sizes(counted)
    if missing == "em" and softmax:
        raise ModelError(f"EM does not learn softmax variables ({softmax[0]!r}, discrete with "
                         "continuous parents); learn from complete rows (missing='drop')")
    if missing == "em" and getattr(estimator, "gaussian", None) is not None:
        raise DataError("the normal-inverse-gamma prior (BDeu(gaussian=...)) is applied to "
                        "complete rows only; use missing='drop', or BDeu without gaussian= "
                        "under missing='em'")
    if missing == "em":
        linear = [v for v in net.variables if net.is_gaussian(v)
                  and any(net.is_gaussian(p) for p in net.parents(v))]
        if linear:  # the conditional normal per pattern, or the discrete configurations
            return hybrid_em(net, data, columns=columns, tol=tol, max_iter=max_iter,
                             seed=seed, ddof=ddof, chunksize=chunksize, progress=progress,
                             estimator=estimator).network
        return em(net, data, estimator, columns=columns, tol=tol, max_iter=max_iter,
                  seed=seed, ddof=ddof, var_smoothing=var_smoothing,
                  chunksize=chunksize, progress=progress).network
    statistics = table_statistics(counted, data, columns=columns, missing=missing,
                                  chunksize=chunksize, progress=progress)
    if statistics.rows == 0:
        raise DataError(f"{source_name(data)}: no rows to learn from"
                        + (" (every row has a missing value)" if statistics.dropped else ""))
    learned = net.copy()
    for v, counts in statistics.counts.items():
        if v not in noisy and v not in softmax:
            learned.set_cpt(v, table_from_counts(net, v, counts, estimator))
    if softmax:  # multinomial logistic regression per discrete configuration
        learn_softmax(net, data, softmax, learned, columns=columns, chunksize=chunksize)
    if noisy:
        learn_noisy(net, data, noisy, columns=columns, chunksize=chunksize, missing=missing,
                    learned=learned)
    if statistics.moments:
        epsilon, floor = epsilon_from_moments(statistics.columns, var_smoothing)
        conjugate = getattr(estimator, "gaussian", None)
        for v, moments in statistics.moments.items():
            if conjugate is not None or type(moments) is Gram:
                # the normal-inverse-gamma posterior means, or least squares
                mean, variance, b = (conjugate.estimate(moments, v) if conjugate is not None
                                     else fit_regression(moments, ddof, v, epsilon))
                discrete = [net.cardinality(p) for p in net.parents(v) if not net.is_gaussian(p)]
                continuous = [p for p in net.parents(v) if net.is_gaussian(p)]
                learned.set_gaussian(v, mean.reshape(discrete), variance.reshape(discrete), {
                    p: b[:, i].reshape(discrete) for i, p in enumerate(continuous)})
                continue
            mean, variance = gaussian_from_moments(
                moments, [net.cardinality(p) for p in net.parents(v)], ddof=ddof,
                epsilon=epsilon, floor=floor, name=v)
            learned.set_gaussian(v, mean, variance)
    return learned


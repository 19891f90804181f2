"""``bbn.learn_structure``: the network from data and what the expert knows.

One entry point for every method. It reads and codes the data once
(:func:`~bbn.tasks.structure.dataset.read_coded`), validates the knowledge once
(:class:`~bbn.tasks.structure.knowledge.Knowledge`) and the settings once
(:class:`~bbn.tasks.structure.method.Settings`), runs the method, checks that the DAG honours
the knowledge, and learns its tables from the same counts with ``estimator``.

>>> import bbn
>>> rows = bbn.sample(bbn.load("models/chair.bn"), 2000, seed=3)
>>> net = bbn.learn_structure(rows, method="tree", root="C")
>>> sorted(net.arcs())
[('B', 'A'), ('B', 'S'), ('C', 'B'), ('C', 'W')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pandas as pd

from bbn.core.data import read_data
from bbn.core.errors import ModelError, suggest
from bbn.core.progress import Progress, reporter
from bbn.model.network import Network
from bbn.tasks.learning.counting import check_family_sizes
from bbn.tasks.learning.discretisation import discretiser_for
from bbn.tasks.learning.estimators import Estimator, as_estimator, table_from_counts
from bbn.tasks.structure.chow_liu_trees import tree_method
from bbn.tasks.structure.dataset import CodedData, read_coded
from bbn.tasks.structure.gaussian_scores import GAUSSIAN_SCORES, gaussian_structure, numeric_frame
from bbn.tasks.structure.hill_climbing import hc_method
from bbn.tasks.structure.hybrid import hybrid_method
from bbn.tasks.structure.independence_tests import TESTS
from bbn.tasks.structure.knowledge import ArcLike, Knowledge
from bbn.tasks.structure.learned import LearnedNetwork
from bbn.tasks.structure.method import Parents, Settings, Structure
from bbn.tasks.structure.pc import pc_method
from bbn.tasks.structure.scores import SCORES, check_ess
from bbn.tasks.structure.tan import tan_method

#: The methods by name: each a function (data, knowledge, settings) -> Structure.
METHODS: dict[str, Callable[[CodedData, Knowledge, Settings], Structure]] = {
    "tree": tree_method,
    "tan": tan_method,
    "pc": pc_method,
    "hc": hc_method,
    "hybrid": hybrid_method,
}

#: The method used when none is named: the hybrid (MMHC), whose networks were closest to
#: the generating ones in the measurements of docs/structure.md.
DEFAULT_METHOD = "hybrid"


def learn_structure(data, method: str = DEFAULT_METHOD, score: str = "bic", *,
                    estimator: Estimator | str = "mle",
                    states: Mapping[str, Sequence[str]] | None = None,
                    columns: Sequence[str] | None = None,
                    required: Iterable[ArcLike] = (), forbidden: Iterable[ArcLike] = (),
                    tiers: Sequence[Sequence[str]] | None = None,
                    max_parents: int | None = None, start: Network | None = None,
                    target: str | None = None, missing: str = "error", ess: float = 1.0,
                    alpha: float = 0.05, test: str = "g2", seed: int = 0,
                    progress: Progress = None, name: str = "learned",
                    discretize=None, **options) -> LearnedNetwork:
    """Learn a Bayesian network's structure and tables from discrete data.

    Parameters
    ----------
    data : DataFrame, str or path, or numpy array
        Discrete rows, one column per variable (read as :func:`bbn.learn` reads data).
    method : str
        The search (see ``METHODS``; each is described in docs/structure.md).
    score : {"bic", "aic", "loglik", "k2", "bdeu", "bic-g", "aic-g", "loglik-g"}, default "bic"
        The score a score-based search maximises. The ``-g`` scores (Gaussian, as
        bnlearn's; ``-cg``, conditional Gaussian, with discrete columns too) learn a
        (conditional) linear Gaussian network by hill climbing
        (:mod:`bbn.tasks.structure.gaussian_scores`); with ``method`` "hc" or "hybrid", a
        DataFrame with a float column of fractional values gets them by default
        (``"bic"`` → ``"bic-g"``).
    estimator : Estimator or str, default "mle"
        How the tables are learned (any of :func:`bbn.learn`'s).
    states : dict, optional
        ``{variable: its states}``; otherwise each column's distinct values, sorted.
    columns : sequence of str, optional
        Column names for a 2-D numpy array.
    required, forbidden : iterable of ("A", "B") or "A->B"
        Arcs every result has / none has.
    tiers : list of lists of str, optional
        Groups in order; no arc from a later group to an earlier one.
    max_parents : int, optional
        The most parents of any variable.
    start : Network, optional
        A structure to start a search from (its tables are not used); the required arcs
        are added to it.
    target : str, optional
        The class variable (tree-augmented naive Bayes).
    missing : {"error", "drop"}, default "error"
        Refuse missing values, or count each family on the rows that have its values.
    ess : float, default 1.0
        BDeu's equivalent sample size.
    alpha : float, default 0.05
        The level of the independence tests.
    test : {"g2", "chi2"}, default "g2"
        The independence test.
    seed : int, default 0
        Seeds the random choices of a search (results are reproducible).
    progress : callable, True or None
        Called with a line of text (a :class:`bbn.core.progress.Step`) now and then during
        a long search; True: a line on a terminal. Silent by default.
    name : str, default "learned"
        The network's name.
    discretize : str or Discretiser, optional
        Numeric columns cut into intervals first: a method (``"quantile"``,
        ``"uniform"``, ``"kmeans"``, ``"mdlp"`` with ``target``; ``"kmeans:4"`` for 4
        intervals) fitted on ``data``, or a fitted
        :class:`~bbn.tasks.learning.discretisation.Discretiser`; kept as
        ``discretiser_`` to cut new data the same way.
    **options
        Method-specific options (e.g. ``root=`` for ``"tree"``).

    Returns
    -------
    LearnedNetwork
        The DAG with its tables; ``method_``, ``score_``, ``undirected_edges_`` and
        ``statistics_`` tell what the search found.

    Raises
    ------
    ModelError
        For an unknown method, score, test or option (with close matches), bad knowledge
        or knowledge that contradicts itself, or a ``start`` that breaks it.
    DataError
        For data that cannot be read or coded, or a missing value with
        ``missing="error"``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"A": list("TTFFTF"), "B": list("TTFFTT")})
    >>> learn_structure(rows, method="tree", root="B").arcs()
    [('B', 'A')]
    """
    if method not in METHODS:
        raise ModelError(f"unknown method {method!r}; the methods are "
                         f"{', '.join(METHODS)}{suggest(str(method), METHODS)}")
    if score not in SCORES and score not in GAUSSIAN_SCORES:
        names = [*SCORES, *GAUSSIAN_SCORES]
        raise ModelError(f"unknown score {score!r}; the scores are {', '.join(names)}"
                         f"{suggest(str(score), names)}")
    continuous = score in GAUSSIAN_SCORES or (
        method in ("hc", "hybrid") and discretize is None and states is None
        and isinstance(data, pd.DataFrame) and numeric_frame(data))
    if continuous:  # continuous columns: a linear Gaussian network
        if score not in GAUSSIAN_SCORES and f"{score}-g" not in GAUSSIAN_SCORES:
            raise ModelError(f"the {score!r} score counts discrete states; for continuous "
                             "columns use 'bic-g', 'aic-g' or 'loglik-g', or discretize")
        if method not in ("hc", "hybrid"):  # "hybrid", the default: the climb
            raise ModelError(f"method {method!r} needs discrete data; continuous columns "
                             "are searched by hill climbing (method='hc') on a Gaussian "
                             "score, or cut into intervals first (discretize='quantile')")
        return gaussian_structure(
            data, score if score in GAUSSIAN_SCORES else f"{score}-g",
            columns=columns, required=required, forbidden=forbidden, tiers=tiers,
            max_parents=max_parents, start=start, missing=missing, seed=seed,
            progress=progress, name=name, options=options)
    if test not in TESTS:
        raise ModelError(f"unknown test {test!r}; the tests are {', '.join(TESTS)}"
                         f"{suggest(str(test), TESTS)}")
    check_ess(ess)
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ModelError(f"alpha (the tests' level) must be a number in (0, 1), got {alpha!r}")
    estimator = as_estimator(estimator)
    cutter = None
    if discretize is not None:
        cutter = discretiser_for(discretize, data if columns is None else
                                 read_data(data, columns)[0], target=target)
        data, columns = cutter.transform(data, columns), None
        states = {**{c: s for c, s in cutter.states.items() if c != target}, **(states or {})}
    coded = read_coded(data, states=states, columns=columns, missing=missing)
    knowledge = Knowledge.build(coded.variables, required, forbidden, tiers, max_parents)
    settings = Settings(score=score, ess=float(ess), alpha=float(alpha), test=test,
                        seed=int(seed), start=_start(start, coded, knowledge),
                        target=None if target is None else coded.index(target),
                        progress=reporter(progress), options=dict(options))
    found = METHODS[method](coded, knowledge, settings)
    knowledge.check_dag(found.parents, f"the structure found by {method!r}")
    learned = _network(coded, found, estimator, name).record(
        method, found.score,
        [(coded.variables[i], coded.variables[j]) for i, j in sorted(found.undirected)],
        found.statistics)
    learned.discretiser_ = cutter
    return learned


def chow_liu(data, root: str | None = None, *, states: Mapping[str, Sequence[str]] | None = None,
             columns: Sequence[str] | None = None, estimator: Estimator | str = "mle",
             name: str = "chow-liu") -> LearnedNetwork:
    """The Chow–Liu tree of ``data``, oriented away from ``root``, with its tables learned.

    Parameters
    ----------
    data : DataFrame, str or path, or numpy array
        Complete discrete rows, one column per variable (read as :func:`bbn.learn` reads
        data).
    root : str, optional
        The variable the arcs point away from; the first column by default.
    states : dict, optional
        ``{variable: its states}``; otherwise the distinct values of each column, sorted
        (numbers numerically).
    columns : sequence of str, optional
        Column names for a 2-D numpy array.
    estimator : Estimator or str, default "mle"
        How the tables are learned (any of :func:`bbn.learn`'s).
    name : str, default "chow-liu"
        The network's name.

    Returns
    -------
    LearnedNetwork
        Variables in column order; each but the root has one parent.

    Raises
    ------
    DataError
        For no rows, a missing value, a value that is no state, or fewer than one column.
    ModelError
        For a ``root`` that is no column (with close matches).

    Examples
    --------
    >>> import bbn
    >>> rows = bbn.sample(bbn.load("models/chair.bn"), 3000, seed=1)
    >>> sorted(chow_liu(rows, root="C").arcs())
    [('B', 'A'), ('B', 'S'), ('C', 'B'), ('C', 'W')]
    """
    return learn_structure(data, "tree", states=states, columns=columns, estimator=estimator,
                           name=name, **({} if root is None else {"root": root}))


def _start(start: Network | None, data: CodedData, knowledge: Knowledge) -> Parents | None:
    """The start network as parent positions, with the required arcs added."""
    if start is None:
        return None
    if not isinstance(start, Network):
        raise ModelError(f"start must be a Network (bbn.load('start.bn')), got "
                         f"{type(start).__name__}")
    for v in start.variables:
        if v not in data.variables:
            raise ModelError(f"the start network's variable {v!r} is no column of "
                             f"{data.source}{suggest(v, data.variables)}")
    parents = [set() for _ in data.variables]
    for p, c in start.arcs():
        parents[data.index(c)].add(data.index(p))
    for p, c in knowledge.required:
        parents[c].add(p)
    dag = tuple(tuple(sorted(ps)) for ps in parents)
    knowledge.check_dag(dag, "the start network (with the required arcs)")
    return dag


def _network(data: CodedData, found: Structure, estimator: Estimator,
             name: str) -> LearnedNetwork:
    """The DAG over the data's variables with its tables counted from the same rows."""
    names = data.variables
    states = dict(zip(names, data.states))
    parents = {names[c]: [names[p] for p in ps] for c, ps in enumerate(found.parents) if ps}
    structure = Network.assemble(name, states, parents)
    check_family_sizes(structure)
    tables = {names[child]: table_from_counts(structure, names[child],
                                              data.counts((*ps, child)), estimator)
              for child, ps in enumerate(found.parents)}
    return LearnedNetwork.assemble(name, states, parents, tables)

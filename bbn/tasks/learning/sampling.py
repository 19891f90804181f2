"""Forward (ancestral) sampling: rows drawn from the joint distribution of a network.

Variables are drawn parents first. For a discrete X, each row's parent configuration
picks a row of the table (its mixed-radix index), and X is the first state whose
cumulative probability exceeds a uniform draw u:

    x = #{k : F(k | pa) ≤ u},   F(k | pa) = Σ_{j ≤ k} P(j | pa)

so every row is drawn at once with numpy. A Gaussian X draws μ(pa) + σ(pa)·z.

>>> import bbn
>>> net = bbn.Network()
>>> net.add_variable("A", ["T", "F"], table=[0.25, 0.75])
>>> frame = sample(net, 100_000, seed=1)
>>> bool(abs((frame["A"] == "T").mean() - 0.25) < 0.01)
True
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

import bbn.model.canonical as canonical
from bbn.core.codes import mixed_radix
from bbn.core.draws import draw_states
from bbn.core.errors import DataError, ModelError
from bbn.core.memory import check_allocation
from bbn.core.progress import Progress, report, reporter
from bbn.model.network import Network


def sample(net: Network, n: int, seed: int | np.random.Generator | None = None,
           progress: Progress = None) -> pd.DataFrame:
    """``n`` rows drawn from ``net``: one column per variable, in declaration order.

    Parameters
    ----------
    net : Network
        A network with every table given.
    n : int
        The number of rows, ≥ 0.
    seed : int, numpy.random.Generator or None
        Makes the draw reproducible (None: fresh entropy).
    progress : callable, True or None
        Told the variables drawn after each one (all its ``n`` rows at once), of all of
        them; ``True``: a bar on a terminal only (:mod:`bbn.core.progress`).

    Returns
    -------
    pandas.DataFrame
        Discrete columns are :class:`pandas.Categorical` with the variable's states as
        categories (in order), Gaussian columns are floats.

    Raises
    ------
    DataError
        For a negative ``n``.
    ModelError
        When a variable has no table.
    MemoryLimitError
        When the rows would exceed the memory limit.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"], table=[1.0, 0.0])
    >>> sample(net, 3, seed=0)["A"].tolist()
    ['T', 'T', 'T']
    """
    n = int(n)
    _check(net, n)
    return _rows(net, n, np.random.default_rng(seed), reporter(progress))


def sample_chunks(net: Network, n: int, seed: int | np.random.Generator | None = None,
                  chunksize: int = 100_000, progress: Progress = None) -> Iterator[pd.DataFrame]:
    """``n`` rows drawn from ``net`` as DataFrames of at most ``chunksize`` rows, drawn one
    after the other from one random generator: memory holds one chunk, so a file of 100
    million rows is written without holding it (``bbn sample``).

    Parameters
    ----------
    net : Network
        A network with every table given.
    n : int
        The number of rows, ≥ 0.
    seed : int, numpy.random.Generator or None
        Makes the draw reproducible for a given ``chunksize`` (the rows differ from
        :func:`sample`'s, which draws all rows of a variable at once).
    chunksize : int, default 100,000
        Rows per chunk.
    progress : callable, True or None
        Told the rows drawn after each chunk, of ``n`` (:mod:`bbn.core.progress`).

    Yields
    ------
    pandas.DataFrame
        As :func:`sample` gives them; the index numbers the rows across chunks.

    Raises
    ------
    DataError
        For a negative ``n`` or a ``chunksize`` below 1.
    ModelError
        When a variable has no table.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["T", "F"], table=[0.5, 0.5])
    >>> [len(chunk) for chunk in sample_chunks(net, 5, seed=0, chunksize=2)]
    [2, 2, 1]
    """
    n, chunksize = int(n), int(chunksize)
    if chunksize < 1:
        raise DataError(f"chunksize must be a positive number of rows, got {chunksize}")
    _check(net, n)
    rng, tell = np.random.default_rng(seed), reporter(progress)
    for start in range(0, n, chunksize):
        rows = _rows(net, min(chunksize, n - start), rng)
        report(tell, "sample", start + len(rows), n, "rows drawn")
        yield rows.set_axis(pd.RangeIndex(start, start + len(rows)))


def _check(net: Network, n: int) -> None:
    if n < 0:
        raise DataError(f"cannot draw {n} rows: n must be 0 or more")
    missing = [v for v in net.variables if not net.has_cpt(v)]
    if missing:
        raise ModelError(f"cannot sample: no table for {', '.join(map(repr, missing))}")


def _rows(net: Network, n: int, rng: np.random.Generator, tell=None) -> pd.DataFrame:
    """``n`` rows drawn with ``rng``: every variable in topological order (``tell``d
    after each)."""
    # Each variable's draws (8 bytes a row at most) live until the frame is built.
    check_allocation(n * len(net.variables), f"{n} sampled rows of {len(net.variables)} "
                     "variables", "draw fewer rows at a time, or raise the limit with "
                     "bbn.set_memory_limit(bytes)")
    drawn: dict[str, np.ndarray] = {}
    for count, v in enumerate(net.topological_order(), 1):
        drawn[v] = _draw(net, v, drawn, n, rng)
        report(tell, "sample", count, len(net.variables), f"variables drawn ({n:,} rows)")
    columns = {}
    for v in net.variables:
        columns[v] = (drawn[v] if net.is_gaussian(v) else
                      pd.Categorical.from_codes(drawn[v], categories=list(net.states(v))))
    return pd.DataFrame(columns)


def _draw(net: Network, v: str, drawn: dict[str, np.ndarray], n: int,
          rng: np.random.Generator) -> np.ndarray:
    """All ``n`` rows of ``v``, its parents' rows ``drawn``."""
    parents = [p for p in net.parents(v) if not net.is_gaussian(p)]
    spec = net.canonical(v)
    if spec is not None and spec.kind == "softmax":  # P(v | d, y): one row per draw
        codes = np.stack([drawn[p] for p in spec.discrete], axis=1) if spec.discrete \
            else np.zeros((n, 0), np.int64)
        probabilities = spec.probabilities(codes, np.stack(
            [drawn[p] for p in spec.continuous], axis=1))
        return draw_states(probabilities, np.arange(n), rng)
    if spec is not None and spec.chainable and parents:  # no full table, no row index
        return canonical.draw(spec, [drawn[p] for p in parents], rng)
    cards = [net.cardinality(p) for p in parents]
    index = (mixed_radix([drawn[p] for p in parents], cards) if parents
             else np.zeros(n, dtype=np.int64))
    if net.is_gaussian(v):  # μ(d) + Σ b_i(d) y_i: continuous parents drawn before
        mean, variance = net.gaussian_parameters(v)
        location = mean.ravel()[index]
        for p, b in net.gaussian_weights(v).items():
            location = location + b.ravel()[index] * drawn[p]
        return rng.normal(location, np.sqrt(variance.ravel()[index]))
    return draw_states(net.cpt_array(v).reshape(-1, net.cardinality(v)), index, rng)


"""Dask collections: statistics counted per partition and summed on the scheduler, and
answers computed partition by partition.

Counts add up over any split of the rows (:mod:`bbn.tasks.learning.statistics`), so a Dask
DataFrame of P partitions is learned from as

    n(pa, x) = Σ_{p=1..P} n_p(pa, x)

with each n_p counted where partition p lives and the sums taken pairwise in a tree on
the workers: only the count tables travel, never rows, and the client receives one set
of tables. Predictions and posteriors are Dask collections (posteriors a Dask DataFrame
indexed like the evidence, a column per state), each partition answered by bbn's batched
engine. Dask is optional (``pip install 'bbn[dask]'``); this module
imports it on first use, and without it these paths raise a DataError saying how to get
it. A ``dask.distributed.Client`` in the session (a LocalCluster or a real cluster's
scheduler) runs them there; without one, Dask's default scheduler does.

>>> is_dask([1, 2])
False
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from bbn.core.errors import DataError

#: What to install for Dask collections.
INSTALL = "pip install 'bbn[dask]'"


def is_dask(data) -> bool:
    """Whether ``data`` is a Dask collection (checked without importing Dask).

    >>> is_dask("rows.csv")
    False
    """
    return type(data).__module__.split(".")[0] in ("dask", "dask_expr")


def require_dask():
    """The ``dask`` module, or a DataError saying how to install it.

    >>> require_dask().__name__  # doctest: +SKIP
    'dask'
    """
    try:
        import dask  # here: optional (bbn[dask]), ~0.3 s to import
    except ImportError:
        raise DataError(f"Dask collections need Dask: {INSTALL}") from None
    return dask


def sum_over_partitions(function: Callable, *collections):
    """Σ_p function(partition p of each collection), the sum taken pairwise on the
    workers; the collections must be partitioned alike (X and y of one frame).

    Parameters
    ----------
    function : callable
        Maps the partitions (pandas objects) to something with ``+`` (counts).
    *collections : Dask DataFrame or Series
        Partitioned alike.

    Returns
    -------
    object
        The sum, computed.

    Raises
    ------
    DataError
        Without Dask, or for collections with different numbers of partitions.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd  # doctest: +SKIP
    >>> frame = dd.from_pandas(pd.DataFrame({"x": range(10)}), npartitions=3)  # doctest: +SKIP
    >>> sum_over_partitions(len, frame)  # doctest: +SKIP
    10
    """
    dask = require_dask()
    partitions = [collection.to_delayed() for collection in collections]
    if len({len(p) for p in partitions}) > 1:
        raise DataError(f"the Dask collections have {[len(p) for p in partitions]} partitions: "
                        "X, y and sample_weight must be partitioned alike (columns of one "
                        "frame)")
    pieces = [dask.delayed(function)(*parts) for parts in zip(*partitions)]
    if not pieces:
        raise DataError("the Dask collection has no partitions: there is nothing to learn from")
    while len(pieces) > 1:  # a tree of sums: log2(P) rounds, each on the workers
        pieces = [dask.delayed(operator.add)(a, b) for a, b in zip(pieces[::2], pieces[1::2])
                  ] + pieces[len(pieces) - len(pieces) % 2:]
    return pieces[0].compute()


def map_partitions(frame, function: Callable, meta, *args):
    """``function(partition, *args)`` applied to every partition of ``frame``: a lazy Dask
    collection shaped like ``meta`` (an empty pandas DataFrame or Series).

    >>> map_partitions  # doctest: +ELLIPSIS
    <function map_partitions at ...>
    """
    require_dask()
    return frame.map_partitions(function, *args, meta=meta)

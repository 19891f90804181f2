"""Expectation–maximisation for a 2-TBN with hidden variables or missing cells
(Baum–Welch for any two-slice network), from a DataFrame with a sequence-id column or
from a file read in chunks.

E-step, with the current tables θ: the expected counts of slice 0's families and of the
transition families, summed over every step and every sequence, from the smoothed
two-slice posteriors of the interface algorithm
(:func:`bbn.engines.exact.slice_counts.expected_counts`, batched over sequences):

    n̄⁰_v(pa, x) = Σ_n P(pa_0, x_0 | e^n; θ),   n̄_v(pa, x) = Σ_n Σ_{t≥1} P(pa_t, x_t | e^n; θ)

A variable whose one table serves every slice (no parent in the slice before, no
slice-0 table of its own) pools the two. M-step: θ ← estimator(n̄), the estimators of
complete data (:mod:`bbn.tasks.learning.estimators`; ``mle`` is classic EM, a smoothing
one MAP-EM). The log-likelihood ℓ(θ) = Σ_n log P(e^n; θ) is recorded every iteration and
EM stops by the rule of :mod:`bbn.tasks.learning.convergence`, as the static EM
(:func:`bbn.tasks.learning.missing.em`) does.

The data is read once (a file a chunk at a time, sequences never split,
:func:`bbn.io.sequence_chunks.sequence_chunks`) into state codes, two bytes a cell; the
sequences are then sorted by length and cut into batches that fit the memory limit, and
each iteration runs forward–backward batch by batch.

>>> import bbn, pandas as pd
>>> dbn = bbn.DynamicNetwork()
>>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"])
>>> dbn.add_variable("O", ["x", "y"], parents=["X"])
>>> rows = pd.DataFrame({"id": [1, 1, 1, 2, 2], "O": ["x", "x", "y", "y", "y"]})
>>> result = dynamic_em(dbn, rows, sequence_id="id", seed=1)
>>> result.converged, result.log_likelihood[-1] >= result.log_likelihood[0]
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

import bbn.model.dynamic as dynamic
import bbn.questions.findings as findings
from bbn.core.data import MISSING, encode, require_columns
from bbn.core.errors import DataError
from bbn.core.memory import ENTRY_BYTES, get_memory_limit
from bbn.core.progress import Progress, report, reporter
from bbn.engines.exact.chains import Batch
from bbn.engines.exact.slice_counts import expected_counts, prepare
from bbn.io.chunks import source_name
from bbn.io.sequence_chunks import sequence_chunks
from bbn.tasks.learning.convergence import EMResult, check_iteration, converged
from bbn.tasks.learning.counting import check_family_sizes
from bbn.tasks.learning.estimators import (
    MLE,
    Estimator,
    estimator_from_arguments,
    table_from_counts,
    warn_unseen,
)

#: the share of the memory limit one batch of sequences takes (its evidence, forward and
#: backward messages): batches are as large as that allows, so that each step's numpy
#: operations serve many sequences
BATCH_SHARE = 8


def dynamic_em(dbn, data, estimator: Estimator | str = "mle", *,
               sequence_id: str | None = None, tol: float = 1e-6, max_iter: int = 100,
               seed: int | None = 0, chunksize: int | None = None,
               progress: Progress = None) -> EMResult:
    """Learn every table of a 2-TBN from sequences with hidden variables or missing cells.

    Parameters
    ----------
    dbn : bbn.DynamicNetwork
        The structure; its tables, where all are given, are where EM starts (else rows
        drawn from a flat Dirichlet with ``seed``).
    data : DataFrame, str or path, or iterable of DataFrames
        One row per step, a column per observed variable (empty cells unobserved; a
        variable without a column is hidden), the rows of a sequence in time order. A
        CSV or Parquet file is read ``chunksize`` rows at a time; its sequences' rows
        are contiguous.
    estimator : Estimator or str, default "mle"
        The M-step's estimator, as :func:`bbn.learn` takes it.
    sequence_id : str, optional
        The column naming each row's sequence (default: one sequence).
    tol, max_iter : float, int
        The stopping rule (:mod:`bbn.tasks.learning.convergence`).
    seed : int or None, default 0
        Seeds the starting tables when ``dbn`` has none.
    chunksize : int, optional
        Rows per chunk of a file.
    progress : callable, True or None
        Told each iteration and its log-likelihood (:mod:`bbn.core.progress`).

    Returns
    -------
    EMResult
        ``network`` the learned :class:`bbn.DynamicNetwork`; the log-likelihood of the
        data before each M-step and after the last; iterations; whether EM converged.

    Raises
    ------
    DataError
        No column naming a variable, a value that is no state (column, row, value), a
        bad sequence id, no two consecutive steps for a transition table, sequences the
        tables make impossible, or a bad setting.

    Examples
    --------
    >>> import bbn, pandas as pd
    >>> dbn = bbn.DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], parents=["X[-1]"],
    ...                  table=[[0.6, 0.4], [0.3, 0.7]], initial=[0.5, 0.5])
    >>> dbn.add_variable("O", ["x", "y"], parents=["X"], table=[[0.8, 0.2], [0.3, 0.7]])
    >>> result = dynamic_em(dbn, pd.DataFrame({"O": ["x", "x", "y", "y", "x", "x"]}))
    >>> [round(ll, 4) for ll in result.log_likelihood[:2]]
    [-4.0406, -3.6264]
    """
    estimator = estimator_from_arguments("bbn.dynamic_em", estimator)
    check_iteration(max_iter, tol)
    dynamic.require_first_order(dbn, "bbn.dynamic_em")
    two = dbn.two_slice()
    check_family_sizes(two)
    variables = list(dbn.variables)
    data_ = _Sequences(dbn, data, sequence_id, chunksize)
    if data_.lengths.max() < 2 and not all(dbn.static(v) for v in variables):
        raise DataError("no sequence has two steps: the transition tables need pairs of "
                        "consecutive rows")
    theta = _start(dbn, two, seed)
    result = EMResult(network=dbn)
    tell = reporter(progress)
    for iteration in range(max_iter + 1):
        model = dynamic.with_tables(dbn, *theta)
        first, later, ll = data_.expected_counts(model)
        result.log_likelihood.append(ll)
        report(tell, "em", iteration, max_iter, f"log-likelihood {ll:.8g}")
        if converged(result.log_likelihood, tol) or (data_.complete and iteration == 1):
            result.converged = True
            break
        if iteration == max_iter:
            break
        theta = _maximise(dbn, two, first, later, estimator)
        result.iterations = iteration + 1
    result.network = dynamic.with_tables(dbn, *theta)
    if isinstance(estimator, MLE):
        for v, counts in zip(variables, later, strict=True):
            if not dbn.static(v):
                warn_unseen(two, dynamic.slice_name(v, 1), counts)
    return result


class _Sequences:
    """The sequences' state codes (read once), cut into batches of sequences sorted by
    length; each batch's evidence, made ready for the engine
    (:func:`bbn.engines.exact.slice_counts.prepare`), kept when all of them fit a quarter
    of the memory limit, else made again each iteration."""

    def __init__(self, dbn, data, sequence_id, chunksize) -> None:
        variables = list(dbn.variables)
        states = {v: dbn.states(v) for v in variables}
        self.cards = [len(states[v]) for v in variables]
        codes, lengths, ids, present = [], [], [], set()
        for frame, source in sequence_chunks(data, sequence_id, states=states,
                                             chunksize=chunksize):
            seen = [v for v in variables if v in set(map(str, frame.columns))]
            if not seen:
                require_columns(frame, variables, source)
            if not len(frame):
                continue
            present.update(seen)
            rows, counted, named = findings.sequence_rows(frame, sequence_id)
            block = np.full((len(frame), len(variables)), MISSING, dtype=np.int16)
            block[:, [variables.index(v) for v in seen]] = encode(
                frame, seen, [states[v] for v in seen], source=source)
            codes.append(block[rows])
            lengths.append(counted)
            ids.extend(named)
        if not codes:
            raise DataError(f"{source_name(data)}: no rows to learn from")
        self.codes = np.concatenate(codes)
        self.lengths = np.concatenate(lengths)
        self.ids = ids
        self.complete = len(present) == len(variables) and not (self.codes == MISSING).any()
        self.batches = self._batches(dbn)
        entries = sum(b.steps * len(b.order) * sum(self.cards) for b, _, _ in self.batches)
        self.kept = entries * ENTRY_BYTES <= get_memory_limit() // 4
        self.prepared: list = [None] * len(self.batches)

    def _batches(self, dbn) -> list:
        """Sequences sorted by length, longest first, in batches of at most a
        ``BATCH_SHARE``-th of the memory limit (steps × sequences × entries per step: the
        evidence, the forward and backward messages): ``(Batch, sequences, rows of the
        codes)``."""
        two = dbn.two_slice()
        later = [dynamic.slice_name(v, 1) for v in dbn.variables]
        interface = {p for v in later for p in two.parents(v) if p not in later}
        budget = get_memory_limit() // (BATCH_SHARE * ENTRY_BYTES)
        per_step = sum(self.cards) + 2 * math.prod(two.cardinality(p) for p in interface)
        order = np.argsort(-self.lengths, kind="stable")
        starts = np.cumsum(self.lengths) - self.lengths
        batches, lo = [], 0
        while lo < len(order):
            steps = int(self.lengths[order[lo]])
            hi = min(len(order), lo + max(1, budget // (steps * per_step)))
            chosen = order[lo:hi]
            lengths = self.lengths[chosen]
            offsets = np.repeat(starts[chosen] - (np.cumsum(lengths) - lengths), lengths)
            batches.append((Batch(lengths), chosen, offsets + np.arange(lengths.sum())))
            lo = hi
        return batches

    def expected_counts(self, model):
        """Σ over the batches of every family's expected counts, and ℓ."""
        engine = findings.frontier(model)
        first = later = None
        total = 0.0
        for k, (batch, chosen, rows) in enumerate(self.batches):
            prepared = self.prepared[k]
            if prepared is None:
                prepared = prepare(engine, self.codes[rows], batch)
                if self.kept:
                    self.prepared[k] = prepared
            counts = expected_counts(engine, prepared, batch)
            bad = np.flatnonzero(~np.isfinite(counts.log_likelihood))
            if len(bad):
                which = self.ids[int(chosen[batch.order[bad[0]]])]
                raise DataError(f"EM: the tables give probability 0 to sequence {which!r}; "
                                "start from other tables or smooth them "
                                "(estimator='laplace')")
            total += float(counts.log_likelihood.sum())
            if first is None:
                first, later = counts.initial, counts.transition
            else:
                first = [a + b for a, b in zip(first, counts.initial, strict=True)]
                later = [a + b for a, b in zip(later, counts.transition, strict=True)]
        return first, later, total


def _start(dbn, two, seed) -> tuple[dict, dict]:
    """The tables EM starts from: ``dbn``'s when all are given, else Dirichlet rows."""
    names = [(v, dynamic.slice_name(v, 0), dynamic.slice_name(v, 1)) for v in dbn.variables]
    if all(two.has_cpt(a) and two.has_cpt(b) for _, a, b in names):
        initial = {v: two.cpt_array(a) for v, a, _ in names}
        return initial, {v: initial[v] if dbn.static(v) else two.cpt_array(b)
                         for v, _, b in names}
    rng = np.random.default_rng(seed)

    def draw(name):
        shape = [two.cardinality(u) for u in two.parents(name) + (name,)]
        return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])

    initial = {v: two.cpt_array(a) if two.has_cpt(a) else draw(a) for v, a, _ in names}
    return initial, {v: initial[v] if dbn.static(v) else
                     two.cpt_array(b) if two.has_cpt(b) else draw(b) for v, _, b in names}


def _maximise(dbn, two, first, later, estimator) -> tuple[dict, dict]:
    """The M-step: every table from its expected counts by ``estimator``."""
    initial, transition = {}, {}
    for v, zero, after in zip(dbn.variables, first, later, strict=True):
        name = dynamic.slice_name(v, 1)
        if dbn.static(v):
            initial[v] = transition[v] = table_from_counts(two, name, zero + after, estimator,
                                                           warn=False)
            continue
        initial[v] = table_from_counts(two, dynamic.slice_name(v, 0), zero, estimator,
                                       warn=False)
        transition[v] = table_from_counts(two, name, after, estimator, warn=False)
    return initial, transition

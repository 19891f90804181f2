"""Importance sampling from a weighted mini-bucket proposal, on a model reduced by its
zeros (what answers pedigree-linkage models whose junction trees need hundreds of GiB).

The variables are eliminated in an order o (min-fill). Bucket elimination puts every
factor into the bucket of its first variable in o, multiplies each bucket's functions and
sums its variable out into a message for a later bucket; its tables are too large where
the model is wide. A *mini-bucket* split (Dechter & Rish 2003) caps them: a bucket's
functions are split into R groups whose joint scope has at most ``largest`` entries, each
summed out on its own, with Hölder's weights 1/R (weighted mini-buckets, Liu & Ihler
2011) after moment matching (every group's marginal of the bucket's variable X made their
geometric mean, which leaves the bucket's product as it was):

    m_r(x_rest) = ( Σ_X F_r(X, x_rest)^R )^(1/R)

Sampled backwards (the last variable of o first), the functions of X's bucket, evaluated
at the states already drawn, give the proposal

    q(x_X | x_later) ∝ Π_{f ∈ bucket(X)} f(x_X, x_later)

— the exact conditional when no bucket was split, otherwise an approximation whose
support holds every state of positive weight (a message is positive wherever the exact
one is): the zeros of the model, propagated through the messages, are never proposed, so
deterministic models do not waste their samples (SampleSearch's aim, Gogate & Dechter
2011, without backtracking). Each sample x is weighted w(x) = Π_k φ_k(x) / q(x), so that

    Z(e) ≈ (1/n) Σ_i w(x_i),      P(X = x | e) ≈ Σ_i w(x_i) p(x | x_i,−X) / Σ_i w(x_i)

(unbiased for Z, consistent for the marginals; Liu, Fisher & Ihler 2015), the marginals
Rao–Blackwellised: p(x | x_−X), the product of X's factors at the sample's other states,
normalised, in place of the indicator [x_i,X = x]. Before that the model is *reduced*:
the states the zeros rule out (:func:`supports.supported_states`, a proof) and the
evidence are sliced off every table, and a variable left with one state drops out (its
factors keep the slice), so the tables and the messages are smaller.

A sample of weight 0 (a dead end the proposal could not see) is no evidence of
anything: when every sample is, :class:`~bbn.core.errors.NoAnswerError` (not
impossibility, which only the zeros' propagation or exact inference may prove).

>>> import numpy as np
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0,), (0, 1)),
...                     (np.array([0.3, 0.7]), np.array([[0.9, 0.1], [0.2, 0.8]])))
>>> found = MiniBucketSampler(samples=20000).run(graph, {1: 1})
>>> found.exact, round(found.log_partition, 6)   # no bucket split: every weight is Z(e)
(True, -0.527633)
>>> found.marginals[0].round(2).tolist()         # exact: [0.051, 0.949]
[0.05, 0.95]
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bbn.core.errors import NoAnswerError
from bbn.core.memory import ENTRY_BYTES, check_allocation, get_memory_limit
from bbn.engines.approximate.clamping import check_evidence
from bbn.engines.approximate.supports import supported_states
from bbn.engines.exact.ordering import greedy_order
from bbn.views.factor_graph import FactorGraph


@dataclass(frozen=True)
class Reduced:
    """A model without its ruled-out states: ``kept[v]`` the state indices of variable v
    left (one for an observed or forced variable), ``free`` the variables with more than
    one, and factors over free variables only (``scopes``, ``tables``; a factor left
    with no free variable is folded into ``log_constant``)."""

    kept: list[np.ndarray]
    free: list[int]
    scopes: list[tuple[int, ...]]
    tables: list[np.ndarray]
    log_constant: float


def reduce_model(graph: FactorGraph, evidence: Mapping[int, int]) -> Reduced:
    """The model sliced to the states the evidence and the zeros leave (see the module).

    Raises
    ------
    ImpossibleEvidenceError
        When the zeros prove the evidence impossible.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1", "2")), ((0, 1),),
    ...                     (np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),))
    >>> reduced = reduce_model(graph, {})
    >>> [k.tolist() for k in reduced.kept], reduced.free, reduced.tables[0].tolist()
    ([[0], [0, 2]], [1], [1.0, 2.0])
    """
    domains = supported_states(graph, check_evidence(graph, evidence))
    kept = [np.flatnonzero(d) for d in domains]
    free = [v for v, k in enumerate(kept) if len(k) > 1]
    scopes, tables, log_constant = [], [], 0.0
    for scope, table in zip(graph.scopes, graph.tables):
        index = tuple(kept[v] if len(kept[v]) > 1 else kept[v][0] for v in scope)
        sliced = np.asarray(table, dtype=np.float64)[np.ix_(*[np.atleast_1d(i) for i in index])]
        sliced = sliced.reshape([len(kept[v]) for v in scope if len(kept[v]) > 1])
        left = tuple(v for v in scope if len(kept[v]) > 1)
        if left:
            scopes.append(left)
            tables.append(sliced)
        else:
            log_constant += math.log(float(sliced))  # positive: the propagation kept it
    return Reduced(kept, free, scopes, tables, log_constant)


@dataclass(frozen=True)
class Sampled:
    """What :meth:`MiniBucketSampler.run` found: ``marginals[v]`` over v's states,
    ``log_partition`` the natural log of the estimate of Z(e), ``samples`` drawn,
    ``effective_samples`` Kish's (Σw)²/Σw², ``largest`` the mini-bucket cap used
    (entries) and ``exact`` whether no bucket was split (the proposal is then the exact
    conditional: every weight equal)."""

    marginals: list[np.ndarray]
    log_partition: float
    samples: int
    effective_samples: float
    largest: int
    exact: bool


@dataclass(frozen=True)
class MiniBucketSampler:
    """Importance sampling from a mini-bucket proposal (see the module).

    Parameters
    ----------
    seconds : float
        Time for the whole run (messages and sampling).
    largest : int
        The most entries of a mini-bucket's product (the i-bound, in entries); halved
        until the products' total fits ``entries_per_second`` × ``seconds``.
    entries_per_second : float
        How many mini-bucket product entries a second of the budget may buy: a fifth of
        it at 1.25e-8 s an entry on an idle core (linkage_12: 3.2e8 entries at a cap of
        2^24 in 3.3–4.4 s of CPU). A larger cap makes better samples, but fewer: at equal
        CPU time (25 s) linkage_12's error was 3.6e-3 and 3.8e-3 at 2^24 (140,000
        samples; the messages 16% of the time) and 3.9e-3 at 2^25 (90,000; 25%). Divide
        it by how much slower a loaded machine runs.
    samples : int
        The most samples drawn (the time usually ends the run first).
    batch : int
        Samples drawn at once.
    seed : int
        The random generator's seed.
    tail : int
        How many samples of the largest weights are held apart, their weights truncated
        at the end to the mean weight × √n for the marginals (the weights are
        heavy-tailed: one rare large weight would move them; Ionides 2008). Z(e) is
        estimated from the weights as drawn (unbiased).

    Examples
    --------
    >>> MiniBucketSampler(seconds=1.0).largest
    33554432
    """

    seconds: float = 10.0
    largest: int = 1 << 25
    entries_per_second: float = 1.6e7
    samples: int = 10**12
    batch: int = 10000
    seed: int = 0
    tail: int = 2000

    def run(self, graph: FactorGraph, evidence: Mapping[int, int]) -> Sampled:
        """Marginals and log Z(e) of ``graph`` given ``evidence`` ({variable index: state
        index}).

        Raises
        ------
        ImpossibleEvidenceError
            When the zeros prove the evidence impossible.
        NoAnswerError
            When every sample drawn had weight 0.
        """
        start = time.perf_counter()
        reduced = reduce_model(graph, evidence)
        card = {v: len(reduced.kept[v]) for v in reduced.free}
        order = _order(reduced, card)
        largest, buckets, exact = self._plan(reduced, order, card)
        totals = {v: np.zeros(card[v]) for v in reduced.free}
        rng = np.random.default_rng(self.seed)
        column = {v: i for i, v in enumerate(order)}
        blankets = _blankets(reduced)
        top = _Largest(self.tail, len(order))
        shift, mass, squares, samples = None, 0.0, 0.0, 0
        while True:
            batch_start = time.perf_counter()
            drawn, log_q = _draw(buckets, order, card, column, self.batch, rng)
            with np.errstate(invalid="ignore"):  # a dead end: -inf - (-inf)
                log_w = np.where(np.isfinite(log_q),
                                 _log_weights(reduced, drawn, column) - log_q, -np.inf)
            samples += self.batch
            finite = np.isfinite(log_w)
            if finite.any():
                most = float(log_w[finite].max())
                if shift is None or most > shift:  # rescale what was summed so far
                    if shift is not None:
                        mass *= math.exp(shift - most)
                        squares *= math.exp(2 * (shift - most))
                        for v in totals:
                            totals[v] *= math.exp(shift - most)
                    shift = most
                w = np.where(finite, np.exp(np.where(finite, log_w, 0.0) - shift), 0.0)
                mass += float(w.sum())
                squares += float((w * w).sum())
                for states, logs in top.add(drawn, log_w):  # the rest, summed now
                    for v, found in _conditionals(blankets, states, column, card,
                                                  np.exp(logs - shift)):
                        totals[v] += found
            now = time.perf_counter()
            if samples >= self.samples or now + (now - batch_start) - start > self.seconds:
                break  # the next batch would end after the time
        if shift is None:
            raise NoAnswerError(f"importance sampling from mini-buckets drew {samples} "
                                "samples, all of weight 0 (no answer; this proves nothing)")
        # the largest weights truncated at the mean weight × √n (Ionides 2008)
        w = np.exp(np.minimum(top.log_w - shift, math.log(mass / samples * math.sqrt(samples))))
        for v, found in _conditionals(blankets, top.drawn, column, card, w):
            totals[v] += found
        truncated = mass - float(np.exp(top.log_w - shift).sum()) + float(w.sum())
        marginals = []
        for v, states in enumerate(reduced.kept):
            p = np.zeros(int(graph.cardinality[v]))
            p[states] = totals[v] / truncated if v in totals else 1.0
            marginals.append(p)
        log_z = reduced.log_constant + shift + math.log(mass / samples)
        return Sampled(marginals, log_z, samples, mass * mass / squares, largest, exact)

    def _plan(self, reduced: Reduced, order: list[int], card: Mapping[int, int]):
        """The mini-bucket cap (halved until the products fit their share of the time;
        their memory checked against the limit), and each bucket's functions once
        computed."""
        largest = self.largest
        while True:
            total, split = _schedule(reduced.scopes, order, card, largest)
            fits = 2 * total * ENTRY_BYTES <= get_memory_limit()
            if fits and total <= self.entries_per_second * self.seconds or largest <= 2:
                break
            largest //= 2
        check_allocation(2 * total, "the mini-bucket messages")
        return largest, _buckets(reduced, order, card, largest), not split


class _Largest:
    """The ``size`` samples of largest log weight seen so far (``drawn``: one column per
    sample, ``log_w``), held apart from the running sums to be truncated at the end."""

    def __init__(self, size: int, rows: int):
        self.size = size
        self.drawn = np.zeros((rows, 0), dtype=np.int32)
        self.log_w = np.zeros(0)

    def add(self, drawn: np.ndarray, log_w: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Hold the largest of these samples and those held; the others as (states, log
        weights) pairs: the batch with the held ones' log weights made −inf, and those
        let go.

        >>> top = _Largest(2, 1)
        >>> [w.tolist() for _, w in top.add(np.array([[0, 1, 2]]), np.array([1.0, 3.0, 2.0]))]
        [[1.0, -inf, -inf], []]
        >>> [w.tolist() for _, w in top.add(np.array([[3]]), np.array([2.5]))], top.log_w
        ([[-inf], [2.0]], array([3. , 2.5]))
        """
        if self.size == 0:
            return [(drawn, log_w)]
        floor = self.log_w.min() if len(self.log_w) >= self.size else -np.inf
        enter = np.flatnonzero(log_w > floor)
        if len(enter) > self.size:  # only the batch's largest may stay: copy no more
            enter = enter[np.argpartition(-log_w[enter], self.size - 1)[:self.size]]
        pool_w = np.concatenate([self.log_w, log_w[enter]])
        pool = np.concatenate([self.drawn, drawn[:, enter]], axis=1)
        ranked = np.argsort(-pool_w, kind="stable")
        held, gone = ranked[:self.size], ranked[self.size:]
        let_go = (pool[:, gone], pool_w[gone])
        self.drawn, self.log_w = pool[:, held], pool_w[held]
        rest = log_w.copy()
        rest[enter] = -np.inf
        return [(drawn, rest), let_go]


def _order(reduced: Reduced, card: Mapping[int, int]) -> list[int]:
    """Weighted min-fill over the free variables' interaction graph."""
    adjacency: dict[int, set[int]] = {v: set() for v in reduced.free}
    for scope in reduced.scopes:
        for v in scope:
            adjacency[v].update(scope)
    for v in adjacency:
        adjacency[v].discard(v)
    return greedy_order(adjacency, card, reduced.free)


def _groups(scopes: Sequence[tuple[int, ...]], card: Mapping[int, int],
            largest: int) -> list[list[int]]:
    """Indices of ``scopes`` split into mini-buckets, the widest first, each joining the
    first group whose joint scope stays within ``largest`` entries."""
    groups: list[tuple[set[int], list[int]]] = []
    widths = [math.prod(card[v] for v in scope) for scope in scopes]
    for k in sorted(range(len(scopes)), key=lambda k: -widths[k]):
        for joint, members in groups:
            union = joint | set(scopes[k])
            if math.prod(card[v] for v in union) <= largest:
                joint |= union
                members.append(k)
                break
        else:
            groups.append((set(scopes[k]), [k]))
    return [members for _, members in groups]


def _schedule(scopes: Sequence[tuple[int, ...]], order: list[int], card: Mapping[int, int],
              largest: int) -> tuple[int, bool]:
    """Entries of every mini-bucket product with cap ``largest`` (planned on scopes
    only), and whether any bucket was split."""
    position = {v: i for i, v in enumerate(order)}
    bucket: list[list[tuple[int, ...]]] = [[] for _ in order]
    for scope in scopes:
        bucket[min(position[v] for v in scope)].append(scope)
    total, split = 0, False
    for i, v in enumerate(order):
        members = bucket[i]
        groups = _groups(members, card, largest)
        split = split or len(groups) > 1
        for group in groups:
            joint = set().union(*(members[k] for k in group))
            total += math.prod(card[u] for u in joint)
            rest = joint - {v}
            if rest:
                bucket[min(position[u] for u in rest)].append(tuple(sorted(rest)))
    return total, split


def _buckets(reduced: Reduced, order: list[int], card: Mapping[int, int], largest: int):
    """Per variable (by position in ``order``): its bucket's functions as (other
    variables, table with the variable's axis last), after computing the messages."""
    position = {v: i for i, v in enumerate(order)}
    bucket: list[list[tuple[tuple[int, ...], np.ndarray]]] = [[] for _ in order]
    for scope, table in zip(reduced.scopes, _scaled(reduced.tables)):
        bucket[min(position[v] for v in scope)].append((scope, table))
    kept = []
    for i, v in enumerate(order):
        members = bucket[i]
        products = []
        for group in _groups([scope for scope, _ in members], card, largest):
            joint = sorted(set().union(*(members[k][0] for k in group)), key=position.get)
            product = np.ones([card[u] for u in joint])
            for k in group:
                scope, table = members[k]
                product = product * _aligned(table, scope, joint)
            products.append((joint, product))  # v is first in joint: earliest in the order
        if len(products) > 1:
            products = _matched(products)
        power = len(products)  # Hölder's weights 1/R: (Σ_v f^R)^(1/R)
        for joint, product in products:
            if not joint[1:]:
                continue
            if power > 1:  # scaled first: a product of large potentials ** R overflows
                top = product.max()
                scaled = product / top if top > 0 else product
                summed = (scaled ** power).sum(axis=0) ** (1 / power)
            else:
                summed = product.sum(axis=0)
            top = summed.max()
            if top > 0:
                summed = summed / top  # scale is irrelevant to the proposal
            rest = tuple(joint[1:])
            bucket[position[rest[0]]].append((rest, summed))
        kept.append([(tuple(u for u in scope if u != v),
                      np.moveaxis(table, scope.index(v), -1)) for scope, table in members])
        bucket[i] = []
    return kept


def _matched(products):
    """Moment matching on the bucket's variable (first axis of each product): every
    mini-bucket's marginal of it made their geometric mean, the bucket's product kept."""
    marginals = [p.reshape(p.shape[0], -1).sum(axis=1) for _, p in products]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.array(marginals))
        mean = np.exp(logs.mean(axis=0))
        out = []
        for (joint, p), m in zip(products, marginals):
            ratio = np.where(m > 0, mean / np.where(m > 0, m, 1.0), 0.0)
            out.append((joint, p * ratio.reshape((-1,) + (1,) * (p.ndim - 1))))
    return out


def _scaled(tables: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Every table over its largest entry (positive: the propagation left one): the
    proposal and the conditionals are ratios, which large potentials would overflow."""
    return [table / table.max() for table in tables]


def _aligned(table: np.ndarray, scope: tuple[int, ...], joint: list[int]) -> np.ndarray:
    """``table`` over ``scope`` transposed and reshaped to broadcast over ``joint``."""
    axes = sorted(range(len(scope)), key=lambda a: joint.index(scope[a]))
    moved = np.transpose(table, axes)
    shape = [1] * len(joint)
    for a in axes:
        shape[joint.index(scope[a])] = table.shape[a]
    return moved.reshape(shape)


def _draw(buckets, order: list[int], card: Mapping[int, int], column: Mapping[int, int],
          n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` samples drawn backwards along ``order`` from the buckets' proposal (one row
    per variable, by position in ``order``), and the log of their proposal probability
    (−inf for a dead end)."""
    drawn = np.zeros((len(order), n), dtype=np.int32)  # a table has under 2^31 entries
    log_q = np.zeros(n)
    rows = np.arange(n)
    for i in range(len(order) - 1, -1, -1):
        size = card[order[i]]
        weights = None
        for others, table in buckets[i]:
            flat = table.reshape(-1, size)
            found = flat.take(_flat(others, table.shape, drawn, column), axis=0) if others else flat
            weights = found if weights is None else weights * found
        weights = np.broadcast_to(np.ones(size) if weights is None else weights, (n, size))
        if size == 2:  # most variables: one comparison, no cumulative sums
            total = weights[:, 0] + weights[:, 1]
            state = (rng.random(n) * total >= weights[:, 0]).astype(np.intp)
        else:
            cumulative = np.cumsum(weights, axis=1)
            total = cumulative[:, -1]
            u = rng.random(n) * total
            state = np.minimum((cumulative < u[:, None]).sum(axis=1), size - 1)
        drawn[i] = state
        with np.errstate(divide="ignore", invalid="ignore"):
            log_q += np.log(weights[rows, state] / total)  # a dead end (0/0): nan
    log_q[np.isnan(log_q)] = -np.inf
    return drawn, log_q


def _flat(others: tuple[int, ...], shape: tuple[int, ...], drawn: np.ndarray,
          column: Mapping[int, int]) -> np.ndarray | int:
    """The row of a table over ``others`` (and one last axis) at every sample's states
    (in place, in ``drawn``'s 32-bit integers: half the memory traffic of 64)."""
    if not others:
        return 0
    index = drawn[column[others[0]]].copy()
    for u, size in zip(others[1:], shape[1:]):
        index *= size
        index += drawn[column[u]]
    return index


def _blankets(reduced: Reduced) -> dict[int, list[tuple[tuple[int, ...], np.ndarray]]]:
    """Per free variable v, its factors as (the other variables, table with v's axis
    last): what p(x_v | the rest) multiplies."""
    found: dict[int, list] = {v: [] for v in reduced.free}
    for scope, table in zip(reduced.scopes, _scaled(reduced.tables)):
        for axis, v in enumerate(scope):
            found[v].append((scope[:axis] + scope[axis + 1:], np.moveaxis(table, axis, -1)))
    return found


def _conditionals(blankets, drawn: np.ndarray, column: Mapping[int, int],
                  card: Mapping[int, int], w: np.ndarray):
    """Per free variable v: Σ_i w_i p(x_v | x_i,−v), the Rao–Blackwellised weighted
    count of its states (the conditional given every other variable of the sample is
    the product of v's factors there; E[p(x_v | x_−v)] = p(x_v))."""
    live = w > 0
    if not live.all():
        drawn, w = drawn[:, live], w[live]
    for v, factors in blankets.items():
        product = np.ones((len(w), card[v]))
        for others, table in factors:
            flat = table.reshape(-1, card[v])
            if others:
                flat = flat.take(_flat(others, table.shape, drawn, column), axis=0)
            product *= flat
        total = product[:, 0] + product[:, 1] if card[v] == 2 else product.sum(axis=1)
        yield v, (w / total) @ product


def _log_weights(reduced: Reduced, drawn: np.ndarray, column: Mapping[int, int]) -> np.ndarray:
    """log Π_k φ_k(x) of every sample (−inf where a factor is 0)."""
    total = np.zeros(drawn.shape[1])
    with np.errstate(divide="ignore"):
        for scope, table in zip(reduced.scopes, reduced.tables):
            total += np.log(table.reshape(-1)[_flat(scope, table.shape, drawn, column)])
    return total


__all__ = ["MiniBucketSampler", "Reduced", "Sampled", "reduce_model"]

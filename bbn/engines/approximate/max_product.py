"""The most probable explanation, approximately: max-product loopy belief propagation, then
a local search.

Max-product replaces the sum in sum-product's factor message by a maximum:

    μ_{f→v}(x_v) ∝ max_{x_f \\ x_v} φ_f(x_f) Π_{u ∈ f, u ≠ v} μ_{u→f}(x_u)

and each variable takes the state of its largest max-belief, x̂_v = argmax Π_{f ∋ v}
μ_{f→v}(x_v). On a tree (a polytree Bayesian network) these are max-marginals and x̂ is
an MPE (unless two states tie); on a graph with loops the messages may never settle, and
x̂ is a start. After every sweep, iterated conditional modes (ICM) moves each variable of
the decoding to the state that maximises its share of the score,

    x_v ← argmax_{x_v} Σ_{f ∋ v} log φ_f(x_v, x_{f \\ v})

(variables that share no factor at once, in the colour classes of
:mod:`bbn.engines.approximate.colours`), until a pass changes nothing; a move is taken only when
it raises the score log φ(x) = Σ_f log φ_f(x_f), so the search ends, at an assignment no
single change improves. The best such assignment over all sweeps is the answer. Nothing
bounds how far it is from the true MPE (on the UAI 2014 grids Grids_11–14, within 1.2% of
the MPE's log score with damping 0.5); compare with ``method="exact"`` where that fits.

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> from bbn.engines.approximate.lbp import LoopyBP
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> found = most_probable(graph, {4: 0}, LoopyBP())
>>> [graph.states[v][s] for v, s in enumerate(found.states)]   # the exact MPE
['T', 'F', 'T', 'T', 'T']
>>> round(float(np.exp(found.log_score)), 6)                      # P(x̂, A=T)
0.098784
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.engines.approximate.colours import colour_classes, conditionals
from bbn.engines.approximate.lbp import LoopyBP, iterate, sliced_for_messages
from bbn.engines.approximate.messages import MessageLayout, factor_max_messages, log_products
from bbn.engines.approximate.result import RunReport
from bbn.views.factor_graph import FactorGraph

#: ICM sweeps at most; each raises the score, and on the UAI grids it settles in < 10.
MAX_SEARCH_SWEEPS = 100


@dataclass(frozen=True)
class MostProbable:
    """An assignment found by :func:`most_probable`.

    Parameters
    ----------
    states : numpy.ndarray
        The state index of every variable of the graph (the evidence's included).
    log_score : float
        log φ(x) = Σ_f log φ_f(x_f), natural log: log P(x, e) for a Bayesian network,
        log of the unnormalised product for a Markov network (−inf: probability 0).
    found_in_sweep : int
        The sweep whose decoding (after the local search) was best; 0: none beat the
        start (every variable's first state, or each one's best alone).
    report : RunReport
        The max-product run: iterations, residual, converged, time.
    """

    states: np.ndarray
    log_score: float
    found_in_sweep: int
    report: RunReport


def most_probable(graph: FactorGraph, evidence: Mapping[int, int],
                  settings: LoopyBP) -> MostProbable:
    """An assignment of high probability given ``evidence``: max-product loopy belief
    propagation decoded after every sweep, the best decoding kept, then improved by
    iterated conditional modes.

    Parameters
    ----------
    graph : FactorGraph
        A Bayesian or Markov network's factor graph.
    evidence : mapping of int to int
        ``{variable index: state index}``.
    settings : LoopyBP
        Damping, tolerance, the cap on sweeps and the time budget of the messages.

    Returns
    -------
    MostProbable

    Raises
    ------
    ImpossibleEvidenceError
        When the evidence zeroes a factor.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[4.0, 1.0], [2.0, 3.0]]),))
    >>> found = most_probable(graph, {}, LoopyBP())
    >>> found.states.tolist(), round(float(np.exp(found.log_score)), 6)
    ([0, 0], 4.0)
    """
    start = time.perf_counter()
    search = LocalSearch(graph, evidence, "max-product belief propagation")
    evidence, reduced, classes, score = search.evidence, search.reduced, search.classes, \
        search.score
    cardinality = graph.cardinality
    states = np.zeros(len(graph.variables) + 1, dtype=np.int64)  # + the padding code
    for v, state in evidence.items():
        states[v] = state
    layout = MessageLayout(reduced.scopes, reduced.tables, cardinality)
    best = Best(states, score(states))
    report = RunReport("lbp", iterations=0, residual=0.0, stopped_by="tolerance")
    decoded = np.zeros(layout.keys, dtype=np.int64)
    key_first = layout.key_offset

    def decode(to_variable: np.ndarray) -> None:
        logs = log_products(layout, to_variable)
        # argmax per variable's run of keys: the largest entry, first of the ties
        top = np.maximum.reduceat(logs, key_first)[layout.key_variable]
        decoded[:] = np.where(logs == top, np.arange(layout.keys), layout.keys)
        first_top = np.minimum.reduceat(decoded, key_first)
        candidate = best.states.copy()
        candidate[layout.variables] = first_top - key_first
        improve(candidate, classes)
        best.keep(candidate, score(candidate))

    if layout.size:
        sweeps = iterate(layout, settings, factor_max_messages, start,
                         "max-product belief propagation", watch=decode)
        report = sweeps.report("lbp", start)
    else:
        improve(best.states, classes)  # each variable alone: its best state
    states = best.states[:-1]
    report = RunReport("lbp", iterations=report.iterations, residual=report.residual,
                       converged=report.converged,
                       seconds=time.perf_counter() - start, stopped_by=report.stopped_by)
    return MostProbable(states, log_score(graph, states), best.found, report)


class LocalSearch:
    """What iterated conditional modes needs: the factors sliced at the evidence (their
    memory checked), their scorer and the free variables' colour classes.

    Parameters
    ----------
    graph : FactorGraph
    evidence : mapping of int to int
        ``{variable index: state index}``.
    name : str
        What the memory check names.

    Examples
    --------
    >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
    ...                     (np.array([[4.0, 1.0], [2.0, 3.0]]),))
    >>> states, score = LocalSearch(graph, {}, "a search").polish(np.array([1, 0]))
    >>> states.tolist(), round(float(np.exp(score)), 6)
    ([0, 0], 4.0)
    """

    def __init__(self, graph: FactorGraph, evidence: Mapping[int, int], name: str) -> None:
        # 3 copies of the tables: sliced, in logarithms, and the messages' or the classes'
        self.graph = graph
        self.evidence, self.reduced = sliced_for_messages(graph, evidence, name, 3)
        with np.errstate(divide="ignore"):
            log_tables = [np.log(t) for t in self.reduced.tables]
        self.score = Scorer(self.reduced.scopes, log_tables, graph.cardinality)
        free = [v for v in range(len(graph.variables)) if v not in self.evidence]
        self.classes = colour_classes(self.reduced.scopes, log_tables, free,
                                      graph.cardinality)

    def polish(self, states: np.ndarray) -> tuple[np.ndarray, float]:
        """``states`` (every variable, the evidence's included) improved by iterated
        conditional modes, and its exact log score log φ(x)."""
        padded = np.append(np.asarray(states, dtype=np.int64), 0)
        improve(padded, self.classes)
        return padded[:-1], log_score(self.graph, padded[:-1])


class Best:
    """The highest-scoring assignment seen so far, and in which sweep it was found."""

    def __init__(self, states: np.ndarray, score: float) -> None:
        self.states, self.score, self.seen, self.found = states.copy(), score, 0, 0

    def keep(self, states: np.ndarray, score: float) -> None:
        """Keep ``states`` (not copied) if ``score`` beats the best so far."""
        self.seen += 1
        if score > self.score:
            self.states, self.score, self.found = states, score, self.seen


class Scorer:
    """Σ_f log φ_f(x_f) of an assignment in a few numpy calls: the factors' log tables
    flattened end to end, and per factor its first cell and its variables' place values.

    Parameters
    ----------
    scopes : sequence of tuple of int
    log_tables : sequence of numpy.ndarray
    cardinality : numpy.ndarray

    Examples
    --------
    >>> score = Scorer(((0, 1), (1,)), (np.log([[4.0, 1.0], [2.0, 3.0]]), np.log([1.0, 2.0])),
    ...                np.array([2, 2]))
    >>> round(float(np.exp(score(np.array([1, 1, 0])))), 6)       # 3 · 2
    6.0
    """

    def __init__(self, scopes, log_tables, cardinality: np.ndarray) -> None:
        sizes = np.array([t.size for t in log_tables], dtype=np.int64)
        self.flat = np.concatenate([t.ravel() for t in log_tables]) if len(sizes) else np.zeros(0)
        first = np.cumsum(sizes) - sizes
        widest = max((len(scope) for scope in scopes), default=0)
        padding = len(cardinality)  # the padding code's index: its state is always 0
        self.variables = np.full((len(scopes), widest), padding, dtype=np.int64)
        self.places = np.zeros((len(scopes), widest), dtype=np.int64)
        for k, scope in enumerate(scopes):
            self.variables[k, :len(scope)] = scope
            self.places[k, :len(scope)] = np.cumprod([1, *cardinality[list(scope)][::-1]]
                                                     )[:-1][::-1]
        self.first = first

    def __call__(self, states: np.ndarray) -> float:
        """The score of ``states`` (variables + the padding entry)."""
        cells = self.first + (self.places * states[self.variables]).sum(axis=1)
        return float(self.flat[cells].sum())

    def of_samples(self, codes: np.ndarray) -> np.ndarray:
        """The score of every column of ``codes`` (variables × samples, no padding row),
        one gather per factor column rather than a loop over samples."""
        padded = np.vstack([codes, np.zeros((1, codes.shape[1]), dtype=codes.dtype)])
        cells = np.repeat(self.first[:, None], codes.shape[1], axis=1)
        for j in range(self.variables.shape[1]):
            cells += self.places[:, j, None] * padded[self.variables[:, j]]
        return self.flat[cells].sum(axis=0)


def improve(states: np.ndarray, classes) -> int:
    """Iterated conditional modes on ``states`` (changed in place; the last entry is the
    padding code 0): every variable of a colour class moves at once to the state of its
    highest conditional log score when that beats its current one. Returns how many moves
    were made.

    Examples
    --------
    >>> tables = [np.log(np.array([[4.0, 1.0], [2.0, 3.0]]))]
    >>> classes = colour_classes(((0, 1),), tables, [0, 1], np.array([2, 2]))
    >>> states = np.array([1, 0, 0])                 # A=1, B=0: φ = 2
    >>> improve(states, classes), states.tolist()    # A=0 given B=0: φ = 4
    (1, [0, 0, 0])
    >>> states = np.array([1, 1, 0])                 # φ = 3: no single change beats it
    >>> improve(states, classes), states.tolist()
    (0, [1, 1, 0])
    """
    codes = states[:, None]
    moves = 0
    for _ in range(MAX_SEARCH_SWEEPS):
        moved = 0
        for colour in classes:
            scores = conditionals(colour, codes, logarithms=True)[:, 0, :]
            scores[np.arange(scores.shape[1]) >= colour.widths[:, None]] = -np.inf
            here = codes[colour.variables, 0]
            best = scores.argmax(axis=1)
            rows = np.arange(len(best))
            better = scores[rows, best] > scores[rows, here]
            codes[colour.variables[better], 0] = best[better]
            moved += int(better.sum())
        moves += moved
        if not moved:
            break
    return moves


def log_score(graph: FactorGraph, states: np.ndarray) -> float:
    """log φ(x) = Σ_f log φ_f(x_f) of a full assignment (−inf when a factor is 0).

    Examples
    --------
    >>> graph = FactorGraph(("A",), (("0", "1"),), ((0,),), (np.array([1.0, 3.0]),))
    >>> round(log_score(graph, np.array([1])), 6)
    1.098612
    """
    values = np.array([table[tuple(states[list(scope)])]
                       for scope, table in zip(graph.scopes, graph.tables)])
    with np.errstate(divide="ignore"):
        return float(np.log(values).sum())

"""Gibbs sampling: each unobserved variable redrawn from its full conditional, many
chains at once.

The full conditional of X_v given every other variable involves only the factors that
hold v (its Markov blanket):

    P(x_v | x_{−v}, e) ∝ Π_{f ∋ v} φ_f^e(x_v, x_{f \\ v})

so one update gathers, for all C chains at once, the row of each such factor that the
chains' current states pick, multiplies them and draws one state per chain. Variables
that share no factor are updated together (a colour class,
:mod:`bbn.engines.approximate.colours`); a sweep updates every class in turn. After ``burn_in``
sweeps, each chain accumulates the conditional probabilities themselves (Rao-Blackwell:
averaging P(x_v | x_{−v}) has less variance than counting [x_v = x]); chain c's average
m_c estimates P(x_v | e), and

    P̂ = (1/C) Σ_c m_c,      SE = sd(m_1, ..., m_C) / √C

(batch means, one batch per chain: it accounts for the autocorrelation within chains),
floored as the weighted samplers' are (:mod:`bbn.engines.approximate.weighted`) with the
variable's smallest n_eff = P̂(1 − P̂)/SE² over its states, so a state the chains
never reach gets SE 1/n_eff rather than 0. That n_eff is at most the samples kept, and
at most C + m, the runs of equal states the chains went through (m changes of state after
burn-in): averaged conditionals can show little spread where the chains hardly moved, yet
say no more than the few states they visited (C when the chains' averages agree to
rounding).
Chains start from importance samples (the loopy-BP proposal of
:mod:`bbn.engines.approximate.importance_sampling`) resampled by their weights (a Bayesian
network), so chains that cannot move still start spread as the posterior is, or
uniformly at random (a Markov network).

Gibbs sampling does not mix when a full conditional is deterministic (a table with 0/1
rows, or factors with zeros that wall off parts of the space): a chain then never leaves
the region it started in, and its average is one sample of its start, however long it
runs. The first min(burn_in, 20) sweeps tell: if some variable's chains forget their
state more slowly than the planned run (τ = 2d/r sweeps, d the spread of its states over
the chains, r its rate of change per update) or never changed state at all, a Bayesian
network's run spends the kept budget on more chains instead, ⌈samples/20⌉ of them, each
a fresh start from the proposal burnt in as long, run 20 kept sweeps (the batch means
then count ten times the starts; with a time budget, the new chains' burn-in may take
half the time left). On win95pts, where 100 chains held no start in the
state of probability 0.047 of DS_LCLOK (4.8 SE off), this takes 1.4× the time and gives
a third of the error. A Markov network's chains start uniformly, not from the posterior:
more of them would not help, and there, as for a Bayesian network whose proposal misses
a region, the standard errors can be too small; use loopy belief propagation or exact
inference for such models, or compare chains started differently (``seed``).

>>> import bbn
>>> from bbn.views.factor_graph import FactorGraph
>>> graph = FactorGraph.from_compiled(bbn.load("models/chair.bn").compiled())
>>> result = Gibbs(samples=20_000).run(graph, {4: 0})
>>> bool(abs(result.probabilities["C"][0] - 0.8867) < 4 * result.standard_errors["C"][0])
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bbn.core.memory import check_allocation
from bbn.engines.approximate.clamping import check_evidence, reduce_factors
from bbn.engines.approximate.colours import ColourClass, colour_classes, conditionals
from bbn.engines.approximate.importance_sampling import ImportanceSampling
from bbn.engines.approximate.result import Marginals, RunReport
from bbn.engines.approximate.settings import SamplerSettings, check_count
from bbn.engines.approximate.weighted import ForwardSampler
from bbn.views.factor_graph import FactorGraph

#: Importance-sampled candidates per chain the starting states are resampled from (one,
#: the proposal's own draw, once half a time budget is gone before the chains start).
_CANDIDATES = 20

#: Kept sweeps per chain when the chains barely move (and the new chains' burn-in): 20
#: sweeps of 1,000 chains gave win95pts's and alarm's priors a third of the error of 200
#: sweeps of 100 chains, for 1.3× the updates.
_SHORT_RUN = 20

#: Entries of one class's update (chains × entries per chain) above which the chains are
#: updated in blocks: bigger arrays outgrow the cache (1,000 hailfinder chains at once,
#: 1.7 M entries, cost 1.35× as much per chain as 100), smaller ones pay numpy's
#: per-call overhead more often (3 variables: 500 chains in blocks of 100 took 4×).
_BLOCK_ENTRIES = 1 << 17

#: At most this many entries in one class's update over all chains (64 MiB of float64):
#: caps the chains a large budget asks for.
_MOST_UPDATE_ENTRIES = 1 << 23

#: A spread of chain averages below this is rounding (averages of 100 equal numbers).
_ROUNDING = 1e-12


@dataclass(frozen=True)
class Gibbs(SamplerSettings):
    """Gibbs sampling over parallel chains (Bayesian and Markov networks).

    Parameters
    ----------
    samples : int
        The budget of kept samples over all chains (sweeps after burn-in × chains).
    time_budget : float, optional
        Seconds (``inf``: none); checked before every sweep of burn-in and after every
        kept sweep. A budget spent in burn-in cuts it short; one sweep is kept all the
        same (the estimate needs one) and ``report.stopped_by`` is ``"time"``. The
        set-up is not cut — no sweep runs without the factors sliced at the evidence,
        the colour classes and a start per chain — and grows with the network (munin's
        1,041 variables: 0.6–0.9 s); a budget half gone by then starts each chain from
        one importance sample instead of the best of 20. ``report.seconds`` counts all.
    seed : int
        Seeds the random generator.
    chains : int
        Chains run side by side (vectorised); at least 2, for the standard error. One
        update costs about the same for 10 chains as for 100 (numpy's per-call overhead
        dominates), so many short chains make the budget cheap. A Bayesian network
        whose chains barely move in their first 20 sweeps runs ⌈samples/20⌉ chains
        instead (more starts say more than longer runs; ``report.samples /
        report.iterations`` is the number run).
    burn_in : int
        Sweeps discarded at the start of every chain (at most 20 when the chains
        barely move: longer does not help chains that cannot leave their start).

    Raises
    ------
    QueryError
        For a setting out of range.

    Examples
    --------
    >>> Gibbs().chains, Gibbs().burn_in
    (100, 100)
    """

    chains: int = 100
    burn_in: int = 100

    def __post_init__(self) -> None:
        super().__post_init__()
        check_count("Gibbs", "chains", self.chains, minimum=2)
        check_count("Gibbs", "burn_in", self.burn_in, minimum=0)

    def run(self, graph: FactorGraph, evidence: Mapping[int, int], watch=None) -> Marginals:
        """P(X | e) of every variable, with standard errors from the chains' spread.

        Parameters
        ----------
        graph : FactorGraph
            A Bayesian or Markov network's factor graph.
        evidence : mapping of int to int
            ``{variable index: state index}``.
        watch : callable, optional
            ``watch(codes)`` sees the chains' states (variables × chains) after every
            kept sweep: joint questions count from it (:mod:`bbn.engines.approximate.sampled`);
            the run then keeps ``chains`` chains.

        Returns
        -------
        Marginals
            ``log_partition`` is None; ``report.samples`` counts the kept samples.

        Raises
        ------
        ImpossibleEvidenceError
            When the evidence zeroes a factor.

        Examples
        --------
        >>> import numpy as np
        >>> graph = FactorGraph(("A", "B"), (("0", "1"), ("0", "1")), ((0, 1),),
        ...                     (np.array([[2.0, 1.0], [1.0, 2.0]]),))
        >>> Gibbs(samples=1000).run(graph, {1: 0}).probabilities["A"].round(4).tolist()
        [0.6667, 0.3333]
        """
        start = time.perf_counter()
        evidence = check_evidence(graph, evidence)
        reduced = reduce_factors(graph, evidence)
        free = [v for v in range(len(graph.variables)) if v not in evidence]
        classes = colour_classes(reduced.scopes, reduced.tables, free, graph.cardinality)
        per_chain = max((c.others.size + 3 * len(c.offsets) * c.rows.shape[1]
                         for c in classes), default=0)  # entries of one chain's update
        self._check_memory(graph, per_chain, self.chains)
        block = max(self.chains, _BLOCK_ENTRIES // max(per_chain, 1))
        rng = np.random.default_rng(self.seed)
        # the starts' loopy BP: a quarter of the budget (the proposal gives it half of this)
        starts = _Starts(graph, evidence, self.seed,
                         None if self.time_budget is None or math.isinf(self.time_budget)
                         else self.time_budget / 2)
        budget = math.inf if self.time_budget is None else self.time_budget
        # the set-up above (slicing, colouring, the proposal) cannot be cut short — no
        # sweep runs without it; the starts' resampling can (1.2 → 0.9 s on munin at 0.1 s)
        hurried = time.perf_counter() - start >= budget / 2
        codes = starts.draw(self.chains, rng, 1 if hurried else _CANDIDATES)
        # the first sweeps of burn-in tell whether the chains move (_kept_chains)

        def out_of_time() -> bool:  # burn-in too stops at the budget (one sweep is kept)
            return time.perf_counter() - start >= budget

        pilot = 0
        pilot_moves = np.zeros(len(graph.variables), dtype=np.int64)
        pilot_start = time.perf_counter()
        while pilot < min(self.burn_in, _SHORT_RUN) and not out_of_time():
            _sweep(classes, codes, rng, pilot_moves, block=block)
            pilot += 1
        # a joint question (watch) counts per chain of ``chains``: it keeps them
        most = (self.chains if watch is not None
                else max(self.chains, _MOST_UPDATE_ENTRIES // max(per_chain, 1)))
        if math.isfinite(budget) and pilot:
            # the added chains' burn-in may take half the time left, at the pilot's pace
            per_chain_sweep = (time.perf_counter() - pilot_start) / (pilot * self.chains)
            left = max(budget - (time.perf_counter() - start), 0.0)
            most = min(most, self.chains + int(left / 2 / max(pilot * per_chain_sweep, 1e-12)))
        chains = self._kept_chains(graph, free, codes, pilot_moves, pilot, per_chain, most)
        if chains > self.chains:
            # they barely move: more chains, each a fresh start from the proposal burnt
            # in as long, say more than longer runs would (the rest of burn-in skipped)
            added = starts.draw(chains - self.chains, rng, 1 if hurried else _CANDIDATES)
            for _ in range(pilot):
                if out_of_time():
                    break
                _sweep(classes, added, rng, None, block=block)
            codes = np.hstack([codes, added])
        else:
            for _ in range(self.burn_in - pilot):
                if out_of_time():
                    break
                _sweep(classes, codes, rng, None, block=block)
        sums = [np.zeros((len(c.variables), chains, c.rows.shape[1])) for c in classes]
        moves = np.zeros(len(graph.variables), dtype=np.int64)  # changes after burn-in
        sweeps_wanted = -(-self.samples // chains)
        kept, stopped_by = 0, "samples"
        while kept < sweeps_wanted:
            _sweep(classes, codes, rng, moves, sums, block)
            kept += 1
            if watch is not None:
                watch(codes[:-1])
            if out_of_time():
                stopped_by = "time" if kept < sweeps_wanted else stopped_by
                break
        per_variable = {int(v): total[i, :, :width] for colour, total in zip(classes, sums)
                        for i, (v, width) in enumerate(zip(colour.variables, colour.widths))}
        return self.estimates(graph, evidence, per_variable, moves, kept, stopped_by,
                               time.perf_counter() - start, chains)

    def _check_memory(self, graph: FactorGraph, per_chain: int, chains: int) -> None:
        """Refuse, before allocating, chains whose states and updates exceed the limit."""
        check_allocation(len(graph.variables) * chains * (_CANDIDATES + 2)
                         + chains * int(graph.cardinality.sum()),
                         f"{chains} Gibbs chains over {len(graph.variables)} variables")
        check_allocation(per_chain * chains, f"the full conditionals of {chains} Gibbs chains")

    def _kept_chains(self, graph: FactorGraph, free: list[int], codes: np.ndarray,
                     moves: np.ndarray, sweeps: int, per_chain: int, most: int) -> int:
        """How many chains the kept sweeps run: ``chains``, or, in a Bayesian network
        whose chains barely moved in their first ``sweeps`` (``moves`` changes of state
        per variable), enough for runs of ``_SHORT_RUN`` sweeps (at most ``most``).

        A variable whose chains sit in states spread d = 1 − Σ_x f_x² (f_x: the share of
        chains in x) and change state at a rate r per update forgets its state in about
        τ = 2d/r sweeps (a two-state chain's integrated autocorrelation time is
        4p(1 − p)/r = 2d/r). When some τ exceeds the planned run — or a variable
        never changed state in any chain: its chains may all sit in one state that walls
        off a rare one — each chain's average is about one sample of its start whatever
        its length, so the kept budget buys more starts instead: win95pts's deterministic
        printer checks never move, and with 100 chains DS_LCLOK's state of probability
        0.047 sat in none of them (4.8 SE off).
        """
        planned = -(-self.samples // self.chains)
        if not graph.is_bayesian or not free or sweeps == 0 or planned <= _SHORT_RUN:
            return self.chains
        free = [v for v in free if graph.cardinality[v] > 1]
        shares = np.zeros((len(free), int(graph.cardinality.max())))
        np.add.at(shares, (np.repeat(np.arange(len(free)), self.chains),
                           codes[free].ravel()), 1.0 / self.chains)
        spread = 1 - (shares ** 2).sum(axis=1)
        rate = moves[free] / (self.chains * sweeps)
        with np.errstate(divide="ignore"):
            forgets = np.where(rate > 0, 2 * spread / rate, np.inf)
        if not (forgets > planned).any():
            return self.chains
        chains = int(min(-(-self.samples // _SHORT_RUN), most))
        if chains > self.chains:
            self._check_memory(graph, per_chain, chains)
        return max(chains, self.chains)

    def estimates(self, graph: FactorGraph, evidence: Mapping[int, int],
                   sums: dict[int, np.ndarray], moves: np.ndarray, kept: int,
                   stopped_by: str, seconds: float, chains: int | None = None) -> Marginals:
        """Chain averages → estimates, batch-means standard errors and the report.

        Also serves any quantity counted per chain like a variable (a joint question's
        joint codes, :mod:`bbn.engines.approximate.sampled`).

        Parameters
        ----------
        graph : FactorGraph
            The variables (names, cardinalities) the sums are of.
        evidence : mapping of int to int
            Observed variables' indices and states: their answers are exact.
        sums : dict of int to ndarray
            Per variable, chains × states: each chain's sum over the kept sweeps of the
            variable's full conditional (or of its indicator).
        moves : ndarray
            Each variable's changes of state over the chains after burn-in.
        kept : int
            Sweeps kept per chain.
        stopped_by : str
            ``"samples"`` or ``"time"``, for the report.
        seconds : float
            Time taken, for the report.
        chains : int, optional
            The chains run: ``self.chains`` unless more were started.

        Returns
        -------
        Marginals
            Estimates, standard errors and the run's report.
        """
        chains = self.chains if chains is None else chains
        probabilities, errors, equivalents = {}, {}, []
        for v, name in enumerate(graph.variables):
            card = graph.cardinality[v]
            if v in evidence:
                probabilities[name] = np.eye(card)[evidence[v]]
                errors[name] = np.zeros(card)
                continue
            means = sums[v] / max(kept, 1)
            p = means.mean(axis=0)
            se = means.std(axis=0, ddof=1) / np.sqrt(chains)
            # chains whose averages agree to rounding (a variable whose blanket is stuck
            # in one state in every chain: munin's L_ADM_MUPINSTAB, SE 1e-17) say nothing
            # of the spread: the floor then counts each chain as one sample
            spread = (se > _ROUNDING) & (p * (1 - p) > 0)
            ratios = (p * (1 - p))[spread] / se[spread] ** 2
            equivalents += list(ratios)
            # the floor of rare states, with the variable's worst-mixing state's n_eff, at
            # most the samples kept and at most the runs of equal states the chains went
            # through (C + moves): averaged conditionals can show less spread than slow
            # mixing leaves in them (munin: an error of 1e-4 beside an SE of 1e-6, where
            # n kept samples give 1.5e-3; win95pts's AppData, P = 0.0101 of its rare
            # state, in none of 100 chains, never moved: SE 1e-4 where 100 runs give 0.01)
            effective = float(chains)
            if spread.any():
                effective = min(float(ratios.min()), kept * chains, chains + float(moves[v]))
            probabilities[name] = p
            errors[name] = np.sqrt(np.maximum(se ** 2, (p * (1 - p) + 1 / effective)
                                              / effective))
        report = RunReport("gibbs", iterations=kept, samples=kept * chains,
                           effective_samples=float(np.median(equivalents)) if equivalents
                           else None, seconds=seconds, stopped_by=stopped_by)
        return Marginals(probabilities, errors, None, report)


class _Starts:
    """Draws chains' first states, (variables + 1) × chains with the last row 0 (the
    padding :func:`bbn.engines.approximate.colours.conditionals` reads): for a Bayesian network
    importance samples resampled by weight, otherwise uniform."""

    def __init__(self, graph: FactorGraph, evidence: Mapping[int, int], seed: int,
                 time_budget: float | None = None) -> None:
        self.graph, self.evidence = graph, evidence
        self.sampler = None
        if graph.is_bayesian:
            proposal = ImportanceSampling(seed=seed, time_budget=time_budget).proposal(
                graph, evidence)
            self.sampler = ForwardSampler(graph, evidence, proposal)

    def draw(self, chains: int, rng: np.random.Generator, per_chain: int) -> np.ndarray:
        """Starting states of ``chains`` chains, each resampled by weight from
        ``per_chain`` importance samples."""
        n_variables = len(self.graph.variables)
        codes = np.zeros((n_variables + 1, chains), dtype=np.int64)
        if self.sampler is not None:
            candidates = np.zeros((n_variables, chains * per_chain), dtype=np.int64)
            log_weight = self.sampler.draw(candidates, rng)
            if np.isfinite(log_weight.max()):
                weight = np.exp(log_weight - log_weight.max())
                chosen = rng.choice(len(weight), chains, p=weight / weight.sum())
                codes[:-1] = candidates[:, chosen]
                return codes
        codes[:-1] = rng.random((n_variables, chains)) * self.graph.cardinality[:, None]
        for v, state in self.evidence.items():
            codes[v] = state
        return codes


def _sweep(classes: list[ColourClass], codes: np.ndarray, rng: np.random.Generator,
           moves: np.ndarray | None, sums: list[np.ndarray] | None = None,
           block: int = 100) -> None:
    """Redraw every class's variables in every chain (``codes`` in place), ``block``
    chains at a time; count the changes of state in ``moves`` and add the normalised
    conditionals to ``sums``."""
    for first in range(0, codes.shape[1], block):
        chains = slice(first, first + block)
        for index, colour in enumerate(classes):
            _update(colour, codes[:, chains], rng, moves,
                    None if sums is None else sums[index][:, chains])


def _update(colour: ColourClass, codes: np.ndarray, rng: np.random.Generator,
            moves: np.ndarray | None, total: np.ndarray | None) -> None:
    """Redraw one class's variables in the chains of ``codes`` (a view, in place)."""
    conditional = conditionals(colour, codes)
    cumulative = np.cumsum(conditional, axis=2)
    totals = cumulative[..., -1:]
    if not totals.all():
        # a chain in a zero-probability state (a Markov network's uniform start) has an
        # all-zero conditional: it moves uniformly until it finds the support
        states = np.arange(colour.rows.shape[1]) < colour.widths[:, None, None]
        conditional = np.where(totals > 0, conditional, states)
        cumulative = np.cumsum(conditional, axis=2)
        totals = cumulative[..., -1:]
    u = rng.random(totals.shape) * totals
    drawn = np.minimum((cumulative[..., :-1] <= u).sum(axis=2), colour.widths[:, None] - 1)
    if total is not None:
        total += conditional / totals
    if moves is not None:
        moves[colour.variables] += (drawn != codes[colour.variables]).sum(axis=1)
    codes[colour.variables] = drawn

"""The derivation a student would write, built from the engine's own elimination plan.

    P(q | e) = P(q, e) / P(e)                       definition of conditional probability
    P(X1, ..., Xn) = Π_i P(Xi | parents(Xi))          factorisation by the network
    Σ_x P(x | pa) = 1                                a barren variable drops out
    ψ(N(X)) = Σ_x Π_{φ ∋ X} φ                          the sum rule, one variable at a time
    P(q | e) = P(q, e) / Σ_q' P(q', e)               normalisation

:func:`explain` compiles (or reuses) the plan :meth:`bbn.Engine.plan` keeps for the
question's shape, runs it on the engine's tables sliced by the evidence and records the
output of every step (``run_plan``'s ``trace``): each number printed is one the engine
computed, and the answer is the one :meth:`bbn.Network.query` gives. The variables left
out are read off the plan: the *barren* ones (neither asked, observed, nor an ancestor of
one: :func:`~bbn.engines.exact.elimination.relevant_variables`) and those whose tables the
evidence *d-separates* from the question (relevant, yet not among the plan's sources).
A step's sum of products is written out with its numbers while its product has at most
:data:`MAX_WRITTEN` entries; larger ones are elided, with their sizes.

>>> import bbn
>>> derivation = explain(bbn.load("models/chair.bn"), "P(C=T | A=T)")
>>> derivation.barren, [step.eliminated for step in derivation.steps]
(('W',), ['B', 'S', None])
>>> round(derivation.answer, 6), derivation.fraction
(0.886749, '22840/25757')
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from bbn.core.errors import QueryError
from bbn.core.factor import Factor
from bbn.engines.exact.elimination import (
    check_memory,
    relevant_variables,
    run_plan,
    slice_tables,
)
from bbn.engines.exact.weighing import virtual_name
from bbn.questions import dispatch
from bbn.questions.adjustment import adjustment_sets
from bbn.questions.language import Query, parse_query
from bbn.questions.resolution import per_state, resolve_query
from bbn.questions.uncertain import VIRTUAL_STATES
from bbn.tasks.explain.decision_working import DECISION_KINDS, explain_decisions
from bbn.tasks.explain.formatting import (
    MAX_WRITTEN,
    Derivation,
    Elimination,
    Entry,
    Table,
    as_fraction,
)
from bbn.tasks.explain.hybrid_working import explain_hybrid

if TYPE_CHECKING:
    from bbn.model.network import Network


def explain(net: Network, query: str | Query,
            likelihoods: dict[str, dict[str, float]] | None = None) -> Derivation:
    """The derivation of ``P(...)``, ``MAP(...)`` or ``MPE(...)``: definition, factorisation,
    what drops out and why, the sums in the engine's order with their numbers,
    normalisation.

    Parameters
    ----------
    net : Network
        A Bayesian network; with Gaussian variables, the continuous findings' regressions
        and a continuous target's mixture are derived too (``P`` questions).
    query : str or Query
        A question of the query language of kind ``P``, ``MAP`` or ``MPE``.
    likelihoods : dict, optional
        Likelihood evidence ``{variable: {state: number}}`` added to the query's: each
        is derived as a virtual child λ(W) observed ``yes`` (docs/evidence.md).

    Returns
    -------
    Derivation
        Render it with ``to_text()``, ``to_markdown()``, ``to_latex()``.

    Raises
    ------
    QueryError
        For another kind of question, one on Gaussian variables it does not derive
        (naming the variable), or a Markov network.
    ImpossibleEvidenceError
        When P(e) = 0.
    MemoryLimitError
        When the plan's peak exceeds the memory limit.

    Examples
    --------
    >>> import bbn
    >>> derivation = explain(bbn.load("models/monty_hall.bn"), "P(Princess=C | King=B)")
    >>> derivation.fraction
    '2/3'
    """
    if net.compiled().constraints:  # a Markov network, answered through factor nodes
        raise QueryError("explain derives answers from a Bayesian network's tables; a Markov "
                         "network's are not written yet (bbn query answers it)")
    if isinstance(query, str):
        query = parse_query(query)
    if likelihoods:
        return _weighed(net, query, likelihoods)
    if query.kind in DECISION_KINDS:  # an influence diagram's: each option's EU as a sum
        return explain_decisions(net, query)
    if query.counterfactual:
        raise QueryError("explain does not derive counterfactuals yet; bbn query answers "
                         f"{query.text()} by the twin network (docs/causal.md)")
    if query.do:
        return _intervened(net, query)
    if query.kind not in ("P", "MAP", "MPE"):
        raise QueryError(f"explain takes P(...), MAP(...) or MPE(...); {query.text()} is "
                         "answered by bbn query")
    question = resolve_query(net.compiled(), query)
    if question.evidence.values or any(net.is_gaussian(v) for v in
                                       (*question.free, *question.assigned)):
        return explain_hybrid(net, query, question, explain)
    observed = question.evidence.states
    answer = dispatch.answer(net, question)  # checks P(e) > 0 (ImpossibleEvidenceError) first
    engine = net.engine.discrete
    if query.kind == "P":
        asked = list(question.free) + list(question.assigned)
        plan = engine.plan(asked, list(observed))
    else:
        asked = list(question.free) if query.kind == "MAP" else [
            v for v in engine.network.variables if v not in observed]
        plan = engine.plan([], list(observed), maximize=asked, prune=False)
    check_memory(plan.cost)
    trace: list[np.ndarray] = []
    arrays = slice_tables(plan, plan.tables, observed)
    final, _ = run_plan(plan, arrays, trace=trace)
    network = engine.network
    relevant = relevant_variables(network.parents, set(asked) | set(observed))
    kept = {source.variable for source in plan.sources}
    states = {v: network.states[v][i] for v, i in observed.items()}
    tables = [Table(s.free, s.variable, network.parents[s.variable],
                    tuple((u, states[u]) for u in s.fixed)) for s in plan.sources]
    steps = []
    for number, (step, output) in enumerate(zip(plan.steps, trace), start=1):
        table = Table(step.variables, number=number)
        inputs = [tables[i] for i in step.inputs]
        entries = None
        if step.size <= MAX_WRITTEN:
            entries = _entries(network.states, step, inputs, [arrays[i] if i < len(arrays)
                                                              else trace[i - len(arrays)]
                                                              for i in step.inputs], output)
        steps.append(Elimination(table, step.eliminated, step.maximize, tuple(inputs),
                                 entries, step.size))
        tables.append(table)
    result = Factor(plan.result_variables, network.states, np.asarray(final, dtype=float))
    if query.kind == "P":
        total = float(result.values.sum())
        numerator = None
        if not question.free:
            numerator = float(result.values[tuple(question.assigned.values())])
    else:
        total = net.engine.probability_of_evidence(observed) if states else 1.0
        numerator = float(final)
    return Derivation(query, tuple(Table(network.parents[v] + (v,), v, network.parents[v])
                                   for v in network.tables),
                      tuple(v for v in network.variables if v not in relevant
                            and v in network.tables),
                      tuple(v for v in network.variables if v in relevant and v not in kept),
                      tuple(steps), result, total, answer, numerator,
                      None if numerator is None else as_fraction(numerator, total))


def _intervened(net: Network, query: Query) -> Derivation:
    """The derivation of a question with ``do(X=x)``: the usual one on the mutilated
    network (X's arcs cut, its table [X = x], X observed at x), with what was cut and,
    where the graph gives one, the back-door formula in observed terms."""
    mutilated = net.copy()
    lines = []
    for v, s in query.do:
        if v not in mutilated:
            break  # explain() below names the unknown variable
        if mutilated.is_gaussian(v):
            raise QueryError(f"explain does not derive do({v}=...) on the Gaussian {v}; "
                             f"bbn query answers {query.text()}")
        cut = ", ".join(f"{p} → {v}" for p in mutilated.parents(v))
        mutilated.set_parents(v, [])
        states = mutilated.states(v)
        mutilated.set_cpt(v, [1.0 if t == str(s) else 0.0 for t in states]
                          if str(s) in states else [1.0 / len(states)] * len(states))
        lines.append(f"do({v}={s}): {'the arcs ' + cut + ' are cut' if cut else v + ' is a root'}"
                     f" and {v} is set to {s}: the question is asked of the mutilated "
                     "network, where the rest keeps its tables.")
    plain = replace(query, do=(), evidence=(*query.do, *query.evidence))
    derivation = explain(mutilated, plain)
    targets = [v for v, _ in query.targets]
    if len(query.do) == 1 and len(targets) == 1 and not query.evidence and query.kind == "P":
        try:
            formula = adjustment_sets(net, query.do[0][0], targets[0]).formula()
        except QueryError:
            pass
        else:
            lines.append(f"In observed terms (back door or front door): {formula}")
    return replace(derivation, query=query, answer=dispatch.ask(net, query),
                   intervention=tuple(lines))


def _weighed(net: Network, query: Query, likelihoods: dict) -> Derivation:
    """The derivation of a question with likelihood evidence: the usual one on the
    network with a virtual child λ(W) per likelihood, P(λ(W) = yes | W = w) = λ(w) /
    max λ, observed ``yes`` — it appears in the factorisation and the sums."""
    if query.kind in DECISION_KINDS or query.counterfactual or net.compiled().constraints:
        raise QueryError("explain derives likelihood evidence for P(...), MAP(...) and "
                         "MPE(...) of a Bayesian network")
    view = net.compiled()
    augmented = net.copy()
    lines, observed = [], []
    for v, weights in likelihoods.items():
        lam = per_state(view, v, weights, "likelihood")
        scaled = lam / lam.max()
        name = virtual_name(v, augmented.variables)
        augmented.add_variable(name, list(VIRTUAL_STATES), parents=[v],
                               table=np.stack([scaled, 1.0 - scaled], axis=-1))
        observed.append((name, VIRTUAL_STATES[0]))
        shown = ", ".join(f"{s}: {x:g}" for s, x in zip(view.states[v], lam.tolist()))
        ratios = ", ".join(f"{x:g}" for x in scaled.tolist())
        lines.append(f"The likelihood of {v} ({shown}) is a virtual child {name} of {v}, "
                     f"observed {VIRTUAL_STATES[0]}: P({name}={VIRTUAL_STATES[0]} | {v}) = "
                     f"λ / max λ = {ratios} (only the ratios matter).")
    derivation = explain(augmented, replace(query, evidence=(*query.evidence, *observed)))
    return replace(derivation, likelihoods=tuple(lines))


def _entries(states, step, inputs: list[Table], arrays: list[np.ndarray],
             output: np.ndarray) -> tuple[Entry, ...]:
    """Each entry of a step's output with its products written out."""
    out = step.variables
    eliminated = [step.eliminated] if step.eliminated is not None else []
    entries = []
    for index in itertools.product(*(range(len(states[u])) for u in out)):
        at = dict(zip(out, index))
        terms = []
        for k in range(len(states[eliminated[0]]) if eliminated else 1):
            if eliminated:
                at[eliminated[0]] = k
            terms.append(tuple(float(a[tuple(at[u] for u in table.variables)])
                               for table, a in zip(inputs, arrays)))
        entries.append(Entry(tuple((u, states[u][i]) for u, i in zip(out, index)),
                             tuple(terms), float(output[index])))
    return tuple(entries)


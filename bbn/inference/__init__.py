"""Exact inference by variable elimination.

    P(Q | e) = Σ_h Π_i P(Xi | parents(Xi)) |_e  /  P(e)

Functions here validate the question (variables and states named in it), fetch or
compile the elimination plan for its shape (see :mod:`bbn.inference.elimination`), and
run it on the network's tables. Evidence is a dict ``{variable: state}``; the batched
forms take a :class:`pandas.DataFrame` with one row per case instead.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> round(posterior(net, ["C"], {"A": "T"}).to_dict()["T"], 6)      # 22840/25757
0.886749
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.codes import distinct_rows, observed_groups
from bbn.errors import ImpossibleEvidenceError, QueryError
from bbn.factor import Factor
from bbn.inference import continuous as continuous_part
from bbn.inference.continuous import gaussian_variables
from bbn.inference.elimination import (
    CASE,
    Plan,
    check_memory,
    compile_plan,
    evaluate,
    fits,
    trace_back,
)
from bbn.inference.evidence import (
    check_impossible,
    check_variables,
    evidence_codes,
    evidence_indices,
    impossible_row,
    refuse_continuous_columns,
    state_index,
    warn_impossible,
)
from bbn.memory import get_memory_limit, set_memory_limit
from bbn.network import Network

__all__ = [
    "CASE", "check_variables", "evidence_codes", "evidence_indices", "impossible_row",
    "state_index", "get_memory_limit", "log_probability", "map_query", "posterior",
    "posterior_batch", "posterior_codes", "posteriors", "probability", "probability_of_evidence",
    "set_memory_limit",
]


# ------------------------------------------------------------------ checks
def _discrete(net: Network, variables: Sequence[str] = ()) -> Network:
    """The network without its Gaussian leaves (which sum out to 1 when unobserved)."""
    if not gaussian_variables(net):
        return net
    continuous = [v for v in variables if net.is_gaussian(v)]
    if continuous:
        raise QueryError(f"{continuous[0]!r} is continuous: it can be evidence, not the "
                         "subject of a query")
    return continuous_part.discrete_part(net)


#: numpy arrays have at most 64 axes: one per query variable (and one for a batch's cases).
MAX_AXES = 64


def _check_dimensions(variables: Sequence[str], batched: bool = False) -> None:
    if len(variables) + batched > MAX_AXES:
        raise QueryError(f"a joint posterior of {len(variables)} variables needs an array of "
                         f"{len(variables) + batched} axes, numpy's limit is {MAX_AXES}: ask "
                         "for fewer variables at once")


# --------------------------------------------------------------- machinery
#: Plans whose peak is above this many entries also try the junction tree's order.
SEARCH_AGAIN_ABOVE = 1_000_000


def _plan(net: Network, query: Sequence[str], observed: Sequence[str], batched: bool = False,
          maximize: Sequence[str] = (), prune: bool = True) -> Plan:
    key = ("plan", tuple(query), tuple(sorted(observed)), batched, tuple(maximize), prune)
    plan = net._cache.get(key)
    if plan is None:
        parents, cardinality, positive = _structure(net)
        arguments = (parents, cardinality, query, sorted(observed), batched, maximize,
                     positive if prune else None)
        plan = compile_plan(*arguments)
        if plan.cost.entries() > SEARCH_AGAIN_ABOVE:
            # here, not at the top: the clique-tree modules cost ~20 ms to import, and
            # only plans this large need them (bbn query's start-up stays lean)
            from bbn.inference.clique_tree import junction_order
            # Greedy min-fill on the pruned graph is sometimes far worse than the order of
            # the junction tree (Promedus_17: width 28 against 26): try that order too.
            other = compile_plan(*arguments, order=junction_order(net, parents, cardinality))
            if other.cost.entries() < plan.cost.entries():
                plan = other
        net._cache[key] = plan
    return plan


def _structure(net: Network) -> tuple[dict, dict, dict]:
    """Parents, cardinalities and table positivity of every variable (cached)."""
    structure = net._cache.get("structure")
    if structure is None:
        parents, cardinality, positive = structure = ({}, {}, {})
        # One pass over the node data (NodeView lookups cost more than the copying).
        for v, data in net.nodes():
            parents[v] = data["parents"]
            cardinality[v] = len(data["states"])
            positive[v] = data["positive"]
        net._cache["structure"] = structure
    return structure


def _execute(net: Network, plan: Plan, evidence: Mapping[str, int | np.ndarray], cases: int = 1):
    """(table, log scale, MAP choices): the plan's result is table × exp(log scale)."""
    check_memory(plan.cost, cases)
    if plan.tables is None:  # cpt_array names a variable a structure-only model lacks
        plan.tables = [net.cpt_array(source[0]) for source in plan.sources]
    return evaluate(plan, plan.tables, evidence)


def _weight(net: Network, indices: Mapping[str, int]) -> tuple[float, float]:
    """P(e) as (mantissa, log scale): P(e) = mantissa × exp(scale), mantissa 0 iff P(e) = 0."""
    table, scale, _ = _execute(net, _plan(net, [], list(indices), prune=False), indices)
    return float(table), float(scale)


# ------------------------------------------------------------------ queries
def posterior(net: Network, variables: Sequence[str], evidence: Mapping[str, str]) -> Factor:
    """P(variables | evidence) as a normalised :class:`Factor` with axes ``variables``.

    A queried variable that is also observed gets all its mass on the observed state.
    Raises :class:`ImpossibleEvidenceError` when P(evidence) = 0.
    """
    variables = list(variables)
    if not variables:
        raise QueryError("a posterior needs at least one query variable")
    if len(set(variables)) != len(variables):
        raise QueryError(f"a query variable is named twice: {variables}")
    check_variables(net, variables)
    _check_dimensions(variables)
    if gaussian_variables(net):  # continuous leaves: their evidence weighs the answer
        return continuous_part.posterior(net, variables, evidence)
    indices = evidence_indices(net, evidence)
    free = [v for v in variables if v not in indices]
    plan = _plan(net, free, list(indices))
    if len(variables) == 1 and free and not fits(plan.cost):
        # One variable never needs more than the junction tree of every posterior (which
        # checks its own cost): answer from it rather than refuse.
        from bbn.inference.junction_tree import posteriors as all_posteriors
        return all_posteriors(net, evidence)[variables[0]]
    table, _, _ = _execute(net, plan, indices)
    total = table.sum()
    if not total > 0:
        raise ImpossibleEvidenceError(dict(evidence))
    values = table / total
    for v in variables:
        if v in indices:  # P(V = v | ..., V = e) is 1 at e: a one-hot axis
            one_hot = np.zeros(net.cardinality(v))
            one_hot[indices[v]] = 1.0
            values = np.multiply.outer(values, one_hot)
    order = free + [v for v in variables if v in indices]
    result = Factor(order, {v: net.states(v) for v in order}, values)
    return result.transpose(variables)


def probability_of_evidence(net: Network, evidence: Mapping[str, str]) -> float:
    """P(e) = Σ over all unobserved variables of the joint, at the observed states.

    Below about 1e-308 this rounds to 0.0; :func:`log_probability` gives its logarithm.
    """
    indices = evidence_indices(net, evidence)
    mantissa, scale = _weight(_discrete(net), indices)
    return mantissa * math.exp(scale) if mantissa else 0.0


def log_probability(net: Network, evidence: Mapping[str, str]) -> float:
    """log P(e), the natural logarithm, exact far below the smallest double (P(e) =
    1e-4000 gives −9210.34); −inf only when P(e) = 0 exactly.

    >>> import bbn
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["t", "f"], table=[1e-300, 1 - 1e-300])
    >>> net.add_variable("B", ["t", "f"], parents=["A"], table=[[1e-300, 1 - 1e-300], [0.5, 0.5]])
    >>> round(log_probability(net, {"A": "t", "B": "t"}) / math.log(10), 6)
    -600.0
    """
    indices = evidence_indices(net, evidence)
    mantissa, scale = _weight(_discrete(net), indices)
    return math.log(mantissa) + scale if mantissa else -math.inf


def probability(net: Network, assignment: Mapping[str, str],
                evidence: Mapping[str, str] | None = None) -> float:
    """P(assignment | evidence) = P(assignment, evidence) / P(evidence).

    An assignment that contradicts the evidence has probability 0.
    """
    evidence = dict(evidence or {})
    indices = evidence_indices(net, evidence)
    both = evidence_indices(net, assignment)
    net = _discrete(net)
    marginal, scale = _weight(net, indices) if evidence else (1.0, 0.0)
    if not marginal > 0:
        raise ImpossibleEvidenceError(evidence)
    if any(v in evidence and str(evidence[v]) != str(s) for v, s in assignment.items()):
        return 0.0
    joint, joint_scale = _weight(net, {**indices, **both})
    return joint / marginal * math.exp(joint_scale - scale) if joint else 0.0


def map_query(net: Network, variables: Sequence[str],
              evidence: Mapping[str, str]) -> tuple[dict[str, str], float]:
    """argmax_m P(M = m | e) and its probability (MAP; MPE when M is every hidden variable).

    Computed as max_m Σ_h P(m, h, e) by max-product elimination after summing out the
    hidden variables h, with a trace-back for the maximising states.
    """
    variables = list(variables)
    check_variables(net, variables)
    indices = evidence_indices(net, evidence)
    net = _discrete(net, variables)
    p_evidence, scale = _weight(net, indices)
    if not p_evidence > 0:
        raise ImpossibleEvidenceError(dict(evidence))
    free = [v for v in variables if v not in indices]
    # No d-separation pruning here: max Σ P(m, h, e) must be divided by the full P(e).
    plan = _plan(net, [], list(indices), maximize=free, prune=False)
    best, best_scale, choices = _execute(net, plan, indices)
    chosen = trace_back(choices)
    assignment = {v: net.states(v)[indices[v]] if v in indices else net.states(v)[chosen[v]]
                  for v in variables}
    return assignment, float(best) / p_evidence * math.exp(float(best_scale) - scale)


# ------------------------------------------------------------------ batches
def posterior_batch(net: Network, variables: Sequence[str], evidence,
                    impossible: str = "raise") -> np.ndarray:
    """P(variables | e_i) for every row e_i of a DataFrame, as one batched elimination.

    Returns an array of shape ``(N, |X1|, ..., |Xk|)``; see :func:`posterior_codes`.
    With ``impossible="nan"``, rows whose evidence is impossible are NaN (and a
    RuntimeWarning says how many) instead of raising ImpossibleEvidenceError.

    >>> import bbn, pandas as pd, warnings
    >>> net = bbn.Network()
    >>> net.add_variable("A", ["t", "f"], table=[1.0, 0.0])
    >>> net.add_variable("B", ["t", "f"], parents=["A"], table=[[0.9, 0.1], [0.5, 0.5]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rows = posterior_batch(net, ["B"], pd.DataFrame({"A": ["t", "f"]}), impossible="nan")
    >>> rows.tolist(), str(caught[0].message)[:39]
    ([[0.9, 0.1], [nan, nan]], '1 of 2 case(s) have impossible evidence')
    """
    check_impossible(impossible)
    result = posterior_codes(net, variables, evidence_codes(net, evidence), evidence.index,
                             cases=len(evidence), impossible=impossible)
    warn_impossible(result)
    return result


def posterior_codes(net: Network, variables: Sequence[str], codes: Mapping[str, np.ndarray],
                    row_names=None, cases: int | None = None,
                    impossible: str = "raise") -> np.ndarray:
    """P(variables | e_i) for N cases given as state indices ``{variable: (N,) ints}``.

    −1 marks a missing value: that variable is summed out for that case. Cases are
    grouped by which variables they observe and, within a group, by their distinct
    evidence — each distinct case is answered once, all of a group in one pass of the
    batched elimination. A case whose evidence is impossible raises
    :class:`ImpossibleEvidenceError` naming it (by ``row_names`` when given), or with
    ``impossible="nan"`` gets a row of NaN. With no evidence columns at all, ``cases``
    says how many copies of the prior to return.
    """
    check_impossible(impossible)
    variables = list(variables)
    check_variables(net, variables)
    _check_dimensions(variables, batched=True)
    columns = list(codes)
    check_variables(net, columns, role="evidence")
    refuse_continuous_columns(net, columns)
    net = _discrete(net, variables)
    overlap = [v for v in variables if v in codes]
    if overlap:
        raise QueryError(f"query variable(s) {overlap} are also evidence columns")
    shape = tuple(net.cardinality(v) for v in variables)
    if not columns:
        if cases is None:
            raise QueryError("posterior_codes needs evidence columns or the number of cases")
        prior = posterior(net, variables, {}).values
        return np.array(np.broadcast_to(prior, (cases,) + shape))
    matrix = np.stack([np.asarray(codes[c], dtype=np.intp) for c in columns], axis=1)
    result = np.empty((len(matrix),) + shape)
    if not len(matrix):
        return result
    for rows, pattern in observed_groups(matrix >= 0):
        observed = [c for c, seen in zip(columns, pattern) if seen]
        whole = len(rows) == len(matrix) and pattern.all()
        distinct, inverse = distinct_rows(matrix if whole else matrix[np.ix_(rows, pattern)])
        plan = _plan(net, variables, observed, batched=True)
        table, _, _ = _execute(net, plan, dict(zip(observed, distinct.T)), cases=len(distinct))
        if plan.result_variables[:1] != (CASE,):  # the evidence says nothing about the query
            table = np.broadcast_to(table, (len(distinct),) + shape)
        totals = table.reshape(len(distinct), -1).sum(axis=1)
        zero = ~(totals > 0)
        if zero.any():
            if impossible == "raise":
                case = int(np.flatnonzero(zero)[0])
                row = int(rows[int(np.flatnonzero(inverse.ravel() == case)[0])])
                raise impossible_row(net, matrix, columns, observed, row, row_names)
            totals[zero] = np.nan
        normalised = table / totals.reshape((-1,) + (1,) * len(shape))
        result[rows] = normalised[inverse.ravel()]
    return result


def posteriors(net: Network, evidence=None, impossible: str = "raise") -> dict:
    """P(X | e) for every variable X, by one junction-tree propagation (two passes over
    the cliques instead of one elimination per variable).

    A dict of evidence gives ``{variable: Factor}``; a DataFrame (one case per row)
    gives ``{variable: array of shape (N, |X|)}`` (``impossible="nan"``: NaN rows for
    impossible cases, as :func:`posterior_batch`). See :mod:`bbn.inference.junction_tree`.
    """
    from bbn.inference.junction_tree import posteriors as all_posteriors
    return all_posteriors(net, evidence, impossible)

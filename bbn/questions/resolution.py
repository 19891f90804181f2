"""Resolving a question against the compiled network, once: names → state indices.

    e = {X1 = s1, ..., Xk = sk}  →  {X1: i1, ..., Xk: ik}   with sj = states(Xj)[ij]

The one place a user's names are looked up. :func:`resolve` takes a question as it was
asked (:class:`Asked`: query-language items, a list of names, an assignment, a dict of
evidence or a DataFrame of cases) and checks it against a
:class:`bbn.views.compiled.CompiledNetwork` — variable and state names, evidence
columns, numbers given to Gaussian leaves — with errors that name the variable or the
cell and suggest close matches, returning a :class:`Question` of state indices:
evidence on Gaussian leaves split off as numbers (:class:`Evidence`), a batch's
evidence as columns of state indices (:class:`Cases`). Engines answer only resolved
questions; :mod:`bbn.questions.dispatch` resolves each question once.

>>> import bbn
>>> network = bbn.load("models/chair.bn").compiled()
>>> question = resolve(network, Asked("P", "variables", ["C"], {"A": "T", "S": "F"}))
>>> question.free, question.evidence.states
(('C',), {'A': 0, 'S': 1})
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from bbn.core.errors import ModelError, QueryError, suggest
from bbn.core.lazy import reference
from bbn.engines.protocol import NO_EVIDENCE, Evidence
from bbn.questions.language import EXPLAINED_KINDS, Query, parse_evidence

if TYPE_CHECKING:
    from bbn.views.compiled import CompiledNetwork

__all__ = ["NO_EVIDENCE", "Asked", "Cases", "Evidence", "Model", "Question", "resolve"]


class Model(Protocol):
    """What the questions layer takes of a model (a :class:`bbn.Network` or
    :class:`bbn.MarkovNetwork`, which it never names: they are a layer above): the
    compiled view of its current revision; the functions over a network (independence,
    information) read its structure and ask it questions through its public methods.
    ``_answering`` is the slot where :mod:`bbn.questions.dispatch` keeps what answers the
    current revision; the model empties it on every change."""

    _answering: object

    def compiled(self) -> CompiledNetwork: ...


class Cases(NamedTuple):
    """A batch's evidence resolved: ``codes`` maps each evidence column to N state
    indices (−1 where a case does not observe it), ``row_names`` names the cases in
    errors, ``count`` is N; ``values`` maps the Gaussian columns of a network whose
    Gaussians have continuous parents to N numbers (NaN: not observed)."""

    codes: dict[str, np.ndarray]
    row_names: object
    count: int
    values: Mapping = MappingProxyType({})


class Asked(NamedTuple):
    """A question as it was asked, names unchecked: what :func:`resolve` reads.

    ``kind`` is the question's kind (a key of :data:`bbn.questions.dispatch.KINDS`);
    ``form`` how it was written: ``"query"`` (items ``((variable, state or None), ...)``
    of the query language, ``query`` the parsed :class:`~bbn.questions.language.Query`),
    ``"variables"`` (names and evidence), ``"assignment"`` (``{variable: state}`` and
    evidence) or ``"evidence"`` (evidence only). ``evidence`` is a dict, or with
    ``batch`` a DataFrame of cases. ``do`` (interventions) and ``soft`` (Jeffrey's
    rule) are ``{variable: state or {state: number}}`` (see :mod:`bbn.questions.uncertain`).
    """

    kind: str
    form: str
    targets: object = ()
    evidence: object = None
    batch: bool = False
    query: Query | None = None
    do: object = None
    soft: object = None


class Question(NamedTuple):
    """A question resolved against one compiled network: its ``kind`` ("P", "MAP",
    "MPE", ...: see :mod:`bbn.questions.dispatch`), the targets without a state
    (``free``), those with one (``assigned``: variable → state index), the
    :class:`Evidence` (a batch: :class:`Cases`), the view, and for the questions about
    the graph and information the other side (``others``: Y of ``X _|_ Y``, ``I(X; Y)``)
    and the conditioning variables named without a state (``given``)."""

    kind: str
    free: tuple[str, ...]
    assigned: dict[str, int]
    evidence: Evidence | Cases
    network: CompiledNetwork
    others: tuple[str, ...] = ()
    given: tuple[str, ...] = ()


#: What a continuous variable cannot be, and what to say (the one place for these messages;
#: "parent" and "table" are mistakes in building a model, the others in asking questions).
_CONTINUOUS = {
    "parent": ("{v!r} is continuous (Gaussian) and cannot be a parent of {value!r}: a "
               "discrete variable with continuous parents needs a logistic or softmax "
               "form (add_logistic, add_softmax); a Gaussian child may have it as a parent"),
    "table": ("{v!r} is continuous (Gaussian) and has no probability table; see "
              "gaussian_parameters"),
    "subject": ("{v!r} is continuous: it can be evidence ({v}=3.2), or asked about without "
                "a state (P({v} | ...): its distribution), not given a state to assign"),
    "number": "{v!r} is continuous: its evidence must be a number, got {value!r}",
    "discrete evidence": ("{v!r} is continuous: evidence on it weighs posterior queries "
                          "(P(X | {v}=3.2)); probabilities of evidence, MAP and MPE take "
                          "discrete evidence only"),
    "batch": ("{v!r} is continuous: for batches with continuous evidence use "
              "bbn.predict_proba(net, data, target)"),
    "target": "the target {v!r} is continuous; classify a discrete variable",
    "all posteriors": ("posteriors of every variable for a batch of cases need a network "
                       "without Gaussian variables ({v!r} is continuous); pass one case at "
                       "a time"),
}


def continuous_error(variable: str, use: str, value: object = None) -> QueryError | ModelError:
    """The error for the continuous ``variable`` used as ``use`` (a key of the messages
    above: ModelError for "parent" (``value``: the child) and "table", QueryError for
    "subject", "number" (``value``: what was given), "discrete evidence", "batch",
    "target" and "all posteriors").

    >>> str(continuous_error("x", "subject"))  # doctest: +ELLIPSIS
    "'x' is continuous: it can be evidence (x=3.2), or asked about without a state ..."
    """
    error = ModelError if use in ("parent", "table") else QueryError
    return error(_CONTINUOUS[use].format(v=variable, value=value))


def _known(network: CompiledNetwork, variable) -> bool:
    try:
        return variable in network.states
    except TypeError:  # unhashable: not a name
        return False


def check_variables(network: CompiledNetwork, variables: Sequence[str],
                    role: str = "query") -> None:
    """Raise QueryError for a variable the network does not have (with close matches)."""
    for v in variables:
        if not _known(network, v):
            raise QueryError(f"unknown {role} variable {v!r}"
                             f"{suggest(str(v), network.variables)}")


def check_discrete(network: CompiledNetwork, variables: Sequence[str],
                   use: str = "subject") -> None:
    """Raise :func:`continuous_error` for the first Gaussian leaf among ``variables``."""
    if network.gaussian:
        for v in variables:
            if v in network.gaussian:
                raise continuous_error(v, use)


def state_index(network: CompiledNetwork, variable: str, state) -> int:
    """Position of ``state`` among the states of ``variable``, or a QueryError."""
    states = network.states[variable]
    state = str(state)
    try:
        return states.index(state)
    except ValueError:
        raise QueryError(f"variable {variable!r} has no state {state!r}; its states are "
                         f"{', '.join(states)}{suggest(state, states)}") from None


def gaussian_value(variable: str, value) -> float:
    """The number observed on a Gaussian leaf, or a QueryError."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise continuous_error(variable, "number", value) from None
    if not math.isfinite(x):
        raise QueryError(f"evidence {variable}={value!r} is not a finite number")
    return x


def evidence_value(network: CompiledNetwork, variable: str, state) -> int | float:
    """What one item ``variable=state`` says: the state's index for a discrete variable,
    the number for a Gaussian leaf (QueryError for a bad state or number)."""
    if variable in network.gaussian:
        return gaussian_value(variable, state)
    return state_index(network, variable, state)


#: numpy arrays have at most 64 axes: one per query variable (and one for a batch's cases).
MAX_AXES = 64


def check_targets(network: CompiledNetwork, variables: Sequence[str],
                  batched: bool = False, continuous: bool = False) -> None:
    """Query variables: known, discrete (unless ``continuous``), and few enough for
    numpy's axes."""
    check_variables(network, variables)
    if not continuous:
        check_discrete(network, variables)
    if len(variables) + batched > MAX_AXES and not (continuous and network.gaussian):
        raise QueryError(f"a joint posterior of {len(variables)} variables needs an array of "
                         f"{len(variables) + batched} axes, numpy's limit is {MAX_AXES}: ask "
                         "for fewer variables at once")


def resolve_targets(network: CompiledNetwork, variables: Sequence[str] | str,
                    batched: bool = False, continuous: bool = False) -> list[str]:
    """The variables of a posterior, checked: at least one, none twice, and
    :func:`check_targets` (continuous ones allowed with ``continuous``)."""
    variables = [variables] if isinstance(variables, str) else list(variables)
    if not variables:
        raise QueryError("a posterior needs at least one query variable")
    if len(set(variables)) != len(variables):
        raise QueryError(f"a query variable is named twice: {variables}")
    check_targets(network, variables, batched, continuous)
    return variables


#: The most discrete parents of observed Gaussian leaves weighed by the discrete engine;
#: beyond, the question goes to the continuous engine.
LEAF_PARENTS = 12


def continuous_kind(network: CompiledNetwork, kind: str, targets: Sequence[str],
                    evidence: Evidence | Cases) -> str:
    """``"P"`` → ``"CONTINUOUS"`` (``"POSTERIORS"`` → ``"CONTINUOUS_POSTERIORS"``) when
    the answer needs the continuous engine: a continuous target, or a finding on a
    Gaussian with continuous parents (:mod:`bbn.questions.continuous_answers`). Findings
    on Gaussians without continuous parents keep the discrete engine's weighting (the
    unobserved Gaussians sum out) unless their discrete parents are more than
    :data:`LEAF_PARENTS` and those of any one of them (that weighting asks for their
    joint posterior; the continuous engine's component tree does not)."""
    if network.softmax:  # a discrete variable with continuous parents: sampled
        return hybrid_kind(network, kind, evidence)
    if type(evidence) is Cases and (evidence.values or any(  # continuous_batches.py
            v in network.gaussian for v in targets)):
        if kind != "P":
            raise continuous_error(next(iter(evidence.values)), "all posteriors")
        return "CONTINUOUS"
    if kind not in ("P", "POSTERIORS") or not network.gaussian or type(evidence) is Cases:
        return kind
    linear = any(network.gaussian[v].continuous for v in evidence.values) or (
        len(evidence.values) > 1 and _many_leaf_parents(network, evidence.values))
    if linear or any(v in network.gaussian for v in targets):
        return "CONTINUOUS" if kind == "P" else "CONTINUOUS_POSTERIORS"
    return kind


def _many_leaf_parents(network: CompiledNetwork, values: Mapping) -> bool:
    """Whether the observed Gaussians' discrete parents together are more than
    :data:`LEAF_PARENTS` and more than any one of them has."""
    heads = [network.gaussian[v].parents for v in values]
    together = len({p for head in heads for p in head})
    return together > LEAF_PARENTS and together > max(map(len, heads))


def hybrid_kind(network: CompiledNetwork, kind: str, evidence: Evidence | Cases) -> str:
    """``"P"`` → ``"HYBRID"``, ``"POSTERIORS"`` → ``"HYBRID_POSTERIORS"`` in a network
    with softmax variables (:mod:`bbn.questions.hybrid_answers`); other kinds and
    batches are refused, naming the variable."""
    if kind in ("P", "POSTERIORS") and type(evidence) is not Cases:
        return "HYBRID" if kind == "P" else "HYBRID_POSTERIORS"
    v = next(iter(network.softmax))
    raise ModelError(f"{v!r} is discrete with continuous parents (softmax form): such "
                     f"networks answer posteriors of one case by likelihood weighting "
                     f"(method='lw') only, not {kind} questions"
                     + (" on a batch" if type(evidence) is Cases else ""))


def resolve_evidence(network: CompiledNetwork, evidence: Mapping | None,
                     numbers: bool = True) -> Evidence:
    """``{variable: state}`` → :class:`Evidence`, checking every name and state; numbers
    on Gaussian leaves are split off (with ``numbers=False``, refused: probabilities of
    evidence, MAP and MPE take discrete evidence only)."""
    if not evidence:
        return Evidence(dict(network.constraints), {}, {}) if network.constraints else NO_EVIDENCE
    if type(evidence) is Evidence:  # resolved already
        return evidence
    given = dict(evidence)
    if not network.states.keys() >= given.keys():  # (one set comparison when all known)
        check_variables(network, list(given), role="evidence")
    gaussian = network.gaussian
    if not numbers:
        check_discrete(network, given, "discrete evidence")
    states, values = dict(network.constraints), {}
    for v, s in given.items():
        if v in gaussian:
            values[v] = gaussian_value(v, s)
        else:
            states[v] = state_index(network, v, s)
    return Evidence(states, values, given)


def check_columns(network: CompiledNetwork, columns: Sequence[str]) -> None:
    """Evidence columns of a batch: known variables, none continuous."""
    check_variables(network, columns, role="evidence")
    check_discrete(network, columns, "batch")


def evidence_codes(network: CompiledNetwork, frame) -> dict[str, np.ndarray]:
    """A DataFrame of state names → ``{variable: state indices}`` (−1 where missing).

    A cell that is not a state of its column's variable raises DataError naming the
    column, the row and the value (see :func:`bbn.core.data.encode_column`).
    """
    encode_column = reference("bbn.core.data:encode_column")  # pandas: batches only
    columns = [str(c) for c in frame.columns]
    check_columns(network, columns)
    codes = {v: np.full(len(frame), i, dtype=np.intp) for v, i in network.constraints.items()}
    return {**codes, **{str(c): encode_column(frame[c], network.states[str(c)], name=str(c),
                                              row_names=frame.index).astype(np.intp)
                        for c in frame.columns}}


#: What a batch does with a case whose evidence is impossible (P(e_i) = 0).
IMPOSSIBLE = ("raise", "nan")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # bbn/


def check_impossible(impossible: str) -> None:
    """QueryError unless ``impossible`` is one of IMPOSSIBLE."""
    if impossible not in IMPOSSIBLE:
        raise QueryError(f"impossible must be 'raise' or 'nan', got {impossible!r}"
                         f"{suggest(str(impossible), IMPOSSIBLE)}")


def outside_level() -> int:
    """The ``stacklevel`` that makes a warning issued by the function calling this one
    name the first caller outside the package (however deep the question went)."""
    frame, level = sys._getframe(1), 1  # level 1: the function warning
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_impossible(answer: np.ndarray, stacklevel: int | None = 4,
                    apart: np.ndarray | None = None) -> None:
    """Warn how many cases (rows of ``answer``, NaN where the evidence is impossible)
    have impossible evidence; ``stacklevel`` 4 names the caller of a public method that
    calls the function calling this one, None the first caller outside the package
    (however deep the question went: a likelihood column's virtual child, ``do``);
    ``apart`` marks the rows NaN for another reason (said apart), not counted."""
    first = answer[(slice(None),) + (0,) * (answer.ndim - 1)]
    nan = np.isnan(first)
    count = int((nan & ~apart).sum() if apart is not None else nan.sum())
    if count:
        if stacklevel is None:
            stacklevel = outside_level()
        warnings.warn(f"{count} of {len(first)} case(s) have impossible evidence "
                      "(P(e) = 0): their rows are NaN", RuntimeWarning, stacklevel=stacklevel)


# ------------------------------------------------------------------ the resolver
def resolve(network: CompiledNetwork, asked: Asked) -> Question:
    """The question ``asked`` checked against ``network`` and turned into state indices:
    the one place a user's names are looked up (one call per question).

    Parameters
    ----------
    network : CompiledNetwork
        The view of the revision asked.
    asked : Asked
        The question as written (its ``form`` says how).

    Returns
    -------
    Question

    Raises
    ------
    QueryError
        For an unknown variable or state (with suggestions), a variable named twice, a
        continuous variable where a discrete one is needed.
    DataError
        For a cell of a batch that is not a state of its column's variable.

    Examples
    --------
    >>> import bbn
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> resolve(network, Asked("PROBABILITY", "assignment", {"C": "T"}, {"A": "T"})).assigned
    {'C': 0}
    >>> resolve(network, Asked("P", "variables", ["c"]))
    Traceback (most recent call last):
        ...
    bbn.core.errors.QueryError: unknown query variable 'c' (did you mean 'C'?)
    """
    return _FORMS[asked.form](network, asked)


def _written(network: CompiledNetwork, asked: Asked) -> Question:
    """A question of the query language: its items checked (see :func:`resolve_query`)."""
    query = asked.query
    targets = [v for v, _ in query.targets + query.others]
    observed = [v for v, _ in query.evidence]
    check_variables(network, targets)
    check_variables(network, observed, role="evidence")
    names = targets + observed
    repeated = sorted({v for v in names if names.count(v) > 1})
    if query.kind in EXPLAINED_KINDS:
        return _written_explained(network, query, targets, repeated)
    check_discrete(network, [v for v, s in query.targets if s is not None or query.kind != "P"])
    assigned = {v: evidence_value(network, v, s) for v, s in query.targets if s is not None}
    states, values = dict(network.constraints), {}
    for v, s in query.evidence:
        if s is not None:
            (values if v in network.gaussian else states)[v] = evidence_value(network, v, s)
    for v, s in query.evidence:
        if s is None:
            example = network.states[v][0] if network.states[v] else "3.2"
            raise QueryError(f"evidence variable {v!r} needs a state, as in {v}={example}")
    if repeated:
        raise QueryError(f"variable(s) {repeated} named more than once in {query.text()}")
    if query.kind == "MAP" and assigned:
        raise QueryError("MAP takes variables without states, as in MAP(C, S | A=T)")
    free = tuple(v for v, s in query.targets if s is None)
    evidence = Evidence(states, values, query.evidence_dict)
    kind = continuous_kind(network, asked.kind, free, evidence)
    return Question(kind, free, assigned, evidence, network)


def _written_explained(network: CompiledNetwork, query: Query, targets: list[str],
                       repeated: list[str]) -> Question:
    """The checks of an independence or information question: its Question holds X as
    ``free``, Y as ``others``, the evidence with a state, the rest as ``given``."""
    if repeated:
        raise QueryError(f"variable(s) {repeated} named more than once in {query.text()}")
    stated = [f"{v}={s}" for v, s in query.evidence if s is not None]
    if query.kind == "IND" and stated:
        raise QueryError(f"independence is read off the graph: name the observed "
                         f"variables without states ({', '.join(stated)})")
    if query.kind != "IND":
        check_discrete(network, targets)
    states = {v: evidence_value(network, v, s) for v, s in query.evidence if s is not None}
    given = {v: s for v, s in query.evidence if s is not None}
    return Question(query.kind, tuple(v for v, _ in query.targets), {},
                    Evidence(states, {}, given), network,
                    tuple(v for v, _ in query.others),
                    tuple(v for v, s in query.evidence if s is None))


def _variables(network: CompiledNetwork, asked: Asked) -> Question:
    """``posterior(variables, evidence)`` and ``map(variables, evidence)``: MAP checks
    its variables and takes discrete evidence only."""
    if asked.kind == "MAP":
        if network.softmax:
            hybrid_kind(network, asked.kind, NO_EVIDENCE)
        variables = [asked.targets] if isinstance(asked.targets, str) else list(asked.targets)
        check_variables(network, variables)
        evidence = (_evidence(network, asked) if asked.batch else
                    resolve_evidence(network, asked.evidence, numbers=False))
        check_discrete(network, variables)
        return Question(asked.kind, tuple(variables), {}, evidence, network)
    variables = resolve_targets(network, asked.targets, batched=asked.batch,
                                continuous=asked.kind == "P")
    evidence = _evidence(network, asked)
    return Question(continuous_kind(network, asked.kind, variables, evidence),
                    tuple(variables), {}, evidence, network)


def _assignment(network: CompiledNetwork, asked: Asked) -> Question:
    """``probability(assignment, evidence)``: discrete evidence, states as indices."""
    if network.softmax:
        hybrid_kind(network, asked.kind, NO_EVIDENCE)
    given = resolve_evidence(network, asked.evidence, numbers=False)
    both = resolve_evidence(network, asked.targets, numbers=False).states
    return Question(asked.kind, (), {v: both[v] for v in asked.targets or ()}, given, network)


def _evidence_only(network: CompiledNetwork, asked: Asked) -> Question:
    """``posteriors``, ``mpe``, ``log_probability``, ``log_partition``: evidence only
    (numbers on Gaussian leaves for posteriors alone)."""
    evidence = _evidence(network, asked)
    return Question(continuous_kind(network, asked.kind, (), evidence), (), {}, evidence,
                    network)


def _evidence(network: CompiledNetwork, asked: Asked) -> Evidence | Cases:
    evidence = asked.evidence
    if asked.batch:
        linear = any(leaf.continuous for leaf in network.gaussian.values()) or (
            asked.kind == "P" and any(str(v) in network.gaussian for v in (
                [asked.targets] if isinstance(asked.targets, str) else asked.targets)))
        numbers = [str(c) for c in evidence.columns if str(c) in network.gaussian] \
            if linear else []
        if numbers:  # numbers on the Gaussians of a linear network: continuous_batches.py
            column = reference("bbn.core.data:numeric_column")
            rest = evidence[[c for c in evidence.columns if str(c) not in numbers]]
            return Cases(evidence_codes(network, rest), evidence.index, len(evidence),
                         {v: column(evidence[v], v, "evidence") for v in numbers})
        return Cases(evidence_codes(network, evidence), evidence.index, len(evidence))
    if evidence is not None and type(evidence) is not dict and not isinstance(
            evidence, (Mapping, Evidence)):
        raise QueryError("evidence must be a dict or a pandas DataFrame, not "
                         f"{type(evidence).__name__}")
    return resolve_evidence(network, evidence, numbers=asked.kind in ("P", "POSTERIORS"))


_FORMS = {"query": _written, "variables": _variables, "assignment": _assignment,
          "evidence": _evidence_only}


def resolve_query(network: CompiledNetwork, query: Query) -> Question:
    """A parsed query resolved against ``network`` (:func:`resolve`): every variable and
    state checked (QueryError with suggestions), states turned into indices, numbers on
    Gaussian leaves split off.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.language import parse_query
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> question = resolve_query(network, parse_query("P(C | A=T)"))
    >>> question.free, question.evidence.states
    (('C',), {'A': 0})
    """
    return resolve(network, Asked(query.kind, "query", query=query))


def resolve_evidence_text(text: str, network: CompiledNetwork,
                          source: str = "<evidence>") -> Evidence:
    """``"A=T, S=F"`` read (:func:`bbn.questions.language.parse_evidence`) and resolved
    against ``network``.

    Examples
    --------
    >>> import bbn
    >>> resolve_evidence_text(" A = T ", bbn.load("models/chair.bn").compiled()).given
    {'A': 'T'}
    """
    return resolve_query(network, Query("P", (), parse_evidence(text, source, items=True))
                         ).evidence


# ------------------------------------------------- uncertain evidence, interventions
class Uncertain(NamedTuple):
    """A question's uncertain parts resolved (:func:`resolve_uncertain`): the hard
    findings left as written (``hard``: names and states), ``likelihoods`` variable →
    λ (one number ≥ 0 per state), ``do`` variable → the state index it is set to,
    ``stochastic`` variable → the distribution it is set to, ``soft`` variable → the
    distribution its posterior is made to have (Jeffrey's rule; Python floats, one per
    state: :func:`state_numbers`)."""

    hard: dict
    likelihoods: dict[str, np.ndarray]
    do: dict[str, int]
    stochastic: dict[str, np.ndarray]
    soft: dict[str, list[float]]


def state_numbers(network: CompiledNetwork, variable: str, numbers, what: str,
                  distribution: bool = False) -> list[float]:
    """``{state: number}`` (states left out: 0) → one Python float per state of
    ``variable`` (a likelihood or a soft finding is a few numbers, asked often), checked:
    finite, ≥ 0, not all 0 (a distribution: summing to 1 within 1e-6, then scaled to 1
    exactly).

    >>> import bbn
    >>> chair = bbn.load("models/chair.bn").compiled()
    >>> state_numbers(chair, "W", {"F": 0.25, "T": 0.75}, "soft finding", distribution=True)
    [0.75, 0.25]
    """
    states = network.states.get(variable) if type(variable) is str else None
    if states is not None and type(numbers) is dict and variable not in network.gaussian:
        values = [0.0] * len(states)  # the usual {state: number}
        try:  # (any doubt: the checks below say what is wrong)
            for s, x in numbers.items():
                values[states.index(s)] = float(x)
        except (ValueError, TypeError):
            pass
        else:
            total = sum(values)
            if 0 < total < math.inf and min(values) >= 0 and not (
                    distribution and abs(total - 1.0) > 1e-6):
                return [x / total for x in values] if distribution else values
    check_variables(network, [variable], role=what)
    check_discrete(network, [variable], "discrete evidence")
    states = network.states[variable]
    if type(numbers) is not dict and not isinstance(numbers, Mapping):
        raise QueryError(f"the {what} of {variable!r} is a dict {{state: number}}, not "
                         f"{type(numbers).__name__}")
    values = [0.0] * len(states)
    for s, x in numbers.items():
        values[state_index(network, variable, s)] = _number(variable, what, x)
    if min(values) < 0 or not any(values):
        raise QueryError(f"the {what} of {variable!r} needs numbers >= 0, not all 0; got "
                         f"{dict(zip(states, values))}")
    if distribution:
        total = math.fsum(values)
        if abs(total - 1.0) > 1e-6:
            raise QueryError(f"the {what} of {variable!r} must sum to 1, sums to {total:g}")
        return [x / total for x in values]
    return values


def per_state(network: CompiledNetwork, variable: str, numbers, what: str,
              distribution: bool = False) -> np.ndarray:
    """:func:`state_numbers` as an array.

    >>> import bbn
    >>> per_state(bbn.load("models/chair.bn").compiled(), "W", {"T": 0.8}, "likelihood")
    array([0.8, 0. ])
    """
    return np.array(state_numbers(network, variable, numbers, what, distribution))


def _number(variable: str, what: str, x) -> float:
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise QueryError(f"the {what} of {variable!r} takes numbers, got {x!r}") from None
    if not math.isfinite(value):
        raise QueryError(f"the {what} of {variable!r} takes finite numbers, got {x!r}")
    return value


def resolve_uncertain(network: CompiledNetwork, asked: Asked) -> Uncertain:
    """The uncertain parts of ``asked`` checked against ``network``: likelihoods (an
    evidence value ``{state: number}``), interventions (``do``: a state, or a
    distribution for a stochastic one) and soft findings; a variable in two of them
    is a QueryError, as is one set by ``do`` and observed.

    Examples
    --------
    >>> import bbn
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> found = resolve_uncertain(network, Asked("P", "variables", ["C"],
    ...     {"A": "T", "W": {"T": 0.8, "F": 0.4}}, do={"S": "F"}))
    >>> found.hard, found.likelihoods["W"].tolist(), found.do
    ({'A': 'T'}, [0.8, 0.4], {'S': 1})
    """
    query = asked.query
    if query is not None:
        evidence, do = dict(query.evidence), dict(query.do)
        if asked.do:
            do.update(asked.do)
    else:
        evidence = asked.evidence if type(asked.evidence) is dict else {}
        do = asked.do if type(asked.do) is dict else dict(asked.do or {})  # read only
    hard, likelihoods = {}, {}
    for v, s in evidence.items():
        if type(s) is str or not isinstance(s, Mapping):
            hard[v] = s
        else:
            likelihoods[v] = per_state(network, v, s, "likelihood")
    hard_do, stochastic = {}, {}
    if do:
        check_variables(network, list(do), role="intervened")
        check_discrete(network, list(do), "discrete evidence")
        for v, s in do.items():
            if isinstance(s, Mapping):
                stochastic[v] = per_state(network, v, s, "intervention", distribution=True)
            else:
                hard_do[v] = state_index(network, v, s)
    soft = {v: state_numbers(network, v, s, "soft finding", distribution=True)
            for v, s in asked.soft.items()} if asked.soft else {}
    # hard findings and likelihoods come from one dict: only do and soft may repeat them
    if (do or soft) and len(hard) + len(likelihoods) + len(do) + len(soft) != len(
            {*hard, *likelihoods, *do, *soft}):
        groups = (("observed", hard), ("given a likelihood", likelihoods),
                  ("intervened on", do), ("given a soft finding", soft))
        for v in {*hard, *likelihoods, *do, *soft}:
            roles = [role for role, group in groups if v in group]
            if len(roles) > 1:
                raise QueryError(f"{v!r} is both {' and '.join(roles)}: give each variable "
                                 "one kind of finding")
    return Uncertain(hard, likelihoods, hard_do, stochastic, soft)


#: numpy's object dtype: the only columns whose cells may be dicts.
_OBJECT = np.dtype(object)


def likelihood_columns(frame) -> list:
    """The labels of the columns of a DataFrame of cases holding likelihoods: object
    columns with a cell ``{state: number}`` (texts, numbers and categoricals are never
    scanned).

    >>> import pandas as pd
    >>> likelihood_columns(pd.DataFrame({"A": ["T"], "W": [{"T": 0.8, "F": 0.4}]}))
    ['W']
    """
    return [c for c, kind in frame.dtypes.items() if kind is _OBJECT
            and any(isinstance(x, Mapping) for x in frame[c].array)]


def likelihood_cells(network: CompiledNetwork, column, variable: str,
                     row_names=None) -> np.ndarray:
    """One likelihood column of a DataFrame of cases → ``(N, |W|)`` numbers: a cell
    ``{state: number}`` is a likelihood (:func:`per_state`), a state a hard finding (one
    at it, 0 elsewhere), a missing cell no finding (ones).

    >>> import bbn
    >>> network = bbn.load("models/chair.bn").compiled()
    >>> likelihood_cells(network, [{"T": 0.8, "F": 0.4}, "F", None], "W").tolist()
    [[0.8, 0.4], [0.0, 1.0], [1.0, 1.0]]
    """
    check_variables(network, [variable], role="evidence")
    check_discrete(network, [variable], "discrete evidence")
    states = network.states[variable]
    cells = list(column)
    weights = np.ones((len(cells), len(states)))
    for row, cell in enumerate(cells):
        try:
            if isinstance(cell, Mapping):
                weights[row] = per_state(network, variable, cell, "likelihood")
            elif not _missing(cell):
                weights[row] = 0.0
                weights[row, state_index(network, variable, cell)] = 1.0
        except QueryError as error:
            label = (str(row) if row_names is None else
                     reference("bbn.core.data:row_label")(row_names[row]))  # pandas: lazy
            raise QueryError(f"row {label}, column {variable!r}: {error}") from None
    return weights


def _missing(cell) -> bool:
    """None, NaN or pandas' NA (whose comparisons are neither true nor false)."""
    try:
        return cell is None or bool(cell != cell)
    except TypeError:
        return True

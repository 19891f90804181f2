"""Information from the engine's joint posteriors, in bits.

    H(X | Z, e)    = − Σ_{x,z} P(x, z | e) log2 P(x | z, e)
    I(X; Y | Z, e) =   Σ_{x,y,z} P(x, y, z | e) log2 [P(x, y, z | e) P(z | e)
                                                    / (P(x, z | e) P(y, z | e))]

``e`` is evidence (variables with a state), ``Z`` conditioning variables without one
(averaged over their posterior). The value of observing X for a target T is the expected
fall of T's entropy, I(T; X | e): :func:`value_of_information` ranks the unobserved
variables by it ("which test to do next"). Every joint comes from one exact posterior of
the engine; 0 log 0 = 0.

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> round(entropy(net, "C", {"A": "T"}), 6)
0.509644
>>> round(mutual_information(net, "C", "S"), 12)   # C ⟂ S: nothing to learn
0.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import QueryError

if TYPE_CHECKING:
    from bbn.questions.resolution import Model


class Information(NamedTuple):
    """One candidate of :func:`value_of_information`: observing ``variable`` lowers the
    target's entropy by ``bits`` on average."""

    variable: str
    bits: float


def _names(variables: str | Iterable[str] | None) -> list[str]:
    if variables is None:
        return []
    return [variables] if isinstance(variables, str) else list(variables)


def _plogp(p: np.ndarray) -> np.ndarray:
    """p log2 p with 0 log 0 = 0."""
    positive = p > 0
    out = np.zeros_like(p)
    out[positive] = p[positive] * np.log2(p[positive])
    return out


def _joint(net: Model, groups: list[list[str]], evidence: Mapping[str, str] | None
           ) -> np.ndarray:
    """P(group 1, group 2, ... | e) with one axis per group (each group's states
    flattened), from one posterior of the engine."""
    variables = [v for group in groups for v in group]
    repeated = sorted({v for v in variables if variables.count(v) > 1})
    if repeated:
        raise QueryError(f"variable(s) {repeated} named more than once")
    observed = sorted(set(variables) & set(evidence or {}))
    if observed:
        raise QueryError(f"variable(s) {observed} are observed in the evidence: their "
                         "information is 0; leave them out")
    if not variables:
        return np.ones(())
    table = net.posterior(variables, evidence).values
    return table.reshape([math.prod(net.cardinality(v) for v in group) for group in groups])


def entropy(net: Model, variables: str | Iterable[str],
            evidence: Mapping[str, str] | None = None,
            given: str | Iterable[str] | None = None) -> float:
    """H(X | Z, e) in bits: the entropy of the posterior of ``variables`` (jointly),
    averaged over the unobserved ``given`` variables Z.

    Parameters
    ----------
    net : Network or any model with its methods
    variables : str or iterable of str
        X.
    evidence : dict, optional
        ``{variable: state}``.
    given : str or iterable of str, optional
        Z, conditioning variables without a state.

    Returns
    -------
    float
        Bits, at least 0.

    Raises
    ------
    QueryError
        For an unknown, repeated or observed variable.
    ImpossibleEvidenceError
        When P(e) = 0.

    Examples
    --------
    >>> import bbn
    >>> round(entropy(bbn.load("models/chair.bn"), "C"), 6)   # 0.8, 0.2
    0.721928
    """
    joint = _joint(net, [_names(variables), _names(given)], evidence)
    # H(X | Z) = H(X, Z) − H(Z)
    return max(0.0, float(-_plogp(joint).sum() + _plogp(joint.sum(axis=0)).sum()))


def mutual_information(net: Model, x: str | Iterable[str], y: str | Iterable[str],
                       evidence: Mapping[str, str] | None = None,
                       given: str | Iterable[str] | None = None) -> float:
    """I(X; Y | Z, e) in bits, from the engine's joint posterior P(X, Y, Z | e).

    Parameters
    ----------
    net : Network or any model with its methods
    x, y : str or iterable of str
        X and Y.
    evidence : dict, optional
        ``{variable: state}``.
    given : str or iterable of str, optional
        Z, conditioning variables without a state.

    Returns
    -------
    float
        Bits, at least 0.

    Raises
    ------
    QueryError
        For an unknown, repeated or observed variable.
    ImpossibleEvidenceError
        When P(e) = 0.

    Examples
    --------
    >>> import bbn
    >>> round(mutual_information(bbn.load("models/chair.bn"), "C", "S", given="A"), 6)
    0.000642
    """
    joint = _joint(net, [_names(x), _names(y), _names(given)], evidence)
    # I(X; Y | Z) = H(X, Z) + H(Y, Z) − H(X, Y, Z) − H(Z)
    bits = (_plogp(joint).sum() + _plogp(joint.sum(axis=(0, 1))).sum()
            - _plogp(joint.sum(axis=1)).sum() - _plogp(joint.sum(axis=0)).sum())
    return max(0.0, float(bits))


def value_of_information(net: Model, target: str,
                         candidates: Iterable[str] | None = None,
                         evidence: Mapping[str, str] | None = None) -> list[Information]:
    """The unobserved variables ranked by I(target; X | e), the expected fall of the
    target's entropy (bits) if X were observed next: which test to do first.

    Parameters
    ----------
    net : Network or any model with its methods
    target : str
        T, the variable whose uncertainty matters.
    candidates : iterable of str, optional
        The variables that could be observed (default: every discrete variable other
        than the target and the observed ones).
    evidence : dict, optional
        ``{variable: state}`` already known.

    Returns
    -------
    list of Information
        ``(variable, bits)``, the most informative first (ties in declaration order).

    Raises
    ------
    QueryError
        For an unknown variable, or a candidate that is the target or observed.
    ImpossibleEvidenceError
        When P(e) = 0.

    Examples
    --------
    >>> import bbn
    >>> ranked = value_of_information(bbn.load("models/chair.bn"), "C", evidence={"A": "T"})
    >>> [(v, round(bits, 4)) for v, bits in ranked]
    [('W', 0.2985), ('B', 0.0735), ('S', 0.003)]
    """
    evidence = dict(evidence or {})
    if candidates is None:
        network = net.compiled()
        candidates = [v for v in net.variables if v != target and v not in evidence
                      and v not in network.gaussian]
    found = [Information(v, mutual_information(net, target, v, evidence))
             for v in candidates]
    return sorted(found, key=lambda item: -item.bits)


def answer_entropy(answering, question, model, **options) -> float:
    """``H(X | Z, e)`` of the query language, as :mod:`bbn.questions.dispatch` asks it.

    >>> import bbn
    >>> round(bbn.load("models/chair.bn").query("H(C | A=T)"), 6)
    0.509644
    """
    return entropy(model, list(question.free), question.evidence.given, list(question.given))


def answer_information(answering, question, model, **options) -> float:
    """``I(X; Y | Z, e)`` of the query language, as :mod:`bbn.questions.dispatch` asks it.

    >>> import bbn
    >>> round(bbn.load("models/chair.bn").query("I(C; W | A=T)"), 6)
    0.29848
    """
    return mutual_information(model, list(question.free), list(question.others),
                              question.evidence.given, list(question.given))

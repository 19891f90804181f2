"""The UAI inference competitions' tasks: evidence files, answers and result files.

    MAR   P(X_i | e) for every variable i          "MAR" n |X_0| p_00 p_01 ... |X_1| ...
    PR    log10 Z(e) (a Bayesian network: P(e))     "PR" value
    MPE   argmax_x P(x | e), every variable          "MPE" n s_0 s_1 ...

An evidence file lists ``count var state var state ...`` by variable and state index (a
leading ``1``, the UAI 2010 form with one evidence sample, is accepted too). Variables
are the model's in file order — ``X0``, ``X1``, ... for a UAI model — and states by
index. Result files are written in the competitions' formats above, so the reference
answers check bbn directly (:func:`read_result` reads them back).

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> evidence = read_evidence("1 4 0", net)     # variable 4 (A) at state 0 (T)
>>> evidence
{'A': 'T'}
>>> print(result_text("PR", answer_task(net, "PR", evidence)))
PR
-0.686015
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bbn.core.errors import BBNError, DataError, MemoryLimitError, clip, suggest
from bbn.model.markov import MarkovNetwork
from bbn.questions import dispatch
from bbn.questions.resolution import resolve_evidence

if TYPE_CHECKING:
    from bbn.model.network import Network

#: The competitions' tasks.
TASKS = ("MAR", "PR", "MPE")

#: MAR falls back to one elimination per variable (when no junction tree fits) only below
#: this many table entries multiplied in all: about 2 minutes at 2 ns an entry. A 20×20
#: grid of 2^21-entry eliminations (UAI 2014's Grids_15, were its tree not to fit) would
#: need 3e11, hours in logarithms.
FALLBACK_ENTRIES = 6 * 10**10


class TaskAnswer(NamedTuple):
    """One task's answer: ``marginals`` (variable → probabilities) for MAR,
    ``log10_partition`` for PR, ``assignment`` (variable → state index) for MPE."""

    task: str
    marginals: dict[str, np.ndarray] | None = None
    log10_partition: float | None = None
    assignment: dict[str, int] | None = None


#: A token of an evidence file: ASCII digits, optionally signed (no "²", "--1", "1_0").
_WHOLE = re.compile(r"[+-]?[0-9]+")


def read_evidence(text: str, net: Network | MarkovNetwork,
                  source: str = "<evidence>") -> dict[str, str]:
    """A competition evidence file → ``{variable: state}`` of ``net``.

    Parameters
    ----------
    text : str
        ``count var state var state ...`` (indices), optionally after a leading ``1``.
    net : Network or MarkovNetwork
        The model the indices refer to (variables in their order).
    source : str
        The file name, for messages.

    Returns
    -------
    dict

    Raises
    ------
    DataError
        For a token that is not a whole number (at its line:column), a count that does not
        match, an index out of range, a variable given twice.

    Examples
    --------
    >>> import bbn
    >>> read_evidence("2  0 1  3 0", bbn.load("models/chair.bn"))
    {'C': 'F', 'B': 'T'}
    """
    numbers = []
    for token in re.finditer(r"\S+", text):
        if not _WHOLE.fullmatch(token[0]):
            line = text.count("\n", 0, token.start()) + 1
            column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
            raise DataError(f"{source}:{line}:{column}: expected a whole number (count var "
                            f"state ...), found {clip(token[0], 20)!r}")
        numbers.append(int(token[0]))
    if not numbers:
        return {}
    if len(numbers) >= 2 and numbers[0] == 1 and len(numbers) == 2 + 2 * numbers[1]:
        numbers = numbers[1:]  # UAI 2010: one evidence sample
    count, pairs = numbers[0], numbers[1:]
    if len(pairs) != 2 * count:
        raise DataError(f"{source}: the count says {count} observed variable(s), but "
                        f"{len(pairs)} number(s) follow (expected {2 * count})")
    variables = net.variables
    evidence = {}
    for variable, state in zip(pairs[::2], pairs[1::2]):
        if not 0 <= variable < len(variables):
            raise DataError(f"{source}: variable index {variable} is out of range (the model "
                            f"has {len(variables)} variables, 0 to {len(variables) - 1})")
        name = variables[variable]
        if name in evidence:
            raise DataError(f"{source}: variable index {variable} ({name}) is given twice, "
                            f"as state {net.states(name).index(evidence[name])} and {state}")
        states = net.states(name)
        if not 0 <= state < len(states):
            raise DataError(f"{source}: state index {state} of variable {variable} ({name}) is "
                            f"out of range ({len(states)} states)")
        evidence[name] = states[state]
    return evidence


def answer_task(net: Network | MarkovNetwork, task: str,
                evidence: Mapping[str, str] | None = None, method="exact") -> TaskAnswer:
    """Answer one competition task, exactly or with an approximate ``method``.

    Parameters
    ----------
    net : Network or MarkovNetwork
        The model.
    task : {"MAR", "PR", "MPE"}
        The task.
    evidence : dict, optional
        ``{variable: state}``.
    method : str or method value, default "exact"
        ``"exact"``, or an approximate method (``"lbp"``, ``"gibbs"``, and for Bayesian
        networks ``"lw"``, ``"is"``; see ``docs/approximate.md``): for MPE, max-product
        or the best sample, each improved by a local search.

    Returns
    -------
    TaskAnswer

    Raises
    ------
    BBNError
        For an unknown task (did-you-mean); ImpossibleEvidenceError when P(e) = 0 (MAR,
        MPE); MemoryLimitError when exact inference does not fit.

    Examples
    --------
    >>> import bbn
    >>> answer = answer_task(bbn.load("models/chair.bn"), "MAR", {"A": "T"})
    >>> answer.marginals["C"].round(6).tolist()
    [0.886749, 0.113251]
    """
    task = check_task(task)
    evidence = dict(evidence or {})
    if task == "MAR":
        return TaskAnswer(task, marginals=_marginals(net, evidence, method))
    if task == "PR":
        return TaskAnswer(task, log10_partition=_log10_partition(net, evidence, method))
    return _assignment(net, evidence, *net.mpe(evidence, method=method))


def _assignment(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                assignment: Mapping[str, str], probability: float) -> TaskAnswer:
    """The MPE task's answer: every variable's state index, the evidence's included."""
    full = {**evidence, **assignment}
    return TaskAnswer("MPE", assignment={v: net.states(v).index(full[v]) for v in net.variables})


def _marginals(net: Network | MarkovNetwork, evidence: Mapping[str, str],
               method="exact") -> dict[str, np.ndarray]:
    """P(X | e) of every variable: one junction-tree propagation, or, when no tree fits
    in memory (not even one compiled for this question alone), one elimination per
    variable, each with its own, smaller peak (DBN_13: a 1.5 GiB tree, 64 MiB tables);
    approximately, one run of the method."""
    try:
        posteriors = net.posteriors(evidence, method=method)
    except MemoryLimitError as refused:
        check_fallback(net, evidence, refused)
        posteriors = {v: net.posterior(v, evidence) for v in net.variables}
    return {v: posteriors[v].values for v in net.variables}


def check_fallback(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                   refused: MemoryLimitError) -> None:
    """Refuse one elimination per variable when it would take too long: its work, the
    entries of one variable's elimination (summed over its steps) times the variables,
    over :data:`FALLBACK_ENTRIES` is a MemoryLimitError that adds the estimate and names
    the approximate methods to ``refused``."""
    engine = net.engine
    observed = list(resolve_evidence(engine.network, evidence, numbers=False).states)
    free = [v for v in net.variables if v not in observed]
    if not free:
        return
    each = sum(step.size for step in engine.plan([free[0]], observed).steps)
    if each * len(free) > FALLBACK_ENTRIES:
        raise MemoryLimitError(f"{refused}; one elimination per variable instead would "
                               f"multiply about {each * len(free):.1e} entries ({len(free)} "
                               f"variables × {each:.1e}), hours of work: answer "
                               "approximately with --method lbp or gibbs (method='lbp', "
                               "'gibbs')") from refused


def _log10_partition(net: Network | MarkovNetwork, evidence: Mapping[str, str],
                     method="exact") -> float:
    """log10 Z(e) of a Markov network, log10 P(e) of a Bayesian network (0 without
    evidence); approximately, the method's estimate."""
    if not evidence and not isinstance(net, MarkovNetwork):
        return 0.0
    return dispatch.log_partition(net, evidence, method) / math.log(10)


def check_task(task: str) -> str:
    """The task in capitals; BBNError with did-you-mean for an unknown one."""
    name = str(task).upper()
    if name not in TASKS:
        raise BBNError(f"unknown task {task!r}{suggest(name, TASKS)}; tasks: "
                       f"{', '.join(TASKS)}")
    return name


def result_text(task: str, answer: TaskAnswer) -> str:
    """The competition's result file for an answer (numbers to 6 significant digits, as
    the references have them; ``-inf`` for PR when Z(e) = 0).

    Examples
    --------
    >>> import numpy as np
    >>> print(result_text("MAR", TaskAnswer("MAR", marginals={"X0": np.array([0.25, 0.75])})))
    MAR
    1 2 0.25 0.75
    """
    task = check_task(task)
    if task == "MAR":
        parts = [str(len(answer.marginals))]
        for probabilities in answer.marginals.values():
            parts.append(str(len(probabilities)))
            parts += [f"{p:.6g}" for p in probabilities.tolist()]
        return "MAR\n" + " ".join(parts)
    if task == "PR":
        return f"PR\n{answer.log10_partition:.6f}"
    states = list(answer.assignment.values())
    return "MPE\n" + " ".join(map(str, [len(states), *states]))


def read_result(text: str, source: str = "<result>") -> TaskAnswer:
    """A competition result file (``MAR``, ``PR`` or ``MPE``) → :class:`TaskAnswer`,
    variables named ``X0``, ``X1``, ...

    Examples
    --------
    >>> read_result("PR\\n169.408").log10_partition
    169.408
    >>> read_result("MAR 1 2 0.25 0.75").marginals["X0"].tolist()
    [0.25, 0.75]
    """
    tokens = text.split()
    if not tokens or tokens[0].upper() not in TASKS:
        raise DataError(f"{source}: expected MAR, PR or MPE first")
    task = tokens[0].upper()
    try:
        if task == "PR":
            return TaskAnswer(task, log10_partition=float(tokens[1]))
        numbers = tokens[2:]
        count = int(tokens[1])
        if task == "MPE":
            return TaskAnswer(task, assignment={f"X{i}": int(s)
                                                for i, s in enumerate(numbers[:count])})
        marginals, at = {}, 0
        for i in range(count):
            size = int(numbers[at])
            marginals[f"X{i}"] = np.array([float(x) for x in numbers[at + 1:at + 1 + size]])
            at += 1 + size
        return TaskAnswer(task, marginals=marginals)
    except (IndexError, ValueError):
        raise DataError(f"{source}: not a well-formed {task} result") from None

"""What solving an influence diagram answers: the policies and the maximum expected utility.

    δ*_D(k) = argmax_d E[Σ_u U_u | known = k, D = d]        MEU = E[Σ_u U_u | e; δ*]

A :class:`Policy` is one decision's table: for each configuration k of what the choice
depends on, every option's expected utility (the other decisions following their
policies) and the option chosen; a :class:`Solution` holds the MEU, every policy, the
reading of the information arcs (``"perfect recall"`` or ``"LIMID"``) and whether the
policies are proved optimal. Both print as text and as JSON values.

>>> import numpy as np
>>> policy = Policy("Drill", (), {"Drill": ("yes", "no")}, np.array([20.0, 0.0]),
...                 np.array(0))
>>> policy.best()
'yes'
>>> print(Solution(20.0, {"Drill": policy}, PERFECT_RECALL, True, 20.0, 0, {}).to_text())
MEU = 20 (perfect recall, optimal)
Drill = yes
  yes  20  *
  no   0
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from bbn.core.errors import QueryError

#: The readings of the information arcs.
PERFECT_RECALL = "perfect recall"
LIMID = "LIMID"
READINGS = (PERFECT_RECALL, LIMID)


def _number(x: float, digits: int = 6) -> str:
    return "impossible" if math.isnan(x) else f"{x:.{digits}g}"


class Policy:
    """One decision's optimal policy.

    Parameters
    ----------
    decision : str
        The decision.
    known : tuple of str
        What the choice depends on (the table's first axes); empty when it depends on
        nothing.
    states : mapping
        The states of every variable of ``known`` and the options of ``decision``.
    expected : numpy.ndarray or callable
        E[Σ U | known = k, decision = d], shape ``(|K1|, ..., |D|)``, NaN where k is
        impossible; or a function computing it, called once on first use (it costs one
        elimination per decision, which the MEU and the choices do not need).
    chosen : numpy.ndarray
        The index of the option chosen for each k, shape ``(|K1|, ...)``.
    """

    __slots__ = ("decision", "known", "states", "chosen", "_expected", "_lock")

    def __init__(self, decision: str, known: tuple[str, ...],
                 states: Mapping[str, tuple[str, ...]], expected: np.ndarray | Callable,
                 chosen: np.ndarray) -> None:
        self.decision, self.known, self.states, self.chosen = decision, known, states, chosen
        self._expected, self._lock = expected, threading.Lock()

    def __reduce__(self) -> tuple:
        """Pickled with its expected utilities computed (a function is not pickled) and
        a lock of its own."""
        return (type(self), (self.decision, self.known, dict(self.states), self.expected,
                             self.chosen))

    @property
    def expected(self) -> np.ndarray:
        """E[Σ U | known = k, decision = d] for every k and d (computed on first use)."""
        if callable(self._expected):
            with self._lock:
                if callable(self._expected):
                    self._expected = self._expected()
        return self._expected

    def __repr__(self) -> str:
        return f"Policy({self.decision!r}, known={self.known})"

    def best(self, **known: str) -> str:
        """The option chosen when the known variables are in the given states (all of
        ``known``; others are ignored; none for a decision that depends on nothing).

        >>> import numpy as np
        >>> Policy("D", ("R",), {"R": ("+", "-"), "D": ("a", "b")},
        ...        np.array([[1.0, 2.0], [3.0, 0.0]]), np.array([1, 0])).best(R="-")
        'a'
        """
        missing = [v for v in self.known if v not in known]
        if missing:
            raise QueryError(f"the policy of {self.decision!r} depends on "
                             f"{', '.join(self.known)}: give {', '.join(missing)} too")
        index = tuple(self.states[v].index(known[v]) for v in self.known)
        return self.states[self.decision][int(self.chosen[index])]

    def rows(self) -> list[tuple[dict[str, str], str, dict[str, float]]]:
        """(known states, option chosen, {option: expected utility}) per configuration."""
        options = self.states[self.decision]
        found = []
        for index in itertools.product(*(range(len(self.states[v])) for v in self.known)):
            values = self.expected[index]
            found.append(({v: self.states[v][i] for v, i in zip(self.known, index)},
                          options[int(self.chosen[index])],
                          {o: float(x) for o, x in zip(options, values)}))
        return found

    def to_text(self, digits: int = 6) -> str:
        """The policy as lines: ``D = d`` for a choice that depends on nothing, else one
        block per configuration of what is known."""
        lines, options, hidden = [], self.states[self.decision], 0
        width = max(map(len, options)) + 2
        for known, option, values in self.rows():
            if known and all(math.isnan(x) for x in values.values()):
                hidden += 1  # a configuration of what is known that cannot happen
                continue
            given = ", ".join(f"{v}={s}" for v, s in known.items())
            lines.append(f"{self.decision} = {option}" + (f"  if {given}" if given else ""))
            for o in options:
                mark = "  *" if o == option else ""
                lines.append(f"  {o.ljust(width)}{_number(values[o], digits)}{mark}")
        if hidden:
            lines.append(f"  ({hidden} impossible configuration(s) of "
                         f"{', '.join(self.known)} not shown)")
        return "\n".join(lines)

    def to_json(self) -> dict:
        """``{"known": [...], "rules": [{"when": {...}, "choose": d, "eu": {...}}]}``."""
        def clean(x: float):
            return None if math.isnan(x) else x
        return {"known": list(self.known), "rules": [
            {"when": known, "choose": option, "eu": {o: clean(x) for o, x in values.items()}}
            for known, option, values in self.rows()]}


@dataclass(frozen=True)
class Solution:
    """An influence diagram solved.

    Parameters
    ----------
    meu : float
        The maximum expected utility E[Σ U | e] under the policies.
    policies : dict
        decision → its :class:`Policy` (decisions given as evidence have none).
    reading : str
        ``"perfect recall"`` (every decision knows what the earlier ones knew and chose)
        or ``"LIMID"`` (only its parents).
    optimal : bool
        Whether the policies are proved optimal (always with perfect recall; for a LIMID
        when the MEU reaches the perfect-recall bound); False: *locally* optimal only, no
        single decision's policy can be improved.
    bound : float
        The perfect-recall MEU, an upper bound of every LIMID policy's (NaN if too large
        to compute).
    sweeps : int
        Sweeps of single policy updating (0 with perfect recall).
    evidence : dict
        The evidence as given.
    """

    meu: float
    policies: dict[str, Policy]
    reading: str
    optimal: bool
    bound: float
    sweeps: int
    evidence: dict = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.meu)

    def __str__(self) -> str:
        return self.to_text()

    def best(self) -> dict[str, str]:
        """The option of every decision that depends on nothing known (the others' are
        tables: see ``policies``)."""
        return {d: p.best() for d, p in self.policies.items() if not p.known}

    def status(self) -> str:
        """``"optimal"`` or ``"locally optimal (perfect-recall bound B)"``."""
        if self.optimal:
            return "optimal"
        return f"locally optimal only (the perfect-recall bound is {_number(self.bound)})"

    def to_text(self, digits: int = 6) -> str:
        """The MEU, the reading, then every policy."""
        given = ", ".join(f"{v}={s}" for v, s in self.evidence.items())
        head = (f"MEU{' given ' + given if given else ''} = {_number(self.meu, digits)} "
                f"({self.reading}, {self.status()})")
        return "\n".join([head, *(p.to_text(digits) for p in self.policies.values())])

    def to_json(self) -> dict:
        """``{"meu": ..., "reading": ..., "optimal": ..., "policy": {D: ...}}``."""
        return {"meu": self.meu, "reading": self.reading, "optimal": self.optimal,
                "policy": {d: p.to_json() for d, p in self.policies.items()}}

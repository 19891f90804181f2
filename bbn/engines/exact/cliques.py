"""The data types of a compiled junction tree, for one set of observed variables.

A :class:`JunctionTree` is a list of :class:`Clique` objects over variables C, joined
by separators S = C_child ∩ C_parent; each network table enters one clique as a
:class:`Table`, multiplied into the flat potential as its :class:`Spread` says, so that

    Π_C ψ_C = P(X, e)

For tiny networks the tree holds a single :class:`Joint` instead (the joint table of the
hidden variables). Building a tree is in :mod:`bbn.engines.exact.clique_building`,
propagating in it in :mod:`bbn.engines.exact.propagation`; this module depends on
neither.

>>> tree_cost(100, 10, 40, 3).entries(cases=2)
280
>>> clique = Clique(("A", "B"), (2, 3), 6)
>>> separator_variables(clique), preorder([clique], 0)
((), [0])
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from bbn.engines.exact.elimination import Cost
from bbn.engines.exact.summing import Sum


@dataclass
class Spread:
    """Multiply an array over some of a clique's variables into the clique potential.

    The operand (axes ``operand``, after any case axis) is transposed by ``perm`` into
    the clique's order and reshaped to ``runs_shape``, which broadcasts against the clique
    potential viewed with runs of covered / uncovered axes merged. When the last run is
    short and not covered, numpy's loop would run along it only: the operand is then
    first broadcast to ``widened`` over the last runs (a small copy), so that ``shape``
    and the potential's view ``target`` end with one long run.
    """

    #: the operand's axis lengths, in its own order
    operand: tuple[int, ...]
    #: the transposition into the clique's order (None: already in it)
    perm: tuple[int, ...] | None
    #: the operand's shape against the potential's merged runs (1 for an uncovered run)
    runs_shape: tuple[int, ...]
    #: the last runs filled in, for a short uncovered last run (None: not needed)
    widened: tuple[int, ...] | None
    #: the operand's final shape, broadcasting against ``target``
    shape: tuple[int, ...]
    #: the potential's view: its axes with runs merged
    target: tuple[int, ...]
    #: axes of the operand as given, after any case axis (1 for a flat message)
    rank: int


@dataclass
class Table:
    """A network table as it enters a clique potential.

    ``values`` is the table transposed to (observed axes in ``fixed`` order, free axes in
    the clique's order), so indexing it with the evidence leaves the free axes.
    """

    variable: str
    fixed: tuple[str, ...]
    values: np.ndarray
    spread: Spread | None = None


class SumUses(NamedTuple):
    """What one of a clique's belief sums is read by: the ``children`` whose separator it
    is, the ``marginals`` read from it; and the sums (itself included) read for the last
    time once it is made, which are then dropped."""

    children: list[int]
    marginals: list[tuple[str, int]]  # (variable, this sum's entry), as ``Clique.marginals``
    done: list[int]


@dataclass
class Clique:
    """A clique of the tree. Its axes are its own variables, then the separator with
    its parent (S entries, last so that messages up and down are contiguous)."""

    variables: tuple[str, ...]
    shape: tuple[int, ...]
    size: int  # entries: Π shape (laying the axes out only reorders them)
    parent: int = -1
    children: list[int] = field(default_factory=list)
    separator: int = 1  # S, the entries of the separator with the parent
    #: the sum that makes the message to the parent (flat, separator order)
    message_sum: Sum | None = None
    into_parent: Spread | None = None  # that message into the parent's potential
    #: which of the parent's ``belief_sums`` is the separator (the message down)
    separator_sum: int = -1
    down_perm: tuple[int, ...] | None = None  # that separator into this clique's order
    down_shape: tuple[int, ...] = ()  # the separator's shape in the parent's order
    separator_shape: tuple[int, ...] = ()
    tables: list[Table] = field(default_factory=list)  # sliced by evidence at each call
    #: The sums a belief goes through: (source, plan) with source −1 for the belief, else
    #: an earlier entry; each child's separator and each posterior is one of them.
    belief_sums: list[tuple[int, Sum]] = field(default_factory=list)
    # (variable, its entry in ``belief_sums``) and (variable, weight, sum of the weighted
    # belief)
    marginals: list[tuple[str, int]] = field(default_factory=list)
    #: per entry of ``belief_sums``: what reads it, and which sums are done once it is
    #: made (None: nothing); left empty where every sum is small: all are made, then read
    sum_uses: list[SumUses | None] = field(default_factory=list)
    weighted: list[tuple[str, Table, Sum]] = field(default_factory=list)
    dirty: bool = False  # some evidence table lies in this clique's subtree
    # Evidence-free parts, computed at compile time (flat arrays):
    #: ψ without the evidence tables × the messages of clean children
    evidence_free: np.ndarray | None = None
    #: the unnormalised message up, zeros replaced by 1 (clean cliques of a component
    #: with evidence; in one without, None: summed again from the potential)
    divisor: np.ndarray | None = None


@dataclass
class JunctionTree:
    """A compiled junction tree for one set of observed variables.

    ``collect`` lists the dirty cliques children first; ``distribute`` lists every
    clique of a component that holds evidence, parents first. Components without
    evidence were solved at compile time: their posteriors are in ``fixed_marginals``.
    """

    observed: tuple[str, ...]
    cliques: list[Clique]
    constants: list[Table]  # tables whose variables are all observed
    collect: list[int]
    distribute: list[int]
    fixed_marginals: dict[str, np.ndarray]
    largest_table: int  # entries of the largest clique (read by check_memory)
    width: int  # induced width: variables in the largest clique, minus one
    total_entries: int  # entries of all cliques together
    cached_bytes: int = 0  # held by the arrays kept for later calls
    cost: Cost = Cost(0, 0, 0, 0)  # the peak of compiling and of a call (see tree_cost)
    # Arrays reused by one-case calls, one call at a time (``lock``), so that the big
    # potentials are not allocated — and faulted into memory — again at every call.
    work: dict[int, np.ndarray] = field(default_factory=dict)  # per dirty clique
    scratch: np.ndarray | None = None  # the belief of each clean clique in turn
    lock: threading.Lock = field(default_factory=threading.Lock)
    joint: Joint | None = None  # set instead of cliques when the whole joint is small
    # Rescale each potential as its tables are multiplied in: a Markov network's factor
    # nodes (``constraints``) bring tens of tables of entries φ/max φ into one clique, whose
    # product falls below 1e-300 (Alchemy_11) where a Bayesian network's stays near 1.
    rescale: bool = False

    def __getstate__(self) -> dict:
        """Pickled without the lock and the arrays reused between calls (made again)."""
        state = dict(self.__dict__)
        state.update(work={}, scratch=None, lock=None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, lock=threading.Lock())

@dataclass
class Joint:
    """The joint table of the hidden ``variables`` (small networks): a single clique.

    ``evidence_free`` is the product, over ``variables`` in order, of the tables no evidence
    reaches. Each of ``tables`` is a table the evidence slices at every call, laid out
    as (fixed axes, free ones in the order of ``variables``), with the shape its slice
    takes to broadcast against the joint; ``weighted`` holds, by variable, the raw row
    sums of the inexact barren tables laid out the same way.
    """

    variables: tuple[str, ...]
    evidence_free: np.ndarray
    tables: list[tuple[Table, tuple[int, ...]]]
    weighted: list[tuple[str, Table, tuple[int, ...]]]


class Operand(NamedTuple):
    """An array over some of a clique's variables (``axes``, in the array's order), and,
    when already planned, its :class:`Spread` into the clique."""

    values: np.ndarray
    axes: tuple[str, ...]
    spread: Spread | None = None



def tree_cost(total: int, dirty: int, largest: int, width: int) -> Cost:
    """The peak of a tree: every clique's potential while compiling (``total`` entries;
    afterwards the evidence-free ones are freed, the evidence side kept), then per case
    a call's potentials of the ``dirty`` cliques, plus one belief and its sums at a time
    (2 × ``largest``)::

        peak = total + N · (dirty + 2 · largest)

    A tree without evidence (no dirty clique) is solved once while compiling, each
    potential turned into its belief in place and its sums taken (smaller than the
    clique): then the peak is total + largest. Measured (peak RSS over the RSS before,
    all posteriors without evidence): munin1 1.97e8 entries estimated, 1881 MiB used
    (1.08×); barley 1.03×, mildew 1.29×, water 1.27× (they were 1.40, 1.31, 1.70, 1.69).

    >>> tree_cost(100, 10, 40, 3).entries(cases=2)
    280
    >>> tree_cost(100, 0, 40, 3).entries()
    140
    """
    return Cost(total, dirty + (2 if dirty else 1) * largest, largest, width)



def separator_variables(clique: Clique) -> tuple[str, ...]:
    """The variables a clique shares with its parent (its last axes)."""
    return clique.variables[len(clique.variables) - len(clique.separator_shape):]


def preorder(cliques: list[Clique], root: int) -> list[int]:
    """The cliques of ``root``'s component, breadth first: parents before children."""
    order = [root]
    for c in order:  # grows while iterating
        order.extend(cliques[c].children)
    return order

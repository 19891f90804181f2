"""How far a learned structure is from a reference: structural Hamming distances.

On the DAGs, every pair of variables adjacent in either network counts at most once:

    SHD = #missing + #extra + #reversed

a missing arc in the reference and not adjacent in the learned DAG, an extra arc the
other way round, a reversed arc adjacent in both but pointing the other way (it counts
1, as in bnlearn's ``shd`` and Tsamardinos et al., 2006, not 2 as a deletion plus an
addition).

Markov equivalent DAGs cannot be told apart by data, so the distance that matters for a
method is the one between equivalence classes: each network's CPDAG (see
:mod:`bbn.tasks.structure.equivalence`), and

    SHD_CPDAG = #pairs adjacent in one class only, or with different marks

(marks →, ←, — : an arc in one and an undirected edge in the other counts 1).
A :class:`~bbn.tasks.structure.learned.LearnedNetwork` whose method returned an equivalence
class (non-empty ``undirected_edges_``, e.g. PC's) is compared by that class: its
undirected edges, and its other arcs as oriented by the method and the knowledge. Any
other network is compared by the CPDAG of its DAG.

>>> import bbn
>>> states = {v: ["0", "1"] for v in "ABC"}
>>> truth = bbn.Network.assemble("truth", states, {"C": ["A", "B"]})   # A → C ← B
>>> chain = bbn.Network.assemble("chain", states, {"C": ["A"], "B": ["C"]})
>>> result = compare(chain, truth)
>>> result.shd, result.reversed, result.cpdag_shd     # C → B reversed; class: 2 marks
(1, [('C', 'B')], 2)
"""

from __future__ import annotations

from typing import NamedTuple

import bbn.core.html_tables as html_tables
from bbn.core.errors import ModelError, suggest
from bbn.model.network import Network
from bbn.tasks.structure.equivalence import PDAG, cpdag
from bbn.tasks.structure.learned import LearnedNetwork
from bbn.tasks.structure.method import Parents

#: An arc or edge by names.
NamePair = tuple[str, str]


class MarkDifference(NamedTuple):
    """A pair of variables whose edge differs between the two equivalence classes:
    the mark in each, ``"->"`` (first → second), ``"<-"``, ``"--"`` (undirected) or
    ``None`` (not adjacent)."""

    first: str
    second: str
    learned: str | None
    reference: str | None


class Comparison(NamedTuple):
    """A learned network against a reference (formulas in the module docstring).

    Attributes
    ----------
    shd : int
        The structural Hamming distance between the DAGs.
    missing : list of (str, str)
        Arcs of the reference whose variables are not adjacent in the learned DAG.
    extra : list of (str, str)
        Arcs of the learned DAG whose variables are not adjacent in the reference.
    reversed : list of (str, str)
        Arcs of the learned DAG whose reverse is in the reference.
    correct : list of (str, str)
        Arcs in both DAGs.
    cpdag_shd : int
        The structural Hamming distance between the equivalence classes.
    cpdag_differences : list of MarkDifference
        The pairs counted by ``cpdag_shd``.
    undirected : list of (str, str)
        The edges the learned class leaves undirected.

    Examples
    --------
    >>> import bbn
    >>> net = bbn.load("models/chair.bn")
    >>> compare(net, net).shd, compare(net, net).cpdag_shd
    (0, 0)
    """

    shd: int
    missing: list[NamePair]
    extra: list[NamePair]
    reversed: list[NamePair]
    correct: list[NamePair]
    cpdag_shd: int
    cpdag_differences: list[MarkDifference]
    undirected: list[NamePair]

    def _repr_html_(self) -> str:
        """What Jupyter shows: the two distances, then one row per arc of either DAG
        with its verdict (correct, reversed, missing, extra).

        Examples
        --------
        >>> import bbn
        >>> net = bbn.load("models/chair.bn")
        >>> compare(net, net)._repr_html_().count("<td>correct</td>")    # its 4 arcs
        4
        """
        rows = [[p, c, verdict] for verdict, arcs in (
            ("correct", self.correct), ("reversed", self.reversed),
            ("missing", self.missing), ("extra", self.extra)) for p, c in arcs]
        return (f"<p>structural Hamming distance {self.shd} (DAGs), {self.cpdag_shd} "
                "(equivalence classes)</p>"
                + html_tables.table(["from", "to", "arc"], rows, total=len(rows)))


def compare(learned: Network, reference: Network) -> Comparison:
    """The structural Hamming distances of ``learned`` from ``reference``, on the DAGs and
    on their equivalence classes, with the arcs that differ.

    Parameters
    ----------
    learned : Network or LearnedNetwork
        The network to judge (its tables are not used: a structure-only network works).
        A LearnedNetwork with ``undirected_edges_`` is judged by that class.
    reference : Network
        The true or expected network, with the same variables (in any order).

    Returns
    -------
    Comparison
        ``shd``, ``missing``, ``extra``, ``reversed``, ``correct``, ``cpdag_shd``,
        ``cpdag_differences``, ``undirected``; lists sorted, pairs by name.

    Raises
    ------
    ModelError
        When either is no Network, or the variables differ (the message names them, with
        close matches).

    Examples
    --------
    >>> import bbn
    >>> states = {v: ["0", "1"] for v in "ABC"}
    >>> truth = bbn.Network.assemble("t", states, {"B": ["A"], "C": ["B"]})
    >>> guess = bbn.Network.assemble("g", states, {"A": ["B"], "C": ["A"]})
    >>> result = compare(guess, truth)        # B → A reversed, A → C extra, B → C missing
    >>> result.shd, result.missing, result.extra, result.reversed
    (3, [('B', 'C')], [('A', 'C')], [('B', 'A')])
    >>> result.cpdag_shd                      # both classes all undirected: 2 edges differ
    2
    """
    for role, net in (("learned", learned), ("reference", reference)):
        if not isinstance(net, Network):
            raise ModelError(f"compare needs two networks; the {role} one is a "
                             f"{type(net).__name__}")
    names = _same_variables(learned, reference)
    position = {v: i for i, v in enumerate(names)}
    mine, theirs = _parents(learned, position), _parents(reference, position)
    my_arcs = {(p, c) for c, ps in enumerate(mine) for p in ps}
    their_arcs = {(p, c) for c, ps in enumerate(theirs) for p in ps}

    def named(arcs) -> list[NamePair]:
        return sorted((names[p], names[c]) for p, c in arcs)

    reversed_arcs = {(p, c) for p, c in my_arcs if (c, p) in their_arcs}
    extra = {(p, c) for p, c in my_arcs - their_arcs if (c, p) not in their_arcs}
    missing = {(p, c) for p, c in their_arcs - my_arcs if (c, p) not in my_arcs}
    my_class, their_class = _pattern(learned, mine, position), cpdag(theirs)
    my_marks, their_marks = my_class.edges(), their_class.edges()
    differences = sorted(
        MarkDifference(names[i], names[j], my_marks.get((i, j)), their_marks.get((i, j)))
        for i, j in set(my_marks) | set(their_marks)
        if my_marks.get((i, j)) != their_marks.get((i, j)))
    return Comparison(len(missing) + len(extra) + len(reversed_arcs), named(missing),
                      named(extra), named(reversed_arcs), named(my_arcs & their_arcs),
                      len(differences), differences, named(my_class.undirected))


def _same_variables(learned: Network, reference: Network) -> tuple[str, ...]:
    """The reference's variables, after checking the learned network has the same."""
    only_learned = [v for v in learned.variables if v not in reference]
    only_reference = [v for v in reference.variables if v not in learned]
    if only_learned or only_reference:
        parts = []
        if only_learned:
            parts.append(f"{only_learned[0]!r} is only in the learned network"
                         f"{suggest(only_learned[0], only_reference)}")
        if only_reference:
            parts.append(f"{only_reference[0]!r} is only in the reference")
        listing = ", ".join(repr(v) for v in only_learned + only_reference)
        raise ModelError("compare needs networks over the same variables: "
                         + "; ".join(parts) + f" (all that differ: {listing})")
    return reference.variables


def _parents(net: Network, position: dict[str, int]) -> Parents:
    parents: list[tuple[int, ...]] = [()] * len(position)
    for v in net.variables:
        parents[position[v]] = tuple(position[p] for p in net.parents(v))
    return tuple(parents)


def _pattern(net: Network, parents: Parents, position: dict[str, int]) -> PDAG:
    """The learned network's equivalence class: the method's when it returned one."""
    if not (isinstance(net, LearnedNetwork) and net.undirected_edges_):
        return cpdag(parents)
    undirected = frozenset((min(position[a], position[b]), max(position[a], position[b]))
                           for a, b in net.undirected_edges_)
    arcs = frozenset((p, c) for c, ps in enumerate(parents) for p in ps
                     if (min(p, c), max(p, c)) not in undirected)
    return PDAG(len(parents), arcs, undirected)

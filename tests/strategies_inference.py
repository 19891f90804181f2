"""Test support for inference: hand-built course networks, a random-network strategy and
brute-force answers computed from the full joint table.

The brute force here never touches bbn's elimination code: it multiplies every table
into the joint P(X1, ..., Xn) with one ``numpy.einsum`` and reads answers off that array.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import bbn

TF = ["T", "F"]


# ------------------------------------------------------------- course models
def chair_network() -> bbn.Network:
    """The back-ache network of EXAMPLES.md §1, built through the Python API."""
    net = bbn.Network("Back ache")
    net.add_variable("C", TF, "the chair is uncomfortable", table=[0.8, 0.2])
    net.add_variable("S", TF, "does sport", table=[0.02, 0.98])
    net.add_variable("W", TF, "is a worker", parents=["C"],
                     table={"T": [0.9, 0.1], "F": [0.01, 0.99]})
    net.add_variable("B", TF, "back is injured", parents=["C", "S"],
                     table={("T", "T"): [0.9, 0.1], ("T", "F"): [0.2, 0.8],
                            ("F", "T"): [0.9, 0.1], ("F", "F"): [0.01, 0.99]})
    net.add_variable("A", TF, "back aches", parents=["B"], table=[[0.7, 0.3], [0.1, 0.9]])
    return net


def monty_hall_network() -> bbn.Network:
    """EXAMPLES.md §2: the princess behind A, B or C; the prince picks A; the king opens."""
    net = bbn.Network("The prince and the king")
    net.add_variable("Princess", ["A", "B", "C"], table=[1 / 3, 1 / 3, 1 / 3])
    net.add_variable("King", ["B", "C"], parents=["Princess"],
                     table={"A": [0.5, 0.5], "B": [0.0, 1.0], "C": [1.0, 0.0]})
    return net


def joint_table_network() -> bbn.Network:
    """EXAMPLES.md §3 as a network: Category → Colour, (Category, Colour) → Shape."""
    joint = np.array([[[0.2, 0.02], [0.02, 0.01]],      # pos: red (circle, square), blue
                      [[0.05, 0.3], [0.2, 0.2]]])       # neg
    net = bbn.Network("Random vectors")
    p_category = joint.sum(axis=(1, 2))
    p_colour = joint.sum(axis=2) / p_category[:, None]
    p_shape = joint / joint.sum(axis=2, keepdims=True)
    net.add_variable("Category", ["pos", "neg"], table=p_category)
    net.add_variable("Colour", ["red", "blue"], parents=["Category"], table=p_colour)
    net.add_variable("Shape", ["circle", "square"], parents=["Category", "Colour"], table=p_shape)
    return net


# ---------------------------------------------------------------- brute force
def joint_array(net: bbn.Network) -> np.ndarray:
    """P(X1, ..., Xn) with one axis per variable, in ``net.variables`` order."""
    axis = {v: i for i, v in enumerate(net.variables)}
    operands: list = []
    for v in net.variables:
        operands += [np.asarray(net.cpt_array(v)), [axis[u] for u in net.parents(v) + (v,)]]
    if not operands:
        return np.ones(())
    return np.einsum(*operands, list(range(len(net.variables))))


class BruteForce:
    """Answers read off the full joint table of a network."""

    def __init__(self, net: bbn.Network) -> None:
        self.net = net
        self.variables = list(net.variables)
        self.joint = joint_array(net)

    def _index(self, evidence: dict[str, str]) -> tuple:
        return tuple(self.net.states(v).index(evidence[v]) if v in evidence else slice(None)
                     for v in self.variables)

    def restricted(self, evidence: dict[str, str]) -> np.ndarray:
        """The joint with the evidence's entries kept and every other entry set to 0."""
        mask = np.zeros_like(self.joint)
        mask[self._index(evidence)] = 1.0
        return self.joint * mask

    def p_evidence(self, evidence: dict[str, str]) -> float:
        return float(self.joint[self._index(evidence)].sum())

    def unnormalised(self, query: list[str], evidence: dict[str, str]) -> np.ndarray:
        """Σ_{others} P(query, others, e) with axes in ``query`` order."""
        table = self.restricted(evidence)
        others = tuple(i for i, v in enumerate(self.variables) if v not in query)
        table = table.sum(axis=others)
        kept = [v for v in self.variables if v in query]
        return np.transpose(table, [kept.index(v) for v in query])

    def posterior(self, query: list[str], evidence: dict[str, str]) -> np.ndarray | None:
        """P(query | e), or None when P(e) = 0."""
        table = self.unnormalised(query, evidence)
        total = table.sum()
        return None if total == 0 else table / total

    def probability(self, assignment: dict[str, str], evidence: dict[str, str]) -> float | None:
        """P(assignment | e), or None when P(e) = 0."""
        p_e = self.p_evidence(evidence)
        if p_e == 0:
            return None
        if any(v in evidence and evidence[v] != s for v, s in assignment.items()):
            return 0.0
        return self.p_evidence({**evidence, **assignment}) / p_e


# ------------------------------------------------------------------- strategy
@st.composite
def random_networks(draw, max_variables: int = 8, max_states: int = 4,
                    max_parents: int = 3) -> bbn.Network:
    """A random network of 1..``max_variables`` variables with 1..``max_states`` states.

    Declaration order is a random permutation of a topological order, so the two differ.
    Table rows are of three kinds: deterministic (one entry 1), sparse (some zeros) and
    positive, so that impossible evidence comes up often. Positive entries are at least
    0.05 before normalisation, so products of at most 8 of them never underflow: a
    brute-force P(e) is 0 exactly when the model makes e impossible.
    """
    n = draw(st.integers(1, max_variables))
    cards = draw(st.lists(st.integers(1, max_states), min_size=n, max_size=n))
    names = [f"V{i}" for i in draw(st.permutations(range(n)))]
    parents: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        candidates = names[:i]
        k = draw(st.integers(0, min(max_parents, len(candidates))))
        parents[name] = draw(st.permutations(candidates))[:k] if k else []
    zero_rate = draw(st.sampled_from([0.0, 0.2, 0.5]))
    deterministic_rate = draw(st.sampled_from([0.0, 0.3, 0.7]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))

    net = bbn.Network("random")
    order = draw(st.permutations(range(n)))
    card = dict(zip(names, cards))
    for i in order:
        net.add_variable(names[i], [f"s{j}" for j in range(card[names[i]])])
    for name in names:
        shape = tuple(card[p] for p in parents[name]) + (card[name],)
        table = rng.uniform(0.05, 1.0, size=shape)
        table[rng.random(shape) < zero_rate] = 0.0
        rows = table.reshape(-1, shape[-1])
        one_hot = rng.random(rows.shape[0]) < deterministic_rate
        rows[one_hot] = np.eye(shape[-1])[rng.integers(shape[-1], size=int(one_hot.sum()))]
        empty = rows.sum(axis=1) == 0
        rows[empty, rng.integers(shape[-1], size=int(empty.sum()))] = 1.0
        net.set_parents(name, parents[name])
        net.set_cpt(name, rows.reshape(shape), normalize=True)
    return net


@st.composite
def evidence_for(draw, net: bbn.Network, exclude: tuple[str, ...] = ()) -> dict[str, str]:
    """A random assignment to a random subset of the variables not in ``exclude``."""
    candidates = [v for v in net.variables if v not in exclude]
    chosen = draw(st.lists(st.sampled_from(candidates), unique=True)) if candidates else []
    return {v: draw(st.sampled_from(net.states(v))) for v in chosen}


@st.composite
def query_and_evidence(draw, net: bbn.Network, min_query: int = 1):
    """A non-empty list of distinct query variables and evidence on (some of) the others."""
    query = draw(st.lists(st.sampled_from(net.variables), min_size=min_query, unique=True,
                          max_size=min(3, len(net.variables))))
    return query, draw(evidence_for(net, tuple(query)))

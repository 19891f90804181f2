"""Small networks built through the Python API, shared by the test modules.

The course's examples (EXAMPLES.md §1–§3) and two networks for edge cases. Each function
returns a new network, so a test may change it. ``models/chair.bn`` holds the same
back-ache network as :func:`chair_network` (``test_examples_core`` checks that they are
equal); ``models/monty_hall.bn`` and ``models/shapes.bn`` are written differently from
:func:`monty_hall_network` and :func:`joint_table_network` (a Prince variable, lower-case
names).
"""

from __future__ import annotations

import numpy as np

import bbn

TF = ["T", "F"]


# ------------------------------------------------------------- the course's
def chair_network() -> bbn.Network:
    """The back-ache network of EXAMPLES.md §1: C → W, (C, S) → B → A."""
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


# ------------------------------------------------------------ edge cases
def copy_network() -> bbn.Network:
    """X → Y with Y = X exactly, Y → Z, and an unrelated root Q: X=a, Y=b is impossible."""
    net = bbn.Network("copy")
    net.add_variable("X", ["a", "b"], table=[0.4, 0.6])
    net.add_variable("Y", ["a", "b"], parents=["X"], table=[[1.0, 0.0], [0.0, 1.0]])
    net.add_variable("Z", TF, parents=["Y"], table=[[0.9, 0.1], [0.3, 0.7]])
    net.add_variable("Q", TF, table=[0.5, 0.5])
    return net


def wide_network() -> bbn.Network:
    """P1..P6 (4 states, priors 0.1..0.4) → W: W's table has 4^7 entries (128 KiB), and
    the clique W's table makes has as many."""
    net = bbn.Network("wide")
    parents = [f"P{i}" for i in range(1, 7)]
    states = ["s0", "s1", "s2", "s3"]
    for p in parents:
        net.add_variable(p, states, table=[0.1, 0.2, 0.3, 0.4])
    rng = np.random.default_rng(7)
    net.add_variable("W", states, parents=parents, table=rng.dirichlet(np.ones(4), size=(4,) * 6))
    return net


def loop_markov_network(seed: int) -> bbn.MarkovNetwork:
    """A loop of pairwise factors A–B–C–D–A (B with three states, the others two), the
    factors' numbers uniform in [0.1, 2) drawn with ``seed``: a Markov network with a
    cycle for likelihoods and soft findings."""
    rng = np.random.default_rng(seed)
    net = bbn.MarkovNetwork("loop")
    for v in "ABCD":
        net.add_variable(v, ["0", "1", "2"][:2 + (v == "B")])
    for scope in (["A", "B"], ["B", "C"], ["C", "D"], ["D", "A"]):
        net.add_factor(scope, rng.uniform(0.1, 2.0, size=tuple(net.cardinality(v)
                                                               for v in scope)))
    return net

"""Random networks with *generic* tables: every entry drawn in [0.05, 1] and normalised,
none 0 or 1, every variable with two or three states. On such a network no independence
holds by accident (what d-separation does not promise is false in the joint), and every
table entry can move both ways (sensitivity)."""

from __future__ import annotations

import numpy as np

import bbn


def generic_network(seed: int, min_variables: int = 3, max_variables: int = 7) -> bbn.Network:
    """A network of ``min_variables``..``max_variables`` variables of 2–3 states, each with
    up to 3 parents among the earlier ones (a random order), from the integer ``seed``."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(min_variables, max_variables + 1))
    net = bbn.Network(f"generic {seed}")
    names = [f"X{i}" for i in rng.permutation(n)]
    for i, name in enumerate(names):
        k = int(rng.integers(0, min(3, i) + 1))
        parents = [str(p) for p in rng.choice(names[:i], size=k, replace=False)] if k else []
        states = [f"s{j}" for j in range(int(rng.integers(2, 4)))]
        shape = tuple(net.cardinality(p) for p in parents) + (len(states),)
        table = rng.uniform(0.05, 1.0, size=shape)
        net.add_variable(name, states, parents=parents,
                         table=table / table.sum(axis=-1, keepdims=True))
    return net

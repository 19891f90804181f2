"""Random small Bayesian networks, and evidence for them, for property-based tests.

``random_network(source, ...)`` builds one network. ``source`` decides where the random
choices come from:

* a hypothesis ``DataObject`` (``data`` from ``@given(st.data())``) or the ``draw``
  function of an ``@st.composite`` strategy: the structure (sizes, names, parents,
  declaration order, how many zeros) is drawn through hypothesis, so a failure shrinks to
  a small network; table values come from a numpy generator whose seed is drawn too;
* a ``numpy.random.Generator`` or an ``int`` seed: plain random networks, for loops over
  many seeds or benchmarks.

``networks(...)`` is the same thing as a hypothesis strategy, and ``evidence_for(net)`` /
``query_and_evidence(net)`` draw questions to ask it::

    @given(data=st.data(), net=networks(names="awkward"))
    def test_something(data, net):
        query, evidence = data.draw(query_and_evidence(net))

Networks have 1..``max_variables`` variables of 1..``max_states`` states, at most
``max_parents`` parents each. The names ``V0``, ``V1``... are shuffled and the variables
declared in another random order, so neither gives away a topological order. Each network
draws a share of deterministic table rows (a single 1: none, 30 % or 70 %) and a share of
zero entries in the others (none, 20 % or 50 %), so impossible evidence comes up often; no
row is all zeros. Positive entries are at least 0.05 before normalisation, so products of
a dozen of them never underflow: P(e) from the joint table is 0 exactly when the model
makes e impossible. With ``names="awkward"`` variable and state names often need quoting
in a ``.bn`` file (spaces, quotes, backslashes, newlines, ``<5``, ``Asy/Patch``, numbers
such as ``0`` or ``1.5``). With ``complete=False`` some variables keep their parents but
get no table (a structure-only model).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import bbn

#: names a .bn file must quote, or that look like numbers or keywords
AWKWARD_NAMES = (
    "Lung Parench", "12+", "<5", "Asy/Patch", 'say "hi"', "back\\slash", "two\nlines",
    "tab\there", "cr\rhere", "#hash", "a,b", "x:y", "(p)", "a|b", "{x}", "P", "variable", "network",
    " lead", "trail ", "Größe", "0", "1.5", "-2", "+3e5", ".", "a=b", ";",
)
#: characters random awkward names are made of
_ALPHABET = "abXY09_.+- \"\\#,:;{}()|=<>/\n\té"


class _Choices:
    """Random choices from hypothesis (shrinkable) or from a numpy generator."""

    def __init__(self, source) -> None:
        if isinstance(source, (int, np.integer)) or source is None:
            source = np.random.default_rng(source)
        self.rng = source if isinstance(source, np.random.Generator) else None
        if self.rng is None:
            self.draw = source.draw if hasattr(source, "draw") else source

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]."""
        if self.rng is not None:
            return int(self.rng.integers(low, high + 1))
        return self.draw(st.integers(low, high))

    def choice(self, options):
        options = list(options)
        if self.rng is not None:
            return options[int(self.rng.integers(len(options)))]
        return self.draw(st.sampled_from(options))

    def permutation(self, items) -> list:
        items = list(items)
        if self.rng is not None:
            return [items[i] for i in self.rng.permutation(len(items))]
        return list(self.draw(st.permutations(items)))

    def generator(self) -> np.random.Generator:
        """A numpy generator for bulk numbers (table values)."""
        return self.rng if self.rng is not None else np.random.default_rng(
            self.integer(0, 2**32 - 1))


def _awkward_name(choices: _Choices, plain: str) -> str:
    kind = choices.integer(0, 3)
    if kind == 0:
        return plain
    if kind == 1:
        return choices.choice(AWKWARD_NAMES)
    return "".join(choices.choice(_ALPHABET) for _ in range(choices.integer(1, 5)))


def _distinct(names: list[str]) -> list[str]:
    """Make names unique (and non-empty) by appending a counter where they clash."""
    seen: set[str] = set()
    result = []
    for name in names:
        candidate, k = name, 1
        while candidate in seen:
            candidate, k = f"{name}~{k}", k + 1
        seen.add(candidate)
        result.append(candidate)
    return result


def _table(rng: np.random.Generator, shape: tuple[int, ...], zero_rate: float,
           deterministic_rate: float) -> np.ndarray:
    rows = rng.uniform(0.05, 1.0, size=(int(np.prod(shape[:-1])), shape[-1]))
    rows[rng.random(rows.shape) < zero_rate] = 0.0
    one_hot = rng.random(rows.shape[0]) < deterministic_rate
    rows[one_hot] = np.eye(shape[-1])[rng.integers(shape[-1], size=int(one_hot.sum()))]
    empty = rows.sum(axis=1) == 0
    rows[empty, rng.integers(shape[-1], size=int(empty.sum()))] = 1.0
    return (rows / rows.sum(axis=1, keepdims=True)).reshape(shape)


def random_network(source, max_variables: int = 8, max_states: int = 4, max_parents: int = 3,
                   names: str = "plain", complete: bool = True,
                   description_rate: float = 0.5) -> bbn.Network:
    """A random valid network; see the module docstring for ``source`` and the options.

    ``names`` is ``"plain"`` (``V0``, ``s0``...) or ``"awkward"``.
    """
    if names not in ("plain", "awkward"):
        raise ValueError(f"names must be 'plain' or 'awkward', not {names!r}")
    choices = _Choices(source)
    n = choices.integer(1, max_variables)
    cards = [choices.integer(1, max_states) for _ in range(n)]
    labels = [f"V{i}" for i in choices.permutation(range(n))]
    if names == "awkward":
        labels = _distinct([_awkward_name(choices, label) for label in labels])
    # labels[i] may only have parents among labels[:i]: a topological order
    parents = {}
    for i, label in enumerate(labels):
        k = choices.integer(0, min(max_parents, i))
        parents[label] = choices.permutation(labels[:i])[:k] if k else []
    zero_rate = choices.choice([0.0, 0.2, 0.5])
    deterministic_rate = choices.choice([0.0, 0.3, 0.7])
    net_name = _awkward_name(choices, "random") if names == "awkward" else "random"
    net = bbn.Network(net_name)
    rng = choices.generator()
    for i in choices.permutation(range(n)):
        states = [f"s{j}" for j in range(cards[i])]
        if names == "awkward":
            states = _distinct([_awkward_name(choices, s) for s in states])
        description = None
        if rng.random() < description_rate:
            description = f"about {labels[i]}"
            if names == "awkward":
                description = _awkward_name(choices, description)
        net.add_variable(labels[i], states, description=description)
    for label in labels:
        net.set_parents(label, parents[label])
    for label in labels:
        if complete or rng.random() < 0.5:
            shape = tuple(net.cardinality(p) for p in parents[label]) + (
                net.cardinality(label),)
            net.set_cpt(label, _table(rng, shape, zero_rate, deterministic_rate))
    return net


@st.composite
def networks(draw, **options) -> bbn.Network:
    """Hypothesis strategy: ``random_network(draw, **options)``."""
    return random_network(draw, **options)


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


@st.composite
def weighted_graphs(draw):
    """(adjacency, cardinalities, variables to eliminate): an interaction graph of up to
    14 variables of 1–5 states, for elimination orders."""
    n = draw(st.integers(1, 14))
    names = [f"v{i}" for i in range(n)]
    pairs = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)),
                          max_size=4 * n))
    adjacency = {v: set() for v in names}
    for a, b in pairs:
        if a != b:
            adjacency[a].add(b)
            adjacency[b].add(a)
    cards = {v: draw(st.integers(1, 5)) for v in names}
    chosen = draw(st.lists(st.sampled_from(names), unique=True))
    return adjacency, cards, chosen

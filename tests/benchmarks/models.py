"""The shared networks, one model handed to every library, and cached samples.

Every library must answer the same question on the same numbers, so the networks are
read once into a :class:`Model` (from bbn's BIF reader, or from pgmpy's while bbn's is
missing) and each library's object is built from it. Plain ``.bif`` copies of the
gzipped files and drawn samples are cached in a temporary directory, never in the repo.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import shutil
import tempfile
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
NETWORKS = SHARED / "networks"
CACHE = Path(os.environ.get("BBN_BENCH_CACHE", Path(tempfile.gettempdir()) / "bbn-bench-cache"))

#: The networks the issue lists for single queries, posteriors of every node and batches.
LISTED = ["alarm", "child", "insurance", "hailfinder", "hepar2", "win95pts", "andes",
          "pathfinder", "munin1", "pigs", "link"]


def all_networks() -> list[str]:
    """Names of every shared network, smallest file first."""
    files = sorted(NETWORKS.glob("*.bif.gz"), key=lambda p: p.stat().st_size)
    return [p.name[: -len(".bif.gz")] for p in files]


def plain_bif(name: str) -> Path:
    """The network's BIF file gunzipped into the cache (peers may not read ``.gz``)."""
    target = CACHE / "bif" / f"{name}.bif"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        with gzip.open(NETWORKS / f"{name}.bif.gz", "rb") as src, open(partial, "wb") as dst:
            shutil.copyfileobj(src, dst)
        partial.replace(target)
    return target


def stable_seed(*parts) -> int:
    """A seed that depends only on ``parts`` (Python's ``hash`` changes between runs)."""
    return zlib.crc32("/".join(map(str, parts)).encode())


@dataclass
class Model:
    """A discrete network in bbn's layout: ``tables[v]`` has shape (|P1|, ..., |Pk|, |V|)."""

    name: str
    variables: list[str]
    states: dict[str, tuple[str, ...]]
    parents: dict[str, tuple[str, ...]]
    tables: dict[str, np.ndarray]
    source: str  # which reader produced it


def _from_bbn(net) -> Model:
    return Model(net.name, list(net.variables), {v: tuple(net.states(v)) for v in net.variables},
                 {v: tuple(net.parents(v)) for v in net.variables},
                 {v: np.asarray(net.cpt_array(v), dtype=float) for v in net.variables}, "bbn")


def _from_pgmpy(name: str) -> Model:
    from pgmpy.readwrite import BIFReader

    reader = BIFReader(str(plain_bif(name)))
    model = reader.get_model()
    variables = list(reader.get_variables())
    states, parents, tables = {}, {}, {}
    for v in variables:
        cpd = model.get_cpds(v)
        parents[v] = tuple(cpd.variables[1:])
        states[v] = tuple(str(s) for s in cpd.state_names[v])
        tables[v] = np.moveaxis(np.asarray(cpd.values, dtype=float), 0, -1)
    return Model(name, variables, states, parents, tables, "pgmpy")


@cache
def model(name: str) -> Model:
    """The network read once as a library-neutral Model: by bbn (so bbn's own Network and
    the peers' hold the same numbers), else by pgmpy (slow, so cached on disk)."""
    try:
        return _from_bbn(bbn_network(name))
    except Exception:  # bbn's reader is missing or fails on this file: the peers still run
        return _cached(f"model-{name}-pgmpy", lambda: _from_pgmpy(name))


def _cached(key: str, make):
    path = CACHE / "pickles" / f"{key}.pkl"
    if path.exists():
        with open(path, "rb") as handle:
            return pickle.load(handle)
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    with open(partial, "wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
    partial.replace(path)
    return value


# ------------------------------------------------------------------ builders
@cache
def bbn_network(name: str):
    """bbn's Network: read by bbn.load when it can, else built from pgmpy's reading."""
    import bbn

    try:
        return bbn.load(plain_bif(name))
    except Exception:
        m = _cached(f"model-{name}-pgmpy", lambda: _from_pgmpy(name))
        net = bbn.Network(name)
        for v in m.variables:
            net.add_variable(v, m.states[v])
        for v in m.variables:
            if m.parents[v]:
                net.set_parents(v, m.parents[v])
            net.set_cpt(v, m.tables[v])
        return net


@cache
def pyagrum_network(name: str):
    """pyAgrum's BayesNet built from the Model (its own reader rejects some files)."""
    import pyagrum as gum

    m = model(name)
    bn = gum.BayesNet(name)
    for v in m.variables:
        bn.add(gum.LabelizedVariable(v, v, list(m.states[v])))
    for v in m.variables:
        for p in m.parents[v]:
            bn.addArc(p, v)
    for v in m.variables:
        cpt = bn.cpt(v)
        family = list(m.parents[v]) + [v]
        # toarray()/fillWith() use the potential's variables in reverse order
        axes = [family.index(u) for u in reversed(cpt.names)]
        cpt.fillWith(m.tables[v].transpose(axes).ravel().tolist())
    return bn


@cache
def pgmpy_network(name: str):
    """pgmpy's DiscreteBayesianNetwork built from the Model."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    m = model(name)
    net = DiscreteBayesianNetwork()
    net.add_nodes_from(m.variables)
    net.add_edges_from((p, v) for v in m.variables for p in m.parents[v])
    cpds = []
    for v in m.variables:
        parents = list(m.parents[v])
        table = np.moveaxis(m.tables[v], -1, 0).reshape(len(m.states[v]), -1)
        cpds.append(TabularCPD(
            v, len(m.states[v]), table, evidence=parents or None,
            evidence_card=[len(m.states[p]) for p in parents] or None,
            state_names={u: list(m.states[u]) for u in parents + [v]}))
    net.add_cpds(*cpds)
    return net


# ------------------------------------------------------------------- samples
def sampler_name() -> str:
    """Who draws the samples: bbn.sample when it exists, else pyAgrum's generator."""
    try:
        import bbn

        bbn.sample  # noqa: B018 - probing a lazily imported name
        return "bbn"
    except Exception:
        return "pyAgrum"


def samples(name: str, n: int, seed: int = 2024) -> pd.DataFrame:
    """``n`` rows drawn from the network as ``pandas.read_csv(..., dtype=object)`` reads
    them back from a CSV file (object columns of state names), cached on disk."""
    who = sampler_name()
    return _cached(f"sample-{name}-{n}-{seed}-{who}-csv", lambda: _draw(name, n, seed, who))


def _draw(name: str, n: int, seed: int, who: str) -> pd.DataFrame:
    if who == "bbn":
        import bbn

        frame = bbn.sample(bbn_network(name), n, seed)
    else:
        import pyagrum as gum

        gum.initRandom(seed)
        generator = gum.BNDatabaseGenerator(pyagrum_network(name))
        generator.drawSamples(n)
        frame = generator.to_pandas()
    # through a CSV text, so the columns are exactly what a reader gives (its own string
    # objects, a few per text): no library gets pre-encoded or specially shared data
    text = frame[list(model(name).variables)].to_csv(index=False)
    return pd.read_csv(io.StringIO(text), dtype=object, keep_default_na=False)


def evidence_cases(name: str, k: int, count: int) -> list[tuple[str, dict[str, str]]]:
    """``count`` (query variable, evidence of ``k`` variables) pairs, fixed by the name.

    Each evidence set is one sampled case restricted to ``k`` random variables, so it is
    possible; the query variable is a random other variable.
    """
    rows = samples(name, 1000)
    rng = np.random.default_rng(stable_seed(name, k, count))
    variables = model(name).variables
    if k + 1 > len(variables):
        raise ValueError(f"{name} has {len(variables)} variables: no room for a query "
                         f"variable and {k} evidence variables")
    cases = []
    for _ in range(count):
        row = rows.iloc[int(rng.integers(len(rows)))]
        chosen = [variables[i] for i in rng.choice(len(variables), k + 1, replace=False)]
        target, observed = chosen[0], chosen[1:]
        cases.append((target, {v: row[v] for v in observed}))
    return cases

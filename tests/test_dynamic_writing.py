"""Dynamic networks written (issue 31): ``bbn.save``/``bbn.dumps`` of a DynamicNetwork in
``.bn``'s dynamic form (``P(Rain | Rain[-1])``) and, in the other formats, as pyAgrum's
two slices (``Rain0``, ``Raint``); each reads back into an equal 2-TBN, tables equal to
the last bit; pyAgrum's dynamicBN unrolls the BIF file to the answers of bbn's unrolled
network; ``bbn convert``."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main


def random_dbn(seed: int, structure_only: bool = False) -> bbn.DynamicNetwork:
    """Three to five variables of 2–3 states; each may have parents earlier in the slice
    and in the slice before, its own slice-0 table, a description."""
    rng = np.random.default_rng(seed)
    dbn = bbn.DynamicNetwork(f"random {seed}")
    names = [f"V{i}" for i in range(rng.integers(3, 6))]
    cards = {v: int(rng.integers(2, 4)) for v in names}
    for i, v in enumerate(names):
        same = [p for p in names[:i] if rng.random() < 0.4]
        lagged = [f"{p}[-1]" for p in names if rng.random() < 0.3]
        parents = same + lagged
        shape = [cards[p.removesuffix("[-1]")] for p in parents] + [cards[v]]
        first = [p for p in names[:i] if rng.random() < 0.4]
        own_start = bool(lagged) or rng.random() < 0.3
        table = initial = None
        if not structure_only:
            table = rng.dirichlet(np.ones(cards[v]), size=shape[:-1] or None)
            if own_start:
                initial = rng.dirichlet(np.ones(cards[v]),
                                        size=[cards[p] for p in first] or None)
        dbn.add_variable(v, [f"s{k}" for k in range(cards[v])], parents=parents,
                         table=table, initial=initial,
                         initial_parents=first if own_start else None,
                         description="a variable" if rng.random() < 0.3 else None)
    return dbn


def assert_equal_dbns(a: bbn.DynamicNetwork, b: bbn.DynamicNetwork) -> None:
    assert a.variables == b.variables
    assert [a.parents(v) for v in a.variables] == [b.parents(v) for v in b.variables]
    x, y = a.two_slice(), b.two_slice()
    assert x.variables == y.variables
    for v in x.variables:
        assert x.parents(v) == y.parents(v) and x.states(v) == y.states(v)
        assert x.description(v) == y.description(v)
        assert x.has_cpt(v) == y.has_cpt(v)
        if x.has_cpt(v):
            assert np.abs(x.cpt_array(v) - y.cpt_array(v)).max() <= 1e-12


@pytest.mark.parametrize("seed", range(12))
def test_the_dynamic_form_reads_back_equal(seed, tmp_path):
    dbn = random_dbn(seed)
    text = bbn.dumps(dbn)
    assert "[-1]" in text or all(not any("[-1]" in p for p in dbn.parents(v))
                                 for v in dbn.variables)
    again = bbn.loads(text, source="again.bn")
    assert isinstance(again, bbn.DynamicNetwork)
    assert_equal_dbns(dbn, again)
    assert bbn.dumps(again) == text          # and writes the same text again
    path = tmp_path / "again.bn.gz"
    bbn.save(dbn, path)
    assert_equal_dbns(dbn, bbn.load(path))


@pytest.mark.parametrize("fmt", ["bif", "xmlbif", "net"])
def test_other_formats_hold_pyagrum_two_slices(fmt, tmp_path):
    dbn = random_dbn(3)
    path = tmp_path / f"two.{fmt}"
    bbn.save(dbn, path)
    plain = bbn.load(path)
    assert set(plain.variables) == {f"{v}{s}" for v in dbn.variables for s in "0t"}
    assert_equal_dbns(dbn, bbn.load_dynamic(path))


def test_structure_only_reads_back():
    dbn = random_dbn(5, structure_only=True)
    again = bbn.loads(bbn.dumps(dbn))
    assert_equal_dbns(dbn, again)
    assert not again.two_slice().has_cpt("V0[1]")


def test_the_umbrella_world_as_written():
    dbn = bbn.load_dynamic("models/umbrella.bn")
    text = bbn.dumps(dbn)
    assert "P(Rain[0]) = 0.5, 0.5" in text and "P(Rain | Rain[-1]) {" in text
    assert "P(Umbrella | Rain) {" in text and "Umbrella[0]" not in text  # one table
    filtered = bbn.loads(text).filter(pd.DataFrame({"Umbrella": ["T", "T"]}))
    assert filtered[("Rain", "T")].tolist() == pytest.approx([0.45 / 0.55, 0.883357], abs=1e-6)


def test_convert(tmp_path, capsys):
    source = tmp_path / "two.bn"
    bbn.save(bbn.load_dynamic("models/umbrella.bn"), source)
    for target in ("again.bn", "again.bif"):
        assert main(["convert", str(source), str(tmp_path / target)]) == 0
        assert_equal_dbns(bbn.load_dynamic(source), bbn.load_dynamic(tmp_path / target))
    assert type(bbn.load(tmp_path / "again.bn")) is bbn.DynamicNetwork
    assert bbn.load(tmp_path / "again.bif").variables == ("Rain0", "Umbrella0", "Raint",
                                                           "Umbrellat")


def test_pyagrum_unrolls_the_bif_file(tmp_path):
    if os.environ.get("CI"):
        import pyagrum as gum
    else:
        gum = pytest.importorskip("pyagrum", reason="pyAgrum (the test oracle) is absent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import pyagrum.lib.dynamicBN as gdyn
    dbn = random_dbn(7)
    bbn.save(dbn, tmp_path / "two.bif")
    unrolled = gdyn.unroll2TBN(gum.loadBN(str(tmp_path / "two.bif")), 4)
    engine = gum.LazyPropagation(unrolled)
    last = dbn.variables[-1]
    engine.setEvidence({f"{last}0": "s1", f"{last}2": "s0"})
    engine.makeInference()
    ours = dbn.unroll(4)
    for v in dbn.variables[:-1]:
        for t in range(4):
            answer = ours.posterior(f"{v}[{t}]", {f"{last}[0]": "s1", f"{last}[2]": "s0"})
            assert np.allclose(answer.values, engine.posterior(f"{v}{t}").toarray(),
                               atol=1e-12)

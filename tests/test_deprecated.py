"""The old Network methods (explain, independence, information, prediction, the explorer)
stay one release as aliases of the ``bbn.*`` functions: each warns with a FutureWarning
that names the new call, and answers what the function answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import bbn
from bbn.apps.explorer.inline import _INLINE

ROOT = Path(__file__).resolve().parents[1]
CASES = pd.DataFrame({"A": ["T", "F", None], "S": ["F", "F", "T"]})

# (method, its arguments after the network, how to compare two answers)
ALIASES = [
    ("explain", ("P(C=T | A=T)",), lambda d: d.to_text()),
    ("is_independent", ("C", "S", "A"), lambda x: x),
    ("active_trail", ("C", "S", "A"), lambda t: t.path_text()),
    ("markov_blanket", ("B",), lambda x: x),
    ("value_of_information", ("C", None, {"A": "T"}), lambda x: x),
    ("sensitivity", ("P(C | A=T)", "C", None, "T"), lambda s: s.decision_range),
    ("predict_proba", (CASES, "C"), lambda frame: frame.to_numpy().tolist()),
    ("predict", (CASES, "C"), lambda series: series.tolist()),
]


@pytest.mark.parametrize("name, arguments, shown", ALIASES, ids=[a[0] for a in ALIASES])
def test_each_alias_warns_and_answers_as_the_function(chair, name, arguments, shown):
    with pytest.warns(FutureWarning, match=rf"Network\.{name}\(\.\.\.\) is deprecated; use "
                                           rf"bbn\.{name}\(net, \.\.\.\)"):
        old = getattr(chair, name)(*arguments)
    assert shown(old) == shown(getattr(bbn, name)(chair, *arguments))


def test_the_explore_alias_warns_and_shows_the_same_server(chair):
    try:
        with pytest.warns(FutureWarning, match=r"use bbn\.explore\(net, \.\.\.\)"):
            old = chair.explore(height=450)
        assert (old.url, old.height) == (bbn.explore(chair).url, 450)
    finally:
        _INLINE.pop(id(chair))[1].close()


def test_import_bbn_loads_none_of_the_functions():
    code = ("import sys, bbn; print(sorted(m for m in ('bbn.tasks.explain.derivation', "
            "'bbn.questions.d_separation', 'bbn.questions.information', "
            "'bbn.tasks.classification.prediction', 'bbn.apps.explorer.inline', "
            "'bbn.apps.rendering') if m in sys.modules)); "
            "print(callable(bbn.Network.explain), callable(bbn.Network._repr_svg_))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.stdout.split("\n")[:2] == ["[]", "True True"], done.stderr

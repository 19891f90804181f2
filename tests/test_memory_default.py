"""The default memory limit follows the machine, and the estimate follows the peak.

Each check runs a child Python process, whose environment decides the limit (the test
session pins ``BBN_MEMORY_LIMIT=1GiB`` for the other tests): without the variable the
limit is half the memory available (``bbn.core.memory.DEFAULT_FRACTION``); with it, the
size written. The estimate a junction tree is checked with — all posteriors without
evidence on bnlearn networks — is at least the peak RSS it adds and at most 1.5 times it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

MB = 1 << 20

_LIMIT = textwrap.dedent("""
    import json
    from bbn.core.memory import available_memory, get_memory_limit
    print(json.dumps({"limit": get_memory_limit(), "available": available_memory()}))
""")

_PEAK = textwrap.dedent("""
    import gc, json, os, sys
    import bbn
    net = bbn.load(sys.argv[1])
    gc.collect()
    start = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    net.posteriors({})
    # VmHWM: this program's own high-water mark (ru_maxrss would count the parent's
    # resident size at the fork before exec)
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
    print(json.dumps({"used": peak - start,
                      "estimate": 8 * net.engine.junction_tree([]).cost.entries()}))
""")


_PEAK_GIVEN = textwrap.dedent("""
    import gc, json, os, sys
    import numpy as np
    import bbn
    from bbn.questions.resolution import resolve_evidence
    net = bbn.load(sys.argv[1])
    row = bbn.sample(net, 1, seed=1).iloc[0]  # possible evidence: a forward sample's
    names = list(net.variables)
    chosen = np.random.default_rng(0).choice(len(names), size=int(sys.argv[2]), replace=False)
    evidence = {names[i]: str(row[names[i]]) for i in chosen}
    gc.collect()
    start = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    net.posteriors(evidence)
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
    observed = list(resolve_evidence(net.engine.network, evidence, numbers=False).states)
    print(json.dumps({"used": peak - start,
                      "estimate": 8 * net.engine.junction_tree(observed).cost.entries()}))
""")


def child(code: str, *args: str, limit: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "BBN_MEMORY_LIMIT"}
    if limit is not None:
        env["BBN_MEMORY_LIMIT"] = limit
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_default_limit_is_half_the_memory_available():
    found = child(_LIMIT)
    if found["available"] is None:
        assert found["limit"] == 1 << 30
    else:
        assert found["limit"] == pytest.approx(found["available"] / 2, rel=0.1)


@pytest.mark.parametrize("written, limit", [("3GiB", 3 << 30), ("500MB", 500_000_000),
                                            ("2147483648", 1 << 31)])
def test_the_environment_sets_the_limit(written, limit):
    assert child(_LIMIT, limit=written)["limit"] == limit


def test_a_bad_limit_in_the_environment_is_named(chair_file):
    env = {**os.environ, "BBN_MEMORY_LIMIT": "lots"}
    done = subprocess.run([sys.executable, "-m", "bbn.apps.cli.main", "query", str(chair_file),
                           "P(C)"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert "BBN_MEMORY_LIMIT='lots' is not a size" in done.stderr


def test_the_refusal_names_the_limit_from_the_environment():
    code = ("import bbn\ntry:\n    from bbn.core.memory import check_allocation\n"
            "    check_allocation(2 ** 40, 'the table')\n"
            "except bbn.MemoryLimitError as e:\n    import json; print(json.dumps(str(e)))")
    message = child(code, limit="3GiB")
    assert "above the memory limit of 3.0 GiB" in message


@pytest.mark.parametrize("name", ["mildew", "water", "barley", "link", "diabetes"])
def test_the_estimate_is_within_one_and_a_half_times_the_peak(shared, name):
    """Measured: mildew 106 MiB estimated / 82 used (1.29×), water 1.27×, barley 1.02×,
    link 1.02×, diabetes 1.13× (they were 1.70, 1.69, 1.31, 1.09, 1.21 before a tree
    without evidence was counted as solved in place)."""
    path = str(shared / "networks" / f"{name}.bif.gz")
    found = child(_PEAK, path, limit="4GiB")
    if found["used"] > found["estimate"] + 16 * MB:
        # the system may take back pages of the libraries before the start is read
        # (memory pressure), and they count again in the peak: the smaller of two runs
        found["used"] = min(found["used"], child(_PEAK, path, limit="4GiB")["used"])
    assert found["used"] <= found["estimate"] + 16 * MB  # the modules loaded on first need
    assert found["estimate"] <= 1.5 * found["used"]


@pytest.mark.parametrize("name, seen", [("barley", 5), ("diabetes", 20), ("link", 20)])
def test_the_estimate_with_evidence_is_within_one_and_a_half_times_the_peak(shared, name,
                                                                            seen):
    """With evidence the observed variables leave the cliques, and the tree's peak is its
    potentials plus one call's dirty ones and a belief. Measured (MB estimated / used):
    barley with 5 seen 92 / 90 (1.02×), diabetes with 20 161 / 154 (1.05×), link with 20
    303 / 300 (1.01×); diabetes with 5 0.97×, with 60 0.89×, link with 5 0.95×, with 60
    0.95× (a few MB of arrays beside the tree's, within the 16 MB the modules take)."""
    path = str(shared / "networks" / f"{name}.bif.gz")
    found = child(_PEAK_GIVEN, path, str(seen), limit="4GiB")
    assert found["used"] <= found["estimate"] + 16 * MB
    assert found["estimate"] <= 1.5 * found["used"]

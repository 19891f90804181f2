"""Workload 14: alarm's tables learned from a large sampled CSV — in chunks, on a Dask
LocalCluster, and by the peers from as many rows as each can load.

The rows are drawn by ``bbn sample alarm -n N --seed 0 -o alarm-N.csv.gz`` (cached).
Every cell runs in its own process, so its peak resident memory (``VmHWM``) is its
own; the cells are:

* **bbn chunks** — ``bbn.learn(net, "alarm-N.csv.gz")``: the file read a chunk at a time
  (default chunk size: a quarter of the 1 GiB memory limit);
* **bbn Dask** — ``bbn.learn(net, dask_frame)`` on a ``LocalCluster(n_workers=2)``, the
  frame ``dask.dataframe.read_csv`` of the same rows uncompressed (a gzip file cannot be
  split into partitions); peak RSS is the client's (the workers hold one partition each);
* **pgmpy** — ``pandas.read_csv`` of all rows, then ``DiscreteBayesianNetwork.fit`` (its
  default, maximum likelihood; it has no out-of-core path);
* **pyAgrum** — ``BNLearner(csv, template).learnParameters(dag)`` on the uncompressed file.

Each process is capped at ``MEMORY_CAP`` of address space; a peer that fails is tried
again on a tenth of the rows, down to ``SMALLEST``, so the table shows the largest sample
each could load and why it failed on the larger one. Time is one run (these are
minutes-long cells), reported as rows/s in the notes.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import time

from .harness import NA, REPO, Row, Section, Settings, Timing
from .models import CACHE, NETWORKS

TITLE = "learning alarm's tables from a large sampled CSV: chunks, Dask, peers"
ROWS = [2_000_000]
QUICK_ROWS = [100_000]
#: The address space of each cell's process (the machine is shared: 2 GiB at most).
MEMORY_CAP = 2 << 30
#: A peer failing on N rows is tried on N/10, but not below this.
SMALLEST = 10_000

CELL = r"""
import json, resource, sys, time
kind, network, path, plain = sys.argv[1:5]
cap = int(sys.argv[5])
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import bbn
net = bbn.load(network)
start = time.perf_counter()
if kind == "bbn chunks":
    learned = bbn.learn(net, path)
elif kind == "bbn Dask":
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        start = time.perf_counter()  # the cluster's start-up is not the work
        frame = dd.read_csv(plain, blocksize="32MB", dtype=str, keep_default_na=False)
        learned = bbn.learn(net, frame)
elif kind == "pgmpy":
    import pandas as pd
    from pgmpy.models import DiscreteBayesianNetwork
    data = pd.read_csv(path, dtype=str, keep_default_na=False)
    model = DiscreteBayesianNetwork([(p, v) for v in net.variables for p in net.parents(v)])
    model.fit(data)  # its default estimator: maximum likelihood
elif kind == "pyAgrum":
    import pyagrum as gum
    template = gum.BayesNet()
    for v in net.variables:
        template.add(gum.LabelizedVariable(v, v, list(net.states(v))))
    for v in net.variables:
        for p in net.parents(v):
            template.addArc(p, v)
    learner = gum.BNLearner(plain, template)
    learned = learner.learnParameters(template.dag())
seconds = time.perf_counter() - start
# VmHWM: this program's peak (ru_maxrss would keep the forking parent's from before exec)
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


def sample_file(rows: int) -> tuple:
    """alarm-N.csv.gz drawn by ``bbn sample`` (cached), and an uncompressed copy."""
    CACHE.mkdir(parents=True, exist_ok=True)
    zipped, plain = CACHE / f"alarm-{rows}.csv.gz", CACHE / f"alarm-{rows}.csv"
    if not zipped.exists():
        subprocess.run([sys.executable, "-m", "bbn.apps.cli.main", "sample",
                        str(NETWORKS / "alarm.bif.gz"), "-n", str(rows), "--seed", "0",
                        "-o", str(zipped)], check=True, cwd=REPO)
    if not plain.exists():
        with gzip.open(zipped, "rb") as source, open(plain, "wb") as target:
            shutil.copyfileobj(source, target)
    return zipped, plain


def cell(kind: str, rows: int, settings: Settings) -> dict:
    """One run in its own process: {"seconds", "peak"} or {"error"}."""
    zipped, plain = sample_file(rows)
    cap = 0 if kind == "bbn Dask" else MEMORY_CAP  # workers are processes of their own
    try:
        done = subprocess.run([sys.executable, "-c", CELL, kind,
                               str(NETWORKS / "alarm.bif.gz"), str(zipped), str(plain),
                               str(cap)], capture_output=True, text=True, cwd=REPO,
                              timeout=settings.deadline * 10)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {settings.deadline * 10:.0f} s"}
    if done.returncode:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return {"error": last[:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(settings: Settings, networks: list[str] | None = None,
        rows: list[int] | None = None) -> Section:
    libraries = ["bbn chunks", "bbn Dask", "pgmpy", "pyAgrum"]
    section = Section("14", TITLE, libraries, [])
    section.comment = ("one run per cell, in its own process capped at 2 GiB of address "
                       "space (Dask: the client's RSS, uncapped); notes: rows/s and peak RSS")
    for size in rows or (QUICK_ROWS if settings.quick else ROWS):
        started = time.perf_counter()
        sample_file(size)
        row = Row("scale", f"alarm, {size:,} rows")
        row.notes.append(f"sample + unzip {time.perf_counter() - started:.0f} s")
        for kind in libraries:
            n = size
            while True:
                result = cell(kind, n, settings)
                if "error" not in result or kind.startswith("bbn") or n // 10 < SMALLEST:
                    break
                row.notes.append(f"{kind} fails on {n:,} rows: {result['error']}")
                n //= 10
            if "error" in result:
                row.cells[kind] = NA(result["error"])
                continue
            row.cells[kind] = Timing(result["seconds"], 1, result["seconds"],
                                     result["seconds"])
            row.notes.append(f"{kind}: {n:,} rows, {n / result['seconds']:,.0f} rows/s, peak "
                             f"RSS {result['peak'] / 2 ** 20:,.0f} MiB")
            row.extra[kind] = {"rows": n, **result}
        section.add(row)
    return section

"""Workload 8: learn the structure (the arcs) of a network from sampled rows.

Samples of alarm, insurance, child and hailfinder — 1,000, 10,000 and 100,000 rows drawn
by ``bbn.sample`` (seeds 2024, 2025 and 2026: ``SEEDS``, or ``--seeds``), as
``pandas.read_csv(..., dtype=object)`` reads them back — are handed to every library as
the same DataFrame of string columns, with the states of the true network where a
library takes them; reading the frame is part of each library's time. One table row per
(network, rows, kind of method), its cells taking turns on the sample of the first seed
(the times); every cell then learns once more from the sample of each other seed, and
the SHDs shown are the medians over all the samples, with the range of the class SHD in
the notes (one sample's SHD says little: bbn's hybrid on insurance, 10,000 rows, gave
34, 14 and 14 on the three). Only the first sample is timed, so the run does not triple;
the peers' answers on the other samples are computed once per library version and kept
(``peer_answer``), as their answers are fixed by the rows. One table row per cell kind:

* **hill climbing, BIC**: bbn ``learn_structure(frame, method="hc", score="bic")``;
  pyAgrum ``BNLearner(frame, template)``, ``useGreedyHillClimbing()``, ``useScoreBIC()``
  (no prior: its default), ``learnDAG()``, one thread as bbn; pgmpy
  ``causal_discovery.HillClimbSearch(scoring_method="bic-d", return_type="dag")
  .fit(frame)`` (tabu list of 100, its default).
* **PC**: bbn ``method="pc"`` (G², α = 0.05); pgmpy ``causal_discovery.PC(variant=
  "stable", ci_test="g_sq", significance_level=0.05).fit(frame)`` (conditioning sets of
  at most 5 variables, its default) and its PDAG's ``to_dag()``.
* **tree**: bbn ``method="tree"``; pgmpy ``TreeSearch(frame, state_names=...)
  .estimate("chow-liu")``.
* **default**: bbn's default ``method="hybrid"`` (BIC); pyAgrum ``useMIIC()`` (its own
  default, MDL correction), ``learnDAG()``, one thread. The notes give the best
  equivalence-class SHD of every peer cell of that network and size (the issue's target
  for bbn's default).

pgmpy 1.1's ``causal_discovery`` classes (scikit-learn style) replace its deprecated
``estimators.HillClimbSearch`` and ``estimators.PC``; they take no state names (the
states are those in the data); on alarm 1,000 rows its new PC ran several times faster
than the deprecated one.

Each result becomes a list of arcs (the DAG a library returns, or the consistent
extension of its PDAG) and the edges it leaves undirected, then a structure-only bbn
``LearnedNetwork`` (the class a PDAG stands for is what is judged);
``bbn.compare(learned, true network)`` gives the structural Hamming
distance on the DAG and on the equivalence class (CPDAG), shown after each time as
``(DAG/CPDAG)``. The time of the slowest cells (pgmpy on 100,000 rows) is one run; a run
over the harness's stop is ``n/a: stopped``, and the same method is then not started on
a larger sample of that network. Peak memory (the peak resident size, ``VmHWM``, of a
child process that reads the cached sample, resets its peak, and learns once) is
measured for bbn and pyAgrum on the largest sample of the run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script (the memory child): make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "tests.benchmarks"

from .harness import (  # noqa: E402
    NA,
    REPO,
    Deadline,
    Row,
    Section,
    Settings,
    Timing,
    attempt,
    deadline,
    describe,
    measure_side_by_side,
    seconds,
)
from .models import CACHE, bbn_network, model, pyagrum_network, samples  # noqa: E402

TITLE = "learn the structure (arcs) of a network from sampled rows"
NETWORKS = ["alarm", "insurance", "child", "hailfinder"]
ROWS = [1_000, 10_000, 100_000]
QUICK_ROWS = [1_000]
#: The samples of every cell, by ``bbn.sample``'s seed: the first is timed, every one is
#: judged (SHD), and a cell's SHD is the median over them.
SEEDS = [2024, 2025, 2026]
#: Where the peers' answers on a sample are kept, by library version (see peer_answer).
ANSWERS = CACHE / "structure-answers"
ALPHA = 0.05  # PC's significance level, the same for bbn and pgmpy


@dataclass
class Learned:
    """A library's answer as names: the arcs of a DAG and the edges it leaves undirected
    (each also among the arcs, in the direction the library's extension chose)."""

    arcs: list[tuple[str, str]]
    undirected: list[tuple[str, str]] = field(default_factory=list)


def true_states(name: str) -> dict[str, list[str]]:
    m = model(name)
    return {v: list(m.states[v]) for v in m.variables}


# ------------------------------------------------------------------------ bbn
def bbn_learner(method: str) -> Callable[[str, object], Learned]:
    def learn(name: str, frame) -> Learned:
        import bbn

        options = {"score": "bic"} if method in ("hc", "hybrid") else {}
        learned = bbn.learn_structure(frame, method=method, states=true_states(name),
                                      **options)
        return Learned(list(learned.arcs()), [tuple(e) for e in learned.undirected_edges_])

    return learn


# -------------------------------------------------------------------- pyAgrum
def pyagrum_learner(algorithm: str) -> Callable[[str, object], Learned]:
    def learn(name: str, frame) -> Learned:
        import pyagrum as gum

        # one thread, as bbn: its default two, on two cores other processes also use,
        # took 0.30-8 s from run to run (greedy search, alarm 10,000 rows; 0.47-0.59 s
        # with one). The learner's own setting is not enough: MIIC used 17 s of CPU
        # with it and 3.4 s with the global one.
        gum.setNumberOfThreads(1)
        learner = gum.BNLearner(frame, pyagrum_network(name))  # the true states
        learner.setNumberOfThreads(1)
        if algorithm == "miic":
            learner.useMIIC()
        else:
            learner.useGreedyHillClimbing()
            learner.useScoreBIC()
        dag = learner.learnDAG()
        return Learned([(learner.nameFromId(a), learner.nameFromId(b)) for a, b in dag.arcs()])

    return learn


# ---------------------------------------------------------------------- pgmpy
def pgmpy_hill_climbing(name: str, frame) -> Learned:
    from pgmpy.causal_discovery import HillClimbSearch

    search = HillClimbSearch(scoring_method="bic-d", return_type="dag", show_progress=False)
    return Learned(list(search.fit(frame).causal_graph_.edges()))


def pgmpy_pc(name: str, frame) -> Learned:
    from pgmpy.causal_discovery import PC

    search = PC(variant="stable", ci_test="g_sq", significance_level=ALPHA,
                show_progress=False)
    pdag = search.fit(frame).causal_graph_
    # pgmpy's PDAG may hold an undirected edge once or in both directions
    undirected = sorted({tuple(sorted(edge)) for edge in pdag.undirected_edges})
    return Learned(list(pdag.to_dag().edges()), undirected)


def pgmpy_tree(name: str, frame) -> Learned:
    from pgmpy.estimators import TreeSearch

    dag = TreeSearch(frame, state_names=true_states(name)).estimate(
        estimator_type="chow-liu", show_progress=False)
    return Learned(list(dag.edges()))


@dataclass(frozen=True)
class Kind:
    """One row of a (network, rows): the cells, by library, of one kind of method."""

    label: str
    cells: dict[str, tuple[str, Callable[[str, object], Learned]]]  # library: (method, learn)


KINDS = [
    Kind("hill climbing BIC", {"bbn": ("hc", bbn_learner("hc")),
                               "pyAgrum": ("greedy", pyagrum_learner("greedy")),
                               "pgmpy": ("hc", pgmpy_hill_climbing)}),
    Kind("PC", {"bbn": ("pc", bbn_learner("pc")), "pgmpy": ("pc", pgmpy_pc)}),
    Kind("tree", {"bbn": ("tree", bbn_learner("tree")), "pgmpy": ("tree", pgmpy_tree)}),
    Kind("default", {"bbn": ("hybrid", bbn_learner("hybrid")),
                     "pyAgrum": ("miic", pyagrum_learner("miic"))}),
]


def learner(library: str, method: str) -> Callable[[str, object], Learned]:
    for kind in KINDS:
        if library in kind.cells and kind.cells[library][0] == method:
            return kind.cells[library][1]
    raise KeyError(f"no {library} method {method!r}")


# ------------------------------------------------------------ other samples
def library_version(library: str) -> str:
    """The installed version of a peer (the key of its cached answers)."""
    module = {"pyAgrum": "pyagrum", "pgmpy": "pgmpy"}[library]
    return __import__(module).__version__


#: An untimed run on another sample stops after this many times the harness's stop: the
#: timed sample already decided which cells run, and a loaded machine (load 7: pgmpy's hill
#: climbing on hailfinder, 1,000 rows, 18 s quiet, over 180 s) must not lose an answer.
OTHER_SEED_STOP = 5


def answer_once(settings: Settings, learn: Callable[[str, object], Learned], name: str,
                frame) -> Learned | NA:
    """One untimed run on another sample: the answer, or why there is none."""
    try:
        with deadline(OTHER_SEED_STOP * settings.deadline):
            return learn(name, frame)
    except Deadline as error:
        return NA(f"stopped: one run took {error}")
    except Exception as error:  # a library's failure is a result, not a crash of the run
        return NA(describe(error))


def answer_path(library: str, method: str, name: str, n: int, seed: int) -> Path:
    return ANSWERS / f"{library}-{library_version(library)}-{method}-{name}-{n}-{seed}.json"


def store_answer(library: str, method: str, name: str, n: int, seed: int,
                 answer: Learned | NA) -> None:
    """Keep a peer's answer on a sample (written whole, then renamed into place)."""
    path = answer_path(library, method, name, n, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"stopped": answer.reason} if isinstance(answer, NA) else
                      {"arcs": sorted(answer.arcs), "undirected": sorted(answer.undirected)})
    partial = path.with_suffix(".part")
    partial.write_text(text)
    partial.replace(path)


def peer_answer(settings: Settings, library: str, method: str, name: str, n: int,
                seed: int) -> Learned | NA:
    """A peer's answer on the sample of ``seed``, computed once per library version.

    The peers do not change between runs of this workload and their answers are fixed by
    the rows (up to pgmpy's set order, see the README), so the samples beyond the timed
    one reuse them: a run judges bbn on three samples per cell for the price of one
    sample's peer runs. Delete ``ANSWERS`` to recompute them."""
    path = answer_path(library, method, name, n, seed)
    if path.exists():
        kept = json.loads(path.read_text())
        if "stopped" in kept:
            return NA(kept["stopped"])
        return Learned([tuple(a) for a in kept["arcs"]], [tuple(e) for e in kept["undirected"]])
    answer = answer_once(settings, learner(library, method), name, samples(name, n, seed))
    store_answer(library, method, name, n, seed, answer)
    return answer


def judge_other_seeds(settings: Settings, row: Row, kind: Kind, name: str, n: int,
                      seeds: list[int]) -> None:
    """SHD of every cell that ran on the samples of ``seeds`` (bbn run afresh, the
    peers' answers from :func:`peer_answer`); the row's SHD becomes the median over all
    the seeds, the first included, with the range of the class SHD in the notes."""
    by_seed: dict[str, list[dict]] = {library: [shd] for library, shd in
                                      row.extra.get("shd", {}).items()}
    for seed in seeds:
        frame, failed = attempt(lambda seed=seed: samples(name, n, seed), "sample: ")
        if failed:
            row.notes.append(f"seed {seed} {failed.reason}")
            continue
        for library in by_seed:
            method, learn = kind.cells[library]
            answer = (answer_once(settings, learn, name, frame) if library == "bbn" else
                      peer_answer(settings, library, method, name, n, seed))
            if isinstance(answer, NA):
                row.notes.append(f"{library} seed {seed}: {answer.reason}")
                continue
            measured, failed = attempt(lambda answer=answer: distances(name, answer))
            if not failed:
                by_seed[library].append(measured)
    row.extra["shd_by_seed"] = by_seed
    row.extra["shd"] = {library: {part: statistics.median(d[part] for d in shds)
                                  for part in ("dag", "cpdag")}
                        for library, shds in by_seed.items()}
    ranges = [f"{library} {min(d['cpdag'] for d in shds)}–{max(d['cpdag'] for d in shds)}"
              for library, shds in by_seed.items() if len(shds) > 1]
    if ranges:
        row.notes.append(f"class SHD over {len(seeds) + 1} samples: " + ", ".join(ranges))


# ----------------------------------------------------------------- distances
def structure_network(name: str, learned: Learned):
    """The learned arcs as a structure-only bbn network over the true states: a
    LearnedNetwork holding the undirected edges, which ``bbn.compare`` then judges as
    the equivalence class the library returned."""
    import bbn

    parents: dict[str, list[str]] = {}
    for parent, child in learned.arcs:
        parents.setdefault(child, []).append(parent)
    net = bbn.LearnedNetwork.assemble(name, true_states(name), parents=parents)
    net.undirected_edges_ = list(learned.undirected)
    return net


def distances(name: str, learned: Learned) -> dict[str, int]:
    """Structural Hamming distances to the true network: on the DAG and on the CPDAG."""
    import bbn

    result = bbn.compare(structure_network(name, learned), bbn_network(name))
    return {"dag": int(result.shd), "cpdag": int(result.cpdag_shd)}


def shd_text(shd: dict | None) -> str:
    """`` (DAG/CPDAG)`` after a cell's time (medians over the samples); empty when it
    has none."""
    if not shd:
        return ""
    return f" ({shd['dag']:g}/{shd['cpdag']:g})"


class StructureSection(Section):
    """Workload 5's table with each cell's SHD after its time."""

    def columns(self, row: Row) -> list[str]:
        texts = super().columns(row)
        shd = row.extra.get("shd", {})  # only for cells that ran
        for column, library in enumerate(self.libraries, start=1):
            texts[column] += shd_text(shd.get(library))
        return texts


# ---------------------------------------------------------------------- memory
def peak_memory(library: str, method: str, name: str, rows: int, timeout: float) -> dict | NA:
    """Peak resident memory (MiB) of a new process that reads the cached sample and
    learns once, and its resident memory just before learning (Python, the libraries,
    the DataFrame)."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + [p for p in [environment.get("PYTHONPATH")] if p])
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.structure", library, method, name,
             str(rows)], cwd=REPO, env=environment, capture_output=True, text=True,
            timeout=timeout)
    except subprocess.TimeoutExpired:
        return NA(f"stopped: over {timeout:g} s")
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        return NA(lines[-1][:160])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _status_mib(field: str) -> float:
    """A memory line of /proc/self/status (``VmRSS``, ``VmHWM``: its peak), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB
    raise OSError(f"no {field} in /proc/self/status")


def _child(argv: list[str]) -> int:
    """``python -m tests.benchmarks.structure LIBRARY METHOD NETWORK ROWS``: learn once
    and print {"before": MiB, "peak": MiB} as JSON (the memory cell)."""
    library, method, name, rows = argv
    import warnings

    warnings.filterwarnings("ignore")
    learn = learner(library, method)
    frame = samples(name, int(rows))
    true_states(name)
    import bbn  # noqa: F401 - every library's modules loaded before "before"
    if library == "pyAgrum":
        import pyagrum  # noqa: F401
    before = _status_mib("VmRSS")
    # forget the peak so far: unpickling the cached sample alone reaches 400 MiB for
    # 100,000 rows of alarm, more than bbn's search needs (Linux 4.0+: "5" resets VmHWM)
    Path("/proc/self/clear_refs").write_text("5")
    learn(name, frame)
    peak = _status_mib("VmHWM")
    print(json.dumps({"before": round(before, 1), "peak": round(peak, 1)}))
    return 0


# ------------------------------------------------------------------------- run
def run(settings: Settings, networks: list[str] | None = None,
        rows: list[int] | None = None, seeds: list[int] | None = None) -> Section:
    section = StructureSection("8", TITLE, ["bbn", "pyAgrum", "pgmpy"],
                               [("bbn", "pyAgrum"), ("bbn", "pgmpy")])
    sizes = rows or (QUICK_ROWS if settings.quick else ROWS)
    seeds = seeds or (SEEDS[:1] if settings.quick else SEEDS)
    section.comment = (
        "cell = median time (SHD on the DAG / on the equivalence class) against the true "
        "network; rows: hill climbing BIC = bbn hc, pyAgrum greedy hill climbing, pgmpy "
        "HillClimbSearch; PC = bbn pc, pgmpy PC stable (G², α 0.05); tree = bbn tree, "
        "pgmpy TreeSearch (Chow–Liu); default = bbn hybrid, pyAgrum MIIC; times on the "
        f"sample of seed {seeds[0]}, SHDs the medians over the samples of seeds "
        f"{', '.join(map(str, seeds))}")
    _warm_up()
    for name in networks or NETWORKS:
        stopped: dict[tuple[str, str], int] = {}  # (library, method): rows it was stopped at
        for n in sorted(sizes):
            frame, failed = attempt(lambda name=name, n=n: samples(name, n, seeds[0]),
                                    "sample: ")
            best: dict[str, int] = {}
            for kind in KINDS:
                row = Row("structure", f"{name} N={n} {kind.label}")
                if failed:
                    row.cells["bbn"] = failed
                else:
                    _measure(settings, row, kind, name, frame, stopped, n, seeds[0])
                    judge_other_seeds(settings, row, kind, name, n, seeds[1:])
                    if n == max(sizes):
                        _memory(settings, row, kind, name, n)
                shd = row.extra.get("shd", {})
                best.update({f"{library} {kind.cells[library][0]}": d["cpdag"]
                             for library, d in shd.items() if library != "bbn"})
                if kind.label == "default" and best:
                    who = min(best, key=best.get)
                    row.notes.append(f"best peer CPDAG SHD {best[who]:g} ({who})")
                section.add(row)
    return section


def _warm_up() -> None:
    """Run every cell once on 200 rows of asia before the first row, so no cell's first
    run pays for imports and first-call set-up (bbn's hc on alarm 1,000 rows: 236 ms the
    first time, 63 ms after; --quick times a cell once)."""
    frame, failed = attempt(lambda: samples("asia", 200))
    if failed:
        return
    for kind in KINDS:
        for _, learn in kind.cells.values():
            attempt(lambda learn=learn: learn("asia", frame))


def _measure(settings: Settings, row: Row, kind: Kind, name: str, frame,
             stopped: dict, n: int, seed: int) -> None:
    """Time the kind's cells side by side; SHD of each cell's last result (a peer's also
    kept for :func:`peer_answer`)."""
    results: dict[str, Learned] = {}
    runs = {}
    for library, (method, learn) in kind.cells.items():
        if (library, method) in stopped:
            row.cells[library] = NA(f"not run: stopped at N={stopped[library, method]}")
            continue

        def timed(library=library, learn=learn):
            results[library] = learn(name, frame)
        runs[library] = timed
    row.cells.update(measure_side_by_side(settings, runs))
    row.cells = {library: row.cells[library] for library in kind.cells}  # table order
    _cpu_note(row)
    for library, cell in row.cells.items():
        if isinstance(cell, NA) and cell.reason.startswith("stopped"):
            stopped.setdefault((library, kind.cells[library][0]), n)
    shd = {}
    for library, learned in results.items():
        if library != "bbn":
            store_answer(library, kind.cells[library][0], name, n, seed, learned)
        measured, failed = attempt(lambda learned=learned: distances(name, learned))
        if failed:
            row.notes.append(f"{library} SHD n/a: {failed.reason}")
        else:
            shd[library] = measured
        # the answer itself, so distances can be recomputed from the JSON
        row.extra.setdefault("learned", {})[library] = {
            "arcs": sorted(learned.arcs), "undirected": sorted(learned.undirected)}
    if shd:
        row.extra["shd"] = shd


def _cpu_note(row: Row) -> None:
    """The cells' median CPU times beside the table's wall times, and bbn's CPU ratio to
    each peer: on a shared machine the wall times carry other processes' load. CPU of
    this process only: pgmpy's joblib workers run in processes of their own, so its CPU
    times undercount (its tree: 88 ms of CPU in 1.46 s, child 1,000 rows)."""
    cpu = {library: cell.cpu_median for library, cell in row.cells.items()
           if isinstance(cell, Timing) and cell.cpu_median is not None}
    if "bbn" not in cpu or len(cpu) < 2:
        return
    times = ", ".join(f"{library} {seconds(value)}" for library, value in cpu.items())
    ratios = ", ".join(f"bbn/{library} {cpu['bbn'] / value:.2f}"
                       for library, value in cpu.items() if library != "bbn" and value > 0)
    row.notes.append(f"CPU {times} ({ratios})")


def _memory(settings: Settings, row: Row, kind: Kind, name: str, n: int) -> None:
    """Peak memory of the bbn and pyAgrum cells that ran, in child processes."""
    for library in ("bbn", "pyAgrum"):
        if library not in kind.cells or isinstance(row.cells.get(library), NA):
            continue
        method = kind.cells[library][0]
        try:
            memory = peak_memory(library, method, name, n, 2 * settings.deadline)
        except (OSError, ValueError) as error:
            memory = NA(describe(error))
        if isinstance(memory, NA):
            row.notes.append(f"{library} peak memory n/a: {memory.reason}")
            continue
        row.extra.setdefault("peak_mib", {})[library] = memory
        row.notes.append(f"{library} peak memory {memory['peak']:.0f} MiB "
                         f"({memory['before']:.0f} MiB before learning)")


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))

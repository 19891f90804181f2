"""The architecture stays as docs/architecture.md draws it: layers, imports pointing down.

The layers, bottom-up: core < views < engines < questions < model < io < tasks < apps <
the package top (``bbn/__init__.py`` and any module directly in ``bbn/``). Checked here:

- **Layer order on every import**: at the top of a file, inside a function, under
  ``if TYPE_CHECKING:``, and every *lazy reference* (a string literal that is exactly a
  bbn module path with an optional ``:attribute``, ``"bbn.engines.approximate.lbp:LoopyBP"``,
  naming an existing module). A module imports its own layer or lower ones.
- **No import circle** of any length between bbn modules, counting every import above.
- **Imports inside functions load third-party modules only**, each listed in
  ``LOCAL_IMPORTS`` with its reason (start-up time or an optional dependency); stale
  entries fail. A bbn module is imported at the top, or named by a lazy reference.
- **Names and sizes**: no module over 800 lines; no two modules of bbn/ share a file name
  (``__init__.py`` aside); every folder of bbn/ is a layer.
- **The picture**: docs/images/architecture.gv is what docs/architecture.py draws
  today, and docs/architecture.md names every module.
- **The public API** carries numpydoc sections: Examples (a doctest) everywhere,
  Parameters wherever there are parameters.

Each check is a plain function over a package's parsed imports (docs/architecture.py's
parse), shown failing on a small synthetic package by the ``test_the_*_check_*`` tests.
While the issue-27 branches are being merged, the checks of the real package marked
"FAILS UNTIL ISSUE 27 LANDS" report today's violations, each with file:line, the import,
the two layers and what to do.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import networkx as nx

import bbn

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bbn"
MAX_LINES = 800


def _load_architecture():
    """docs/architecture.py as a module (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("bbn_docs_architecture",
                                                  ROOT / "docs" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


architecture = _load_architecture()
Import = architecture.Import
LAYERS = list(architecture.LAYERS)


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def _layer(module: str) -> str:
    layer = architecture.layer_of(module)
    return f"{layer} ({LAYERS.index(layer)})" if layer else "no layer"


# ================================================================ the checks
# Each takes a package's modules (``{name: path}``) and its imports between modules
# (architecture.bbn_imports) and returns one actionable line per violation.
ADVICE = {
    "hint": "a type hint is an import too: take the compiled view, a Protocol or a duck-typed "
            "parameter (documented as such) instead of the higher layer's class",
    "lazy": "a lazy reference is an import too: resolve it in the {head} layer or above "
            "(the package top's lazy names), or move the code that needs it up there",
    "late": "an import inside a function is still an import: move the code that needs "
            "{imported} up into the {head} layer (a plain function over the model, as "
            "bbn.explain(net, q)), or pass what it needs down as an argument",
    "load": "move the code that needs {imported} up into the {head} layer (a plain function "
            "over the model, as bbn.explain(net, q)), or pass what it needs down as an "
            "argument",
}


def layer_violations(found: list[Import]) -> list[str]:
    """``file:line: a (layer) imports b (higher layer) — what to do`` for every import or
    lazy reference that points up the layers (or comes from, or goes to, no layer)."""
    offences = []
    for i in found:
        tail, head = architecture.layer_of(i.module), architecture.layer_of(i.imported)
        if tail is None or head is None:
            offences.append(f"{i.where}: {i.module} {i.described} {i.imported} — "
                            f"{i.module if tail is None else i.imported} is in no layer: "
                            "move it into a layer's folder")
        elif LAYERS.index(head) > LAYERS.index(tail):
            advice = ADVICE[i.kind].format(head=head, imported=i.imported)
            if head == architecture.TOP and i.kind != "lazy":
                advice = ("import each name from the module that defines it (bbn.io.formats, "
                          "bbn.model.network...), not from the package top")
            offences.append(f"{i.where}: {i.module} [{_layer(i.module)}] {i.described} "
                            f"{i.imported} [{_layer(i.imported)}], a higher layer — {advice}")
    return offences


def import_graph(found: list[Import]) -> nx.DiGraph:
    """The modules and their imports (every kind), each arrow with where it is made."""
    graph = nx.DiGraph()
    for i in found:
        if not graph.has_edge(i.module, i.imported):
            graph.add_edge(i.module, i.imported, where=[])
        graph.edges[i.module, i.imported]["where"].append(f"{i.where} ({i.kind})")
    return graph


def shortest_circle(graph: nx.DiGraph, start: str) -> list[str] | None:
    """The shortest import circle through ``start``: ``[start, ..., start]``, or None."""
    best = None
    for successor in graph.successors(start):
        try:
            back = nx.shortest_path(graph, successor, start)
        except nx.NetworkXNoPath:
            continue
        if best is None or len(back) + 1 < len(best):
            best = [start, *back]
    return best


def _rotated(circle: list[str]) -> tuple[str, ...]:
    """The circle started at its first module by name (one circle, one way to write it)."""
    start = circle.index(min(circle))
    return (*circle[start:-1], *circle[:start], circle[start])


def import_circles(found: list[Import]) -> list[str]:
    """One message per import circle: the modules that import each other round (a
    strongly connected component of the import graph), one shortest circle through them
    with the file:line of each arrow, and what to do."""
    graph = import_graph(found)
    offences = []
    components = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    for component in sorted(components, key=lambda c: (-len(c), c)):
        inside = graph.subgraph(component)
        # the circles through the hubs (most arrows inside the circle) first: at most three
        hubs = sorted(component, key=lambda m: (-inside.degree(m), m))[:3]
        circles = list(dict.fromkeys(_rotated(shortest_circle(inside, hub)) for hub in hubs))
        shown = "".join(
            f"    circle: {' → '.join(circle)}\n" + "".join(
                f"      {a} → {b}: {', '.join(graph.edges[a, b]['where'])}\n"
                for a, b in zip(circle, circle[1:]))
            for circle in circles)
        offences.append(
            f"{len(component)} modules import each other round: {', '.join(component)}\n"
            f"{shown}"
            "    break it: imports point down the layers; of two modules of one layer that "
            "need each other, merge them or move what both need into a third they import")
    return offences


def local_bbn_imports(found: list[Import]) -> list[str]:
    """``file:line: function imports bbn.x — what to do`` for every bbn module imported
    inside a function (type hints and lazy references aside)."""
    graph = import_graph(found)
    offences = []
    for i in found:
        if i.kind != "late":
            continue
        others = graph.copy()
        if i.where + " (late)" == ", ".join(graph.edges[i.module, i.imported]["where"]):
            others.remove_edge(i.module, i.imported)  # this import is the only arrow
        try:
            circle = nx.shortest_path(others, i.imported, i.module)
            why = ("at the top it would close the circle "
                   + " → ".join([i.module, *circle]) + ": restructure first")
        except nx.NetworkXNoPath:
            why = "no circle: move it to the top of the file"
        offences.append(
            f"{i.where}: {i.function}() in {i.module} imports {i.imported} — {why}; if "
            f"start-up needs it late, name it by a lazy reference (\"{i.imported}:name\", "
            "resolved with bbn.core.lazy)")
    return offences


def unplaced_modules(known: dict[str, Path]) -> list[str]:
    """Modules in a folder of bbn/ that is no layer."""
    return [f"{_shown(path)}: {name} is in no layer's folder ({', '.join(LAYERS[:-1])}): move it"
            for name, path in known.items() if architecture.layer_of(name) is None or (
                path.name == "__init__.py" and name.count(".") == 1
                and name.split(".")[1] not in LAYERS)]


def long_modules(known: dict[str, Path], limit: int = MAX_LINES) -> list[str]:
    """``file: N lines`` for every module over ``limit`` lines (docstrings included)."""
    offences = []
    for path in known.values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            offences.append(f"{_shown(path)}: {lines} lines, over {limit}: split it by what "
                            "it does (each part named for its job)")
    return offences


def repeated_names(known: dict[str, Path]) -> list[str]:
    """``name.py: path, path`` for every file name two modules share (``__init__.py``
    aside)."""
    by_name: dict[str, list[Path]] = {}
    for path in known.values():
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(path)
    return [f"{name}: {', '.join(map(_shown, sorted(paths)))} — name each for what it holds "
            "(a name explains itself without its folder)"
            for name, paths in sorted(by_name.items()) if len(paths) > 1]


def _package() -> tuple[dict[str, Path], list[Import]]:
    known = architecture.modules()
    return known, architecture.bbn_imports(known)


def _report(offences: list[str], what: str) -> str:
    return f"{len(offences)} {what}:\n  " + "\n  ".join(offences)


# ========================================================= the package, checked
# FAILS UNTIL ISSUE 27 LANDS: the five tests below report today's violations.
def test_every_import_points_down_the_layers():
    """FAILS UNTIL ISSUE 27 LANDS. Every import (top, function-local, type-checking) and
    every lazy reference goes to the module's own layer or a lower one."""
    known, found = _package()
    offences = layer_violations(found)
    assert not offences, _report(offences, "imports point up the layers "
                                 f"({' < '.join(LAYERS)})")


def test_no_import_circle():
    """FAILS UNTIL ISSUE 27 LANDS. No circle of any length among bbn's modules, counting
    function-local and type-checking imports and lazy references."""
    known, found = _package()
    offences = import_circles(found)
    assert not offences, _report(offences, "import circles")


def test_functions_import_third_party_modules_only():
    """FAILS UNTIL ISSUE 27 LANDS. A bbn module is imported at the top of the file (or
    named by a lazy reference), never inside a function."""
    known, found = _package()
    offences = local_bbn_imports(found)
    assert not offences, _report(offences, "bbn modules imported inside functions")


def test_no_module_over_800_lines():
    """FAILS UNTIL ISSUE 27 LANDS."""
    offences = long_modules(architecture.modules())
    assert not offences, _report(offences, f"modules over {MAX_LINES} lines")


def test_module_file_names_are_unique():
    """FAILS UNTIL ISSUE 27 LANDS."""
    offences = repeated_names(architecture.modules())
    assert not offences, _report(offences, "file names shared by modules of bbn/")


def test_every_module_is_in_a_layer():
    offences = unplaced_modules(architecture.modules())
    assert not offences, _report(offences, "modules in no layer")


# ============================================== the checks, on a synthetic package
def _synthetic(tmp_path: Path) -> tuple[dict[str, Path], list[Import]]:
    """A package ``bbn`` of a few modules in tmp_path making each mistake once."""
    files = {
        "__init__.py": "from bbn.model.net import Net\n",
        "core/__init__.py": "",
        "core/errors.py": "from bbn.engines.solve import Solver\n",                 # up
        "core/long.py": "x = 1\n" * (MAX_LINES + 1),
        "engines/__init__.py": "",
        "engines/solve.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from bbn.model.net import Net\n"                                  # 3: up
            "class Solver:\n"
            "    def run(self):\n"
            "        import numpy\n"                                               # fine
            "        from bbn.core import errors\n"),                              # 7: late
        "model/__init__.py": "",
        "model/net.py": (
            "ENGINE = 'bbn.engines.solve:Solver'\n"                                # down
            "GROW = 'bbn.tasks.tree:grow'\n"                                       # 2: up
            "NOT_A_MODULE = ('bbn.nothing', 'bbn.tasks.tree.grow', 'see bbn.tasks')\n"
            "class Net:\n"
            "    pass\n"),
        "tasks/__init__.py": "",
        "tasks/tree.py": "def grow():\n    pass\n",
        "apps/__init__.py": "",
        "apps/tree.py": "",
        "extras/__init__.py": "",
        "extras/thing.py": "from bbn.core import errors\n",
    }
    for name, text in files.items():
        path = tmp_path / "bbn" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    known = architecture.modules(tmp_path / "bbn")
    return known, architecture.bbn_imports(known)


def _lines(offences: list[str]) -> list[str]:
    """The ``file:line`` heads of the messages, the file's name only."""
    return [o.split(": ", 1)[0].rsplit("/", 1)[-1] for o in offences]


def test_the_layer_check_sees_every_kind_of_import_pointing_up(tmp_path):
    known, found = _synthetic(tmp_path)
    offences = layer_violations(found)
    assert _lines(offences) == ["errors.py:1", "solve.py:3", "thing.py:1", "net.py:2"]
    assert "bbn.core.errors [core (0)] imports bbn.engines.solve [engines (2)]" in offences[0]
    assert "for type checking" in offences[1] and "Protocol" in offences[1]
    assert "bbn.extras.thing is in no layer" in offences[2]
    assert "lazy reference" in offences[3] and "[tasks (6)]" in offences[3]


def test_the_circle_check_prints_the_circle(tmp_path):
    known, found = _synthetic(tmp_path)
    [offence] = import_circles(found)
    assert offence.startswith("3 modules import each other round: bbn.core.errors, "
                              "bbn.engines.solve, bbn.model.net")
    assert "circle: bbn.core.errors → bbn.engines.solve → bbn.core.errors" in offence
    assert "circle: bbn.engines.solve → bbn.model.net → bbn.engines.solve" in offence
    assert "solve.py:7 (late)" in offence and "errors.py:1 (load)" in offence


def test_the_local_import_check_names_the_bbn_module(tmp_path):
    known, found = _synthetic(tmp_path)
    [offence] = local_bbn_imports(found)
    assert _lines([offence]) == ["solve.py:7"]
    assert "Solver.run() in bbn.engines.solve imports bbn.core.errors" in offence
    assert "close the circle bbn.engines.solve → bbn.core.errors → bbn.engines.solve" in offence


def test_the_size_name_and_folder_checks(tmp_path):
    known, found = _synthetic(tmp_path)
    assert _lines(long_modules(known)) == ["long.py"]
    assert f"{MAX_LINES + 1} lines" in long_modules(known)[0]
    [repeated] = repeated_names(known)
    assert repeated.startswith("tree.py: ") and "apps/tree.py" in repeated
    assert [o.split(": ")[1].split()[0] for o in unplaced_modules(known)] == [
        "bbn.extras", "bbn.extras.thing"]


def test_imports_resolve_submodules_functions_and_references(tmp_path):
    sample = tmp_path / "engine.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy as np\n"
        "from bbn.engines.exact import elimination, posterior\n"     # a submodule; a name
        "from . import ordering\n"
        "from ...core.factor import Factor\n"
        "if TYPE_CHECKING:\n"
        "    import networkx as nx\n"
        "class Engine:\n"
        "    def plan(self):\n"
        "        def inner():\n"
        "            import pyparsing\n"
        "        from bbn.engines.exact.clique_tree import junction_order\n"
        "        return 'bbn.engines.exact.clique_tree:junction_order', 'bbn.engines.nope'\n")
    known = dict.fromkeys(["bbn.core.factor", "bbn.engines.exact", "bbn.engines.exact.elimination",
                           "bbn.engines.exact.ordering", "bbn.engines.exact.clique_tree"], sample)
    found = [(i.function, i.imported, i.type_checking, i.line, i.kind) for i in
             architecture.imports(sample, known, module="bbn.engines.exact.engine")]
    assert found == [
        (None, "typing", False, 1, "load"), (None, "numpy", False, 2, "load"),
        (None, "bbn.engines.exact.elimination", False, 3, "load"),
        (None, "bbn.engines.exact", False, 3, "load"),
        (None, "bbn.engines.exact.ordering", False, 4, "load"),
        (None, "bbn.core.factor", False, 5, "load"),
        (None, "networkx", True, 7, "hint"), ("Engine.plan.inner", "pyparsing", False, 11, "late"),
        ("Engine.plan", "bbn.engines.exact.clique_tree", False, 12, "late"),
        ("Engine.plan", "bbn.engines.exact.clique_tree", False, 13, "lazy")]


# ---------------------------------------------------- function-local imports
# (module, function, imported module): why the import waits for the function. Third-party
# modules only (a bbn module is imported at the top, or named by a lazy reference).
# Start-up: `bbn query` must not load pyparsing, pandas, networkx, graphviz
# (tests/test_startup.py); optional: a dependency bbn does not require. An import that
# only breaks an import circle does not belong here: restructure instead.
NETWORKX = "start-up: networkx (~0.2 s), only when d-separation is asked"
DASK = "optional: Dask (bbn[dask]) runs Dask collections, and only those"
ARROW = "optional: pyarrow (bbn[parquet]) writes bbn sample's CSV faster; pandas otherwise"
LOCAL_IMPORTS = {
    ("bbn.tasks.classification.base", "Classifier.__sklearn_tags__", "sklearn.utils"):
        "optional: only scikit-learn calls it, and bbn does not depend on scikit-learn",
    ("bbn.apps.cli.sample", "csv_text", "pyarrow"): ARROW,
    ("bbn.apps.cli.sample", "csv_text", "pyarrow.csv"): ARROW,
    ("bbn.apps.cli.main", "_Version.__call__", "importlib"):
        "start-up: importlib.metadata reads the installed package, only for --version",
    ("bbn.io.chunks", "_parquet_chunks", "pyarrow.parquet"):
        "optional: pyarrow (bbn[parquet]) reads Parquet files, and only those",
    ("bbn.questions.partitions", "require_dask", "dask"): DASK,
    ("bbn.engines.exact.ordering", "bandwidth_order", "networkx"):
        "start-up: networkx (~0.2 s), only for an order worth searching (2^20-entry tables)",
    ("bbn.core.errors", "suggest", "difflib"):
        "start-up: only when there is a mistake to name, not on every command's start",
    ("bbn.tasks.classification.decisions", "loss_matrix", "pandas"):
        "start-up: bbn classify's parser imports this module on every command",
    ("bbn.io.formats._runs", "_token_class", "pyparsing"):
        "start-up: only the located grammars need it; the fast paths read well-formed files",
    ("bbn.io.formats.bn.grammar", "_grammar", "pyparsing"):
        "start-up: the grammar reads ill-formed statements only; the fast path spares it",
    ("bbn.io.formats.bn.grammar", "_number_block", "pyparsing"):
        "start-up: made with the grammar, for ill-formed statements only",
    ("bbn.questions.d_separation", "is_independent", "networkx"): NETWORKX,
    ("bbn.questions.d_separation", "_digraph", "networkx"): NETWORKX,
    ("bbn.tasks.structure.chow_liu_trees", "spanning_tree", "networkx"):
        "start-up: networkx (~0.2 s), only a Chow–Liu tree or a TAN needs it",
    ("bbn.tasks.structure.knowledge", "_cycle", "networkx"):
        "start-up: networkx (~0.2 s), only to name the required arcs that loop back",
    ("bbn.model.dag", "DAG.graph", "networkx"):
        "start-up: networkx, only for the read-only graph copy",
    ("bbn.questions.language", "_grammars", "pyparsing"):
        "start-up: the scanner reads the usual queries; pyparsing (~40 ms) for the rest",
    ("bbn.core.factor", "Factor.to_pandas", "pandas"):
        "start-up: pandas (~0.3 s), only when a table is asked for as pandas",
    ("bbn.questions.presentation", "frame_of_cases", "pandas"):
        "start-up: pandas, only for a batch of cases (already a DataFrame, so loaded)",
    ("bbn.questions.max_cases", "frame_of_assignments", "pandas"):
        "start-up: pandas, only for a batch of cases (already a DataFrame, so loaded)",
    ("bbn.plot", "_axes", "matplotlib.pyplot"):
        "optional: matplotlib (bbn[plot]) draws the plots, and only those",
}


def local_imports() -> dict[tuple[str, str, str], list[str]]:
    """``{(module, function, imported module): [file:line, ...]}`` for every import of a
    module from outside bbn inside a function of bbn/ (type hints aside)."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for i in architecture.package_imports():
        if i.kind == "late" and i.imported.split(".")[0] != "bbn":
            found.setdefault((i.module, i.function, i.imported), []).append(i.where)
    return found


def test_function_local_imports_are_listed_with_a_reason():
    unlisted = [f"{', '.join(places)}: {function}() imports {imported} — move it to the top, "
                f"or give its reason:\n      ({module!r}, {function!r}, {imported!r}): "
                "\"start-up: ...\" or \"optional: ...\","
                for (module, function, imported), places in sorted(local_imports().items())
                if (module, function, imported) not in LOCAL_IMPORTS]
    assert not unlisted, _report(unlisted, "function-local imports have no reason in "
                                 "LOCAL_IMPORTS (tests/test_architecture.py)")


def test_the_local_import_list_has_no_stale_entries():
    present = local_imports()
    stale = [f"{key}: the code no longer makes this import: delete the entry"
             for key in sorted(LOCAL_IMPORTS) if key not in present]
    assert not stale, _report(stale, "stale LOCAL_IMPORTS entries")


def test_local_import_reasons_are_start_up_or_optional():
    for (module, function, imported), reason in LOCAL_IMPORTS.items():
        assert reason.startswith(("start-up: ", "optional: ")), (module, function)
        assert "circle" not in reason and "cycle" not in reason, (module, function)
        assert imported.split(".")[0] != "bbn", (module, function, imported)


# ------------------------------------------------------------------ the picture
def test_the_committed_picture_is_generated_from_the_code():
    """docs/images/architecture.gv is what docs/architecture.py draws today (the DOT
    source, not the SVG bytes, which vary with Graphviz's version)."""
    committed = architecture.DOT_FILE.read_text(encoding="utf-8")
    assert committed == architecture.dot_source(), (
        "the package's imports changed: run `python docs/architecture.py` and commit "
        "docs/images/architecture.gv and .svg")
    assert architecture.SVG_FILE.is_file()


_NODE = re.compile(r'^\t+"?([\w.]+)"? \[label="?[^"\]]')
_EDGE = re.compile(r'^\t"?([\w.^]+)"? -> "?([\w.^]+)"?(?: \[(.*)\])?$', re.M)
_CLUSTER = re.compile(r"^\t*subgraph (cluster_\w+) \{$")


def _clusters_of_nodes(source: str) -> dict[str, list[str]]:
    """``{node: [its clusters, outermost first]}`` from the DOT source."""
    where: dict[str, list[str]] = {}
    stack: list[str] = []
    for line in source.splitlines():
        if match := _CLUSTER.match(line):
            stack.append(match[1])
        elif line.strip() == "}" and stack:
            stack.pop()
        elif match := _NODE.match(line):
            where[match[1]] = list(stack)
    return where


def test_the_picture_has_every_module_in_its_layer_and_folder():
    """One box per module, inside its layer's cluster and its folders' sub-clusters."""
    known = architecture.modules()
    where = _clusters_of_nodes(architecture.dot_source())
    assert set(where) == set(known)
    for module in known:
        folders = architecture.folder_of(module, known)
        expected = [f"cluster_{architecture.layer_of(module)}"] + [
            "cluster_" + "_".join(folders[:n]) for n in range(2, len(folders) + 1)]
        assert where[module] == expected, module


def test_the_picture_has_every_import():
    """An import within a layer is an arrow between the two modules (solid on loading,
    dotted for type hints only, dashed on first use); an import across layers is named on
    the arrow between the layers (drawn reversed, red, when it points up)."""
    source = architecture.dot_source()
    edges = [(tail, head, attributes or "") for tail, head, attributes in _EDGE.findall(source)
             if "invis" not in (attributes or "")]
    arrows = {(tail, head): attributes for tail, head, attributes in edges
              if "lhead=" not in attributes}
    across = {}
    for _, _, attributes in edges:
        if "lhead=" in attributes:
            tail = re.search(r"ltail=cluster_(\w+)", attributes)[1]
            head = re.search(r"lhead=cluster_(\w+)", attributes)[1]
            if "dir=back" in attributes:
                tail, head = head, tail
                assert "#cc0000" in attributes  # an upward arrow is red
            across[tail, head] = re.search(r'label="?([^"\]]*?)"?(?: \w+=|$)', attributes)[1]
    graph = architecture.import_graph()
    layer_of = architecture.layer_of
    for module, targets in graph.items():
        for imported, kinds in targets.items():
            tail, head = layer_of(module), layer_of(imported)
            if tail == head:
                attributes = arrows[module, imported]
                assert ("dotted" in attributes) == ("load" not in kinds and "hint" in kinds)
                assert ("dashed" in attributes) == (not kinds & {"load", "hint"})
            else:
                assert architecture.label(imported) in across[tail, head].split(", ")
    styles = {"dashed" in attributes for attributes in arrows.values()}
    assert styles == {True, False}  # imports on loading and on first use are both drawn


def test_the_architecture_page_names_every_module():
    """docs/architecture.md's package map names every module of bbn/ (a ``name.py`` or
    a pattern such as ``bn*.py`` counts inside a folder the page names)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w*./]+\.py)`", text))
    missing = []
    for path in _files():
        relative = path.relative_to(ROOT).as_posix()
        folder = path.parent.relative_to(ROOT).as_posix() + "/"
        if not any(fnmatch.fnmatch(relative, n) or ("/" not in n and folder in text
                                                    and fnmatch.fnmatch(path.name, n))
                   for n in named):
            missing.append(relative)
    assert not missing, f"docs/architecture.md's package map does not name {missing}"


# ------------------------------------------------------------- numpydoc
_SECTION = re.compile(r"^[ \t]*(\w[\w ]*)\n[ \t]*-{3,}[ \t]*$", re.M)
# the classes whose public methods are API too (bbn.Engine once it exists)
CLASSES_WITH_METHODS = ("Network", "Engine", "NaiveBayes", "Factor")


def sections(doc: str | None) -> dict[str, str]:
    """``{section title: its text}`` of a numpydoc docstring."""
    doc = inspect.cleandoc(doc or "")
    found = list(_SECTION.finditer(doc))
    return {m[1].strip(): doc[m.end():(found[n + 1].start() if n + 1 < len(found)
                                       else len(doc))]
            for n, m in enumerate(found)}


def _parameters(function) -> list[str]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


def _own_init(cls) -> object | None:
    """``cls.__init__`` when bbn defines it (for a class's Parameters section)."""
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            init = vars(klass)["__init__"]
            return init if klass.__module__.startswith("bbn") else None
    return None


def public_api() -> dict[str, object]:
    """``{"bbn.name" or "bbn.Class.method": object}`` of the documented public API."""
    api: dict[str, object] = {}
    for name in bbn.__all__:
        obj = getattr(bbn, name)
        api[f"bbn.{name}"] = obj
        if inspect.isclass(obj) and name in CLASSES_WITH_METHODS:
            for klass in reversed(obj.__mro__):  # bbn's own methods, inherited ones too
                if not klass.__module__.startswith("bbn"):
                    continue
                for method, value in vars(klass).items():
                    if method.startswith("_"):
                        continue
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if inspect.isfunction(value):
                        api[f"bbn.{name}.{method}"] = value
    return api


def missing_sections(obj) -> list[str]:
    """The numpydoc sections ``obj``'s docstring lacks: Examples (with a doctest) and,
    when it takes parameters, Parameters."""
    found = sections(obj.__doc__)
    lacking = []
    if ">>>" not in found.get("Examples", ""):
        lacking.append("Examples")
    takes = _parameters(_own_init(obj)) if inspect.isclass(obj) and _own_init(obj) else (
        [] if inspect.isclass(obj) else _parameters(obj))
    if takes and "Parameters" not in found:
        lacking.append("Parameters")
    return lacking


def test_public_api_has_numpydoc_sections():
    api = public_api()
    missing = {name: lacking for name, obj in api.items()
               if (lacking := missing_sections(obj))}
    assert not missing, (
        f"{len(missing)} public names lack numpydoc sections (Examples with a doctest; "
        "Parameters when they take any):\n  " + "\n  ".join(
            f"{name}: {', '.join(lacking)} ({inspect.getmodule(api[name]).__name__})"
            for name, lacking in sorted(missing.items())))


def test_the_numpydoc_check_reads_sections():
    def documented(x: int) -> int:
        """Twice x.

        Parameters
        ----------
        x : int
            A number.

        Examples
        --------
        >>> 2 * 2
        4
        """
        return 2 * x

    def bare(x):
        """Twice x."""

    assert list(sections(documented.__doc__)) == ["Parameters", "Examples"]
    assert missing_sections(documented) == []
    assert missing_sections(bare) == ["Examples", "Parameters"]
    assert "bbn.Factor.marginal" in public_api() and "bbn.load" in public_api()


FOUNDATIONS = ("bbn.core.factor", "bbn.core.errors", "bbn.core.memory", "bbn.apps.rendering")


def test_factor_errors_memory_and_pictures_are_documented():
    """The public names defined in the factor, errors, memory and rendering modules have
    their sections (the rest of the API is reported by the test above)."""
    names = {name: obj for name, obj in public_api().items()
             if inspect.getmodule(obj).__name__.startswith(FOUNDATIONS)}
    assert {"bbn.Factor.marginal", "bbn.set_memory_limit", "bbn.render",
            "bbn.ParseError"} <= set(names)
    assert {name: missing_sections(obj) for name, obj in names.items()
            if missing_sections(obj)} == {}

"""The package map of bbn, drawn from its own import graph.

``python docs/architecture.py`` parses every module of ``bbn/`` with :mod:`ast`, collects
the imports between bbn modules and writes the picture of docs/architecture.md:
``docs/images/architecture.gv`` (the DOT source, compared by tests/test_architecture.py
so the picture cannot go stale) and ``docs/images/architecture.svg`` (drawn by Graphviz's
``dot``). One box per module, one cluster per part of the package, one arrow per import:
solid when the module imports it on loading, dashed when a function imports it on first
use (kept lazy for start-up time or an optional dependency). Imports under
``if TYPE_CHECKING:`` are type hints only and are left out.

Everything is derived from the code; only the clusters' names and colours, and which
top-level module belongs to which cluster, are written here. A module no cluster names
lands in "foundations", so a new module is drawn without editing this file.

The same parse serves the tests: :func:`imports` lists every import of a file with the
function it sits in.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bbn"
IMAGES = ROOT / "docs" / "images"
DOT_FILE = IMAGES / "architecture.gv"
SVG_FILE = IMAGES / "architecture.svg"


# The only hand-written part: the clusters (title, fill colour), in drawing order. A
# subpackage is its own cluster (a new one is drawn in NEW_CLUSTER's colour); the
# top-level modules are placed by TOP_LEVEL, the others land in "foundations".
CLUSTERS = {
    "interface": ("questions and commands (bbn, cli, query)", "#fff2cc"),
    "explain": ("explain: derivations, independence, information, sensitivity", "#e6f2ea"),
    "model": ("model: network, compiled view, tables, factor", "#dae8fc"),
    "inference": ("inference: the Engine and exact algorithms", "#d5e8d4"),
    "formats": ("formats: readers and writers", "#f8cecc"),
    "learning": ("learning: counts, estimators, EM, sampling", "#e1d5e7"),
    "classification": ("classification: naive Bayes, ensembles, decisions", "#ffe6cc"),
    "rendering": ("rendering: Graphviz pictures", "#f5f5f5"),
    "foundations": ("foundations: errors, memory, data at the edge", "#eeeeee"),
}
NEW_CLUSTER = "#ffffff"
TOP_LEVEL = {
    "bbn": "interface", "bbn.apps.cli.main": "interface", "bbn.questions.language": "interface",
    "bbn.model.network": "model", "bbn.views.compiled": "model", "bbn.core.tables": "model",
    "bbn.core.factor": "model",
}


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is written and in which function."""

    module: str           # the importing module, "bbn.model.network"
    function: str | None  # the enclosing function's qualified name, None at module level
    imported: str         # the imported module, "bbn.engines.exact" or "pyparsing"
    path: Path
    line: int
    type_checking: bool   # under ``if TYPE_CHECKING:``: a type hint, not run

    @property
    def where(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.line}"


def module_name(path: Path) -> str:
    """``bbn/engines/exact/__init__.py`` → ``bbn.engines.exact``;
    ``bbn/apps/cli/main.py`` → ``bbn.apps.cli.main``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package by name, sorted."""
    found = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return dict(sorted(found.items()))


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             known: dict[str, Path]) -> Iterator[str]:
    """The modules one import statement loads (a submodule when ``from`` names one)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: resolved against the importing package
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[:len(package) - node.level + 1]
        base = ".".join([*anchor, *([base] if base else [])])
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in known else base


@functools.lru_cache(maxsize=256)
def _parse(path: Path, mtime: int) -> ast.Module:
    """The syntax tree of ``path`` (cached while the file is unchanged: the tests ask
    for the import graph several times)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imports(path: Path, known: dict[str, Path] | None = None,
            module: str | None = None) -> list[Import]:
    """Every import of the file at ``path``, with its enclosing function (if any).

    ``known``: the package's modules (to tell ``from bbn.x import y``'s submodule y from a
    name); ``module``: the file's module name, by default from its path.
    """
    known = modules() if known is None else known
    module = module_name(path) if module is None else module
    is_package = path.name == "__init__.py"
    tree = _parse(path, path.stat().st_mtime_ns)
    found: list[Import] = []

    def visit(node: ast.AST, scope: list[str], function: str | None, hints: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in dict.fromkeys(_targets(child, module, is_package, known)):
                    found.append(Import(module, function, target, path, child.lineno, hints))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = [*scope, child.name]
                visit(child, inner, ".".join(inner), hints)
            elif isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name], function, hints)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.body:
                    visit(ast.Module(body=[statement], type_ignores=[]), scope, function, True)
                for statement in child.orelse:
                    visit(ast.Module(body=[statement], type_ignores=[]), scope, function,
                          hints)
            else:
                visit(child, scope, function, hints)

    visit(tree, [], None, False)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def package_imports() -> list[Import]:
    """Every import of every module of bbn, module by module."""
    known = modules()
    return [i for path in known.values() for i in imports(path, known)]


def import_graph(lazy: bool = False) -> dict[str, set[str]]:
    """``{module: bbn modules it imports}``: at loading (``lazy=False``) or inside
    functions (``lazy=True``); type-checking imports are left out."""
    known = modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for i in package_imports():
        if (i.imported in known and i.imported != i.module and not i.type_checking
                and (i.function is not None) == lazy):
            graph[i.module].add(i.imported)
    return graph


def cycle_through(graph: dict[str, set[str]], source: str, target: str) -> list[str] | None:
    """The import path ``target → … → source`` that an import ``source → target`` would
    close into a circle, or None (a breadth-first search; shortest path)."""
    previous: dict[str, str | None] = {target: None}
    frontier = [target]
    while frontier:
        following = []
        for node in frontier:
            if node == source:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return path[::-1]
            for nxt in sorted(graph.get(node, ())):
                if nxt not in previous:
                    previous[nxt] = node
                    following.append(nxt)
        frontier = following
    return None


def cluster_of(module: str) -> str:
    """The cluster of a module: its subpackage, else TOP_LEVEL, else "foundations"."""
    if module in TOP_LEVEL:
        return TOP_LEVEL[module]
    if (PACKAGE / module.split(".")[1]).is_dir():
        return module.split(".")[1]
    return "foundations"


def _label(module: str) -> str:
    parts = module.split(".")
    if module == "bbn":
        return "bbn (public API)"
    if PACKAGE.joinpath(*parts[1:]).is_dir():  # a package: its __init__.py
        return f"{parts[-1]}/__init__"
    return parts[-1]


def dot_source() -> str:
    """The DOT source of the package map (deterministic: sorted modules and arrows).

    Inside a cluster, one arrow per importing module and imported module; between two
    clusters, one arrow per pair of clusters, labelled with the modules it imports (the
    per-module arrows across clusters would hide the picture). Dashed: every import it
    stands for is made inside a function.
    """
    import graphviz  # the drawing library: needed by this script only

    known = modules()
    loading, lazy = import_graph(), import_graph(lazy=True)
    # newrank: ranks the whole graph at once; dot's per-cluster ranking stops with
    # "trouble in init_rank" on some of the cluster-to-cluster arcs drawn below
    picture = graphviz.Digraph("bbn", graph_attr={
        "rankdir": "LR", "compound": "true", "newrank": "true", "fontname": "Helvetica",
        "fontsize": "16",
        "label": "bbn: modules and their imports (solid: on loading; dashed: only inside "
                 "functions, on first use)", "labelloc": "t", "nodesep": "0.25"},
        node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white",
                   "fontname": "Helvetica", "fontsize": "11", "height": "0.3"},
        edge_attr={"color": "#555555", "arrowsize": "0.6", "fontname": "Helvetica",
                   "fontsize": "9", "fontcolor": "#333333"})
    clusters = {**CLUSTERS, **{c: (c, NEW_CLUSTER) for c in map(cluster_of, known)
                               if c not in CLUSTERS}}
    members = {c: [m for m in known if cluster_of(m) == c] for c in clusters}
    # (tail cluster, head cluster) → {(importing, imported module): only lazily?}
    across: dict[tuple[str, str], dict[tuple[str, str], bool]] = {}
    for cluster, (title, colour) in clusters.items():
        if not members[cluster]:
            continue
        with picture.subgraph(name=f"cluster_{cluster}") as box:
            box.attr(label=title, style="filled,rounded", fillcolor=colour, color="#999999",
                     fontsize="13")
            for m in members[cluster]:
                box.node(m, _label(m))
    for source in known:
        for target in sorted(loading[source] | lazy[source]):
            only_lazy = target not in loading[source]
            pair = (cluster_of(source), cluster_of(target))
            if pair[0] == pair[1]:
                picture.edge(source, target, **(
                    {"style": "dashed", "constraint": "false"} if only_lazy else {}))
            else:
                across.setdefault(pair, {})[source, target] = only_lazy
    for (tail, head), found in sorted(across.items()):
        # a lazy import does not order the layout (it often points back up: cli → query)
        style = {"style": "dashed", "constraint": "false"} if all(found.values()) else {}
        source, target = min(found)  # drawn from a real import: the layout follows it
        names = sorted({t for _, t in found})
        picture.edge(source, target, ltail=f"cluster_{tail}", lhead=f"cluster_{head}",
                     label=", ".join(map(_label, names)), **style)
    return picture.source


def main() -> int:
    """Write the DOT source and, when Graphviz's ``dot`` is installed, the SVG."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    source = dot_source()
    DOT_FILE.write_text(source, encoding="utf-8")
    try:
        svg = subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True,
                             text=True, timeout=120)
        if svg.returncode != 0:  # dot's spline router loses some cluster-to-cluster
            # edges ("Pshortestpath failed") on some layouts: straight lines always route
            svg = subprocess.run(["dot", "-Tsvg", "-Gsplines=line"], input=source,
                                 capture_output=True, text=True, check=True, timeout=120)
        svg = svg.stdout
    except FileNotFoundError:
        print(f"wrote {DOT_FILE.relative_to(ROOT)}; install Graphviz's dot for the SVG",
              file=sys.stderr)
        return 1
    SVG_FILE.write_text(svg, encoding="utf-8")
    print(f"wrote {DOT_FILE.relative_to(ROOT)} and {SVG_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

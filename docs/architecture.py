"""The package map of bbn, drawn layer by layer from its own import graph.

``python docs/architecture.py`` parses every module of ``bbn/`` with :mod:`ast`, collects
the imports between bbn modules and writes the picture of docs/architecture.md:
``docs/images/architecture.gv`` (the DOT source, compared by tests/test_architecture.py
so the picture cannot go stale) and ``docs/images/architecture.svg`` (drawn by Graphviz's
``dot``).

One box per module; one cluster per layer, stacked bottom-up (core at the bottom, the
package top above apps), a sub-cluster per folder inside a layer (``engines/exact``,
``tasks/learning``...). Inside a layer an arrow is one import; between two layers one
arrow stands for all of them, labelled with the modules imported. Solid: imported when
the module loads; dotted: imported for type hints only (``if TYPE_CHECKING:``); dashed:
loaded on first use, by a *lazy reference* (a string ``"bbn.engines.approximate.lbp"``
or ``"bbn.tasks.learning:learn"`` resolved with :mod:`importlib`) or by an import inside
a function; red: an arrow that points UP the layers, which the architecture test refuses.

Everything is derived from the code; only the layers (their order, titles and colours)
are written here, in :data:`LAYERS`. The same parse serves the tests:
:func:`imports` lists every import and lazy reference of a file with the function it
sits in, :func:`layer_of` places a module in its layer.
"""

from __future__ import annotations

import ast
import functools
import re
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

# The only hand-written part: the layers, bottom-up (a module imports its own layer or
# lower ones), each a folder of bbn/ except "top": bbn/__init__.py and every module
# directly in bbn/ (bbn/deprecated.py...), the public API.
LAYERS = {
    "core": ("0 core: errors, memory, codes, draws, factor, tables, data", "#eeeeee"),
    "views": ("1 views: the compiled view of one revision, the factor graph", "#dae8fc"),
    "engines": ("2 engines: exact and approximate, over state indices", "#d5e8d4"),
    "questions": ("3 questions: language, resolution, dispatch, presentation",
                  "#fff2cc"),
    "model": ("4 model: Network, MarkovNetwork", "#cfe2f3"),
    "io": ("5 io: chunks and file formats", "#f8cecc"),
    "tasks": ("6 tasks: learning, structure, classification, trees, explain", "#e1d5e7"),
    "apps": ("7 apps: the command line, the explorer, rendering", "#ffe6cc"),
    "top": ("8 the package top: the public API", "#f5f5f5"),
}
TOP = "top"
# A lazy reference: a string literal that is exactly a module path, with an optional
# ``:attribute`` ("bbn.engines.approximate.lbp:LoopyBP"); it counts when it names a module.
REFERENCE = re.compile(r"^(bbn(?:\.\w+)+)(?::\w+)?$")


@dataclass(frozen=True)
class Import:
    """One import (or lazy reference), where it is written and in which function."""

    module: str           # the importing module, "bbn.model.network"
    function: str | None  # the enclosing function's qualified name, None at module level
    imported: str         # the imported module, "bbn.engines.exact" or "pyparsing"
    path: Path
    line: int
    type_checking: bool   # under ``if TYPE_CHECKING:``: a type hint, not run
    reference: bool = False  # a lazy reference (a string), not an import statement

    @property
    def where(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.line}"

    @property
    def kind(self) -> str:
        """``"lazy"`` (a string reference), ``"hint"`` (type checking), ``"late"``
        (inside a function) or ``"load"`` (at the top, run on loading)."""
        if self.reference:
            return "lazy"
        if self.type_checking:
            return "hint"
        return "late" if self.function is not None else "load"

    @property
    def described(self) -> str:
        """How the import is made, for messages."""
        return {"lazy": "a lazy reference (a string) to",
                "hint": "imports, for type checking,",
                "late": f"imports inside {self.function}()",
                "load": "imports"}[self.kind]


def module_name(path: Path, root: Path = ROOT) -> str:
    """``bbn/engines/exact/__init__.py`` → ``bbn.engines.exact``;
    ``bbn/apps/cli/main.py`` → ``bbn.apps.cli.main``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by name, sorted."""
    found = {module_name(p, package.parent): p for p in package.rglob("*.py")}
    return dict(sorted(found.items()))


def layer_of(module: str) -> str | None:
    """The layer of a module: its first folder under bbn/ when that is a layer, "top"
    for bbn itself and modules directly in bbn/, None for a folder that is no layer."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS and parts[1] != TOP:
        return parts[1]
    return TOP if len(parts) <= 2 else None


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


@functools.lru_cache(maxsize=512)
def _parse(path: Path, mtime: int) -> ast.Module:
    """The syntax tree of ``path`` (cached while the file is unchanged: the tests ask
    for the import graph several times)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imports(path: Path, known: dict[str, Path] | None = None,
            module: str | None = None) -> list[Import]:
    """Every import and lazy reference of the file at ``path``, with its enclosing
    function (if any), in the order written.

    ``known``: the package's modules (to tell ``from bbn.x import y``'s submodule y from a
    name, and a lazy reference from a string that only looks like one); ``module``: the
    file's module name, by default from its path.
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
            elif isinstance(child, ast.Constant) and isinstance(child.value, str):
                match = REFERENCE.match(child.value)
                if match and match[1] in known and match[1] != module:
                    found.append(Import(module, function, match[1], path, child.lineno,
                                        hints, reference=True))
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


def package_imports(known: dict[str, Path] | None = None) -> list[Import]:
    """Every import and lazy reference of every module of bbn, module by module."""
    known = modules() if known is None else known
    return [i for name, path in known.items() for i in imports(path, known, module=name)]


def bbn_imports(known: dict[str, Path] | None = None) -> list[Import]:
    """The imports and lazy references between two different modules of the package."""
    known = modules() if known is None else known
    return [i for i in package_imports(known) if i.imported in known and i.imported != i.module]


def import_graph(known: dict[str, Path] | None = None,
                 kinds: frozenset[str] = frozenset({"load", "hint", "late", "lazy"}),
                 ) -> dict[str, dict[str, set[str]]]:
    """``{module: {imported module: {kinds of import}}}`` between bbn modules, every
    module a key; ``kinds`` keeps some (``"load"``, ``"hint"``, ``"late"``, ``"lazy"``)."""
    known = modules() if known is None else known
    graph: dict[str, dict[str, set[str]]] = {m: {} for m in known}
    for i in bbn_imports(known):
        if i.kind in kinds:
            graph[i.module].setdefault(i.imported, set()).add(i.kind)
    return graph


def folder_of(module: str, known: dict[str, Path] | None = None) -> tuple[str, ...]:
    """The folders of a module below bbn/: ``("engines", "exact")`` for
    ``bbn.engines.exact.engine`` and for the package ``bbn.engines.exact``; ``()`` for
    bbn itself and modules directly in bbn/."""
    known = modules() if known is None else known
    path = known[module]
    return path.parent.relative_to(PACKAGE).parts


def label(module: str) -> str:
    """A module's box: its file's name (``__init__`` for a package's)."""
    parts = module.split(".")
    if module == "bbn":
        return "bbn/__init__ (public API)"
    if PACKAGE.joinpath(*parts[1:]).is_dir():  # a package: its __init__.py
        return f"{parts[-1]}/__init__"
    return parts[-1]


def _style(kinds: set[str], upward: bool) -> dict[str, str]:
    """The arrow for a set of import kinds: solid on loading, dotted for type hints,
    dashed on first use; red when it points up."""
    style = {} if "load" in kinds else {"style": "dotted"} if "hint" in kinds else {
        "style": "dashed"}
    if upward:
        style |= {"color": "#cc0000", "fontcolor": "#cc0000"}
    return style


def dot_source() -> str:
    """The DOT source of the package map (deterministic: sorted modules and arrows).

    The layers are stacked bottom-up: an arrow from an importing module to an imported
    one points down. Inside a layer, one arrow per importing and imported module;
    between two layers, one arrow per pair of layers, labelled with the modules imported
    (the per-module arrows across layers would hide the picture).
    """
    import graphviz  # the drawing library: needed by this script only

    known = modules()
    graph = import_graph(known)
    picture = graphviz.Digraph("bbn", graph_attr={
        "rankdir": "TB", "compound": "true", "newrank": "true", "fontname": "Helvetica",
        "fontsize": "16", "ranksep": "0.35", "nodesep": "0.2",
        "label": "bbn: its layers, bottom-up, and their imports (solid: on loading; dotted: "
                 "type hints only; dashed: on first use; red: points up, refused)",
        "labelloc": "t"},
        node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white",
                   "fontname": "Helvetica", "fontsize": "11", "height": "0.3"},
        edge_attr={"color": "#555555", "arrowsize": "0.6", "fontname": "Helvetica",
                   "fontsize": "9", "fontcolor": "#333333"})
    # the layers top-down in the file (dot stacks clusters in the order of the arrows;
    # the listing order keeps ties stable)
    below = None
    for layer in reversed(LAYERS):
        members = [m for m in known if layer_of(m) == layer]
        if not members:
            continue
        title, colour = LAYERS[layer]
        with picture.subgraph(name=f"cluster_{layer}") as box:
            box.attr(label=title, style="filled,rounded", fillcolor=colour, color="#999999",
                     fontsize="13")
            # two invisible points per layer, above and below its modules: they stack the
            # layers (dot would otherwise set them side by side)
            box.node(f"{layer}^", "", style="invis", width="0", height="0")
            box.node(f"{layer}_", "", style="invis", width="0", height="0")
            _draw_folders(box, members, known, depth=1)
        for m in members:
            picture.edge(f"{layer}^", m, style="invis")
            picture.edge(m, f"{layer}_", style="invis")
        if below is not None:
            picture.edge(f"{below}_", f"{layer}^", style="invis")
        below = layer
    across: dict[tuple[str, str], dict[str, set[str]]] = {}
    edges: list[tuple[str, str]] = []
    for source in known:
        for target, kinds in sorted(graph[source].items()):
            tail, head = layer_of(source), layer_of(target)
            if tail == head:  # only imports on loading order the layout inside a layer
                picture.edge(source, target, **_style(kinds, False),
                             **({} if "load" in kinds else {"constraint": "false"}))
            else:
                across.setdefault((tail, head), {}).setdefault(target, set()).update(kinds)
                edges.append((source, target))
    for (tail, head), found in sorted(across.items(), key=lambda p: (rank_of(p[0][0]),
                                                                      rank_of(p[0][1]))):
        kinds = set().union(*found.values())
        # drawn from one real import (the first), so the layout follows it
        source, target = min((s, t) for s, t in edges
                             if layer_of(s) == tail and layer_of(t) == head)
        attributes = {"ltail": f"cluster_{tail}", "lhead": f"cluster_{head}",
                      "label": ", ".join(sorted(map(label, found)))}
        if rank_of(head) > rank_of(tail):  # drawn reversed, so the layers stay stacked
            # (dot cannot rank arrows between clusters that do not constrain the layout)
            source, target = target, source
            attributes |= {"ltail": attributes["lhead"], "lhead": attributes["ltail"],
                           "dir": "back"}
        picture.edge(source, target, **attributes,
                     **_style(kinds, rank_of(head) > rank_of(tail)))
    return picture.source


def rank_of(layer: str | None) -> int:
    """A layer's position, bottom-up; -1 for None (a folder that is no layer)."""
    return list(LAYERS).index(layer) if layer in LAYERS else -1


def _draw_folders(box, members: list[str], known: dict[str, Path], depth: int) -> None:
    """The boxes of ``members`` (modules of one folder and its sub-folders) in ``box``:
    the folder's own modules, then one sub-cluster per sub-folder."""
    folders: dict[str, list[str]] = {}
    for m in members:
        folder = folder_of(m, known)
        if len(folder) <= depth:
            box.node(m, label(m))
        else:
            folders.setdefault(folder[depth], []).append(m)
    for _, inside in sorted(folders.items()):
        path = "/".join(folder_of(inside[0], known)[:depth + 1])
        with box.subgraph(name=f"cluster_{path.replace('/', '_')}") as sub:
            sub.attr(label=f"{path}/", style="filled,rounded", fillcolor="#ffffff80",
                     color="#aaaaaa", fontsize="11")
            _draw_folders(sub, inside, known, depth + 1)


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

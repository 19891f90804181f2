"""The architecture stays as docs/architecture.md draws it.

- The picture is generated from the code (docs/architecture.py) and up to date with it.
- Only ``bbn/model/network.py`` touches the network's insides: ``._cache``, ``._nodes``, the
  node-attribute keys ("states", "parents", "table", "positive", "kind") on node data,
  and ``net.graph`` internals (``.graph.nodes[...]``, ``.graph.add_*``,
  ``.graph.remove_*``). Engines read ``net.compiled()`` instead.
- A function-local import is kept only for start-up time (``bbn query`` must not load
  pyparsing, pandas, networkx, graphviz or the clique-tree modules) or for an optional
  dependency, never to break an import circle; each one is listed below with its reason.
- The public API carries numpydoc sections: Examples (a doctest) everywhere, Parameters
  wherever there are parameters.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import bbn

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bbn"


def _load_architecture():
    """docs/architecture.py as a module (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("bbn_docs_architecture",
                                                  ROOT / "docs" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


architecture = _load_architecture()


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _where(path: Path, node: ast.AST) -> str:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return f"{shown}:{node.lineno}"


# ------------------------------------------------------------------ the picture
def test_the_committed_picture_is_generated_from_the_code():
    """docs/images/architecture.gv is what docs/architecture.py draws today (the DOT
    source, not the SVG bytes, which vary with Graphviz's version)."""
    committed = architecture.DOT_FILE.read_text(encoding="utf-8")
    assert committed == architecture.dot_source(), (
        "the package's imports changed: run `python docs/architecture.py` and commit "
        "docs/images/architecture.gv and .svg")
    assert architecture.SVG_FILE.is_file()


_NODE = re.compile(r'^\t\t"?([\w.]+)"? \[label=', re.M)
_EDGE = re.compile(r'^\t"?([\w.]+)"? -> "?([\w.]+)"?(?: \[(.*)\])?$', re.M)


def test_the_picture_has_every_module_and_import():
    """One box per module; an import within a cluster is an arrow between the two
    modules, an import across clusters is named on the arrow between the clusters."""
    source = architecture.dot_source()
    assert set(_NODE.findall(source)) == set(architecture.modules())
    arrows = {(tail, head): attributes or "" for tail, head, attributes in _EDGE.findall(source)}
    across = {(re.search(r"ltail=cluster_(\w+)", a)[1], re.search(r"lhead=cluster_(\w+)", a)[1]):
              re.search(r'label="?([^"\]]*?)"?(?: \w+=|$)', a)[1]
              for a in arrows.values() if "lhead=" in a}
    loading, lazy = architecture.import_graph(), architecture.import_graph(lazy=True)
    cluster_of = architecture.cluster_of
    for module in loading:
        for imported in loading[module] | lazy[module]:
            tail, head = cluster_of(module), cluster_of(imported)
            if tail == head:
                dashed = "dashed" in arrows[module, imported]
                assert dashed == (imported not in loading[module]), (module, imported)
            else:
                assert architecture._label(imported) in across[tail, head].split(", ")
    styles = {"dashed" in attributes for attributes in arrows.values()}
    assert styles == {True, False}  # both kinds of import are drawn


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


def test_imports_resolve_submodules_and_functions(tmp_path):
    sample = tmp_path / "engine.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy as np\n"
        "from bbn.engines.exact import elimination, posterior\n"     # a submodule; a name
        "from . import ordering\n"
        "from ..factor import Factor\n"
        "if TYPE_CHECKING:\n"
        "    import networkx as nx\n"
        "class Engine:\n"
        "    def plan(self):\n"
        "        def inner():\n"
        "            import pyparsing\n"
        "        from bbn.engines.exact.clique_tree import junction_order\n")
    known = dict.fromkeys(["bbn.core.factor", "bbn.engines.exact", "bbn.engines.exact.elimination",
                           "bbn.engines.exact.ordering", "bbn.engines.exact.clique_tree"], sample)
    found = [(i.function, i.imported, i.type_checking, i.line) for i in
             architecture.imports(sample, known, module="bbn.engines.exact.engine")]
    assert found == [
        (None, "typing", False, 1), (None, "numpy", False, 2),
        (None, "bbn.engines.exact.elimination", False, 3), (None, "bbn.engines.exact", False, 3),
        (None, "bbn.engines.exact.ordering", False, 4), (None, "bbn.core.factor", False, 5),
        (None, "networkx", True, 7), ("Engine.plan.inner", "pyparsing", False, 11),
        ("Engine.plan", "bbn.engines.exact.clique_tree", False, 12)]


def test_cycle_through_finds_the_circle_an_import_would_close():
    graph = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert architecture.cycle_through(graph, "c", "a") == ["a", "b", "c"]
    assert architecture.cycle_through(graph, "a", "c") is None


# ------------------------------------------------- only Network reads its insides
PRIVATE_ATTRIBUTES = {"_cache", "_nodes"}
NODE_KEYS = {"states", "parents", "table", "positive", "kind"}
OWNER = PACKAGE / "network.py"


def _is_node_lookup(node: ast.AST) -> bool:
    """``x.nodes[v]`` or ``x._nodes[v]``: one variable's node data."""
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("nodes", "_nodes"))


def _iterates_node_data(node: ast.AST) -> bool:
    """``x.nodes()``, ``x.nodes(data=True)``, ``x.nodes.items()``, ``x._nodes.values()``
    ...: an iteration whose items hold node data."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    func = node.func
    if func.attr == "nodes":
        return True
    return (func.attr in ("items", "values", "data") and isinstance(func.value, ast.Attribute)
            and func.value.attr in ("nodes", "_nodes"))


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _node_data_names(scope: ast.AST) -> set[str]:
    """Names bound to node data in ``scope``: loop targets over node data, and names
    assigned ``x.nodes[v]``."""
    names: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, (ast.For, ast.comprehension)) and _iterates_node_data(node.iter):
            names |= _names(node.target)
        elif isinstance(node, ast.Assign) and _is_node_lookup(node.value):
            for target in node.targets:
                names |= _names(target)
    return names


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _reads_node_key(node: ast.AST, data_names: set[str]) -> str | None:
    """The node-attribute key ``node`` reads from node data (``data["states"]``,
    ``graph.nodes[v]["parents"]``, ``data.get("kind")``), or None."""
    if isinstance(node, ast.Subscript):
        holder, key = node.value, _key(node.slice)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
          and node.func.attr == "get" and node.args):
        holder, key = node.func.value, _key(node.args[0])
    else:
        return None
    if key not in NODE_KEYS:
        return None
    if _is_node_lookup(holder) or (isinstance(holder, ast.Name) and holder.id in data_names):
        return key
    return None


def _is_own(node: ast.AST) -> bool:
    """``self``/``cls``: a class reading its own attribute, not a Network's."""
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _is_network_graph(node: ast.AST) -> bool:
    """``x.graph`` where x is not ``self`` (a class may hold a graph of its own)."""
    return isinstance(node, ast.Attribute) and node.attr == "graph" and not _is_own(node.value)


def _graph_internal(node: ast.AST) -> str | None:
    """``x.graph.nodes[...]``, ``x.graph.add_*``, ``x.graph.remove_*``, or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        inner = node.value
        if inner.attr == "nodes" and _is_network_graph(inner.value):
            return ".graph.nodes[...]"
    if isinstance(node, ast.Attribute) and _is_network_graph(node.value) \
            and node.attr.startswith(("add_", "remove_")):
        return f".graph.{node.attr}"
    return None


def network_insides(path: Path) -> list[str]:
    """``file:line: what`` for every place ``path`` reaches into a Network."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    scopes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                     ast.ClassDef))]
    top = [n for n in tree.body if n not in scopes]
    found: dict[tuple[int, str], str] = {}
    for scope in [*scopes, ast.Module(body=top, type_ignores=[])]:
        data_names = _node_data_names(scope)
        for node in ast.walk(scope):
            what = None
            if (isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRIBUTES
                    and not _is_own(node.value)):
                what = f"reads .{node.attr}"
            elif (key := _reads_node_key(node, data_names)) is not None:
                what = f"reads the node attribute {key!r}"
            elif (internal := _graph_internal(node)) is not None:
                what = f"uses {internal}"
            if what:
                found.setdefault((node.lineno, what), f"{_where(path, node)}: {what}")
    return [found[k] for k in sorted(found)]


def test_only_network_touches_its_cache_nodes_and_graph():
    offences = [o for path in _files() if path != OWNER for o in network_insides(path)]
    assert not offences, (
        "only bbn/model/network.py may read Network's insides; read net.compiled() (or a "
        "Network method) instead:\n  " + "\n  ".join(offences))


def test_the_insides_check_finds_what_it_looks_for(tmp_path):
    """Node data and Network internals are found; dicts that merely share a key
    (parse results, regular-expression groups) are not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(net, result, m, where):\n"
        "    plan = net._cache.get('x')\n"                       # 2
        "    for v, data in net.nodes():\n"
        "        k = data['states'], data.get('kind')\n"         # 4 (twice)
        "    net.graph.nodes[v]['parents']\n"                    # 5 (twice)
        "    net.graph.add_edge('a', 'b')\n"                     # 6
        "    n = net._nodes[v]\n"                                # 7
        "    n['table']\n"                                       # 8
        "    return result['kind'], m['kind'], where['states']\n"
        "class Engine:\n"
        "    def __init__(self):\n"
        "        self._cache = {}\n"
        "        self.graph.add_edge('a', 'b')\n")
    lines = [o.split(": ", 1)[0].rsplit(":", 1)[1] + " " + o.split(": ", 1)[1]
             for o in network_insides(sample)]
    assert lines == [
        "2 reads ._cache", "4 reads the node attribute 'kind'",
        "4 reads the node attribute 'states'", "5 reads the node attribute 'parents'",
        "5 uses .graph.nodes[...]", "6 uses .graph.add_edge", "7 reads ._nodes",
        "8 reads the node attribute 'table'"]


# ---------------------------------------------------- function-local imports
# (module, function, imported module): why the import waits for the function. Start-up:
# `bbn query` must not load pyparsing, pandas, networkx, graphviz (tests/test_startup.py)
# nor the clique-tree modules (~20 ms); optional: a dependency bbn does not require. An
# import that only breaks an import circle does not belong here: restructure instead.
PANDAS = "start-up: loads pandas, which bbn query and import bbn do without"
EXPLAIN = "start-up: bbn query and import bbn need none of bbn.tasks.explain"
DASK = "optional: Dask (bbn[dask]) runs Dask collections, and only those"
CLIQUES = ("start-up: the junction-tree and clique-tree modules (~20 ms) serve every-posterior "
           "questions and very large plans only")
LOCAL_IMPORTS = {
    ("bbn.tasks.classification.base", "Classifier.__sklearn_tags__", "sklearn.utils"):
        "optional: only scikit-learn calls it, and bbn does not depend on scikit-learn",
    ("bbn.apps.cli.classify", "run_classify", "pandas"):
        "start-up: bbn.apps.cli.main imports this module for its arguments on every command",
    ("bbn.apps.cli.classify", "run_classify", "bbn.tasks.classification.prediction"): PANDAS,
    ("bbn.apps.cli.classify", "run_classify", "bbn.core.data"): PANDAS,
    ("bbn.apps.cli.classify", "_network_chunks", "bbn.tasks.classification.prediction"):
        PANDAS,
    ("bbn.apps.cli.learn", "run_sample", "bbn.tasks.learning.sampling"): PANDAS,
    ("bbn.apps.cli.learn", "csv_text", "pyarrow"):
        "optional: pyarrow (bbn[parquet]) writes bbn sample's CSV faster; pandas otherwise",
    ("bbn.apps.cli.learn", "csv_text", "pyarrow.csv"):
        "optional: pyarrow (bbn[parquet]) writes bbn sample's CSV faster; pandas otherwise",
    ("bbn.io.chunks", "_parquet_chunks", "pyarrow.parquet"):
        "optional: pyarrow (bbn[parquet]) reads Parquet files, and only those",
    ("bbn.questions.partitions", "require_dask", "dask"): DASK,
    ("bbn.questions.partitions", "posterior_partitions", "dask.array"): DASK,
    ("bbn.apps.cli.main", "run_render", "bbn.apps.rendering"):
        "start-up: loads graphviz, which only bbn render needs",
    ("bbn.apps.cli.serve", "run_serve", "bbn.apps.explorer.server"):
        "start-up: http.server, graphviz and the app (~100 ms), only bbn serve needs them",
    ("bbn.model.network", "Network.explore", "bbn.apps.explorer.inline"):
        "start-up: http.server, graphviz and the app, only for the notebook's explorer",
    ("bbn.engines.exact.ordering", "bandwidth_order", "networkx"):
        "start-up: networkx (~0.2 s), only for an order worth searching (2^20-entry tables)",
    ("bbn.core.errors", "suggest", "difflib"):
        "start-up: only when there is a mistake to name, not on every command's start",
    ("bbn.tasks.classification.classifier", "_feature_tree", "bbn.tasks.structure.tree"):
        "start-up: networkx (~0.3 s), only NaiveBayes(structure='tan') needs the tree",
    ("bbn.tasks.classification.decisions", "loss_matrix", "pandas"):
        "start-up: bbn classify's parser imports this module on every command",
    ("bbn.io.formats._runs", "_token_class", "pyparsing"):
        "start-up: only the located grammars need it; the fast paths read well-formed files",
    ("bbn.io.formats.bn.grammar", "_grammar", "pyparsing"):
        "start-up: the grammar reads ill-formed statements only; the fast path spares it",
    ("bbn.io.formats.bn.grammar", "_number_block", "pyparsing"):
        "start-up: made with the grammar, for ill-formed statements only",
    ("bbn.engines.exact.engine", "Engine.junction_order", "bbn.engines.exact.clique_tree"): CLIQUES,
    ("bbn.engines.exact.engine", "Engine.normalised_tables", "bbn.engines.exact.clique_tree"): CLIQUES,
    ("bbn.engines.exact.engine", "Engine.junction_tree", "bbn.engines.exact.junction_tree"): CLIQUES,
    ("bbn.engines.exact.engine", "Engine.posteriors", "bbn.engines.exact.junction_tree"): CLIQUES,
    ("bbn.engines.exact.engine", "Engine.marginals_of_cases", "bbn.engines.exact.junction_tree"):
        CLIQUES,
    ("bbn.engines.exact.engine", "Engine._posterior", "bbn.engines.exact.junction_tree"): CLIQUES,
    ("bbn.engines.exact.engine", "Engine._weighted_group", "bbn.core.data"): PANDAS,
    ("bbn.questions.resolution", "evidence_codes", "bbn.core.data"): PANDAS,
    ("bbn.questions.resolution", "impossible_row", "bbn.core.data"): PANDAS,
    ("bbn.apps.cli.learn", "run_learn", "bbn.tasks.learning.missing"): PANDAS,
    ("bbn.apps.cli.learn", "run_learn", "bbn.tasks.learning.parameters"): PANDAS,
    ("bbn.apps.cli.main", "run_explain", "bbn.tasks.explain.derivation"):
        "start-up: the other commands need none of bbn.tasks.explain",
    ("bbn.questions.language", "Query.answer", "bbn.questions.explained"):
        "start-up: networkx (~0.2 s), only for an independence question",
    ("bbn.questions.independence", "is_independent", "networkx"):
        "start-up: networkx (~0.2 s), only when d-separation is asked",
    ("bbn.questions.independence", "_digraph", "networkx"):
        "start-up: networkx (~0.2 s), only when d-separation is asked",
    ("bbn.model.network", "Network.explain", "bbn.tasks.explain.derivation"): EXPLAIN,
    ("bbn.model.network", "Network.is_independent", "bbn.questions.independence"): EXPLAIN,
    ("bbn.model.network", "Network.active_trail", "bbn.questions.independence"): EXPLAIN,
    ("bbn.model.network", "Network.markov_blanket", "bbn.questions.independence"): EXPLAIN,
    ("bbn.model.network", "Network.value_of_information", "bbn.questions.information"): EXPLAIN,
    ("bbn.model.network", "Network.sensitivity", "bbn.tasks.explain.sensitivity"): EXPLAIN,
    ("bbn.model.network", "Network.graph", "networkx"):
        "start-up: networkx, only for the read-only graph copy",
    ("bbn.model.network", "Network._repr_svg_", "bbn.apps.rendering"):
        "start-up: loads graphviz, only for Jupyter's picture",
    ("bbn.model.network", "Network.predict_proba", "bbn.tasks.classification.prediction"): PANDAS,
    ("bbn.model.network", "Network.predict", "bbn.tasks.classification.prediction"): PANDAS,
    ("bbn.apps.rendering.comparison", "comparison_arcs", "bbn.tasks.structure.compare"):
        "start-up: bbn.tasks.structure loads networkx and scipy, only a comparison picture needs it",
    ("bbn.questions.language", "_grammars", "pyparsing"):
        "start-up: the scanner reads the usual queries; pyparsing (~40 ms) for the rest",
    ("bbn.apps.cli.tree", "run_tree", "bbn.core.data"): PANDAS,
    ("bbn.apps.cli.tree", "run_tree", "bbn.tasks.trees.features"): PANDAS,
    ("bbn.apps.cli.tree", "run_tree", "bbn.tasks.trees.tree"): PANDAS,
    ("bbn.apps.cli.tree", "run_tree", "bbn.apps.rendering"):
        "start-up: loads graphviz, only for a picture of the tree",
    ("bbn.apps.cli.tree", "tree_posteriors", "bbn.tasks.trees.features"): PANDAS,
    ("bbn.apps.cli.tree", "tree_posteriors", "bbn.tasks.trees.tree"): PANDAS,
}


def local_imports() -> dict[tuple[str, str, str], list[str]]:
    """``{(module, function, imported module): [file:line, ...]}`` for every import
    inside a function of bbn/."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for i in architecture.package_imports():
        if i.function is not None:
            found.setdefault((i.module, i.function, i.imported), []).append(i.where)
    return found


def _why_unlisted(module: str, imported: str, loading: dict, every: dict) -> str:
    """What moving the import to the top of ``module`` would do, for the message."""
    if imported in loading.get(module, ()):
        return "already imported at the top: delete it"
    others = {m: targets - {imported} if m == module else targets
              for m, targets in every.items()}
    circle = architecture.cycle_through(others, module, imported)
    if circle:
        return ("breaks an import circle " + " → ".join([module, *circle]) + " (counting "
                "the other function-local imports): restructure")
    return "no circle: move it to the top, or give a reason"


def test_function_local_imports_are_listed_with_a_reason():
    loading, lazy = architecture.import_graph(), architecture.import_graph(lazy=True)
    every = {m: loading[m] | lazy[m] for m in loading}
    unlisted = []
    for (module, function, imported), places in sorted(local_imports().items()):
        if (module, function, imported) not in LOCAL_IMPORTS:
            why = _why_unlisted(module, imported, loading, every)
            unlisted.append(f"{', '.join(places)}: {function} imports {imported} — {why}\n"
                            f"      ({module!r}, {function!r}, {imported!r}): \"...\",")
    assert not unlisted, (
        f"{len(unlisted)} function-local imports have no reason (start-up or optional "
        "dependency) in LOCAL_IMPORTS:\n  " + "\n  ".join(unlisted))


def test_the_local_import_list_has_no_stale_entries():
    present = local_imports()
    stale = sorted(k for k in LOCAL_IMPORTS if k not in present)
    assert not stale, f"LOCAL_IMPORTS lists imports the code no longer makes: {stale}"


def test_local_import_reasons_are_start_up_or_optional():
    for key, reason in LOCAL_IMPORTS.items():
        assert reason.startswith(("start-up: ", "optional: ")), key
        assert "circle" not in reason and "cycle" not in reason, key


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

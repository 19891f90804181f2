"""Layer 7, apps: the programs on top of the library: the ``bbn`` command line
(:mod:`bbn.apps.cli`), the explorer in the browser (:mod:`bbn.apps.explorer`) and the
Graphviz pictures (:mod:`bbn.apps.rendering`). Imports: any layer below."""

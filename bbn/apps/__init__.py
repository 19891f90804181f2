"""The applications on top of the library: the ``bbn`` command line
(:mod:`bbn.apps.cli`), the explorer in the browser (:mod:`bbn.apps.explorer`) and the
Graphviz pictures (:mod:`bbn.apps.rendering`)."""

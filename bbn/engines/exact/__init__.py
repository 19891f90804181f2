"""Exact inference: variable elimination and junction trees, behind one engine.

    P(Q | e) = Σ_h Π_i P(Xi | parents(Xi)) |_e  /  P(e)

The engine of a network revision (:class:`bbn.Engine`, ``net.engine``; see
:mod:`bbn.engines.exact.engine`) answers questions resolved to state indices (the
protocol of :mod:`bbn.engines.protocol`) and keeps what it compiles. A network's
questions (``net.posterior(...)``, ``net.query(...)``) reach it through
:mod:`bbn.questions.dispatch`.

>>> import bbn
>>> round(bbn.load("models/chair.bn").posterior(["C"], {"A": "T"}).to_dict()["T"], 6)
0.886749
"""

from bbn.core.memory import get_memory_limit, set_memory_limit
from bbn.engines.exact.elimination import CASE
from bbn.engines.exact.engine import Engine

__all__ = ["CASE", "Engine", "get_memory_limit", "set_memory_limit"]

"""Public names whose modules load on first use (PEP 562), so ``import bbn`` stays fast
and the command line imports pandas or graphviz only when a command needs them.

>>> __getattr__ = lazy_attributes("demo", {"sqrt": "math"})
>>> __getattr__("sqrt")(9.0)
3.0
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_attributes(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that imports ``names[name]`` (a module path) and returns
    its attribute ``name``; any other name is an AttributeError naming ``package``."""

    def __getattr__(name: str):
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__

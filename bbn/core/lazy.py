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
    """A module ``__getattr__`` (PEP 562) that imports a module on first use.

    Parameters
    ----------
    package : str
        The package the ``__getattr__`` serves, named in the AttributeError.
    names : mapping of str to str
        ``{public name: module path}``: the name is that module's attribute.

    Returns
    -------
    callable
        ``__getattr__(name)``: ``names[name]``'s attribute ``name``; any other name is an
        AttributeError.

    Examples
    --------
    >>> __getattr__ = lazy_attributes("demo", {"sqrt": "math"})
    >>> __getattr__("sqrt")(16.0)
    4.0
    >>> __getattr__("cbrt")
    Traceback (most recent call last):
        ...
    AttributeError: module 'demo' has no attribute 'cbrt'
    """

    def __getattr__(name: str):
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def reference(text: str) -> object:
    """What a lazy reference names: ``"package.module:attribute"`` (or a bare module
    path), imported on first use. A module that must load late (the approximate engines,
    which ``import bbn`` does not load) is named by such a string; the architecture test
    reads every one as an import.

    Examples
    --------
    >>> reference("math:sqrt")(25.0)
    5.0
    """
    module, _, attribute = text.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found

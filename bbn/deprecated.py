"""The old question methods of :class:`bbn.Network`, kept for one release as aliases.

Explanations, independence, information, prediction and the explorer are plain functions
over a network now (as networkx does): ``bbn.explain(net, query)`` rather than
``net.explain(query)``. Each old method is one line that warns (``FutureWarning``, naming
the new call) and calls the new function, found through the package's lazy names on
first use, so ``import bbn`` loads none of them. They are installed from the package top
because the model layer must not import the layers above it.

>>> import bbn, warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     blanket = bbn.load("models/chair.bn").markov_blanket("B")
>>> blanket, str(caught[0].message)
(('C', 'S', 'A'), 'Network.markov_blanket(...) is deprecated; use bbn.markov_blanket(net, ...)')
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from bbn.core.lazy import lazy_attributes
from bbn.model.network import Network

#: Where each function over a network lives (``bbn.<name>`` loads it from there on first
#: use; the package's lazy names include these).
FUNCTIONS = {
    "explain": "bbn.tasks.explain.derivation",
    "is_independent": "bbn.questions.d_separation",
    "active_trail": "bbn.questions.d_separation",
    "markov_blanket": "bbn.questions.d_separation",
    "value_of_information": "bbn.questions.information",
    "sensitivity": "bbn.tasks.explain.sensitivity",
    "predict": "bbn.tasks.classification.prediction",
    "predict_proba": "bbn.tasks.classification.prediction",
    "explore": "bbn.apps.explorer.inline",
}
_function = lazy_attributes(__name__, FUNCTIONS)

#: The old method names, each now ``bbn.<name>(net, ...)`` with the same arguments, with
#: the arguments of the example in the alias's docstring.
RENAMED = {
    "explain": '"P(C=T | A=T)"',
    "is_independent": '"C", "S", given="A"',
    "active_trail": '"C", "S", given="A"',
    "markov_blanket": '"B"',
    "value_of_information": '"C", evidence={"A": "T"}',
    "sensitivity": '"P(C | A=T)", "C", None, "T"',
    "predict_proba": 'pandas.DataFrame({"A": ["T"]}), "C"',
    "predict": 'pandas.DataFrame({"A": ["T"]}), "C"',
    "explore": "height=450",
}

_DOC = """Deprecated: use ``bbn.{name}(net, ...)``, which takes the same arguments.

This alias stays for one release: it warns (FutureWarning, naming the new call) and
returns what ``bbn.{name}`` returns.

Parameters
----------
*args, **kwargs
    As ``bbn.{name}`` takes them after the network.

Returns
-------
object
    What ``bbn.{name}(net, *args, **kwargs)`` returns.

Examples
--------
>>> import bbn, pandas, warnings
>>> net = bbn.load("models/chair.bn")
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     answer = net.{name}({arguments}){skip}
>>> print(caught[0].message){skip}
Network.{name}(...) is deprecated; use bbn.{name}(net, ...)
"""


def alias(name: str) -> Callable:
    """The deprecated method ``Network.<name>``: warns, then calls ``bbn.<name>(self, ...)``.

    Parameters
    ----------
    name : str
        The method's name, that of the public function too (a key of RENAMED).

    Returns
    -------
    callable
        The method.

    Examples
    --------
    >>> alias("explain").__doc__.splitlines()[0]
    'Deprecated: use ``bbn.explain(net, ...)``, which takes the same arguments.'
    """

    def method(self: Network, *args, **kwargs):
        warnings.warn(f"Network.{name}(...) is deprecated; use bbn.{name}(net, ...)",
                      FutureWarning, stacklevel=2)
        return _function(name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = _DOC.format(name=name, arguments=RENAMED[name],
                                 skip="  # doctest: +SKIP" if name == "explore" else "")
    return method


for _name in RENAMED:
    setattr(Network, _name, alias(_name))

"""Dynamic networks in the ``.bn`` language: a variable's parents may be named in the
slice before, ``P(Rain | Rain[-1])``, and slice 0's table is written for ``Rain[0]``::

    network umbrella
    variable Rain { T, F }
    variable Umbrella { T, F }
    P(Rain[0]) = 0.5, 0.5                 # slice 0
    P(Rain | Rain[-1]) { T: 0.7, 0.3; F: 0.3, 0.7 }
    P(Umbrella | Rain) { T: 0.9, 0.1; F: 0.2, 0.8 }   # every slice, slice 0 too

The statements are rewritten into those of the two-slice network (``X[0]``, ``X[1]``),
each name keeping its place in the file, and built by the ``.bn`` reader, so every
mistake is reported at its line and column; the result is a
:class:`bbn.DynamicNetwork`. A file of a two-slice network (variables ``X[0]`` and
``X[1]``, as ``bbn.save(dbn.two_slice(), ...)`` writes it) reads as well.

>>> dbn = read_dynamic('''
... variable Rain { T, F }
... variable Umbrella { T, F }
... P(Rain[0]) = 0.5, 0.5
... P(Rain | Rain[-1]) { T: 0.7, 0.3; F: 0.3, 0.7 }
... P(Umbrella | Rain) { T: 0.9, 0.1; F: 0.2, 0.8 }''', "umbrella.bn")
>>> dbn.parents("Rain"), dbn.parents("Umbrella")
(('Rain[-1]',), ('Rain',))
"""

from __future__ import annotations

import bbn.io.formats as formats
import bbn.io.formats.bn as bn_format
import bbn.io.formats.bn.lagged as lagged
import bbn.model.dynamic as dynamic


def read_dynamic(text: str, source: str = "<string>",
                 normalize: bool = False) -> dynamic.DynamicNetwork:
    """The dynamic network of a ``.bn`` text (see the module's description).

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        How errors name it (``file.bn``).
    normalize : bool
        Rescale every row of every table to sum 1.

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    ParseError
        At ``source:line:col``: a slice other than 0 (for a table's variable) or −1 and 0
        (for a parent), a variable with a parent in the slice before and no slice-0
        table, and every mistake of an ordinary ``.bn`` file.

    Examples
    --------
    >>> read_dynamic("variable X { a, b }  P(X | X[-1]) = 0.5, 0.5, 0.5, 0.5")
    Traceback (most recent call last):
        ...
    bbn.core.errors.ParseError: <string>:1:24: P(X | ...) has a parent in the slice before: ...
    """
    net = bn_format.read(text, source, normalize, rewrite=lagged.two_slice_statements)
    return dynamic.DynamicNetwork.from_two_slice(net)


def load_dynamic(path, normalize: bool = False) -> dynamic.DynamicNetwork:
    """A dynamic network from a file: a ``.bn`` file in the dynamic form (or two-slice),
    any other format as a two-slice network (``X[0]``/``X[1]`` or pyAgrum's ``X0``/``Xt``,
    :meth:`bbn.DynamicNetwork.from_two_slice`).

    Parameters
    ----------
    path : str or os.PathLike
        The file (``.gz``: gunzipped).
    normalize : bool
        Rescale every row of every table to sum 1.

    Returns
    -------
    bbn.DynamicNetwork

    Raises
    ------
    ParseError, ModelError
        As :func:`read_dynamic` and :func:`bbn.load`.

    Examples
    --------
    >>> load_dynamic("models/umbrella.bn").parents("Rain")
    ('Rain[-1]',)
    """
    if formats.format_of(path) == "bn":
        return read_dynamic(formats.read_text(path), str(path), normalize)
    return dynamic.DynamicNetwork.from_two_slice(formats.load(path, normalize=normalize))

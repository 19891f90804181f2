"""Layer 0, core: numbers and tables, importing nothing of bbn above them.

:mod:`~bbn.core.factor` (``Factor``: a numpy array with named axes, the one table type
of inference, learning and classification), :mod:`~bbn.core.tables` (the one validator
of conditional tables), :mod:`~bbn.core.memory` (the one memory limit, checked before
every large allocation), :mod:`~bbn.core.errors` (``BBNError`` and its subclasses, and
``suggest`` for did-you-mean), :mod:`~bbn.core.data` (tabular data → integer state codes:
the edge where data meets variables), :mod:`~bbn.core.codes` (mixed-radix codes),
:mod:`~bbn.core.draws` (categorical draws) and :mod:`~bbn.core.lazy` (names and lazy
references loaded on first use).

Every layer may import this one; it imports only numpy and the standard library (and
pandas, inside :mod:`~bbn.core.data`).
"""

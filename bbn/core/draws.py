"""Categorical draws by inverse CDF: one state per row, each from its own table row.

For a row of weights p(0), ..., p(r−1) (a conditional table's row, not necessarily
normalised) and a uniform u on [0, Σ p), the state drawn is

    x = #{k < r − 1 : F(k) ≤ u},   F(k) = Σ_{j ≤ k} p(j)

so a whole batch of rows is drawn with one comparison array, in blocks of 65 536 rows
(the comparison array holds rows × states booleans).

>>> import numpy as np
>>> table = np.array([[1.0, 0.0], [0.0, 1.0]])
>>> draw_states(table, np.array([0, 1, 1]), np.random.default_rng(0)).tolist()
[0, 1, 1]
"""

from __future__ import annotations

import numpy as np

#: Rows drawn per block: bounds the (rows × states) comparison array.
_BLOCK = 1 << 16


def draw_states(table: np.ndarray, index: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One state per row from row ``index[i]`` of ``table`` (shape configurations × states).

    Parameters
    ----------
    table : numpy.ndarray
        Non-negative weights, one row per configuration (rows need not sum to 1).
    index : numpy.ndarray
        The row of ``table`` each draw uses.
    rng : numpy.random.Generator
        The source of uniforms (one per draw).

    Returns
    -------
    numpy.ndarray
        State codes (int8 for fewer than 127 states, int32 otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> codes = draw_states(np.array([[1.0, 3.0]]), np.zeros(100_000, dtype=int),
    ...                     np.random.default_rng(1))
    >>> bool(abs(codes.mean() - 0.75) < 0.01)
    True
    """
    cumulative = np.cumsum(table, axis=1)
    last = table.shape[1] - 1
    codes = np.empty(len(index), dtype=np.int8 if last < 127 else np.int32)
    for start in range(0, len(index), _BLOCK):
        rows = index[start:start + _BLOCK]
        u = rng.random(len(rows)) * cumulative[rows, -1]
        below = (cumulative[rows, :-1] <= u[:, None]).sum(axis=1)
        codes[start:start + _BLOCK] = np.minimum(below, last)
    return codes

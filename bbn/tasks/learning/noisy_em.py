"""Learning the numbers of a noisy-OR (or noisy-AND) table by expectation–maximisation.

A noisy-OR Y is on when the leak Z_L or a contribution Z_i of a present cause is; the
Z's are hidden. Given a row (u, y), with P(Y = T | u) = 1 − (1 − leak) Π_{u_i = T} (1 − p_i)::

    E[Z_i | u, y] = [u_i = T] · [y = T] · p_i / P(Y = T | u)
    E[Z_L | u, y] = [y = T] · leak / P(Y = T | u)

and the M-step divides: p_i = Σ_rows E[Z_i] / #(u_i = T), leak = Σ_rows E[Z_L] / N. Each
iteration is two matrix products over the rows (N × n causes), so 40 causes cost 40
numbers per row, never a 2^40 table; the log-likelihood never decreases. A noisy-AND is
the noisy-OR of the complements (every state flipped). :func:`learn_noisy` also learns
noisy-MAX tables (:mod:`bbn.tasks.learning.noisy_max_em`) and logistic ones
(:func:`fit_logistic`), each kept compact.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> u = rng.random((20000, 2)) < 0.5
>>> on = (rng.random(20000) < 0.1) | (u[:, 0] & (rng.random(20000) < 0.8)) | (
...     u[:, 1] & (rng.random(20000) < 0.6))
>>> p, leak, _ = fit_noisy_or(u, on)
>>> np.round(p, 1).tolist(), round(leak, 1)
([0.8, 0.6], 0.1)
"""

from __future__ import annotations

import numpy as np

import bbn.model.canonical as canonical
from bbn.core.data import MISSING, encode
from bbn.core.errors import DataError
from bbn.io.chunks import chunks
from bbn.model.network import Network
from bbn.tasks.learning.noisy_max_em import fit_noisy_max
from bbn.tasks.learning.softmax_fit import fit_counts, fit_softmax

#: EM stops when no parameter moves more than this, or after MAX_ITERATIONS.
TOLERANCE = 1e-7
MAX_ITERATIONS = 1000


def fit_noisy_or(causes: np.ndarray, on: np.ndarray, tol: float = TOLERANCE,
                 max_iter: int = MAX_ITERATIONS) -> tuple[np.ndarray, float, int]:
    """(p_i, leak, iterations) by EM from ``causes`` (N × n booleans: cause present) and
    ``on`` (N booleans: Y = T).

    Raises
    ------
    DataError
        For no rows.
    """
    causes = np.asarray(causes, dtype=float)
    on = np.asarray(on, dtype=bool)
    rows, n = causes.shape
    if rows == 0:
        raise DataError("no rows to learn the noisy table from")
    present = causes.sum(axis=0)
    p, leak = np.full(n, 0.5), 0.5
    iterations = 0
    while iterations < max_iter:
        iterations += 1
        with np.errstate(divide="ignore"):
            # einsum, not BLAS: a threaded matrix-vector product took 50 ms under load
            log_off = np.log1p(-leak) + np.einsum("rn,n->r", causes,
                                                  np.log1p(-np.minimum(p, 1 - 1e-15)))
        p_on = -np.expm1(log_off)  # P(Y = T | u), accurate near 0
        share = np.divide(on, p_on, out=np.zeros(rows), where=on & (p_on > 0))
        new_p = np.divide(p * np.einsum("r,rn->n", share, causes), present, out=p.copy(),
                          where=present > 0)
        new_leak = leak * share.sum() / rows
        moved = max(float(np.abs(new_p - p).max(initial=0.0)), abs(new_leak - leak))
        p, leak = np.clip(new_p, 0.0, 1.0), float(min(max(new_leak, 0.0), 1.0))
        if moved < tol:
            break
    return p, leak, iterations


#: The compact kinds :func:`bbn.learn` learns kept compact: by EM (noisy), by maximum
#: likelihood (logistic: a logistic regression on the parents' state indices).
LEARNED_COMPACT = ("noisy-or", "noisy-and", "noisy-max", "logistic")


def logistic_from_counts(counts: np.ndarray, name: str) -> canonical.Canonical:
    """The logistic table maximising Σ_{u, y} n(u, y) · log P(y | u), ``counts`` n of shape
    (|U_1|, ..., |U_n|, 2) (the expected counts of an EM over missing values): a
    logistic regression with one row per parent configuration u, weighted by its counts.

    >>> spec = logistic_from_counts(np.array([[2.0, 1.0], [1.0, 2.0]]), "Y")
    >>> [round(w, 4) for w in spec.weights], round(spec.bias, 4)    # 2·log 2, −log 2
    ([1.3863], -0.6931)
    """
    shape = counts.shape
    values = np.indices(shape[:-1]).reshape(len(shape) - 1, -1).T.astype(float)
    theta = fit_counts(values, counts.reshape(-1, shape[-1]))
    return canonical.logistic(shape, theta[0, 1:].tolist(), float(theta[0, 0]), name)


def noisy_variables(net: Network) -> list[str]:
    """The variables of ``net`` with a noisy-OR, noisy-AND, noisy-MAX or logistic table
    (what :func:`bbn.learn` learns keeping them compact)."""
    found = []
    for v in net.variables:
        spec = net.canonical(v)
        if spec is not None and spec.kind in LEARNED_COMPACT:
            found.append(v)
    return found


def fit_logistic(causes: np.ndarray, on: np.ndarray) -> tuple[np.ndarray, float]:
    """(w, b) maximising Σ_rows log P(y | u), P(Y = T | u) = σ(b + Σ_i w_i · u_i), ``causes``
    the N × n parents' state indices, ``on`` Y = T (Newton's method of
    :func:`bbn.tasks.learning.softmax_fit.fit_softmax`, its ridge 1e-8 per row).

    >>> u = np.array([[0], [0], [0], [1], [1], [1]])
    >>> w, b = fit_logistic(u, np.array([0, 0, 1, 1, 1, 0], bool))   # 1/3 then 2/3
    >>> round(float(w[0]), 4), round(b, 4)                          # 2·log 2, −log 2
    (1.3863, -0.6931)
    """
    rows = len(on)
    if rows == 0:
        raise DataError("no rows to learn the logistic table from")
    bias, weights = fit_softmax(np.zeros(rows, np.int64), np.asarray(causes, float),
                                np.asarray(on, np.int64), 1, 2)
    return weights[0, 1], float(bias[0, 1])


def without_parents(net: Network, variables: list[str]) -> Network:
    """A copy of ``net`` where ``variables`` have no parents: what the counting pass reads
    (their family counts would be the full table)."""
    counted = net.copy()
    for v in variables:
        counted.set_parents(v, ())
    return counted


def learn_noisy(net: Network, data, variables: list[str], *, columns=None,
                chunksize: int | None = None, missing: str = "error",
                learned: Network) -> None:
    """Set on ``learned`` the noisy table of each of ``variables`` fitted by EM on the rows
    of ``data`` (read chunk by chunk, each family's state codes kept: n + 1 small
    integers per row); rows missing a family value are left out (the counting pass has
    refused them already unless ``missing="drop"``)."""
    families = {v: [*net.parents(v), v] for v in variables}
    needed = list(dict.fromkeys(u for family in families.values() for u in family))
    states = {u: net.states(u) for u in needed}
    parts = []
    for chunk in chunks(data, columns, states, chunksize):
        parts.append(encode(chunk.frame, needed, [states[u] for u in needed],
                            source=chunk.source))
    codes = np.concatenate(parts) if parts else np.empty((0, len(needed)), dtype=np.int64)
    position = {u: j for j, u in enumerate(needed)}
    for v, family in families.items():
        block = codes[:, [position[u] for u in family]]
        block = block[(block != MISSING).all(axis=1)]
        spec = net.canonical(v)
        shape = tuple(net.cardinality(u) for u in family)
        if spec.kind == "noisy-max":
            if not len(block):
                raise DataError(f"no complete rows to learn the noisy-MAX table of {v!r}")
            rows, leak, _ = fit_noisy_max(block[:, :-1], block[:, -1], shape[:-1], shape[-1])
            learned._set_canonical(v, canonical.noisy_max(
                shape, [r[1:] for r in rows], leak, v, tuple(family[:-1])))
            continue
        if spec.kind == "logistic":
            w, bias = fit_logistic(block[:, :-1], block[:, -1] == 1)
            learned._set_canonical(v, canonical.logistic(shape, w.tolist(), bias, v))
            continue
        flip = spec.kind == "noisy-and"  # the noisy-OR of the complements
        causes, on = (block[:, :-1] == 1), (block[:, -1] == 1)
        p, leak, _ = fit_noisy_or(~causes if flip else causes, ~on if flip else on)
        learned._set_canonical(v, canonical.noisy_or(
            shape, p.tolist(), leak, v, tuple(family[:-1]), dual=flip))

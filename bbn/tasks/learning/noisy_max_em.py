"""Learning a noisy-MAX table (graded causes and child, with leak) by EM, kept compact.

Y = max(Z_1, ..., Z_n, Z_L): Z_i ~ C_i[u_i] is what cause i alone would make Y (its
first state, "absent", gives y_0 for sure), Z_L ~ L the leak's; the Z's are hidden. With
F_j(y) = P(Z_j ≤ y) and G_i(y) = Π_{j ≠ i} F_j(y) (every other contribution, leak
included, at most y), a row (u, y) has P(Y = y | u) = Π_j F_j(y) − Π_j F_j(y − 1) and::

    P(Z_i = z | u, y) = C_i[u_i](z) · G_i(y)                  z = y
                      = C_i[u_i](z) · (G_i(y) − G_i(y − 1))    z < y
                      = 0                                      z > y

divided by P(Y = y | u) (E-step: G_i by prefix and suffix products, an N × (n + 1) × |Y|
array, no division by F_i). The M-step normalises the expected counts:
C_i[u](z) = Σ_{rows with u_i = u} P(Z_i = z | ·) / #(u_i = u), and L likewise over every
row. Each iteration sums N·(n + 1) numbers (:func:`_expected_counts`), never the
Π|U_i|·|Y| full table, and
the log-likelihood never decreases. Equal rows are collapsed first (with their counts).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> u = rng.integers(0, 2, size=(20000, 1))
>>> z = np.where(u[:, 0] == 1, rng.choice(3, 20000, p=[0.2, 0.3, 0.5]), 0)
>>> y = np.maximum(z, rng.choice(3, 20000, p=[0.9, 0.1, 0.0]))
>>> contributions, leak, trace = fit_noisy_max(u, y, (2,), 3)
>>> np.round(contributions[0][1], 1).tolist(), np.round(leak, 1).tolist()
([0.2, 0.3, 0.5], [0.9, 0.1, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import bbn.model.canonical as canonical
from bbn.core.codes import distinct_rows
from bbn.core.errors import DataError

#: EM stops when no probability moves more than this, or after MAX_ITERATIONS.
TOLERANCE = 1e-7
MAX_ITERATIONS = 1000


def _exclusive_products(values: np.ndarray) -> np.ndarray:
    """Along axis 1, the product of every other entry: the row's product divided by the
    entry, or for a zero entry the product of the others when it is the row's only zero
    (a reduction and a division: numpy's cumulative products are several times slower)."""
    zero = values == 0
    zeros = zero.sum(axis=1, keepdims=True)
    product = np.where(zero, 1.0, values).prod(axis=1, keepdims=True)
    divided = np.divide(product, values, out=np.zeros_like(values), where=~zero)
    return np.where(zeros == 0, divided, np.where(zero & (zeros == 1), product, 0.0))


def expected_contributions(contributions: Sequence[np.ndarray], leak: np.ndarray,
                           causes: np.ndarray, y: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """The E-step: P(Z_i = z | u_r, y_r) of shape (N, n + 1, |Y|) (the leak last) and
    P(y_r | u_r) of shape (N,).

    Parameters
    ----------
    contributions : sequence of numpy.ndarray
        C_i of shape ``(|U_i|, |Y|)``, rows summing to 1 (the first the point mass y_0).
    leak : numpy.ndarray
        L, shape ``(|Y|,)``.
    causes : numpy.ndarray
        N × n state codes of the causes.
    y : numpy.ndarray
        N state codes of Y.

    Returns
    -------
    posterior, likelihood : numpy.ndarray

    Examples
    --------
    >>> c = [np.array([[1.0, 0.0], [0.2, 0.8]])]
    >>> post, p = expected_contributions(c, np.array([0.5, 0.5]), np.array([[1]]),
    ...                                  np.array([1]))
    >>> np.round(post[0, 0] * 9, 6).tolist(), round(float(p[0]), 6)   # 1 − 0.2·0.5
    ([1.0, 8.0], 0.9)
    """
    rows = len(y)
    states = leak.shape[0]
    # per row and contribution (leak last), its distribution over Y's states
    c = np.stack([np.asarray(rows_i)[causes[:, i]] for i, rows_i in enumerate(contributions)]
                 + [np.broadcast_to(leak, (rows, states))], axis=1)
    cumulative = np.cumsum(c, axis=2)
    at = np.take_along_axis(cumulative, y[:, None, None], axis=2)[:, :, 0]
    below = np.where(y[:, None] > 0, np.take_along_axis(
        cumulative, np.maximum(y - 1, 0)[:, None, None], axis=2)[:, :, 0], 0.0)
    others_at, others_below = _exclusive_products(at), _exclusive_products(below)
    likelihood = np.maximum(others_at[:, 0] * at[:, 0] - others_below[:, 0] * below[:, 0], 0.0)
    z = np.arange(states)[None, None, :]
    factor = np.where(z < y[:, None, None], (others_at - others_below)[:, :, None],
                      np.where(z == y[:, None, None], others_at[:, :, None], 0.0))
    scale = np.divide(1.0, likelihood, out=np.zeros(rows), where=likelihood > 0)
    return c * factor * scale[:, None, None], likelihood


def fit_noisy_max(causes: np.ndarray, y: np.ndarray, cardinalities: Sequence[int],
                  states: int, weights: np.ndarray | None = None, tol: float = TOLERANCE,
                  max_iter: int = MAX_ITERATIONS, initial: tuple | None = None
                  ) -> tuple[list[np.ndarray], np.ndarray, list[float]]:
    """(C_i per cause, L, log-likelihood per iteration) of the noisy-MAX of ``y`` (N
    codes < ``states``) on ``causes`` (N × n codes, cause i < ``cardinalities[i]``) by EM
    from uniform rows, or from ``initial`` = (C_i per cause, L); ``weights`` counts each
    row (default 1). A cause state never seen keeps its starting row.

    Raises
    ------
    DataError
        For no rows.
    """
    causes = np.asarray(causes, dtype=np.int64).reshape(len(y), -1)
    y = np.asarray(y, dtype=np.int64)
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    if not len(y) or weights.sum() <= 0:
        raise DataError("no rows to learn the noisy-MAX table from")
    distinct, inverse = distinct_rows(np.column_stack([causes, y]))
    weights = np.bincount(inverse.ravel(), weights=weights, minlength=len(distinct))
    causes, y = distinct[:, :-1], distinct[:, -1]
    offsets = np.concatenate([[0], np.cumsum(cardinalities)[:-1]]).astype(np.int64)
    total = int(np.sum(cardinalities))
    # each row's contributions as rows of one stacked table, the leak the last row
    index = np.column_stack([causes + offsets, np.full(len(y), total)])
    seen = np.bincount(index.ravel(), weights=np.repeat(weights, index.shape[1]),
                       minlength=total + 1) > 0
    first = np.zeros(total + 1, bool)
    first[offsets] = True  # "absent": the point mass y_0, not learned
    learned = seen & ~first
    flat = np.full((total + 1, states), 1.0 / states)
    flat[first] = np.eye(states)[0]
    if initial is not None:
        flat = np.vstack([*initial[0], initial[1]]).astype(float)
    trace: list[float] = []
    for _ in range(max_iter):
        counts, log_likelihood = _expected_counts(flat, index, y, weights)
        trace.append(log_likelihood)
        new = flat.copy()
        new[learned] = counts[learned] / counts[learned].sum(axis=1, keepdims=True)
        moved = float(np.abs(new - flat).max())
        flat = new
        if moved < tol:
            break
    return np.split(flat[:-1], offsets[1:]), flat[-1], trace


def _expected_counts(flat: np.ndarray, index: np.ndarray, y: np.ndarray, weights: np.ndarray
                     ) -> tuple[np.ndarray, float]:
    """Σ_rows weight · P(Z = z | u, y) per row of ``flat`` (the stacked C_i[u] and L;
    ``index`` the N × (n + 1) rows each data row uses) and the log-likelihood. The
    posterior of :func:`expected_contributions` is C(z) times a factor that depends on z
    only through z < y or z = y, so the sums need N × (n + 1) numbers, not × |Y|:
    n(z) = C(z) · (Σ_{y > z} S_<(y) + S_=(z))."""
    states = flat.shape[1]
    cumulative = np.cumsum(flat, axis=1)
    at = cumulative[index, y[:, None]]
    below = np.where(y[:, None] > 0, cumulative[index, np.maximum(y - 1, 0)[:, None]], 0.0)
    others_at, others_below = _exclusive_products(at), _exclusive_products(below)
    likelihood = np.maximum(others_at[:, 0] * at[:, 0] - others_below[:, 0] * below[:, 0], 0.0)
    share = np.divide(weights, likelihood, out=np.zeros(len(y)), where=likelihood > 0)
    key = (index * states + y[:, None]).ravel()
    size = flat.size
    lower = np.bincount(key, weights=(share[:, None] * (others_at - others_below)).ravel(),
                        minlength=size).reshape(flat.shape)
    equal = np.bincount(key, weights=(share[:, None] * others_at).ravel(),
                        minlength=size).reshape(flat.shape)
    above = np.cumsum(lower[:, ::-1], axis=1)[:, ::-1] - lower  # Σ_{y > z}
    with np.errstate(divide="ignore"):
        log_likelihood = float(np.dot(weights, np.log(likelihood)))
    return flat * (above + equal), log_likelihood


def compact_from_counts(spec: canonical.Canonical, counts: np.ndarray, name: str,
                        parents: Sequence[str], tol: float = TOLERANCE,
                        warm: bool = True) -> canonical.Canonical:
    """The noisy table of ``spec``'s kind (noisy-OR, -AND or -MAX) maximising
    Σ_{u, y} n(u, y) · log P(y | u), ``counts`` n of shape (|U_1|, ..., |U_n|, |Y|) (the
    expected counts of an EM over missing values), by the noisy EM above started from
    ``spec`` (``warm=False``: from uniform rows): the log-likelihood of the counts does
    not fall, so the outer EM stays monotone. A noisy-AND (a minimum) is fitted as the
    maximum of the reversed states.

    >>> spec = canonical.noisy_or((2, 2), [0.5], leak=0.5)
    >>> counts = np.array([[90.0, 10.0], [20.0, 80.0]])     # 1 − 0.9 · (1 − p) = 0.8
    >>> round(compact_from_counts(spec, counts, "Y", ["A"]).weights[0], 4)
    0.7778
    """
    flip = spec.combine == "min"
    contributions = [c[::-1, ::-1] if flip else c for c in spec.contributions]
    leak = spec.leak[::-1] if flip else spec.leak
    counts = counts[(slice(None, None, -1),) * counts.ndim] if flip else counts
    seen = np.nonzero(counts > 0)
    rows, leak, _ = fit_noisy_max(np.column_stack(seen[:-1]) if len(seen) > 1 else
                                  np.empty((len(seen[0]), 0), np.int64), seen[-1],
                                  counts.shape[:-1], counts.shape[-1], weights=counts[seen],
                                  tol=tol, initial=(contributions, leak) if warm else None)
    if spec.kind == "noisy-max":
        return canonical.noisy_max(counts.shape, [r[1:] for r in rows], leak, name, parents)
    return canonical.noisy_or(counts.shape, [float(r[1, 1]) for r in rows], float(leak[1]),
                              name, parents, dual=flip)

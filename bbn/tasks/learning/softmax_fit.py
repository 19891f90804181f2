"""Softmax (multinomial logistic) variables learned from data: maximum likelihood per
configuration of the discrete parents, by Newton's method.

For the rows at configuration d, with z = (1, y_1, ..., y_m) and the first state as the
reference (a_0 = w_0 = 0), θ_k = (a_k, w_k) maximises

    ℓ(θ) = Σ_n log softmax(θ z_n)_{x_n} − (λ/2) ‖θ‖²

(λ = 1e-8 · n keeps separable data finite). Its gradient Σ_n (e_{x_n} − p_n) ⊗ z_n and
Hessian −Σ_n (diag p_n − p_n p_nᵀ) ⊗ z_n z_nᵀ are sums over the rows, one ``einsum`` each;
a few Newton steps (halved while ℓ falls) converge.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> y = rng.normal(size=(20000, 1))
>>> x = (rng.random(20000) < 1 / (1 + np.exp(-(0.5 + 2 * y[:, 0])))).astype(int)
>>> bias, weights = fit_softmax(np.zeros(20000, int), y, x, 1, 2)
>>> np.round(bias[0], 1).tolist(), np.round(weights[0, :, 0], 1).tolist()
([0.0, 0.5], [0.0, 2.0])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bbn.core.codes import mixed_radix
from bbn.core.data import MISSING, encode, numeric_column
from bbn.core.errors import DataError
from bbn.io.chunks import chunks
from bbn.model.network import Network

#: The ridge λ per row (keeps the weights finite when the data separate the states).
RIDGE = 1e-8


def fit_softmax(index: np.ndarray, values: np.ndarray, states: np.ndarray, q: int,
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, w) of shapes (q, k) and (q, k, m): the maximum-likelihood softmax of ``states``
    (n state indices) on ``values`` (n × m) per configuration ``index`` (n, < q). A
    configuration without rows gets zeros (uniform)."""
    n, m = values.shape
    bias, weights = np.zeros((q, k)), np.zeros((q, k, m))
    order = np.argsort(index, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(index, minlength=q))])
    for d in range(q):
        rows = order[bounds[d]:bounds[d + 1]]
        if len(rows):
            theta = _newton(np.column_stack([np.ones(len(rows)), values[rows]]),
                            np.eye(k)[states[rows]])
            bias[d, 1:], weights[d, 1:] = theta[:, 0], theta[:, 1:]
    return bias, weights


def fit_counts(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """θ of shape (k − 1, 1 + m) maximising Σ_r Σ_x counts[r, x] · log softmax(θ z_r)_x,
    z_r = (1, values[r]) (rows of counts, e.g. the expected counts of an EM; the first
    state the reference), by the same Newton steps.

    >>> theta = fit_counts(np.array([[0.0], [1.0]]), np.array([[3.0, 1.0], [1.0, 3.0]]))
    >>> np.round(theta, 4).tolist()                      # log 3 − log 1 = 1.0986 apart
    [[-1.0986, 2.1972]]
    """
    return _newton(np.column_stack([np.ones(len(values)), values]), np.asarray(counts, float))


def _newton(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rows of ``y``: one-hot states, or counts per state (each row weighs its total)."""
    n, width = z.shape
    k = y.shape[1] - 1
    ridge = RIDGE * n
    theta = np.zeros((k, width))
    total = y.sum(axis=1)

    def log_likelihood(theta: np.ndarray) -> tuple[float, np.ndarray]:
        scores = np.column_stack([np.zeros(n), z @ theta.T])
        top = scores.max(axis=1, keepdims=True)
        log_p = scores - top - np.log(np.exp(scores - top).sum(axis=1, keepdims=True))
        return float(np.sum(y * log_p)) - 0.5 * ridge * float(np.sum(theta ** 2)), \
            np.exp(log_p)

    value, p = log_likelihood(theta)
    for _ in range(100):
        pk = p[:, 1:]
        gradient = (y[:, 1:] - total[:, None] * pk).T @ z - ridge * theta
        w = total[:, None, None] * pk[:, :, None] * (np.eye(k)[None] - pk[:, None, :])
        hessian = np.einsum("nab,ni,nj->aibj", w, z, z).reshape(k * width, k * width)
        step = np.linalg.solve(hessian + ridge * np.eye(k * width),
                               gradient.ravel()).reshape(k, width)
        for _ in range(30):  # halve while the log-likelihood falls
            new_value, new_p = log_likelihood(theta + step)
            if new_value >= value - 1e-12 * abs(value):
                break
            step = step / 2
        theta, value, p = theta + step, new_value, new_p
        if np.abs(step).max() < 1e-10 * (1 + np.abs(theta).max()):
            break
    return theta


def learn_softmax(net: Network, data, variables: list[str], learned: Network, columns=None,
                  chunksize: int | None = None) -> None:
    """Set on ``learned`` the softmax of each of ``variables`` fitted on ``data`` (the
    rows with every value of its family; the data read whole)."""
    states = {v: net.states(v) for v in net.variables if not net.is_gaussian(v)}
    frames = [chunk.frame for chunk in chunks(data, columns, states, chunksize)]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    for v in variables:
        spec = net.canonical(v)
        discrete = list(spec.discrete) + [v]
        codes = encode(frame, discrete, [net.states(u) for u in discrete], source="data")
        values = np.column_stack([numeric_column(frame[y], y, "data")
                                  for y in spec.continuous])
        kept = ~((codes == MISSING).any(axis=1) | np.isnan(values).any(axis=1))
        if not kept.any():
            raise DataError(f"no complete rows to learn the softmax variable {v!r} from")
        cards = [net.cardinality(p) for p in spec.discrete]
        index = (mixed_radix([codes[kept, j] for j in range(len(cards))], cards) if cards
                 else np.zeros(int(kept.sum()), np.int64))
        bias, weights = fit_softmax(index, values[kept], codes[kept, -1],
                                    int(np.prod(cards)) if cards else 1, net.cardinality(v))
        shape = tuple(cards) + (net.cardinality(v),)
        learned.set_softmax(v, {y: weights[..., i].reshape(shape)
                                for i, y in enumerate(spec.continuous)},
                            bias=bias.reshape(shape))

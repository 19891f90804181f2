"""The interface algorithm with whole slices as dense tables, for 2-TBNs whose slice is
small: the product of a slice's tables is multiplied out once, and every step is one
matrix product over the batch.

    S_t = every variable of slice t,  M(I_{t-1}, S_t) = Π_v P(v_t | pa)   (once)
    J_t(S_t) = α_{t-1} M · Λ_t(S_t),   α_t(I_t) = Σ_{S_t \\ I_t} J_t / Σ J_t

where Λ_t is the product of the evidence λ_t(v) of the slice. The answers equal
:class:`bbn.engines.exact.frontier.Frontier`'s (same messages, other order of sums);
:func:`dense_fits` says when the tables are small enough.

>>> import bbn
>>> dbn = bbn.DynamicNetwork("umbrella")
>>> dbn.add_variable("Rain", ["T", "F"], parents=["Rain[-1]"],
...                  table=[[0.7, 0.3], [0.3, 0.7]], initial=[0.5, 0.5])
>>> dbn.add_variable("Umbrella", ["T", "F"], parents=["Rain"], table=[[0.9, 0.1], [0.2, 0.8]])
>>> DenseFrontier(dbn.two_slice().compiled()).step.shape
(2, 4)
"""

from __future__ import annotations

import math

import numpy as np

from bbn.core.memory import check_allocation
from bbn.engines.exact.chains import Batch
from bbn.engines.exact.frontier import Frontier

#: entries of M(I, S) at most for the dense form
DENSE_LIMIT = 1 << 22


def dense_fits(view, limit: int = DENSE_LIMIT) -> bool:
    """Whether a two-slice view's M(I, S) has at most ``limit`` entries.

    Examples
    --------
    >>> import bbn
    >>> dbn = bbn.DynamicNetwork()
    >>> dbn.add_variable("X", ["a", "b"], table=[0.5, 0.5])
    >>> dense_fits(dbn.two_slice().compiled())
    True
    """
    names = view.variables
    cards = [view.cardinality[v] for v in names[:len(names) // 2]]
    return math.prod(cards) * math.prod(cards) <= limit  # |I| ≤ |S|: a bound that is quick


class DenseFrontier(Frontier):
    """:class:`Frontier` on dense slice tables (same methods, same answers).

    Attributes
    ----------
    prior : ndarray (|S|,)
        P(S_0).
    step : ndarray (|I|, |S|)
        M(I_{t-1}, S_t).
    """

    def __init__(self, view) -> None:
        super().__init__(view)
        n = self.n
        size = math.prod(self.cards)
        self.iface_shape = tuple(self.cards[i] for i in self.interface)
        check_allocation(math.prod(self.iface_shape) * size, "a slice's dense table")
        none = slice(0, 0)
        self.prior = np.einsum(*self._operands(0, None, none), list(range(n))).reshape(-1)
        self.step = np.einsum(*self._operands(1, None, none),
                              list(self.interface) + [n + v for v in range(n)]
                              ).reshape(-1, size)
        self.others = tuple(1 + v for v in range(n) if v not in self.interface)
        self.iface_broadcast = tuple(c if v in self.interface else 1
                                     for v, c in enumerate(self.cards))

    # --------------------------------------------------------------- pieces
    def _evidence(self, evidence: list, t: int, m: int) -> np.ndarray | None:
        """Λ_t ``(m, |S|)``, or None without evidence."""
        product = None
        for v, lam in enumerate(evidence):
            if lam is None:
                continue
            shape = [m] + [1] * self.n
            shape[v + 1] = self.cards[v]
            factor = lam[t, :m].reshape(shape)
            product = factor if product is None else product * factor
        if product is None:
            return None
        return np.broadcast_to(product, (m,) + self.cards).reshape(m, -1)

    def _joint(self, t: int, m: int, alpha: np.ndarray, lam) -> np.ndarray:
        """J_t ``(m, |S|)``, unnormalised."""
        if t == 0:
            joint = np.repeat(self.prior[None], m, axis=0)
        else:
            joint = alpha[t - 1, :m].reshape(m, -1) @ self.step
        if lam is not None:
            joint *= lam
        return joint

    def _interface(self, joint: np.ndarray) -> np.ndarray:
        m = len(joint)
        return joint.reshape((m,) + self.cards).sum(axis=self.others) if self.others else \
            joint.reshape((m,) + self.cards)

    def _times_beta(self, joint: np.ndarray, beta: np.ndarray) -> np.ndarray:
        m = len(joint)
        return (joint.reshape((m,) + self.cards)
                * beta.reshape((m,) + self.iface_broadcast)).reshape(m, -1)

    # --------------------------------------------------------------- questions
    def forward(self, evidence: list, batch: Batch, variables: list[int] | None = None):
        """As :meth:`Frontier.forward`; with ``variables``, their filtered marginals too
        (one slice table per step serves both)."""
        steps, size = batch.steps, len(batch.order)
        answers = [np.zeros((steps, size, self.cards[v])) for v in variables or ()]
        check_allocation(steps * size * max(1, math.prod(self.iface_shape)),
                         "the forward messages")
        alpha = np.zeros((steps, size) + self.iface_shape)
        log_c = np.zeros((steps, size))
        with np.errstate(divide="ignore", invalid="ignore"):
            for t in range(steps):
                m = batch.running[t]
                joint = self._joint(t, m, alpha, self._evidence(evidence, t, m))
                c = joint.sum(axis=1)
                joint /= c[:, None]
                alpha[t, :m] = self._interface(joint)
                log_c[t, :m] = np.log(c)
                for answer, values in zip(answers, self._marginals_of(joint, variables or ()),
                                          strict=True):
                    answer[t, :m] = values
        if variables is not None:
            return alpha, log_c.sum(axis=0), answers
        return alpha, log_c.sum(axis=0)

    def filter(self, variables: list[int], evidence: list,
               batch: Batch) -> tuple[list[np.ndarray], np.ndarray]:
        """P(v_t | e_1:t) of each of ``variables`` and log P(e), in one forward pass."""
        _, log_likelihood, answers = self.forward(evidence, batch, variables)
        return answers, log_likelihood

    def backward(self, evidence: list, batch: Batch) -> np.ndarray:
        steps = batch.steps
        beta = np.zeros((steps, len(batch.order)) + self.iface_shape)
        beta[steps - 1, :batch.running[steps - 1]] = 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            for t in range(steps - 2, -1, -1):
                m, after = batch.running[t], batch.running[t + 1]
                lam = self._evidence(evidence, t + 1, after)
                ahead = self._times_beta(np.ones((after, self.step.shape[1])) if lam is None
                                         else np.array(lam), beta[t + 1, :after])
                values = ahead @ self.step.T
                values /= values.sum(axis=1, keepdims=True)
                beta[t, :after] = values.reshape((after,) + self.iface_shape)
                beta[t, after:m] = 1.0
        return beta

    def _marginals_of(self, joint: np.ndarray, variables) -> list[np.ndarray]:
        m = len(joint)
        with np.errstate(invalid="ignore", divide="ignore"):
            joint = joint / joint.sum(axis=1, keepdims=True)
        table = joint.reshape((m,) + self.cards)
        return [table.sum(axis=tuple(1 + u for u in range(self.n) if u != v))
                for v in variables]

    def marginals(self, variables: list[int], evidence: list, batch: Batch,
                  alpha: np.ndarray, beta: np.ndarray | None = None) -> list[np.ndarray]:
        steps, size = batch.steps, len(batch.order)
        answers = [np.zeros((steps, size, self.cards[v])) for v in variables]
        for t in range(steps):
            m = batch.running[t]
            joint = self._joint(t, m, alpha, self._evidence(evidence, t, m))
            if beta is not None:
                joint = self._times_beta(joint, beta[t, :m])
            for answer, values in zip(answers, self._marginals_of(joint, variables),
                                      strict=True):
                answer[t, :m] = values
        return answers

    def predict(self, variables: list[int], last: np.ndarray, horizon: int) -> list[np.ndarray]:
        size = len(last)
        message = last.reshape(size, -1)
        for _ in range(horizon - 1):
            joint = message @ self.step
            message = self._interface(joint / joint.sum(axis=1, keepdims=True)).reshape(size, -1)
        return self._marginals_of(message @ self.step, variables)

"""What every EM run shares: its settings check, its stopping rule and its result.

EM stops after the first iteration t ≥ 1 whose observed-data log-likelihood moves by

    |ℓ_t − ℓ_{t−1}| ≤ tol · max(1, |ℓ_t|)

or after ``max_iter`` M-steps. Both the discrete EM (:mod:`bbn.tasks.learning.missing`) and the
mixture EM (:mod:`bbn.tasks.learning.mixture`) build an :class:`EMResult`.

>>> converged([-10.0, -9.0, -9.000001], tol=1e-6)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bbn.core.errors import DataError
from bbn.model.network import Network


@dataclass
class EMResult:
    """The learned network, the log-likelihood after each iteration, and how it ended.

    Attributes
    ----------
    network : Network
        The network with the learned tables.
    log_likelihood : list of float
        ``log_likelihood[0]`` is that of the initial tables, ``log_likelihood[-1]`` that
        of ``network``.
    iterations : int
        The number of M-steps made.
    converged : bool
        Whether the stopping rule held (else ``max_iter`` was reached).
    """

    network: Network
    log_likelihood: list[float] = field(default_factory=list)
    iterations: int = 0
    converged: bool = False


def check_iteration(max_iter: int, tol: float) -> None:
    """DataError unless ``max_iter ≥ 1`` and ``tol ≥ 0``."""
    if not (max_iter >= 1 and tol >= 0):
        raise DataError(f"EM needs max_iter ≥ 1 and tol ≥ 0, got {max_iter!r}, {tol!r}")


def converged(log_likelihood: list[float], tol: float) -> bool:
    """Whether the last log-likelihood moved by at most ``tol · max(1, |ℓ|)``."""
    if len(log_likelihood) < 2:
        return False
    ll, previous = log_likelihood[-1], log_likelihood[-2]
    return abs(ll - previous) <= tol * max(1.0, abs(ll))

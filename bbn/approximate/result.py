"""What an approximate engine returns: marginals, their standard errors, and how it ran.

For a sampler with n weighted samples (weights w_i, normalised ŵ_i = w_i / Σ w), the
estimate of P(X = x | e) is p̂ = Σ_i ŵ_i [x_i = x]; its standard error is estimated by the
delta method, floored with the effective sample size n_eff = (Σ w)² / Σ w² (Kish) as
sqrt((p̂ (1 − p̂) + 1/n_eff) / n_eff) for rare states (see :mod:`bbn.approximate.weighted`),
or from the spread between chains (Gibbs, :mod:`bbn.approximate.gibbs`). Loopy belief
propagation gives no standard error (None); it reports its iterations and last residual.

>>> import numpy as np
>>> report = RunReport("lw", samples=1000, effective_samples=812.5, seconds=0.01)
>>> result = Marginals({"A": np.array([0.25, 0.75])}, {"A": np.array([0.015, 0.015])},
...                    None, report)
>>> result.probabilities["A"].tolist(), result.report.method
([0.25, 0.75], 'lw')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class RunReport:
    """How an approximate engine ran.

    Parameters
    ----------
    method : str
        ``"lbp"``, ``"lw"``, ``"is"`` or ``"gibbs"``.
    iterations : int, optional
        Message-passing sweeps (LBP); sweeps kept after burn-in (Gibbs).
    residual : float, optional
        The largest change of a message in the last sweep (LBP).
    converged : bool
        Whether the stopping rule was met (LBP: residual below the tolerance; samplers:
        always True — a sampler that ran out of time says so in ``stopped_by``).
    samples : int
        Samples drawn (over all chains).
    effective_samples : float, optional
        Kish's effective sample size of the weights; for Gibbs, the median over states
        of p̂(1 − p̂)/SE², the number of independent samples as precise.
    seconds : float
        Wall-clock time of the run.
    stopped_by : str
        ``"tolerance"``, ``"iterations"``, ``"samples"`` or ``"time"``.

    Examples
    --------
    >>> RunReport("lbp", iterations=12, residual=3e-9, seconds=0.002).converged
    True
    """

    method: str
    iterations: int | None = None
    residual: float | None = None
    converged: bool = True
    samples: int = 0
    effective_samples: float | None = None
    seconds: float = 0.0
    stopped_by: str = ""


@dataclass(frozen=True)
class Marginals:
    """Approximate single-variable posteriors P(X | e) of every unobserved variable.

    Parameters
    ----------
    probabilities : dict of str to numpy.ndarray
        variable → P(X | e), shape ``(|X|,)``, summing to 1 (observed variables one-hot).
    standard_errors : dict of str to numpy.ndarray, optional
        variable → the standard error of each entry (0 for observed variables); None for
        methods without one (LBP).
    log_partition : float, optional
        An estimate of log Z(e) (natural log; for a Bayesian network log P(e)) when the
        method gives one (LBP: the Bethe free energy; samplers with weights: the log of
        the mean weight); None otherwise.
    report : RunReport
        How the engine ran.

    Examples
    --------
    >>> import numpy as np
    >>> Marginals({"A": np.array([1.0, 0.0])}, None, 0.0, RunReport("lbp")).log_partition
    0.0
    """

    probabilities: dict[str, np.ndarray]
    standard_errors: dict[str, np.ndarray] | None
    log_partition: float | None
    report: RunReport = field(default_factory=lambda: RunReport(""))

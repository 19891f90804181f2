"""What an approximate engine returns: marginals, their standard errors, and how it ran.

For a sampler with n weighted samples (weights w_i, normalised ŵ_i = w_i / Σ w), the
estimate of P(X = x | e) is p̂ = Σ_i ŵ_i [x_i = x]; its standard error is estimated by the
delta method, floored with the effective sample size n_eff = (Σ w)² / Σ w² (Kish) as
sqrt((p̂ (1 − p̂) + 1/n_eff) / n_eff) for rare states (see :mod:`bbn.engines.approximate.weighted`),
or from the spread between chains (Gibbs, :mod:`bbn.engines.approximate.gibbs`). Loopy belief
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


class MapEstimate(tuple):
    """An approximate MAP or MPE: the pair ``(assignment, probability)`` (so
    ``assignment, p = net.map(..., method="lw")`` reads as the exact answer does), with
    how sure it is.

    Parameters
    ----------
    assignment : dict of str to str
        The MAP variables' states (MPE: every unobserved variable's).
    probability : float
        P̂(assignment | e).
    standard_error : float, optional
        The sampling standard error of ``probability`` (None: loopy BP, or an MPE whose
        probability divides an exact score by an estimated Z(e)).
    runner_up : dict of str to str, optional
        The second-best assignment found (None for an MPE, or when there is no other).
    runner_up_probability : float, optional
        Its P̂.
    margin : float, optional
        (p̂ − p̂_runner-up) / SE of the difference (samplers); below 2 the top two are
        not clearly ordered.
    report : RunReport
        How the method ran.
    estimated_z : bool, default False
        Whether ``probability`` divides an exact score by an *estimate* of Z(e) (an
        approximate MPE given evidence): printed as such, since it has no standard error.

    Examples
    --------
    >>> found = MapEstimate({"C": "T"}, 0.62, 0.01, {"C": "F"}, 0.38, 12.0, RunReport("lw"))
    >>> assignment, p = found
    >>> assignment, p, found.separated
    ({'C': 'T'}, 0.62, True)
    >>> print("\\n".join(found.text_lines()))
      standard error 0.010000
      runner-up C=F: 0.380000 (12.0 standard errors behind)
    """

    #: A margin below this many standard errors does not order the top two.
    SEPARATION = 2.0

    def __new__(cls, assignment: dict[str, str], probability: float,
                standard_error: float | None = None, runner_up: dict[str, str] | None = None,
                runner_up_probability: float | None = None, margin: float | None = None,
                report: RunReport | None = None, estimated_z: bool = False) -> MapEstimate:
        found = super().__new__(cls, (assignment, probability))
        found.estimated_z = estimated_z
        found.standard_error, found.runner_up = standard_error, runner_up
        found.runner_up_probability, found.margin = runner_up_probability, margin
        found.report = report if report is not None else RunReport("")
        return found

    @property
    def assignment(self) -> dict[str, str]:
        """The assignment found."""
        return self[0]

    @property
    def probability(self) -> float:
        """P̂(assignment | e)."""
        return self[1]

    @property
    def separated(self) -> bool | None:
        """Whether the top assignment leads the runner-up by at least 2 standard errors
        (None without a margin)."""
        return None if self.margin is None else bool(self.margin >= self.SEPARATION)

    def text_lines(self, digits: int = 6) -> list[str]:
        """The lines ``bbn query`` prints under the probability."""
        lines = []
        if self.standard_error is not None:
            lines.append(f"  standard error {self.standard_error:.{digits}f}")
        elif self.estimated_z:
            lines.append("  (an estimate: the assignment's exact weight over "
                         f"{self.report.method}'s estimate of P(evidence); no standard error)")
        if self.runner_up is not None:
            shown = ", ".join(f"{v}={s}" for v, s in self.runner_up.items())
            line = f"  runner-up {shown}: {self.runner_up_probability:.{digits}f}"
            if self.margin is not None:
                line += (f" ({self.margin:.1f} standard errors behind)" if self.separated
                         else f" (within {self.SEPARATION:g} standard errors: the top two "
                         "are not clearly ordered; draw more samples)")
            lines.append(line)
        return lines

    def to_json(self) -> dict:
        """The fields beyond ``assignment`` and ``p`` (``bbn query --json``)."""
        return {"standard_error": self.standard_error, "runner_up": self.runner_up,
                "runner_up_p": self.runner_up_probability,
                "margin": None if self.margin in (None, float("inf")) else self.margin,
                "method": self.report.method, "estimated_z": self.estimated_z}

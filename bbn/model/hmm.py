"""Hidden Markov models: one hidden chain of K states, each step emitting one observation.

    P(x_1:T, e_1:T) = π(x_1) Π_{t>1} A(x_{t-1}, x_t) · Π_t B(e_t | x_t)

with categorical emissions B(o | k) (a K × M table) or Gaussian ones
B(e | k) = N(e; μ_k, σ²_k). The questions (filter, smooth, predict, Viterbi, the
log-likelihood) are answered by :mod:`bbn.questions.sequences` on the scaled
forward–backward and log-space Viterbi of :mod:`bbn.engines.exact.chains`, batched over
many sequences (given concatenated, with ``lengths``); :meth:`HMM.fit` is Baum–Welch.
An HMM is the 2-TBN ``P(X | X[-1])``, ``P(O | X)``: :meth:`HMM.to_dynamic` gives it as a
:class:`bbn.DynamicNetwork`.

>>> import bbn
>>> umbrella = bbn.HMM(["rain", "dry"], ["umbrella", "none"], start=[0.5, 0.5],
...                    transition=[[0.7, 0.3], [0.3, 0.7]],
...                    emission=[[0.9, 0.1], [0.2, 0.8]])
>>> umbrella.filter(["umbrella", "umbrella"]).round(3)[1]
array([0.883, 0.117])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import bbn.model.dynamic as dynamic
import bbn.questions.sequences as sequences
from bbn.core.errors import ModelError, NotFittedError
from bbn.core.tables import bad_rows

LOG_2PI = float(np.log(2 * np.pi))
KINDS = ("categorical", "gaussian")


def _table(values, shape: tuple[int, ...], what: str) -> np.ndarray:
    table = np.array(values, dtype=float)
    if table.shape != shape:
        raise ModelError(f"the {what} has shape {table.shape}, not {shape}")
    bad = bad_rows(table)
    if bad:
        raise ModelError(f"the {what} is no table of probabilities: row {bad[0]}")
    table.setflags(write=False)
    return table


class HMM:
    """A hidden Markov model with categorical or Gaussian emissions.

    Parameters
    ----------
    hidden_states : sequence of str
        The K states of the hidden chain.
    observations : sequence of str, optional
        The M observation names of a categorical model (None for a Gaussian one).
    start : array_like (K,), optional
        P(X_1); uniform when not given.
    transition : array_like (K, K), optional
        A[i, j] = P(X_{t+1} = j | X_t = i); needed for questions, or learned by fit.
    emission : array_like (K, M), optional
        B[k, o] = P(o | k) (categorical).
    kind : {"categorical", "gaussian"}
    means, variances : array_like (K,), optional
        The Gaussian emissions' means and variances.

    Raises
    ------
    ModelError
        For a table of the wrong shape, a row that is no distribution, a variance ≤ 0.

    Examples
    --------
    >>> import bbn
    >>> hmm = bbn.HMM(["low", "high"], kind="gaussian", start=[0.5, 0.5],
    ...               transition=[[0.9, 0.1], [0.1, 0.9]], means=[0.0, 5.0],
    ...               variances=[1.0, 1.0])
    >>> hmm.viterbi([0.1, 4.8, 5.2])[0]
    ['low', 'high', 'high']
    """

    def __init__(self, hidden_states: Sequence[str], observations: Sequence[str] | None = None,
                 *, start=None, transition=None, emission=None, kind: str = "categorical",
                 means=None, variances=None) -> None:
        if kind not in KINDS:
            raise ModelError(f"an HMM's kind is one of {list(KINDS)}, not {kind!r}")
        self.kind = kind
        self.hidden_states = tuple(map(str, hidden_states))
        k = len(self.hidden_states)
        if k == 0 or len(set(self.hidden_states)) != k:
            raise ModelError(f"an HMM needs distinct hidden states, not {list(hidden_states)}")
        if kind == "categorical":
            if not observations:
                raise ModelError("a categorical HMM needs its observation names")
            self.observations = tuple(map(str, observations))
            if len(set(self.observations)) != len(self.observations):
                raise ModelError(f"observation names repeat: {list(self.observations)}")
        else:
            self.observations = ()
        self.start = _table(np.full(k, 1 / k) if start is None else start, (k,), "start")
        self.transition = None if transition is None else _table(transition, (k, k),
                                                                 "transition")
        self.emission = self.means = self.variances = None
        if emission is not None:
            self.emission = _table(emission, (k, len(self.observations)), "emission")
        if means is not None or variances is not None:
            self._set_gaussian(means, variances)
        self.history_: list[float] = []

    def _set_gaussian(self, means, variances) -> None:
        k = len(self.hidden_states)
        means = np.array(means, dtype=float).reshape(-1)
        variances = np.array(variances, dtype=float).reshape(-1)
        if means.shape != (k,) or variances.shape != (k,):
            raise ModelError(f"a Gaussian HMM needs {k} means and {k} variances")
        if not (np.isfinite(means).all() and (variances > 0).all()
                and np.isfinite(variances).all()):
            raise ModelError("the means are finite numbers and the variances positive")
        self.means, self.variances = means, variances

    @property
    def fitted(self) -> bool:
        """Whether every table is set (the questions need them all)."""
        emitting = self.emission if self.kind == "categorical" else self.means
        return self.transition is not None and emitting is not None

    def log_emission(self, data: np.ndarray) -> np.ndarray:
        """log B(e | k) of every observation (codes or numbers), state-major: an array
        ``(K, *data.shape)``.

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=np.eye(2),
        ...           emission=[[1.0, 0.0], [0.5, 0.5]])
        >>> np.exp(hmm.log_emission(np.array([0]))).tolist()
        [[1.0], [0.5]]
        """
        if not self.fitted:
            raise NotFittedError("the HMM's tables are not all set: give them or call fit")
        if self.kind == "gaussian":
            shape = (-1,) + (1,) * np.ndim(data)
            variances, means = self.variances.reshape(shape), self.means.reshape(shape)
            return -0.5 * (LOG_2PI + np.log(variances) + (data - means) ** 2 / variances)
        with np.errstate(divide="ignore"):
            return np.take(np.log(self.emission), data, axis=1)

    # ------------------------------------------------------------- questions
    def filter(self, sequence, lengths=None) -> np.ndarray:
        """P(X_t | e_1:t) at every step t.

        Parameters
        ----------
        sequence : sequence
            Observation names (or indices), or numbers for a Gaussian model; many
            sequences concatenated.
        lengths : sequence of int, optional
            The length of each of many sequences.

        Returns
        -------
        ndarray (T, K)
            One row per observation (the sequences' rows in their order).

        Raises
        ------
        QueryError
            An unknown observation, with did-you-mean.
        ImpossibleEvidenceError
            A sequence of probability 0.

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.5, 0.5], [0.5, 0.5]],
        ...           emission=[[0.8, 0.2], [0.2, 0.8]])
        >>> hmm.filter(["x"]).tolist()
        [[0.8, 0.2]]
        """
        return sequences.filtered(self, sequence, lengths)

    def smooth(self, sequence, lengths=None) -> np.ndarray:
        """P(X_t | e_1:T) at every step t (forward–backward).

        Parameters
        ----------
        sequence, lengths
            As :meth:`filter`.

        Returns
        -------
        ndarray (T, K)

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.5, 0.5], [0.5, 0.5]],
        ...           emission=[[0.8, 0.2], [0.2, 0.8]])
        >>> hmm.smooth(["x", "y"]).round(2).tolist()
        [[0.8, 0.2], [0.2, 0.8]]
        """
        return sequences.smoothed(self, sequence, lengths)

    def predict(self, sequence, h: int = 1, lengths=None) -> np.ndarray:
        """P(X_{T+h} | e_1:T), h steps after the end of the sequence.

        Parameters
        ----------
        sequence, lengths
            As :meth:`filter`.
        h : int, default 1
            Steps ahead (0: the last filtered row).

        Returns
        -------
        ndarray (K,), or (N, K) with ``lengths``

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.9, 0.1], [0.1, 0.9]],
        ...           emission=[[1.0, 0.0], [0.0, 1.0]])
        >>> hmm.predict(["x"], 1).tolist()
        [0.9, 0.1]
        """
        return sequences.predicted(self, sequence, h, lengths)

    def viterbi(self, sequence, lengths=None, names: bool = True):
        """The most probable hidden path and its log P(x*_1:T, e_1:T).

        Among equally probable paths, the one hmmlearn's ``decode`` gives: the first best
        state at the last step, the last best predecessor on every step back.

        Parameters
        ----------
        sequence, lengths
            As :meth:`filter`.
        names : bool, default True
            The path as state names; ``False``: as state indices 0…K−1 in an int array
            (as hmmlearn's ``decode``), which spares building a name per step — the
            choice for long batches whose paths feed further computation.

        Returns
        -------
        (list of str, float), or (list of lists, ndarray (N,)) with ``lengths``;
        with ``names=False`` the paths are an ndarray (T,), or (N, T) when every
        sequence has the same length (else a list of ndarrays)

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.9, 0.1], [0.1, 0.9]],
        ...           emission=[[0.9, 0.1], [0.1, 0.9]])
        >>> hmm.viterbi(["x", "x", "y", "y"])[0]
        ['a', 'a', 'b', 'b']
        >>> hmm.viterbi(["x", "x", "y", "y"], names=False)[0].tolist()
        [0, 0, 1, 1]
        """
        return sequences.most_probable(self, sequence, lengths, names)

    def log_likelihood(self, sequence, lengths=None):
        """log P(e_1:T) (natural log; −inf for an impossible sequence).

        Parameters
        ----------
        sequence, lengths
            As :meth:`filter`.

        Returns
        -------
        float, or ndarray (N,) with ``lengths``

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.5, 0.5], [0.5, 0.5]],
        ...           emission=[[0.8, 0.2], [0.2, 0.8]])
        >>> round(float(np.exp(hmm.log_likelihood(["x", "y"]))), 4)
        0.25
        """
        return sequences.log_likelihood(self, sequence, lengths)

    # ------------------------------------------------------------- learning
    def fit(self, sequence, lengths=None, n_iter: int = 100, tol: float = 1e-6,
            random_state=None) -> HMM:
        """Baum–Welch (EM): each iteration the expected starts, transitions and emissions
        from forward–backward over every sequence at once, then their maximum-likelihood
        tables (the Gaussian means and variances as γ-weighted moments).

            π ∝ Σ_n γ_1,   A_ij ∝ Σ ξ_t(i, j),   B(o | k) ∝ Σ_{t: e_t = o} γ_t(k)

        Stops after ``n_iter`` iterations or when the log-likelihood gains less than
        ``tol``; ``history_`` holds the log-likelihood of the data under the tables each
        iteration started from (as hmmlearn's ``monitor_.history``).

        Parameters
        ----------
        sequence, lengths
            As :meth:`filter`: the training sequences.
        n_iter : int, default 100
        tol : float, default 1e-6
        random_state : int, optional
            Seeds the starting tables that were not given (Dirichlet rows; Gaussian means
            at quantiles of the data).

        Returns
        -------
        HMM
            ``self``, with its tables learned.

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.6, 0.4], [0.4, 0.6]],
        ...           emission=[[0.7, 0.3], [0.4, 0.6]])
        >>> _ = hmm.fit(["x", "x", "y", "y", "x", "x", "y", "y"], n_iter=50)
        >>> hmm.history_[-1] >= hmm.history_[0]
        True
        """
        self._initialise(sequence, random_state)
        resolved = sequences.Resolved(self, sequence, lengths)
        self.history_ = []
        for _ in range(int(n_iter)):
            counts = sequences.expected_counts(self, resolved)
            self.history_.append(counts.log_likelihood)
            if len(self.history_) > 1 and self.history_[-1] - self.history_[-2] < tol:
                break
            self._maximise(counts, resolved)
        return self

    def _initialise(self, sequence, random_state) -> None:
        rng = np.random.default_rng(random_state)
        k = len(self.hidden_states)
        if self.transition is None:
            self.transition = rng.dirichlet(np.ones(k), size=k)
        if self.kind == "categorical" and self.emission is None:
            self.emission = rng.dirichlet(np.ones(len(self.observations)), size=k)
        if self.kind == "gaussian" and self.means is None:
            data = np.asarray(sequence, dtype=float).reshape(-1)
            self._set_gaussian(np.quantile(data, (np.arange(k) + 0.5) / k),
                               np.full(k, max(float(np.var(data)), 1e-3)))

    def _maximise(self, counts, resolved) -> None:
        gamma = counts.posterior[:, resolved.batch.valid]                  # (K, L)
        data = resolved.data[resolved.batch.rows[resolved.batch.valid]]
        with np.errstate(invalid="ignore", divide="ignore"):
            self.start = counts.start / counts.start.sum()
            rows = counts.transitions.sum(axis=1, keepdims=True)
            self.transition = np.where(rows > 0, counts.transitions / np.where(rows > 0, rows, 1),
                                       self.transition)
            if self.kind == "categorical":
                m = len(self.observations)
                seen = np.stack([np.bincount(data, weights=g, minlength=m) for g in gamma])
                total = seen.sum(axis=1, keepdims=True)
                self.emission = np.where(total > 0, seen / np.where(total > 0, total, 1),
                                         self.emission)
            else:
                weight = gamma.sum(axis=1)
                means = gamma @ data / weight
                variances = (gamma @ data ** 2 - 2 * means * (gamma @ data)
                             + means ** 2 * weight) / np.maximum(weight, 1e-5)
                self.means = np.where(weight > 0, means, self.means)
                self.variances = np.where(weight > 0, np.maximum(variances, 1e-12),
                                          self.variances)

    def to_dynamic(self, hidden: str = "X", observed: str = "O"):
        """This HMM as a 2-TBN (categorical emissions): ``P(X | X[-1])``, ``P(O | X)``.

        Parameters
        ----------
        hidden, observed : str
            The names of the two variables.

        Returns
        -------
        bbn.DynamicNetwork

        Examples
        --------
        >>> hmm = HMM(["a", "b"], ["x", "y"], transition=[[0.9, 0.1], [0.1, 0.9]],
        ...           emission=[[0.9, 0.1], [0.1, 0.9]])
        >>> hmm.to_dynamic().variables
        ('X', 'O')
        """
        if self.kind != "categorical" or not self.fitted:
            raise ModelError("only a categorical HMM with all its tables is a 2-TBN here")
        dbn = dynamic.DynamicNetwork("hmm")
        dbn.add_variable(hidden, self.hidden_states, parents=[f"{hidden}[-1]"],
                         table=self.transition, initial=self.start)
        dbn.add_variable(observed, self.observations, parents=[hidden], table=self.emission)
        return dbn

    def __repr__(self) -> str:
        return (f"HMM({len(self.hidden_states)} hidden states, "
                f"{self.kind} emissions{'' if self.fitted else ', not fitted'})")

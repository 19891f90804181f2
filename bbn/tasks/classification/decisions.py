"""Turning a posterior into a decision: MAP, ML, or minimum expected risk.

* ``map`` (default): argmax_c P(c | x) — the Bayes classifier, optimal under 0/1 loss.
* ``ml``: argmax_c P(x | c) = argmax_c P(c | x) / P(c) — ignores the prior.
* ``risk``: argmin_i R(a_i | x), R(a_i | x) = Σ_j λ_ij P(j | x), where the loss matrix
  λ_ij is the cost of predicting class i when the truth is j (rows: prediction,
  columns: truth). Under 0/1 loss it equals ``map``.

>>> import numpy as np
>>> posterior = np.array([[0.8, 0.2]])            # EXAMPLES.md §7: P(y=1 | x) = 0.2
>>> loss = np.array([[0.0, 10.0], [1.0, 0.0]])    # λ01 = 10, λ10 = 1
>>> expected_risk(posterior, loss).tolist(), decide(posterior, "risk", loss=loss).tolist()
([[2.0, 0.8]], [1])
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from bbn.core.errors import DataError, suggest

RULES = ("map", "ml", "risk")


def check_rule(rule: str, loss=None) -> str:
    name = {"min-risk": "risk", "minimum-risk": "risk", "bayes-risk": "risk"}.get(
        str(rule).lower(), str(rule).lower())
    if name not in RULES:
        raise DataError(f"unknown decision rule {rule!r}; choose one of {', '.join(RULES)}"
                        f"{suggest(str(rule), RULES)}")
    if name == "risk" and loss is None:
        raise DataError("the minimum-risk decision needs a loss matrix (loss=...)")
    return name


def loss_matrix(loss, classes: Sequence[str]) -> np.ndarray:
    """The loss λ as a (predicted × true) array over ``classes`` (as state names).

    ``loss`` may be an array-like in class order, a mapping ``{(predicted, true): cost}``
    (absent pairs cost 0 on the diagonal and 1 elsewhere), a DataFrame whose index names
    the predicted and whose columns name the true classes, or the path of such a CSV.
    """
    import pandas as pd  # here: `bbn classify`'s parser imports this module at start-up

    classes = [str(c) for c in classes]
    k = len(classes)
    if isinstance(loss, (str, os.PathLike)):
        try:
            loss = pd.read_csv(loss, index_col=0, dtype=str, keep_default_na=False)
        except (OSError, ValueError) as error:
            raise DataError(f"{loss}: cannot read the loss matrix: {error}") from None
    if isinstance(loss, pd.DataFrame):
        frame = loss.copy()
        frame.index = [str(i).strip() for i in frame.index]
        frame.columns = [str(c).strip() for c in frame.columns]
        for label, names in (("rows (predicted)", frame.index), ("columns (true)", frame.columns)):
            if sorted(names) != sorted(classes):
                extra = [n for n in names if n not in classes]
                hint = suggest(extra[0], classes) if extra else ""
                raise DataError(f"the loss matrix's {label} must name the classes "
                                f"{classes}, got {list(names)}{hint}")
        try:
            matrix = frame.loc[classes, classes].to_numpy(dtype=float)
        except ValueError as error:
            raise DataError(f"the loss matrix holds a non-number: {error}") from None
    elif isinstance(loss, Mapping):
        matrix = 1.0 - np.eye(k)
        for key, cost in loss.items():
            predicted, true = (str(part) for part in key)
            for name in (predicted, true):
                if name not in classes:
                    raise DataError(f"loss names class {name!r}, which is not one of "
                                    f"{classes}{suggest(name, classes)}")
            matrix[classes.index(predicted), classes.index(true)] = float(cost)
    else:
        matrix = np.asarray(loss, dtype=float)
    if matrix.shape != (k, k):
        raise DataError(f"the loss matrix must be {k}×{k} (classes {classes}), "
                        f"got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise DataError("the loss matrix must hold finite numbers")
    return matrix


def expected_risk(posterior: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """R(a_i | x) = Σ_j λ_ij P(j | x) for every row: shape (rows, classes)."""
    return np.asarray(posterior) @ np.asarray(loss).T


def decide(posterior: np.ndarray, rule: str = "map", *, loss=None,
           prior: np.ndarray | None = None) -> np.ndarray:
    """The index of the chosen class for every row of ``posterior`` (rows × classes).

    ``ml`` divides by ``prior`` (P(c); required), ``risk`` needs ``loss`` as an array.
    Ties go to the first class.
    """
    rule = check_rule(rule, loss)
    posterior = np.asarray(posterior, dtype=float)
    if rule == "map":
        return np.argmax(posterior, axis=1)
    if rule == "ml":
        if prior is None:
            raise DataError("the ML decision needs the prior P(class)")
        with np.errstate(divide="ignore", invalid="ignore"):
            likelihood = np.where(np.asarray(prior) > 0, posterior / prior, -np.inf)
        return np.argmax(likelihood, axis=1)
    return np.argmin(expected_risk(posterior, loss), axis=1)

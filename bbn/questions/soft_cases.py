"""Soft findings (Jeffrey's rule) on a DataFrame of cases — and, in a network with
continuous variables, likelihood columns too (:func:`continuous_cases`): ``soft=``
applies to every case, each case's own findings (its cells) being that case's other
evidence,

    P'_i(Q) = Σ_w T_i(w) P(Q | w, e_i),   T_i = q                 (one soft finding)
                                          T_i = IPF of P(W_soft | e_i) to the q's (several)

Rows with the same evidence (cells and likelihood columns) are one case, answered once
(:func:`bbn.core.codes.distinct_cases`). A posterior of Q apart from W with one soft finding on W is
Jeffrey's sum as written: the cases repeated once per state w with q(w) > 0, W observed
at w in each, one batched elimination of the N·|W| cases, reshaped to (N, |W|, ...) and
weighed by q — or, where that does less work, one batched posterior of Q and W per case,
P(Q | w, e_i) = P(w, Q | e_i) / P(w | e_i) (:func:`_jeffrey_each`). A posterior with
several soft findings (or a soft target, or likelihood columns) is one batched posterior
of the targets with the soft variables, P(Q, W_soft | e_i), whose marginals P(W_soft |
e_i) are fitted to the findings all at once (iterative proportional fitting vectorised
over the cases, :func:`fit_cases`) and which the fitted likelihoods λ_i then weigh: Σ_w
P(Q, w | e_i) Π_j λ_ij(w_j) ∝ Σ_w T_i(w) P(Q | w, e_i) (:func:`_jeffrey_joint`). Other
kinds (all posteriors, MAP, MPE) fit λ_i on one batched P(W_soft | e_i) and ask the
kind's own batch with λ_i as each case's likelihoods — as for one case, those given the
fitted likelihoods: MAP and MPE by the batched max-product with a virtual child per soft
variable whose numbers are each case's λ_i
(:func:`bbn.engines.exact.max_batches.map_of_cases`, no view made), all posteriors by
the batched propagation of the view coding them
(:func:`bbn.questions.coded_likelihoods.ask_weights`; P'_i(X) = Σ_w P(X, w | e_i) Π_j
λ_ij(w_j) / Z_i = Σ_w T_i(w) P(X | w, e_i) for every X at once).

A case whose evidence is impossible, or where a soft finding gives weight to a state the
case's evidence rules out, is impossible: an ImpossibleEvidenceError naming the row, or
with ``impossible="nan"`` a NaN row and one warning, as for likelihood columns. A state
the fitted joint gives 0 is checked exactly first (:func:`_possible`): where it is only
below the smallest double, the case has no answer — a NoAnswerError naming the row, or a
NaN row said apart — as for one case. A case the batched sweeps leave short of
:data:`REPORTED` (1e-10; they sweep on to :data:`FINE`) is fitted again as one case is
(directly where it can: a fit on the boundary, a badly scaled joint); those still short
are counted in one ``ConvergenceWarning``.

>>> import bbn, pandas as pd
>>> net = bbn.load("models/chair.bn")
>>> cases = pd.DataFrame({"A": ["T", None]})
>>> answer = net.posterior("C", cases, soft={"W": {"T": 0.7, "F": 0.3}})
>>> round(float(answer.loc[0, "T"]), 9) == round(net.posterior(
...     "C", {"A": "T"}, soft={"W": {"T": 0.7, "F": 0.3}}).to_dict()["T"], 9)
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

import bbn.questions.coded_likelihoods as coded_likelihoods
import bbn.questions.max_cases as max_cases
from bbn.core.codes import distinct_cases
from bbn.core.errors import ImpossibleEvidenceError, NoAnswerError, QueryError
from bbn.core.lazy import reference
from bbn.questions.resolution import (
    Asked,
    Uncertain,
    evidence_codes,
    likelihood_cells,
    likelihood_columns,
    outside_level,
    resolve,
    resolve_targets,
    warn_impossible,
)
from bbn.questions.soft_fit import SWEEPS, TOLERANCE, fit_soft

#: Iterative proportional fitting of the cases sweeps until every case's marginals are
#: this close (those above :data:`REPORTED` after :data:`SWEEPS` sweeps are reported).
FINE = 1e-14

#: A case's fit further than this from its soft findings is reported (not converged),
#: as one case's is (:data:`bbn.questions.soft_fit.TOLERANCE`).
REPORTED = TOLERANCE


def ask_soft_cases(model, answering, asked: Asked, found: Uncertain, answer: Callable, method,
                   derived: Callable, extra_of: Callable, exact: bool = False,
                   impossible: str = "raise", **options):
    """Answer the batch ``asked`` (a DataFrame of cases) with the soft findings of
    ``found``: a posterior (an (N, |X1|, ...) array), all posteriors (``{X: (N, |X|)}``),
    MAP or MPE (:class:`~bbn.questions.max_cases.Assignments`), the last two (and all
    posteriors with likelihood columns) by the kind's own batch path on the cases with the
    fitted likelihoods; ``exact``: asked exactly (an approximate method is refused).
    ``answer`` is :func:`bbn.questions.dispatch.answer`; ``derived`` and ``extra_of``
    are :func:`bbn.questions.uncertain.derived` and its ``_extra`` (the interventions'
    view and the findings it adds)."""
    view = answering.view
    if not exact:
        raise QueryError("soft findings on a DataFrame of cases are answered exactly: leave "
                         "out method (or ask case by case)")
    frame = asked.evidence
    names = list(found.soft)
    both = [c for c in frame.columns if str(c) in found.soft]
    if both:
        raise QueryError(f"{both[0]!r} is both observed (a column of the cases) and softly "
                         "observed: give each variable one kind of finding")
    model_ = model
    if found.do or found.stochastic:
        model_ = derived(model, answering, found.do, found.stochastic, {})
        engine, extra = model_.engine, extra_of(view, found, model_)
    else:
        engine, extra = answering.engine, {}
    if view.gaussian:  # the network's own batch answers the joint with the soft variables
        return continuous_cases(model_, asked, found, answer, extra, impossible)
    network = engine.network
    columns = likelihood_columns(frame)
    hard = frame.drop(columns=columns) if columns else frame
    hard = hard.assign(**extra) if extra else hard
    codes = evidence_codes(network, hard)
    weights = {str(c): likelihood_cells(network, frame[c], str(c), frame.index)
               for c in columns}
    if asked.kind == "P":
        targets = resolve_targets(network, asked.targets, batched=True)
        overlap = [v for v in targets if v in codes or v in weights]
        if overlap:
            raise QueryError(f"query variable(s) {overlap} are also evidence columns")
    # each distinct case answered once (a row names the first case with its evidence)
    keys = (np.column_stack(list(codes.values())) if codes else
            np.zeros((len(frame), 0), dtype=np.intp))
    first, inverse = distinct_cases(keys, list(weights.values()))
    codes = {v: c[first] for v, c in codes.items()}
    weights = {v: w[first] for v, w in weights.items()}
    rows, n = frame.index[first], len(first)
    counts = np.bincount(inverse, minlength=n)  # the rows of each distinct case
    one = len(names) == 1 and not weights
    if asked.kind == "P":
        below = None
        if one and names[0] not in targets:
            result = _jeffrey_each(engine, targets, codes, n, names[0],
                                   np.array(found.soft[names[0]]), rows, impossible)
        else:
            result, below = _jeffrey_joint(engine, targets, codes, weights, n, found, rows,
                                           impossible, counts)
        result = result[inverse]
        warn_impossible(result, None, apart=None if below is None else below[inverse])
        return result
    fitted, bad, below = _fitted(engine, codes, weights, n, found, rows, impossible,
                                 counts=counts)
    weights = {**weights, **fitted}
    hard = hard.iloc[first]
    if bad.any():  # the impossible cases asked without findings (NaN below, said once)
        hard = hard.mask(np.broadcast_to(bad[:, None], hard.shape))
        weights = {v: np.where(bad[:, None], 1.0, w) for v, w in weights.items()}
    if asked.kind in ("MAP", "MPE"):  # each case's λ in the batched max-product: no view
        question = resolve(network, asked._replace(evidence=hard, do=None, soft=None))
        maximised = max_cases.map_of_cases if asked.kind == "MAP" else max_cases.mpe_of_cases
        result = maximised(answering if model_ is model else model_._answering, question,
                           model_, impossible="nan", weights=weights)
    else:
        result = coded_likelihoods.ask_weights(model_, asked, hard, weights, answer, method,
                                               impossible="nan", **options)
    if type(result) is dict:  # all posteriors
        for values in result.values():
            values[bad] = np.nan
        result = {v: values[inverse] for v, values in result.items()}
        shown = next(iter(result.values()))
    else:  # MAP, MPE
        result.states[bad] = -1
        result.probability[bad] = np.nan
        result = result._replace(states=result.states[inverse],
                                 probability=result.probability[inverse])
        shown = result.probability
    warn_impossible(shown, None, apart=below[inverse])
    return result


def _jeffrey_each(engine, targets: list[str], codes: dict, n: int, name: str,
                  q: np.ndarray, row_names, impossible: str) -> np.ndarray:
    """P'_i(Q) = Σ_w q(w) P(Q | w, e_i) by the route doing less work
    (:meth:`~bbn.engines.exact.varied_cases.VariedCases.states_as_cases`): the cases
    repeated once per state w with q(w) > 0 (:func:`_each_as_cases`), or the joint of Q
    and W per case (:func:`_each_from_joint`); a case with P(w, e_i) = 0 for such a w
    impossible."""
    live = np.flatnonzero(q)
    if engine.states_as_cases(targets, list(codes), [name], n):
        result, nan = _each_as_cases(engine, targets, codes, n, name, live)
    else:
        result, nan = _each_from_joint(engine, targets, codes, n, name, live)
        again = ~nan.all(axis=1) & nan.any(axis=1)  # P(w | e_i) = 0: impossible or too small
        if again.any():
            some = {v: c[again] for v, c in codes.items()}
            result[again], nan[again] = _each_as_cases(engine, targets, some,
                                                       int(again.sum()), name, live)
    result = np.einsum("m,nm...->n...", q[live], result)
    bad = nan.any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        if impossible == "raise":
            raise _impossible(engine.network, codes, row, row_names, [name],
                              every=bool(nan[row].all()) and len(live) == len(q))
        result[bad] = np.nan
    return result


def _each_as_cases(engine, targets: list[str], codes: dict, n: int, name: str,
                   live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(Q | w, e_i) for the states ``live`` of W, (N, M, ...): the N cases repeated once
    per state, W observed at it, one batched elimination; and which are impossible
    ((N, M), 0 in the first)."""
    m = len(live)
    expanded = {v: np.repeat(c, m) for v, c in codes.items()}
    expanded[name] = np.tile(live, n)
    values = engine.posterior_of_cases(targets, expanded, None, n * m, "nan")
    values = values.reshape((n, m) + values.shape[1:])
    nan = np.isnan(values.reshape(n, m, -1)[:, :, 0])
    if nan.any():
        values = np.where(nan[(...,) + (None,) * (values.ndim - 2)], 0.0, values)
    return values, nan


def _each_from_joint(engine, targets: list[str], codes: dict, n: int, name: str,
                     live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(Q | w, e_i) = P(w, Q | e_i) / P(w | e_i) for the states ``live`` of W, (N, M, ...),
    from one batched posterior of W and Q; and where P(w | e_i) is 0 ((N, M), 0 in the
    first)."""
    joint = engine.posterior_of_cases([name, *targets], codes, None, n, "nan").take(live, 1)
    margin = np.nan_to_num(joint.reshape(n, len(live), -1).sum(axis=2), nan=0.0)
    nan = ~(margin > 0)
    shape = (n, len(live)) + (1,) * (joint.ndim - 2)
    values = np.where(nan.reshape(shape), 0.0, joint / np.where(nan, 1.0, margin).reshape(shape))
    return values, nan


def _jeffrey_joint(engine, targets: list[str], codes: dict, weights: dict, n: int,
                   found: Uncertain, row_names, impossible: str,
                   counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """P'_i(Q) ∝ Σ_w P(Q, w | e_i, λ_cols) Π_j λ_ij(w_j): one batched posterior of the
    targets with the soft variables, whose marginal P(W_soft | e_i, λ_cols) the λ_i are
    fitted on (:func:`_fitted`); and the cases without an answer (NaN, not impossible)."""
    names = list(found.soft)
    rest = [v for v in targets if v not in found.soft]
    full = _cases(engine, [*rest, *names], codes, weights, n, row_names)
    k = len(rest)
    fitted, bad, below = _fitted(engine, codes, weights, n, found, row_names, impossible,
                                 full.sum(axis=tuple(range(1, k + 1))), counts)
    weighed = _weighed(np.where(bad.reshape((n,) + (1,) * (full.ndim - 1)), 0.0, full),
                       list(fitted.values()), k)
    return _asked(weighed, rest, names, targets, bad), below


def _asked(weighed: np.ndarray, rest: list[str], names: list[str], targets: list[str],
           bad: np.ndarray) -> np.ndarray:
    """P'_i(targets) from each case's weighed joint (axes: the case, ``rest``, then
    ``names``): the weighed variables not asked summed out, the axes in the targets'
    order, each case normalised (NaN where ``bad``)."""
    n, k = len(weighed), len(rest)
    weighed = weighed.sum(axis=tuple(1 + k + j for j, v in enumerate(names)
                                     if v not in targets))
    order = rest + [v for v in names if v in targets]
    result = weighed.transpose([0] + [1 + order.index(v) for v in targets])
    total = result.reshape(n, -1).sum(axis=1)
    result = result / np.where(bad, 1.0, total).reshape((n,) + (1,) * (result.ndim - 1))
    result[bad] = np.nan
    return result


def _cases(engine, variables: list[str], codes: dict, weights: dict, n: int,
           row_names) -> np.ndarray:
    """P(variables | e_i, λ_i) of the N cases, NaN where the evidence is impossible."""
    if weights:
        return engine.weighed_posterior_of_cases(variables, codes, weights, row_names, "nan")
    return engine.posterior_of_cases(variables, codes, row_names, n, "nan")


def _fitted(engine, codes: dict, weights: dict, n: int, found: Uncertain, row_names,
            impossible: str, joint: np.ndarray | None = None,
            counts: np.ndarray | None = None
            ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The likelihoods λ_i of the soft findings per case, ``{W: (N, |W|)}`` (ones for a
    case without one), fitted on the cases' joints P(W_soft | e_i, λ_cols) (``joint``, or
    from one batched posterior); which cases have none (impossible, or below the smallest
    double); and which of those are not impossible (:func:`_possible`). ``counts``: the
    rows each case stands for (the warnings count rows)."""
    names = list(found.soft)
    network = engine.network
    if joint is None:
        joint = _cases(engine, names, codes, weights, n, row_names)
    targets = [np.array(found.soft[v]) for v in names]
    joint = np.nan_to_num(joint, nan=0.0)
    lambdas, deviation = fit_cases(joint, targets)
    impossible_rows = ~(joint.reshape(n, -1).sum(axis=1) > 0)
    ruled = ~impossible_rows & np.isinf(deviation)  # a weighed state of J's 0
    _refit(joint, targets, lambdas, deviation, np.flatnonzero(
        ~impossible_rows & ~ruled & ~(deviation <= REPORTED)))
    below = np.zeros(n, dtype=bool)  # J's 0 a product below the smallest double
    if ruled.any():
        below[ruled] = _possible(engine, codes, weights, names, targets, np.flatnonzero(ruled))
    bad = impossible_rows | ruled
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        if impossible == "raise":
            shown = {**codes, **_shown(network, weights, row)}
            if below[row]:
                raise _unfitted(network, shown, row, row_names, names)
            raise _impossible(network, shown, row, row_names, names,
                              every=bool(impossible_rows[row]))
        for w in lambdas:
            w[bad] = 1.0
    counts = np.ones(n, dtype=np.intp) if counts is None else counts
    _warn_unmet(names, deviation, bad, counts)
    unfitted = int(counts[below].sum())
    if unfitted:
        warnings.warn(f"Jeffrey's rule: the soft findings on {names} cannot be fitted in "
                      f"{unfitted} of {counts.sum()} case(s): every state they weigh is "
                      "possible, but one is below the smallest double in the joint the fit "
                      "reads: their rows are NaN", RuntimeWarning, stacklevel=outside_level())
    return dict(zip(names, lambdas)), bad, below


def _warn_unmet(names: list[str], deviation: np.ndarray, bad: np.ndarray,
                counts: np.ndarray) -> None:
    """One ``ConvergenceWarning`` counting the rows of the cases (not ``bad``) whose fit
    is short of :data:`REPORTED` (``counts``: the rows each case stands for)."""
    late = ~bad & ~(deviation <= REPORTED)
    if late.any():
        warnings.warn(f"Jeffrey's rule: the soft findings on {names} were not met to within "
                      f"{REPORTED:g} after {SWEEPS} sweeps in {int(counts[late].sum())} of "
                      f"{counts.sum()} case(s) (largest deviation "
                      f"{np.nanmax(deviation[late]):.3g}): they may contradict those cases' "
                      "evidence", reference("bbn.engines.approximate.lbp:ConvergenceWarning"),
                      stacklevel=outside_level())


def continuous_cases(model, asked: Asked, found: Uncertain, answer: Callable,
                     extra: dict, impossible: str = "raise") -> np.ndarray:
    """P'_i(Q) for a DataFrame of cases of a network with continuous variables, with
    likelihood columns (cells ``{state: number}``) and soft findings (``found``;
    ``model``: the interventions' view where there are some, ``extra`` the findings they
    add). The network's own batch gives each row's joint of the (discrete) targets with
    the weighed variables, J_i(q, l, w) = P(Q = q, L = l, W_soft = w | e_i, x_i) (numbers
    in the cells where that network's batches take them); each row's likelihoods weigh it,
    the soft findings' λ_i are fitted on what remains of W_soft (:func:`fit_cases`, the
    unmet cases as one case's: :func:`_refit`), and

        P'_i(Q) ∝ Σ_{l, w} J_i(q, l, w) Π_c λ_ic(l_c) Π_j λ_ij(w_j).

    A case whose evidence is impossible, or where a soft finding weighs a state its
    evidence rules out (0 in the joint, as one case of such a network reads it), is
    impossible: an ImpossibleEvidenceError naming the row, or with ``impossible="nan"`` a
    NaN row and one warning."""
    network = model.compiled()
    frame = asked.evidence
    if asked.kind != "P":
        raise QueryError("likelihoods and soft findings on a DataFrame of cases of a network "
                         "with continuous variables take posterior questions of discrete "
                         "variables (net.posterior); ask others case by case")
    targets = resolve_targets(network, asked.targets, batched=True)
    continuous = [v for v in targets if v in network.gaussian]
    if continuous:
        raise QueryError(f"{continuous[0]!r} is continuous: likelihoods and soft findings on a "
                         "DataFrame of cases take discrete query variables; ask case by case")
    columns = likelihood_columns(frame)
    likelihoods = {str(c): likelihood_cells(network, frame[c], str(c), frame.index)
                   for c in columns}
    names = list(found.soft)
    weighed = [*likelihoods, *names]
    rest = [v for v in targets if v not in weighed]
    hard = frame.drop(columns=columns) if columns else frame
    hard = hard.assign(**extra) if extra else hard
    question = resolve(network, Asked("P", "variables", [*rest, *weighed], hard, True))
    n, k = len(frame), len(rest)
    joint = _weighed(np.nan_to_num(np.asarray(answer(model, question, "exact",
                                                     impossible="nan")), nan=0.0),
                     list(likelihoods.values()), k)
    axes = tuple(range(1, 1 + k + len(likelihoods)))  # what the soft fit sums out
    impossible_rows = ~(joint.reshape(n, -1).sum(axis=1) > 0)
    ruled = np.zeros(n, dtype=bool)
    if names:
        margin = joint.sum(axis=axes)
        soft = [np.array(found.soft[v]) for v in names]
        lambdas, deviation = fit_cases(margin, soft)
        ruled = ~impossible_rows & np.isinf(deviation)
        _refit(margin, soft, lambdas, deviation, np.flatnonzero(
            ~impossible_rows & ~ruled & ~(deviation <= REPORTED)))
    bad = impossible_rows | ruled
    if bad.any() and impossible == "raise":
        row = int(np.flatnonzero(bad)[0])
        shown = {str(c): x for c, x in frame.iloc[row].items() if not _missing(x)}
        label = reference("bbn.core.data:row_label")(frame.index[row])
        if impossible_rows[row]:
            raise ImpossibleEvidenceError.in_row(shown, label)
        said = ", ".join(f"{c}={x}" for c, x in shown.items()) or "no findings"
        raise ImpossibleEvidenceError(shown, (
            f"impossible evidence in row {label}: the soft finding(s) on {names} give weight "
            f"to a state its evidence ({said}) rules out (probability 0 there)"))
    if names:
        _warn_unmet(names, deviation, bad, np.ones(n, dtype=np.intp))
        joint = _weighed(joint, lambdas, len(axes))
    result = _asked(joint, rest, weighed, targets, bad)
    warn_impossible(result, None)
    return result


def _missing(cell) -> bool:
    """Whether a DataFrame cell is missing (None or NaN)."""
    return cell is None or (isinstance(cell, float) and cell != cell)


def _refit(joint: np.ndarray, targets: list[np.ndarray], lambdas: list[np.ndarray],
           deviation: np.ndarray, rows: np.ndarray) -> None:
    """Fit the cases ``rows``, which the batched sweeps left short of :data:`REPORTED`,
    one by one as one question's soft findings are (:func:`~bbn.questions.soft_fit.fit_soft`:
    directly where it can — a fit on the boundary, a badly scaled joint — by sweeps where
    not), and keep each fit that comes closer (``lambdas`` and ``deviation`` in place;
    a NaN deviation: the sweeps' λ left floating point)."""
    for i in rows:
        try:
            fitted, fit = fit_soft(joint[i], targets)
        except ImpossibleEvidenceError:  # (the sweeps found its marginals positive)
            continue
        if not fit.deviation >= deviation[i]:
            for w, f in zip(lambdas, fitted):
                w[i] = f / f.max()
            deviation[i] = fit.deviation


def _possible(engine, codes: dict, weights: dict, names: list[str],
              targets: list[np.ndarray], rows: np.ndarray) -> np.ndarray:
    """Whether each case of ``rows`` gives every state s its soft findings weigh a
    positive probability jointly with the states the others weigh,

        P(W_j = s, W_l ∈ {q_l > 0} for l ≠ j, e_i, λ_i) > 0   for every j and q_j(s) > 0,

    computed exactly: one batched elimination per soft variable (W_j one-hot, the others
    0/1 likelihoods), which runs a case in logs where its products underflow. Where it
    does, the 0 the fitted joint gives such a state is a product below the smallest
    double, not a 0 of the model: the fit cannot represent it, but the case is possible.

    >>> import bbn, numpy as np
    >>> engine = bbn.load("models/chair.bn").engine
    >>> _possible(engine, {"A": np.array([0])}, {}, ["W", "S"],
    ...           [np.array([0.5, 0.5]), np.array([1.0, 0.0])], np.array([0])).tolist()
    [True]
    """
    m = len(rows)
    possible = np.ones(m, dtype=bool)
    support = {v: (q > 0).astype(float) for v, q in zip(names, targets)}
    for name, q in zip(names, targets):
        states = np.flatnonzero(q)
        size = m * len(states)
        cases = {v: np.repeat(c[rows], len(states)) for v, c in codes.items()}
        given = {v: np.repeat(w[rows], len(states), axis=0) for v, w in weights.items()}
        given.update((v, np.broadcast_to(weighs, (size, len(weighs))))
                     for v, weighs in support.items() if v != name and not weighs.all())
        given[name] = np.zeros((size, len(q)))
        given[name][np.arange(size), np.tile(states, m)] = 1.0
        answer = engine.weighed_posterior_of_cases([name], cases, given, None, "nan")
        possible &= ~np.isnan(answer[:, 0]).reshape(m, len(states)).any(axis=1)
    return possible


def fit_cases(joint: np.ndarray, targets: list[np.ndarray]) -> tuple[list[np.ndarray],
                                                                      np.ndarray]:
    """Iterative proportional fitting of N joints at once: λ_1 … λ_k, each (N, |W_j|),
    such that T_i ∝ J_i · Π_j λ_j(w_j) has the marginals ``targets`` (the same for every
    case), and each case's largest deviation left (inf where a target gives weight to a
    state J_i rules out among the states the other targets weigh, or where the targets
    rule out every state of J_i). λ is 0 where the target is 0 or J_i's marginal is.

    A sweep sets each λ_j in turn to q_j / m_j, m_j(w) = Σ_{w' : w'_j = w} J_i(w')
    Π_{l ≠ j} λ_l(w'_l); after it the last marginal is met and Σ T_i = 1, so the next
    sweep's m_1 also gives the deviation left (with three or more findings the middle
    marginals are computed for it as well). Cases leave the sweeps once within
    :data:`FINE`, or within :data:`REPORTED` when rounding stops their progress; a case
    whose λ leave floating point (findings that contradict each other drive them apart
    without end) leaves with a NaN deviation.

    >>> lambdas, deviation = fit_cases(np.array([[[0.4, 0.1], [0.1, 0.4]]]),
    ...                                [np.array([0.5, 0.5]), np.array([0.7, 0.3])])
    >>> fitted = lambdas[0][0][:, None] * lambdas[1][0] * [[0.4, 0.1], [0.1, 0.4]]
    >>> (fitted.sum(axis=0) / fitted.sum()).round(9).tolist(), bool(deviation[0] < 1e-10)
    ([0.7, 0.3], True)
    """
    n, k = len(joint), len(targets)
    total = joint.reshape(n, -1).sum(axis=1)
    joint = joint / np.where(total > 0, total, 1.0).reshape((n,) + (1,) * k)
    axes = [tuple(a + 1 for a in range(k) if a != j) for j in range(k)]
    lambdas = [np.ones((n, len(q))) for q in targets]
    live = _weighed(joint, [np.broadcast_to((q > 0).astype(float), (n, len(q)))
                            for q in targets])  # the states the findings weigh
    infeasible = ~(live.reshape(n, -1).sum(axis=1) > 0)
    for j, q in enumerate(targets):
        margin = live.sum(axis=axes[j]) if k > 1 else live
        infeasible |= ((q > 0) & ~(margin > 0)).any(axis=1)
    deviation = np.full(n, np.inf)
    active = np.flatnonzero(~infeasible)  # the cases still fitted
    cases, part = joint[active], [w[active] for w in lambdas]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for sweep in range(SWEEPS + 1):
            first = _rest(cases, part, 0)
            margin = part[0] * first
            mass = margin.sum(axis=1)
            ok = mass > 0
            broke = ~np.isfinite(mass)  # λ beyond floating point
            scale = np.where(ok, mass, 1.0)[:, None]
            gap = np.abs(margin / scale - targets[0]).max(axis=1)
            for j in range(1, k if sweep == 0 else k - 1):  # the last one is met
                margin = part[j] * _rest(cases, part, j)
                gap = np.maximum(gap, np.abs(margin / scale - targets[j]).max(axis=1))
            gap[~ok] = np.inf  # the targets rule out every state the case allows
            gap[broke] = np.nan
            # a case is done at FINE, or within REPORTED when rounding stops its progress
            done = ((gap <= FINE) | ~ok | broke
                    | ((gap <= REPORTED) & (gap > deviation[active] / 2)))
            deviation[active] = gap
            if sweep == SWEEPS:
                done[:] = True
            if done.any():
                for j in range(k):
                    lambdas[j][active[done]] = part[j][done]
                keep = ~done
                active, cases, first = active[keep], cases[keep], first[keep]
                part = [w[keep] for w in part]
            if not len(active):
                break
            part[0] = np.where(first > 0, targets[0] / first, 0.0)
            for j in range(1, k):
                rest = _rest(cases, part, j)
                part[j] = np.where(rest > 0, targets[j] / rest, 0.0)
        for w in lambdas:  # each case's largest λ 1 (only ratios matter)
            top = w.max(axis=1, keepdims=True)
            np.divide(w, top, out=w, where=top > 0)
    deviation[infeasible] = np.inf
    return lambdas, deviation


def _rest(joint: np.ndarray, lambdas: list[np.ndarray], j: int) -> np.ndarray:
    """m_j(w) = Σ_{w' : w'_j = w} J_i(w') Π_{l ≠ j} λ_l(w'_l) for every case i, (N, |W_j|).

    >>> _rest(np.array([[[0.4, 0.1], [0.1, 0.4]]]), [np.ones((1, 2)), np.array([[1.0, 0.0]])],
    ...       0).tolist()
    [[0.4, 0.1]]
    """
    k = len(lambdas)
    if k == 1:
        return joint
    if k == 2:  # one batched matrix product
        if j == 0:
            return np.matmul(joint, lambdas[1][:, :, None])[:, :, 0]
        return np.matmul(lambdas[0][:, None, :], joint)[:, 0, :]
    operands = [joint, list(range(k + 1))]
    for a, w in enumerate(lambdas):
        if a != j:
            operands += [w, [0, a + 1]]
    return np.einsum(*operands, [0, j + 1], optimize=True)


def _weighed(joint: np.ndarray, lambdas: list[np.ndarray], offset: int = 0) -> np.ndarray:
    """J_i · Π_j λ_j(w_j) for every case i (W_j the axis 1 + ``offset`` + j)."""
    out = joint
    for j, w in enumerate(lambdas):
        shape = [len(w)] + [1] * (joint.ndim - 1)
        shape[offset + j + 1] = w.shape[1]
        out = out * w.reshape(shape)
    return out


def _shown(network, weights: dict, row: int) -> dict:
    """The likelihood columns of case ``row`` as written (``{W: {state: λ}}``)."""
    return {v: dict(zip(network.states[v], w[row].tolist())) for v, w in weights.items()}


def _row_evidence(network, codes: dict, row: int) -> dict:
    """Case ``row``'s findings as written (a dict of ``codes``: a likelihood as shown)."""
    shown = {}
    for v, c in codes.items():
        if type(c) is dict:
            shown[v] = c
        elif int(c[row]) >= 0:
            shown[v] = network.states[v][int(c[row])]
    return shown


def _unfitted(network, codes: dict, row: int, row_names, names: list[str]) -> NoAnswerError:
    """The error for case ``row``, whose fit meets a state below the smallest double."""
    label = reference("bbn.core.data:row_label")(row_names[row])
    said = ", ".join(f"{k}={v}" for k, v in _row_evidence(network, codes, row).items())
    return NoAnswerError(
        f"row {label}: the soft findings on {names} cannot be fitted: every state they weigh "
        f"is possible given its evidence ({said or 'no findings'}), but one is below the "
        "smallest double in the joint the fit reads, which it cannot represent")


def _impossible(network, codes: dict, row: int, row_names, names: list[str],
                every: bool) -> ImpossibleEvidenceError:
    """The error for case ``row``: its evidence impossible (``every``), or a soft finding
    giving weight to a state its evidence rules out."""
    label = reference("bbn.core.data:row_label")(row_names[row])
    shown = _row_evidence(network, codes, row)
    if every:
        return ImpossibleEvidenceError.in_row(shown, label)
    said = ", ".join(f"{k}={v}" for k, v in shown.items()) or "no findings"
    return ImpossibleEvidenceError(shown, (
        f"impossible evidence in row {label}: the soft finding(s) on {names} give weight to "
        f"a state its evidence ({said}) rules out (probability 0 there)"))


__all__ = ["ask_soft_cases", "continuous_cases", "fit_cases"]

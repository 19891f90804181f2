"""Max-min parents and children (MMPC): the skeleton a hybrid search climbs within.

For every target T, MMPC (Tsamardinos, Brown and Aliferis, 2006) grows a set CPC of
candidate parents and children. The association of X with T is its weakest over the
subsets S of CPC (at most ``max_condition`` variables),

    minassoc(X; T | CPC) = min_{S ⊆ CPC} assoc(X; T | S),    assoc = −ln p(X ⫫ T | S)

(p the G² or χ² test's p-value of :mod:`bbn.tasks.structure.independence_tests`). Forward: the X
with the largest minimum association joins CPC while it is dependent (p < α); an X found
independent given some S leaves the candidates for good. Backward: an X of CPC
independent of T given a subset of the rest of CPC is removed. The skeleton keeps X – T
when X ∈ PC(T) or T ∈ PC(X): the score prunes the extra candidates afterwards, while an
edge left out can never come back (with BIC on samples of alarm, insurance, child and
hailfinder, 1,000 and 10,000 rows, "or" gave the hybrid an equivalence-class SHD lower
than "and" by 3, 21 and 26 in 3 cells, equal in 4 and higher by 6 in one; see
docs/structure.md).

The targets are searched side by side, a round at a time: the tests every target asks
for next are counted by one ``np.bincount`` into tables laid end to end, and G², degrees
of freedom and p-values follow for all of them at once (equal to
:func:`~bbn.tasks.structure.independence_tests.independence_test`, one test each). A test is run
once: X ⫫ T | S asked again, from T's search and from X's, or in a later round, is
answered from the associations already found.

>>> import numpy as np
>>> from bbn.tasks.structure.dataset import CodedData
>>> rng = np.random.default_rng(0)
>>> a = rng.integers(0, 2, 2000); c = rng.integers(0, 2, 2000)
>>> b = (a | c) ^ (rng.random(2000) < 0.1)                   # A → B ← C
>>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, np.column_stack([a, b, c]))
>>> skeleton, tests = mmpc(data, alpha=0.05, test="g2", max_condition=2)
>>> np.argwhere(np.triu(skeleton)).tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Generator, Iterator, Sequence

import numpy as np

from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.independence_tests import Request, counting_codes, independence_tests


def batch_tests(data: CodedData, target: int, candidates: Sequence[int], given: Sequence[int],
                test: str = "g2", codes: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Test X ⫫ T | S for every X of ``candidates`` at once.

    Parameters
    ----------
    data : CodedData
        The coded rows (with ``missing="drop"``, each test on the rows complete on X, T
        and S).
    target : int
        T's position.
    candidates : sequence of int
        The positions of the X's.
    given : sequence of int
        S, the conditioning set.
    test : {"g2", "chi2"}, default "g2"
    codes : numpy.ndarray, optional
        ``counting_codes(data)`` (to convert once for many calls).

    Returns
    -------
    statistic, dof, p_value : numpy.ndarray
        One entry per candidate; a test whose table exceeds the memory limit has
        p-value NaN (untested).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 1]] * 5)
    >>> data = CodedData(("X", "Y", "Z"), (("0", "1"),) * 3, codes)
    >>> statistic, dof, p = batch_tests(data, 1, [0], [2])
    >>> int(dof[0]), bool(p[0] < 1e-6)
    (2, True)
    """
    request = Request(target, np.asarray(candidates, dtype=np.int64), tuple(given))
    return tuple(independence_tests(data, [request], test, codes))


def _strongest(candidates: np.ndarray, association: np.ndarray) -> int:
    """The candidate of largest association, ties to rounding going to the first.

    Two candidates that carry the same information about T (one a relabelling of the
    other's states: CompPlFcst and CapChange on hailfinder samples) have equal
    associations but for the last bits, which depend on the order of a sum; the tie is
    broken by the order of the variables, not by those bits (a relative 1e-9, where a
    G² of 10 is exact to about 1e-12).
    """
    top = float(association.max())
    near = association >= top - 1e-9 * abs(top) if math.isfinite(top) else association == top
    return int(candidates[np.argmax(near)])


def _association(statistic: np.ndarray, dof: np.ndarray, p_value: np.ndarray) -> np.ndarray:
    """−ln p, ranking dependences beyond the float range (p = 0) by (G² − dof)/√(2 dof)."""
    exact = -np.log(np.where(p_value > 0, p_value, 1.0))   # no log of 0 (errstate costs more)
    far = 745.0 + (statistic - dof) / np.sqrt(2.0 * np.maximum(dof, 1))
    association = np.where(p_value > 0, exact, far)
    return np.where(np.isnan(p_value), math.inf, association)   # untestable: dependent


def mmpc(data: CodedData, alpha: float = 0.05, test: str = "g2", max_condition: int = 3,
         possible: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """The skeleton of MMPC at level ``alpha`` (formulas in this module's docstring).

    Parameters
    ----------
    data : CodedData
        The coded rows.
    alpha : float, default 0.05
        The tests' level: p ≥ α counts as independence.
    test : {"g2", "chi2"}, default "g2"
    max_condition : int, default 3
        The largest conditioning set tested.
    possible : numpy.ndarray, optional
        n × n booleans: pairs that may be adjacent (others are never tested); all
        pairs by default.

    Returns
    -------
    skeleton : numpy.ndarray
        n × n symmetric booleans, the edges kept.
    tests : int
        The independence tests made.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]] * 25)
    >>> data = CodedData(("A", "B", "C"), (("0", "1"),) * 3, codes)
    >>> skeleton, tests = mmpc(data)
    >>> skeleton.astype(int).tolist(), tests
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], 3)
    """
    n = len(data.variables)
    codes = counting_codes(data)
    possible = ~np.eye(n, dtype=bool) if possible is None else possible & ~np.eye(n, dtype=bool)
    # the marginal tests, all in one batch (each pair once: X ⫫ T is T ⫫ X)
    known: dict[_TestKey, float] = {}
    pairs = [Request(t, np.flatnonzero(possible[t]), ()) for t in range(n)]
    answers, tests = _answer(data, pairs, test, codes, known)
    marginal = np.zeros((n, n))
    for request, association in zip(pairs, answers):
        marginal[request.target, request.candidates] = association
    threshold = -math.log(alpha)      # association > −ln α ⇔ p < α: dependent
    # the targets' searches run side by side: each round, the tests all of them ask for
    # next are counted and scored in one batch
    searches = {t: _parents_and_children(t, possible[t], marginal[t], threshold,
                                         max_condition) for t in range(n)}
    asked: dict[int, list[Request]] = {}
    chosen = np.zeros((n, n), dtype=bool)

    def advance(t: int, answer: list[np.ndarray] | None) -> None:
        try:
            asked[t] = searches[t].send(answer)
        except StopIteration as finished:
            chosen[t, finished.value] = True
            asked.pop(t, None)

    for t in range(n):
        advance(t, None)
    while asked:
        round_ = list(asked.items())
        requests = [request for _, batch in round_ for request in batch]
        answers, run = _answer(data, requests, test, codes, known)
        tests += run
        for t, batch in round_:
            advance(t, [next(answers) for _ in batch])
    return chosen | chosen.T, tests


#: A test X ⫫ T | S by what decides its outcome: the pair, smaller position first, and S
#: sorted (X ⫫ T | S is T ⫫ X | S, whatever order S is listed in).
_TestKey = tuple[int, int, tuple[int, ...]]


def _answer(data: CodedData, requests: Sequence[Request], test: str, codes: np.ndarray,
            known: dict[_TestKey, float]) -> tuple[Iterator[np.ndarray], int]:
    """The associations of the requests' tests, each distinct test run once.

    Targets searched side by side ask for the same test from both ends (X ⫫ T | S from
    T's search, T ⫫ X | S from X's), and a target asks again in a later round: those are
    answered from ``known``, the associations found so far, which this call extends.
    Child, 1,000 rows: 875 distinct tests of the 1,049 asked; alarm 1,971 of 2,296.

    Returns an iterator over one array of associations per request, in order, and the
    number of tests run.
    """
    keys: list[list[_TestKey]] = []       # each request's tests, in order
    to_run: dict[_TestKey, None] = {}     # the distinct new tests, in the order they run
    fresh = []
    for r in requests:
        given = tuple(sorted(r.given))
        request_keys, new = [], []
        for x in r.candidates.tolist():
            key = (x, r.target, given) if x < r.target else (r.target, x, given)
            request_keys.append(key)
            if key not in known and key not in to_run:
                to_run[key] = None
                new.append(x)
        keys.append(request_keys)
        if new:
            fresh.append(Request(r.target, np.array(new, dtype=np.int64), r.given))
    if fresh:
        found = _association(*independence_tests(data, fresh, test, codes))
        known.update(zip(to_run, found.tolist()))
    answers = (np.array([known[key] for key in request_keys]) for request_keys in keys)
    return answers, len(to_run)


def _parents_and_children(t: int, possible: np.ndarray, marginal: np.ndarray,
                          threshold: float, max_condition: int
                          ) -> Generator[list[Request], list[np.ndarray], list[int]]:
    """MMPC's forward and backward phases for the target t, as a generator: it yields
    the tests it needs next (a list of Requests), receives their associations (one
    array per Request), and returns the CPC of t.

    The tests are asked for a round at a time, more than a strictly sequential search
    would run, with the same outcome: forward, the subsets of one size together (an X
    stays open iff its association exceeds the threshold given every subset, in any
    order); backward, every subset at once, then the removals replayed in order from
    the answers (a test the replay skips was answered but is not used).
    """
    weakest = marginal.copy()        # min over the subsets tested so far of the association
    open_ = np.flatnonzero(possible & (weakest > threshold))
    cpc: list[int] = []
    while len(open_):
        best = _strongest(open_, weakest[open_])
        earlier = list(cpc)
        cpc.append(best)
        open_ = open_[open_ != best]
        for size in range(min(len(earlier), max_condition - 1) + 1):
            if not len(open_):
                break
            answers = yield [Request(t, open_, (*subset, best))
                             for subset in itertools.combinations(earlier, size)]
            weakest[open_] = np.minimum(weakest[open_], np.min(answers, axis=0))
            open_ = open_[weakest[open_] > threshold]
    # backward: drop an X independent of t given a subset of the rest of CPC
    found = list(cpc)
    subsets = [subset for size in range(1, min(len(found) - 1, max_condition) + 1)
               for subset in itertools.combinations(found, size)]
    if not subsets:
        return cpc
    asked = [Request(t, np.array([x for x in found if x not in subset]), subset)
             for subset in subsets]
    answers = yield asked
    for request, association in zip(asked, answers):
        if not set(request.given) <= set(cpc):
            continue
        independent = {x for x, a in zip(request.candidates.tolist(), association.tolist())
                       if x in cpc and a <= threshold}
        cpc = [x for x in cpc if x not in independent]
    return cpc

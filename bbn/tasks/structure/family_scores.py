"""Family scores for a search: each (child, parent set) counted and scored once.

A hill climb asks for the score s(X, U) of thousands of families (the formulas are in
:mod:`bbn.tasks.structure.scores`), most of them one parent away from a family it already
knows. :class:`FamilyScores` answers them in batches of one child: for the candidate
parents p₁, ..., p_m of X, the rows' codes of the m families are put side by side,

    code_i(row) = offset_i + x_{p_i}(row) · q r + base(row),      base = pa · r + x

(``base`` the mixed-radix code of the current parents and the child, q r their table
size, ``offset_i`` the start of family i's table), so that ONE ``np.bincount`` counts all
m tables and the scores follow from segment sums (``np.add.reduceat``) of

    loglik_i = Σ_jk N_jk ln N_jk − Σ_j N_j ln N_j

and of ln Γ terms for K2 and BDeu: the Python cost is per child, not per family. Scores
are kept in a dictionary keyed by (child, parents), so a family met again (a removal
undoing an addition, a tabu step, a restart) is never counted twice.

A family whose table would exceed the memory limit (:func:`bbn.set_memory_limit`) is
never counted: its score is −∞ and ``skipped_memory`` counts it.

With ``missing="drop"`` a row missing a value of a family goes to a discarded bin, so
every family U is counted on its available cases, N_U rows (BIC's N is N_U). Two
families of a child are then scored on different rows, and their difference would mostly
measure the rows (a sum of log-probabilities over fewer rows is larger, by far more than
any penalty), so the gain of a move is paired: both families are scored on the rows of
the larger one, W = U ∪ {p},

    Δ = s(X, U ∪ {p}; rows of W) − s(X, U; rows of W)

the second table being the first summed over p (:meth:`FamilyScores.gains`). With
complete data that is the plain difference of the two families' scores.

>>> import numpy as np
>>> from bbn.tasks.structure.dataset import CodedData
>>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
>>> scores = FamilyScores(CodedData(("A", "B"), (("0", "1"),) * 2, codes), "loglik")
>>> round(scores.score(1, ()), 4), round(scores.score(1, (0,)), 4)   # 3 ln .75 + ln .25
(-2.2493, -1.3863)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import gammaln, xlogy

from bbn.core.memory import ENTRY_BYTES, get_memory_limit
from bbn.tasks.structure.dataset import CodedData

#: Codes counted per np.bincount: 4 Mi int64 entries (32 MiB), so that a batch of
#: families of 100,000 rows stays small (37 candidates × 100,000 rows = 3.7 Mi).
_BATCH_ENTRIES = 1 << 22

#: Codes of pair tables made per np.bincount (:meth:`FamilyScores._pair_tables`): 64 Ki
#: int64 (512 KiB) stay in the cache and reuse freed memory, where a batch of millions
#: asks the system for fresh pages (prefetch of alarm, 1,000 rows: 6.2 → 2.1 ms).
_CHUNK_ENTRIES = 1 << 16

#: From this many rows, candidate families are counted a column at a time
#: (:meth:`FamilyScores._complete_counts`).
_COLUMN_ROWS = 20_000


class FamilyScores:
    """The cached score of every family asked for, counted in batches per child.

    Parameters
    ----------
    data : CodedData
        The coded rows.
    score : {"loglik", "bic", "aic", "k2", "bdeu"}
        The decomposable score (already validated).
    ess : float, default 1.0
        BDeu's equivalent sample size.

    Attributes
    ----------
    scored : int
        Families counted and scored.
    hits : int
        Families answered from the cache.
    skipped_memory : int
        Families asked for whose table exceeds the memory limit (never counted).

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.structure.dataset import CodedData
    >>> data = CodedData(("A", "B"), (("0", "1"),) * 2, np.array([[0, 0], [1, 1], [1, 0]]))
    >>> scores = FamilyScores(data, "bic")
    >>> scores.toggled(1, (), [0]).round(4).tolist()      # 2 ln ½ − ½ ln 3 · 2
    [-2.4849]
    >>> scores.scored, scores.hits       # and A's family with parent B: the same table
    (2, 0)
    """

    def __init__(self, data: CodedData, score: str, ess: float = 1.0):
        self.data = data
        self.score_name = score
        self.ess = float(ess)
        # int64 once: codes times strides must not overflow a narrow dtype
        self.codes = np.asfortranarray(data.codes, dtype=np.int64)
        self.cardinality = np.array(data.cardinality, dtype=np.int64)
        self._cards = self.cardinality.tolist()       # Python ints: no numpy scalar per read
        self.drop = data.missing == "drop"
        # every variable's states numbered after the previous variables' (x + offset):
        # with complete data, one addition over all columns codes every candidate's
        # family at once (no gather of the candidates' columns; _count_additions)
        self.offsets = segment_starts(self.cardinality)
        self.states = int(self.cardinality.sum())
        self.shifted = None if self.drop or data.rows >= _COLUMN_ROWS else \
            np.asfortranarray(self.codes + self.offsets)
        self._state_rows = [np.arange(o, o + r) for o, r in
                            zip(self.offsets.tolist(), self.cardinality.tolist())]
        self.cache: dict[tuple[int, tuple[int, ...]], float] = {}
        self.scored = 0
        self.hits = 0
        self.skipped_memory = 0

    def score(self, child: int, parents: Sequence[int]) -> float:
        """s(child, parents): the family's score (−∞ if its table exceeds the limit)."""
        known = self.cache.get((child, tuple(parents)))
        if known is not None:
            self.hits += 1
            return known
        return float(self.scores(child, [tuple(parents)])[0])

    def fits(self, child: int, parents: Sequence[int]) -> bool:
        """Whether the family's count table is within the memory limit."""
        return self._size(child, parents) * ENTRY_BYTES <= get_memory_limit()

    def prefetch(self, needed: np.ndarray) -> None:
        """Score at once the families a search from the empty DAG starts with: s(c, ∅)
        for every c, and s(c, {p}) and s(p, {c}) for every ``needed[p, c]``.

        Complete data only (with ``missing="drop"`` the gains pair rows and do not read
        these scores). Each pair's table n(x_a, x_b), a < b, is counted once, all pairs
        in one bincount per batch of columns, and read both ways (s(b, {a}) and, the
        table transposed, s(a, {b})): a search's first n(n − 1) families cost a few
        numpy calls, not a few per child.

        Parameters
        ----------
        needed : numpy.ndarray
            n × n booleans: the one-parent families p → c a search will ask for.

        Examples
        --------
        >>> import numpy as np
        >>> from bbn.tasks.structure.dataset import CodedData
        >>> codes = np.array([[0, 0, 1], [1, 1, 0], [1, 0, 1]])
        >>> scores = FamilyScores(CodedData(tuple("ABC"), (("0", "1"),) * 3, codes), "bic")
        >>> scores.prefetch(~np.eye(3, dtype=bool))   # 3 families without a parent, 6 with one
        >>> scores.scored, round(scores.score(1, (0,)), 4), scores.hits   # B | A: no count
        (9, -2.4849, 1)
        """
        if self.drop:
            return
        n, rows, cards = len(self.cardinality), self.data.rows, self.cardinality
        empty = [c for c in range(n) if (c, ()) not in self.cache]
        if empty:
            counts = np.zeros(self.states)
            for c in empty:
                counts[self._state_rows[c]] = np.bincount(self.codes[:, c],
                                                          minlength=int(cards[c]))
            values = self._segment_scores(counts, np.ones(n, dtype=np.int64), cards).tolist()
            self.cache.update(((c, ()), values[c]) for c in empty)
            self.scored += len(empty)
        a, b = np.nonzero(np.triu(needed | needed.T, 1))
        keep = np.array([(int(y), (int(x),)) not in self.cache
                         or (int(x), (int(y),)) not in self.cache for x, y in zip(a, b)],
                        dtype=bool)
        sizes = cards[a] * cards[b]
        keep &= sizes * ENTRY_BYTES <= get_memory_limit()    # others: −∞ when asked for
        a, b, sizes = a[keep], b[keep], sizes[keep]
        per_batch = max(1, _BATCH_ENTRIES // max(rows, 1))
        cells = get_memory_limit() // ENTRY_BYTES
        start = 0
        while start < len(a):
            stop = min(len(a), start + per_batch)
            while stop - start > 1 and int(sizes[start:stop].sum()) > cells:
                stop = start + (stop - start) // 2
            self._pair_tables(a[start:stop], b[start:stop])
            start = stop

    def _pair_tables(self, a: np.ndarray, b: np.ndarray) -> None:
        """Count the tables n(x_a, x_b) of the pairs (a_i, b_i) in one bincount and cache
        s(b, {a}) and s(a, {b}) from them."""
        ra, rb = self.cardinality[a], self.cardinality[b]
        starts = segment_starts(ra * rb)
        if self.data.rows < _COLUMN_ROWS:
            by_variable = self.codes.T            # C order: a row per variable, gathered fast
            per_chunk = max(1, _CHUNK_ENTRIES // self.data.rows)
            tables = []
            for first in range(0, len(a), per_chunk):
                chunk = slice(first, first + per_chunk)
                code = by_variable[a[chunk]] * rb[chunk, None]
                code += by_variable[b[chunk]]
                code += (starts[chunk] - starts[first])[:, None]
                tables.append(np.bincount(code.ravel(),
                                          minlength=int((ra[chunk] * rb[chunk]).sum())))
            counts = np.concatenate(tables)
        else:                                       # a column at a time (_complete_counts)
            tables, scaled = [], {}                 # x_a · r_b, for the current a
            for x, y, rx, ry in zip(a.tolist(), b.tolist(), ra.tolist(), rb.tolist()):
                if (x, ry) not in scaled:
                    scaled = {key: v for key, v in scaled.items() if key[0] == x}
                    scaled[(x, ry)] = self.codes[:, x] * ry
                tables.append(np.bincount(scaled[(x, ry)] + self.codes[:, y],
                                          minlength=rx * ry))
            counts = np.concatenate(tables)
        given_a = self._segment_scores(counts, ra, rb)                 # s(b | a)
        given_b = self._segment_scores(transposed_tables(counts, ra, rb), rb, ra)
        for x, y, sa, sb in zip(a.tolist(), b.tolist(), given_a.tolist(), given_b.tolist()):
            self.cache[(y, (x,))] = sa
            self.cache[(x, (y,))] = sb
        self.scored += 2 * len(a)

    def toggled(self, child: int, parents: Sequence[int], others: Sequence[int]) -> np.ndarray:
        """The scores of the families ``parents`` ± p for every p in ``others``: with p
        added when p is no parent, without p when it is.

        Every family is looked up in the cache in one pass over Python lists, and only
        the unknown ones are counted: a climb asks for a hundred columns of about twenty
        families, half of them all known (a known column of child's: 30 → 17 µs).

        Returns
        -------
        numpy.ndarray
            One float per entry of ``others`` (−∞ for a family over the memory limit).
        """
        current = tuple(sorted(parents))
        families = [tuple(q for q in current if q != p) if p in current
                    else tuple(sorted((*current, p))) for p in others]
        values = [self.cache.get((child, family)) for family in families]
        unknown = [i for i, value in enumerate(values) if value is None]
        self.hits += len(values) - len(unknown)
        if unknown:
            dropped = [i for i in unknown if others[i] in current]
            if dropped:
                for i, value in zip(dropped, self.scores(child, [families[i] for i in dropped])):
                    values[i] = value
            added = [i for i in unknown if others[i] not in current]
            if added:
                new = self._additions(child, current, [others[i] for i in added],
                                      [families[i] for i in added])
                for i, value in zip(added, new):
                    values[i] = value
        return np.array(values)

    def gains(self, child: int, parents: Sequence[int], others: Sequence[int]) -> np.ndarray:
        """The score change of toggling each p of ``others`` in the child's ``parents``
        (adding p, or removing it when it is a parent): paired on the larger family's
        rows with ``missing="drop"`` (module docstring).

        Returns
        -------
        numpy.ndarray
            One float per entry of ``others`` (−∞ for a family over the memory limit).

        Examples
        --------
        >>> import numpy as np
        >>> from bbn.tasks.structure.dataset import CodedData
        >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
        >>> scores = FamilyScores(CodedData(("A", "B"), (("0", "1"),) * 2, codes), "loglik")
        >>> scores.gains(1, (), [0]).round(4).tolist()      # −1.3863 − (−2.2493)
        [0.863]
        """
        current = tuple(sorted(parents))
        if not self.drop:
            return self.toggled(child, current, others) - self.score(child, current)
        result = np.empty(len(others))
        r = self.r(child)
        for i, p in enumerate(others):
            larger = current if p in current else tuple(sorted((*current, p)))
            if not self.fits(child, larger):
                self.skipped_memory += 1
                result[i] = -math.inf
                continue
            size = self._size(child, larger)
            counts = np.bincount(self._codes((*larger, child)), minlength=size + 1)[1:]
            table = counts.astype(float).reshape([int(self.cardinality[j])
                                                  for j in (*larger, child)])
            without = table.sum(axis=larger.index(p)).ravel()
            both = self._segment_scores(np.concatenate((table.ravel(), without)),
                                        np.array([size // r, size // r // self.r(p)]), r)
            result[i] = (both[0] - both[1]) * (1 if p not in current else -1)
            self.scored += 1
        return result

    def scores(self, child: int, families: Sequence[tuple[int, ...]]) -> np.ndarray:
        """The scores of ``child`` with each parent set of ``families`` (sorted tuples)."""
        result = np.empty(len(families))
        for i, parents in enumerate(families):
            known = self.cache.get((child, parents))
            if known is not None:
                self.hits += 1
                result[i] = known
            elif not self.fits(child, parents):
                self.skipped_memory += 1
                result[i] = -math.inf
            else:
                counts = np.bincount(self._codes((*parents, child)), minlength=self._size(
                    child, parents) + 1)[1:] if self.drop else np.bincount(
                    self._codes((*parents, child)), minlength=self._size(child, parents))
                configurations = np.array([self._size(child, parents) // self.r(child)])
                value = float(self._segment_scores(counts, configurations, self.r(child))[0])
                self.cache[(child, parents)] = result[i] = value
                self.scored += 1
        return result

    def _segment_scores(self, counts: np.ndarray, configurations: np.ndarray,
                        r: int) -> np.ndarray:
        """:func:`segment_scores` with this search's score, ``ess`` and n ln n table."""
        return segment_scores(counts, configurations, r, self.score_name, self.ess,
                              self.data.xlogx)

    def r(self, variable: int) -> int:
        """|X|, the states of a variable."""
        return self._cards[variable]

    def _size(self, child: int, parents: Sequence[int]) -> int:
        return self._cards[child] * math.prod(self._cards[p] for p in parents)

    def _codes(self, family: Sequence[int]) -> np.ndarray:
        """Mixed-radix codes of the family (child last); with missing="drop", 1 + the
        code, and 0 where a value of the family is missing (the discarded bin)."""
        code = self.codes[:, family[0]].copy()
        for j in family[1:]:
            code *= self.cardinality[j]
            code += self.codes[:, j]
        if self.drop:
            missing = self.codes[:, family[0]] < 0
            for j in family[1:]:
                missing |= self.codes[:, j] < 0
            code += 1
            code[missing] = 0
        return code

    def _additions(self, child: int, parents: tuple[int, ...], added: list[int],
                   families: list[tuple[int, ...]]) -> list[float]:
        """Count and cache the scores of ``parents`` + p for every p of ``added`` (none a
        parent, none cached; ``families`` the sorted parent sets), in batches of one
        bincount.

        The bookkeeping is on Python lists: a climb makes about a hundred of these calls
        on a few dozen candidates, where each numpy call on a small array costs more
        than the list operation it replaces."""
        base_size = self._size(child, parents)
        cells = get_memory_limit() // ENTRY_BYTES
        sizes = [base_size * self._cards[p] for p in added]
        result = [-math.inf] * len(added)             # over the memory limit: never counted
        todo = [i for i, size in enumerate(sizes) if size <= cells]
        self.skipped_memory += len(added) - len(todo)
        if not todo:
            return result
        base = self._codes((*parents, child))
        # families per bincount: the codes within _BATCH_ENTRIES, the tables within the limit
        per_batch = max(1, _BATCH_ENTRIES // max(self.data.rows, 1))
        start = 0
        while start < len(todo):
            stop = min(len(todo), start + per_batch)
            while stop - start > 1 and sum(sizes[i] for i in todo[start:stop]) > cells:
                stop = start + (stop - start) // 2
            batch = todo[start:stop]
            values = self._count_additions(child, base, base_size,
                                           np.array([added[i] for i in batch])).tolist()
            for i, value in zip(batch, values):
                result[i] = value
                self.cache[(child, families[i])] = value
            self.scored += len(batch)
            start = stop
        return result

    def _count_additions(self, child: int, base: np.ndarray, base_size: int,
                         extra: np.ndarray) -> np.ndarray:
        """The tables of the families base + p, every p of ``extra``, end to end (p's
        state slowest), and their scores: one bincount."""
        r = self.r(child)
        cards = self.cardinality[extra]
        if self.drop or base_size * self.states * ENTRY_BYTES > get_memory_limit():
            counts = self._gathered_counts(base, base_size, extra)
        else:
            counts = self._complete_counts(base, base_size, extra)
        if base_size == r:                 # pair tables n(x_p, x_child): reuse for (p | child)
            self._reversed_pairs(child, extra, cards, counts)
        return self._segment_scores(counts, cards * (base_size // r), r)

    def _complete_counts(self, base: np.ndarray, base_size: int,
                         extra: np.ndarray) -> np.ndarray:
        """Complete data: the tables (x_p, base) of every p of ``extra``, end to end.

        Below ``_COLUMN_ROWS`` rows, one bincount of base · S + offset_v + x_v (S all
        variables' states): over every column when most are candidates (an addition, no
        gather; the other columns' cells are counted and left), else over the
        candidates'. From ``_COLUMN_ROWS`` rows, one bincount per candidate of
        base · r_p + x_p: a column of codes stays in the cache where a matrix of
        millions does not (on 100,000 rows of child, 20 columns: 7.8 ms against 9.4 ms).
        """
        if self.data.rows < _COLUMN_ROWS:
            block = self.shifted if 3 * len(extra) >= 2 * len(self.cardinality) \
                else self.shifted[:, extra]
            code = np.add(block, (base * self.states)[:, None])
            counts = np.bincount(code.ravel(order="K"), minlength=base_size * self.states)
            by_state = counts.reshape(base_size, self.states).T     # (state of v, base)
            return by_state[np.concatenate([self._state_rows[p]
                                            for p in extra.tolist()])].ravel()
        scaled: dict[int, np.ndarray] = {}
        tables = []
        for p in extra.tolist():
            r = int(self.cardinality[p])
            if r not in scaled:
                scaled[r] = base * r
            counts = np.bincount(scaled[r] + self.codes[:, p], minlength=base_size * r)
            tables.append(counts.reshape(base_size, r).T.ravel())
        return np.concatenate(tables)

    def _gathered_counts(self, base: np.ndarray, base_size: int,
                         extra: np.ndarray) -> np.ndarray:
        """One bincount of (first state of p's table + x_p) · |base| + base, all p; with
        missing="drop" (base: 1 + code, 0 when missing) rows missing a value of the
        family go to a bin past the end."""
        cards = self.cardinality[extra]
        first = segment_starts(cards)                 # table i starts at first·|base|
        code = self.codes[:, extra] + first
        code *= base_size
        if self.drop:
            code += base[:, None] - 1
            code[(base[:, None] == 0) | (self.codes[:, extra] < 0)] = -1
            total = int(cards.sum()) * base_size
            code[code < 0] = total
            return np.bincount(code.ravel(order="K"), minlength=total + 1)[:total]
        code += base[:, None]
        return np.bincount(code.ravel(order="K"), minlength=int(cards.sum()) * base_size)

    def _reversed_pairs(self, child: int, extra: np.ndarray, cards: np.ndarray,
                        counts: np.ndarray) -> None:
        """Cache s(p, {child}) from the pair tables just counted for s(child, {p}): the same
        table transposed, so a search's n(n − 1) first families need n(n − 1)/2 counts."""
        new = [p for p in extra.tolist() if (p, (child,)) not in self.cache]
        if not new:
            return
        r = np.full(len(extra), self.r(child))
        values = self._segment_scores(transposed_tables(counts, cards, r), r, cards)
        self.cache.update(((p, (child,)), value)
                          for p, value in zip(extra.tolist(), values.tolist()) if p in new)
        self.scored += len(new)


def segment_starts(sizes: np.ndarray) -> np.ndarray:
    """Where each of consecutive segments of the given sizes begins (int64).

    >>> segment_starts(np.array([2, 3, 1])).tolist()
    [0, 2, 5]
    """
    starts = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    return starts


def _xlogx(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return xlogy(values, values)


def segment_scores(counts: np.ndarray, configurations: np.ndarray, r: int | np.ndarray,
                   score: str, ess: float = 1.0,
                   xlogx: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The scores of several families from their tables laid end to end.

    Parameters
    ----------
    counts : numpy.ndarray
        The flat tables, each of ``configurations[i] · r[i]`` entries (child fastest).
    configurations : numpy.ndarray
        q_i, the parent configurations of each table.
    r : int or numpy.ndarray
        The child's states: one number for families of one child, or one per family.
    score : {"loglik", "bic", "aic", "k2", "bdeu"}
    ess : float, default 1.0
    xlogx : callable, optional
        n ln n of whole counts (:meth:`~bbn.tasks.structure.dataset.CodedData.xlogx`, from a
        table); ``scipy.special.xlogy(n, n)`` by default.

    Returns
    -------
    numpy.ndarray
        One score per family, equal to :func:`bbn.tasks.structure.scores.family_score` of each.

    Examples
    --------
    >>> import numpy as np
    >>> segment_scores(np.array([3.0, 2.0, 1.0, 0.0, 2.0, 2.0]), np.array([1, 2]), 2,
    ...                "loglik").round(6).tolist()
    [-3.365058, -2.772589]
    >>> segment_scores(np.array([3, 1, 2, 0, 2, 2]), np.array([1, 1]), np.array([2, 4]),
    ...                "loglik").round(6).tolist()          # 4 rows, then 6 rows
    [-2.249341, -6.591674]
    """
    if xlogx is None:
        xlogx = _xlogx
    q = np.asarray(configurations, dtype=np.int64)
    entry_starts = segment_starts(q * r)
    one_r = isinstance(r, (int, np.integer)) or np.ndim(r) == 0   # (np.ndim: 1.5 µs)
    if one_r:
        config_starts = entry_starts // r
        totals = counts.reshape(-1, r).sum(axis=1)
        r_of_config = r
    else:                                  # a configuration of family i spans r_i entries
        r = np.asarray(r, dtype=np.int64)
        config_starts = segment_starts(q)
        r_of_config = np.repeat(r, q)
        totals = np.add.reduceat(counts, segment_starts(r_of_config))
    if score in ("loglik", "bic", "aic"):
        loglik = (np.add.reduceat(xlogx(counts), entry_starts)
                  - np.add.reduceat(xlogx(totals), config_starts))
        if score == "loglik":
            return loglik
        penalty = (q * (r - 1)).astype(float)
        if score == "bic":
            rows = np.add.reduceat(totals, config_starts)
            return loglik - np.where(rows > 0, 0.5 * np.log(np.maximum(rows, 1)) * penalty, 0.0)
        return loglik - penalty
    if score == "k2":
        lgamma_r = math.lgamma(r) if one_r else np.array([math.lgamma(x) for x in r.tolist()])
        return (q * lgamma_r - np.add.reduceat(gammaln(totals + r_of_config), config_starts)
                + np.add.reduceat(gammaln(counts + 1.0), entry_starts))
    # bdeu: α_j = ess / q, α_jk = ess / (q r), repeated over each table's entries
    a_j = ess / q
    a_jk = a_j / r
    return (q * gammaln(a_j)
            - np.add.reduceat(gammaln(totals + np.repeat(a_j, q)), config_starts)
            + np.add.reduceat(gammaln(counts + np.repeat(a_jk, q * r)), entry_starts)
            - q * r * gammaln(a_jk))


def transposed_tables(counts: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Tables laid end to end, table i of ``rows[i]`` × ``columns[i]`` entries (row-major),
    each transposed in place in the sequence (to read the pair tables n(a, b) as n(b, a)).

    >>> transposed_tables(np.array([1, 2, 3, 4, 5, 6, 7]), np.array([2, 1]), np.array([3, 1]))
    array([1, 4, 2, 5, 3, 6, 7])
    """
    sizes = rows * columns
    starts = segment_starts(sizes)
    table = np.repeat(np.arange(len(sizes)), sizes)
    row, column = np.divmod(np.arange(len(counts)) - starts[table], columns[table])
    flipped = np.empty_like(counts)
    flipped[starts[table] + column * rows[table] + row] = counts
    return flipped

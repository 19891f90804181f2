"""What every structure-learning method takes and gives.

A method is a plain function ``method(data, knowledge, settings) -> Structure``: the
coded rows (:class:`~bbn.tasks.structure.dataset.CodedData`), the validated expert knowledge
(:class:`~bbn.tasks.structure.knowledge.Knowledge`) and one :class:`Settings` value. It returns
a DAG by variable positions, and, when the method leaves some directions open (PC's
equivalence class), those edges. :func:`bbn.learn_structure` validates everything once
and turns the result into a network.

>>> settings = Settings(options={"tabu_length": 10})
>>> settings.option("tabu_length", 100), settings.option("restarts", 0)
(10, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.core.progress import Step

#: A DAG by positions: the parent positions of every variable.
Parents = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Settings:
    """The choices a method reads, validated by :func:`bbn.learn_structure`.

    Attributes
    ----------
    score : str
        The decomposable score to maximise (see :data:`bbn.tasks.structure.SCORES`).
    ess : float
        BDeu's equivalent sample size.
    alpha : float
        The level of the independence tests.
    test : str
        The independence test (see :data:`bbn.tasks.structure.independence_tests.TESTS`).
    seed : int
        Seeds every random choice (restarts, perturbations).
    start : tuple of tuple of int, optional
        A DAG to start a search from (parent positions per variable).
    target : int, optional
        The class variable (tree-augmented naive Bayes).
    progress : callable, optional
        Called with one line of text now and then during a long search.
    options : mapping
        Method-specific keywords; each method reads its own with :meth:`option` and
        refuses the rest with :meth:`check_options`.

    Examples
    --------
    >>> Settings().score, Settings().alpha
    ('bic', 0.05)
    """

    score: str = "bic"
    ess: float = 1.0
    alpha: float = 0.05
    test: str = "g2"
    seed: int = 0
    start: Parents | None = None
    target: int | None = None
    progress: Callable[[str], None] | None = None
    options: Mapping[str, object] = field(default_factory=dict)

    def option(self, name: str, default):
        """The method-specific option ``name``, or ``default``."""
        return self.options.get(name, default)

    def whole_option(self, method: str, name: str, default: int | None) -> int | None:
        """The option ``name`` as a whole number ≥ 0, ``default`` when absent.

        Examples
        --------
        >>> Settings(options={"restarts": -1}).whole_option("hc", "restarts", 0)
        Traceback (most recent call last):
            ...
        bbn.core.errors.ModelError: option restarts of method 'hc' must be a whole number ≥ 0, ...
        """
        value = self.options.get(name, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ModelError(f"option {name} of method {method!r} must be a whole number ≥ 0, "
                             f"got {value!r}")
        return int(value)

    def check_options(self, method: str, known: tuple[str, ...]) -> None:
        """ModelError naming the first option ``method`` does not know (did you mean).

        Examples
        --------
        >>> Settings(options={"tabu": 5}).check_options("hc", ("tabu_length",))
        Traceback (most recent call last):
            ...
        bbn.core.errors.ModelError: method 'hc' has no option 'tabu' (did you mean ...

        """
        for name in self.options:
            if name not in known:
                listing = ", ".join(known) if known else "none"
                raise ModelError(f"method {method!r} has no option {name!r}"
                                 f"{suggest(name, known)}; its options are {listing}")

    def report(self, line: str) -> None:
        """Pass one progress line on, if anyone listens: a :class:`bbn.core.progress.Step`
        whose task is the method (``"hc: 12 moves, ..."``: task ``"hc"``)."""
        if self.progress is not None:
            task, _, note = line.partition(": ")
            self.progress(Step(task, note=note))


@dataclass(frozen=True)
class Structure:
    """What a method found.

    Attributes
    ----------
    parents : tuple of tuple of int
        A DAG: the parent positions of every variable.
    undirected : frozenset of (int, int)
        Edges (i < j) whose direction the method leaves open (the equivalence class);
        ``parents`` orients them one consistent way.
    score : float, optional
        The score of the DAG, if the method computed one.
    statistics : mapping
        Counts of the work done (iterations, tests, families scored, moves skipped by
        reason, ...).

    Examples
    --------
    >>> Structure(parents=((), (0,))).arcs()
    [(0, 1)]
    """

    parents: Parents
    undirected: frozenset[tuple[int, int]] = frozenset()
    score: float | None = None
    statistics: Mapping[str, object] = field(default_factory=dict)

    def arcs(self) -> list[tuple[int, int]]:
        """The arcs (parent, child) of the DAG, sorted."""
        return sorted((p, c) for c, ps in enumerate(self.parents) for p in ps)

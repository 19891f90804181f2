"""Mixed questions asked of one network by many threads at once, and the check that
every thread gets what one thread alone gets.

The questions (drawn from a seed, so every run asks the same ones): every posterior
given evidence, one posterior and a joint one, the probability of an assignment, MAP
over two variables, a query in the language, a batch of cases (a DataFrame of rows),
and approximate answers with a fixed seed (likelihood weighting, loopy BP). Each
question draws its evidence from few variables, so the threads race to fill the same
caches: plans, junction trees (dropped and rebuilt when the memory limit is small),
orders, the answering of the revision.

Used by ``tests/test_concurrency.py`` (a few hundred questions per thread) and
``tests/benchmarks/concurrency.py`` (16 threads × 1,000 questions).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pandas as pd

import bbn
from bbn.questions.dispatch import method_from_options

Question = tuple[str, tuple]


KINDS = ("posteriors", "posterior", "joint", "probability", "map", "query", "batch", "lw",
         "lbp")


def questions(net: bbn.Network, count: int, seed: int,
              kinds: tuple[str, ...] = KINDS) -> list[Question]:
    """``count`` questions of the ``kinds`` on ``net``, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    names = list(net.variables)
    asked = []

    def evidence(most: int) -> dict[str, str]:
        chosen = rng.choice(len(names), size=int(rng.integers(0, most + 1)), replace=False)
        # the first state: likely enough that no evidence is impossible on these models
        return {names[i]: net.states(names[i])[0] for i in chosen}

    for _ in range(count):
        kind = kinds[int(rng.integers(len(kinds)))]
        given = evidence(3)
        free = [v for v in names if v not in given]
        target = free[int(rng.integers(len(free)))]
        if kind in ("joint", "map"):
            pair = [str(v) for v in rng.choice(free, size=2, replace=False)]
            asked.append((kind, (pair, given)))
        elif kind == "batch":
            rows = [{v: net.states(v)[int(rng.integers(net.cardinality(v)))]
                     for v in given} for _ in range(8)]
            asked.append((kind, (target, rows, list(given))))
        elif kind == "probability":
            state = net.states(target)[int(rng.integers(net.cardinality(target)))]
            asked.append((kind, ({target: state}, given)))
        elif kind == "posteriors":
            asked.append((kind, (given,)))
        else:
            asked.append((kind, (target, given)))
    return asked


def answer(net: bbn.Network, question: Question):
    """The answer as plain numbers (arrays, floats, tuples), to compare."""
    kind, args = question
    if kind == "posteriors":
        return {v: f.values for v, f in net.posteriors(args[0]).items()}
    if kind in ("posterior", "joint"):
        return net.posterior(args[0], args[1]).values
    if kind == "probability":
        return net.probability(*args)
    if kind == "map":
        assignment, p = net.map(*args)
        return tuple(sorted(assignment.items())), p
    if kind == "query":
        target, given = args
        text = ", ".join(f"{v}={s}" for v, s in given.items())
        return net.query(f"P({target} | {text})" if text else f"P({target})").values
    if kind == "batch":
        target, rows, columns = args
        return net.posterior(target, pd.DataFrame(rows, columns=columns),
                             impossible="nan")
    method = (method_from_options("lw", samples=400, seed=7, time_budget=None)
              if kind == "lw" else "lbp")
    return net.posterior(args[0], args[1], method=method).values


def same(a, b) -> bool:
    """Whether two answers agree (floats to 1e-12 relative; NaN equal to NaN)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, str):
        return a == b
    return bool(np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True))


def run_threads(net: bbn.Network, asked: list[list[Question]]) -> tuple[list, list[str]]:
    """Each list of questions asked by its own thread of ``net``, all started together:
    the answers per thread and the errors raised (``type: message``)."""
    answers: list[list] = [[] for _ in asked]
    errors: list[str] = []
    start = threading.Barrier(len(asked))

    def work(i: int) -> None:
        start.wait()
        for question in asked[i]:
            try:
                answers[i].append(answer(net, question))
            except Exception as error:  # noqa: BLE001 - every error is a finding
                errors.append(f"{type(error).__name__}: {error}")
                answers[i].append(None)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(asked))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers, errors


def check(make: Callable[[], bbn.Network], threads: int, per_thread: int,
          seed: int = 0, kinds: tuple[str, ...] = KINDS) -> dict:
    """Ask ``threads`` × ``per_thread`` questions of one fresh network from ``make()``
    at once, and each thread's questions of another fresh network in one thread: the
    counts of errors and of answers that differ."""
    asked = [questions(make(), per_thread, seed + i, kinds) for i in range(threads)]
    reference_net = make()
    expected = [[answer(reference_net, q) for q in mine] for mine in asked]
    answers, errors = run_threads(make(), asked)
    wrong = [(asked[i][j], answers[i][j]) for i in range(threads)
             for j in range(per_thread) if answers[i][j] is not None
             and not same(answers[i][j], expected[i][j])]
    return {"questions": threads * per_thread, "errors": errors, "wrong": wrong}

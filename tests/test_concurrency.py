"""One network asked by many threads at once answers as it does in one thread, with no
error: its caches (plans, junction trees, orders, the engine of the revision) are filled
once per key by one thread, under a lock held for the bookkeeping only.

The full workload, 16 threads × 1,000 questions, is ``python -m
tests.benchmarks.concurrency``; here 16 threads × 24 questions on a random network of
25 variables (and on alarm when ``../shared`` is present), once with the default memory
limit and once with a limit so small that junction trees are dropped and rebuilt all
the time.
"""

from __future__ import annotations

import sys
import threading

import pytest
from concurrency_workload import check
from generic_networks import generic_network

import bbn
from bbn.core.once import Once

THREADS, PER_THREAD = 16, 24


@pytest.fixture(autouse=True)
def switch_often():
    """Threads switch every microsecond (not every 5 ms): races show in fewer calls."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _generic() -> bbn.Network:
    return generic_network(11, 25, 25)


def test_threads_answer_as_one_thread():
    result = check(_generic, THREADS, PER_THREAD)
    assert result["errors"] == []
    assert result["wrong"] == []


def test_threads_answer_as_one_thread_while_trees_are_dropped(memory_limit):
    # 64 KiB: a tree of this network takes more once built, so each new set of observed
    # variables drops the trees kept before it
    memory_limit(64 << 10)
    result = check(_generic, THREADS, PER_THREAD, seed=100, kinds=("posteriors", "map"))
    assert result["errors"] == []
    assert result["wrong"] == []


def test_threads_on_alarm(shared):
    result = check(lambda: bbn.load(shared / "networks" / "alarm.bif.gz"), THREADS,
                   PER_THREAD // 2, seed=200)
    assert result["errors"] == []
    assert result["wrong"] == []


def test_once_makes_each_value_once_and_others_wait():
    once, store, made = Once(), {}, []
    release = threading.Event()

    def make():
        made.append(threading.get_ident())
        release.wait(5)  # every other thread asks while this one is making
        return "value"

    got = []
    threads = [threading.Thread(target=lambda: got.append(once.get(store, "k", make)))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    release.set()
    for thread in threads:
        thread.join()
    assert got == ["value"] * 8
    assert len(made) == 1


def test_once_a_failed_make_is_tried_again():
    once, store, calls = Once(), {}, []

    def fail():
        calls.append(1)
        raise ValueError("no")

    for _ in range(2):
        with pytest.raises(ValueError):
            once.get(store, "k", fail)
    assert len(calls) == 2 and store == {}
    assert once.get(store, "k", lambda: 3) == 3


def test_a_network_with_filled_caches_pickles_with_cloudpickle(chair):
    # what Dask does to a function that closes over a model: its locks must not stop it
    cloudpickle = pytest.importorskip("cloudpickle")
    chair.posterior("C", {"A": "T"})  # the engine and a plan made (Once: a lock inside)
    twin = cloudpickle.loads(cloudpickle.dumps(chair))
    assert twin.posterior("C", {"A": "T"}).values.round(6).tolist() == [0.886749, 0.113251]
    assert cloudpickle.loads(cloudpickle.dumps(Once())).get({}, 1, lambda: 2) == 2


def test_a_network_pickles_without_its_caches_after_batches(chair):
    # Dask ships the model to its workers: after batch questions (engines, plans, locks,
    # read-only mappings cached) plain pickle works, and the copy answers the same
    import pickle

    import pandas as pd

    cases = pd.DataFrame({"A": ["T", "F", None], "W": ["T", None, "F"]})
    for model in (chair, chair.to_markov()):
        before = model.posterior("C", evidence=cases)
        twin = pickle.loads(pickle.dumps(model))
        assert twin._compiled is None and twin._answering is None
        pd.testing.assert_frame_equal(twin.posterior("C", evidence=cases), before, rtol=1e-12)
        assert before.loc[1, "T"] == pytest.approx(  # row 1: A=F
            chair.posterior("C", {"A": "F"}).values[0], rel=1e-12)

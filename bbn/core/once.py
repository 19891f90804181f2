"""Caches filled once per key, safe to share between threads: whichever thread asks
first makes the value, the others asking for the *same* key wait for it, and nobody
holds a lock while a value is made.

    get(store, key, make) = store[key]                                   when present
                          = store[key] ← make(), made by one thread      otherwise

The lock (:attr:`Once.lock`) guards the bookkeeping only — which keys are being made,
the insertion — so the numeric work of ``make`` runs in parallel with other threads'
questions (numpy releases the GIL in its loops). A ``make`` that raises leaves the key
empty and wakes the waiters, one of which tries again (and raises the same error).

>>> once = Once()
>>> store = {}
>>> once.get(store, "x", lambda: 6 * 7), once.get(store, "x", lambda: 0)
(42, 42)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, MutableMapping
from typing import TypeVar

T = TypeVar("T")


class Once:
    """A lock for a cache's bookkeeping and the keys being made, for any number of
    stores (dicts, or an object's attributes) of one owner.

    A stored value is never None: None reads as "not made yet".

    Examples
    --------
    >>> class Lazy:
    ...     def __init__(self):
    ...         self.once, self._order = Once(), None
    ...     def order(self):
    ...         return self.once.attribute(self, "_order", lambda: [2, 0, 1])
    >>> lazy = Lazy()
    >>> lazy.order() is lazy.order()
    True
    """

    __slots__ = ("lock", "_making")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._making: dict[tuple[int, object], threading.Event] = {}

    def __reduce__(self) -> tuple:
        """A copy (pickled, deep-copied) is a fresh one: a lock is not copied, and no
        value is being made in the copy."""
        return (Once, ())

    def get(self, store: MutableMapping, key: object, make: Callable[[], T]) -> T:
        """``store[key]``, made by ``make()`` (outside the lock) if absent.

        Parameters
        ----------
        store : mutable mapping
            The cache; only this method inserts into it while threads share it.
        key : hashable
        make : callable
            Makes the value (never None).

        Returns
        -------
        object
            The stored value.

        Examples
        --------
        >>> once, calls = Once(), []
        >>> store = {}
        >>> [once.get(store, 1, lambda: calls.append(1) or "made") for _ in range(3)]
        ['made', 'made', 'made']
        >>> calls
        [1]
        """
        value = store.get(key)
        if value is not None:
            return value
        return self._fill((id(store), key), lambda: store.get(key),
                          lambda value: store.__setitem__(key, value), make)

    def attribute(self, owner: object, name: str, make: Callable[[], T]) -> T:
        """``owner.name``, made by ``make()`` (outside the lock) while it is None.

        Examples
        --------
        >>> class Box:
        ...     value = None
        >>> box = Box()
        >>> Once().attribute(box, "value", lambda: 3), box.value
        (3, 3)
        """
        value = getattr(owner, name)
        if value is not None:
            return value
        return self._fill((id(owner), name), lambda: getattr(owner, name),
                          lambda value: setattr(owner, name, value), make)

    def _fill(self, tag: tuple[int, object], read: Callable[[], T | None],
              write: Callable[[T], None], make: Callable[[], T]) -> T:
        """Make the value once: the first thread to miss makes it, the others wait on
        its event, then read it (or, when making failed, try in their turn)."""
        while True:
            with self.lock:
                value = read()
                if value is not None:
                    return value
                waiting = self._making.get(tag)
                if waiting is None:
                    done = self._making[tag] = threading.Event()
                    break
            waiting.wait()
        try:
            value = make()
            with self.lock:
                write(value)
            return value
        finally:
            with self.lock:
                del self._making[tag]
            done.set()

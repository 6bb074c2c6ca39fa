"""Palace generations: the palaces one session holds, numbered as they arrive, so a sync or a
reload that finishes late never puts an older palace in place of a newer one."""

from __future__ import annotations

import itertools
import threading
import weakref

from curator.model.palace import Palace


class Generations:
    """Numbers each palace the first time it is seen (held weakly: a palace no one holds is
    forgotten). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._order: weakref.WeakKeyDictionary[Palace, int] = weakref.WeakKeyDictionary()
        self._count = itertools.count()

    def next(self) -> int:
        """A number for a palace still loading (a load started later gets a higher one)."""
        with self._lock:
            return next(self._count)

    def number(self, palace: Palace, given: int | None = None) -> int:
        """`palace`'s number: the one it has, else `given` (from `next`), else a new one."""
        with self._lock:
            if palace not in self._order:
                self._order[palace] = next(self._count) if given is None else given
            return self._order[palace]

    def newer(self, palace: Palace, than: Palace | None) -> bool:
        """`palace` arrived after `than` (any palace is newer than none)."""
        number = self.number(palace)
        with self._lock:
            return than is None or number > self._order.get(than, -1)

"""What a long-lived server holds (the palace, the index) kept out of the cyclic collector's
scans: the warm hook server and the MCP server both answer from one palace for hours, and a
full scan of a 10k-note palace (0.1-0.5 s) would otherwise land inside some answer. And kept
small: the settled palace holds no note's text (`Palace.let_go_of_texts`), which a query
reads again for the few notes it ranks and shows."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.agents.service import Memory
    from curator.model.palace import Palace
    from curator.search.ranking import Ranker

__all__ = ["SETTLE_IDLE", "Quiet", "keep_settled", "settle", "settle_palace"]

SETTLE_IDLE = 5.0  # seconds without a request before a reloaded palace is settled


def settle(
    memory: Memory, settled: weakref.ref[Palace] | None, busy: Callable[[], bool] | None = None
) -> weakref.ref[Palace] | None:
    """`settle_palace` of the server's palace once it is loaded (again after a reload, and
    until its searcher is prepared: `busy` says when a request came meanwhile). The palace
    settled, held weakly."""
    palace = memory.session.loaded
    if palace is None:
        return settled
    searcher = memory.session.index.if_ready(palace)
    done = settled is not None and settled() is palace
    if done and (searcher is None or searcher.prepared is palace):
        return settled  # settled, and no searcher in step with it opened since
    settle_palace(palace, searcher, busy)
    return weakref.ref(palace)


def settle_palace(
    palace: Palace, searcher: Ranker | None = None, busy: Callable[[], bool] | None = None
) -> None:
    """The palace lets go of its notes' text and the searcher over it (when one is in step
    with it) works out what ranking reads of each note (`Ranker.prepare`: a question's
    candidates are then looked up, not read), then what the process holds is frozen out of
    the collector's scans (`gc.freeze`), after one full collection (a reload's old palace
    and its cycles are freed then, never kept frozen) and glibc handing back the pages
    freed (`curator.runtime.let_go`), so LanceDB's buffers reuse them."""
    from curator.runtime import let_go, tuned

    palace.let_go_of_texts()
    if searcher is not None and searcher.palace is palace:
        searcher.prepare(busy)
    let_go()
    if tuned("freeze"):
        gc.freeze()


class Quiet:
    """When a server last answered, stamped by every request as it starts and as it ends."""

    def __init__(self, since: float | None = None) -> None:
        self._last = time.monotonic() if since is None else since

    def stamp(self) -> None:
        self._last = time.monotonic()

    def seconds(self) -> float:
        """How long no request has started or ended."""
        return time.monotonic() - self._last


def keep_settled(
    memory: Memory, quiet: Quiet, stop: threading.Event, *, idle: float = SETTLE_IDLE
) -> None:
    """Settle `memory` whenever the server has been quiet `idle` seconds, until `stop` is set:
    a reload's collection waits for a pause between requests. A server's thread body."""
    settled: weakref.ref[Palace] | None = None
    while not stop.wait(min(1.0, idle or 0.05)):
        if quiet.seconds() >= idle:
            settled = settle(memory, settled, lambda: quiet.seconds() < idle)

"""What a long-lived server holds (the palace, the index) kept out of the cyclic collector's
scans: the warm hook server and the MCP server both answer from one palace for hours, and a
full scan of a 10k-note palace (0.1-0.5 s) would otherwise land inside some answer."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.agents.service import Memory
    from curator.model.palace import Palace

__all__ = ["SETTLE_IDLE", "Quiet", "keep_settled", "settle"]

SETTLE_IDLE = 5.0  # seconds without a request before a reloaded palace is settled


def settle(memory: Memory, settled: weakref.ref[Palace] | None) -> weakref.ref[Palace] | None:
    """What the server holds frozen out of the collector's scans (`gc.freeze`) once its palace
    is loaded. After a reload, one full collection first (the old palace's cycles are freed
    then, never kept frozen). The palace settled, held weakly."""
    from curator.runtime import tuned

    palace = memory.session.loaded
    if palace is None or (settled is not None and settled() is palace) or not tuned("freeze"):
        return settled
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return weakref.ref(palace)


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
            settled = settle(memory, settled)

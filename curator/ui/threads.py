"""The threads the app's work runs in, so quitting never waits for it.

Textual runs thread workers (and `asyncio.to_thread`) in the event loop's default executor,
and `asyncio.run` joins that executor's threads before `App.run()` returns: a quit while a
palace load, an index sync or a search was running waited for all of them (8–12 s on a busy
machine). The app's default executor runs each job in a daemon thread and never waits for
one; work that must not be cut off half-way (a commit, a task checkpoint) goes to
`FINISHING`, whose thread Python joins before the process ends. Row: "quit while the palace
loads" in `benchmarks/bench_tuning.py` (with and without, in the same run).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class DaemonExecutor(ThreadPoolExecutor):
    """A job per daemon thread; `shutdown` waits for none of them (they end with the
    process). A ThreadPoolExecutor only because asyncio accepts nothing else as default."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="curator-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


#: one thread for writes that must finish (commits): the process waits for it on exit
FINISHING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="curator-commit")


async def finish(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in the FINISHING thread, awaited: a quit meanwhile lets it complete."""
    import asyncio
    import functools

    return await asyncio.get_running_loop().run_in_executor(FINISHING, functools.partial(fn, *args))

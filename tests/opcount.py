"""Operation counts for the "costs linear time" tests: a count, where seconds would measure
the machine's load as much as the code.

`count_ops` counts every Python line run and every call (Python or C) made while `fn` runs.
A quadratic Python loop, or a C call repeated per character, shows in the count; work done
inside one C call (libyaml, a regex) is one operation, so the seconds of those stay in
benchmarks/.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def count_ops(fn: Callable[..., Any], *args: Any) -> int:
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "c_call":
            count += 1

    old_trace, old_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)
    return count


def grows_linearly(fn: Callable[[int], Any], small: int, factor: int = 8) -> tuple[bool, int, int]:
    """(linear?, ops at `small`, ops at `factor` x `small`): a + b*n at factor*n costs at most
    factor times a + b*n; anything faster-growing than n costs more. Run once first, so a
    cache filled on the first call does not count."""
    fn(small)
    low, high = count_ops(fn, small), count_ops(fn, factor * small)
    return high <= factor * low, low, high

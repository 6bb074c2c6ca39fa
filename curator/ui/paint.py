"""What keeps a screen's first paint at 10k notes off two costs the app does not otherwise
choose: the garbage collector's full collections and Textual's stylesheet reparse.

Both are measured by `benchmarks/bench_app.py --screens-only` (the "first paint of <screen>"
rows, wall and CPU, quiet and with `--loaded`), and switched off by CURATOR_NO_TUNING=1 (with
curator/runtime.py's tuning) or CURATOR_NO_PAINT_TUNING=1 (these alone), for the before/after.
"""

from __future__ import annotations

import gc
import os
from typing import TypeVar

from textual.screen import Screen

S = TypeVar("S", bound=Screen)

#: a full (generation 2) collection at most every this many generation-1 collections; Python's
#: default is 10
FULL_COLLECTION_EVERY = 100


def _tuned() -> bool:
    return not (os.environ.get("CURATOR_NO_TUNING") or os.environ.get("CURATOR_NO_PAINT_TUNING"))


def tune_collector() -> None:
    """At the app's start: what is alive now (the imported modules) is never collected again
    (gc.freeze), and full collections come ten times less often.

    A full collection walks every object the process holds (at 10k notes the palace and
    Textual's widgets, a few hundred thousand), a pause of the event loop that the default
    thresholds brought every few seconds of switching screens, in the middle of first paints,
    and that a loaded machine stretches several times over. Young collections run as before;
    cyclic garbage that lives long enough to reach the old generation waits longer for its
    collection."""
    if _tuned():
        gc.freeze()
        young, middle, _old = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def freeze_start_up() -> None:
    """Once the first palace has loaded and drawn: its notes (shared with every later load of
    an unchanged note) move out of the collector's reach, so no later collection walks them.
    A note dropped later is still freed by its reference count (notes hold no cycles)."""
    if _tuned():
        gc.collect(1)  # the young garbage of the load first, not frozen with it
        gc.freeze()


def styled_as_app(screen: S) -> S:
    """A mode's screen, made on its first visit, marked as styled with the app's current
    stylesheet: Textual otherwise reparses every stylesheet of the app from scratch and
    restyles every widget (`App.refresh_css`) when a mode's screen is first shown, for rules
    that have not changed. The screen's
    own widgets are styled as they mount either way (and a theme change still restyles it)."""
    if _tuned():
        screen._css_update_count = screen.app._css_update_count  # made in the app's context
    return screen

"""What keeps a screen's first paint at 10k notes off two costs the app does not otherwise
choose: the garbage collector's full collections and Textual's stylesheet refresh.

Measured by `benchmarks/bench_app.py --screens-only` (the "first paint of <screen>" rows, wall
and CPU, against the same with each of the two off), switched off by CURATOR_NO_TUNING (see
`curator.runtime`: "gc", "css"). Only public Textual API: the stylesheet refresh is skipped in
the app's own `refresh_css` override (it once set Textual's private `_css_update_count`).
"""

from __future__ import annotations

import gc

from curator.runtime import tuned

#: a full (generation 2) collection at most every this many generation-1 collections; Python's
#: default is 10
FULL_COLLECTION_EVERY = 100


def tune_collector() -> None:
    """At the app's start: what is alive now (the imported modules) is never collected again
    (gc.freeze), and full collections come ten times less often.

    A full collection walks every object the process holds (at 10k notes the palace and
    Textual's widgets, a few hundred thousand), a pause of the event loop that the default
    thresholds brought every few seconds of switching screens, in the middle of first paints,
    and that a loaded machine stretches several times over. Young collections run as before;
    cyclic garbage that lives long enough to reach the old generation waits longer for its
    collection."""
    if tuned("gc"):
        gc.freeze()
        young, middle, _old = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def freeze_start_up() -> None:
    """Once the first palace has loaded and drawn: its notes (shared with every later load of
    an unchanged note) move out of the collector's reach, so no later collection walks them.
    A note dropped later is still freed by its reference count (notes hold no cycles)."""
    if tuned("gc"):
        gc.collect(1)  # the young garbage of the load first, not frozen with it
        gc.freeze()


class StyleMemo:
    """The CSS variables (the theme) the app's stylesheet was last refreshed with.

    Textual refreshes the whole stylesheet (reparses every source, restyles every widget of
    every screen) when a mode's screen is first shown, though nothing the rules read has
    changed; the app's `refresh_css` asks `changed` first and skips that when the variables
    are the ones of the last refresh (a theme change still restyles everything; new widgets
    are styled as they mount either way). Row: "first paint of <screen>" in
    `benchmarks/bench_app.py --screens-only`.

    `made_with` is what the stylesheet was made with: Textual's App.__init__ makes it from
    the theme's variables, so the refresh Textual asks for when the first screen is shown
    (which parses every stylesheet again) is skipped too while the theme is unchanged."""

    def __init__(self, made_with: dict[str, str] | None = None) -> None:
        self._last = None if made_with is None else dict(made_with)

    def changed(self, variables: dict[str, str]) -> bool:
        if not tuned("css") or variables != self._last:
            self._last = dict(variables)
            return True
        return False

"""What keeps a screen's first paint at 10k notes off two costs the app does not otherwise
choose: the garbage collector's full collections and Textual's stylesheet refresh.

Measured by `benchmarks/bench_app.py --screens-only` (the "first paint of <screen>" rows, wall
and CPU, against the same with each of the two off), switched off by CURATOR_NO_TUNING (see
`curator.runtime`: "gc", "css"). Only public Textual API: the stylesheet refresh is skipped in
the app's own `refresh_css` override (it once set Textual's private `_css_update_count`).
"""

from __future__ import annotations

import gc
from typing import Any

from textual.events import ScreenResume

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


class KeepsStyles:
    """A screen that Textual restyles when it is shown only if it needs it.

    Textual restyles a screen and every widget on it each time the screen is shown (a mode
    switched to, a dialog pushed, the first show after mounting), though each widget was
    styled as it mounted and again on each change of its own since (a class set, the focus).
    What the screen's rules read that can change while it is out of sight is above it, on the
    app: the theme, the app's classes (`-wide`, set while another screen was on show) and its
    pseudo-classes. So the screen is restyled on show only when one of those changed since it
    was last on show (or mounted). Off with the "css" switch of CURATOR_NO_TUNING."""

    app: Any
    _styled_for: tuple[object, ...] | None = None

    def _app_styles(self) -> tuple[object, ...]:
        app = self.app
        return app.theme, app.classes, app.pseudo_classes

    def on_mount(self) -> None:
        self._styled_for = self._app_styles()

    # named as Textual's own handlers, which it calls too (it calls each class's in turn), so
    # that the screens' own `on_screen_resume` and `on_screen_suspend` keep their signatures
    def _on_screen_suspend(self) -> None:
        self._styled_for = self._app_styles()

    def _on_screen_resume(self, event: ScreenResume) -> None:
        if tuned("css") and self._styled_for == self._app_styles():
            event.refresh_styles = False

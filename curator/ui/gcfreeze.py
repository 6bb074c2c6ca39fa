"""Keep the cycle collector's full passes short in the app.

At 10k notes the app holds ~300k objects the cycle collector tracks (the imported modules'
functions and types, Textual's styles and caches, the palace), and a full collection walks all
of them: 150-350 ms, ~20 times in one search-and-promote session, each time freezing the UI (on
the event loop, or in a worker that holds the GIL). Almost all of those objects live as long as
the app. Once the first palace has loaded, the app collects once and freezes what is left
(`gc.freeze`): later collections walk only what was made since. A frozen object is still freed
when its last reference goes (a replaced palace is: it holds no cycles; a test checks). Only
cyclic garbage among the frozen objects stays: the widgets alive at that moment, which nearly
all live as long as the app."""

from __future__ import annotations

import gc


class StartupFreeze:
    def __init__(self) -> None:
        self.frozen = False

    def freeze(self) -> None:
        """Collect, then move every object tracked now out of the collector's sight (once)."""
        if not self.frozen:
            gc.collect()
            gc.freeze()
            self.frozen = True

    def release(self) -> None:
        """Hand the frozen objects back to the collector (when the app exits: tests and
        embedders run other code in the same process)."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False

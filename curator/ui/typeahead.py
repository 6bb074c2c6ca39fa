"""Keys typed fast are handled one at a time, in order, by the screen they were meant for.

A terminal delivers a burst of keys at once ("x", "dup", Enter, "y" typed quickly, or pasted),
and Textual forwards each to whatever has focus *at that moment*: before the widget has handled
the first key. So "x" (reject) and "dup" both reached the draft list, and a "y" right after the
Enter that closes a dialog landed in that dialog's field. Here a key is sent on only when the
previous one has been handled all the way up (the focused widget, its parents, the screen, the
app's bindings, and the messages those posted). Keys also wait while what they are meant for is
on its way: a dialog about to open (an action was asked for and its dialog is not mounted yet),
a screen switched to (until it has drawn and focused its list: "2" then Down moves Rooms'
cursor, not the Inbox's), and the palace reloaded after a commit (a space typed once "Committed"
shows marks the next draft, not the row of the draft just rejected that the list still shows).
A timer bounds every wait, so a key is never held for long if a widget goes away mid-way."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events
from textual.timer import Timer

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

#: how long a key or an expected dialog may hold the keys typed after it (seconds). Each wait
#: ends when what it waits for happens; the bound only frees keys held for something that never
#: comes, so it is set for a loaded machine: a key let go early reaches the widget focused
#: before (a reason typed for the dialog that "x" opens lands on the draft list as keys).
KEY_WAIT = 5.0
#: what keys can wait for, and for how long at most (a reload reads every note: seconds at 10k
#: notes on a busy machine)
WAITS = {"dialog": 15.0, "screen": 15.0, "reload": 30.0}
#: passes up the widget chain: the second catches what the first pass's handlers posted (an
#: Input's Submitted after its Enter binding ran)
PASSES = 2


class TypeAhead:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.held: deque[events.Key] = deque()
        self.in_flight = False
        self._releasing: events.Key | None = None
        self._key_timer: Timer | None = None
        self.waiting: dict[str, Timer] = {}  # what keys wait for -> the timer that ends the wait

    @property
    def idle(self) -> bool:
        """No key is held, in flight or on its way back in."""
        held = self.held or self._releasing is not None
        return not (held or self.in_flight or self.waiting)

    def hold(self, event: events.Key) -> bool:
        """True when `event` must wait (it was queued and will be sent again in turn)."""
        if event is self._releasing:
            self._releasing = None
            return False
        if self.in_flight or self.waiting or self.held or self._releasing is not None:
            self.held.append(event)
            return True
        return False

    def sent(self, event: events.Key, target: DOMNode) -> None:
        """`event` went to `target` (not a priority binding): wait until it is handled."""
        if not event.is_forwarded:  # a priority binding handled it, in the app's own turn
            self._release()
            return
        self.in_flight = True
        self._key_timer = self.app.set_timer(KEY_WAIT, self._key_done)
        self._climb(list(target.ancestors_with_self), PASSES)

    def _climb(self, chain: list[DOMNode], passes: int, at: int = 0) -> None:
        if not self.in_flight:
            return
        if at == len(chain):
            if passes > 1:
                self._climb(chain, passes - 1)
            else:
                self._key_done()
            return
        node = chain[at]
        if not node.is_attached:  # gone (a dialog closed): nothing more to wait for there
            self._climb(chain, passes, at + 1)
            return
        node.call_later(self._climb, chain, passes, at + 1)

    def _key_done(self) -> None:
        if self._key_timer is not None:
            self._key_timer.stop()
            self._key_timer = None
        self.in_flight = False
        self._release()

    def expect(self, what: str) -> None:
        """`what` (a key of WAITS) is on its way: keys typed from now on wait for it."""
        if (timer := self.waiting.pop(what, None)) is not None:
            timer.stop()
        self.waiting[what] = self.app.set_timer(WAITS[what], lambda: self.arrived(what))

    def arrived(self, what: str) -> None:
        if (timer := self.waiting.pop(what, None)) is not None:
            timer.stop()
        self._release()

    def expect_dialog(self) -> None:
        """A dialog is on its way: keys typed from now on are for it."""
        self.expect("dialog")

    def dialog_shown(self) -> None:
        self.arrived("dialog")

    def _release(self) -> None:
        """Send the next held key (a copy: a posted message can't be posted twice)."""
        if self.in_flight or self.waiting or self._releasing is not None or not self.held:
            return
        key = self.held.popleft()
        self._releasing = events.Key(key.key, key.character)
        self.app.post_message(self._releasing)

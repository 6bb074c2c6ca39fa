"""The key footer every screen shows: the keys that fit its width, whole, the screen's own
first (in the order the screen lists them), then the focused widget's, then the app's; `?`
(the key help, which lists the rest) always shows. Below 120 columns the keys sit closer and
the palette key drops its label.

Textual's Footer binds every FooterKey to `Footer.compact` (`data_bind`), and Textual prunes
a watcher whose widget is gone only when the watched value changes, which `compact` never does
(Textual issue #6666): these keys are built without that binding, so a rebuild (focus moves,
a dialog opens or closes) leaves nothing behind."""

from __future__ import annotations

import functools
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

WIDE = 120  # columns: from here the keys have their full padding
HELP = ("toggle_keys", "toggle_keys_typing")  # the `?` and F1 keys' actions, any prefix
PALETTE = 12  # cells the palette key takes at the right, with its label (4 without)


#: one key of the footer: keys as shown, description, the key to press, action, enabled, tip
Key = tuple[str, str, str, str, bool, str]


@functools.cache
def declared(cls: type) -> dict[str, int]:
    """action -> its place among the keys the class binds: its own BINDINGS in their order,
    then its bases' (a screen's own keys first). A key remapped in keys.toml keeps its action's
    place: Textual keys active bindings by key, so a remapped key would come last."""
    order: dict[str, int] = {}
    for klass in cls.__mro__:
        for binding in vars(klass).get("BINDINGS", ()):
            action = binding.action if hasattr(binding, "action") else binding[1]
            order.setdefault(action, len(order))
    return order


def footer_keys(app: Any, screen: Any, active: dict[str, Any] | None = None) -> list[Key]:
    """The footer's keys in their order: one per action (a group's keys share one).
    `active`: the screen's active bindings, when the caller has them already (Textual
    works them out afresh, asking every action's check, on each read)."""
    ranked: list[tuple[int, int, Key]] = []
    seen: set[str] = set()
    groups: dict[str, int] = {}
    active = screen.active_bindings if active is None else active
    for node, binding, enabled, tooltip in active.values():
        if not binding.show or binding.action in seen:
            continue
        seen.add(binding.action)
        rank = 0 if node is screen else 2 if node is app else 1
        at = declared(type(node)).get(binding.action, 1 << 20)  # type: ignore[arg-type]
        shown = app.get_key_display(binding)
        if binding.group is not None:  # `[` and `]`: one key "[ ]" with the group's label
            label = binding.group.description
            if label in groups:
                first, at_first, (keys, _label, *rest) = ranked[groups[label]]
                ranked[groups[label]] = (first, at_first, (f"{keys} {shown}", label, *rest))
                continue
            groups[label] = len(ranked)
            ranked.append((rank, at, (shown, label, binding.key, binding.action, enabled, "")))
            continue
        # a screen may word a key for its state (the inbox's groups: "Keep best", not
        # "Promote"): `key_label(action)`, None for the binding's own description
        label = getattr(node, "key_label", lambda _action: None)(binding.action)
        description = label or binding.description
        key = (shown, description, binding.key, binding.action, enabled, tooltip)
        ranked.append((rank, at, key))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [key for _rank, _at, key in ranked]


def key_width(key: Key, compact: bool) -> int:
    shown, description = key[0], key[1]
    return cell_len(shown) + cell_len(description) + (2 if compact else 3)


def fitting(keys: list[Key], width: int, compact: bool, *, help_first: bool = False) -> list[Key]:
    """The keys that fit in `width` cells, in order, the help key kept whatever the width
    (it lists the others): last, or first while the key help is open (it covers the right of
    the footer, and its Close key must show)."""
    help_keys = [k for k in keys if k[3].rsplit(".", 1)[-1] in HELP]
    room = width - sum(key_width(k, compact) for k in help_keys)
    out: list[Key] = []
    for key in keys:
        if key in help_keys:
            continue
        room -= key_width(key, compact)
        if room < 0:
            break
        out.append(key)
    return help_keys + out if help_first else out + help_keys


class KeyFooter(Footer):
    """Textual rebuilds the footer on every change of bindings (each focus move, each key
    that enables or disables one); this one changes only when what it shows changes, and then
    in place: the keys it shows already take their new words and state, a key is added or
    removed only when their number changes (building, mounting and styling a key costs far
    more than rewording one)."""

    _shown: tuple[Any, ...] | None = None  # the plan (`_plan`) on show
    _planned: tuple[Any, ...] | None = None  # the one recompose worked out, for compose

    def on_resize(self, event: Resize) -> None:
        if self._bindings_ready and self.is_attached:
            self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        if not (self._bindings_ready and self.is_attached):
            await super().recompose()
            return
        plan = self._plan()
        if plan == self._shown:
            return
        if self._shown is None or plan[0] != self._shown[0] or plan[2] != self._shown[2]:
            self._planned = plan  # compact or the palette key changed: built again
            await super().recompose()
            return
        await self._reword(plan)

    async def _reword(self, plan: tuple[Any, ...]) -> None:
        """The keys shown take `plan`'s (the palette key, at the right, is unchanged)."""
        compact, shown_keys, _palette = plan
        self._shown = plan
        keys = [k for k in self.query_children(FooterCap) if not k.has_class("-command-palette")]
        for widget, fields in zip(keys, shown_keys, strict=False):
            widget.show(*fields)
        if len(keys) > len(shown_keys):
            await self.remove_children(keys[len(shown_keys) :])
        elif len(shown_keys) > len(keys):
            more = [self._key(*fields, compact) for fields in shown_keys[len(keys) :]]
            if keys:
                await self.mount_all(more, after=keys[-1])
            elif self.children:  # the palette key only
                await self.mount_all(more, before=0)
            else:
                await self.mount_all(more)

    def _plan(self) -> tuple[Any, ...]:
        """What the footer shows: compact or not, the keys that fit, the palette key."""
        width = self.size.width or self.app.size.width
        compact = width < WIDE
        active = self.screen.active_bindings
        keys = footer_keys(self.app, self.screen, active)
        palette = self._palette(active, labelled=width >= 100)
        room = width - (PALETTE if width >= 100 else 4) if palette is not None else width
        shown = fitting(keys, room, compact, help_first=self.screen.has_class("-keys-open"))
        return compact, tuple(shown), palette

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        plan, self._planned = self._planned or self._plan(), None
        self._shown = plan
        compact, shown_keys, palette = plan
        if self.has_class("-compact") != compact:  # each set restyles the footer and its keys
            self.set_class(compact, "-compact")
        for shown, description, press, action, enabled, tooltip in shown_keys:
            yield self._key(shown, description, press, action, enabled, tooltip, compact)
        if palette is not None:
            key, shown, description, action, enabled, tooltip = palette
            yield FooterCap(
                key,
                shown,
                description,
                action,
                classes="-command-palette -compact",  # `compact` left at its default
                disabled=not enabled,
                tooltip=tooltip,
            )

    def _key(self, *fields: Any) -> FooterKey:
        shown, description, press, action, enabled, tooltip, compact = fields
        key = FooterCap(
            press,
            shown,
            description,
            action,
            classes="-compact" if compact else "",
            disabled=not enabled,
            tooltip=tooltip,
        )
        key.set_reactive(FooterKey.compact, compact)
        return key

    def _palette(self, active: dict[str, Any], *, labelled: bool) -> Key | None:
        """The palette key's fields (a Key), shown at the right, if the palette is on."""
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = active.get(self.app.COMMAND_PALETTE_BINDING)
        if found is None:
            return None
        _node, binding, enabled, _tooltip = found
        return (
            binding.key,
            self.app.get_key_display(binding),
            binding.description if labelled else "",
            binding.action,
            enabled,
            binding.tooltip or binding.description,
        )


class FooterCap(FooterKey):
    """A footer key built with its `-compact` class: Textual's sets the class again when it is
    mounted (the watcher of `compact`), and each set restyles the key from the whole
    stylesheet, for every key of every rebuild; this one only when the class changes."""

    def _watch_compact(self, compact: bool) -> None:
        if self.has_class("-compact") != compact:
            super()._watch_compact(compact)

    def show(
        self, shown: str, description: str, press: str, action: str, enabled: bool, tooltip: str
    ) -> None:
        """Show another key (a `Key`'s fields) in this one's place."""
        words = (shown, description, press, action)
        if (self.key_display, self.description, self.key, self.action) != words:
            self.key_display, self.description, self.key, self.action = words
            self.refresh(layout=True)  # its width follows its words
        if self._disabled == enabled:
            self._disabled = not enabled
            self.set_class(not enabled, "-disabled")
        if self.tooltip != (tooltip or None):
            self.tooltip = tooltip or None

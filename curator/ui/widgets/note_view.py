"""One note: header, flags, body as markdown, links, backlinks and supersede chain.

Links are listed in an OptionList; choosing one posts `NoteView.Navigate`. Markdown links
open nothing by themselves: note links navigate, web links are offered through the allowlist.
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlparse

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

from curator.model.links import md_target
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import clean
from curator.ui.safe import badges, bar, plain
from curator.ui.widgets.options import Options

SAFE_SCHEMES = ("http", "https")
LEGEND = "→ link  ← backlink  ○ chain · ⏎ opens"  # fits the note pane at 120 columns


class NoteView(VerticalScroll):
    class Navigate(Message):
        def __init__(self, rel: str) -> None:
            super().__init__()
            self.rel = rel

    def __init__(self, *, today: date | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.today = today
        self.note: Note | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("No note selected", style="dim"), id="note-head")
        yield Markdown("", open_links=False, id="note-body")
        yield Options(id="note-links")

    def show(self, palace: Palace, note: Note | None) -> None:
        self.note = note
        head = self.query_one("#note-head", Static)
        body = self.query_one("#note-body", Markdown)
        links = self.query_one("#note-links", OptionList)
        links.clear_options()
        if note is None:
            empty = "No note selected: pick one in the list (Enter opens it)."
            if not palace.notes:
                empty = "This palace has no notes yet: promote a draft in the Inbox (1)."
            head.update(Text(empty, style="dim"))
            body.update("")
            links.display = False  # no empty box under "No note selected"
            return
        head.update(self._head(palace, note))
        body.update(clean(note.body))
        options = self._link_options(palace, note)
        links.add_options(options)
        links.display = bool(options)
        links.border_title = LEGEND
        self.scroll_home(animate=False)

    def into_links(self) -> bool:
        """Focus the note's links, the first one that opens highlighted (so a second Enter
        opens it); False when it has none to open."""
        links = self.query_one("#note-links", OptionList)
        usable = [i for i in range(links.option_count) if not links.get_option_at_index(i).disabled]
        if not (links.display and usable):
            return False
        links.focus()
        at = links.highlighted
        if at is None or links.get_option_at_index(at).disabled:
            links.highlighted = usable[0]
        return True

    def show_trail(self, names: list[str]) -> None:
        """The links followed to this note, oldest first, as the pane's title (a breadcrumb
        that stays in sight however far the note scrolls): Backspace goes back along it;
        none when the note was picked from the list."""
        if not names:
            self.border_title = None
            return
        room = max(20, self.size.width - 6)  # inside the corners and the title's spaces
        shown: list[str] = []
        for name in reversed(names):  # the nearest steps first; the oldest give way
            if len(" › ".join([name, *shown, "here"])) + 4 > room and shown:
                shown.insert(0, "…")
                break
            shown.insert(0, name)
        line = Text("⌫ ", style="dim")
        for name in shown:
            line.append_text(plain(name)).append(" › ", style="dim")
        self.border_title = line.append("here", style="bold")

    def _head(self, palace: Palace, note: Note) -> Text:
        out = Text()
        chain = palace.chain(note) if note.kind == "note" else [note]
        if len(chain) > 1:  # first: is this note still the one to follow?
            out.append("chain ", style="magenta")
            for index, step in enumerate(chain):
                if index:
                    out.append(" → ", style="magenta")
                style = "bold reverse" if step is note else "magenta"
                out.append_text(plain(step.name or step.rel, style, limit=40))
            out.append("\n")
        out.append_text(plain(note.name or note.rel, "bold"))
        out.append("\n")
        out.append_text(plain(note.rel, "dim"))
        out.append("\n")
        if note.description:
            out.append_text(plain(note.description, "italic"))
            out.append("\n")
        fields = [
            ("type", note.type),
            ("status", note.status),
            ("scope", note.scope),
            ("created", note.created),
            ("reviewed", note.reviewed),
        ]
        out.append_text(plain("  ".join(f"{k}: {v}" for k, v in fields if v), "dim"))
        out.append("\n")
        known = palace.known_confidence(note)
        if known is not None:
            out.append("confidence ")
            out.append_text(bar(known))
            out.append("  ")
        elif note.ok:  # stated as something that is no confidence, or nothing says it
            stated = note.header.get("confidence")
            why = f"{stated!r} is not within 0..1" if stated is not None else "not stated"
            out.append_text(plain(f"confidence unknown ({why})  ", "yellow"))
        out.append_text(badges(palace.flags(note, self.today)))
        if note.stale:
            out.append("\n")
            out.append_text(
                plain(
                    f"stale since {note.stale.get('since', '?')}: {note.stale.get('reason', '')}",
                    "red",
                )
            )
        retired = note.header.get("retired") if note.status == "retired" else None
        if retired is not None:
            reason = retired.get("reason", "") if isinstance(retired, dict) else retired
            since = retired.get("since", "?") if isinstance(retired, dict) else "?"
            out.append("\n")
            out.append_text(plain(f"retired since {since}: {reason}", "yellow"))
        for finding in note.problems:
            out.append("\n")
            out.append_text(plain(f"! {finding.message}", "yellow"))
        return out

    def _link_options(self, palace: Palace, note: Note) -> list[Option]:
        options: list[Option] = []
        chain = palace.chain(note) if note.kind == "note" else [note]
        if len(chain) > 1:  # the supersede chain first: is this note still the current one?
            for step in chain:
                mark = "● " if step is note else "○ "
                prompt = Text("chain " + mark).append_text(plain(step.name or step.rel))
                options.append(Option(prompt, id=f"chain:{step.rel}", disabled=step is note))
        seen: set[str] = set()  # a note linked twice is listed once (option ids are unique)
        for link in palace.outgoing(note):
            target = palace.by_rel.get(link.target) if link.target else None
            if target is not None and f"go:{target.rel}" not in seen:
                seen.add(f"go:{target.rel}")
                prompt = Text("→ ").append_text(plain(target.name or target.rel))
                options.append(Option(prompt, id=f"go:{target.rel}"))
            elif link.target and target is None:  # a file, not a note (a vault's attachment)
                prompt = Text("→ file: ", style="dim").append_text(plain(link.target))
                options.append(Option(prompt, disabled=True))
            elif not link.target:
                prompt = Text("→ broken: ", style="red").append_text(plain(link.raw.target))
                options.append(Option(prompt, disabled=True))
        for link in palace.backlinks(note):
            source = palace.by_rel[link.source]
            if f"back:{link.source}" in seen:
                continue
            seen.add(f"back:{link.source}")
            prompt = Text("← ").append_text(plain(source.name or source.rel))
            options.append(Option(prompt, id=f"back:{link.source}"))
        return options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if ":" in option_id:
            self.post_message(self.Navigate(option_id.split(":", 1)[1]))

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = event.href
        scheme = urlparse(href).scheme.lower()
        if self.note is not None and not scheme:
            self.post_message(self.Navigate(md_target(self.note.rel, href)))
        elif scheme in SAFE_SCHEMES:
            self.app.open_url(href)
        else:
            self.notify(
                f"Not opened: {clean(href)!r} (only http and https links open)",
                severity="warning",
                markup=False,
            )

"""Helpers for the list tests: a palace with long names and many rows, what a table draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from palacehelpers import note_text

from curator.ui.app import CuratorApp

LONG = "Where to find the deploy pipeline for the {} service and who may change it"


def draft_text(name: str, *, type: str = "project", source: str = "sess-1", day: int = 28) -> str:
    return (
        f"---\nname: {name}\ndescription: About {name.lower()}.\ntype: {type}\nstatus: draft\n"
        f"created: 2026-11-{day:02d}T09:00:00Z\nsource: {{session: {source}}}\n---\n"
        f"The {name.lower()} is written down here.\n"
    )


def long_names_palace(make_palace: Any) -> Path:
    """Two drafts and two notes whose long names differ only at the end, one stale note."""
    files = {
        "inbox/2026-11-28-billing.md": draft_text(LONG.format("billing")),
        "inbox/2026-11-27-search.md": draft_text(LONG.format("search"), day=27),
        "notes/project/billing.md": note_text(LONG.format("billing"), body="Deploy billing.\n"),
        "notes/project/search.md": note_text(
            LONG.format("search"),
            extra="created: 2026-11-01\nreviewed: 2026-11-01\n"
            "stale: {reason: the workflow file it names is gone, since: 2026-11-20}\n",
        ),
    }
    return make_palace(files)


def drawn_lines(app: CuratorApp, selector: str) -> list[str]:
    """The lines the screen shows inside the widget's region, as last drawn."""
    from textual.strip import Strip

    region = app.screen.query_one(selector).region
    update = app.screen._compositor.render_full_update()
    lines = [Strip.join(row).crop(region.x, region.right).text for row in update.strips]
    return lines[region.y : region.bottom]

"""Where the stylesheets are: the folder shipped as curator.styles (the repo's styles/)."""

from __future__ import annotations

from pathlib import Path, PurePath

from curator.shipped import shipped_folder

SHEETS = ("app.tcss", "inbox.tcss", "rooms.tcss", "audit.tcss", "search.tcss", "history.tcss")


def styles_dir() -> Path:
    return shipped_folder("styles")


def css_paths() -> list[str | PurePath]:
    folder = styles_dir()
    return [folder / name for name in SHEETS]

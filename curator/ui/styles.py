"""Where the stylesheets are: the package curator.styles (the repo's styles/, mapped by setup)."""

from __future__ import annotations

from pathlib import Path, PurePath

SHEETS = ("app.tcss", "inbox.tcss", "rooms.tcss", "audit.tcss", "search.tcss", "history.tcss")


def styles_dir() -> Path:
    from importlib.resources import files

    return Path(str(files("curator.styles")))


def css_paths() -> list[str | PurePath]:
    folder = styles_dir()
    return [folder / name for name in SHEETS]

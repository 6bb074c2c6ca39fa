"""Where the stylesheets are: the packaged curator.styles, else the repo's styles/ folder."""

from __future__ import annotations

from pathlib import Path, PurePath

SHEETS = ("app.tcss", "inbox.tcss", "rooms.tcss", "audit.tcss", "search.tcss", "history.tcss")


def styles_dir() -> Path:
    try:
        from importlib.resources import files

        folder = Path(str(files("curator.styles")))
        if (folder / SHEETS[0]).is_file():
            return folder
    except (ModuleNotFoundError, TypeError):
        pass
    import curator

    return Path(curator.__file__).resolve().parent.parent / "styles"


def css_paths() -> list[str | PurePath]:
    folder = styles_dir()
    return [folder / name for name in SHEETS]

"""Where a palace is and what lives in it: the folder names, which files are notes or drafts,
and finding the palace from --palace, CURATOR_PALACE or the working directory.

A prompt hook's process finds its palace and writes its log with this module before it asks
the warm server, so the rules it uses there (`palace_root`, `state_dir`) work on strings with
`os.path`: pathlib (and urllib.parse, ipaddress under it) was ~4 ms of that process's CPU."""

from __future__ import annotations

import os

from curator import CONFIG_NAME
from curator.errors import CuratorError, PalaceNotFound

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook process imports this
if TYPE_CHECKING:  # types only: the hooks find the palace without loading YAML, nor pathlib
    from pathlib import Path

    from curator.model.note import Kind

NOTES_DIR = "notes"
STATE_DIR = ".curator"
TASKS_DIR = "tasks"
INDEX_NAME = "INDEX.md"


def palace_changed(root: Path, path: str) -> bool:
    """Does a change at `path` (a watcher's report) change what the palace reads? Any file but
    git's and curator's own state; a path that cannot be placed under `root` counts (reload
    rather than miss a change). The app and the agents' Memory watch with this one rule."""
    from pathlib import Path

    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return True
    top = rel.split("/", 1)[0]
    return top not in (".git", STATE_DIR)


def find_palace(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """--palace PATH, else CURATOR_PALACE, else walk up from cwd to a palace.toml."""
    from pathlib import Path

    return Path(palace_root(explicit, cwd))


def palace_root(
    explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None
) -> str:
    """`find_palace`'s folder as a string (see the module docstring)."""
    for source, value in (
        ("--palace", explicit),
        ("CURATOR_PALACE", os.environ.get("CURATOR_PALACE")),
    ):
        if value:
            path = os.path.expanduser(os.fspath(value))
            if not os.path.isdir(path):
                raise PalaceNotFound(f"{source} points at {_shown(path)}, which is not a folder")
            if not os.path.isfile(os.path.join(path, CONFIG_NAME)) and not os.path.isdir(
                os.path.join(path, NOTES_DIR)
            ):
                raise PalaceNotFound(
                    f"{source}: {_shown(path)} is not a palace (no palace.toml and no notes/ "
                    "folder)"
                )
            return os.path.realpath(path)
    here = os.path.realpath(os.getcwd() if cwd is None else os.fspath(cwd))
    folder = here
    while True:
        if os.path.isfile(os.path.join(folder, CONFIG_NAME)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    raise PalaceNotFound(
        f"no palace found: no {CONFIG_NAME} in {here} or above it. "
        "Use --palace PATH, set CURATOR_PALACE, or run 'curator init'."
    )


def _shown(path: str) -> str:
    """A path as an error names it (as pathlib spells it: no doubled or trailing slashes)."""
    from pathlib import Path

    return str(Path(path))


def inbox_of(root: Path) -> str:
    """The palace's drafts folder (`[palace] inbox`), for a caller that holds no palace or
    config: the one accessor besides `Config.inbox`, which it reads."""
    from pathlib import Path

    from curator.config import load_config  # finding a palace needs no config schema

    return load_config(Path(root)).inbox


def in_inbox(rel: str, inbox: str) -> bool:
    """Whether the palace path `rel` lies in the drafts folder `inbox`."""
    return rel.startswith(inbox + "/")


def kind_of(rel: str, inbox: str) -> Kind | None:
    """ "note" for a markdown file under notes/, "draft" under the inbox, else None."""
    if not rel.endswith(".md"):
        return None
    if rel.startswith(NOTES_DIR + "/"):
        return "note"
    if in_inbox(rel, inbox):
        return "draft"
    return None


def state_folder(root: str | os.PathLike[str], rel: str) -> Path:
    """`root/rel` as a folder curator may write in (it need not exist yet). A palace cloned
    from someone else's repository may hold a symbolic link where a state folder goes
    (.curator, tasks): a link anywhere on the way is refused, so curator never writes or
    deletes outside the palace."""
    from pathlib import Path

    return Path(_state_folder(os.fspath(root), rel))


def _state_folder(root: str, rel: str) -> str:
    path = root
    parts = [part for part in rel.split("/") if part and part != "."]
    for depth, part in enumerate(parts, start=1):
        path = os.path.join(path, part)
        where = "/".join(parts[:depth])
        if os.path.islink(path):
            raise CuratorError(
                f"refusing to use {where}: it is a symbolic link, and curator keeps its state "
                "only in real folders inside the palace; remove the link",
                path=_shown(path),
            )
        if os.path.exists(path) and not os.path.isdir(path):
            raise CuratorError(f"refusing to use {where}: it is not a folder", path=_shown(path))
    return path


def ensure_state_dir(root: str | os.PathLike[str]) -> Path:
    """.curator/ with a .gitignore of its own, so machine state never enters history. Neither
    it nor anything directly in it may be a symbolic link (see `state_folder`)."""
    from pathlib import Path

    return Path(state_dir(root))


def state_dir(root: str | os.PathLike[str]) -> str:
    """`ensure_state_dir`'s folder as a string (see the module docstring)."""
    root = os.fspath(root)
    state = _state_folder(root, STATE_DIR)
    try:
        os.mkdir(state)
    except FileExistsError:
        if not os.path.isdir(state):
            raise
    with os.scandir(state) as entries:
        for entry in entries:
            if entry.is_symlink():
                _state_folder(root, f"{STATE_DIR}/{entry.name}")  # raises, naming the link
    ignore = os.path.join(state, ".gitignore")
    if not os.path.exists(ignore):  # whole or not at all: an empty one would be kept
        from pathlib import Path

        from curator.fsutil import atomic_write

        text = b"# curator machine state: caches, index, journal. Never committed.\n*\n"
        atomic_write(Path(ignore), text)
    return state

"""Where a palace is and what lives in it: the folder names, which files are notes or drafts,
and finding the palace from --palace, CURATOR_PALACE or the working directory."""

from __future__ import annotations

import os
from pathlib import Path

from curator import CONFIG_NAME
from curator.errors import CuratorError, PalaceNotFound

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook process imports this
if TYPE_CHECKING:  # a type only: the hooks find the palace without loading YAML
    from curator.model.note import Kind

NOTES_DIR = "notes"
STATE_DIR = ".curator"
TASKS_DIR = "tasks"
INDEX_NAME = "INDEX.md"


def palace_changed(root: Path, path: str) -> bool:
    """Does a change at `path` (a watcher's report) change what the palace reads? Any file but
    git's and curator's own state; a path that cannot be placed under `root` counts (reload
    rather than miss a change). The app and the agents' Memory watch with this one rule."""
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return True
    top = rel.split("/", 1)[0]
    return top not in (".git", STATE_DIR)


def find_palace(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """--palace PATH, else CURATOR_PALACE, else walk up from cwd to a palace.toml."""
    for source, value in (
        ("--palace", explicit),
        ("CURATOR_PALACE", os.environ.get("CURATOR_PALACE")),
    ):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                raise PalaceNotFound(f"{source} points at {path}, which is not a folder")
            if not (path / CONFIG_NAME).is_file() and not (path / NOTES_DIR).is_dir():
                raise PalaceNotFound(
                    f"{source}: {path} is not a palace (no palace.toml and no notes/ folder)"
                )
            return path.resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise PalaceNotFound(
        f"no palace found: no {CONFIG_NAME} in {here} or above it. "
        "Use --palace PATH, set CURATOR_PALACE, or run 'curator init'."
    )


def inbox_of(root: Path) -> str:
    """The palace's drafts folder (`[palace] inbox`), for a caller that holds no palace or
    config: the one accessor besides `Config.inbox`, which it reads."""
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


def state_folder(root: Path, rel: str) -> Path:
    """`root/rel` as a folder curator may write in (it need not exist yet). A palace cloned
    from someone else's repository may hold a symbolic link where a state folder goes
    (.curator, tasks): a link anywhere on the way is refused, so curator never writes or
    deletes outside the palace."""
    path = Path(root)
    for part in Path(rel).parts:
        path = path / part
        where = path.relative_to(root).as_posix()
        if path.is_symlink():
            raise CuratorError(
                f"refusing to use {where}: it is a symbolic link, and curator keeps its state "
                "only in real folders inside the palace; remove the link",
                path=str(path),
            )
        if path.exists() and not path.is_dir():
            raise CuratorError(f"refusing to use {where}: it is not a folder", path=str(path))
    return path


def ensure_state_dir(root: Path) -> Path:
    """.curator/ with a .gitignore of its own, so machine state never enters history. Neither
    it nor anything directly in it may be a symbolic link (see `state_folder`)."""
    state = state_folder(root, STATE_DIR)
    state.mkdir(exist_ok=True)
    with os.scandir(state) as entries:
        for entry in entries:
            if entry.is_symlink():
                state_folder(root, f"{STATE_DIR}/{entry.name}")  # raises, naming the link
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# curator machine state: caches, index, journal. Never committed.\n*\n")
    return state

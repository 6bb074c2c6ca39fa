"""User key remapping: `keys.toml` in the XDG config folder maps binding ids to keys. The ids
are listed by `?` beside each key; an id that names no binding is reported, not ignored.

# ~/.config/curator/keys.toml
"inbox.promote" = "P"
"screen.search" = "ctrl+f,f4"
"""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from pathlib import Path

KEYS_FILE = "keys.toml"


def keys_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("curator")) / KEYS_FILE


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, problems). A missing file is an empty keymap; an id that names no
    binding of the app is a problem (the rest of the file still applies)."""
    path = path or keys_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, [f"{path}: ignored, cannot read it: {exc}"]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    known = binding_ids() if data else set()
    for key, value in data.items():
        if key not in known:
            problems.append(
                f"{path}: {key!r} is not a key id (the ids are listed in ? beside each key)"
            )
        elif isinstance(value, str) and value.strip():
            keymap[key] = value.strip()
        else:
            problems.append(f'{path}: {key!r} must map to keys as text, like "ctrl+p"')
    return keymap, problems


def binding_ids() -> set[str]:
    """Every binding id of curator's screens, dialogs and widgets (their modules imported)."""
    from textual.dom import DOMNode

    import curator.ui

    for module in pkgutil.walk_packages(curator.ui.__path__, "curator.ui."):
        importlib.import_module(module.name)
    ids: set[str] = set()
    todo: list[type] = [DOMNode]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("curator."):
            ids.update(getattr(b, "id", None) or "" for b in vars(cls).get("BINDINGS", ()))
    ids.discard("")
    return ids

"""User key remapping: `keys.toml` in the XDG config folder maps binding ids to keys.

# ~/.config/curator/keys.toml
"inbox.promote" = "P"
"app.search" = "ctrl+f,f4"
"""

from __future__ import annotations

import tomllib
from pathlib import Path

KEYS_FILE = "keys.toml"


def keys_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("curator")) / KEYS_FILE


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, problems). A missing file is an empty keymap."""
    path = path or keys_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, [f"{path}: ignored, cannot read it: {exc}"]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for key, value in data.items():
        if isinstance(value, str) and value.strip():
            keymap[key] = value.strip()
        else:
            problems.append(f'{path}: {key!r} must map to keys as text, like "ctrl+p"')
    return keymap, problems

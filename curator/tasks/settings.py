"""The [tasks] table of palace.toml: whether tasks/ is committed, how often, and the times
after which a claim lapses or a task counts as stale.

    [tasks]
    tracked = true        # commit tasks/ to git (false: tasks/ is git-ignored)
    commit_saves = false  # true: every save is a commit; false: saves ride the next claim,
                          # release or status change commit
    stale_after = "2h"    # claimed but not saved for this long: flagged stale
    claim_ttl = "8h"      # a claim lapses this long after the holder's last save or claim

Read here, with its own validation, so the task commands never load the rest of the config.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.errors import ConfigError

CONFIG_NAME = "palace.toml"
_KEYS = {"tracked", "commit_saves", "stale_after", "claim_ttl"}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class TaskSettings:
    tracked: bool = True
    commit_saves: bool = False
    stale_after: float = 2 * 3600.0  # seconds
    claim_ttl: float = 8 * 3600.0  # seconds


def duration(value: Any) -> float | None:
    """Seconds from 90, "90s", "30m", "2h" or "1d"; None when it is none of those."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value > 0 else None
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None or float(match.group(1)) <= 0:
        return None
    return float(match.group(1)) * _UNIT[match.group(2)]


def load_settings(root: Path) -> TaskSettings:
    path = Path(root) / CONFIG_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return TaskSettings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path=str(path)) from None
    table = data.get("tasks", {})
    if not isinstance(table, dict):
        raise ConfigError("[tasks] must be a table", path=str(path))
    return parse_settings(table, str(path))


def parse_settings(table: dict[str, Any], path: str = CONFIG_NAME) -> TaskSettings:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        known = ", ".join(sorted(_KEYS))
        raise ConfigError(f"unknown key {unknown[0]!r} in [tasks] (known: {known})", path=path)
    out: dict[str, Any] = {}
    for key in ("tracked", "commit_saves"):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"[tasks] {key} must be true or false", path=path)
            out[key] = table[key]
    for key in ("stale_after", "claim_ttl"):
        if key in table:
            seconds = duration(table[key])
            if seconds is None:
                raise ConfigError(
                    f'[tasks] {key} must be a duration such as "30m", "2h" or "1d"', path=path
                )
            out[key] = seconds
    return TaskSettings(**out)

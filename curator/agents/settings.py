"""The `[agents]` table of palace.toml: how much memory the agent-facing paths hand out.

    [agents]
    pack_budget = 2000          # tokens of the UserPromptSubmit memory pack
    pack_floor = 0.7            # confidence floor of that pack
    max_lines = 200             # hard cap on a context file's lines (curator pack --into)
    always_loaded = ["CLAUDE.md"]  # files an agent always loads; `curator check` warns past the cap

Read straight from palace.toml with tomllib (the hooks are short processes and must not pay
for more than they use); a bad value is a ConfigError naming the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.errors import ConfigError

__all__ = ["AgentSettings", "load_settings"]

CONFIG_NAME = "palace.toml"


@dataclass(frozen=True)
class AgentSettings:
    pack_budget: int = 2000
    pack_floor: float = 0.7
    max_lines: int = 200
    always_loaded: tuple[str, ...] = ("CLAUDE.md",)


_KEYS = {"pack_budget", "pack_floor", "max_lines", "always_loaded"}


def _fail(path: Path, key: str, message: str) -> ConfigError:
    return ConfigError(f"[agents] {key}: {message}", path=str(path))


def _int(path: Path, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(path, key, f"must be a whole number from {lo} to {hi}, got {value!r}")
    return value


def parse_settings(table: Any, path: Path) -> AgentSettings:
    if not isinstance(table, dict):
        raise _fail(path, "agents", "must be a table")
    for key in sorted(set(table) - _KEYS):
        raise _fail(path, key, f"unknown key (known: {', '.join(sorted(_KEYS))})")
    out = AgentSettings()
    budget = _int(path, "pack_budget", table.get("pack_budget", out.pack_budget), 50, 100_000)
    floor = table.get("pack_floor", out.pack_floor)
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor <= 1:
        raise _fail(path, "pack_floor", f"must be a number from 0 to 1, got {floor!r}")
    max_lines = _int(path, "max_lines", table.get("max_lines", out.max_lines), 10, 100_000)
    files = table.get("always_loaded", list(out.always_loaded))
    if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
        raise _fail(path, "always_loaded", "must be a list of file paths")
    return AgentSettings(budget, float(floor), max_lines, tuple(files))


def load_settings(root: Path) -> AgentSettings:
    """The [agents] settings of the palace at `root` (defaults when absent)."""
    path = Path(root) / CONFIG_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return AgentSettings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path=str(path)) from None
    return parse_settings(data.get("agents", {}), path)

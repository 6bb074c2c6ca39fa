"""The `[agents]` table of palace.toml: how much memory the agent-facing paths hand out.

    [agents]
    pack_budget = 2000          # tokens of the UserPromptSubmit memory pack
    pack_floor = 0.7            # confidence floor of that pack
    max_lines = 200             # hard cap on a context file's lines (curator pack --into)
    always_loaded = ["CLAUDE.md"]  # files an agent always loads; `curator check` warns past the cap

Declared once with the rest of palace.toml (`curator.config.schema.AgentsTable`), so a bad
value is a ConfigError naming the file, the line and the key.
"""

from __future__ import annotations

from pathlib import Path

from curator.config import load_config
from curator.config.schema import AgentsTable

__all__ = ["AgentSettings", "load_settings"]

AgentSettings = AgentsTable


def load_settings(root: Path) -> AgentSettings:
    """The [agents] settings of the palace at `root` (defaults when absent)."""
    return load_config(Path(root)).agents

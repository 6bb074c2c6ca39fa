"""The [tasks] table of palace.toml: whether tasks/ is committed, how often, and the times
after which a claim lapses or a task counts as stale.

    [tasks]
    tracked = true        # commit tasks/ to git (false: tasks/ is git-ignored)
    commit_saves = false  # true: every save is a commit; false: saves ride the next claim,
                          # release or status change commit
    stale_after = "2h"    # claimed but not saved for this long: flagged stale
    claim_ttl = "8h"      # a claim lapses this long after the holder's last save or claim

palace.toml declares and checks the table (`curator.config.schema.TasksTable`, errors with
their line); this module turns its durations into seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.config.schema import DURATION_PATTERN, TasksTable

_DURATION = re.compile(DURATION_PATTERN)  # the pattern palace.toml's check uses
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


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


_TABLE = TasksTable()


@dataclass(frozen=True)
class TaskSettings:
    """The [tasks] table with its durations in seconds (defaults from the struct)."""

    tracked: bool = _TABLE.tracked
    commit_saves: bool = _TABLE.commit_saves
    stale_after: float = duration(_TABLE.stale_after) or 0.0
    claim_ttl: float = duration(_TABLE.claim_ttl) or 0.0


def load_settings(root: Path) -> TaskSettings:
    """The [tasks] settings of the palace at `root`, durations in seconds (defaults when absent).
    palace.toml declares and checks the table once (`curator.config.schema.TasksTable`)."""
    from curator.config import load_config

    table = load_config(Path(root)).tasks
    return TaskSettings(
        tracked=table.tracked,
        commit_saves=table.commit_saves,
        stale_after=duration(table.stale_after) or TaskSettings.stale_after,
        claim_ttl=duration(table.claim_ttl) or TaskSettings.claim_ttl,
    )

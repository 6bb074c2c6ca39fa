"""The environment every git command curator runs gets: never a prompt, a pager or an editor,
stable (C locale) messages, paths taken literally, and no index inherited from a calling hook.

The writer runs git through `curator.writer.git` with it; the wings that only read from git
(search's HEAD, the hooks' project state) pass it too, without importing the writer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["git_env"]


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """os.environ with git made non-interactive and literal (see the module docstring)."""
    env = dict(os.environ)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        LANGUAGE="C",
        GIT_LITERAL_PATHSPECS="1",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR=":",
    )
    # Never inherit an index from a calling git hook; apply chooses its own index.
    env.pop("GIT_INDEX_FILE", None)
    if extra:
        env.update(extra)
    return env

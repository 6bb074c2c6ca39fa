"""ruff's lint and format rules (configured in pyproject.toml) hold for the whole repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUFF = str(Path(sys.executable).with_name("ruff"))


def test_ruff_check_is_clean() -> None:
    proc = subprocess.run([RUFF, "check", "."], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = subprocess.run(
        [RUFF, "format", "--check", "."], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr

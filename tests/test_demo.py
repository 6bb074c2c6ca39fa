"""`curator demo` builds a scratch git palace that starts clean, away from the repo's copy."""

from __future__ import annotations

import subprocess
from pathlib import Path

from curator.cli.app_cmds import make_demo
from curator.model.check import run_checks
from curator.model.palace import Palace

SAMPLE = Path(__file__).resolve().parent.parent / "sample_palace"


def test_demo_is_a_clean_committed_copy(tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in SAMPLE.rglob("*") if p.is_file()}
    root = make_demo(tmp_path / "demo")
    palace = Palace.open(root)
    assert len(palace.notes) == 40 and len(palace.drafts) == 8
    assert [f.format() for f in run_checks(palace) if f.severity == "error"] == []
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # drafts are git-ignored, everything else committed
    tracked = subprocess.run(
        ["git", "ls-files", "inbox"], cwd=root, capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
    assert {p: p.read_bytes() for p in SAMPLE.rglob("*") if p.is_file()} == before

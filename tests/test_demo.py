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


def test_only_the_writer_makes_a_repository(tmp_path: Path) -> None:
    """`git init` is run by writer/init.py alone (init and the demo's copy), never by a CLI
    module; a demo asked into a folder that holds files refuses and leaves them as they were."""
    import pytest

    from curator.errors import CuratorError

    curator = SAMPLE.parent / "curator"
    inits = sorted(
        str(p.relative_to(curator))
        for p in curator.rglob("*.py")
        if '"init", "-q"' in p.read_text() or '"git", "init"' in p.read_text()
    )
    assert inits == ["writer/init.py"]
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep\n")
    with pytest.raises(CuratorError, match="not empty"):
        make_demo(busy)
    assert [p.name for p in busy.iterdir()] == ["mine.txt"]

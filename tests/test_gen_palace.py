"""benchmarks/gen_palace.py --git at a size a test affords: the commit holds every file
written, packed by fast-import (no loose blob: at a million notes `git add` wrote a million
loose objects), the worktree is clean against it, and repeated names get slugs -2, -3, ... in
order."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from benchmarks.gen_palace import generate


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def test_git_palace_is_packed_committed_and_clean(tmp_path: Path) -> None:
    root = tmp_path / "palace"
    generate(root, notes=150, drafts=3, git=True)
    on_disk = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    assert _git(root, "ls-tree", "-r", "--name-only", "HEAD").split() == on_disk
    assert _git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert "inbox/draft-0000.md" in on_disk  # committed though .gitignore names inbox/
    objects = root / ".git" / "objects"
    loose = "".join(f"{d.name}{f.name}\n" for d in objects.glob("??") for f in d.iterdir())
    kinds = subprocess.run(
        ["git", "cat-file", "--batch-check=%(objecttype)"],
        cwd=root,
        input=loose,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert "blob" not in kinds  # every file's blob is in fast-import's pack
    assert list(objects.glob("pack/*.pack"))
    _git(root, "fsck", "--no-progress")


def test_repeated_names_number_their_slugs_in_order(tmp_path: Path) -> None:
    root = tmp_path / "palace"
    generate(root, notes=600, drafts=0)
    slugs = [p.stem for p in (root / "notes").rglob("*.md")]
    assert len(slugs) == len(set(slugs)) == 600
    numbered: dict[str, list[int]] = {}
    for slug in slugs:
        found = re.fullmatch(r"(.*)-(\d+)", slug)
        if found:
            numbered.setdefault(found[1], []).append(int(found[2]))
    assert numbered  # 600 notes repeat some of the 840 feedback names
    for base, ks in numbered.items():
        assert base in slugs
        assert sorted(ks) == list(range(2, len(ks) + 2))

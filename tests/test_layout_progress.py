"""`check` on a large vault shows its progress on stderr once it has taken a second, as the
index build does; quick work prints nothing (issue 33). The delay is the one knob
(CURATOR_PROGRESS_AFTER), so the test needs no large vault and no sleeping."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from layouthelpers import FIXTURES, adopt_copy
from palacehelpers import RunCli


def test_check_shows_progress_on_stderr_only_once_it_is_slow(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = adopt_copy(FIXTURES / "obsidian/vault", tmp_path / "vault", "obsidian")
    _, out, err = run_cli("--palace", root, "check")
    assert "files read" not in err + out  # a second did not pass: nothing shown
    monkeypatch.setenv("CURATOR_PROGRESS_AFTER", "0")
    _, out, err = run_cli("--palace", root, "check")
    lines = [line for line in err.splitlines() if line.startswith("curator: checking:")]
    assert lines and lines[-1].endswith("files read")  # not a terminal: whole lines
    assert "files read" not in out  # stdout keeps only the findings


def test_adopt_shows_progress_on_stderr_only_once_it_is_slow(
    tmp_path: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES / "obsidian/vault", tmp_path / "a")
    code, _, err = run_cli("init", "--adopt", tmp_path / "a", "--yes")
    assert code == 0 and "files read" not in err
    shutil.copytree(FIXTURES / "obsidian/vault", tmp_path / "b")
    monkeypatch.setenv("CURATOR_PROGRESS_AFTER", "0")
    code, out, err = run_cli("init", "--adopt", tmp_path / "b", "--yes")
    assert code == 0 and "curator: adopting:" in err and "files read" not in out

"""Smoke test: the real `curator demo` in tmux; keys in, screen text out."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def _tmux(*args: str) -> str:
    done = subprocess.run(["tmux", *args], capture_output=True, text=True, check=True)
    return done.stdout


def _wait_for(session: str, text: str, timeout: float = 20.0) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; screen was:\n{screen}")


def test_demo_in_tmux(tmp_path: Path) -> None:
    session = f"curator-smoke-{tmp_path.name}"
    repo = Path(__file__).resolve().parents[2]
    cmd = f"cd {repo} && {sys.executable} -m curator demo --path {tmp_path / 'demo'}; sleep 5"
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", cmd)
    try:
        screen = _wait_for(session, "Inbox (8)")
        assert "Duplicate candidates" in screen
        assert "\x1b" not in screen
        assert _tmux("display", "-p", "-t", session, "#{pane_title}").strip() != "pwned"
        _tmux("send-keys", "-t", session, "2")
        _wait_for(session, "Rooms")
        _tmux("send-keys", "-t", session, "5")
        _wait_for(session, "History")
        _tmux("send-keys", "-t", session, "q")
        _wait_for(session, "The demo palace is in")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)

"""Smoke test: the real `curator demo` in tmux; keys in, screen text out. The tmux server is a
private one (its own socket, `tmux -L`), stopped at the end: the user's tmux is never touched,
not even when the tests run inside it."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from tmux_review_lib import Tmux

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_demo_in_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tmux keeps its sockets in $TMUX_TMPDIR/tmux-UID/ and, inside a tmux session, talks to
    # the server $TMUX names: the default server's socket showing up here, or the user's
    # server being reached, would be this test touching a tmux that is not its own. A short
    # folder under /tmp: a socket's path holds at most 107 bytes.
    sockets = Path(tempfile.mkdtemp(prefix="curator-tmux-"))
    monkeypatch.setenv("TMUX_TMPDIR", str(sockets))
    monkeypatch.delenv("TMUX", raising=False)
    repo = Path(__file__).resolve().parents[2]
    demo = [sys.executable, "-m", "curator", "demo", "--path", str(tmp_path / "demo")]
    term = Tmux(f"curator-smoke-{os.getpid()}")
    try:
        term.start(f"cd {shlex.quote(str(repo))} && {shlex.join(demo)}; sleep 60")
        mine = Path(term.tmux("display", "-p", "#{socket_path}").strip())
        assert mine.parent.parent == sockets and mine.name == term.socket
        screen = term.wait("Inbox (8)", timeout=60)
        assert "Duplicate candidates" in screen
        assert "\x1b" not in screen and term.escapes_seen == []
        assert term.tmux("display", "-p", "-t", "review", "#{pane_title}").strip() != "pwned"
        term.keys("2")
        term.wait("Rooms", timeout=30)
        term.keys("5")
        term.wait("History", timeout=30)
        term.keys("q")
        term.wait("The demo palace is in", timeout=30)
    finally:
        term.close()
        left = [p.name for p in sockets.rglob("*")]
        shutil.rmtree(sockets, ignore_errors=True)
    assert term.server.returncode is not None  # the private server stopped
    assert left == [mine.parent.name]  # its socket gone, and no other server's there

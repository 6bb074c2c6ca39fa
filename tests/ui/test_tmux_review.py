"""The scripted review at 80×24 in tmux (benchmarks/bench_tmux_review.py) on a 14-draft inbox:
keys only, every role's action once or more, then every file and commit checked."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import run_main

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import tmux_review_lib  # noqa: E402
from bench_tmux_review import review  # noqa: E402
from gen_review_inbox import CORE, OSC_CLIP, OSC_TITLE, roles  # noqa: E402
from tmux_review_lib import Tmux, make_palace, terminal_problems, tmux_key, verify  # noqa: E402

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture(autouse=True)
def cli_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The palace's set-up and checks (`curator index`, `check`) run curator's CLI in this
    process, as palacehelpers.run_main does: a `python -m curator` each would pay curator's
    import again. The app under review still runs in a process of its own, in tmux."""

    def curator(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = run_main(root, *args)
        if check and done.returncode != 0:
            raise RuntimeError(f"curator {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
        return done

    monkeypatch.setattr(tmux_review_lib, "curator", curator)


def test_tmux_key_names() -> None:
    assert tmux_key("ctrl+s") == "C-s"
    assert tmux_key("shift+down") == "S-Down"
    assert tmux_key("asterisk") == "*"
    assert tmux_key("space") == "Space"
    assert tmux_key("x") == "x"


def test_roles_keep_bulk_blocks_whole() -> None:
    for count in range(len(CORE), 80):
        got = roles(count)
        assert len(got) == count
        assert got[-1] not in ("batch", "bulkpromote") or got[-2] == got[-1]


def test_generated_inbox_is_hostile(tmp_path: Path) -> None:
    from curator.model.palace import Palace

    specs, _base = make_palace(tmp_path / "palace", drafts=len(CORE), search_index=False)
    palace = Palace.open(tmp_path / "palace", cache=False)
    drafts = {d.rel: d for d in palace.drafts}
    assert sorted(drafts) == sorted(s.rel for s in specs)
    by_role = {s.role: s for s in specs}
    assert drafts[by_role["malformed"].rel].problems  # its YAML does not parse
    assert OSC_TITLE in (tmp_path / "palace" / by_role["escapes"].rel).read_text()
    assert "[@click=app.quit]" in drafts[by_role["markup"].rel].name
    assert specs[-1].role == "malformed"  # no date: the app lists it last


def test_verify_sees_an_unreviewed_inbox(tmp_path: Path) -> None:
    """The checks fail on a palace nobody reviewed (they can fail)."""
    root = tmp_path / "palace"
    specs, base = make_palace(root, drafts=len(CORE), search_index=False)
    problems = verify(root, specs, base, [("promote", specs[:1])])
    assert any("inbox/ still holds" in p for p in problems)
    assert any(".curator/rejected/" in p for p in problems)
    assert any("no note named" in p for p in problems)
    assert any("0 commits for 1 actions" in p for p in problems)


@needs_tmux
def test_terminal_check_catches_planted_escapes(tmp_path: Path) -> None:
    """A program that does write the planted title and clipboard escapes is caught."""
    script = tmp_path / "hostile.py"
    script.write_text(
        f"import sys, time\ntime.sleep(0.5)\nsys.stdout.write({OSC_TITLE + OSC_CLIP!r})\n"
        "sys.stdout.flush()\nprint('planted')\ntime.sleep(30)\n"
    )
    term = Tmux(f"curator-test-{tmp_path.name}")
    try:
        term.start(f"{sys.executable} {script}")
        term.wait("planted", timeout=10)
        problems = terminal_problems(term)
    finally:
        term.close()
    assert any("terminal title" in p for p in problems)
    assert any("clipboard" in p for p in problems)


STUCK_APP = """
import threading

def worker_waits_for_ever() -> None:
    threading.Event().wait()

def main_thread_waits_for_ever() -> None:
    print("stuck app ready", flush=True)
    threading.Event().wait()

threading.Thread(target=worker_waits_for_ever, daemon=True).start()
main_thread_waits_for_ever()
"""


@needs_tmux
def test_a_wait_that_times_out_says_where_each_thread_of_the_app_is(tmp_path: Path) -> None:
    """A step that never finishes (once: a bulk plan stuck at "Planning… 2 of 3") fails with
    every thread's stack of the app, read while it hangs, beside the screen."""
    (tmp_path / "stuck_app.py").write_text(STUCK_APP)
    term = Tmux(f"curator-test-{tmp_path.name}")
    try:
        term.start(f"cd {tmp_path} && {term.app('stuck_app')}")
        term.wait("stuck app ready", timeout=30)
        with pytest.raises(AssertionError) as failed:
            term.wait("a screen that never comes", timeout=1)
    finally:
        term.close()
    said = str(failed.value)
    assert "stuck app ready" in said  # the screen, as before
    assert "the app's threads then:" in said
    assert "in worker_waits_for_ever" in said and "in main_thread_waits_for_ever" in said, said


@pytest.mark.slow
@needs_tmux
def test_review_clears_the_inbox_in_tmux(tmp_path: Path, indexed_sample: Path) -> None:
    """The sample palace's index is the session's (`indexed_sample`): a build of its own
    would repeat it in a child process; the app indexes the drafts as it starts."""
    root = tmp_path / "palace"
    specs, base = make_palace(root, drafts=len(CORE), search_index=indexed_sample)
    result = review(root, specs, base)
    assert result.problems == [], "\n".join(result.problems)
    assert result.commits == len(result.actions)
    done = {s.role for _action, drafts in result.actions for s in drafts}
    assert done == set(CORE)
    bulk = [drafts for action, drafts in result.actions if action == "reject" and len(drafts) > 1]
    assert len(bulk) == 2  # the noise loop (`*`) and a marked run (space, shift+down)
    assert result.keystrokes > 0


def test_the_fleet_reviewer_reads_the_highlighted_group() -> None:
    """tmux_fleet.py's reading of a captured screen (as tmux draws Textual's list: the cursor
    row on a background no other row has, the scrollbar over a row's end)."""
    from bench_fleet import Group
    from tmux_fleet import cursor_row, known_group, parse_row

    row = "│\x1b[38;5;253m\x1b[48;5;235m  {n}      \x1b[38;5;80m{into}\x1b[38;5;253m  {best}  │"
    styled = "\n".join(
        [
            "╭─ Inbox: 3 groups of 27 ─╮",
            "│\x1b[1m\x1b[48;5;23m    Drafts  Into                      Best draft    \x1b[0m│",
            row.format(n=20, into="Fime tanotimu papa saka…", best="Fime tanotimu papa"),
            "│\x1b[1m\x1b[38;5;195m\x1b[48;5;32m    4       new note                  "
            "Futivuso vopetoto nile…  ▇▇\x1b[0m│",
            row.format(n=3, into="new note", best="Nono dobo"),
            "╰──────────────────────────╯",
            "│\x1b[48;5;32m a pane below the list, on the same background │",
        ]
    )
    shown = cursor_row(styled)
    assert shown is not None
    assert parse_row(shown) == (4, "new note", "Futivuso vopetoto nile…")
    groups = [
        Group("keep", ["inbox/a.md"], ["Fime tanotimu papa sakafu"]),
        Group("merge", ["inbox/b.md"], ["Futivuso vopetoto nile rizevu tile"]),
    ]
    assert known_group(parse_row(shown)[2], groups) is groups[1]
    assert known_group("Nobody", groups) is None

"""The built-in editor on untrusted text: control characters show as placeholders, a save keeps
every byte, and nothing a draft holds reaches a real terminal (title, clipboard) from any
dialog or the editor."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets.text_area import Document
from uihelpers import apply_plan, make_app, settle, wait_until

from curator.ui.safe import restore, visible
from curator.ui.widgets.dialogs import EditDialog, SafeTextArea

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"

sys.path.insert(0, str(BENCH))
from gen_review_inbox import OSC_CLIP, OSC_TITLE, TITLE_MARK  # noqa: E402
from tmux_review_lib import Tmux, terminal_problems  # noqa: E402

HOSTILE_BODY = (
    f"Pasted {OSC_TITLE}output {OSC_CLIP}\x1b[31mred\x1b[0m \x9b31mc1 \u202eRLO\u202c\r\n"
    "a literal ␛ and ␦ stay literal\n\nThe rest.\n"
)
DRAFT = (
    "---\nname: Hostile paste\ndescription: Terminal output pasted by an agent.\n"
    "type: project\nconfidence: 0.8\nstatus: draft\ncreated: 2026-11-30\n---\n" + HOSTILE_BODY
)
REL = "inbox/2026-11-30-hostile-paste.md"

#: what a terminal acts on: every control but newline and tab, separators, bidi controls
OBEYED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]"
)

any_text = st.text(st.characters(blacklist_categories=()), max_size=80)
RISKY = list("\x1b\x07\r\n\t\x9b\x00\x7f\u2028\u202ea␛␦␥09B\u2421\u2400")
risky_text = st.text(st.sampled_from(RISKY), max_size=40)


@given(st.one_of(any_text, risky_text))
def test_placeholders_round_trip(text: str) -> None:
    shown = visible(text)
    assert restore(shown) == text
    assert not OBEYED.search(shown)
    assert not any(unicodedata.category(c) == "Cs" for c in shown)
    # what the TextArea keeps of it (its Document splits lines and joins them again)
    assert restore(Document(shown).text) == text


def test_placeholders_are_visible() -> None:
    assert visible("a\x1b]0;x\x07b") == "a␛]0;x␇b"
    assert visible("\x9b\u202e") == "␥009B␥202E"
    assert visible("a ␛ b") == "a ␦␛ b"


@pytest.fixture
def hostile_draft(make_palace: Any) -> Path:
    return make_palace({REL: DRAFT})


pytestmark = pytest.mark.anyio


async def test_editor_shows_placeholders_and_keeps_the_bytes(hostile_draft: Path) -> None:
    app = make_app(hostile_draft, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        area = app.screen.query_one(SafeTextArea)
        screen = app.screen

        def rendered() -> str:
            return "".join(s.text for strip in screen._compositor.render_strips() for s in strip)

        await wait_until(pilot, lambda: f"␛]0;{TITLE_MARK}␇" in rendered())
        drawn = rendered()
        assert f"␛]0;{TITLE_MARK}␇" in drawn
        assert not OBEYED.search(drawn)
        await pilot.press("ctrl+end", *"Checked.", "ctrl+s")
        assert area.raw.endswith("Checked.")
        await apply_plan(pilot)
    assert (hostile_draft / REL).read_bytes() == (DRAFT + "Checked.").encode()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_every_dialog_in_a_real_terminal(hostile_draft: Path, size: tuple[int, int]) -> None:
    """Each dialog and the editor open on the hostile draft in tmux: the pane title and tmux's
    clipboard buffers stay unchanged (they would change if the OSC reached the terminal)."""
    import tmux_review_lib as lib

    lib.WIDTH, lib.HEIGHT = size
    term = Tmux(f"curator-escapes-{hostile_draft.parent.name}-{size[0]}")
    command = f"cd '{hostile_draft}' && '{sys.executable}' -m curator; sleep 60"
    opened = []
    try:
        term.start(command)
        term.wait("Inbox (1)", timeout=60)
        for keys, shows in (
            (("e",), "^s Save"),  # the built-in editor
            (("p",), "^s Promote"),
            (("x",), "why?"),
            (("?",), "esc Close"),  # the key help
        ):
            term.keys(*keys)
            screen = term.wait(shows, timeout=30)
            assert "␛" in screen or keys != ("e",), screen
            opened.append(keys[0])
            assert terminal_problems(term) == [], keys
            term.keys("Escape")
            term.wait("Inbox (1)", gone=(shows,), timeout=30)
        term.keys("x")
        term.wait("why?")
        term.type("noise")
        term.keys("Enter")
        term.wait("Apply", timeout=60)  # the plan dialog, the draft's diff in it
        opened.append("plan")
        assert terminal_problems(term) == []
        term.keys("Escape")
        assert term.escapes_seen == []
    finally:
        term.close()
        subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True)
    assert opened == ["e", "p", "x", "?", "plan"]

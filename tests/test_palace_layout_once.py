"""A palace works its layout out once: the palaces `replaced()` makes (every plan makes a few)
carry it, and a plan's walk asks palace.toml's layout rules no question twice."""

from __future__ import annotations

import inspect
import sys
from collections import Counter
from types import FrameType
from typing import Any

from palacehelpers import MakePalace, note_text

from curator.model.layouts import rules
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote

DRAFT = (
    "---\nname: Deploys need a green main\ndescription: d\ntype: feedback\nstatus: draft\n"
    "---\nBody.\n"
)


def _rules_calls(fn: Any) -> Counter[str]:
    """Calls into model/layouts/rules.py's palace-wide questions (its functions asking
    palace.toml's `config`) while `fn()` runs."""
    asked: Counter[str] = Counter()
    wanted = {
        name
        for name, f in vars(rules).items()
        if inspect.isfunction(f)
        and f.__module__ == rules.__name__
        and next(iter(inspect.signature(f).parameters)) == "config"
    }
    assert {"layout_of", "foreign", "room_rule", "excludes_of"} <= wanted

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event == "call" and code.co_name in wanted and code.co_filename.endswith("rules.py"):
            asked[code.co_name] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return asked


def test_a_promote_asks_the_layout_rules_once(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            "notes/project/a.md": note_text("Alpha"),
            "notes/project/b.md": note_text("Beta", body="See [[a]].\n"),
            "inbox/d.md": DRAFT,
        }
    )
    palace = Palace.open(root)
    asked = _rules_calls(lambda: plan_promote(palace, "inbox/d.md"))
    # the palace's own facts are known: only the check's small palace of the touched notes
    # (one palace, made once) and INDEX.md's rooms ask, once each
    assert all(n <= 1 for n in asked.values()), asked
    assert sum(asked.values()) <= 4, asked
    assert _rules_calls(lambda: (palace.layout_name, palace.foreign_layout, palace.room_rule)) == {}
    after = palace.replaced({"notes/project/c.md": note_text("Gamma").encode()})
    assert after.layout is palace.layout and after.foreign_layout == palace.foreign_layout
    assert after.room_rule is palace.room_rule

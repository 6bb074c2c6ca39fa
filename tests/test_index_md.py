"""INDEX.md: preamble kept, marker, rooms in taxonomy order, flags and dates, superseded last,
deterministic (a pure function of the files), and a guard that refuses to lose notes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.model.index_md import (
    MARKER,
    IndexRefused,
    index_is_current,
    render_index,
    split_index,
)
from curator.model.note import Note
from curator.model.palace import Palace

PREAMBLE = "# My palace\n\nHand-written words   \nwith trailing spaces.\n\n"

FILES = {
    "notes/project/zed.md": note_text(
        "Zed fact",
        description="Z is a fact.",
        extra="confidence: 0.55\nstale:\n  reason: moved\n  since: 2026-01-01\n",
        body="[[me]]\n",
    ),
    "notes/project/able.md": note_text("Able fact", description="A is first.", body="[[zed]]\n"),
    "notes/user/me.md": note_text(
        "Me", type="user", description="Who I am.", extra="created: 2020-01-01\n"
    ),
    "notes/reference/docs.md": note_text("Docs", type="reference", description="Where docs are."),
    "notes/project/old.md": note_text(
        "Old fact", extra="status: superseded\nsuperseded_by: zed\n", body="[[zed]]\n"
    ),
    "notes/project/gone.md": note_text("Gone fact", extra="status: superseded\n"),
    "inbox/draft.md": note_text("A draft"),
}


@pytest.fixture
def palace(make_palace: MakePalace) -> Palace:
    return Palace.open(make_palace(FILES))


def test_layout_sections_entries_and_flags(palace: Palace) -> None:
    text = render_index(palace, PREAMBLE + MARKER + "\nold generated stuff\n")
    preamble, generated = split_index(text)
    assert preamble == PREAMBLE
    assert generated is not None
    assert text.count(MARKER) == 1
    headings = [ln for ln in generated.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Who you work for (user) — 1",
        "## Rules (feedback) — 0",
        "## Project facts (project) — 2",
        "## References (reference) — 1",
        "## Superseded — 2",
    ]
    entries = [ln for ln in generated.splitlines() if ln.startswith("- [")]
    assert entries == [
        "- [Me](notes/user/me.md) — Who I am. · review by 2020-03-31",
        "- [Able fact](notes/project/able.md) — A is first.",
        "- [Zed fact](notes/project/zed.md) — Z is a fact. · stale · low confidence",
        "- [Docs](notes/reference/docs.md) — Where docs are.",
        "- [Gone fact](notes/project/gone.md) — About gone fact. · retired",
        "- [Old fact](notes/project/old.md) — About old fact. · superseded by "
        "[Zed fact](notes/project/zed.md)",
    ]
    assert "draft" not in generated.lower().replace("drafts in inbox", "")
    assert "old generated stuff" not in text


def test_default_preamble_when_there_is_no_index(palace: Palace) -> None:
    text = render_index(palace, None)
    preamble, generated = split_index(text)
    assert preamble.startswith("# test palace\n")
    assert generated is not None and "- [Me](notes/user/me.md)" in generated


def test_preamble_without_marker_is_kept_whole(palace: Palace) -> None:
    text = render_index(palace, "# Mine\nno marker yet")
    assert text.startswith("# Mine\nno marker yet\n" + MARKER + "\n")


def test_rerun_is_byte_identical(palace: Palace, make_palace: MakePalace) -> None:
    first = render_index(palace, PREAMBLE)
    assert render_index(palace, first) == first
    again = Palace.open(palace.root)
    assert render_index(again, first) == first
    other = Palace.open(make_palace(dict(reversed(list(FILES.items())))))
    assert render_index(other, first) == first


def test_untrusted_names_cannot_break_the_index(make_palace: MakePalace) -> None:
    evil = (
        "---\n"
        'name: "Evil] (x) \\e[31m[link"\n'
        'description: "Line one\\nline two\\e]0;title\\a"\n'
        "type: project\n---\n"
    )
    root = make_palace({"notes/project/evil.md": evil})
    note = Palace.open(root).find("evil")
    assert note.ok and "\x1b" in note.name
    text = render_index(Palace.open(root), None)
    assert "\x1b" not in text and "\x07" not in text
    entry = next(ln for ln in text.splitlines() if ln.startswith("- ["))
    assert entry == "- [Evil\\] (x) \\[link](notes/project/evil.md) — Line one line two"


def test_refuses_to_list_fewer_notes(palace: Palace, monkeypatch: pytest.MonkeyPatch) -> None:
    import curator.model.index_md as index_md

    real = index_md._render_entry

    def buggy(palace: Palace, note: Note) -> str:  # a renderer bug drops one
        line = real(palace, note)
        return "  " + line if note.slug == "docs" else line

    monkeypatch.setattr(index_md, "_render_entry", buggy)
    with pytest.raises(IndexRefused) as info:
        render_index(palace, PREAMBLE)
    assert "would list 5 notes but the palace holds 6" in info.value.message
    assert info.value.path == "INDEX.md"


def test_refuses_to_empty_a_filled_index(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(FILES)
    (root / "INDEX.md").write_text(render_index(Palace.open(root), PREAMBLE))
    shutil.move(root / "notes", root.parent / "notes-moved-away")
    palace = Palace.open(root)
    assert palace.notes == []
    with pytest.raises(IndexRefused, match="refusing to replace an index of 6 notes"):
        index_is_current(palace)
    before = (root / "INDEX.md").read_bytes()
    rc, out, err = run_cli("--palace", root, "index", "--check")
    assert rc == 2 and "refusing to replace an index of 6 notes" in err
    rc, out, err = run_cli("--palace", root, "index", "--yes")
    assert rc == 2 and "refusing" in err
    rc, out, _ = run_cli("--palace", root, "check")
    assert rc == 1 and "[index.refused]" in out
    assert (root / "INDEX.md").read_bytes() == before


def test_empty_palace_with_empty_index_is_fine(make_palace: MakePalace) -> None:
    palace = Palace.open(make_palace({}))
    text = render_index(palace, PREAMBLE + MARKER + "\n")
    assert "## Superseded — 0" in text


def write_current_index(root: Path) -> None:
    palace = Palace.open(root)
    (root / "INDEX.md").write_text(render_index(palace, PREAMBLE))


def test_index_check_exit_codes(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(FILES)
    rc, out, _ = run_cli("--palace", root, "index", "--check")
    assert rc == 1 and "out of date" in out
    write_current_index(root)
    rc, out, _ = run_cli("--palace", root, "index", "--check")
    assert (rc, out) == (0, "INDEX.md is up to date\n")
    rc, out, _ = run_cli("--palace", root, "index", "--check", "--json")
    assert (rc, out.replace(" ", "").replace("\n", "")) == (0, '{"current":true}')

    note = root / "notes/project/able.md"
    note.write_text(note.read_text().replace("A is first.", "A is first, now."))
    rc, out, _ = run_cli("--palace", root, "index", "--check")
    assert rc == 1 and "out of date" in out
    rc, out, _ = run_cli("--palace", root, "index", "--check", "--json")
    assert rc == 1 and '"current": false' in out

    # a hand edit to the preamble is not "out of date": only the generated part is checked
    write_current_index(root)
    index = root / "INDEX.md"
    index.write_text(index.read_text().replace("Hand-written", "Hand-edited"))
    rc, _, _ = run_cli("--palace", root, "index", "--check")
    assert rc == 0
    # but a hand edit below the marker is
    index.write_text(index.read_text() + "- [sneaky](notes/x.md)\n")
    rc, _, _ = run_cli("--palace", root, "index", "--check")
    assert rc == 1


def test_index_when_current_writes_nothing(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(FILES)
    write_current_index(root)
    before = (root / "INDEX.md").stat().st_mtime_ns
    rc, out, _ = run_cli("--palace", root, "index", "--yes")
    assert (rc, out) == (0, "INDEX.md is up to date\n")
    assert (root / "INDEX.md").stat().st_mtime_ns == before


def test_curator_index_writes_a_current_index(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(FILES)
    (root / "INDEX.md").write_text(PREAMBLE + MARKER + "\n")
    git(root, "add", "INDEX.md")
    git(root, "commit", "-q", "-m", "empty index")
    rc, out, err = run_cli("--palace", root, "index", "--dry-run")
    assert rc == 0, err
    assert "+- [Me](notes/user/me.md)" in out
    assert (root / "INDEX.md").read_text() == PREAMBLE + MARKER + "\n"
    rc, _, err = run_cli("--palace", root, "index", "--yes")
    assert rc == 0, err
    text = (root / "INDEX.md").read_text()
    assert text.startswith(PREAMBLE + MARKER) and "- [Me](notes/user/me.md)" in text
    assert run_cli("--palace", root, "index", "--check")[0] == 0
    log = git(root, "log", "--format=%s", "--name-only", "-1").stdout.split()
    assert log[-1] == "INDEX.md" and git(root, "status", "--porcelain").stdout == ""


def test_incremental_render_matches_a_fresh_load(make_palace: MakePalace) -> None:
    """Rooms are remembered between renders of palaces made by `replaced()`: an added, a
    removed and an edited note must all show exactly as a freshly loaded palace renders them."""
    root = make_palace(FILES)
    palace = Palace.open(root)
    render_index(palace, PREAMBLE)  # fills the room memo
    changes: dict[str, bytes | None] = {
        "notes/project/new.md": note_text("New fact", description="Brand new.").encode(),
        "notes/user/me.md": None,
        "notes/reference/docs.md": note_text(
            "Docs", type="reference", description="Docs moved to the wiki."
        ).encode(),
    }
    after = palace.replaced(changes)
    for rel, data in changes.items():
        if data is None:
            (root / rel).unlink()
        else:
            (root / rel).write_bytes(data)
    fresh = render_index(Palace.open(root, cache=False), PREAMBLE)
    assert render_index(after, PREAMBLE) == fresh
    assert "Brand new." in fresh and "Docs moved to the wiki." in fresh
    assert "notes/user/me.md" not in fresh


@pytest.mark.parametrize(
    "existing",
    [
        b"",
        PREAMBLE.encode(),
        (PREAMBLE + MARKER + "\nold stuff\n- [x](notes/x.md)\n").encode(),
        (PREAMBLE + MARKER + "\n").replace("\n", "\r\n").encode(),
        (MARKER + "\r\n- [x](notes/x.md)\r\n").encode(),
        "# Pré — ambule\n\n".encode() + MARKER.encode() + b"\n\xff\xfe broken bytes\n",
    ],
)
def test_rendering_from_bytes_equals_rendering_from_text(palace: Palace, existing: bytes) -> None:
    """Planners pass INDEX.md's bytes (only the preamble is decoded); the result is the same."""
    as_text = existing.decode("utf-8", errors="replace")
    assert render_index(palace, existing) == render_index(palace, as_text)


def test_the_empty_guard_reads_a_bytes_index_too(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    filled = render_index(Palace.open(root), PREAMBLE).encode()
    shutil.move(root / "notes", root.parent / "notes-gone")
    with pytest.raises(IndexRefused, match="refusing to replace an index of 6 notes"):
        render_index(Palace.open(root), filled)


def test_index_shows_dates_and_stays_current_as_days_pass(make_palace: MakePalace) -> None:
    """Due and expired depend on the day; INDEX.md shows their dates instead, so an index
    written today is still current next year (`curator index --check` in a hook)."""
    import subprocess
    import sys

    files = {
        **FILES,
        "notes/project/dated.md": note_text(
            "Dated", extra="reviewed: 2026-09-11\nexpires: 2026-10-31\n", body="[[me]]\n"
        ),
    }
    root = make_palace(files)
    text = render_index(Palace.open(root), PREAMBLE)
    assert (
        "- [Dated](notes/project/dated.md) — About dated. · review by 2026-12-10 · "
        "expires 2026-10-31" in text
    )
    assert "due for review" not in text and "expired" not in text
    (root / "INDEX.md").write_text(text)
    for faketime in ("2026-01-01", "2031-06-30"):  # a later day, in a fresh process
        code = (
            "import datetime, sys\n"
            "class D(datetime.date):\n"
            f"    @classmethod\n    def today(cls): return cls.fromisoformat({faketime!r})\n"
            "datetime.date = D\n"
            "from curator.cli import main\n"
            f"sys.exit(main(['--palace', {str(root)!r}, 'index', '--check']))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def _is_render(palace: Palace, data: bytes) -> bool:
    return data.decode("utf-8", errors="replace") == render_index(palace, data)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(["", PREAMBLE, "# No line end", "# CR\r", "ünïcode\n"]),
    st.booleans(),
    st.integers(min_value=-1, max_value=4000),
    st.sampled_from([b"", b"x", b"\n", b"- [", b"\r\n", b"\xff"]),
    st.booleans(),
)
def test_current_is_exactly_what_a_render_would_write(
    palace: Palace, preamble: str, crlf: bool, at: int, insert: bytes, cut: bool
) -> None:
    """`index_is_current` compares room by room as it renders, holding no render: it says
    current exactly when the file reads as what `render_index` gives from it (any preamble,
    CRLF or LF, a byte changed, added or cut anywhere, no file at all)."""
    path = palace.root / "INDEX.md"
    text = render_index(palace, preamble or None)
    data = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
    if at >= 0:
        at = min(at, len(data))
        data = data[:at] + insert + data[at + (1 if cut else 0) :]
    path.write_bytes(data)
    fresh = Palace.open(palace.root)
    assert index_is_current(fresh) == _is_render(palace, data)
    assert not fresh.lookups.render  # nothing of the render kept
    path.unlink()
    assert not index_is_current(fresh)


def test_a_render_remembers_lines_made_of_the_notes_own_strings(palace: Palace) -> None:
    """What a render keeps for the next one (the palace's memo) is each note's line and each
    room's sorted lines, keyed by the notes' own path and hash strings: never a room's joined
    text nor a new string per note (at 100k notes ~60 MB between them)."""
    text = render_index(palace, PREAMBLE)
    kept = palace.lookups.render
    rooms = [value for key, value in kept.items() if key[0] == "index-room"]
    assert rooms and not any(isinstance(part, str) for value in rooms for part in value)
    notes = [key for key in kept if key[0] == "index"]
    assert len(notes) == len(palace.notes)
    for key in notes:
        note = palace.by_rel[key[1]]
        assert key[1] is note.rel and key[2] is note.sha
    assert render_index(palace, PREAMBLE) == text  # and the next render reads the same

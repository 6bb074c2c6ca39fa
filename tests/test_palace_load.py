"""Palace discovery (--palace, CURATOR_PALACE, walking up) and the loading cache."""

from __future__ import annotations

import os
import pickle
import shutil
import time
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, note_text

from curator.errors import PalaceNotFound
from curator.model.cache import notes_path, read_notes
from curator.model.note import MAX_BYTES, read_capped, read_file
from curator.model.palace import Palace, find_palace

FILES = {
    "notes/project/alpha.md": note_text("Alpha", description="AAAA", body="[[beta]]\n"),
    "notes/project/beta.md": note_text("Beta", body="[[alpha]]\n"),
    "inbox/idea.md": note_text("Idea", body="maybe\n"),
}


# -- discovery ------------------------------------------------------------------------------
def test_explicit_path_wins_over_env(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = make_palace(FILES, commit=False)
    two = make_palace(FILES, commit=False)
    monkeypatch.setenv("CURATOR_PALACE", str(two))
    assert find_palace(str(one)) == one.resolve()
    assert find_palace(None) == two.resolve()


def test_walks_up_from_the_working_directory(make_palace: MakePalace, tmp_path: Path) -> None:
    root = make_palace(FILES, commit=False)
    deep = root / "notes" / "project"
    assert find_palace(None, cwd=deep) == root.resolve()
    assert find_palace(None, cwd=root) == root.resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(PalaceNotFound, match="no palace found"):
        find_palace(None, cwd=elsewhere)


def test_bad_explicit_paths_are_clear_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(PalaceNotFound, match="not a folder"):
        find_palace(str(tmp_path / "missing"))
    with pytest.raises(PalaceNotFound, match="not a palace"):
        find_palace(str(tmp_path))
    monkeypatch.setenv("CURATOR_PALACE", str(tmp_path / "gone"))
    with pytest.raises(PalaceNotFound, match="CURATOR_PALACE"):
        find_palace(None)


def test_cli_discovery_three_ways(
    make_palace: MakePalace, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = make_palace(FILES)
    rc, out, _ = run_cli("list", cwd=root / "notes" / "project")
    assert rc == 0 and "notes/project/alpha.md" in out
    rc, out, _ = run_cli("--palace", root, "list", cwd=tmp_path)
    assert rc == 0 and "notes/project/alpha.md" in out
    monkeypatch.setenv("CURATOR_PALACE", str(root))
    rc, out, _ = run_cli("list", cwd=tmp_path)
    assert rc == 0 and "notes/project/alpha.md" in out
    monkeypatch.delenv("CURATOR_PALACE")
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out, err = run_cli("list", cwd=empty)
    assert rc == 2 and out == ""
    assert err.startswith("curator: error: no palace found") and "Traceback" not in err


def test_palace_without_toml_is_found_by_flag_and_uses_defaults(make_palace: MakePalace) -> None:
    root = make_palace(FILES, toml=None, commit=False)
    palace = Palace.open(find_palace(str(root)))
    assert list(palace.config.types) == ["user", "feedback", "project", "reference"]
    assert [n.rel for n in palace.notes] == ["notes/project/alpha.md", "notes/project/beta.md"]
    assert [n.rel for n in palace.drafts] == ["inbox/idea.md"]


def test_bad_palace_toml_is_a_cli_error_with_line(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(FILES, toml="[palace]\nname = 'x'\n[audit]\nbogus = 1\n", commit=False)
    rc, _out, err = run_cli("--palace", root, "check")
    assert rc == 2
    assert "palace.toml:4:" in err and "bogus" in err


# -- cache ----------------------------------------------------------------------------------
def same_size_edit(path: Path, old: str, new: str) -> None:
    """Change the content but keep size and mtime (what the cache keys on)."""
    assert len(old) == len(new)
    stat = path.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size


def cache_file(root: Path) -> Path:
    return notes_path(root)


def age(root: Path, seconds: int = 60) -> None:
    """Make every note older than the cache's racy window (a file changed just before a load
    is checked by content, so a same-size edit of it is never missed)."""
    for path in root.rglob("*.md"):
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))


def test_second_open_uses_the_cache(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    age(root)
    first = Palace.open(root)
    assert first.find("alpha").description == "AAAA"
    assert cache_file(root).is_file()
    assert not (root / ".curator").exists()  # the cache is the user's, not the palace's

    path = root / "notes/project/alpha.md"
    same_size_edit(path, "AAAA", "BBBB")
    cached = Palace.open(root)
    assert cached.find("alpha").description == "AAAA"  # not re-read: served from the cache
    assert Palace.open(root, cache=False).find("alpha").description == "BBBB"

    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert Palace.open(root).find("alpha").description == "BBBB"  # mtime changed: re-read


def test_size_change_is_reread(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    Palace.open(root)
    path = root / "notes/project/alpha.md"
    stat = path.stat()
    path.write_text(path.read_text().replace("AAAA", "AAAAA"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert Palace.open(root).find("alpha").description == "AAAAA"


def test_a_file_is_read_by_its_size_up_to_the_limit(tmp_path: Path) -> None:
    """A note is read by the size stat gave (a file that grew since is read on), never past
    the limit plus one byte: what tells a note over the limit apart."""
    path = tmp_path / "note.md"

    def read(stat_size: int) -> bytes:
        fd = os.open(path, os.O_RDONLY)
        try:
            return read_capped(fd, stat_size)
        finally:
            os.close(fd)

    path.write_bytes(b"x" * 5000)
    for stat_size in (0, 10, 4999, 5000, 10**9):  # stale sizes, the right one, a huge one
        assert read(stat_size) == b"x" * 5000
    path.write_bytes(b"y" * (MAX_BYTES + 100))
    for stat_size in (7, MAX_BYTES, MAX_BYTES + 100):
        assert read(stat_size) == b"y" * (MAX_BYTES + 1)
    assert read_file(str(path))[1] == b"y" * (MAX_BYTES + 1)


def test_added_and_removed_files_are_seen(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    Palace.open(root)
    (root / "notes/project/beta.md").unlink()
    (root / "notes/project/gamma.md").write_text(note_text("Gamma"))
    palace = Palace.open(root)
    assert [n.rel for n in palace.notes] == ["notes/project/alpha.md", "notes/project/gamma.md"]


def test_a_young_file_edited_in_place_is_never_missed(make_palace: MakePalace) -> None:
    root = make_palace(FILES)  # written just now: inside the racy window
    first = Palace.open(root)
    same_size_edit(root / "notes/project/alpha.md", "AAAA", "BBBB")
    again = Palace.open(root, previous=first)
    assert again.find("alpha").description == "BBBB"
    assert again.find("beta") is first.find("beta")  # same bytes: the same note


def test_a_cache_holding_more_than_plain_data_is_refused(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace(FILES)
    age(root)
    Palace.open(root)
    same_size_edit(root / "notes/project/alpha.md", "AAAA", "CCCC")
    marker = tmp_path / "ran"
    # well-formed but for one row that runs a command when unpickled by pickle.loads
    forged = (1, str(root.resolve()), (time.time_ns(), [ForgedRow(f"touch {marker}")]))
    cache_file(root).write_bytes(pickle.dumps(forged))
    assert Palace.open(root).find("alpha").description == "CCCC"
    assert not marker.exists()


def test_the_notes_cache_is_msgpack_frames_keeping_every_note_it_can(
    make_palace: MakePalace,
) -> None:
    """The notes load frame by frame (msgspec decodes each frame of the file into notes,
    nothing rebuilt note by note); a note msgpack cannot hold (a number beyond 64 bits) is
    left out and read again on each load, the others are served from the cache."""
    import msgspec

    big = note_text("Big", extra="count: 123456789012345678901234567890\n")
    root = make_palace({**FILES, "notes/project/big.md": big})
    age(root)
    first = Palace.open(root)
    raw = notes_path(root).read_bytes()
    head = msgspec.msgpack.decode(raw[8 : 8 + int.from_bytes(raw[:8], "big")])
    assert head[1] == str(root.resolve())  # version, root, load time, frames
    rows, _ = read_notes(root)
    assert sorted(rows) == sorted(n.rel for n in first.all() if n.rel != "notes/project/big.md")
    same_size_edit(root / "notes/project/alpha.md", "AAAA", "BBBB")
    again = Palace.open(root)
    assert again.find("alpha").description == "AAAA"  # from the cache
    assert again.find("big").header["count"] == 123456789012345678901234567890
    assert again.find("beta") == first.find("beta")


class ForgedRow:
    """What a forged pickle does: run a command when loaded."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


def test_a_cache_copied_from_another_palace_or_writable_by_others_is_ignored(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace(FILES)
    age(root)
    Palace.open(root)
    other = tmp_path / "copy"
    shutil.copytree(root, other)
    same_size_edit(other / "notes/project/alpha.md", "AAAA", "EEEE")
    cache_file(other).parent.mkdir(parents=True)
    shutil.copy(cache_file(root), cache_file(other))  # root A's cache under B's name
    assert Palace.open(other).find("alpha").description == "EEEE"
    same_size_edit(root / "notes/project/alpha.md", "AAAA", "FFFF")
    cache_file(root).chmod(0o666)
    assert Palace.open(root).find("alpha").description == "FFFF"


def test_cache_of_another_user_is_not_used(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = make_palace(FILES)
    age(root)
    Palace.open(root)
    same_size_edit(root / "notes/project/alpha.md", "AAAA", "DDDD")
    monkeypatch.setenv("CURATOR_CACHE_HOME", str(tmp_path / "other-user-cache"))
    assert Palace.open(root).find("alpha").description == "DDDD"
    assert cache_file(root).parent.stat().st_mode & 0o077 == 0


def test_garbage_cache_is_only_a_slower_start(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    Palace.open(root)
    cache_file(root).write_bytes(b"not a pickle")
    assert Palace.open(root).find("alpha").description == "AAAA"


def test_replaced_is_a_what_if_view(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    palace = Palace.open(root)
    after = palace.replaced(
        {
            "notes/project/beta.md": None,
            "notes/user/new.md": note_text("New", type="user").encode(),
            "inbox/idea.md": None,
        }
    )
    assert [n.rel for n in after.notes] == ["notes/project/alpha.md", "notes/user/new.md"]
    assert after.drafts == []
    assert [n.rel for n in palace.notes] == ["notes/project/alpha.md", "notes/project/beta.md"]
    assert (root / "notes/project/beta.md").exists() and not (root / "notes/user").exists()


def test_find_by_slug_name_and_path(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_palace(
        {
            **FILES,
            "notes/user/beta.md": note_text("Other Beta", type="user", body="[[alpha]]\n"),
        }
    )
    palace = Palace.open(root)
    assert palace.find("alpha").rel == "notes/project/alpha.md"
    assert palace.find("ALPHA").rel == "notes/project/alpha.md"
    assert palace.find("Other Beta").rel == "notes/user/beta.md"
    assert palace.find("notes/user/beta.md").rel == "notes/user/beta.md"
    assert palace.find(str(root / "notes/project/beta.md")).rel == "notes/project/beta.md"
    monkeypatch.chdir(root / "notes")
    assert palace.find("project/beta.md").rel == "notes/project/beta.md"
    assert palace.find("notes/project/beta.md").rel == "notes/project/beta.md"
    with pytest.raises(Exception, match="more than one"):
        palace.find("beta")
    with pytest.raises(Exception, match="no note or draft matches"):
        palace.find("nothing-here")
    assert palace.find("idea").kind == "draft"


def test_a_few_changed_files_leave_the_cache_as_it_is(make_palace: MakePalace) -> None:
    """An action changes two or three files: the next load reads them again instead of
    writing the whole cache anew (issue 34); once the cache misses more than its share of
    the palace it follows it."""
    root = make_palace(FILES)
    age(root)
    Palace.open(root)
    written = cache_file(root).stat()
    (root / "notes/project/gamma.md").write_text(note_text("Gamma"))
    (root / "notes/project/beta.md").unlink()
    path = root / "notes/project/alpha.md"
    path.write_text(path.read_text().replace("AAAA", "CCCCC"))
    for _ in range(2):
        palace = Palace.open(root)
        assert [n.rel for n in palace.notes] == ["notes/project/alpha.md", "notes/project/gamma.md"]
        assert palace.find("alpha").description == "CCCCC"
        assert cache_file(root).stat().st_ino == written.st_ino  # not written again
    for i in range(20):
        (root / f"notes/project/more-{i}.md").write_text(note_text(f"More {i}"))
    assert len(Palace.open(root).notes) == 22
    assert cache_file(root).stat().st_ino != written.st_ino  # missed too many: written anew
    assert len(Palace.open(root).notes) == 22

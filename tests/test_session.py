"""One Session per caller holds the palace generation, the index (opening, syncing, the
palace-only searcher while it opens) and the after-commit hook (real files, real git, real
LanceDB with the hash embedder)."""

from __future__ import annotations

import os
import threading
import time
import weakref
from pathlib import Path

from palacehelpers import MakePalace, note_text, opened

from curator.config import load_config
from curator.model.palace import Palace
from curator.search.index import head_commit, open_index_at
from curator.session import Session
from curator.writer.actions.retire import plan_retire

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def _palace(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            "notes/project/alpha.md": note_text("Alpha deploys nightly"),
            "notes/project/beta.md": note_text("Beta billing retries"),
        },
        toml=TOML,
    )


def test_a_reload_that_finishes_late_never_replaces_a_newer_palace(
    make_palace: MakePalace,
) -> None:
    session = Session.open(_palace(make_palace))
    first = session.reload()
    second = session.reload()
    assert session.palace is second
    session.after_commit(session.root, first, [])  # an older palace offered late
    assert session.palace is second
    # the index follows the newest palace it was shown, never back to an older one
    searcher = session.searcher(second)
    assert session.sync_index(first) is None and searcher.palace is second


def test_the_palace_alone_answers_while_the_index_is_not_open(make_palace: MakePalace) -> None:
    session = Session.open(_palace(make_palace))
    now = session.searcher_now()
    assert not now.indexed and not session.index.ready
    assert [h.path for h in now.search("nightly deploys", limit=1)] == ["notes/project/alpha.md"]
    searcher = session.searcher()
    assert session.searcher_now() is searcher and session.index.if_ready(session.palace) is searcher


def test_a_server_opens_the_index_meanwhile(make_palace: MakePalace) -> None:
    session = Session.open(_palace(make_palace))
    assert not session.searcher_now(open_meanwhile=True).indexed
    deadline = time.monotonic() + 60
    while session.index.if_ready(session.palace) is None and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    assert session.searcher_now() is session.index.if_ready(session.palace) is not None


def test_a_commit_leaves_its_palace_and_the_open_index_in_step(make_palace: MakePalace) -> None:
    session = Session.open(_palace(make_palace))
    searcher = session.searcher()
    store = session.index.store
    session.commit(plan_retire(session.palace, "alpha", "gone"))
    after = session.palace
    assert after.by_rel["notes/project/alpha.md"].status == "retired"
    assert session.index.if_ready(session.palace) is searcher and searcher.palace is after
    assert session.index.store is store  # the one store, not a new one per commit
    hit = searcher.search("nightly deploys", limit=1)[0]
    assert hit.status == "retired"


def test_a_command_lets_go_of_its_palace_before_the_index_follows_its_commit(
    make_palace: MakePalace,
) -> None:
    """Issue 34: a command's commit synced the index holding its palace (at 100k notes the
    ~380 MB palace beside LanceDB and the embedder: 860 MB). A session that follows later
    lets go of the palace first; then the index reads only the file the commit changed."""
    root = _palace(make_palace)
    for path in root.rglob("*.md"):  # older than the racy window: their stat vouches for them
        if ".git" not in path.parts:
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns - 60 * 10**9))
    Session.open(root).searcher()  # an index exists (an earlier search built it)
    palace = Palace.open(root)
    session = Session(palace, follow_later=True)
    session.commit(plan_retire(palace, "alpha", "gone"))
    # nor is the palace after the commit worked out (the whole palace again): none is asked for
    assert session.loaded is palace
    box: list[list[str]] = []
    weakref.finalize(palace, lambda: box[0].append("palace let go"))
    del palace
    assert session.index.pending  # nothing opened the index yet: what the commit wrote
    with opened() as read:
        box.append(read)
        session.follow_index()
    seen = [p for p in read if p == "palace let go" or p.startswith(str(root))]
    assert seen[0] == "palace let go" and len(seen) > 1  # before any file of it was read
    inside = [p.split(str(root) + "/", 1)[-1] for p in seen[1:]]
    assert [p for p in inside if p.startswith("notes/")] == ["notes/project/alpha.md"]
    store = open_index_at(root, load_config(root))
    assert store.state is not None and store.state.commit == head_commit(root)
    assert session.index.pending is None and session.palace.by_rel["notes/project/alpha.md"].ok


def test_the_watch_reloads_the_palace_when_a_note_changes(make_palace: MakePalace) -> None:
    root = _palace(make_palace)
    session = Session.open(root)
    first = session.palace
    seen = threading.Event()
    session.watch(seen.set)
    try:
        deadline = time.monotonic() + 30
        while not seen.is_set() and time.monotonic() < deadline:  # the watch may start late
            (root / "notes/project/gamma.md").write_text(note_text("Gamma"), encoding="utf-8")
            seen.wait(0.2)
        assert seen.is_set()
        assert session.palace is not first and "notes/project/gamma.md" in session.palace.by_rel
    finally:
        session.close()

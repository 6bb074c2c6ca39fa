"""The index kept in step with the palace's files without loading the palace (at 100k notes
the loaded palace is ~380 MB, held beside LanceDB and the embedder):

- `catch_up(root, config, store)`   one stat per file against the record of the files the
                                    index holds (`curator.search.filerecord`): only the files
                                    changed since are read and parsed, their rows written, the
                                    rows of files gone removed. A query after a change runs it
                                    (`curator.search.cold`), and so does the index following a
                                    commit in a process that holds no open index
                                    (`curator.search.hooks`). False when there is no usable
                                    record: the caller syncs from the loaded palace instead.
- `reindex_files(root, config, store)`  a full rebuild reading the notes a batch at a time
                                    (read, embed, write), never the whole palace at once.

Rows are made from each file and palace.toml alone (`curator.search.index.doc_of`), so they
are the rows a sync from the loaded palace makes; the gate's verdict is the row's `sensitive`
column and the list of notes whose header did not parse, as there.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from curator.config import Config, load_config
from curator.model.cache import RACY_NS
from curator.model.discovery import NOTES_DIR, kind_of
from curator.model.layouts import rules as layout_rules
from curator.model.loader import fingerprint_of, read_note, walk_stats
from curator.model.note import Kind, bytes_sha, read_file
from curator.search.docs import IndexDoc
from curator.search.filerecord import (
    FileEntry,
    Record,
    Sums,
    entry_of,
    read_record,
    summed,
    sums_of,
    write_record,
)
from curator.search.index import (
    derived_config,
    doc_of,
    head_commit,
    open_index_at,
    own_state,
    read_synced,
    record_clean,
    signature_from,
    write_synced,
)
from curator.search.progress import Progress, reporting_total
from curator.search.state import SyncStats
from curator.search.store import IndexStore
from curator.search.words import Corpus, count_sample, record_corpus, sampled
from curator.search.writes import REBUILD_BATCH

Walked = tuple[list[tuple[str, Kind, int, int]], list[str]]  # walk_stats: files, unread


def walk(root: Path, config: Config) -> Walked:
    """Every file a load of the palace would read, one stat each (see `walk_stats`)."""
    return walk_stats(root, layout_rules.layout_of(config), layout_rules.excludes_of(config))


def catch_up(
    root: Path,
    config: Config,
    store: IndexStore,
    walked: Walked | None = None,
    changed: Collection[str] | None = None,
    *,
    keep: bool = False,
) -> bool:
    """Bring the index in line with the files as they are now, reading only those changed
    since it last was: every file stat-ed against the record (`walked`: the walk, when the
    caller made it), or, given `changed` (the paths a commit wrote), those alone. `keep`:
    the record written is kept for the next read of it in this process (a plan's, which
    the index following its commit reads: `read_record`). False,
    having changed nothing, when the index holds no record to tell them by (never built,
    built by another layout or config, its record left from another state): then the
    caller loads the palace and syncs from it."""
    if layout_rules.foreign(config):
        return False  # another tool's layout parses and resolves by its own rules
    state = store.state
    synced = read_synced(store.index_dir)
    if (
        state is None
        or not store.ready
        or synced is None
        or synced.get("derived") != derived_config(config)
        or (synced.get("table"), synced.get("updated")) != (state.table, state.updated)
    ):
        return False
    seen = store.tables.seen
    found = read_record(store.index_dir, state, seen)
    if found is None:
        return False
    record = found.files
    read_ns = time.time_ns()  # before any read: what is younger at it is read again later
    files: list[tuple[str, Kind, int, int]] | None = None
    if changed is not None and walked is None:
        files = _stat_changed(root, config, changed)
    whole = files is None  # every file stat-ed: what is not found is gone
    if files is None:
        files, found_unread = walked if walked is not None else walk(root, config)
        unread = list(found_unread)
    else:
        unread = []
    entries = dict(record)
    docs: list[IndexDoc] = []
    layout = layout_rules.layout_of(config)
    moved = False  # a file read again holds other bytes, or a file came or went
    touched: set[str] = set()  # the entries read again or gone
    for rel, kind, size, mtime in files:
        old = record.get(rel)
        if old is not None and old.same(kind, size, mtime):
            continue
        touched.add(rel)
        note = read_note(root, rel, kind, config, layout)
        if not note.sha:  # unreadable now: no file of the palace, as a load reports it
            entries.pop(rel, None)
            unread.append(rel)
            moved = True
            continue
        entries[rel] = entry_of(note, read_ns)
        moved = moved or old is None or (old.kind, old.sha, old.parsed) != (kind, note.sha, note.ok)
        if note.ok:
            docs.append(doc_of(note, config))
    present = {f[0] for f in files}
    for rel in record if whole else set(changed or ()).intersection(record):
        if rel not in present:
            entries.pop(rel, None)
            touched.add(rel)
            moved = True
    head = head_commit(root)
    was = [(rel, record[rel]) for rel in touched if rel in record]
    now = [(rel, entries[rel]) for rel in touched if rel in entries]
    sums = found.sums.moved(was, now) if found.sums is not None else sums_of(entries.items())
    if moved or state.commit != head or not store.tables.matches_embedder(state):
        allow_empty = whole and not files and not unread
        if not _sync_known(store, found, seen, docs, touched, entries, sums, head, allow_empty):
            # every row but those of the parsed files goes (a header broken since, a file gone)
            parsed = {rel for rel, e in entries.items() if e.parsed}
            if store.writer.sync_changes(docs, parsed, head, allow_empty=allow_empty) is None:
                return False
    # else the files read again (too young when last read to be trusted) hold the bytes the
    # rows were made from: only the record of them changes
    clean = clean_after(root, config, synced.get("clean"), head, entries, touched)
    _record(store, config, entries, sums, unread if whole else None, clean, keep=keep)
    return True


def _sync_known(
    store: IndexStore,
    found: Record,
    seen: tuple[int, int, int] | None,
    docs: list[IndexDoc],
    touched: Collection[str],
    entries: Mapping[str, FileEntry],
    sums: Sums,
    head: str | None,
    allow_empty: bool,
) -> bool:
    """The rows changed by the files `touched` alone, read from no row: the record `found`
    (of the write of state.json `seen`) names every row the table holds, its parsed
    entries, as the write that kept it left them. Written: the docs of the files with new
    bytes or newly parsed, and the removal of the rows of files gone or no longer parsed.
    False, having written nothing, when the record's count of rows is not the table's or
    the table moved on since (the caller then compares every row: `sync_changes`)."""
    state = store.state
    if found.sums is None or state is None or found.sums.parsed[0] != state.doc_count:
        return False
    record = found.files

    def row(entries: Mapping[str, FileEntry], rel: str) -> str | None:
        """The bytes' hash of the row `entries` give the file at `rel` (None: no row)."""
        entry = entries.get(rel)
        return entry.sha if entry is not None and entry.parsed else None

    fresh = [doc for doc in docs if row(record, doc.path) != row(entries, doc.path)]
    removed = [rel for rel in touched if row(record, rel) and not row(entries, rel)]
    written = store.writer.sync_known(
        seen, fresh, removed, sums.parsed[0], head, allow_empty=allow_empty
    )
    return written is not None


def plain_layout(config: Config) -> bool:
    """Whether a path alone tells whether the walk reads it, and as what (`kind_of`): notes
    in notes/, drafts in the drafts folder, nothing excluded."""
    layout = layout_rules.layout_of(config)
    return not (
        layout.notes != NOTES_DIR
        or layout.excludes
        or layout_rules.excludes_of(config)
        or kind_of(f"{config.inbox}/x.md", config.inbox) != "draft"  # drafts among notes
    )


def _walked_kind(rel: str, config: Config) -> Kind | None:
    """What the walk reads the file at `rel` as, in a `plain_layout` (None: not read)."""
    if any(part.startswith(".") for part in rel.split("/")):
        return None  # the walk never enters a dot folder nor reads a dot file
    return kind_of(rel, config.inbox)


def _stat_changed(
    root: Path, config: Config, changed: Collection[str]
) -> list[tuple[str, Kind, int, int]] | None:
    """The files among `changed` a load would read, stat-ed as the walk stats them (a path
    that is no note or draft, or is gone, left out); None when the walk's own rules are
    needed to tell (notes kept elsewhere, excludes, a link on the way), so the caller walks."""
    if not plain_layout(config):
        return None
    real = os.path.realpath(root)
    out: list[tuple[str, Kind, int, int]] = []
    for rel in sorted(set(changed)):
        kind = _walked_kind(rel, config)
        if kind is None:
            continue
        path = root / rel
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue  # gone
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or os.path.realpath(path) != os.path.join(real, rel):
            return None  # a link: whether the walk reads it is the walk's to say
        out.append((rel, kind, info.st_size, info.st_mtime_ns))
    return out


def _record(
    store: IndexStore,
    config: Config,
    entries: Mapping[str, FileEntry],
    sums: Sums,
    unread: list[str] | None,
    clean: str | None = None,
    *,
    keep: bool = False,
) -> str:
    """Record what the index now holds (the files and their `sums`, synced.json); its
    signature. `unread`: the paths the walk could not read (None: no walk, so no
    fingerprint of the files); `clean`: see `clean_after`; `keep`: see `write_record`."""
    state = own_state(store)
    if state is None:
        return ""
    write_record(store.index_dir, state, store.tables.seen, dict(entries), sums, keep=keep)
    signature = signature_from(summed(sums.parsed), config)
    trusted = unread is not None and sums.young == 0
    files = fingerprint_of(summed(sums.files), unread or ()) if trusted else None
    unparsed = [rel for rel, e in entries.items() if not e.parsed]
    write_synced(store, state, signature, files, config, unparsed, clean)
    return signature


# the most notes checked against a commit's blobs when the rows follow it: past that (a pull
# of thousands of notes) the record keeps no clean commit, and the next plan walks the files
CHECKED_MAX = 2000


def clean_after(
    root: Path,
    config: Config,
    claim: object,
    head: str | None,
    entries: Mapping[str, FileEntry],
    touched: Collection[str],
) -> str | None:
    """`head` when the rows (of the record's `entries`) hold every note with the bytes
    `head`'s tree holds at its path, and no other note; else None. `claim`: the commit the
    rows held so before the files `touched` were read again or found gone, kept in
    synced.json (`write_synced`'s `clean`). Checked by the notes that differ between the two
    commits and those touched: each one's bytes in `head` hashed against its entry's.

    With such a commit at HEAD, git's status showing no note differing from HEAD shows the
    rows in step with the notes on disk (`drafts_moved`), and no walk of them is needed."""
    if not isinstance(claim, str) or head is None or not plain_layout(config):
        return None
    from curator.errors import WriterError
    from curator.writer.git import discover, tree_changes

    try:
        repo = discover(root)
        moved = [c.path for c in tree_changes(repo, claim, head)] if claim != head else []
        rels = {repo.to_palace(path) for path in moved} | set(touched)
        notes = sorted(r for r in rels if r is not None and _walked_kind(r, config) == "note")
        if len(notes) > CHECKED_MAX:
            return None
        held = _blobs_at(repo, head, [repo.to_repo(rel) for rel in notes])
    except (WriterError, OSError, ValueError):
        return None
    if held is None:
        return None
    for rel, data in zip(notes, held, strict=True):
        entry = entries.get(rel)
        if data is None:
            if entry is not None:
                return None
        elif entry is None or entry.kind != "note" or entry.sha != bytes_sha(data):
            return None
    return head


def _blobs_at(repo: Any, commit: str, paths: list[str]) -> list[bytes | None] | None:
    """The bytes of the file at each repo path in `commit`'s tree (None: no file there, or a
    folder or submodule), one `git cat-file --batch`; None when a path cannot be asked."""
    if not paths:
        return []
    if any("\n" in path for path in paths):
        return None
    asked = "".join(f"{commit}:{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    data = repo.git("cat-file", "--batch", input=asked).stdout
    out: list[bytes | None] = []
    pos = 0
    for _ in paths:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if header[-1] == b"missing" or len(header) != 3:
            out.append(None)
            continue
        size = int(header[2])
        out.append(data[pos : pos + size] if header[1] == b"blob" else None)
        pos += size + 1
    return out


def drafts_moved(root: Path, config: Config, head: str, store: IndexStore) -> list[str] | None:
    """The drafts whose rows may not hold them as they are now (dropped into the drafts
    folder, changed or gone since the index's record of them), once the notes are shown in
    step without a walk of them: the record keeps `head` as clean (`clean_after`), and
    `head` is a commit git's status showed every note as it holds (`notes_committed`, the
    caller's); None when they are not. The drafts, which git does not vouch for, are
    stat-ed one by one against the record, and one the stat cannot vouch for (too young
    when read, touched since) is read and hashed. Reading the drafts returned
    (`catch_up(..., changed=...)`) brings the index in step: agents drop drafts all the
    time, and a walk of every note for them cost ~0.5 s of CPU at 100k notes."""
    state = store.state
    synced = read_synced(store.index_dir)
    if (
        state is None
        or synced is None
        or synced.get("clean") != head
        or state.commit != head
        or (synced.get("table"), synced.get("updated")) != (state.table, state.updated)
        or not plain_layout(config)
        or os.path.islink(root / NOTES_DIR)  # git would vouch for the link, not the notes
    ):
        return None
    layout = layout_rules.layout_of(config)
    drafts, unread = walk_stats(root, layout, notes=False)
    # kept: the index following the plan's commit reads the same record again (`catch_up`)
    found = read_record(store.index_dir, state, store.tables.seen, keep=True)
    if unread or found is None:
        return None
    moved: list[str] = []
    for rel, kind, size, mtime in drafts:
        entry = found.files.get(rel)
        if entry is None:
            moved.append(rel)  # new since
            continue
        if entry.kind != kind:
            return None
        if entry.same(kind, size, mtime):
            continue
        try:
            _info, data = read_file(str(root / rel))
        except OSError:
            return None
        if bytes_sha(data) != entry.sha:
            moved.append(rel)
    # the record's drafts counted from its sums (every entry a note or a draft), not by a
    # pass over its 100k entries: only when a draft is gone from the disk are they looked for
    sums = found.sums
    recorded = (
        sums.files[0] - sums.notes[0]
        if sums is not None
        else sum(entry.kind == "draft" for entry in found.files.values())
    )
    if recorded != len(drafts) - sum(rel not in found.files for rel in moved):
        on_disk = {rel for rel, _kind, _size, _mtime in drafts}
        moved += [r for r, e in found.files.items() if e.kind == "draft" and r not in on_disk]
    return moved


def vouch(
    root: Path, config: Config, head: str, since_ns: int, walked: Walked, store: IndexStore
) -> None:
    """Keep `head` as clean in the record (see `clean_after`) once the index is in step with
    the files `walked` after a status taken at `since_ns` showed every note as `head` holds
    it: the rows then hold each note as `head` does. Not when a file changed near or after
    that status (its mtime is that late), nor when HEAD has moved."""
    files, unread = walked
    state = store.state
    if (
        unread
        or state is None
        or state.commit != head
        or not plain_layout(config)
        or os.path.islink(root / NOTES_DIR)
        or any(mtime >= since_ns - RACY_NS for _rel, _kind, _size, mtime in files)
    ):
        return
    record_clean(store, state, head)


def count_from_files(
    root: Path, config: Config, parsed: Mapping[str, Kind], index_dir: Path, signature: str
) -> Corpus:
    """The corpus statistics of the palace whose parsed notes and drafts are `parsed` (rel
    to kind), counted over the same sample as from the loaded palace (`sampled`), reading
    only the sampled files; kept in `index_dir` for the palace of `signature`."""
    order = sorted(parsed, key=lambda rel: (parsed[rel] != "note", rel))
    layout = layout_rules.layout_of(config)
    notes = [read_note(root, rel, parsed[rel], config, layout) for rel in sampled(order)]
    found = count_sample([n for n in notes if n.ok])
    record_corpus(index_dir, signature, found)
    return found


def reindex_files(
    root: Path, config: Config, store: IndexStore, walked: Walked | None = None
) -> SyncStats:
    """Rebuild the index from scratch reading the notes a batch at a time as the build
    writes them (read, parse, embed, write), then record what it holds (the files, the
    corpus statistics) as a sync does (`walked`: the walk, when the caller made it)."""
    files, found_unread = walked if walked is not None else walk(root, config)
    files, unread = sorted(files), list(found_unread)
    read_ns = time.time_ns()  # before any read
    entries: dict[str, FileEntry] = {}
    layout = layout_rules.layout_of(config)

    def batches() -> Iterator[list[IndexDoc]]:
        for start in range(0, len(files), REBUILD_BATCH):
            docs = []
            for rel, kind, _size, _mtime in files[start : start + REBUILD_BATCH]:
                note = read_note(root, rel, kind, config, layout)
                if not note.sha:
                    unread.append(rel)
                    continue
                entries[rel] = entry_of(note, read_ns)
                if note.ok:
                    docs.append(doc_of(note, config))
            yield docs

    allow_empty = not files and not unread
    stats = store.writer.rebuild_stream(batches(), head_commit(root), allow_empty=allow_empty)
    signature = _record(store, config, entries, sums_of(entries.items()), unread)
    parsed = {rel: _kind(e) for rel, e in entries.items() if e.parsed}
    count_from_files(root, config, parsed, store.index_dir, signature)
    return stats


def rebuild_index(root: Path, progress: Progress | None = None) -> tuple[IndexStore, SyncStats]:
    """`curator reindex`: the index of the palace at `root` rebuilt from its files
    (`reindex_files`; a palace of another tool's layout is loaded and rebuilt from, as its
    own rules read it); the store and what the build did."""
    config = load_config(root)
    if layout_rules.foreign(config):
        from curator.model.palace import Palace
        from curator.search.index import open_index, reindex
        from curator.search.progress import reporting

        palace = Palace.open(root)
        store = open_index(palace)
        with reporting(store, palace, progress):
            return store, reindex(palace, store=store)
    store = open_index_at(root, config)
    walked = walk(root, config)
    with reporting_total(store, len(walked[0]), progress):
        return store, reindex_files(root, config, store, walked)


def _kind(entry: FileEntry) -> Kind:
    return "draft" if entry.kind == "draft" else "note"


__all__ = ["Walked", "catch_up", "count_from_files", "rebuild_index", "reindex_files", "walk"]

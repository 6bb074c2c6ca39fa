"""Keeping the derived LanceDB index in step with the palace files.

- `docs_from_palace(palace)`   one `IndexDoc` per note and draft whose header parsed;
- `open_index(palace)`         the `IndexStore` at `<palace>/.curator/index` with the embedder
                               chosen by palace.toml `[index] embedder/dim` (a new one each
                               call: the caller holds it, as a `curator.session.Session` does);
- `sync_index(palace)`         incremental: only docs whose content hash changed are re-embedded,
                               deleted notes are removed; a changed embedder or dim, a missing or
                               corrupt index (moved aside first) means a full rebuild;
- `reindex(palace)`            full rebuild into a new table, switched over atomically.

After a session's commit `curator.search.hooks.sync_after_commit` runs `sync_index` (see
`curator.session.Session.commit`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from curator.config import Config
from curator.errors import ConfigError, SearchIndexError
from curator.fsutil import atomic_write
from curator.gitenv import git_env
from curator.model import flags
from curator.model.loader import loaded_fingerprint
from curator.model.note import Note
from curator.model.palace import STATE_DIR, Palace, ensure_state_dir, notes_sum
from curator.model.schema import is_visible
from curator.search.docs import IndexDoc, tag_keys
from curator.search.embed import get_embedder
from curator.search.filerecord import entry_of, sums_of, write_record
from curator.search.store import IndexState, IndexStore, MakeDocs, SyncStats
from curator.search.words import corpus

log = logging.getLogger(__name__)

INDEX_DIR = "index"
SYNCED_FILE = "synced.json"  # the palace fingerprint the index reflects (skips no-op syncs)
# Bump when the way a note becomes a doc changes, so every row is re-derived on the next sync.
DOC_VERSION = "2"


def index_dir(root: Path) -> Path:
    return Path(root) / STATE_DIR / INDEX_DIR


def _derived(config: Config, note: Note) -> tuple[str, bool, float]:
    return note.scope, not is_visible(note, config), flags.confidence(note, config)


def _content_hash(note: Note, confidence: float, sensitive: bool) -> str:
    # note.sha covers every byte of the file; the rest is what the config derives from it.
    key = f"{DOC_VERSION}|{note.sha}|{confidence!r}|{int(sensitive)}|{note.rel}"
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def doc_of(note: Note, config: Config) -> IndexDoc:
    """The index row of one parsed note or draft, from palace.toml alone (a row never
    depends on the other notes: a note read from its file makes the same row)."""
    return IndexDoc(**_head(note, config), body=note.body)


def doc_row(palace: Palace, note: Note, *, body: bool = True) -> dict[str, Any]:
    """The index row of one parsed note or draft as the store returns one (every column but
    the full-text `text`: `doc_of`'s), made from the palace instead of read from the table.
    Without `body`, the row leaves its `body` out: made from the note's header alone, so a
    palace that let go of its notes' text reads no file (`curator.search.filters.row_body`
    reads it when asked)."""
    row = _head(note, palace.config)
    if body:
        row["body"] = note.body
    return row


def _head(note: Note, config: Config) -> dict[str, Any]:
    """Every column of a note's row but its body and text, as `IndexDoc` keeps them (tags a
    tuple of text, their keys, the confidence a float): read from its header alone."""
    scope, sensitive, confidence = _derived(config, note)
    stale = note.stale
    tags = tuple(note.tags)
    return {
        "path": note.rel,
        "slug": note.slug,
        "name": note.name,
        "description": note.description,
        "type": note.type,
        "scope": scope,
        "status": note.status,
        "confidence": float(confidence),
        "stale": stale is not None,
        "stale_reason": (stale or {}).get("reason", ""),
        "sensitive": sensitive,
        "tags": tags,
        "tag_keys": tag_keys(tags),
        "created": note.created,
        "reviewed": note.reviewed,
        "kind": note.kind,
        "content_hash": _content_hash(note, confidence, sensitive),
        "context": note_context(note),
    }


def note_context(note: Note) -> str:
    """The text the note's fact came from (its `context` header field), or ''."""
    value = note.header.get("context")
    return value if isinstance(value, str) else ""


def docs_from_palace(palace: Palace) -> list[IndexDoc]:
    """Every note and draft whose header parsed, as index docs (sorted by path)."""
    return [doc_of(n, palace.config) for n in palace.all() if n.ok]


def doc_hashes(palace: Palace) -> dict[str, str]:
    """The content hash of every note and draft whose header parsed, by path (what
    `docs_from_palace` would give as `content_hash`, without building the docs).

    Computed afresh each time (~2 us a note): a process-wide memo of them held ~40 MB at 100k
    notes and saved ~60 ms a sync."""
    out: dict[str, str] = {}
    for note in palace.all():
        if not note.ok:
            continue
        if note.rel in out:
            raise ValueError(f"two index docs share the path {note.rel!r}")
        _scope, sensitive, confidence = _derived(palace.config, note)
        out[note.rel] = _content_hash(note, confidence, sensitive)
    return out


def _maker(palace: Palace) -> MakeDocs:
    """Builds the docs of the given paths from `palace` (see IndexWriter.sync_hashes)."""
    by_rel = palace.by_rel
    return lambda paths: [doc_of(by_rel[p], palace.config) for p in paths]


def head_commit(root: Path) -> str | None:
    """The palace's git HEAD commit (None outside git or before the first commit)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
            capture_output=True,
            text=True,
            timeout=30,
            env=git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = proc.stdout.strip()
    return sha if proc.returncode == 0 and sha else None


def open_index(palace: Palace) -> IndexStore:
    """The palace's index store, opened afresh (never raises for a corrupt index: it is moved
    aside and `store.ready` is False until the next sync). The store follows state.json from
    then on, so one store serves its holder across other processes' syncs."""
    return open_index_at(palace.root, palace.config)


def open_index_at(root: Path, config: Config) -> IndexStore:
    """`open_index` of the palace at `root` with palace.toml `config`, loading no note."""
    settings = config.index
    try:
        embedder = get_embedder(settings.embedder, settings.dim)
    except ValueError as exc:  # a name or dim palace.toml's checks let through
        raise ConfigError(str(exc), path=str(root / "palace.toml")) from None
    try:
        ensure_state_dir(root)
    except OSError as exc:  # .curator is a file, or read-only
        where = str(root / STATE_DIR)
        message = f"cannot hold the search index: {exc.strerror}"
        raise SearchIndexError(message, path=where) from None
    return IndexStore.open(index_dir(root).resolve(), embedder)


def _allow_empty(palace: Palace, hashes: dict[str, str]) -> bool:
    """An empty doc list may replace a non-empty index only when the palace really is empty
    (no files at all and nothing failed to load) — never because parsing found nothing."""
    return not hashes and not palace.all() and not palace.problems


def sync_index(
    palace: Palace, commit: str | None = None, *, store: IndexStore | None = None
) -> SyncStats:
    """Bring the index in line with the palace (incremental; rebuilds when it must).

    When the index already reflects this commit and the palace's fingerprint (every file's
    hash plus what the config derives from it) matches the one recorded at the last sync,
    nothing is read from the table at all."""
    t0 = time.perf_counter()
    store = store or open_index(palace)
    commit = commit if commit is not None else head_commit(palace.root)
    signature = palace_signature(palace)
    state = store.state
    found = _read_synced(store)
    if (
        store.ready
        and state is not None
        and state.commit == commit
        and found is not None
        and all(found.get(k) == v for k, v in _synced_record(state, signature).items())
    ):
        if found.get("files") != _files_of(palace):  # the same notes, as read again since
            _write_synced(store, palace, signature)
        return SyncStats(0, 0, 0, state.doc_count, time.perf_counter() - t0)
    hashes = doc_hashes(palace)
    allow = _allow_empty(palace, hashes)
    stats = store.writer.sync_hashes(hashes, _maker(palace), commit, allow_empty=allow)
    _write_synced(store, palace, signature)
    return stats


def derived_config(config: Config) -> str:
    """What of palace.toml the index derives fields from: the type default confidences and
    the sensitive scopes (with the way a note becomes a doc)."""
    return repr(
        (
            DOC_VERSION,
            sorted((t.name, t.default_confidence) for t in config.types.values()),
            sorted(name for name, spec in config.scopes.items() if spec.sensitive),
        )
    )


def palace_signature(palace: Palace) -> str:
    """A fingerprint of everything the index derives from the palace: every parsed file's path
    and hash, plus the config that derives fields from them (type default confidences and
    sensitive scopes). Computed afresh (a few ms at 10k notes; once a sync or a searcher).
    A palace read from the index (`curator.search.cold`) has the one the index recorded."""
    recorded = getattr(palace, "index_signature", None)
    if isinstance(recorded, str):
        return recorded
    return signature_of(((n.rel, n.sha) for n in palace.all() if n.ok), palace.config)


def signature_of(parsed: Iterable[tuple[str, str]], config: Config) -> str:
    """`palace_signature` of the parsed files given as (rel, sha), in any order (so a sync
    that reads only the changed files, `curator.search.catchup`, finds the same one)."""
    return signature_from(notes_sum(parsed), config)


def signature_from(parsed: tuple[int, int], config: Config) -> str:
    """`signature_of` the parsed files whose `notes_sum` is `parsed` (kept with the record of
    the files, moved by each change: `curator.search.filerecord.Sums`)."""
    derived = hashlib.blake2b(derived_config(config).encode("utf-8"), digest_size=8).hexdigest()
    return f"{parsed[0]}:{parsed[1]:032x}:{derived}"


def _synced_record(state: IndexState, signature: str) -> dict[str, str]:
    return {"table": state.table, "updated": state.updated, "signature": signature}


def read_synced(index: Path) -> dict[str, Any] | None:
    """The record of the last sync in the index folder `index` (None: none, or unreadable)."""
    try:
        data = json.loads((index / SYNCED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _read_synced(store: IndexStore) -> dict[str, Any] | None:
    return read_synced(store.index_dir)


def _files_of(palace: Palace) -> str | None:
    """The fingerprint of the files the palace was read from (see `loaded_fingerprint`);
    None for a palace of another tool's layout (a cold query loads those)."""
    if palace.foreign_layout:
        return None
    return loaded_fingerprint(palace.all(), palace.problems, palace.loaded.started_ns)


def _write_synced(store: IndexStore, palace: Palace, signature: str) -> None:
    """Record what the index now reflects (best effort: it only saves work): the palace
    fingerprint, and for a query that reads no palace (`curator.search.cold`) the files'
    fingerprint, the config it derived fields with and the notes whose header failed to
    parse (the index holds no row of them; the gate hides them)."""
    state = own_state(store)
    if state is None:
        return
    if not palace.foreign_layout:  # what a later sync reads only the changed files by
        started = palace.loaded.started_ns
        entries = {n.rel: entry_of(n, started) for n in palace.all()}
        write_record(store.index_dir, state, store.tables.seen, entries, sums_of(entries.items()))
    unparsed = [n.rel for n in palace.all() if not n.ok]
    write_synced(store, state, signature, _files_of(palace), palace.config, unparsed)


def own_state(store: IndexStore) -> IndexState | None:
    """The state this process's last sync of `store` left (not state.json as it is now:
    another process may have synced since, and what this one read is recorded under its
    own state, so a record never vouches for rows another process wrote)."""
    live = store.tables.live
    return live.state if live is not None else None


def write_synced(
    store: IndexStore,
    state: IndexState,
    signature: str,
    files: str | None,
    config: Config,
    unparsed: list[str],
    clean: str | None = None,
) -> None:
    """Record what the index of `state` reflects (see `_write_synced`), best effort. `clean`:
    a commit whose tree holds every note with the bytes the rows were made from, and no other
    note (`curator.search.catchup.clean_after`); git's status then vouches for the notes."""
    record = {
        **_synced_record(state, signature),
        "files": files,
        "derived": derived_config(config),
        "unparsed": sorted(unparsed),
    }
    if clean is not None:
        record["clean"] = clean
    _store_synced(store, record)


def record_clean(store: IndexStore, state: IndexState, clean: str) -> None:
    """Keep `clean` (see `write_synced`) in the record of `state`'s sync, when the record is
    that sync's; best effort."""
    record = read_synced(store.index_dir)
    if record is not None and (record.get("table"), record.get("updated")) == (
        state.table,
        state.updated,
    ):
        _store_synced(store, {**record, "clean": clean})


def _store_synced(store: IndexStore, record: dict[str, Any]) -> None:
    try:
        data = json.dumps(record).encode("utf-8")
        atomic_write(store.index_dir / SYNCED_FILE, data, sync=False)
    except OSError as exc:
        log.info("could not record the synced palace fingerprint: %s", exc)


def reindex(palace: Palace, *, store: IndexStore | None = None) -> SyncStats:
    """Rebuild the index from scratch into a new table and switch over atomically."""
    store = store or open_index(palace)
    hashes = doc_hashes(palace)
    allow = _allow_empty(palace, hashes)
    commit = head_commit(palace.root)
    stats = store.writer.rebuild_hashes(hashes, _maker(palace), commit, allow_empty=allow)
    signature = palace_signature(palace)
    _write_synced(store, palace, signature)
    # and the corpus statistics (1,000 notes sampled), as a query over the loaded palace keeps
    # them: without them the first query after a rebuild loaded the palace again instead of
    # answering from the index (at 1M notes, 3.5 GB and minutes)
    corpus(palace, store.index_dir, signature)
    return stats


__all__ = [
    "derived_config",
    "doc_hashes",
    "doc_of",
    "doc_row",
    "docs_from_palace",
    "head_commit",
    "index_dir",
    "open_index",
    "open_index_at",
    "own_state",
    "palace_signature",
    "read_synced",
    "reindex",
    "signature_from",
    "signature_of",
    "sync_index",
    "write_synced",
]

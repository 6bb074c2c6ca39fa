"""INDEX.md: a hand-written preamble, a marker, then one room per type and the superseded.

INDEX.md is a pure function of the files: it shows the dates a note is due for review or
expires ("review by 2026-12-10"), never flags that change with the calendar, so `curator index
--check` passes until a file changes. `check`, `list` and the app say what is due today.

The generator refuses to write an index that lists fewer notes than the palace holds, or that
would replace a non-empty generated section with an empty one: a generator that can silently
produce nothing has the same defect as a test that cannot fail.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import itertools
import operator
import re
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from curator.config import TypeSpec
from curator.errors import CuratorError
from curator.model import cache, palace_rules
from curator.model.flags import expires_on, is_low_confidence
from curator.model.note import Note
from curator.model.palace import INDEX_NAME, NeedsPalace, Palace, Room
from curator.model.schema import slug_key
from curator.model.text import one_line

MARKER = "<!-- curator:generated — do not hand-edit below this line -->"
_MARKER_RE = re.compile(r"^<!--\s*curator:generated\b.*-->\s*$", re.MULTILINE)
_ENTRY_RE = re.compile(r"^- \[", re.MULTILINE)


class IndexRefused(CuratorError):
    """The rendered index would lose notes; nothing was written."""


def default_preamble(palace: Palace) -> str:
    title = one_line(palace.config.name) or "Memory palace"
    return (
        f"# {title}\n\n"
        "One line per note, grouped into rooms by type. Read the room that matches your task,\n"
        f"then open the notes. Drafts in {palace.inbox}/ are not listed: they are not rules.\n\n"
    )


def split_index(text: str) -> tuple[str, str | None]:
    """(preamble, generated section or None when the file has no marker)."""
    match = _MARKER_RE.search(text)
    if not match:
        return text, None
    return text[: match.start()], text[match.end() :]


def _link_text(text: str) -> str:
    return one_line(text).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


#: what a render remembers: the palace's own memo (`Lookups.render`), or a throwaway one
Memo = dict[Any, Any]


def _entry(palace: Palace, note: Note, memo: Memo | None = None) -> tuple[tuple[str, str], str]:
    """(sort key, line) for a note, cached (in `memo`, else the palace's) by path and content
    hash.

    A superseded note's line names its successor, so its key also holds the successor's hash.
    """
    memo = palace.lookups.render if memo is None else memo
    key = _entry_key(palace, note)
    cached = memo.get(key)
    if cached is None:
        cached = memo[key] = (_sort_key(note), _render_entry(palace, note))
    return cached


def _entry_key(palace: Palace, note: Note) -> tuple[str, ...]:
    """The note's path and hash (and its successor's), as the note's own strings: a key made
    of new strings held ~11 MB more at 100k notes."""
    if not note.superseded:
        return ("index", note.rel, note.sha)
    successor = palace.successor(note)
    if successor is None:
        return ("index", note.rel, note.sha, "retired")
    return ("index", note.rel, note.sha, successor.rel, successor.sha)


def _sort_key(note: Note) -> tuple[str, str]:
    return (note.name.casefold(), note.rel)


def _lines(palace: Palace, notes: list[Note], memo: Memo | None = None) -> list[str]:
    return [line + "\n" for _, line in sorted(_entry(palace, n, memo) for n in notes)]


def _room_text(
    palace: Palace, name: str, notes: list[Note], memo: Memo | None = None
) -> tuple[str, int]:
    """A room's lines and their count, remembered with the exact notes they were made from: an
    action changes one or two rooms, and a palace made by ``replaced()`` shares the others' Note
    objects, so an unchanged room is reused and a changed one patched (its sorted entries minus
    the notes gone plus the notes added). Rooms hold active notes: no line in them names
    another note (a successor) that could change on its own. `memo`: as `_entry`'s."""
    memo = palace.lookups.render if memo is None else memo
    key = ("index-room", name)
    members = tuple(notes)
    cached = memo.get(key)
    entries = None
    if cached is not None and cached[0] == members:
        return "".join(line + "\n" for _, line in cached[1]), cached[2]
    if cached is not None and abs(len(cached[0]) - len(members)) < _PATCH_MAX:
        was = {id(n): n for n in cached[0]}
        now = {id(n) for n in members}
        gone = [n for i, n in was.items() if i not in now]
        added = [n for n in members if id(n) not in was]
        if len(gone) + len(added) < _PATCH_MAX:
            entries = _patched(palace, cached[1], gone, added, memo)
    if entries is None:
        entries = sorted(_entry(palace, n, memo) for n in notes)
    count = sum(1 for _, line in entries if line.startswith("- ["))  # what the guard counts
    # the text is joined anew each time (milliseconds), not kept: ~50 MB at 100k notes
    memo[key] = (members, entries, count)
    return "".join(line + "\n" for _, line in entries), count


_PATCH_MAX = 64  # notes in and out of a room above which it is sorted again from scratch
_Entries = list[tuple[tuple[str, str], str]]


def _patched(
    palace: Palace, entries: _Entries, gone: list[Note], added: list[Note], memo: Memo
) -> _Entries | None:
    """Sorted `entries` without the `gone` notes' and with the `added` ones'; None when a gone
    note's entry is not there (then the room is sorted again from its notes)."""
    out = list(entries)
    for note in gone:
        entry = _entry(palace, note, memo)
        at = bisect.bisect_left(out, entry)
        if at == len(out) or out[at] != entry:
            return None
        del out[at]
    for note in added:
        bisect.insort(out, _entry(palace, note, memo))
    return out


def _render_entry(palace: Palace, note: Note) -> str:
    if not note.ok:
        problem = note.problems[0].message if note.problems else "unreadable header"
        return f"- [{_link_text(note.slug)}]({note.rel}) — needs repair: {one_line(problem, 120)}"
    line = f"- [{_link_text(note.name)}]({note.rel})"
    if note.description:
        line += f" — {one_line(note.description, 200)}"
    flags = _dated_flags(palace, note)
    if note.superseded:
        successor = palace.successor(note)
        if successor is not None:
            flags.append(f"superseded by [{_link_text(successor.name)}]({successor.rel})")
        else:
            flags.append("retired")
    if flags:
        line += " · " + " · ".join(flags)
    return line


def _dated_flags(palace: Palace, note: Note) -> list[str]:
    """What the files say of a note, with dates where a flag would depend on the day."""
    out = ["stale"] if note.stale else []
    if (review_by := palace.review_by(note)) is not None:
        out.append(f"review by {review_by.isoformat()}")
    if (expires := expires_on(note)) is not None:
        out.append(f"expires {expires.isoformat()}")
    if is_low_confidence(note, palace.config):
        out.append("low confidence")
    return out


def _room_head(room: Room) -> str:
    return _heading(room.spec, len(room.notes))


def _heading(spec: TypeSpec, count: int) -> str:
    head = f"{_head_start(spec)}{count}\n"
    return head + (f"_{one_line(spec.purpose)}_\n" if spec.purpose else "")


def _head_start(spec: TypeSpec) -> str:
    return f"\n## {one_line(spec.room)} ({spec.name}) — "


def _generated(
    palace: Palace, reuse: Mapping[str, str] | None = None, *, keep: bool = True
) -> Iterator[tuple[str, int]]:
    """The text below the marker in pieces, each with how many note lines it holds. `reuse`
    holds the sections (heading and lines) of rooms known to render as they did (see
    `_reusable`). With `keep` the lines are remembered in the palace's memo (a later render
    of it, or of a palace `replaced()` makes from it, reuses them); else each room's go in a
    throwaway memo, garbage once the room is rendered."""

    def memo() -> Memo | None:
        return None if keep else {}

    filed = 0
    for room in palace.rooms():
        section = (reuse or {}).get(room.spec.name)
        if section is not None:
            yield section, section.count("\n- [")
        else:
            yield _room_head(room), 0
            yield _room_text(palace, room.spec.name, room.notes, memo())
        filed += len(room.notes)
    superseded = palace.superseded_notes()
    rest: list[Note] = []
    if filed + len(superseded) != len(palace.notes):  # rooms and superseded are disjoint
        listed = {n.rel for room in palace.rooms() for n in room.notes}
        listed.update(n.rel for n in superseded)
        rest = [n for n in palace.notes if n.rel not in listed]
    if rest:  # below: one line per item again
        yield f"\n## Unfiled (unknown type or unreadable header) — {len(rest)}\n", 0
        lines = memo()
        for _, line in sorted(((n.rel, ""), _entry(palace, n, lines)[1]) for n in rest):
            yield line + "\n", int(line.startswith("- ["))
    yield f"\n## Superseded — {len(superseded)}\n", 0
    for line in _lines(palace, superseded, memo()):
        yield line, int(line.startswith("- ["))


def render_generated(palace: Palace, reuse: Mapping[str, str] | None = None) -> tuple[str, int]:
    """The text below the marker, and how many note lines it holds (`reuse`: `_generated`'s)."""
    pieces = list(_generated(palace, reuse))
    return "".join(piece for piece, _ in pieces), sum(count for _, count in pieces)


def _preamble(palace: Palace, existing: str | bytes | None) -> tuple[str, str | bytes | None, bool]:
    """(the preamble a render writes, the generated part `existing` holds, whether it uses
    CRLF). `existing` may be the file's bytes: then only the preamble is decoded (at 10k
    notes the generated part is megabytes, read again only if the guard needs it)."""
    old_generated: str | bytes | None
    if isinstance(existing, bytes) and existing:
        preamble, old_generated, crlf = _split_bytes(existing)
    else:
        preamble, old_generated = (
            split_index(existing) if existing else (default_preamble(palace), None)
        )
        crlf = _crlf(existing) if isinstance(existing, str) else False
    if not preamble.endswith(("\n", "\r")):
        preamble += "\r\n" if crlf else "\n"
    return preamble, old_generated, crlf


def _guard(palace: Palace, listed: int, old_generated: str | bytes | None) -> None:
    """IndexRefused when a render listing `listed` notes would lose notes."""
    if listed < len(palace.notes):
        raise IndexRefused(
            f"refusing to write: the index would list {listed} notes but the palace holds "
            f"{len(palace.notes)}",
            path=INDEX_NAME,
        )
    if listed == 0 and (old_text := _text(old_generated)) and _ENTRY_RE.search(old_text):
        old = len(_ENTRY_RE.findall(old_text))
        raise IndexRefused(
            f"refusing to replace an index of {old} notes with an empty one: no notes were found "
            f"under {palace.root / 'notes'} (is the palace path right?)",
            path=INDEX_NAME,
        )


def render_index(
    palace: Palace,
    existing: str | bytes | None,
    today: date | None = None,
    *,
    since: Palace | None = None,
) -> str:
    """The whole INDEX.md, checked by the guard; raises IndexRefused instead of losing notes.

    It depends on the files only; `today` is accepted (and ignored) for callers that still
    pass it.

    `existing` may be the file's bytes (see `_preamble`). With `since`, the palace an action
    starts from (`palace` is `since.replaced(...)`), the rooms the action left as they were
    are copied from `existing` when it is known to be what a full render of `since` gives;
    the bytes are the same as a full render's either way. The text is joined once from its
    pieces (each copy of it is ~50 MB at 100k notes)."""
    if palace.partial:
        if since is None:
            raise NeedsPalace("a palace read from the index renders INDEX.md by splicing")
        return _patched_render(since, palace, existing)[0].decode("utf-8")
    return _render(palace, existing, since)[0]


def _render(
    palace: Palace,
    existing: str | bytes | None,
    since: Palace | None,
    existing_sha: str | None = None,
) -> tuple[str, str]:
    """`render_index` of a palace that holds its notes, and the sha256 of its bytes."""
    reuse = _reusable(since, palace, existing, existing_sha) if since is not None else None
    preamble, old_generated, crlf = _preamble(palace, existing)
    pieces = [MARKER + "\n"]
    listed = 0
    # an action's render that copies nothing (a first one, an INDEX.md not curator's) keeps
    # no lines: the next action copies from the file it writes (at 100k notes ~50 MB)
    for piece, count in _generated(palace, reuse, keep=since is None or bool(reuse)):
        pieces.append(piece)
        listed += count
    _guard(palace, listed, old_generated)
    if crlf:  # keep a CRLF file CRLF, like every other rewrite
        pieces = [piece.replace("\n", "\r\n") for piece in pieces]
    # the person's lines, byte for byte: their own line ends too
    digest = _remember(palace, [preamble, *pieces])
    return "".join([preamble, *pieces]), digest


def render_index_hashed(
    palace: Palace,
    existing: str | bytes | None,
    *,
    since: Palace | None = None,
    existing_sha: str | None = None,
) -> tuple[bytes, str]:
    """`render_index`, encoded, and the sha256 hex digest of the bytes (`_digest`, the writer's
    `content_hash`), made as they are remembered. `existing_sha`: the sha256 of `existing`'s
    bytes when the caller has it. At 100k notes INDEX.md is 25 MB, ~20 ms a pass: an action
    hashes each file once and hands the hash on. A palace read from the index splices the
    lines into INDEX.md's bytes, never decoding the file (25 MB at 100k notes)."""
    if palace.partial and since is not None:
        return _patched_render(since, palace, existing, existing_sha)
    if palace.partial:
        raise NeedsPalace("a palace read from the index renders INDEX.md by splicing")
    text, digest = _render(palace, existing, since, existing_sha)
    return text.encode("utf-8"), digest


def index_is_current(palace: Palace) -> bool:
    """Whether INDEX.md on disk is byte for byte what `render_index` would write now (raising
    IndexRefused as it would). Rendered room by room and compared as it goes, each room's lines
    in a throwaway memo: never more than one room's text in memory (a whole render held
    ~300 MB more at 100k notes, all of it garbage to `check`).

    In another tool's layout the index is that tool's own (Claude Code's MEMORY.md), and an
    INDEX.md curator has not been asked to write is not missing (H-layouts, issue 12)."""
    if palace.partial:
        raise NeedsPalace("whether INDEX.md is current needs every note")
    path = palace.root / INDEX_NAME  # the file as it is now, not as it was at load
    if palace.foreign_layout:
        own = palace_rules.generated_index(palace, palace, complete=True)
        if own is not None:
            return own[1] == own[2]
        if not path.exists():
            return True
    try:
        data: bytes | None = path.read_bytes()
    except FileNotFoundError:
        data = None
    _, old_generated, crlf = _preamble(palace, data)
    marker = _MARKER_BYTES.search(data) if data else None
    # the preamble is the file's own up to the marker, unless a line end had to be added
    same = (
        data is not None and marker is not None and data[: marker.start()].endswith((b"\n", b"\r"))
    )
    at = marker.start() if marker is not None else 0
    listed = 0
    for piece, count in itertools.chain([(MARKER + "\n", 0)], _generated(palace, keep=False)):
        listed += count
        if same and data is not None:
            raw = (piece.replace("\n", "\r\n") if crlf else piece).encode("utf-8")
            same = data.startswith(raw, at)
            at += len(raw)
    _guard(palace, listed, old_generated)
    current = same and data is not None and at == len(data)
    if current and data is not None:
        _remember(palace, [data])
    return current


# -- rooms an action leaves alone ------------------------------------------------------------
# The last render is remembered in the user's cache (`curator.model.cache`) as the digest of
# its bytes and of the palace it was made from: the notes' paths and hashes and the config.
# A later action whose INDEX.md on disk has that digest, from a palace with that key, copies
# the sections of the rooms it does not change instead of rendering ten thousand lines again.
# A plan renders before it is applied, and a plan that is never applied (a dry run, a diff the
# person declined) must not make the next action render everything: the last few are kept.
_RENDERED = "index-render"
RENDERS_KEPT = 4


def _digest(data: bytes) -> str:
    # sha256: at 100k notes INDEX.md is 25 MB, hashed three times an action; sha256 runs on
    # the CPU's SHA instructions at twice blake2b's speed
    return hashlib.sha256(data).hexdigest()


def _palace_key(palace: Palace) -> str:
    """The notes' paths and hashes and the config, as `Palace.notes_sum` gives them (so a
    palace that holds no note list has one too, and one change moves it by its notes)."""
    count, total = palace.notes_sum()
    return f"{count}:{total:032x}:{_digest(repr(palace.config).encode('utf-8', 'replace'))}"


# A render is remembered as (digest of its bytes, `_palace_key`, the slug keys the notes'
# supersede fields name, its size in bytes): a superseded note's line depends on the notes
# those keys find.
Render = tuple[str, str, frozenset[str], int]


def _chain_keys(palace: Palace) -> frozenset[str]:
    """The slug keys any note's `superseded_by` or `supersedes` names: the only notes whose
    coming or going can change a line outside the rooms (a successor found, lost or renamed,
    a chain cut short), since every chain is walked by these keys."""
    keys: set[str] = set()
    for note in palace.notes:
        if note.superseded_by:
            keys.add(slug_key(note.superseded_by))
        keys.update(slug_key(s) for s in note.supersedes)
    return frozenset(keys)


def _remember(
    palace: Palace, rendered: list[str] | list[bytes], chains: frozenset[str] | None = None
) -> str:
    """Remember the render whose pieces (joined: the file's bytes) are `rendered`: hashed
    piece by piece, never encoded whole (`chains`: `_chain_keys`, when the caller knows it).
    The bytes' sha256 hex digest."""
    digest = hashlib.sha256()
    size = 0
    for piece in rendered:
        raw = piece.encode("utf-8") if isinstance(piece, str) else piece
        digest.update(raw)
        size += len(raw)
    keys = _chain_keys(palace) if chains is None else chains
    made = (digest.hexdigest(), _palace_key(palace), keys, size)
    older = (r for r in _renders(palace.root) if r[:2] != made[:2])
    cache.store(palace.root, _RENDERED, tuple([made, *older][:RENDERS_KEPT]))
    return made[0]


def _renders(root: Path) -> list[Render]:
    """The renders remembered for the palace at `root`, newest first (see `Render`)."""
    found = cache.load(root, _RENDERED)
    if not isinstance(found, tuple):
        return []
    return [
        r
        for r in found
        if isinstance(r, tuple)
        and len(r) == 4
        and isinstance(r[0], str)
        and isinstance(r[1], str)
        and isinstance(r[2], frozenset)
        and all(isinstance(k, str) for k in r[2])
        and isinstance(r[3], int)
    ]


def rendered_before(root: Path) -> bool:
    """Whether INDEX.md at `root` may be a render remembered for the palace there: it has the
    size of one. A plan's cue to read the palace from the index, whose render then tells by
    the bytes' digest (`_remembered`) and renders from every note when they are not one; the
    file is neither read nor hashed here (25 MB at 100k notes)."""
    try:
        size = (root / INDEX_NAME).stat().st_size
    except OSError:
        return False
    return any(r[3] == size for r in _renders(root))


def _remembered(palace: Palace, data: bytes, digest: str | None = None) -> Render | None:
    """The remembered render whose bytes are `data` (`digest`: their `_digest`, when the
    caller has it), made from a palace with `palace`'s key."""
    made = (digest or _digest(data), _palace_key(palace))
    return next((r for r in _renders(palace.root) if r[:2] == made), None)


def _reusable(
    since: Palace, palace: Palace, existing: str | bytes | None, existing_sha: str | None = None
) -> dict[str, str]:
    """The sections (heading and lines) of `palace`'s rooms known from `existing`, by room
    name: a room whose notes are the same objects in `palace` as in `since` as it is, a room
    the action touched with its lines spliced (`_spliced`); none unless `existing` is known
    to be the render of `since` (remembered by `_remember`) under the same config."""
    if not existing or since.root != palace.root or repr(since.config) != repr(palace.config):
        return {}
    data = existing.encode("utf-8") if isinstance(existing, str) else existing
    if _remembered(since, data, existing_sha) is None:
        return {}
    generated = _text(_split_bytes(data)[1])
    if generated is None:
        return {}
    generated = generated.replace("\r\n", "\n")
    rooms = since.rooms()
    tail = generated.find("\n## ", generated.find(_room_head(rooms[-1])) + 1) if rooms else -1
    starts = [generated.find(_room_head(room)) for room in rooms]
    if -1 in starts or tail == -1 or starts != sorted(starts):
        return {}
    ends = [*starts[1:], tail]
    spans = zip(rooms, starts, ends, strict=True)
    was = {r.spec.name: (r, generated[a:b]) for r, a, b in spans}
    out: dict[str, str] = {}
    for room in palace.rooms():
        old, section = was.get(room.spec.name, (None, ""))
        if old is None or not section:
            continue
        if len(old.notes) == len(room.notes) and all(map(operator.is_, old.notes, room.notes)):
            out[room.spec.name] = section
        elif (spliced := _spliced(palace, old, room, section)) is not None:
            out[room.spec.name] = spliced
    return out


def _spliced(palace: Palace, old: Room, room: Room, section: str) -> str | None:
    """`room`'s section from `old`'s (the same room before the action): the lines of the
    notes still there kept, the lines of the notes the action added rendered and merged in by
    sort key. A room's lines are one per note in sort-key order, and each depends on its note
    alone (rooms hold active notes: no line names a successor). None when the section does
    not have one line per note."""
    *lines, last = section[len(_room_head(old)) :].split("\n")
    before = sorted(old.notes, key=_sort_key)
    if last or len(lines) != len(before):
        return None
    now = {id(note) for note in room.notes}
    pairs = zip(before, lines, strict=True)
    kept = [(_sort_key(n), f"{line}\n") for n, line in pairs if id(n) in now]
    held = {id(note) for note in old.notes}
    added = sorted(
        (_sort_key(n), _entry(palace, n)[1] + "\n") for n in room.notes if id(n) not in held
    )
    return _room_head(room) + "".join(line for _, line in heapq.merge(kept, added))


def _patched_render(
    since: Palace, palace: Palace, existing: str | bytes | None, existing_sha: str | None = None
) -> tuple[bytes, str]:
    """INDEX.md for `palace`, which holds no note list and which `since.replaced()` made
    (`Palace.partial`, `Palace.delta`): `existing`, remembered as the render of `since`, with
    the lines of the notes the change removes and adds spliced into their rooms. Each such
    note is current, in a room, with no supersede field, and its slug is named by no
    note's (`_chain_keys`): so its line is all that depends on it, and every other line is
    as before. NeedsPalace whenever that is not shown: the caller renders from every note.
    The bytes and their sha256 (`existing_sha`: `existing`'s, when the caller has it)."""
    if not existing or since.root != palace.root or repr(since.config) != repr(palace.config):
        raise NeedsPalace("no INDEX.md of this palace to splice")
    data = existing.encode("utf-8") if isinstance(existing, str) else existing
    known = _remembered(since, data, existing_sha)
    if known is None or since.delta() != ((), ()) or _crlf(data):
        raise NeedsPalace("INDEX.md is not known to be the render of the palace")
    gone, added = (tuple(n for n in notes if n.kind == "note") for notes in palace.delta())
    room_of = palace.room_rule
    rooms: dict[str, tuple[list[Note], list[Note]]] = {}
    for note, was in [*((n, True) for n in gone), *((n, False) for n in added)]:
        room = room_of(note) if note.ok and not note.superseded else None
        chained = note.superseded_by or note.supersedes or note.slug.casefold() in known[2]
        if room is None or chained:
            raise NeedsPalace(f"{note.rel} changes more of INDEX.md than its own line")
        rooms.setdefault(room, ([], []))[0 if was else 1].append(note)
    marker = _MARKER_BYTES.search(data)
    if marker is None:
        raise NeedsPalace("INDEX.md has no generated part")
    for name, (out, into) in rooms.items():
        data = _splice_room(since, palace, data, marker.end(), palace.config.types[name], out, into)
    # each entry is a line starting "- [" (the first comes after the marker's blank line)
    listed = data.count(b"\n- [", marker.end())
    held = palace.notes_sum()[0]
    if listed < held:
        raise IndexRefused(
            f"refusing to write: the index would list {listed} notes but the palace holds {held}",
            path=INDEX_NAME,
        )
    return data, _remember(palace, [data], known[2])


def _splice_room(
    since: Palace, palace: Palace, data: bytes, start: int, spec: TypeSpec, out: list[Note],
    into: list[Note],
) -> bytes:  # fmt: skip
    """INDEX.md's bytes `data` with the room of `spec` (found after `start`) less the lines of
    the notes `out` and with those of the notes `into`, its count changed to match. Lines are
    found by bisection on the sort key of the note each names, every line looked at checked
    to be its note's entry (a note read from the palace)."""
    head_start = _head_start(spec).encode("utf-8")
    head_at = data.find(head_start, start)
    if head_at == -1 or data.find(head_start, head_at + 1) != -1:
        raise NeedsPalace(f"INDEX.md has no one room {spec.name}")
    count_at = head_at + len(head_start)
    count_end = data.find(b"\n", count_at)
    digits = data[count_at:count_end]
    if not digits.isdigit():
        raise NeedsPalace(f"INDEX.md's room {spec.name} has no count")
    head = _heading(spec, int(digits)).encode("utf-8")
    end = data.find(b"\n## ", head_at + 1)
    if not data.startswith(head, head_at) or end == -1:
        raise NeedsPalace(f"INDEX.md's room {spec.name} is not as rendered")
    lines = data[head_at + len(head) : end].split(b"\n")
    if lines.pop() != b"" or len(lines) != int(digits):
        raise NeedsPalace(f"INDEX.md's room {spec.name} is not one line per note")

    def key(raw: bytes) -> tuple[str, str]:
        line = raw.decode("utf-8", "replace")
        rel = _line_rel(line)
        note = palace.by_rel.get(rel) if rel else None
        note = note if note is not None else since.by_rel.get(rel or "")
        if note is None or note.kind != "note" or _entry_bytes(since, note) != raw:
            raise NeedsPalace(f"a line of INDEX.md's room {spec.name} names no note as shown")
        return _sort_key(note)

    for note in out:
        at = bisect.bisect_left(lines, _sort_key(note), key=key)
        if at == len(lines) or lines[at] != _entry_bytes(since, note):
            raise NeedsPalace(f"INDEX.md has no line of {note.rel}")
        del lines[at]
    for note in into:
        at = bisect.bisect_left(lines, _sort_key(note), key=key)
        lines.insert(at, _entry_bytes(palace, note))
    body = b"\n".join(lines) + b"\n" if lines else b""
    return b"".join((data[:head_at], _heading(spec, len(lines)).encode("utf-8"), body, data[end:]))


def _entry_bytes(palace: Palace, note: Note) -> bytes:
    """A note's room line (`_render_entry`) as INDEX.md holds it."""
    return _render_entry(palace, note).encode("utf-8")


def _line_rel(line: str) -> str | None:
    """The path a room line links to (`- [name](rel) ...`, the name escaped as `_link_text`
    escapes it), or None."""
    if not line.startswith("- ["):
        return None
    i = 3
    while i < len(line) and line[i] != "]":
        i += 2 if line[i] == "\\" else 1
    if not line.startswith("](", i):
        return None
    close = line.find(")", i + 2)
    return line[i + 2 : close] if close != -1 else None


_MARKER_BYTES = re.compile(rb"^<!--\s*curator:generated\b.*-->\s*$", re.MULTILINE)


def _split_bytes(data: bytes) -> tuple[str, bytes | None, bool]:
    """(decoded preamble, the generated part still as bytes or None, whether CRLF is used)."""
    match = _MARKER_BYTES.search(data)
    cut = match.start() if match else len(data)
    preamble = data[:cut].decode("utf-8", errors="replace")
    return preamble, (data[match.end() :] if match else None), _crlf(data)


def _crlf(data: str | bytes) -> bool:
    """Whether curator's lines end in CRLF: as the marker's own line does, or (no marker yet)
    as the file's first line does."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    match = _MARKER_BYTES.search(raw)
    end = raw.find(b"\n", match.start() if match else 0)
    return end > 0 and raw[end - 1 : end] == b"\r"


def hand_part(data: bytes) -> tuple[bytes, bytes]:
    """(the preamble a person writes, the rest: the marker and what curator generates below
    it) of INDEX.md's bytes; a file without the marker is all preamble."""
    match = _MARKER_BYTES.search(data)
    cut = match.start() if match else len(data)
    return data[:cut], data[cut:]


def _text(part: str | bytes | None) -> str | None:
    return part.decode("utf-8", errors="replace") if isinstance(part, bytes) else part


def index_bytes(palace: Palace) -> bytes | None:
    """INDEX.md as it was when the palace was loaded (from disk if it was built otherwise)."""
    return palace.loaded.index_bytes(palace.root)


def read_index(palace: Palace) -> str | None:
    data = index_bytes(palace)
    return None if data is None else data.decode("utf-8", errors="replace")

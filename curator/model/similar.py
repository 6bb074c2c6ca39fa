"""The one near-duplicate rule, for capture, the app and `curator dupes`.

Two texts are alike by rapidfuzz's `token_set_ratio` (word overlap regardless of order) over
normalised text (lower case, no punctuation, common English stop words dropped): name against
name, and name-plus-description against the same; the better of the two, 0-100 (`score`).

- `similar(source, name, description)` ranks every note and draft of a palace by that rule
  (capture calls it before writing a draft; it imports no LanceDB);
- `curator.search.dupes` takes vector neighbours from the index as candidates and confirms
  them with `score`.

`source` is a loaded `Palace` or a palace root. Given a root, the names and descriptions come
from a small catalog kept in the palace load's cache (`curator.model.cache`) and checked file
by file against size and mtime: a capture is a whole short process, and the full palace load
(every note's text) costs more than its time budget on a 10k-note palace. A damaged catalog is
only a slower start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process, utils

from curator.model import cache
from curator.model.loader import _walk as walk_files
from curator.model.note import DRAFT_BANNER, Kind, parse_note, read_file

if TYPE_CHECKING:
    from curator.model.palace import Palace

__all__ = [
    "THRESHOLD",
    "Catalog",
    "Key",
    "Similar",
    "catalog",
    "key",
    "normalise",
    "score",
    "score_keys",
    "similar",
]

THRESHOLD = 60.0
_CATALOG_VERSION = 2
_REWRITE_AFTER = 16  # new files read on every call before the catalog is rewritten
_WHOLE_CHARS = 4000  # of a whole note compared by `score`
_DESCRIPTION_CHARS = 300  # enough to tell notes apart; keeps the catalog and scoring small


@dataclass(frozen=True, slots=True)
class Similar:
    path: str  # posix path from the palace root
    name: str
    score: int  # 0-100
    kind: str  # "note" | "draft"

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "name": self.name, "score": self.score, "kind": self.kind}


@dataclass
class Catalog:
    """Columns, one row per note or draft: what scoring needs, plus size and mtime to check it."""

    rels: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    mtimes: list[int] = field(default_factory=list)
    norm_names: list[str] = field(default_factory=list)  # normalise(name)
    norm_fulls: list[str] = field(default_factory=list)  # normalise(name + description)

    def __len__(self) -> int:
        return len(self.rels)

    def add(
        self, rel: str, kind: str, name: str, description: str, size: int = 0, mtime_ns: int = 0
    ) -> None:
        self.rels.append(rel)
        self.kinds.append(kind)
        self.names.append(name)
        self.descriptions.append(description)
        self.sizes.append(size)
        self.mtimes.append(mtime_ns)
        self.norm_names.append(normalise(name))
        self.norm_fulls.append(normalise(_text(name, description)))


_COLUMNS = (
    "rels",
    "kinds",
    "names",
    "descriptions",
    "sizes",
    "mtimes",
    "norm_names",
    "norm_fulls",
)


def _text(name: str, description: str) -> str:
    return f"{name} {description[:_DESCRIPTION_CHARS]}".strip()


def score(
    name: str,
    description: str,
    other_name: str,
    other_description: str,
    body: str = "",
    other_body: str = "",
) -> float:
    """How alike two notes are, 0-100, on the best evidence at hand: when both bodies are
    given, their whole texts against each other; otherwise (capture's catalog holds no bodies)
    the better of name against name and name-plus-description against the same."""
    return score_keys(
        key(name, description, body), key(other_name, other_description, body=other_body)
    )


Key = tuple[str, str, str]


def key(name: str, description: str, body: str = "") -> Key:
    """What `score` compares of one note, normalised: its whole text (when it has a body), its
    name-plus-description, its name. A caller scoring one note against many makes it once."""
    whole = normalise(_whole(name, description, body)) if body else ""
    return whole, normalise(_text(name, description)), normalise(name)


def score_keys(one: Key, other: Key) -> float:
    """`score` of two notes' keys."""
    if one[0] and other[0]:
        return float(fuzz.token_set_ratio(one[0], other[0], processor=None))
    best = fuzz.token_set_ratio(one[1], other[1], processor=None)
    if one[2]:
        best = max(best, fuzz.token_set_ratio(one[2], other[2]))
    return float(best)


def _whole(name: str, description: str, body: str) -> str:
    return f"{name} {description} {body.replace(DRAFT_BANNER, '')}"[:_WHOLE_CHARS]


def similar(
    source: Palace | str | os.PathLike[str],
    name: str,
    description: str = "",
    body: str = "",
    limit: int = 5,
    *,
    threshold: float = THRESHOLD,
) -> list[Similar]:
    """The notes and drafts most like (name, description), best first, score >= threshold.

    The rule is `score`'s, run over the whole catalog at once by rapidfuzz (name against
    name, name-plus-description against the same, the better of the two). `body` is not
    scored: names and descriptions tell notes apart, and the vector search of `dupes` reads
    bodies.
    """
    del body
    cat = _catalog_of(source)
    query_name = normalise(name)
    query_full = normalise(_text(name, description))
    if not len(cat) or not query_full:
        return []
    best: dict[int, float] = {}
    pool = max(limit * 4, 20)
    for query, choices in ((query_name, cat.norm_names), (query_full, cat.norm_fulls)):
        if not query:
            continue
        for _, score, index in process.extract(
            query,
            choices,
            scorer=fuzz.token_set_ratio,
            processor=None,
            limit=pool,
            score_cutoff=threshold,
        ):
            best[index] = max(best.get(index, 0.0), score)
    ranked = sorted(best.items(), key=lambda item: (-item[1], cat.rels[item[0]]))
    return [
        Similar(cat.rels[i], cat.names[i], round(score), cat.kinds[i])
        for i, score in ranked[:limit]
    ]


_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "for",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "by",
        "with",
        "without",
        "at",
        "from",
        "as",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "not",
        "no",
        "never",
        "into",
        "via",
        "up",
        "out",
        "so",
        "than",
        "then",
        "when",
    ]
)


def normalise(text: str) -> str:
    """Lower case, punctuation gone, stop words dropped (kept when nothing else is left)."""
    words = utils.default_process(text).split()
    kept = [w for w in words if w not in _STOP_WORDS]
    return " ".join(kept or words)


def _catalog_of(source: Palace | str | os.PathLike[str]) -> Catalog:
    if isinstance(source, (str, os.PathLike)):
        return catalog(Path(source))
    out = Catalog()
    for note in source.all():
        out.add(note.rel, note.kind, note.name, note.description)
    return out


# -- the catalog -------------------------------------------------------------------------------
def catalog(root: Path) -> Catalog:
    """Name and description of every note and draft under `root`, from the cache when current.

    A few new or changed files (the drafts captured since the catalog was written) are read and
    added without rewriting the catalog; it is rewritten when files went away or when more than
    `_REWRITE_AFTER` are new, so the common capture pays for neither.
    """
    root = Path(root)
    cached = _read_catalog(root)
    where = dict(zip(cached.rels, range(len(cached)), strict=True))
    kept: list[int] = []
    new = Catalog()
    for rel, path, kind in walk_files(Path(os.path.realpath(root)), []):
        try:
            stat = os.stat(path)
        except OSError:
            continue
        i = where.get(rel)
        if (
            i is not None
            and cached.sizes[i] == stat.st_size
            and cached.mtimes[i] == stat.st_mtime_ns
            and cached.kinds[i] == kind
        ):
            kept.append(i)
        else:
            _read_into(new, rel, path, kind, stat.st_size, stat.st_mtime_ns)
    if len(kept) == len(cached):  # nothing went away: the cached rows, plus what is new
        fresh = cached
        for column in _COLUMNS:
            getattr(fresh, column).extend(getattr(new, column))
        if len(new) > _REWRITE_AFTER or (len(new) and not kept):
            _write_catalog(root, fresh)
        return fresh
    fresh = Catalog()
    for column in _COLUMNS:
        old, added = getattr(cached, column), getattr(new, column)
        getattr(fresh, column).extend([old[i] for i in kept] + added)
    _write_catalog(root, fresh)
    return fresh


def _read_into(out: Catalog, rel: str, path: str, kind: Kind, size: int, mtime_ns: int) -> None:
    try:
        _info, data = read_file(path)
    except OSError:
        return
    note = parse_note(rel, data, kind, size=size)
    out.add(rel, kind, note.name, note.description if note.ok else "", size, mtime_ns)


# The catalog lives in the palace load's cache (`curator.model.cache`): in the user's own cache
# folder, plain data only, so a catalog that is not ours is never read.
def _read_catalog(root: Path) -> Catalog:
    value = cache.load(root, "similar")
    try:
        version, columns = value
        if version != _CATALOG_VERSION:
            return Catalog()
        cat = Catalog(*columns)
    except Exception:  # a damaged catalog is only a slower start
        return Catalog()
    lengths = {len(getattr(cat, c)) for c in _COLUMNS}
    return cat if len(lengths) == 1 else Catalog()


def _write_catalog(root: Path, cat: Catalog) -> None:
    """Best effort: a catalog that cannot be written only makes the next capture slower."""
    cache.store(root, "similar", (_CATALOG_VERSION, tuple(getattr(cat, c) for c in _COLUMNS)))

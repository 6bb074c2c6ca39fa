"""`KeyTable`: the notes by slug or name a palace looks links and successors up in, held as
hashes (issue 34: the warm 100k process), answering as a dict of the keys would, under change
too, and telling apart keys whose hashes are equal."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.model.lookups import KeyTable, by_name, by_slug
from curator.model.note import Note, parse_note
from curator.model.schema import name_key

# few letters, some of them equal once case-folded, so keys are shared
_WORD = st.text(alphabet="aAbBßSs-", min_size=1, max_size=4)


def _note(rel: str, name: str, *, ok: bool = True) -> Note:
    header = (
        f"---\nname: '{name}'\ndescription: d\ntype: user\n---\nbody\n" if ok else "no header\n"
    )
    return parse_note(rel, header.encode())


@st.composite
def _notes(draw: st.DrawFn, prefix: str = "notes/") -> list[Note]:
    slugs = draw(st.lists(_WORD, max_size=12))
    names = draw(st.lists(_WORD, min_size=len(slugs), max_size=len(slugs)))
    oks = draw(st.lists(st.booleans(), min_size=len(slugs), max_size=len(slugs)))
    notes = [
        _note(f"{prefix}{i:02d}/{slug}.md", name, ok=ok)
        for i, (slug, name, ok) in enumerate(zip(slugs, names, oks, strict=True))
    ]
    return sorted(notes, key=lambda n: n.rel)


def _as_dict(notes: Sequence[Note], key: str) -> dict[str, tuple[Note, ...]]:
    """The table as a dict of the keys makes it: every note under its key, in order."""
    out: dict[str, tuple[Note, ...]] = {}
    for note in notes:
        if key == "slug":
            k: str | None = note.slug.casefold()
        else:
            k = name_key(note.name) if note.ok else None
        if k is not None:
            out[k] = (*out.get(k, ()), note)
    return out


class _OneHash(KeyTable):
    """Every key at one hash: what tells keys apart is then their comparison alone."""

    _hash = staticmethod(lambda key: 7)


def _same(table: KeyTable, want: dict[str, tuple[Note, ...]], probes: Sequence[str]) -> None:
    assert dict(table.items()) == want
    for key in [*want, *probes]:
        assert table.get(key) == want.get(key)
        assert (key in table) == (key in want)


@settings(deadline=None)
@given(_notes(), _notes(prefix="notes/new-"), st.data())
def test_a_key_table_answers_as_a_dict_of_its_keys_under_change(
    notes: list[Note], added: list[Note], data: st.DataObject
) -> None:
    probes = data.draw(st.lists(_WORD, max_size=4))
    gone = {n.rel for n in notes if data.draw(st.booleans())}
    after = [n for n in notes if n.rel not in gone] + added
    for key, make in (("slug", by_slug), ("name", by_name)):
        table = make(notes)
        _same(table, _as_dict(notes, key), probes)
        _same(table.changed(gone, added), _as_dict(after, key), probes)
        _same(table, _as_dict(notes, key), probes)  # the table changed from is as it was
        # a second change over the first: the notes it added can go again
        again = table.changed(gone, added).changed({n.rel for n in added[:1]}, [])
        _same(again, _as_dict(after[: len(after) - len(added)] + added[1:], key), probes)
        # a note written again where one was removed stays through the changes after it
        rewritten = [_note(n.rel, n.name + "x") for n in notes if n.rel in gone]
        once = table.changed(gone, [*added, *rewritten])
        want = _as_dict([*after, *rewritten], key)
        _same(once.changed((), []), want, probes)
        colliding = _OneHash(notes, table._key).changed(gone, added)
        _same(colliding, _as_dict(after, key), probes)

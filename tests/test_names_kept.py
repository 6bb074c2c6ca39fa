"""An index's name postings kept in the user's cache (`Names.kept`): the same table `made`
gives, for exactly the rels and names they were made of, and made again from a cache of
other names or a damaged or forged one."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.model import cache
from curator.search.names import NAMES_CACHE, Names


def same(a: Names, b: Names) -> None:
    assert a.rels == b.rels and a.vocab == b.vocab
    assert [a.name(i) for i in range(len(a.rels))] == [b.name(i) for i in range(len(b.rels))]
    assert np.array_equal(a.lengths, b.lengths)
    for k, word in enumerate(a.vocab):
        assert np.array_equal(a.posting(k), b.posting(k)), word


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CURATOR_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "palace").mkdir()
    return tmp_path / "palace"


NAMES = st.lists(st.text(max_size=30), max_size=25)


# one cache across the examples: each starts from the last one's names, as a palace would
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=NAMES, second=NAMES)
def test_kept_names_are_the_made_ones_and_follow_the_names(
    root: Path, first: list[str], second: list[str]
) -> None:
    for shown in (first, second, first):
        rels = [f"notes/n{i}.md" for i in range(len(shown))]
        made = Names.made(rels, shown, None)
        same(Names.kept(root, rels, shown, None), made)  # made (or a cache of other names)
        assert cache.cache_path(root, NAMES_CACHE).is_file()
        same(Names.kept(root, rels, shown, None), made)  # from the cache


def test_a_name_holding_the_separator_is_not_another_pair_of_names(root: Path) -> None:
    rels = ["notes/a.md", "notes/b.md"]
    one, other = ["alpha\0beta", "gamma"], ["alpha", "beta\0gamma"]
    Names.kept(root, rels, one, None)
    same(Names.kept(root, rels, other, None), Names.made(rels, other, None))


@pytest.mark.parametrize(
    "stored",
    [
        b"not a pickle",
        None,
        ("key",),
        "forged",  # the right key, positions past the last note
        "unsorted bounds",
    ],
)
def test_a_damaged_or_forged_cache_is_made_again(root: Path, stored: object) -> None:
    rels, shown = ["notes/a.md", "notes/b.md"], ["Retry queue", "Deploy queue"]
    Names.kept(root, rels, shown, None)
    path = cache.cache_path(root, NAMES_CACHE)
    version, where, (key, vocab, bounds, flat) = pickle.loads(path.read_bytes())
    if stored == "forged":
        assert len(np.frombuffer(flat, dtype=np.int64)) == 4  # deploy: 1, queue: 0 1, retry: 0
        flat = np.array([5, 0, 1, 0], dtype=np.int64).tobytes()
        stored = (key, vocab, bounds, flat)
    elif stored == "unsorted bounds":
        stored = (key, vocab, np.array([0, 3, 1, 5], dtype=np.int64).tobytes(), flat)
    if isinstance(stored, bytes):
        path.write_bytes(stored)
    else:
        path.write_bytes(pickle.dumps((version, where, stored)))
    kept = Names.kept(root, rels, shown, None)
    same(kept, Names.made(rels, shown, None))
    assert kept.counts(["queue"]).tolist() == [1, 1]


def test_a_kept_table_is_read_not_made_again(root: Path) -> None:
    """The cache is what a later process reads: a table stored under these names' key is
    taken as it is (here one that says only the second note's name holds "retry")."""
    rels, shown = ["notes/a.md", "notes/b.md"], ["Retry queue", "Deploy queue"]
    Names.kept(root, rels, shown, None)
    path = cache.cache_path(root, NAMES_CACHE)
    version, where, (key, vocab, bounds, flat) = pickle.loads(path.read_bytes())
    assert vocab == ["deploy", "queue", "retry"]
    flat = np.array([1, 0, 1, 1], dtype=np.int64).tobytes()
    path.write_bytes(pickle.dumps((version, where, (key, vocab, bounds, flat))))
    assert Names.kept(root, rels, shown, None).counts(["retry"]).tolist() == [0, 1]


@settings(max_examples=100, deadline=None)
@given(
    shown=st.lists(st.text(alphabet="abcAB é-1", max_size=12), max_size=20),
    words=st.lists(st.text(alphabet="abcé1", min_size=1, max_size=5), min_size=1, max_size=3),
)
def test_the_postings_answer_as_each_names_words(shown: list[str], words: list[str]) -> None:
    """Each word's positions are the names holding it, and a query word counts for a name
    holding a word it begins or a near miss of it (`fuzzy`'s rule over the vocabulary)."""
    from curator.model import fuzzy
    from curator.search.text import WORD

    rels = [f"notes/n{i:02d}.md" for i in range(len(shown))]
    names = Names.made(rels, shown, None)
    held = [set(WORD.findall(name.lower())) for name in shown]
    assert names.vocab == sorted(set().union(*held))
    for k, word in enumerate(names.vocab):
        assert names.posting(k).tolist() == [i for i, ws in enumerate(held) if word in ws]
    assert [names.name(i) for i in range(len(shown))] == [s.lower() for s in shown]
    want = [0] * len(shown)
    for word in words:
        near = {v for v in names.vocab if v.startswith(word)}
        if len(word) >= 4:
            near |= {names.vocab[k] for k, _ in fuzzy.closest(word, names.vocab, 10)}
        for i, ws in enumerate(held):
            want[i] += bool(ws & near)
    assert names.counts(words).tolist() == want

"""curator.hashing: inside a command, the same large bytes are hashed once (INDEX.md at 100k
notes is 25 MB, and a promote hashed its old and new bytes six times); the digest is always
sha256's, nothing mutable is kept, and nothing is kept outside the scope."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import RunCli
from test_promote_from_index import DRAFT, root  # noqa: F401  (the fixture)

import curator.hashing
from curator.hashing import KEPT_FROM, hashes_kept, sha256_hex
from curator.model.palace import INDEX_NAME


def plain(data: bytes | bytearray) -> str:
    """sha256's own digest, not counted by `hashed`."""
    return hashlib.new("sha256", data).hexdigest()


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The sizes of the inputs sha256 was computed over."""
    sizes: list[int] = []
    real = hashlib.sha256

    def counted(data: Any = b"", **kwargs: Any) -> Any:
        sizes.append(len(data))
        return real(data, **kwargs)

    monkeypatch.setattr(curator.hashing.hashlib, "sha256", counted)
    yield sizes


def test_the_same_bytes_are_hashed_once_a_scope(hashed: list[int]) -> None:
    big = b"x" * KEPT_FROM
    other = b"x" * (KEPT_FROM - 1) + b"y"  # the same length: told apart by their bytes
    with hashes_kept():
        first = sha256_hex(big)
        assert sha256_hex(big) == first == plain(big)
        assert sha256_hex(bytes(bytearray(big))) == first  # an equal copy
        assert sha256_hex(other) == plain(other) != first
    assert hashed == [KEPT_FROM, KEPT_FROM]
    sha256_hex(big)  # outside the scope nothing is kept
    assert len(hashed) == 3


def test_small_and_mutable_inputs_are_never_kept(hashed: list[int]) -> None:
    data = bytearray(b"a" * KEPT_FROM)
    with hashes_kept():
        before = sha256_hex(data)  # type: ignore[arg-type]
        data[0] = ord("b")
        assert sha256_hex(data) == plain(data) != before  # type: ignore[arg-type]
        sha256_hex(b"small")
        sha256_hex(b"small")
    assert len(hashed) == 4


def test_a_promote_hashes_index_md_once_before_and_once_after(
    root: Path,  # noqa: F811
    run_cli: RunCli,
    hashed: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The render remembered, the plan's pre-image, the writer's check of the disk and its
    journal: the old INDEX.md and the new one hashed once each (six times before)."""
    size = len((root / INDEX_NAME).read_bytes())
    monkeypatch.setattr(curator.hashing, "KEPT_FROM", size - 64)  # INDEX.md, not the notes
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert len([n for n in hashed if n >= size - 64]) == 2

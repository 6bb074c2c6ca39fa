"""sha256 of a file's bytes, computed once a command: INDEX.md at 100k notes is 25 MB, and one
promote hashed its old and new bytes six times over (the render remembered, the plan's
pre-image, the writer's check of the disk and its journal), ~20 ms each.

Inside :func:`hashes_kept` (a CLI command's own work, `curator.cli.common.run_handler`) the
last two byte strings of at least `KEPT_FROM` bytes hashed are kept with their digest, and the
same bytes (the same object, or equal bytes: a compare costs a tenth of a hash) are not
hashed again; smaller ones (a note, a config) hash in microseconds and would push them out.
Only immutable ``bytes`` are kept; outside the scope nothing is, so a long-lived process holds
no copy.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["KEPT", "KEPT_FROM", "hashes_kept", "sha256_hex"]

#: how many byte strings a scope keeps (an action's INDEX.md before and after it)
KEPT = 2
#: the size from which they are kept
KEPT_FROM = 1 << 20

_kept: ContextVar[list[tuple[bytes, str]] | None] = ContextVar("curator_hashes_kept", default=None)


def sha256_hex(data: bytes) -> str:
    """The sha256 hex digest of `data` (kept for the scope when inside :func:`hashes_kept`)."""
    kept = _kept.get()
    if kept is None or type(data) is not bytes or len(data) < KEPT_FROM:
        return hashlib.sha256(data).hexdigest()
    for seen, digest in kept:
        if seen is data or seen == data:
            return digest
    digest = hashlib.sha256(data).hexdigest()
    kept.insert(0, (data, digest))
    del kept[KEPT:]
    return digest


@contextlib.contextmanager
def hashes_kept() -> Iterator[None]:
    """The digests of what is hashed inside kept until the block ends (see above)."""
    token = _kept.set([])
    try:
        yield
    finally:
        _kept.reset(token)

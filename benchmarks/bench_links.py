"""Reading links at N notes: every note of the Obsidian twin of a palace (bench_layouts'
`make_vault`) parsed as a load parses it (`parse_note`, then the layout's `adapt`) and its
links read (`Note.links`, as the link graph reads them), in CPU seconds, against the same
parse without reading the links (what a load does: links are read on first use), measured
in the same run (the floor: bytes already in memory, header and body read, no links). Two
vaults: as generated (about a fifth of the notes hold a markdown link), and the same notes
with a code span and a fenced block added to each (every note then needs CommonMark's block
rules). Target: within 1.5x of the floor.

    python benchmarks/bench_links.py --palace PALACE --notes N
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_layouts import make_vault
from benchutil import Row, main_for, row

TARGET_RATIO = 1.5
TYPES = ("user", "feedback", "project", "reference")
CODE = "\nRun `make test` first.\n\n```sh\necho [[not-a-link]]\n```\n"


def _files(root: Path, extra: str = "") -> list[tuple[str, bytes]]:
    return [
        (path.relative_to(root).as_posix(), path.read_bytes() + extra.encode())
        for path in sorted(root.rglob("*.md"))
    ]


def _reader(files: list[tuple[str, bytes]], links: bool = True) -> Callable[[], None]:
    from curator.model.layouts import get_layout
    from curator.model.layouts.frontmatter import adapt
    from curator.model.note import parse_note

    layout = get_layout("obsidian")

    def read() -> None:
        for rel, data in files:
            note = adapt(parse_note(rel, data, "note"), layout, TYPES)
            if links:
                note.links  # noqa: B018 (read on first use, as the link graph reads them)

    return read


def _cpu(fn: Callable[[], None], repeat: int) -> list[float]:
    """CPU seconds per call: the parse is one thread of pure Python, and CPU time holds on a
    machine shared with other work where wall-clock time does not."""
    out = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return out


def run(palace: Path, notes: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        make_vault(palace, vault)
        for label, extra in (("as generated", ""), ("code in every note", CODE)):
            files = _files(vault, extra)
            read, without = _reader(files), _reader(files, links=False)
            read()  # warm: imports, compiled patterns
            floor, full = [], []
            for _ in range(3):  # alternating, so a change of load hits both alike
                floor += _cpu(without, 1)
                full += _cpu(read, 1)
            floor_row = row("links", f"parse {notes} notes, no links ({label})", floor)
            rows.append(floor_row)
            rows.append(
                row(
                    "links",
                    f"parse {notes} notes with links ({label})",
                    full,
                    target_ms=floor_row.median_ms * TARGET_RATIO,
                    baseline="the same parse without links",
                    baseline_ms=floor_row.median_ms,
                )
            )
    return rows


if __name__ == "__main__":
    main_for(run)

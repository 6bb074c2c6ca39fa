"""A sync conflict settled by hand: the text a reviewer starts a merge from, and why a merged
text would be refused. The CLI's ``--merged PATH=FILE`` and the app's Conflicts view both
check a merge here; :func:`curator.writer.sync.sync` then commits it like any resolution.

The starting text is git's own three-way merge (``git merge-file``): the lines both sides
agree on once, each disagreement between conflict markers naming the two sides.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from curator.model.note import parse_note
from curator.writer.git import MERGE_LABELS, discover, merge3

if TYPE_CHECKING:
    from curator.writer.sync import Conflict

__all__ = ["MINE_LABEL", "THEIRS_LABEL", "merge_problems", "merge_start"]

MINE_LABEL = MERGE_LABELS[0]
THEIRS_LABEL = MERGE_LABELS[2]
# A conflict marker git writes, in every conflictStyle (merge, diff3, zdiff3): seven of <, |
# or > at the start of a line, alone or before a label. "=======" alone is a Markdown heading
# underline too, so it is never taken for one (a conflict always has a < or > line besides).
_MARKER = re.compile(rb"^(?:<{7}|\|{7}|>{7})(?: |\r?$)", re.MULTILINE)


def merge_start(root: Path | str, conflict: Conflict) -> bytes:
    """The text a hand merge of `conflict` starts from: both sides merged by git, each part
    they disagree on between conflict markers; the one side there is when the other removed
    the file."""
    mine, theirs = conflict.mine_text, conflict.theirs_text
    if mine is None or theirs is None:
        return mine if mine is not None else theirs or b""
    merged = merge3(discover(Path(root)), mine, conflict.base or b"", theirs)
    return mine if merged is None else merged[0]


def merge_problems(path: str, data: bytes) -> list[str]:
    """Why `data` cannot settle the conflict on `path` ([] when it can): conflict markers
    left in it, or (for a Markdown note) a header that does not parse."""
    problems: list[str] = []
    found = _MARKER.search(data)
    if found is not None:
        line = data.count(b"\n", 0, found.start()) + 1
        problems.append(
            f"line {line}: a conflict marker is left ({found.group().decode().strip()}); "
            "keep the text you want between the markers and remove the marker lines"
        )
    if path.endswith(".md"):
        note = parse_note(path, data)
        problems += [f.format() for f in note.problems if f.severity == "error"]
    return problems

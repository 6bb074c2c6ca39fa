"""Hostile notes: one generator per class of input that once crashed curator or cost it
quadratic time (issue 11). Used by the parsing tests, the hostile-palace benchmark row and
`python benchmarks/gen_hostile.py DIR N` (writes N hostile notes, cycling the classes).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

MIB = 1 << 20
HEAD = "---\nname: Hostile\ndescription: A hostile note.\ntype: project\n"


def _fill(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def spaces_in_line(size: int) -> bytes:
    return f"{HEAD}description2: a{_fill(' ', size)}b\n---\nbody\n".encode()


def tabs_in_line(size: int) -> bytes:
    return f"{HEAD}description2: a{_fill(chr(9), size)}b\n---\nbody\n".encode()


def spaces_before_colon(size: int) -> bytes:
    return f"{HEAD}key{_fill(' ', size)}x: 1\n---\nbody\n".encode()


def brackets_line(size: int) -> bytes:
    return f"{HEAD}---\n{_fill('[', size)}\n".encode()


def wiki_brackets_line(size: int) -> bytes:
    return f"{HEAD}---\n{_fill('[[', size)}\n".encode()


def backtick_runs(size: int) -> bytes:
    runs, length = [], 1
    while sum(len(r) for r in runs) < size:  # runs of many lengths, none closed
        runs.append("`" * length + "a")
        length += 1
    return f"{HEAD}---\n{''.join(reversed(runs))}\n".encode()


def many_links(size: int) -> bytes:
    return f"{HEAD}---\n{_fill('see [[a]] and [b](b.md)' + chr(10), size)}".encode()


def base60_int(size: int) -> bytes:
    return f"{HEAD}n: 1{_fill(':0', size)}\n---\nbody\n".encode()


def long_int(size: int) -> bytes:
    return f"{HEAD}n: {_fill('1', size)}\n---\nbody\n".encode()


def huge_float(size: int) -> bytes:
    return f"{HEAD}n: !!float 1{_fill('0', size)}\n---\nbody\n".encode()


def deep_flow(size: int) -> bytes:
    depth = size // 2
    return f"{HEAD}n: {'[' * depth}{']' * depth}\n---\nbody\n".encode()


def deep_block(size: int) -> bytes:
    depth = max(1, int((size * 2) ** 0.5) // 2)  # indentation grows: ~depth²/2 bytes
    lines = [" " * i + "-" for i in range(depth)]
    return (f"{HEAD}n:\n" + "\n".join(lines) + "\n---\nbody\n").encode()


def flat_list(size: int) -> bytes:
    return f"{HEAD}tags: [{_fill('a, ', size)}b]\n---\nbody\n".encode()


def control_chars(size: int) -> bytes:
    return f"{HEAD}a: x\x0bb: y\x1cc: z\n{_fill('k: v' + chr(10), size)}---\n".encode()


CLASSES: dict[str, Callable[[int], bytes]] = {
    "spaces-in-line": spaces_in_line,
    "tabs-in-line": tabs_in_line,
    "spaces-before-colon": spaces_before_colon,
    "brackets-line": brackets_line,
    "wiki-brackets-line": wiki_brackets_line,
    "backtick-runs": backtick_runs,
    "many-links": many_links,
    "base60-int": base60_int,
    "long-int": long_int,
    "huge-float": huge_float,
    "deep-flow": deep_flow,
    "deep-block": deep_block,
    "flat-list": flat_list,
    "control-chars": control_chars,
}


def hostile(index: int, size: int = MIB - 4096) -> tuple[str, bytes]:
    """The index-th hostile note (cycling the classes): (class name, file bytes)."""
    name = list(CLASSES)[index % len(CLASSES)]
    return name, CLASSES[name](size)


def main(argv: list[str]) -> int:
    folder, count = Path(argv[0]), int(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        name, data = hostile(i)
        (folder / f"hostile-{i:05d}-{name}.md").write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

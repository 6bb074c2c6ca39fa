"""Hostile notes: one generator per class of input that once crashed curator or cost it
quadratic time (issue 11). Used by the parsing tests (tests/test_parse_hostile.py), by a
hostile-palace benchmark row (`write_hostile`), and from the command line:
`python benchmarks/gen_hostile.py DIR N` writes N hostile notes (cycling the classes);
`python benchmarks/gen_hostile.py --bench N` times N plain and N hostile notes in-process.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

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
    runs: list[str] = []
    length = 1
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


def write_hostile(folder: Path, count: int, size: int = MIB - 4096) -> list[Path]:
    """`count` hostile notes in `folder`, cycling the classes (each class generated once)."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {name: make(size) for name, make in CLASSES.items()}
    paths = []
    for i in range(count):
        name = list(CLASSES)[i % len(CLASSES)]
        path = folder / f"hostile-{i:05d}-{name}.md"
        path.write_bytes(made[name])
        paths.append(path)
    return paths


def _parse_all(paths: list[Path]) -> list[float]:
    from curator.model.note import parse_note

    times = []
    for path in paths:
        start = time.perf_counter()
        parse_note(path.name, path.read_bytes())
        times.append(time.perf_counter() - start)
    return times


def _floor(paths: list[Path]) -> list[float]:
    """Read every file and parse its header with PyYAML's C loader (nothing else)."""
    times = []
    for path in paths:
        start = time.perf_counter()
        text = path.read_bytes().decode("utf-8")
        yaml.load(text.split("---\n", 2)[1], Loader=yaml.CSafeLoader)
        times.append(time.perf_counter() - start)
    return times


def _palace_open(root: Path) -> list[float]:
    """One cold load of the whole palace (no cache), as one figure."""
    from curator.model.palace import Palace

    start = time.perf_counter()
    Palace.open(root, cache=False)
    return [time.perf_counter() - start]


def bench(count: int) -> None:
    """Parse `count` plain notes and `count` hostile ones in-process, and load a palace of
    each; print medians (per file) and totals."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gen_palace import generate

    with tempfile.TemporaryDirectory() as tmp:
        plain_root, hostile_root = Path(tmp, "plain"), Path(tmp, "hostile")
        generate(plain_root, notes=count, drafts=0)
        plain = sorted(Path(plain_root, "notes").rglob("*.md"))[:count]
        hostile_root.mkdir()
        (hostile_root / "palace.toml").write_bytes((plain_root / "palace.toml").read_bytes())
        hostile = write_hostile(hostile_root / "notes" / "project", count)
        rows = {
            "plain: parse_note": _parse_all(plain),
            "plain: floor (read + yaml.load CSafeLoader)": _floor(plain),
            "hostile: parse_note": _parse_all(hostile),
            "plain palace: Palace.open(cache=False)": _palace_open(plain_root),
            "hostile palace: Palace.open(cache=False)": _palace_open(hostile_root),
        }
    for label, times in rows.items():
        print(
            f"{label:45s} files={len(times):5d} median={statistics.median(times) * 1e3:8.3f} ms"
            f"  max={max(times) * 1e3:8.1f} ms  total={sum(times):7.2f} s"
        )
    by_class: dict[str, list[float]] = {}
    for i, seconds in enumerate(rows["hostile: parse_note"]):
        by_class.setdefault(list(CLASSES)[i % len(CLASSES)], []).append(seconds)
    for name, times in by_class.items():
        print(f"  hostile {name:22s} median={statistics.median(times) * 1e3:8.2f} ms")


def main(argv: list[str]) -> int:
    """`gen_hostile.py DIR N` writes N hostile notes; `gen_hostile.py --bench N` times them."""
    if argv[0] == "--bench":
        bench(int(argv[1]))
        return 0
    write_hostile(Path(argv[0]), int(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Another tool's layout at N notes: first open and `curator check` of an Obsidian-style vault
against the same figures on the curator-layout palace it was made from (target: within 1.5x).

The vault holds the palace's notes, bodies and links unchanged, in the same folders, with
Obsidian's frontmatter instead of curator's (tags, and the name as an alias; about a tenth of
the notes with no frontmatter at all), an embedded attachment in one note of twenty, a
heading link and a block id in one of ten, and `.obsidian/`. Both figures are measured in the
same run.

A second row times what a new user runs on that vault, `curator init --adopt`, `curator check`
and the first `curator search` (which builds the index), each its own process, against the
reindex floor of the same notes: one `curator reindex` process (read, parse, embed, LanceDB
write and full-text index) on the adopted vault with no cache. Target: within 2x of the floor,
and no process over 500 MB.

    python benchmarks/bench_layouts.py --palace PALACE --notes N
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchutil import Row, main_for, row, timed

TARGET_RATIO = 1.5
ADOPT_RATIO = 2.0
ADOPT_PEAK_MB = 500
_WIKI = re.compile(r"\[\[([^\]|#]+)")


def _split(text: str) -> tuple[dict[str, str], str]:
    """(top-level header lines by key, body) of a generated note (one value a line)."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text
    header: dict[str, str] = {}
    for line in text[4:end].splitlines():
        if line[:1].isalpha() and ":" in line:
            key, _, value = line.partition(":")
            header[key.strip()] = value.strip()
    return header, text[end + 5 :]


def make_vault(palace: Path, out: Path, *, write_config: bool = True) -> int:
    """Write the Obsidian-style twin of `palace` into `out`; the number of notes written."""
    (out / ".obsidian").mkdir(parents=True)
    (out / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "attachments"}\n')
    (out / "attachments").mkdir()
    notes = sorted((palace / "notes").rglob("*.md"))
    texts = [path.read_text(encoding="utf-8") for path in notes]
    linked = {m.casefold() for text in texts for m in _WIKI.findall(text)}
    count = 0
    for number, (path, text) in enumerate(zip(notes, texts, strict=True)):
        header, body = _split(text)
        rel = path.relative_to(palace / "notes").as_posix()  # same folders: md links still work
        extra = ""
        if number % 20 == 0:
            (out / "attachments" / f"figure-{number}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
            extra += f"\n![[figure-{number}.png]]\n"
        if number % 10 == 0:
            extra += f"\n## Details\n\nSee [[{rel[:-3]}#Details]]. ^b{number}\n"
        name = header.get("name", path.stem).strip("'\"")
        if number % 10 == 5 and name.casefold() not in linked:
            text = body + extra  # no frontmatter: its name is its file name
        else:
            tags = header.get("tags", "[]")
            text = f"---\ntags: {tags}\naliases: [{name!r}]\n---\n{body}{extra}"
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        count += 1
    if write_config:
        (out / "palace.toml").write_text('[palace]\nlayout = "obsidian"\n')
        (out / ".gitignore").write_text("inbox/\n.curator/\n")
    # dated like the palace's files: a file written seconds ago is re-read on every load (the
    # cache trusts only files older than its racy window), which no real vault pays
    past = time.time() - 3600
    for path in out.rglob("*"):
        os.utime(path, (past, past))
    return count


def _clear_cache(root: Path) -> None:
    """No cache anywhere: the palace's own state and the user cache folder (set per run)."""
    shutil.rmtree(root / ".curator", ignore_errors=True)
    shutil.rmtree(os.environ["CURATOR_CACHE_HOME"], ignore_errors=True)


def _median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


def _measure(root: Path) -> tuple[list[float], list[float], int]:
    from curator.model.check import run_checks
    from curator.model.palace import Palace

    first = timed(lambda: Palace.open(root), 5, setup=lambda: _clear_cache(root))
    Palace.open(root)  # the cache a later check starts from

    def check() -> None:
        run_checks(Palace.open(root))

    checked = timed(check, 5)
    return first, checked, len(Palace.open(root).notes)


def _curator(*args: str, env: dict[str, str]) -> float:
    """Wall-clock seconds of one `curator` process (it must exit 0 or 1: check's findings)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "curator", *args], env=env, capture_output=True, text=True
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"curator {args[0:3]} exited {proc.returncode}: {proc.stderr[-500:]}")
    return time.perf_counter() - start


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def adopt_rows(palace: Path, notes: int, tmp: Path) -> list[Row]:
    """adopt + first check + first search against one reindex of the same notes."""
    env = {**os.environ, "CURATOR_CACHE_HOME": str(tmp / "adopt-cache")}
    repeat = 3 if notes <= 2000 else 1  # a 10k first build takes about a minute
    pipeline, floor = [], []
    for run_number in range(repeat):
        vault = tmp / f"adopt-{run_number}"
        made = make_vault(palace, vault, write_config=False)
        start = time.perf_counter()
        _curator("init", "--adopt", str(vault), "--yes", env=env)
        _curator("--palace", str(vault), "check", "--quiet", env=env)
        _curator("--palace", str(vault), "search", "retry queue", env=env)
        pipeline.append(time.perf_counter() - start)
    peak = _children_peak_mb()  # the largest of those processes (git's are smaller)
    for run_number in range(repeat):
        vault = tmp / f"adopt-{run_number}"
        shutil.rmtree(vault / ".curator", ignore_errors=True)
        shutil.rmtree(env["CURATOR_CACHE_HOME"], ignore_errors=True)
        floor.append(_curator("--palace", str(vault), "reindex", env=env))
    base_ms = _median_ms(floor)
    return [
        row(
            "layouts",
            "obsidian vault: adopt + first check + first search (3 processes)",
            pipeline,
            target_ms=ADOPT_RATIO * base_ms,
            baseline="curator reindex of the same notes, no cache, same run",
            baseline_ms=base_ms,
            note=f"{made} notes; peak {peak:.0f} MB (target {ADOPT_PEAK_MB}); "
            f"target: within {ADOPT_RATIO}x",
        )
    ]


def run(palace: Path, notes: int) -> list[Row]:
    palace = palace.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-layouts-") as tmp:
        os.environ["CURATOR_CACHE_HOME"] = str(Path(tmp) / "cache")  # cleared for "first open"
        vault = Path(tmp) / "vault"
        made = make_vault(palace, vault)
        base_first, base_check, base_notes = _measure(palace)
        first, checked, loaded = _measure(vault)
        adopted = adopt_rows(palace, notes, Path(tmp))
    if not made or loaded != made or base_notes != made:
        raise RuntimeError(f"vault loaded {loaded} of {made} notes (palace: {base_notes})")
    rows = []
    for metric, seconds, baseline in (
        ("obsidian vault: first open (no cache)", first, base_first),
        ("obsidian vault: curator check", checked, base_check),
    ):
        base_ms = _median_ms(baseline)
        rows.append(
            row(
                "layouts",
                metric,
                seconds,
                target_ms=TARGET_RATIO * base_ms,
                baseline="the same notes in curator's own layout, same run",
                baseline_ms=base_ms,
                note=f"{made} notes; target: within {TARGET_RATIO}x",
            )
        )
    return rows + adopted


if __name__ == "__main__":
    main_for(run)

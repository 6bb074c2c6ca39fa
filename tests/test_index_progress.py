"""The first index build reports notes embedded / total on stderr (the app's progress bar
reads the same count, from `curator.search.progress`)."""

from __future__ import annotations

from pathlib import Path

from palacehelpers import RunCli


def vault(root: Path, count: int) -> Path:
    root.mkdir()
    for i in range(count):
        (root / f"Note {i}.md").write_text(
            f"# Note {i}\n\nAbout topic {i % 7}, see [[Note {i + 1}]].\n"
        )
    (root / "palace.toml").write_text(
        '[palace]\nlayout = "obsidian"\n\n[index]\nembedder = "hash"\ndim = 64\n'
    )
    return root


def test_first_search_shows_progress_then_later_ones_do_not(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = vault(tmp_path / "v", 1200)
    code, _, err = run_cli("--palace", root, "search", "topic")
    assert code == 0, err
    lines = [line for line in err.splitlines() if "indexing:" in line]
    assert lines[0] == "curator: indexing: 500/1200 notes embedded"
    assert lines[-1] == "curator: indexing: 1200/1200 notes embedded"
    code, _, err = run_cli("--palace", root, "search", "topic")
    assert code == 0 and "indexing:" not in err  # nothing left to embed


def test_reindex_shows_progress(tmp_path: Path, run_cli: RunCli) -> None:
    root = vault(tmp_path / "v", 100)
    code, _, err = run_cli("--palace", root, "reindex")
    assert code == 0, err
    assert err.splitlines()[-1] == "curator: indexing: 100/100 notes embedded"

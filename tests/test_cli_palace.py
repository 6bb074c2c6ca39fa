"""`curator list` and `curator show` on real palaces; `python -m curator` as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, note_text

FILES = {
    "notes/user/maya.md": note_text("Maya", type="user", body="[[stale-fact]]\n"),
    "notes/project/stale-fact.md": note_text(
        "Stale fact",
        extra="scope: app\nstale:\n  reason: moved\n  since: 2026-11-01\n",
        body="[[maya]] and [[old-fact]]\n",
    ),
    "notes/project/old-fact.md": note_text(
        "Old fact", extra="status: superseded\nsuperseded_by: stale-fact\n", body="[[maya]]\n"
    ),
    "notes/reference/docs.md": note_text("Docs", type="reference", body="[[maya]]\n"),
    "notes/reference/twin.md": note_text("Twin A", type="reference", body="[[docs]]\n"),
    "notes/project/twin.md": note_text("Twin B", body="[[docs]]\n"),
    "inbox/idea.md": note_text("Idea", body="[[maya]]\n"),
}
TOML = '[palace]\nname = "cli"\n[scopes.app]\nroot = "app"\n'


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    return make_palace(FILES, toml=TOML)


def listed(run_cli: RunCli, root: Path, *args: str) -> list[str]:
    rc, out, err = run_cli("--palace", root, "list", "--json", *args)
    assert rc == 0, err
    return [n["path"] for n in json.loads(out)["notes"]]


def test_list_filters(run_cli: RunCli, root: Path) -> None:
    everything = [p for p in sorted(FILES) if p.startswith("notes/")]
    assert listed(run_cli, root) == everything
    assert listed(run_cli, root, "--type", "reference") == [
        "notes/reference/docs.md",
        "notes/reference/twin.md",
    ]
    assert listed(run_cli, root, "--type", "user", "--type", "reference") == [
        "notes/reference/docs.md",
        "notes/reference/twin.md",
        "notes/user/maya.md",
    ]
    assert listed(run_cli, root, "--status", "superseded") == ["notes/project/old-fact.md"]
    assert listed(run_cli, root, "--status", "draft") == ["inbox/idea.md"]
    assert "inbox/idea.md" in listed(run_cli, root, "--drafts")
    assert listed(run_cli, root, "--scope", "app") == ["notes/project/stale-fact.md"]
    assert listed(run_cli, root, "--stale") == ["notes/project/stale-fact.md"]
    assert listed(run_cli, root, "--type", "feedback") == []


def test_list_json_fields(run_cli: RunCli, root: Path) -> None:
    _, out, _ = run_cli("--palace", root, "list", "--json", "--stale")
    data = json.loads(out)
    (note,) = data["notes"]
    assert note["name"] == "Stale fact" and note["type"] == "project" and note["scope"] == "app"
    assert note["stale"] == {"reason": "moved", "since": "2026-11-01"}
    assert "stale" in note["flags"] and note["confidence"] == 0.8 and note["ok"] is True
    assert data["problems"] == []


def test_list_human_output(run_cli: RunCli, root: Path) -> None:
    rc, out, err = run_cli("--palace", root, "list", "--stale")
    assert rc == 0
    assert out.split() == [
        "project",
        "0.80",
        "Stale",
        "fact",
        "notes/project/stale-fact.md",
        "[stale]",
    ]
    assert err == "1 notes\n"


def test_show_by_slug_name_and_path(run_cli: RunCli, root: Path) -> None:
    for ref in (
        "stale-fact",
        "Stale fact",
        "STALE FACT",
        "notes/project/stale-fact.md",
        str(root / "notes/project/stale-fact.md"),
    ):
        rc, out, err = run_cli("--palace", root, "show", ref)
        assert rc == 0, (ref, err)
        assert out.startswith(
            "notes/project/stale-fact.md\n  flags: stale\n---\nname: Stale fact\n"
        )
        assert "  -> notes/user/maya.md  (line 10)" in out
        assert "Backlinks:\n  <- notes/user/maya.md  (line 6)\n" in out
        chain = "Supersede chain (oldest first):\n    notes/project/old-fact.md\n  * notes/project/"
        assert chain + "stale-fact.md\n" in out


def test_show_json(run_cli: RunCli, root: Path) -> None:
    rc, out, _ = run_cli("--palace", root, "show", "old-fact", "--json")
    data = json.loads(out)
    assert rc == 0
    assert data["header"]["superseded_by"] == "stale-fact"
    assert data["chain"] == ["notes/project/old-fact.md", "notes/project/stale-fact.md"]
    assert data["links"] == [
        {"target": "maya", "resolved": "notes/user/maya.md", "line": 8, "problem": None},
    ]
    assert data["backlinks"] == [{"source": "notes/project/stale-fact.md", "line": 10}]


def test_show_draft(run_cli: RunCli, root: Path) -> None:
    rc, out, _ = run_cli("--palace", root, "show", "idea")
    assert rc == 0 and out.startswith("inbox/idea.md\n")


@pytest.mark.parametrize(
    ("ref", "words"),
    [
        (
            "twin",
            "matches more than one note or draft: notes/project/twin.md, notes/reference/twin.md",
        ),
        ("no-such-note", "no note or draft matches 'no-such-note'"),
        ("notes/project/nope.md", "no note or draft matches"),
    ],
)
def test_show_ambiguous_or_missing(run_cli: RunCli, root: Path, ref: str, words: str) -> None:
    rc, out, err = run_cli("--palace", root, "show", ref)
    assert rc == 2 and out == ""
    assert err.startswith("curator: error: ") and words in err
    assert "Traceback" not in err


def test_show_prints_no_escape_bytes(make_palace: MakePalace, run_cli: RunCli) -> None:
    hostile = (
        "---\n"
        'name: "Red \\e[31mname\\e[0m"\n'
        "description: Innocent.\n"
        "type: project\n"
        "---\n"
        "Body \x1b]0;pwned title\x07 and \x1b]8;;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\\n"
        "CSI \x1b[2J clear, DCS \x1bPq#0;2\x1b\\ end, C1 \x9b31m, bidi \u202eevil\u202c.\n"
    )
    root = make_palace({"notes/project/hostile.md": hostile})
    for args in (("show", "hostile"), ("show", "hostile", "--json"), ("list",), ("check",)):
        _, out, err = run_cli("--palace", root, *args)
        assert "\x1b" not in out + err, args
        assert "\x9b" not in out + err and "\x07" not in out + err
    _, out, _ = run_cli("--palace", root, "show", "hostile")
    assert "<RLO>evil<PDF>" in out and "click" in out
    assert "pwned title" not in out
    # JSON keeps the data (escaped as \u001b, \u009b, \u202e), never the raw bytes
    _, out, _ = run_cli("--palace", root, "show", "hostile", "--json")
    assert "\u202e" not in out and "\\u202e" in out
    data = json.loads(out)
    assert data["name"] == "Red \x1b[31mname\x1b[0m"
    assert "\x9b31m" in data["body"]


def test_unknown_command_and_bad_flag_exit_2(run_cli: RunCli, root: Path) -> None:
    assert run_cli("--palace", root, "list", "--status", "bogus")[0] == 2
    assert run_cli("--palace", root, "nonsense")[0] == 2


def test_python_dash_m_curator(root: Path, isolated_env: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "--palace", str(root), "list", "--json"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=root.parent,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["notes"]) == 6
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "show", "nowhere"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=root,
    )
    assert proc.returncode == 2 and "no note or draft matches" in proc.stderr


def test_closed_pipe_is_not_a_traceback(root: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before curator writes a byte (`| head -0`)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "curator", "--palace", str(root), "show", "stale-fact"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 0


def test_list_takes_searchs_filter_flags_and_its_visibility(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    files = {
        **FILES,
        "notes/user/secret.md": note_text("Secret", type="user", extra="sensitive: true\n"),
        "notes/user/vault.md": note_text("Vault", type="user", extra="scope: private\n"),
    }
    toml = TOML + '[scopes.private]\nroot = "app"\nsensitive = true\n'
    root = make_palace(files, toml=toml)
    shown = listed(run_cli, root, "--type", "user")
    assert shown == ["notes/user/maya.md"]
    rc, _, err = run_cli("--palace", root, "list", "--type", "user")
    assert rc == 0 and "2 sensitive not shown (--include-sensitive)" in err
    assert listed(run_cli, root, "--type", "user", "--include-sensitive") == [
        "notes/user/maya.md",
        "notes/user/secret.md",
        "notes/user/vault.md",
    ]
    # repeatable like search's: any of the statuses
    assert sorted(listed(run_cli, root, "--status", "superseded", "--status", "draft")) == [
        "inbox/idea.md",
        "notes/project/old-fact.md",
    ]
    assert "notes/project/stale-fact.md" not in listed(run_cli, root, "--not-stale")
    rc, _, err = run_cli("--palace", root, "list", "--status", "bogus")
    assert rc == 2 and "unknown status 'bogus' (known: active, superseded" in err


def test_a_near_miss_says_did_you_mean(sample_palace: Path, run_cli: RunCli) -> None:
    code, _, err = run_cli("--palace", sample_palace, "show", "never-force")
    assert code == 2 and "did you mean never-force-push-main?" in err
    code, _, err = run_cli("--palace", sample_palace, "show", "zzzzqqq")
    assert code == 2 and "did you mean" not in err

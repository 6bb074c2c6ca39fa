"""Parsing notes: bad input gives a clear per-file finding, never a crash or a rewrite."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, note_text
from yamlref import compare

from curator.model.note import BOM, MAX_BYTES, parse_note
from curator.model.palace import Palace

HEAD = "---\nname: Bad one\ndescription: A bad note.\ntype: project\n"

BILLION_LAUGHS = (
    "---\n"
    "name: lol\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "description: *i\n"
    "type: project\n"
    "---\n"
)

# (id, file bytes, finding code, finding line, severity, header parsed)
BAD = [
    ("malformed", b"---\nname: A\ndescription: d: e\ntype: project\n---\n", "header.yaml", 3),
    ("unclosed-flow", b"---\nname: A\ntags: [a, b\n---\nbody\n", "header.yaml", 0),
    ("header-list", b"---\n- name\n- type\n---\nbody\n", "header.yaml", 2),
    ("header-scalar", b"---\njust some words\n---\nbody\n", "header.yaml", 2),
    ("key-on", (HEAD + "on: push\n---\nbody\n").encode(), "header.yaml", 5),
    ("key-int", (HEAD + "1: one\n---\nbody\n").encode(), "header.yaml", 5),
    ("key-null", (HEAD + "~: x\n---\nbody\n").encode(), "header.yaml", 5),
    ("duplicate", (HEAD + "name: Again\n---\nbody\n").encode(), "header.yaml", 5),
    ("alias", b"---\nname: &n A\ndescription: d\ntype: project\nalso: *n\n---\n", "header.yaml", 5),
    ("merge-key", b"---\nbase: &b {x: 1}\nname: A\nm:\n  <<: *b\n---\n", "header.yaml", 5),
    ("billion-laughs", BILLION_LAUGHS.encode(), "header.yaml", 12),  # `description: *i`
    ("not-utf8", (HEAD + "source: caf").encode() + b"\xe9\n---\n", "file.encoding", 5),
    ("empty", b"", "file.empty", 0),
    ("whitespace-only", b"  \n\n", "file.empty", 0),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "file.binary", 0),
    ("too-large", (HEAD + "---\n").encode() + b"x" * MAX_BYTES, "file.too-large", 0),
    ("no-header", b"# Just markdown\n", "header.missing", 1),
    ("unclosed-header", HEAD.encode() + b"body without a fence\n", "header.unclosed", 1),
]


@pytest.mark.parametrize(
    ("data", "code", "line"), [pytest.param(d, c, ln, id=i) for i, d, c, ln in BAD]
)
def test_bad_file_is_one_finding(data: bytes, code: str, line: int) -> None:
    note = parse_note("notes/project/bad.md", data)
    assert not note.ok
    assert note.header == {}
    assert [f.code for f in note.problems] == [code]
    finding = note.problems[0]
    assert finding.path == "notes/project/bad.md"
    assert finding.severity == "error"
    assert finding.message
    if line:
        assert finding.line == line, finding


def test_billion_laughs_is_refused_quickly() -> None:
    note = parse_note("notes/lol.md", BILLION_LAUGHS.encode())
    assert "alias" in note.problems[0].message


def test_unused_anchor_is_harmless() -> None:
    note = parse_note("n.md", b"---\nname: &n A\ndescription: d\ntype: project\n---\n")
    assert note.ok and note.header["name"] == "A"


@pytest.mark.parametrize("key", ["content", "handler"])
def test_frontmatter_reserved_keys_load(key: str) -> None:
    note = parse_note("n.md", (HEAD + f"{key}: x\n---\nbody\n").encode())
    assert note.ok and note.header[key] == "x"


def test_bom_and_crlf_parse() -> None:
    data = BOM + HEAD.replace("\n", "\r\n").encode() + b"---\r\nbody\r\n"
    note = parse_note("notes/x.md", data)
    assert note.ok and note.bom and note.newline == "\r\n"
    assert note.header == {"name": "Bad one", "description": "A bad note.", "type": "project"}
    assert note.body == "body\r\n"
    assert [(f.code, f.severity, f.line) for f in note.problems] == [("file.bom", "warning", 1)]
    assert note.key_lines == {"name": 2, "description": 3, "type": 4}


def test_dates_are_kept_as_written() -> None:
    data = (
        HEAD + "created: 2026-03-04\nreviewed: 2026-03-04T10:20:00Z\n"
        "stale:\n  reason: r\n  since: 2026-01-02\n---\n"
    ).encode()
    note = parse_note("n.md", data)
    assert note.header["created"] == "2026-03-04"
    assert note.header["reviewed"] == "2026-03-04T10:20:00Z"
    assert note.created == "2026-03-04"
    assert note.stale == {"reason": "r", "since": "2026-01-02"}


def test_header_values_and_lines() -> None:
    data = (
        b"---\nname: Money\ndescription: Cents.\ntype: feedback\nconfidence: 1\n"
        b"tags: [a, b]\nsupersedes: old-money\nstatus: superseded\nsuperseded_by: new\n"
        b"sensitive: true\n---\nSee [[other]].\n"
    )
    note = parse_note("notes/feedback/money.md", data)
    assert note.slug == "money" and note.name == "Money" and note.type == "feedback"
    assert note.confidence == 1.0 and note.tags == ["a", "b"]
    assert note.supersedes == ["old-money"] and note.superseded and note.sensitive
    assert note.line_of("superseded_by") == 9
    assert note.body_line == 12
    assert [(link.target, link.line) for link in note.links] == [("other", 12)]


# -- a bad file inside a palace -------------------------------------------------------------

GOOD = {
    "notes/project/alpha.md": note_text("Alpha", body="See [[beta]].\n"),
    "notes/project/beta.md": note_text("Beta", body="See [[alpha]].\n"),
}

PALACE_BAD = [(i, d, c, ln) for i, d, c, ln in BAD if i not in ("too-large",)] + [
    ("bom", BOM + note_text("Bommed", body="[[alpha]]\n").encode(), "file.bom", 1),
    ("crlf", note_text("Crlf", body="[[alpha]]\n").replace("\n", "\r\n").encode(), "", 0),
    ("content-key", (HEAD + "content: x\n---\n[[alpha]]\n").encode(), "header.reserved", 5),
    ("handler-key", (HEAD + "handler: x\n---\n[[alpha]]\n").encode(), "header.reserved", 5),
]


@pytest.mark.parametrize(
    ("data", "code", "line"), [pytest.param(d, c, ln, id=i) for i, d, c, ln in PALACE_BAD]
)
def test_bad_file_in_palace(
    make_palace: MakePalace, run_cli: RunCli, data: bytes, code: str, line: int
) -> None:
    rel = "notes/project/bad.md"
    root = make_palace({**GOOD, rel: data}, commit=False)  # no git needed: reads only
    path = root / rel
    before = path.read_bytes()
    stat = path.stat()

    palace = Palace.open(root)
    assert {"notes/project/alpha.md", "notes/project/beta.md"} <= {n.rel for n in palace.notes}
    assert all(palace.by_rel[r].ok for r in GOOD)

    rc, stdout, _ = run_cli("--palace", root, "check", "--json")
    report = json.loads(stdout)
    mine = [f for f in report["findings"] if f["path"] == rel]
    assert report["notes"] == 3
    if code:
        hit = [f for f in mine if f["code"] == code]
        assert hit, mine
        if line:
            assert hit[0]["line"] == line
    others = {f["path"] for f in report["findings"] if f["severity"] == "error"}
    assert others <= {rel, "INDEX.md"}

    rc_h, out_h, _ = run_cli("--palace", root, "check")
    if code and code != "file.bom":
        assert rc_h == 1
        shown = f"{rel}:{line}:" if line else f"{rel}:"
        assert any(ln.startswith(shown) and code in ln for ln in out_h.splitlines()), out_h

    rc, stdout, stderr = run_cli("--palace", root, "list", "--json")
    assert rc == 0
    listed = json.loads(stdout)
    assert {n["path"] for n in listed["notes"]} == set(GOOD) | {rel}
    if code.startswith(("file.", "header.")) and code not in ("file.bom", "header.reserved"):
        assert [p["code"] for p in listed["problems"] if p["path"] == rel] == [code]
        rc, _, stderr = run_cli("--palace", root, "list")
        assert rel in stderr and "unreadable" in stderr

    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


def test_bad_file_unchanged_by_curator_index(make_palace: MakePalace, run_cli: RunCli) -> None:
    rel = "notes/project/bad.md"
    root = make_palace({**GOOD, rel: b"---\nname: [\n---\n"})
    before = (root / rel).read_bytes()
    rc, _, stderr = run_cli("--palace", root, "index", "--yes")
    assert rc == 0, stderr
    assert (root / rel).read_bytes() == before
    assert "notes/project/bad.md" in (root / "INDEX.md").read_text()


def test_too_large_file_in_palace(make_palace: MakePalace, run_cli: RunCli) -> None:
    rel = "notes/project/huge.md"
    root = make_palace(GOOD)
    (root / rel).write_bytes((HEAD + "---\n").encode() + b"x" * (MAX_BYTES + 10))
    palace = Palace.open(root)
    huge = palace.by_rel[rel]
    assert [f.code for f in huge.problems] == ["file.too-large"]
    assert all(palace.by_rel[r].ok for r in GOOD)
    rc, stdout, _ = run_cli("--palace", root, "check")
    assert rc == 1 and f"{rel}: error:" in stdout


def test_symlink_outside_palace_is_not_read(
    make_palace: MakePalace, run_cli: RunCli, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(note_text("Secret", body="TOP-SECRET-CONTENT\n"))
    root = make_palace(GOOD, commit=False)
    os.symlink(secret, root / "notes" / "project" / "leak.md")
    inside = root / "notes" / "project" / "alias.md"
    os.symlink(root / "notes" / "project" / "alpha.md", inside)

    palace = Palace.open(root)
    assert "notes/project/leak.md" not in palace.by_rel
    assert "notes/project/alias.md" in palace.by_rel  # a link inside the palace is fine
    finding = next(f for f in palace.problems if f.path == "notes/project/leak.md")
    assert finding.code == "file.symlink-outside" and finding.severity == "error"

    rc, stdout, _ = run_cli("--palace", root, "check")
    assert rc == 1
    assert "notes/project/leak.md: error:" in stdout
    assert "TOP-SECRET-CONTENT" not in stdout
    rc, stdout, stderr = run_cli("--palace", root, "list")
    assert "notes/project/leak.md" in stderr and "TOP-SECRET" not in stdout + stderr
    rc, stdout, stderr = run_cli("--palace", root, "show", "notes/project/leak.md")
    assert rc == 2 and "TOP-SECRET" not in stdout


# -- headers read as libyaml reads them ------------------------------------------------------
ATOMS = [
    *("a", "b c", "1", "1.5", "0x1F", "0o17", "true", "yes", "on", "null", "~", "2026-01-01"),
    *("2026-01-01T10:00:00Z", "a:b", "a#b", "-1", ".5", "1e3", "1_000", "'q'", '"d"', "NaN"),
    *(".inf", "=", "<<", "12:30", "0b101", "0777", "09", "a,b", "", "'a: b'", "!!str 1", "Yes"),
    *("é", "a  b", "1.0.0", ":a", "a:", "a\\b", "0.", "-0", "&x", "*x", "a # c", "[x]", "@a"),
    *("-q", "-x.y", "?x", "--", "-", "- a", '"a: b"', "'it''s'", '"a\\"b"', "a: b", "{}", "[]"),
]
KEYS = ["name", "description", "x1", "a_b", "a.b", "a-b", "y", "on", "yes", "null", "True", "k"]


def flow_atom(rng: random.Random, depth: int = 0) -> str:
    """A scalar, or (sometimes) a nested flow list or map, like verify: {paths: [a], ...}."""
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return "[" + ", ".join(flow_atom(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if depth < 2 and roll < 0.3:
        pairs = (f"{rng.choice(KEYS)}: {flow_atom(rng, depth + 1)}" for _ in range(2))
        return "{" + ", ".join(pairs) + "}"
    return rng.choice(ATOMS)


def random_header(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 5)):
        key, roll = rng.choice(KEYS), rng.random()
        if roll < 0.55:
            lines.append(f"{key}: {rng.choice(ATOMS)}")
        elif roll < 0.7:
            items = ", ".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 3)))
            lines.append(f"{key}: [{items}]")
        elif roll < 0.8:
            pairs = ", ".join(f"{rng.choice(KEYS)}: {flow_atom(rng)}" for _ in range(3))
            lines.append(f"{key}: {{{pairs}}}")
        else:
            lines.append(f"{key}:")
            indent = " " * rng.choice([1, 2, 4])
            for _ in range(rng.randint(0, 3)):
                item = rng.choice(ATOMS)
                lines.append(
                    f"{indent}- {item}" if roll < 0.9 else f"{indent}{rng.choice(KEYS)}: {item}"
                )
        if rng.random() < 0.1:
            lines.append(rng.choice(["# comment", "", "  # indented comment"]))
    return "\n".join(lines) + "\n"


def test_headers_read_as_libyaml_reads_them() -> None:
    """Differential: every header curator reads, it reads as PyYAML's C loader does; every
    header it refuses is one of its stated refusals or one libyaml refuses too."""
    rng = random.Random(20261130)
    counts = Counter(compare(random_header(rng)) for _ in range(4000))
    assert counts["read"] > 500 and counts["refused"] > 300  # both, or it proves nothing


@pytest.mark.parametrize("folder", ["notes", "inbox"])
def test_symlinked_notes_folder_outside_is_not_read(
    make_palace: MakePalace, run_cli: RunCli, tmp_path: Path, folder: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(note_text("Secret", body="TOP-SECRET-CONTENT\n"))
    root = make_palace({}, commit=False)
    (root / folder).rmdir()
    os.symlink(outside, root / folder)
    palace = Palace.open(root)
    assert palace.all() == []
    assert [(f.path, f.code) for f in palace.problems] == [(folder, "file.symlink-outside")]
    _, out, err = run_cli("--palace", root, "list", "--drafts")
    assert "TOP-SECRET" not in out + err and "Secret" not in out


def test_symlinked_notes_folder_inside_is_read(make_palace: MakePalace) -> None:
    root = make_palace({"data/notes/project/a.md": note_text("A")}, commit=False)
    (root / "notes").rmdir()
    os.symlink("data/notes", root / "notes")
    palace = Palace.open(root)
    assert [n.rel for n in palace.notes] == ["notes/project/a.md"]
    assert palace.problems == []

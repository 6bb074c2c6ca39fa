"""curator capture: drafts written atomically and uniquely, searched, scanned, never hanging.

Real palaces in tmp_path and real processes (`python -m curator capture`).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from palacehelpers import run_main

from curator.model.note import DRAFT_BANNER, parse_note
from curator.model.similar import catalog, similar
from curator.writer.capture import CaptureError, capture, parse_source, slugify
from curator.writer.secrets import scan

NOW = datetime(2026, 11, 30, 14, 3, 0, tzinfo=UTC)
PY = sys.executable

TOML = textwrap.dedent(
    """\
    [palace]
    name = "capture test"
    taxonomy = "palace"

    [scopes.ledgerly]
    root = "."
    """
)


def _note(name: str, description: str, type: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {type}\n---\nBody.\n"


NOTES = {
    "notes/project/stripe-webhook-retries.md": _note(
        "Stripe retries failed webhooks for three days",
        "Live-mode webhook deliveries are retried with backoff for up to three days.",
        "reference",
    ),
    "notes/feedback/money-is-integer-cents.md": _note(
        "Money is integer cents, never floats", "Store amounts as integer cents.", "feedback"
    ),
    "notes/project/celery-queues.md": _note(
        "Celery has three queues", "default, pdf and dunning; each has its own worker."
    ),
    "notes/project/deploy-on-tags.md": _note(
        "Production deploys on version tags", "GitHub Actions deploys a v* tag to production."
    ),
}


@pytest.fixture
def palace(tmp_path: Path) -> Path:
    root = tmp_path / "palace"
    (root / "inbox").mkdir(parents=True)
    (root / "palace.toml").write_text(TOML)
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        ["git", "commit", "-q", "--no-verify", "-m", "initial"],
        cwd=root,
        check=True,
        env={**os.environ, **_git_identity()},
    )
    return root


def _git_identity() -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }


def inbox_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "inbox").iterdir())


def read_draft(root: Path, rel: str):  # type: ignore[no-untyped-def]
    return parse_note(rel, (root / rel).read_bytes(), "draft")


def run_capture(
    root: Path, *args: str, body: bytes | None = b"A body.\n", timeout: float = 30, **kw: object
) -> subprocess.CompletedProcess[bytes]:
    """`curator capture ARGS` with `body` on stdin, in this process (`run_main`); with a stdin
    of the test's own (a terminal, a pipe left open: `body` None) in a process of its own."""
    if body is not None and not kw:
        done = run_main(Path.cwd(), "--palace", str(root), "capture", *args, stdin=body)
        return subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout.encode(), done.stderr.encode()
        )
    argv = [PY, "-m", "curator", "--palace", str(root), "capture", *args]
    return subprocess.run(
        argv,
        input=body,
        capture_output=True,
        timeout=timeout,
        **kw,  # type: ignore[arg-type]
    )


# -- the draft -------------------------------------------------------------------------------------
def test_capture_writes_a_complete_draft(palace: Path) -> None:
    result = capture(
        palace,
        type="project",
        name="PDF worker needs 2 GiB",
        body="WeasyPrint peaks at 1.6 GiB on a 40-page invoice.\n",
        description="The pdf queue's worker\nis OOM-killed at 1 GiB.",
        source="session=s-1,run=r-9",
        scope="ledgerly",
        tags=["pdf", "workers", "pdf"],
        now=NOW,
    )
    assert result.path == "inbox/2026-11-30-pdf-worker-needs-2-gib.md"
    assert inbox_files(palace) == ["2026-11-30-pdf-worker-needs-2-gib.md"]
    note = read_draft(palace, result.path)
    assert note.ok, note.problems
    assert list(note.header)[:8] == [
        "name",
        "description",
        "type",
        "status",
        "created",
        "source",
        "scope",
        "tags",
    ]
    assert note.header["status"] == "draft"
    assert note.header["created"] == "2026-11-30T14:03:00Z"
    assert note.header["description"] == "The pdf queue's worker is OOM-killed at 1 GiB."
    assert note.header["source"] == {"session": "s-1", "run": "r-9"}
    assert note.header["scope"] == "ledgerly"
    assert note.header["tags"] == ["pdf", "workers"]
    assert "secret" not in note.header and "secrets" not in note.header
    assert note.body.startswith(DRAFT_BANNER + "\n\n")
    assert note.body.endswith("WeasyPrint peaks at 1.6 GiB on a 40-page invoice.\n")
    assert result.secrets == []


def test_created_comes_from_now_and_naive_now_is_utc(palace: Path) -> None:
    naive = datetime(2026, 1, 2, 3, 4, 5)
    result = capture(palace, type="user", name="Likes tea", body="Tea.\n", now=naive)
    assert result.path == "inbox/2026-01-02-likes-tea.md"
    assert read_draft(palace, result.path).header["created"] == "2026-01-02T03:04:05Z"


def test_source_without_equals_is_a_string() -> None:
    assert parse_source("claude-code hook") == "claude-code hook"
    assert parse_source("session=a, run = b") == {"session": "a", "run": "b"}
    assert parse_source("  ") is None
    with pytest.raises(CaptureError):
        parse_source("=x")


def test_slugify() -> None:
    assert slugify("Café: crème brûlée!") == "cafe-creme-brulee"
    assert slugify("日本語") == "draft"
    assert slugify("../../etc/passwd") == "etc-passwd"
    long = slugify("word " * 40)
    assert len(long) <= 60 and not long.endswith("-")


def test_same_name_five_times_gives_five_files(palace: Path) -> None:
    paths = [
        capture(palace, type="project", name="Same name", body=f"Body {i}.\n", now=NOW).path
        for i in range(5)
    ]
    assert paths == [
        "inbox/2026-11-30-same-name.md",
        "inbox/2026-11-30-same-name-2.md",
        "inbox/2026-11-30-same-name-3.md",
        "inbox/2026-11-30-same-name-4.md",
        "inbox/2026-11-30-same-name-5.md",
    ]
    bodies = {read_draft(palace, p).body.rsplit("\n\n", 1)[-1] for p in paths}
    assert bodies == {f"Body {i}.\n" for i in range(5)}


def test_never_overwrites_an_existing_file(palace: Path) -> None:
    taken = palace / "inbox" / "2026-11-30-same-name.md"
    taken.write_bytes(b"someone else's file\n")
    result = capture(palace, type="project", name="Same name", body="Mine.\n", now=NOW)
    assert result.path == "inbox/2026-11-30-same-name-2.md"
    assert taken.read_bytes() == b"someone else's file\n"


def test_no_temp_files_left_and_every_draft_parses(palace: Path) -> None:
    for i in range(3):
        capture(palace, type="project", name=f"Draft {i}", body="Body.\n", now=NOW)
    names = inbox_files(palace)
    assert len(names) == 3
    assert all(n.endswith(".md") and not n.startswith(".") for n in names)
    for name in names:
        note = read_draft(palace, f"inbox/{name}")
        assert note.ok and note.status == "draft" and note.header["created"]
        assert DRAFT_BANNER in note.body


def test_stale_temp_files_are_swept(palace: Path) -> None:
    stale = palace / "inbox" / ".curator-tmp-1abc"
    stale.write_text("half")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    fresh = palace / "inbox" / ".curator-tmp-2def"
    fresh.write_text("in flight")
    capture(palace, type="project", name="Sweep", body="Body.\n", now=NOW)
    assert not stale.exists()
    assert fresh.exists()  # another capture may be writing it right now


def test_body_is_stored_as_given(palace: Path) -> None:
    body = "---\nname: not a header\n---\n$(rm -rf /) `boom` \x1b[31mred\x1b[0m\r\nend"
    result = capture(palace, type="project", name="Odd body", body=body, now=NOW)
    note = read_draft(palace, result.path)
    assert note.ok and note.header["name"] == "Odd body"
    assert note.body == f"{DRAFT_BANNER}\n\n{body}\n"


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"type": "bogus"}, "unknown type 'bogus' (known: user, feedback, project, reference)"),
        ({"name": "  "}, "empty name"),
        ({"name": "two\nlines"}, "one line"),
        ({"body": "a\x00b"}, "NUL"),
        ({"body": " \n"}, "empty body"),
        ({"body": "x" * ((1 << 20) + 1)}, "over the 1 MiB limit"),
        ({"tags": [f"t{i}" for i in range(9)]}, "at most 8"),
        ({"scope": "nowhere"}, "unknown scope 'nowhere' (known: _global, ledgerly)"),
        ({"source": "a=1,=2"}, "bad --source"),
    ],
    ids=["type", "empty-name", "newline", "nul", "empty-body", "too-big", "tags", "scope", "src"],
)
def test_bad_input_is_refused_and_nothing_written(
    palace: Path, kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"type": "project", "name": "A name", "body": "Body.\n", **kwargs}
    with pytest.raises(CaptureError) as info:
        capture(palace, now=NOW, **args)  # type: ignore[arg-type]
    assert message in str(info.value)
    assert inbox_files(palace) == []


# -- secrets ---------------------------------------------------------------------------------------
SECRETS = {
    "aws-access-key-id": "AWS_ACCESS_KEY_ID=AKIAFAKEEXAMPLE00000",
    "aws-secret-access-key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "stripe-key": "STRIPE_KEY=sk_live_FAKEKEY0EXAMPLE0NOTREAL0",
    "github-token": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "slack-token": "hook token xoxb-1234567890-abcdefghij",
    "openai-key": 'OPENAI="sk-proj-abc123DEF456ghi789JKL012mno"',
    "anthropic-key": "sk-ant-api03-abcdefGHIJKL1234567890xyz",
    "google-api-key": "maps key AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "jwt": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl",
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END",
    "password-assignment": 'db_password = "Hunter2Hunter2"',
    "secret-assignment": "client_secret: 9f8e7d6c5b4a3F2E1D",
    "url-credentials": "DATABASE_URL=postgres://admin:S3cretPass@db.internal:5432/app",
}


@pytest.mark.parametrize(("kind", "text"), sorted(SECRETS.items()))
def test_scan_finds_each_kind(kind: str, text: str) -> None:
    hits = scan(f"Some prose first.\n\n{text}\n")
    assert [h.kind for h in hits] == [kind]
    assert hits[0].line == 3
    assert hits[0].preview.endswith("…") or kind == "private-key"
    assert len(hits[0].preview) <= 5 or kind == "private-key"


PROSE = """\
We rotate the token every month; the password policy asks for 12 characters at least.
Secret: rotation happens monthly. Token: expiration is one hour. The api_key lives in Vault.
Use scikit-learn (sk-learn) for the model; a JWT starts with eyJ and AWS keys with AKIA.
password = os.environ["DB_PASSWORD"]; token = get_token(); secret_name = "stripe-webhook-secret"
export API_KEY=${API_KEY}; see postgres://user:password@localhost/db in the docs.
password: <your password>; the BEGIN PRIVATE KEY block must never be pasted.
token_type = "Bearer"; password_min_length: 12345678; secret: changeme-later-xxxx
The sk_live_ prefix marks live Stripe keys; ghp_ marks GitHub tokens.
"""


def test_scan_has_no_false_positive_on_prose() -> None:
    assert scan(PROSE) == []


def test_scan_finishes_on_hostile_input() -> None:
    # A backtracking pattern would hang here; its speed is a benchmark row, not a test.
    for text in ("a." * 500_000, "token" * 200_000, "-----BEGIN " * 90_000, "a:b@" * 250_000):
        assert scan(text) == []


def test_secrets_flag_the_draft_with_file_lines(palace: Path) -> None:
    body = "Rotated the key.\n\nNew one: sk_live_FAKEKEY0EXAMPLE0NOTREAL0\n"
    result = capture(
        palace, type="project", name="Rotated the Stripe key", body=body, source="s", now=NOW
    )
    assert [h.kind for h in result.secrets] == ["stripe-key"]
    assert any("secret" in w for w in result.warnings)
    note = read_draft(palace, result.path)
    assert note.header["secret"] is True
    assert note.header["secrets"] == [{"kind": "stripe-key", "line": result.secrets[0].line}]
    line = note.text.splitlines()[result.secrets[0].line - 1]
    assert "sk_live_FAKEKEY0EXAMPLE0NOTREAL0" in line
    assert "sk_live_FAKE" not in json.dumps(result.secrets[0].to_json())


def test_secret_in_the_description_is_flagged_on_its_line(palace: Path) -> None:
    result = capture(
        palace,
        type="project",
        name="Key",
        description="token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        body="Plain body.\n",
        now=NOW,
    )
    note = read_draft(palace, result.path)
    assert note.header["secret"] is True
    assert result.secrets[0].line == note.line_of("description")


# -- similar ---------------------------------------------------------------------------------------
def test_near_duplicate_is_listed_first_and_recorded(palace: Path) -> None:
    result = capture(
        palace,
        type="reference",
        name="Stripe retries a failed webhook for 3 days",
        description="Webhook deliveries are retried with backoff for three days in live mode.",
        body="Seen in the dashboard.\n",
        now=NOW,
    )
    assert result.similar, "expected the existing note to be found"
    assert result.similar[0].path == "notes/project/stripe-webhook-retries.md"
    assert result.similar[0].kind == "note" and result.similar[0].score >= 60
    assert all(s.path != "notes/project/celery-queues.md" for s in result.similar)
    note = read_draft(palace, result.path)
    assert note.header["similar"][0] == {
        "path": "notes/project/stripe-webhook-retries.md",
        "name": "Stripe retries failed webhooks for three days",
        "score": result.similar[0].score,
    }


def test_drafts_are_searched_too_and_unrelated_finds_nothing(palace: Path) -> None:
    first = capture(palace, type="user", name="Maya works Lisbon hours", body="x\n", now=NOW)
    second = capture(palace, type="user", name="Maya works Lisbon hours", body="y\n", now=NOW)
    assert second.similar[0].path == first.path and second.similar[0].kind == "draft"
    assert any("very similar" in w for w in second.warnings)
    other = capture(palace, type="user", name="Gardening tomatoes", body="Water daily.\n", now=NOW)
    assert other.similar == []
    assert "similar" not in read_draft(palace, other.path).header


def test_catalog_follows_edits_and_survives_damage(palace: Path) -> None:
    assert len(catalog(palace)) == len(NOTES)
    note = palace / "notes/project/celery-queues.md"
    note.write_text(_note("Kafka topics for invoices", "one topic per tenant"))
    hits = similar(palace, "Kafka topics for invoices")
    assert hits and hits[0].path == "notes/project/celery-queues.md"
    from curator.model.cache import cache_path

    cache_path(palace, "similar").write_bytes(b"\x00garbage" * 10)
    assert len(catalog(palace)) == len(NOTES)
    note.unlink()
    assert len(catalog(palace)) == len(NOTES) - 1


def test_similar_accepts_a_loaded_palace(palace: Path) -> None:
    from curator.model.palace import Palace

    hits = similar(Palace.open(palace), "Money is stored as integer cents")
    assert hits[0].path == "notes/feedback/money-is-integer-cents.md"


# -- the command -----------------------------------------------------------------------------------
def test_cli_writes_and_prints_path_and_similar(palace: Path) -> None:
    proc = run_capture(
        palace,
        "--type",
        "feedback",
        "--name",
        "Money is integer cents",
        "--tags",
        "money, billing",
        body=b"Never floats.\n",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0].startswith("inbox/") and (palace / lines[0]).is_file()
    assert "notes/feedback/money-is-integer-cents.md" in proc.stdout.decode()
    note = read_draft(palace, lines[0])
    assert note.header["tags"] == ["money", "billing"]


def test_cli_json(palace: Path) -> None:
    body = b"key AKIAFAKEEXAMPLE00000\n"
    proc = run_capture(palace, "--type", "project", "--name", "Json", "--json", body=body)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["path"].startswith("inbox/") and data["flagged"] is True
    assert data["secrets"][0]["kind"] == "aws-access-key-id"
    assert data["secrets"][0]["preview"] == "AKIA…"
    assert "AKIAFAKEEXAMPLE00000" not in proc.stderr.decode()


@pytest.mark.parametrize(
    ("args", "body", "message"),
    [
        (["--type", "bogus", "--name", "x"], b"b\n", "unknown type"),
        (["--type", "project", "--name", ""], b"b\n", "empty name"),
        (["--type", "project", "--name", "x"], b"", "empty body"),
        (["--type", "project", "--name", "x"], b"a\x00b", "NUL"),
        (["--type", "project", "--name", "x"], b"\xff\xfe", "not UTF-8"),
        (["--type", "project", "--name", "x"], b"x" * ((1 << 20) + 10), "1 MiB"),
        (["--type", "project", "--name", "x", "--tags", "a,b,c,d,e,f,g,h,i"], b"b", "at most 8"),
    ],
    ids=["type", "name", "empty", "nul", "utf8", "too-big", "tags"],
)
def test_cli_refuses_with_one_line_and_exit_2(
    palace: Path, args: list[str], body: bytes, message: str
) -> None:
    proc = run_capture(palace, *args, body=body)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1
    assert inbox_files(palace) == []


def test_cli_no_palace_is_exit_2(tmp_path: Path) -> None:
    proc = run_capture(tmp_path / "nowhere", "--type", "project", "--name", "x")
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_cli_refuses_a_terminal_without_waiting(palace: Path) -> None:
    primary, secondary = pty.openpty()
    try:
        proc = run_capture(
            palace, "--type", "project", "--name", "x", body=None, stdin=secondary, timeout=20
        )
    finally:
        os.close(primary)
        os.close(secondary)
    assert proc.returncode == 2
    assert b"pipe the body on stdin" in proc.stderr
    assert inbox_files(palace) == []


def test_cli_never_hangs_on_an_open_pipe(palace: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"partial body, writer never closes")
        proc = run_capture(
            palace,
            "--type",
            "project",
            "--name",
            "x",
            "--stdin-timeout",
            "1",
            body=None,
            stdin=read_end,
            timeout=20,
        )
    finally:
        os.close(read_end)
        os.close(write_end)
    assert proc.returncode == 2
    assert b"close stdin" in proc.stderr
    assert inbox_files(palace) == []


def test_cli_internal_error_is_exit_3_without_traceback(
    palace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from curator.cli import main
    from curator.writer import capture as capture_mod

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(capture_mod, "capture", boom)
    monkeypatch.setattr(sys, "stdin", io.StringIO("body\n"))
    code = main(["--palace", str(palace), "capture", "--type", "project", "--name", "x"])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.err == "curator: internal error: RuntimeError: disk on fire\n"
    assert inbox_files(palace) == []


def test_cli_imports_no_lancedb_textual_or_gitpython(palace: Path) -> None:
    code = textwrap.dedent(
        f"""
        import io, sys
        sys.stdin = io.StringIO("body\\n")
        from curator.cli import main
        rc = main(["--palace", {str(palace)!r}, "capture", "--type", "project", "--name", "x"])
        heavy = sorted(m for m in sys.modules
                       if m.split(".")[0] in ("lancedb", "textual", "git", "pyarrow"))
        print("RC", rc, "HEAVY", heavy)
        """
    )
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert "RC 0 HEAVY []" in proc.stdout, proc.stdout + proc.stderr


# -- concurrency -----------------------------------------------------------------------------------
PROMOTER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from curator.model.palace import Palace
    from curator.writer.actions.promote import plan_promote
    from curator.writer.session import commit
    root = Path(sys.argv[1])
    promoted = 0
    for name in sorted(p.name for p in (root / "inbox").glob("old-*.md")):
        commit(root, plan_promote(Palace.open(root), "inbox/" + name))
        promoted += 1
    print(promoted)
    """
)


@pytest.mark.slow
def test_concurrent_captures_while_promotions_commit(palace: Path) -> None:
    for i in range(4):  # committed drafts for the promoter to move into notes/
        (palace / "inbox" / f"old-{i}.md").write_text(
            f"---\nname: Old draft {i}\ndescription: d{i}\ntype: project\nstatus: draft\n"
            f"created: 2026-11-01T00:00:00Z\n---\n{DRAFT_BANNER}\n\nOld body {i}.\n"
        )
    subprocess.run(["git", "add", "-A"], cwd=palace, check=True)
    subprocess.run(
        ["git", "commit", "-q", "--no-verify", "-m", "old drafts"],
        cwd=palace,
        check=True,
        env={**os.environ, **_git_identity()},
    )
    env = {**os.environ, **_git_identity()}
    promoter = subprocess.Popen(
        [PY, "-c", PROMOTER, str(palace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    argv = [PY, "-m", "curator", "--palace", str(palace), "capture", "--type", "project"]
    procs = [
        subprocess.Popen(
            [*argv, "--name", "Concurrent capture", "--source", f"worker={i}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(8)
    ]
    outputs = [
        p.communicate(f"Body from worker {i}.\n".encode(), timeout=60) for i, p in enumerate(procs)
    ]
    p_out, p_err = promoter.communicate(timeout=60)
    assert promoter.returncode == 0, p_err.decode()
    assert int(p_out) == 4  # the captures raced real promotions
    assert not list((palace / "inbox").glob("old-*.md"))
    paths = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
        paths.append(out.decode().splitlines()[0])
    assert len(set(paths)) == 8
    workers = set()
    for rel in paths:
        note = read_draft(palace, rel)
        assert note.ok and note.status == "draft"
        workers.add(note.header["source"]["worker"])
        assert note.body.endswith(f"Body from worker {note.header['source']['worker']}.\n")
    assert workers == {str(i) for i in range(8)}
    captured = [n for n in inbox_files(palace) if n.startswith("20")]
    assert sorted(captured) == sorted(p.split("/", 1)[1] for p in paths)
    assert not [n for n in os.listdir(palace / "inbox") if n.startswith(".curator-tmp-")]

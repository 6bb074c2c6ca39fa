"""Task checkpoints: revisions, ownership rules, the stale-view rule, requests, git policy."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, git

from curator.errors import ConfigError
from curator.tasks import TaskService
from curator.tasks import requests as reqs
from curator.tasks.checkpoint import SECTIONS, parse, parse_sections
from curator.tasks.claims import now_utc
from curator.tasks.errors import BadCheckpoint, Refused, StaleView, TaskError
from curator.tasks.settings import TaskSettings, load_settings

SLUG = "fix-login"


def checkpoint_md(next_action: str = "run the tests", **over: str) -> str:
    body = {"next_action": next_action} | over
    return "".join(f"## {title}\n\n{body.get(key, key + ' text')}\n\n" for key, title in SECTIONS)


@pytest.fixture
def palace(make_palace: MakePalace) -> Path:
    return make_palace({"notes/.keep": ""})


@pytest.fixture
def svc(palace: Path) -> TaskService:
    service = TaskService(palace)
    service.new(SLUG, "Fix the login bug", "alice")
    return service


def log(root: Path) -> list[str]:
    return git(root, "log", "--format=%s").stdout.splitlines()


def test_new_task_is_revision_one_claimed_by_its_creator(svc: TaskService, palace: Path) -> None:
    cp = svc.show(SLUG)
    assert cp.header.revision == 1 and cp.header.owner == "alice"
    assert cp.header.status == "active" and cp.section("objective") == "Fix the login bug"
    text = (palace / "tasks" / SLUG / "0001.md").read_text()
    assert text.startswith('---\ntask: "fix-login"\nrevision: 1\n')
    for _, title in SECTIONS:
        assert f"\n## {title}\n" in text
    assert log(palace)[0].startswith("task-new: fix-login revision 1")
    with pytest.raises(Refused, match="exists already"):
        svc.new(SLUG, "again", "bob")


def test_header_is_valid_yaml(svc: TaskService, palace: Path) -> None:
    import yaml

    svc.save(SLUG, "alice", checkpoint_md('say "hi" \\ ünïcode'))
    head = (palace / "tasks" / SLUG / "0002.md").read_text().split("---\n")[1]
    data = yaml.safe_load(head)
    assert data["revision"] == 2 and data["next_action"] == 'say "hi" \\ ünïcode'


def test_save_by_holder_renews_and_batches_into_next_commit(svc: TaskService, palace: Path) -> None:
    out = svc.save(SLUG, "alice", checkpoint_md("step two"))
    assert out.header.revision == 2 and out.committed.sha is None
    assert git(palace, "status", "--porcelain", "tasks").stdout.startswith("?? ")
    out = svc.release(SLUG, "alice")
    assert out.committed.sha is not None
    files = git(palace, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert files == ["tasks/fix-login/0002.md", "tasks/fix-login/0003.md"]
    assert git(palace, "status", "--porcelain", "tasks").stdout == ""
    assert log(palace)[0] == "task-release: fix-login revision 3: release by alice"


def test_save_refused_from_non_holder_and_without_claim(svc: TaskService) -> None:
    svc.show(SLUG, owner="bob")
    with pytest.raises(Refused, match="alice holds task") as exc:
        svc.save(SLUG, "bob", checkpoint_md())
    assert exc.value.owner == "alice"
    svc.release(SLUG, "alice")
    svc.show(SLUG, owner="alice")
    with pytest.raises(Refused, match="nobody holds task"):
        svc.save(SLUG, "alice", checkpoint_md())


def test_save_from_a_stale_view_is_refused(svc: TaskService) -> None:
    svc.show(SLUG, owner="alice")  # alice read revision 1
    svc.save(SLUG, "alice", checkpoint_md("a"), base=1)
    with pytest.raises(StaleView, match="moved on since you read revision 1") as exc:
        svc.save(SLUG, "alice", checkpoint_md("b"), base=1)
    assert exc.value.owner == "alice"
    assert svc.store.revisions(SLUG) == [1, 2]


def test_claim_refused_while_held_then_take_over_after_expiry(svc: TaskService) -> None:
    svc.show(SLUG, owner="bob")
    with pytest.raises(Refused, match="alice holds task 'fix-login' until") as exc:
        svc.claim(SLUG, "bob")
    assert exc.value.owner == "alice"
    later = now_utc() + timedelta(seconds=svc.settings.claim_ttl + 60)
    with pytest.raises(Refused, match=r"lapsed .* pass --take-over"):
        svc.rules.claim(SLUG, "bob", base=1, now=later)
    saved = svc.rules.claim(SLUG, "bob", base=1, take_over=True, now=later)
    assert saved.header.owner == "bob" and saved.header.taken_over_from == "alice"
    assert saved.header.event == "take-over"
    history = svc.history(SLUG)
    assert [(h.event, h.owner, h.taken_over_from) for h in history] == [
        ("new", "alice", None),
        ("take-over", "bob", "alice"),
    ]


def test_claim_from_a_stale_view_is_refused(svc: TaskService) -> None:
    svc.show(SLUG, owner="bob")  # bob read revision 1 (alice holds it)
    svc.release(SLUG, "alice")  # revision 2: free
    with pytest.raises(StaleView, match="moved on since you read revision 1"):
        svc.claim(SLUG, "bob")
    with pytest.raises(StaleView, match="say which revision"):
        svc.claim(SLUG, "carol")  # never read it at all
    svc.show(SLUG, owner="bob")
    assert svc.claim(SLUG, "bob").header.owner == "bob"


def test_release_by_non_holder_needs_force(svc: TaskService) -> None:
    svc.show(SLUG, owner="reviewer")
    with pytest.raises(Refused, match="alice holds task"):
        svc.release(SLUG, "reviewer")
    out = svc.release(SLUG, "reviewer", force=True)
    assert out.header.owner is None and out.header.by == "reviewer"


def test_done_and_abandoned_end_the_claim_and_close(svc: TaskService, palace: Path) -> None:
    out = svc.set_status(SLUG, "alice", "done")
    assert out.header.status == "done" and out.header.owner is None
    assert log(palace)[0].startswith("task-done:")
    with pytest.raises(Refused, match="is done"):
        svc.save(SLUG, "alice", checkpoint_md())
    svc.new("other", "x", "alice")
    svc.show("other", owner="bob")
    with pytest.raises(Refused, match="alice holds"):
        svc.set_status("other", "bob", "abandoned")
    assert svc.set_status("other", "bob", "abandoned", force=True).header.status == "abandoned"


def test_status_change_by_save_is_a_commit(svc: TaskService, palace: Path) -> None:
    out = svc.save(SLUG, "alice", checkpoint_md(), status="waiting")
    assert out.committed.sha is not None and log(palace)[0].startswith("task-save:")


def test_rows_flag_stale_claims(svc: TaskService) -> None:
    svc.new("free", "x", "bob")
    svc.release("free", "bob")
    later = now_utc() + timedelta(seconds=svc.settings.stale_after + 1)
    rows = {r.header.task: r for r in svc.rows(later)[0]}
    assert rows[SLUG].stale and not rows[SLUG].lapsed
    assert not rows["free"].stale  # nobody holds it: nothing is stuck
    assert not {r.header.task: r for r in svc.rows()[0]}[SLUG].stale


def test_untracked_setting_keeps_tasks_out_of_git(make_palace: MakePalace) -> None:
    root = make_palace({"notes/.keep": ""}, toml='[tasks]\ntracked = false\nclaim_ttl = "30m"\n')
    svc = TaskService(root)
    assert svc.settings == TaskSettings(tracked=False, claim_ttl=1800.0)
    out = svc.new(SLUG, "x", "alice")
    assert out.committed.sha is None and len(log(root)) == 1
    svc.request(SLUG, "alice", b"hello")
    assert git(root, "status", "--porcelain").stdout == ""


def test_commit_saves_setting(make_palace: MakePalace) -> None:
    root = make_palace({"notes/.keep": ""}, toml="[tasks]\ncommit_saves = true\n")
    svc = TaskService(root)
    svc.new(SLUG, "x", "alice")
    assert svc.save(SLUG, "alice", checkpoint_md()).committed.sha is not None


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[tasks]\nbogus = 1\n", "unknown key 'bogus'"),
        ("[tasks]\ntracked = 'yes'\n", "true or false"),
        ('[tasks]\nstale_after = "soon"\n', "duration"),
    ],
)
def test_bad_settings(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "palace.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path)


def test_parse_sections_refuses_missing_duplicate_and_stray_text() -> None:
    with pytest.raises(BadCheckpoint, match=r"lacks the section.*'## Risks'"):
        parse_sections(checkpoint_md().split("## Risks")[0])
    with pytest.raises(BadCheckpoint, match="appears twice"):
        parse_sections(checkpoint_md() + "## Sources\nagain\n")
    with pytest.raises(BadCheckpoint, match="text before the first section"):
        parse_sections("stray\n" + checkpoint_md())
    # a title, deeper headings and headings inside code fences stay content
    text = "# Checkpoint\n" + checkpoint_md(next_action="### sub\n```\n## Risks\n```")
    assert parse_sections(text)["next_action"] == "### sub\n```\n## Risks\n```"


def test_bad_slug_and_owner(svc: TaskService) -> None:
    with pytest.raises(TaskError, match="bad task name"):
        svc.new("../evil", "x", "alice")
    with pytest.raises(TaskError, match="bad owner"):
        svc.new("ok", "x", "al\nice")


WORDS = st.binary(min_size=1, max_size=300).filter(lambda b: b.strip()) | st.text(
    min_size=1, max_size=200
).filter(str.strip).map(lambda s: s.encode("utf-8", "surrogatepass"))


@settings(deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=6))
def test_requests_round_trip_byte_for_byte(words: list[bytes]) -> None:
    data: bytes | None = None
    for i, w in enumerate(words):
        before = data or b""
        _, data = reqs.append(data, SLUG, f"agent-{i}", w, "2026-01-01T00:00:00Z")
        assert data.startswith(before)  # append-only
    assert data is not None
    assert [r.words for r in reqs.parse(data)] == words
    assert [r.number for r in reqs.parse(data)] == list(range(1, len(words) + 1))


def test_request_is_kept_and_committed(svc: TaskService, palace: Path) -> None:
    words = "Keep **the** [red]old[/red] API \x1b[2J; ünïcode ✓\n## Objective\n".encode()
    request, committed = svc.request(SLUG, "alice", words)
    assert request.number == 1 and committed.sha is not None
    svc.request(SLUG, "alice", b"second")
    assert [r.words for r in svc.requests(SLUG)] == [words, b"second"]
    assert git(palace, "status", "--porcelain").stdout == ""


OPS = st.lists(
    st.tuples(
        st.sampled_from(["save", "claim", "release", "take-over", "done", "request", "stale"]),
        st.sampled_from(["alice", "bob"]),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(OPS)
def test_revisions_are_never_rewritten(make_palace: MakePalace, ops: list[tuple[str, str]]) -> None:
    root = make_palace({"notes/.keep": ""}, toml="[tasks]\ntracked = false\n")
    svc = TaskService(root)
    svc.new(SLUG, "objective", "alice")
    later = now_utc() + timedelta(days=2)
    seen: dict[int, bytes] = {1: svc.store.read_bytes(SLUG, 1)}
    for op, who in ops:
        base = svc.store.newest(SLUG)
        try:
            if op == "save":
                svc.save(SLUG, who, checkpoint_md(op), base=base)
            elif op == "claim":
                svc.claim(SLUG, who, base=base)
            elif op == "release":
                svc.release(SLUG, who, base=base)
            elif op == "take-over":
                svc.rules.claim(SLUG, who, base=base, take_over=True, now=later)
            elif op == "done":
                svc.set_status(SLUG, who, "done", base=base)
            elif op == "request":
                svc.request(SLUG, who, f"{who} asks".encode())
            else:
                svc.save(SLUG, who, checkpoint_md(), base=base - 1)
        except TaskError:
            pass
        numbers = svc.store.revisions(SLUG)
        assert numbers == list(range(1, len(numbers) + 1))  # no gap, no reuse
        for n in numbers:
            data = svc.store.read_bytes(SLUG, n)
            assert seen.setdefault(n, data) == data  # never rewritten
            assert parse(data).header.revision == n


def test_switching_back_to_tracked_says_what_keeps_tasks_out(make_palace: MakePalace) -> None:
    root = make_palace({"notes/.keep": ""}, toml="[tasks]\ntracked = false\n")
    TaskService(root).new(SLUG, "x", "alice")
    (root / "palace.toml").write_text("[tasks]\ntracked = true\n")
    out = TaskService(root).release(SLUG, "alice")
    assert out.committed.sha is None and "tasks/.gitignore" in str(out.committed.warning)


def test_a_hand_broken_revision_is_reported_not_fatal(svc: TaskService, palace: Path) -> None:
    svc.new("other", "x", "bob")
    (palace / "tasks" / SLUG / "0002.md").write_text("no header here\n")
    rows, broken = svc.rows()
    assert [r.header.task for r in rows] == ["other"]
    assert len(broken) == 1 and "tasks/fix-login/0002.md" in str(broken[0])
    assert "no YAML header" in str(broken[0])  # as a note without one is told
    # a plain-YAML header written by a person still reads
    (palace / "tasks" / SLUG / "0003.md").write_text(
        "---\ntask: fix-login\nrevision: 3\nowner: alice\nsaved_at: 2026-12-01T10:00:00Z\n"
        "status: waiting\n---\n## Objective\nby hand\n"
    )
    header = svc.store.header(SLUG)
    assert (header.revision, header.owner, header.status) == (3, "alice", "waiting")

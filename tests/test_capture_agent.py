"""An agent's capture (`capture(..., from_agent=True)`, what the MCP `capture` tool runs):
a secret in any field it supplies is refused with the same rule as in the body (a generated
test over every field and every kind of secret), and identical captures racing from threads
and from processes leave exactly one draft (the check and the write hold one lock)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace
from test_capture import SECRETS

from curator.errors import CuratorError
from curator.model.note import parse_note
from curator.writer.capture import CaptureError, capture

ONE_LINE = {k: v for k, v in SECRETS.items() if "\n" not in v}
FIELDS = ("name", "description", "source", "tags", "body")
BASE = {"type": "project", "name": "Deploy notes", "description": "How we deploy.", "body": "ok"}


def _drafts(root: Path) -> list[Path]:
    return sorted(p for p in (root / "inbox").glob("*.md"))


@pytest.fixture(scope="module")
def palace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from palacehelpers import DEFAULT_TOML

    root = tmp_path_factory.mktemp("agent") / "palace"
    (root / "inbox").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "palace.toml").write_text(DEFAULT_TOML)
    return root


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    field=st.sampled_from(FIELDS),
    kind=st.sampled_from(sorted(ONE_LINE)),
    before=st.text(alphabet="abc XYZ.,", max_size=12),
    after=st.text(alphabet="abc XYZ.,", max_size=12),
)
def test_a_secret_in_any_field_is_refused(
    palace: Path, field: str, kind: str, before: str, after: str
) -> None:
    secret = ONE_LINE[kind]
    value = f"{before} {secret} {after}".strip()
    args: dict[str, object] = dict(BASE)
    args[field] = ["ops", value] if field == "tags" else value
    before_files = _drafts(palace)
    with pytest.raises(CaptureError, match="holds a secret") as caught:
        capture(palace, **args, from_agent=True)  # type: ignore[arg-type]
    assert kind in str(caught.value)
    where = "tag 2" if field == "tags" else f"the {field}"
    assert where in str(caught.value)
    assert secret not in str(caught.value)
    assert _drafts(palace) == before_files


def test_a_secret_as_scope_writes_nothing(palace: Path) -> None:
    before = _drafts(palace)
    with pytest.raises(CuratorError):
        capture(palace, **BASE, scope=ONE_LINE["github-token"], from_agent=True)  # type: ignore[arg-type]
    assert _drafts(palace) == before


def test_a_persons_capture_flags_a_secret_in_tags(palace: Path) -> None:
    result = capture(palace, **BASE, tags=[ONE_LINE["stripe-key"]])  # type: ignore[arg-type]
    draft = parse_note(result.path, (palace / result.path).read_bytes(), "draft")
    assert draft.header.get("secret") is True and result.secrets


def test_concurrent_identical_captures_from_threads_write_one_draft(
    make_palace: MakePalace,
) -> None:
    root = make_palace({})
    args = {**BASE, "name": "Threads race", "body": "The same words from twenty agents.\n"}
    start = threading.Barrier(20)
    outcomes: list[str] = []

    def one() -> None:
        start.wait()
        try:
            capture(root, **args, from_agent=True)  # type: ignore[arg-type]
            outcomes.append("written")
        except CaptureError as exc:
            outcomes.append("identical" if "identical draft" in str(exc) else str(exc))

    threads = [threading.Thread(target=one) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["identical"] * 19 + ["written"]
    assert len(_drafts(root)) == 1


RACER = """
import sys
from pathlib import Path
from curator.writer.capture import CaptureError, capture
sys.stdin.readline()  # wait until every racer is started
try:
    capture(Path(sys.argv[1]), type="project", name="Process race",
            description="d", body="Same words from many processes.", from_agent=True)
    print("written")
except CaptureError as exc:
    print("identical" if "identical draft" in str(exc) else exc)
"""


def test_concurrent_identical_captures_from_processes_write_one_draft(
    make_palace: MakePalace,
) -> None:
    root = make_palace({})
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outcomes = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert outcomes == ["identical"] * 5 + ["written"]
    assert len(_drafts(root)) == 1


def test_an_identical_hidden_draft_is_refused_without_its_path(make_palace: MakePalace) -> None:
    from agenthelpers import HASH_TOML

    from curator.agents.service import AgentRefusal, Memory

    root = make_palace({}, toml=HASH_TOML + "\n[scopes.vault]\nsensitive = true\n")
    memory = Memory(root)
    args = {**BASE, "name": "Vault rotation", "body": "Rotate monthly.", "scope": "vault"}
    first = memory.capture(**args)  # type: ignore[arg-type]
    with pytest.raises(AgentRefusal, match="identical draft already waits") as caught:
        memory.capture(**args)  # type: ignore[arg-type]
    assert first["path"] not in str(caught.value) and "inbox/" not in str(caught.value)
    public = {**args, "scope": None, "name": "Public rotation"}
    shown = memory.capture(**public)  # type: ignore[arg-type]
    with pytest.raises(AgentRefusal, match=shown["path"]):
        memory.capture(**public)  # type: ignore[arg-type]

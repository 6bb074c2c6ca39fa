"""The visibility gate, walked through every agent entry point over generated hidden notes.

hypothesis builds palaces holding notes and drafts the gate must hide: a `sensitive` value of
every YAML type but exactly false, a YAML slip beside `sensitive: true`, an unreadable header
(no fence, unclosed, not UTF-8), a sensitive scope or a scope that is not text; some share a
slug with a visible note. Every MCP tool and resource (the server `curator mcp` runs, driven by
the SDK's client in this process: tests/test_mcp.py drives its process), each hook (cold and
through the warm server), and the CLI's search, ask, pack and export must never show a hidden
note's path, name or text, in an answer or in a refusal. The CLI's commands run through its
`main()` in this process (the parser, handlers and printing a `curator` process runs;
test_wheel runs the installed command itself), so the walk pays LanceDB's import once, not
once per command.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Iterable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from agenthelpers import HASH_TOML, hook, served_here, warm_server
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from palacehelpers import git_init_commit, note_text

from curator.agents import hooks
from curator.agents.service import AgentRefusal, Memory
from curator.cli import main
from curator.interop.export import export_palace
from curator.model.palace import Palace
from curator.model.schema import is_visible
from curator.writer.actions.index import plan_index
from curator.writer.session import commit

TOML = HASH_TOML + "\n[scopes.vault]\nsensitive = true\n\n[scopes.open]\n"
BODY = "The {word} webhook deploy key rotates every month on the staging cluster.\n"
PUBLIC = "notes/project/public-webhook.md"

# `sensitive:` values that are not exactly false (PyYAML reads false, no, off as False)
SENSITIVE = [
    "true", "True", '"true"', "'false'", "1", "0", "0.0", "-1", "yes", '"yes"', "on", "'no'",
    "null", "~", '""', "x", "[true]", "[]", "[false]", "{a: 1}", "{}", "2026-01-01",
    "2026-01-01T10:00:00Z", ".inf",
]  # fmt: skip
# lines that break a header's YAML, put beside `sensitive: true`
SLIPS = [
    'description: "unclosed', "\tbad: tab", "bad: [1, 2", "bad: {a: 1", ": nokey",
    "name: twice", "x: &a 1\ny: *a", "bad: !!python/object:os.system x", "- item",
    "bad: 'unclosed", "@bad: at", "`bad: tick", "key: value: other", "confidence: 0.9: x",
]  # fmt: skip
SCOPES = ["vault", "[vault]", "{vault: true}", "[open]", "1", "true"]
BROKEN = ["no-fence", "unclosed", "latin1", "empty-header-slip"]
HOWS = ["sensitive", "slip", "scope", "broken"]  # why the gate hides a note


@dataclass(frozen=True)
class Hidden:
    rel: str
    secret: str  # in its name, description and body; never in any output
    shared: bool  # a visible note has the same slug

    @property
    def slug(self) -> str:
        return self.rel.rsplit("/", 1)[-1].removesuffix(".md")


def _value(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            st.sampled_from(SENSITIVE),
            st.integers().map(str),
            st.floats(allow_nan=False, allow_infinity=False).map(repr),
            st.text(max_size=8).map(json.dumps),
        )
    )


@st.composite
def hidden_file(
    draw: st.DrawFn,
    i: int,
    how: str | None = None,
    kind: str | None = None,
    shared: bool | None = None,
) -> tuple[str, bytes, Hidden]:
    """A note or draft the gate must hide; `how` (one of HOWS), `kind` and `shared` are drawn
    unless given."""
    word = draw(st.text("abcdefghjkmnpqrstuvwxyz", min_size=4, max_size=8))
    secret = f"zq{i}{word}"
    kind = kind or draw(st.sampled_from(["note", "draft"]))
    shared = draw(st.booleans()) if shared is None else shared
    stem = f"twin{i}-{word}" if shared else f"{secret}-key"
    rel = f"inbox/{stem}.md" if kind == "draft" else f"notes/reference/{stem}.md"
    header = [
        f"name: {secret} webhook",
        f"description: Where the {secret} webhook key lives.",
        "type: project",
        "confidence: 0.9",
    ] + (["status: draft"] if kind == "draft" else [])
    how = how or draw(st.sampled_from(HOWS))
    if how == "sensitive":
        header.append(f"sensitive: {_value(draw)}")
    elif how == "slip":
        header.insert(draw(st.integers(0, len(header))), "sensitive: true")
        header.insert(draw(st.integers(0, len(header))), draw(st.sampled_from(SLIPS)))
    elif how == "scope":
        header.append(f"scope: {draw(st.sampled_from(SCOPES))}")
    body = BODY.format(word=secret)
    text = "---\n" + "".join(line + "\n" for line in header) + "---\n" + body
    data = text.encode("utf-8")
    if how == "broken":
        style = draw(st.sampled_from(BROKEN))
        if style == "no-fence":
            data = f"# {secret} webhook\n\n{body}".encode()
        elif style == "unclosed":
            data = text.replace("\n---\n", "\n", 1).encode()
        elif style == "latin1":
            data = text.replace("type: project", "type: caf\xe9", 1).encode("latin-1")
        else:
            data = f"---\nsensitive: false\n: {secret}\n---\n{body}".encode()
    return rel, data, Hidden(rel, secret, shared)


@st.composite
def palaces(draw: st.DrawFn) -> list[tuple[str, bytes, Hidden]]:
    count = draw(st.integers(1, 3))
    return [draw(hidden_file(i)) for i in range(count)]


@st.composite
def every_kind(draw: st.DrawFn) -> list[tuple[str, bytes, Hidden]]:
    """One palace holding a hidden note for every reason the gate hides one, between them a
    note and a draft each with and without a visible twin: walked by one server and one set
    of hook and CLI processes, the walk pays the processes' start-up once. (The in-process
    test below draws many more palaces, among them every broken header.)"""
    return [
        draw(hidden_file(i, how, kind=("note", "draft")[i % 2], shared=bool(i // 2 % 2)))
        for i, how in enumerate(HOWS)
    ]


def build(base: Path, hidden: list[tuple[str, bytes, Hidden]]) -> Path:
    root = base / "palace"
    (root / "notes" / "project").mkdir(parents=True)
    (root / "inbox").mkdir()
    (root / "palace.toml").write_text(TOML)
    files = {
        PUBLIC: note_text(
            "Public webhook", body=BODY.format(word="public"), extra="confidence: 0.9\n"
        ),
        "inbox/2026-01-01-open-draft.md": note_text(
            "Open draft", body=BODY.format(word="draft"), extra="status: draft\nscope: open\n"
        ),
    }
    for _, _, h in hidden:
        if h.shared:
            files[f"notes/project/{h.slug}.md"] = note_text(
                f"Twin {h.slug}", body=BODY.format(word="twin"), extra="confidence: 0.9\n"
            )
    for rel, text in files.items():
        (root / rel).write_text(text)
    for rel, data, _ in hidden:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    git_init_commit(root)
    palace = Palace.open(root)
    for rel, _, _ in hidden:  # the generator makes only hidden notes
        assert not is_visible(palace.by_rel[rel], palace.config), rel
    commit(root, plan_index(palace))  # an INDEX.md listing the hidden notes, for the gate to cut
    return root


def assert_no_leak(hidden: Iterable[Hidden], label: str, text: str, *echo: str) -> None:
    """No hidden note's path or secret in `text`, once the exact strings the agent sent
    (`echo`: a query, a quoted ref) are taken out of it."""
    for sent in echo:
        text = text.replace(sent, "")
    for h in hidden:
        assert h.secret not in text, (label, h, text[:2000])
        assert h.rel not in text, (label, h, text[:2000])


def refs(h: Hidden) -> list[str]:
    return [h.rel, h.slug, f"{h.secret} webhook", h.secret]


def query(h: Hidden) -> str:
    """Words of the hidden note, in an order its text never has (so an echo is not a leak)."""
    return f"deploy {h.secret} key webhook"


def _env(base: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_RUNTIME_DIR": str(base),
        "CURATOR_HOOK_WARM": "0",
    }


def _cli(root: Path, env: dict[str, str], *args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as m, redirect_stdout(out), redirect_stderr(err):
        for name, value in env.items():
            m.setenv(name, value)
        code = main(["--palace", str(root), *args])
    assert code in (0, 1), (args, err.getvalue())
    return out.getvalue() + err.getvalue()


def _hook(root: Path, env: dict[str, str], event: str, **fields: object) -> str:
    out, err = hook(root, event, env, **fields)
    return out + err


def walk_mcp(root: Path, hidden: list[Hidden], base: Path) -> None:
    with served_here(root, base) as client:
        # every tool that reads the palace is walked below (task_* tools read checkpoints only)
        listed = {t.name for t in client.list_tools() if not t.name.startswith("task_")}
        walked = {"search", "ask", "pack", "read_note", "list_inbox", "capture", "report_stale"}
        walked |= {"recent", "related", "list_directory", "build_context", "diagnostics"}
        assert listed == walked, f"walk the new tool(s) {sorted(listed - walked)} here"
        for h in hidden:
            q = query(h)
            for name, args in (
                ("search", {"query": q, "drafts": True, "limit": 50}),
                ("search", {"query": q, "status": ["superseded", "active"], "limit": 50}),
                ("ask", {"question": q}),
                ("pack", {"goal": q, "floor": 0.0, "budget": 4000}),
                ("list_inbox", {"limit": 50}),
                ("recent", {"days": 36500, "limit": 50}),
                ("list_directory", {"depth": 5, "limit": 50}),
                ("diagnostics", {}),
            ):
                _, text = client.call(name, **args)
                assert_no_leak(hidden, name, text, q)
            for ref in refs(h):
                error, text = client.call("read_note", ref=ref)
                if h.shared and ref == h.slug:  # the visible twin, never the hidden one
                    assert not error and f"notes/project/{h.slug}.md" in text, text
                else:
                    assert error, (ref, text)
                assert_no_leak(hidden, "read_note", text, repr(ref))
                error, text = client.call("related", ref=ref, depth=3, limit=50)
                if not (h.shared and ref == h.slug):
                    assert error, (ref, text)
                assert_no_leak(hidden, "related", text, repr(ref))
                error, text = client.call("build_context", uri=f"curator://notes/{ref}", depth=3)
                if not (h.shared and ref == h.slug):
                    assert error, (ref, text)
                assert_no_leak(hidden, "build_context", text, repr(ref))
                error, text = client.call("report_stale", note=ref, reason="looks wrong")
                if not (h.shared and ref == h.slug):
                    assert error, (ref, text)
                    assert_no_leak(hidden, "report_stale", text, repr(ref))
                uri = f"curator://notes/{ref}"
                try:
                    text = client.read_resource(uri)
                except Exception as exc:  # the SDK raises the server's ResourceError
                    text = str(exc)
                assert_no_leak(hidden, "resource", text, uri, repr(ref))
        hidden_rels = {h.rel for h in hidden}
        for note in sorted(root.glob("notes/**/*.md")):  # a visible note's links and chain
            rel = note.relative_to(root).as_posix()
            if rel not in hidden_rels:
                _, text = client.call("related", ref=rel, depth=3, limit=50)
                assert_no_leak(hidden, "related", text, rel)
                _, text = client.call("build_context", uri=f"curator://notes/{rel}", depth=3)
                assert_no_leak(hidden, "build_context", text, rel)
        for folder in sorted(
            {p.parent.relative_to(root).as_posix() for p in root.glob("notes/**/*.md")}
        ):
            _, text = client.call("list_directory", folder=folder, limit=50)
            assert_no_leak(hidden, "list_directory", text, folder)
        assert_no_leak(hidden, "INDEX.md", client.read_resource("curator://INDEX.md"))
        _, text = client.call(
            "capture",
            name="Webhook key rotation",
            description="How the webhook deploy key rotates.",
            type="project",
            body=BODY.format(word="staging"),
        )
        assert_no_leak(hidden, "capture", text)


def walk_cli_and_hooks(root: Path, hidden: list[Hidden], env: dict[str, str]) -> None:
    # every hidden note's words in one query, short enough to be echoed whole (a pack's
    # title cuts its goal at 120 characters)
    q = "webhook deploy key " + " ".join(h.secret for h in hidden)
    for args in (
        ("search", "--json", q, "--drafts", "--limit", "50"),
        ("ask", q),
        ("pack", q, "--floor", "0"),
        ("export", "--format", "jsonl"),
    ):
        assert_no_leak(hidden, args[0], _cli(root, env, *args), q)
    assert_no_leak(hidden, "SessionStart", _hook(root, env, "SessionStart", source="startup"))
    out = _hook(root, env, "UserPromptSubmit", prompt=q)
    assert_no_leak(hidden, "UserPromptSubmit", out, q)
    warm_env = {**env, "CURATOR_HOOK_WARM": "1"}
    with warm_server(root, warm_env):
        for event, fields in (("SessionStart", {"source": "resume"}), ("UserPromptSubmit", {})):
            fields = fields or {"prompt": q}
            assert_no_leak(hidden, f"warm {event}", _hook(root, warm_env, event, **fields), q)


@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # a failure is reported as found, not shrunk
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(every_kind())
def test_every_agent_entry_point_hides_what_the_gate_hides(
    generated: list[tuple[str, bytes, Hidden]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root = build(base, generated)
        hidden = [h for _, _, h in generated]
        env = _env(base)
        walk_mcp(root, hidden, base)
        walk_cli_and_hooks(root, hidden, env)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(palaces())
def test_memory_hooks_and_export_in_process(generated: list[tuple[str, bytes, Hidden]]) -> None:
    """The same gate over many more palaces, through the Memory every transport uses."""
    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp), generated)
        hidden = [h for _, _, h in generated]
        memory = Memory(root)
        try:
            for h in hidden:
                q = query(h)
                answers = [
                    memory.search(q, drafts=True, limit=50),
                    memory.ask(q),
                    memory.pack(q, floor=0.0, budget=4000),
                    memory.list_inbox(),
                ]
                assert_no_leak(hidden, "memory", json.dumps(answers), q)
                for ref in refs(h):
                    try:
                        text = json.dumps(memory.read_note(ref))
                        assert h.shared and ref == h.slug, (ref, text)
                    except AgentRefusal as exc:
                        text = str(exc)
                    assert_no_leak(hidden, "read_note", text, repr(ref))
            assert_no_leak(hidden, "index_md", memory.index_md())
            request = {"cwd": str(root), "source": "startup", "prompt": "webhook deploy key"}
            for event in ("SessionStart", "UserPromptSubmit"):
                reply = hooks.answer(memory, {"event": event, "data": request})
                assert_no_leak(hidden, event, json.dumps(reply))
        finally:
            memory.close()
        records = export_palace(Palace.open(root)).text("jsonl")
        assert_no_leak(hidden, "export", records)

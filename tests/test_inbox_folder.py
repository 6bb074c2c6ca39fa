"""The drafts folder is a setting (`[palace] inbox`, issue 33): a vault with its own `inbox/`
(a GTD inbox, Obsidian's "Inbox") is adopted in place, its inbox read as notes and never
touched, and every part of curator finds drafts where palace.toml says they are."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import DEFAULT_TOML, MakePalace, RunCli, git, note_text

import curator
from curator.agents.service import Memory
from curator.config import load_config
from curator.errors import ConfigError
from curator.model.palace import Palace
from curator.writer.capture import capture
from curator.writer.inbox_share import INBOX_REF
from curator.writer.sync import sync

DRAFTS_TOML = DEFAULT_TOML + 'inbox = "drafts"\n'
VAULT = {
    ".obsidian/app.json": b'{"newFileLocation": "folder", "newFileFolderPath": "INBOX"}\n',
    "INBOX/Call the dentist.md": b"---\ntags: [errand]\n---\nAsk about [[Garden]] too.\r\n",
    "INBOX/Reading list.md": b"- Dune\n- [Garden plan](../Projects/Garden.md)\n",
    "INBOX/nested/Later.md": b"Someday: [[Call the dentist]].\n",
    "Projects/Garden.md": b"---\naliases: [garden]\n---\nSee [[Call the dentist]].\n",
    "Daily/2026-01-05.md": b"Captured [[Reading list]] into the inbox.\n",
}


def _vault(root: Path, folder: str) -> dict[str, bytes]:
    files = {rel.replace("INBOX", folder): data for rel, data in VAULT.items()}
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return files


def _theirs(root: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in files}


@pytest.mark.parametrize("folder", ["inbox", "Inbox"])
def test_a_vault_with_its_own_inbox_is_adopted_in_place(
    tmp_path: Path, run_cli: RunCli, folder: str
) -> None:
    root = tmp_path / "vault"
    files = _vault(root, folder)
    code, out, err = run_cli("init", "--adopt", root, "--dry-run")
    assert code == 0, err
    said = f"drafts: curator-inbox/ ({folder}/ is the vault's own"
    assert said in out  # the plan says where drafts go, and why
    code, out, err = run_cli("init", "--adopt", root, "--yes", "--json")
    assert code == 0 and json.loads(out)["inbox"] == "curator-inbox", err
    assert load_config(root).inbox == "curator-inbox"
    ignore = (root / ".gitignore").read_text().splitlines()
    assert "/curator-inbox/" in ignore and "/inbox/" not in ignore
    tracked = git(root, "ls-files").stdout.splitlines()
    assert {rel for rel in files if not rel.startswith(".obsidian")} <= set(tracked)

    palace = Palace.open(root)  # the user's inbox holds notes of the vault, never drafts
    assert palace.drafts == []
    assert {f"{folder}/Call the dentist.md", f"{folder}/nested/Later.md"} <= set(palace.by_rel)
    assert all(palace.by_rel[rel].kind == "note" for rel in files if rel.endswith(".md"))
    code, out, _ = run_cli("--palace", root, "check", "--json")
    findings = json.loads(out)["findings"]
    assert not [f for f in findings if f["code"].startswith(("link.", "rule.", "draft."))]

    draft = capture(
        root, type="project", name="Use the spare key", body="Under the pot.\n", description="k"
    )
    assert draft.path.startswith("curator-inbox/")
    agent = Memory(root).capture(
        name="Water on Sundays", description="d", type="project", body="The garden.\n"
    )
    assert str(agent["path"]).startswith("curator-inbox/")
    assert [d.rel for d in Palace.open(root).drafts] == sorted([draft.path, agent["path"]])
    code, _, err = run_cli("--palace", root, "promote", draft.path, "--confidence", "0.8", "--yes")
    assert code == 0, err
    assert git(root, "status", "--porcelain").stdout == ""  # drafts stay out of git

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "HEAD:refs/heads/main")
    git(root, "branch", "--set-upstream-to=origin/main")
    sync(root)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    assert _theirs(clone, files) == files  # the user's inbox travels with the vault
    assert not (clone / "curator-inbox").exists()
    assert _theirs(root, files) == files  # not one byte of the user's changed


def test_free_inbox_passes_over_what_is_the_users(tmp_path: Path) -> None:
    from curator.model.layouts.adopt import free_inbox

    assert free_inbox(tmp_path) == "inbox"
    (tmp_path / "inbox").mkdir()
    assert free_inbox(tmp_path) == "inbox"  # an empty folder holds nothing of anyone's
    (tmp_path / "inbox" / "x.png").write_bytes(b"\x89PNG")
    assert free_inbox(tmp_path) == "curator-inbox"
    (tmp_path / "CURATOR-INBOX").write_text("a file")
    assert free_inbox(tmp_path) == "curator-inbox-2"


def test_the_inbox_setting_must_be_a_folder_of_its_own(tmp_path: Path) -> None:
    for bad in ("a/b", ".drafts", "notes", " x", "", "..", "c:\\d"):
        (tmp_path / "palace.toml").write_text(f"[palace]\ninbox = {json.dumps(bad)}\n")
        with pytest.raises(ConfigError, match="inbox"):
            load_config(tmp_path)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12) | st.sampled_from(["..", "a/..", "\\x", "é t", "x\n", "CON"]))
def test_any_inbox_value_is_one_plain_folder_at_the_root_or_an_error(value: str) -> None:
    import tempfile

    import tomli_w

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "palace.toml").write_text(tomli_w.dumps({"palace": {"inbox": value}}))
        try:
            folder = load_config(root).inbox
        except ConfigError as exc:
            assert exc.path and exc.path.endswith("palace.toml") and "inbox" in exc.message
            return
        assert folder == value and Path(folder).name == folder and folder not in (".", "..")
        assert not folder.startswith(".") and folder == folder.strip()
        assert (root / folder).resolve().parent == root.resolve()  # at the root, inside


def test_a_drafts_folder_named_in_palace_toml_is_used_through_sync(
    tmp_path: Path, run_cli: RunCli
) -> None:
    from synchelpers import make_team, promote_new, share_inbox

    remote, (a, b, _c) = make_team(tmp_path)
    toml = (a / "palace.toml").read_text()
    (a / "palace.toml").write_text(toml.replace('inbox = "inbox"', 'inbox = "drafts"'))
    (a / ".gitignore").write_text((a / ".gitignore").read_text().replace("/inbox/", "/drafts/"))
    git(a, "commit", "-q", "-am", "drafts live in drafts/")
    share_inbox([a, b])
    assert load_config(b).inbox == "drafts"
    promote_new(a, "Seed")  # undo never leaves INDEX.md empty
    (a / "inbox").mkdir(exist_ok=True)
    (a / "inbox" / "mine.md").write_text("---\nname: Mine\n---\nnot a draft\n")

    kept = capture(a, type="project", name="Kept draft", body="Kept.\n", description="k").path
    taken = capture(a, type="project", name="Taken draft", body="Taken.\n", description="t").path
    assert kept.startswith("drafts/") and taken.startswith("drafts/")
    assert {d.rel for d in Palace.open(a).drafts} == {kept, taken}
    result = sync(a)
    assert result.inbox is not None and result.inbox.shared == 2
    shared = git(remote, "ls-tree", "-r", "--name-only", INBOX_REF).stdout.split()
    assert shared == sorted([kept, taken])
    sync(b)
    assert (b / kept).is_file() and (b / taken).is_file()

    code, _, err = run_cli("--palace", a, "promote", taken, "--confidence", "0.8", "--yes")
    assert code == 0, err
    message = git(a, "log", "-1", "--format=%B").stdout
    assert "Curator-Took: " in message and taken in message  # the draft left the inbox
    code, _, err = run_cli("--palace", a, "undo", "--yes")
    assert code == 0, err
    assert (a / taken).is_file()  # back in drafts/
    code, _, err = run_cli("--palace", a, "promote", taken, "--confidence", "0.8", "--yes")
    assert code == 0, err
    sync(a)
    sync(b)
    assert not (b / taken).exists() and (b / kept).is_file()  # taken on every clone
    assert git(remote, "ls-tree", "-r", "--name-only", INBOX_REF).stdout.split() == [kept]
    assert not [p for p in git(a, "ls-files").stdout.splitlines() if p.startswith("drafts/")]
    assert (a / "inbox" / "mine.md").read_text() == "---\nname: Mine\n---\nnot a draft\n"
    code, out, _ = run_cli("--palace", a, "check", "--json")
    assert not [f for f in json.loads(out)["findings"] if f["path"].startswith("drafts/")]


def test_drafts_never_enter_the_branch_even_when_gitignore_forgets_them(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace({"notes/project/seed.md": note_text("Seed")}, toml=DRAFTS_TOML)
    assert not (root / ".gitignore").exists()  # palace.toml changed, .gitignore not
    draft = capture(root, type="project", name="Rotate", body="Monthly.\n", description="r")
    for args in (("promote", draft.path, "--confidence", "0.8"), ("undo",)):
        code, _, err = run_cli("--palace", root, *args, "--yes")
        assert code == 0, err
    assert (root / draft.path).is_file()  # undo put it back...
    assert git(root, "ls-files", "drafts").stdout == ""  # ...in the folder, not in history


def test_an_agents_turn_watches_the_named_folder(make_palace: MakePalace) -> None:
    from curator.agents.turns import captured_since, inbox_listing

    root = make_palace({"notes/project/seed.md": note_text("Seed")}, toml=DRAFTS_TOML)
    turn = {"started": 0, "inbox": inbox_listing(root)}
    (root / "inbox" / "todo.md").write_text("a file of the user's\n")
    assert not captured_since(root, turn)
    capture(root, type="project", name="Rotate", body="Monthly.\n", description="r")
    assert captured_since(root, turn)


# -- one accessor -------------------------------------------------------------------------
# A palace path in the drafts folder written as a literal: "inbox/...", ".../inbox/...".
_PATHLIKE = re.compile(r"(?:^|[/\s(`'\"])inbox/|/inbox(?:/|$)")
# where the bare word "inbox" is a name and no path: the setting's key, the app's screen (its
# mode and keys.toml prefix), the keys of JSON state and answers
NAMES = {
    "config/schema.py": 1,  # [palace] inbox = "inbox": the one definition of the default
    "config/__init__.py": 2,  # the key of [palace] inbox, in an error and in render_config
    "model/layouts/rules.py": 1,  # getattr(config, "inbox")
    "ui/app.py": 2,  # the Inbox screen's mode
    "ui/screens/inbox.py": 2,  # its mode and its keys' prefix ("inbox.promote")
    "ui/screens_list.py": 1,
    "agents/turns.py": 2,  # a key of the turn's JSON state
    "cli/sync_cmds.py": 1,  # a key of `sync --json`
    "cli/interop_cmds.py": 1,  # a key of `init --adopt --json`
}
REFS = {"refs/curator/inbox", "refs/curator/remote-inbox/"}  # git refs, not folders


def _literals(tree: ast.AST) -> list[str]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def test_no_inbox_path_is_written_outside_the_setting() -> None:
    package = Path(curator.__file__).parent
    stray: list[str] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        literals = _literals(ast.parse(path.read_text(encoding="utf-8")))
        names = [s for s in literals if s == "inbox"]
        if len(names) > NAMES.get(rel, 0):
            stray.append(f'{rel}: "inbox" {len(names)} time(s)')
        for text in literals:
            if text != "inbox" and text not in REFS and _PATHLIKE.search(text):
                stray.append(f"{rel}: {text!r}")
    assert not stray, "use Config.inbox / Palace.inbox / discovery.inbox_of:\n" + "\n".join(stray)


def _findings(run_cli: RunCli, root: Path, code: str) -> list[dict[str, object]]:
    _, out, _ = run_cli("--palace", root, "check", "--json")
    return [f for f in json.loads(out)["findings"] if f["code"] == code]


def test_check_reports_drafts_left_in_the_folder_palace_toml_named_before(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """`[palace] inbox` changed after drafts were captured: the drafts in the old folder are
    out of every reader's sight, so check names the folder, the count and the move; a note
    the person keeps there (no draft header, or tracked by git) is not counted."""
    root = tmp_path / "palace"
    code, _, err = run_cli("init", str(root))
    assert code == 0, err
    for name in ("Rotate the key", "Retry the webhook"):
        capture(root, type="project", name=name, body="Body.\n", description="d")
    (root / "inbox" / "mine.md").write_text("my own list, not a draft\n")
    assert _findings(run_cli, root, "inbox.left-behind") == []
    toml = (root / "palace.toml").read_text()
    (root / "palace.toml").write_text(toml.replace('inbox = "inbox"', 'inbox = "drafts"'))
    (root / ".gitignore").write_text((root / ".gitignore").read_text() + "/drafts/\n")
    git(root, "commit", "-qam", "drafts live in drafts/")

    [left] = _findings(run_cli, root, "inbox.left-behind")
    assert left["path"] == "inbox/" and left["severity"] == "warning"
    assert "2 draft(s) left in inbox/" in str(left["message"]) and "drafts/" in str(left["message"])
    (root / "drafts").mkdir()
    for draft in (root / "inbox").iterdir():
        if draft.name != "mine.md":
            draft.rename(root / "drafts" / draft.name)
    assert _findings(run_cli, root, "inbox.left-behind") == []
    assert len(Palace.open(root).drafts) == 2


def test_check_warns_when_the_drafts_folder_is_not_git_ignored(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """init and adopt ignore the drafts folder in every layout; check says so when a
    .gitignore lost the line (or a renamed folder never got one)."""
    root = tmp_path / "palace"
    code, _, err = run_cli("init", str(root))
    assert code == 0, err
    assert _findings(run_cli, root, "inbox.not-ignored") == []
    (root / ".gitignore").write_text("/.curator/\n")
    [found] = _findings(run_cli, root, "inbox.not-ignored")
    assert found["path"] == ".gitignore" and "/inbox/" in str(found["message"])
    toml = (root / "palace.toml").read_text()
    (root / "palace.toml").write_text(toml.replace('inbox = "inbox"', 'inbox = "Drafts"'))
    (root / ".gitignore").write_text("/.curator/\n/inbox/\n")
    [found] = _findings(run_cli, root, "inbox.not-ignored")
    assert "/Drafts/" in str(found["message"])

"""Rooms follow the layout: a vault's (Obsidian, a plain folder, basic-memory) are its top-level
folders, the notes at its root in one room named for the root; curator's and Claude Code's are
the types. The model decides; `list --json` and the app's Rooms screen show the same rooms."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import pytest
from palacehelpers import RunCli, git_init_commit, index_now
from test_layout_app import open_rooms
from textual.widgets import OptionList
from vaultrules import write_vault

from curator.model.palace import Palace
from curator.ui.app import CuratorApp

pytestmark = pytest.mark.anyio

FILES = {
    "Home.md": "# Home\n\nSee [[Dune]].\n",
    "Inbox note.md": "loose at the root\n",
    "Books/Dune.md": "---\ntags: [book]\n---\n# Dune\n",
    "Books/Sci-fi/Foundation.md": "# Foundation\n",
    "Projects/Alpha.md": "---\ncurator:\n  status: superseded\n---\n# Alpha\n",
    "Projects/Beta.md": "---\ntitle: [unclosed\n---\n# Beta\n",
    "Projects/Gamma.md": "---\ntype: project\n---\n# Gamma\n",
    "assets/pic.png": "png\n",
}
ROOMS = [
    ("/", "vault", ["Home.md", "Inbox note.md"]),
    ("Books/", "Books", ["Books/Dune.md", "Books/Sci-fi/Foundation.md"]),
    ("Projects/", "Projects", ["Projects/Beta.md", "Projects/Gamma.md"]),
]


def make_vault(root: Path, layout: str) -> Path:
    files = {**FILES, ".obsidian/app.json": "{}\n"} if layout == "obsidian" else FILES
    return write_vault(root, layout, files)


def shape(palace: Palace) -> list[tuple[str, str, list[str]]]:
    return [(r.spec.name, r.spec.room, [n.rel for n in r.notes]) for r in palace.rooms()]


@pytest.mark.parametrize("layout", ["obsidian", "folder", "basic-memory"])
def test_a_vaults_rooms_are_its_top_level_folders(tmp_path: Path, layout: str) -> None:
    palace = Palace.open(make_vault(tmp_path / "vault", layout), cache=False)
    assert shape(palace) == ROOMS  # nested folders in their top folder; no attachment room
    assert [n.rel for n in palace.superseded_notes()] == ["Projects/Alpha.md"]
    assert palace.unfiled() == []  # a header that did not parse sits in its folder
    assert palace.room("Books/") is not None and palace.room("Nowhere/") is None


def test_curator_rooms_stay_by_type(tmp_path: Path) -> None:
    from palacehelpers import note_text

    root = tmp_path / "p"
    for rel, text in {
        "notes/project/a.md": note_text("Alpha"),
        "notes/misc/b.md": note_text("Beta", type="user"),
        "notes/misc/c.md": note_text("Gamma", type="bogus"),
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "palace.toml").write_text('[index]\nembedder = "hash"\ndim = 64\n')
    palace = Palace.open(root, cache=False)
    rooms = {r.spec.name: [n.rel for n in r.notes] for r in palace.rooms()}
    assert list(rooms) == list(palace.config.types)  # every type, in taxonomy order
    assert rooms["project"] == ["notes/project/a.md"] and rooms["user"] == ["notes/misc/b.md"]
    assert [n.rel for n in palace.unfiled()] == ["notes/misc/c.md"]


def test_folder_rooms_of_a_replaced_palace_match_a_fresh_one(tmp_path: Path) -> None:
    palace = Palace.open(make_vault(tmp_path / "vault", "obsidian"), cache=False)
    shape(palace)  # builds the groups replaced() then patches
    after = palace.replaced(
        {
            "Home.md": None,
            "Inbox note.md": None,  # the root's room empties and goes
            "Travel/Rome.md": b"# Rome\n",  # a new folder opens a room
            "Projects/Gamma.md": b"---\ncurator:\n  status: retired\n---\n",
        }
    )
    fresh = Palace(after.root, after.config, after.notes, after.drafts)
    assert shape(after) == shape(fresh)
    assert shape(after) == [
        ("Books/", "Books", ["Books/Dune.md", "Books/Sci-fi/Foundation.md"]),
        ("Projects/", "Projects", ["Projects/Beta.md"]),
        ("Travel/", "Travel", ["Travel/Rome.md"]),
    ]
    assert shape(palace) == ROOMS  # the original is unchanged


def test_list_json_names_each_notes_room(tmp_path: Path, run_cli: RunCli) -> None:
    root = make_vault(tmp_path / "vault", "obsidian")
    code, out, err = run_cli("--palace", root, "list", "--json")
    assert code == 0, err
    rooms = {n["path"]: n["room"] for n in json.loads(out)["notes"]}
    assert rooms == {
        "Home.md": "vault",
        "Inbox note.md": "vault",
        "Books/Dune.md": "Books",
        "Books/Sci-fi/Foundation.md": "Books",
        "Projects/Alpha.md": None,  # superseded
        "Projects/Beta.md": "Projects",
        "Projects/Gamma.md": "Projects",
    }


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_apps_rooms_are_the_vaults_folders(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault", "obsidian")
    git_init_commit(root)
    index_now(root)
    app = CuratorApp(root, today=date(2026, 12, 1), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_rooms(pilot, app)
        rooms = screen.query_one("#rooms-list", OptionList)
        labels = [str(rooms.get_option_at_index(i).prompt) for i in range(rooms.option_count)]
        assert labels == ["  2 vault", "  2 Books", "  2 Projects", "  1 Superseded"]
        assert screen.room == "/"  # the first room with notes
        assert [n.rel for n in screen.notes] == ["Home.md", "Inbox note.md"]
        rooms.focus()
        await pilot.press("down")
        loop = asyncio.get_running_loop()
        end = loop.time() + 120  # a hang becomes a failure; a loaded machine is slow, not hung
        while screen.room != "Books/":
            assert loop.time() < end, f"down on the rooms list left {screen.room!r} shown"
            await pilot.pause(0.05)
        assert screen.list_title() == "Books (2)"
        assert [n.rel for n in screen.notes] == ["Books/Dune.md", "Books/Sci-fi/Foundation.md"]

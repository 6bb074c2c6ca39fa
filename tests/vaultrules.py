"""One small vault per rule of how Obsidian (or a plain folder of markdown) reads its files,
each built from Obsidian's help pages, with the findings `curator check` should give on it.

`RULES[name]` is (layout, files, expected findings as (path, severity, code)); `make(root,
name)` writes it with its palace.toml. A tuple file value is bytes written as they are.
"""

from __future__ import annotations

from pathlib import Path

OBSIDIAN_DIR = {".obsidian/app.json": "{}\n"}

RULES: dict[str, tuple[str, dict[str, str], list[tuple[str, str, str]]]] = {
    # `.md` is appended to a last segment with a dot unless a file of that name exists
    "dotted-names": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Notes/v1.2 Release.md": "# v1.2 Release\n\n## Changes\n",
            "assets/scan.v2.png": "png\n",
            "Home.md": "[[Notes/v1.2 Release]], [[v1.2 Release#Changes]], ![[scan.v2.png]]\n",
        },
        [],
    ),
    # headings are compared after Obsidian strips special characters; backticks go too
    "special-headings": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "b.md": "## Setup & Config?\n\n## `run()` options\n\n## Q&A: why/how\n",
            "a.md": "[[b#Setup Config]] [[b#Setup & Config?]] [[b#run options]]\n"
            "[[b#Q A why how]] [[b#Missing part]]\n",
        },
        [("a.md", "warning", "link.heading")],
    ),
    # dot-folders are not part of the vault: not loaded, linked or backlinks
    "dot-folders": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Home.md": "# Home\n",
            ".github/README.md": "[[Nowhere]] and [[Home]]\n",
            ".trash/Old.md": "---\ntags: {{tags}}\n---\n[[Home]]\n",
        },
        [],
    ),
    # links in properties are links: checked, and backlinks of their targets
    "property-links": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Home.md": "# Home\n",
            "Books.md": "# Books\n",
            "Dune.md": '---\ncategories: ["[[Books]]"]\nup: "[[Home]]"\nsee: "[[Missing]]"\n---\n',
        },
        [("Dune.md", "warning", "link.broken")],
    ),
    # a raw [[Alias]] does not resolve through another note's aliases
    "aliases": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Alpha Plan.md": "---\naliases: [AP]\n---\n# Plan\n",
            "Home.md": "[[Alpha Plan|AP]] and [[AP]]\n",
        },
        [("Home.md", "warning", "link.broken")],
    ),
    # an unresolved link is normal in Obsidian (a click creates the note): a warning
    "unresolved": (
        "obsidian",
        {**OBSIDIAN_DIR, "Home.md": "Ideas for [[Someday]].\n"},
        [("Home.md", "warning", "link.broken")],
    ),
    # the Templates plugin's folder holds templates, not notes
    "templates": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            ".obsidian/templates.json": '{"folder": "Meta/Templates"}\n',
            "Meta/Templates/Daily.md": "---\ncreated: {{date}}\ntags: [daily]\n---\n"
            "# {{title}}\n\n[[{{date:YYYY-MM-DD}}]]\n",
            "Home.md": "Start from [[Daily]].\n",
        },
        [],
    ),
    # the core plugin's default folder when templates.json names none
    "templates-default": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            ".obsidian/core-plugins.json": '["file-explorer", "templates"]\n',
            "Templates/Meeting.md": "---\ndate: {{date}}\n---\n# {{title}}\n",
            "Home.md": "# Home\n",
        },
        [],
    ),
    # a vault whose .obsidian/ is not in git, read as a folder: by file name anywhere
    "folder-by-name": (
        "folder",
        {
            "A/Meeting.md": "# A\n",
            "B/Meeting.md": "# B\n",
            "assets/pic.png": "png\n",
            "notes/Home.md": "![[pic.png]] [[A/Meeting]] [[Home]] [[Meeting]]\n",
        },
        [("notes/Home.md", "error", "link.ambiguous")],
    ),
    # an empty list item is valid YAML (a null item): an empty tag
    "empty-tag": (
        "obsidian",
        {**OBSIDIAN_DIR, "Home.md": "---\ntags:\n- \n---\n# Home\n"},
        [],
    ),
    # a header that does not parse is one finding; the body's headings and links still count
    "bad-header": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Bad.md": "---\ntitle: [unclosed\n---\n## Section\n\nSee [[Other]].\n",
            "Other.md": "Back to [[Bad#Section]].\n",
        },
        [("Bad.md", "error", "header.yaml")],
    ),
    # a markdown link may leave out `.md` and is URL-encoded; it reaches notes and files as a
    # wikilink does (a web address is no vault link)
    "markdown-links": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Notes/Three laws.md": "# Three laws\n\n## First law\n",
            "report.pdf": "pdf\n",
            "Home.md": "[laws](Notes/Three%20laws), [first](Three%20laws#First%20law), "
            "[pdf](report.pdf), [gone](Nowhere), [web](https://obsidian.md)\n",
        },
        [("Home.md", "warning", "link.broken")],
    ),
    # front matter never closed: the lines after the opening '---' are the body, as Obsidian
    # reads them (the '---' a rule); the header is the one finding
    "unclosed-header": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Bad.md": "---\ntitle: Bad\n## Section\n\nSee [[Other]].\n",
            "Other.md": "Back to [[Bad#Section]].\n",
        },
        [("Bad.md", "error", "header.unclosed")],
    ),
    "unclosed-header-folder": (
        "folder",
        {
            "Bad.md": "---\r\ntitle: Bad\r\n## Section\r\n\r\nSee [[Other]].\r\n",
            "Other.md": "Back to [[Bad#Section]].\n",
        },
        [("Bad.md", "error", "header.unclosed")],
    ),
    # Obsidian's Untitled.md: an empty note
    "empty-note": (
        "obsidian",
        {**OBSIDIAN_DIR, "Untitled.md": "", "Blank.md": "\n\n"},
        [],
    ),
    "empty-note-folder": ("folder", {"Untitled.md": ""}, []),
    # the vault's own properties are the vault's; curator's own live under `curator:`
    "vault-properties": (
        "obsidian",
        {
            **OBSIDIAN_DIR,
            "Active.md": "# Active\n",
            "Task.md": '---\nstatus: ["[[Active]]"]\n---\n',
            "Book.md": "---\nstatus: [reading, owned]\ncreated: last spring\n"
            "confidence: high\n---\n",
            "Old.md": "---\ncurator:\n  status: superseded\n  confidence: 7\n---\n",
        },
        [("Old.md", "warning", "header.invalid")],
    ),
    # basic-memory owns title, type, permalink and tags; the rest is the project's own
    "project-properties": (
        "basic-memory",
        {
            "Active.md": "---\ntitle: Active\npermalink: active\n---\n# Active\n",
            "Task.md": '---\ntitle: Task\nstatus: ["[[Active]]"]\n---\n',
            "Book.md": "---\ntitle: Book\nstatus: [reading, owned]\ncreated: last spring\n"
            "confidence: high\n---\n",
            "Old.md": "---\ntitle: Old\ncurator:\n  status: superseded\n  confidence: 7\n---\n",
        },
        [("Old.md", "warning", "header.invalid")],
    ),
}


def make(root: Path, name: str) -> Path:
    layout, files, _ = RULES[name]
    return write_vault(root, layout, files)


def write_vault(root: Path, layout: str, files: dict[str, str]) -> Path:
    """`files` under `root` with a palace.toml naming `layout` (and the hash embedder)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    (root / "palace.toml").write_text(
        f'[palace]\nlayout = "{layout}"\n\n[index]\nembedder = "hash"\ndim = 64\n'
    )
    return root

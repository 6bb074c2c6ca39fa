"""A generator of small Obsidian vaults holding every link shape Obsidian reads, and the
text that only looks like links: deterministic for a seed, a few dozen files.

Files: notes of one name in several folders (the root, the linking note's own folder, a
shorter and a longer path: the tie-break), names with spaces, dots, `&`, parentheses and
accents, attachments (png, pdf, canvas, base, csv; dotted names; one without an extension),
templates, a dot-folder, and a note with NUL bytes in its text.

Links: wikilinks by name and by path, with `.md` or without, in another case, with
`#heading`, `#^block` and `|alias`, embeds, `\\|` in a table; markdown links URL-encoded or
with raw balanced parentheses, in `<...>`, with a title, `.md` left out, relative (`../`,
`./`) or from the vault root, images, reference links (`[t][r]`, `[r][]`, `[r]`) with their
definitions; links in properties. Not links: code fences (also indented inside a list item),
indented code, code spans, inline and block math (`$[(TS)R](u)$`), footnotes, external URLs,
a destination with a raw space.
"""

from __future__ import annotations

import posixpath
import random
from pathlib import Path
from urllib.parse import quote

FOLDERS = ["", "Notes", "Notes/Sub", "Archive/2024", "zzzz", "a/b", "b", ".trash", "Templates"]
NAMES = ["Note", "Alpha", "alpha", "v1.2 Release", "Q&A", "Plan.v2", "Home",
         "Setup (old)", "Cross-Site Scripting (XSS)", "Café", "Log"]  # fmt: skip
ATTACHMENTS = ["pic.png", "scan.v2.png", "report.pdf", "board.canvas", "tasks.base",
               "data.v1.csv", "Plan.v2"]  # fmt: skip
HEADINGS = ["Setup & Config?", "`run()` options", "Q&A: why/how", "Goals", "Ünïcode héading",
            "v1.2 notes", "Tom's idea (draft)"]  # fmt: skip
# the ways a link names a heading: as written (less backticks, which would make a code span
# of the link), as Obsidian strips it, another case, wrong
HEADING_FORMS = [lambda h: h, lambda h: " ".join(
    "".join(" " if c in "!\"#$%&()*+,.:;<=>?@^`{|}~/[]\\" else c for c in h).split()
), str.upper, lambda h: h + " nope"]  # fmt: skip
TOML = '[palace]\nlayout = "obsidian"\n\n[index]\nembedder = "hash"\ndim = 64\n'
ALIASES = ["AP", "Start", "Q&A"]


class _Links:
    """Link targets for one vault."""

    def __init__(self, rng: random.Random, notes: list[str], files: list[str]) -> None:
        self.rng, self.notes, self.files = rng, notes, files

    def anchor(self) -> str:
        rng = self.rng
        if rng.random() < 0.6:
            return ""
        if rng.random() < 0.2:
            return "#^" + rng.choice(["b1", "b2", "zz"])  # ^zz is only ever in code
        heading = rng.choice([*HEADINGS, "Fake heading in a list"])  # that one is in code
        return "#" + rng.choice(HEADING_FORMS)(heading.replace("`", ""))

    def name(self, source: str) -> str:
        """A link target as a wikilink names it: a note or file, by name or path."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.5:
            rel = rng.choice(self.notes)
            name = rel[:-3] if rng.random() < 0.8 else rel
            if rng.random() < 0.5:
                name = name.rsplit("/", 1)[-1]
        elif kind < 0.7:
            name = rng.choice([*ATTACHMENTS, "missing.png"])
        elif kind < 0.8:
            name = rng.choice(ALIASES)
        elif kind < 0.9:  # relative to the linking note
            name = _relative(source, rng.choice(self.notes))[:-3]
        else:
            name = rng.choice(["Nowhere", "Notes/v1.2 Release", "b/Note", "Plan.v2", "Daily"])
        if rng.random() < 0.15:
            name = name.swapcase()
        return name

    def path(self, source: str) -> str:
        """A markdown destination's path, decoded: a vault path, a relative one, a name."""
        rng = self.rng
        rel = rng.choice([*self.notes, *self.files, "Nowhere.md", "Notes/missing (x).md"])
        form = rng.random()
        if form < 0.35:
            path = rel
        elif form < 0.6:
            path = _relative(source, rel)
        elif form < 0.8:
            path = rel.rsplit("/", 1)[-1]
        else:
            path = "./" + rel.rsplit("/", 1)[-1]
        if path.endswith(".md") and rng.random() < 0.4:
            path = path[:-3]  # Obsidian: a note's link may leave out `.md`
        if rng.random() < 0.1:
            path = path.swapcase()
        return path


def _relative(source: str, target: str) -> str:
    rel = posixpath.relpath(target, posixpath.dirname(source) or ".")
    return rel if rel.startswith("../") else "./" + rel


def _encoded(path: str, rng: random.Random) -> str:
    """A destination as Obsidian or a person writes it: spaces (and more) percent-encoded;
    parentheses raw (they balance) or encoded."""
    return quote(path, safe="/()" if rng.random() < 0.5 else "/")


def markdown_link(links: _Links, source: str, text: str = "t") -> str:
    rng = links.rng
    path, anchor = links.path(source), links.anchor()
    encoded_anchor = quote(anchor[1:], safe="") if anchor else ""
    hashed = "#" + encoded_anchor if anchor else ""
    form = rng.random()
    if form < 0.2:  # `<...>`: spaces and parentheses may stay raw
        return f"[{text}](<{path}{anchor}>)"
    if form < 0.35:
        return f'[{text}]({_encoded(path, rng)}{hashed} "A title")'
    if form < 0.45:
        return f"![{text}]({_encoded(path, rng)}{hashed})"
    return f"[{text}]({_encoded(path, rng)}{hashed})"


def note_body(links: _Links, source: str) -> str:
    rng = links.rng
    out: list[str] = []
    for heading in rng.sample(HEADINGS, rng.randint(0, 3)):
        out.append(f"## {heading}\n")
        out.append(
            f"Text with [[{links.name(source)}{links.anchor()}]] in it. ^b{rng.randint(1, 2)}\n"
        )
    out.append(f"See ![[{links.name(source)}{links.anchor()}]] and `[[not a link]]`.\n")
    out.append(f"Also {markdown_link(links, source, 'this')}, [web](https://example.org/Home), "
               f"[here](#Goals) and ``[x](Home) `x` ``.\n")  # fmt: skip
    out.append(f"| a | b |\n|---|---|\n| [[{links.name(source)}\\|shown]] | x |\n")
    out.append("```\n## Fake heading\n[[In code]]\n[x](In%20code)\n```\n")
    out.append("    [[Indented code]] [t](indented.md)\n")
    out.append(
        "- a list item\n"
        f"- with {markdown_link(links, source)} and a fence in it:\n"
        "    ```php\n"
        "    call_user_func_array([$obj, 'run']($this,$params)); ^zz\n"
        "    ## Fake heading in a list\n"
        "    [[Inside fence]]\n"
        "    ```\n"
        "  ~~~\n  [t](tilde%20fence.md)\n  ~~~\n"
    )
    out.append(f"Math: $[(TS)R](u)$ and $$[[Math]]$$, cost 5$ [[{links.name(source)}]].\n")
    out.append("$$\n[a](in%20math.md) [[In math]]\n$$\n")
    out.append("A raw space is no link: [w](Notes/v1.2 Release.md).\n")
    labels = [f"r{i}" for i in range(rng.randint(0, 3))]
    uses = []
    for i, label in enumerate(labels):
        uses.append([f"[text {i}][{label}]", f"[{label}][]", f"[{label}]"][i % 3])
    if uses:
        out.append("References: " + ", ".join(uses) + ". A footnote[^1].\n")
    out.append("")
    for label in labels:
        path, anchor = links.path(source), links.anchor()
        dest = _encoded(path, rng) + ("#" + quote(anchor[1:], safe="") if anchor else "")
        out.append(f"[{label}]: {dest}")
    out.append("[^1]: Smith 2020")
    return "\n".join(out) + "\n"


def generate(root: Path, seed: int) -> None:
    """A vault at `root` (created) for `seed`, with a palace.toml reading it as Obsidian."""
    rng = random.Random(seed)
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}\n')
    notes: list[str] = []
    # one name in several places: the root, a shorter and a longer path, a deeper folder
    for rel in rng.sample(
        ["Note.md", "zzzz/Note.md", "a/b/Note.md", "b/Note.md"], rng.randint(1, 4)
    ):
        notes.append(rel)
    for _ in range(rng.randint(8, 16)):
        rel = f"{rng.choice(FOLDERS)}/{rng.choice(NAMES)}.md".lstrip("/")
        if rel.lower() not in {f.lower() for f in notes}:
            notes.append(rel)
    files: list[str] = []
    for name in rng.sample(ATTACHMENTS, rng.randint(1, len(ATTACHMENTS))):
        rel = f"{rng.choice(FOLDERS[:5])}/{name}".lstrip("/")
        if rel.lower() not in {f.lower() for f in notes + files}:
            files.append(rel)
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"\x89PNG")
    visible = [n for n in notes if not n.startswith((".", "Templates/"))] or ["Nowhere.md"]
    links = _Links(rng, visible, files)
    for number, rel in enumerate(notes):
        lines = ["---"]
        if rng.random() < 0.4:
            lines.append(f"aliases: [{rng.choice(ALIASES)}]")
        if rng.random() < 0.5:
            lines.append(f'up: "[[{links.name(rel)}{links.anchor()}]]"')
        if rng.random() < 0.3:
            items = ", ".join(f'"[[{links.name(rel)}]]"' for _ in range(2))
            lines.append(f"categories: [{items}]")
        if rel.startswith("Templates/"):
            lines.append("created: {{date}}")
        lines.append("---")
        header = "\n".join(lines) + "\n" if len(lines) > 2 else ""
        body = note_body(links, rel)
        if number == 1:  # NUL bytes in the text: Obsidian opens the note and reads its links
            body = body.replace("Also ", "Also \x00\x00", 1)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + body, encoding="utf-8")
    (root / "palace.toml").write_text(TOML)

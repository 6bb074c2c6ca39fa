"""curator's Obsidian link resolution against the reference resolver written from Obsidian's
help pages (tests/obsidian_reference.py), on generated vaults with dotted names, dot-folders,
special-character headings, property links, markdown links (URL-encoded, `.md` optional),
aliases, attachments and templates."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from obsidian_reference import Answer, Vault

from curator.model.palace import Palace

FOLDERS = ["", "Notes", "Notes/Sub", "Archive/2024", ".trash", ".github", "Templates"]
NAMES = ["Alpha", "alpha", "v1.2 Release", "Meeting", "Q&A", "Plan.v2", "Home", "Setup (old)"]
ATTACHMENTS = ["pic.png", "scan.v2.png", "report.pdf", "Plan.v2", "data.v1.csv"]
HEADINGS = ["Setup & Config?", "`run()` options", "Q&A: why/how", "Goals", "Ünïcode héading",
            "v1.2 notes", "Tom's *bold* idea"]  # fmt: skip
# the ways a link names a heading: as written (less backticks, which would make a code span
# of the link), as Obsidian strips it, another case, wrong
HEADING_FORMS = [lambda h: h, lambda h: " ".join(
    "".join(" " if c in "!\"#$%&()*+,.:;<=>?@^`{|}~/[]\\" else c for c in h).split()
), str.upper, lambda h: h + " nope"]  # fmt: skip
TOML = '[palace]\nlayout = "obsidian"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def link_text(rng: random.Random, files: list[str], aliases: list[str]) -> str:
    kind = rng.random()
    if kind < 0.45:  # a note: by name, by path, with or without .md, in another case
        rel = rng.choice([f for f in files if f.endswith(".md")] or ["Nowhere.md"])
        name = rel[:-3] if rng.random() < 0.8 else rel
        if rng.random() < 0.5:
            name = name.rsplit("/", 1)[-1]
        if rng.random() < 0.2:
            name = name.swapcase()
    elif kind < 0.65:
        name = rng.choice([*ATTACHMENTS, "missing.png"])
    elif kind < 0.8:
        name = rng.choice(aliases or ["AP"])
    else:
        name = rng.choice(["Nowhere", "Notes/v1.2 Release", "v1.2 Release", "Plan.v2", "Daily"])
    anchor = ""
    if rng.random() < 0.4:
        if rng.random() < 0.2:
            anchor = "#^" + rng.choice(["b1", "b2", "zz"])
        else:
            anchor = "#" + rng.choice(HEADING_FORMS)(rng.choice(HEADINGS).replace("`", ""))
    return name + anchor


def markdown_href(text: str) -> str:
    """A link as Obsidian writes it in markdown: URL-encoded, `.md` as the name has it."""
    path, hash_, anchor = text.partition("#")
    return quote(path, safe="/") + hash_ + quote(anchor, safe="")


def generate(root: Path, seed: int) -> None:
    rng = random.Random(seed)
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}\n')
    files: list[str] = []
    for _ in range(rng.randint(8, 18)):
        folder = rng.choice(FOLDERS)
        rel = f"{folder}/{rng.choice(NAMES)}.md".lstrip("/")
        if rel.lower() not in {f.lower() for f in files}:
            files.append(rel)
    for name in rng.sample(ATTACHMENTS, rng.randint(1, len(ATTACHMENTS))):
        rel = f"{rng.choice(FOLDERS[:4])}/{name}".lstrip("/")
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"\x89PNG")
    aliases = ["AP", "Start", "Q&A"]
    for rel in files:
        lines = ["---"]
        if rng.random() < 0.4:
            lines.append(f"aliases: [{rng.choice(aliases)}]")
        if rng.random() < 0.5:
            lines.append(f'up: "[[{link_text(rng, files, aliases)}]]"')
        if rng.random() < 0.3:
            items = ", ".join(f'"[[{link_text(rng, files, aliases)}]]"' for _ in range(2))
            lines.append(f"categories: [{items}]")
        if rel.startswith("Templates/"):
            lines.append("created: {{date}}")
        lines.append("---")
        header = "\n".join(lines) + "\n" if len(lines) > 2 else ""
        body = []
        for heading in rng.sample(HEADINGS, rng.randint(0, 3)):
            body.append(f"## {heading}\n")
            body.append(
                f"Text with [[{link_text(rng, files, aliases)}]] in it. ^b{rng.randint(1, 2)}\n"
            )
        body.append("```\n## Fake heading\n[[In code]]\n[x](In%20code)\n```\n")
        body.append(f"See ![[{link_text(rng, files, aliases)}]] and `[[not a link]]`.\n")
        body.append(
            f"Also [this]({markdown_href(link_text(rng, files, aliases))}), "
            f"[web](https://example.org/Home) and `[x](Home)`.\n"
        )
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + "\n".join(body), encoding="utf-8")
    (root / "palace.toml").write_text(TOML)


def curator_answers(palace: Palace, rel: str) -> list[Answer]:
    table = palace.link_table()
    out = []
    for link in palace.by_rel[rel].links:
        text = link.target + (f"#{link.heading}" if link.heading else "")
        resolved = table.resolve(rel, link)
        problem = resolved.problem[1] if resolved.problem else None
        out.append(Answer(text, resolved.target, problem not in ("link.heading", "link.block")))
    return out


def compare(root: Path) -> int:
    reference = Vault(root)
    palace = Palace.open(root, cache=False)
    assert sorted(n.rel for n in palace.notes) == reference.notes()
    count = 0
    for rel in reference.notes():
        links = reference.links(rel)
        expected = [reference.resolve_link(rel, text, md) for text, md in links]
        assert curator_answers(palace, rel) == expected, rel
        count += len(expected)
    return count


def test_generated_vaults_agree_on_every_link(tmp_path: Path) -> None:
    total = sum(compare(_vault(tmp_path / str(seed), seed)) for seed in range(20))
    assert total > 400  # the vaults are not trivially small


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_any_generated_vault_agrees(seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        compare(_vault(Path(folder) / "v", seed))


def _vault(root: Path, seed: int) -> Path:
    generate(root, seed)
    return root

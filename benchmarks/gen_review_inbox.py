"""Write a review inbox into a palace: N drafts, each with the action a reviewer takes on it.

    python benchmarks/gen_review_inbox.py PALACE [--drafts 50] [--seed 1]

The drafts are what a real inbox holds after agents ran for a while: duplicates of existing
notes (one to merge in, one that supersedes its note), a near-duplicate pair among the drafts
themselves, a draft whose YAML header is broken, drafts with Rich markup (`[bold]x[/]`,
`[@click=app.quit]`) and with ANSI/OSC terminal escapes (a window title, a clipboard write, a
hyperlink) planted in the name and the body, wikilinks to existing notes, an unknown type the
reviewer must replace, and a loop of noise captured from one session. The list order in the
app is newest first, so `created` is set to make the inbox list them in `specs` order.

bench_tmux_review.py drives the app over these drafts and then checks each against its role.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen_palace import COMPONENTS, DRAFT_LINE, OBJECTS, TOOLS, VERBS, _slugify  # noqa: E402

#: what the planted escapes try to do; none of it may reach the terminal
TITLE_MARK = "pwned-title"
CLIP_MARK = "pwned-clipboard"
OSC_TITLE = f"\x1b]0;{TITLE_MARK}\x07"
OSC_CLIP = "\x1b]52;c;" + base64.b64encode(CLIP_MARK.encode()).decode() + "\x07"
OSC_LINK = "\x1b]8;;https://evil.invalid/\x1b\\click\x1b]8;;\x1b\\"
NOISE_SESSION = "sess-loop-noise"
_MD_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+\.md)\)")
#: roles every inbox has, in list order (the test's 14 drafts)
CORE = (
    "promote",
    "retype",
    "noise",
    "merge",
    "escapes",
    "pair_a",
    "pair_b",
    "noise",
    "malformed",
    "markup",
    "supersede",
    "batch",
    "batch",
    "batch",
)
#: what fills a bigger inbox, cycled
FILL = (
    "promote",
    "noise",
    "reject",
    "batch",
    "batch",
    "batch",
    "retype",
    "bulkpromote",
    "bulkpromote",
    "bulkpromote",
    "reject",
    "promote",
)
UNKNOWN_TYPE = "lesson"
NEW_TYPE = "feedback"  # what the reviewer picks for a draft of an unknown type
BULK_TYPE = "reference"  # the one type of a bulk promote


@dataclass
class DraftSpec:
    """One draft and what the reviewer does with it."""

    index: int
    role: str
    rel: str  # inbox/rNN-....md
    name: str  # as the app shows it ('' when the header does not parse)
    type: str
    target: str = ""  # the note merged into or superseded (rel), or the pair's first draft
    target_name: str = ""

    @property
    def tag(self) -> str:
        """The file name's unique start ('r07-'), what the screens show of a draft's path."""
        return Path(self.rel).name.split("-", 1)[0] + "-"


def roles(count: int) -> list[str]:
    """The reviewer's action for each of `count` drafts, in list order."""
    out = list(CORE[:count])
    i = 0
    while len(out) < count:
        out.append(FILL[i % len(FILL)])
        i += 1
    # a block cut short at the end still needs two drafts to be a bulk action
    for block in ("batch", "bulkpromote"):
        if out[-1] == block and out[-2] != block:
            out[-1] = "reject"
    return out


def _targets(root: Path, rng: random.Random) -> list[tuple[str, str, str, str]]:
    """(rel, name, type, body) of notes a duplicate can be made of: active, typed, clean."""
    from curator.model.palace import Palace

    palace = Palace.open(root, cache=False)
    types = set(palace.config.types)
    notes = [
        n
        for n in palace.notes
        if n.type in types
        and n.status not in ("superseded", "draft")
        and not n.problems
        and len(n.body) > 80
    ]
    notes.sort(key=lambda n: n.rel)
    picked = rng.sample(notes, min(len(notes), 12))
    return [(n.rel, n.name, n.type, _portable(n.body)) for n in picked]


def _portable(body: str) -> str:
    """The body with its relative markdown links as wikilinks: a copy lives in another
    folder, where `../x.md` would point nowhere (an agent quoting a note does the same)."""
    return _MD_LINK.sub(lambda m: f"[[{Path(m.group(2)).stem}]]", body)


def _name(rng: random.Random, used: set[str]) -> str:
    while True:
        name = (
            f"The {rng.choice(COMPONENTS)} {rng.choice(VERBS)} "
            f"the {rng.choice(OBJECTS)} via {rng.choice(TOOLS)}"
        )
        if name not in used and len(name) <= 50:
            used.add(name)
            return name[0].upper() + name[1:]


def _sentences(rng: random.Random, count: int) -> str:
    out = []
    for _ in range(count):
        out.append(
            f"The {rng.choice(COMPONENTS)} {rng.choice(VERBS)} the {rng.choice(OBJECTS)} "
            f"when {rng.choice(TOOLS)} restarts."
        )
    return " ".join(s[0].upper() + s[1:] for s in out)


def _draft(name: str, description: str, type_: str, created: str, session: str, body: str) -> str:
    """A draft's text; `name` is written as a YAML double-quoted scalar (it may hold \\e)."""
    quoted = name.replace("\\", "\\\\").replace('"', '\\"').replace("\x1b", "\\e")
    quoted = quoted.replace("\x07", "\\a")
    return (
        f'---\nname: "{quoted}"\ndescription: {description}\ntype: {type_}\nstatus: draft\n'
        f"created: {created}\nsource: {{session: {session}}}\n---\n{DRAFT_LINE}\n\n{body}\n"
    )


def write_inbox(root: Path, count: int = 50, seed: int = 1) -> list[DraftSpec]:
    """Write `count` drafts into root/inbox/ (the existing drafts are removed first) and return
    them in the order the app lists them (newest first)."""
    rng = random.Random(seed)
    inbox = root / "inbox"
    inbox.mkdir(exist_ok=True)
    for old in inbox.glob("*.md"):
        old.unlink()
    targets = _targets(root, rng)
    if len(targets) < 2:
        raise SystemExit(f"{root}: needs two clean notes to duplicate")
    merge_t, supersede_t, *link_t = targets
    link_t = link_t or targets
    start = dt.datetime(2026, 11, 30, 23, 0)
    used: set[str] = set()
    specs: list[tuple[str, DraftSpec]] = []
    pair_a: DraftSpec | None = None
    for i, role in enumerate(roles(count)):
        created = (start - dt.timedelta(minutes=7 * i)).strftime("%Y-%m-%dT%H:%M:00Z")
        session = NOISE_SESSION if role == "noise" else f"sess-2026-11-30-{rng.getrandbits(16):04x}"
        link = Path(rng.choice(link_t)[0]).stem
        name = _name(rng, used)
        type_ = rng.choice(("feedback", "project", "reference"))
        desc = f"What happens when the {rng.choice(COMPONENTS)} meets a {rng.choice(OBJECTS)}."
        body = f"{_sentences(rng, 3)}\n\nSee [[{link}]]."
        target = target_name = ""
        if role == "retype":
            type_ = UNKNOWN_TYPE
        elif role == "noise":
            name = f"Loop capture {i}: {rng.choice(OBJECTS)} seen again"
            body = f"The agent captured this again. {_sentences(rng, 1)}"
        elif role in ("merge", "supersede"):
            target, target_name, type_, note_body = merge_t if role == "merge" else supersede_t
            name = f"{target_name} (seen again)" if role == "merge" else f"{target_name}, revised"
            name = name if len(name) <= 70 else name[:60] + " (again)"
            extra = _sentences(rng, 1)
            body = f"{note_body.strip()}\n\nNew since then: {extra}"
            desc = f"Restates {target_name[:40]} with one new fact."
        elif role == "pair_b" and pair_a is not None:
            name = f"{pair_a.name} (captured twice)"
            body = (inbox / Path(pair_a.rel).name).read_text(encoding="utf-8").split("\n\n", 1)[1]
            body = body.strip() + f"\n\nAlso: {_sentences(rng, 1)}"
            type_, target, target_name = pair_a.type, pair_a.rel, pair_a.name
        elif role == "escapes":
            name = f"Pasted terminal output {OSC_TITLE}with colours"
            body = (
                f"\x1b[31mFAILED\x1b[0m tests/test_x.py {OSC_TITLE}{OSC_CLIP}\n"
                f"\x1b[1;32m1 failed\x1b[0m {OSC_LINK} \x1b[2J\x1b[H\x9b31m\n\nSee [[{link}]]."
            )
        elif role == "markup":
            name = "[bold red]Shouty[/] markup [@click=app.quit]in a name[/]"
            body = (
                "[bold red]Flaky[/bold red] [@click=app.quit]Click me[/] "
                f"[link=https://evil.invalid]details[/link] and [[{link}]] stays a link.\n\n"
                + _sentences(rng, 2)
            )
        stem = f"r{i:02d}-{_slugify(name)[:28].strip('-')}"
        text = _draft(name, desc, type_, created, session, body)
        if role == "malformed":
            text = text.replace("type: ", "type: [unclosed, ", 1).replace(
                "description: ", "description: {oops: ", 1
            )
            name = ""
        spec = DraftSpec(i, role, f"inbox/{stem}.md", name, type_, target, target_name)
        (root / spec.rel).write_text(text, encoding="utf-8")
        if role == "pair_a":
            pair_a = spec
        specs.append((created if role != "malformed" else "", spec))
    # the app lists newest first; a header that does not parse has no date and comes last
    return [spec for _key, spec in sorted(specs, key=lambda s: (s[0], s[1].rel), reverse=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("palace", type=Path)
    parser.add_argument("--drafts", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for spec in write_inbox(args.palace, args.drafts, args.seed):
        print(f"{spec.rel:<44} {spec.role:<12} {spec.target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

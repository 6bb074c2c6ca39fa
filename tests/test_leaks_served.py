"""Every value an agent receives passes the gate (`curator.model.served`), not only a note's
own text. The palace below holds a reference to a hidden note in every field that can carry
one (superseded_by, supersedes, merged_from, a markdown link, a wikilink, a draft's name and
description, an action's reason, a stale reason), written every way a note is named (its path,
its slug, its name); no answer of CLI search, the MCP tools and resources or the hooks names
the hidden note."""

from __future__ import annotations

import json
from datetime import date
from itertools import product
from pathlib import Path

import pytest
from agenthelpers import hook_context
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import RunCli, copied_once, new_palace, note_text, run_main

from curator.agents.service import Memory
from curator.model.palace import Palace
from curator.model.served import WITHHELD, Served

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.ops-private]\nsensitive = true\n\n'
    '[index]\nembedder = "hash"\ndim = 64\n'
)
HIDDEN_REL = "notes/project/okapi-vault-runbook.md"
HIDDEN_DRAFT = "inbox/2026-01-01-okapi-hushed-draft.md"
FORMS = {
    "path": HIDDEN_REL,
    "slug": "okapi-vault-runbook",
    "name": "Okapi vault runbook",
}
# what must never reach an agent (the hidden note's and the hidden draft's names)
LEAKS = ("okapi-vault-runbook", "okapi vault runbook", "okapi-hushed", "okapi hushed draft")
TODAY = date.today().isoformat()
FIELDS = ("superseded_by", "supersedes", "merged_from", "md_link", "wikilink", "stale", "draft")
WORDS = "The zebu billing worker keeps its zebu retry rule"


def _files() -> dict[str, str]:
    files = {
        HIDDEN_REL: note_text(
            "Okapi vault runbook",
            body=f"{WORDS}; okapi vault secrets rotate.\n",
            extra="scope: ops-private\nconfidence: 0.9\n",
        ),
        HIDDEN_DRAFT: note_text(
            "Okapi hushed draft", body=f"{WORDS}.\n", extra="status: draft\nsensitive: true\n"
        ),
    }
    for field, (form, ref) in product(FIELDS, FORMS.items()):
        rel = f"notes/project/zebu-{field}-{form}.md"
        extra, body = "confidence: 0.9\n", f"{WORDS} ({field}, {form}).\n"
        if field == "superseded_by":
            extra += f"status: superseded\nsuperseded_by: {FORMS['slug']}\n"
        elif field in ("supersedes", "merged_from"):
            extra += f"{field}: ['{ref}']\n"
        elif field == "md_link":
            dest = ref.removesuffix(".md").replace(" ", "%20") + ".md"
            body += f"\nSee [the runbook](okapi-vault-runbook.md) and [it]({dest}).\n"
        elif field == "wikilink":
            body += f"\nSee [[{ref}]] and [[{ref}|the runbook]].\n"
        elif field == "stale":
            extra += f"stale: {{reason: 'contradicted by {ref}', since: {TODAY}}}\n"
        if field == "draft":
            rel = f"inbox/2026-01-02-zebu-{form}.md"
            files[rel] = note_text(
                f"Zebu report {form}",
                description=f"{ref} may be wrong",
                body=body,
                extra="status: draft\n",
            )
            continue
        files[rel] = note_text(f"Zebu {field} {form}", body=body, extra=extra)
    return files


def _leaks(text: str) -> list[str]:
    folded = text.casefold().replace("%20", " ")
    return [leak for leak in LEAKS if leak in folded]


def _around(text: str) -> list[str]:
    folded = text.casefold().replace("%20", " ")
    found = (folded.find(leak) for leak in LEAKS)
    return [folded[max(0, i - 120) : i + 40] for i in found if i >= 0]


def _build(base: Path) -> None:
    root = new_palace(base / "palace", _files(), toml=TOML)
    for form, ref in FORMS.items():  # an action's reason naming the hidden note
        rel = f"notes/project/zebu-merged_from-{form}.md"
        done = run_main(
            root, "--palace", str(root), "retire", rel, "--reason", f"folded into {ref}", "--yes"
        )
        assert done.returncode == 0, done.stderr


@pytest.fixture
def root(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A copy of the palace with its retirements committed, made once a run (`built_once`)."""
    return copied_once(tmp_path_factory, "leaks-served", _build, tmp_path / "palace")


def test_no_served_value_names_a_hidden_note(root: Path, run_cli: RunCli) -> None:
    memory = Memory(root)
    palace = Palace.open(root)
    answers: dict[str, object] = {
        "search": memory.search(WORDS, limit=50),
        "search superseded": memory.search(WORDS, status=["superseded"], limit=50),
        "ask": memory.ask(WORDS, limit=50),
        "pack": memory.pack(WORDS, budget=8000, floor=0.0),
        "inbox": memory.list_inbox(),
        "recent": memory.recent(days=30, limit=50),
    }
    assert answers["recent"]["changes"]  # type: ignore[index]
    for note in palace.all():
        if memory.visible(note):
            answers[f"read {note.rel}"] = memory.read_note(note.rel)
            answers[f"related {note.rel}"] = memory.related(note.rel, depth=3)
    _, out, _ = run_cli("--palace", root, "search", "--json", "--status", "superseded", WORDS)
    answers["cli search"] = out
    _, out, _ = run_cli("--palace", root, "search", "--status", "superseded", WORDS)
    answers["cli search text"] = out
    for where, answer in answers.items():
        text = answer if isinstance(answer, str) else json.dumps(answer)
        assert not _leaks(text), (where, _around(text))
    # the references to visible notes are still served
    assert "zebu" in json.dumps(answers["search"])


def test_hooks_name_no_hidden_note(root: Path) -> None:
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {})):
        text = hook_context(root, event, prompt=WORDS, **extra)
        assert not _leaks(text), (event, _leaks(text))


@settings(max_examples=60, deadline=None)
@given(
    before=st.text(alphabet="abc xyz.,:;()[]\n", max_size=12),
    after=st.text(alphabet="abc xyz.,:;()[]\n", max_size=12),
    form=st.sampled_from(sorted(FORMS)),
    upper=st.booleans(),
)
def test_text_naming_a_hidden_note_is_withheld(
    tmp_path_factory: pytest.TempPathFactory, before: str, after: str, form: str, upper: bool
) -> None:
    served = _served(tmp_path_factory)
    ref = FORMS[form].upper() if upper else FORMS[form]
    assert served.text(f"{before} {ref}, {after}") == WITHHELD  # a whole word
    assert served.text(f"{before}zebu{after}") == f"{before}zebu{after}"
    assert not served.ref(ref) and served.ref("zebu-stale-slug")


_SERVED: dict[str, Served] = {}


def _served(factory: pytest.TempPathFactory) -> Served:
    if "s" not in _SERVED:
        root = factory.mktemp("served")
        (root / "palace.toml").write_text(TOML)
        for rel, text in _files().items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        palace = Palace.open(root)
        _SERVED["s"] = Served(palace, palace.config)
    return _SERVED["s"]


# Hidden notes whose names share their short words with every other name (the, notes), or
# differ by case, hyphens or letters case folding changes.
_TRICKY = ("The retry queue", "the-retry-budget", "Straße Ops", "ĲSSEL dam", "The K-rate")


# Values made of the hidden names and their pieces, edges and wider case folding.
_PIECES = ("the", "retry", "queue", "-", " ", ".", "_", "/", "x", "notes/", "notes/project/")
_PARTS = st.lists(st.sampled_from([*_TRICKY, *_PIECES, "strasse", "ß", "Ⅻ"]), max_size=8)


@settings(max_examples=80, deadline=None)
@given(parts=_PARTS)
def test_hidden_names_are_found_as_the_one_pattern_finds_them(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    """`Served.text` compares a value only with the hidden names holding its longest word:
    it withholds every value the one pattern of every hidden name (path, slug, name) matches
    as a whole word, ignoring case (what it withholds beyond that, case folding's wider
    matches such as ß/ss, fails closed)."""
    import re

    served, terms = _tricky(tmp_path_factory)
    value = "".join(parts)
    alts = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w-])(?:{alts})(?![\w-])", re.IGNORECASE)
    if pattern.search(value):
        assert served.text(value) == WITHHELD, value
    elif value.casefold() == value.lower():  # no wider folding in play: the same answer
        assert served.text(value) == value


@settings(max_examples=80, deadline=None)
@given(parts=_PARTS)
def test_a_value_is_compared_with_every_term_it_may_hold(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    """The terms a value is compared with (those whose longest stretch of word characters
    and hyphens it holds) are all it can hold as a whole: the same answer as comparing it
    with every hidden term."""
    from curator.model.served import _holds

    served, _terms = _tricky(tmp_path_factory)
    served.text("x")  # the verdicts made
    every = [t for ts in served._by_run.values() for t in ts]
    folded = "".join(parts).casefold()
    assert served._names_in(folded) == any(_holds(folded, t) for t in every), folded


def test_a_slug_is_compared_only_with_terms_of_its_own_stretch(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # a slug sharing every word with hidden names ("the retry queue") is one stretch: no
    # hidden name is compared with it, where comparing by words compared it with them all
    served, _terms = _tricky(tmp_path_factory)
    assert served.text("check-the-retry-queue-first") == "check-the-retry-queue-first"
    assert served._terms_for("check-the-retry-queue-first") == []
    assert served._terms_for("see the-retry-budget") == ["the-retry-budget"]


_TRICKY_SERVED: dict[str, tuple[Served, set[str]]] = {}


def _tricky(factory: pytest.TempPathFactory) -> tuple[Served, set[str]]:
    if "s" not in _TRICKY_SERVED:
        root = factory.mktemp("tricky")
        (root / "palace.toml").write_text(TOML)
        (root / "notes/project").mkdir(parents=True)
        for i, name in enumerate(_TRICKY):
            text = note_text(name, body="x\n", extra="sensitive: true\n")
            (root / f"notes/project/hidden-{i}.md").write_text(text)
        (root / "notes/project/shown.md").write_text(note_text("The shown queue", body="x\n"))
        palace = Palace.open(root)
        hidden = [n for n in palace.notes if n.rel != "notes/project/shown.md"]
        terms = {t for n in hidden for t in (n.rel, n.rel.removesuffix(".md"), n.slug, n.name)}
        _TRICKY_SERVED["s"] = (Served(palace, palace.config), terms)
    return _TRICKY_SERVED["s"]


def test_a_note_served_again_is_withheld_again(root: Path) -> None:
    # `links_in` keeps its answer for the note it served (a search shows the same notes again):
    # the same answer for the same note and text, and the text worked out afresh otherwise
    palace = Palace.open(root)
    served = Served.of(palace)
    for form in FORMS:
        for field in ("md_link", "wikilink"):
            note = palace.by_rel[f"notes/project/zebu-{field}-{form}.md"]
            first = served.links_in(note, note.body)
            assert WITHHELD in first and not _leaks(first)
            assert served.links_in(note, note.body) is first  # kept, not worked out again
            assert served.links_in(note, "Plain text.") == "Plain text."  # another text
            assert served.links_in(note, note.body) == first

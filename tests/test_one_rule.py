"""Rules written once: a name's uniqueness (check, promote, merge agree on every spelling),
the status table (schema, the CLI's --status, the replaced predicate), and the visibility gate
(the model's `is_visible` and the Filter's renderings of it over the index row)."""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text, run_main

from curator.config import Config, load_config
from curator.model.note import parse_note
from curator.model.palace import Palace
from curator.model.schema import BY_NAME, NOTE_STATUSES, STATUSES, is_replaced, name_key
from curator.search.filters import Filter, note_row, visible
from curator.writer.actions.common import ActionError
from curator.writer.actions.merge import plan_merge
from curator.writer.actions.promote import plan_promote, validate_promote

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.vault]\nsensitive = true\n'
CURATOR = Path(__file__).resolve().parent.parent / "curator"
spellings = st.sampled_from(["Deploy Rule", "deploy rule", " Deploy  Rule ", "DEPLOY   RULE"])


@functools.cache
def _sources() -> dict[str, str]:
    """curator's modules' text by path (read once a test process: the tests only read it)."""
    return {str(p.relative_to(CURATOR)): p.read_text() for p in CURATOR.rglob("*.py")}


@functools.cache
def _trees() -> dict[str, ast.Module]:
    """curator's modules parsed (once a test process, ~0.5 s of CPU)."""
    return {rel: ast.parse(text) for rel, text in _sources().items()}


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(first=spellings, second=spellings)
def test_check_promote_and_merge_agree_on_a_name(
    first: str, second: str, make_palace: MakePalace, run_cli: RunCli
) -> None:
    assert name_key(first) == name_key(second)
    root = make_palace(
        {
            "notes/project/a.md": note_text(first.strip() or "x", extra="confidence: 0.9\n"),
            "notes/project/b.md": note_text("Other", extra="confidence: 0.9\n"),
            "notes/project/c.md": note_text("Third", extra="confidence: 0.9\n"),
            "inbox/2026-01-01-d.md": f"---\nname: {json.dumps(second)}\ndescription: d\n"
            "type: project\nstatus: draft\n---\nBody.\n",
        }
    )
    palace = Palace.open(root)
    problems = validate_promote(palace, "inbox/2026-01-01-d.md", {"confidence": 0.9})
    assert any("already exists" in p for p in problems), problems
    with pytest.raises(ActionError, match="already exists"):
        plan_promote(palace, "inbox/2026-01-01-d.md", confidence=0.9)
    with pytest.raises(ActionError, match="already exists"):
        plan_merge(palace, ["notes/project/b.md", "notes/project/c.md"], second)
    (root / "notes/project/e.md").write_text(note_text(second, extra="confidence: 0.9\n"))
    _, out, _ = run_cli("--palace", root, "check", "--json")
    codes = [f["code"] for f in json.loads(out)["findings"] if f["path"] == "notes/project/e.md"]
    assert "name.duplicate" in codes


def test_one_status_table() -> None:
    assert BY_NAME["status"].allowed is not None
    assert set(NOTE_STATUSES) <= set(STATUSES) and "draft" in STATUSES
    assert "retired" in BY_NAME  # retire's own field is in the field table
    for status in STATUSES:
        note = parse_note("notes/a.md", f"---\nname: a\nstatus: {status}\n---\n".encode())
        assert is_replaced(note) == (status in ("superseded", "retired"))


def test_list_status_flag_reads_the_table(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace({"notes/project/a.md": note_text("A")})
    for status in STATUSES:
        code, _, err = run_cli("--palace", root, "list", "--status", status)
        assert code == 0, err
    code, _, err = run_cli("--palace", root, "list", "--status", "gone")
    assert code != 0 and "known: " + ", ".join(STATUSES) in err


HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "sensitive": st.sampled_from(["true", "false", '"true"', "1", "yes", "no", "null"]),
        "scope": st.sampled_from(["vault", "open", "[vault]", "null", "''"]),
        "slip": st.sampled_from(["bad: [1", "ok: 1"]),
    },
)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    root = tmp_path_factory.mktemp("gate")
    (root / "palace.toml").write_text(TOML + "\n[scopes.open]\n")
    return load_config(root)


@settings(max_examples=60, deadline=None)
@given(header=HEADERS)
def test_gate_and_filter_renderings_agree(header: dict[str, str], config: Config) -> None:
    """The model's gate on a Note, and the Filter's row check on the row the index stores."""
    lines = "".join(f"{v}\n" if k == "slip" else f"{k}: {v}\n" for k, v in header.items())
    note = parse_note("notes/project/a.md", f"---\nname: a\n{lines}---\nBody.\n".encode())

    class P:  # the two things note_row reads of a palace
        def __init__(self) -> None:
            self.config = config

        def confidence(self, _note: object) -> float:
            return 0.5

    row = note_row(P(), note)  # type: ignore[arg-type]
    flt = Filter.of(config, drafts=True)
    assert visible(config, note, include_sensitive=False) == flt.ok(row) == flt.visible(row)


def test_one_watch_filter(tmp_path: Path) -> None:
    """What the app and the agents' Memory reload on: any palace file but git's and curator's."""
    from curator.model.discovery import palace_changed

    root = tmp_path
    for rel, changed in (
        ("notes/a.md", True),
        ("palace.toml", True),
        (".gitignore", True),
        ("MEMORY.md", True),
        (".git/index", False),
        (".git", False),
        (".curator/index/x.lance", False),
    ):
        assert palace_changed(root, str(root / rel)) is changed, rel
    assert palace_changed(root, "/elsewhere/a.md")


def test_the_slug_key_is_written_once() -> None:
    """How a slug, file name or link target names a note (`schema.slug_key`) is written in one
    place: every lookup calls it instead of spelling the casefold and the suffix again."""
    from curator.model.schema import slug_key

    spelled = [rel for rel, text in _sources().items() if 'casefold().removesuffix(".md")' in text]
    assert spelled == ["model/schema.py"]
    assert slug_key("Deploy-Rule.MD".replace(".MD", ".md")) == slug_key("deploy-rule")


def test_pack_defaults_are_written_once() -> None:
    """The pack's budget and floor default to palace.toml's [agents] values
    (`search.pack.pack_defaults`): no function gives `budget` or `floor` a number of its own."""
    own = []
    for rel, tree in _trees().items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            args = node.args
            pairs = list(
                zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True)
            )
            pairs += [
                (a, d)
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None
            ]
            for arg, default in pairs:
                numeric = isinstance(default, ast.Constant) and type(default.value) in (int, float)
                if arg.arg in ("budget", "floor") and numeric:
                    own.append(f"{rel}:{node.name}")
    assert own == []


@settings(deadline=None)
@given(st.from_regex(r"\s*[0-9]{1,4}(\.[0-9]{1,2})?\s*[smhdx]?\s*\n?", fullmatch=True))
def test_one_duration_rule(text: str) -> None:
    """A duration palace.toml's check accepts is one the tasks read, and the other way round:
    the pattern is written once (config.schema.DURATION_PATTERN) and the reader uses it."""
    import re

    from curator.config.schema import DURATION_PATTERN
    from curator.tasks.settings import duration

    found = re.search(DURATION_PATTERN, text)
    seconds = duration(text)
    assert (seconds is not None) == (found is not None and float(found.group(1)) > 0)


def test_the_duration_pattern_is_written_once() -> None:
    spelled = [rel for rel, text in _sources().items() if "[smhd]" in text]
    assert spelled == ["config/schema.py"]


def test_one_fuzzy_name_matcher(make_palace: MakePalace) -> None:
    """How close a typed name is to a note's is `model.fuzzy`'s rule alone: rapidfuzz's
    matchers are called there (and, for whether two notes say the same thing, in
    `model.similar`), so the "did you mean" of a name not found and the note picker agree."""
    from curator.errors import NoteNotFound
    from curator.ui.services import notes_named

    matchers = sorted(
        rel
        for rel, tree in _trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("rapidfuzz")
        and any(a.name in ("fuzz", "process") for a in node.names)
    )
    assert matchers == ["model/fuzzy.py", "model/fuzzy.py", "model/fuzzy.py", "model/similar.py"]
    root = make_palace(
        {
            "notes/project/deploys.md": note_text("Deploys need a green main"),
            "notes/project/coffee.md": note_text("Coffee beans from Ethiopia"),
        }
    )
    palace = Palace.open(root)
    typo = "deploys need a gren main"
    with pytest.raises(NoteNotFound, match=r"did you mean deploys\?"):
        palace.find(typo)
    assert [n.slug for n in notes_named(palace, typo)] == ["deploys"]


def test_one_task_status_table() -> None:
    """The task statuses, their order and which are open are written in tasks/checkpoint.py
    alone: no other module spells two of them together (a list, a choice, an order)."""
    from curator.tasks.checkpoint import OPEN_STATUSES, STATUSES

    assert set(OPEN_STATUSES) < set(STATUSES)
    spelled = sorted(
        rel
        for rel, tree in _trees().items()
        if rel != "tasks/checkpoint.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict)
        and sum(
            isinstance(e, ast.Constant) and e.value in STATUSES
            for e in (node.keys if isinstance(node, ast.Dict) else node.elts)
        )
        >= 2
    )
    assert spelled == []


def test_task_save_refuses_a_status_from_the_one_table(make_palace: MakePalace) -> None:
    import subprocess

    from curator.tasks.checkpoint import OPEN_STATUSES, SECTIONS

    root = make_palace({})
    sections = "".join(f"## {title}\nx\n\n" for _key, title in SECTIONS)

    def task(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"CURATOR_AGENT": "alice"}
        return run_main(root, "--palace", str(root), "task", *args, stdin=sections, env=env)

    assert task("new", "t1", "--objective", "x").returncode == 0
    refused = task("save", "t1", "--status", "bogus")
    assert refused.returncode == 2, refused.stderr
    assert " or ".join(OPEN_STATUSES) in refused.stderr and "Traceback" not in refused.stderr


_KEYS = st.sampled_from(["task", "revision", "owner", "lengths", "yes", "On", "x_1", "null"])
_VALUES = st.one_of(
    st.builds(
        lambda text, ascii_only: json.dumps(text, ensure_ascii=ascii_only),
        st.text(st.characters(blacklist_categories=["Cs"]), max_size=12),
        st.booleans(),
    ),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["true", "false", "null", "[]", "[1, 0, 22]", "[01]", "1.5", "plain", "'q'"]),
    st.sampled_from(['"a\\/b"', '"\\x41"', '"tab\there"', '"\\u00e9"', "[1,2]", '""']),
)


@settings(deadline=None)
@given(
    lines=st.lists(st.tuples(_KEYS, _VALUES), max_size=6),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_one_header_parser_reads_json_lines_as_yaml_does(
    lines: list[tuple[str, str]], newline: str
) -> None:
    """The header parser's fast path (lines of JSON scalars, what task checkpoints write)
    reads every header exactly as its YAML path does, refusals included."""
    import re

    from curator.model import header

    text = "".join(f"{key}: {value}{newline}" for key, value in lines)
    try:
        by_yaml = header._yaml_header(text)
    except header.HeaderError:
        by_yaml = None
    fast = header._json_lines(text)
    if re.search(r"\\u[dD][89a-fA-F]", text):  # surrogate escapes: JSON reads what YAML refuses
        return
    assert fast is None or fast == by_yaml, (text, fast, by_yaml)


def test_one_front_matter_parser() -> None:
    """Where a header starts and ends is found by `model.note.header_bounds` alone, and its
    fields are read by `model.header.parse_header` alone (task checkpoints included): no
    other module looks for the `---` fences or parses header lines itself."""
    fence_calls = {"startswith", "find", "index", "rfind", "split", "partition"}
    found = sorted(
        rel
        for rel, tree in _trees().items()
        if rel != "model/note.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in fence_calls
        and any(
            isinstance(a, ast.Constant) and isinstance(a.value, str) and "---" in a.value
            for a in node.args
        )
    )
    assert found == []

"""palace.toml's tables as typed msgspec structs: one declaration gives parsing, defaults and
the sentence of each error (a field's `Meta(description=...)` says what it must be).

Every struct forbids unknown fields: an unknown key is an error naming it.
`[types.<name>]` and `[scopes.<name>]` are read one table at a time (see `curator.config`),
so an error names the table it is in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

from curator.config.taxonomies import TypeSpec

GLOBAL_SCOPE = "_global"
DEFAULT_ALLOW = ("test", "ls", "stat", "grep", "rg", "git", "find")
SANDBOXES = ("auto", "bwrap", "none")
# The embedders curator.search.embed provides, with the dims each accepts (None: 8..4096).
# Kept here so a bad name is a config error at load time, and model never imports search.
EMBEDDERS: dict[str, tuple[int, ...] | None] = {
    "wordllama": (64, 128, 256),
    "hash": None,
    "minilm": (384,),  # the optional extra: pip install 'curator[minilm]'
}


def is_model_path(value: str) -> bool:
    """Whether an `[index] embedder` value is the path of a model rather than a built-in."""
    return "/" in value or "\\" in value or value.startswith(("~", "."))


NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]*\Z"  # \Z: "$" would allow a final newline

Text = Annotated[str, Meta(description="a string")]
NonEmpty = Annotated[str, Meta(pattern=r"\S", description="a non-empty string")]
Unit = Annotated[float, Meta(ge=0, le=1, description="a number within 0..1")]
Program = Annotated[str, Meta(pattern=r"^[^/]+\Z")]
# a relative path that stays inside the palace ("." is the palace folder itself)
_INSIDE = r"(?s)^(?![/\\])(?!.*(?:^|[/\\])\.\.(?:[/\\]|\Z))[^\x00]+\Z"
_INSIDE_TEXT = 'a folder inside the palace ("." for the palace folder)'
# the drafts folder: one folder at the palace root (not hidden, not a path)
_FOLDER = r"^(?![.\s])[^/\\\x00-\x1f]+(?<!\s)\Z"
_FOLDER_TEXT = "a folder name at the palace root (no slashes, not starting with a dot)"


class PalaceTable(Struct, frozen=True, forbid_unknown_fields=True):
    name: Text | None = None
    taxonomy: Annotated[str, Meta(description="a taxonomy name")] = "palace"
    authority: Annotated[tuple[str, ...], Meta(description="a list of type names")] | None = None
    description: Text = ""
    # where the notes are and how their tool reads them (curator.model.layouts)
    layout: Annotated[
        Literal["curator", "claude-code", "obsidian", "basic-memory", "folder"],
        Meta(description="one of curator, claude-code, obsidian, basic-memory, folder"),
    ] = "curator"
    notes: Annotated[str, Meta(pattern=_INSIDE, description=_INSIDE_TEXT)] | None = None
    exclude: Annotated[
        tuple[Annotated[str, Meta(pattern=_INSIDE)], ...],
        Meta(description="a list of folders or files inside the notes folder"),
    ] = ()
    memory_index_lines: Annotated[int, Meta(ge=1, description="a positive integer")] = 200
    memory_index_kb: Annotated[int, Meta(ge=1, description="a positive integer")] = 25
    # where unreviewed drafts wait (git-ignored): the one place its default is written; every
    # part of curator asks `Config.inbox` (or `discovery.inbox_of`) for it
    inbox: Annotated[str, Meta(pattern=_FOLDER, description=_FOLDER_TEXT)] = "inbox"


class TypeTable(Struct, frozen=True, forbid_unknown_fields=True):
    room: NonEmpty | None = None
    purpose: Text | None = None
    confidence: Annotated[tuple[Unit, Unit], Meta(description="[min, max] within 0..1")] | None = (
        None
    )
    default_confidence: Unit | None = None
    review_after_days: Annotated[int, Meta(ge=1, description="a positive integer")] | None = None


class ScopeTable(Struct, frozen=True, forbid_unknown_fields=True):
    root: NonEmpty | None = None  # relative to the palace root; None: the repository around it
    sensitive: Annotated[bool, Meta(description="true or false")] = False
    description: Text = ""


class AuditSettings(Struct, frozen=True, forbid_unknown_fields=True):
    allow: Annotated[
        tuple[Program, ...], Meta(description="a list of program names (no paths)")
    ] = DEFAULT_ALLOW
    jobs: Annotated[int, Meta(ge=1, le=64, description="an integer from 1 to 64")] = 4
    timeout: Annotated[float, Meta(ge=0.1, le=3600, description="seconds from 0.1 to 3600")] = 10.0
    cpu_seconds: Annotated[int, Meta(ge=1, le=600, description="an integer from 1 to 600")] = 5
    memory_mb: Annotated[int, Meta(ge=16, le=65536, description="an integer from 16 to 65536")] = (
        512
    )
    output_kib: Annotated[int, Meta(ge=1, le=65536, description="an integer from 1 to 65536")] = 64
    sandbox: Annotated[
        Literal["auto", "bwrap", "none"], Meta(description="one of auto, bwrap, none")
    ] = "auto"


class IndexSettings(Struct, frozen=True, forbid_unknown_fields=True):
    # a built-in's name, or the path of a local ONNX model (made absolute against the palace)
    embedder: Annotated[
        str,
        Meta(pattern=r"\S", description="one of " + ", ".join(EMBEDDERS) + ", or a model's path"),
    ] = "wordllama"
    dim: Annotated[int, Meta(ge=8, le=4096, description="an integer from 8 to 4096")] | None = None
    low_confidence: Unit = 0.6
    # a local cross-encoder in ONNX that re-ranks the best candidates (curator.search.rerank)
    reranker: Annotated[str, Meta(pattern=r"\S", description="a model's path")] | None = None


class AgentsTable(Struct, frozen=True, forbid_unknown_fields=True):
    """[agents]: how much memory the agent-facing paths hand out (curator.agents)."""

    pack_budget: Annotated[
        int, Meta(ge=50, le=100_000, description="a whole number from 50 to 100000")
    ] = 2000  # tokens of the UserPromptSubmit memory pack
    pack_floor: Unit = 0.7  # confidence floor of that pack
    max_lines: Annotated[
        int, Meta(ge=10, le=100_000, description="a whole number from 10 to 100000")
    ] = 200  # hard cap on a context file's lines (curator pack --into)
    always_loaded: Annotated[tuple[NonEmpty, ...], Meta(description="a list of file paths")] = (
        "CLAUDE.md",
    )  # files an agent always loads; `curator check` warns past the cap


# the one duration rule: palace.toml's check, and `curator.tasks.settings.duration` reads its
# groups (the number, the unit)
DURATION_PATTERN = r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*\Z"
Duration = (
    Annotated[str, Meta(pattern=DURATION_PATTERN, description='a duration such as "30m", "2h"')]
    | Annotated[float, Meta(gt=0, description="a number of seconds")]
)


class TasksTable(Struct, frozen=True, forbid_unknown_fields=True):
    """[tasks]: whether tasks/ is committed, how often, and when a claim lapses (curator.tasks)."""

    tracked: Annotated[bool, Meta(description="true or false")] = True
    commit_saves: Annotated[bool, Meta(description="true or false")] = False
    stale_after: Duration = "2h"  # claimed but not saved for this long: flagged stale
    claim_ttl: Duration = "8h"  # a claim lapses this long after the holder's last save or claim


class TeamTable(Struct, frozen=True, forbid_unknown_fields=True):
    """[team]: a palace shared over a git remote (`curator sync`)."""

    remote: Annotated[str, Meta(pattern=NAME_PATTERN, description="a git remote's name")] = "origin"
    share_inbox: Annotated[bool, Meta(description="true or false")] = False
    # sensitive drafts (and drafts in a sensitive scope) stay local unless this says otherwise
    share_sensitive: Annotated[bool, Meta(description="true or false")] = False


class FileTables(Struct, frozen=True, forbid_unknown_fields=True):
    """The whole file. Types and scopes are tables of tables, read one by one."""

    palace: PalaceTable = PalaceTable()
    types: dict[str, Any] = {}
    scopes: dict[str, Any] = {}
    audit: AuditSettings = AuditSettings()
    index: IndexSettings = IndexSettings()
    agents: AgentsTable = AgentsTable()
    tasks: TasksTable = TasksTable()
    team: TeamTable = TeamTable()


@dataclass(frozen=True)
class ScopeSpec:
    name: str
    root: str | None = None  # relative to the palace root; None: the repository around it
    sensitive: bool = False
    description: str = ""


_PALACE = PalaceTable()
DEFAULT_INBOX = _PALACE.inbox  # for a layout or plan made before any palace.toml exists


@dataclass(frozen=True)
class Config:
    """palace.toml as curator uses it: the [palace] keys flat, their defaults from the struct."""

    root: Path
    name: str = ""
    taxonomy: str = _PALACE.taxonomy
    types: dict[str, TypeSpec] = field(default_factory=dict)
    scopes: dict[str, ScopeSpec] = field(default_factory=dict)
    authority: tuple[str, ...] = ()
    audit: AuditSettings = field(default_factory=AuditSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    layout: str = _PALACE.layout
    notes: str | None = _PALACE.notes  # None: the layout's own default
    exclude: tuple[str, ...] = _PALACE.exclude
    memory_index_lines: int = _PALACE.memory_index_lines
    memory_index_kb: int = _PALACE.memory_index_kb
    inbox: str = _PALACE.inbox  # the drafts folder, at the palace root
    agents: AgentsTable = field(default_factory=AgentsTable)
    tasks: TasksTable = field(default_factory=TasksTable)
    team: TeamTable = field(default_factory=TeamTable)

    def type_spec(self, name: object) -> TypeSpec | None:
        return self.types.get(name) if isinstance(name, str) else None

    def scope_root(self, scope: str | None) -> Path | None:
        """The project root for a scope's verify paths, or None for 'the repository'."""
        spec = self.scopes.get(scope or GLOBAL_SCOPE)
        if spec is None or spec.root is None:
            return None
        return (self.root / spec.root).resolve()

    def is_sensitive_scope(self, scope: object) -> bool:
        spec = self.scopes.get(scope) if isinstance(scope, str) else None
        return bool(spec and spec.sensitive)

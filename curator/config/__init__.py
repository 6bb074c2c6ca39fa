"""palace.toml: taxonomy, scopes, authority order, audit and index settings, validated.

Every key is known; an unknown key or a bad value is a `ConfigError` naming the file and the
line. The tables are declared once, as msgspec structs, in `curator.config.schema`; the
taxonomies in `curator.config.taxonomies`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from msgspec import structs

from curator import CONFIG_NAME
from curator.config.lines import Locator, convert
from curator.config.schema import (
    DEFAULT_ALLOW,
    EMBEDDERS,
    GLOBAL_SCOPE,
    NAME_PATTERN,
    SANDBOXES,
    AuditSettings,
    Config,
    FileTables,
    IndexSettings,
    PalaceTable,
    ScopeSpec,
    ScopeTable,
    TypeTable,
    is_model_path,
)
from curator.config.taxonomies import AUTHORITY, TAXONOMIES, TypeSpec
from curator.errors import ConfigError

__all__ = [
    "AUTHORITY",
    "CONFIG_NAME",
    "DEFAULT_ALLOW",
    "EMBEDDERS",
    "GLOBAL_SCOPE",
    "SANDBOXES",
    "TAXONOMIES",
    "AuditSettings",
    "Config",
    "IndexSettings",
    "ScopeSpec",
    "TypeSpec",
    "default_config",
    "folder_name",
    "load_config",
    "name_text",
    "parse_config",
    "render_config",
]

MAX_CONFIG_BYTES = 256 * 1024  # a real palace.toml is a few KiB
MAX_DOTTED = 8  # keys nested deeper than this (a.b.c...) cannot be a palace setting
_NAME = re.compile(NAME_PATTERN)
_DOTTED = re.compile(
    rf"^\s*\[*\s*(?:(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')\s*\.\s*){{{MAX_DOTTED},}}"
)


def load_config(root: Path) -> Config:
    """Read palace.toml under `root`; defaults apply when it is absent."""
    root = Path(root)
    path = root / CONFIG_NAME
    if not path.exists():
        return default_config(root)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path=str(path)) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"over {MAX_CONFIG_BYTES // 1024} KiB: not a palace.toml", path=str(path))
    return config_text(root, text, path)


def config_text(root: Path, text: str, path: Path) -> Config:
    """The config a palace.toml's text gives (a version of it in git history, say)."""
    return parse_config(root, _parse_toml(text, path), text, path)


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    for number, text_line in enumerate(text.splitlines(), 1):
        if _DOTTED.match(text_line):
            message = f"keys nested more than {MAX_DOTTED} deep: not a palace setting"
            raise ConfigError(message, path=str(path), line=number)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else 0
        raise ConfigError(f"not valid TOML: {exc}", path=str(path), line=line) from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise ConfigError(
            "values nested too deeply: not a palace setting", path=str(path), line=_deepest(text)
        ) from None


def _deepest(text: str) -> int:
    """The line with the most opening brackets: where a too-deep value starts."""
    counts = [line.count("[") + line.count("{") for line in text.splitlines()]
    return counts.index(max(counts)) + 1 if counts else 0


def parse_config(root: Path, data: dict[str, Any], text: str, path: Path) -> Config:
    loc = Locator(text, path)
    try:
        tables: FileTables = convert(data, FileTables, loc, "")
    except RecursionError:
        raise ConfigError("values nested too deeply", path=str(path)) from None
    palace = tables.palace
    if palace.taxonomy not in TAXONOMIES:
        known = ", ".join(TAXONOMIES)
        message = f"unknown taxonomy {palace.taxonomy!r} (known: {known})"
        raise loc.fail("palace", "taxonomy", message)
    types = {spec.name: spec for spec in TAXONOMIES[palace.taxonomy]}
    for tname, value in tables.types.items():
        section = f"types.{tname}"
        if not _NAME.fullmatch(tname):
            raise loc.fail(section, None, f"type name {tname!r} must be a plain word")
        table: TypeTable = convert(value, TypeTable, loc, section)
        types[tname] = _type_spec(tname, table, types.get(tname), loc, section)
    return Config(
        root=root,
        name=palace.name if palace.name is not None else folder_name(root),
        taxonomy=palace.taxonomy,
        types=types,
        scopes=_scopes(tables.scopes, loc),
        authority=_authority(palace.authority, palace.taxonomy, types, loc),
        audit=tables.audit,
        index=_index(tables.index, loc, root),
        layout=palace.layout,
        notes=palace.notes,
        exclude=palace.exclude,
        memory_index_lines=palace.memory_index_lines,
        memory_index_kb=palace.memory_index_kb,
        inbox=_inbox(palace, loc),
        agents=tables.agents,
        tasks=tables.tasks,
        team=tables.team,
    )


def _authority(
    given: tuple[str, ...] | None, taxonomy: str, types: dict[str, TypeSpec], loc: Locator
) -> tuple[str, ...]:
    authority = list(given) if given is not None else [t for t in AUTHORITY[taxonomy] if t in types]
    for tname in authority:
        if tname not in types:
            raise loc.fail("palace", "authority", f"authority names unknown type {tname!r}")
    return tuple(authority) + tuple(t for t in types if t not in authority)


def _inbox(palace: PalaceTable, loc: Locator) -> str:
    """The drafts folder, which may not be the notes folder (a draft is never a note)."""
    notes = palace.notes if palace.notes is not None else "notes"  # curator's own notes root
    if palace.inbox.casefold() == notes.strip("/").casefold():
        message = f"inbox {palace.inbox!r} is the notes folder: drafts need a folder of their own"
        raise loc.fail("palace", "inbox", message)
    return palace.inbox


def _scopes(tables: dict[str, Any], loc: Locator) -> dict[str, ScopeSpec]:
    scopes = {GLOBAL_SCOPE: ScopeSpec(GLOBAL_SCOPE, description="shared across projects")}
    for sname, value in tables.items():
        section = f"scopes.{sname}"
        if not _NAME.fullmatch(sname):
            raise loc.fail(section, None, f"scope name {sname!r} must be a plain word")
        table: ScopeTable = convert(value, ScopeTable, loc, section)
        scopes[sname] = ScopeSpec(sname, table.root, table.sensitive, table.description)
    return scopes


def _type_spec(
    name: str, table: TypeTable, base: TypeSpec | None, loc: Locator, section: str
) -> TypeSpec:
    spec = base or TypeSpec(name, name.title(), "", (0.0, 1.0), 0.8)
    changes = {
        key: getattr(table, key)
        for key in ("room", "purpose", "default_confidence", "review_after_days")
        if getattr(table, key) is not None
    }
    if table.confidence is not None:
        lo, hi = table.confidence
        if lo > hi:
            raise loc.fail(section, "confidence", "confidence must be [min, max] within 0..1")
        changes["confidence"] = (float(lo), float(hi))
    spec = replace(spec, **changes)
    lo, hi = spec.confidence
    if not lo <= spec.default_confidence <= hi:
        if table.default_confidence is not None:
            message = f"default_confidence must lie within the type's range {lo}..{hi}"
            raise loc.fail(section, "default_confidence", message)
        spec = replace(spec, default_confidence=min(max(spec.default_confidence, lo), hi))
    return spec


def _index(settings: IndexSettings, loc: Locator, root: Path) -> IndexSettings:
    """Checks what the schema cannot; model paths made absolute (relative: to the palace)."""
    if settings.reranker is not None:
        settings = structs.replace(settings, reranker=_model_path(root, settings.reranker))
    if settings.embedder not in EMBEDDERS:
        if not is_model_path(settings.embedder):
            names = ", ".join(EMBEDDERS)
            got = settings.embedder
            message = f"embedder must be one of {names}, or a model's path (got {got!r})"
            raise loc.fail("index", "embedder", message)
        if settings.dim is not None:
            message = "dim does not apply to a model's path: its vectors are as wide as it gives"
            raise loc.fail("index", "dim", message)
        return structs.replace(settings, embedder=_model_path(root, settings.embedder))
    dims = EMBEDDERS[settings.embedder]
    if settings.dim is not None and dims is not None and settings.dim not in dims:
        allowed = ", ".join(map(str, dims))
        message = f"dim must be one of {allowed} for the {settings.embedder} embedder"
        raise loc.fail("index", "dim", message)
    return settings


def _model_path(root: Path, value: str) -> str:
    return str((Path(root) / Path(value).expanduser()).resolve())


def folder_name(root: Path) -> str:
    """The palace's default name: its folder's name (see `name_text`)."""
    return name_text(Path(root).resolve().name)


def name_text(name: str) -> str:
    """A name from the file system or the command line as text that can be written anywhere
    (palace.toml, INDEX.md, a commit message): bytes that are not UTF-8 become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def default_config(root: Path, taxonomy: str = "palace") -> Config:
    return Config(
        root=Path(root),
        name=folder_name(root),
        taxonomy=taxonomy,
        types={spec.name: spec for spec in TAXONOMIES[taxonomy]},
        scopes={GLOBAL_SCOPE: ScopeSpec(GLOBAL_SCOPE, description="shared across projects")},
        authority=AUTHORITY[taxonomy],
    )


def render_config(
    name: str,
    taxonomy: str,
    *,
    layout: str | None = None,
    notes: str | None = None,
    inbox: str | None = None,
) -> str:
    """The palace.toml that `curator init` writes: every setting with its default, taken from
    the structs that read the file (written by a TOML writer, so any name round-trips)."""
    import msgspec
    import tomli_w

    if taxonomy not in TAXONOMIES:
        raise ConfigError(f"unknown taxonomy {taxonomy!r} (known: {', '.join(TAXONOMIES)})")
    defaults = {  # None means "not set" (TOML has no null): such a key is left out
        table: {k: v for k, v in values.items() if v is not None}
        for table, values in msgspec.to_builtins(FileTables()).items()
    }
    palace = {"name": name, "taxonomy": taxonomy, "authority": list(AUTHORITY[taxonomy])}
    if layout is not None:
        palace["layout"] = layout
    if notes is not None:
        palace["notes"] = notes
    if inbox is not None:
        palace["inbox"] = inbox
    for key, value in defaults.pop("palace").items():
        palace.setdefault(key, value)
    tables = {"palace": palace, **{k: v for k, v in defaults.items() if v != {}}}
    types = [
        f"# [types.{spec.name}]  room = {_toml(spec.room)}, confidence = "
        f"{list(spec.confidence)}, default_confidence = {spec.default_confidence}, "
        f"review_after_days = {spec.review_after_days}"
        for spec in TAXONOMIES[taxonomy]
    ]
    head = "# curator palace settings. Every key is optional; these are the defaults.\n"
    tail = [
        "",
        "# Types come from the taxonomy; override a field or add a type like this:",
        *types,
        "",
        "# Project spaces. A scope's root is where its notes' verify paths are checked.",
        "# [scopes.myproject]",
        '# root = "../myproject"',
        "# sensitive = false",
        "",
        "# [index] embedder is one of " + ", ".join(_toml(e) for e in EMBEDDERS),
        "",
    ]
    return head + tomli_w.dumps(tables) + "\n".join(tail)


def _toml(value: str) -> str:
    import tomli_w

    return tomli_w.dumps({"v": value})[4:].strip()

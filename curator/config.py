"""palace.toml: taxonomy, scopes, authority order, audit and index settings, validated.

Every key is known; an unknown key or a bad value is a `ConfigError` naming the line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from curator.errors import ConfigError

CONFIG_NAME = "palace.toml"
GLOBAL_SCOPE = "_global"
DEFAULT_ALLOW = ("test", "ls", "stat", "grep", "rg", "git", "find")
SANDBOXES = ("auto", "bwrap", "none")


@dataclass(frozen=True)
class TypeSpec:
    name: str
    room: str
    purpose: str
    confidence: tuple[float, float]
    default_confidence: float
    review_after_days: int = 90


@dataclass(frozen=True)
class ScopeSpec:
    name: str
    root: str | None = None  # relative to the palace root; None: the repository around it
    sensitive: bool = False
    description: str = ""


@dataclass(frozen=True)
class AuditSettings:
    allow: tuple[str, ...] = DEFAULT_ALLOW
    jobs: int = 4
    timeout: float = 10.0
    cpu_seconds: int = 5
    memory_mb: int = 512
    output_kib: int = 64
    sandbox: str = "auto"


@dataclass(frozen=True)
class IndexSettings:
    embedder: str = "wordllama"
    dim: int | None = None
    low_confidence: float = 0.6


@dataclass(frozen=True)
class Config:
    root: Path
    name: str = ""
    taxonomy: str = "palace"
    types: dict[str, TypeSpec] = field(default_factory=dict)
    scopes: dict[str, ScopeSpec] = field(default_factory=dict)
    authority: tuple[str, ...] = ()
    audit: AuditSettings = AuditSettings()
    index: IndexSettings = IndexSettings()

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


TAXONOMIES: dict[str, tuple[TypeSpec, ...]] = {
    "palace": (
        TypeSpec(
            "user", "Who you work for", "who the person is and what they prefer", (0.8, 1.0), 0.9
        ),
        TypeSpec("feedback", "Rules", "a rule about how to work", (0.7, 1.0), 0.9),
        TypeSpec("project", "Project facts", "a fact about a system", (0.5, 1.0), 0.8),
        TypeSpec("reference", "References", "where to find something", (0.5, 1.0), 0.8),
    ),
    "five-types": (
        TypeSpec("principle", "Principles", "rules that never change", (1.0, 1.0), 1.0),
        TypeSpec(
            "semantic",
            "Semantic facts",
            "cross-run facts: what works, what fails",
            (0.7, 0.95),
            0.8,
        ),
        TypeSpec(
            "procedural", "Procedures", "how to do something, learned by doing", (0.6, 0.9), 0.75
        ),
        TypeSpec("episodic", "Episodes", "what happened in one run", (1.0, 1.0), 1.0),
        TypeSpec("reflective", "Reflections", "patterns across many runs", (0.7, 0.95), 0.8),
    ),
}
AUTHORITY = {
    "palace": ("user", "feedback", "project", "reference"),
    "five-types": ("principle", "semantic", "procedural", "reflective", "episodic"),
}

# [agents] is read and checked by curator.agents.settings, [tasks] by curator.tasks.settings
_SECTIONS = {"palace", "types", "scopes", "audit", "index", "agents", "tasks"}
_PALACE_KEYS = {"name", "taxonomy", "authority", "description"}
_TYPE_KEYS = {"room", "purpose", "confidence", "default_confidence", "review_after_days"}
_SCOPE_KEYS = {"root", "sensitive", "description"}
_AUDIT_KEYS = {"allow", "jobs", "timeout", "cpu_seconds", "memory_mb", "output_kib", "sandbox"}
_INDEX_KEYS = {"embedder", "dim", "low_confidence"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


class _Locator:
    """Finds the line of a key in the TOML text (tomllib keeps no positions)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def line(self, section: str, key: str | None = None) -> int:
        parts = section.split(".")
        header = re.compile(
            r"^\s*\[+\s*"
            + r"\s*\.\s*".join(r"[\"']?" + re.escape(p) + r"[\"']?" for p in parts)
            + r"\s*\]+"
        )
        start = next((i for i, ln in enumerate(self.lines) if header.match(ln)), None)
        if start is None:
            # No [section] header: the table may be written as a value, `section = ...` at
            # the top level or `leaf = ...` inside its parent table.
            if len(parts) > 1:
                return self.line(".".join(parts[:-1]), parts[-1])
            top = re.compile(r"^\s*[\"']?" + re.escape(section) + r"[\"']?\s*[=.]")
            for i, ln in enumerate(self.lines):
                if re.match(r"^\s*\[", ln):
                    break
                if top.match(ln):
                    return i + 1
            return 0
        if key is None:
            return start + 1
        key_re = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*[=.]")
        for i in range(start + 1, len(self.lines)):
            if re.match(r"^\s*\[", self.lines[i]):
                break
            if key_re.match(self.lines[i]):
                return i + 1
        return start + 1


def _fail(loc: _Locator, path: Path, section: str, key: str | None, message: str) -> ConfigError:
    return ConfigError(message, path=str(path), line=loc.line(section, key))


def _unknown(keys: dict[str, Any], allowed: set[str]) -> list[str]:
    return sorted(k for k in keys if k not in allowed)


def _check_keys(
    table: Any, allowed: set[str], loc: _Locator, path: Path, section: str
) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise _fail(loc, path, section, None, f"[{section}] must be a table")
    for key in _unknown(table, allowed):
        known = ", ".join(sorted(allowed))
        raise _fail(loc, path, section, key, f"unknown key {key!r} in [{section}] (known: {known})")
    return table


def _number(value: Any, lo: float, hi: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and lo <= value <= hi


def load_config(root: Path) -> Config:
    """Read palace.toml under `root`; defaults apply when it is absent."""
    root = Path(root)
    path = root / CONFIG_NAME
    if not path.exists():
        return default_config(root)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path=str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise ConfigError(
            f"not valid TOML: {exc}", path=str(path), line=int(match.group(1)) if match else 0
        ) from None
    return parse_config(root, data, text, path)


def parse_config(root: Path, data: dict[str, Any], text: str, path: Path) -> Config:
    loc = _Locator(text)
    for key in _unknown(data, _SECTIONS):
        raise ConfigError(
            f"unknown section or key {key!r} (known: {', '.join(sorted(_SECTIONS))})",
            path=str(path),
            line=loc.line(key)
            or next((i + 1 for i, ln in enumerate(loc.lines) if ln.strip().startswith(key)), 0),
        )
    palace = _check_keys(data.get("palace", {}), _PALACE_KEYS, loc, path, "palace")
    taxonomy = palace.get("taxonomy", "palace")
    if taxonomy not in TAXONOMIES:
        raise _fail(
            loc,
            path,
            "palace",
            "taxonomy",
            f"unknown taxonomy {taxonomy!r} (known: {', '.join(TAXONOMIES)})",
        )
    name = palace.get("name", root.resolve().name)
    if not isinstance(name, str):
        raise _fail(loc, path, "palace", "name", "name must be a string")

    types = {spec.name: spec for spec in TAXONOMIES[taxonomy]}
    raw_types = data.get("types", {})
    type_tables = _check_keys(
        raw_types, set(raw_types) if isinstance(raw_types, dict) else set(), loc, path, "types"
    )
    for tname, table in type_tables.items():
        section = f"types.{tname}"
        if not _NAME.match(tname):
            raise _fail(loc, path, section, None, f"type name {tname!r} must be a plain word")
        table = _check_keys(table, _TYPE_KEYS, loc, path, section)
        types[tname] = _type_spec(tname, table, types.get(tname), loc, path, section)

    authority = palace.get("authority", [t for t in AUTHORITY[taxonomy] if t in types])
    if not isinstance(authority, list) or not all(isinstance(a, str) for a in authority):
        raise _fail(loc, path, "palace", "authority", "authority must be a list of type names")
    for tname in authority:
        if tname not in types:
            raise _fail(loc, path, "palace", "authority", f"authority names unknown type {tname!r}")
    authority = list(authority) + [t for t in types if t not in authority]

    scopes = {GLOBAL_SCOPE: ScopeSpec(GLOBAL_SCOPE, description="shared across projects")}
    scope_tables = data.get("scopes", {})
    _check_keys(
        scope_tables,
        set(scope_tables) if isinstance(scope_tables, dict) else set(),
        loc,
        path,
        "scopes",
    )
    for sname, table in scope_tables.items():
        section = f"scopes.{sname}"
        if not _NAME.match(sname):
            raise _fail(loc, path, section, None, f"scope name {sname!r} must be a plain word")
        table = _check_keys(table, _SCOPE_KEYS, loc, path, section)
        root_value = table.get("root")
        if root_value is not None and (not isinstance(root_value, str) or not root_value.strip()):
            raise _fail(loc, path, section, "root", "root must be a non-empty path string")
        sensitive = table.get("sensitive", False)
        if not isinstance(sensitive, bool):
            raise _fail(loc, path, section, "sensitive", "sensitive must be true or false")
        desc = table.get("description", "")
        if not isinstance(desc, str):
            raise _fail(loc, path, section, "description", "description must be a string")
        scopes[sname] = ScopeSpec(sname, root_value, sensitive, desc)

    return Config(
        root=root,
        name=name,
        taxonomy=taxonomy,
        types=types,
        scopes=scopes,
        authority=tuple(authority),
        audit=_audit(data.get("audit", {}), loc, path),
        index=_index(data.get("index", {}), loc, path),
    )


def _type_spec(
    name: str, table: dict[str, Any], base: TypeSpec | None, loc: _Locator, path: Path, section: str
) -> TypeSpec:
    spec = base or TypeSpec(name, name.title(), "", (0.0, 1.0), 0.8)
    if "room" in table:
        if not isinstance(table["room"], str) or not table["room"].strip():
            raise _fail(loc, path, section, "room", "room must be a non-empty string")
        spec = replace(spec, room=table["room"])
    if "purpose" in table:
        if not isinstance(table["purpose"], str):
            raise _fail(loc, path, section, "purpose", "purpose must be a string")
        spec = replace(spec, purpose=table["purpose"])
    if "confidence" in table:
        rng = table["confidence"]
        if not (
            isinstance(rng, list)
            and len(rng) == 2
            and all(_number(v, 0, 1) for v in rng)
            and rng[0] <= rng[1]
        ):
            raise _fail(
                loc, path, section, "confidence", "confidence must be [min, max] within 0..1"
            )
        spec = replace(spec, confidence=(float(rng[0]), float(rng[1])))
    if "default_confidence" in table:
        if not _number(table["default_confidence"], 0, 1):
            raise _fail(
                loc, path, section, "default_confidence", "default_confidence must be within 0..1"
            )
        spec = replace(spec, default_confidence=float(table["default_confidence"]))
    lo, hi = spec.confidence
    if not lo <= spec.default_confidence <= hi:
        spec = replace(spec, default_confidence=min(max(spec.default_confidence, lo), hi))
        if "default_confidence" in table:
            raise _fail(
                loc,
                path,
                section,
                "default_confidence",
                f"default_confidence must lie within the type's range {lo}..{hi}",
            )
    if "review_after_days" in table:
        days = table["review_after_days"]
        if not isinstance(days, int) or isinstance(days, bool) or days < 1:
            raise _fail(
                loc,
                path,
                section,
                "review_after_days",
                "review_after_days must be a positive integer",
            )
        spec = replace(spec, review_after_days=days)
    return spec


def _audit(table: Any, loc: _Locator, path: Path) -> AuditSettings:
    table = _check_keys(table, _AUDIT_KEYS, loc, path, "audit")
    out = AuditSettings()
    if "allow" in table:
        allow = table["allow"]
        if not isinstance(allow, list) or not all(
            isinstance(a, str) and a and "/" not in a for a in allow
        ):
            raise _fail(
                loc, path, "audit", "allow", "allow must be a list of program names (no paths)"
            )
        out = replace(out, allow=tuple(allow))
    for key, lo, hi in (
        ("jobs", 1, 64),
        ("cpu_seconds", 1, 600),
        ("memory_mb", 16, 65536),
        ("output_kib", 1, 65536),
    ):
        if key in table:
            value = table[key]
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise _fail(loc, path, "audit", key, f"{key} must be an integer from {lo} to {hi}")
            out = replace(out, **{key: value})  # type: ignore[arg-type]
    if "timeout" in table:
        if not _number(table["timeout"], 0.1, 3600):
            raise _fail(loc, path, "audit", "timeout", "timeout must be seconds from 0.1 to 3600")
        out = replace(out, timeout=float(table["timeout"]))
    if "sandbox" in table:
        if table["sandbox"] not in SANDBOXES:
            raise _fail(
                loc, path, "audit", "sandbox", f"sandbox must be one of {', '.join(SANDBOXES)}"
            )
        out = replace(out, sandbox=table["sandbox"])
    return out


def _index(table: Any, loc: _Locator, path: Path) -> IndexSettings:
    table = _check_keys(table, _INDEX_KEYS, loc, path, "index")
    out = IndexSettings()
    if "embedder" in table:
        if not isinstance(table["embedder"], str) or not _NAME.match(table["embedder"]):
            raise _fail(
                loc, path, "index", "embedder", 'embedder must be a name such as "wordllama"'
            )
        out = replace(out, embedder=table["embedder"])
    if "dim" in table:
        dim = table["dim"]
        if not isinstance(dim, int) or isinstance(dim, bool) or not 8 <= dim <= 4096:
            raise _fail(loc, path, "index", "dim", "dim must be an integer from 8 to 4096")
        out = replace(out, dim=dim)
    if "low_confidence" in table:
        if not _number(table["low_confidence"], 0, 1):
            raise _fail(loc, path, "index", "low_confidence", "low_confidence must be within 0..1")
        out = replace(out, low_confidence=float(table["low_confidence"]))
    return out


def default_config(root: Path, taxonomy: str = "palace") -> Config:
    return Config(
        root=Path(root),
        name=Path(root).resolve().name,
        taxonomy=taxonomy,
        types={spec.name: spec for spec in TAXONOMIES[taxonomy]},
        scopes={GLOBAL_SCOPE: ScopeSpec(GLOBAL_SCOPE, description="shared across projects")},
        authority=AUTHORITY[taxonomy],
    )


def render_config(name: str, taxonomy: str) -> str:
    """The palace.toml that `curator init` writes: every setting shown with its default."""
    if taxonomy not in TAXONOMIES:
        raise ConfigError(f"unknown taxonomy {taxonomy!r} (known: {', '.join(TAXONOMIES)})")
    lines = [
        "# curator palace settings. Every key is optional; these are the defaults.",
        "[palace]",
        f"name = {_toml_str(name)}",
        f"taxonomy = {_toml_str(taxonomy)}",
        "authority = [" + ", ".join(_toml_str(t) for t in AUTHORITY[taxonomy]) + "]",
        "",
        "# Types come from the taxonomy; override a field or add a type like this:",
    ]
    for spec in TAXONOMIES[taxonomy]:
        lo, hi = spec.confidence
        lines.append(
            f"# [types.{spec.name}]  room = {_toml_str(spec.room)}, confidence = [{lo}, {hi}],"
            f" default_confidence = {spec.default_confidence},"
            f" review_after_days = {spec.review_after_days}"
        )
    lines += [
        "",
        "# Project spaces. A scope's root is where its notes' verify paths are checked.",
        "# [scopes.myproject]",
        '# root = "../myproject"',
        "# sensitive = false",
        "",
        "[audit]",
        "allow = [" + ", ".join(_toml_str(a) for a in DEFAULT_ALLOW) + "]",
        "jobs = 4",
        'sandbox = "auto"',
        "",
        "[index]",
        'embedder = "wordllama"',
        "",
    ]
    return "\n".join(lines)


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

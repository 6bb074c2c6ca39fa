"""palace.toml: optional, validated, every bad key or value named with its line."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import RunCli

from curator.config import TAXONOMIES, default_config, load_config, parse_config, render_config
from curator.errors import ConfigError
from curator.tasks.settings import TaskSettings, load_settings


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "palace.toml").write_text(text)
    return tmp_path


def test_no_palace_toml_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.taxonomy == "palace"
    assert list(config.types) == ["user", "feedback", "project", "reference"]
    assert config.authority == ("user", "feedback", "project", "reference")
    assert config.name == tmp_path.name
    assert "_global" in config.scopes
    assert config.audit.jobs == 4


def test_five_types_taxonomy(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[palace]\ntaxonomy = "five-types"\n'))
    ranges = {name: spec.confidence for name, spec in config.types.items()}
    assert ranges == {
        "principle": (1.0, 1.0),
        "semantic": (0.7, 0.95),
        "procedural": (0.6, 0.9),
        "episodic": (1.0, 1.0),
        "reflective": (0.7, 0.95),
    }
    for spec in config.types.values():
        lo, hi = spec.confidence
        assert lo <= spec.default_confidence <= hi


def test_palace_taxonomy_has_four_types_in_order(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[palace]\ntaxonomy = "palace"\n'))
    assert list(config.types) == ["user", "feedback", "project", "reference"]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('[palace]\nname = "x"\n\n[bogus]\nkey = 1\n', 4, "bogus"),
        ('[palace]\nname = "x"\n\n[audit]\njobs = 2\ncolour = "red"\n', 6, "colour"),
        ('# comment\n[palace]\nname = "x"\ntaxonomy = "seven-types"\n', 4, "taxonomy"),
        ("[palace]\n\n[types.project]\nroom = 'Facts'\nconfidence = [0.5]\n", 5, "confidence"),
        ("[types.project]\nconfidence = 0.5\n", 2, "confidence"),
        ("[types.project]\nconfidence = [0.9, 0.5]\n", 2, "confidence"),
        ('[scopes.app]\nroot = "app"\nsensitive = "yes"\n', 3, "sensitive"),
        ("[audit]\njobs = 0\n", 2, "jobs"),
        ('[audit]\nallow = ["/bin/sh"]\n', 2, "allow"),
        ('[audit]\nsandbox = "docker"\n', 2, "sandbox"),
        ("[index]\nlow_confidence = 2\n", 2, "low_confidence"),
        ('[palace]\nauthority = ["user", "nope"]\n', 2, "nope"),
        ("[palace]\nname = 3\n", 2, "name"),
        ('[types.project]\nroom = "R"\nshape = 1\n', 3, "shape"),
        # tables written as values, quoted names, dotted keys
        ('# palace\nname = "x"\n', 2, "name"),
        ("[palace]\n\n[index]\n[x]\n", 4, "x"),
        ("types = 1\n", 1, "[types] must be a table"),
        ('\nscopes = "app"\n', 2, "[scopes] must be a table"),
        ("[palace]\nname = 'n'\n[audit]\njobs = 1\n[types]\nproject = 1\n", 6, "types.project"),
        ('[scopes.ok]\nroot = "x"\n[scopes."ok2"]\nsensitive = 1\n', 4, "sensitive"),
        ('[scopes."bad name"]\nroot = "x"\n', 1, "plain word"),
        ('[palace]\nname = "x"\n\nscopes.app.sensitive = "yes"\n', 4, "unknown key 'scopes'"),
        ('scopes.app.sensitive = "yes"\n', 1, "sensitive must be true or false"),
    ],
)
def test_bad_config_names_the_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    err = info.value
    assert err.line == line, str(err)
    assert words in err.message
    assert err.path is not None and err.path.endswith("palace.toml")
    assert f"palace.toml:{line}:" in str(err)


def test_invalid_toml_syntax_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, '[palace]\nname = "x"\ntaxonomy = \n'))
    assert info.value.line == 3


def test_overrides_and_new_types(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            "[types.project]\nconfidence = [0.6, 0.9]\nreview_after_days = 30\n"
            '[types.decision]\nroom = "Decisions"\n'
            '[scopes.app]\nroot = "app"\nsensitive = true\n'
            '[audit]\njobs = 2\nallow = ["git", "test"]\n',
        )
    )
    assert config.types["project"].confidence == (0.6, 0.9)
    assert config.types["project"].default_confidence == 0.8
    assert config.types["project"].review_after_days == 30
    assert list(config.types)[-1] == "decision"
    assert config.authority[-1] == "decision"
    assert config.is_sensitive_scope("app") and not config.is_sensitive_scope("_global")
    assert config.scope_root("app") == (tmp_path / "app").resolve()
    assert config.audit.allow == ("git", "test")


@pytest.mark.parametrize("taxonomy", sorted(TAXONOMIES))
def test_rendered_config_loads_back(tmp_path: Path, taxonomy: str) -> None:
    config = load_config(write(tmp_path, render_config('my "palace"', taxonomy)))
    assert config.name == 'my "palace"'
    assert config.taxonomy == taxonomy
    assert list(config.types) == [t.name for t in TAXONOMIES[taxonomy]]
    # the file's values are the structs' defaults: one declaration, nothing written twice
    expected = replace(default_config(tmp_path, taxonomy), name='my "palace"')
    assert config == expected
    assert load_settings(tmp_path) == TaskSettings()


@settings(deadline=None)
@given(name=st.text(max_size=30), layout=st.sampled_from(["curator", "claude-code", "folder"]))
def test_any_name_round_trips_through_the_rendered_file(name: str, layout: str) -> None:
    text = render_config(name, "palace", layout=layout, notes=".")
    config = parse_config(Path("/p"), tomllib.loads(text), text, Path("/p/palace.toml"))
    assert (config.name, config.layout, config.notes) == (name, layout, ".")


# -- hostile palace.toml (issue 11): one line naming the file, never a traceback ------------
DEEP = 5000


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[palace]\nname = " + "[" * DEEP + "]" * DEEP + "\n", 2),
        ("x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n", 1),
        ("[palace]\n" + ".".join(["a"] * DEEP) + " = 1\n", 2),
        ("[" + ".".join(["t"] * DEEP) + "]\n", 1),
        ("[[" + ".".join(["t"] * DEEP) + "]]\n", 1),
    ],
    ids=["array", "inline-table", "dotted-key", "table", "array-of-tables"],
)
def test_deeply_nested_toml_is_one_config_error(tmp_path: Path, text: str, line: int) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert info.value.line == line and "\n" not in str(info.value)


def test_deep_toml_through_the_cli_is_exit_2_without_traceback(
    tmp_path: Path, run_cli: RunCli
) -> None:
    (tmp_path / "notes").mkdir()
    write(tmp_path, "[audit]\nallow = " + "[" * DEEP + "]" * DEEP + "\n")
    rc, _, err = run_cli("--palace", tmp_path, "check")
    assert rc == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and "palace.toml:2:" in err


def test_unknown_embedder_is_an_error_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, '[index]\nembedder = "openai"\n'))
    assert info.value.line == 2 and "wordllama" in info.value.message
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, '[index]\nembedder = "wordllama"\ndim = 100\n'))
    assert info.value.line == 3 and "64, 128, 256" in info.value.message
    config = load_config(write(tmp_path, '[index]\nembedder = "hash"\ndim = 100\n'))
    assert (config.index.embedder, config.index.dim) == ("hash", 100)


def test_embedder_names_match_the_search_embedders() -> None:
    from curator.config import EMBEDDERS
    from curator.search import embed

    assert tuple(EMBEDDERS) == embed.EMBEDDERS
    assert EMBEDDERS["wordllama"] == embed.WORDLLAMA_DIMS


FRAGMENTS = [
    "[palace]", "[types.project]", "[scopes.app]", "[audit]", "[index]", "[[x]]", "name = ",
    "taxonomy = ", "jobs = ", "allow = ", "confidence = ", "sensitive = ", "embedder = ",
    '"hash"', "'x'", "[0.5, 0.9]", "true", "1e999", "-0", "{a = 1}", "a.b.c = 1", "\n", " ",
    "[", "]", "{", "}", "=", ".", ",", '"', "#", "\\u0000", "\x00", "\ufeff",
]  # fmt: skip


@settings(deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=40))
def test_any_palace_toml_loads_or_is_a_config_error(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    root = tmp_path_factory.mktemp("toml")
    (root / "palace.toml").write_text("".join(parts), encoding="utf-8", errors="surrogatepass")
    try:
        load_config(root)
    except ConfigError as exc:
        assert exc.path is not None and "\n" not in exc.message.strip()


# (table, key, a good TOML value, a bad one): one bad value among good ones names its line
SETTINGS = [
    ("palace", "name", '"p"', "3"),
    ("palace", "taxonomy", '"palace"', '"nine-types"'),
    ("palace", "authority", '["user"]', '["nobody"]'),
    ("types.project", "room", '"Facts"', '""'),
    ("types.project", "confidence", "[0.5, 0.9]", "[0.9, 0.5]"),
    ("types.project", "review_after_days", "30", "0"),
    ("scopes.app", "root", '"app"', "[1]"),
    ("scopes.app", "sensitive", "true", '"yes"'),
    ("audit", "jobs", "2", "65"),
    ("audit", "timeout", "2.5", "-1"),
    ("audit", "allow", '["git"]', '["/bin/sh"]'),
    ("audit", "sandbox", '"none"', '"docker"'),
    ("index", "embedder", '"hash"', '"openai"'),
    ("index", "low_confidence", "0.5", "1.5"),
]


@settings(deadline=None)
@given(
    st.lists(st.sampled_from(range(len(SETTINGS))), min_size=1, max_size=10, unique=True),
    st.data(),
    st.sampled_from(["headers", "dotted", "inline"]),
)
def test_one_bad_value_is_reported_at_its_line(
    tmp_path_factory: pytest.TempPathFactory, chosen: list[int], data: st.DataObject, style: str
) -> None:
    """Tables in any order, written under [table] headers, as dotted keys at the top, or as
    inline tables: the error names the line of the one bad key (an inline table's line)."""
    bad = data.draw(st.sampled_from(chosen))
    lines: list[str] = []
    where = 0
    for table in dict.fromkeys(SETTINGS[i][0] for i in chosen):
        pairs = [
            (i, f"{key} = {wrong if i == bad else good}")
            for i in chosen
            for t, key, good, wrong in [SETTINGS[i]]
            if t == table
        ]
        if style == "inline":
            lines.append(f"{table} = {{{', '.join(p for _, p in pairs)}}}")
            where = len(lines) if any(i == bad for i, _ in pairs) else where
            continue
        if style == "headers":
            lines.append(f"[{table}]")
        for i, pair in pairs:
            lines.append(f"{table}.{pair}" if style == "dotted" else pair)
            where = len(lines) if i == bad else where
        lines.append("")
    root = tmp_path_factory.mktemp("cfg")
    (root / "palace.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(root)
    assert info.value.line == where, ("\n".join(lines), str(info.value))
    assert SETTINGS[bad][1] in info.value.message or "nobody" in info.value.message
